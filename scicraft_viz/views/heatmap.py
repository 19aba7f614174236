"""Signal heatmap: dust power on one y layer as a plotly heatmap seen from above (north up), other
blocks of the layer as markers, and a tick slider. Hovering names the position, block and power."""

from __future__ import annotations

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from scicraft_viz.engine import blocks as B
from scicraft_viz.views.figures import Figure, HostsFigures
from scicraft_viz.views.frame import Frame

Pos = tuple[int, int, int]
# power 0 is a muted brick, clearly not the background; full power is bright red-orange
DUST_SCALE = [[0.0, "#6e4a4a"], [1 / 15, "#8a3028"], [0.5, "#c8281a"], [1.0, "#ff5a2a"]]
BACKGROUND = "#262b33"
LEGEND = ("<div class='scv-heatmap-legend' style='font-size:11px;color:#888;max-width:420px'>"
          "▮ dust (colour = power 0-15) · <span style='color:#8c8c8c'>■</span> stone · "
          "<span style='color:#9fd3ff'>□</span> glass · <span style='color:#ffd54a'>■</span> lamp lit / "
          "<span style='color:#6b4a2b'>■</span> dark · ▲ repeater (points to its output) · ★ torch · "
          "● button · ◆ lever · <span style='color:#c0140c'>■</span> redstone block; bright red = powered</div>")
_MARK = {
    B.STONE: ("square", "#8c8c8c"), B.GLASS: ("square-open", "#9fd3ff"), B.REDSTONE_BLOCK: ("square", "#c0140c"),
    B.TORCH: ("star", None), B.WALL_TORCH: ("star", None), B.BUTTON: ("circle", None), B.LEVER: ("diamond", None),
    B.LAMP: ("square", None), B.PARTIAL: ("triangle-up-open", "#8c8c8c"),  # a slab, stairs, fence, sign... (inert)
}
# repeater triangles point to the output side (-facing)
_REP_SYMBOL = {0: "triangle-down", 1: "triangle-left", 2: "triangle-up", 3: "triangle-right"}


_INERT = (B.STONE, B.GLASS, B.PARTIAL)  # the engine's ids for every block that takes no part in a circuit


def _circuit(frame: Frame) -> np.ndarray:
    """Which blocks of the frame are circuit: everything but the inert blocks (dust, lamps, components, pistons,
    observers, containers, ...)."""
    return ~np.isin(frame.layout.kind, _INERT)


