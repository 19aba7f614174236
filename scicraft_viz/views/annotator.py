"""Human-baseline sessions: a person solves a SciCrafter task in the same environment agents use.

    >>> from scicraft_viz.views.annotator import Annotator
    >>> Annotator("A_simultaneous_lights_L1", out_dir="runs/human", time_limit_s=30 * 60)

The page shows the task's written instructions, a visible timer and the trial budget, the editable
3D canvas, a "Run trial" button and a two-step Submit. Every action is a call on a `SciCraftEnv`
(double-click to place = set-block, shift+double-click to remove = set-block air, Run trial =
activate-button, Submit = submit), so the trajectory file written line by line as the person works
has the same form as an agent's over MCP (actor kind "human") and the evaluator scores it the same
way. As for agents, a trial shows raw observations only (the lamps' on/off timeline and the state
changes), never a verdict. There are no retries: after Submit (or when the time limit runs out, which
submits the build as it stands) everything is locked, and a participant who already submitted a task
cannot start it again in the same output directory. docs/human_baseline.md has the study protocol.
"""

from __future__ import annotations

import html
import math
import os
import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import ipywidgets as W

from scicraft_viz.engine.blocks import split_state, static_state
from scicraft_viz.env.environment import SciCraftEnv, TrialRecord
from scicraft_viz.paths import ensure_dir, is_default_runs_dir
from scicraft_viz.tasks import Task
from scicraft_viz.views.canvas import Canvas, Pick
from scicraft_viz.views.figures import HostsFigures
from scicraft_viz.views.palette import Palette
from scicraft_viz.views.session import Recording, placement_order, recording_of_trial
from scicraft_viz.views.timeline import LampTimeline

Pos = tuple[int, int, int]
PARTICIPANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_TIME_LIMIT_S = 30 * 60
SYSTEM_NOTE = "[annotator]"  # prefix of reasoning lines the widget writes itself (not the participant's notes)
ERROR_COLOR = "#d6336c"
AIR = "minecraft:air"
CONSENT_TEXT = """\
Consent to take part in a study of how people build redstone circuits

What you will do: solve one building task on this page within the time limit shown, then submit.
What is recorded: every action you take on this page (each block placed or removed, each trial,
the submit) with its time, the notes you choose to type, and the participant id you were given.
Nothing else is recorded: not your name, not your screen, not your camera or microphone.
How it is stored: in a file named after the task and your participant id, kept by the experimenter.
It is used to measure how hard the task is for people and may be published without your name.
Taking part is voluntary. You may stop at any time without giving a reason; tell the experimenter if
you want the file of an unfinished session deleted.
Ticking the consent box below confirms that you have read this, and the instructions, and agree.
The experimenter may also ask you to sign a written form under their institution's rules."""
OK_COLOR = "#555"
FILL_LIMIT = 125  # most blocks one fill may place (a 5x5x5 box): a bigger one is refused before placing any
HOTKEYS = ("keys, with the mouse over the canvas: 1-9 and 0 choose the palette's blocks in order · R / shift+R turn "
           "the facing (auto follows the camera) · D the repeater's delay · F the face · T the tool · "
           "L fill a line or box · C copy a box · V paste (R turns the copy) · Z undo · Esc cancel a fill, copy or "
           "paste")
GHOST_COLOR = {"place": "#7fdcff", "fill": "#ffd43b", "copy": "#b197fc", "paste": "#8ce99a", "refused": "#ff6b6b"}


def _esc(s) -> str:
    return html.escape(str(s))


def _name(state: str) -> str:
    return state.removeprefix("minecraft:").split("[", 1)[0]


def _mmss(seconds: float) -> str:
    s = math.ceil(round(max(0.0, seconds), 3))
    return f"{s // 60:02d}:{s % 60:02d}"


def build_region(task: Task) -> tuple[Pos, Pos]:
    """What the canvas spans: the floor layer up to the top of the build region."""
    (ax, ay, az), r = task.anchor, task.radius
    floor_y = task.floor[1]
    return (ax - r, floor_y, az - r), (ax + r, ay + r, az + r)


def attempt_path(out_dir: str | Path, task_id: str, participant: str, run_id: str) -> Path:
    return Path(out_dir) / f"{task_id}__{participant}__{run_id}.jsonl"


# The run id part of a session file's name (attempt_path): no '_', so that the name splits one way only.
_RUN_ID = re.compile(r"^[A-Za-z0-9-]{1,64}$")


def previous_attempts(out_dir: str | Path, task_id: str, participant: str) -> list[tuple[Path, bool]]:
    """Earlier sessions of this participant on this task in `out_dir`: (file, submitted).

    The participant id matches exactly: P07's sessions are `<task>__P07__<run id>.jsonl` with a run id
    that holds no '_' (so `<task>__P07__retake__<run id>.jsonl`, participant P07__retake's, is not one),
    and a file whose header names another participant or task is not counted either. No pattern
    matching: an id or a task id is compared as text, never read as a glob."""
    from scicraft_viz.env.trajectory import read

    prefix = f"{task_id}__{participant}__"
    try:
        names = sorted(os.listdir(out_dir))
    except OSError:
        return []
    out = []
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".jsonl")):
            continue
        if not _RUN_ID.match(name[len(prefix):-len(".jsonl")]):
            continue
        p = Path(out_dir) / name
        t = read(p)
        if t.header:
            who = t.actor.get("name")
            if (who is not None and who != participant) or (t.task_id is not None and t.task_id != task_id):
                continue
        out.append((p, t.final is not None))
    return out


def trial_recording(trial: TrialRecord, locked_at_end: dict[Pos, bool]) -> Recording:
    """Per-tick frames of one trial for the canvas, from the trace the environment recorded."""
    return recording_of_trial(trial.build, trial.trace, locked_at_end)



