"""Minecraft's own redstone game tests (RedstoneTests of Microsoft's minecraft-gametests, the tests tagged
`suite:java_parity`, whose expectations are Java Edition's, and those every edition shares), run on the engine
from their Bedrock structures: each does what the test's script does, at the ticks it does it, and asserts
what it asserts (tests/gametest.py says how a test's ticks and sequences run)."""

import pytest

from scicraft_viz.engine import kernels as K
from tests.gametest import Failed, GameTest


def received(t: GameTest, rel) -> int:
    """The redstone power at a block as the tests read it (assertRedstonePower): dust's power; any other
    block's strongest signal from its six neighbours (Java's getBestNeighborSignal: what lights a lamp)."""
    name, props = t.block(rel)
    if name == "redstone_wire":
        return int(props["power"])
    w = t.w
    c = w._find(t.at(rel))
    assert c > 0, f"no block at {rel}"
    return max(int(K.signal_to(w.g.U, w.g.N, w.g.N[c, K.FC[d]], d, True)) for d in range(6))


def assert_power(t: GameTest, rel, level: int) -> None:
    got = received(t, rel)
    assert got == level, f"tick {t.tick}: {rel} {t.name(rel)} has power {got}, expected {level}"


def box(a, b):
    return [(x, y, z) for x in range(min(a[0], b[0]), max(a[0], b[0]) + 1)
            for y in range(min(a[1], b[1]), max(a[1], b[1]) + 1) for z in range(min(a[2], b[2]), max(a[2], b[2]) + 1)]


def manhattan(a, b) -> int:
    return sum(abs(i - j) for i, j in zip(a, b))


def test_lever_power():
    t = GameTest("RedstoneTests/lever_power")
    powered = {(1, 2, 0), (1, 2, 3), (2, 2, 1), (2, 2, 2), (0, 2, 1), (0, 2, 2), (1, 3, 1), (1, 3, 2), (1, 1, 1),
               (1, 1, 2), (1, 2, 2)}
    lever = (1, 2, 1)
    t.pull_lever(lever)
    for p in box((0, 1, 0), (2, 3, 3)):
        if p != lever:
            assert_power(t, p, 15 if p in powered else 0)


def dust_levels():
    """dust_propagation's expected levels: a main line from (2, 2, 1) and two branches."""
    levels = {}
    origin = (2, 2, 1)
    for p in box(origin, (2, 2, 17)):
        levels[p] = max(15 - manhattan(origin, p), 0)
    levels[(3, 2, 2)] = 13
    levels[(3, 2, 9)] = 6
    left = (4, 2, 2)
    for p in box(left, (4, 2, 14)):
        levels[p] = max(12 - manhattan(left, p), 0)
    levels[(1, 2, 3)] = 12
    right = (0, 2, 3)
    for p in box(right, (0, 2, 14)):
        levels[p] = max(11 - manhattan(right, p), 0)
    return levels


def test_dust_propagation():
    """Java powers the whole line the moment the redstone block is placed, and unpowers it the moment it goes."""
    t = GameTest("RedstoneTests/dust_propagation")
    levels = dust_levels()
    t.set_block((2, 2, 0), "redstone_block")
    for p, level in levels.items():
        assert_power(t, p, level)
    t.set_block((2, 2, 0), "air")
    for p in levels:
        assert_power(t, p, 0)


def test_dust_loop_depowering():
    t = GameTest("RedstoneTests/dust_loop_depowering")
    t.set_block((2, 2, 0), "redstone_block")
    for p in box((4, 2, 1), (0, 2, 16)):
        assert_power(t, p, max(0, 15 - manhattan(p, (2, 2, 1))))
    t.set_block((2, 2, 0), "air")
    t.succeed_when(lambda: [assert_power(t, p, 0) for p in box((4, 2, 1), (0, 2, 16))])
    assert t.run() == 0  # the loop unpowers at once


def test_torch_nand():
    t = GameTest("RedstoneTests/torch_nand")
    a, b, out = (4, 2, 0), (0, 2, 0), (2, 2, 4)
    (t.sequence()
     .then_execute(lambda: t.pull_lever(a))
     .then_idle(2)
     .then_execute(lambda: t.assert_prop("open", "true", out))
     .then_execute_after(2, lambda: t.pull_lever(a))
     .then_execute_after(2, lambda: t.pull_lever(b))
     .then_idle(2)
     .then_execute(lambda: t.assert_prop("open", "true", out))
     .then_execute_after(2, lambda: t.pull_lever(b))
     .then_execute_after(2, lambda: (t.pull_lever(a), t.pull_lever(b)))
     .then_idle(4)
     .then_execute(lambda: t.assert_prop("open", "false", out))
     .then_succeed())
    assert t.run() == 16


