"""The SciCrafter environment: the five agent calls of the paper (Appendix F) plus submit.

One small, stable core that every front end wraps (the MCP server, the human-baseline widget,
scripted agents and trajectory replay), in the spirit of Gymnasium's env API:

    >>> from scicraft_viz import tasks
    >>> from scicraft_viz.env.environment import SciCraftEnv
    >>> env = SciCraftEnv(tasks.load("A_simultaneous_lights_L1"))
    >>> env.set_block((0, 4, 0), "stone")["ok"]
    True
    >>> env.set_block((0, 5, 0), "stone_button[face=floor]")["block"]
    'minecraft:stone_button[face=floor,facing=north,powered=false]'
    >>> r = env.activate_button()
    >>> r["trial"], r["trials_left"], r["events"][0]["kind"]
    (1, 49, 'state')

Every call returns a JSON-ready dict: `ok` (bool), `tick` (the world's game tick after the call)
and either the call's data or `error`, a sentence saying what was wrong. Bad arguments never
raise. Results are raw state changes only: the evaluator's verdict appears only in `submit`.

Time: the world advances only through actions. `set-block` places the block at the current
tick and then lets `ticks_per_action` game ticks pass (default 20, about the second a real
tool call takes); reads take no game time; `activate-button` presses the button at the current
tick and runs an observation window of `observe_ticks` game ticks (default: the task's
recording length). So a run is a deterministic function of its calls, and replaying the
calls reproduces every result tick for tick. docs/trajectory.md has the full definitions.
"""

from __future__ import annotations

import contextlib
import json
from collections import deque
from dataclasses import dataclass
from numbers import Integral
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scicraft_viz import __version__
from scicraft_viz.engine.blocks import parse_state
from scicraft_viz.errors import InputError
from scicraft_viz.tasks import Task

if TYPE_CHECKING:
    from scicraft_viz.engine.trace import Trace
    from scicraft_viz.engine.world import Event, World

Pos = tuple[int, int, int]

TOOLS = ("set-block", "get-block-state", "get-event-stream", "scan-redstone-area", "activate-button", "submit")
# The knowledge book, where the protocol keeps one (`conditions.keeps_book`).
BOOK_TOOLS = ("read-knowledge-book", "update-knowledge-book")
# The scientist sub-agent: the engineer hands it a question; it experiments in a scratch world of its
# own, archives experiment reports and ends its session with an answer for the engineer.
SCIENTIST_TOOLS = ("ask-scientist", "archive-experiment-report", "end-experiment")
# Vision: a picture of the build, where the observation mode includes images.
VISION_TOOLS = ("render-view",)
ALL_TOOLS = TOOLS + BOOK_TOOLS + SCIENTIST_TOOLS + VISION_TOOLS
# What the agent observes the world through: text (block lists, the paper's setting), image (pictures
# from render-view in place of the scan's block lists) or both.
OBSERVATIONS = ("text", "image", "both")
AGENTS = ("engineer", "scientist")
# How a call to a tool that does not exist is recorded (its name and arguments go in the step's args).
UNKNOWN_TOOL = "unknown-tool"
MAX_ANSWER_CHARS = 16 * 1024
# A call's arguments (the largest legitimate one is a whole knowledge book) and a reasoning note, bounded so that
# every line stays far below what the trajectory reader accepts.
MAX_ARGUMENT_BYTES = 1024 * 1024
MAX_NOTE_CHARS = 1024 * 1024
REDSTONE = ("redstone_wire", "redstone_repeater", "redstone_torch", "redstone_wall_torch", "redstone_lamp",
            "stone_button", "lever", "redstone_block")
PALETTE_ALIAS = {"redstone_wall_torch": "redstone_torch"}
DEFAULT_TICKS_PER_ACTION = 20
DEFAULT_MAX_EVENTS = 5000
# The paper's budget is 50. Bounded so that a run (and its replay) cannot grow without limit.
MAX_BUDGET = 1000
# Full trials (trace and build) an environment keeps: the last ones, which a live view shows.
KEEP_TRIALS = 4
MAX_SCAN_RADIUS = 64
_ARGS = {
    "set-block": ("pos", "block"),
    "get-block-state": ("pos",),
    "get-event-stream": ("limit",),
    "scan-redstone-area": ("center", "radius", "from", "to"),
    "activate-button": (),
    "submit": (),
    "read-knowledge-book": (),
    "update-knowledge-book": ("book",),
    "ask-scientist": ("question",),
    "archive-experiment-report": ("report",),
    "end-experiment": ("answer",),
    "render-view": ("camera", "position", "look", "width", "height", "timeline"),
}
_REQUIRED = {"set-block": ("pos", "block"), "get-block-state": ("pos",), "update-knowledge-book": ("book",),
             "ask-scientist": ("question",), "archive-experiment-report": ("report",), "end-experiment": ("answer",)}
