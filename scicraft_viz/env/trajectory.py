"""Trajectory files: what an agent (or a person) did in the environment, one JSON line per call.

    >>> from scicraft_viz import trajectory
    >>> t = trajectory.read("trajectories/working_A_L4.jsonl")
    >>> t.ok, t.task_id, len(t.steps)
    (True, 'A_simultaneous_lights_L4', 154)
    >>> t.steps[0].tool, t.steps[0].args
    ('set-block', {'pos': [-9, 4, -8], 'block': 'redstone_lamp'})

Format (docs/trajectory.md, schema in `schemas/trajectory.schema.json`): a header line (task id,
actor, run id, start time, trial budget, environment settings), then `step` lines (step index,
seconds since the start, tool, arguments, result) and optional `reasoning` lines that precede
the step they explain. Reading never raises on bad content: every malformed line becomes a
`Problem` naming the file and line, and the rest of the file still loads.
"""

from __future__ import annotations

import io
import json
import os
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from scicraft_viz.validation import jsonschema as _jsonschema

if TYPE_CHECKING:
    import jsonschema

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "trajectory.schema.json"
FORMAT = "scicraft-trajectory"
VERSION = 5
# 2 added header.condition and step.usage; 3 the protocol (header.setting as a name, consolidation,
# curriculum, book, session) and step.agent, with the book and scientist calls; 4 header.observation and
# the render-view call; 5 header.rules (the ruleset, engine/rules.py). Older files still load (as vanilla).
VERSIONS = (1, 2, 3, 4, 5)
TOOLS = ("set-block", "get-block-state", "get-event-stream", "scan-redstone-area", "activate-button", "submit",
         "read-knowledge-book", "update-knowledge-book", "ask-scientist", "archive-experiment-report",
         "end-experiment", "render-view", "unknown-tool")
ACTOR_KINDS = ("model", "human", "script")
LINE_TYPES = ("header", "step", "reasoning")
MAX_LINE_BYTES = 64 * 1024 * 1024


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=4)
def _validator(kind: str) -> jsonschema.Draft202012Validator:
    s = schema()
    return _jsonschema().Draft202012Validator({"$ref": f"#/$defs/{kind}", "$defs": s["$defs"]})


# ---------------------------------------------------------------------------------------- records
@dataclass
class Problem:
    """Something wrong with one line (or the file): `source:line: message`."""

    source: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.message}" if self.line else f"{self.source}: {self.message}"


@dataclass
class Step:
    index: int
    wall_s: float
    tool: str
    args: dict
    result: dict
    line: int = 0
    usage: dict | None = None
    agent: str = "engineer"

    @property
    def ok(self) -> bool:
        return bool(self.result.get("ok"))

    def to_json(self) -> dict:
        d = {"type": "step", "step": self.index, "wall_s": self.wall_s, "tool": self.tool, "args": self.args,
             "result": self.result}
        if self.usage:
            d["usage"] = self.usage
        if self.agent != "engineer":
            d["agent"] = self.agent
        return d


@dataclass
class Reasoning:
    before_step: int
    text: str
    wall_s: float | None = None
    line: int = 0
    usage: dict | None = None

    def to_json(self) -> dict:
        d: dict[str, Any] = {"type": "reasoning", "step": self.before_step}
        if self.wall_s is not None:
            d["wall_s"] = self.wall_s
        d["text"] = self.text
        if self.usage:
            d["usage"] = self.usage
        return d


