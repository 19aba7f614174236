"""The paper's protocol in the environment: conditions, settings, the knowledge book and its formats,
the scientist's session in its scratch world on the shared trial budget, and their record."""

from __future__ import annotations

import pytest

from scicraft_viz import tasks
from scicraft_viz.env import trajectory
from scicraft_viz.env.book import check_book, check_report, entries
from scicraft_viz.env.conditions import briefing, keeps_book
from scicraft_viz.env.environment import SciCraftEnv
from scicraft_viz.env.replay import replay_file
from scicraft_viz.env.scientist import scientist_briefing
from scicraft_viz.experiments.offline import entry

TASK = "A_simultaneous_lights_L1"
BASE = ("set-block", "get-block-state", "get-event-stream", "scan-redstone-area", "activate-button")
REPORT = "\n".join(f"## {i}. {p}\ntext {i}" for i, p in enumerate(
    ["Research question", "Hypothesis", "Experiment design", "Experiment steps", "Experiment record", "Results",
     "Analysis & Summary", "Next steps"], 1))


def cpce(title="Decay"):
    return entry("cpce", title, "Dust loses 1 per block.", "15, 14, 13 measured.", "Flat dust only.",
                 "A repeater every 15 blocks.")


@pytest.mark.parametrize("condition,setting,engineer,scientist", [
    ("baseline", "independent", BASE + ("submit",), BASE),
    ("hint", "independent", BASE + ("submit",), BASE),
    ("baseline", "curriculum", BASE + ("submit", "read-knowledge-book", "update-knowledge-book"),
     BASE + ("read-knowledge-book",)),
    ("scientist", "independent", BASE + ("submit", "read-knowledge-book", "ask-scientist"),
     BASE + ("read-knowledge-book", "update-knowledge-book", "archive-experiment-report", "end-experiment")),
    ("hint+scientist", "curriculum", BASE + ("submit", "read-knowledge-book", "ask-scientist"),
     BASE + ("read-knowledge-book", "update-knowledge-book", "archive-experiment-report", "end-experiment")),
])
def test_each_protocol_offers_its_calls(condition, setting, engineer, scientist):
    env = SciCraftEnv(tasks.load(TASK), condition=condition, setting=setting)
    assert env.tools_for("engineer") == engineer and env.tools_for("scientist") == scientist
    assert keeps_book(condition, setting) == ("read-knowledge-book" in engineer)


def test_calls_outside_the_protocol_are_refused_with_the_reason():
    t = tasks.load(TASK)
    env = SciCraftEnv(t)
    assert env.call("ask-scientist", {"question": "q"})["error"] == \
        "ask-scientist: there is no scientist under the condition 'baseline'"
    assert env.call("read-knowledge-book")["error"] == \
        "read-knowledge-book: no knowledge book is kept under the condition 'baseline' in the independent setting"
    env = SciCraftEnv(t, condition="scientist")
    assert env.call("update-knowledge-book", {"book": cpce()})["error"] == \
        "update-knowledge-book: the knowledge book is written by the scientist, not the engineer"
    assert env.call("end-experiment", {"answer": "x"})["error"] == \
        "end-experiment: only the scientist calls this, during a session the engineer opened with ask-scientist"
    assert env.call("ask-scientist", {"question": "How long is a press?"})["ok"]
    assert env.call("submit")["error"].startswith("submit: only the engineer submits")
    assert env.call("ask-scientist", {"question": "again"})["error"].startswith("ask-scientist: the scientist is "
                                                                                "already at work")


def test_book_formats_are_checked_entry_by_entry():
    good = cpce("Decay") + "\n" + cpce("Delay")
    assert check_book(good, "cpce") is None and len(entries(good)) == 2
    assert check_book(good, "summary") is None and check_book("anything at all", "summary") is None
    fee = entry("fee", "Decay", "claim", "why", "limits", "example")
    assert check_book(fee, "fee") is None
    assert check_book(fee, "cpce") == ("entry 1 ('Decay') must have the parts ### Claim, ### Proof, ### Constraints, "
                                       "### Example, in that order (Claim-Proof-Constraints-Example format); it has "
                                       "### finding, ### explanation, ### example")
    empty_part = "## T\n### Claim\n\n### Proof\np\n### Constraints\nc\n### Example\ne"
    assert check_book(empty_part, "cpce") == "entry 1 ('T'): the part '### Claim' is empty"
    assert check_book("   ", "fee") == "the book is empty"
    assert check_book("x" * 70000, "summary").startswith("the book is 70000 characters long")
    assert check_book(["not", "text"], "cpce") == "the book must be a string of Markdown text, got list"


def test_experiment_reports_need_the_eight_parts_in_order():
    assert check_report(REPORT) is None
    swapped = REPORT.replace("Hypothesis", "Hypo")
    assert check_report(swapped) == ("the report has no section 'Hypothesis' after the previous one; it needs the "
                                     "eight sections Research question, Hypothesis, Experiment design, Experiment "
                                     "steps, Experiment record, Results, Analysis and summary, Next steps, in that "
                                     "order")


