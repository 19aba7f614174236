"""Moving-block builds from public designs, built block by block: a 2x2 piston door, an observer clock, a
flying machine and a sticky-piston T flip-flop. Each function returns a fresh World (placed as a player
places, so torches and dust take their state from their surroundings); the module's constants name the
positions a caller works or reads. docs/redstone.md sections 28-32 give the rules they run on, and
tests/test_builds_moving.py pins what each does, tick by tick."""

from __future__ import annotations

from scicraft_viz.engine.world import World

Pos = tuple[int, int, int]

# ---------------------------------------------------------------- 2x2 piston door
# Two stacks of sticky pistons face each other across a doorway two wide and two high (x 0-1, y 1-2, z 0).
# A torch behind each lower piston powers it and, through the block above the torch, the upper one: the
# door stands closed. A lever beside the dust under the doorway powers the torches' blocks, the torches go
# out and the pistons pull the four door blocks back into the walls.
DOOR_LEVER: Pos = (0, 1, 1)
DOORWAY: tuple[Pos, ...] = ((0, 1, 0), (1, 1, 0), (0, 2, 0), (1, 2, 0))
DOOR_POCKETS: tuple[Pos, ...] = ((-1, 1, 0), (2, 1, 0), (-1, 2, 0), (2, 2, 0))  # where the blocks wait, open


def piston_door_2x2(door_block: str = "stone") -> World:
    """A closed 2x2 flush piston door with its lever off (the lever opens it, 4 gt after the flip)."""
    w = World()
    for x in range(-4, 6):
        for z in range(-1, 3):
            w.set_block((x, -1, z), "stone")
    for x in range(-2, 4):
        w.set_block((x, 0, 0), "redstone_wire")
        for z in (-1, 1, 2):
            w.set_block((x, 0, z), "stone")
    for x in (-3, 4):  # the dust line ends in these blocks, each carrying a torch and a block above it
        w.set_block((x, 0, 0), "stone")
        w.set_block((x, 1, 0), "redstone_torch")
        w.set_block((x, 2, 0), "stone")
    for y in (1, 2):
        w.set_block((-2, y, 0), "sticky_piston[facing=east]")
        w.set_block((-1, y, 0), door_block)
        w.set_block((3, y, 0), "sticky_piston[facing=west]")
        w.set_block((2, y, 0), door_block)
    w.set_block(DOOR_LEVER, "lever[face=floor,facing=north]")
    w.step(4)  # the torches light and the pistons push the door shut
    return w


# ---------------------------------------------------------------- observer clock
# Two observers facing each other: each sees the other switch and answers 2 gt later. Behind one, dust
# shows its pulses; behind the other a piston pushes a block out and back on each pulse.
CLOCK_OBSERVERS: tuple[Pos, Pos] = ((0, 1, 0), (1, 1, 0))
CLOCK_DUST: Pos = (2, 1, 0)
CLOCK_PISTON: Pos = (-1, 1, 0)
CLOCK_PUSHED: Pos = (-2, 1, 0)


def observer_clock() -> World:
    """An observer clock with a piston and dust on its outputs, stopped: placing the second observer of
    the pair (`start_observer_clock`) starts it."""
    w = World()
    for x in range(-4, 4):
        for z in (-1, 0, 1):
            w.set_block((x, 0, z), "stone")
    w.set_block(CLOCK_OBSERVERS[0], "observer[facing=east]")  # watches the east one, outputs west
    w.set_block(CLOCK_DUST, "redstone_wire")
    w.set_block(CLOCK_PISTON, "piston[facing=west]")
    w.set_block(CLOCK_PUSHED, "stone")
    return w


def start_observer_clock(w: World) -> None:
    """Place the clock's second observer: the first sees it appear and the clock runs from there."""
    w.set_block(CLOCK_OBSERVERS[1], "observer[facing=west]")


# ---------------------------------------------------------------- flying machine
# The Minecraft wiki's two-way engine "B" (Tutorials/Flying machines): two rows of three, each a sticky
# piston, a slime block and an observer. Powering the rear sticky piston once starts it; it then moves
# east by itself, one block per 10 gt, until something it cannot push stands in its way.
FLY_ROWS: dict[Pos, str] = {
    (1, 0, 0): "observer[facing=west]",
    (2, 0, 0): "slime_block",
    (3, 0, 0): "sticky_piston[facing=west]",
    (2, 0, 1): "sticky_piston[facing=east]",
    (3, 0, 1): "slime_block",
    (4, 0, 1): "observer[facing=east]",
}
FLY_KICK: Pos = (2, 1, 1)  # above the rear sticky piston: a redstone block here powers it


def flying_machine(wall_x: int | None = None) -> World:
    """The engine at rest in the air at y 0 (no floor), facing east; with `wall_x`, an obsidian wall
    across both rows at that x stops it."""
    w = World()
    for p, b in FLY_ROWS.items():
        w.set_block(p, b)
    if wall_x is not None:
        for z in (0, 1):
            w.set_block((wall_x, 0, z), "obsidian")
    return w


def kick_flying_machine(w: World) -> None:
    """Start the engine as the wiki does: a redstone block above its rear sticky piston for 2 gt."""
    w.set_block(FLY_KICK, "redstone_block")
    w.step(2)
    w.remove_block(FLY_KICK)


def flying_machine_parts(w: World) -> dict[Pos, str]:
    """Every block of the machine where it stands now (blocks in motion as moving_piston)."""
    return {p: b for p, b in w.blocks().items() if p[1] == 0 and not b.startswith("minecraft:obsidian")}


# ---------------------------------------------------------------- sticky-piston T flip-flop
# A sticky piston given a pulse shorter than its move leaves the block it pushed where it went; the next
# such pulse, with nothing in front of the head, pulls the block back. A rising edge of the button makes
# that pulse: the button lifts an observer on a sticky piston, and the observer, which fires whenever a
# piston moves it, powers the second sticky piston only from the raised position.
TFF_BUTTON: Pos = (-2, 1, 0)
TFF_LIFT: Pos = (0, 1, 0)  # sticky piston facing up, the observer on its face
TFF_PISTON: Pos = (0, 3, 1)  # sticky piston facing south, fed from behind by the raised observer
TFF_BLOCK_HOME: Pos = (0, 3, 2)
TFF_BLOCK_OUT: Pos = (0, 3, 3)
TFF_LAMP: Pos = (0, 3, 4)  # lit while the redstone block stands out beside it


def t_flip_flop() -> World:
    """A sticky-piston T flip-flop, output off: each press of the button toggles the lamp."""
    w = World()
    w.set_block((-1, 1, 0), "stone")
    w.set_block(TFF_BUTTON, "stone_button[face=wall,facing=west]")
    w.set_block(TFF_LIFT, "sticky_piston[facing=up]")
    w.set_block((0, 2, 0), "observer[facing=north]")  # its back points south
    w.set_block(TFF_PISTON, "sticky_piston[facing=south]")
    w.set_block(TFF_BLOCK_HOME, "redstone_block")
    w.set_block(TFF_LAMP, "redstone_lamp")
    return w
