"""Every notebook in a real browser: JupyterLab on localhost and the Voila annotator page, Debian's
headless Chromium driven by Playwright. Each notebook runs top to bottom; no widget's content may
overflow its box; on the quickstart, Step, play, the keyboard, a timeline click, hover, a placement,
Undo and Export are driven and what each shows is checked. JupyterLab runs with the project's lab settings
(no news pop-up over the page).

Every wait is for what the next step checks (a kernel idle, a figure drawn, a counter's text), with a
generous ceiling (minutes) for a loaded machine; none is a fixed time budget. The only fixed pause is the
window in which a paused player must not move.

Screenshots of each page go to tests/browser/output/screenshots/ (git-ignored). The README's screenshots
in docs/screenshots/ are rewritten only on request: SCICRAFT_UPDATE_SCREENSHOTS=1 python -m pytest tests/browser

Without chromium (or playwright) the tests skip with the reason; with CI=true they fail instead."""

from __future__ import annotations

import io
import os
import shutil
import time
from pathlib import Path

import pytest

from .lab import CHROMIUM, CHROMIUM_ARGS, ROOT, jupyterlab, open_notebook, run_all, voila

OUTPUT = Path(__file__).resolve().parent / "output"  # git-ignored
# the README's pictures are regenerated only when asked for; otherwise they go next to the other outputs
UPDATE_SCREENSHOTS = os.environ.get("SCICRAFT_UPDATE_SCREENSHOTS", "") not in ("", "0")
SCREENSHOTS = ROOT / "docs" / "screenshots" if UPDATE_SCREENSHOTS else OUTPUT / "screenshots"
WAIT = 120_000  # ceiling (ms) of a wait for something the page does in well under a second when idle
SLOW_WAIT = 300_000  # ceiling (ms) of a wait that includes a kernel's computation or plotly's first draw
NEWS_PROMPT = "Would you like to get notified about official Jupyter news?"
HARMLESS_CONSOLE = ("Error setting state: t.on is not a function",)
# every part of the explorer, the replay viewer and the annotator whose content must fit its box
OVERFLOW_JS = """() => {
  const sel = ['.scv-explorer', '.scv-replay', '.scv-annotator'].flatMap(r => [r, r + ' .widget-box',
    r + ' .widget-html-content', r + ' button', r + ' .widget-toggle-button', r + ' .widget-label',
    r + ' .widget-readout']).join(', ');
  const out = [];
  for (const e of document.querySelectorAll(sel)) {
    if (!e.offsetParent) continue;
    if (e.scrollWidth > e.clientWidth + 1) {
      out.push(`${e.tagName}.${String(e.className).slice(0, 50)} "${(e.innerText || '').slice(0, 40)}" ` +
               `${e.scrollWidth} > ${e.clientWidth}`);
    }
  }
  return out;
}"""


def require_browser() -> None:
    missing = []
    if not Path(CHROMIUM).exists():
        missing.append("Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    try:
        import playwright  # noqa: F401
    except ImportError:
        missing.append("the playwright package (pip install -e '.[test]'; never 'playwright install')")
    if missing:
        reason = "the browser test needs " + " and ".join(missing)
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason + " (CI=true: it must run here)", pytrace=False)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory):
    """JupyterLab serving a copy of notebooks/ (running a notebook must not write into the repository), next to
    links to the repository's tasks and example runs, which the notebooks read. The engine's kernels are
    compiled into numba's cache first, as `scicraft-viz warmup` does: these tests time out on the pages, and
    a fresh clone's first notebook would otherwise spend minutes of its budget in numba's compiler."""
    from scicraft_viz.tasks.warmup import warmup

    if os.environ.get("SCICRAFT_NOJIT") != "1":  # with the kernels as plain Python there is nothing to compile
        warmup()
    work = tmp_path_factory.mktemp("lab")
    root = work / "root"
    shutil.copytree(ROOT / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    for name in ("tasks", "trajectories"):
        (root / name).symlink_to(ROOT / name, target_is_directory=True)
    with jupyterlab(root, work) as (url, token):
        yield url, token, work


class Page:
    """A browser page with its console kept, saved with a screenshot if the test fails."""

    def __init__(self, browser, name: str):
        self.name = name
        self.console: list[str] = []
        self.page = browser.new_page(viewport={"width": 1400, "height": 2000}, accept_downloads=True)
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))

    def __enter__(self):
        return self.page

    def __exit__(self, kind, exc, tb):
        OUTPUT.mkdir(exist_ok=True)
        if kind is not None:
            self.page.screenshot(path=str(OUTPUT / f"failure-{self.name}.png"), full_page=True)
        (OUTPUT / f"console-{self.name}.log").write_text("\n".join(self.console))
        self.page.close()
        if kind is None:
            errors = [c for c in self.console if c.startswith("error")
                      and ("Error displaying widget" in c or "Failed to create" in c)
                      and not any(h in c for h in HARMLESS_CONSOLE)]
            assert not errors, errors
        return False


def assert_fits(page) -> None:
    over = page.evaluate(OVERFLOW_JS)
    assert not over, "content wider than its box:\n" + "\n".join(over)


def drawn(png: bytes) -> tuple[int, int]:
    """(pixels differing from the most common colour, distinct colours) of a screenshot."""
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    colors = img.getcolors(maxcolors=1 << 24)
    return img.width * img.height - max(colors)[0], len(colors)


def wait_text(page, selector: str, predicate_js: str, arg=None, timeout: float = WAIT):
    """Wait until predicate_js(text, arg) holds for the innerText of the first element matching selector."""
    page.wait_for_function(
        f"([sel, arg]) => {{ const e = document.querySelector(sel); if (!e) return false;"
        f" const text = e.innerText; return ({predicate_js}); }}", arg=[selector, arg], timeout=timeout)
    return page.locator(selector).first.inner_text()


def kernel_output(page, code: str) -> str:
    """What `code` prints when run in the open notebook's kernel."""
    return page.evaluate("""async code => { const k = window.jupyterapp.shell.currentWidget.sessionContext.session
      .kernel; const f = k.requestExecute({code, silent: false, store_history: false}); let out = '';
      f.onIOPub = m => { if (m.header.msg_type === 'stream') out += m.content.text; }; await f.done; return out; }""",
                         code)


def tick_of(text: str) -> int:
    return int(text.split("tick ", 1)[1].split(" ", 1)[0])