def test_the_scientist_works_in_its_own_world_on_the_shared_budget(tmp_path):
    t = tasks.load(TASK)
    path = tmp_path / "run.jsonl"
    env = SciCraftEnv.recording(t, path, condition="hint+scientist", setting="curriculum", consolidation="cpce",
                                budget=3, book=cpce("Carried"),
                                curriculum={"family": "A", "position": 2, "levels": ["x", TASK], "epoch": 1})
    with env:
        assert env.set_block((0, 4, 0), "stone")["ok"]
        assert env.call("read-knowledge-book")["book"] == cpce("Carried")
        opened = env.call("ask-scientist", {"question": "When does a lamp by a button light?"})
        assert (opened["session"], env.agent) == (1, "scientist")
        y = t.floor[1] + 1
        for x, b in ((0, "stone_button[face=floor]"), (1, "redstone_wire"), (2, "redstone_lamp")):
            assert env.set_block((x, y, 2), b)["ok"]
        assert env.activate_button()["trial"] == 1  # in the scratch world
        assert "stone_button" not in env.world.get_block((0, y, 2))  # the engineer's world is untouched
        assert env.world.get_block((0, 4, 0)).startswith("minecraft:stone")
        assert env.call("update-knowledge-book", {"book": "free text"})["error"].startswith(
            "update-knowledge-book: the book must be made of entries")
        assert env.call("archive-experiment-report", {"report": REPORT})["report"] == 1
        assert env.call("update-knowledge-book", {"book": cpce("Carried") + "\n" + cpce("Lamp")})["entries"] == 2
        ended = env.call("end-experiment", {"answer": "at once"})
        assert (ended["reports"], ended["trials_left"], env.agent) == (1, 2, "engineer")
        assert env.call("read-knowledge-book")["entries"] == 2
    traj = trajectory.read(path)
    h = traj.header
    assert (h["version"], traj.condition, traj.setting, traj.consolidation) == (5, "hint+scientist", "curriculum",
                                                                                "cpce")
    assert traj.curriculum == {"family": "A", "position": 2, "levels": ["x", TASK], "epoch": 1}
    assert traj.book_in == cpce("Carried")
    assert [s.agent for s in traj.steps] == ["engineer"] * 3 + ["scientist"] * 8 + ["engineer"]
    rp = replay_file(path)
    assert rp.matches and rp.env.trials_used == 1 and rp.trials[0].agent == "scientist"
    assert (tmp_path / "run.book.md").read_text() == cpce("Carried") + "\n" + cpce("Lamp")
    assert (tmp_path / "run.reports.md").read_text().startswith("<!-- report 1 -->\n## 1. Research question")


def test_a_replay_notices_a_call_put_in_the_wrong_agents_mouth(tmp_path):
    t = tasks.load(TASK)
    path = tmp_path / "run.jsonl"
    with SciCraftEnv.recording(t, path, condition="scientist") as env:
        env.call("ask-scientist", {"question": "q?"})
        env.set_block((0, 4, 0), "stone")
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace(',"agent":"scientist"', "")
    path.write_text("\n".join(lines) + "\n")
    [m] = replay_file(path).mismatches
    assert m.mismatch == "recorded as the engineer's call, but in the replay it is the scientist's turn"


def test_texts_follow_the_protocol():
    t = tasks.load("C_sequential_activation_L2")
    base = briefing(t, "baseline")
    assert "knowledge book" not in base.lower() and "scientist" not in base
    sci = briefing(t, "scientist", consolidation="fee", book="")
    assert sci.startswith("You are the engineer") and "The scientist writes it; you read it." in sci
    cur = briefing(t, "hint", setting="curriculum", consolidation="fee", book="## Old\n### Finding\nf")
    assert "update-knowledge-book" in cur and "### Finding" in cur and cur.endswith("## Old\n### Finding\nf")
    assert "Hint" in cur and "Hint" not in sci
    s = scientist_briefing(t, "Why?", book="", reports=["r1", "r2", "r3", "r4"], consolidation="summary",
                           trials_left=7)
    assert "7 left now" in s and "(1 older report(s) are summarised in the book)" in s and "r1" not in s
    for hidden in ("knowledge_gap", "learning_objectives"):
        assert hidden not in s


def test_a_call_to_a_tool_that_does_not_exist_is_recorded_and_replays(tmp_path):
    path = tmp_path / "u.jsonl"
    with SciCraftEnv.recording(tasks.load(TASK), path) as env:
        assert env.call("place-block", {"x": 1})["error"].startswith("unknown tool 'place-block'; the tools are")
        env.set_block((0, 4, 0), "stone")
    traj = trajectory.read(path)
    assert traj.ok and [(s.tool, s.args) for s in traj.steps][0] == ("unknown-tool", {"name": "place-block",
                                                                                     "arguments": {"x": 1}})
    assert replay_file(path).matches
