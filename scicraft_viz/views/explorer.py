"""The Explorer: canvas, palette, stepper, signal heatmap and lamp timeline around one Session.

    >>> from scicraft_viz.views import Explorer
    >>> Explorer(task="A_simultaneous_lights_L1", build="solution")     # a task and its reference build
    >>> Explorer(world=my_world)                                         # any world

Every view draws the session's recorded rows; choosing a tick anywhere (stepper, heatmap slider,
a timeline click) moves them all, and choosing a lamp row outlines that lamp in 3D."""

from __future__ import annotations

import contextlib
import dataclasses
import html
from pathlib import Path

import ipywidgets as W

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.trace import Trace
from scicraft_viz.views.canvas import Canvas, Pick
from scicraft_viz.views.contract import contract_view
from scicraft_viz.views.export import ExportBar
from scicraft_viz.views.figures import HostsFigures
from scicraft_viz.views.heatmap import SignalHeatmap
from scicraft_viz.views.multimeter import EventLog, Meters
from scicraft_viz.views.palette import Palette
from scicraft_viz.views.scrub import Scrubber, quiet
from scicraft_viz.views.session import Outcome, Session
from scicraft_viz.views.stepper import BEAT_MS, Stepper
from scicraft_viz.views.timeline import LampTimeline

SELECT_COLOR = "#00e5ff"
Pos = tuple[int, int, int]
KEYS_HELP = ("keys, with the mouse over the explorer: <b>space</b> play / pause · <b>→</b> step · <b>←</b> back · "
             "<b>shift+→</b> +1 rt · <b>z</b> undo · <b>shift+z</b> redo")
VIOLATION_COLOR = "#ff3d8b"
PAGE_PLAY_BEAT_MS = 60_000


def solution_path(task_id: str) -> Path:
    """The reference build of a task: tasks/solutions/<task_id>.mcfunction next to the task files."""
    from scicraft_viz.tasks import tasks_dir

    return tasks_dir() / "solutions" / f"{task_id}.mcfunction"


def key_events(widget, handler):
    """Keydown events over `widget` (ipyevents listens only while the mouse is over it, and keeps the keys
    from the notebook's own shortcuts), passed to handler(event)."""
    from ipyevents import Event

    ev = Event(source=widget, watched_events=["keydown"], prevent_default_action=True)
    ev.on_dom_event(handler)
    return ev


def _short_value(v, n: int = 4) -> str:
    """A parameter for the header: a long list shows its first few items and its length."""
    if isinstance(v, (list, tuple)) and len(v) > n:
        return "[" + ", ".join(map(str, v[:n])) + f", … ({len(v)} in all)]"
    return str(v)


def _task(task):
    if task is None or not isinstance(task, str):
        return task
    from scicraft_viz import tasks

    return tasks.load(task)


