"""Timing diagnosis: lamps that light outside their contract window, on small builds for every
family (A-E), with the exact mode, guilty blocks and fix text, each fix checked by the evaluator;
the delay budget of every lamp; and plain words when no rule explains a failure."""

import pytest

from scicraft_viz import tasks
from scicraft_viz.diagnose import diagnose
from scicraft_viz.tasks import evaluator as ev

W, L, S = "redstone_wire", "redstone_lamp", "stone"
BTN = {(0, 4, 0): S, (0, 5, 0): "stone_button[face=floor]"}


def rep(facing: str, delay: int) -> str:
    return f"redstone_repeater[facing={facing},delay={delay}]"


def task(family: str, n: int, **kw):
    return tasks.from_dict(tasks.generate_task(family, n, **kw))


def fixed(build: dict, d) -> dict:
    out = dict(build)
    for f in d.findings:
        out.update(f.fix_blocks)
    return out


# two arms from the button, each a repeater into a lamp; the east one is 2 rt slower
TWO_ARMS = BTN | {(1, 4, 0): W, (2, 4, 0): rep("west", 3), (3, 4, 0): W, (4, 4, 0): L,
                  (-1, 4, 0): W, (-2, 4, 0): rep("east", 1), (-3, 4, 0): W, (-4, 4, 0): L}


@pytest.mark.parametrize("t", [task("A", 2), task("D", 2, distances=[5], lamps_per_distance=[2])],
                         ids=["A", "D"])
def test_skew_names_the_slow_branch_and_fixes_it(t):
    assert not ev.evaluate(t, TWO_ARMS).passed
    d = diagnose(TWO_ARMS, t)
    (f,) = d.findings
    assert (f.mode, f.category_name, f.positions, f.lamps) == ("skew", "timing", [(2, 4, 0)], [(4, 4, 0)])
    assert f.explanation == (
        "lamps light 2 rt apart, 1 rt allowed: 1 lamp(s) ((4, 4, 0)) light up to +3 rt, the lamp at (-4, 4, 0) at "
        "+1 rt. The slow branch leaves the shared path at (0, 4, 0) and is 2 rt slower: stone (0, 4, 0) -> repeater "
        "(delay 3) (2, 4, 0) +3 rt -> lamp (4, 4, 0).")
    assert f.fix == ("repeater at (2, 4, 0): delay 3 -> 2 makes lamp (4, 4, 0) light at +2 rt, inside [1, 2] rt: "
                     "set-block (2, 4, 0) minecraft:redstone_repeater[delay=2,facing=west]")
    assert f.verified and f.fix_blocks == {(2, 4, 0): "minecraft:redstone_repeater[delay=2,facing=west]"}
    assert f.fix_lines == ["setblock 2 4 0 minecraft:redstone_repeater[delay=2,facing=west]"]
    assert ev.evaluate(t, fixed(TWO_ARMS, d)).passed


def test_skew_on_a_t_junction_branch_family_b():
    b = BTN | {(1, 4, 0): W, (2, 4, 0): W, (2, 4, -1): W, (2, 4, -2): rep("south", 1), (2, 4, -3): W,
               (2, 4, -4): L, (2, 4, 1): W, (2, 4, 2): rep("north", 4), (2, 4, 3): W, (2, 4, 4): L}
    t = task("B", 2, max_reach=6)
    d = diagnose(b, t)
    (f,) = d.findings
    assert (f.mode, f.positions, f.lamps) == ("skew", [(2, 4, 2)], [(2, 4, 4)])
    assert "The slow branch leaves the shared path at (2, 4, 0) and is 3 rt slower" in f.explanation
    assert f.fix == ("repeater at (2, 4, 2): delay 4 -> 2 makes lamp (2, 4, 4) light at +2 rt, inside [1, 2] rt: "
                     "set-block (2, 4, 2) minecraft:redstone_repeater[delay=2,facing=north]")
    assert ev.evaluate(t, fixed(b, d)).passed


CHAIN = {(0, 4, 0): "stone_button[face=floor,facing=east]", (1, 4, 0): rep("west", 1), (2, 4, 0): L,
         (3, 4, 0): rep("west", 3), (4, 4, 0): L, (5, 4, 0): rep("west", 1), (6, 4, 0): L}


def test_stage_gap_family_c():
    t = task("C", 3, delays=[1, 1])
    d = diagnose(CHAIN, t)
    (f,) = d.findings
    assert (f.mode, f.positions, f.lamps) == ("stage_gap", [(3, 4, 0)], [(4, 4, 0)])
    assert f.explanation == (
        "stage 1->2: lamp (2, 4, 0) lights at +1 rt and lamp (4, 4, 0) at +4 rt, 3 rt apart; the contract wants "
        "1 rt +/- 1 rt (too long by 2 rt); between them: repeater (delay 3) (3, 4, 0) +3 rt.")
    assert f.fix == ("repeater at (3, 4, 0): delay 3 -> 2 makes lamp (4, 4, 0) light at +3 rt, inside [1, 3] rt: "
                     "set-block (3, 4, 0) minecraft:redstone_repeater[delay=2,facing=west]")
    assert ev.evaluate(t, fixed(CHAIN, d)).passed


def test_stage_order_family_c_says_no_single_change_fixes_it():
    # one repeater powers a block with two lamps beside it: both light in the same tick
    b = {(0, 4, 0): "stone_button[face=floor,facing=east]", (1, 4, 0): rep("west", 1), (2, 4, 0): S,
         (2, 4, 1): L, (2, 4, -1): L, (3, 4, 0): rep("west", 1), (4, 4, 0): L}
    d = diagnose(b, task("C", 3, delays=[2, 1]))
    (f,) = d.findings
    assert (f.mode, f.lamps, f.verified, f.fix_blocks) == ("stage_order", [(2, 4, 1)], False, {})
    assert f.explanation.startswith("stages 1 and 2 light in the same tick: lamps (2, 4, -1) and (2, 4, 1) both at "
                                    "+1 rt")
    assert f.fix.endswith("(no single repeater change does it)")


