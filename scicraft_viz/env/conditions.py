"""Experimental conditions: what an agent or a participant is told about a task.

    >>> from scicraft_viz import tasks
    >>> from scicraft_viz.env.conditions import briefing, hint_line
    >>> t = tasks.load("A_simultaneous_lights_L1")
    >>> hint_line(t)
    'Hint (SciCrafter paper, Table 4): Strong-Power-Support-Block'
    >>> "Strong-Power-Support-Block" in briefing(t, "baseline"), "Strong-Power-Support-Block" in briefing(t, "hint")
    (False, True)

Every agent- and human-facing text about a task comes from this module (the MCP server's
instructions and its `scicraft://task` resource, the Inspect runner's system message, the annotator
page), so a condition is enforced in one place:

- `baseline`: the task statement and its contract (description, requirements, region, palette,
  contract parameters, harness) and nothing else;
- `hint`: the same plus the one-phrase hint of the paper's Table 4 (family A). The paper publishes
  hints for family A only; the hints of families B-E were written for this project and say so.
- `scientist`: the baseline plus a scientist sub-agent the engineer can hand questions to (the
  `ask-scientist` call); the scientist experiments in a scratch world of its own, archives an
  eight-part experiment report and keeps the knowledge book;
- `hint+scientist`: both.

Two more run parameters shape the protocol (`scicraft_viz.env.book` holds the knowledge book's
formats, `scicraft_viz.env.scientist` the scientist's prompt): the setting, `independent` (every task
starts with an empty book) or `curriculum` (L1 to L5 of a family in order, the book carried forward),
and the book's consolidation format,
`summary`, `fee` (Finding-Explanation-Example) or `cpce` (Claim-Proof-Constraints-Example).

What the task file keeps for researchers never reaches a participant: `metadata` (the knowledge gap,
the hint, the learning objectives) and, for the relaxed family-E levels, the argument for the
relaxation (`relaxation.reason` and the description's RELAXED paragraph).
"""

from __future__ import annotations

import copy

from scicraft_viz.tasks import Task

CONDITIONS = ("baseline", "hint", "scientist", "hint+scientist")
DEFAULT_CONDITION = "baseline"
SETTINGS = ("independent", "curriculum")
DEFAULT_SETTING = "independent"
# summary: the model's own summary; fee: Finding-Explanation-Example; cpce: Claim-Proof-Constraints-Example
CONSOLIDATIONS = ("summary", "fee", "cpce")
DEFAULT_CONSOLIDATION = "cpce"
# The paper's Table 4 gives knowledge gaps and hints for family A; the task files hold analogous ones for B-E.
PAPER_HINT_FAMILIES = ("A",)
# The parts of a task document that describe the task and its contract; everything else is for researchers.
PUBLIC_FIELDS = ("task_id", "family", "level", "task_name", "task_description", "difficulty", "tick_unit", "world",
                 "allowed_blocks", "inputs", "outputs", "contract", "requirements", "evaluation_metrics",
                 "test_cases", "harness")


class ConditionError(ValueError):
    """An unknown condition, setting or consolidation name."""


def _check(kind: str, value, known: tuple[str, ...], default: str) -> str:
    if value is None:
        return default
    if not isinstance(value, str) or value not in known:
        raise ConditionError(f"unknown {kind} {str(value)[:40]!r}; choose one of {', '.join(known)}")
    return value


def check_condition(condition: str | None) -> str:
    """The condition's name (`baseline` for None). Raises ConditionError naming the known ones."""
    return _check("condition", condition, CONDITIONS, DEFAULT_CONDITION)


def check_setting(setting: str | None) -> str:
    """`independent` or `curriculum` (`independent` for None)."""
    return _check("setting", setting, SETTINGS, DEFAULT_SETTING)


def check_consolidation(consolidation: str | None) -> str:
    """`summary`, `fee` or `cpce` (`cpce`, the paper's best format, for None)."""
    return _check("consolidation", consolidation, CONSOLIDATIONS, DEFAULT_CONSOLIDATION)


def has_hint(condition: str) -> bool:
    return check_condition(condition) in ("hint", "hint+scientist")


def has_scientist(condition: str) -> bool:
    return check_condition(condition) in ("scientist", "hint+scientist")


def keeps_book(condition: str, setting: str) -> bool:
    """A knowledge book exists where a scientist writes one or where a curriculum carries one."""
    return has_scientist(condition) or check_setting(setting) == "curriculum"


def book_writer(condition: str, setting: str) -> str | None:
    """Who may write the book: the scientist where there is one, else (in a curriculum) the engineer."""
    if has_scientist(condition):
        return "scientist"
    return "engineer" if check_setting(setting) == "curriculum" else None


def statement(task: Task) -> str:
    """The task description without the paragraph that argues for a relaxation."""
    text = str(task.doc.get("task_description", ""))
    reason = str((task.relaxation or {}).get("reason", "")).strip()
    keep = [ln for ln in text.splitlines()
            if not ln.lstrip().startswith("RELAXED") and not (reason and reason[:60] in ln)]
    return "\n".join(keep).strip()


def hint_line(task: Task) -> str | None:
    """The hint as the hint condition shows it, with its source; None if the task has none."""
    hint = (task.doc.get("metadata") or {}).get("hint")
    if not hint:
        return None
    if task.family in PAPER_HINT_FAMILIES and not (task.doc.get("metadata") or {}).get("generated"):
        return f"Hint (SciCrafter paper, Table 4): {hint}"
    return (f"Hint (written for this project; the paper publishes hints for family A only): {hint}")


def extras(task: Task, condition: str) -> list[str]:
    """The lines a condition adds to the baseline briefing."""
    if has_hint(condition):
        h = hint_line(task)
        return [h + " - a direction to investigate, not a mechanism."] if h else []
    return []


