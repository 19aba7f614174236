"""Failure diagnosis: the intended taxonomy mode on every gallery device (and nothing on the
working one), exact guilty blocks and explanations, fixes that work, the same analysis on small
circuits built from scratch, and no crash on arbitrary builds."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import diagnose, gallery, tasks
from scicraft_viz import evaluator as ev
from scicraft_viz.diagnose import TAXONOMY
from scicraft_viz.diagnose import diagnose as run

DEVICES = [d.key for d in gallery.devices()]


@pytest.fixture(scope="module")
def diagnoses():
    return {d.key: run(d.world(), d.task()) for d in gallery.devices()}


@pytest.mark.parametrize("key", DEVICES)
def test_intended_mode_and_nothing_else(key, diagnoses):
    d = gallery.device(key)
    dg = diagnoses[key]
    if d.mode is None:
        assert dg.findings == [] and dg.dark == [] and len(dg.lit) == 32
        return
    assert dg.modes() == [d.mode]
    assert dg.primary == d.mode
    f = dg.findings[0]
    assert (f.case, f.category) == (d.case, d.category)
    # every dark lamp is explained, and only dark lamps are blamed
    assert {lp for f in dg.findings for lp in f.lamps} == set(dg.dark)
    assert len(dg.lit) == d.paper_lit


def test_taxonomy_table_11():
    cats = {}
    for _mode, (case, cat, _title, _what, gap) in TAXONOMY.items():
        cats.setdefault(cat, []).append(int(case))
        assert gap == {1: "Application", 2: "Discovery", 3: "Identification"}[cat]
    assert {k: sorted(v) for k, v in cats.items()} == {1: [4, 5, 8, 9], 2: [1, 6, 7], 3: [2, 3, 10, 11, 12]}


def test_glass_pedestal(diagnoses):
    (f,) = diagnoses["glass_pedestal"].findings
    assert f.positions == [(0, 4, 0), (0, 5, 0)] and len(f.lamps) == 32
    assert f.explanation.startswith("the button at (0, 5, 0) is attached to glass at (0, 4, 0)")
    assert f.fix_blocks == {(0, 4, 0): "minecraft:stone"}


def test_broken_bridge(diagnoses):
    (f,) = diagnoses["broken_bridge"].findings
    assert f.positions == [(-1, 4, 0), (0, 4, -1), (0, 4, 1), (1, 4, 0)]
    assert "one block short of the powered block at (0, 4, 0)" in f.explanation


def test_backwards_repeaters(diagnoses):
    fs = diagnoses["backwards_repeaters"].findings
    assert sorted(f.positions[0] for f in fs) == [(-4, 4, 0), (0, 4, -4), (0, 4, 4), (4, 4, 0)]
    east = next(f for f in fs if f.positions == [(4, 4, 0)])
    assert east.explanation.startswith("repeater at (4, 4, 0) faces toward the button: its input is on the lamp "
                                       "side ((5, 4, 0))")
    assert sorted(east.lamps) == [(5, 4, -2), (5, 4, 2), (7, 4, -2), (7, 4, 2), (9, 4, -8), (9, 4, 8)]
    assert east.fix_blocks == {(4, 4, 0): "minecraft:redstone_repeater[delay=1,facing=west]"}


def test_axes_only(diagnoses):
    (f,) = diagnoses["axes_only"].findings
    assert len(f.lamps) == 32 and f.explanation.startswith("none of the 32 lamps touches a wire")
    # the branch into the lamp at (3, 4, 2), named with the sides it takes once placed
    assert f.fix_blocks[(3, 4, 1)] == "minecraft:redstone_wire[east=none,north=side,south=side,west=none]"


def test_long_snake(diagnoses):
    (f,) = diagnoses["long_snake"].findings
    assert len(f.lamps) == 22 and (7, 4, 4) in f.lamps
    assert f.explanation.startswith("lamp at (7, 4, 4) is 20 dust from the nearest source: signal reaches 0")
    assert f.details["distance"] == 20 and f.details["farthest"] == 62
    assert f.positions[0] == (10, 4, 6)  # first wire of the path at strength 0
    assert all(s.startswith("minecraft:redstone_repeater") for s in f.fix_blocks.values())


def test_missing_rails_and_tiny_core(diagnoses):
    (f,) = diagnoses["missing_rails"].findings
    corners = sorted((sx * a, 4, sz * b) for a, b in ((9, 8), (8, 9)) for sx in (1, -1) for sz in (1, -1))
    assert f.lamps == corners and len(f.fix_blocks) == 56
    (t,) = diagnoses["tiny_core"].findings
    assert len(t.lamps) == 24 and "only spans x -3..3, z -3..3" in t.explanation


def test_islands(diagnoses):
    fs = diagnoses["islands"].findings
    assert len(fs) == 2 and [len(f.lamps) for f in fs] == [8, 8]
    assert sorted(f.details["anchors"][0] for f in fs) == [[-7, 4, -7], [7, 4, 7]]
    assert "form an island: no wire connects them to the button's network" in fs[0].explanation


def test_parallel_lines(diagnoses):
    fs = diagnoses["parallel_lines"].findings
    # 18 dark lamps; the two lamps on either side of one gap between the lines share one fix
    assert len(fs) == 12 and sorted(len(f.lamps) for f in fs) == [1] * 6 + [2] * 6
    f = next(f for f in fs if (-5, 4, -4) in f.lamps)
    assert f.lamps == [(-5, 4, -4), (-5, 4, -2)] and f.positions == [(-6, 4, -4), (-4, 4, -4)]
    assert f.explanation.startswith("dust at (-6, 4, -4) runs north-south past the lamp at (-5, 4, -4) and does "
                                    "not point into it")
    # a stone between the lines with a wire on top: the stone, powered by the wire, lights both lamps
    # beside it, and the wire's links to the lines leave them running north-south into their end lamps
    assert f.verified and f.fix_blocks == {
        (-5, 4, -3): "minecraft:stone",
        (-5, 5, -3): "minecraft:redstone_wire[east=side,north=none,south=none,west=side]"}


def test_connection_trap_and_hooks(diagnoses):
    traps = diagnoses["connection_trap"].findings
    assert len(traps) == 12
    c = diagnoses["connection_trap"].circuit
    assert all(len(c.dust_links(f.positions[0])) >= 2 for f in traps)  # auto-connected, not dead ends
    f = next(f for f in traps if f.positions[0] == (2, 4, 1))
    assert f.lamps == [(3, 4, 2)] and f.positions == [(2, 4, 1), (3, 4, 1)]
    hooks = diagnoses["dead_end_hooks"].findings
    assert len(hooks) == 8
    c = diagnoses["dead_end_hooks"].circuit
    assert all(len(c.dust_links(f.positions[0])) == 1 for f in hooks)
    h = next(f for f in hooks if f.positions[0] == (8, 4, 2))
    assert h.lamps == [(7, 4, 3)] and "would point south into the lamp at (7, 4, 3)" in h.explanation


def test_ring(diagnoses):
    (f,) = diagnoses["the_ring"].findings
    assert len(f.positions) == 14 and len(f.lamps) == 16
    assert "closed ring of 14 wires (power 8-15)" in f.explanation


FIXABLE = ["glass_pedestal", "broken_bridge", "axes_only", "backwards_repeaters", "long_snake", "missing_rails",
           "connection_trap", "dead_end_hooks"]


@pytest.mark.parametrize("key", FIXABLE)
def test_suggested_fix_lights_every_lamp(key, diagnoses):
    d = gallery.device(key)
    blocks = d.blocks()
    for f in diagnoses[key].findings:
        assert f.fix_blocks, f
        blocks.update(f.fix_blocks)
    r = ev.evaluate(d.task(), blocks)
    assert gallery.lit_count(r) == d.lamps


def test_diagnose_leaves_the_world_alone():
    d = gallery.device("backwards_repeaters")
    w = d.world()
    before = (w.tick, w.blocks())
    run(w, d.task())
    assert (w.tick, w.blocks()) == before


# ---------------------------------------------------------------------------------------- small circuits
T4 = tasks.from_dict(tasks.generate_task("A", 1))


def circuit(*parts):
    """Button on a stone at the anchor plus `parts`: (x, z, state) at y = 4."""
    b = {(0, 4, 0): "stone", (0, 5, 0): "stone_button[face=floor]"}
    for x, z, s in parts:
        b[(x, 4, z)] = s
    return b


W, L = "redstone_wire", "redstone_lamp"


def test_small_decay_line_names_the_distance():
    parts = [(x, 0, W) for x in range(1, 11)] + [(10, z, W) for z in range(1, 7)] + [(10, 7, L)]
    dg = run(circuit(*parts), T4)
    (f,) = dg.findings
    assert f.mode == "long_snake"
    assert f.explanation.startswith("lamp at (10, 4, 7) is 16 dust from the nearest source: signal reaches 0")
    fixed = circuit(*parts) | f.fix_blocks
    assert run(fixed, T4).findings == []


def test_small_passing_wire_and_hook_and_trap():
    # a line running past the lamp
    dg = run(circuit((1, 0, W), (2, 0, W), (3, 0, W), (2, 1, L)), T4)
    assert dg.modes() == ["parallel_lines"]
    assert "dust at (2, 4, 0) runs east-west past the lamp at (2, 4, 1)" in dg.findings[0].explanation
    # the same line ending in the lamp works; a hook at its end breaks it
    assert run(circuit((1, 0, W), (2, 0, W), (3, 0, L)), T4).findings == []
    dg = run(circuit((1, 0, W), (2, 0, W), (2, 1, W), (3, 0, L)), T4)
    assert dg.modes() == ["dead_end_hooks"] and dg.findings[0].positions[0] == (2, 4, 1)
    # a wire that auto-connects to two others bends the end into an L
    dg = run(circuit((1, 0, W), (2, 0, W), (1, 1, W), (2, 1, W), (3, 0, L)), T4)
    assert "connection_trap" in dg.modes()


def test_small_backwards_repeater_and_island():
    dg = run(circuit((1, 0, W), (2, 0, "redstone_repeater[facing=east]"), (3, 0, W), (4, 0, L)), T4)
    (f,) = dg.findings
    assert (f.mode, f.positions) == ("backwards_repeaters", [(2, 4, 0)])
    EW = "redstone_wire[east=side,west=side]"
    dg = run(circuit((1, 0, EW), (2, 0, L), (5, 5, "stone"), (6, 5, EW), (7, 5, L)), tasks.from_dict(
        tasks.generate_task("A", 2)))
    assert dg.modes() == ["islands"] and dg.findings[0].lamps == [(7, 4, 5)]


def test_lone_wire_placed_like_setblock_is_a_dot():
    """/setblock keeps the given sides: a lone wire with none is a dot, which powers only below."""
    b = circuit((1, 0, W), (2, 0, L))
    (f,) = run(b, T4).findings
    assert f.mode == "parallel_lines" and f.explanation.startswith(
        "dust at (1, 4, 0) is a dot (a wire placed with no sides and no wire beside it)")
    cross = "minecraft:redstone_wire[east=side,north=side,south=side,west=side]"
    assert f.fix_blocks == {(1, 4, 0): cross} and f.verified
    # set-block leaves a wire in place when only its sides differ: the dot is removed first
    assert f.fix_lines == ["setblock 1 4 0 minecraft:air", f"setblock 1 4 0 {cross}"]
    assert f.fix.endswith(f"set-block (1, 4, 0) minecraft:air, then {cross}")
    assert run(b | f.fix_blocks, T4).findings == []


def test_no_button():
    dg = run({(1, 4, 0): W, (2, 4, 0): L}, T4)
    assert [f.mode for f in dg.findings] == ["no_button"] and dg.findings[0].lamps == [(2, 4, 0)]


def test_report_and_to_dict(diagnoses):
    import json

    for d in diagnoses.values():
        json.dumps(d.to_dict(), allow_nan=False)  # JSON-ready for the viewer and the MCP server
    dg = diagnoses["glass_pedestal"]
    assert dg.report().startswith("0/32 lamps lit after the press of the button at (0, 5, 0)")
    d = dg.to_dict()
    assert d["findings"][0]["category_name"] == "structural" and d["findings"][0]["title"] == "Glass Pedestal"


BLOCKS = ["redstone_wire", "redstone_lamp", "stone", "glass", "redstone_repeater[facing=east]",
          "redstone_repeater[facing=north]", "redstone_torch", "air"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.tuples(st.integers(-3, 3), st.integers(4, 5), st.integers(-3, 3)),
                       st.sampled_from(BLOCKS), max_size=25))
def test_arbitrary_builds_never_crash_and_every_dark_lamp_is_explained(parts):
    b = {(0, 4, 0): "stone", (0, 5, 0): "stone_button[face=floor]"}
    for p, s in parts.items():
        if p not in b and s != "air":
            b[p] = s
    dg = diagnose.diagnose(b, T4)
    assert {lp for f in dg.findings for lp in f.lamps} >= set(dg.dark)
    for f in dg.findings:
        assert f.explanation and f.fix


def test_wire_that_popped_off_is_named():
    from scicraft_viz.env.environment import SciCraftEnv

    env = SciCraftEnv(T4)
    for x, s in [(0, "stone")]:
        env.set_block((x, 4, 0), s)
    env.set_block((0, 5, 0), "stone_button[face=floor]")
    for x in (1, 2, 3):
        env.set_block((x, 4, 0), W)
    env.set_block((4, 4, 0), L)
    assert env.set_block((2, 3, 0), "air")["popped"] == [[2, 4, 0]]  # the floor under the wire goes
    dg = run(env.world, T4)
    (f,) = dg.findings
    assert (f.mode, f.category, f.positions, f.lamps) == ("popped_off", 1, [(2, 4, 0)], [(4, 4, 0)])
    assert f.explanation.startswith("the redstone wire at (2, 4, 0) popped off: nothing held it up")
    assert f.fix_blocks == {(2, 3, 0): "minecraft:stone",
                            (2, 4, 0): "minecraft:redstone_wire[east=side,north=none,south=none,west=side]"}
    for call in f.fix_calls:  # exactly as written, through the environment
        assert env.set_block(call["pos"], call["block"])["ok"]
    assert run(env.world, T4).findings == []


def test_nothing_at_a_repeaters_input_is_a_broken_bridge():
    b = circuit((2, 0, "redstone_repeater[facing=west]"), (3, 0, "redstone_wire[east=side,west=side]"), (4, 0, L))
    (f,) = run(b, T4).findings
    assert (f.mode, f.positions) == ("broken_bridge", [(1, 4, 0)])
    assert f.explanation.startswith("the wiring stops one block short of the powered block at (0, 4, 0)")
    assert run(b | f.fix_blocks, T4).findings == []