def painted(page) -> None:
    """Wait until the browser has painted what is on the page (two animation frames)."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def wait_drawn(page, canvas, timeout: float = WAIT) -> tuple[int, int]:
    """Wait until the 3D canvas shows a scene (many pixels off the background, many colours)."""
    box = canvas.bounding_box()
    deadline = time.monotonic() + timeout / 1000
    while True:
        differing, n_colors = drawn(canvas.screenshot())
        if (differing > 0.05 * box["width"] * box["height"] and n_colors > 20) or time.monotonic() > deadline:
            return differing, n_colors
        page.wait_for_timeout(250)


def screenshot(locator, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    locator.screenshot(path=str(SCREENSHOTS / name))


FIGURES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map((d, i) => ({
  figure: i, traces: d.data ? d.data.length : null, drawn: !!d._fullLayout,
  title: (d.layout && d.layout.title && d.layout.title.text) || null,
  cell: (d.closest('.jp-Cell') && Array.from(document.querySelectorAll('.jp-Cell')).indexOf(d.closest('.jp-Cell'))),
  size: [d.clientWidth, d.clientHeight]}))"""


def wait_figures(page, timeout: float = SLOW_WAIT) -> None:
    """Plotly draws after the kernel is idle: wait until every figure on the page is drawn with its traces
    (every figure of the project's views has traces from the start). On timeout, say which are not."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"() => ({FIGURES_JS})().every(f => f.drawn && f.traces >= 1)", timeout=timeout,
                               polling=500)
    except PlaywrightTimeout:
        missing = [f for f in page.evaluate(FIGURES_JS) if not (f["drawn"] and f["traces"])]
        raise AssertionError(f"figures not drawn with their traces after {timeout / 1000:.0f} s: {missing}") from None


def run_notebook(page, lab, name: str) -> None:
    url, token, _ = lab
    open_notebook(page, url, token, f"notebooks/{name}")
    run_all(page)
    text = page.locator(".jp-Notebook").inner_text()
    assert "Error displaying widget" not in text and "Traceback" not in text, text[-2000:]
    wait_figures(page)
    assert page.get_by_text(NEWS_PROMPT).count() == 0, "JupyterLab's news pop-up is over the page"


def test_quickstart_steps_plays_clicks_hovers_edits_and_exports(browser, lab):
    with Page(browser, "quickstart") as page:
        run_notebook(page, lab, "quickstart.ipynb")
        ex = page.locator(".scv-explorer").first
        ex.scroll_into_view_if_needed()
        counter = ex.locator(".scv-tick")
        # the first explorer is as its text says: untouched, tick 0, live
        assert counter.inner_text().startswith("tick 0 gt · 0 rt · live"), counter.inner_text()
        assert_fits(page)

        canvas = ex.locator("canvas").first
        assert canvas.evaluate("c => !!(c.getContext('webgl2') || c.getContext('webgl'))"), "no WebGL context"
        differing, n_colors = wait_drawn(page, canvas)
        box = canvas.bounding_box()
        assert differing > 0.05 * box["width"] * box["height"] and n_colors > 20, (differing, n_colors)

        # press, then Step: the counter follows the session
        ex.get_by_role("button", name="Press button").click()
        wait_text(page, ".scv-explorer .scv-tick", "text.includes('press +0 gt')")
        ex.locator("button", has_text="Step").first.click()
        after = wait_text(page, ".scv-explorer .scv-tick", "text.startsWith('tick 1 gt')")
        assert after.startswith("tick 1 gt · 0.5 rt · press +1 gt (+0.5 rt) · live"), after

        # play runs by the browser's timer until paused
        play = ex.locator(".widget-play button")
        play.nth(0).click()
        wait_text(page, ".scv-explorer .scv-tick", "parseInt(text.split('tick ')[1]) >= 8", timeout=SLOW_WAIT)
        play.nth(1).click()  # pause
        # a beat already on its way may still land: wait until the counter holds still for a second
        page.wait_for_function(
            "() => { const t = document.querySelector('.scv-explorer .scv-tick').innerText; const now = Date.now();"
            " if (window.__scvTick !== t) { window.__scvTick = t; window.__scvSince = now; }"
            " return now - window.__scvSince >= 1000; }", timeout=WAIT, polling=100)
        paused = tick_of(counter.inner_text())
        page.wait_for_timeout(1200)  # the one fixed window: nothing may move while paused
        assert tick_of(counter.inner_text()) == paused, "the tick moved after pause"

        # keyboard, with the mouse over the explorer: arrow right steps one tick
        ex.locator(".scv-tick").hover()
        page.keyboard.press("ArrowRight")
        wait_text(page, ".scv-explorer .scv-tick", "parseInt(text.split('tick ')[1]) === arg", arg=paused + 1)

        # a click on a timeline cell moves every view to that tick
        timeline = ex.locator(".scv-timeline .js-plotly-plot").first
        timeline.scroll_into_view_if_needed()
        area = timeline.locator(".nsewdrag").first.bounding_box()
        x0, x1 = page.evaluate("el => el._fullLayout.xaxis.range", timeline.element_handle())
        n = len(page.evaluate("el => el._fullLayout.yaxis._categories", timeline.element_handle()))
        target = 2
        px = area["x"] + (target - x0) / (x1 - x0) * area["width"]
        py = area["y"] + (1 + 0.5) / n * area["height"]  # the second lamp's row
        page.mouse.click(px, py)
        shown = wait_text(page, ".scv-explorer .scv-tick", "text.startsWith('tick 2 gt')")
        assert "replaying" in shown, shown
        page.wait_for_function("() => document.querySelector('.scv-explorer .scv-heatmap .gtitle').textContent"
                               " === 'dust power on layer y=4 · tick 2 gt'", timeout=WAIT)
        # a drag across the timeline zooms it and does not pick the tick it started on
        page.evaluate("el => { window.__zoomed = new Promise(done => el.once('plotly_relayout', () => done(true))); }",
                      timeline.element_handle())
        start = area["x"] + (6 - x0) / (x1 - x0) * area["width"]
        page.mouse.move(start, py)
        page.mouse.down()
        page.mouse.move(start + 40, py, steps=4)
        page.mouse.up()
        assert page.evaluate("() => window.__zoomed") is True
        assert ex.locator(".scv-tick").first.inner_text().startswith("tick 2 gt")

        # the log of tick 2: each cause line is shown whole, wrapped inside the panel (not cut off at its edge);
        # a click on a line marks it and selects its block in the kernel
        log = ex.locator(".scv-eventlog")
        log.scroll_into_view_if_needed()
        wait_text(page, ".scv-explorer .scv-eventlog", "text.includes('Why, at tick 2')")
        log.locator(".scv-event").first.wait_for(timeout=WAIT)
        lines = log.evaluate("""el => { const box = el.querySelector('.scv-events').getBoundingClientRect();
          return Array.from(el.querySelectorAll('.scv-event')).map(e => { const r = e.getBoundingClientRect();
            return {text: e.innerText, fits: e.scrollWidth <= e.clientWidth && r.left >= box.left - 0.5
                    && r.right <= box.right + 0.5, height: r.height,
                    line: parseFloat(getComputedStyle(e).lineHeight)}; }); }""")
        assert [x["text"].split(" ", 1)[0] for x in lines] == ["1.", "2.", "3.", "4."], lines
        assert lines[0]["text"] == ("1. repeater (2, 4, 0) turned on: scheduled 1 rt ago when dust (1, 4, 0) reached "
                                    "power 15"), lines
        assert all(x["fits"] for x in lines), lines
        assert lines[0]["height"] > 1.5 * lines[0]["line"], lines  # the long line wraps onto a second one
        log.locator(".scv-event").nth(0).click()
        page.wait_for_function("() => document.querySelector('.scv-explorer .scv-eventlog .scv-event')"
                               ".classList.contains('mod-info')", timeout=WAIT)
        wait_text(page, ".scv-explorer .scv-eventlog .widget-html:last-child",
                  "text.startsWith('repeater (2, 4, 0) turned on')")
        assert kernel_output(page, "print(ex.session.selected)") == "(2, 4, 0)\n"
        screenshot(log, "event_log.png")

        # hover on the 3D canvas names the block under the mouse
        canvas.scroll_into_view_if_needed()
        box = canvas.bounding_box()
        for k in range(6):
            page.mouse.move(box["x"] + box["width"] * (0.45 + 0.02 * k), box["y"] + box["height"] * 0.55)
            page.wait_for_timeout(150)  # pacing of the mouse path, not a budget: the wait below is for the text
        hover = wait_text(page, ".scv-explorer .scv-hover", "text.startsWith('(')")
        assert any(b in hover for b in ("stone", "redstone", "lamp")), hover

        # double-click places the palette's block; Undo takes it back; both say so
        ex.get_by_role("button", name="stone", exact=True).click()
        canvas.dblclick(position={"x": box["width"] / 2, "y": box["height"] * 0.7})
        placed = wait_text(page, ".scv-explorer .scv-message", "text.startsWith('placed stone at (')")
        ex.get_by_role("button", name="Undo").click()
        undone = wait_text(page, ".scv-explorer .scv-message", "text.startsWith('undid: ')")
        # the timeline click left the views on an earlier tick: the placement says it jumped to the live tick
        assert "(you were replaying tick " in placed, placed
        assert undone == "undid: " + placed.split(" (you were replaying")[0], (placed, undone)

        # alt + double-click puts a meter on the picked block: its row appears in the meters table
        canvas.dblclick(position={"x": box["width"] / 2, "y": box["height"] * 0.7}, modifiers=["Alt"])
        metered = wait_text(page, ".scv-explorer .scv-message", "text.startsWith('meter on (')")
        picked = metered.removeprefix("meter on ")
        table = wait_text(page, ".scv-explorer .scv-meter-table", "text.includes(arg)", arg=picked)
        assert kernel_output(page, "print(ex.meters.positions[-1])") == picked + "\n", (picked, table)

        # export the build: a link that downloads a .mcfunction of setblock lines
        export = ex.locator(".scv-export")
        export.locator("select").select_option(label="build: .mcfunction (setblock lines)")
        export.get_by_role("button", name="Export").click()
        link = export.locator("a.scv-download")
        link.wait_for(timeout=WAIT)
        with page.expect_download() as info:
            link.click()
        download = info.value
        assert download.suggested_filename == "explorer_build.mcfunction"
        saved = Path(download.path()).read_text()
        assert saved.startswith("setblock ")
        # the file is World.to_mcfunction()'s, dust written with its connections and power
        assert saved == kernel_output(page, "print(ex.session.world.to_mcfunction(), end='')")
        assert "minecraft:redstone_wire[east=side," in saved, saved

        assert_fits(page)
        page.mouse.move(5, 5)
        ex.scroll_into_view_if_needed()
        painted(page)
        screenshot(ex, "quickstart.png")
        task_ex = page.locator(".scv-explorer").nth(2)
        task_ex.scroll_into_view_if_needed()
        wait_drawn(page, task_ex.locator("canvas").first)
        painted(page)
        screenshot(task_ex, "explorer.png")


@pytest.mark.parametrize("name", ["redstone_course", "task_walkthrough", "replay"])
def test_notebook_runs_in_the_browser_and_fits(browser, lab, name):
    with Page(browser, name) as page:
        run_notebook(page, lab, f"{name}.ipynb")
        page.locator(".scv-explorer, .scv-replay").first.wait_for(timeout=SLOW_WAIT)
        assert_fits(page)
        if name == "task_walkthrough":
            broken = page.locator(".scv-explorer").nth(1)
            title = broken.locator(".scv-timeline .gtitle").first.text_content()
            assert "8 lamp(s) violate it" in title, title
            target = broken
        elif name == "replay":
            target = page.locator(".scv-replay").first
            target.scroll_into_view_if_needed()
            # the viewer opens at the last step, so its trial panel shows the last trial, not an earlier one
            side = wait_text(page, ".scv-replay .scv-replay-side", "text.includes('trial 3: ')")
            assert "trial 3: 32/32 lamps lit, meets the contract" in side, side
            header = ".scv-replay .widget-html-content h3 + div"
            assert "submitted: PASS" in page.locator(header).first.inner_text()
            # stepping back shows each step as it stood: the trial before it, and no verdict before the submit
            back = target.locator("button[title='previous step']")
            back.click()
            wait_text(page, ".scv-replay .scv-replay-side", "text.includes('#152 activate-button (trial 3)')")
            shown = wait_text(page, header, "text.includes('not submitted yet (submits at step 153)')")
            assert "PASS" not in shown, shown
            back.click()
            side = wait_text(page, ".scv-replay .scv-replay-side", "text.includes('#151 set-block (9, 4, 7)')")
            assert "trial 2: 24/32 lamps lit, fails the contract" in side, side
            target.locator("button[title='next step']").click()
            target.locator("button[title='next step']").click()
            wait_text(page, header, "text.includes('submitted: PASS')")
        else:
            target = page.locator(".scv-explorer").last
        target.scroll_into_view_if_needed()
        canvas = target.locator("canvas").first
        if canvas.count():
            wait_drawn(page, canvas)
        painted(page)
        screenshot(target, f"{name}.png")


def test_annotator_page_in_voila(browser, tmp_path):
    runs = tmp_path / "runs"
    with voila(runs, tmp_path / "voila.log") as (url, _), Page(browser, "annotator") as page:
        page.goto(f"{url}/?task=/etc/passwd", timeout=SLOW_WAIT)
        error = page.locator(".scv-page-error")
        error.wait_for(timeout=SLOW_WAIT)
        assert "task id" in error.inner_text() and "root:" not in page.content()

        outside: list[str] = []  # the page works offline: nothing is fetched from anywhere but its server
        page.on("request", lambda r: None if r.url.startswith((url, "data:", "blob:")) else outside.append(r.url))
        page.goto(f"{url}/?task=A_simultaneous_lights_L1&participant=P01&minutes=30", timeout=SLOW_WAIT)
        page.get_by_role("button", name="Start").wait_for(timeout=SLOW_WAIT)
        assert outside == []
        page.get_by_text("Consent form", exact=True).first.click()
        assert "What is recorded" in page.locator(".scv-consent").inner_text()
        page.get_by_role("checkbox").check()
        page.get_by_role("button", name="Start").click()
        wait_text(page, ".scv-message", "text.startsWith('Started.')")
        assert_fits(page)
        canvas = page.locator("canvas").first
        canvas.scroll_into_view_if_needed()
        wait_drawn(page, canvas)
        box = canvas.bounding_box()
        canvas.dblclick(position={"x": box["width"] / 2, "y": box["height"] * 0.6})
        placed = wait_text(page, ".scv-message", "text.startsWith('placed redstone_wire at (')")
        page.get_by_role("button", name="Undo").click()
        # the undo says what it did: the dust just placed is removed again (not "1 block(s) put back")
        wait_text(page, ".scv-message", "text.startsWith('undid the last edit: removed the block at (')")
        page.mouse.move(5, 5)
        painted(page)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "annotator.png"), full_page=True)
        files = list(runs.glob("A_simultaneous_lights_L1__P01__*.jsonl"))
        assert len(files) == 1 and files[0].read_text().count('"set-block"') == 2, placed


SCRUB_NOTEBOOK = ["""import json
import numpy as np
from scicraft_viz.views import Explorer
ex = Explorer(task='A_simultaneous_lights_L1', build='solution')
s = ex.session
s.run_test()
s.seek(s.presses[-1])
# the first tick after the press at which the 3D view changes (a lamp or dust), from the recorded rows
k0 = s.presses[-1] - ex.scrubber.meta['first']
target = next(s.presses[-1] + j for j in range(1, 60) if len(ex.scrubber._deltas[k0 + j - 1][0]))
json.dump({'press': s.presses[-1], 'target': target}, open('scrub-plan.json', 'w'))
ex""", """# a build of three blocks on three stone (lever unpowered: nothing is lit, nothing else is yellow)
tiny = Explorer(build={(0, 0, 0): 'minecraft:stone', (1, 0, 0): 'minecraft:stone', (2, 0, 0): 'minecraft:stone',
                       (0, 1, 0): 'minecraft:lever[face=floor,facing=east]', (1, 1, 0): 'minecraft:redstone_wire',
                       (2, 1, 0): 'minecraft:redstone_lamp'})