@dataclass
class Trajectory:
    """A parsed trajectory: header (None if missing or broken), steps and reasoning in file order,
    and every problem found."""

    source: str
    header: dict | None
    steps: list[Step] = field(default_factory=list)
    reasoning: list[Reasoning] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def task_id(self) -> str | None:
        return self.header.get("task_id") if self.header else None

    @property
    def actor(self) -> dict:
        return dict(self.header.get("actor", {})) if self.header else {}

    @property
    def budget(self) -> int | None:
        return self.header.get("budget") if self.header else None

    @property
    def env_settings(self) -> dict:
        return dict(self.header.get("env", {})) if self.header else {}

    @property
    def condition(self) -> str:
        """The experimental condition (version-1 files, which predate conditions, are baseline runs)."""
        return self.header.get("condition", "baseline") if self.header else "baseline"

    @property
    def setting(self) -> str:
        """`independent` or `curriculum` (files before version 3 are independent runs)."""
        v = self.header.get("setting") if self.header else None
        return v if isinstance(v, str) else "independent"

    @property
    def consolidation(self) -> str | None:
        """The knowledge book's format, as the run was started with (None before version 3)."""
        return self.header.get("consolidation") if self.header else None

    @property
    def observation(self) -> str:
        """What the agent observed the world through: text, image or both (files before version 4: text)."""
        v = self.header.get("observation") if self.header else None
        return v if isinstance(v, str) else "text"

    @property
    def curriculum(self) -> dict:
        """In the curriculum setting: family, position (1 = L1), levels and epoch."""
        return dict(self.header.get("curriculum") or {}) if self.header else {}

    @property
    def book_in(self) -> str:
        """The knowledge book as the run started (what a curriculum carried in)."""
        return str(self.header.get("book", "")) if self.header else ""

    @property
    def session(self) -> dict:
        """Where the run came from (interface, sample id, ...): `session`, or a version 1-2 `setting`."""
        if not self.header:
            return {}
        v = self.header.get("session", self.header.get("setting"))
        return dict(v) if isinstance(v, dict) else {}

    def usage_totals(self) -> dict:
        """Tokens and latency summed over the lines that carry usage (each model turn's usage is on
        exactly one line); `turns` counts those lines, 0 when the producer knew no usage."""
        out = {"input_tokens": 0, "output_tokens": 0, "latency_s": 0.0, "turns": 0}
        for u in [s.usage for s in self.steps] + [r.usage for r in self.reasoning]:
            if u:
                out["turns"] += 1
                for k in ("input_tokens", "output_tokens", "latency_s"):
                    out[k] += u.get(k) or 0
        out["latency_s"] = round(out["latency_s"], 3)
        return out

    def reasoning_before(self, index: int) -> list[Reasoning]:
        return [r for r in self.reasoning if r.before_step == index]

    @property
    def final(self) -> Step | None:
        """The submit step, if the run was submitted."""
        for s in reversed(self.steps):
            if s.tool == "submit" and s.ok:
                return s
        return None

    @property
    def passed(self) -> bool | None:
        f = self.final
        return None if f is None else bool(f.result.get("passed"))

    @property
    def trials_used(self) -> int:
        return sum(1 for s in self.steps if s.tool == "activate-button" and s.ok)

    def task(self):
        """The task the run was made for: the embedded document, else the task id (only a known
        task id: a file's content never decides what else is read). Raises TaskError."""
        from scicraft_viz import tasks

        if self.header is None:
            raise tasks.TaskError(f"{self.source}: no header, so the task is unknown")
        if isinstance(self.header.get("task"), dict):
            task = tasks.from_dict(self.header["task"], f"{self.source}: header.task")
        else:
            task = tasks.load_by_id(self.header["task_id"])
        return task.with_rules(self.rules) if "rules" in self.header else task

    @property
    def rules(self):
        """The ruleset the run was made under (header.rules; vanilla for files before version 5).
        Raises InputError for a ruleset this version does not know."""
        from scicraft_viz.engine.rules import ruleset_from

        return ruleset_from(self.header.get("rules") if self.header else None, f"{self.source}: header.rules")

    def report(self) -> str:
        head = f"{self.source}: {len(self.steps)} step(s)"
        if self.header:
            head += f", task {self.task_id}, {self.actor.get('kind', '?')} {self.actor.get('name', '')}".rstrip()
        if not self.problems:
            return head + ", no problems"
        return "\n".join([head + f", {len(self.problems)} problem(s):"] + [f"  {p}" for p in self.problems])


