"""Plotly FigureWidgets inside ipywidgets containers.

A FigureWidget's page view is drawn from a snapshot that plotly refreshes only when the figure
itself is displayed; nested in a VBox it would show the figure as it was when created. Containers
that hold figures refresh those snapshots whenever they are displayed."""

from __future__ import annotations

from copy import deepcopy


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
