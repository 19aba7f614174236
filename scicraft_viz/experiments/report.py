"""The paper's result tables, re-scored from a directory of runs, as HTML, CSV and JSON.

    scicraft-viz report runs/inspect --format html,csv,json --out report

    >>> from scicraft_viz.experiments import report
    >>> runs = report.load_runs("trajectories", progress=False, cache=None)
    >>> [r.status for r in runs].count("counted")
    6
    >>> tabs = report.tables(runs, setting="independent")
    >>> tabs["table1"].columns[:4]
    ['model', 'baseline %', 'baseline 95% CI', 'delta_id']

Nothing recorded in a trajectory is taken on trust. Every file is read within limits (regular files
of at most `MAX_RUN_FILE_BYTES`, no link followed out of the runs directory), every field is checked,
and every call is replayed in a fresh environment: success, partial credit, trials and failure modes
come from the replay and the evaluator. Each file ends up with one status:

- `counted`: it replays exactly; it feeds the tables;
- `disagrees`: some recorded result differs from the replay (the first differing step is named);
- `header-only`: a header and no call (a client that only listed the tools);
- `unreadable`: refused before or while reading (not a regular file, too big, a link out of the
  directory, a malformed line, a field out of range, an unknown task, ...), with the file and field;
- `duplicate`: the same content, or the same run (task, run id and start), as a file listed before it;
- `incomplete`: a `*.jsonl.incomplete` file the Inspect runner set aside when its sample errored.

Only counted runs enter the tables. The cell rules (which runs feed which cell, how epochs are
paired, what marks a cell incomplete) are in docs/report.md; `build_tables` implements them.
Results are cached by the file's SHA-256 and a key of the code that computed them (`Cache`).
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import math
import os
import re
import stat
import statistics
import sys
from collections import defaultdict
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

from scicraft_viz.env.conditions import (
    CONDITIONS,
    CONSOLIDATIONS,
    DEFAULT_CONSOLIDATION,
    SETTINGS,
    keeps_book,
)
from scicraft_viz.env.environment import OBSERVATIONS
from scicraft_viz.env.trajectory import TOOLS, Trajectory, parse_lines
from scicraft_viz.safeio import UnsafeFile, atomic_write, read_regular

# ---------------------------------------------------------------------------------------- limits
MAX_RUN_FILE_BYTES = 64 * 1024 * 1024  # one trajectory file, checked before it is read (= one line's limit)
MAX_REPORT_STEPS = 20_000  # calls a report replays in one run (a paper-style run makes a few hundred)
MAX_REPORT_TICKS = 1_000_000  # game ticks a replay may simulate (a paper-style run: about 20,000)
MAX_TOKENS = 10**12  # per usage field
MAX_LATENCY_S = 10**7
MAX_EPOCH = 10**6
MAX_CACHE_ENTRY_BYTES = 1024 * 1024
MAX_PROBLEMS_KEPT = 5
MAX_HTML_RUN_ROWS = 5000

FAMILY_ORDER = ("A", "B", "C", "D", "E")
LEVEL_ORDER = ("L1", "L2", "L3", "L4", "L5", "custom")
CONDITION_ORDER = CONDITIONS
SETTING_ORDER = SETTINGS
DEFAULT_REPORT_SETTING = "curriculum"  # the paper's main tables (Table 1, Table 2) are the curriculum setting
OPTIMISED = "cpce"  # the paper's optimised consolidation, used by the scientist cells of Tables 1 and 6
UNKNOWN_TOOL = "unknown-tool"
STATUSES = ("counted", "disagrees", "header-only", "unreadable", "duplicate", "incomplete")
FORMATS = ("html", "csv", "json")
PASS_AT = (1, 2, 4, 8)
Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal
PAPER_TABLES = {"table7": "baseline", "table8": "hint", "table9": "scientist", "table10": "hint+scientist"}
# Refusal causes, first match wins; the patterns follow the environment's own error sentences.
CAUSES = (
    ("outside region", r"outside the build region|does not overlap the build region"),
    ("not in palette", r"is not in this task's palette"),
    ("powered placement", r"cannot be placed with powered=true"),
    ("unknown tool", r"^unknown tool "),
    ("not available here", r"only the engineer submits|there is no scientist|already at work|only the scientist "
                           r"calls|no knowledge book is kept|the knowledge book is written by"),
    ("book format", r"the book must be made of entries|must have the parts|: the part '### "),
    ("bad block state", r"block state|unknown block|property|cannot read block"),
    ("bad arguments", r"must be|missing argument|unexpected argument|go together|not both|cannot be written"),
    ("trial budget spent", r"no verification trial left"),
    ("button missing or extra", r"no stone button|stone buttons at|still pressed"),
    ("after submit", r"the episode is over"),
    ("episode stopped", r"the episode is stopped"),
    ("other", r"."),
)


# ---------------------------------------------------------------------------------------- one run
@dataclass
class RunRecord:
    """One trajectory file reduced to what the tables need, every number from its replay."""

    source: str
    status: str = "unreadable"
    reason: str | None = None
    sha256: str | None = None
    task_id: str | None = None
    family: str | None = None
    level: str | None = None
    model: str | None = None
    setting: str | None = None
    condition: str | None = None
    consolidation: str | None = None  # None where the protocol keeps no knowledge book
    observation: str | None = None  # text, image or both (what the agent saw the world through)
    rules: str | None = None  # the ruleset's name (engine/rules.py; runs before trajectory version 5: vanilla)
    recorded_epoch: int | None = None
    epoch: int | None = None  # the epoch the run is paired on (see assign_epochs)
    run_id: str | None = None
    started: str | None = None
    interface: str | None = None
    steps: int = 0
    submitted: bool = False
    passed: bool = False
    partial_credit: float | None = None
    trials_used: int = 0
    scientist_trials: int = 0
    first_success_trial: int | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    turns_with_usage: int = 0
    unknown_tool_calls: int = 0
    calls: dict[str, int] = field(default_factory=dict)
    valid: dict[str, int] = field(default_factory=dict)
    refusals: dict[str, int] = field(default_factory=dict)
    failure_modes: list[str] = field(default_factory=list)
    primary_mode: str | None = None
    mismatch_step: int | None = None
    mismatch_line: int | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def counted(self) -> bool:
        return self.status == "counted"

    @property
    def cell(self) -> tuple:
        """(model, setting, condition, consolidation): the runs of one protocol for one model."""
        return (self.model, self.setting, self.condition, self.consolidation)

    def to_dict(self) -> dict:
        return asdict(self)


def lamps_meeting(task, measured: dict) -> int:
    """How many lamps meet their own window in a trial's measurement (times in task units after the
    press). Simultaneity families: the most lamps lit within one tolerance window of each other.
    Sequential: the first lamp to light, then every lamp that lit its delay (+- tolerance) after the
    previous one. Pulse: lamps on within the on-window and off within tau +- tolerance."""
    c = task.contract
    tol = c.get("tolerance_ticks", 1)
    lamps = measured.get("lamps") or []
    ons = sorted(x["on"] for x in lamps if x.get("on") is not None)
    if not ons:
        return 0
    kind = task.contract_type
    if kind == "sequential":
        delays = c["delays_ticks"]
        n = 1
        for i, (a, b) in enumerate(zip(ons, ons[1:])):
            if i < len(delays) and abs(b - a - delays[i]) <= tol:
                n += 1
        return n
    if kind == "pulse":
        tau, win = c["tau_ticks"], c["on_window_ticks"]
        return sum(1 for x in lamps if x.get("on") is not None and 0 <= x["on"] <= win and x.get("off") is not None
                   and tau - tol <= x["off"] <= tau + tol)
    return max(sum(1 for t in ons if t0 <= t <= t0 + tol) for t0 in ons)


def refusal_cause(error: str) -> str:
    return next((name for name, pattern in CAUSES if re.search(pattern, error)), "other")


# ---------------------------------------------------------------------------------------- reading files
class Refused(Exception):
    """A file that is not read (or not read to the end); the message says why."""


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_run_bytes(path: str | os.PathLike, *, follow: bool = False) -> bytes:
    """The bytes of one run file, read through `safeio.read_regular`: only a regular file of at most
    MAX_RUN_FILE_BYTES, opened non-blocking (a FIFO never hangs the reader) and without following a
    link (unless `follow`), checked with fstat, and read no further than the limit. Raises Refused,
    worded for the report's list of files left out."""
    try:
        return read_regular(path, MAX_RUN_FILE_BYTES, "run file", follow=follow)
    except UnsafeFile as e:
        if e.reason in ("directory", "special"):
            raise Refused(f"is {_kind(e.mode or 0)}, not a regular file; not read") from None
        if e.reason == "too_large" and e.size is not None:
            raise Refused(f"has {e.size:,} bytes, more than the {MAX_RUN_FILE_BYTES:,} a run file may have; "
                          "not read") from None
        if e.reason == "too_large":
            raise Refused(f"grew past {MAX_RUN_FILE_BYTES:,} bytes while it was read; not read") from None
        verb = "read" if str(e).startswith("cannot read") else "opened"
        raise Refused(f"cannot be {verb}: {e.detail or e}") from None


