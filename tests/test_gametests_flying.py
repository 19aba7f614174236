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


def fly(name: str) -> int:
    (how, at), checks = MACHINES[name]
    t = GameTest(f"FlyingMachineTests/{name}")
    s = t.sequence()
    s.then_execute(lambda: t.pulse_redstone(at, 2) if how == "pulse" else t.set_block(at, how))
    for ticks, blocks in checks:
        s.then_execute_after(ticks, lambda blocks=blocks: [t.assert_block(b, p) for b, p in blocks])
    s.then_succeed()
    return t.run()


FIRE = "the script starts the machine by setting fire in front of its observer; the engine has no fire"
DIFFER = {
    "machine_a": FIRE, "machine_d": FIRE, "machine_f": FIRE,
    "machine_i": "at tick 18 there is no honey block at the far end, (3, 8, 1)",
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=DIFFER[n]))
                                  if n in DIFFER else n for n in sorted(MACHINES)])
def test_flying_machine(name):
    assert fly(name) == sum(ticks for ticks, _ in MACHINES[name][1])


@pytest.mark.xfail(strict=True, reason=(
    "at tick 20 there is no slime block at the far end, (4, 3, 5): the structure holds from the start the obsidian "
    "the script sets at (4, 3, 4) only at tick 40, in the machine's path; with it removed the machine still does not "
    "get there by tick 20 (not explained yet)"
))
def test_machine_c():
    """machine_c flies out; an obsidian block set in its way stops it on the way back."""
    t = GameTest("FlyingMachineTests/machine_c")
    (t.sequence()
     .then_execute(lambda: t.pulse_redstone((4, 4, 0), 2))
     .then_execute_after(20, lambda: t.assert_block(SLIME, (4, 3, 5)))
     .then_execute_after(20, lambda: t.set_block((4, 3, 4), "obsidian"))
     .then_execute_after(2, lambda: t.assert_block(STICKY, (4, 3, 2)))
     .then_succeed())
    assert t.run() == 42