# calls that change the world, the event cursor, the book or the episode (the rest only read)
_EFFECTS = ("set-block", "activate-button", "get-event-stream", "submit", "update-knowledge-book", "ask-scientist",
            "archive-experiment-report", "end-experiment")


def event_json(e: Event) -> dict:
    return {"tick": e.tick, "pos": list(e.pos), "block": e.block, "kind": e.kind, "old": e.old, "new": e.new}


def jsonable(obj: Any) -> Any:
    """A JSON round trip: tuples become lists, numpy numbers plain numbers. Raises ValueError
    for what JSON cannot hold (NaN, infinity)."""
    return json.loads(json.dumps(obj, default=_default, allow_nan=False))


def _default(o):
    if hasattr(o, "item"):
        return o.item()
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    return str(o)


class ArgumentError(ValueError):
    """A call's arguments cannot be used; the message is returned as the call's error."""


def surrogate_at(obj: Any, where: str = "arguments") -> str | None:
    """Where a lone UTF-16 surrogate hides in a JSON-like value (such text cannot be written as
    UTF-8), or None."""
    if isinstance(obj, str):
        for i, ch in enumerate(obj):
            if "\ud800" <= ch <= "\udfff":
                return f"{where} (character {i + 1}, U+{ord(ch):04X})"
        return None
    if isinstance(obj, dict):
        for k, v in obj.items():
            hit = surrogate_at(k, f"{where}: a key") or surrogate_at(v, f"{where}.{surrogate_free(k)}")
            if hit:
                return hit
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            hit = surrogate_at(v, f"{where}[{i}]")
            if hit:
                return hit
    return None


def surrogate_free(text: Any) -> str:
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


@dataclass
class TrialRecord:
    """One verification trial: when and where the button was pressed and what was recorded, and
    who pressed it (the scientist's trials run in its scratch world but use the same budget)."""

    number: int
    step: int
    button: Pos
    press_tick: int
    trace: Trace
    build: dict[Pos, str]
    agent: str = "engineer"