# ---------------------------------------------------------------------------------------- reading
def _unclosed(text: str) -> bool:
    """A line that ends inside a string or an open object or array: cut off, rather than malformed."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return in_string or depth > 0


def _no_dupes(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError(f"duplicate key {k!r}")
        d[k] = v
    return d


def _bad_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def _where(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(line)"


def _schema_message(err: jsonschema.ValidationError, kind: str) -> str:
    where = _where(err.absolute_path)
    inst = err.instance
    if err.validator == "enum" and list(err.absolute_path) == ["tool"]:
        return f"unknown tool {inst!r} (expected one of {', '.join(TOOLS)})"
    if err.validator == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return f"{kind} field {_where(list(err.absolute_path) + [missing])!s} is missing"
    if err.validator == "additionalProperties":
        extra = sorted(set(inst) - set(err.schema.get("properties", {}))) if isinstance(inst, dict) else []
        if extra:
            return f"{kind} has an unknown field {_where(list(err.absolute_path) + [extra[0]])}"
    if err.validator in ("minItems", "maxItems") and where.endswith("pos"):
        return f"{where} must be three integers [x, y, z], got {json.dumps(inst)[:60]}"
    if err.validator == "type":
        return f"{where} must be {err.validator_value}, got {json.dumps(inst)[:60]}"
    if err.validator == "const":
        return f"{where} must be {err.validator_value!r}, got {json.dumps(inst)[:60]}"
    if err.validator == "maxProperties" and where == "args":
        return f"args must be empty for this tool, got {json.dumps(inst)[:80]}"
    return f"{where}: {err.message[:200]}"


def _validate(obj: Any, kind: str) -> list[str]:
    errs = sorted(_validator(kind).iter_errors(obj), key=lambda e: (len(list(e.absolute_path)), str(e.message)))
    out = []
    for e in errs:
        leaves = [e] if not e.context else list(e.context)
        for leaf in leaves:
            m = _schema_message(leaf, kind)
            if m not in out:
                out.append(m)
    if kind == "header" and not out:
        try:
            datetime.fromisoformat(str(obj["started"]).replace("Z", "+00:00"))
        except ValueError:
            out.append(f"started must be an ISO 8601 date-time, got {obj['started']!r}")
    return out


def parse_lines(lines, source: str = "<trajectory>", task=None) -> Trajectory:
    """Parse an iterable of lines (str or bytes). Never raises for bad content."""
    t = Trajectory(source, None)
    seen_steps: set[int] = set()
    first = True
    for num, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            if len(raw) > MAX_LINE_BYTES:
                t.problems.append(Problem(source, num, f"line is longer than {MAX_LINE_BYTES} bytes"))
                first = False
                continue
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                t.problems.append(Problem(source, num, f"not valid UTF-8 (column {e.start + 1})"))
                first = False
                continue
        text = raw.strip()
        if not text:
            continue
        try:
            obj = json.loads(text, object_pairs_hook=_no_dupes, parse_constant=_bad_constant)
        except json.JSONDecodeError as e:
            what = "truncated JSON" if e.pos >= len(text) - 1 or _unclosed(text) else "invalid JSON"
            t.problems.append(Problem(source, num, f"{what}: {e.msg} (column {e.colno})"))
            first = False
            continue
        except (ValueError, RecursionError) as e:
            msg = "nested too deeply" if isinstance(e, RecursionError) else str(e)
            t.problems.append(Problem(source, num, f"invalid JSON: {msg}"))
            first = False
            continue
        if not isinstance(obj, dict):
            t.problems.append(Problem(source, num, f"a line must be a JSON object, got {type(obj).__name__}"))
            first = False
            continue
        kind = obj.get("type")
        if kind not in LINE_TYPES:
            t.problems.append(Problem(source, num, f"unknown line type {str(kind)[:40]!r} (expected header, step "
                                                   "or reasoning)"))
            first = False
            continue
        if first and kind != "header":
            t.problems.append(Problem(source, num, "missing header: the first line must be a 'header' line (task "
                                                   "id, actor, run id, start time, budget)"))
        if kind == "header" and not first:
            t.problems.append(Problem(source, num, "a header may only be the first line"))
            first = False
            continue
        first = False
        try:
            msgs = _validate(obj, kind)
        except RecursionError:
            msgs = ["nested too deeply"]
        if msgs:
            for m in msgs[:3]:
                t.problems.append(Problem(source, num, m))
            if kind == "header":
                t.problems.append(Problem(source, num, "the header is unusable; steps are still listed"))
            continue
        if kind == "header":
            t.header = obj
        elif kind == "reasoning":
            t.reasoning.append(Reasoning(obj["step"], obj["text"], obj.get("wall_s"), num, obj.get("usage")))
        else:
            idx = obj["step"]
            expected = t.steps[-1].index + 1 if t.steps else 0
            if idx in seen_steps:
                t.problems.append(Problem(source, num, f"step {idx} appears twice"))
                continue
            if idx < expected:
                t.problems.append(Problem(source, num, f"step {idx} is out of order (after step "
                                                       f"{t.steps[-1].index})"))
                continue
            if idx > expected:
                after = f"follows step {t.steps[-1].index}" if t.steps else "is the first step"
                t.problems.append(Problem(source, num, f"step {idx} {after}: {idx - expected} step(s) missing"))
            seen_steps.add(idx)
            t.steps.append(Step(idx, float(obj["wall_s"]), obj["tool"], obj["args"], obj["result"], num,
                                obj.get("usage"), obj.get("agent", "engineer")))
    if t.header is None and not any("header" in p.message for p in t.problems):
        t.problems.append(Problem(source, None, "missing header: the file has no header line"))
    _check_against_task(t, task)
    return t


def _check_against_task(t: Trajectory, task) -> None:
    """Coordinates a run could never have used: outside the task's build region yet recorded as
    accepted. (Rejected out-of-region calls are legitimate steps.)"""
    if task is None and t.header is not None:
        try:
            task = t.task()
        except Exception as e:  # any unusable task is reported, never raised
            t.problems.append(Problem(t.source, 1, f"task {t.task_id!r} cannot be loaded: "
                                                   f"{str(e).splitlines()[0][:200]}"))
            return
    if task is None:
        return
    budget = t.header.get("budget") if t.header else None
    trials = 0
    for s in t.steps:
        pos = s.args.get("pos") if isinstance(s.args, dict) and s.ok else None
        # a refused call may carry any arguments; only accepted ones were checked by the schema
        if _is_position(pos) and not task.in_region(tuple(pos)):
            r = task.radius
            ax, ay, az = task.anchor
            t.problems.append(Problem(
                t.source, s.line,
                f"{s.tool} at {tuple(pos)} lies outside the build region of {task.id} (x {ax - r}..{ax + r}, "
                f"y {ay - r}..{ay + r}, z {az - r}..{az + r}) but is recorded as accepted"))
        if s.tool == "activate-button" and s.ok:
            trials += 1
            if budget is not None and trials > budget:
                t.problems.append(Problem(t.source, s.line, f"trial {trials} exceeds the budget of {budget} but is "
                                                            "recorded as accepted"))


def _is_position(v) -> bool:
    return isinstance(v, list) and len(v) == 3 and all(isinstance(x, int) and not isinstance(x, bool) for x in v)


def read(path: str | os.PathLike, task=None) -> Trajectory:
    """Read a trajectory file. Never raises: an unreadable file gives a Trajectory whose only
    content is the problem."""
    src = str(path)
    try:
        with open(path, "rb") as f:
            return parse_lines(f, src, task)
    except OSError as e:
        return Trajectory(src, None, problems=[Problem(src, None, f"cannot read the file: {e.strerror or e}")])


def parse_text(text: str, source: str = "<string>", task=None) -> Trajectory:
    return parse_lines(io.StringIO(text), source, task)


# ---------------------------------------------------------------------------------------- writing
def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def make_header(task, *, actor_kind: str = "model", actor_name: str | None = None, run_id: str | None = None,
                started: str | None = None, budget: int | None = None, env: dict | None = None,
                embed_task: bool | None = None, session: dict | None = None, notes: str | None = None,
                condition: str | None = None, setting: str | None = None, consolidation: str | None = None,
                book: str = "", curriculum: dict | None = None, observation: str = "text") -> dict:
    """A header line for a run on `task`. Generated tasks (no file) are embedded by default.
    `session` says where the run came from (interface, sample id, ...); `curriculum` (family,
    position, levels, epoch) places a curriculum run; `book` is the knowledge book it started with."""
    from scicraft_viz.env.conditions import check_condition, check_consolidation, check_setting
    from scicraft_viz.env.environment import check_observation, surrogate_at

    if actor_kind not in ACTOR_KINDS:
        raise ValueError(f"actor kind must be one of {', '.join(ACTOR_KINDS)}, got {actor_kind!r}")
    for what, v in (("the actor name", actor_name), ("the run id", run_id), ("the notes", notes),
                    ("the session", session), ("the book", book), ("the curriculum", curriculum)):
        bad = surrogate_at(v, what)
        if bad:
            raise ValueError(f"{bad} holds a lone surrogate, which is not valid Unicode text")
    h: dict[str, Any] = {"type": "header", "format": FORMAT, "version": VERSION, "task_id": task.id}
    if embed_task is None:
        embed_task = _needs_embedding(task)
    if embed_task:
        h["task"] = task.doc
    h["actor"] = {"kind": actor_kind} | ({"name": actor_name} if actor_name else {})
    h["run_id"] = run_id or uuid.uuid4().hex[:12]
    h["started"] = started or now_iso()
    h["budget"] = int(task.trial_budget if budget is None else budget)
    h["condition"] = check_condition(condition)
    h["setting"] = check_setting(setting)
    h["consolidation"] = check_consolidation(consolidation)
    h["observation"] = check_observation(observation)
    h["rules"] = task.rules.to_json()
    if curriculum:
        h["curriculum"] = dict(curriculum)
    if book:
        h["book"] = str(book)
    if env:
        h["env"] = dict(env)
    if session:
        h["session"] = dict(session)
    if notes:
        h["notes"] = notes
    problems = _validate(h, "header")
    if problems:
        raise ValueError("invalid header: " + "; ".join(problems))
    return h


def _needs_embedding(task) -> bool:
    """A task that `tasks.load(task.id)` would not give back identically must travel with the file."""
    from scicraft_viz import tasks

    try:
        doc = {k: v for k, v in task.doc.items() if k != "rules"}  # the ruleset travels as header.rules
        return tasks.load(task.id).doc != doc
    except Exception:  # unknown id, unreadable file: the document has to be embedded
        return True


class TrajectoryWriteError(OSError):
    """A line could not be written (full disk, file-size limit, closed file); nothing of it was kept."""


def prepare_directory(path: Path) -> None:
    """Create the file's directory if only its last level is missing; refuse to create more."""
    parent = path.parent
    if parent.is_dir():
        return
    if parent.exists():
        raise TrajectoryWriteError(f"{parent} is not a directory")
    if not parent.parent.is_dir():
        raise TrajectoryWriteError(f"the directory {parent.parent} does not exist (only the last level of a "
                                   "trajectory path is created)")
    parent.mkdir()


