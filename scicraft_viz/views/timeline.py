"""Lamp timeline: one row per lamp, lit or dark across ticks, presses marked, and a task contract's
windows drawn over it (where each lamp must turn on and off), violations in their own colour.
Clicking a cell selects that tick and that lamp."""

from __future__ import annotations

import contextlib
import html
from collections.abc import Callable

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from scicraft_viz.engine.trace import Trace
from scicraft_viz.views.contract import ContractView
from scicraft_viz.views.figures import Figure, HostsFigures
from scicraft_viz.views.scrub import quiet

Pos = tuple[int, int, int]
OFF, ON = 0, 1
CELL_SCALE = [[0.0, "#2a2e36"], [0.5, "#2a2e36"], [0.5, "#ffd54a"], [1.0, "#ffd54a"]]
WINDOW_OK = "rgba(80, 220, 120, 0.22)"
WINDOW_OFF = "rgba(90, 160, 255, 0.22)"
MISSED = "#ff3d8b"
WINDOW_PENDING = "rgba(200, 200, 200, 0.16)"
WINDOW_OK_LINE = "rgb(80, 220, 120)"
WINDOW_OFF_LINE = "rgb(90, 160, 255)"
SPANS = (("activity", "activity"), ("whole recording", "whole"))
_NICE = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000)


def _rects(boxes: list[tuple[float, float, float, float]]) -> tuple[list, list]:
    """Closed outlines of rectangles (x0, x1, y0, y1) separated by None, for one Scatter."""
    xs: list = []
    ys: list = []
    for x0, x1, y0, y1 in boxes:
        xs += [x0, x1, x1, x0, x0, None]
        ys += [y0, y0, y1, y1, y0, None]
    return xs, ys


