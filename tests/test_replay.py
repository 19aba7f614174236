"""Replay: the example trajectories reproduce every recorded result tick for tick; badges, the
world after each step, trial diffs and timelines; tampered and broken files are reported."""

import json
from pathlib import Path

import pytest

from scicraft_viz import diagnose, tasks
from scicraft_viz.engine.blocks import static_state
from scicraft_viz.env.environment import SciCraftEnv
from scicraft_viz.env.replay import Replay, build_diff, replay_file
from scicraft_viz.env.trajectory import make_header, parse_text, read

EXAMPLES = Path(__file__).resolve().parent.parent / "trajectories"
# file -> (task, lamps lit per trial, badges, passed)
EXPECTED = {
    "working_A_L4": ("A_simultaneous_lights_L4", [0, 24, 32], {"ok": 154, "rejected": 0, "popped": 0}, True),
    "backwards_repeaters_fixed": ("A_simultaneous_lights_L4", [8, 32], {"ok": 158, "rejected": 0, "popped": 0}, True),
    "glass_pedestal_fixed": ("A_simultaneous_lights_L4", [0, 32], {"ok": 160, "rejected": 2, "popped": 1}, True),
    "parallel_lines": ("A_simultaneous_lights_L4", [14], {"ok": 118, "rejected": 0, "popped": 0}, False),
    "the_ring": ("A_simultaneous_lights_L3", [0], {"ok": 34, "rejected": 0, "popped": 0}, False),
    "dead_end_hooks_fixed": ("A_simultaneous_lights_n20", [12, 20], {"ok": 105, "rejected": 0, "popped": 0}, True),
}


@pytest.fixture(scope="module")
def replays():
    return {stem: replay_file(EXAMPLES / f"{stem}.jsonl") for stem in EXPECTED}


@pytest.mark.parametrize("stem", list(EXPECTED))
def test_examples_replay_tick_for_tick(stem, replays):
    rp = replays[stem]
    task_id, lit, badges, passed = EXPECTED[stem]
    assert rp.matches, rp.report()
    assert rp.task.id == task_id
    assert [t.lit for t in rp.trials] == lit
    b = rp.badges()
    assert {k: b[k] for k in ("ok", "rejected", "popped")} == badges and b["mismatch"] == 0
    assert rp.steps[-1].replayed["passed"] is passed
    # the last trial's timeline meets the contract exactly when the run passed
    assert rp.trials[-1].passed is passed
    # activate-button results are compared event by event, ticks included
    for s in rp.steps:
        if s.tool == "activate-button":
            assert s.recorded["events"] == s.replayed["events"] and s.recorded["events"]


def test_glass_run_badges_name_the_steps(replays):
    rp = replays["glass_pedestal_fixed"]
    rejected = [s for s in rp.steps if s.badge == "rejected"]
    assert [s.describe() for s in rejected] == [
        "#0 set-block (0, 4, 0) redstone_block -> rejected: set-block: minecraft:redstone_block is not in this "
        "task's palette (allowed: air, glass, redstone_lamp, redstone_repeater, redstone_torch, redstone_wire, "
        "stone, stone_button)",
        "#1 set-block (11, 4, 0) stone -> rejected: set-block: pos (11, 4, 0) is outside the build region: "
        "x -10..10, y -6..14, z -10..10 (radius 10 around the anchor (0, 4, 0))",
    ]
    (popped,) = [s for s in rp.steps if s.badge == "popped"]
    assert (popped.index, popped.popped) == (3, [(5, 6, 5)])
    assert popped.describe() == "#3 set-block (6, 6, 5) glass -> popped off: (5, 6, 5)"
    assert popped.changes[(5, 6, 5)] is None


