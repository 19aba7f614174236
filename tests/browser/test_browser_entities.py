"""A minecart in the explorer, in a real browser (JupyterLab and Debian's headless Chromium, as in
test_browser_explorer.py): the page draws a recorded cart where the trace has it at each tick it shows by itself
(Back, Step), and going back shows exactly the picture of that tick again. The cart's place on screen is found
from its lid's colour and compared with where the camera projects the lid's centre.

Screenshots go to tests/browser/output/screenshots/ (git-ignored)."""

from __future__ import annotations

import io
import json
import time

import numpy as np

from .lab import open_notebook
from .test_browser_explorer import (  # noqa: F401 (fixtures)
    SCREENSHOTS,
    WAIT,
    Page,
    browser,
    kernel,
    lab,
    painted,
    run_all,
    wait_drawn,
    wait_figures,
    wait_text,
)

LID = (176, 116, 52)  # entities.CART_COLORS: a chest minecart's lid, seen from above at full light

CART_NOTEBOOK = ["""import json
from scicraft_viz import World
from scicraft_viz.views import Explorer
# a chest minecart rolling east along a rail on a stone floor
blocks = [((x, 0, z), 'stone') for x in range(14) for z in range(3)]
blocks += [((x, 1, 1), 'rail[shape=east_west]') for x in range(14)]
w = World.from_blocks(blocks, replay=True)
w.spawn_minecart((1.5, 1.0625, 1.5), (0.5, 0.0, 0.0), 'chest_minecart')
ex = Explorer(world=w)
ex.session.step(8)
cv = ex.canvas
carts = ex.session.trace.carts
json.dump({'lids': [[c[0].pos[0], c[0].pos[1] + 0.7, c[0].pos[2]] for c in carts],
           'offset': cv._offset.tolist(), 'camera': list(cv.camera.position), 'quaternion': list(cv.camera.quaternion),
           'fov': cv.camera.fov, 'size': [cv.renderer.width, cv.renderer.height], 'end': ex.session.end},
          open('cart-plan.json', 'w'))
ex"""]

KERNEL_STATE = """import json
json.dump({'tick': ex.session.tick, 'drawn': [list(c.pos) for c in cv.entities[0]],
           'trace': [list(c.pos) for c in ex.session.trace.carts[ex.session.tick]]}, open('cart-state.json', 'w'))"""


def project(plan: dict, point) -> tuple[float, float]:
    """Where the page's perspective camera draws a world point, in pixels of the canvas."""
    x, y, z, w = plan["quaternion"]
    rot = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    cam = rot.T @ (np.asarray(point) - plan["offset"] - plan["camera"])
    width, height = plan["size"]
    f = 1 / np.tan(np.radians(plan["fov"]) / 2)
    nx, ny = f * height / width * cam[0] / -cam[2], f * cam[1] / -cam[2]
    return (nx + 1) / 2 * width, (1 - ny) / 2 * height


def lid_centre(png: bytes) -> tuple[float, float, int]:
    """Centre (x, y) and size in pixels of what the screenshot shows in the lid's colour."""
    from PIL import Image

    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    mask = (np.abs(img - LID) <= 24).all(-1)
    ys, xs = np.nonzero(mask)
    return (float(xs.mean()), float(ys.mean()), int(mask.sum())) if len(xs) else (-1.0, -1.0, 0)


def test_the_page_draws_a_recorded_minecart_where_it_was_at_each_tick(browser, lab):  # noqa: F811
    url, token, work = lab
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": source} for source in CART_NOTEBOOK],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (work / "root" / "cart.ipynb").write_text(json.dumps(nb))
    with Page(browser, "cart") as page:
        open_notebook(page, url, token, "cart.ipynb")
        run_all(page)
        wait_figures(page)
        plan = json.loads((work / "root" / "cart-plan.json").read_text())
        ex = page.locator(".scv-explorer").first
        canvas = ex.locator("canvas").first
        wait_drawn(page, canvas)
        assert plan["end"] == 8

        def shows(tick: int) -> bytes:
            wait_text(page, ".scv-explorer .scv-tick", "text.startsWith(arg)", arg=f"tick {tick} gt")
            painted(page)
            png = canvas.screenshot()
            x, y, n = lid_centre(png)
            want = project(plan, plan["lids"][tick])
            assert n >= 20, f"tick {tick}: no minecart lid drawn"
            assert abs(x - want[0]) <= 4 and abs(y - want[1]) <= 4, (tick, (x, y), want)
            return png

        live = shows(8)
        for _ in range(3):
            ex.locator("button", has_text="Back").first.click()
        at5 = shows(5)  # drawn by the page from the recording it was sent
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        (SCREENSHOTS / "minecart-tick5.png").write_bytes(at5)
        ex.screenshot(path=str(SCREENSHOTS / "minecart-explorer.png"))
        assert (at5 != live) is True
        ex.locator("button", has_text="Step").first.click()
        at6 = shows(6)
        assert (at6 != at5) is True
        ex.locator("button", has_text="Back").first.click()
        assert (shows(5) == at5) is True, "going back did not show the same picture of tick 5 again"
        assert page.evaluate("() => window.__scvVersionDrops || 0") == 0
        # the kernel follows the tick the page shows, drawing the same cart there (without sending it back)
        deadline = time.monotonic() + WAIT / 1000
        while True:
            kernel(page, KERNEL_STATE)
            state = json.loads((work / "root" / "cart-state.json").read_text())
            if state["tick"] == 5 or time.monotonic() > deadline:
                break
            page.wait_for_timeout(200)
        assert state["tick"] == 5 and state["drawn"] == state["trace"], state
