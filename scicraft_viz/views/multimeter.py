"""A redstone multimeter for the explorer: meters on any block, and the 'why' of every change.

`Meters` keeps a row per metered block (dust power, lamp lit, repeater/torch on and locked) over the
ticks around the shown one, read from the session's recording; a tick at which a change was scheduled
carries a mark ("output due at tick 6"). `EventLog` lists every change of the shown tick in the
engine's order, each with its cause (`scicraft_viz.engine.causes`); choosing one selects its block.
Both draw from recorded rows: moving the cursor never simulates. The log's entries wrap (a cause line is
often wider than the panel), scroll in a box of fixed height, and show which one is chosen."""

from __future__ import annotations

import html
from collections.abc import Callable

import ipywidgets as W

from scicraft_viz.engine.blocks import split_state
from scicraft_viz.views.session import Session

Pos = tuple[int, int, int]
SPAN = 10  # ticks shown either side of the cursor
MAX_EVENTS = 200


def _short(state: str) -> str:
    name = split_state(state)[0] if state else "air"
    return {"redstone_wire": "dust", "redstone_repeater": "repeater", "redstone_torch": "torch",
            "redstone_wall_torch": "wall torch", "redstone_lamp": "lamp", "stone_button": "button"}.get(name, name)


def parse_pos(text: str) -> Pos:
    """'1, 4, 0' or '(1 4 0)' as a position; ValueError otherwise."""
    parts = text.replace("(", " ").replace(")", " ").replace(",", " ").split()
    if len(parts) != 3:
        raise ValueError(f"a position is three integers, e.g. 1, 4, 0 (got {text!r})")
    return tuple(int(v) for v in parts)  # type: ignore[return-value]