def test_torch_monostable():
    """A button's pulse through the monostable: the output closes 2 ticks after the press, opens 2 ticks later,
    and stays open until the button pops out."""
    t = GameTest("RedstoneTests/torch_monostable")
    inp, out = (0, 2, 0), (2, 2, 1)
    t.press_button(inp)
    s = t.sequence()
    (s.then_wait_after(2, lambda: t.assert_prop("open", "false", out))
     .then_wait_after(2, lambda: t.assert_prop("open", "true", out))
     .then_wait(lambda: t.assert_prop("powered", "false", inp)))

    def never_closes():
        if s.done >= 2 and t.succeeded_at is None:
            assert t.prop(out, "open") == "true", f"tick {t.tick}: the output closed again"
    t.sequence().then_wait(lambda: (never_closes(), t.assert_prop("powered", "false", inp))[1]).then_succeed()
    assert t.run() == 20 and s.passed == [2, 4, 20]


def observer_clock_ticks(t: GameTest, out=(2, 2, 0)):
    t.set_block(out, "oak_trapdoor[open=false]")
    s = t.sequence().then_wait(lambda: t.assert_prop("open", "true", out))
    for _ in range(8):
        s.then_wait(lambda: t.assert_prop("open", "false", out)).then_wait(lambda: t.assert_prop("open", "true", out))
    s.then_succeed()
    t.run()
    return s.passed


def test_observer_clock():
    """The trapdoor set in front of the observer starts the clock: it opens, then closes and opens again 8 times
    (the script waits for each change without a tick). Each change comes 2 ticks after the one before: the
    observer's 2-tick delay, then its 2-tick pulse (docs/redstone.md, observers)."""
    passed = observer_clock_ticks(GameTest("RedstoneTests/observer_clock"))
    assert len(passed) == 18 and [b - a for a, b in zip(passed, passed[1:17])] == [2] * 16


# The Java-parity repeater scripts pulse for 3 ticks, a length their Bedrock port chose: repeater_clock_bedrock
# says "Change redstone pulse form 2 ticks to 3", and the Java variants carry the same 3. Their expected states are
# those of a 2-tick pulse under Java's repeater rules: with 2 ticks both pass; with the scripts' 3 every state
# comes one tick late (a delay-1 repeater fed from tick 0 to 3 is on from 2 to 5, where the script wants it off
# at 4), as Java's repeaters would do with that pulse too.
PULSE_OF_THE_BEDROCK_PORT = pytest.mark.xfail(strict=True, reason=(
    "a 3-tick pulse, as the Bedrock port wrote the script (repeater_clock_bedrock: 'Change redstone pulse form 2 "
    "ticks to 3'); the expected states are a 2-tick pulse's: every state comes one tick late, in Java too"
))


@pytest.mark.parametrize("pulse", [2, pytest.param(3, marks=PULSE_OF_THE_BEDROCK_PORT)])
def test_repeater_delay_lines(pulse):
    """A pulse down four lines of repeaters (delays 4, 3, 2 and 1): which repeater of each line is on,
    every 2 ticks (a digit: the powered one; X: none)."""
    t = GameTest("RedstoneTests/repeater_delay_lines")
    lines = [[(x, 2, z) for z in range(1, 5)] for x in (4, 3, 2, 1)]
    states = ["XXX0", "XX01", "X002", "0013", "001X", "012X", None, "113X", "123X", "12XX", None, "23XX", None, None,
              "2XXX", "3XXX", None, None, None, "XXXX"]
    t.pulse_redstone((0, 2, 0), pulse)
    s = t.sequence()

    def check(state):
        for line, expected in zip(lines, state):
            on = -1 if expected == "X" else int(expected)
            for i, p in enumerate(line):
                t.assert_prop("powered", "true" if i == on else "false", p)

    for state in states:
        if state is None:
            s.then_idle(2)
        else:
            s.then_wait_after(2, lambda state=state: check(state))
    s.then_succeed()
    assert t.run() == 40


