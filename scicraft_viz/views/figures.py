"""Plotly FigureWidgets inside ipywidgets containers, with plotly's page code sent once per kernel.

A FigureWidget's page view is drawn from a snapshot that plotly refreshes only when the figure
itself is displayed; nested in a VBox it would show the figure as it was when created. Containers
that hold figures refresh those snapshots whenever they are displayed.

plotly's FigureWidget carries its whole page code (a 4.9 MB module) in every figure's model, and the
page parses it once per figure. anywidget gives a model 2 s to load and initialize its module; past
that it drops every later message from the kernel to that figure, so a figure whose module took
longer (a few figures on a loaded machine: one parse alone was measured at 5 s) stays as first drawn,
often empty. `Figure` sends a small module instead: plotly's code comes once per kernel in a
`PlotlyCode` model, is parsed once per page, and each figure's module initializes at once. Each
figure's model keeps the whole figure in the page, updated by every message the kernel sends; a view is
drawn from it as soon as plotly's code is ready, whenever that is, and follows later messages."""

from __future__ import annotations

import json
import secrets
from copy import deepcopy
from pathlib import Path

import anywidget
import plotly
import plotly.graph_objects as go
import traitlets
from plotly.serializers import custom_serializers

PLOTLY_BUNDLE = Path(plotly.__file__).parent / "package_data" / "widgetbundle.js"

# one record per page, shared by the loader and every figure, whichever module runs first
_SHARED = """const shared = globalThis.__scvPlotly ??= (() => {
  let resolve; const loaded = new Promise(r => { resolve = r; });
  return {loaded, resolve, started: false};
})();
shared.starting ??= new Map();  // token -> {answered, stalled, onStalled} of each model started in this page
shared.figures ??= new Map();  // figure token -> that figure's `receive` (a relay model hands it the figure)

// The kernel answers a model's start-up message on that model (see handshake), then opens a note naming it. The page
// handles the two in the order sent, and the note is a new model, whose state needs no message: so a model that had
// not had the answer when the note starts never will. anywidget drops every kernel message to a model whose module
// was not running 2 s after the model was made (a busy page: plotly's code being parsed, other figures drawn).
function handshake(model, onStalled) {
  const token = model.get('_token');
  const entry = {answered: false, stalled: false, onStalled};
  shared.starting.set(token, entry);
  model.on('msg:custom', m => { if (m && m.scv === 'answer') entry.answered = true; });
  model.send({scv: 'started'});
}

"""

_LOADER_ESM = _SHARED + """
export default {
  initialize({model}) {
    if (shared.started) return;
    shared.started = true;
    const url = URL.createObjectURL(new Blob([model.get('source')], {type: 'text/javascript'}));
    import(url).then(mod => { URL.revokeObjectURL(url); shared.resolve(mod); },
                     err => console.error('plotly widget code failed to load', err));
  },
};
"""

# The figure as the kernel holds it is kept in the page, in the model's state: `_widget_data`/`_widget_layout`
# (the kernel's whole figure, sent when it is displayed) with every '_py2js_*' message applied to it as it
# arrives (each a value set and then reset to null), by the kernel or by the page (scrub.py sends the same
# messages). plotly's own model code applies them to a throw-away copy, so a view drawn later showed the figure
# as it was at display time. A view is drawn from this state once plotly's code is here (render does not wait
# for it), then follows the messages with plotly's own view code, and a new whole figure with Plotly.react;
# messages that arrive while plotly is drawing it are folded into one Plotly.react of the state once the draw
# is over, since an update in the middle of plotly's first draw leaves the plot empty.
# the '_py2js_*' messages a figure's model gets from the kernel (the page applies them; a relay model forwards them)
_MESSAGES = ("addTraces", "deleteTraces", "moveTraces", "restyle", "relayout", "update", "animate",
             "removeLayoutProps", "removeTraceProps")
