"""Two builds of one task side by side: an agent's against the reference (or one trial against another),
each placed, tested as the evaluator tests it and shown in 3D with its lamp timeline and verdict, and
the build diff between them as numbered findings, each outlined in both views.

    >>> from scicraft_viz.views import compare_builds
    >>> compare_builds("E_pulse_shaping_L2", agent_build, "solution", labels=("agent", "reference"))
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import ipywidgets as W

from scicraft_viz.engine.blocks import static_state
from scicraft_viz.views.canvas import Canvas
from scicraft_viz.views.contract import contract_view
from scicraft_viz.views.figures import HostsFigures
from scicraft_viz.views.session import AIR, Session
from scicraft_viz.views.timeline import LampTimeline

Pos = tuple[int, int, int]
DIFF_COLOR = "#ff9f1a"
CURRENT_COLOR = "#00e5ff"


@dataclass(frozen=True)
class Difference:
    """One position where two builds differ: the static state in each (air where a build has nothing)."""

    pos: Pos
    a: str
    b: str

    @property
    def kind(self) -> str:
        """'only in a', 'only in b' or 'changed'."""
        return "only in a" if self.b == AIR else "only in b" if self.a == AIR else "changed"

    def text(self, labels: tuple[str, str] = ("a", "b")) -> str:
        """The finding in words, naming each build by its label."""
        a, b = (s.removeprefix("minecraft:") for s in (self.a, self.b))
        if self.kind == "only in a":
            return f"{self.pos}: {a} only in {labels[0]}"
        if self.kind == "only in b":
            return f"{self.pos}: {b} only in {labels[1]}"
        return f"{self.pos}: {labels[0]} has {a}, {labels[1]} has {b}"


def build_diff(a: dict[Pos, str], b: dict[Pos, str]) -> list[Difference]:
    """Every position whose block differs between two builds ({pos: state}), compared by static state
    (power, lit and other values the circuit derives are not part of a build), in position order."""
    sa = {tuple(p): static_state(s) for p, s in a.items() if static_state(s) != AIR}
    sb = {tuple(p): static_state(s) for p, s in b.items() if static_state(s) != AIR}
    return [Difference(p, sa.get(p, AIR), sb.get(p, AIR)) for p in sorted(set(sa) | set(sb))
            if sa.get(p, AIR) != sb.get(p, AIR)]


class BuildComparison(HostsFigures, W.VBox):
    """Two tested builds of one task side by side (see the module's text). `sessions`, `canvases`,
    `timelines` and `results` hold each side; `differences` the build diff; `choose(i)`, `next()` and
    `previous()` walk the findings, outlining the chosen one in both canvases."""

    def __init__(self, task, a, b, labels: tuple[str, str] = ("agent", "reference"), canvas_size=(430, 320)):
        from scicraft_viz import tasks
        from scicraft_viz.views.explorer import solution_path

        self.task = tasks.load(task) if isinstance(task, str) else task
        self.labels = (str(labels[0]), str(labels[1]))
        builds = [solution_path(self.task.id) if isinstance(x, str) and x == "solution" else x for x in (a, b)]
        self.sessions = [Session(task=self.task, build=x) for x in builds]
        for s in self.sessions:
            s.run_test()
        self.results = [s.evaluate() for s in self.sessions]
        self.contracts = [contract_view(self.task, s.trace, s.presses[-1]) for s in self.sessions]
        self.differences = build_diff(*(s.build() for s in self.sessions))
        self.current: int | None = None
        self.canvases = [Canvas(region=s.region, width=canvas_size[0], height=canvas_size[1]) for s in self.sessions]
        self.timelines = [LampTimeline(width=canvas_size[0] + 120) for _ in self.sessions]
        for s, c, t, contract in zip(self.sessions, self.canvases, self.timelines, self.contracts):
            c.show(s.frame(s.end))
            c.view("isometric")
            c.highlight([d.pos for d in self.differences], DIFF_COLOR, name="diff")
            t.show(s.trace, contract=contract, presses=s.presses, cursor=s.end)
        self.previous_button = W.Button(description="previous", icon="arrow-left", layout=W.Layout(width="100px"),
                                        tooltip="outline the previous difference in both builds")
        self.next_button = W.Button(description="next", icon="arrow-right", layout=W.Layout(width="100px"),
                                    tooltip="outline the next difference in both builds")
        self.previous_button.on_click(lambda _: self.previous())
        self.next_button.on_click(lambda _: self.next())
        self.findings = W.HTML(layout=W.Layout(max_width=f"{2 * canvas_size[0] + 260}px"))
        sides = [W.VBox([W.HTML(self._side_header(i)), self.canvases[i], self.timelines[i]],
                        layout=W.Layout(margin="0 8px 0 0")) for i in range(2)]
        super().__init__([W.HTML(self._header()), W.HBox(sides, layout=W.Layout(flex_flow="row wrap")),
                          W.HBox([self.previous_button, self.next_button]), self.findings])
        self.add_class("scv-compare")
        self._draw_findings()

    def _figures(self) -> list:
        return [t.figure for t in self.timelines]

    def _header(self) -> str:
        n = len(self.differences)
        what = f"{n} block{'s' if n != 1 else ''} differ" if n else "the builds are the same block for block"
        return (f"<h3 style='margin:4px 0'>{html.escape(self.task.id)}: {html.escape(self.labels[0])} vs "
                f"{html.escape(self.labels[1])}</h3><div style='font-size:12px;color:#555'>{what}; differing blocks "
                f"are outlined in <span style='color:{DIFF_COLOR}'>orange</span> in both builds (an outline on "
                f"empty space: the other build has a block there), the chosen one in "
                f"<span style='color:#0aa'>cyan</span></div>")

    def _side_header(self, i: int) -> str:
        r, c = self.results[i], self.contracts[i]
        verdict = "PASS" if r.passed else "FAIL"
        color = "#2e9d4f" if r.passed else "#d6336c"
        bad = len(c.violations)
        lamps = f"{bad} of {len(c.lamps)} lamps miss a window" if bad else "every lamp within its windows"
        return (f"<div class='scv-compare-side'><b>{html.escape(self.labels[i])}</b>: evaluator "
                f"<b style='color:{color}'>{verdict}</b> · {lamps}</div>")

    def _draw_findings(self) -> None:
        if not self.differences:
            self.findings.value = "<i>no differences</i>"
        else:
            rows = []
            for i, d in enumerate(self.differences):
                style = "background:#e3fafc;font-weight:bold" if i == self.current else ""
                rows.append(f"<li style='{style}'>{html.escape(d.text(self.labels))}</li>")
            self.findings.value = ("<ol class='scv-findings' style='font-size:12px;margin:4px 0;"
                                   "overflow-wrap:anywhere'>" + "".join(rows) + "</ol>")
        self.previous_button.disabled = self.next_button.disabled = not self.differences

    def choose(self, i: int) -> Difference:
        """Outline finding i (0-based) in both canvases and mark it in the list."""
        if not self.differences:
            raise ValueError("the builds do not differ: there is no finding to choose")
        self.current = int(i) % len(self.differences)
        d = self.differences[self.current]
        for c in self.canvases:
            c.highlight([d.pos], CURRENT_COLOR, name="current")
        self._draw_findings()
        return d

    def next(self) -> Difference:
        return self.choose(0 if self.current is None else self.current + 1)

    def previous(self) -> Difference:
        return self.choose(-1 if self.current is None else self.current - 1)


def compare_builds(task, a, b, labels: tuple[str, str] = ("agent", "reference"), **kw) -> BuildComparison:
    """Two builds of a task (a task or its id; builds as .mcfunction text, a path, a {pos: state} dict, or
    "solution" for the reference) tested side by side with their build diff."""
    return BuildComparison(task, a, b, labels=labels, **kw)