tiny"""]

KERNEL_STATE = """import json
json.dump({'tick': ex.session.tick, 'counter': ex.stepper.counter.value, 'canvas': ex.canvas.frame.tick,
           'heatmap': ex.heatmap.figure.layout.title.text}, open('scrub-state.json', 'w'))
# the kernel's own colours for its tick, sent to the page (blanked first: equal arrays are not sent again)
import numpy as np
for b in ex.canvas._buffers.values():
    b.col_attr.array = np.zeros_like(b.col_attr.array)
ex.canvas._recolor()"""


def kernel(page, code: str) -> None:
    page.evaluate("code => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
                  ".requestExecute({code}).done", code)


def test_the_page_scrubs_and_the_kernel_follows(browser, lab):
    """Step, Back and a timeline click are drawn in the page from the recording it was sent; the kernel then
    holds the same tick, and its own colours for that tick paint the same pixels as the page's."""
    import json

    url, token, work = lab
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": source} for source in SCRUB_NOTEBOOK],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (work / "root" / "scrub.ipynb").write_text(json.dumps(nb))
    with Page(browser, "scrub") as page:
        open_notebook(page, url, token, "scrub.ipynb")
        run_all(page)
        wait_figures(page)
        plan = json.loads((work / "root" / "scrub-plan.json").read_text())
        ex = page.locator(".scv-explorer").first
        canvas = ex.locator("canvas").first
        wait_drawn(page, canvas)
        before = canvas.screenshot()
        for _ in range(plan["target"] - plan["press"]):
            ex.locator("button", has_text="Step").first.click()
        want = f"tick {plan['target']} gt"
        shown = wait_text(page, ".scv-explorer .scv-tick", "text.startsWith(arg)", arg=want)
        assert f"press +{plan['target'] - plan['press']} gt" in shown and "replaying" in shown, shown
        page.wait_for_function("arg => document.querySelector('.scv-explorer .scv-heatmap .gtitle').textContent"
                               ".endsWith(arg)", arg=want, timeout=WAIT)
        page.wait_for_function("arg => document.querySelector('.scv-explorer .scv-timeline .scv-cursor')"
                               ".dataset.tick === arg", arg=str(plan["target"]), timeout=WAIT)
        painted(page)
        by_page = canvas.screenshot()
        # no vertex array's upload count went back (its next writes would not have been drawn): the kernel sent
        # arrays at the run and the seek, and their counts were being echoed while the page stepped
        assert page.evaluate("() => window.__scvVersionDrops || 0") == 0
        assert (by_page != before) is True, "the 3D view did not change at a tick where the recording changes it"
        kernel(page, KERNEL_STATE)
        state = json.loads((work / "root" / "scrub-state.json").read_text())
        assert state["tick"] == state["canvas"] == plan["target"], state
        assert state["counter"].startswith("<span class='scv-tick'") and want in state["counter"], state
        assert state["heatmap"].endswith(want), state
        deadline = time.monotonic() + WAIT / 1000
        while canvas.screenshot() != by_page and time.monotonic() < deadline:  # until the colours have arrived
            page.wait_for_timeout(250)
        by_kernel = canvas.screenshot()
        if by_kernel != by_page:  # kept for a person to compare (PNG bytes make no readable diff)
            (work / "scrub-page.png").write_bytes(by_page)
            (work / "scrub-kernel.png").write_bytes(by_kernel)
        assert (by_kernel == by_page) is True, f"the kernel's colours for this tick differ from the page's: {work}"

        ex.locator("button", has_text="Back").first.click()
        wait_text(page, ".scv-explorer .scv-tick", "text.startsWith(arg)", arg=f"tick {plan['target'] - 1} gt")
        painted(page)
        assert (canvas.screenshot() != by_page) is True, "Back did not bring back the 3D view of the tick before"
        # the kernel hears of the tick the page shows (asynchronously): wait for it
        deadline = time.monotonic() + WAIT / 1000
        while True:
            kernel(page, KERNEL_STATE)
            state = json.loads((work / "root" / "scrub-state.json").read_text())
            if state["tick"] == plan["target"] - 1 or time.monotonic() > deadline:
                break
            page.wait_for_timeout(200)
        assert state["tick"] == state["canvas"] == plan["target"] - 1, state

        # the compass beside a build of three blocks: all four letters show, none hidden behind a block
        tiny = page.locator(".scv-explorer").nth(1).locator("canvas").first
        tiny.scroll_into_view_if_needed()
        wait_drawn(page, tiny)
        painted(page)
        png = tiny.screenshot()
        screenshot(tiny, "compass-tiny.png")
        assert letters(png, COMPASS_YELLOW) == 4, f"compass letters seen: {letters(png, COMPASS_YELLOW)}"