@dataclass
class Candidate:
    """A file to score: the path read (a link's target inside the runs directory) and the path shown."""

    read_path: str
    source: str
    follow: bool = False


def discover(runs_dir: str | os.PathLike) -> list[Candidate | RunRecord]:
    """Every `*.jsonl` under `runs_dir` (recursively; a folder's files in name order, then its
    subfolders): a Candidate to read, or a RunRecord for a file refused without being read (not
    regular, a link that leaves the folder or cannot be followed, `*.jsonl.incomplete`). A directory
    link is never followed. `runs_dir` may also name one file, which is opened as given. Raises
    ValueError when `runs_dir` is neither a directory nor a file."""
    p = Path(runs_dir)
    if not os.path.isdir(p):
        if os.path.lexists(p):
            return [Candidate(str(p), str(p), follow=True)]  # a file named by the caller
        raise ValueError(f"{runs_dir} is neither a directory of runs nor a trajectory file")
    root = os.path.realpath(p)
    out: list[Candidate | RunRecord] = []

    def unlisted(e: OSError) -> None:
        where = e.filename or runs_dir
        out.append(RunRecord(str(where), reason=f"{where}: the directory cannot be listed: {e.strerror or e}"))

    for dirpath, dirnames, filenames in os.walk(p, onerror=unlisted, followlinks=False):
        dirnames.sort()
        linked_dirs = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        for name in sorted(filenames + linked_dirs):
            full = os.path.join(dirpath, name)
            if name.endswith(".jsonl.incomplete"):
                out.append(RunRecord(full, status="incomplete", reason=f"{full}: the sample errored before its "
                                                                       "run ended (set aside by the runner)"))
            elif name.endswith(".jsonl"):
                out.append(_candidate(full, root))
    return out


def _candidate(full: str, root: str) -> Candidate | RunRecord:
    try:
        st = os.lstat(full)
    except OSError as e:
        return RunRecord(full, reason=f"{full}: cannot be examined: {e.strerror or e}")
    if stat.S_ISREG(st.st_mode):
        return Candidate(full, full)
    if not stat.S_ISLNK(st.st_mode):
        return RunRecord(full, reason=f"{full}: is {_kind(st.st_mode)}, not a regular file; not read")
    try:
        target = os.path.realpath(full, strict=True)
    except (OSError, RuntimeError) as e:
        why = getattr(e, "strerror", None) or str(e)
        return RunRecord(full, reason=f"{full}: a symbolic link that cannot be followed ({why}); not read")
    if os.path.commonpath([root, target]) != root:
        return RunRecord(full, reason=f"{full}: a symbolic link to {target[:200]}, outside the runs directory; "
                                      "not followed")
    return Candidate(target, full)


# ---------------------------------------------------------------------------------------- checking fields
def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _number_text(v) -> str:
    if _is_int(v) and abs(v) >= 10**15:
        return f"a number of {len(str(abs(v)))} digits"
    return repr(v)[:40]