class Meters(W.VBox):
    """Meters on blocks of a session: `add(pos)`, `remove(pos)`, `rows(tick)` for the drawn values."""

    def __init__(self, session: Session, width: int = 470):
        self.session = session
        self.positions: list[Pos] = []
        self.pos_text = W.Text(placeholder="x, y, z", layout=W.Layout(width="100px"),
                               tooltip="a block position to put a meter on")
        self.add_button = W.Button(description="meter", icon="plus", layout=W.Layout(width="80px"),
                                   tooltip="put a meter on the block at this position")
        self.add_selected = W.Button(description="meter selected", icon="crosshairs",
                                     layout=W.Layout(width="150px"),
                                     tooltip="put a meter on the selected block (alt+double-click a block, "
                                             "or choose a change in the log)")
        self.clear_button = W.Button(description="clear", layout=W.Layout(width="60px"),
                                     tooltip="remove every meter")
        self.note = W.HTML()
        self.table = W.HTML(layout=W.Layout(overflow="auto", max_width=f"{width}px"))
        self.add_button.on_click(lambda _: self._add_typed())
        self.add_selected.on_click(lambda _: self.add(self.session.selected) if self.session.selected else None)
        self.clear_button.on_click(lambda _: self.clear())
        super().__init__([W.HTML("<b style='font-size:14px'>Meters</b> <span style='font-size:12px;color:#555'>"
                                 "value of each metered block per tick; ◆ a tick that scheduled a change</span>"),
                          W.HBox([self.pos_text, self.add_button, self.add_selected, self.clear_button]),
                          self.note, self.table], layout=W.Layout(width=f"{width}px"))
        self.add_class("scv-meters")

    def _add_typed(self) -> None:
        try:
            self.add(parse_pos(self.pos_text.value))
        except ValueError as e:
            self.note.value = f"<span style='color:#d6336c;font-size:12px'>{html.escape(str(e))}</span>"

    def add(self, pos) -> None:
        p = tuple(int(v) for v in pos)
        if p not in self.positions:
            self.positions.append(p)
        self.note.value = ""
        self.refresh()

    def remove(self, pos) -> None:
        p = tuple(int(v) for v in pos)
        if p in self.positions:
            self.positions.remove(p)
        self.refresh()

    def clear(self) -> None:
        self.positions = []
        self.refresh()

    def _scheduled_marks(self, pos: Pos) -> dict[int, int]:
        """tick that scheduled a change of this block -> the tick the change is due."""
        marks: dict[int, int] = {}
        for c in self.session.causes():
            if tuple(c.event.pos) == pos and c.delay and c.because is not None and "scheduled" in c.text:
                marks[c.event.tick - c.delay] = c.event.tick
        if self.session.live:
            for sch in self.session.world.scheduled():
                if sch.pos == pos:
                    marks[self.session.end] = sch.tick
        return marks

    def rows(self, tick: int | None = None) -> list[dict]:
        """What the table shows: per meter its label, and per tick in view its value text."""
        s = self.session
        tick = s.tick if tick is None else tick
        lo, hi = max(s.start, tick - SPAN), min(s.end, tick + SPAN)
        out = []
        frame = s.frame(tick)
        for p in self.positions:
            i = frame.layout.at(p)
            state = frame.state(i) if i is not None else ""
            series = s.rec.series(p)
            marks = self._scheduled_marks(p)
            cells = []
            for t in range(lo, hi + 1):
                r = t - s.start
                if "power" in series:
                    v = str(int(series["power"][r]))
                elif "lit" in series:
                    v = "●" if series["lit"][r] else "○"
                elif "on" in series:
                    v = "●" if series["on"][r] else "○"
                    if "locked" in series and series["locked"][r]:
                        v += "L"
                else:
                    v = "·"
                cells.append((t, v, marks.get(t)))
            label = f"{_short(state)} {p}"
            if "delay=" in state:
                label += f" d{split_state(state)[1]['delay']}"
            due = [f"output due at tick {d}" for t, d in marks.items() if t <= tick < d]
            out.append({"pos": p, "label": label, "cells": cells, "due": due})
        return out

    def refresh(self) -> None:
        s = self.session
        if not self.positions:
            self.table.value = ("<div style='font-size:12px;color:#555'>no meters yet: type a position, or "
                                "alt+double-click a block in 3D, or choose a change in the log</div>")
            return
        rows = self.rows()
        ticks = [t for t, _, _ in rows[0]["cells"]]
        press = s.last_press(s.tick)
        head = "".join(
            f"<th style='padding:0 3px;{'background:#fff3bf' if t == s.tick else ''}'>"
            f"{('+' + str(t - press)) if press is not None and t >= press else t}</th>" for t in ticks)
        body = []
        for row in rows:
            tds = []
            for t, v, due in row["cells"]:
                bg = "background:#fff3bf;" if t == s.tick else ""
                mark = (f"<sup title='scheduled here: output due at tick {due}' style='color:#1c7ed6'>◆</sup>"
                        if due is not None else "")
                tds.append(f"<td style='text-align:center;padding:0 3px;{bg}'>{html.escape(v)}{mark}</td>")
            due = f"<br><span style='color:#1c7ed6;font-size:11px'>{'; '.join(row['due'])}</span>" if row["due"] else ""
            body.append(f"<tr><td style='white-space:nowrap;padding-right:6px'>{html.escape(row['label'])}{due}</td>"
                        + "".join(tds) + "</tr>")
        unit = "gt after the press" if press is not None else "game tick"
        self.table.value = (f"<table class='scv-meter-table' style='font-size:13px;font-family:monospace;"
                            f"border-collapse:collapse'><tr><th style='text-align:left'>{unit}</th>{head}</tr>"
                            + "".join(body) + "</table>")


# Buttons whose text wraps (ipywidgets' own style keeps a button's label on one line, cut off with an ellipsis)
EVENT_STYLE = """<style>
.scv-eventlog .scv-events { border: 1px solid #ccc; background: #fff; }
.scv-eventlog .scv-event { white-space: normal !important; text-overflow: clip !important; overflow: visible !important;
  text-align: left; overflow-wrap: anywhere; line-height: 1.35; padding: 2px 6px; margin: 0; flex: 0 0 auto;
  font-size: 13px; border-radius: 0; border-bottom: 1px solid #f1f3f5; box-shadow: none; }
.scv-eventlog .scv-event:not(.mod-info) { background: #fff; }
.scv-eventlog .scv-event:not(.mod-info):hover { background: #e7f5ff; }
.scv-eventlog .scv-event.mod-info { background: #1c7ed6; color: #fff; }
.scv-eventlog .scv-events-none { padding: 2px 6px; font-size: 12px; color: #868e96; }
</style>"""


# The event log's header, in pieces the explorer's page fills in too as it draws a tick (scrub.py): {t} the tick,
# {n} the number of changes at it, {m} MAX_EVENTS
EVENTS_TITLE = ("<b style='font-size:14px'>Why, at tick {t}</b> <span style='font-size:12px;color:#555'>{note}"
                "</span>")