COMPASS_YELLOW = (0xFF, 0xD5, 0x4A)  # canvas.py's compass letters


def letters(png: bytes, color: tuple[int, int, int], tol: int = 48, least: int = 20) -> int:
    """How many separate marks of this colour a screenshot shows (8-connected pixels within `tol` of it on
    each channel, at least `least` pixels each)."""
    import numpy as np
    from PIL import Image

    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    mask = (np.abs(img - np.array(color)) <= tol).all(-1)
    seen = np.zeros_like(mask)
    marks = 0
    h, w = mask.shape
    for y0, x0 in zip(*np.nonzero(mask)):
        if seen[y0, x0]:
            continue
        seen[y0, x0] = True
        todo, size = [(y0, x0)], 0
        while todo:
            y, x = todo.pop()
            size += 1
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    v, u = y + dy, x + dx
                    if 0 <= v < h and 0 <= u < w and mask[v, u] and not seen[v, u]:
                        seen[v, u] = True
                        todo.append((v, u))
        marks += size >= least
    return marks


def test_annotator_keys_ghost_and_fill_in_voila(browser, tmp_path):
    runs = tmp_path / "runs"
    with voila(runs, tmp_path / "voila.log") as (url, _), Page(browser, "annotator-keys") as page:
        page.goto(f"{url}/?task=A_simultaneous_lights_L1&participant=P02&minutes=30", timeout=SLOW_WAIT)
        page.get_by_role("button", name="Start").wait_for(timeout=SLOW_WAIT)
        page.get_by_role("checkbox").check()
        page.get_by_role("button", name="Start").click()
        wait_text(page, ".scv-message", "text.startsWith('Started.')")
        canvas = page.locator("canvas").first
        canvas.scroll_into_view_if_needed()
        wait_drawn(page, canvas)
        box = canvas.bounding_box()
        # typing in the notes box is text, not keys: the palette keeps its block
        notes = page.locator("textarea").first
        notes.click()
        page.keyboard.type("4r")
        assert notes.input_value() == "4r"
        page.wait_for_timeout(500)  # the one fixed window: a key the page wrongly took would show by now
        assert not page.locator(".scv-message").first.inner_text().startswith("block:")
        # with the mouse over the canvas: 4 chooses the repeater, R turns its facing
        canvas.hover(position={"x": box["width"] / 2, "y": box["height"] * 0.6})
        page.keyboard.press("4")
        wait_text(page, ".scv-message", "text === 'block: repeater'")
        page.keyboard.press("r")
        wait_text(page, ".scv-message", "text === 'facing: north'")
        # 2 chooses glass, L starts a fill; two double-clicks on the floor fill the cells between them
        page.keyboard.press("2")
        wait_text(page, ".scv-message", "text === 'block: glass'")
        page.keyboard.press("l")
        wait_text(page, ".scv-message", "text.startsWith('fill: double-click the first corner')")
        canvas.dblclick(position={"x": box["width"] / 2 - 40, "y": box["height"] * 0.62})
        wait_text(page, ".scv-message", "text.startsWith('fill from (')")
        canvas.dblclick(position={"x": box["width"] / 2 + 40, "y": box["height"] * 0.62})
        text = wait_text(page, ".scv-message", "text.startsWith('filled ')")
        n = int(text.split()[1])
        assert n >= 2 and " with glass" in text, text
        files = list(runs.glob("A_simultaneous_lights_L1__P02__*.jsonl"))
        assert len(files) == 1 and files[0].read_text().count('"set-block"') == n, text
        canvas.hover(position={"x": box["width"] / 2, "y": box["height"] * 0.45})
        painted(page)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "annotator-fill.png"), full_page=True)
        # C copies the box between two double-clicked blocks (the glass just filled), V pastes it where the next
        # double-click lands, as one recorded set-block call per block placed
        page.keyboard.press("c")
        wait_text(page, ".scv-message", "text.startsWith('copy: ')")
        canvas.dblclick(position={"x": box["width"] / 2 - 40, "y": box["height"] * 0.62})
        wait_text(page, ".scv-message", "text.startsWith('copy from (')")
        canvas.dblclick(position={"x": box["width"] / 2 + 40, "y": box["height"] * 0.62})
        text = wait_text(page, ".scv-message", "text.startsWith('copied ')")
        copied = int(text.split()[1])
        assert copied >= 1, text
        page.keyboard.press("v")
        wait_text(page, ".scv-message", "text.startsWith('paste: ')")
        canvas.dblclick(position={"x": box["width"] / 2, "y": box["height"] * 0.8})
        text = wait_text(page, ".scv-message", "text.startsWith('pasted ')")
        pasted = int(text.split()[1])
        assert 1 <= pasted <= copied and f" of {copied} at (" in text, text
        assert files[0].read_text().count('"set-block"') == n + pasted
        canvas.hover(position={"x": box["width"] / 2, "y": box["height"] * 0.45})
        painted(page)
        page.screenshot(path=str(SCREENSHOTS / "annotator-paste.png"), full_page=True)
        page.keyboard.press("z")  # undo takes the whole paste back
        wait_text(page, ".scv-message", "text.startsWith('undid the last edit: removed the blocks at')")
        assert files[0].read_text().count('"set-block"') == n + 2 * pasted


