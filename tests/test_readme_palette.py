"""The README's palette section lists exactly the engine's palette, with its count."""

import re
from pathlib import Path

from scicraft_viz.engine.blocks import PALETTE, VANILLA

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_the_readme_lists_every_palette_block_and_counts_them():
    section = README.split("## The palette", 1)[1].split("\n## ", 1)[0]
    listed = section.split(":\n\n", 1)[1].split(".\n\n", 1)[0]
    names = set(re.findall(r"`([a-z_]+)`", listed))
    assert names == set(PALETTE) - {"air"}
    assert f"{len(names)} blocks besides\nair" in section or f"{len(names)} blocks besides air" in section
    assert f"Besides these, {len(VANILLA)} of vanilla's" in section
    intro = README.split("## Two commands", 1)[0]
    assert f"{len(names)} blocks besides air" in intro.replace("\n", " ")
