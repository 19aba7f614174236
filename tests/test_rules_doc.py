"""docs/redstone.md: every rule names tests that exist and a course section that exists."""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "redstone.md").read_text(encoding="utf-8")


def _sections():
    parts = re.split(r"^## ", DOC, flags=re.M)[1:]
    return [(p.splitlines()[0], p) for p in parts]


def _test_names():
    names = set()
    for f in (ROOT / "tests").glob("test_*.py"):
        names |= set(re.findall(r"^def (test_\w+)", f.read_text(encoding="utf-8"), flags=re.M))
    return names


def _course_headings():
    nb = json.loads((ROOT / "notebooks" / "redstone_course.ipynb").read_text(encoding="utf-8"))
    out = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            out |= {line[3:].strip() for line in "".join(cell["source"]).splitlines() if line.startswith("## ")}
    return out


def test_every_rule_links_existing_tests_in_their_files():
    defined = _test_names()
    sections = _sections()
    assert len(sections) == 101
    for title, body in sections:
        cited = re.findall(r"`(test_\w+)`", body)
        assert cited, title
        assert not set(cited) - defined, (title, set(cited) - defined)
        for f in re.findall(r"\]\(\.\./(tests/test_\w+\.py)\)", body):
            assert (ROOT / f).is_file(), f


def test_every_rule_names_its_course_section():
    headings = _course_headings()
    cited = set()
    for title, body in _sections():
        course = body.split("- Course:", 1)[1]
        for name in re.findall(r"section \*(.+?)\*", course, flags=re.S):
            name = " ".join(name.split())
            assert name in headings, (title, name)
            cited.add(name)
    assert cited == headings - {""}  # every experiment of the course is the home of some rule


def test_docs_and_code_cite_the_rules_file_in_the_repository():
    for path in [ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("notebooks/*.ipynb"),
                 *(ROOT / "scicraft_viz").rglob("*.py")]:
        assert "REDSTONE.md" not in path.read_text(encoding="utf-8"), path
