"""Minecraft's own piston game tests (PistonTests of Microsoft's minecraft-gametests: those tagged
`suite:java_parity`, whose expectations are Java Edition's, and those every edition shares) run on the engine from
their Bedrock structures, as tests/test_gametests_redstone.py runs the redstone ones. Two scripts cannot run as
written in any edition (quasiconnectivity pulls an undefined `pullLever`, triple_extender calls `new` on a
position): they are ported as their authors meant them, with the positions they name."""

import pytest

from tests.gametest import GameTest


def test_normal_extend():
    t = GameTest("PistonTests/normal_extend")
    t.assert_block("stone", (3, 2, 0), False)
    t.pull_lever((0, 3, 0))
    t.succeed_when(lambda: t.assert_block("stone", (3, 2, 0)))
    t.run()


def test_sticky_extend():
    t = GameTest("PistonTests/sticky_extend")
    t.assert_block("stone", (3, 2, 0), False)
    t.pull_lever((0, 3, 0))
    t.succeed_when(lambda: t.assert_block("stone", (3, 2, 0)))
    t.run()


def test_normal_extend_retract():
    t = GameTest("PistonTests/normal_extend")
    ext, ret, lever = (3, 2, 0), (2, 2, 0), (0, 3, 0)
    t.pull_lever(lever)
    (t.sequence()
     .then_wait_after(3, lambda: (t.assert_block("stone", ext), t.assert_block("piston_head", ret)))
     .then_execute(lambda: t.pull_lever(lever))
     .then_wait_after(1, lambda: (t.assert_block("air", ret), t.assert_block("stone", ext)))
     .then_succeed())
    assert t.run() == 4


def test_sticky_extend_retract():
    t = GameTest("PistonTests/sticky_extend")
    ext, ret, lever = (3, 2, 0), (2, 2, 0), (0, 3, 0)
    t.pull_lever(lever)
    (t.sequence()
     .then_wait_after(3, lambda: (t.assert_block("stone", ext), t.assert_block("piston_head", ret),
                                  t.assert_prop("type", "sticky", ret)))
     .then_execute(lambda: t.pull_lever(lever))
     .then_wait_after(3, lambda: (t.assert_block("stone", ret), t.assert_block("air", ext)))
     .then_succeed())
    assert t.run() == 6


def test_quasiconnectivity():
    t = GameTest("PistonTests/quasiconnectivity")
    lever = (0, 4, 0)
    t.pull_lever(lever)
    (t.sequence()
     .then_wait_after(3, lambda: (t.assert_block("stone", (3, 3, 0)), t.assert_block("stone", (3, 2, 0))))
     .then_execute(lambda: t.pull_lever(lever))
     .then_wait_after(3, lambda: (t.assert_block("stone", (2, 3, 0)), t.assert_block("stone", (2, 2, 0))))
     .then_succeed())
    assert t.run() == 6


def test_redstone_simple_vertical_bud():
    t = GameTest("PistonTests/redstone_simple_vertical_bud")
    t.set_block((0, 1, 0), "stone")
    s = (t.sequence()
         .then_idle(3)
         .then_wait(lambda: t.assert_block("redstone_block", (0, 5, 0)))
         .then_idle(1)
         .then_wait(lambda: t.assert_block("air", (0, 5, 0)))
         .then_succeed())
    t.run()
    assert s.passed[1] == 3


@pytest.mark.xfail(strict=True, reason=(
    "the structure already holds stone at (0, 1, 0), so the script's setBlock of stone there changes "
    "nothing and sends no update (as in Java); the quasi-powered sticky piston is never updated and never"
    " fires"
))
def test_redstone_simple_horizontal_bud():
    t = GameTest("PistonTests/redstone_simple_horizontal_bud")
    ext, ret = (3, 2, 0), (2, 2, 0)
    t.set_block((0, 1, 0), "stone")
    (t.sequence()
     .then_wait_after(3, lambda: (t.assert_block("redstone_block", ext), t.assert_block("air", ret)))
     .then_wait_after(3, lambda: (t.assert_block("air", ext), t.assert_block("redstone_block", ret)))
     .then_succeed())
    assert t.run() == 6


def test_redstone_bud():
    t = GameTest("PistonTests/redstone_bud", setup_ticks=10)
    block, lever = (0, 3, 5), (0, 4, 0)
    t.pull_lever(lever)
    (t.sequence()
     .then_wait_after(3, lambda: t.assert_block("redstone_block", block))
     .then_wait_after(5, lambda: t.assert_block("air", block))
     .then_wait(lambda: t.pull_lever(lever))
     .then_wait_after(3, lambda: t.assert_block("redstone_block", block))
     .then_wait_after(5, lambda: t.assert_block("air", block))
     .then_succeed())
    assert t.run() == 16


def test_push_limit():
    t = GameTest("PistonTests/push_limit")
    t.assert_block("gold_block", (0, 2, 6))
    t.assert_block("emerald_block", (2, 2, 6))
    t.pull_lever((1, 2, 0))
    t.succeed_when(lambda: (t.assert_block("gold_block", (0, 2, 7)), t.assert_block("emerald_block", (2, 2, 6))))
    t.run()


@pytest.mark.xfail(strict=True, reason=(
    "the structure is not the script's: its box is 3 x 3 x 5 and the script's trigger (3, 1, 1) lies "
    "outside it; nothing fires"
))
def test_block_leave():
    """A 2-tick pulse: the sticky piston pushes its block and drops it; the next pulse pulls it back."""
    t = GameTest("PistonTests/block_leave")
    trigger, ret, ext = (3, 1, 1), (1, 1, 1), (0, 1, 1)

    def concrete(p):
        assert t.name(p).endswith("_concrete"), f"tick {t.tick}: {p} holds {t.name(p)}, expected concrete"

    t.pulse_redstone(trigger, 2)
    (t.sequence()
     .then_wait_after(3, lambda: (concrete(ext), t.assert_block("air", ret)))
     .then_execute_after(3, lambda: t.pulse_redstone(trigger, 2))
     .then_wait_after(5, lambda: (concrete(ret), t.assert_block("air", ext)))
     .then_succeed())
    assert t.run() == 11