def test_trial_diffs(replays):
    rp = replays["backwards_repeaters_fixed"]
    d = rp.trial_diff(2)
    assert d.added == {} and d.removed == {}
    assert d.changed == {
        (-4, 4, 0): ("minecraft:redstone_repeater[delay=1,facing=west]",
                     "minecraft:redstone_repeater[delay=1,facing=east]"),
        (0, 4, -4): ("minecraft:redstone_repeater[delay=1,facing=north]",
                     "minecraft:redstone_repeater[delay=1,facing=south]"),
        (0, 4, 4): ("minecraft:redstone_repeater[delay=1,facing=south]",
                    "minecraft:redstone_repeater[delay=1,facing=north]"),
        (4, 4, 0): ("minecraft:redstone_repeater[delay=1,facing=east]",
                    "minecraft:redstone_repeater[delay=1,facing=west]"),
    }
    w = replays["working_A_L4"]
    d2, d3 = w.trial_diff(2), w.trial_diff(3)
    assert (len(d2.added), len(d3.added), d2.summary()) == (24, 56, "24 added")
    assert set(d2.added.values()) == {"minecraft:redstone_wire"}
    first = w.trial_diff(1)  # against the initial world: the whole build so far
    assert len(first.added) == 32 + 2 + 32 + 4
    hooks = replays["dead_end_hooks_fixed"].trial_diff(2)
    assert len(hooks.removed) == 8 and hooks.summary() == "8 removed"
    with pytest.raises(IndexError, match="trial 3 does not exist"):
        replays["dead_end_hooks_fixed"].trial_diff(3)


def test_static_state_ignores_derived_properties():
    assert static_state("minecraft:redstone_lamp[lit=true]") == "minecraft:redstone_lamp"
    assert static_state("minecraft:redstone_wire[east=side,north=none,power=7,south=none,west=side]") == \
        "minecraft:redstone_wire"
    assert static_state("minecraft:redstone_repeater[delay=2,facing=west,locked=false,powered=true]") == \
        "minecraft:redstone_repeater[delay=2,facing=west]"
    assert build_diff({(0, 0, 0): "minecraft:redstone_lamp[lit=true]"},
                      {(0, 0, 0): "minecraft:redstone_lamp[lit=false]"}).empty


def test_world_after_every_step_matches_a_direct_run(replays):
    rp = replays["glass_pedestal_fixed"]
    t = rp.trajectory
    env = SciCraftEnv.from_settings(rp.task, t.env_settings)
    for i, s in enumerate(t.steps):
        env.call(s.tool, s.args)
        if i in (0, 2, 3, 31, 32, 100, len(t.steps) - 1):
            assert rp.blocks_at(i) == env.world.blocks(), i
    assert rp.blocks_at(-1) == rp.task.initial_world().blocks()
    assert rp.build_at(3) == {(6, 6, 5): "minecraft:glass"}
    with pytest.raises(IndexError):
        rp.blocks_at(len(t.steps))


def test_trial_timelines_and_diagnosis_of_each_trial(replays):
    w = replays["working_A_L4"]
    t1, t2, t3 = w.trials
    assert [c.name for c in t1.checks if not c.passed] == ["all_lamps_activate", "simultaneity"]
    assert t3.passed and sorted(set(t3.on_ticks())) == [0, 2]  # behind the repeaters: 1 rt = 2 gt later
    assert t3.press_tick == w.steps[t3.step].replayed["press_tick"]
    modes = [diagnose.diagnose(tv.build, w.task).modes() for tv in (t1, t2, t3)]
    assert modes == [["axes_only"], ["missing_rails"], []]


def test_tampered_result_is_a_mismatch(tmp_path):
    lines = (EXAMPLES / "the_ring.jsonl").read_text().splitlines()
    i = next(k for k, ln in enumerate(lines) if '"activate-button"' in ln)
    obj = json.loads(lines[i])
    obj["result"]["events"][1]["tick"] += 2
    lines[i] = json.dumps(obj)
    p = tmp_path / "t.jsonl"
    p.write_text("\n".join(lines) + "\n")
    rp = replay_file(p)
    assert not rp.matches
    (bad,) = rp.mismatches
    e = obj["result"]["events"][1]
    assert bad.mismatch.startswith(f"result.events[1]: recorded tick {e['tick']} {e['block']} at {e['pos']}")
    assert f"replay tick {e['tick'] - 2}" in bad.mismatch
    assert f"MISMATCH {p}:{i + 1} step {bad.index} (activate-button)" in rp.report()


L1 = tasks.load("A_simultaneous_lights_L1")
HEADER = make_header(L1, run_id="r", started="2025-01-01T00:00:00Z")


