"""Trajectory replay viewer and diagnosis panel, built from the explorer's canvas and timeline.

    >>> from scicraft_viz.views.replay import ReplayViewer, open_gallery
    >>> ReplayViewer("trajectories/working_A_L4.jsonl")     # step slider, badges, trials, findings
    >>> open_gallery("parallel_lines")                      # a gallery device in the explorer + its diagnosis

The step slider drives the 3D canvas (the world after that step; the blocks the step changed are
outlined, blocks that popped off in red). Each verification trial shows its lamp timeline against
the task contract and the build diff from the previous trial. The findings list holds the
diagnosis of the build at the selected trial (or at the current step, with "Diagnose this step");
selecting a finding outlines its guilty blocks and the lamps it leaves dark. A broken trajectory
never raises here: its problems are listed and whatever could be replayed is shown.
"""

from __future__ import annotations

import html
import os
import textwrap

import ipywidgets as W
import numpy as np

from scicraft_viz.diagnose import Diagnosis, Finding, diagnose
from scicraft_viz.engine.trace import Trace
from scicraft_viz.env.replay import Replay, replay_file
from scicraft_viz.env.trajectory import Trajectory
from scicraft_viz.views.canvas import Canvas
from scicraft_viz.views.contract import contract_view
from scicraft_viz.views.export import ExportBar
from scicraft_viz.views.figures import HostsFigures
from scicraft_viz.views.timeline import LampTimeline

Pos = tuple[int, int, int]
BADGE_COLORS = {"ok": "#2e9d4f", "rejected": "#d6336c", "popped": "#f08c00", "trial": "#1c7ed6",
                "mismatch": "#862e9c"}
CHANGED_COLOR = "#ffd54a"
POPPED_COLOR = "#ff3d3d"
DIFF_COLOR = "#cc5de8"
FINDING_COLOR = "#ff3d8b"
LAMP_COLOR = "#00e5ff"
PATH_COLOR = "#ffffff"
CATEGORY_COLORS = {0: "#868e96", 1: "#d6336c", 2: "#f08c00", 3: "#7048e8", 4: "#1c7ed6"}
LABEL_CHARS = 44
NO_TRIAL = 0  # the trial menu's "no trial yet" entry (trials count from 1)


def shorten(text: str, width: int) -> str:
    """Text cut at the last whole word that fits, with an ellipsis."""
    return textwrap.shorten(text, width=width, placeholder=" …")


def _empty_trace() -> Trace:
    return Trace(ticks=np.zeros(0, np.int64), lamp_positions=[], lamp_lit=np.zeros((0, 0), bool), dust_positions=[],
                 dust_power=np.zeros((0, 0), np.uint8), component_positions=[], component_kinds=[],
                 component_on=np.zeros((0, 0), bool))


def _first(rows: list[str], what: str, n: int = 6) -> list[str]:
    """At most n rows, and a last line saying how many more there are."""
    if len(rows) <= n:
        return rows
    return rows[:n] + [f"  … and {len(rows) - n} more {what}"]


def _esc(s) -> str:
    return html.escape(str(s))


def canvas_region(task) -> tuple[Pos, Pos]:
    """The part of the build region a canvas shows: the floor up to a few blocks above the anchor."""
    (ax, ay, az), r = task.anchor, task.radius
    return (ax - r, ay - 1, az - r), (ax + r, min(ay + 4, ay + r), az + r)