EVENTS_NOTES = {"playing": "{n} change(s); the list shows when paused", "paused": "{n} change(s) in the engine's order",
                "more": "{n} change(s) in the engine's order (first {m} of {n})"}


def events_title(tick: int, count: int, playing: bool) -> str:
    """The event log's header for a tick with `count` changes (while playing the list waits for the pause)."""
    note = EVENTS_NOTES["playing" if playing else "more" if count > MAX_EVENTS else "paused"]
    return EVENTS_TITLE.format(t=tick, note=note.format(n=count, m=MAX_EVENTS))


class EventLog(W.VBox):
    """The changes of the shown tick, in the engine's order, each with its cause. Choosing one calls
    the handlers with its block's position (the explorer selects and outlines it).

    The changes are a column of buttons in a box of fixed height that scrolls: each button's text wraps
    (a cause line is often wider than the panel), a click chooses it, and the chosen one is coloured. The
    box keeps its height whatever the number of changes, so what is below it on the page does not jump
    from tick to tick. `refresh(playing=True)` leaves the list for the pause: while the page plays, each
    tick's list would be a message per button, for a list that changes twenty times a second."""

    def __init__(self, session: Session, width: int = 470):
        self.session = session
        self._handlers: list[Callable[[Pos], None]] = []
        self._causes: list = []
        self._buttons: list[W.Button] = []
        self._index: int | None = None
        # the style sheet is a widget of its own, written once: a <style> in the header, which changes with every
        # tick, made the browser recompute the whole page's styles on each tick played (about 8 ms of each frame)
        self.style = W.HTML(EVENT_STYLE, layout=W.Layout(display="none"))
        self.title = W.HTML()
        self.none = W.HTML("<div class='scv-events-none'>nothing changed at this tick</div>")
        self.list = W.VBox([], layout=W.Layout(width=f"{width - 10}px", height="190px", overflow="hidden auto",
                                               flex_flow="column nowrap"))
        self.list.add_class("scv-events")
        self.detail = W.HTML(layout=W.Layout(max_width=f"{width}px", min_height="20px"))
        super().__init__([self.style, self.title, self.list, self.detail], layout=W.Layout(width=f"{width}px"))
        self.add_class("scv-eventlog")

    def on_select(self, handler: Callable[[Pos], None]) -> None:
        self._handlers.append(handler)

    def _button(self, k: int) -> W.Button:
        while len(self._buttons) <= k:
            j = len(self._buttons)
            b = W.Button(layout=W.Layout(width="100%", height="auto", min_height="22px"),
                         tooltip="choose this change to select its block in 3D")
            b.add_class("scv-event")
            b.on_click(lambda _, j=j: self.choose(j))
            self._buttons.append(b)
        return self._buttons[k]

    def refresh(self, playing: bool = False) -> None:
        s = self.session
        causes = s.causes(s.tick)
        self.title.value = events_title(s.tick, len(causes), playing)
        self._index = None  # a new tick's list: nothing is chosen by the refresh itself
        if playing:
            self._causes = []
            if self.list.children:
                self.list.children = []
            self.detail.value = ""
            return
        self._causes = causes[:MAX_EVENTS]
        shown = []
        for k, c in enumerate(self._causes):
            b = self._button(k)
            b.description = f"{k + 1}. {c.text}"
            b.button_style = ""
            shown.append(b)
        self.list.children = shown or [self.none]  # an empty tick says so once, in the list
        self.detail.value = ""

    def texts(self) -> list[str]:
        return [c.text for c in self._causes]

    def chosen(self) -> int | None:
        """The index of the chosen change, or None."""
        return self._index

    def choose(self, index: int) -> None:
        """Choose the change at `index` (what a click on it does): mark it and call the handlers."""
        if not 0 <= index < len(self._causes):
            raise IndexError(f"the log of tick {self.session.tick} has {len(self._causes)} change(s), no {index}")
        if self._index is not None and self._index != index:
            self._buttons[self._index].button_style = ""
        self._index = index
        self._buttons[index].button_style = "info"
        c = self._causes[index]
        self.detail.value = f"<div style='font-size:13px'>{html.escape(c.text)}</div>"
        for fn in self._handlers:
            fn(tuple(c.event.pos))
