"""Command-line interface: a thin layer over the core API."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from scicraft_viz.tasks import Task

app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="scicraft_viz: redstone simulator and SciCrafter tools"
)


@app.callback()
def main() -> None:
    """scicraft_viz: a tick-exact redstone simulator, SciCrafter tasks and their views."""


@app.command()
def demo(ticks: int = typer.Option(40, min=0, max=100_000, help="game ticks to record after the button press "
                                    "(0-100,000)")) -> None:
    """Build a 4-lamp circuit, press its button and print the lamp timeline."""
    from scicraft_viz.demo import run_demo

    typer.echo(run_demo(ticks))


@app.command()
def warmup() -> None:
    """Compile the redstone engine's numba kernels now and keep them in numba's cache (about a minute, once).

    Without it the first use of the engine after installing compiles what it needs as it goes (the first
    set_block about 20 s, the first record about 25 s more). binder/postBuild runs this."""
    import os

    from scicraft_viz.tasks.warmup import warmup as warm

    if os.environ.get("SCICRAFT_NOJIT") == "1":
        _fail_input("SCICRAFT_NOJIT=1 is set: the kernels run as plain Python, there is nothing to compile")
        return
    seconds = warm(progress=lambda text: typer.echo(f"warmup: {text}", err=True))
    typer.echo(f"the engine's kernels are compiled and cached ({seconds:.1f} s)")


# --trials-used: far above any budget (MAX_BUDGET is 1,000); bounds the numbers a report prints
MAX_TRIALS_USED = 1_000_000

# Set by run(): this process is the `scicraft-viz` program's own, not a caller's (a test, a notebook).
_OWN_PROCESS = False
# One build up to this size, for a task that records up to this many game ticks, is evaluated by the
# plain-Python kernels in the program's own process (every canonical task records under 500).
PYTHON_ENGINE_MAX_BUILD_BYTES = 64 * 1024
PYTHON_ENGINE_MAX_TICKS = 2000


def run() -> None:
    """The `scicraft-viz` program (console script and `python -m scicraft_viz`)."""
    global _OWN_PROCESS
    _OWN_PROCESS = True
    app(prog_name="scicraft-viz")


def _engine_for_one_build(path: str, task: Task) -> None:
    """A fresh process that evaluates one build of usual size runs the kernels as plain Python: they
    give the verdict in about half the time, because starting the compiled engine (numba) costs more
    than the whole simulation. SCICRAFT_NOJIT=0 keeps the compiled engine."""
    import os
    import sys

    if not _OWN_PROCESS or "scicraft_viz.engine.kernels" in sys.modules:
        return
    if task.settle_game_ticks + task.record_game_ticks > PYTHON_ENGINE_MAX_TICKS:
        return
    try:
        small = os.path.getsize(path) <= PYTHON_ENGINE_MAX_BUILD_BYTES
    except OSError:
        return
    if small:
        os.environ.setdefault("SCICRAFT_NOJIT", "1")


def _start_engine_lean() -> None:
    """Start numba without SciPy's BLAS. When numba starts its compiler it checks for linear algebra
    by importing scipy.linalg (about 0.3 s); the engine's kernels use none, and a command's process
    runs nothing else. Done before the engine loads; afterwards SciPy imports as usual."""
    import os
    import sys

    if os.environ.get("SCICRAFT_NOJIT") == "1" or "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    sys.modules["scipy.linalg.cython_blas"] = None  # type: ignore[assignment]  # its import now fails fast
    try:
        import numba.np.arraymath  # noqa: F401  # records "no BLAS" once, for this process
    except ImportError:
        pass
    finally:
        if sys.modules.get("scipy.linalg.cython_blas", 0) is None:
            del sys.modules["scipy.linalg.cython_blas"]


def _fail_input(message: str) -> None:
    """Unusable input: a one-line reason on stderr and exit code 2 (no traceback)."""
    from scicraft_viz.safeio import shown

    lines = [ln for ln in str(message).split("\n") if ln.strip()] or ["unknown error"]
    more = f" (and {len(lines) - 1} more problem(s))" if len(lines) > 1 else ""
    typer.echo(f"error: {shown(lines[0])}{more}", err=True)  # whatever the message quotes, one line
    raise typer.Exit(2)


_EVALUATE_HELP = (
    "Press the build's button, record the trace and check the task's contract and constraints.\n\n"
    "One build file: its full report (--json: the result as one JSON document). Several files or directories "
    "(every .mcfunction, .litematic and .schem file under them): one line per build, in order: PASS, FAIL with "
    "the failed checks, or ERROR with why the build is unusable (--json: one JSON object per line). --jobs N or "
    "--scheduler ADDRESS evaluates them in parallel with Dask.\n\n"
    "Exit code: 2 if the task or any build is unusable input, else 1 if any build fails, else 0."
)


@app.command("evaluate", help=_EVALUATE_HELP)
def evaluate_command(
    task: Annotated[str, typer.Argument(help="task id (see 'scicraft-viz tasks') or path to a task YAML file")],
    builds: Annotated[list[str], typer.Argument(
        help="build files (.mcfunction 'setblock X Y Z STATE' lines, .litematic, .schem) or directories of them"
    )],
    json_output: bool = typer.Option(False, "--json", help="print the full result as JSON"),
    trials_used: int = typer.Option(
        0, "--trials-used", min=0, help="verification trials (button presses) already used in this attempt"
    ),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="evaluate many builds in this many local processes "
                             "(at most 4 per CPU)"),
    scheduler: str = typer.Option(
        None, "--scheduler", help="evaluate many builds on the Dask cluster at this address, tcp://HOST:PORT; "
        "refused unless it answers with a Dask handshake within 5 s"
    ),
) -> None:
    """Evaluate builds against a task (help text: _EVALUATE_HELP)."""
    from pathlib import Path

    from scicraft_viz.safeio import json_text
    from scicraft_viz.tasks import TaskError, load
    from scicraft_viz.tasks.evaluator import BuildError, evaluate_file

    try:
        from scicraft_viz.tasks import batch

        # options are checked before anything is read, whichever way the builds are then evaluated
        batch.check_jobs(jobs)
        if scheduler is not None:  # inproc:// only from a caller's process, which may hold such a scheduler
            scheduler = batch.check_scheduler_address(scheduler, in_process=not _OWN_PROCESS)
        if trials_used > MAX_TRIALS_USED:
            raise ValueError(f"--trials-used must be at most {MAX_TRIALS_USED:,}, got {trials_used}")
        t = load(task)
    except (TaskError, ValueError, OSError) as e:
        _fail_input(str(e))
        return
    one = len(builds) == 1 and not Path(builds[0]).is_dir()
    if one:
        _engine_for_one_build(builds[0], t)
    _start_engine_lean()
    if one:
        try:
            result = evaluate_file(t, builds[0], trials_used=trials_used)
        except (BuildError, ValueError, OSError) as e:
            _fail_input(str(e))
            return
        typer.echo(json_text(result.to_dict(), indent=2) if json_output else result.report())
        raise typer.Exit(0 if result.passed else 1)

    from itertools import chain

    from scicraft_viz.safeio import shown

    files = batch.build_items(builds)
    first = next(files, None)
    if first is None:
        _fail_input(f"no build files ({', '.join(batch.BUILD_SUFFIXES)}) in {shown(', '.join(builds), 200)}")
        return
    render = batch.coded_json if json_output else batch.coded_line
    seen = {0: 0, 1: 0, 2: 0}  # builds by exit code
    try:
        for code, line in batch.evaluate_files(t, chain([first], files), jobs=jobs, scheduler=scheduler,
                                               render=render, trials_used=trials_used):
            seen[code] += 1
            typer.echo(line)
    except (ConnectionError, ValueError) as e:  # the cluster could not be used: one line naming its address
        _fail_input(str(e))
        return
    raise typer.Exit(2 if seen[2] else 1 if seen[1] else 0)


@app.command("convert")
def convert_command(
    src: str = typer.Argument(..., help="build file to read: .mcfunction, .litematic, .schem, structure .nbt or "
                              ".snbt, or (read only) MCEdit .schematic, Bedrock .mcstructure or a world's region file "
                              ".mca with --box"),
    dst: str = typer.Argument(..., help="file to write; its extension (.mcfunction, .litematic, .schem, .nbt, .snbt) "
                              "is the format"),
    schem_version: int = typer.Option(3, "--schem-version", help="Sponge schematic version to write: 3, or 2 for "
                                      "WorldEdit before 7.3"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace DST if it exists"),
    skip_unsupported: bool = typer.Option(False, "--skip-unsupported", help="leave out blocks (and entities) the "
                                          "engine does not know, listing them on stderr, instead of refusing SRC"),
    box: str = typer.Option(None, "--box", help="for a world's region file (.mca): the box to read, "
                            "x0,y0,z0,x1,y1,z1 in world coordinates, both corners included"),
) -> None:
    """Convert a build between .mcfunction, Litematica .litematic, Sponge .schem and vanilla structure .nbt and
    .snbt files (vanilla block ids), or from an MCEdit .schematic (legacy numeric ids, translated), a Bedrock
    .mcstructure (Bedrock block states, translated) or a box of a Java world's region file (.mca, Minecraft 1.18+).

    Exit code 0 when written, 2 for unusable input (unreadable file, block outside the palette, ...)."""
    import warnings
    from pathlib import Path

    from scicraft_viz.engine import formats

    if schem_version not in (2, 3):
        _fail_input(f"--schem-version must be 2 or 3, got {schem_version}")
        return
    from scicraft_viz.safeio import shown

    if (Path(dst).exists() or Path(dst).is_symlink()) and not overwrite:
        _fail_input(f"{shown(dst)} exists; pass --overwrite to replace it")
        return
    try:
        # written beside dst and renamed over it once complete: a failure leaves dst as it was
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", formats.UnsupportedBlocksWarning)
            warnings.simplefilter("always", formats.IgnoredPropertiesWarning)
            from scicraft_viz.engine.region import parse_box

            n = formats.convert(src, dst, schem_version=schem_version, overwrite=overwrite,
                                skip_unsupported=skip_unsupported, box=None if box is None else parse_box(box))
        for w in caught:
            if issubclass(w.category, (formats.UnsupportedBlocksWarning, formats.IgnoredPropertiesWarning)):
                typer.echo(f"warning: {w.message}", err=True)
    except (ValueError, OSError) as e:
        _fail_input(str(e))
        return
    typer.echo(f"wrote {n} blocks to {shown(dst)}")


@app.command("gametest")
def gametest_command(
    src: str = typer.Argument(..., help="build file holding test blocks: a block-based game test's structure (.nbt, "
                              ".snbt, .litematic, .schem, ...)"),
    max_ticks: int = typer.Option(100, "--max-ticks", help="the test instance's max_ticks: the test times out after "
                                  "this many ticks"),
    setup_ticks: int = typer.Option(0, "--setup-ticks", help="the test instance's setup_ticks: game ticks the world "
                                    "runs before the test starts"),
    skip_unsupported: bool = typer.Option(False, "--skip-unsupported", help="leave out blocks the engine does not "
                                          "know, listing them on stderr, instead of refusing SRC"),
) -> None:
    """Run a build as vanilla runs a block-based game test (Java 1.21.5+): trigger its start block, then look at its
    accept, fail and log blocks every game tick (docs/redstone.md sections 64-66). Prints the outcome, the tick and
    the deciding block, and every logged message.

    Exit code 0 when the test passes, 1 when it fails or times out, 2 for unusable input."""
    import warnings

    from scicraft_viz.engine import formats
    from scicraft_viz.engine.gametest import run_game_test

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", formats.UnsupportedBlocksWarning)
            result = run_game_test(src, max_ticks, setup_ticks=setup_ticks, skip_unsupported=skip_unsupported)
        for w in caught:
            if issubclass(w.category, formats.UnsupportedBlocksWarning):
                typer.echo(f"warning: {w.message}", err=True)
    except (ValueError, OSError) as e:
        _fail_input(str(e))
        return
    typer.echo(result.describe())
    raise typer.Exit(0 if result.passed else 1)


@app.command("tasks")
def tasks_command(json_output: bool = typer.Option(False, "--json", help="print the tasks as JSON")) -> None:
    """List the SciCrafter tasks with their level parameters.

    A task file that cannot be loaded is reported on stderr after the others are listed; the exit code is
    then 2."""
    from scicraft_viz.tasks import TaskError, load_by_id, task_ids

    rows, bad = [], []
    for tid in task_ids():
        try:
            t = load_by_id(tid)
        except TaskError as e:
            bad.append(str(e))
            continue
        rows.append({"task_id": t.id, "family": t.family, "level": t.level, "contract": t.contract_type,
                     "parameters": t.parameters(), "relaxation": t.relaxation})
    if json_output:
        from scicraft_viz.safeio import json_text

        typer.echo(json_text(rows, indent=2))
    else:
        _print_task_rows(rows)
    for message in bad:
        lines = [ln for ln in message.splitlines() if ln.strip()] or ["unknown error"]
        more = f" (and {len(lines) - 1} more problem(s))" if len(lines) > 1 else ""
        typer.echo(f"error: {lines[0]}{more}", err=True)
    if bad:
        typer.echo(f"error: {len(bad)} of {len(rows) + len(bad)} task files could not be loaded", err=True)
        raise typer.Exit(2)


def _print_task_rows(rows: list[dict]) -> None:
    for r in rows:
        p = dict(r["parameters"])
        n = p.pop("N")
        unit = p.pop("tick_unit")
        relaxed = p.pop("relaxed", None)
        parts = []
        for k, v in p.items():
            if isinstance(v, list) and len(v) > 8:
                v = f"[{', '.join(map(str, v[:4]))}, ...] ({len(v)})"
            parts.append(f"{k}={v}")
        line = f"{r['task_id']:<32} N={n:<3} {r['contract']:<13} {' '.join(parts)} ({unit})"
        if relaxed:
            line += f" [relaxed: {relaxed}]"
        typer.echo(line)


@app.command("serve-mcp")
def serve_mcp_command(
    task: str = typer.Option(..., "--task", help="task id (see 'scicraft-viz tasks') or path to a task YAML file"),
    trajectory: str = typer.Option(
        None, "--trajectory", help="trajectory file to write, or a directory for a new file in it [default: runs/, "
        "created if missing; a path given here may lack only its last directory]"
    ),
    transport: str = typer.Option("stdio", "--transport", help="stdio, or streamable-http (on 127.0.0.1 only)"),
    port: int = typer.Option(8765, "--port", min=1, max=65535, help="port for --transport streamable-http"),
    actor_kind: str = typer.Option("model", "--actor-kind", help="who acts: model, human or script"),
    actor_name: str = typer.Option(None, "--actor-name", help="recorded in the trajectory header, e.g. the model"),
    budget: int = typer.Option(None, "--budget", help="verification trials [default: the task's, 50]"),
    ticks_per_action: int = typer.Option(20, "--ticks-per-action", min=0, help="game ticks each set-block lets pass"),
    observe_ticks: int = typer.Option(
        None, "--observe-ticks", min=1, help="game ticks a trial observes [default: the task's recording length]"
    ),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace an existing trajectory file"),
    condition: str = typer.Option(
        "baseline", "--condition",
        help="baseline (task and contract), hint (+ the hint), scientist (+ a scientist sub-agent) or hint+scientist",
    ),
    setting: str = typer.Option(
        "independent", "--setting", help="independent, or curriculum (the knowledge book carries from level to level)"
    ),
    consolidation: str = typer.Option(
        "cpce", "--consolidation", help="the knowledge book's format: summary, fee or cpce"
    ),
    book: str = typer.Option(
        None, "--book", help="a Markdown file: the knowledge book to start with (a curriculum's previous level)"
    ),
    observation: str = typer.Option(
        "text", "--observation",
        help="text (block lists), image (render-view pictures in place of scan-redstone-area) or both",
    ),
    rules: str = typer.Option(
        None, "--rules", help="the ruleset to run under, never told to the agent: a listed variant (see "
        "docs/redstone.md) or random:SEED [default: the task's, vanilla]; recorded in the trajectory header",
    ),
) -> None:
    """Serve the task's environment over the Model Context Protocol, recording every call.

    Tools: set-block, get-block-state, get-event-stream, scan-redstone-area, activate-button, submit; where the
    protocol keeps a knowledge book, read-knowledge-book and update-knowledge-book (and the resource
    scicraft://knowledge-book); under a scientist condition, ask-scientist, archive-experiment-report and
    end-experiment (and the prompt 'scientist'); with --observation image or both, render-view (a PNG of the build
    as image content; image drops scan-redstone-area)."""
    from scicraft_viz.env import mcp_server
    from scicraft_viz.tasks import TaskError, load

    if transport not in mcp_server.TRANSPORTS:
        _fail_input(f"unknown transport {transport!r}; choose {' or '.join(mcp_server.TRANSPORTS)}")
        return
    try:
        t = load(task)
        if rules is not None:
            from scicraft_viz.engine.rules import ruleset_from

            t = t.with_rules(ruleset_from(rules, "--rules"))
        if transport != "stdio":
            mcp_server.check_port(port)
        if trajectory is None:  # the default folder runs/ is created on first use, with its parents
            from scicraft_viz.paths import default_runs_dir

            trajectory = str(default_runs_dir()) + "/"
        book_text = mcp_server.read_book_file(book) if book else ""
        env = mcp_server.open_env(t, trajectory, actor_kind=actor_kind, actor_name=actor_name, budget=budget,
                                  ticks_per_action=ticks_per_action, observe_ticks=observe_ticks, overwrite=overwrite,
                                  condition=condition, setting=setting, consolidation=consolidation, book=book_text,
                                  observation=observation)
    except (TaskError, ValueError, OSError) as e:
        _fail_input(str(e))
        return
    where = "stdio" if transport == "stdio" else f"http://{mcp_server.HTTP_HOST}:{port}/mcp"
    from scicraft_viz.safeio import shown

    mcp_server.log(f"task {t.id}, {env.condition} condition, {env.setting} setting, {env.budget} trials, serving on "
                   f"{where}, recording to "
                   f"{shown(env.recorder.path.resolve())}")
    try:
        # the engine starts after `initialize` is answered
        mcp_server.serve(env, transport, port, prepare=_start_engine_lean)
    except KeyboardInterrupt:
        pass
    except OSError as e:  # the port is taken, the pipe broke: one line, no traceback
        _fail_input(f"the server stopped: {e.strerror or e}")


@app.command("import-inspect")
def import_inspect_command(
    log: str = typer.Argument(..., help="an Inspect log file (.eval or .json)"),
    out: str = typer.Option(None, "--out", help="directory for the trajectories [default: runs/inspect-import, "
                            "created if missing]"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace existing trajectory files"),
) -> None:
    """Convert an Inspect log's SciCrafter samples into trajectories (one per sample and epoch).

    Each sample's tool calls are fed to a fresh environment, so the trajectory replays exactly."""
    try:
        from scicraft_viz.experiments.inspect_task import import_log
    except ImportError:
        _fail_input("import-inspect needs Inspect AI: pip install 'scicraft_viz[inspect]'")
        return
    try:
        if out is None:
            from scicraft_viz.paths import default_runs_dir

            out = str(default_runs_dir("inspect-import"))
        paths = import_log(log, out, overwrite=overwrite)
    except (ValueError, OSError) as e:
        _fail_input(str(e))
        return
    if not paths:
        _fail_input(f"{log} has no sample of a SciCrafter task")
        return
    for p in paths:
        typer.echo(str(p))


@app.command("report")
def report_command(
    runs: str = typer.Argument(..., help="a directory of trajectories (searched recursively), or one file"),
    out: str = typer.Option(
        None, "--out", help="a folder (existing, or ending in /), a file for a single format (report.html), or a "
        "file stem: <stem>.html, <stem>.json, <stem>.<table>.csv [default: report]"),
    fmt: str = typer.Option("html", "--format", help="html, csv, json, or several comma-separated (csv,json)"),
    setting: str = typer.Option(
        "curriculum", "--setting", help="the setting of Tables 1 and 2: curriculum (the paper's) or independent"),
    jobs: int = typer.Option(1, "--jobs", min=1, help="worker processes for the replays"),
    cache: str = typer.Option(
        None, "--cache", help="folder of cached results by file content [default: $XDG_CACHE_HOME/scicraft_viz/"
        "report, else ~/.cache/scicraft_viz/report]"),
    no_cache: bool = typer.Option(False, "--no-cache", help="re-score every run, reading and writing no cache"),
) -> None:
    """The paper's tables (1, 2, 6, 7-10, the failure modes of Table 11) and more, re-scored by replaying
    every run. Prints Tables 1, 2 and 6 and the runs left out; writes HTML, CSV and/or JSON.

    Exit code 0 whenever the output was written, whatever the runs held (bad runs are listed in it);
    2 when the runs folder or an option is unusable or the output cannot be written."""
    from scicraft_viz.experiments import report

    try:
        formats = report.parse_formats(fmt)
        res = report.write_report(runs, out, formats=formats, setting=setting, jobs=jobs,
                                  cache=None if no_cache else (cache or report.default_cache_dir()))
    except (ValueError, OSError) as e:
        _fail_input(str(e))
        return
    except Exception as e:  # a bug must not hide behind a traceback; nothing usable was written
        _fail_input(f"the report could not be made: {type(e).__name__}: {e}")
        return
    _print_report_summary(res)


def _print_report_summary(res) -> None:
    """Tables 1, 2 and 6 as text, the runs left out, and what was written."""
    from scicraft_viz.experiments import report

    for name in ("table1", "table2", "table6"):
        typer.echo(report.render_text(res.tables[name]) + "\n")
    left = [r for r in res.runs if not r.counted]
    for r in left[:20]:
        typer.echo(f"left out ({r.status}): {r.reason or r.source}")
    if len(left) > 20:
        typer.echo(f"... and {len(left) - 20} more left out (see the excluded table)")
    csvs = [p for p in res.written if p.suffix == ".csv"]
    shown = [str(p) for p in res.written if p.suffix != ".csv"]
    if csvs:
        stem = csvs[0].name.removesuffix(f".{report.ORDER[0]}.csv")
        shown.append(f"{csvs[0].parent / stem}.<table>.csv ({len(csvs)} tables)")
    n = len(res.runs) - len(left)
    typer.echo(f"{n} run(s) counted, {len(left)} left out -> {', '.join(shown)}")


@app.command("lab")
def lab_command(
    notebook: str = typer.Argument("quickstart", help="a notebook of notebooks/ (quickstart, redstone_course, "
                                   "task_walkthrough, replay, annotator) or a path to one"),
    port: int = typer.Option(None, "--port", help="the server's port (default: JupyterLab's own choice, from 8888)"),
    no_browser: bool = typer.Option(False, "--no-browser", help="start the server without opening a browser"),
    print_only: bool = typer.Option(False, "--print", help="print the command instead of running it"),
) -> None:
    """Open JupyterLab on a notebook (the quickstart by default); adds --allow-root when run as root.

    Prints the address that opens the notebook (with its token) once the server answers. Ctrl-C or
    SIGTERM stops the server and its kernels."""
    import shlex

    from scicraft_viz.views import launch

    try:
        path = launch.notebook_path(notebook)
        cmd = launch.lab_command(notebook, port=port) + (["--no-browser"] if no_browser else [])
    except FileNotFoundError as e:
        _fail_input(str(e))
        return
    if print_only:
        typer.echo(shlex.join(cmd))
        return
    raise typer.Exit(launch.run_lab(cmd, launch.notebook_url_path(path)))