def reach(lo: int, hi: int, first: int, last: int, cursor: int | None) -> tuple[int, int]:
    """The axis span lo..hi widened so the current tick (`cursor`, when recorded: first..last) is in view
    with room beyond it, in steps of half the span (at least 4 ticks): a playing cursor moves the axis
    once every few ticks, not every tick. The page computes the same while it plays (scrub.py)."""
    if cursor is None or not first <= cursor <= last:
        return lo, hi
    step = max(4, (hi - lo) // 2)
    if cursor + 2 > hi:
        hi = min(last, hi + step * -(-(cursor + 2 - hi) // step))
    if cursor - 1 < lo:
        lo = max(first, lo - step * -(-(lo - cursor + 1) // step))
    return lo, hi


def integer_dtick(span: float, max_ticks: int = 14) -> int:
    """A whole-number tick step that puts at most `max_ticks` labels on an axis of this span."""
    for d in _NICE:
        if span / d <= max_ticks:
            return d
    return int(span // max_ticks) + 1


class LampTimeline(HostsFigures, W.VBox):
    """Shows any Trace (`show(trace, contract=..., presses=..., cursor=...)`). Rows follow
    `order`: "position" (the trace's order) or "first_on" (the order the lamps lit). `span` chooses
    the x range: "activity" (from the first press to the last lamp change and window) or "whole"."""

    def __init__(self, width: int = 640, unit: str = "game", order: str = "position", span: str = "activity"):
        self.unit = W.ToggleButtons(options=[("game ticks", "game"), ("redstone ticks", "redstone")], value=unit,
                                    tooltips=["x axis in game ticks (20 per second)",
                                              "x axis in redstone ticks (2 game ticks each)"],
                                    style=W.ToggleButtonsStyle(button_width="120px"))
        self.span = W.ToggleButtons(options=list(SPANS), value=span,
                                    tooltips=["zoom to the press, the lamp changes and the contract's windows",
                                              "every recorded tick"],
                                    style=W.ToggleButtonsStyle(button_width="130px"))
        self.order = order
        self._width = width
        self._trace: Trace | None = None
        self._contract: ContractView | None = None
        self._presses: list[int] = []
        self._cursor: int | None = None
        self._hold: int | None = None  # a tick the axis holds besides the cursor (`hold`)
        self._rows: list[int] = []
        self._selected: Pos | None = None
        self._budgets: dict[Pos, tuple[str, str]] = {}  # lamp -> (compact label, full hover text)
        self._handlers: list[Callable[[int | None, Pos | None], None]] = []
        self.figure = Figure(
            data=[
                go.Heatmap(z=[[0]], x=[0], y=["-"], zmin=0, zmax=1, colorscale=CELL_SCALE, showscale=False,
                           xgap=0, ygap=1, name="lamps", text=[["dark"]],
                           hovertemplate="lamp %{y}<br>tick %{x}<br>%{text}<extra></extra>"),
                # windows are outlines, never tints: a lit cell inside a window stays the lamp's own yellow
                go.Scatter(x=[], y=[], mode="lines", line=dict(width=2, color=WINDOW_OK_LINE),
                           hoverinfo="skip", name="on window", yaxis="y2"),
                go.Scatter(x=[], y=[], mode="lines", line=dict(width=2, color=WINDOW_OFF_LINE),
                           hoverinfo="skip", name="off window", yaxis="y2"),
                # a missed window is an outline, so the lamp's own lit and dark cells stay readable inside it
                go.Scatter(x=[], y=[], mode="lines", line=dict(width=2.5, color=MISSED), hoverinfo="skip",
                           name="missed window", yaxis="y2"),
                go.Scatter(x=[], y=[], mode="lines", line=dict(width=1.5, color="#bbb", dash="dot"),
                           hoverinfo="skip", name="window (pending)", yaxis="y2"),
                go.Scatter(x=[], y=[], mode="lines", line=dict(color="#00e5ff", width=2), hoverinfo="skip",
                           name="selected lamp", yaxis="y2"),
                go.Scatter(x=[], y=[], mode="lines", line=dict(color="#ffffff", width=2), hoverinfo="skip",
                           name="tick", yaxis="y2"),
                # further overlays (diagnosis paths, delay budgets) are appended after this point
            ],
            layout=go.Layout(width=width, height=240, margin=dict(l=95, r=64, t=34, b=38),
                             title=dict(text="lamp timeline", font=dict(size=14), x=0, xref="paper",
                                        xanchor="left"),
                             plot_bgcolor="#1d2128", showlegend=False,
                             # the mode bar stands upright in the right margin, clear of the title
                             modebar=dict(orientation="v"),
                             xaxis=dict(title="game tick", zeroline=False, tickformat="d"),
                             # lamps are categories; the overlays live on a numeric twin axis of row indices
                             yaxis=dict(type="category", tickfont=dict(size=11), showgrid=False),
                             yaxis2=dict(overlaying="y", visible=False, showgrid=False, zeroline=False)),
        )
        self.figure.data[0].on_click(self._on_click)
        self.summary = W.HTML(layout=W.Layout(max_width=f"{width}px"))
        self.failing_only = W.ToggleButton(value=False, description="failing lamps only", icon="filter",
                                           tooltip="show only the lamps that have missed a window by the shown tick",
                                           layout=W.Layout(width="170px"))
        self.unit.observe(lambda ch: self._redraw(), "value")
        self.span.observe(lambda ch: self._redraw(), "value")
        self.failing_only.observe(lambda ch: self._reorder(), "value")
        super().__init__([W.HBox([self.unit, self.span, self.failing_only]), self.figure, self.summary])
        self.add_class("scv-timeline")

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
        """The drawn cell values (rows = lamps in row order, columns = ticks): 0 dark, 1 lit."""
        return self._trace.lamp_lit[:, self._rows].T.astype(np.int8)

    def hover_texts(self) -> list[list[str]]:
        """What hovering each cell says, in words: lit or dark, and how the lamp stands against the contract."""
        tr = self._trace
        z = self.cells()
        notes = {}
        if self._contract is not None:
            unit = "rt" if self.factor == 2 else "gt"
            for w in self._contract.lamps:
                bits = []
                if w.on_window is not None:
                    lo, hi = (self._x(t - self._contract.press) for t in w.on_window)
                    bits.append(f"must light at +{lo:g}..+{hi:g} {unit}: {self._status_words(w.on_status)}")
                if w.off_window is not None:
                    lo, hi = (self._x(t - self._contract.press) for t in w.off_window)
                    bits.append(f"must go dark at +{lo:g}..+{hi:g} {unit}: {self._status_words(w.off_status)}")
                notes[tuple(w.pos)] = "<br>".join(bits)
        out = []
        for r, p in enumerate(self.lamps):
            note = notes.get(p)
            suffix = f"<br>{note}" if note else ""
            if p in self._budgets:
                suffix += f"<br>delay budget: {html.escape(self._budgets[p][1])}"
            out.append([("lit" if v else "dark") + suffix for v in z[r]])
        return out if len(tr.ticks) else []

    def set_budgets(self, budgets: dict[Pos, tuple[str, str]] | None) -> None:
        """Each lamp's delay budget (where its ticks went), from a diagnosis: (compact, full) text;
        the compact one is written next to the lamp's row, the full one in its hover text."""
        self._budgets = {tuple(p): v for p, v in (budgets or {}).items()}
        self._redraw()

    @staticmethod
    def _status_words(status: str | None) -> str:
        return {"ok": "met", "violated": "MISSED", "pending": "not decided yet"}.get(status or "", "-")

    def show(self, trace: Trace, contract: ContractView | None = None, presses=(), cursor: int | None = None,
             selected: Pos | None = None) -> None:
        if list(presses) != self._presses:  # another test run: the span held for the last one is let go
            self._hold = None
        self._trace = trace
        self._contract = contract
        self._presses = list(presses)
        self._cursor = cursor
        self._selected = selected
        self._rows = self._order(trace)
        self._redraw()

    def _reorder(self) -> None:
        if self._trace is not None:
            self._rows = self._order(self._trace)
            self._redraw()

    def _order(self, trace: Trace) -> list[int]:
        rows = self._ordered(trace)
        if self.failing_only.value and self._contract is not None:
            bad = set(self._contract.violations)
            rows = [j for j in rows if tuple(trace.lamp_positions[j]) in bad]
        return rows

    def _ordered(self, trace: Trace) -> list[int]:
        n = len(trace.lamp_positions)
        if self.order != "first_on" or n == 0:
            return list(range(n))
        lit = trace.lamp_lit
        first = [int(np.argmax(lit[:, j])) if lit[:, j].any() else len(lit) for j in range(n)]
        return sorted(range(n), key=lambda j: (first[j], trace.lamp_positions[j]))

    def move_cursor(self, tick: int | None, drawn: bool = False) -> None:
        """Move the tick line only (cheap: used while scrubbing). The axis keeps the span it shows (the
        user's zoom included) while that holds the tick, and is set to `tick_range` when a recorded tick
        falls outside it, so the current tick is always in view. `drawn`: the page has drawn the line
        already (the explorer's scrubber, which applies the same rule), so nothing is sent."""
        self._cursor = tick
        with quiet(self.figure) if drawn else contextlib.nullcontext(), self.figure.batch_update():
            self._draw_cursor(self.figure.data[6])
            if self._trace is not None and len(self._trace.ticks) and not self.in_view(tick):
                self._set_range()

    def in_view(self, tick: int | None) -> bool:
        """Whether the axis as it is shows this tick (the middle of its column; a tick never recorded, or no
        tick, counts as shown: the axis has nothing to move to)."""
        r = self.figure.layout.xaxis.range
        if tick is None or self._trace is None or not len(self._trace.ticks):
            return True
        if r is None:
            return False
        first, last = self.recorded_range()
        if not first <= tick <= last:
            return True
        f = self.factor
        return r[0] * f <= tick <= r[1] * f

    def hold(self, tick: int | None, drawn: bool = False) -> None:
        """Hold the axis out to `tick` as well as the cursor (Play holds the recording's last tick from its
        start: the axis is laid out once, not again and again as the tick runs on, each a stall of hundreds
        of milliseconds in the browser). Kept until the next test run; None lets go. `drawn`: the page has
        set the same span itself."""
        self._hold = tick
        if self._trace is None or not len(self._trace.ticks):
            return
        lo, hi = self.tick_range()
        if tuple(self.figure.layout.xaxis.range or ()) != (self._x(lo - 0.5), self._x(hi + 0.5)):
            with quiet(self.figure) if drawn else contextlib.nullcontext():
                self._set_range()

    def set_contract(self, contract: ContractView | None, drawn: bool = False) -> None:
        """Judge the lamps as of another tick (a contract view made with `at=`): redraws the windows,
        title, summary and hover words, and nothing at all when no lamp's standing changed. `drawn`: the
        page has drawn this tick itself (the explorer's scrubber), title included, so when the standing is
        the same the new title is kept here without being sent."""
        def key(c):
            return None if c is None else (c.press, c.complete, tuple(
                (w.pos, w.on_window, w.off_window, w.on_status, w.off_status) for w in c.lamps),
                tuple((ch.name, ch.passed) for ch in c.checks))
        if key(contract) == key(self._contract):
            self._contract = contract
            # the standing is the same, but the title says as of which tick
            if self._trace is not None and self.figure.layout.title.text != (t := self.title()):
                # sent, plotly would lay the whole figure out again for one word of its title on every tick
                with quiet(self.figure) if drawn else contextlib.nullcontext():
                    self.figure.layout.title.text = t
            # the reasons name times that move on with the tick ("still lit at this tick" becomes "went dark
            # at +8 rt"): a small HTML, sent only when its words change
            if self.summary.value != (h := self._summary_html()):
                self.summary.value = h
            return
        before = set(self._contract.violations) if self._contract is not None else set()
        self._contract = contract
        if self._trace is None:
            return
        if self.failing_only.value and set(contract.violations if contract else []) != before:
            self._reorder()  # the rows shown are the failing lamps: they changed
            return
        with self.figure.batch_update():
            self._draw_windows()
            self.figure.data[0].text = self.hover_texts()
            self.figure.layout.title.text = self.title()
        self.summary.value = self._summary_html()

    @property
    def origin(self) -> int | None:
        """The tick the axis counts from: the last press shown (None: absolute ticks)."""
        return self._presses[-1] if self._presses else None

    def set_selected(self, lamp: Pos | None) -> None:
        self._selected = lamp
        self._draw_selected(self.figure.data[5])

    def empty_reason(self) -> str | None:
        """Why the timeline has nothing to draw (None: it has rows and ticks to draw). A lone tick, the
        settled start before anything ran, is no recording: one column of dark rows only looked broken."""
        tr = self._trace
        if tr is not None and not len(tr.lamp_positions):
            return "no lamps in this build"
        if tr is None or len(tr.ticks) < 2:
            return "nothing recorded yet: Step, Play, Run test or Press button to record ticks"
        if not self._rows:
            return "no lamp has missed a window by this tick"  # the rows shown are only the failing lamps
        return None

    def _draw_cursor(self, line) -> None:
        n = max(1, len(self._rows))
        if self._cursor is None or self.empty_reason() is not None:
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

    def tick_range(self) -> tuple[int, int]:
        """The ticks the x axis spans: everything recorded, or (span "activity") from a little before
        the first press to a little after the last lamp change and contract window, widened to hold the
        current tick (see `reach`) and out to the held tick (`hold`)."""
        lo, hi = self.activity_range()
        first, last = self.recorded_range()
        if self._hold is not None:
            hi = max(hi, min(last, self._hold))
        return reach(lo, hi, first, last, self._cursor)

    def recorded_range(self) -> tuple[int, int]:
        t = self._trace.ticks
        return (int(t[0]), int(t[-1])) if len(t) else (0, 0)

    def activity_range(self) -> tuple[int, int]:
        """The span of `tick_range` before it is widened to hold the current tick."""
        t = self._trace.ticks
        first, last = self.recorded_range()
        if self.span.value == "whole" or not len(t):
            return first, max(last, first + 1)
        marks = list(self._presses)
        lit = self._trace.lamp_lit
        changed = np.flatnonzero((lit[1:] != lit[:-1]).any(1)) + 1 if len(lit) > 1 else np.zeros(0, int)
        marks += [int(t[i]) for i in changed[[0, -1]]] if len(changed) else []
        if self._contract is not None:
            for w in self._contract.lamps:
                # a window open "until the end of the test" would stretch the axis over the whole test
                end = self._contract.horizon
                for win, status in ((w.on_window, w.on_status), (w.off_window, w.off_status)):
                    if win is not None:
                        long = status == "pending" or (end is not None and win[1] >= end)
                        marks += [win[0]] if long else list(win)
        if not marks:
            return first, max(last, first + 1)
        lo, hi = min(marks), max(marks)
        pad = max(2, (hi - lo) // 10)
        return max(first, lo - pad), min(max(last, first + 1), hi + pad)

    def _set_range(self) -> None:
        lo, hi = self.tick_range()
        xaxis = self.figure.layout.xaxis
        xaxis.range = [self._x(lo - 0.5), self._x(hi + 0.5)]
        d = integer_dtick(self._x(hi - lo))
        xaxis.dtick = d
        origin = self.origin
        if origin is None:
            xaxis.tickmode, xaxis.tick0 = "linear", 0
            xaxis.tickvals, xaxis.ticktext = None, None
            return
        # labels count from the press ("+4" is 4 ticks after it) while x stays the absolute tick,
        # so a click still names the tick every other view shows
        o = self._x(origin)
        k0 = int(np.ceil((self._x(lo - 0.5) - o) / d))
        k1 = int(np.floor((self._x(hi + 0.5) - o) / d))
        vals = [o + k * d for k in range(k0, k1 + 1)]
        xaxis.tickmode = "array"
        xaxis.tickvals = vals
        xaxis.ticktext = [f"{k * d:+d}" if k else "press" for k in range(k0, k1 + 1)]

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
        why = self.empty_reason()
        empty = why is not None
        with self.figure.batch_update():
            hm = self.figure.data[0]
            hm.x = xs
            hm.y = labels
            hm.z = z
            hm.text = self.hover_texts()
            hm.hovertemplate = f"lamp %{{y}}<br>tick %{{x}} {unit}<br>%{{text}}<extra></extra>"
            self._draw_windows()
            self._draw_selected(self.figure.data[5])
            self._draw_cursor(self.figure.data[6])
            lay = self.figure.layout
            lay.height = height
            after = " after the press" if self.origin is not None else ""
            lay.xaxis.title.text = ("game tick" if f == 1 else "redstone tick") + (
                f"s{after} ({unit})" if after else "")
            self._set_range()
            lay.yaxis.range = [n - 0.5, -0.5]
            lay.yaxis.tickvals = labels  # every lamp labelled, not a thinned selection
            lay.yaxis.ticktext = [f"{lb}  {self._budgets[p][0]}" if p in self._budgets else lb
                                  for lb, p in zip(labels, self.lamps)]
            lay.yaxis2.range = [n - 0.5, -0.5]
            lay.shapes = [dict(type="line", x0=self._x(p), x1=self._x(p), y0=0, y1=1, yref="paper",
                               line=dict(color="#ff9f1a", width=2, dash="dash")) for p in self._presses]
            notes = [dict(x=self._x(p), y=1, yref="paper", text="press", showarrow=False,
                          yanchor="bottom", font=dict(color="#ff9f1a", size=12)) for p in self._presses]
            if empty:
                # an empty timeline says why it is empty instead of showing a bare plot
                notes = [dict(x=0.5, y=0.5, xref="paper", yref="paper", text=why, showarrow=False,
                              font=dict(color="#ddd", size=14))]
                lay.shapes = []
                hm.x, hm.y, hm.z, hm.text = [], [], [], []  # no rows of dark cells under the message
                lay.height = 170
            lay.yaxis.visible = not empty
            lay.annotations = notes
            lay.xaxis.visible = not empty
            lay.title.text = self.title()
        self.summary.value = self._summary_html()

    def _draw_windows(self) -> None:
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
                    # windows sit just inside the row, so neighbouring rows' outlines never touch
                    boxes[kind].append((self._x(win[0] - 0.5), self._x(win[1] + 0.5), i - 0.42, i + 0.42))
        for k, key in ((1, "ok"), (2, "off"), (3, "bad"), (4, "pending")):
            # categorical y: rectangles are drawn in the row-index space of the category axis
            self.figure.data[k].x, self.figure.data[k].y = _rects(boxes[key])

    def title(self) -> str:
        """The figure's title: what the contract says about the lamps at the tick it was judged at."""
        c = self._contract
        if c is None:
            return "lamp timeline"
        bad = len(c.violations)
        if bad:
            verdict = (f"{bad} lamp(s) violate it" if c.complete
                       else f"{bad} lamp(s) already missed a window: FAILING")
        elif c.complete:
            verdict = "all lamps within their windows"
        else:
            verdict = "no window missed yet (test running)"
        when = ""
        if not c.complete and c.at is not None:
            # short: the title is one line over the plot, and plotly clips it at the figure's edge
            when = f" (as of press +{c.at - c.press} gt)"
        return f"lamp timeline · {c.task_id} contract: {verdict}{when}"

    def _summary_html(self) -> str:
        c = self._contract
        if c is None:
            return ""
        rows = []
        for ch in c.checks:
            verdict = c.verdict(ch)
            color = {"ok": "#2e9d4f", "pending": "#999", "failing": "#d6336c", "FAIL": "#d6336c"}[verdict]
            why = "" if verdict in ("ok", "pending") or not ch.reason else f" — {html.escape(ch.reason)}"
            rows.append(f"<span style='color:{color}'><b>{html.escape(ch.name)}</b>: {verdict}</span>{why}")
        sw = "display:inline-block;width:14px;height:9px;margin:0 3px 0 8px;vertical-align:middle"
        legend = (f"<span style='font-size:11px;color:#888'><span style='{sw};background:#ffd54a'></span>lit"
                  f"<span style='{sw};background:#2a2e36'></span>dark"
                  f"<span style='{sw};border:2px solid {WINDOW_OK_LINE}'></span>on-window"
                  f"<span style='{sw};border:2px solid {WINDOW_OFF_LINE}'></span>off-window"
                  f"<span style='{sw};border:2px solid {MISSED}'></span>missed window"
                  f"<span style='{sw};border:1px dotted #aaa'></span>not decided yet"
                  f"<span style='{sw};border-left:2px dashed #ff9f1a'></span>button press</span>")
        return ("<div style='overflow-wrap:anywhere'>" + "<br>".join(rows) + "<br>" + legend + "</div>")
