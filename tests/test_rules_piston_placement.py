"""Pistons as they are placed (docs/redstone.md sections 50 and 51): the surface walk of a structure's placement, a
piston checking its power as it is placed, a head waiting for its base, a retracting base holding what is on its
back. Every expectation is an exact state at an exact tick."""

from __future__ import annotations

from scicraft_viz import World

STONE, RB = "minecraft:stone", "minecraft:redstone_block"


def floor(n: int = 4) -> dict:
    return {(x, 0, z): STONE for x in range(n) for z in range(n)}


def test_observers_facing_out_of_a_structure_pulse_in_the_surface_walks_order():
    """Two observers facing out of a placed structure, a piston in front of each and one gap between the pistons:
    the walk over the structure's surface reaches faces across y before faces across x, so the top observer,
    facing up, is scheduled first, though the placement pass lists the bottom one (y 1) first; its piston takes
    the gap."""
    blocks = floor(3)
    blocks.update({(1, 1, 1): "minecraft:piston[extended=false,facing=up]",
                   **{(1, y, 1): "minecraft:white_concrete" for y in range(2, 6)},
                   (1, 7, 1): "minecraft:piston[extended=false,facing=down]",
                   (1, 8, 1): "minecraft:observer[facing=up,powered=false]",
                   (0, 1, 1): "minecraft:observer[facing=west,powered=false]"})
    w = World.from_blocks(blocks, replay=True)
    order = sorted(p for p in blocks if blocks[p] in (STONE, "minecraft:white_concrete"))  # full blocks first
    order = sorted(order, key=lambda p: (p[1], p[0], p[2])) + sorted(
        (p for p in blocks if p not in order), key=lambda p: (p[1], p[0], p[2]))
    w.structure_updates(order)
    assert [s.pos for s in w.scheduled()] == [(1, 8, 1), (0, 1, 1)]
    w.step(2)  # the pulses start at tick 2; both pistons queue, the top one first, and it takes the gap
    assert w.get_block((1, 6, 1)) == "minecraft:moving_piston[facing=down,type=normal]"
    assert w.get_block((1, 1, 1)) == "minecraft:piston[extended=false,facing=up]"


def test_an_observer_whose_watched_side_is_inside_the_structure_waits_for_the_pass():
    """The surface walk passes over an observer that watches a block of the structure: only the pass schedules
    it, in the pass's order, after the one the walk reached."""
    blocks = floor(3)
    blocks.update({(0, 1, 1): STONE, (1, 1, 1): "minecraft:observer[facing=west,powered=false]",
                   (2, 2, 1): "minecraft:observer[facing=up,powered=false]"})  # the stone first: nothing pulses yet
    w = World.from_blocks(blocks, replay=True)
    w.structure_updates([(0, 1, 1), (1, 1, 1), (2, 2, 1)])
    assert [s.pos for s in w.scheduled()] == [(2, 2, 1), (1, 1, 1)]


def test_a_pasted_piston_checks_its_power_as_it_is_placed():
    """A piston pasted (kept as saved) beside a redstone block already there queues its push as it lands, with no
    neighbour of it changing: it is out at tick 1 and the stone in front arrives at tick 3."""
    w = World.from_blocks({**floor(), (0, 1, 1): RB, (2, 1, 1): STONE}, replay=True)
    w.set_block((1, 1, 1), "minecraft:piston[extended=false,facing=east]")
    w.step(1)
    assert w.get_block((1, 1, 1)) == "minecraft:piston[extended=true,facing=east]"
    assert w.get_block((3, 1, 1)) == "minecraft:moving_piston[facing=east,type=normal]"
    w.step(2)
    assert w.get_block((3, 1, 1)) == STONE


def test_a_pasted_extended_piston_with_no_power_retracts_at_tick_1():
    w = World.from_blocks(floor(), replay=True)
    w.set_block((1, 1, 1), "minecraft:piston[extended=true,facing=east]")
    w.set_block((2, 1, 1), "minecraft:piston_head[facing=east,short=false,type=normal]")
    w.step(1)
    assert w.get_block((1, 1, 1)) == "minecraft:moving_piston[facing=east,type=normal]"
    assert w.get_block((2, 1, 1)) == "minecraft:air"
    w.step(2)
    assert w.get_block((1, 1, 1)) == "minecraft:piston[extended=false,facing=east]"


