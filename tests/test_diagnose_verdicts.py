"""Verdicts decided by simulation: a missing wire on a staircase is a broken bridge (not an
island), a repeater turned the wrong way in front of a block that feeds lamps is a backwards
repeater (not a tiny core or an island), and in both the suggested fix lights the lamps. Plus the
shape of the rule registry, and the invariant that a verified fix really lights its lamps."""

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import tasks
from scicraft_viz.diagnose import REGISTRY, RULES, TAXONOMY, diagnose
from scicraft_viz.diagnose.rules.base import CATEGORIES
from scicraft_viz.tasks import evaluator as ev

W, L, S = "redstone_wire", "redstone_lamp", "stone"
BTN = {(0, 4, 0): S, (0, 5, 0): "stone_button[face=floor]"}
ROOT = Path(__file__).resolve().parent.parent


def task_for(build: dict):
    return tasks.from_dict(tasks.generate_task("A", sum(1 for s in build.values() if s == L)))


def lights_all(build: dict, fix: dict) -> bool:
    t = task_for(build)
    r = ev.evaluate(t, build | fix)
    return r.passed


# up two steps and down one: button stone, wire, stone step with wire on top, a second step, down to the floor
STAIRS = BTN | {(1, 4, 0): W, (2, 4, 0): S, (2, 5, 0): W, (3, 4, 0): S, (3, 5, 0): W, (4, 4, 0): W, (5, 4, 0): W,
                (6, 4, 0): L}


def test_staircase_device_works():
    assert ev.evaluate(task_for(STAIRS), STAIRS).passed


@pytest.mark.parametrize("gone, live, dead, state", [
    # the wire that climbs onto the first step
    ((2, 5, 0), (1, 4, 0), (3, 5, 0), "minecraft:redstone_wire[east=side,north=none,south=none,west=side]"),
    # the wire that steps down to the floor (its east side climbs)
    ((4, 4, 0), (3, 5, 0), (5, 4, 0), "minecraft:redstone_wire[east=side,north=none,south=none,west=up]"),
])
def test_missing_staircase_wire_is_a_broken_bridge(gone, live, dead, state):
    b = {p: s for p, s in STAIRS.items() if p != gone}
    d = diagnose(b, task_for(b))
    (f,) = d.findings
    assert (f.mode, f.positions, f.lamps, f.verified) == ("broken_bridge", [gone], [(6, 4, 0)], True)
    assert f.explanation == (
        f"one wire is missing at {gone} on a staircase (the wiring steps a block up or down there): it would join "
        f"powered wire at {live} to the dead wiring at {dead}, so the signal never gets past it and 1 lamp(s) stay "
        "dark.")
    # the fix names the wire's full state, and the prose quotes it
    assert f.fix == f"place a wire at {gone}: set-block {gone} {state}"
    assert f.fix_blocks == {gone: state}
    assert f.fix_lines == [f"setblock {gone[0]} {gone[1]} {gone[2]} {state}"]
    assert lights_all(b, f.fix_blocks)


REVERSED = "redstone_repeater[facing=east]"  # input on the east: it faces the button the wrong way
BESIDE = BTN | {(1, 4, 0): W, (2, 4, 0): REVERSED, (3, 4, 0): S, (3, 4, 1): L, (3, 4, -1): L, (4, 4, 0): L}
ON_TOP = BTN | {(1, 4, 0): W, (2, 4, 0): REVERSED, (3, 4, 0): S, (3, 5, 0): W, (4, 4, 0): S, (4, 5, 0): W,
                (5, 4, 0): S, (5, 5, 0): W, (5, 4, 1): L, (5, 4, -1): L, (6, 4, 0): L}