def test_accepted_out_of_region_step_is_reported_twice():
    step = {"type": "step", "step": 0, "wall_s": 0, "tool": "set-block", "args": {"pos": [30, 4, 0], "block": "stone"},
            "result": {"ok": True, "pos": [30, 4, 0], "block": "minecraft:stone", "popped": [], "tick": 20}}
    rp = Replay(parse_text(json.dumps(HEADER) + "\n" + json.dumps(step) + "\n", "o.jsonl"))
    assert not rp.matches and rp.steps[0].badge == "rejected"
    assert rp.steps[0].mismatch == "result.ok: recorded True, replay False"
    assert "lies outside the build region" in str(rp.problems[0])


def test_broken_files_never_crash_the_replay(tmp_path):
    rp = Replay(parse_text('{"type": "step", "step": 0}\n', "noheader.jsonl"))
    assert rp.steps == [] and any("cannot replay" in str(p) for p in rp.problems)
    assert "problem:" in rp.report()
    rp = Replay(parse_text(json.dumps(dict(HEADER, task_id="Z_none")) + "\n", "z.jsonl"))
    assert rp.steps == [] and not rp.matches
    bad_env = dict(HEADER, env={"ticks_per_action": 5, "observe_ticks": 1, "max_events": 1})
    rp = Replay(parse_text(json.dumps(bad_env) + "\n", "e.jsonl"))
    assert rp.env is not None and rp.env.ticks_per_action == 5
    # a truncated example replays its intact part
    text = (EXAMPLES / "the_ring.jsonl").read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: len(text) // 2])
    rp = replay_file(cut)
    assert rp.steps and all(s.match for s in rp.steps) and len(rp.problems) == 1
    assert str(rp.problems[0]).startswith(f"{cut}:")


def test_replay_of_a_fresh_recording(tmp_path):
    p = tmp_path / "fresh.jsonl"
    env = SciCraftEnv.recording(L1, p, run_id="f", started="2025-01-01T00:00:00Z", ticks_per_action=3,
                                observe_ticks=40)
    env.set_block((0, 4, 0), "stone")
    env.set_block((0, 5, 0), "stone_button[face=floor]")
    env.set_block((1, 4, 0), "redstone_wire[east=side,west=side]")
    env.set_block((2, 4, 0), "redstone_lamp")
    env.activate_button()
    env.get_event_stream()
    env.scan_redstone_area((0, 4, 0), 2)
    env.submit()
    env.close()
    rp = Replay(read(p))
    assert rp.matches, rp.report()
    assert rp.trials[0].press_tick == 12 and rp.steps[-1].tick == 52


def test_replay_holds_a_bounded_number_of_full_trials(tmp_path):
    """A run with many trials: each keeps its summary, at most FULL_TRIALS keep trace and build, and any
    other is rebuilt on demand, identical to what the run recorded."""
    from scicraft_viz.env import replay as replay_mod
    from scicraft_viz.env.environment import SciCraftEnv

    task = tasks.load("A_simultaneous_lights_L1")
    path = tmp_path / "many.jsonl"
    with SciCraftEnv.recording(task, path, budget=40, observe_ticks=30) as env:
        for p, s in [((0, 4, 0), "stone"), ((0, 5, 0), "stone_button[face=floor]"),
                     ((1, 4, 0), "redstone_wire[east=side,west=side]"), ((2, 4, 0), "redstone_lamp")]:
            env.set_block(p, s)
        for k in range(30):
            env.activate_button()
            env.set_block((5, 4, 5 - k % 3), "stone")
    rp = replay_mod.replay_file(path)
    assert rp.matches and len(rp.trials) == 30 and [t.lit for t in rp.trials] == [1] * 30
    assert len(rp._held) == replay_mod.FULL_TRIALS == 16
    assert sorted(rp._held) == list(range(15, 31))
    first = rp.trials[0]
    assert 1 not in rp._held
    assert first.build == rp.blocks_at(first.position - 1)
    assert first.trace.first_on((2, 4, 0)) == first.press_tick and first.on_ticks() == [0]
    assert len(rp._held) == 16 and 1 in rp._held and 15 not in rp._held
    assert [t.position for t in rp.trials[:2]] == [4, 6]