class DiagnosisPanel(W.VBox):
    """A findings list for a Diagnosis; selecting one outlines its blocks on `canvas`."""

    def __init__(self, canvas: Canvas | None = None):
        self.canvas = canvas
        self.diagnosis: Diagnosis | None = None
        self.title = W.HTML("<b>Diagnosis</b>")
        self.list = W.Select(options=[], rows=7, layout=W.Layout(width="calc(100% - 6px)"),
                             tooltip="choose a finding to outline its blocks in 3D")
        self.detail = W.HTML()
        self.prev_button = W.Button(description="previous", icon="chevron-up", layout=W.Layout(width="100px"),
                                    tooltip="the finding before this one")
        self.next_button = W.Button(description="next", icon="chevron-down", layout=W.Layout(width="100px"),
                                    tooltip="the next finding")
        self.prev_button.on_click(lambda _: self.move(-1))
        self.next_button.on_click(lambda _: self.move(1))
        self.list.observe(lambda ch: self._on_select(ch["new"]), "value")
        super().__init__([self.title, self.list, W.HBox([self.prev_button, self.next_button]), self.detail],
                         layout=W.Layout(width="100%"))

    def move(self, by: int) -> int | None:
        """Select the finding `by` places after the selected one (wrapping round); returns its index."""
        n = len(self.list.options)
        if not n:
            return None
        i = ((self.list.value if self.list.value is not None else -by) + by) % n
        self.list.value = i
        return i

    def show(self, diagnosis: Diagnosis | None, context: str = "") -> None:
        self.diagnosis = diagnosis
        if diagnosis is None:
            self.title.value = "<b>Diagnosis</b>"
            self.list.options = []
            self.detail.value = ""
            self._outline(None)
            return
        head = f"{len(diagnosis.lit)}/{len(diagnosis.lamps)} lamps lit"
        if not diagnosis.findings:
            head += ": no failure found"
        self.title.value = (f"<div style='white-space:normal;overflow-wrap:anywhere'><b>Diagnosis</b> {_esc(context)} "
                            f"<span style='color:#555'>({_esc(head)})</span></div>")
        self.list.options = [(self._label(f, index=i), i) for i, f in enumerate(diagnosis.findings)]
        self.prev_button.disabled = self.next_button.disabled = len(diagnosis.findings) < 2
        self.list.value = 0 if diagnosis.findings else None
        if not diagnosis.findings:
            self.detail.value = ""
            self._outline(None)

    @staticmethod
    def _label(f: Finding, width: int = LABEL_CHARS, index: int | None = None) -> str:
        """What tells findings apart: their number, title, the lamps they concern and the first guilty
        block, short enough for the list's width (the full text is shown below the list)."""
        def pos(p) -> str:
            return "(" + ",".join(str(int(v)) for v in p) + ")"
        bits = []
        if f.lamps:
            bits.append("lamp " + pos(f.lamps[0]) + (f" +{len(f.lamps) - 1}" if len(f.lamps) > 1 else ""))
        guilty = [p for p in f.positions if p not in set(map(tuple, f.lamps))]
        if guilty:
            bits.append("at " + pos(guilty[0]))
        head = f"{index + 1}. " if index is not None else ""
        text = f"{head}{f.title}" + (": " + ", ".join(bits) if bits else f" [{f.category_name}]")
        if len(text) > width and len(bits) > 1:  # the lamp tells findings apart; the guilty block is outlined
            text = f"{head}{f.title}: {bits[0]}"
        return text if len(text) <= width else shorten(text, width)

    @property
    def selected(self) -> Finding | None:
        if self.diagnosis is None or self.list.value is None:
            return None
        return self.diagnosis.findings[self.list.value]

    def select(self, index: int) -> None:
        self.list.value = index

    def _on_select(self, index) -> None:
        f = None if index is None or self.diagnosis is None else self.diagnosis.findings[index]
        if f is None:
            self.detail.value = ""
        else:
            color = CATEGORY_COLORS[f.category]
            case = f" (paper case {f.case})" if f.case else ""
            self.detail.value = (
                f"<div style='font-size:12px;white-space:normal;overflow-wrap:anywhere'>"
                f"<b style='color:{color}'>{_esc(f.title)}</b>{_esc(case)} · "
                f"{_esc(f.category_name)}<br>{_esc(f.explanation)}<br><i>fix:</i> {_esc(f.fix)}<br>"
                f"<span style='color:#555'>lamps: {_esc(', '.join(map(str, f.lamps[:8])))}"
                f"{' ...' if len(f.lamps) > 8 else ''}<br>guilty blocks: {_esc(', '.join(map(str, f.positions[:8])))}"
                f"{' ...' if len(f.positions) > 8 else ''}</span></div>")
        self._outline(f)

    def _outline(self, f: Finding | None) -> None:
        if self.canvas is None:
            return
        self.canvas.highlight(f.positions if f else [], FINDING_COLOR, name="finding")
        self.canvas.highlight(f.lamps if f else [], LAMP_COLOR, name="finding-lamps")
        # the signal's path from the button to the failing lamp (or as far as it got)
        path = self.diagnosis.path_for(f) if f is not None and self.diagnosis is not None else []
        self.canvas.highlight(path, PATH_COLOR, name="finding-path")