def test_a_head_placed_before_its_base_stays_and_goes_when_the_base_goes():
    """A head hears neighbour updates without leaving (its base may be placed later, as a paste places a piston
    after its head); it goes when the block behind it changes to something that is not its base."""
    w = World.from_blocks(floor(), replay=True)
    w.set_block((2, 1, 1), "minecraft:piston_head[facing=east,short=false,type=normal]")
    w.set_block((2, 1, 2), STONE)  # a neighbour update: the head stays
    w.set_block((2, 2, 1), STONE)
    assert w.get_block((2, 1, 1)) == "minecraft:piston_head[facing=east,short=false,type=normal]"
    w.set_block((0, 1, 1), RB)
    w.set_block((1, 1, 1), "minecraft:piston[extended=true,facing=east]")  # its base, powered: all stays
    w.step(3)
    assert w.get_block((2, 1, 1)) == "minecraft:piston_head[facing=east,short=false,type=normal]"
    w.set_block((1, 1, 1), STONE)  # the block behind it is no base: the head goes at once
    assert w.get_block((2, 1, 1)) == "minecraft:air"


def test_dust_on_the_back_of_a_retracting_piston_stays():
    """A piston facing down, extended, with dust on its back (the top face of the extended base): when it
    retracts, the moving_piston it becomes keeps the extended base's box, so the dust keeps its support through
    the retraction and after."""
    w = World.from_blocks({**floor(), (1, 3, 1): "minecraft:piston[extended=true,facing=down]",
                           (1, 2, 1): "minecraft:piston_head[facing=down,short=false,type=normal]",
                           (1, 4, 1): "minecraft:redstone_wire[east=none,north=none,power=0,south=none,west=none]",
                           (2, 3, 1): RB}, replay=True)
    w.step(2)
    assert w.get_block((1, 3, 1)) == "minecraft:piston[extended=true,facing=down]"
    w.remove_block((2, 3, 1))
    w.step(1)
    assert w.get_block((1, 3, 1)) == "minecraft:moving_piston[facing=down,type=normal]"
    assert w.get_block((1, 4, 1)).startswith("minecraft:redstone_wire")
    w.step(2)
    assert w.get_block((1, 3, 1)) == "minecraft:piston[extended=false,facing=down]"
    assert w.get_block((1, 4, 1)).startswith("minecraft:redstone_wire")


def test_a_torch_lighting_tells_the_piston_beside_the_block_above_it_before_the_one_beside_it():
    """A wall torch lights with a piston facing up in front of it and a second one in front of the block above it
    (which the torch powers), the lower piston's push would carry the upper one: vanilla's torch tells the
    neighbours of the block above it before its own neighbours, so the upper piston queues first and extends, and
    the lower one, finding an extended piston in its way, stays."""
    blocks = {(x, 0, z): STONE for x in range(5) for z in range(5)}
    blocks.update({(2, 1, 2): STONE, (2, 2, 2): "minecraft:lever[face=floor,facing=north,powered=true]",
                   (2, 2, 1): STONE,
                   (2, 1, 1): "minecraft:redstone_wall_torch[facing=north,lit=false]",
                   (2, 1, 0): "minecraft:piston[extended=false,facing=up]",
                   (2, 2, 0): "minecraft:piston[extended=false,facing=up]", (2, 3, 0): STONE})
    w = World.from_blocks(blocks, replay=True)
    w.step(3)
    assert w.get_block((2, 1, 1)) == "minecraft:redstone_wall_torch[facing=north,lit=false]"
    w.use((2, 2, 2))  # the lever goes off at tick 3: the torch lights at tick 5
    w.step(2)
    assert w.get_block((2, 1, 1)) == "minecraft:redstone_wall_torch[facing=north,lit=true]"
    assert w.get_block((2, 2, 0)) == "minecraft:piston[extended=true,facing=up]"
    assert w.get_block((2, 1, 0)) == "minecraft:piston[extended=false,facing=up]"
    assert w.get_block((2, 4, 0)) == "minecraft:moving_piston[facing=up,type=normal]"
