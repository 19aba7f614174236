"""Minecraft's own flying-machine game tests (FlyingMachineTests of Microsoft's minecraft-gametests, all tagged
`suite:java_parity`: in Java each machine flies to the far end of its track and back) run on the engine from their
Bedrock structures, as tests/test_gametests_redstone.py runs the redstone ones."""

import pytest

from tests.gametest import GameTest

SLIME, HONEY, OBSERVER, STICKY = "slime_block", "honey_block", "observer", "sticky_piston"

# name: (how the script starts it, then the checks: (ticks after the previous step, [(block, position)]))
MACHINES = {
    "machine_a": (("fire", (1, 5, 1)), [(20, [(SLIME, (2, 3, 5))]), (20, [(SLIME, (2, 3, 1))])]),
    "machine_b": (("pulse", (5, 4, 1)), [(20, [(SLIME, (3, 3, 4))]), (20, [(SLIME, (4, 3, 1))])]),
    "machine_d": (("fire", (3, 7, 3)), [(16, [(SLIME, (5, 5, 2)), (SLIME, (2, 5, 8))])]),
    "machine_e": (("dirt", (1, 2, 1)), [(16, [(HONEY, (1, 11, 1))]), (20, [(OBSERVER, (1, 3, 1))])]),
    "machine_f": (("fire", (4, 6, 1)), [(18, [(SLIME, (3, 4, 8))]), (40, [(SLIME, (3, 4, 6)), (SLIME, (3, 4, 1))])]),
    "machine_g": (("pulse", (1, 3, 0)), [(16, [(SLIME, (2, 3, 6))]), (20, [(OBSERVER, (1, 3, 1))])]),
    "machine_h": (("pulse", (1, 4, 0)), [(20, [(SLIME, (1, 3, 8))]),
                                         (20, [(SLIME, (1, 3, 7)), (OBSERVER, (1, 4, 1))])]),
    "machine_i": (("dirt", (4, 2, 1)), [(18, [(HONEY, (3, 8, 1))]), (18, [(OBSERVER, (4, 3, 1))])]),
}


def fly(name: str, without=()) -> int:
    (how, at), checks = MACHINES[name]
    t = GameTest(f"FlyingMachineTests/{name}", without=without)
    s = t.sequence()
    # "fire": the script sets fire in front of an observer, as "dirt" sets dirt (docs/redstone.md section 81)
    s.then_execute(lambda: t.pulse_redstone(at, 2) if how == "pulse" else t.set_block(at, how))
    for ticks, blocks in checks:
        s.then_execute_after(ticks, lambda blocks=blocks: [t.assert_block(b, p) for b, p in blocks])
    s.then_succeed()
    return t.run()


DIFFER = {
    "machine_i": "the structure already holds dirt at (4, 2, 1), where the script sets dirt to start the machine: "
                 "setting a block to the state it has changes nothing and sends no update (Java's Level.setBlock), so "
                 "the observer watching it never fires and nothing moves (test_machine_i_from_an_empty_trigger)",
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=DIFFER[n]))
                                  if n in DIFFER else n for n in sorted(MACHINES)])
def test_flying_machine(name):
    assert fly(name) == sum(ticks for ticks, _ in MACHINES[name][1])


def test_machine_i_from_an_empty_trigger():
    """machine_i with its trigger's cell empty, as the script expects it: dirt set there starts it, and it flies to
    the far end and back at the script's ticks."""
    assert fly("machine_i", without=[(4, 2, 1)]) == 36


def machine_c(without=()) -> int:
    """machine_c flies out; an obsidian block set in its way stops it on the way back."""
    t = GameTest("FlyingMachineTests/machine_c", without=without)
    (t.sequence()
     .then_execute(lambda: t.pulse_redstone((4, 4, 0), 2))
     .then_execute_after(20, lambda: t.assert_block(SLIME, (4, 3, 5)))
     .then_execute_after(20, lambda: t.set_block((4, 3, 4), "obsidian"))
     .then_execute_after(2, lambda: t.assert_block(STICKY, (4, 3, 2)))
     .then_succeed())
    return t.run()


@pytest.mark.xfail(strict=True, reason=(
    "the structure already holds, at (4, 3, 4), the obsidian the script sets there only at tick 40: it stands in the "
    "machine's path from the start, so the machine cannot fly out and at tick 20 there is no slime block at (4, 3, 5) "
    "(test_machine_c_without_the_early_obsidian)"
))
def test_machine_c():
    assert machine_c() == 42


def test_machine_c_without_the_early_obsidian():
    assert machine_c(without=[(4, 3, 4)]) == 42