PLAY_NOTEBOOK = """import json
from scicraft_viz.views import Explorer
ex = Explorer(task='A_simultaneous_lights_L1', build='solution')
s = ex.session
s.run_test()
s.seek(s.presses[-1])
ex.stepper.speed.value = 20
ex.timeline.span.value = 'whole'
ex.timeline.span.value = 'activity'  # laid out again around the press: the activity's span
lo, hi = ex.timeline.tick_range()
# far past the axis's span, which Play's start widens once to the recording's end
json.dump({'start': s.tick, 'lo': lo, 'hi': hi, 'target': min(s.end, hi + 40), 'end': s.end},
          open('play-plan.json', 'w'))
ex"""

# Every animation frame from before Play is pressed until the target tick: the tick each view shows (counter,
# heatmap title, timeline line, event log header), whether the line lies inside the timeline's plot area and axis
# range, and the axis range. It starts
# before the click, so a frame drawn before the test could start sampling is not missed on a slow machine; the
# frames are in window.__playFrames once the counter reaches the target.
PLAY_SAMPLER = """([target]) => { window.__playFrames = new Promise(resolve => {
  const ex = document.querySelector('.scv-explorer');
  const num = (re, s) => { const m = re.exec(s || ''); return m ? +m[1] : null; };
  const frames = [];
  const frame = () => {
    const line = ex.querySelector('.scv-timeline .scv-cursor');
    const plot = ex.querySelector('.scv-timeline .js-plotly-plot');
    const xa = plot._fullLayout.xaxis, f = xa.title.text.startsWith('redstone') ? 2 : 1;
    const x = parseFloat(line.style.left) + 1, t = line.dataset.tick === undefined ? null : +line.dataset.tick;
    frames.push({counter: num(/tick (\\d+) gt/, ex.querySelector('.scv-tick').innerText),
                 heat: num(/tick (\\d+) gt/, ex.querySelector('.scv-heatmap .gtitle').textContent), line: t,
                 log: num(/Why, at tick (\\d+)/, ex.querySelector('.scv-eventlog').innerText), range: xa.range.slice(),
                 shown: line.style.display !== 'none',
                 inArea: x >= xa._offset - 1 && x <= xa._offset + xa._length + 1,
                 inRange: t !== null && xa.range[0] <= t / f && t / f <= xa.range[1]});
    if (frames[frames.length - 1].counter >= target) resolve(frames); else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}); }"""