def _usage_problems(source: str, line: int, usage: dict | None) -> list[str]:
    if not usage:
        return []
    out = []
    for k in ("input_tokens", "output_tokens", "total_tokens"):
        if k in usage:
            v = usage[k]
            if not _is_int(v) or not 0 <= v <= MAX_TOKENS:
                out.append(f"{source}:{line}: usage.{k} must be an integer from 0 to 10^12, got {_number_text(v)}")
    if "latency_s" in usage:
        v = usage["latency_s"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (
                math.isfinite(v) and 0 <= v <= MAX_LATENCY_S):
            out.append(f"{source}:{line}: usage.latency_s must be a number of seconds from 0 to 10^7, got "
                       f"{_number_text(v)}")
    return out


def _header_fields(rec: RunRecord, t: Trajectory) -> list[str]:
    """Copy the header's fields onto `rec`, checking each; returns the problems (source:line: field ...)."""
    h = t.header
    if h is None:
        return []
    src = t.source
    out: list[str] = []
    rec.task_id = h.get("task_id")
    rec.run_id = h.get("run_id")
    rec.started = h.get("started")
    actor = h.get("actor") or {}
    rec.model = actor.get("name") or actor.get("kind")
    cond = h.get("condition", "baseline")
    if cond not in CONDITIONS:
        out.append(f"{src}:1: header.condition {str(cond)[:40]!r} is not one of {', '.join(CONDITIONS)}")
    else:
        rec.condition = cond
    rec.setting = t.setting  # a version 1-2 object means an independent run
    rec.observation = t.observation  # files before version 4: text (the schema checked the value)
    try:
        rec.rules = t.rules.name  # files before version 5: vanilla
    except ValueError as e:
        out.append(f"{src}:1: {e}")
    cons = h.get("consolidation") or DEFAULT_CONSOLIDATION
    if cons not in CONSOLIDATIONS:
        out.append(f"{src}:1: header.consolidation {str(cons)[:40]!r} is not one of {', '.join(CONSOLIDATIONS)}")
    elif rec.condition is not None:
        rec.consolidation = cons if keeps_book(rec.condition, rec.setting) else None
    epochs = []
    cur = h.get("curriculum")
    if isinstance(cur, dict) and "epoch" in cur:
        epochs.append(("header.curriculum.epoch", cur["epoch"]))
    session = t.session  # version 3 `session`, or a version 1-2 `setting` object
    if "epoch" in session:
        epochs.append(("header.session.epoch", session["epoch"]))
    iface = session.get("interface")
    if iface is not None:
        if isinstance(iface, str) and len(iface) <= 100:
            rec.interface = iface
        else:
            out.append(f"{src}:1: header.session.interface must be text of at most 100 characters")
    for where, v in epochs:
        if not _is_int(v) or not 0 <= v <= MAX_EPOCH:
            out.append(f"{src}:1: {where} must be an integer from 0 to {MAX_EPOCH:,}, got {_number_text(v)}")
        elif rec.recorded_epoch is None:
            rec.recorded_epoch = v
    return out


# ---------------------------------------------------------------------------------------- scoring
def score_bytes(data: bytes, source: str) -> RunRecord:
    """One run file's content, re-scored: parsed, checked, replayed and (if it failed) diagnosed."""
    rec = RunRecord(source, sha256=hashlib.sha256(data).hexdigest())
    try:
        _score(rec, data)
    except Exception as e:  # never raise: the file is listed with what went wrong
        first = str(e).splitlines()[0][:200] if str(e) else ""
        rec.status = "unreadable"
        rec.reason = f"{source}: could not be scored: {type(e).__name__}: {first}"
        rec.problems = [rec.reason]
    return rec


def _score(rec: RunRecord, data: bytes) -> None:
    from scicraft_viz.env.replay import Replay

    source = rec.source
    t = parse_lines(io.BytesIO(data), source)
    problems = [str(p) for p in t.problems]
    problems += _header_fields(rec, t)
    for s in t.steps:
        problems += _usage_problems(source, s.line, s.usage)
    for r in t.reasoning:
        problems += _usage_problems(source, r.line, r.usage)
    rec.steps = len(t.steps)
    if problems:
        rec.status, rec.reason, rec.problems = "unreadable", problems[0], problems[:MAX_PROBLEMS_KEPT]
        return
    if not t.steps:
        rec.status = "header-only"
        rec.reason = f"{source}: a header and no call: the client never used a tool"
        return
    if len(t.steps) > MAX_REPORT_STEPS:
        rec.status = "unreadable"
        rec.reason = (f"{source}: {len(t.steps):,} calls, more than the {MAX_REPORT_STEPS:,} a report replays "
                      "in one run")
        return
    task = t.task()
    rec.family, rec.level = task.family, task.level
    ticks = _ticks_needed(t, task)
    if ticks > MAX_REPORT_TICKS:
        rec.status = "unreadable"
        rec.reason = (f"{source}: replaying it would simulate about {ticks:,} game ticks, more than the "
                      f"{MAX_REPORT_TICKS:,} a report replays in one run")
        return
    rp = Replay(t, task)
    if rp.problems:
        rec.status, rec.reason = "unreadable", str(rp.problems[0])
        rec.problems = [str(p) for p in rp.problems[:MAX_PROBLEMS_KEPT]]
        return
    bad = rp.mismatches
    if bad:
        s = bad[0]
        rec.status = "disagrees"
        rec.mismatch_step, rec.mismatch_line = s.index, s.line
        rec.reason = f"{source}:{s.line}: step {s.index} ({s.tool}) differs from its replay: {s.mismatch}"
        return
    env = rp.env
    rec.submitted = env.submitted is not None
    rec.passed = bool(env.submitted and env.submitted.get("passed"))
    submit = next((s for s in rp.steps if s.tool == "submit" and s.ok), None)
    measured = submit.replayed.get("measured") if submit is not None else None
    if isinstance(measured, dict):
        rec.partial_credit = lamps_meeting(task, measured) / task.n
    rec.trials_used = env.trials_used
    rec.scientist_trials = sum(1 for tv in rp.trials if tv.agent == "scientist")
    # a success observes all N lamps meeting the contract in the engineer's world (a trial with lamps
    # missing can meet it on the rest; the scientist's trials are experiments in its scratch world)
    rec.first_success_trial = next((tv.number for tv in rp.trials if tv.agent == "engineer" and tv.passed
                                    and len(tv.lamps) == task.n), None)
    calls: dict[str, int] = defaultdict(int)
    valid: dict[str, int] = defaultdict(int)
    refusals: dict[str, int] = defaultdict(int)
    for s in rp.steps:
        calls[s.tool] += 1
        if s.ok:
            valid[s.tool] += 1
        else:
            refusals[refusal_cause(str(s.replayed.get("error", "")))] += 1
    rec.calls, rec.valid, rec.refusals = dict(calls), dict(valid), dict(refusals)
    rec.unknown_tool_calls = calls.get(UNKNOWN_TOOL, 0)
    u = t.usage_totals()
    rec.input_tokens, rec.output_tokens = int(u["input_tokens"]), int(u["output_tokens"])
    rec.latency_s, rec.turns_with_usage = float(u["latency_s"]), int(u["turns"])
    if not rec.passed:
        try:
            from scicraft_viz.diagnose import diagnose

            d = diagnose(rp.final_world(), task)
            rec.failure_modes, rec.primary_mode = list(d.modes())[:40], d.primary
        except Exception as e:  # a diagnosis that breaks leaves the run counted, without modes
            rec.problems = [f"{source}: the diagnosis failed: {type(e).__name__}: {str(e)[:200]}"]
    rec.status = "counted"


def _ticks_needed(t: Trajectory, task) -> int:
    """An upper bound on the game ticks a replay simulates: each accepted set-block lets the header's
    ticks_per_action pass, each accepted press records observe_ticks."""
    from scicraft_viz.env.environment import DEFAULT_TICKS_PER_ACTION

    env = t.env_settings
    per_action = env.get("ticks_per_action", DEFAULT_TICKS_PER_ACTION)
    observe = env.get("observe_ticks") or task.record_game_ticks
    if not _is_int(per_action) or not _is_int(observe):
        return 0  # the replay refuses such settings itself
    places = sum(1 for s in t.steps if s.tool == "set-block" and s.ok)
    presses = sum(1 for s in t.steps if s.tool == "activate-button" and s.ok)
    return places * max(0, per_action) + presses * max(0, observe)


def score_file(cand: Candidate) -> RunRecord:
    """Read (within the limits) and score one candidate file. Never raises."""
    try:
        data = read_run_bytes(cand.read_path, follow=cand.follow)
    except Refused as e:
        return RunRecord(cand.source, reason=f"{cand.source}: {e}")
    except Exception as e:  # pragma: no cover - defensive: the report never raises
        return RunRecord(cand.source, reason=f"{cand.source}: cannot be read: {type(e).__name__}")
    return score_bytes(data, cand.source)


# ---------------------------------------------------------------------------------------- the cache
@lru_cache(maxsize=1)
def code_key() -> str:
    """A hash of what computes a record: this package's code and schemas and the task files. Any change
    to them makes every cached result stale."""
    from scicraft_viz import __version__
    from scicraft_viz.tasks import tasks_dir

    h = hashlib.sha256(f"scicraft-report 1 {__version__}".encode())
    pkg = Path(__file__).resolve().parents[1]
    files = sorted(p for p in pkg.rglob("*") if p.suffix in (".py", ".json", ".yaml", ".yml") and p.is_file())
    tdir = tasks_dir()
    if tdir.is_dir():
        files += sorted(p for p in tdir.glob("*.yaml") if p.is_file())
    for p in files:
        try:
            h.update(str(p.relative_to(pkg) if p.is_relative_to(pkg) else p.name).encode())
            h.update(p.read_bytes())
        except OSError:
            h.update(b"?")
    return h.hexdigest()


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "scicraft_viz" / "report"


_CACHEABLE = ("counted", "disagrees", "header-only", "unreadable")
_INT_FIELDS = ("steps", "trials_used", "scientist_trials", "input_tokens", "output_tokens", "turns_with_usage",
               "unknown_tool_calls")
_OPT_INT_FIELDS = ("recorded_epoch", "first_success_trial", "mismatch_step", "mismatch_line")
_OPT_STR_FIELDS = ("reason", "task_id", "family", "level", "model", "setting", "condition", "consolidation", "run_id",
                   "started", "interface", "primary_mode", "observation", "rules")


def _str_ok(v, n: int = 4000) -> bool:
    return isinstance(v, str) and len(v) <= n


def record_from_cache(d: Any, sha: str, source: str) -> RunRecord | None:
    """A cached record, if `d` has exactly the form one has (else None: the entry is recomputed)."""
    names = {f.name for f in fields(RunRecord)}
    if not isinstance(d, dict) or set(d) != names or d.get("sha256") != sha or d.get("status") not in _CACHEABLE:
        return None
    for k in _INT_FIELDS:
        if not _is_int(d[k]) or not 0 <= d[k] <= 10**15:
            return None
    for k in _OPT_INT_FIELDS:
        if d[k] is not None and (not _is_int(d[k]) or not 0 <= d[k] <= 10**9):
            return None
    for k in _OPT_STR_FIELDS:
        if d[k] is not None and not _str_ok(d[k]):
            return None
    for k in ("submitted", "passed"):
        if not isinstance(d[k], bool):
            return None
    for k in ("partial_credit", "latency_s"):
        v = d[k]
        if v is None and k == "partial_credit":
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            return None
    if d["partial_credit"] is not None and d["partial_credit"] > 1:
        return None
    for k in ("calls", "valid", "refusals"):
        v = d[k]
        if not isinstance(v, dict) or len(v) > 64 or not all(
                _str_ok(a, 100) and _is_int(b) and 0 <= b <= 10**9 for a, b in v.items()):
            return None
    for k in ("failure_modes", "problems"):
        v = d[k]
        if not isinstance(v, list) or len(v) > 64 or not all(_str_ok(x) for x in v):
            return None
    if d["condition"] is not None and d["condition"] not in CONDITIONS or \
            d["setting"] is not None and d["setting"] not in SETTINGS or \
            d["consolidation"] is not None and d["consolidation"] not in CONSOLIDATIONS or \
            d["observation"] is not None and d["observation"] not in OBSERVATIONS:
        return None
    rec = RunRecord(**d)
    rec.latency_s = float(rec.latency_s)
    if rec.partial_credit is not None:
        rec.partial_credit = float(rec.partial_credit)
    old = rec.source
    rec.source = source
    if old != source:  # the same content under another path: the messages name this one
        rec.reason = rec.reason.replace(old, source) if rec.reason else None
        rec.problems = [p.replace(old, source) for p in rec.problems]
    rec.epoch = None
    return rec


class Cache:
    """Scored records by file content: `<dir>/<code key>/<sha[:2]>/<sha>.json`. The cache is untrusted
    input too: an entry that is not a regular file of at most MAX_CACHE_ENTRY_BYTES, not JSON, for
    another key or content, or not exactly a record's form is ignored (and overwritten). Writes are
    atomic (a temporary file renamed). A cache that cannot be written is used read-only or not at all."""

    def __init__(self, directory: str | os.PathLike):
        self.root = Path(directory)
        self.dir = self.root / code_key()[:24]
        self.hits = self.misses = self.rejected = 0
        self.writable = True

    def _path(self, sha: str) -> Path:
        return self.dir / sha[:2] / f"{sha}.json"

    def get(self, sha: str, source: str) -> RunRecord | None:
        p = self._path(sha)
        try:
            data = _read_small(p, MAX_CACHE_ENTRY_BYTES)
        except (OSError, Refused):
            self.misses += 1
            return None
        rec = None
        try:
            d = json.loads(data.decode("utf-8"))
            if isinstance(d, dict) and d.get("key") == code_key() and d.get("sha256") == sha:
                rec = record_from_cache(d.get("record"), sha, source)
        except (ValueError, UnicodeDecodeError, RecursionError, TypeError):
            rec = None
        if rec is None:
            self.rejected += 1
            self.misses += 1
            return None
        self.hits += 1
        return rec

    def put(self, rec: RunRecord) -> None:
        if not self.writable or rec.sha256 is None or rec.status not in _CACHEABLE:
            return
        p = self._path(rec.sha256)
        d = rec.to_dict()
        d["epoch"] = None
        text = json.dumps({"key": code_key(), "sha256": rec.sha256, "record": d}, separators=(",", ":"))
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
            for folder in (self.dir, p.parent):  # private to the user
                folder.mkdir(exist_ok=True, mode=0o700)
            atomic_write(p, text.encode("utf-8"), overwrite=True)
        except OSError:
            self.writable = False


class _suppress:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return exc[0] is not None and issubclass(exc[0], OSError)


def _read_small(path: Path, limit: int) -> bytes:
    try:
        return read_regular(path, limit, "cache entry", follow=False)
    except UnsafeFile:
        raise Refused("not a usable cache entry") from None


# ---------------------------------------------------------------------------------------- loading runs
_NO_CACHE = object()


def load_runs(runs_dir, *, progress: bool = True, jobs: int = 1, cache: Any = _NO_CACHE) -> list[RunRecord]:
    """Every `*.jsonl` under `runs_dir` as a RunRecord (in path order), re-scored from its replay.

    `jobs` > 1 replays in that many local worker processes (scicraft_viz.tasks.batch). `cache`: a
    directory for the cache (default: `default_cache_dir()`), or None for none. Identical files and
    repeated runs are marked `duplicate`; then every counted run gets the epoch it is paired on
    (`assign_epochs`). Raises ValueError only when `runs_dir` is neither a directory nor a file."""
    from tqdm.auto import tqdm

    entries = discover(runs_dir)
    store = None
    if cache is _NO_CACHE:
        cache = default_cache_dir()
    if cache is not None:
        store = Cache(cache)
    out: list[RunRecord | None] = [e if isinstance(e, RunRecord) else None for e in entries]
    bar = tqdm(total=len(entries), desc="reading runs", unit="run", disable=not progress)
    bar.update(sum(1 for e in out if e is not None))
    todo: list[tuple[int, Candidate]] = []
    seen_sha: dict[str, str] = {}
    for i, cand in enumerate(entries):
        if not isinstance(cand, Candidate):
            continue
        try:
            data = read_run_bytes(cand.read_path, follow=cand.follow)
        except Refused as e:
            out[i] = RunRecord(cand.source, reason=f"{cand.source}: {e}")
            bar.update()
            continue
        sha = hashlib.sha256(data).hexdigest()
        if sha in seen_sha:
            out[i] = RunRecord(cand.source, status="duplicate", sha256=sha,
                               reason=f"{cand.source}: the same content as {seen_sha[sha]}")
            bar.update()
            continue
        seen_sha[sha] = cand.source
        rec = store.get(sha, cand.source) if store is not None else None
        if rec is None and jobs <= 1:
            rec = score_bytes(data, cand.source)
            if store is not None:
                store.put(rec)
        if rec is not None:
            out[i] = rec
            bar.update()
        else:
            todo.append((i, cand))
        del data
    if todo:
        for (i, _), rec in zip(todo, _score_many([c for _, c in todo], jobs)):
            out[i] = rec
            if store is not None:
                store.put(rec)
            bar.update()
    bar.close()
    runs = [r for r in out if r is not None]
    mark_duplicate_runs(runs)
    assign_epochs(runs)
    return runs


def _score_many(cands: list[Candidate], jobs: int):
    """score_file over the candidates, on `jobs` local worker processes; if the workers cannot be
    started or fail, the rest are scored here."""
    from scicraft_viz.tasks.batch import map as batch_map

    done = 0
    try:
        for rec in batch_map(score_file, cands, jobs=jobs):
            done += 1
            yield rec
    except Exception as e:  # workers that cannot start or that die: finish in this process
        print(f"warning: the worker processes failed ({type(e).__name__}); scoring the remaining runs here",
              file=sys.stderr)
        for cand in cands[done:]:
            yield score_file(cand)


def mark_duplicate_runs(runs: list[RunRecord]) -> None:
    """A second file with the same task, run id and start time as a counted (or header-only) one listed
    before it is the same run, copied: it is marked `duplicate` and left out. A counted file always
    wins over a header-only one, and a file that disagrees with its replay keeps that status, so an
    edited copy can never push the honest file out."""
    first: dict[tuple, str] = {}
    for status in ("counted", "header-only"):
        for r in runs:
            if r.status != status or r.run_id is None:
                continue
            key = (r.task_id, r.run_id, r.started)
            if key in first:
                r.status, r.reason = "duplicate", f"{r.source}: the same run (task, run id, start) as {first[key]}"
            else:
                first[key] = r.source


def assign_epochs(runs: list[RunRecord]) -> None:
    """The epoch each counted run is paired on. Within one cell (model, setting, condition,
    consolidation) and task: the recorded epochs (Inspect's `session.epoch` / `curriculum.epoch`) when
    every run has one and they differ; otherwise 1, 2, ... in order of (recorded epoch, start time,
    run id, file)."""
    groups: dict[tuple, list[RunRecord]] = defaultdict(list)
    for r in runs:
        r.epoch = None
        if r.counted:
            groups[(*r.cell, r.task_id)].append(r)
    for rs in groups.values():
        recorded = [r.recorded_epoch for r in rs]
        if None not in recorded and len(set(recorded)) == len(rs):
            for r in rs:
                r.epoch = r.recorded_epoch
            continue
        rs.sort(key=lambda r: (r.recorded_epoch if r.recorded_epoch is not None else MAX_EPOCH + 1, r.started or "",
                               r.run_id or "", r.source))
        for k, r in enumerate(rs, 1):
            r.epoch = k


# ---------------------------------------------------------------------------------------- statistics
def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval for k successes in n trials, in percent (None for n = 0)."""
    if n <= 0:
        return None
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half) * 100, min(1.0, centre + half) * 100


def pass_at_k(per_task: list[tuple[int, int]], k: int) -> float | None:
    """The unbiased pass@k, 1 - C(n-c, k) / C(n, k), averaged over tasks ((n runs, c passed) each), in
    percent; None when some task has fewer than k runs."""
    if not per_task or any(n < k for n, _ in per_task):
        return None
    return 100.0 * sum(1 - math.comb(n - c, k) / math.comb(n, k) for n, c in per_task) / len(per_task)


def _r1(x: float | None) -> float | None:
    return None if x is None else round(x + 0.0, 1) + 0.0


def _r2(x: float | None) -> float | None:
    return None if x is None else round(x + 0.0, 2) + 0.0


def _ci_text(k: int, n: int) -> str | None:
    w = wilson(k, n)
    return None if w is None else f"[{w[0]:.1f}, {w[1]:.1f}]"


class Cell:
    """The counted runs of one table cell, keyed by the (task, epoch) pairs they cover."""

    def __init__(self, runs: list[RunRecord]):
        self.runs = runs
        self.te = frozenset((r.task_id, r.epoch) for r in runs)

    @property
    def n(self) -> int:
        return len(self.runs)

    @property
    def k(self) -> int:
        return sum(r.passed for r in self.runs)

    def pct(self, on: frozenset | None = None) -> float | None:
        rs = self.runs if on is None else [r for r in self.runs if (r.task_id, r.epoch) in on]
        return 100.0 * sum(r.passed for r in rs) / len(rs) if rs else None

    def ci(self) -> str | None:
        return _ci_text(self.k, self.n)

    def per_task(self) -> list[tuple[int, int]]:
        g: dict[str, list[bool]] = defaultdict(list)
        for r in self.runs:
            g[r.task_id].append(r.passed)
        return [(len(v), sum(v)) for _, v in sorted(g.items())]

    def complete(self, ref: frozenset) -> bool:
        return self.te >= ref


# ---------------------------------------------------------------------------------------- tables
@dataclass
class Table:
    """One table: `columns`, `rows` (lists of plain values: str, int, float or None) and notes that
    state its rules. Where a table can have incomplete cells its last column, `incomplete`, names the
    columns of that row whose values rest on fewer tasks or epochs than the cells they are compared with."""

    name: str
    title: str
    columns: list[str]
    rows: list[list]
    notes: list[str] = field(default_factory=list)

    def __iter__(self):  # (columns, rows), like the report's tables before they had titles
        return iter((self.columns, self.rows))

    def records(self) -> list[dict]:
        return [dict(zip(self.columns, row)) for row in self.rows]

    def marked(self, i: int) -> set[str]:
        if not self.columns or self.columns[-1] != "incomplete":
            return set()
        v = self.rows[i][-1]
        return set(v.split("; ")) if v else set()


def _order(values, order) -> list:
    return sorted(set(values), key=lambda v: (order.index(v) if v in order else len(order), str(v)))


def _index(order, v) -> int:
    return order.index(v) if v in order else len(order)


def _cons_key(c):
    return -1 if c is None else CONSOLIDATIONS.index(c) if c in CONSOLIDATIONS else 9


def _paper_cons(condition: str, setting: str) -> str | None:
    """The consolidation whose runs feed the cells of Tables 1, 6 and 7-10: the optimised one (cpce)
    where the protocol keeps a book, none where it keeps none."""
    return OPTIMISED if keeps_book(condition, setting) else None


def _mean(xs) -> float | None:
    xs = list(xs)
    return round(sum(xs) / len(xs), 2) if xs else None


def _join(names) -> str:
    return "; ".join(names)


WILSON_NOTE = ("Success rates are k/n x 100 over the counted runs of a cell; intervals are 95% Wilson score "
               "intervals.")


def build_tables(runs: list[RunRecord], setting: str = DEFAULT_REPORT_SETTING) -> dict[str, Table]:
    """Every table of the report over the counted runs of `runs`; `setting` chooses the setting of
    Tables 1 and 2 (the paper's are the curriculum setting)."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {str(setting)[:40]!r}; choose one of {', '.join(SETTINGS)}")
    every = [r for r in runs if r.counted]
    # the paper's tables (and the per-cell ones) hold the paper's setting: text observations under the
    # vanilla ruleset; the observation and rules tables split success by observation mode and by ruleset
    counted = [r for r in every if r.observation in (None, "text") and r.rules in (None, "vanilla")]
    by_cell: dict[tuple, list[RunRecord]] = defaultdict(list)
    for r in counted:
        by_cell[r.cell].append(r)
    models = _order([r.model for r in counted], ())
    fams = _order([*FAMILY_ORDER, *(r.family for r in counted)], FAMILY_ORDER)  # the paper's five, always
    levels = _order([r.level for r in counted], LEVEL_ORDER)
    cells_in_order = sorted(by_cell, key=lambda c: (models.index(c[0]), SETTINGS.index(c[1]),
                                                   CONDITIONS.index(c[2]), _cons_key(c[3])))

    def cell(m, s, c, cons="paper") -> Cell:
        if cons == "paper":
            cons = _paper_cons(c, s)
        return Cell(by_cell.get((m, s, c, cons), []))

    out: dict[str, Table] = {}
    out["table1"] = _table1(models, cell, setting)
    out["table2"] = _table2(models, cell, setting)
    out["table6"] = _table6(models, cell)
    for name, cond in PAPER_TABLES.items():
        out[name] = _breakdown(name, cond, models, levels, fams, by_cell)
    out["failure_modes"] = _failure_modes(cells_in_order, by_cell)
    out["cells"] = _cells_table(cells_in_order, by_cell, setting)
    out["tasks"] = _tasks_table(cells_in_order, by_cell)
    out["repeats"] = _repeats(cells_in_order, by_cell)
    out["trials"] = _trials(cells_in_order, by_cell)
    out["tokens"] = _tokens(cells_in_order, by_cell)
    out["partial_credit"] = _partial(cells_in_order, by_cell, fams)
    out["observation"] = _observation_table([r for r in every if r.rules in (None, "vanilla")])
    out["rules"] = _rules_table(every)
    out["validity"] = _validity(_order([r.model for r in every], ()), every)
    out["refusals"] = _refusals(_order([r.model for r in every], ()), every)
    out["runs"] = _runs_table(runs)
    out["excluded"] = _excluded(runs)
    return out


def tables(runs: list[RunRecord], setting: str = DEFAULT_REPORT_SETTING) -> dict[str, Table]:
    return build_tables(runs, setting)


def _row_marks(named_cells: list[tuple[str, Cell]], ref: frozenset) -> list[str]:
    return [col for col, c in named_cells if c.n and not c.complete(ref)]


def _delta(x: float | None, y: float | None) -> float | None:
    return None if x is None or y is None else x - y


def _ratio(d: float | None, base: float | None) -> float | None:
    """r = delta / baseline (undefined for a baseline of 0)."""
    return None if d is None or not base else d / base


def _table1(models, cell, setting) -> Table:
    conds = ("baseline", "hint", "hint+scientist")
    grid = {m: [cell(m, setting, c) for c in conds] for m in models}
    ref = frozenset().union(*(c.te for cs in grid.values() for c in cs))
    cols = ["model", "baseline %", "baseline 95% CI", "delta_id", "r_id", "hint %", "hint 95% CI", "delta_ds", "r_ds",
            "hint+scientist %", "hint+scientist 95% CI", "delta_app", "r_app", "paired task-epochs", "incomplete"]
    rows = []
    for m in models:
        b, h, hs = grid[m]
        if not (b.n or h.n or hs.n):
            continue
        present = [c for c in (b, h, hs) if c.n]
        common = frozenset.intersection(*(c.te for c in present))
        bp, hp, hsp = (c.pct(common) if c.n else None for c in (b, h, hs))

        d_id, d_ds = _delta(hp, bp), _delta(hsp, hp)
        d_app = None if hsp is None else 100.0 - hsp
        marks = _row_marks([("baseline %", b), ("hint %", h), ("hint+scientist %", hs)], ref)
        if not common >= ref:
            for name, v in (("delta_id", d_id), ("r_id", _ratio(d_id, bp)), ("delta_ds", d_ds),
                            ("r_ds", _ratio(d_ds, bp)), ("delta_app", d_app), ("r_app", _ratio(d_app, bp))):
                if v is not None:
                    marks.append(name)
        rows.append([m, _r1(b.pct()), b.ci(), _r1(d_id), _r2(_ratio(d_id, bp)), _r1(h.pct()), h.ci(), _r1(d_ds),
                     _r2(_ratio(d_ds, bp)), _r1(hs.pct()), hs.ci(), _r1(d_app), _r2(_ratio(d_app, bp)),
                     len(common) if len(present) > 1 else None, _join(sorted(marks, key=cols.index))])
    notes = [
        f"The {setting} setting (the paper's Table 1 is the curriculum setting; --setting chooses). Scientist cells "
        "use the runs with the cpce knowledge book (the paper's optimised consolidation); baseline and hint cells use "
        "cpce runs where the protocol keeps a book (the curriculum) and every run where it keeps none.",
        "delta_id = hint - baseline, delta_ds = (hint+scientist) - hint, delta_app = 100 - (hint+scientist), in "
        "points; r = delta / baseline. All of a row's deltas and ratios are computed over the task-epochs that every "
        "one of its non-empty cells has (paired task-epochs), so baseline + the deltas = 100 on that set.",
        WILSON_NOTE,
        "A value marked * (listed under incomplete) rests on fewer task-epochs than the table's others: "
        f"{len(ref)} task-epoch(s) appear in some cell of this table.",
    ]
    return Table("table1", f"Table 1: gap decomposition ({setting} setting), success %", cols, rows, notes)


def _table2(models, cell, setting) -> Table:
    grid = {m: [cell(m, setting, "hint+scientist", c) for c in CONSOLIDATIONS] for m in models}
    ref = frozenset().union(*(c.te for cs in grid.values() for c in cs))
    cols = ["model"]
    for c in CONSOLIDATIONS:
        cols += [f"{c} %", f"{c} 95% CI"]
    cols += ["delta_kc", "paired task-epochs", "incomplete"]
    rows = []
    for m in models:
        cs = grid[m]
        if not any(c.n for c in cs):
            continue
        summ, cpce = cs[0], cs[2]
        pair = summ.te & cpce.te if summ.n and cpce.n else frozenset()
        d = None
        if pair:
            d = cpce.pct(pair) - summ.pct(pair)
        marks = _row_marks([(f"{name} %", c) for name, c in zip(CONSOLIDATIONS, cs)], ref)
        if d is not None and not pair >= ref:
            marks.append("delta_kc")
        row: list[Any] = [m]
        for c in cs:
            row += [_r1(c.pct()), c.ci()]
        row += [_r1(d), len(pair) if summ.n and cpce.n else None, _join(sorted(marks, key=cols.index))]
        rows.append(row)
    notes = [
        f"The {setting} setting, condition hint+scientist, one column per knowledge-book format: summary (the "
        "model's own summary), fee (Finding-Explanation-Example), cpce (Claim-Proof-Constraints-Example).",
        "delta_kc = cpce - summary (Appendix A, eq. 3), in points, over the task-epochs both cells have.",
        WILSON_NOTE,
        f"* (incomplete): fewer task-epochs than the {len(ref)} that appear in some cell of this table.",
    ]
    return Table("table2", f"Table 2: knowledge consolidation formats ({setting} setting, hint+scientist), success %",
                 cols, rows, notes)


def _table6(models, cell) -> Table:
    keys = [(s, c) for s in SETTINGS for c in CONDITIONS]
    grid = {m: [cell(m, s, c) for s, c in keys] for m in models}
    ref = frozenset().union(*(c.te for cs in grid.values() for c in cs))
    cols = ["model", *(f"{s} {c} %" for s, c in keys), "incomplete"]
    rows = []
    for m in models:
        cs = grid[m]
        if not any(c.n for c in cs):
            continue
        marks = _row_marks([(f"{s} {c} %", x) for (s, c), x in zip(keys, cs)], ref)
        rows.append([m, *(_r1(x.pct()) for x in cs), _join(marks)])
    notes = [
        "Both settings x the four conditions. Scientist cells use the cpce runs; every cell of a setting that keeps "
        "a book (the curriculum) uses the cpce runs.",
        WILSON_NOTE + " The intervals are in the cells table.",
        f"* (incomplete): fewer task-epochs than the {len(ref)} that appear in some cell of this table.",
    ]
    return Table("table6", "Table 6: success % per setting and condition", cols, rows, notes)


def _breakdown(name, cond, models, levels, fams, by_cell) -> Table:
    cols = ["model", "level"]
    for s in SETTINGS:
        cols += [f"{s} {f}" for f in fams] + [f"{s} Avg"]
    cols.append("incomplete")
    # the runs of this condition per (model, setting, family, level)
    groups: dict[tuple, list[RunRecord]] = defaultdict(list)
    for s in SETTINGS:
        cons = _paper_cons(cond, s)
        for m in models:
            for r in by_cell.get((m, s, cond, cons), []):
                groups[(m, s, r.family, r.level)].append(r)
    ref: dict[tuple, frozenset] = defaultdict(frozenset)
    fams_at: dict[str, set] = defaultdict(set)
    for (_m, _s, f, lv), rs in groups.items():
        ref[(f, lv)] = ref[(f, lv)] | Cell(rs).te
        fams_at[lv].add(f)
    rows = []
    for m in models:
        if not any(k[0] == m for k in groups):
            continue
        for lv in levels:
            row: list[Any] = [m, lv]
            marks = []
            for s in SETTINGS:
                vals = []
                for f in fams:
                    c = Cell(groups.get((m, s, f, lv), []))
                    v = c.pct()
                    row.append(_r1(v))
                    if v is not None:
                        vals.append(v)
                        if not c.complete(ref[(f, lv)]):
                            marks.append(f"{s} {f}")
                row.append(_r1(sum(vals) / len(vals)) if vals else None)
                have = {f for f in fams if groups.get((m, s, f, lv))}
                if vals and (have < fams_at[lv] or any(x.startswith(f"{s} ") for x in marks)):
                    marks.append(f"{s} Avg")
            if any(v is not None for v in row[2:]):
                rows.append(row + [_join(marks)])
    number = name.removeprefix("table")
    notes = [
        f"Condition {cond}: success % per family (columns) and level (rows), per setting; Avg is the mean over the "
        "families with runs at that level. Where the protocol keeps a book the cells use the cpce runs.",
        "* (incomplete): a cell with fewer epochs than another cell of this table for the same task, or an Avg "
        "missing a family that other rows have at that level (or averaging an incomplete cell).",
    ]
    return Table(name, f"Table {number}: success % by family and level, {cond}", cols, rows, notes)


def _cell_key_cols():
    return ["model", "setting", "condition", "consolidation"]


def _feeds(key, setting: str) -> str:
    """Which paper tables a protocol cell feeds (Tables 1 and 2 only in the report's setting)."""
    m, s, c, cons = key
    out = []
    if cons == _paper_cons(c, s):
        if c != "scientist" and s == setting:
            out.append("1")
        out += ["6", {"baseline": "7", "hint": "8", "scientist": "9", "hint+scientist": "10"}[c]]
    if c == "hint+scientist" and cons is not None and s == setting:
        out.append("2")
    order = ["1", "2", "6", "7", "8", "9", "10"]
    return ", ".join(sorted(set(out), key=order.index))


def _cells_table(keys, by_cell, setting) -> Table:
    cols = [*_cell_key_cols(), "runs", "tasks", "epochs", "passed", "success %", "95% CI low", "95% CI high",
            *(f"pass@{k} %" for k in PASS_AT), "paper tables"]
    rows = []
    for key in keys:
        c = Cell(by_cell[key])
        w = wilson(c.k, c.n)
        per = c.per_task()
        rows.append([*key, c.n, len(per), len({r.epoch for r in c.runs}), c.k, _r1(c.pct()), _r1(w[0]), _r1(w[1]),
                     *(_r1(pass_at_k(per, k)) for k in PASS_AT), _feeds(key, setting)])
    notes = [
        "One row per protocol cell: model, setting, condition and knowledge-book format (empty where the protocol "
        "keeps no book). 'paper tables' says which tables the cell feeds.",
        WILSON_NOTE,
        "pass@k = the mean over tasks of 1 - C(n-c, k) / C(n, k) (n runs of the task, c passed), shown where every "
        "task of the cell has at least k runs.",
    ]
    return Table("cells", "Success per protocol cell, with 95% Wilson intervals and pass@k", cols, rows, notes)


def _tasks_table(keys, by_cell) -> Table:
    cols = [*_cell_key_cols(), "task", "family", "level", "runs", "passed", "success %", "95% CI low", "95% CI high"]
    rows = []
    for key in keys:
        g: dict[str, list[RunRecord]] = defaultdict(list)
        for r in by_cell[key]:
            g[r.task_id].append(r)
        for tid in sorted(g, key=lambda t: (_index(FAMILY_ORDER, g[t][0].family), _index(LEVEL_ORDER, g[t][0].level),
                                            t)):
            rs = g[tid]
            k = sum(r.passed for r in rs)
            w = wilson(k, len(rs))
            rows.append([*key, tid, rs[0].family, rs[0].level, len(rs), k, _r1(100.0 * k / len(rs)), _r1(w[0]),
                         _r1(w[1])])
    return Table("tasks", "Success per task and protocol cell", cols, rows, [WILSON_NOTE])


def _failure_modes(keys, by_cell) -> Table:
    from scicraft_viz.diagnose import CATEGORIES, REGISTRY, TAXONOMY

    cols = [*_cell_key_cols(), "failed runs", "mode", "title", "category", "capacity gap", "paper case",
            "runs with it", "share of failed %", "primary in"]
    rows = []
    for key in keys:
        failed = [r for r in by_cell[key] if not r.passed]
        if not failed:
            continue
        count: dict[str, int] = defaultdict(int)
        primary: dict[str, int] = defaultdict(int)
        for r in failed:
            for mode in set(r.failure_modes):
                count[mode] += 1
            if r.primary_mode:
                primary[r.primary_mode] += 1
        if not count:
            rows.append([*key, len(failed), None, "no mode found", None, None, None, 0, 0.0, 0])
        for mode in sorted(count, key=lambda x: (-count[x], x)):
            rule = REGISTRY.get(mode)
            tax = TAXONOMY.get(mode)
            rows.append([*key, len(failed), mode, rule.title if rule else mode,
                         CATEGORIES.get(rule.category) if rule else None, tax[4] if tax else None,
                         tax[0] if tax else None, count[mode], _r1(100.0 * count[mode] / len(failed)),
                         primary.get(mode, 0)])
    notes = ["Failure modes found by diagnosing the world each failed (or never submitted) run left, in the paper's "
             "taxonomy (Appendix I, Table 11) plus this project's timing modes (docs/diagnosis.md). A run can show "
             "several modes; 'primary in' counts the runs whose main mode it is."]
    return Table("failure_modes", "Failure-mode frequencies (Table 11 taxonomy) per model and condition", cols, rows,
                 notes)


def _repeats(keys, by_cell) -> Table:
    cols = [*_cell_key_cols(), "epochs", "success % per epoch", "mean %", "std %", "incomplete"]
    rows = []
    for key in keys:
        rs = by_cell[key]
        by_epoch: dict[int, list[bool]] = defaultdict(list)
        for r in rs:
            by_epoch[r.epoch].append(r.passed)
        per = [100.0 * sum(g) / len(g) for _, g in sorted(by_epoch.items())]
        tasks_per = [len(g) for g in by_epoch.values()]
        sd = statistics.stdev(per) if len(per) > 1 else 0.0
        mark = "success % per epoch" if len(set(tasks_per)) > 1 else ""
        rows.append([*key, len(per), " ".join(f"{v:.1f}" for v in per), _r1(statistics.fmean(per)), _r1(sd), mark])
    notes = ["Success of each epoch (the runs paired on that epoch) and their mean and sample standard deviation; "
             "* when the epochs do not all cover the same number of tasks."]
    return Table("repeats", "Success over repeated runs (epochs): mean +- standard deviation", cols, rows, notes)


def _trials(keys, by_cell) -> Table:
    cols = [*_cell_key_cols(), "runs", "mean trials used", "max trials used", "mean scientist trials",
            "runs with a passing trial", "mean trials to first success"]
    rows = []
    for key in keys:
        rs = by_cell[key]
        firsts = [r.first_success_trial for r in rs if r.first_success_trial is not None]
        rows.append([*key, len(rs), _mean(r.trials_used for r in rs), max(r.trials_used for r in rs),
                     _mean(r.scientist_trials for r in rs), len(firsts), _mean(firsts)])
    notes = ["Verification trials from the replay (the scientist's presses count against the same budget). Trials to "
             "the first success: the number of the first engineer trial whose recording shows all N lamps meeting "
             "the contract; runs with none are left out of that mean."]
    return Table("trials", "Verification trials used, and trials to the first success", cols, rows, notes)


def _tokens(keys, by_cell) -> Table:
    cols = [*_cell_key_cols(), "runs with usage", "input tokens / attempt", "output tokens / attempt",
            "tokens / attempt", "model latency s / attempt"]
    rows = []
    for key in keys:
        rs = [r for r in by_cell[key] if r.turns_with_usage]
        if rs:
            rows.append([*key, len(rs), _mean(r.input_tokens for r in rs), _mean(r.output_tokens for r in rs),
                         _mean(r.input_tokens + r.output_tokens for r in rs), _mean(r.latency_s for r in rs)])
    return Table("tokens", "Tokens per attempt", cols, rows,
                 ["Over the runs whose producer recorded usage (each model turn's usage is on one line)."])


def _partial(keys, by_cell, fams) -> Table:
    cols = [*_cell_key_cols(), *fams, "Avg"]
    rows = []
    for key in keys:
        rs = by_cell[key]
        row: list[Any] = [*key]
        vals = []
        for f in fams:
            g = [r.partial_credit or 0.0 for r in rs if r.family == f]
            if g:
                vals.append(sum(g) / len(g))
            row.append(round(vals[-1], 3) if g else None)
        row.append(round(sum(vals) / len(vals), 3) if vals else None)
        rows.append(row)
    return Table("partial_credit", "Partial credit: lamps meeting their windows / N (unsubmitted runs count 0)", cols,
                 rows, ["From the evaluator's measurement at the replayed submit."])


def _success_rows(counted: list[RunRecord], extra, extra_order) -> list[list]:
    """Success with its Wilson interval per protocol cell and `extra(run)` (a tuple of further columns),
    sorted by model, setting, condition, consolidation, then `extra_order(extra)`."""
    groups: dict[tuple, list[RunRecord]] = defaultdict(list)
    for r in counted:
        groups[(*r.cell, *extra(r))].append(r)
    models = _order([r.model for r in counted], ())
    keys = sorted(groups, key=lambda k: (models.index(k[0]), SETTINGS.index(k[1]), CONDITIONS.index(k[2]),
                                         _cons_key(k[3]), extra_order(k[4:])))
    rows = []
    for key in keys:
        c = Cell(groups[key])
        w = wilson(c.k, c.n)
        rows.append([*key, c.n, len(c.per_task()), c.k, _r1(c.pct()), _r1(w[0]), _r1(w[1])])
    return rows


def _observation_table(counted: list[RunRecord]) -> Table:
    """Success per protocol cell and observation mode (text, image, both), every counted run."""
    cols = [*_cell_key_cols(), "observation", "runs", "tasks", "passed", "success %", "95% CI low", "95% CI high"]
    rows = _success_rows(counted, lambda r: (r.observation or "text",), lambda e: _index(OBSERVATIONS, e[0]))
    notes = ["observation: what the agent saw the world through: text (block lists, the paper's setting), image "
             "(render-view pictures in place of scan-redstone-area) or both. Runs recorded before observation modes "
             "existed are text runs.",
             "Tables 1-10 and the per-cell tables count text runs under the vanilla ruleset only; this table counts "
             "the vanilla runs; the validity and refusal tables count every counted run.", WILSON_NOTE]
    return Table("observation", "Success per observation mode (text, image, both) and protocol cell", cols, rows,
                 notes)


def _rules_table(counted: list[RunRecord]) -> Table:
    """Success per protocol cell, observation mode and ruleset (engine/rules.py), every counted run."""
    cols = [*_cell_key_cols(), "observation", "rules", "runs", "tasks", "passed", "success %", "95% CI low",
            "95% CI high"]
    rows = _success_rows(counted, lambda r: (r.observation or "text", r.rules or "vanilla"),
                         lambda e: (_index(OBSERVATIONS, e[0]), e[1] != "vanilla", e[1]))
    notes = ["rules: the ruleset the run was made under (docs/redstone.md, Rule variants; the agent is not told "
             "it). Runs recorded before rulesets existed ran under vanilla. Tables 1-10 and the per-cell tables "
             "count vanilla runs only.", WILSON_NOTE]
    return Table("rules", "Success per ruleset, observation mode and protocol cell", cols, rows, notes)


def _validity(models, counted) -> Table:
    cols = ["model", "tool", "calls", "valid", "refused", "validity %"]
    rows = []
    for m in models:
        mine = [r for r in counted if r.model == m]
        seen = {t for r in mine for t in r.calls}
        for tool in [*TOOLS, UNKNOWN_TOOL, *sorted(seen - set(TOOLS) - {UNKNOWN_TOOL})]:
            n = sum(r.calls.get(tool, 0) for r in mine)
            if n:
                ok = sum(r.valid.get(tool, 0) for r in mine)
                rows.append([m, tool, n, ok, n - ok, _r1(100.0 * ok / n)])
    return Table("validity", "Validity rate per tool (accepted calls / calls)", cols, rows,
                 ["unknown-tool: calls to a tool that does not exist (always refused)."])


def _refusals(models, counted) -> Table:
    cols = ["model", "refusal cause", "refused calls", "share %"]
    rows = []
    for m in models:
        counts: dict[str, int] = defaultdict(int)
        for r in counted:
            if r.model == m:
                for k, v in r.refusals.items():
                    counts[k] += v
        total = sum(counts.values())
        for cause, _ in CAUSES:
            if counts.get(cause):
                rows.append([m, cause, counts[cause], _r1(100.0 * counts[cause] / total)])
    return Table("refusals", "Refused calls by cause", cols, rows)


RUN_COLUMNS = ["source", "status", "reason", "sha256", "task_id", "family", "level", "model", "setting", "condition",
               "consolidation", "observation", "rules", "epoch", "recorded_epoch", "run_id", "started", "interface",
               "steps",
               "submitted", "passed", "partial_credit", "trials_used", "scientist_trials", "first_success_trial",
               "input_tokens", "output_tokens", "latency_s", "turns_with_usage", "unknown_tool_calls",
               "refused_calls", "failure_modes", "primary_mode", "mismatch_step", "mismatch_line"]


def _runs_table(runs: list[RunRecord]) -> Table:
    rows = []
    extra = {"refused_calls": lambda r: sum(r.refusals.values()), "failure_modes": lambda r: ";".join(r.failure_modes)}
    for r in runs:
        rows.append([extra[c](r) if c in extra else getattr(r, c) for c in RUN_COLUMNS])
    return Table("runs", "Every run file, one row each", list(RUN_COLUMNS), rows,
                 ["Only runs of status counted feed the other tables; the numbers are the replay's."])


def _excluded(runs: list[RunRecord]) -> Table:
    rows = [[r.status, r.source, r.reason] for r in runs if not r.counted]
    return Table("excluded", "Runs left out of every table", ["status", "file", "reason"], rows,
                 ["disagrees: a recorded result differs from the replay (the first differing step is named); "
                  "header-only: the client never called a tool; unreadable: refused, with the file and field; "
                  "duplicate: the same content or run as an earlier file; incomplete: set aside by the runner."])


# ---------------------------------------------------------------------------------------- output
ORDER = ("table1", "table2", "table6", "table7", "table8", "table9", "table10", "failure_modes", "cells", "tasks",
         "observation", "rules", "repeats", "trials", "tokens", "partial_credit", "validity", "refusals", "excluded",
         "runs")


def counts(runs: list[RunRecord]) -> dict[str, int]:
    out = {s: 0 for s in STATUSES}
    for r in runs:
        out[r.status] = out.get(r.status, 0) + 1
    out["files"] = len(runs)
    return out


def _fmt(v) -> str:
    return "-" if v is None else str(v)


def render_text(tab: Table) -> str:
    """A table as fixed-width text (for the terminal)."""
    cells = [tab.columns] + [[_fmt(v) for v in row] for row in tab.rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(tab.columns))]
    lines = [tab.title]
    for row in cells:
        lines.append("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(row, widths))))
    if not tab.rows:
        lines.append("(no runs)")
    return "\n".join(line.rstrip() for line in lines)


def _html_cell(v, marked: bool) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "<td class='na'>-</td>"
    if marked:
        return f"<td class='inc' title='incomplete'>{html.escape(str(v))}<sup>*</sup></td>"
    return f"<td>{html.escape(str(v))}</td>"


def table_html(tab: Table, max_rows: int | None = None) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in tab.columns)
    rows = tab.rows if max_rows is None else tab.rows[:max_rows]
    body = []
    for i, row in enumerate(rows):
        marks = tab.marked(i)
        body.append("<tr>" + "".join(_html_cell(v, c in marks) for c, v in zip(tab.columns, row)) + "</tr>")
    if not rows:
        body.append(f"<tr><td colspan='{len(tab.columns)}'>no runs</td></tr>")
    notes = "".join(f"<p class='note'>{html.escape(n)}</p>" for n in tab.notes)
    more = ""
    if max_rows is not None and len(tab.rows) > max_rows:
        more = f"<p class='note'>{len(tab.rows) - max_rows} more row(s) in the CSV and JSON outputs.</p>"
    return (f"<h2 id='{tab.name}'>{html.escape(tab.title)}</h2>"
            f"<table class='scv' data-table='{tab.name}'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}"
            f"</tbody></table>{more}{notes}")


def figures(tabs: dict[str, Table]) -> dict:
    """Plotly figures: Table 1's decomposition per model, Table 6's success per setting and condition,
    and the validity rate per tool."""
    import plotly.graph_objects as go

    t1 = tabs["table1"]
    models = [r[0] for r in t1.rows]
    gaps = go.Figure()
    for name, col in (("baseline", "baseline %"), ("delta_id", "delta_id"), ("delta_ds", "delta_ds"),
                      ("delta_app", "delta_app")):
        i = t1.columns.index(col)
        gaps.add_trace(go.Bar(name=name, x=models, y=[r[i] for r in t1.rows]))
    gaps.update_layout(title=t1.title, yaxis_title="points", barmode="stack")
    t6 = tabs["table6"]
    success = go.Figure()
    for j, col in enumerate(t6.columns[1:-1], 1):
        success.add_trace(go.Bar(name=col.removesuffix(" %"), x=[r[0] for r in t6.rows], y=[r[j] for r in t6.rows]))
    success.update_layout(title=t6.title, yaxis_title="success %", barmode="group")
    tv = tabs["validity"]
    validity = go.Figure()
    for m in _order([r[0] for r in tv.rows], ()):
        mine = [r for r in tv.rows if r[0] == m]
        validity.add_trace(go.Bar(name=m, x=[r[1] for r in mine], y=[r[5] for r in mine]))
    validity.update_layout(title=tv.title, yaxis_title="accepted %", barmode="group")
    return {"gaps": gaps, "success": success, "validity": validity}


def render_html(runs: list[RunRecord], tabs: dict[str, Table] | None = None, title: str = "SciCrafter runs",
                setting: str = DEFAULT_REPORT_SETTING) -> str:
    """The whole report as one static page: every table, charts (plotly.js inlined once, so the page
    works offline), and the runs left out with why."""
    import plotly.io as pio

    tabs = tabs or build_tables(runs, setting)
    figs = figures(tabs)
    charts = [pio.to_html(fig, full_html=False, include_plotlyjs=(i == 0), div_id=f"chart-{name}")
              for i, (name, fig) in enumerate(figs.items())]
    n = counts(runs)
    counted = [r for r in runs if r.counted]
    models = _order([r.model for r in counted], ())
    summary = (f"{n['files']} file(s): {n['counted']} counted, {n['disagrees']} disagree with their replay, "
               f"{n['header-only']} header-only, {n['unreadable']} unreadable, {n['duplicate']} duplicate, "
               f"{n['incomplete']} incomplete. {len(models)} model(s): "
               f"{', '.join(html.escape(str(m)) for m in models)}; "
               f"{sum(r.passed for r in counted)} counted run(s) passed.")
    style = ("body{font-family:sans-serif;margin:24px;max-width:1400px}table.scv{border-collapse:collapse;margin:8px 0}"
             "table.scv td,table.scv th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
             "table.scv th{background:#f3f3f3}td.na{color:#aaa}td.inc{background:#fff3cd}p.note{color:#555;"
             "font-size:90%;margin:2px 0}")
    body = "".join(table_html(tabs[name], MAX_HTML_RUN_ROWS if name == "runs" else None) for name in ORDER)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body><h1>{html.escape(title)}</h1><p id='summary'>{summary}</p>"
            f"{body}{''.join(charts)}</body></html>")