@pytest.mark.parametrize("build, lamps", [
    (BESIDE, [(3, 4, -1), (3, 4, 1), (4, 4, 0)]),   # lamps beside the block the repeater should power
    (ON_TOP, [(5, 4, -1), (5, 4, 1), (6, 4, 0)]),   # lamps fed through dust on top of that block
], ids=["beside", "dust_on_top"])
def test_reversed_repeater_into_a_block_is_backwards_repeaters(build, lamps):
    turned = {(2, 4, 0): "redstone_repeater[facing=west]"}
    assert lights_all(build, turned)  # the device works with the repeater turned round
    d = diagnose(build, task_for(build))
    (f,) = d.findings
    assert (f.mode, f.positions, f.lamps, f.verified) == ("backwards_repeaters", [(2, 4, 0)], lamps, True)
    assert f.explanation.startswith("repeater at (2, 4, 0) faces toward the button: its input is on the lamp side "
                                    "((3, 4, 0)) and the signal arrives at its output ((1, 4, 0))")
    assert f.fix_blocks == {(2, 4, 0): "minecraft:redstone_repeater[delay=1,facing=west]"}
    assert lights_all(build, f.fix_blocks)


# ---------------------------------------------------------------------------------------- the registry
def test_registry_shape():
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids)) == len(REGISTRY)
    assert sorted(TAXONOMY) == sorted(r.id for r in RULES if r.case is not None) and len(TAXONOMY) == 12
    assert [r.id for r in RULES if r.category == 4] == ["skew", "stage_gap", "stage_order", "pulse_start",
                                                          "pulse_width", "no_shaper"]
    for r in RULES:
        assert r.title and r.definition.endswith(".") and r.fix and r.category in CATEGORIES
        assert (r.finding is not None) or (r.detect is not None) or r.id in ("no_button",), r.id
        # one module per mode, named after it
        assert (ROOT / "scicraft_viz/diagnose/rules" / f"{r.id}.py").is_file()


def test_docs_define_every_mode():
    doc = (ROOT / "docs/diagnosis.md").read_text()
    for r in RULES:
        m = re.search(rf"^### `{r.id}`", doc, re.M)
        assert m, f"docs/diagnosis.md has no section for {r.id}"
    assert "this project's extension" in doc


# ---------------------------------------------------------------------------------------- invariant
BLOCKS = ["redstone_wire", "redstone_lamp", "stone", "redstone_repeater[facing=east]",
          "redstone_repeater[facing=west]", "redstone_repeater[facing=north,delay=3]", "air"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.tuples(st.integers(-3, 3), st.integers(4, 5), st.integers(-3, 3)),
                       st.sampled_from(BLOCKS), min_size=3, max_size=18))
def test_a_verified_fix_is_verified_on_the_whole_build(parts):
    from scicraft_viz.diagnose import fixes

    b = dict(BTN)
    for p, s in parts.items():
        if p not in b and s != "air":
            b[p] = s
    t = task_for(b) if any(s == L for s in b.values()) else tasks.from_dict(tasks.generate_task("A", 1))
    d = diagnose(b, t)
    assert {lp for f in d.findings for lp in f.lamps} >= set(d.dark)
    for f in d.findings:
        assert f.explanation and f.fix
        assert not f.verified or f.fix_blocks  # a verified fix names its blocks
        if f.fix_blocks:
            # the prose quotes every state, and the literal states are what was simulated
            assert all(st in f.fix for st in f.fix_blocks.values()), f.fix
            out = fixes.trial(d.circuit, f.fix_blocks)
            moved = {tuple(a): tuple(b) for a, b in f.details.get("moved", [])}
            assert out is None or out.placed == f.fix_blocks
            why = fixes.judge(d.circuit, out, f.lamps, moved)
            assert (why is None) == f.verified or f.mode == "broken_constraint", (f, why)
            if f.verified:
                # on the whole build: its lamps meet their windows, and every lamp that did still does
                assert out.lit([moved.get(p, p) for p in f.lamps])
                assert {moved.get(p, p) for p in fixes.met_before(d.circuit)} <= out.ok