def test_one_tick_pulse():
    t = GameTest("PistonTests/one_tick_pulse")
    ret, ext, button = (1, 2, 3), (0, 2, 3), (2, 2, 0)

    def glass(p):
        assert t.name(p).endswith("stained_glass"), f"tick {t.tick}: {p} holds {t.name(p)}, expected stained glass"

    t.press_button(button)
    s = (t.sequence()
         .then_wait_after(2, lambda: glass(ext))
         .then_idle(30)
         .then_wait(lambda: t.press_button(button))
         .then_wait_after(4, lambda: (glass(ret), t.assert_block("air", ext)))
         .then_succeed())
    t.run()
    assert s.passed[:2] == [2, 32]


def test_double_extender():
    t = GameTest("PistonTests/double_extender")
    lever, a, b = (2, 3, 2), (0, 2, 2), (0, 2, 4)
    t.pull_lever(lever)
    t.assert_block("emerald_block", a)
    (t.sequence()
     .then_wait_after(11, lambda: (t.assert_block("emerald_block", b), t.pull_lever(lever)))
     .then_wait_after(12, lambda: t.assert_block("emerald_block", a))
     .then_succeed())
    assert t.run() == 23


@pytest.mark.xfail(strict=True, reason=(
    "the structure cannot meet the script's first check by Java's rules: the observer at (0, 7, 3) gives the top "
    "sticky piston (0, 7, 4) a 2-game-tick pulse; its push at test tick 2 carries the pistons below it a block down, "
    "and its retraction at tick 4 comes before they land (a tick runs its block events before its moving blocks "
    "advance), so it completes their move instead of pulling the middle one back (PistonBaseBlock.triggerEvent), "
    "and (0, 6, 4) stays empty; on the button's release the top piston extends into that empty cell and "
    "retracts while the piston below is extended, which it cannot pull. The script waits for sticky pistons at "
    "(0, 7, 4), (0, 6, 4) and (0, 5, 4) with concrete at (0, 1, 4) and times out, before its second press"
))
def test_triple_extender():
    t = GameTest("PistonTests/triple_extender")
    retracted, extended, trigger = (0, 4, 4), (0, 1, 4), (0, 8, 0)
    arms = [(0, 7, 4), (0, 6, 4), (0, 5, 4)]

    def concrete(p):
        assert t.name(p).endswith("_concrete"), f"tick {t.tick}: {p} holds {t.name(p)}, expected concrete"

    t.press_button(trigger)
    (t.sequence()
     .then_idle(30)
     .then_wait(lambda: ([t.assert_block("sticky_piston", p) for p in arms], concrete(extended)))
     .then_idle(20)
     .then_wait(lambda: t.press_button(trigger))
     .then_idle(42)
     .then_wait(lambda: ([t.assert_block("sticky_piston", p) for p in arms], concrete(retracted)))
     .then_succeed())
    t.run()


@pytest.mark.xfail(strict=True, reason=(
    "not a Java-parity test (Bedrock's default suite only), and its piston loads retracted beside a lever saved on "
    "(Bedrock keeps the extension in the PistonArm block entity): the pull turns the lever off, nothing moves, and "
    "the observer watching the piston never fires; the pulse it showed at tick 2 came from the structure's "
    "placement, which Java's framework clears"
))
def test_observer_retraction_timing():
    t = GameTest("PistonTests/observer_retraction_timing")
    observer = (2, 2, 1)
    t.pull_lever((3, 2, 2))
    (t.sequence()
     .then_execute(lambda: t.assert_prop("powered", "false", observer))
     .then_idle(2)
     .then_execute(lambda: t.assert_prop("powered", "true", observer))
     .then_succeed())
    assert t.run() == 2


@pytest.mark.xfail(strict=True, reason=(
    "not a Java-parity test: Microsoft tags it for Bedrock's default suite only, so tick 14 is Bedrock's timing; "
    "and two of its sticky pistons, (2, 1, 2) and (2, 1, 5), load as extended=false with a head in front (Bedrock "
    "keeps a piston's extension in its PistonArm block entity, not its state). Here (0, 1, 3) holds a piston head "
    "at tick 14"
))
def test_instant_retraction():
    t = GameTest("PistonTests/instant_retraction")
    t.set_block((2, 1, 1), "air")

    def at_14():  # succeedOnTickWhen(14, ...): the check is made at tick 14 exactly
        assert t.name((0, 1, 3)).endswith("_concrete"), f"(0, 1, 3) holds {t.name((0, 1, 3))} at tick 14"
        t.succeed()
    t.run_after_delay(14, at_14)
    assert t.run() == 14


def test_backside():
    t = GameTest("PistonTests/backside")
    buttons = [(3, 3, 0), (1, 2, 1), (4, 3, 3), (1, 4, 3), (3, 3, 6), (0, 3, 5)]
    for p in buttons:
        t.press_button(p)
    (t.sequence()
     .then_idle(30)
     .then_wait(lambda: [t.assert_block("stone_button", p) for p in buttons])
     .then_succeed())
    assert t.run() == 30


def test_redstone_matrix():
    t = GameTest("PistonTests/redstone_matrix")
    t.press_button((1, 3, 1))
    t.sequence().then_idle(30).then_wait(lambda: t.assert_block("redstone_wire", (1, 4, 2))).then_succeed()
    assert t.run() == 30