class SignalHeatmap(HostsFigures, W.VBox):
    """Dust power of a frame on layer `y`. Bind it to a session with `Explorer`, or call
    `show(frame)` yourself; `tick_slider` is an IntSlider you may link to any tick source."""

    def __init__(self, region: tuple[Pos, Pos], y: int | None = None, width: int = 430, height: int = 400):
        (x0, y0, z0), (x1, y1, z1) = region
        self.xs = np.arange(x0, x1 + 1)
        self.zs = np.arange(z0, z1 + 1)
        self._frame: Frame | None = None
        self._layer_key = None
        self.layer = W.IntSlider(value=y0 if y is None else y, min=y0, max=y1, description="layer y",
                                 tooltip="which horizontal layer of the build the heatmap shows",
                                 continuous_update=False, layout=W.Layout(width="260px"))
        self.tick_slider = W.IntSlider(value=0, min=0, max=0, description="tick", continuous_update=True,
                                       tooltip="scrub through the recorded ticks (every view follows)",
                                       layout=W.Layout(width="360px"))
        self.figure = Figure(
            data=[
                go.Heatmap(x0=int(x0), dx=1, y0=int(z0), dy=1, z=[[None] * len(self.xs)] * len(self.zs),
                           zmin=0, zmax=15,
                           colorscale=DUST_SCALE, hoverongaps=False, xgap=1, ygap=1, name="dust",
                           colorbar=dict(title="power", thickness=12, len=0.8),
                           hovertemplate="(%{x}, LAYER, %{y})<br>redstone_wire<br>power %{z}<extra></extra>"),
                go.Scatter(x=[], y=[], mode="markers", name="blocks", hoverinfo="text", text=[],
                           # a light rim keeps an unpowered (dark red) repeater or torch visible
                           marker=dict(size=13, line=dict(width=1.5, color="#d0d4da"))),
            ],
            layout=go.Layout(width=width, height=height, margin=dict(l=40, r=40, t=30, b=35),
                             title=dict(text="dust power", font=dict(size=13), x=0, xref="paper", xanchor="left"),
                             showlegend=False, modebar=dict(orientation="v"),
                             xaxis=dict(title="x (east →)", dtick=2, constrain="domain"),
                             yaxis=dict(title="z (south ↓)", autorange="reversed", scaleanchor="x", dtick=2),
                             plot_bgcolor=BACKGROUND),
        )
        self.layer.observe(lambda ch: self._redraw(force=True), "value")
        self.numbers = W.Checkbox(value=True, description="power numbers", indent=False,
                                  tooltip="write each dust's power (0-15) in its cell",
                                  layout=W.Layout(width="140px"))
        self.numbers.observe(lambda ch: self._set_numbers(), "value")
        self._set_numbers()
        self.legend = W.HTML(LEGEND)
        super().__init__([W.HBox([self.layer, self.numbers]), self.figure, self.tick_slider, self.legend],
                         layout=W.Layout(flex="0 0 auto", width=f"{width + 10}px"))
        self.add_class("scv-heatmap")

    def _figures(self) -> list:
        return [self.figure]

    def _set_numbers(self) -> None:
        hm = self.figure.data[0]
        hm.texttemplate = "%{z}" if self.numbers.value else None
        hm.textfont = dict(size=10, color="#ffffff")

    def choose_layer(self, frame: Frame) -> int:
        """The layer with the most circuit on it (the floor's layer + 1 when there is none), so the lamps are
        on the layer shown too."""
        lay = frame.layout
        ys = lay.pos[_circuit(frame), 1]
        if len(ys):
            vals, counts = np.unique(ys, return_counts=True)
            return int(vals[np.argmax(counts)])
        if len(lay):
            return int(np.clip(lay.pos[:, 1].min() + 1, self.layer.min, self.layer.max))
        return self.layer.value

    def show(self, frame: Frame) -> None:
        # the layer and the zoom follow the first blocks: those of the first frame, or the first placed
        # into a build that was empty
        fresh = self._frame is None or not _circuit(self._frame).any()
        self._frame = frame
        if fresh:
            self.layer.value = self.choose_layer(frame)
            self.zoom_to_build(frame)
        self._redraw()

    def empty_text(self) -> str | None:
        """What the heatmap says instead of drawing an empty grid (None: the shown layer has blocks)."""
        frame = self._frame
        if frame is not None and len(self._cells(frame)[0]):
            return None
        if frame is None or not _circuit(frame).any():  # at most the task's floor
            return "nothing built yet: place blocks in the 3D view"
        return f"no blocks on layer y={self.layer.value}: choose another layer"

    def zoom_to_build(self, frame: Frame | None = None) -> tuple[tuple[float, float], tuple[float, float]] | None:
        """Show the circuit's extent (plus a cell around it) instead of the whole region, so each cell is
        big enough to read its power; returns the (x, z) ranges, None for an empty build."""
        frame = frame or self._frame
        lay = frame.layout
        circuit = _circuit(frame)
        if not circuit.any():
            return None
        pos = lay.pos[circuit]
        (x0, z0), (x1, z1) = pos[:, [0, 2]].min(0), pos[:, [0, 2]].max(0)
        side = max(x1 - x0, z1 - z0, 6) + 2  # square, at least 9 cells across
        cx, cz = (x0 + x1) / 2, (z0 + z1) / 2
        xr = (cx - side / 2 - 0.5, cx + side / 2 + 0.5)
        zr = (cz - side / 2 - 0.5, cz + side / 2 + 0.5)
        with self.figure.batch_update():
            self.figure.layout.xaxis.range = list(xr)
            self.figure.layout.yaxis.range = [zr[1], zr[0]]  # north up
            self.figure.layout.yaxis.autorange = False
            d = 1 if side <= 12 else 2
            self.figure.layout.xaxis.dtick = d
            self.figure.layout.yaxis.dtick = d
        return xr, zr

    def _cells(self, frame: Frame):
        lay = frame.layout
        y = self.layer.value
        on_layer = np.flatnonzero(lay.pos[:, 1] == y)
        ix = lay.pos[on_layer, 0] - self.xs[0]
        iz = lay.pos[on_layer, 2] - self.zs[0]
        inside = (ix >= 0) & (ix < len(self.xs)) & (iz >= 0) & (iz < len(self.zs))
        return on_layer[inside], ix[inside], iz[inside]

    def power_grid(self, frame: Frame | None = None) -> np.ndarray:
        """Dust power on the layer as a (z, x) array, NaN where there is no dust."""
        frame = frame or self._frame
        z = np.full((len(self.zs), len(self.xs)), np.nan)
        rows, ix, iz = self._cells(frame)
        dust = frame.layout.kind[rows] == B.WIRE
        z[iz[dust], ix[dust]] = frame.power[rows[dust]]
        return z

    def _markers(self, frame: Frame) -> np.ndarray:
        """Rows drawn as markers: the layer's blocks other than dust, and lamps of other layers."""
        lay = frame.layout
        rows, ix, iz = self._cells(frame)
        others = rows[lay.kind[rows] != B.WIRE]
        # the lamps are what a task is about: those on other layers are drawn too (their hover names y),
        # unless a block of the shown layer stands on the same cell
        taken = {(int(x), int(z)) for x, z in lay.pos[rows][:, [0, 2]].tolist()}
        lamps = [i for i in np.flatnonzero(lay.kind == B.LAMP).tolist()
                 if lay.pos[i, 1] != self.layer.value and (int(lay.pos[i, 0]), int(lay.pos[i, 2])) not in taken
                 and self.xs[0] <= lay.pos[i, 0] <= self.xs[-1] and self.zs[0] <= lay.pos[i, 2] <= self.zs[-1]]
        if lamps:
            others = np.concatenate([others, np.array(lamps, others.dtype)])
        return others

    def payload(self, frame: Frame, others: np.ndarray | None = None) -> dict:
        """What one tick changes in the figure: the power grid ("z", None where there is no dust) and
        each marker's hover text and colour (markers in `_markers` order)."""
        others = self._markers(frame) if others is None else others
        lay = frame.layout
        grid = self.power_grid(frame)
        return {"z": np.where(np.isnan(grid), None, grid).tolist(),
                "text": [f"{tuple(lay.pos[i].tolist())}<br>{frame.state(i).removeprefix('minecraft:')}"
                         for i in others],
                "color": [self._color(frame, i) for i in others]}

    def _redraw(self, force: bool = False) -> None:
        frame = self._frame
        if frame is None:
            return
        lay = frame.layout
        key = (id(lay), self.layer.value)
        others = self._markers(frame)
        data = self.payload(frame, others)
        with self.figure.batch_update():
            hm, sc = self.figure.data
            hm.z = data["z"]
            if force or key != self._layer_key:
                self._layer_key = key
                hm.hovertemplate = (f"(%{{x}}, {self.layer.value}, %{{y}})<br>redstone_wire<br>power %{{z}}"
                                    "<extra></extra>")
                sym = []
                for i in others:
                    k = int(lay.kind[i])
                    if k == B.PARTIAL and lay.states[i].startswith("minecraft:water"):
                        sym.append("square")  # water: a blue square (docs/redstone.md section 67)
                        continue
                    sym.append(_REP_SYMBOL[int(lay.facing[i]) % 4] if k == B.REPEATER else _MARK.get(k, ("x",))[0])
                sc.x = lay.pos[others, 0].tolist()
                sc.y = lay.pos[others, 2].tolist()
                sc.marker.symbol = sym
            sc.text = data["text"]
            sc.marker.color = data["color"]
            self.figure.layout.title.text = self.title()
            # an empty layer says so over a bare panel, not as an empty grid with stray axes
            empty = self.empty_text()
            self.figure.layout.xaxis.visible = self.figure.layout.yaxis.visible = empty is None
            self.figure.layout.annotations = [] if empty is None else [dict(
                text=empty, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
                font=dict(size=13, color="#e8edf3"))]
            # without axes plotly paints no plot background: a panel of its colour carries the message
            self.figure.layout.shapes = [] if empty is None else [dict(
                type="rect", xref="paper", yref="paper", x0=0, x1=1, y0=0, y1=1, layer="below",
                fillcolor=BACKGROUND, line=dict(width=0))]

    def title(self) -> str:
        tick = "" if self._frame is None or self._frame.tick is None else f" · tick {self._frame.tick} gt"
        return f"dust power on layer y={self.layer.value}{tick}"

    @staticmethod
    def _color(frame: Frame, i: int) -> str:
        k = int(frame.layout.kind[i])
        on = bool(frame.on[i])
        tint = frame.layout.tint
        if tint is not None and tint[i, 0] >= 0:  # a vanilla block in its family's colour
            return "#" + "".join(f"{int(round(255 * c)):02x}" for c in tint[i])
        if k == B.LAMP:
            return "#ffd54a" if on else "#6b4a2b"
        if k in (B.REPEATER, B.TORCH, B.WALL_TORCH, B.BUTTON, B.LEVER):
            return "#ff4020" if on else "#5a1a12"
        return _MARK.get(k, (None, "#888"))[1] or "#888"
