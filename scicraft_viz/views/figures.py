"""Plotly FigureWidgets inside ipywidgets containers, with plotly's page code sent once per kernel.

A FigureWidget's page view is drawn from a snapshot that plotly refreshes only when the figure
itself is displayed; nested in a VBox it would show the figure as it was when created. Containers
that hold figures refresh those snapshots whenever they are displayed.

plotly's FigureWidget carries its whole page code (a 4.9 MB module) in every figure's model, and the
page parses it once per figure. anywidget gives a model 2 s to load and initialize its module; past
that it drops every later message from the kernel to that figure, so a figure whose module took
longer (a few figures on a loaded machine: one parse alone was measured at 5 s) stays as first drawn,
often empty. `Figure` sends a small module instead: plotly's code comes once per kernel in a
`PlotlyCode` model, is parsed once per page, and each figure's module initializes at once, keeping
the kernel's updates that arrive before plotly's code is ready and handing them to plotly in order."""

from __future__ import annotations

from copy import deepcopy
from pathlib import Path

import anywidget
import plotly
import plotly.graph_objects as go
import traitlets

PLOTLY_BUNDLE = Path(plotly.__file__).parent / "package_data" / "widgetbundle.js"

# one record per page, shared by the loader and every figure, whichever module runs first
_SHARED = """const shared = globalThis.__scvPlotly ??= (() => {
  let resolve; const loaded = new Promise(r => { resolve = r; });
  return {loaded, resolve, started: false};
})();
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

# The plotly module's initialize listens for the kernel's '_py2js_*' messages (each a value set and then
# reset to null). Until plotly's code is here they are kept, and then given to plotly's listeners in order,
# each reading its own message through a model whose get() answers with it.
_FIGURE_ESM = _SHARED + """
const MESSAGES = ['addTraces', 'deleteTraces', 'moveTraces', 'restyle', 'relayout', 'update', 'animate',
                  'removeLayoutProps', 'removeTraceProps'].map(m => '_py2js_' + m);
export default () => {
  let ready;
  return {
    initialize(ctx) {
      const model = ctx.model, kept = [];
      const keep = {};
      for (const name of MESSAGES) {
        keep[name] = () => { const v = model.get(name); if (v !== null && v !== undefined) kept.push([name, v]); };
        model.on('change:' + name, keep[name]);
      }
      ready = shared.loaded.then(mod => {
        for (const name of MESSAGES) model.off('change:' + name, keep[name]);
        const listeners = {}, replaying = {};
        const proxy = Object.assign(Object.create(model), {
          get: name => (name in replaying ? replaying[name] : model.get(name)),
          on: (event, cb) => { (listeners[event] ??= []).push(cb); model.on(event, cb); },
        });
        const figure = mod.default();
        figure.initialize({...ctx, model: proxy});
        for (const [name, value] of kept) {
          replaying[name] = value;
          for (const cb of listeners['change:' + name] || []) cb();
          delete replaying[name];
        }
        return figure;
      });
    },
    async render(ctx) {
      const figure = await ready;
      return figure.render(ctx);
    },
  };
};
"""


class PlotlyCode(anywidget.AnyWidget):
    """plotly's widget code, sent to the page once per kernel (see the module's docstring)."""

    _esm = _LOADER_ESM
    source = traitlets.Unicode().tag(sync=True)


_code: PlotlyCode | None = None


class Figure(go.FigureWidget):
    """A plotly FigureWidget whose page code comes from the kernel's one `PlotlyCode` model."""

    _esm = _FIGURE_ESM

    def __init__(self, *args, **kwargs):
        global _code
        if _code is None or _code.comm is None:  # created (its model opened) before the first figure's
            _code = PlotlyCode(source=PLOTLY_BUNDLE.read_text(encoding="utf-8"))
        super().__init__(*args, **kwargs)


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