class ReplayViewer(HostsFigures, W.VBox):
    """A replayed trajectory: `source` is a path, a Trajectory or a Replay."""

    # 600 px: the canvas fits beside the 368 px side panel in a notebook's output area
    def __init__(self, source, task=None, canvas_size: tuple[int, int] = (600, 420)):
        self.replay = self._load(source, task)
        rp = self.replay
        self.task = rp.task
        region = canvas_region(self.task) if self.task is not None else None
        self.canvas = Canvas(region=region, width=canvas_size[0], height=canvas_size[1])
        self.timeline = LampTimeline(width=canvas_size[0] + 330)
        self.findings = DiagnosisPanel(self.canvas)
        n = len(rp.steps)
        self.slider = W.IntSlider(value=n - 1, min=-1, max=max(n - 1, -1), description="step",
                                  tooltip="the world after this call of the trajectory (-1: before the first)",
                                  continuous_update=False, layout=W.Layout(width="560px"))
        self.prev_button = W.Button(icon="step-backward", layout=W.Layout(width="40px"), tooltip="previous step")
        self.next_button = W.Button(icon="step-forward", layout=W.Layout(width="40px"), tooltip="next step")
        self.step_info = W.HTML()
        self.strip = W.HTML(self._strip())
        self.trial_select = W.Dropdown(options=[("no trial yet", NO_TRIAL)] + [
            (f"trial {t.number} (step {t.step}): {t.lit}/{len(t.lamps)} lit", t.number) for t in rp.trials],
            description="trial", tooltip="a verification trial: its lamp timeline, build diff and diagnosis",
            style={"description_width": "36px"}, layout=W.Layout(width="calc(100% - 6px)"))
        self.diff = W.HTML(layout=W.Layout(overflow="hidden"))
        self.diagnose_button = W.Button(description="Diagnose this step", icon="stethoscope",
                                        tooltip="diagnose the build after the current step",
                                        layout=W.Layout(width="auto"))
        self.exporter = ExportBar(self._export_blocks, self._export_name, self.trial_animation)
        self.header = W.HTML()
        self.prev_button.on_click(lambda _: self.go_to(self.slider.value - 1))
        self.next_button.on_click(lambda _: self.go_to(self.slider.value + 1))
        self.slider.observe(lambda ch: self._show_step(ch["new"]), "value")
        self.trial_select.observe(lambda ch: self._show_trial(ch["new"] or None), "value")
        self.diagnose_button.on_click(lambda _: self.diagnose_step())
        side = W.VBox([self.step_info, self.trial_select, self.diff, self.diagnose_button, self.findings],
                      layout=W.Layout(width="360px", margin="0 0 0 8px", overflow="hidden"))
        side.add_class("scv-replay-side")
        super().__init__([
            self.header,
            W.HBox([self.prev_button, self.slider, self.next_button]),
            self.strip,
            W.HBox([self.canvas, side]),
            self.timeline,
            self.exporter,
        ])
        self.add_class("scv-replay")
        # choosing a trial in the list jumps to its step; moving the step shows the latest trial up to it
        self._jump = True
        self._show_step(self.slider.value)

    def _figures(self) -> list:
        return [self.timeline.figure]

    # ------------------------------------------------------------------ loading
    @staticmethod
    def _load(source, task) -> Replay:
        if isinstance(source, Replay):
            return source
        if isinstance(source, Trajectory):
            return Replay(source, task)
        if isinstance(source, (str, os.PathLike)):
            return replay_file(source, task)
        raise TypeError(f"expected a trajectory path, Trajectory or Replay, got {type(source).__name__}")

    def _header(self) -> str:
        rp = self.replay
        t = rp.trajectory
        actor = t.actor
        who = f"{actor.get('kind', '?')} {actor.get('name', '')}".strip()
        verdict = ""
        # the verdict of the replay, not the one the file claims, and only from the step that submitted on:
        # a step before it shows the run as it stood then, not how it ended
        submitted = rp.env.submitted if rp.env is not None else None
        at = self.submit_step()
        if submitted is not None and (at is None or self.step >= at):
            verdict = (" · submitted: <b style='color:#2e9d4f'>PASS</b>" if submitted["passed"]
                       else " · submitted: <b style='color:#d6336c'>FAIL</b>")
        elif submitted is not None:
            verdict = f" · <span style='color:#555'>not submitted yet (submits at step {at})</span>"
        protocol = f"{t.condition} · {t.setting}"
        if t.curriculum:
            protocol += f" (level {t.curriculum.get('position')} of {len(t.curriculum.get('levels', []))})"
        if rp.env is not None and rp.env.book_writer:
            protocol += f" · book: {t.consolidation}"
        if rp.env is None:
            replay_state = "<span style='color:#d6336c'>not replayed</span>"
        elif rp.mismatches:
            replay_state = f"<span style='color:#862e9c'>{len(rp.mismatches)} mismatch(es)</span>"
        else:
            replay_state = "<span style='color:#2e9d4f'>every replayed result reproduced tick for tick</span>"
        out = (f"<h3 style='margin:4px 0'>{_esc(os.path.basename(t.source))}</h3>"
               f"<div style='font-size:12px'>task <b>{_esc(t.task_id or '?')}</b> · {_esc(who)} · run "
               f"{_esc(t.header.get('run_id', '?') if t.header else '?')} · {len(rp.steps)} steps · "
               f"{len(rp.trials)} trial(s){verdict} · {_esc(protocol)} · {replay_state}</div>")
        if rp.problems:
            items = "".join(f"<li>{_esc(p)}</li>" for p in rp.problems[:12])
            more = f"<li>... and {len(rp.problems) - 12} more</li>" if len(rp.problems) > 12 else ""
            out += f"<div style='color:#d6336c;font-size:12px'>problems:<ul>{items}{more}</ul></div>"
        return out

    def submit_step(self) -> int | None:
        """The step position of the run's accepted submit call (None if it never submitted)."""
        return next((i for i, st in enumerate(self.replay.steps) if st.tool == "submit" and st.ok), None)

    def _strip(self) -> str:
        """One coloured cell per step: ok, rejected, popped, trial (and a mark on mismatches)."""
        cells = []
        for s in self.replay.steps:
            kind = "trial" if s.trial and s.ok else s.badge
            border = f"border-bottom:3px solid {BADGE_COLORS['mismatch']};" if not s.match else ""
            cells.append(f"<span title='{_esc(s.describe())}' style='display:inline-block;width:4px;height:14px;"
                         f"margin-right:1px;background:{BADGE_COLORS[kind]};{border}'></span>")
        legend = " ".join(f"<span style='color:{c}'>■ {k}</span>" for k, c in BADGE_COLORS.items())
        return f"<div style='line-height:0'>{''.join(cells)}</div><div style='font-size:11px'>{legend}</div>"

    # ------------------------------------------------------------------ navigation
    @property
    def step(self) -> int:
        return self.slider.value

    def go_to(self, i: int) -> None:
        """Show the world after step position i (-1: before the first call)."""
        self.slider.value = max(self.slider.min, min(self.slider.max, i))

    def _show_step(self, i: int) -> None:
        rp = self.replay
        self.header.value = self._header()
        if rp.env is None:
            self.step_info.value = "<i>nothing to replay</i>"
            return
        blocks = rp.blocks_at(i)
        tick = rp.steps[i].tick if i >= 0 else 0
        self.canvas.show_blocks(blocks, tick)
        self._follow_trial(i)
        if i < 0:
            self.canvas.highlight([], CHANGED_COLOR, name="changed")
            self.canvas.highlight([], POPPED_COLOR, name="popped")
            self.step_info.value = "<b>before the first call</b>"
            return
        s = rp.steps[i]
        changed = [p for p, st in s.changes.items() if st is not None]
        self.canvas.highlight(changed, CHANGED_COLOR, name="changed")
        self.canvas.highlight(s.popped, POPPED_COLOR, name="popped")
        badge = "trial" if s.trial and s.ok else s.badge
        thoughts = rp.trajectory.reasoning_before(s.index)
        why = "".join(f"<div style='color:#555;font-style:italic'>“{_esc(r.text)}”</div>" for r in thoughts)
        mismatch = (f"<div style='color:{BADGE_COLORS['mismatch']}'>mismatch: {_esc(s.mismatch)}</div>"
                    if s.mismatch else "")
        self.step_info.value = (
            f"<div style='font-size:12px'>{why}<span style='background:{BADGE_COLORS[badge]};color:white;"
            f"padding:0 4px;border-radius:3px'>{_esc(badge)}</span> {_esc(s.describe())}<br>"
            f"tick {s.tick} gt{mismatch}</div>")

    def trial_step(self, number: int) -> int | None:
        """The step position of a trial's activate-button call."""
        return next((i for i, st in enumerate(self.replay.steps) if st.trial == number), None)

    def trial_at(self, i: int) -> int | None:
        """The latest trial run at or before step position i (None before the first)."""
        done = [t.number for t in self.replay.trials
                if (at := self.trial_step(t.number)) is not None and at <= i]
        return done[-1] if done else None

    def _follow_trial(self, i: int) -> None:
        """The trial panel shows the latest trial at or before the step, never a later one."""
        number = self.trial_at(i)
        if self.trial != number:
            self._jump = False
            try:
                self._set_trial(number)
            finally:
                self._jump = True

    def _set_trial(self, number: int | None) -> None:
        """Choose a trial in the menu; None chooses its "no trial yet" entry (stored as 0: a Dropdown
        given the value None selects nothing at all and shows an empty box)."""
        self.trial_select.value = NO_TRIAL if number is None else number

    @property
    def trial(self) -> int | None:
        """The number of the trial shown, None before the first."""
        return self.trial_select.value or None

    # ------------------------------------------------------------------ trials
    def _show_trial(self, number) -> None:
        rp = self.replay
        if number is None:
            self.diff.value = ("<div style='font-size:12px;color:#888'>no trial run yet at this step</div>"
                               if rp.trials else "")
            self.canvas.highlight([], DIFF_COLOR, name="diff")
            self.timeline.show(_empty_trace(), presses=[])
            self.findings.show(None)
            return
        tv = rp.trials[number - 1]
        at = self.trial_step(number)
        if at is not None and self.step != at and self._jump:
            self.go_to(at)
        contract = contract_view(self.task, tv.trace, tv.press_tick)
        self.timeline.show(tv.trace, contract=contract, presses=[tv.press_tick])
        d = rp.trial_diff(number)
        since = f"trial {number - 1}" if number > 1 else "the start"
        rows = (_first([f"+ {p} {s.removeprefix('minecraft:')}" for p, s in d.added.items()], "added")
                + _first([f"- {p} {s.removeprefix('minecraft:')}" for p, s in d.removed.items()], "removed")
                + _first([f"~ {p} {a.removeprefix('minecraft:')} → {b.removeprefix('minecraft:')}"
                          for p, (a, b) in d.changed.items()], "changed"))
        verdict = "meets" if tv.passed else "fails"
        self.diff.value = (f"<div style='font-size:12px'><b>trial {number}</b>: {tv.lit}/{len(tv.lamps)} lamps lit, "
                           f"{verdict} the contract<br>build since {since}: {_esc(d.summary())}"
                           f"<pre style='font-size:10px;margin:2px 0'>{_esc(chr(10).join(rows))}</pre></div>")
        self.canvas.highlight(d.positions, DIFF_COLOR, name="diff")
        found = diagnose(tv.build, self.task)
        self.findings.show(found, f"at trial {number}")
        self.timeline.set_budgets(found.budget_labels())  # where each lamp's ticks went, next to its window

    # ------------------------------------------------------------------ export
    def _export_blocks(self) -> dict:
        blocks = self.replay.blocks_at(self.step)
        if self.task is None:
            return blocks
        initial = self.task.initial_blocks()
        return {p: st for p, st in blocks.items() if initial.get(p) != st}

    def _export_name(self) -> str:
        return f"{self.task.id if self.task else 'replay'}_step{self.step}"

    def trial_animation(self, number: int | None = None, **kw) -> bytes:
        """A GIF of a trial (default: the one shown): the build's recorded ticks in 3D above its timeline."""
        from scicraft_viz.views.animation import animation_ticks, render_gif
        from scicraft_viz.views.session import recording_of_trial

        number = self.trial if number is None else number
        if number is None:
            raise ValueError("no trial is shown: choose a trial (or a step after one) to animate it")
        tv = self.replay.trials[number - 1]
        rec = recording_of_trial(tv.build, tv.trace)
        t = tv.trace.ticks
        ticks = animation_ticks(self.timeline.tick_range(), (int(t[0]), int(t[-1])))
        contract = contract_view(self.task, tv.trace, tv.press_tick)
        return render_gif([rec.frame(k) for k in ticks], tv.trace, presses=[tv.press_tick],
                          missed=contract.violations, **kw)

    def select_trial(self, number: int | None) -> None:
        self._set_trial(number)

    def diagnose_step(self, i: int | None = None) -> Diagnosis | None:
        """Diagnose the build after step position i (default: the current step)."""
        i = self.step if i is None else i
        if self.replay.env is None or self.task is None:
            return None
        d = diagnose(self.replay.blocks_at(i), self.task)
        self.findings.show(d, f"after step {i}")
        return d


