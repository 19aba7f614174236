"""The explorer in a real browser: JupyterLab on localhost, Debian's headless Chromium driven by
Playwright. Runs the quickstart notebook, then checks the page as a user would see it: a WebGL canvas
with a drawn circuit, Step changes the tick counter, a double-click places a block. Saves screenshots
under tests/browser/output/."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from .lab import CHROMIUM, CHROMIUM_ARGS, ROOT, jupyterlab, open_notebook, run_all

OUTPUT = Path(__file__).resolve().parent / "output"
HARMLESS_CONSOLE = ("Error setting state: t.on is not a function",)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="Debian's chromium is not installed (CI installs it: apt-get install chromium)")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab serving a copy of notebooks/ (running a notebook must not write into the repository)."""
    work = tmp_path_factory.mktemp("lab")
    root = work / "root"
    shutil.copytree(ROOT / "notebooks", root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    with jupyterlab(root, work) as (url, token):
        yield url, token, work


def _non_background(png: bytes) -> tuple[int, int]:
    """(pixels differing from the most common colour, distinct colours) of a screenshot."""
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    colors = img.getcolors(maxcolors=1 << 24)
    total = img.width * img.height
    top = max(colors)[0]
    return total - top, len(colors)


def test_quickstart_in_jupyterlab(lab):
    from playwright.sync_api import sync_playwright

    url, token, work = lab
    OUTPUT.mkdir(exist_ok=True)
    console: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1500})
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            open_notebook(page, url, token, "quickstart.ipynb")
            run_all(page)
            # the explorer: a WebGL canvas inside a cell output, with the stepper below it
            canvas = page.locator(".jp-OutputArea-output canvas").first
            canvas.wait_for(state="visible", timeout=60_000)
            step = page.locator(".jp-OutputArea-output button", has_text="Step").first
            step.wait_for(timeout=60_000)
            is_webgl = canvas.evaluate("c => !!(c.getContext('webgl2') || c.getContext('webgl'))")
            assert is_webgl, "the canvas has no WebGL context"
            canvas.scroll_into_view_if_needed()
            page.wait_for_timeout(1500)
            differing, n_colors = _non_background(canvas.screenshot())
            box = canvas.bounding_box()
            assert differing > 0.05 * box["width"] * box["height"], f"canvas looks blank ({differing} pixels drawn)"
            assert n_colors > 20, f"canvas has only {n_colors} colours"

            counter = page.locator(".scv-tick").first
            before = counter.inner_text()
            step.click()
            # widgets redraw their HTML, so look the element up afresh each time
            page.wait_for_function("old => document.querySelector('.scv-tick').innerText !== old", arg=before,
                                   timeout=30_000)
            after = counter.inner_text()
            assert after != before

            # place a stone by double-clicking the middle of the canvas
            page.get_by_role("button", name="stone", exact=True).first.click()
            message = page.locator(".scv-message").first
            canvas.dblclick(position={"x": box["width"] / 2, "y": box["height"] / 2})
            page.wait_for_function("() => document.querySelector('.scv-message').innerText.startsWith('placed stone')",
                                   timeout=30_000)
            placed = message.inner_text()
            page.wait_for_timeout(1000)
            canvas.scroll_into_view_if_needed()
            page.screenshot(path=str(OUTPUT / "quickstart.png"), full_page=False)
            canvas.screenshot(path=str(OUTPUT / "canvas.png"))
            text = page.locator(".jp-Notebook").inner_text()
        except Exception:
            page.screenshot(path=str(OUTPUT / "failure.png"), full_page=True)
            (OUTPUT / "console.log").write_text("\n".join(console))
            raise
        finally:
            browser.close()
    assert "Error displaying widget" not in text
    errors = [c for c in console if c.startswith("error") and not any(h in c for h in HARMLESS_CONSOLE)]
    (OUTPUT / "console.log").write_text("\n".join(console))
    assert "tick" in after and after != before
    assert placed.startswith("placed stone at ("), placed
    assert not [e for e in errors if "Error displaying widget" in e or "Failed to create" in e], errors