_FIGURE_ESM = _SHARED + f"const MESSAGES = {json.dumps(list(_MESSAGES))};\n" + r"""
const VIEW_MESSAGES = ['addTraces', 'deleteTraces', 'moveTraces', 'restyle', 'relayout', 'update', 'animate'];
const EVENTS = ['restyle', 'relayout', 'update', 'click', 'hover', 'unhover', 'selected', 'deselect', 'doubleclick'];
const TYPED = {int8: Int8Array, int16: Int16Array, int32: Int32Array, uint8: Uint8Array, uint16: Uint16Array,
               uint32: Uint32Array, float32: Float32Array, float64: Float64Array};
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// A value from the kernel as plotly takes it (a 1-d numeric array comes as {dtype, shape, buffer}, Undefined as
// '_undefined_'), always a fresh copy: the state and each view's plot never share an array.
function fromKernel(v) {
  if (v === '_undefined_') return undefined;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(fromKernel);
  if (ArrayBuffer.isView(v)) return v instanceof DataView ? v : v.slice();
  const b = own(v, 'dtype') && own(v, 'shape') && (own(v, 'buffer') ? v.buffer : own(v, 'value') ? v.value : null);
  if (b && TYPED[v.dtype]) {
    return new TYPED[v.dtype](ArrayBuffer.isView(b) ? b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)
                                                    : b.slice(0));
  }
  const out = {};
  for (const k of Object.keys(v)) out[k] = fromKernel(v[k]);
  return out;
}

// what plotly's view sends back (deltas, clicks): typed arrays as {dtype, shape, value}, undefined as '_undefined_'
function toKernel(v) {
  if (v === undefined) return '_undefined_';
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(toKernel);
  if (ArrayBuffer.isView(v)) {
    const dtype = Object.keys(TYPED).find(k => v instanceof TYPED[k]);
    return dtype ? {dtype, shape: [v.length], value: v.slice().buffer} : v;
  }
  const out = {};
  for (const k of Object.keys(v)) out[k] = toKernel(v[k]);
  return out;
}

// A property path as plotly writes it ('title.text', 'marker.color', 'shapes[0].x0', or a list of keys) set to a
// value; null removes the property, as it does in Plotly.restyle and Plotly.relayout.
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);
function put(target, path, value) {
  const keys = Array.isArray(path) ? path.map(String) : String(path).replace(/\[(\d+)\]/g, '.$1').split('.');
  if (!target || keys.some(k => UNSAFE.has(k))) return;
  let o = target;
  for (let i = 0; i < keys.length - 1; i++) {
    if (o[keys[i]] === null || typeof o[keys[i]] !== 'object') {
      if (value === null) return;
      o[keys[i]] = /^\d+$/.test(keys[i + 1]) ? [] : {};
    }
    o = o[keys[i]];
  }
  const last = keys[keys.length - 1];
  if (value === null) delete o[last]; else o[last] = value;
}
const relayout = (target, changes) => { for (const [k, v] of Object.entries(changes || {})) put(target, k, v); };
const indexes = (fig, t) => t === null || t === undefined ? fig.data.map((_, i) => i) : Array.isArray(t) ? t : [t];
function restyle(fig, changes, traces) {  // a list value gives trace i its element i (cycling); undefined: unchanged
  const at = indexes(fig, traces);
  for (const [k, v] of Object.entries(changes || {})) {
    const vs = Array.isArray(v) ? v : [v];
    at.forEach((t, i) => { const x = vs[i % vs.length]; if (x !== undefined) put(fig.data[t], k, x); });
  }
}
const APPLY = {
  addTraces: (fig, m) => { fig.data.push(...m.trace_data); },
  deleteTraces: (fig, m) => { [...m.delete_inds].sort((a, b) => b - a).forEach(i => fig.data.splice(i, 1)); },
  moveTraces: (fig, m) => {
    const moved = m.current_trace_inds.map(i => fig.data[i]);
    [...m.current_trace_inds].sort((a, b) => b - a).forEach(i => fig.data.splice(i, 1));
    m.new_trace_inds.map((to, j) => [to, moved[j]]).sort((a, b) => a[0] - b[0])
      .forEach(([to, trace]) => fig.data.splice(to, 0, trace));
  },
  restyle: (fig, m) => restyle(fig, m.restyle_data, m.restyle_traces),
  relayout: (fig, m) => relayout(fig.layout, m.relayout_data),
  update: (fig, m) => { restyle(fig, m.style_data, m.style_traces); relayout(fig.layout, m.layout_data); },
  animate: (fig, m) => {
    indexes(fig, m.style_traces).forEach((t, i) => relayout(fig.data[t], (m.style_data || [])[i]));
    relayout(fig.layout, m.layout_data);
  },
  removeLayoutProps: (fig, m) => m.remove_props.forEach(p => put(fig.layout, p, null)),
  removeTraceProps: (fig, m) => m.remove_props.forEach(p => put(fig.data[m.remove_trace], p, null)),
};

const failed = err => console.error('plotly could not draw the figure', err);
function snapshot(fig) {
  const data = structuredClone(fig.data), layout = structuredClone(fig.layout);
  if (!layout.height) layout.height = 360;  // plotly's own view does the same
  return [data, layout];
}

let View;  // plotly's FigureView, drawn from the state instead of from _widget_data
function viewClass(mod) {
  return View ??= class extends mod.FigureView {
    constructor(model, el, fig) {
      super({
        get: name => (name === '_widget_data' ? fig.data : name === '_widget_layout' ? fig.layout
                      : fromKernel(name in fig.relayed ? fig.relayed[name] : model.get(name))),
        set: (name, value) => model.set(name, toKernel(value)),
        on: () => {},  // render wires the messages to this view (see receive)
        save_changes: () => model.save_changes(),
        _normalize_trace_indexes: t => indexes(fig, t),
      }, el);
      this.raw = model;
      this.fig = fig;
      this.viewID = Math.random().toString(36).slice(2);
    }
    perform_render() {
      this.busy = true;
      const [data, layout] = snapshot(this.fig);
      const config = {...(fromKernel(this.raw.get('_config')) || {}), editSelection: false};
      globalThis.Plotly.newPlot(this.el, data, layout, config).then(() => {
        for (const e of EVENTS) this.el.on('plotly_' + e, ev => this['handle_plotly_' + e](ev));
        document.dispatchEvent(new CustomEvent('plotlywidget-after-render',
                                               {detail: {element: this.el, viewID: this.viewID}}));
      }).finally(() => this.settle()).catch(failed);
    }
    // after a whole draw: draw again from the state if anything came meanwhile; else tell the kernel the defaults
    // plotly filled in (as plotly's view does after each update)
    settle() {
      if (this.stale) {
        this.stale = false;
        globalThis.Plotly.react(this.el, ...snapshot(this.fig)).finally(() => this.settle()).catch(failed);
        return;
      }
      this.busy = false;
      try {
        this._sendTraceDeltas(this.raw.get('_last_trace_edit_id'));
        this._sendLayoutDelta(this.raw.get('_last_layout_edit_id'));
      } catch (err) {
        console.error('plotly figure: the defaults drawn could not be sent to the kernel', err);
      }
    }
    receive(name) {
      if (this.busy) this.stale = true; else this['do_' + name]();
    }
    redraw() {  // the kernel sent its whole figure (it was displayed again): the view draws it whole
      this.stale = true;
      if (!this.busy) { this.busy = true; this.settle(); }
    }
  };
}

export default () => {
  const fig = {data: [], layout: {}, relayed: {}};  // relayed: the latest values sent through a relay model
  const views = new Set();
  // a message or a whole figure from the kernel, by either way: applied to the state, then shown by every view
  const receive = (name, value, relayed = false) => {
    if (relayed && !name.startsWith('_widget_')) fig.relayed[name] = value;  // what the views read of the model
    if (name === '_widget_data' || name === '_widget_layout') {
      fig[name === '_widget_data' ? 'data' : 'layout'] = fromKernel(value) || (name === '_widget_data' ? [] : {});
      views.forEach(v => v.redraw());
    } else if (MESSAGES.includes(name.slice(7)) && value !== null && value !== undefined) {
      APPLY[name.slice(7)](fig, fromKernel(value));
      if (VIEW_MESSAGES.includes(name.slice(7))) views.forEach(v => v.receive(name.slice(7)));
    }
  };
  return {
    initialize({model}) {
      fig.data = fromKernel(model.get('_widget_data')) || [];
      fig.layout = fromKernel(model.get('_widget_layout')) || {};
      for (const name of ['_widget_data', '_widget_layout', ...MESSAGES.map(m => '_py2js_' + m)]) {
        model.on('change:' + name, () => receive(name, model.get(name)));
      }
      shared.figures.set(model.get('_token'), receive);
      // missed: ask for the figure through a relay model (see _RELAY_ESM), whose messages go to `receive`
      handshake(model, () => model.send({scv: 'stalled'}));
    },
    render({model, el}) {
      let view = null, gone = false;
      shared.loaded.then(mod => {
        if (gone) return;
        view = new (viewClass(mod))(model, el, fig);
        views.add(view);
        view.perform_render();
      });
      return () => { gone = true; if (view) { views.delete(view); view.remove(); } };
    },
  };
};
"""