def _undo_words(edit: dict) -> str:
    """What an undo did, in words: the blocks it put back and the ones it took away again."""
    items = sorted(edit.items(), key=lambda ps: (ps[0][1], ps[0]))  # bottom up, as they are put back
    back = [f"{_name(st)} at {p}" for p, st in items if st != AIR]
    gone = [p for p, st in items if st == AIR]
    words = []
    if back:
        words.append("put back " + ", ".join(back[:3]) + (f" and {len(back) - 3} more" if len(back) > 3 else ""))
    if gone:
        words.append("removed the block" + ("s" if len(gone) > 1 else "") + " at " + ", ".join(map(str, gone[:3]))
                     + (f" and {len(gone) - 3} more" if len(gone) > 3 else ""))
    return "; ".join(words) or "nothing to change"

class Annotator(HostsFigures, W.VBox):
    """One participant, one task, one attempt. `task` is a Task or a task id; the trajectory goes to
    `out_dir`/<task>__<participant>__<run id>.jsonl. An `out_dir` that is the default folder `runs/human`
    (relative, or under any folder as in README's `$PWD/runs/human`) is created with its parents at Start;
    any other folder may lack only its last level. `time_limit_s` None means no limit. `clock`
    (seconds, default time.monotonic) drives both the timer and the trajectory's wall_s.
    `show_verdict` shows pass/fail after submitting (off by default: participants of a study should
    not learn, or pass on, which builds pass)."""

    def __init__(self, task, *, out_dir: str | Path = "runs/human", participant: str | None = None,
                 time_limit_s: float | None = DEFAULT_TIME_LIMIT_S, budget: int | None = None,
                 clock: Callable[[], float] | None = None, show_verdict: bool = False,
                 canvas_size: tuple[int, int] = (640, 450), env_kw: dict | None = None,
                 consent_text: str | None = None,
                 condition: str | None = None):
        from scicraft_viz.env.conditions import ConditionError, check_condition, has_scientist

        self.condition = check_condition(condition)
        if has_scientist(self.condition):
            # a person is their own scientist: the page offers no sub-agent, so it runs baseline and hint only
            raise ConditionError(f"the annotator page runs the conditions baseline and hint; {self.condition!r} "
                                 "needs a scientist sub-agent, which only agents have")
        if isinstance(task, str):
            from scicraft_viz import tasks

            task = tasks.load(task)
        if budget is not None:
            from scicraft_viz.env.mcp_server import task_with_budget

            task = task_with_budget(task, budget)
        if time_limit_s is not None and not time_limit_s > 0:
            raise ValueError(f"time_limit_s must be a positive number of seconds or None, got {time_limit_s!r}")
        self.task: Task = task
        self.out_dir = Path(out_dir)
        self.time_limit_s = time_limit_s
        self.show_verdict = show_verdict
        self._clock = clock or time.monotonic
        self._env_kw = dict(env_kw or {})
        self.env: SciCraftEnv | None = None
        self.path: Path | None = None
        self.t0: float | None = None
        self.finished = False
        self.submit_result: dict | None = None
        self.trial_rec: Recording | None = None
        self.live = True

        # -- before the start: instructions, participant id, consent
        self.title = W.HTML(f"<h3 style='margin:4px 0'>{_esc(task.id)}: {_esc(task.name)}</h3>"
                            "<div style='font-size:12px;color:#666'>human-baseline session</div>")
        self.instructions = W.HTML(self._instructions_html())
        # open while the participant reads; folded (one click to reopen) once the clock runs, so the canvas is in view
        self.instructions_box = W.Accordion(children=[self.instructions], titles=("Instructions",), selected_index=0)
        self.participant = W.Text(value=participant or "", description="participant", placeholder="e.g. P07",
                                  style={"description_width": "80px"}, layout=W.Layout(width="300px"))
        self.consent = W.Checkbox(value=False, indent=False, layout=W.Layout(width="auto"),
                                  tooltip="tick after reading the instructions and the consent form above",
                                  description="I have read the instructions and the consent form (above) and I "
                                              "agree to take part")
        self.consent_text = W.HTML(self._consent_html(consent_text))
        self.instructions_box.children = (self.instructions, self.consent_text)
        self.instructions_box.titles = ("Instructions", "Consent form")
        self.start_button = W.Button(description="Start", button_style="success", icon="play",
                                     tooltip="start the timer and show the building area")
        self.start_button.on_click(lambda _: self.start())
        self.message = W.HTML()
        # the same message widget shows here and in the side panel: only one of the two boxes is ever visible
        self.setup = W.VBox([W.HBox([self.participant, self.start_button]), self.consent, self.message])

        # -- the session: status, canvas, palette, actions
        self.timer = W.HTML()
        self.trials = W.HTML()
        self.clock_tick = W.Play(value=0, min=0, max=10**9, step=1, interval=1000, show_repeat=False,
                                 layout=W.Layout(display="none"))
        self.clock_tick.observe(lambda ch: self.refresh_clock(), "value")
        self.canvas = Canvas(region=build_region(task), width=canvas_size[0], height=canvas_size[1])
        self.canvas.help.value = ("<span class='scv-annot-help' style='font-size:11px;color:#888'>drag: orbit · "
                                  "right-drag: pan · wheel: zoom · <b>double-click: place</b> · shift+double-click: "
                                  "remove · ctrl+double-click: a repeater's next delay<br>"
                                  f"{_esc(HOTKEYS)}</span>")
        self.canvas.on_pick(self._on_pick)
        self.canvas.on_hover(self._on_hover)
        self.palette = Palette(blocks=task.allowed_blocks)
        self.palette.facing.value = "auto"  # as in the game: from the way the camera looks
        # keys count only over the canvas (ipyevents listens there), so typing in the notes box never fires them
        from scicraft_viz.views.explorer import key_events

        self._keys = key_events(self.canvas, self.on_key)
        self.fill_button = W.ToggleButton(value=False, description="Fill line/box", icon="th-large",
                                          layout=W.Layout(width="130px"),
                                          tooltip="double-click two corners: the chosen block goes in every cell "
                                                  f"between them (at most {FILL_LIMIT}), one set-block call each")
        self.fill_button.observe(lambda ch: self._mode_toggled(self.fill_button), "value")
        self._corner: tuple[Pos, str] | None = None  # a fill's first corner and the state it places
        self.copy_button = W.ToggleButton(value=False, description="Copy box", icon="copy",
                                          layout=W.Layout(width="110px"),
                                          tooltip="double-click two blocks at opposite corners: the blocks of the box "
                                                  "between them are copied")
        self.paste_button = W.ToggleButton(value=False, description="Paste", icon="paste", disabled=True,
                                           layout=W.Layout(width="90px"),
                                           tooltip="double-click a face: the copied blocks go there (its lowest "
                                                   "north-west corner in front of the face), one set-block call each")
        self.copy_button.observe(lambda ch: self._mode_toggled(self.copy_button), "value")
        self.paste_button.observe(lambda ch: self._mode_toggled(self.paste_button), "value")
        self._copy_corner: Pos | None = None
        self._hover_pick: Pick | None = None  # where the mouse is over the canvas (for the paste's footprint)
        self.clipboard: dict[Pos, str] = {}  # copied blocks by offset from the copied box's lowest corner
        self.trial_button = W.Button(description="Run trial", button_style="warning", icon="hand-pointer-o",
                                     tooltip="press the button and watch what happens (uses one trial)")
        self.trial_button.on_click(lambda _: self.run_trial())
        self.submit_button = W.Button(description="Submit…", button_style="danger", icon="flag-checkered",
                                      tooltip="hand in the build (final: no changes afterwards)")
        self.submit_button.on_click(lambda _: self.request_submit())
        self.confirm_button = W.Button(description="Yes, submit now", button_style="danger",
                                       layout=W.Layout(display="none"))
        self.cancel_button = W.Button(description="Keep building", layout=W.Layout(display="none"))
        self.confirm_button.on_click(lambda _: self.confirm_submit())
        self.cancel_button.on_click(lambda _: self.cancel_submit())
        self.notes = W.Textarea(placeholder="optional: what you are thinking or trying (saved with the session)",
                                layout=W.Layout(width="300px", height="64px"))
        self.note_button = W.Button(description="Save note", icon="pencil", layout=W.Layout(width="110px"),
                                    tooltip="save the note with the session (it is not shown to anyone now)")
        self.undo_button = W.Button(description="Undo", icon="rotate-left", layout=W.Layout(width="90px"),
                                    tooltip="take back your last placement or removal (as set-block calls)")
        self.undo_button.on_click(lambda _: self.undo())
        self.history: list[dict[Pos, str]] = []
        self.note_button.on_click(lambda _: self.save_note())
        side = W.VBox([W.HTML("<b>Palette</b>"), self.palette,
                       W.HBox([self.trial_button, self.submit_button, self.undo_button]),
                       W.HBox([self.fill_button, self.copy_button, self.paste_button]),
                       W.HBox([self.confirm_button, self.cancel_button]), self.message, self.notes,
                       self.note_button], layout=W.Layout(width="330px", margin="0 0 0 8px"))

        # -- what the last trial showed: the lamps' timeline and the canvas at any tick of the trial
        self.trial_info = W.HTML()
        self.timeline = LampTimeline(width=canvas_size[0] + 330)
        self.timeline.on_select(lambda tick, lamp: self._seek_trial(tick))
        self.trial_tick = W.IntSlider(value=0, min=0, max=0, description="trial tick", continuous_update=True,
                                      layout=W.Layout(width="520px"), style={"description_width": "70px"})
        self.trial_tick.observe(lambda ch: self._show_trial_tick(ch["new"]), "value")
        self.live_button = W.Button(description="Back to live", icon="refresh", layout=W.Layout(width="130px"))
        self.live_button.on_click(lambda _: self.show_live())
        self.trial_box = W.VBox([self.trial_info, W.HBox([self.trial_tick, self.live_button]), self.timeline],
                                layout=W.Layout(display="none"))
        self.done_box = W.HTML()
        self.work = W.VBox([W.HBox([self.canvas, side]), self.trial_box], layout=W.Layout(display="none"))
        self.status = W.HBox([self.timer, self.trials, self.clock_tick])
        super().__init__([self.title, self.status, self.done_box, self.instructions_box, self.setup, self.work])
        self.add_class("scv-annotator")
        self.refresh_status()
        self.canvas.show_blocks(task.initial_blocks(), 0)
        self._say(True, "Read the instructions, enter your participant id, tick the consent box, then Start.")

    def _figures(self) -> list:
        return [self.timeline.figure]

    # ------------------------------------------------------------------ text
    def _instructions_html(self) -> str:
        t = self.task
        (ax, ay, az), r = t.anchor, t.radius
        from scicraft_viz.env.conditions import extras, statement

        desc = _esc("\n".join([statement(t), *extras(t, self.condition)]))
        reqs = "".join(f"<li>{_esc(q)}</li>" for q in t.doc.get("requirements", []))
        limit = (f"{_mmss(self.time_limit_s)} (mm:ss); when it runs out, the build is submitted as it stands"
                 if self.time_limit_s else "none")
        budget = t.trial_budget
        palette = ", ".join(sorted(b.removeprefix("minecraft:") for b in t.allowed_blocks if b != "minecraft:air"))
        return (
            "<div class='scv-instructions' style='font-size:13px;max-width:980px'>"
            f"<div style='white-space:pre-wrap'>{desc}</div><b>Requirements</b><ul style='margin:2px 0'>{reqs}</ul>"
            "<b>How this session works</b><ul style='margin:2px 0'>"
            f"<li>Build region: x {ax - r}..{ax + r}, y {ay - r}..{ay + r}, z {az - r}..{az + r}; the stone floor is "
            f"y={t.floor[1]}. Blocks: {_esc(palette)}.</li>"
            "<li>Double-click a block face to place the palette's block against it; shift+double-click removes a "
            "block; ctrl+double-click on a repeater changes its delay. Drag to orbit, right-drag to pan, wheel to "
            "zoom.</li>"
            f"<li>Keys (with the mouse over the canvas): 1-9 and 0 choose the palette's blocks in order; R turns "
            "the facing (shift+R back), and facing auto takes it from the camera as the game does: a repeater's or "
            "comparator's output points the way you look; D changes the delay, F the face, T the tool; L starts a "
            "fill (double-click two corners to fill the line or box between them with the chosen block, at most "
            f"{FILL_LIMIT} blocks; Esc cancels); C copies a box (double-click two blocks at opposite corners) and V "
            "pastes it (double-click a face: the copy's lowest north-west corner goes in front of it; R turns "
            "the copy while pasting); Z undoes the "
            "last edit (a whole fill or paste at once). A translucent box "
            "shows where a double-click would place.</li>"
            f"<li><b>Run trial</b> presses your button and shows what your circuit did. You have {budget} "
            "trials.</li>"
            "<li>Each placement lets one second of game time pass (20 game ticks); 1 redstone tick = 2 game "
            "ticks.</li>"
            f"<li>Time limit: {limit}.</li>"
            "<li><b>Submit</b> hands in the build. There is no second attempt.</li></ul></div>")

    @staticmethod
    def _consent_html(text: str | None) -> str:
        body = _esc(text if text is not None else CONSENT_TEXT)
        return f"<div class='scv-consent' style='font-size:13px;max-width:980px;white-space:pre-wrap'>{body}</div>"

    def _say(self, ok: bool, text: str) -> None:
        color = OK_COLOR if ok else ERROR_COLOR
        self.message.value = f"<div class='scv-message' style='font-size:12px;color:{color}'>{_esc(text)}</div>"
        self.last_message = text

    # ------------------------------------------------------------------ status
    @property
    def elapsed(self) -> float:
        return 0.0 if self.t0 is None else max(0.0, self._clock() - self.t0)

    @property
    def remaining(self) -> float | None:
        return None if self.time_limit_s is None else max(0.0, self.time_limit_s - self.elapsed)

    def refresh_status(self) -> None:
        if self.time_limit_s is None:
            text, color = f"time {_mmss(self.elapsed)}", "#333"
        else:
            left = self.remaining
            text = f"time left {_mmss(left)} of {_mmss(self.time_limit_s)}"
            color = ERROR_COLOR if left is not None and left <= 60 and self.t0 is not None else "#333"
        if self.finished:
            text += " · submitted"
        self.timer.value = (f"<div class='scv-timer' style='font:600 18px monospace;color:{color};"
                            f"margin-right:24px'>{_esc(text)}</div>")
        env = self.env
        budget = env.budget if env is not None else self.task.trial_budget
        used = env.trials_used if env is not None else 0
        tick = env.world.tick if env is not None else 0
        calls = env.steps if env is not None else 0
        self.trials.value = (f"<div class='scv-trials' style='font:600 18px monospace'>trials {used}/{budget} "
                             f"({budget - used} left)<span style='font:12px sans-serif;color:#888'> · game tick {tick}"
                             f" · {calls} actions</span></div>")

    def refresh_clock(self) -> None:
        """Called every second by the page's timer (and before every action): updates the display and
        submits the build when the time limit has run out."""
        if self.env is not None and not self.finished and self.remaining == 0:
            self._expire()
        self.refresh_status()

    def _expire(self) -> None:
        self.env.reason(f"{SYSTEM_NOTE} time limit of {_mmss(self.time_limit_s)} reached: the build was submitted "
                        "as it stood")
        self._submit("Time is up: your build was submitted as it stood.")

    # ------------------------------------------------------------------ start
    def start(self) -> bool:
        """Open the session: checks the participant id, consent and earlier attempts, then starts the timer."""
        if self.env is not None:
            self._say(False, "the session has already started")
            return False
        pid = self.participant.value.strip()
        if not PARTICIPANT.match(pid):
            self._say(False, "enter a participant id: 1-64 letters, digits, '.', '_' or '-', starting with a letter "
                             f"or digit (got {pid[:70]!r})")
            return False
        if not self.consent.value:
            self._say(False, "tick the consent box first")
            return False
        earlier = previous_attempts(self.out_dir, self.task.id, pid)
        done = [p for p, submitted in earlier if submitted]
        if done:
            self._say(False, f"participant {pid} already submitted {self.task.id} ({done[0].name}): there are no "
                             "retries after submitting")
            return False
        run_id = uuid.uuid4().hex[:12]
        path = attempt_path(self.out_dir, self.task.id, pid, run_id)
        setting = {"interface": "annotator", "time_limit_s": self.time_limit_s}
        try:
            if is_default_runs_dir(self.out_dir):  # runs/human (the default, or README's $PWD/runs/human)
                ensure_dir(self.out_dir)
            self.env = SciCraftEnv.recording(self.task, path, actor_kind="human", actor_name=pid, run_id=run_id,
                                             clock=self._clock, session=setting, condition=self.condition,
                                             **self._env_kw)
        except OSError as e:
            self._say(False, f"cannot write the session file {path}: {e.strerror or e}")
            return False
        self.path = path
        self.t0 = self._clock()
        self.participant.disabled = self.consent.disabled = self.start_button.disabled = True
        self.setup.layout.display = "none"
        self.work.layout.display = None
        self.instructions_box.selected_index = None
        self.clock_tick.playing = True
        self.show_live()
        self.refresh_status()
        note = (f" (an unfinished earlier session exists: {earlier[-1][0].name})" if earlier else "")
        self._say(True, f"Started. Your session is saved as you work to {path.name}.{note}")
        return True

    # ------------------------------------------------------------------ actions (each one environment call)
    def _ready(self) -> bool:
        if self.env is None:
            self._say(False, "press Start first")
            return False
        self.refresh_clock()
        if self.finished:
            self._say(False, "the session is over: the build was submitted, nothing can change now")
            return False
        return True

    def _after(self, result: dict, ok_text: str) -> dict:
        if result.get("ok"):
            warning = self.lamp_warning()
            if warning:
                self._say(False, f"{ok_text}. Warning: {warning}")
            else:
                self._say(True, ok_text)
        else:
            self._say(False, result.get("error", "refused"))
        self.undo_button.disabled = not self.history
        self.show_live()
        self.refresh_status()
        return result

    def lamp_warning(self) -> str:
        """What sits on top of a lamp (the tasks forbid it), in words; empty when nothing does."""
        if self.env is None:
            return ""
        blocks = self.env.world.blocks()
        on_lamps = [(p, (p[0], p[1] + 1, p[2])) for p, st in blocks.items() if _name(st) == "redstone_lamp"
                    and (p[0], p[1] + 1, p[2]) in blocks]
        if not on_lamps:
            return ""
        lamp, above = on_lamps[0]
        more = f" (and {len(on_lamps) - 1} more)" if len(on_lamps) > 1 else ""
        return (f"{_name(blocks[above])} at {above} sits on the lamp at {lamp}{more}: blocks on top of a lamp break "
                "the task's rules")

    def _static(self) -> dict[Pos, str]:
        """Every block as undo must restore it; dust is just dust (its shape follows its neighbours)."""
        return {p: "minecraft:redstone_wire" if _name(st) == "redstone_wire" else static_state(st)
                for p, st in self.env.world.blocks().items()}

    def _record_edit(self, before: dict[Pos, str]) -> None:
        after = self._static()
        changed = {p: before.get(p, AIR) for p in set(before) | set(after) if before.get(p, AIR) != after.get(p, AIR)}
        if changed:
            self.history.append(changed)

    def undo(self) -> dict | None:
        """Put back what the last placement or removal changed (each change is a set-block call, recorded)."""
        if not self._ready():
            return None
        if not self.history:
            self._say(False, "nothing to undo")
            return None
        edit = self.history.pop()
        result: dict = {"ok": True}
        now = self._static()
        for p, st in placement_order(edit):
            if now.get(p, AIR) == st:
                continue
            result = self.env.set_block(p, st.removeprefix("minecraft:"))
            if not result.get("ok"):
                self.history.append(edit)
                break
        return self._after(result, "undid the last edit: " + _undo_words(edit))

    def place(self, pos, state: str) -> dict | None:
        """set-block, as a double-click does."""
        if not self._ready():
            return None
        before = self._static()
        r = self.env.set_block(pos, state)
        if r.get("ok"):
            self._record_edit(before)
        text = ""
        if r.get("ok"):
            p = tuple(r["pos"])
            asked, now = _name(state), _name(r["block"])
            if asked == "air":
                text = f"removed the block at {p}"
            elif now == "air":
                text = f"the {asked} at {p} had no support and popped off"
            else:
                text = f"placed {now} at {p}"
            popped = [tuple(q) for q in r["popped"] if tuple(q) != p]
            if popped:
                text += (f"; {len(popped)} block(s) without support popped off: "
                         f"{', '.join(map(str, popped[:4]))}{' ...' if len(popped) > 4 else ''}")
        return self._after(r, text)

    def remove(self, pos) -> dict | None:
        """set-block air, as shift+double-click does."""
        if not self._ready():
            return None
        if self.env.world.get_block(tuple(pos)) == "minecraft:air":
            self._say(False, f"nothing to remove at {tuple(pos)}")
            return None
        return self.place(pos, "air")

    def use(self, pos) -> dict | None:
        """ctrl+double-click: a repeater's next delay (set-block with the same facing); the button runs a trial."""
        if not self._ready():
            return None
        state = self.env.world.get_block(tuple(pos))
        name, props = split_state(state)
        if name == "stone_button":
            return self.run_trial()
        if name != "redstone_repeater":
            self._say(False, f"{name} at {tuple(pos)} cannot be used here: ctrl+double-click a repeater to change its "
                             "delay, or use Run trial")
            return None
        delay = int(props.get("delay", "1")) % 4 + 1
        before = self._static()
        r = self.env.set_block(pos, f"redstone_repeater[delay={delay},facing={props.get('facing', 'north')}]")
        if r.get("ok"):
            self._record_edit(before)
        return self._after(r, f"repeater at {tuple(pos)}: delay {delay}")

    def run_trial(self) -> dict | None:
        """activate-button: press the button and show what happened."""
        if not self._ready():
            return None
        r = self.env.activate_button()
        if not r.get("ok"):
            return self._after(r, "")
        self._say(True, f"trial {r['trial']}: pressed at game tick {r['press_tick']}, watched {r['observe_ticks']} "
                        f"game ticks; {r['trials_left']} trial(s) left")
        self._show_trial(self.env.trials[-1], r)
        self.refresh_status()
        return r

    def save_note(self) -> bool:
        if not self._ready():
            return False
        text = self.notes.value.strip()
        if not text:
            self._say(False, "write something in the note box first")
            return False
        self.env.reason(text)
        self.notes.value = ""
        self._say(True, "note saved")
        return True

    def request_submit(self) -> None:
        if not self._ready():
            return
        self._say(True, "Submit now? This is final: the build is checked once and cannot be changed afterwards.")
        self.confirm_button.layout.display = None
        self.cancel_button.layout.display = None

    def cancel_submit(self) -> None:
        self.confirm_button.layout.display = "none"
        self.cancel_button.layout.display = "none"
        if not self.finished:
            self._say(True, "not submitted: keep building")

    def confirm_submit(self) -> dict | None:
        if not self._ready():
            return None
        return self._submit("Submitted. Your build has been recorded - thank you.")

    def _submit(self, text: str) -> dict:
        r = self.env.submit()
        self.confirm_button.layout.display = "none"
        self.cancel_button.layout.display = "none"
        if not r.get("ok"):
            # The build could not be evaluated at all (e.g. unusable input); the session stays open to fix it.
            self._say(False, r.get("error", "submit was refused"))
            self.refresh_status()
            return r
        self.finished = True
        self.submit_result = r
        self.clock_tick.playing = False
        self.fill_button.value = self.copy_button.value = self.paste_button.value = False
        for w in (self.trial_button, self.submit_button, self.note_button, self.notes, self.undo_button,
                  self.fill_button, self.copy_button, self.paste_button):
            w.disabled = True
        self.env.close()
        verdict = ""
        if self.show_verdict:
            failed = [c for c in r["checks"] if not c["passed"]]
            verdict = ("<br><b style='color:#2e9d4f'>PASS</b>" if r["passed"] else
                       "<br><b style='color:#d6336c'>FAIL</b>: " + _esc("; ".join(
                           f"{c['name']}: {c.get('reason') or 'failed'}" for c in failed[:4])))
        self.done_box.value = (f"<div class='scv-done' style='font-size:15px;margin:8px 0'><b>{_esc(text)}</b>"
                               f"{verdict}</div>")
        self._say(True, text)
        self.refresh_status()
        return r

    # ------------------------------------------------------------------ canvas input
    def _on_pick(self, pick: Pick | None) -> None:
        if pick is None:
            self._say(False, "nothing there: double-click on a block or on the floor")
            return
        if self.copy_button.value:
            if self._copy_corner is None:
                self._copy_corner = pick.hit
                self.canvas.highlight([pick.hit], GHOST_COLOR["copy"], name="fill-corner")
                self._say(True, f"copy from {pick.hit}: double-click the block at the opposite corner (Esc cancels)")
            else:
                first = self._copy_corner
                self.copy_button.value = False
                self.copy(first, pick.hit)
            return
        if self.paste_button.value:
            self.paste(pick.target)
            return
        tool = self.palette.tool_for(pick)
        if tool == "remove":
            self.remove(pick.hit)
        elif tool == "use":
            self.use(pick.hit)
        else:
            try:
                state = self.palette.state_for(pick, self.canvas.look_direction())
            except ValueError as e:
                self._say(False, str(e))
                return
            if not self.fill_button.value:
                self.place(pick.target, state)
            elif self._corner is None:
                if self._ready():
                    self._corner = (pick.target, state)
                    self.canvas.highlight([pick.target], GHOST_COLOR["fill"], name="fill-corner")
                    self._say(True, f"fill from {pick.target}: double-click the opposite corner (Esc cancels)")
            else:
                first, state = self._corner
                self._end_fill()
                self.fill(first, pick.target, state)

    def _on_hover(self, pick: Pick | None) -> None:
        """The ghost: a translucent box where a double-click would place (nothing for remove or use); while
        pasting, the whole copy as it would land, turned as it is, red where the paste would be refused."""
        self._hover_pick = pick
        pasting = pick is not None and self.env is not None and not self.finished and self.paste_button.value
        if pasting and self.clipboard:
            at = pick.target
            cells = sorted(tuple(o + d for o, d in zip(at, rel)) for rel in self.clipboard)
            refused = self._box_refusal("paste", cells) is not None
            self.canvas.ghost_blocks(cells, GHOST_COLOR["refused" if refused else "paste"])
        else:
            self.canvas.ghost_blocks([])
        if pick is None or self.env is None or self.finished or pasting:
            self.canvas.ghost(None)
        elif self.copy_button.value:
            self.canvas.ghost(pick.hit, GHOST_COLOR["copy"])
        elif self.palette.tool.value == "place":
            self.canvas.ghost(pick.target, GHOST_COLOR["fill" if self.fill_button.value else "place"])
        else:
            self.canvas.ghost(None)

    def on_key(self, event: dict) -> str | None:
        """A key pressed with the mouse over the canvas (an ipyevents keydown event); returns what it did."""
        key = event.get("key")
        if self.env is None or self.finished or not isinstance(key, str):
            return None
        if event.get("ctrlKey") or event.get("metaKey") or event.get("altKey"):
            return None  # the browser's and the system's own shortcuts
        if key in ("z", "Z"):
            self.undo()
            return "undo"
        modes = {"fill": self.fill_button, "copy": self.copy_button, "paste": self.paste_button}
        by_key = {"l": "fill", "c": "copy", "v": "paste"}
        if key.lower() in by_key:
            name = by_key[key.lower()]
            button = modes[name]
            if button.disabled:
                self._say(False, "nothing to paste: copy a box first (C)")
                return None
            button.value = not button.value
            return f"{name} " + ("on" if button.value else "off")
        if key in ("r", "R") and self.paste_button.value:
            self.turn_clipboard(1 if key == "r" else 3)
            self._on_hover(self._hover_pick)  # the footprint turns with the copy
            return "paste turned"
        if key == "Escape":
            on = [name for name, b in modes.items() if b.value]
            for name in on:
                modes[name].value = False
            return f"{on[0]} off" if on else None
        done = self.palette.on_key(key)
        if done is not None:
            self._say(True, done)
        return done

    def _mode_toggled(self, button: W.ToggleButton) -> None:
        """Fill, copy and paste exclude each other; turning one on or off drops a half-chosen box."""
        self._end_fill()
        if button.value:
            for other in (self.fill_button, self.copy_button, self.paste_button):
                if other is not button:
                    other.value = False
            self._say(True, {self.fill_button: "fill: double-click the first corner, then the opposite one",
                             self.copy_button: "copy: double-click the block at one corner, then at the opposite one",
                             self.paste_button: f"paste: double-click a face to put the {len(self.clipboard)} copied "
                                                "block(s) there"}[button])
        elif self.env is not None and not self.finished and not any(
                b.value for b in (self.fill_button, self.copy_button, self.paste_button)):
            self._say(True, f"{button.description.lower()} off")
        self._on_hover(self._hover_pick)  # the ghost of the mode now on, where the mouse is

    def _end_fill(self) -> None:
        self._corner = None
        self._copy_corner = None
        self.canvas.clear_highlight("fill-corner")

    def _box_refusal(self, what: str, cells: list[Pos]) -> str | None:
        """Why `what` may not place into these cells (too many, or outside the build region), or None."""
        if len(cells) > FILL_LIMIT:
            return f"{what} refused: {len(cells)} blocks, more than the {FILL_LIMIT} one edit may place"
        outside = [p for p in cells if not self.task.in_region(p)]
        if outside:
            (ax, ay, az), r = self.task.anchor, self.task.radius
            return (f"{what} refused: {outside[0]} is outside the build region (x {ax - r}..{ax + r}, "
                    f"y {ay - r}..{ay + r}, z {az - r}..{az + r})")
        return None

    def _put(self, states: dict[Pos, str], text: str) -> dict:
        """set-block for each cell whose block differs, in placement order; one undo step for all."""
        before = self._static()
        result: dict = {"ok": True}
        placed = 0
        for p, st in placement_order(states):
            if before.get(p, AIR) == st:
                continue
            result = self.env.set_block(p, st.removeprefix("minecraft:"))
            if not result.get("ok"):
                break
            placed += 1
        self._record_edit(before)
        text = text.format(placed=placed)
        if not result.get("ok"):
            result = dict(result, error=f"{text}, then stopped: {result.get('error', 'refused')}")
        return self._after(result, text)

    def copy(self, a, b) -> dict[Pos, str] | None:
        """Copy the blocks of the box with corners a and b (air is not copied) as the clipboard for paste."""
        if not self._ready():
            return None
        lo = tuple(min(u, v) for u, v in zip(a, b))
        hi = tuple(max(u, v) for u, v in zip(a, b))
        blocks = self._static()
        self.clipboard = {tuple(q - o for q, o in zip(p, lo)): st for p, st in blocks.items()
                          if all(o <= q <= h for q, o, h in zip(p, lo, hi))}
        self.paste_button.disabled = not self.clipboard
        if not self.clipboard:
            self._say(False, f"nothing to copy between {lo} and {hi}: only air")
        else:
            self._say(True, f"copied {len(self.clipboard)} block(s) from {lo} to {hi}: press V (or Paste) and "
                            "double-click where the copy goes")
        return self.clipboard

    def turn_clipboard(self, quarters: int = 1) -> dict[Pos, str]:
        """Turn the copy a quarter turn clockwise (seen from above) `quarters` times: positions and facings."""
        turn = {"north": "east", "east": "south", "south": "west", "west": "north"}
        for _ in range(quarters % 4):
            turned = {}
            for (x, y, z), st in self.clipboard.items():
                name, props = split_state(st)
                if props.get("facing") in turn:
                    props["facing"] = turn[props["facing"]]
                    st = f"minecraft:{name}[" + ",".join(f"{k}={v}" for k, v in sorted(props.items())) + "]"
                turned[(-z, y, x)] = st  # clockwise from above: north (-z) becomes east (+x)
            lo_x, lo_z = min(p[0] for p in turned), min(p[2] for p in turned)
            self.clipboard = {(x - lo_x, y, z - lo_z): st for (x, y, z), st in turned.items()}
        if quarters % 4:
            self._say(True, f"the copy is turned a quarter turn clockwise {quarters % 4} time(s)")
        return self.clipboard

    def paste(self, at) -> dict | None:
        """Put the clipboard's blocks with its lowest corner at `at`: one set-block call per block that
        differs, in the order a build is placed, refused as a whole (before anything is placed) when it
        reaches outside the build region. Undo takes the whole paste back as one step."""
        if not self._ready():
            return None
        if not self.clipboard:
            self._say(False, "nothing to paste: copy a box first")
            return None
        at = tuple(int(v) for v in at)
        states = {tuple(o + d for o, d in zip(at, rel)): st for rel, st in self.clipboard.items()}
        refusal = self._box_refusal(f"paste at {at}", sorted(states))
        if refusal:
            self._say(False, refusal)
            return None
        return self._put(states, f"pasted {{placed}} block(s) of {len(states)} at {at}")

    def fill(self, a, b, state: str) -> dict | None:
        """Place `state` in every cell of the box with corners a and b (a line when they share two
        coordinates): one set-block call per cell, in the order a build is placed (bottom up, then by x
        and z, what hangs on others last), skipping cells that hold that block already. A box larger
        than FILL_LIMIT or reaching outside the build region is refused before anything is placed.
        Undo takes the whole fill back as one step."""
        if not self._ready():
            return None
        lo = tuple(min(u, v) for u, v in zip(a, b))
        hi = tuple(max(u, v) for u, v in zip(a, b))
        what = f"fill from {tuple(a)} to {tuple(b)}"
        if math.prod(h - lo_ + 1 for lo_, h in zip(lo, hi)) > FILL_LIMIT:  # refused before listing the cells
            n = math.prod(h - lo_ + 1 for lo_, h in zip(lo, hi))
            self._say(False, f"{what} refused: {n} blocks, more than the {FILL_LIMIT} one edit may place")
            return None
        cells = [(x, y, z) for x in range(lo[0], hi[0] + 1) for y in range(lo[1], hi[1] + 1)
                 for z in range(lo[2], hi[2] + 1)]
        refusal = self._box_refusal(what, cells)
        if refusal:
            self._say(False, refusal)
            return None
        want = "minecraft:redstone_wire" if _name(state) == "redstone_wire" else static_state(state)
        return self._put({p: want for p in cells}, f"filled {{placed}} cell(s) from {lo} to {hi} with {_name(state)}")

    # ------------------------------------------------------------------ drawing
    def show_live(self) -> None:
        """The canvas shows the world as it is now."""
        self.live = True
        if self.env is not None:
            self.canvas.show_world(self.env.world)

    def _show_trial(self, trial: TrialRecord, result: dict) -> None:
        w = self.env.world
        locked = {p: True for p in trial.build if "locked=true" in w.get_block(p)}
        self.trial_rec = trial_recording(trial, locked)
        tr = trial.trace
        self.timeline.show(tr, presses=[trial.press_tick], cursor=trial.press_tick)
        with self.trial_tick.hold_trait_notifications():
            self.trial_tick.max = max(int(tr.ticks[-1]), self.trial_tick.min)
            self.trial_tick.min = int(tr.ticks[0])
            self.trial_tick.max = int(tr.ticks[-1])
        self.trial_info.value = self._trial_html(trial, result)
        self.trial_box.layout.display = None
        self.trial_tick.value = trial.press_tick
        self._show_trial_tick(trial.press_tick)

    def _trial_html(self, trial: TrialRecord, result: dict) -> str:
        t0 = trial.press_tick
        lamp_events = [e for e in result["events"] if e["block"] == "minecraft:redstone_lamp" and e["kind"] == "state"]
        rows = "".join(f"<tr><td>+{e['tick'] - t0} gt</td><td>{_esc(tuple(e['pos']))}</td><td>"
                       f"{'on' if e['new'] else 'off'}</td></tr>" for e in lamp_events[:40])
        more = f"<div>... and {len(lamp_events) - 40} more lamp changes</div>" if len(lamp_events) > 40 else ""
        others = len(result["events"]) - len(lamp_events)
        return (f"<div style='font-size:12px'><b>trial {result['trial']}</b>: button at {_esc(tuple(trial.button))} "
                f"pressed at game tick {t0}; {len(lamp_events)} lamp change(s), {others} other state change(s)"
                + (f", {result['truncated']} not shown" if result.get("truncated") else "")
                + f"<table style='font-size:11px;font-family:monospace'>{rows}</table>{more}"
                "<span style='color:#888'>drag the trial tick (or click the timeline) to see the circuit at that "
                "moment</span></div>")

    def _seek_trial(self, tick) -> None:
        if tick is not None and self.trial_rec is not None:
            self.trial_tick.value = max(self.trial_tick.min, min(self.trial_tick.max, int(tick)))

    def _show_trial_tick(self, tick: int) -> None:
        if self.trial_rec is None:
            return
        try:
            frame = self.trial_rec.frame(tick)
        except IndexError:
            return
        self.live = False
        self.canvas.show(frame)
        self.timeline.move_cursor(tick)

    def close(self) -> None:
        """Close the widget and the session file (which is complete already: every line was flushed as it was
        written). Also runs when ipywidgets collects the widget, possibly half-built, hence the getattr."""
        tick = getattr(self, "clock_tick", None)
        if tick is not None:
            tick.playing = False
        env = getattr(self, "env", None)
        if env is not None:
            env.close()
        super().close()


