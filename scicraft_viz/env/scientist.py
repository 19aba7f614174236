"""What the scientist sub-agent is told (SciCrafter paper, Section 4.1 and Appendix G), in this
project's words, for every front end that runs one (the Inspect runner, an MCP client's harness).

    >>> from scicraft_viz import tasks
    >>> from scicraft_viz.env.scientist import scientist_briefing
    >>> text = scientist_briefing(tasks.load("A_simultaneous_lights_L1"), "How long is a button pressed?",
    ...                           book="", reports=[], consolidation="cpce", trials_left=50)
    >>> "three" in text and "### Claim" in text and "How long is a button pressed?" in text
    True

The scientist never sees the task's hint, metadata or verdicts: only the engineer's question, the
book, its own earlier reports and the world it experiments in (a scratch world of its own: the
task's initial world, which the evaluator never looks at).
"""

from __future__ import annotations

from scicraft_viz.env.book import FORMAT_NAMES, REPORT_TEMPLATE, TEMPLATES
from scicraft_viz.env.conditions import check_consolidation, palette, region_text
from scicraft_viz.tasks import Task

# The newest reports shown in full; older ones are counted (the book is where findings accumulate).
SHOWN_REPORTS = 3


def scientist_briefing(task: Task, question: str, *, book: str, reports: list[str], consolidation: str,
                       trials_left: int, ticks_per_action: int = 20, observe_ticks: int | None = None,
                       observation: str = "text") -> str:
    """The scientist's system message for one question."""
    fmt = check_consolidation(consolidation)
    observe = task.record_game_ticks if observe_ticks is None else observe_ticks
    older = len(reports) - SHOWN_REPORTS
    shown = reports[-SHOWN_REPORTS:]
    history = "\n\n".join(f"--- report {len(reports) - len(shown) + i} ---\n{r}" for i, r in enumerate(shown, 1))
    if older > 0:
        history = f"({older} older report(s) are summarised in the book)\n\n" + history
    looks = {"text": "scan-redstone-area, ", "image": "render-view (a picture of your world), ",
             "both": "scan-redstone-area, render-view (a picture of your world), "}[observation]
    return "\n".join([
        "You are the scientist. An engineer who builds redstone devices in Minecraft has a question about how the "
        "game behaves. Find the answer by controlled experiment. Never rely on what you believe the game does: a "
        "law goes into the knowledge book only when an experiment you ran shows it, and only after the same "
        "experiment repeated three times gave the same result.",
        "",
        f"Your laboratory is a scratch world of your own: the engineer's starting world (a stone floor at "
        f"y={task.floor[1]}, region {region_text(task)}), which the evaluator never sees. Palette: "
        f"{', '.join(palette(task))}. The calls are the engineer's: set-block (lets {ticks_per_action} game ticks "
        f"pass), get-block-state, get-event-stream, {looks}and activate-button, which presses the "
        f"single stone button of your world and reports every state change over {observe} game ticks. Each "
        f"activate-button uses one verification trial of the budget you share with the engineer: {trials_left} "
        "left now. The engineer needs some to verify its build, so design experiments that answer much per trial.",
        "",
        "Work through the eight parts of an experiment: the research question, a hypothesis that could be wrong, "
        "the design (what varies, what is measured, what is held fixed), the steps, the record of every "
        "repetition, the results, their analysis, and the next steps.",
        "",
        "When the question is answered (or the trials you can spare are spent):",
        "1. archive-experiment-report with the report. " + REPORT_TEMPLATE,
        f"2. update-knowledge-book with the whole book, revised to take in the new findings (it replaces the "
        f"book), in the {FORMAT_NAMES[fmt]} format. " + TEMPLATES[fmt],
        "3. end-experiment with a short answer to the engineer's question.",
        "",
        f"The engineer's question:\n{question}",
        "",
        "The knowledge book so far:\n" + (book.strip() or "(empty)"),
        "",
        "Your earlier experiment reports:\n" + (history or "(none)"),
    ])
