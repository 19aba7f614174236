"""Command-line interface: a thin layer over the core API."""

from __future__ import annotations

import typer

app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="scicraft_viz: redstone simulator and SciCrafter tools"
)


@app.callback()
def main() -> None:
    """scicraft_viz: a tick-exact redstone simulator, SciCrafter tasks and their views."""


@app.command()
def demo(ticks: int = typer.Option(40, help="game ticks to record after the button press")) -> None:
    """Build a 4-lamp circuit, press its button and print the lamp timeline."""
    from scicraft_viz.demo import run_demo

    typer.echo(run_demo(ticks))


def _fail_input(message: str) -> None:
    """Unusable input: a one-line reason on stderr and exit code 2 (no traceback)."""
    lines = [ln for ln in str(message).splitlines() if ln.strip()] or ["unknown error"]
    more = f" (and {len(lines) - 1} more problem(s))" if len(lines) > 1 else ""
    typer.echo(f"error: {lines[0]}{more}", err=True)
    raise typer.Exit(2)


@app.command("evaluate")
def evaluate_command(
    task: str = typer.Argument(..., help="task id (see 'scicraft-viz tasks') or path to a task YAML file"),
    build: str = typer.Argument(..., help=".mcfunction build file: 'setblock X Y Z STATE' lines, # comments"),
    json_output: bool = typer.Option(False, "--json", help="print the full result as JSON"),
    trials_used: int = typer.Option(
        0, "--trials-used", min=0, help="verification trials (button presses) already used in this attempt"
    ),
) -> None:
    """Press the build's button, record the trace and check the task's contract and constraints.

    Exit code 0 when every check passes, 1 when one fails, 2 for unusable input."""
    import json

    from scicraft_viz.tasks import TaskError, load
    from scicraft_viz.tasks.evaluator import BuildError, evaluate_file

    try:
        t = load(task)
        result = evaluate_file(t, build, trials_used=trials_used)
    except (TaskError, BuildError, ValueError, OSError) as e:
        _fail_input(str(e))
        return
    if json_output:
        typer.echo(json.dumps(result.to_dict(), indent=2))
    else:
        typer.echo(result.report())
    raise typer.Exit(0 if result.passed else 1)


@app.command("tasks")
def tasks_command(json_output: bool = typer.Option(False, "--json", help="print the tasks as JSON")) -> None:
    """List the SciCrafter tasks with their level parameters."""
    import json

    from scicraft_viz.tasks import TaskError, load, task_ids

    rows = []
    try:
        for tid in task_ids():
            t = load(tid)
            rows.append({"task_id": t.id, "family": t.family, "level": t.level, "contract": t.contract_type,
                         "parameters": t.parameters(), "relaxation": t.relaxation})
    except TaskError as e:
        _fail_input(str(e))
        return
    if json_output:
        typer.echo(json.dumps(rows, indent=2))
        return
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
        None, "--trajectory", help="trajectory file to write, or a directory for a new file in it [default: runs/]"
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
) -> None:
    """Serve the task's environment over the Model Context Protocol, recording every call.

    Tools: set-block, get-block-state, get-event-stream, scan-redstone-area, activate-button, submit."""
    from scicraft_viz.agents import mcp_server
    from scicraft_viz.tasks import TaskError, load

    if transport not in mcp_server.TRANSPORTS:
        _fail_input(f"unknown transport {transport!r}; choose {' or '.join(mcp_server.TRANSPORTS)}")
        return
    try:
        t = load(task)
        if transport != "stdio":
            mcp_server.check_port(port)
        env = mcp_server.open_env(t, trajectory, actor_kind=actor_kind, actor_name=actor_name, budget=budget,
                                  ticks_per_action=ticks_per_action, observe_ticks=observe_ticks, overwrite=overwrite)
    except (TaskError, ValueError, OSError) as e:
        _fail_input(str(e))
        return
    where = "stdio" if transport == "stdio" else f"http://{mcp_server.HTTP_HOST}:{port}/mcp"
    mcp_server.log(f"task {t.id}, {env.budget} trials, serving on {where}, recording to {env.recorder.path.resolve()}")
    try:
        mcp_server.serve(env, transport, port)
    except KeyboardInterrupt:
        pass
    except OSError as e:  # the port is taken, the pipe broke: one line, no traceback
        _fail_input(f"the server stopped: {e.strerror or e}")
