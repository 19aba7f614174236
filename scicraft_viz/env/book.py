"""The knowledge book and the experiment report: their formats, templates and checks.

    >>> from scicraft_viz.env.book import check_book, check_report, entries
    >>> text = "## Signal decay\\n### Claim\\nDust loses 1 per block.\\n### Proof\\nMeasured 15, 14, 13.\\n" \\
    ...        "### Constraints\\nOnly along dust.\\n### Example\\nA repeater every 15 blocks."
    >>> check_book(text, "cpce") is None, len(entries(text))
    (True, 1)
    >>> check_book("Dust decays.", "cpce")
    'the book must be made of entries, each starting with a line "## <title>"; none was found'

The book is Markdown. Under the structured formats it is a list of entries, each a `## title` line
followed by the format's parts as `### Part` headings in order; under `summary` it is free text.
Every book and report an agent writes is checked here, so a malformed one is refused with a message
saying what is missing, and the agent can correct it.
"""

from __future__ import annotations

import re

from scicraft_viz.env.conditions import check_consolidation

MAX_BOOK_CHARS = 64 * 1024
MAX_REPORT_CHARS = 64 * 1024
MAX_QUESTION_CHARS = 2000

# The parts of an entry under each structured format, in order.
PARTS = {
    "summary": (),
    "fee": ("Finding", "Explanation", "Example"),
    "cpce": ("Claim", "Proof", "Constraints", "Example"),
}
FORMAT_NAMES = {
    "summary": "self-determined summary",
    "fee": "Finding-Explanation-Example",
    "cpce": "Claim-Proof-Constraints-Example",
}

TEMPLATES = {
    "summary": (
        "Write the knowledge book as a summary, in whatever form you judge most useful, of what the experiments "
        "established."),
    "fee": (
        "Write one entry per distinct finding, in this exact shape:\n"
        "## <short title>\n"
        "### Finding\nOne sentence that states the behaviour as a definite rule.\n"
        "### Explanation\nHow and why it works and when it applies: numbers, limits, edge cases, ways it fails.\n"
        "### Example\nOne small concrete case that uses the finding correctly (blocks, coordinates, ticks).\n"
        "Distil rather than copy, keep every entry in this shape, and include every detail needed to reuse it."),
    "cpce": (
        "Write one entry per distinct finding, in this exact shape:\n"
        "## <short title>\n"
        "### Claim\nThe finding as a general law, stated precisely and with numbers where there are any "
        "(e.g. 'dust power falls by exactly 1 per block: P(d) = P0 - d'), not a vague impression.\n"
        "### Proof\nThe evidence from the experiments and the reasoning that makes it establish the claim; "
        "an observation alone is not a proof.\n"
        "### Constraints\nWhere the claim may not hold: edge cases, untested assumptions, anything observed that "
        "disagrees.\n"
        "### Example\nA concrete design or situation that relies on the claim being true."),
}

# The eight parts of an experiment report (SciCrafter paper, Section 4.1), as the headings the
# scientist writes. A heading may carry its number ("## 3. Experiment design") or not.
REPORT_PARTS = ("Research question", "Hypothesis", "Experiment design", "Experiment steps", "Experiment record",
                "Results", "Analysis and summary", "Next steps")
REPORT_TEMPLATE = (
    "Write the experiment report in Markdown with these eight sections, in order, each a '## ' heading:\n"
    "## 1. Research question - the one mechanic under study\n"
    "## 2. Hypothesis - a prediction that the experiment can prove wrong\n"
    "## 3. Experiment design - what you vary, what you measure, what you hold fixed\n"
    "## 4. Experiment steps - the exact blocks, positions and calls of each run\n"
    "## 5. Experiment record - what each of the three repetitions showed (ticks, states), and whether it "
    "agreed with the hypothesis\n"
    "## 6. Results - what was found, in numbers\n"
    "## 7. Analysis and summary - why it happens, what it means for building, what remains uncertain\n"
    "## 8. Next steps - the experiment that would sharpen or test the finding further")

_ENTRY = re.compile(r"^##(?!#)\s*(\S.*)$", re.M)
_PART = re.compile(r"^###(?!#)\s*(?:\d+\s*[.)]\s*)?(.+?)\s*$", re.M)
_HEADING = re.compile(r"^#{1,3}(?!#)\s*(?:\d+\s*[.)]\s*)?(.+?)\s*$", re.M)


def _norm(title: str) -> str:
    t = re.sub(r"\(.*?\)", "", title).lower().replace("&", "and")
    return re.sub(r"[^a-z]+", " ", t).strip()


def entries(text: str) -> list[str]:
    """The book's entries (each from its `## title` line to the next), or [] if it has none."""
    starts = [m.start() for m in _ENTRY.finditer(text)]
    return [text[a:b].strip() for a, b in zip(starts, starts[1:] + [len(text)])]


def check_text(text, what: str, limit: int) -> str | None:
    if not isinstance(text, str):
        return f"{what} must be a string of Markdown text, got {type(text).__name__}"
    if not text.strip():
        return f"{what} is empty"
    if len(text) > limit:
        return f"{what} is {len(text)} characters long; the limit is {limit}"
    return None


def check_book(text, consolidation: str) -> str | None:
    """None if `text` is a book in the format, else what is wrong (one sentence)."""
    fmt = check_consolidation(consolidation)
    bad = check_text(text, "the book", MAX_BOOK_CHARS)
    if bad:
        return bad
    parts = PARTS[fmt]
    if not parts:
        return None
    found = entries(text)
    if not found:
        return 'the book must be made of entries, each starting with a line "## <title>"; none was found'
    want = [_norm(p) for p in parts]
    for i, e in enumerate(found, 1):
        title = e.splitlines()[0].lstrip("#").strip()[:60]
        got = [_norm(m.group(1)) for m in _PART.finditer(e)]
        if got != want:
            need = ", ".join(f"### {p}" for p in parts)
            have = ", ".join(f"### {g}" for g in got) or "none"
            return (f"entry {i} ({title!r}) must have the parts {need}, in that order "
                    f"({FORMAT_NAMES[fmt]} format); it has {have}")
        for m, nxt in zip(list(_PART.finditer(e)), list(_PART.finditer(e))[1:] + [None]):
            body = e[m.end(): nxt.start() if nxt else len(e)].strip()
            if not body:
                return f"entry {i} ({title!r}): the part '### {m.group(1)}' is empty"
    return None


def check_report(text) -> str | None:
    """None if `text` is an experiment report with the eight parts in order, else what is wrong."""
    bad = check_text(text, "the report", MAX_REPORT_CHARS)
    if bad:
        return bad
    want = [_norm(p) for p in REPORT_PARTS]
    got = [_norm(m.group(1)) for m in _HEADING.finditer(text)]
    pos = 0
    for w, name in zip(want, REPORT_PARTS):
        try:
            pos = got.index(w, pos) + 1
        except ValueError:
            return (f"the report has no section '{name}' after the previous one; it needs the eight sections "
                    f"{', '.join(REPORT_PARTS)}, in that order")
    return None


def check_question(text) -> str | None:
    return check_text(text, "the question", MAX_QUESTION_CHARS)
