"""Lamp timeline: one row per lamp, lit or dark across ticks, presses marked, and a task contract's
windows drawn over it (where each lamp must turn on and off), violations in their own colour.
Clicking a cell selects that tick and that lamp."""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from scicraft_viz.engine.trace import Trace
from scicraft_viz.views.contract import ContractView
from scicraft_viz.views.figures import HostsFigures

Pos = tuple[int, int, int]
OFF, ON, ON_BAD = 0, 1, 2
CELL_SCALE = [[0.0, "#2a2e36"], [0.33, "#2a2e36"], [0.34, "#ffd54a"], [0.66, "#ffd54a"], [0.67, "#ff3d8b"],
              [1.0, "#ff3d8b"]]
WINDOW_OK = "rgba(80, 220, 120, 0.22)"
WINDOW_OFF = "rgba(90, 160, 255, 0.22)"
WINDOW_BAD = "rgba(255, 61, 139, 0.30)"
WINDOW_PENDING = "rgba(200, 200, 200, 0.16)"


def _rects(boxes: list[tuple[float, float, float, float]]) -> tuple[list, list]:
    """Closed outlines of rectangles (x0, x1, y0, y1) separated by None, for one filled Scatter."""
    xs: list = []
    ys: list = []
    for x0, x1, y0, y1 in boxes:
        xs += [x0, x1, x1, x0, x0, None]
        ys += [y0, y0, y1, y1, y0, None]
    return xs, ys