AXIS_JS = "() => document.querySelector('.scv-explorer .scv-timeline .js-plotly-plot')._fullLayout.xaxis.range.slice()"
TICK_PIXELS = """ticks => { const plot = document.querySelector('.scv-explorer .scv-timeline .js-plotly-plot');
  const box = plot.querySelector('.nsewdrag').getBoundingClientRect(), xa = plot._fullLayout.xaxis;
  return ticks.map(t => box.left + xa.l2p(xa.d2l(t))); }"""
CLICK_TIMELINE = """([x, y]) => { const plot = document.querySelector('.scv-explorer .scv-timeline .js-plotly-plot');
  const drag = plot.querySelector('.nsewdrag'), box = drag.getBoundingClientRect(), xa = plot._fullLayout.xaxis;
  const at = {bubbles: true, clientX: xa.l2p(xa.d2l(x)) + box.left, clientY: box.top + y};
  for (const type of ['mousemove', 'mousedown', 'mouseup', 'click']) drag.dispatchEvent(new MouseEvent(type, at)); }"""


def click_timeline(page, tick: int) -> None:
    """Click the timeline's first row at a tick and wait until the counter shows it. The click comes well after
    any press before it: within plotly's double-click delay (300 ms) it would be a double-click, which resets the
    axes."""
    page.wait_for_timeout(700)
    page.evaluate(CLICK_TIMELINE, [tick, 6])
    wait_text(page, ".scv-explorer .scv-tick", "text.startsWith(arg)", arg=f"tick {tick} gt")
    page.wait_for_function("arg => document.querySelector('.scv-explorer .scv-timeline .scv-cursor').dataset.tick"
                           " === arg", arg=str(tick), timeout=WAIT)


def test_play_shows_every_tick_with_the_views_agreeing_and_the_tick_line_in_view(browser, lab):
    """A timeline click inside the span shown only moves the tick line (the axis stays as the user sees it, a
    zoom of the user's included). Play at 20 gt/s in the page: every tick appears on the counter, the heatmap
    and the timeline, they and the event log's header name the same tick in every frame, the axis is laid out
    once as Play starts, out to the recording's end, and never again while it plays, and the timeline's tick
    line is inside the axis in every frame, with the labels still counted from the press."""
    import json

    url, token, work = lab
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": PLAY_NOTEBOOK}],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (work / "root" / "play.ipynb").write_text(json.dumps(nb))
    with Page(browser, "play") as page:
        open_notebook(page, url, token, "play.ipynb")
        run_all(page)
        wait_figures(page)
        plan = json.loads((work / "root" / "play-plan.json").read_text())
        assert plan["target"] > plan["hi"] + 10, plan
        ex = page.locator(".scv-explorer").first
        wait_drawn(page, ex.locator("canvas").first)
        page.wait_for_function("() => document.querySelector('.scv-explorer .scv-timeline .scv-cursor')"
                               " && document.querySelector('.scv-explorer .scv-timeline .scv-cursor').dataset.tick",
                               timeout=WAIT)
        # the first click on the timeline, inside its span: the axis is kept
        shown = page.evaluate(AXIS_JS)
        assert shown == [plan["lo"] - 0.5, plan["hi"] + 0.5], (shown, plan)
        click_timeline(page, plan["start"] + 3)
        assert page.evaluate(AXIS_JS) == shown
        # a zoom of the user's (a drag along the plot, from the press to 10 ticks on), then clicks inside it: the
        # zoom is kept
        x0, x1 = page.evaluate(TICK_PIXELS, [plan["start"] - 0.4, plan["start"] + 10])
        y = ex.locator(".scv-timeline .nsewdrag").first.bounding_box()["y"] + 8
        page.mouse.move(x0, y)
        page.mouse.down()
        page.mouse.move(x1, y, steps=8)
        page.mouse.up()
        page.wait_for_function("shown => { const r = (" + AXIS_JS + ")(); return r[1] - r[0] < shown[1] - shown[0] }",
                               arg=shown, timeout=WAIT)
        zoomed = page.evaluate(AXIS_JS)
        assert zoomed[0] < plan["start"] < plan["start"] + 9 < zoomed[1] < plan["hi"], (zoomed, plan)
        for tick in (plan["start"] + 7, plan["start"]):
            click_timeline(page, tick)
            assert page.evaluate(AXIS_JS) == zoomed
        page.evaluate(PLAY_SAMPLER, [plan["target"]])
        ex.locator(".widget-play button").nth(0).click()
        frames = page.evaluate("() => window.__playFrames")
        ex.locator(".widget-play button").nth(1).click()  # pause
        ticks = range(plan["start"] + 1, plan["target"] + 1)
        for view in ("counter", "heat", "line"):
            missing = sorted(set(ticks) - {f[view] for f in frames})
            assert not missing, f"{view} never showed ticks {missing}"
        disagree = [f for f in frames if not f["counter"] == f["heat"] == f["line"] == f["log"]]
        assert not disagree, disagree[:5]
        hidden = [f for f in frames if not (f["shown"] and f["inArea"] and f["inRange"])]
        assert not hidden, hidden[:5]
        held = [plan["lo"] - 0.5, plan["end"] + 0.5]  # from the press's span out to the recording's end
        moved = [f for f in frames if f["counter"] > plan["start"] and f["range"] != held]
        assert not moved, (held, moved[:5])
        # the kernel, told the tick the page stopped at, draws the same axis the page widened to
        paused = tick_of(ex.locator(".scv-tick").inner_text())
        deadline = time.monotonic() + WAIT / 1000
        code = ("import json; json.dump({'tick': s.tick, 'range': list(ex.timeline.figure.layout.xaxis.range), "
                "'text': list(ex.timeline.figure.layout.xaxis.ticktext)}, open('play-state.json', 'w'))")
        while True:
            kernel(page, code)
            state = json.loads((work / "root" / "play-state.json").read_text())
            if state["tick"] == paused or time.monotonic() > deadline:
                break
            page.wait_for_timeout(200)
        axis = page.evaluate("() => { const xa = document.querySelector('.scv-explorer .scv-timeline .js-plotly-plot')"
                             "._fullLayout.xaxis; return {range: xa.range, text: xa.ticktext}; }")
        assert state["tick"] == paused and state["range"] == axis["range"], (state, axis)
        assert state["text"] == axis["text"] and "press" in axis["text"], (state, axis)
        assert axis["range"] == held and paused > plan["hi"] + 0.5, (axis, paused, plan)
        header = ex.locator(".scv-eventlog").first.inner_text()
        assert f"Why, at tick {paused} " in header and "in the engine's order" in header, header
        painted(page)
        screenshot(ex, "play.png")