class PlotlyCode(anywidget.AnyWidget):
    """plotly's widget code, sent to the page once per kernel (see the module's docstring)."""

    _esm = _LOADER_ESM
    source = traitlets.Unicode().tag(sync=True)


class _Started(anywidget.AnyWidget):
    """A model that says when it was made in the page, answering the kernel's reply to its start-up there, and
    asks for help when it missed it (see `handshake` in the page code)."""

    _token = traitlets.Unicode().tag(sync=True)

    @traitlets.default("_token")
    def _new_token(self) -> str:
        return secrets.token_hex(8)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.on_msg(self._on_page)

    def _on_page(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict):
            return
        if content.get("scv") == "started":
            self.send({"scv": "answer"})
            _Note(about=self._token)  # opened after the answer was sent
        elif content.get("scv") == "stalled":
            self._stalled()

    def _stalled(self) -> None:
        """This model's messages do not reach a page."""


class _Note(anywidget.AnyWidget):
    """Opened after the answer to a model's start-up (see `handshake`); closed by the page once read."""

    _esm = _SHARED + """
export default { initialize({model}) {
  const entry = shared.starting.get(model.get('about'));
  if (entry && !entry.answered && !entry.stalled) {
    entry.stalled = true;
    console.warn('plotly figure: a model missed its start-up in the page; the kernel sends it another way');
    entry.onStalled();
  }
  model.send({scv: 'read'});
} };
"""
    about = traitlets.Unicode().tag(sync=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        _notes.add(self)  # kept until the page has read it
        self.on_msg(lambda _w, content, _b: self._read())

    def _read(self) -> None:
        _notes.discard(self)
        self.close()


_notes: set[_Note] = set()

# what a figure's page view reads from its model: the whole figure, the update messages, the edit counters
_RELAYED = ("_widget_data", "_widget_layout", "_last_layout_edit_id", "_last_trace_edit_id",
            *(f"_py2js_{m}" for m in _MESSAGES))


class _Relay(_Started):
    """A figure whose own model missed its start-up in a page (see `handshake`): this model carries the whole
    figure in its state, then every message the figure's model gets, and is replaced when it misses its own."""

    _esm = _SHARED + """
export default { initialize({model}) {
  const receive = shared.figures.get(model.get('figure_token'));
  if (!receive) return;  // a page where that figure's model did not stall has no use for it
  const whole = model.get('whole') || {};
  for (const [name, value] of Object.entries(whole)) receive(name, value, true);
  model.on('change:message', () => {
    const m = model.get('message');
    if (m) receive(m.name, m.value, true);
  });
  handshake(model, () => model.send({scv: 'stalled'}));
} };
"""
    figure_token = traitlets.Unicode().tag(sync=True)
    whole = traitlets.Dict().tag(sync=True, **custom_serializers)
    message = traitlets.Dict(allow_none=True).tag(sync=True, **custom_serializers)

    def __init__(self, figure: Figure):
        super().__init__(figure_token=figure._token, whole=figure._whole())
        self._figure = figure

    def _stalled(self) -> None:
        self._figure._relay()


_code: PlotlyCode | None = None


class Figure(_Started, go.FigureWidget):
    """A plotly FigureWidget whose page code comes from the kernel's one `PlotlyCode` model."""

    _esm = _FIGURE_ESM

    def __init__(self, *args, **kwargs):
        global _code
        if _code is None or _code.comm is None:  # created (its model opened) before the first figure's
            _code = PlotlyCode(source=PLOTLY_BUNDLE.read_text(encoding="utf-8"))
        super().__init__(*args, **kwargs)
        self._relays: list[_Relay] = []

    def _whole(self) -> dict:
        return {"_widget_data": deepcopy(self._data), "_widget_layout": deepcopy(self._layout_obj._props or {}),
                "_last_layout_edit_id": self._last_layout_edit_id, "_last_trace_edit_id": self._last_trace_edit_id}

    def _stalled(self) -> None:
        self._relay()

    def _relay(self) -> None:
        """A page gets nothing on this figure's model (or on its relay): a new relay model carries the figure."""
        if not self._relays:
            self.observe(self._forward, names=list(_RELAYED))
        for old in self._relays:
            old.close()
        self._relays = [_Relay(self)]

    def _forward(self, change) -> None:
        if change["new"] is None:
            return
        for relay in self._relays:
            relay.message = {"name": change["name"], "value": change["new"]}
            relay.message = None


def sync_for_display(fig) -> None:
    fig._widget_layout = deepcopy(fig._layout_obj._props)
    fig._widget_data = deepcopy(fig._data)


class HostsFigures:
    """Mixin for an ipywidgets container: `_figures()` lists the FigureWidgets inside it."""

    def _figures(self) -> list:
        return []

    def _repr_mimebundle_(self, **kwargs):
        for fig in self._figures():
            sync_for_display(fig)
        return super()._repr_mimebundle_(**kwargs)