class TrajectoryWriter:
    """Append-only writer: every line is written and flushed as it happens, so a run that is
    killed keeps every call it made. A line is written whole or not at all: if writing fails, the
    file is cut back to the previous line and `TrajectoryWriteError` names the file. A file whose
    header cannot be written is removed again. `clock` returns seconds (default: time.monotonic)."""

    def __init__(self, target: str | os.PathLike | IO[str], header: dict, *, overwrite: bool = False,
                 clock=None, fsync: bool = False):
        self.header = header
        self._clock = clock or time.monotonic
        self._t0 = self._clock()
        self._fsync = fsync
        if hasattr(target, "write"):
            self._f = target
            self._own = False
            self.path = None
        else:
            self.path = Path(target)
            prepare_directory(self.path)
            # unbuffered: what write() reports written is in the file, so a failed line can be cut off exactly
            self._f = open(self.path, "wb" if overwrite else "xb", buffering=0)
            self._own = True
        self.steps = 0
        try:
            self._line(header)
        except OSError:
            if self._own:
                self._f.close()
                self.path.unlink(missing_ok=True)
            raise

    def _line(self, obj: dict) -> None:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"
        where = self.path or getattr(self._f, "name", "the trajectory stream")
        if len(text) * 4 > MAX_LINE_BYTES and len(text.encode("utf-8")) > MAX_LINE_BYTES:
            # a line the reader would refuse is never written: the record stays readable and replayable
            raise TrajectoryWriteError(27, f"a line of more than {MAX_LINE_BYTES} bytes cannot be recorded", str(where))
        if not self._own:
            try:
                self._f.write(text)
                self._f.flush()
            except (OSError, ValueError) as e:
                raise TrajectoryWriteError(getattr(e, "errno", None), getattr(e, "strerror", None) or str(e),
                                           str(where)) from e
            return
        data = text.encode("utf-8")
        start = self._f.tell()
        try:
            view = memoryview(data)
            while view:
                n = self._f.write(view)
                view = view[n:]
            if self._fsync:
                os.fsync(self._f.fileno())
        except OSError as e:
            try:
                self._f.truncate(start)
                self._f.seek(start)
            except OSError:
                pass
            raise TrajectoryWriteError(e.errno, f"{e.strerror or e}", str(where)) from e

    def elapsed(self) -> float:
        return round(max(0.0, self._clock() - self._t0), 3)

    def step(self, tool: str, args: dict, result: dict, usage: dict | None = None, agent: str = "engineer") -> int:
        i = self.steps
        line = {"type": "step", "step": i, "wall_s": self.elapsed(), "tool": tool, "args": args, "result": result}
        if usage:
            line["usage"] = {k: v for k, v in usage.items() if v is not None}
        if agent != "engineer":
            line["agent"] = agent
        self._line(line)
        self.steps += 1
        return i

    def reasoning(self, text: str, usage: dict | None = None) -> None:
        line = {"type": "reasoning", "step": self.steps, "wall_s": self.elapsed(), "text": str(text)}
        if usage:
            line["usage"] = {k: v for k, v in usage.items() if v is not None}
        self._line(line)

    def close(self) -> None:
        if self._own and not self._f.closed:
            self._f.close()

    def __enter__(self) -> TrajectoryWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