def open_gallery(key: str, **explorer_kw):
    """A gallery device in the explorer, with its diagnosis beside it: selecting a finding outlines
    its blocks in the explorer's canvas."""
    from scicraft_viz.diagnose import gallery
    from scicraft_viz.views.explorer import Explorer

    dev = gallery.device(key)
    ex = Explorer(task=dev.task(), world=dev.world(), **explorer_kw)
    # open on what the diagnosis describes: the button pressed and the task's test recorded
    ran = ex.session.run_test()
    panel = DiagnosisPanel(ex.canvas)
    if ran.ok:
        s = ex.session
        tr = s.trace
        after = tr.ticks >= s.presses[-1]
        lit = int(tr.lamp_lit[after].any(0).sum())
        counts = tr.lamp_lit[after].sum(1)
        best = int(tr.ticks[after][int(np.argmax(counts))])
        s.seek(best)  # show the moment most lamps are lit, not the dark end of the test
        state = (f"the button was pressed at tick {s.presses[-1]} and the test recorded: {lit} lamp(s) lit during "
                 f"the test; shown at tick {best}, when {int(counts.max())} were lit at once. Drag the heatmap's "
                 "tick slider or click the timeline to look at any tick")
    else:
        state = f"not pressed ({_esc(ran.message)}): use Press button, then Step"
    intro = W.HTML(f"<div style='font-size:12px'><b>Gallery: {_esc(dev.title)}</b> (paper case {_esc(dev.case)}) · "
                   f"{_esc(dev.description)} · paper: {dev.paper_lit}/{dev.paper_lamps} lit<br>{state}</div>",
                   layout=W.Layout(max_width="950px"))
    # the findings go beside the canvas they outline (under the palette), so a choice and its outline
    # are seen together without scrolling
    side = ex.children[1].children[1]
    panel.list.rows = 8
    panel.layout.width = "300px"
    side.children = (*side.children, panel)
    ex.children = (*ex.children[:1], intro, *ex.children[1:])
    ex.diagnosis_panel = panel
    ex.gallery_intro = intro
    found = diagnose(dev.world(), dev.task())
    panel.show(found, f"of {dev.title}")
    ex.timeline.set_budgets(found.budget_labels())
    return ex