def _csv_value(v) -> Any:
    return "" if v is None else v


def write_csv(tab: Table, path: Path) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(tab.columns)
    for row in tab.rows:
        w.writerow([_csv_value(v) for v in row])
    _write_text(path, buf.getvalue())


def report_json(runs: list[RunRecord], tabs: dict[str, Table], runs_dir: str, setting: str) -> dict:
    return {
        "format": "scicraft-report", "version": 1,
        "generated": datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "runs_dir": str(runs_dir), "setting": setting, "code_key": code_key(), "counts": counts(runs),
        "limits": {"max_run_file_bytes": MAX_RUN_FILE_BYTES, "max_report_steps": MAX_REPORT_STEPS,
                   "max_report_ticks": MAX_REPORT_TICKS},
        "tables": {name: {"title": tabs[name].title, "columns": tabs[name].columns, "rows": tabs[name].rows,
                          "notes": tabs[name].notes} for name in ORDER},
    }


def _write_text(path: Path, text: str) -> None:
    """Write whole or not at all (a temporary file beside it, synced and renamed)."""
    atomic_write(path, text.encode("utf-8"), overwrite=True)


def parse_formats(text: str) -> list[str]:
    """'csv,json' -> ['csv', 'json']; raises ValueError for an unknown format."""
    out = []
    for f in str(text).split(","):
        f = f.strip().lower()
        if not f:
            continue
        if f not in FORMATS:
            raise ValueError(f"unknown format {f[:20]!r}; choose from {', '.join(FORMATS)} (comma-separated)")
        if f not in out:
            out.append(f)
    if not out:
        raise ValueError(f"no format given; choose from {', '.join(FORMATS)}")
    return out