FIGURES_NOTEBOOK = """import ipywidgets as W
from scicraft_viz.views.figures import Figure
figs = [Figure(layout=dict(title=dict(text='before'))) for _ in range(3)]
W.VBox(figs)"""

FIGURES_UPDATE = """import plotly.graph_objects as go
for i, f in enumerate(figs):
    f.add_trace(go.Scatter(x=[0, 1, 2], y=[i, i + 1, i]))
    f.layout.title.text = f'after {i}'"""


# One figure's start-up held past anywidget's limit, as on a page too busy to run its module in time (a figure created
# just after plotly's code was parsed, while the page drew the figures before it): the page's `loadEsm` makes a Blob of
# the figure's module code and imports it; the third such Blob blocks the page for 3 s, so anywidget's 2 s timer for
# that model runs first and the model drops every later message from the kernel (anywidget says nothing of it).
STALL_THIRD_FIGURE = """(() => {
  const Plain = globalThis.Blob;
  let figures = 0;
  globalThis.Blob = class extends Plain {
    constructor(parts, options) {
      super(parts, options);
      const code = parts && typeof parts[0] === 'string' ? parts[0] : '';
      if (code.length < 100000 && code.includes('plotly could not draw the figure') && ++figures === 3) {
        const end = performance.now() + 3000;
        while (performance.now() < end) { /* the page is busy */ }
      }
    }
  };
})()"""


def test_figures_follow_the_kernel_on_a_slow_page(browser, lab):
    """A figure whose model missed anywidget's 2 s start-up limit (the page was busy: a CPU-throttled page showed it
    for the third of three figures made together) still shows the figure the kernel holds and follows it: a trace
    added and a title changed after display are drawn in all three. (Such a model gets no message from the kernel;
    the page notices that it missed the kernel's reply and the kernel sends that figure through plotly's code model.)"""
    import json

    url, token, work = lab
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": FIGURES_NOTEBOOK}],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (work / "root" / "figures.ipynb").write_text(json.dumps(nb))
    with Page(browser, "figures") as page:
        page.add_init_script(script=STALL_THIRD_FIGURE)
        open_notebook(page, url, token, "figures.ipynb")
        run_all(page)
        page.wait_for_function(f"() => {{ const f = ({FIGURES_JS})(); return f.length === 3 && f.every(x => x.drawn"
                               " && x.title === 'before'); }", timeout=SLOW_WAIT, polling=500)
        kernel(page, FIGURES_UPDATE)
        page.wait_for_function(
            f"() => {{ const f = ({FIGURES_JS})(); return f.length === 3 && f.every(x => x.drawn && x.traces === 1"
            " && x.title && x.title.startsWith('after')); }", timeout=SLOW_WAIT, polling=500)
        titles = [f["title"] for f in page.evaluate(FIGURES_JS)]
        assert titles == ["after 0", "after 1", "after 2"], titles


# plotly's code held back by the page until the test lets it go, as on a page where its parse comes late: the
# record the figures share (figures.py, `globalThis.__scvPlotly`) is made first, with a `resolve` that waits
HOLD_PLOTLY = """(() => {
  let release; const gate = new Promise(r => { release = r; });
  let resolve; const loaded = new Promise(r => { resolve = r; });
  globalThis.__scvPlotly = {loaded, started: false, resolve: mod => gate.then(() => resolve(mod))};
  globalThis.__scvReleasePlotly = release;
})()"""

# One timeline shown twice (two views, the second after some updates), updated before and after each display.
LATE_CELLS = [
    """from scicraft_viz.demo import demo_world
from scicraft_viz.views import LampTimeline, Session
s = Session(demo_world())
tl = LampTimeline()
tl""",
    """s.press()
s.step(9)
tl.show(s.trace, presses=s.presses, cursor=9)
tl.unit.value = 'redstone'""",
    "tl",
    """import plotly.graph_objects as go
tl.set_budgets({(1, 4, 2): ('3 rt', 'three')})
tl.set_selected((3, 4, 2))
tl.move_cursor(5)
s.step(7)
tl.show(s.trace, presses=s.presses, cursor=16)
tl.figure.add_trace(go.Scatter(x=[0, 8], y=[0, 3], yaxis='y2', name='extra'))
tl.figure.layout.title.text = 'late: ' + tl.figure.layout.title.text""",
]

# the kernel's figure, and the same read from every timeline plotly drew in the page (its data, the cells as
# plotly computed them for drawing, and the row labels as written on the page)
TIMELINE_KERNEL = """import json
import numpy as np
f, lay = tl.figure, tl.figure.layout
json.dump({'traces': len(f.data), 'z': np.asarray(f.data[0].z).tolist(), 'y': list(f.data[0].y),
           'x': np.asarray(f.data[0].x, float).tolist(), 'labels': list(lay.yaxis.ticktext), 'title': lay.title.text,
           'xrange': list(lay.xaxis.range), 'selected': list(f.data[5].y),
           'cursor': list(f.data[6].x), 'extra': [list(d.y) for d in f.data[7:]]},
          open('late-kernel.json', 'w'))"""