class SciCraftEnv:
    """A SciCrafter episode on `task`: the task's initial world in /setblock-faithful replay mode
    (an unsupported block pops off at its first neighbour update, as in Minecraft), with the
    build region, the palette and the verification-trial budget enforced.

    `recorder` (a `trajectory.TrajectoryWriter`) receives every call as it happens.

    The protocol (`condition`, `setting`, `consolidation`) decides which calls exist: where a
    knowledge book is kept (a scientist condition, or the curriculum setting) the book calls, and
    under a scientist condition `ask-scientist`, which hands control to the scientist until it calls
    `end-experiment`. The scientist's calls act on a scratch world of its own (the task's initial
    world; the evaluator never sees it) and its presses use the same trial budget. `book` is the
    book as the episode starts (a curriculum carries it from the previous level)."""

    def __init__(self, task: Task, recorder=None, *, ticks_per_action: int = DEFAULT_TICKS_PER_ACTION,
                 observe_ticks: int | None = None, max_events: int = DEFAULT_MAX_EVENTS, budget: int | None = None,
                 condition: str | None = None, keep_trials: int = KEEP_TRIALS, setting: str | None = None,
                 consolidation: str | None = None, book: str = "", observation: str = "text"):
        from scicraft_viz.env.conditions import (
            book_writer,
            check_condition,
            check_consolidation,
            check_setting,
            has_scientist,
        )

        for name, v, lo in (("ticks_per_action", ticks_per_action, 0), ("max_events", max_events, 1),
                            ("keep_trials", keep_trials, 1)):
            if not isinstance(v, Integral) or isinstance(v, bool) or v < lo:
                raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
        self.observation = check_observation(observation)
        # the pictures of the last render-view call (the view, then the timeline if asked for): front
        # ends hand them to the agent; the result itself carries only their hashes
        self.last_images: list = []
        self.condition = check_condition(condition)
        self.setting = check_setting(setting)
        self.consolidation = check_consolidation(consolidation)
        if not isinstance(book, str):
            raise ValueError(f"the starting book must be text, got {type(book).__name__}")
        self.book = self._book0 = book
        self.book_writer = book_writer(self.condition, self.setting)
        self.has_scientist = has_scientist(self.condition)
        self.agent = "engineer"  # whose turn it is: the scientist's between ask-scientist and end-experiment
        self.reports: list[str] = []
        self.sessions = 0
        self._session_reports = 0
        self._lab: World | None = None
        self.task = task
        self.recorder = recorder
        self.ticks_per_action = int(ticks_per_action)
        self.observe_ticks = int(task.record_game_ticks if observe_ticks is None else observe_ticks)
        if self.observe_ticks < 1:
            raise ValueError(f"observe_ticks must be at least 1, got {observe_ticks!r}")
        self.max_events = int(max_events)
        self.budget = int(task.trial_budget if budget is None else budget)
        if not 1 <= self.budget <= MAX_BUDGET:
            raise ValueError(f"the trial budget must be 1..{MAX_BUDGET}, got {self.budget}")
        # Built on first use: starting the engine (numba, the task's initial world) is most of a server's
        # start-up, and nothing before the first call needs it.
        self._world: World | None = None
        self._cursors = {"engineer": 0, "scientist": 0}
        # the last few trials in full; older ones are only counted (a long run must not grow without bound)
        self.trials: deque[TrialRecord] = deque(maxlen=int(keep_trials))
        self._trials_used = 0
        # with a stream as the record (not a file to read back): the calls that changed the world or the
        # event cursor, so that a failed write can be undone exactly
        self._effects: list[tuple[str, dict]] = []
        self.stopped: str | None = None
        self.steps = 0
        self.done = False
        self.submitted: dict | None = None
        self.last_error: str | None = None
        allowed = {b.removeprefix("minecraft:") for b in task.allowed_blocks}
        self._allowed = allowed
        self._handlers = {
            "set-block": self._set_block,
            "get-block-state": self._get_block_state,
            "get-event-stream": self._get_event_stream,
            "scan-redstone-area": self._scan,
            "activate-button": self._activate_button,
            "submit": self._submit,
            "read-knowledge-book": self._read_book,
            "update-knowledge-book": self._update_book,
            "ask-scientist": self._ask_scientist,
            "archive-experiment-report": self._archive_report,
            "end-experiment": self._end_experiment,
            "render-view": self._render_view,
        }

    @property
    def world(self) -> World:
        """The episode's world (the task's initial world until the first call changes it)."""
        if self._world is None:
            self._world = self.task.initial_world(replay=True)
            self._cursors["engineer"] = self._world.events_total
        return self._world

    @world.setter
    def world(self, world: World) -> None:
        self._world = world

    @property
    def lab(self) -> World:
        """The scientist's scratch world: the task's initial world, apart from the build."""
        if self._lab is None:
            self._lab = self.task.initial_world(replay=True)
            self._cursors["scientist"] = self._lab.events_total
        return self._lab

    @property
    def here(self) -> World:
        """The world the current agent acts on."""
        return self.lab if self.agent == "scientist" else self.world

    def tools_for(self, agent: str | None = None) -> tuple[str, ...]:
        """The calls `agent` (default: whoever has the turn) may make under this protocol."""
        agent = agent or self.agent
        out = [t for t in TOOLS if agent == "engineer" or t != "submit"]
        if self.book_writer is not None:
            out.append("read-knowledge-book")
            if self.book_writer == agent:
                out.append("update-knowledge-book")
        if self.has_scientist:
            out += ["ask-scientist"] if agent == "engineer" else ["archive-experiment-report", "end-experiment"]
        if self.observation != "text":
            out.append("render-view")
            if self.observation == "image":  # the world is seen in pictures, not as block lists
                out.remove("scan-redstone-area")
        return tuple(out)

    @property
    def protocol_tools(self) -> tuple[str, ...]:
        """Every call of this protocol, the engineer's and the scientist's (what an MCP server lists)."""
        both = set(self.tools_for("engineer")) | set(self.tools_for("scientist"))
        return tuple(t for t in ALL_TOOLS if t in both)

    # ------------------------------------------------------------------ configuration
    def settings(self) -> dict:
        """The settings a replay needs (written to the trajectory header's `env`)."""
        return {"ticks_per_action": self.ticks_per_action, "observe_ticks": self.observe_ticks,
                "max_events": self.max_events, "engine": f"scicraft_viz {__version__}"}

    def protocol(self) -> dict:
        """The run parameters a replay needs besides the settings (written to the trajectory header)."""
        return {"condition": self.condition, "setting": self.setting, "consolidation": self.consolidation,
                "book": self.book, "observation": self.observation}

    @classmethod
    def from_settings(cls, task: Task, settings: dict | None, recorder=None, budget: int | None = None,
                      condition: str | None = None, keep_trials: int = KEEP_TRIALS, setting: str | None = None,
                      consolidation: str | None = None, book: str = "", observation: str = "text"):
        s = dict(settings or {})
        return cls(task, recorder, ticks_per_action=s.get("ticks_per_action", DEFAULT_TICKS_PER_ACTION),
                   observe_ticks=s.get("observe_ticks"), max_events=s.get("max_events", DEFAULT_MAX_EVENTS),
                   budget=budget, condition=condition, keep_trials=keep_trials, setting=setting,
                   consolidation=consolidation, book=book, observation=observation)

    @classmethod
    def recording(cls, task: Task, path, *, actor_kind: str = "model", actor_name: str | None = None,
                  run_id: str | None = None, started: str | None = None, clock=None, overwrite: bool = False,
                  session: dict | None = None, curriculum: dict | None = None, **env_kw) -> SciCraftEnv:
        """An env that writes its trajectory to `path` (header first, then one line per call). Where the
        protocol keeps a knowledge book, the book and the experiment reports are also kept beside it
        (`<name>.book.md`, `<name>.reports.md`), rewritten whole at each change."""
        from scicraft_viz.env.trajectory import TrajectoryWriter, make_header

        env = cls(task, **env_kw)
        header = make_header(task, actor_kind=actor_kind, actor_name=actor_name, run_id=run_id, started=started,
                             budget=env.budget, env=env.settings(), session=session, condition=env.condition,
                             setting=env.setting, consolidation=env.consolidation, book=env.book,
                             curriculum=curriculum, observation=env.observation)
        env.recorder = TrajectoryWriter(path, header, overwrite=overwrite, clock=clock)
        return env

    def close(self) -> None:
        if self.recorder is not None and hasattr(self.recorder, "close"):
            self.recorder.close()

    def __enter__(self) -> SciCraftEnv:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ the calls
    @property
    def trials_used(self) -> int:
        return self._trials_used

    @property
    def trials_left(self) -> int:
        return max(0, self.budget - self.trials_used)

    def set_block(self, pos, block) -> dict:
        return self.call("set-block", {"pos": pos, "block": block})

    def get_block_state(self, pos) -> dict:
        return self.call("get-block-state", {"pos": pos})

    def get_event_stream(self, limit: int | None = None) -> dict:
        return self.call("get-event-stream", {} if limit is None else {"limit": limit})

    def scan_redstone_area(self, center=None, radius=None, *, start=None, end=None) -> dict:
        args: dict[str, Any] = {}
        if center is not None or radius is not None:
            args.update(center=center, radius=radius)
        if start is not None or end is not None:
            args.update({"from": start, "to": end})
        return self.call("scan-redstone-area", args)

    def activate_button(self) -> dict:
        return self.call("activate-button", {})

    def submit(self) -> dict:
        return self.call("submit", {})

    def render_view(self, camera: str | None = None, *, position=None, look=None, width: int | None = None,
                    height: int | None = None, timeline: bool | None = None) -> dict:
        args = {k: v for k, v in (("camera", camera), ("position", position), ("look", look), ("width", width),
                                  ("height", height), ("timeline", timeline)) if v is not None}
        return self.call("render-view", args)

    def reason(self, text: str, usage: dict | None = None) -> bool:
        """Record a reasoning note (with the usage of the model turn that wrote it); it lines up with
        the next call. False (and the episode stops) if it cannot be written."""
        if self.recorder is None or self.stopped:
            return self.recorder is None
        hit = surrogate_at(str(text), "the note")
        text = surrogate_free(text) if hit else str(text)
        if len(text) > MAX_NOTE_CHARS:  # a note is for the reader, not the replay: keep its head, say what was cut
            text = text[:MAX_NOTE_CHARS] + f" [... {len(text) - MAX_NOTE_CHARS} characters cut]"
        try:
            self.recorder.reasoning(text, usage)
        except OSError as e:
            self._stop(e)
            return False
        return True

    def call(self, tool: str, args: dict | None = None, usage: dict | None = None) -> dict:
        """Run one call by its tool name. A tool that does not exist is answered with the list of tools
        and recorded as an `unknown-tool` step; non-object arguments and text that is not valid
        Unicode are refused at the protocol level (not recorded); every other call is recorded,
        accepted or not. `usage` (model, tokens,
        latency of the turn that issued the call) goes into the record as it is.

        If the record cannot be written, the call is undone (the world is rebuilt from the calls
        that were recorded), its result is an error naming the file, and every later call is
        refused: the world never holds anything the record lacks."""
        args = {} if args is None else args
        if tool == UNKNOWN_TOOL and isinstance(args, dict) and set(args) <= {"name", "arguments"}:
            tool, args = args.get("name"), args.get("arguments", {})  # a recorded call to an unknown tool, replayed
        if not isinstance(tool, str) or tool not in self._handlers:
            return self._unknown(tool, args, usage)
        if self.stopped:
            return self._error(self.stopped)
        if not isinstance(args, dict):
            return self._error(f"{tool}: arguments must be a JSON object, got {type(args).__name__}")
        bad = surrogate_at(args)
        if bad:
            return self._error(f"{tool}: {bad} holds a lone surrogate, which is not valid Unicode text")
        try:
            args = jsonable(args)
        except (ValueError, RecursionError) as e:
            return self._error(f"{tool}: arguments cannot be written as JSON: {e}")
        size = len(json.dumps(args, ensure_ascii=False).encode("utf-8"))
        if size > MAX_ARGUMENT_BYTES:
            return self._error(f"{tool}: the arguments are {size} bytes of JSON, more than the {MAX_ARGUMENT_BYTES} "
                               "a call may carry")
        agent = self.agent
        if self.done:
            result = self._error(f"the episode is over: it was submitted at step {self.submitted['step']}")
        elif tool not in self.tools_for(agent):
            result = self._error(self._unavailable(tool, agent))
        else:
            try:
                self._check_args(tool, args)
                result = self._handlers[tool](args)
            except (ArgumentError, InputError) as e:
                result = self._error(f"{tool}: {e}")
        result = jsonable(result)
        if tool == "render-view" and result.get("ok") and self.recorder is not None:
            try:
                self._save_images()
            except OSError as e:
                return self._stop(e)
        changed = bool(result.get("ok")) and tool in _EFFECTS
        if changed and tool != "submit" and self._file() is None:
            self._effects.append((tool, args))
        if self.recorder is not None:
            try:
                self.recorder.step(tool, args, result, usage, agent=agent)
            except OSError as e:
                if changed and tool != "submit" and self._file() is None:
                    self._effects.pop()
                return self._stop(e, undo=changed)
            if changed and tool in ("update-knowledge-book", "archive-experiment-report"):
                self._save_beside()
        self.last_error = result.get("error")
        self.steps += 1
        return result

    def _unknown(self, tool: Any, args: Any, usage: dict | None) -> dict:
        """A call to a tool that does not exist is answered with the list of tools and recorded as an
        `unknown-tool` step (name and arguments as given, when they can be written), so validity counts it."""
        result = self._error(f"unknown tool {surrogate_free(tool)[:60]!r}; the tools are "
                             f"{', '.join(self.protocol_tools)}")
        if self.recorder is None or self.stopped:
            return result
        name = surrogate_free(tool)[:200] if isinstance(tool, str) else repr(tool)[:200]
        try:
            given = jsonable(args) if surrogate_at(args) is None else None
        except (ValueError, RecursionError):
            given = None
        record = {"name": name} | ({"arguments": given} if isinstance(given, dict) else {})
        try:
            self.recorder.step(UNKNOWN_TOOL, record, result, usage, agent=self.agent)
        except OSError as e:
            return self._stop(e)
        self.steps += 1
        return result

    def _unavailable(self, tool: str, agent: str) -> str:
        if tool == "render-view":
            return (f"render-view: pictures are not part of the observation mode {self.observation!r} (a run started "
                    "with observation image or both has them)")
        if tool == "scan-redstone-area" and self.observation == "image":
            return ("scan-redstone-area: under the observation mode 'image' the build is seen in pictures "
                    "(render-view), not as block lists")
        if tool == "submit":
            return "submit: only the engineer submits; the scientist ends its session with end-experiment"
        if tool in SCIENTIST_TOOLS and not self.has_scientist:
            return f"{tool}: there is no scientist under the condition {self.condition!r}"
        if tool == "ask-scientist":
            return "ask-scientist: the scientist is already at work; it ends its session with end-experiment"
        if tool in SCIENTIST_TOOLS:
            return f"{tool}: only the scientist calls this, during a session the engineer opened with ask-scientist"
        if self.book_writer is None:
            return (f"{tool}: no knowledge book is kept under the condition {self.condition!r} in the "
                    f"{self.setting} setting")
        return f"{tool}: the knowledge book is written by the {self.book_writer}, not the {agent}"

    def _save_beside(self) -> None:
        """The book and the reports as Markdown beside the trajectory (a reader's copy: the trajectory
        holds every version), each written to a temporary file and renamed, so never half-written."""
        path = self._file()
        if path is None:
            return
        from scicraft_viz.safeio import atomic_write

        base = str(path)[: -len(".jsonl")] if str(path).endswith(".jsonl") else str(path)
        reports = "\n\n---\n\n".join(f"<!-- report {i} -->\n{r}" for i, r in enumerate(self.reports, 1))
        for suffix, text in ((".book.md", self.book), (".reports.md", reports)):
            if not text:
                continue
            with contextlib.suppress(OSError):  # a reader's copy: the trajectory holds the record
                atomic_write(base + suffix, (text if text.endswith("\n") else text + "\n").encode("utf-8"),
                             overwrite=True)

    def _save_images(self) -> None:
        """The PNGs of the last render-view beside the trajectory (`images_dir`), each written to a temporary
        file and renamed, before the step that names them by hash is recorded."""
        path = self._file()
        if path is None:
            return
        from scicraft_viz.safeio import atomic_write

        folder = images_dir(path)
        folder.mkdir(exist_ok=True)
        for r in self.last_images:
            target = folder / f"{r.sha256}.png"
            if not target.exists():
                atomic_write(target, r.png, overwrite=True)

    def _stop(self, e: OSError, undo: bool = False) -> dict:
        """The record could not be written: undo the unrecorded call and refuse every later one."""
        where = getattr(e, "filename", None) or getattr(self.recorder, "path", None) or "of this run"
        self.stopped = (f"the episode is stopped: the trajectory file {where} cannot be written "
                        f"({getattr(e, 'strerror', None) or e}); the last call was undone and nothing more is accepted")
        if undo:
            self._rebuild()
        self.last_error = self.stopped
        return self._error(self.stopped)

    def _file(self):
        return getattr(self.recorder, "path", None) if self.recorder is not None else None

    def _rebuild(self) -> None:
        """The state after exactly the recorded calls (the simulation is deterministic): read back from
        the trajectory file, or, for a stream, from the calls kept for this purpose."""
        twin = SciCraftEnv(self.task, ticks_per_action=self.ticks_per_action, observe_ticks=self.observe_ticks,
                           max_events=self.max_events, budget=self.budget, condition=self.condition,
                           keep_trials=self.trials.maxlen or KEEP_TRIALS, setting=self.setting,
                           consolidation=self.consolidation, book=self._book0, observation=self.observation)
        path = self._file()
        if path is not None:
            from scicraft_viz.env.trajectory import read

            calls = [(s.tool, s.args) for s in read(path, self.task).steps]
        else:
            calls = self._effects
        for tool, args in calls:
            twin.call(tool, args)
        self.world, self._lab, self._cursors, self.trials, self._trials_used = twin.world, twin._lab, \
            twin._cursors, twin.trials, twin._trials_used
        self.book, self.reports, self.sessions, self.agent = twin.book, twin.reports, twin.sessions, twin.agent
        self._session_reports = twin._session_reports
        self.done, self.submitted = False, None

    # ------------------------------------------------------------------ argument checks
    def _error(self, message: str) -> dict:
        return {"ok": False, "error": message, "tick": self.here.tick}

    def _check_args(self, tool: str, args: dict) -> None:
        known = _ARGS[tool]
        extra = sorted(set(args) - set(known))
        if extra:
            takes = f"takes {', '.join(known)}" if known else "takes no arguments"
            raise ArgumentError(f"unexpected argument {extra[0]!r} ({tool} {takes})")
        for k in _REQUIRED.get(tool, ()):
            if k not in args:
                raise ArgumentError(f"missing argument {k!r}")

    def _pos(self, value, name: str = "pos") -> Pos:
        if not isinstance(value, list) or len(value) != 3 or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise ArgumentError(f"{name} must be three integers [x, y, z], got {json.dumps(value)[:60]}")
        return (value[0], value[1], value[2])

    def _region_text(self) -> str:
        r, (ax, ay, az) = self.task.radius, self.task.anchor
        return (f"x {ax - r}..{ax + r}, y {ay - r}..{ay + r}, z {az - r}..{az + r} (radius {r} around the anchor "
                f"({ax}, {ay}, {az}))")

    def _in_region(self, p: Pos, name: str = "pos") -> Pos:
        if not self.task.in_region(p):
            raise ArgumentError(f"{name} {p} is outside the build region: {self._region_text()}")
        return p

    def _popped_since(self, total: int) -> list[list[int]]:
        return [list(e.pos) for e in self.here.events_since(total) if e.kind == "popped"]

    # ------------------------------------------------------------------ handlers
    def _set_block(self, args: dict) -> dict:
        p = self._in_region(self._pos(args["pos"]))
        block = args["block"]
        if not isinstance(block, str):
            raise ArgumentError(f"block must be a block-state string such as 'redstone_wire', got "
                                f"{json.dumps(block)[:60]}")
        st = parse_state(block)
        name = PALETTE_ALIAS.get(st.name, st.name)
        if name not in self._allowed:
            raise ArgumentError(f"minecraft:{st.name} is not in this task's palette (allowed: "
                                f"{', '.join(sorted(self._allowed))})")
        if "powered" in st.given and st.get("powered") == "true":
            # A player places these unpowered; a powered one would stimulate the circuit without a trial.
            how = ("press it with activate-button, which uses a verification trial" if st.name == "stone_button"
                   else "its input powers it")
            raise ArgumentError(f"minecraft:{st.name} cannot be placed with powered=true at {list(p)}: place it "
                                f"unpowered (powered=false) and {how}")
        before = self.here.events_total
        self.here.set_block(p, str(st))
        self.here.step(self.ticks_per_action)
        return {"ok": True, "pos": list(p), "block": self.here.get_block(p), "popped": self._popped_since(before),
                "tick": self.here.tick}

    def _get_block_state(self, args: dict) -> dict:
        p = self._in_region(self._pos(args["pos"]))
        return {"ok": True, "pos": list(p), "block": self.here.get_block(p), "tick": self.here.tick}

    def _get_event_stream(self, args: dict) -> dict:
        limit = args.get("limit", self.max_events)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ArgumentError(f"limit must be a positive integer, got {json.dumps(limit)[:40]}")
        limit = min(limit, self.max_events)
        total = self.here.events_total
        events = self.here.events_since(self._cursors[self.agent])
        lost = (total - self._cursors[self.agent]) - len(events)
        taken = events[:limit]
        self._cursors[self.agent] = total - (len(events) - len(taken))
        out = {"ok": True, "events": [event_json(e) for e in taken], "remaining": len(events) - len(taken)}
        if lost:
            out["lost"] = lost
        out["tick"] = self.here.tick
        return out

    def _scan(self, args: dict) -> dict:
        t = self.task
        r, (ax, ay, az) = t.radius, t.anchor
        if "center" in args or "radius" in args:
            if "from" in args or "to" in args:
                raise ArgumentError("give either center and radius or from and to, not both")
            if "center" not in args or "radius" not in args:
                raise ArgumentError("center and radius go together")
            c = self._pos(args["center"], "center")
            rad = args["radius"]
            if not isinstance(rad, int) or isinstance(rad, bool) or not 0 <= rad <= MAX_SCAN_RADIUS:
                raise ArgumentError(f"radius must be an integer 0..{MAX_SCAN_RADIUS}, got {json.dumps(rad)[:40]}")
            lo = tuple(v - rad for v in c)
            hi = tuple(v + rad for v in c)
        elif "from" in args or "to" in args:
            if "from" not in args or "to" not in args:
                raise ArgumentError("from and to go together")
            a, b = self._pos(args["from"], "from"), self._pos(args["to"], "to")
            lo = tuple(min(u, v) for u, v in zip(a, b))
            hi = tuple(max(u, v) for u, v in zip(a, b))
        else:
            lo, hi = (ax - r, ay - r, az - r), (ax + r, ay + r, az + r)
        rlo, rhi = (ax - r, ay - r, az - r), (ax + r, ay + r, az + r)
        clo = tuple(max(u, v) for u, v in zip(lo, rlo))
        chi = tuple(min(u, v) for u, v in zip(hi, rhi))
        if any(u > v for u, v in zip(clo, chi)):
            raise ArgumentError(f"the box {list(lo)}..{list(hi)} does not overlap the build region: "
                                f"{self._region_text()}")
        found = []
        for p, s in self.here.blocks().items():
            if all(a <= v <= b for a, v, b in zip(clo, p, chi)):
                name = s.removeprefix("minecraft:").split("[")[0]
                if name in REDSTONE:
                    found.append({"pos": list(p), "block": s})
        return {"ok": True, "from": list(clo), "to": list(chi), "clipped": (clo, chi) != (lo, hi),
                "components": found, "count": len(found), "tick": self.here.tick}

    def _buttons(self) -> list[Pos]:
        return sorted(p for p, s in self.here.blocks().items()
                      if s.startswith("minecraft:stone_button") and self.task.in_region(p))

    def _activate_button(self, args: dict) -> dict:
        if self.trials_used >= self.budget:
            raise ArgumentError(f"no verification trial left: all {self.budget} are used")
        buttons = self._buttons()
        if not buttons:
            raise ArgumentError("there is no stone button in the build region to press")
        if len(buttons) > 1:
            raise ArgumentError(f"{len(buttons)} stone buttons at {', '.join(map(str, buttons))}: the task has a "
                                "single button, remove the others")
        b = buttons[0]
        if "powered=true" in self.here.get_block(b):
            raise ArgumentError(f"the button at {b} is still pressed (a press lasts 20 game ticks); no trial was "
                                "used")
        build = self.here.blocks()
        t = self.here.tick
        before = self.here.events_total
        self.here.use(b)
        trace = self.here.record(self.observe_ticks)
        events = self.here.events_since(before)
        self._trials_used += 1
        self.trials.append(TrialRecord(self._trials_used, self.steps, b, t, trace, build, self.agent))
        shown = events[: self.max_events]
        return {"ok": True, "trial": self._trials_used, "trials_left": self.trials_left, "button": list(b),
                "press_tick": t, "observe_ticks": self.observe_ticks, "events": [event_json(e) for e in shown],
                "truncated": len(events) - len(shown), "tick": self.here.tick}

    def _submit(self, args: dict) -> dict:
        from scicraft_viz.tasks.evaluator import Attempt, BuildError, evaluate

        try:
            attempt = Attempt(self.task, budget=self.budget, used=self.trials_used)
            res = evaluate(self.task, self.world, attempt=attempt, source="env submit")
        except BuildError as e:
            raise ArgumentError(str(e)) from None
        self.done = True
        self.submitted = {"step": self.steps, "passed": res.passed}
        d = res.to_dict()
        return {"ok": True, "passed": res.passed, "checks": d["checks"], "measured": d["measured"],
                "trials": d["trials"], "warnings": d["warnings"], "tick": self.world.tick}

    # ------------------------------------------------------------------ vision
    def _render_view(self, args: dict) -> dict:
        from scicraft_viz.views.frame import world_entities
        from scicraft_viz.views.render import DEFAULT_SIZE, render, render_timeline

        self.last_images = []
        explicit = "position" in args or "look" in args
        if explicit and "camera" in args:
            raise ArgumentError("give either camera (a preset) or position and look, not both")
        timeline = args.get("timeline", False)
        if not isinstance(timeline, bool):
            raise ArgumentError(f"timeline must be true or false, got {json.dumps(timeline)[:40]}")
        rec = next((t for t in reversed(self.trials) if t.agent == self.agent), None)
        if timeline and rec is None:
            raise ArgumentError("timeline: there is no trial yet whose lamps could be drawn; press the button with "
                                "activate-button first, or leave timeline out")
        size = (args.get("width", DEFAULT_SIZE[0]), args.get("height", DEFAULT_SIZE[1]))
        r, (ax, ay, az) = self.task.radius, self.task.anchor
        carts, items = world_entities(self.here)  # drawn as the explorer draws them
        view = render(self.here.blocks(), camera=args.get("camera", "iso"), position=args.get("position"),
                      look=args.get("look"), size=size, region=((ax - r, ay - r, az - r), (ax + r, ay + r, az + r)),
                      tick=self.here.tick, carts=carts, items=items)
        out = {"ok": True, "camera": view.camera, "width": size[0], "height": size[1],
               "image": {"sha256": view.sha256, "media_type": "image/png"}, "caption": view.caption}
        self.last_images = [view]
        if timeline:
            tl = render_timeline(rec.trace, rec.press_tick, task=self.task, trial=rec.number, width=size[0])
            self.last_images.append(tl)
            out["timeline"] = {"trial": rec.number, "sha256": tl.sha256, "media_type": "image/png",
                               "caption": tl.caption}
        out["tick"] = self.here.tick
        return out

    # ------------------------------------------------------------------ the knowledge book and the scientist
    def _read_book(self, args: dict) -> dict:
        from scicraft_viz.env.book import FORMAT_NAMES, entries

        return {"ok": True, "format": FORMAT_NAMES[self.consolidation], "writer": self.book_writer,
                "book": self.book, "entries": len(entries(self.book)), "chars": len(self.book),
                "tick": self.here.tick}

    def _update_book(self, args: dict) -> dict:
        from scicraft_viz.env.book import check_book, entries

        bad = check_book(args["book"], self.consolidation)
        if bad:
            raise ArgumentError(bad + "; the book was not changed")
        self.book = args["book"]
        return {"ok": True, "entries": len(entries(self.book)), "chars": len(self.book), "tick": self.here.tick}

    def _ask_scientist(self, args: dict) -> dict:
        from scicraft_viz.env.book import check_question

        bad = check_question(args["question"])
        if bad:
            raise ArgumentError(bad)
        self.sessions += 1
        self._session_reports = 0
        self.agent = "scientist"
        return {"ok": True, "session": self.sessions, "trials_left": self.trials_left, "tick": self.here.tick}

    def _archive_report(self, args: dict) -> dict:
        from scicraft_viz.env.book import check_report

        bad = check_report(args["report"])
        if bad:
            raise ArgumentError(bad + "; nothing was archived")
        self.reports.append(args["report"])
        self._session_reports = self._session_reports + 1
        return {"ok": True, "report": len(self.reports), "session": self.sessions, "tick": self.here.tick}

    def _end_experiment(self, args: dict) -> dict:
        from scicraft_viz.env.book import check_text

        answer = args["answer"]
        bad = check_text(answer, "the answer", MAX_ANSWER_CHARS)
        if bad:
            raise ArgumentError(bad)
        made = self._session_reports
        self.agent = "engineer"
        return {"ok": True, "session": self.sessions, "reports": made, "trials_left": self.trials_left,
                "tick": self.world.tick}


def check_observation(value) -> str:
    """An observation mode (text, image or both); raises ValueError naming the choices."""
    if value not in OBSERVATIONS:
        raise ValueError(f"the observation mode must be one of {', '.join(OBSERVATIONS)}, got {str(value)[:40]!r}")
    return value


def images_dir(trajectory_path) -> Path:
    """Where a trajectory's pictures are kept: `<name>.images/` beside `<name>.jsonl`, one `<sha256>.png` per
    picture (the SHA-256 of its RGB pixels, as the step records it)."""
    p = str(trajectory_path)
    return Path((p[: -len(".jsonl")] if p.endswith(".jsonl") else p) + ".images")
