from scicraft_viz.cli import app

app(prog_name="scicraft-viz")