def annotator_page(query: str = "", *, task: str = "A_simultaneous_lights_L1", out_dir: str | Path = "runs/human",
                   minutes: float | None = DEFAULT_TIME_LIMIT_S / 60, **kw) -> W.Widget:
    """The annotator for a page address: `query` is its query string (Voila passes it to the kernel as
    $QUERY_STRING), e.g. 'task=C_sequential_activation_L1&participant=P07&minutes=20'; what it leaves
    out comes from the keyword defaults. A bad parameter gives a page that says what is wrong."""
    from urllib.parse import parse_qs

    from scicraft_viz.tasks import TaskError, load_by_id

    params = {k: v[-1] for k, v in parse_qs(query or "", keep_blank_values=True).items()}
    unknown = sorted(set(params) - {"task", "participant", "minutes", "condition"})
    try:
        if unknown:
            raise ValueError(f"unknown page parameter {unknown[0]!r} (the parameters are task, participant, minutes, "
                             "condition)")
        if "minutes" in params:
            try:
                minutes = float(params["minutes"])
            except ValueError:
                raise ValueError(f"minutes must be a number, got {params['minutes'][:20]!r}") from None
            if not 0 < minutes <= 24 * 60:
                raise ValueError(f"minutes must be more than 0 and at most 1440, got {params['minutes'][:20]!r}")
        if "condition" in params:
            kw["condition"] = params["condition"]
        # an id from the address is only ever a task id, never a path
        chosen = load_by_id(params["task"]) if "task" in params else task
        a = Annotator(chosen, out_dir=out_dir, participant=params.get("participant"),
                      time_limit_s=None if minutes is None else minutes * 60, **kw)
    except (TaskError, ValueError) as e:
        return W.HTML(f"<div class='scv-page-error' style='color:{ERROR_COLOR};font-size:14px'>This session cannot "
                      f"start: {_esc(str(e).splitlines()[0])}. Please tell the experimenter.</div>")
    if "participant" in params:
        a.participant.disabled = True  # fixed by the experimenter's link
    return a
