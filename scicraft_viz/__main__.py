from scicraft_viz.cli import run

run()