class Explorer(HostsFigures, W.VBox):
    """One widget for one session. `task` is a Task or a task id; `build` is .mcfunction text, a
    path, a {pos: state} dict, or "solution" for the task's reference build; `world` is any World
    (copied). The pieces are attributes: session, canvas, palette, stepper, heatmap, timeline."""

    def __init__(self, task=None, world=None, build=None, *, session: Session | None = None,
                 canvas_size: tuple[int, int] = (620, 430)):
        task = _task(task)
        if isinstance(build, str) and build == "solution":
            if task is None:
                raise ValueError("build='solution' needs a task")
            build = solution_path(task.id)
        self.session = session or Session(world, task=task, build=build)
        s = self.session
        self.task = s.task
        self.canvas = Canvas(region=s.region, width=canvas_size[0], height=canvas_size[1])
        self.palette = Palette(blocks=self.task.allowed_blocks + ["lever", "redstone_block"] if self.task else None)
        self.stepper = Stepper(s)
        self.heatmap = SignalHeatmap(s.region)
        order = "first_on" if self.task is not None and self.task.contract_type == "sequential" else "position"
        self.timeline = LampTimeline(order=order, width=canvas_size[0] + 330)
        self.message = W.HTML()
        self.undo_button = W.Button(description="Undo", icon="rotate-left", layout=W.Layout(width="80px"),
                                    tooltip="take back the last edit (z)")
        self.redo_button = W.Button(description="Redo", icon="rotate-right", layout=W.Layout(width="80px"),
                                    tooltip="do the undone edit again (shift+z)")
        self.undo_button.on_click(lambda _: s.undo())
        self.redo_button.on_click(lambda _: s.redo())
        extra = []
        if self.task is not None:
            self.test_button = W.Button(description="Run test", button_style="info", icon="play",
                                        tooltip="press the button and record the task's test duration")
            self.test_button.on_click(lambda _: s.run_test())
            self.evaluate_button = W.Button(description="Evaluate", icon="check",
                                            tooltip="run the evaluator on the current build")
            self.evaluate_button.on_click(lambda _: self.show_evaluation())
            extra = [self.test_button, self.evaluate_button]
        # the evaluator's report wraps inside a fixed width: a long reason must not squeeze the heatmap
        self.report = W.HTML(layout=W.Layout(width="480px", overflow="hidden"))
        self.exporter = ExportBar(self._export_blocks, self._export_name, self.animation)
        self.keys_help = W.HTML(f"<span style='font-size:11px;color:#888'>{KEYS_HELP}</span>")
        self.meters = Meters(s)
        self.event_log = EventLog(s)
        self.event_log.on_select(self._on_event_chosen)
        self.stepper.play.observe(lambda ch: None if ch["new"] else self._on_pause(), "playing")
        self._drawn: tuple[int, int] | None = None
        self._violations: list = []
        self._trace: Trace | None = None
        self._contract_key = None
        self._contract_cache = None
        self._page_drew = False  # the tick being shown was drawn by the page already (see scrub.py)
        # the recording, sent to the page once: Step, Back, +1 rt, a timeline click and Play draw there
        self.scrubber = Scrubber(renderer=self.canvas.renderer, counter=self.stepper.counter,
                                 back=self.stepper.back_button, heat_fig=self.heatmap.figure,
                                 heat_slider=self.heatmap.tick_slider, timeline_fig=self.timeline.figure,
                                 play=self.stepper.play, speed=self.stepper.speed, step=self.stepper.step_button,
                                 step_rt=self.stepper.step_rt_button, events_title=self.event_log.title)
        self.scrubber.observe(self._on_page_tick, "tick")
        self.scrubber.on_advance(self._on_advance)
        self.stepper.client_plays = lambda: self.scrubber.client
        self.scrubber.observe(lambda ch: self._page_plays(ch["new"]), "client")
        self.stepper.play.observe(lambda ch: self._on_play() if ch["new"] else None, "playing")
        for w in (self.canvas.layer, self.canvas.numbers):  # the canvas's geometry changed: new colours
            w.observe(lambda ch: self._load_scrubber(), "value")
        for w in (self.heatmap.layer, self.heatmap.numbers):
            w.observe(lambda ch: self._load_scrubber(), "value")
        for w in (self.timeline.unit, self.timeline.failing_only):
            w.observe(lambda ch: self.scrubber.follow_timeline(self.timeline), "value")

        self.canvas.on_pick(self._on_pick)
        self.timeline.on_select(self._on_timeline_select)
        self.heatmap.tick_slider.observe(lambda ch: s.seek(ch["new"]), "value")
        s.observe(self._on_session, ["tick", "version"])
        s.observe(lambda ch: self._show_message(), "message")
        s.observe(lambda ch: self._on_selected(), "selected")

        side = W.VBox([W.HTML("<b>Palette</b>"), self.palette, W.HBox([self.undo_button, self.redo_button]),
                       self.message], layout=W.Layout(width="320px", margin="0 0 0 8px"))
        header = W.HTML(self._header())
        self.stepper.add_buttons(extra)  # beside Step and Back, so the counter has its own line
        super().__init__([
            header,
            W.HBox([self.canvas, side]),
            self.stepper,
            self.keys_help,
            self.timeline,
            W.HBox([self.event_log, self.meters], layout=W.Layout(flex_flow="row wrap")),
            W.HBox([self.heatmap, self.report]),
            self.exporter,
            self.scrubber,
        ])
        self.add_class("scv-explorer")
        self.events = key_events(self, self.on_key)
        self.refresh()
        self.canvas.view("isometric")
        self._show_message()

    def _figures(self) -> list:
        return [self.timeline.figure, self.heatmap.figure]

    # ------------------------------------------------------------------ drawing
    def _header(self) -> str:
        t = self.task
        if t is None:
            return "<h3 style='margin:4px 0'>scicraft_viz explorer</h3>"
        c = t.contract
        detail = ", ".join(f"{k}={_short_value(v)}" for k, v in t.parameters().items() if k not in ("tick_unit",))
        return (f"<h3 style='margin:4px 0'>{html.escape(t.id)}: {html.escape(t.name)}</h3>"
                f"<div style='font-size:12px;color:#666'>contract <b>{html.escape(c['type'])}</b> ({detail}); "
                f"times in {html.escape(t.tick_unit)} ticks; build region: radius {t.radius} around "
                f"{t.anchor}</div>")

    def _on_session(self, change) -> None:
        s = self.session
        if change["name"] == "tick" and self._drawn is not None and self._drawn[0] == s.version:
            geom = self.canvas._geom
            self._move_to(s.tick)
            if self.canvas._geom is not geom:  # another layout (blocks moved): the page's run is of the old one
                with self.scrubber.hold_sync():
                    self._load_scrubber()
            return
        self.refresh()

    def _timeline_trace(self) -> Trace:
        """The recording's lamps that exist now or were lit at some point (a lamp placed and removed
        again without ever lighting would only add an empty row)."""
        s = self.session
        trace = s.trace
        lay = s.frame(s.end).layout
        present = {tuple(p) for p in lay.pos[lay.kind == B.LAMP].tolist()}
        keep = [j for j, p in enumerate(trace.lamp_positions) if p in present or trace.lamp_lit[:, j].any()]
        if len(keep) == len(trace.lamp_positions):
            return trace
        return dataclasses.replace(trace, lamp_positions=[trace.lamp_positions[j] for j in keep],
                                   lamp_lit=trace.lamp_lit[:, keep])

    def contract_at(self, tick: int | None = None):
        """The task's contract judged as of `tick` (default: the shown tick): only what was recorded up
        to that tick counts, so scrubbing back never shows a verdict the lamps had not earned yet."""
        s = self.session
        tick = s.tick if tick is None else int(tick)
        press = s.last_press()
        if self.task is None or press is None or press < s.start or self._trace is None:
            return None
        key = (s.version, max(tick, press))
        if self._contract_key != key:
            self._contract_cache = contract_view(self.task, self._trace, press, at=max(tick, press))
            self._contract_key = key
        return self._contract_cache

    def _judge(self, tick: int) -> None:
        contract = self.contract_at(tick)
        violations = contract.violations if contract is not None else []
        self.timeline.set_contract(contract, drawn=self._page_drew)
        if violations != self._violations:
            self._violations = violations
            self.canvas.highlight(violations, VIOLATION_COLOR, name="violations")

    def refresh(self) -> None:
        """Redraw every view from the session's recording (after new rows or an edit)."""
        s = self.session
        trace = self._trace = self._timeline_trace()
        contract = self.contract_at(s.tick)
        self._violations = contract.violations if contract is not None else []
        self.timeline.show(trace, contract=contract, presses=[p for p in s.presses if p >= s.start],
                           cursor=s.tick, selected=s.selected)
        self.canvas.highlight(self._violations, VIOLATION_COLOR, name="violations")
        slider = self.heatmap.tick_slider
        with slider.hold_trait_notifications():
            slider.max = max(s.end, slider.min)
            slider.min = s.start
            slider.max = s.end
        self._drawn = (s.version, s.tick)
        with self.scrubber.hold_sync():
            self._move_to(s.tick)
            self._load_scrubber()

    def _load_scrubber(self) -> None:
        self.scrubber.load(self.session, self.canvas, self.heatmap, self.timeline)

    def _drawn_by_page(self) -> list:
        """The widgets whose tick-by-tick state the page draws itself when it scrubs."""
        return [*(b.col_attr for b in self.canvas._buffers.values()), self.canvas.ent_pos_attr,
                self.canvas.ent_col_attr, self.stepper.counter,
                self.stepper.back_button, self.heatmap.figure, self.heatmap.tick_slider, self.event_log.title]

    def _on_page_tick(self, change) -> None:
        """The page drew a tick by itself: bring the kernel's side there without sending it back."""
        s = self.session
        t = change["new"]
        if t == s.tick or not s.start <= t <= s.end:
            return
        self._page_drew = True
        try:
            with quiet(*self._drawn_by_page()):
                s.tick = t
        finally:
            self._page_drew = False

    def _page_plays(self, yes: bool) -> None:
        """The page plays by itself (the scrubber): the Play widget's own timer, whose beats the kernel then
        ignores, is slowed to one beat a minute. Each beat was a message to the kernel and three back (its echo,
        busy, idle), twenty a second, handled by the page between the frames it draws."""
        self.stepper.play.interval = PAGE_PLAY_BEAT_MS if yes else BEAT_MS

    def _on_play(self) -> None:
        """Play started: the timeline's axis holds the whole recording from now on, laid out once (the page
        has done the same as it started playing, when it plays)."""
        if self._trace is not None:
            self.timeline.hold(self.timeline.recorded_range()[1], drawn=bool(self.scrubber.client))
            self.scrubber.follow_timeline(self.timeline)

    def _on_pause(self) -> None:
        """Play paused: the event log lists the changes of the tick shown. A page that plays by itself has
        written the header for the tick it stopped at, which the kernel may not have heard of yet (its report
        can come after the pause), so the header is then kept here without being sent."""
        meta = self.scrubber.meta
        drawn = bool(self.scrubber.client) and bool(meta) and meta["first"] <= self.session.tick <= meta["last"]
        with quiet(self.event_log.title) if drawn else contextlib.nullcontext():
            self.event_log.refresh()

    def _on_advance(self, tick: int) -> None:
        """The page played up to a tick it has no recording of: simulate (or show) it here."""
        s = self.session
        if tick > s.end:
            s.step(tick - s.tick)
        else:
            s.seek(tick)

    def _move_to(self, tick: int) -> None:
        s = self.session
        frame = s.frame(tick)
        self.canvas.show(frame)
        self.heatmap.show(frame)
        if self.heatmap.tick_slider.value != tick:
            self.heatmap.tick_slider.value = tick
        self.timeline.move_cursor(tick, drawn=self._page_drew)
        self._judge(tick)
        self.event_log.refresh(playing=self.stepper.play.playing)
        self.meters.refresh()
        self._drawn = (s.version, tick)
        self.scrubber.tick = tick
        self.scrubber.follow_timeline(self.timeline)

    def _show_message(self) -> None:
        s = self.session
        msg = s.message or "double-click a block face in the canvas to build"
        self.message.value = f"<div class='scv-message' style='font-size:12px'>{html.escape(msg)}</div>"
        self.undo_button.disabled = not s.undo_stack
        self.redo_button.disabled = not s.redo_stack

    def _on_selected(self) -> None:
        sel = self.session.selected
        self.canvas.highlight([sel] if sel is not None else [], SELECT_COLOR, name="selected")
        self.timeline.set_selected(sel)

    # ------------------------------------------------------------------ input
    def on_key(self, event: dict) -> str | None:
        """A key pressed with the mouse over the explorer (an ipyevents keydown event); returns what it did."""
        key, shift = event.get("key"), bool(event.get("shiftKey"))
        s = self.session
        if key == " ":
            self.stepper.toggle_play()
            return "play" if self.stepper.play.playing else "pause"
        if key == "ArrowRight":
            s.step(2 if shift else 1)
            return "step"
        if key == "ArrowLeft":
            s.seek(s.tick - (2 if shift else 1))
            return "back"
        if key in ("z", "Z"):
            if shift or key == "Z":
                s.redo()
                return "redo"
            s.undo()
            return "undo"
        return None

    def _on_timeline_select(self, tick, lamp) -> None:
        if lamp is not None:
            self.session.selected = lamp
        if tick is not None:
            self.session.seek(tick)

    def _on_event_chosen(self, pos: Pos) -> None:
        self.session.selected = pos

    def meter(self, pos) -> None:
        """Put a meter on the block at pos (what alt+double-click does)."""
        self.meters.add(pos)
        self.session.selected = tuple(pos)

    def _on_pick(self, pick: Pick | None) -> Outcome:
        s = self.session
        if pick is None:
            return s._say(False, "nothing there: double-click on a block or on the grey floor of the region")
        if pick.alt:
            self.meter(pick.hit)
            return s._say(True, f"meter on {pick.hit}")
        tool = self.palette.tool_for(pick)
        if tool == "remove":
            return s.remove(pick.hit)
        if tool == "use":
            return s.use(pick.hit)
        try:
            state = self.palette.state_for(pick, self.canvas.look_direction())
        except ValueError as e:
            return s._say(False, str(e))
        return s.place(pick.target, state)

    def place(self, pos, state: str) -> Outcome:
        """Place a block through the session (same rules and messages as a click)."""
        return self.session.place(pos, state)

    # ------------------------------------------------------------------ export
    def _export_blocks(self) -> dict:
        """The build as a player made it: the task's unchanged starting blocks (its floor) are left out."""
        # full states, as World.to_mcfunction writes them: dust keeps its connections (a bare
        # redstone_wire would be read back as a dot by a replay-mode reader)
        full = self.session.world.blocks()
        build = self.session.build()
        if self.task is None:
            return full
        initial = self.task.initial_blocks()
        return {p: full[p] for p, st in build.items() if initial.get(p) != st}

    def _export_name(self) -> str:
        return f"{self.task.id}_build" if self.task is not None else "explorer_build"

    def animation(self, ticks: list[int] | None = None, **kw) -> bytes:
        """A GIF of the 3D view and the lamp timeline over the ticks the timeline shows (recorded rows only)."""
        from scicraft_viz.views.animation import animation_ticks, render_gif

        s = self.session
        if ticks is None:
            ticks = animation_ticks(self.timeline.tick_range(), (s.start, s.end))
        press = [p for p in s.presses if p >= s.start]
        return render_gif([s.frame(t) for t in ticks], self._timeline_trace(), presses=press,
                          missed=self._violations, **kw)

    def show_evaluation(self):
        """Run the evaluator on the current build and show its report beside the heatmap."""
        result = self.session.evaluate()
        verdict = "PASS" if result.passed else "FAIL"
        color = "#2e9d4f" if result.passed else "#d6336c"
        self.report.value = (f"<div class='scv-report' style='margin-left:10px'><b style='color:{color}'>evaluator: "
                             f"{verdict}</b><pre style='font-size:11px;white-space:pre-wrap;overflow-wrap:anywhere'>"
                             f"{html.escape(result.report())}</pre></div>")
        return result
