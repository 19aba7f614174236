"""A redstone multimeter for the explorer: meters on any block, and the 'why' of every change.

`Meters` keeps a row per metered block (dust power, lamp lit, repeater/torch on and locked) over the
ticks around the shown one, read from the session's recording; a tick at which a change was scheduled
carries a mark ("output due at tick 6"). `EventLog` lists every change of the shown tick in the
engine's order, each with its cause (`scicraft_viz.engine.causes`); choosing one selects its block.
Both draw from recorded rows: moving the cursor never simulates. The log's entries wrap (a cause line is
often wider than the panel), scroll when there are many, and show which one is chosen."""

from __future__ import annotations

import html
from collections.abc import Callable

import anywidget
import ipywidgets as W
import traitlets as T

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


class EventList(anywidget.AnyWidget):
    """A list of lines that wrap, one chosen at a time: `entries` the lines, `index` the chosen one (-1: none).
    A click in the page sets `index`; setting it in Python marks that line and scrolls it into view. The
    page draws from the model's state only (no custom messages), so a view made late still shows it all."""

    _esm = """
function render({ model, el }) {
  const box = document.createElement('div');
  box.className = 'scv-events';
  box.setAttribute('role', 'listbox');
  el.appendChild(box);
  let items = [];
  function mark(scroll) {
    const k = model.get('index');
    items.forEach((e, i) => {
      e.classList.toggle('scv-event-chosen', i === k);
      e.setAttribute('aria-selected', String(i === k));
    });
    if (scroll && k >= 0 && k < items.length) {
      const e = items[k];  // into view inside the list only: the page itself must not jump
      if (e.offsetTop < box.scrollTop) box.scrollTop = e.offsetTop;
      else if (e.offsetTop + e.offsetHeight > box.scrollTop + box.clientHeight)
        box.scrollTop = e.offsetTop + e.offsetHeight - box.clientHeight;
    }
  }
  function draw() {
    box.textContent = '';
    box.scrollTop = 0;
    items = (model.get('entries') || []).map((text, i) => {
      const e = document.createElement('div');
      e.className = 'scv-event';
      e.setAttribute('role', 'option');
      const n = document.createElement('span');
      n.className = 'scv-event-n';
      n.textContent = `${i + 1}.`;
      e.appendChild(n);
      e.appendChild(document.createTextNode(' ' + text));
      e.addEventListener('click', () => {
        if (model.get('index') === i) return;
        model.set('index', i);
        model.save_changes();
        mark(false);
      });
      box.appendChild(e);
      return e;
    });
    box.style.display = items.length ? '' : 'none';
    mark(true);
  }
  model.on('change:entries', draw);
  model.on('change:index', () => mark(true));
  draw();
  return () => { model.off('change:entries', draw); };
}
export default { render };
"""
    _css = """
.scv-events { max-height: 230px; overflow-y: auto; overflow-x: hidden; border: 1px solid #ccc;
  background: #fff; font-size: 13px; line-height: 1.35; box-sizing: border-box; }
.scv-event { padding: 2px 6px; white-space: normal; overflow-wrap: anywhere; cursor: pointer;
  border-bottom: 1px solid #f1f3f5; color: #212529; }
.scv-event:hover { background: #e7f5ff; }
.scv-event.scv-event-chosen { background: #1c7ed6; color: #fff; }
.scv-event-n { color: #868e96; font-family: monospace; }
.scv-event.scv-event-chosen .scv-event-n { color: #d0ebff; }
"""
    entries = T.List(T.Unicode()).tag(sync=True)
    index = T.Int(-1).tag(sync=True)


class EventLog(W.VBox):
    """The changes of the shown tick, in the engine's order, each with its cause. Choosing one calls
    the handlers with its block's position (the explorer selects and outlines it)."""

    def __init__(self, session: Session, width: int = 470):
        self.session = session
        self._handlers: list[Callable[[Pos], None]] = []
        self._causes: list = []
        self._quiet = False
        self.title = W.HTML()
        self.list = EventList(tooltip="choose a change to select its block in 3D and read why it happened",
                              layout=W.Layout(width=f"{width - 10}px"))
        self.detail = W.HTML(layout=W.Layout(max_width=f"{width}px"))
        self.list.observe(lambda ch: self._chosen(ch["new"]), "index")
        super().__init__([self.title, self.list, self.detail], layout=W.Layout(width=f"{width}px"))
        self.add_class("scv-eventlog")

    def on_select(self, handler: Callable[[Pos], None]) -> None:
        self._handlers.append(handler)

    def refresh(self) -> None:
        s = self.session
        causes = s.causes(s.tick)
        self._causes = causes[:MAX_EVENTS]
        more = f" (first {MAX_EVENTS} of {len(causes)})" if len(causes) > MAX_EVENTS else ""
        self.title.value = (f"<b style='font-size:14px'>Why, at tick {s.tick}</b> <span style='font-size:12px;"
                            f"color:#555'>{len(causes)} change(s) in the engine's order{more}</span>")
        self._quiet = True  # a new tick's list: nothing is chosen by the refresh itself
        try:
            with self.list.hold_sync():
                self.list.entries = [c.text for c in self._causes]
                self.list.index = -1
        finally:
            self._quiet = False
        self.detail.value = ("" if causes else "<span style='font-size:12px;color:#555'>nothing changed at this "
                             "tick</span>")

    def texts(self) -> list[str]:
        return [c.text for c in self._causes]

    def chosen(self) -> int | None:
        """The index of the chosen change, or None."""
        return self.list.index if 0 <= self.list.index < len(self._causes) else None

    def choose(self, index: int) -> None:
        if not 0 <= index < len(self._causes):
            raise IndexError(f"the log of tick {self.session.tick} has {len(self._causes)} change(s), no {index}")
        self.list.index = index

    def _chosen(self, index) -> None:
        if self._quiet or index is None or not 0 <= index < len(self._causes):
            return
        c = self._causes[index]
        self.detail.value = f"<div style='font-size:13px'>{html.escape(c.text)}</div>"
        for fn in self._handlers:
            fn(tuple(c.event.pos))