def output_paths(out: str | os.PathLike | None, formats: list[str]) -> dict[str, Path]:
    """Where each format goes. `out` is a folder (an existing directory, or a path ending in '/'):
    `report.html`, `report.json` and `report.<table>.csv` in it; a file named for the single format
    asked for (`report.html` with html alone); otherwise a stem: `<stem>.html`, `<stem>.json`,
    `<stem>.<table>.csv` (a known extension on `out` is dropped first). For csv the value is the
    stem's path with the suffix `.<table>.csv` to be added."""
    text = "report" if out is None else str(out)
    p = Path(text)
    if text.endswith(("/", os.sep)) or p.is_dir():
        stem = p / "report"
    elif len(formats) == 1 and p.suffix.lower() == f".{formats[0]}" and formats[0] != "csv":
        return {formats[0]: p}
    else:
        stem = p.with_suffix("") if p.suffix.lower() in (".html", ".json", ".csv") else p
    return {f: (stem.with_name(stem.name + f".{f}") if f != "csv" else stem) for f in formats}


@dataclass
class ReportResult:
    runs: list[RunRecord]
    tables: dict[str, Table]
    written: list[Path]


def write_report(runs_dir, out: str | os.PathLike | None = None, *, formats: list[str] | str = ("html",),
                 setting: str = DEFAULT_REPORT_SETTING, progress: bool = True, jobs: int = 1,
                 cache: Any = _NO_CACHE) -> ReportResult:
    """Score every run under `runs_dir` and write the report in each format. Raises ValueError when
    `runs_dir` is unusable (missing, or holding no *.jsonl at all) or a format or setting is unknown,
    and OSError when an output cannot be written; bad runs are listed in the report, never raised."""
    fmts = parse_formats(formats) if isinstance(formats, str) else parse_formats(",".join(formats))
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {str(setting)[:40]!r}; choose one of {', '.join(SETTINGS)}")
    paths = output_paths(out, fmts)
    for p in paths.values():
        folder = p.parent if str(p.parent) else Path(".")
        if str(out or "").endswith(("/", os.sep)) and not folder.exists():
            folder.mkdir(parents=True, exist_ok=True)
        if not folder.is_dir():
            raise OSError(f"cannot write {p}: {folder} is not a directory")
    runs = load_runs(runs_dir, progress=progress, jobs=jobs, cache=cache)
    if not runs:
        raise ValueError(f"{runs_dir} holds no trajectory (*.jsonl)")
    tabs = build_tables(runs, setting)
    written: list[Path] = []
    if "html" in paths:
        _write_text(paths["html"], render_html(runs, tabs, f"SciCrafter runs in {runs_dir}", setting))
        written.append(paths["html"])
    if "json" in paths:
        _write_text(paths["json"], json.dumps(report_json(runs, tabs, str(runs_dir), setting), indent=1,
                                              allow_nan=False, ensure_ascii=False))
        written.append(paths["json"])
    if "csv" in paths:
        stem = paths["csv"]
        for name in ORDER:
            p = stem.with_name(f"{stem.name}.{name}.csv")
            write_csv(tabs[name], p)
            written.append(p)
    return ReportResult(runs, tabs, written)