# This structure wires R to the torch under the script's Q: saved with that torch lit and Q open, an R pulse
# powers the dust (1, 2, 1) into the torch's block, so Q closes and not-Q opens (what the Bedrock variant,
# rs_latch_bedrock, expects after R). The Java script expects R to open Q, so it was written for a structure with
# the outputs the other way round; Microsoft disables it ("Redstone timing inconsistencies between java and
# bedrock"). With Q and not-Q read the other way round, the script passes at its own ticks with Java's 2-tick
# pulses.
OUTPUTS_OF_ANOTHER_STRUCTURE = pytest.mark.xfail(strict=True, reason=(
    "this structure's R pulse closes the trapdoor the script calls Q (the torch under it is the one R's dust "
    "powers) and opens not-Q, as rs_latch_bedrock expects; the script's Q and not-Q are another structure's"
))


@pytest.mark.parametrize("q, not_q", [((3, 4, 3), (0, 4, 2)),
                                      pytest.param((0, 4, 2), (3, 4, 3), marks=OUTPUTS_OF_ANOTHER_STRUCTURE)],
                         ids=["outputs_as_wired", "outputs_as_the_script_names_them"])
def test_rs_latch(q, not_q):
    t = GameTest("RedstoneTests/rs_latch")
    r, s_in = (1, 2, 0), (2, 2, 5)

    def state(qv, nqv):
        t.assert_prop("open", qv, q)
        t.assert_prop("open", nqv, not_q)

    (t.sequence()
     .then_execute(lambda: t.pulse_redstone(r, 2))
     .then_idle(4)
     .then_wait(lambda: state("true", "false"))
     .then_execute(lambda: t.pulse_redstone(r, 2))
     .then_execute_after(4, lambda: state("true", "false"))
     .then_execute(lambda: t.pulse_redstone(s_in, 2))
     .then_idle(4)
     .then_wait(lambda: state("false", "true"))
     .then_execute(lambda: t.pulse_redstone(s_in, 2))
     .then_execute_after(4, lambda: state("false", "true"))
     .then_succeed())
    assert t.run() == 16


# Java's test framework clears the ticks scheduled while the structure is placed (tests/gametest.py), and the
# script's stone at (0, 2, 5) lands behind the observer (0, 2, 6), which watches (0, 2, 7): nothing starts the
# repeater loop. Microsoft disables the script ("The ticks of Redstone repeater is too short in structure, causing
# the Redstone lamp will not go out"); its Bedrock variant runs another structure, with the repeaters at their
# longest delay.
@pytest.mark.xfail(strict=True, reason=(
    "nothing starts the loop: the stone the script sets at (0, 2, 5) lands behind the observer (0, 2, 6), which "
    "watches (0, 2, 7), and the pulses the structure's placement scheduled are cleared as Java's GameTestInfo "
    "clears them, so the first lamp never lights"
))
def test_repeater_delay():
    t = GameTest("RedstoneTests/repeater_delay", max_ticks=200)
    lamp1, lamp2 = (1, 2, 0), (3, 2, 0)
    t.set_block((0, 2, 5), "stone")
    (t.sequence()
         .then_wait(lambda: assert_power(t, lamp1, 15))
         .then_execute(lambda: assert_power(t, lamp2, 15))
         .then_wait(lambda: assert_power(t, lamp1, 0))
         .then_execute(lambda: assert_power(t, lamp2, 0))
         .then_succeed())
    t.run()


@pytest.mark.parametrize("pulse", [2, pytest.param(3, marks=PULSE_OF_THE_BEDROCK_PORT)])
def test_repeater_clock(pulse):
    t = GameTest("RedstoneTests/repeater_clock")
    stages = [(0, 1, 0), (2, 1, 0), (2, 1, 2), (0, 1, 2)]
    t.pulse_redstone((0, 4, 0), pulse)
    s = t.sequence()
    for i in range(32):
        def check(active=i % 4):
            for b, p in enumerate(stages):
                t.assert_prop("open", "true" if b == active else "false", p)
        s.then_wait_after(0 if i == 0 else 2, check)
    s.then_succeed()
    assert t.run() == 62


