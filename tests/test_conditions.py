"""Conditions: what an agent or a participant is told. Baseline texts carry no hint, no knowledge gap
and no argument for a relaxation; the hint condition adds exactly the hint, with its source."""

from __future__ import annotations

import pytest
import yaml

from scicraft_viz import tasks
from scicraft_viz.agents import conditions, mcp_server
from scicraft_viz.agents.conditions import (
    PUBLIC_FIELDS,
    ConditionError,
    briefing,
    hidden_strings,
    task_document,
    task_yaml,
)
from scicraft_viz.agents.env import SciCraftEnv
from scicraft_viz.agents.trajectory import read

ALL = tasks.task_ids()


def agent_texts(task, condition: str) -> dict[str, str]:
    """Every text an agent sees about a task: server instructions, tool descriptions, the task resource."""
    env = SciCraftEnv(task, condition=condition)
    return {"instructions": mcp_server.instructions(env),
            "tools": "\n".join(t.description for t in mcp_server.tool_list(env)),
            "resource": task_yaml(task, condition), "briefing": briefing(task, condition)}


@pytest.mark.parametrize("task_id", ALL)
def test_baseline_texts_hold_no_hint_gap_or_relaxation_argument(task_id):
    t = tasks.load(task_id)
    hidden = hidden_strings(t)
    assert len(hidden) == (3 if t.relaxation else 2)  # the hint, the knowledge gap (and the relaxation's reason)
    for name, text in agent_texts(t, "baseline").items():
        for h in hidden:
            assert h not in text, (name, h)
        assert "RELAXED" not in text and "knowledge_gap" not in text and "Hint" not in text, name


@pytest.mark.parametrize("task_id", ALL)
def test_hint_adds_the_hint_alone(task_id):
    t = tasks.load(task_id)
    meta = t.doc["metadata"]
    texts = agent_texts(t, "hint")
    source = ("SciCrafter paper, Table 4" if t.family == "A" else
              "written for this project; the paper publishes hints for family A only")
    line = f"Hint ({source}): {meta['hint']} - a direction to investigate, not a mechanism."
    assert texts["briefing"].endswith("\n\n" + line)
    assert texts["instructions"].endswith("\n\n" + line)
    assert yaml.safe_load(texts["resource"])["hint"] == line
    for text in texts.values():
        assert meta["knowledge_gap"] not in text
        if t.relaxation:
            assert t.relaxation["reason"] not in text


def test_the_resource_document_is_the_public_part_of_the_task():
    t = tasks.load("E_pulse_shaping_L1")
    doc = task_document(t, "baseline")
    assert list(doc) == [k for k in PUBLIC_FIELDS if k in t.doc]
    assert "metadata" not in doc and "relaxation" not in doc
    assert doc["contract"] == {"type": "pulse", "tolerance_ticks": 1, "num_outputs": 4, "tau_ticks": 4,
                               "on_window_ticks": 2}
    assert doc["task_description"].startswith("On each button press, keep all 4 lamps lit for a target duration "
                                              "of 4 rt measured from the press, then return to off.\n")
    assert doc["task_description"].rstrip().endswith("and the lamp stays dark from t_off until the end of the "
                                                     "recording (one pulse per press).")
    assert yaml.safe_load(task_yaml(t, "baseline")) == doc


def test_unknown_condition_is_refused_with_the_known_ones():
    t = tasks.load("A_simultaneous_lights_L1")
    for bad in ("oracle", "Hint", ""):
        with pytest.raises(ConditionError) as e:
            briefing(t, bad)
        assert str(e.value) == f"unknown condition {bad!r}; choose one of baseline, hint, scientist, hint+scientist"
    with pytest.raises(ConditionError):
        SciCraftEnv(t, condition="scientists")
    with pytest.raises(ConditionError):
        SciCraftEnv(t, setting="curricula")
    with pytest.raises(ConditionError):
        SciCraftEnv(t, consolidation="free")
    assert conditions.check_condition(None) == "baseline"


def test_condition_is_written_in_the_trajectory_header(tmp_path):
    t = tasks.load("A_simultaneous_lights_L1")
    with SciCraftEnv.recording(t, tmp_path / "h.jsonl", condition="hint") as env:
        env.set_block((0, 4, 0), "stone")
    with SciCraftEnv.recording(t, tmp_path / "b.jsonl") as env:
        env.set_block((0, 4, 0), "stone")
    h, b = read(tmp_path / "h.jsonl"), read(tmp_path / "b.jsonl")
    assert (h.ok, h.header["condition"], h.condition, h.header["version"]) == (True, "hint", "hint", 5)
    assert (b.ok, b.header["condition"], b.condition) == (True, "baseline", "baseline")


def test_annotator_page_shows_the_condition_and_records_it(tmp_path):
    from scicraft_viz.views.annotator import Annotator, annotator_page

    t = tasks.load("E_pulse_shaping_L2")
    base = Annotator(t, out_dir=tmp_path, participant="P01")
    hint = annotator_page("task=E_pulse_shaping_L2&participant=P02&condition=hint", out_dir=tmp_path)
    for h in hidden_strings(t):
        assert h not in base.instructions.value
    assert "RELAXED" not in base.instructions.value and "Hint" not in base.instructions.value
    assert "Hint (written for this project; the paper publishes hints for family A only): Edge-Detector-Timing" \
        in hint.instructions.value
    assert t.doc["metadata"]["knowledge_gap"] not in hint.instructions.value
    hint.consent.value = True
    assert hint.start()
    assert read(hint.path).header["condition"] == "hint"
    bad = annotator_page("task=A_simultaneous_lights_L1&condition=oracle", out_dir=tmp_path)
    assert "unknown condition &#x27;oracle&#x27;; choose one of baseline, hint" in bad.value
    sci = annotator_page("task=A_simultaneous_lights_L1&condition=hint%2Bscientist", out_dir=tmp_path)
    assert ("the annotator page runs the conditions baseline and hint; &#x27;hint+scientist&#x27; needs a scientist "
            "sub-agent, which only agents have") in sci.value
    for a in (base, hint):
        a.close()