TIMELINE_PAGE = """() => Array.from(document.querySelectorAll('.scv-timeline .js-plotly-plot')).map(gd => {
  if (!gd._fullLayout || !gd.calcdata || !gd.data || gd.data.length < 7) return null;
  const hm = gd.data[0];
  const list = a => Array.from(a || []), cells = z => list(z).map(list);
  return {traces: gd.data.length, z: cells(hm.z), drawn: cells(gd.calcdata[0][0].z), y: list(hm.y),
          x: list(hm.x).map(Number), labels: Array.from(gd.querySelectorAll('.ytick text'), t => t.textContent),
          title: gd.layout.title.text, xrange: gd.layout.xaxis.range, selected: list(gd.data[5].y),
          cursor: list(gd.data[6].x), extra: gd.data.slice(7).map(d => list(d.y))};
})"""


def test_a_timeline_drawn_after_plotly_loads_late_shows_the_kernels_cells_and_labels(browser, lab):
    """Figures shown, and then changed by the kernel (batch updates of the heatmap's cells and row labels, restyles,
    relayouts, an added trace), while plotly's code is not loaded yet are drawn, once it is, as the kernel holds
    them: every view's cells (lit or dark, as plotly computed them to draw), row labels, axis, overlays and title.
    Both views of the one figure, the first made before any update and the second midway; and after that, updates
    as usual still reach both. (Earlier, the cells and labels sent while plotly loaded were lost: the views drew
    the figure as it was when last displayed.)"""
    import json

    url, token, work = lab
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": c}
                    for c in LATE_CELLS],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (work / "root" / "late.ipynb").write_text(json.dumps(nb))

    def matches() -> tuple[dict, list]:
        kernel(page, TIMELINE_KERNEL)
        want = json.loads((work / "root" / "late-kernel.json").read_text())
        want["drawn"] = want["z"]
        deadline = time.monotonic() + WAIT / 1000
        while True:
            views = page.evaluate(TIMELINE_PAGE)
            if (len(views) == 2 and all(v == want for v in views)) or time.monotonic() > deadline:
                return want, views
            page.wait_for_timeout(250)

    kept = Page(browser, "late")
    with kept as page:
        page.add_init_script(script=HOLD_PLOTLY)
        open_notebook(page, url, token, "late.ipynb")
        run_all(page)
        assert page.evaluate("() => document.querySelectorAll('.js-plotly-plot').length") == 0  # plotly held back
        page.evaluate("() => globalThis.__scvReleasePlotly()")
        want, views = matches()
        assert len(views) == 2, views
        assert {v for row in want["z"] for v in row} == {0, 1}, want  # lit and dark cells
        assert any("3 rt" in label for label in want["labels"]) and want["title"].startswith("late: "), want
        assert want["cursor"] == [8, 8] and len(want["extra"]) == 1, want
        for v in views:
            assert v == want, (v, want)
        # updates after plotly loaded reach every view as before
        ticks = len(want["z"][0])
        kernel(page, "s.step(5)\ntl.show(s.trace, presses=s.presses, cursor=s.tick)\ntl.set_budgets(None)\n"
                     "tl.figure.data[7].y = [3, 1]")
        want, views = matches()
        assert len(want["z"][0]) == ticks + 5 and not any("3 rt" in label for label in want["labels"]), want
        for v in views:
            assert v == want, (v, want)
        failed = [c for c in kept.console if "Failed to initialize model" in c or "could not draw" in c]
        assert not failed, failed


TWO_TABS_NOTEBOOK = """from scicraft_viz.demo import demo_world
from scicraft_viz.views import Explorer
ex = Explorer(world=demo_world())
ex"""


def test_two_tabs_on_one_kernel_show_the_same_tick(browser, lab):
    """The same notebook open in two tabs (one kernel, the widgets shown twice): a press and steps in the first
    tab show in the second, a Back in the second shows in the first; counter, heatmap and timeline line agree."""
    import json

    url, token, work = lab
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": TWO_TABS_NOTEBOOK}],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (work / "root" / "two-tabs.ipynb").write_text(json.dumps(nb))
    with Page(browser, "tab-a") as a, Page(browser, "tab-b") as b:
        open_notebook(a, url, token, "two-tabs.ipynb")
        run_all(a)
        wait_text(a, ".scv-explorer .scv-tick", "text.startsWith('tick 0 gt')")
        # saved with its outputs, so that the second tab shows the same widgets of the same kernel
        a.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        a.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=WAIT)
        b.goto(f"{url}/lab/workspaces/two-tabs-b/tree/two-tabs.ipynb?token={token}", timeout=SLOW_WAIT)
        wait_text(b, ".scv-explorer .scv-tick", "text.startsWith('tick 0 gt')", timeout=SLOW_WAIT)
        wait_figures(b)
        ea, eb = a.locator(".scv-explorer").first, b.locator(".scv-explorer").first
        ea.get_by_role("button", name="Press button").click()
        wait_text(a, ".scv-explorer .scv-tick", "text.includes('press +0 gt')")
        for k in range(1, 4):
            ea.locator("button", has_text="Step").first.click()
            wait_text(a, ".scv-explorer .scv-tick", "text.startsWith(arg)", arg=f"tick {k} gt")
        live = "tick 3 gt · 1.5 rt · press +3 gt (+1.5 rt) · live"
        assert wait_text(b, ".scv-explorer .scv-tick", "text === arg", arg=live) == live
        eb.locator("button", has_text="Back").first.click()
        for page in (a, b):
            shown = wait_text(page, ".scv-explorer .scv-tick", "text.startsWith('tick 2 gt')")
            assert shown == "tick 2 gt · 1 rt · press +2 gt (+1 rt) · replaying 0..3", shown
            page.wait_for_function("() => document.querySelector('.scv-explorer .scv-heatmap .gtitle').textContent"
                                   " === 'dust power on layer y=4 · tick 2 gt'", timeout=WAIT)
            page.wait_for_function("() => document.querySelector('.scv-explorer .scv-timeline .scv-cursor')"
                                   ".dataset.tick === '2'", timeout=WAIT)
        # the kernel hears of the tick the page shows (asynchronously): wait for it
        deadline = time.monotonic() + WAIT / 1000
        while (held := kernel_output(a, "print(ex.session.tick)")) != "2\n" and time.monotonic() < deadline:
            a.wait_for_timeout(200)
        assert held == "2\n", held
        assert_fits(b)