@pytest.mark.xfail(strict=True, reason=(
    "in this structure each lever's dust also climbs the iron block beside it and lies on its top; in Java dust "
    "powers the block under it and the block it climbs, so the comparator reading that block gives 15 and the "
    "line's end (5, 2, 4) is at 15 at tick 6, and the dust on top powers the fence gates it points into; the "
    "script's Java structure must keep the dust off the block (Microsoft disables it: 'Floating fence gates are "
    "powered differently')"
))
def test_wire_redirect():
    """Levers beside dust lines redirect the dust into them: the lines' ends stay unpowered and the fence gates
    above stay shut (the script reads the gates' in_wall, standing for open, which it could not read)."""
    t = GameTest("RedstoneTests/wire_redirect")
    levers = [(6, 2, 1), (3, 2, 0), (0, 2, 1)]
    wires = [(5, 2, 4), (3, 2, 4), (1, 2, 4)]
    gates = [(5, 3, 1), (5, 3, 3), (3, 3, 1), (3, 3, 3), (1, 3, 1), (1, 3, 3)]

    def check():
        for p in wires:
            assert_power(t, p, 0)
        for p in gates:
            t.assert_prop("in_wall", "false", p)
            t.assert_prop("open", "false", p)

    (t.sequence()
     .then_execute(lambda: [t.pull_lever(p) for p in levers])
     .then_idle(6)
     .then_execute(check)
     .then_succeed())
    assert t.run() == 6


@pytest.mark.xfail(strict=True, reason=(
    "the structure saves its levers with facing_direction, a state PyMCTranslate's Bedrock 1.17.10 table "
    "does not read: they load as ceiling levers with nothing above and pop at the first update, so there "
    "is no lever at (3, 2, 0) to pull"
))
def test_wireredirect_nonconductor():
    t = GameTest("RedstoneTests/wireredirect_nonconductor")
    levers = [(3, 2, 0), (1, 2, 0)]
    closed = [(2, 3, 0), (2, 3, 2), (1, 2, 2), (2, 2, 2), (3, 2, 2), (0, 2, 1), (4, 2, 1)]
    opened = [(3, 3, 1), (1, 3, 1)]

    def act():
        for p in levers:
            t.pull_lever(p)
        for p in closed:
            t.assert_prop("open", "false", p)
        for p in opened:
            t.assert_prop("open", "true", p)

    t.sequence().then_execute(act).then_succeed()
    assert t.run() == 0


def test_repeater_regeneration():
    t = GameTest("RedstoneTests/repeater_regeneration")
    t.set_block((0, 2, 0), "redstone_block")
    t.succeed_when(lambda: (t.assert_prop("open", "false", (6, 3, 4)), t.assert_prop("open", "true", (6, 3, 3))))
    t.run()


# The script asserts at tick 0, so it reads the states the structure was saved with, and this copy holds
# Bedrock's: the comparator (1, 2, 8), whose block receives 15 from the dust beside it, is saved unpowered
# (OutputSignal 0) with its dust at 0, where Java's comparator reads a container beyond a block only while the
# block receives less than 15 (Microsoft: "In the bedrock version, the chest is next to the square, causing the
# red stone signal to fail to transmit"). Its four chests are saved empty, so the comparator (6, 2, 14), which
# reads its chest through a block at 14, gives 0 where the script's Java structure gave 1.
SAVED_BY_BEDROCK = pytest.mark.xfail(strict=True, reason=(
    "the structure is saved with Bedrock's outputs: the comparator (1, 2, 8), its block at 15, unpowered and its "
    "dust (1, 2, 7) at 0, and no update reaches it before the script reads it at tick 0; its chests hold no items"
))


@SAVED_BY_BEDROCK
def test_comparator_container():
    t = GameTest("RedstoneTests/comparator_container")
    for p, level in (((6, 2, 2), 14), ((1, 2, 2), 15), ((6, 2, 7), 0), ((1, 2, 7), 15), ((6, 2, 13), 1),
                     ((1, 2, 13), 15)):
        assert_power(t, p, level)


def test_comparator_container_after_an_update_pass():
    """Updated once (the pass of a structure placed with updates), each comparator takes Java's output: through a
    block receiving 15 it gives 15 whatever the chest beyond holds; through a block receiving 14 it reads the chest
    (empty here: 0)."""
    t = GameTest("RedstoneTests/comparator_container")
    t.w.structure_updates(list(t.w.blocks()))
    t.w.step(2)  # a comparator's change lands 2 gt after its update
    for p, level in (((6, 2, 2), 14), ((1, 2, 2), 15), ((6, 2, 7), 0), ((1, 2, 7), 15), ((6, 2, 13), 0),
                     ((1, 2, 13), 15)):
        assert_power(t, p, level)


def test_a_wrong_expectation_fails_the_harness():
    """The harness can fail: an exact-tick event that passes at another tick fails the test."""
    t = GameTest("RedstoneTests/repeater_lock")
    t.set_block((0, 2, 2), "redstone_block")
    t.sequence().then_wait_after(3, lambda: t.assert_prop("open", "true", (2, 2, 1))).then_succeed()
    with pytest.raises(Failed, match="expected exactly tick 3"):
        t.run()