# Phrases of the public task text that state a vanilla value of a rule parameter (engine/rules.py), by the
# parameter: under a ruleset that changes it the phrase would be false, so it is withheld (the agent is never
# told the ruleset, nor handed a claim it contradicts). The hints name mechanisms only and stay true.
VANILLA_CLAIMS = {" (reach beyond the 15-block dust budget)": "dust_decay"}


def requirements(task: Task) -> list[str]:
    """The task's requirements as an agent reads them: a phrase stating a vanilla value the task's ruleset
    changes is left out (VANILLA_CLAIMS)."""
    changed = task.rules.changes()
    out = []
    for r in task.doc.get("requirements", []):
        r = str(r)
        for phrase, param in VANILLA_CLAIMS.items():
            if param in changed:
                r = r.replace(phrase, "")
        out.append(r)
    return out


def task_document(task: Task, condition: str = DEFAULT_CONDITION) -> dict:
    """The task document an agent may read under `condition`: the public fields, the statement
    without the relaxation argument, and under `hint` a top-level `hint`."""
    condition = check_condition(condition)
    doc = {k: copy.deepcopy(task.doc[k]) for k in PUBLIC_FIELDS if k in task.doc}
    doc["task_description"] = statement(task) + "\n"
    if "requirements" in doc:
        doc["requirements"] = requirements(task)
    more = extras(task, condition)
    if more:
        doc["hint"] = " ".join(more)
    return doc


def task_yaml(task: Task, condition: str = DEFAULT_CONDITION) -> str:
    from scicraft_viz.tasks import dump_yaml

    return dump_yaml(task_document(task, condition))


def region_text(task: Task) -> str:
    r, (ax, ay, az) = task.radius, task.anchor
    return f"x {ax - r}..{ax + r}, y {ay - r}..{ay + r}, z {az - r}..{az + r}"


def palette(task: Task, with_air: bool = True) -> list[str]:
    return sorted(b.removeprefix("minecraft:") for b in task.allowed_blocks if with_air or b != "minecraft:air")


def briefing(task: Task, condition: str = DEFAULT_CONDITION, *, budget: int | None = None,
             ticks_per_action: int = 20, observe_ticks: int | None = None, resource: str | None = None,
             setting: str | None = None, consolidation: str | None = None, book: str | None = None) -> str:
    """What the engineer (the agent that builds) is told when a run starts: the task statement, its
    requirements, the region, palette and trial budget, how time passes, whatever `condition` adds,
    and, where a knowledge book is kept (`keeps_book`), the book as it stands (`book`) and who
    writes it in which format."""
    condition = check_condition(condition)
    setting = check_setting(setting)
    consolidation = check_consolidation(consolidation)
    budget = task.trial_budget if budget is None else budget
    observe = task.record_game_ticks if observe_ticks is None else observe_ticks
    req = "\n".join(f"- {r}" for r in requirements(task))
    parts = []
    if has_scientist(condition):
        parts.append("You are the engineer: you build redstone devices that meet an exact timing specification. "
                     "Do not guess how the game behaves. Whenever you are unsure of a mechanic, hand a precise "
                     "question to the scientist with ask-scientist; it runs controlled experiments in a scratch "
                     "world of its own and records what it establishes in the knowledge book. Its trials come out "
                     "of the same budget as yours.\n")
    parts += [
        f"SciCrafter task {task.id}: {task.name}\n\n{statement(task)}\n\nRequirements:\n{req}\n",
        f"Build region: {region_text(task)} (radius {task.radius} around the anchor {list(task.anchor)}); a stone "
        f"floor fills y={task.floor[1]}. Palette: {', '.join(palette(task))}.\n"
        f"Verification trials: {budget} (each accepted activate-button uses one).\n"
        f"Time passes only through actions: set-block lets {ticks_per_action} game ticks pass, activate-button "
        f"{observe}; reads take none. 1 redstone tick = 2 game ticks.\n"
        "Calls return raw state changes only; the verdict comes with submit, which ends the episode."
        + (f" The full task document is the resource {resource}." if resource else ""),
    ]
    more = extras(task, condition)
    if more:
        parts.append("\n" + "\n".join(more))
    if keeps_book(condition, setting):
        parts.append("\n" + book_briefing(condition, setting, consolidation, book))
    return "\n".join(parts)


def book_briefing(condition: str, setting: str, consolidation: str, book: str | None) -> str:
    """The engineer's paragraph about the knowledge book."""
    from scicraft_viz.env.book import FORMAT_NAMES, TEMPLATES

    writer = book_writer(condition, setting)
    lines = ["Knowledge book (read-knowledge-book shows it at any time):"]
    if check_setting(setting) == "curriculum":
        lines.append("This task is one level of a curriculum: the book is all that carries over from the earlier "
                     "levels of this family to the later ones.")
    if writer == "engineer":
        lines.append(f"Record what you establish with update-knowledge-book (it replaces the whole book), in the "
                     f"{FORMAT_NAMES[consolidation]} format:\n{TEMPLATES[consolidation]}")
    else:
        lines.append("The scientist writes it; you read it.")
    lines.append("The book so far:\n" + (book.strip() if book and book.strip() else "(empty)"))
    return "\n".join(lines)


def hidden_strings(task: Task) -> list[str]:
    """Texts of the task file that no baseline-condition text may contain (for checks and tests)."""
    meta = task.doc.get("metadata") or {}
    out = [str(meta[k]) for k in ("hint", "knowledge_gap") if meta.get(k)]
    reason = (task.relaxation or {}).get("reason")
    if reason:
        out.append(str(reason))
    return out
