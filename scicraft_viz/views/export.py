"""Export controls: the current build as a file (.mcfunction, .litematic, .schem) or recorded ticks
as an animated GIF, offered as a download link on the page.

The file travels as a data: URI inside an HTML widget, which JupyterLab and Voila both show as an
ordinary link (ipywidgets has no download widget); nothing is written on the server."""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable

import ipywidgets as W

Pos = tuple[int, int, int]
BUILD_FORMATS = {"mcfunction": ".mcfunction", "litematic": ".litematic", "schem": ".schem"}
MIME = {"mcfunction": "text/plain", "litematic": "application/octet-stream", "schem": "application/octet-stream",
        "gif": "image/gif"}
FORMAT_OPTIONS = [("build: .mcfunction (setblock lines)", "mcfunction"),
                  ("build: .litematic (Litematica)", "litematic"),
                  ("build: .schem (WorldEdit / Sponge)", "schem"),
                  ("animation: GIF of 3D view + timeline", "gif")]


def build_bytes(blocks: dict[Pos, str], fmt: str) -> bytes:
    """A build in one of BUILD_FORMATS, written by the engine's build-file writers."""
    if fmt not in BUILD_FORMATS:
        raise ValueError(f"unknown build format {fmt!r}; choose one of {', '.join(BUILD_FORMATS)}")
    from scicraft_viz.engine.formats import write_build

    return write_build(blocks, fmt)


def download_link(data: bytes, filename: str, mime: str) -> str:
    """HTML for a link that saves `data` as `filename`."""
    uri = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    size = f"{len(data) / 1024:.1f} KB" if len(data) >= 1024 else f"{len(data)} bytes"
    return (f"<a class='scv-download' download='{html.escape(filename)}' href='{uri}' "
            f"style='font-size:12px'>⬇ save {html.escape(filename)}</a> <span style='font-size:11px;color:#888'>"
            f"({size})</span>")


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "build"


class ExportBar(W.HBox):
    """A format choice, an Export button and the resulting download link. `blocks()` gives the build to
    export, `animation()` (optional) the GIF bytes of what is on screen, `name()` the file's base name."""

    def __init__(self, blocks: Callable[[], dict[Pos, str]], name: Callable[[], str],
                 animation: Callable[[], bytes] | None = None):
        self._blocks = blocks
        self._name = name
        self._animation = animation
        options = [o for o in FORMAT_OPTIONS if o[1] != "gif" or animation is not None]
        self.format = W.Dropdown(options=options, value="mcfunction", tooltip="what to export",
                                 layout=W.Layout(width="290px"))
        self.button = W.Button(description="Export", icon="download", layout=W.Layout(width="90px"),
                               tooltip="make a file of the chosen kind and show a link that saves it")
        self.link = W.HTML(layout=W.Layout(overflow="hidden"))
        self.button.on_click(lambda _: self.export())
        self.format.observe(lambda ch: setattr(self.link, "value", ""), "value")
        super().__init__([self.format, self.button, self.link], layout=W.Layout(align_items="center"))
        self.add_class("scv-export")
        self.last: tuple[str, bytes] | None = None

    def export(self, fmt: str | None = None) -> tuple[str, bytes] | None:
        """Make the file; returns (file name, bytes), or None when it cannot be made (the link says why)."""
        fmt = fmt or self.format.value
        base = safe_name(self._name())
        try:
            if fmt == "gif":
                if self._animation is None:
                    raise ValueError("this view has no animation to export")
                data = self._animation()
                filename = f"{base}.gif"
            else:
                data = build_bytes(self._blocks(), fmt)
                filename = base + BUILD_FORMATS[fmt]
        except (ValueError, ImportError, OSError) as e:
            self.link.value = (f"<span class='scv-download-error' style='font-size:12px;color:#d6336c'>"
                               f"cannot export: {html.escape(str(e).splitlines()[0] if str(e) else type(e).__name__)}"
                               "</span>")
            return None
        self.last = (filename, data)
        self.link.value = download_link(data, filename, MIME[fmt])
        return filename, data