class LampTimeline(HostsFigures, W.VBox):
    """Shows any Trace (`show(trace, contract=..., presses=..., cursor=...)`). Rows follow
    `order`: "position" (the trace's order) or "first_on" (the order the lamps lit)."""

    def __init__(self, width: int = 640, unit: str = "game", order: str = "position"):
        self.unit = W.ToggleButtons(options=[("game ticks", "game"), ("redstone ticks", "redstone")], value=unit,
                                    style=W.ToggleButtonsStyle(button_width="110px"))
        self.order = order
        self._width = width
        self._trace: Trace | None = None
        self._contract: ContractView | None = None
        self._presses: list[int] = []
        self._cursor: int | None = None
        self._rows: list[int] = []
        self._selected: Pos | None = None
        self._handlers: list[Callable[[int | None, Pos | None], None]] = []
        self.figure = go.FigureWidget(
            data=[
                go.Heatmap(z=[[0]], x=[0], y=["-"], zmin=0, zmax=2, colorscale=CELL_SCALE, showscale=False,
                           xgap=0, ygap=1, name="lamps",
                           hovertemplate="lamp %{y}<br>tick %{x}<br>%{z}<extra></extra>"),
                go.Scatter(x=[], y=[], fill="toself", mode="lines", line=dict(width=1, color="rgba(80,220,120,.9)"),
                           fillcolor=WINDOW_OK, hoverinfo="skip", name="on window", yaxis="y2"),
                go.Scatter(x=[], y=[], fill="toself", mode="lines", line=dict(width=1, color="rgba(90,160,255,.9)"),
                           fillcolor=WINDOW_OFF, hoverinfo="skip", name="off window", yaxis="y2"),
                go.Scatter(x=[], y=[], fill="toself", mode="lines", line=dict(width=1.5, color="#ff3d8b"),
                           fillcolor=WINDOW_BAD, hoverinfo="skip", name="violated window", yaxis="y2"),
                go.Scatter(x=[], y=[], fill="toself", mode="lines", line=dict(width=1, color="#aaa", dash="dot"),
                           fillcolor=WINDOW_PENDING, hoverinfo="skip", name="window (pending)", yaxis="y2"),
                go.Scatter(x=[], y=[], mode="lines", line=dict(color="#00e5ff", width=2), hoverinfo="skip",
                           name="selected lamp", yaxis="y2"),
                go.Scatter(x=[], y=[], mode="lines", line=dict(color="#ffffff", width=2), hoverinfo="skip",
                           name="tick", yaxis="y2"),
            ],
            layout=go.Layout(width=width, height=240, margin=dict(l=95, r=10, t=34, b=38),
                             title=dict(text="lamp timeline", font=dict(size=13)), plot_bgcolor="#1d2128",
                             legend=dict(orientation="h", y=1.02, x=1, xanchor="right", yanchor="bottom",
                                         font=dict(size=10)),
                             xaxis=dict(title="game tick", zeroline=False),
                             # lamps are categories; the overlays live on a numeric twin axis of row indices
                             yaxis=dict(type="category", tickfont=dict(size=9), showgrid=False),
                             yaxis2=dict(overlaying="y", visible=False, showgrid=False, zeroline=False)),
        )
        self.figure.data[0].on_click(self._on_click)
        self.summary = W.HTML()
        self.unit.observe(lambda ch: self._redraw(), "value")
        super().__init__([self.unit, self.figure, self.summary])

    def _figures(self) -> list:
        return [self.figure]

    # ------------------------------------------------------------------ input
    def on_select(self, handler: Callable[[int | None, Pos | None], None]) -> None:
        """handler(tick, lamp_position) on a click in the timeline."""
        self._handlers.append(handler)

    def _on_click(self, trace, points, state) -> None:
        if not points.xs:
            return
        self.select(self._tick_of(points.xs[0]), self._lamp_of(points.ys[0]))

    def select(self, tick: int | None, lamp: Pos | None) -> None:
        """What a click on a cell does: report the tick and lamp to the handlers."""
        for fn in self._handlers:
            fn(tick, lamp)

    @property
    def factor(self) -> int:
        return 2 if self.unit.value == "redstone" else 1

    def _x(self, tick):
        return tick / self.factor

    def _tick_of(self, x) -> int:
        return int(round(float(x) * self.factor))

    def _label(self, p: Pos) -> str:
        return f"({p[0]}, {p[1]}, {p[2]})"

    def _lamp_of(self, label) -> Pos | None:
        try:
            return tuple(int(v) for v in str(label).strip("()").split(","))  # type: ignore[return-value]
        except ValueError:
            return None

    # ------------------------------------------------------------------ output
    @property
    def lamps(self) -> list[Pos]:
        """Lamp positions in row order, top to bottom."""
        if self._trace is None:
            return []
        return [tuple(self._trace.lamp_positions[j]) for j in self._rows]

    def cells(self) -> np.ndarray:
        """The drawn cell values (rows = lamps in row order, columns = ticks): 0 dark, 1 lit, 2 lit
        on a lamp that violates the contract."""
        tr = self._trace
        z = tr.lamp_lit[:, self._rows].T.astype(np.int8)
        if self._contract is not None:
            bad = {w.pos for w in self._contract.lamps if w.violated}
            for r, j in enumerate(self._rows):
                if tuple(tr.lamp_positions[j]) in bad:
                    z[r][z[r] == ON] = ON_BAD
        return z

    def show(self, trace: Trace, contract: ContractView | None = None, presses=(), cursor: int | None = None,
             selected: Pos | None = None) -> None:
        self._trace = trace
        self._contract = contract
        self._presses = list(presses)
        self._cursor = cursor
        self._selected = selected
        self._rows = self._order(trace)
        self._redraw()

    def _order(self, trace: Trace) -> list[int]:
        n = len(trace.lamp_positions)
        if self.order != "first_on" or n == 0:
            return list(range(n))
        lit = trace.lamp_lit
        first = [int(np.argmax(lit[:, j])) if lit[:, j].any() else len(lit) for j in range(n)]
        return sorted(range(n), key=lambda j: (first[j], trace.lamp_positions[j]))

    def move_cursor(self, tick: int | None) -> None:
        """Move the tick line only (cheap: used while scrubbing)."""
        self._cursor = tick
        self._draw_cursor(self.figure.data[6])

    def set_selected(self, lamp: Pos | None) -> None:
        self._selected = lamp
        self._draw_selected(self.figure.data[5])

    def _draw_cursor(self, line) -> None:
        n = max(1, len(self._rows))
        if self._cursor is None or self._trace is None:
            line.x, line.y = [], []
            return
        x = self._x(self._cursor)
        line.x = [x, x]
        line.y = [-0.5, n - 0.5]

    def _draw_selected(self, band) -> None:
        lamps = self.lamps
        if self._selected is None or tuple(self._selected) not in lamps or self._trace is None:
            band.x, band.y = [], []
            return
        i = lamps.index(tuple(self._selected))
        t = self._trace.ticks
        band.x, band.y = _rects([(self._x(t[0] - 0.5), self._x(t[-1] + 0.5), i - 0.5, i + 0.5)])

    def _redraw(self) -> None:
        tr = self._trace
        if tr is None:
            return
        f = self.factor
        labels = [self._label(p) for p in self.lamps]
        xs = tr.ticks / f
        z = self.cells()
        n = len(labels)
        height = int(min(900, max(170, 70 + 13 * n)))
        unit = "rt" if f == 2 else "gt"
        boxes = {"ok": [], "off": [], "bad": [], "pending": []}
        if self._contract is not None:
            row_of = {p: i for i, p in enumerate(self.lamps)}
            for w in self._contract.lamps:
                i = row_of.get(tuple(w.pos))
                if i is None:
                    continue
                for win, status, key in ((w.on_window, w.on_status, "ok"), (w.off_window, w.off_status, "off")):
                    if win is None:
                        continue
                    kind = {"violated": "bad", "pending": "pending"}.get(status, key)
                    boxes[kind].append((self._x(win[0] - 0.5), self._x(win[1] + 0.5), i - 0.45, i + 0.45))
        with self.figure.batch_update():
            hm = self.figure.data[0]
            hm.x = xs
            hm.y = labels
            hm.z = z
            hm.hovertemplate = (f"lamp %{{y}}<br>tick %{{x}} {unit}<br>%{{z}}"
                                " (0 dark, 1 lit, 2 lit but violating)<extra></extra>")
            for k, key in ((1, "ok"), (2, "off"), (3, "bad"), (4, "pending")):
                # categorical y: rectangles are drawn in the row-index space of the category axis
                self.figure.data[k].x, self.figure.data[k].y = _rects(boxes[key])
            self._draw_selected(self.figure.data[5])
            self._draw_cursor(self.figure.data[6])
            lay = self.figure.layout
            lay.height = height
            lay.xaxis.title.text = "game tick" if f == 1 else "redstone tick"
            lay.yaxis.range = [n - 0.5, -0.5]
            lay.yaxis.tickvals = labels  # every lamp labelled, not a thinned selection
            lay.yaxis.ticktext = labels
            lay.yaxis2.range = [n - 0.5, -0.5]
            lay.shapes = [dict(type="line", x0=self._x(p), x1=self._x(p), y0=0, y1=1, yref="paper",
                               line=dict(color="#ff9f1a", width=2, dash="dash")) for p in self._presses]
            lay.annotations = [dict(x=self._x(p), y=1, yref="paper", text="press", showarrow=False,
                                    yanchor="bottom", font=dict(color="#ff9f1a", size=11)) for p in self._presses]
            title = "lamp timeline"
            if self._contract is not None:
                bad = len(self._contract.violations)
                title += f" · {self._contract.task_id} contract: " + (
                    f"{bad} lamp(s) violate" if bad else ("all lamps within their windows"
                                                          if self._contract.complete else "so far so good"))
            lay.title.text = title
        self.summary.value = self._summary_html()

    def _summary_html(self) -> str:
        c = self._contract
        if c is None:
            return ""
        rows = []
        for ch in c.checks:
            ok = ch.passed
            verdict = "ok" if ok else ("pending" if not c.complete else "FAIL")
            color = {"ok": "#2e9d4f", "pending": "#999", "FAIL": "#d6336c"}[verdict]
            why = "" if ok or not c.complete or not ch.reason else f" — {ch.reason}"
            rows.append(f"<span style='color:{color}'><b>{ch.name}</b>: {verdict}</span>{why}")
        legend = ("<span style='font-size:11px;color:#888'>green: on-window · blue: off-window · pink: a window the "
                  "lamp missed, and lit cells of such lamps · grey dotted: not decided yet · orange dashes: "
                  "button presses</span>")
        return "<br>".join(rows) + "<br>" + legend