E1 = tasks.load("E_pulse_shaping_L1")


def e1_build() -> dict:
    from pathlib import Path

    from scicraft_viz.engine.mcfunction import parse_mcfunction

    text = (Path(__file__).resolve().parent.parent / "tasks/solutions/E_pulse_shaping_L1.mcfunction").read_text()
    return {tuple(p): s for p, s in parse_mcfunction(text)}


def test_pulse_width_family_e_shaper_too_long():
    b = e1_build()
    assert b[(-3, 5, -1)].startswith("minecraft:redstone_repeater[delay=1,facing=south")
    b[(-3, 5, -1)] = "minecraft:redstone_repeater[delay=3,facing=south]"
    d = diagnose(b, E1)
    (f,) = d.findings
    assert (f.mode, f.positions[0], len(f.lamps)) == ("pulse_width", (-3, 5, -1), 4)
    assert f.explanation.startswith("the shaper holds the lamp too long: lamp (1, 4, -1) and 3 more")
    assert "go dark at +7 rt, lit for 5 rt; the contract wants on within [0, 2] rt and dark within [3, 5] rt" \
        in f.explanation
    assert f.fix == ("repeater at (-3, 5, -1): delay 3 -> 2 makes lamp (1, 4, -1) light at +2 rt and go dark at "
                     "+5 rt, inside [3, 5] rt: set-block (-3, 5, -1) minecraft:redstone_repeater[delay=2,facing=south]")
    assert ev.evaluate(E1, fixed(b, d)).passed


def test_no_shaper_and_late_start_family_e():
    t = task("E", 1, tau=6, on_window=2)
    plain = BTN | {(1, 4, 0): "redstone_wire[east=side,west=side]", (2, 4, 0): L}
    (f,) = diagnose(plain, t).findings
    assert (f.mode, f.lamps, f.verified) == ("no_shaper", [(2, 4, 0)], False)
    assert f.explanation == (
        "nothing shapes the pulse: lamp (2, 4, 0) lights at +0 rt and goes dark at +12 rt, lit for 12 rt; the "
        "contract wants on within [0, 2] rt and dark within [5, 7] rt. No torch is on the lamp's path, so it stays "
        "lit for the button's whole 10 rt press plus the lamp's 2 rt off-delay (held 10 rt, lamp off-delay 2 rt).")
    slow = BTN | {(1, 4, 0): W, (2, 4, 0): rep("west", 4), (3, 4, 0): rep("west", 4), (4, 4, 0): L}
    d = diagnose(slow, t)
    assert [f.mode for f in d.findings] == ["pulse_start", "no_shaper"]
    start = d.findings[0]
    assert start.positions == [(2, 4, 0), (3, 4, 0)]
    assert "On the way: button (0, 5, 0) -> repeater (delay 4) (2, 4, 0) +4 rt -> repeater (delay 4) (3, 4, 0) " \
           "+4 rt -> lamp (4, 4, 0)." in start.explanation


def test_delay_budget_of_every_lamp():
    d = diagnose(TWO_ARMS, task("A", 2))
    east = d.timing[(4, 4, 0)]
    assert (east["on"], east["window"], east["unit"]) == (3, [1, 2], "rt")
    assert [(s["block"], s["delay"]) for s in east["path"]] == [
        ("stone_button", 0), ("stone", 0), ("redstone_wire", 0), ("redstone_repeater", 3), ("redstone_wire", 0),
        ("redstone_lamp", 0)]
    # on at +3 rt (all repeater), then lit while the press lasts (10 rt), dark 2 rt after that
    assert east["budget"] == [["repeater", 3], ["held", 10], ["lamp off-delay", 2]]
    assert east["off"] == 3 + 10 + 2
    assert d.path_to((4, 4, 0))[0] == (0, 5, 0) and d.path_to((4, 4, 0))[-1] == (4, 4, 0)
    # the budget sums to the measured on- and off-ticks
    for t in d.timing.values():
        parts = dict(t["budget"])
        assert sum(x for k, x in t["budget"] if k not in ("held", "lamp off-delay")) == t["on"]
        assert t["on"] + parts["held"] + parts["lamp off-delay"] == t["off"]


def test_unexplained_failure_shows_the_measured_facts():
    # a lamp lit before the press: no timing rule covers it, and the diagnosis says so with the facts
    t = task("E", 1, tau=6, on_window=2)
    b = BTN | {(3, 4, 0): "redstone_torch", (3, 5, 0): L}
    r = ev.evaluate(t, b)
    assert not r.passed
    d = diagnose(b, t)
    assert d.dark == [] and [f.mode for f in d.findings] == ["unexplained"]
    f = d.findings[0]
    assert f.explanation.startswith("no failure mode explains this: ")
    assert "Measured: lamp (3, 5, 0) on at +0 rt, off at never" in f.explanation
    assert "no rule explains" not in d.report()  # there is a finding, it names itself


def test_passing_builds_have_no_findings():
    for tid in ("A_simultaneous_lights_L2", "C_sequential_activation_L2", "E_pulse_shaping_L2"):
        t = tasks.load(tid)
        d = diagnose(ev.build_world(t, open(f"tasks/solutions/{tid}.mcfunction").read()), t)
        assert d.findings == [] and d.failed_checks == []
