"""Command-line interface: a thin layer over the core API."""

from __future__ import annotations

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="scicraft_viz: redstone simulator and SciCrafter tools")


@app.command()
def demo(ticks: int = typer.Option(40, help="game ticks to record after the button press")) -> None:
    """Build a 4-lamp circuit, press its button and print the lamp timeline."""
    from scicraft_viz.demo import run_demo

    typer.echo(run_demo(ticks))
