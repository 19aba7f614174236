"""A structure placed as the game places one (`World.from_build_file(placed=True)`, docs/redstone.md section 86):
the blocks written in the game's order, each block's block-entity data loaded quietly right after it, and the
comparators beside each block entity re-reading it at the end."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicraft_viz import World
from scicraft_viz.engine import kernels as sim
from scicraft_viz.errors import InputError

# A barrel read by a comparator (saved powered, its output 1) that strongly powers the stone in front of it; on that
# stone an extended sticky piston, and beside it dust reading the stone (saved at power 1).
LOCK = b"""{DataVersion: 4903, size: [4, 4, 1], palette: [
  {Name: "minecraft:stone"},
  {Name: "minecraft:barrel", Properties: {facing: "up", open: "false"}},
  {Name: "minecraft:comparator", Properties: {facing: "west", mode: "compare", powered: "true"}},
  {Name: "minecraft:sticky_piston", Properties: {extended: "true", facing: "up"}},
  {Name: "minecraft:piston_head", Properties: {facing: "up", short: "false", type: "sticky"}},
  {Name: "minecraft:redstone_wire", Properties: {east: "side", north: "none", power: "1", south: "none",
                                                 west: "side"}}],
 blocks: [
  {pos: [0, 1, 0], state: 1, nbt: {id: "minecraft:barrel", Items: [{Slot: 0b, id: "minecraft:redstone", count: 64}]}},
  {pos: [1, 1, 0], state: 2, nbt: {id: "minecraft:comparator", OutputSignal: 1}},
  {pos: [2, 2, 0], state: 3}, {pos: [2, 3, 0], state: 4}, {pos: [3, 1, 0], state: 5},
  {pos: [0, 0, 0], state: 0}, {pos: [1, 0, 0], state: 0}, {pos: [2, 0, 0], state: 0}, {pos: [3, 0, 0], state: 0},
  {pos: [2, 1, 0], state: 0}],
 entities: []}"""
COMPARATOR, PISTON, DUST = (1, 1, 0), (2, 2, 0), (3, 1, 0)


def _block_events(w: World) -> list[tuple[tuple[int, int, int], int]]:
    g = w.g
    return [(tuple(g.P[g.bev[i, 0]].tolist()), int(g.bev[i, 1])) for i in range(g.meta[sim.M_BEVH],
                                                                                 g.meta[sim.M_NBEV])]


def test_a_placed_structure_writes_its_blocks_before_the_comparator_that_powers_them():
    """The piston and the dust are written before the comparator (blocks with block-entity data go last): the
    piston, unpowered then, queues its retraction (block event 1) and the dust takes power 0. The comparator's saved
    output, loaded without an update, powers the piston again before the event runs, so the piston stays; no update
    reaches the dust, which stays at 0."""
    w = World.from_build_file(LOCK, fmt="snbt", placed=True)
    assert _block_events(w) == [(PISTON, sim.BE_RETRACT)]
    assert w.power(DUST).level == 0
    assert w.output_signal(COMPARATOR) == 1 and w.scheduled() == []
    w.step(3)
    assert w.get_block(PISTON) == "minecraft:sticky_piston[extended=true,facing=up]"
    assert w.power(DUST).level == 0


def test_pasted_the_engine_s_own_way_the_comparator_s_output_reaches_the_dust():
    """Without `placed` the comparators' outputs are set after every block, with updates: the dust hears it."""
    w = World.from_build_file(LOCK, fmt="snbt")
    assert w.power(DUST).level == 1


def test_a_placed_comparator_whose_saved_output_its_container_contradicts_re_reads_it_at_the_end():
    """The barrel emptied: the comparator's saved output 1 is loaded, then the barrel's setChanged has it re-read
    the barrel (now 0), so it schedules its change (2 game ticks) and turns off."""
    empty = LOCK.replace(b'Items: [{Slot: 0b, id: "minecraft:redstone", count: 64}]', b"Items: []")
    w = World.from_build_file(empty, fmt="snbt", placed=True)
    assert [(s.pos, s.tick - w.tick) for s in w.scheduled()] == [(COMPARATOR, 2)]
    w.step(2)
    assert w.get_block(COMPARATOR) == "minecraft:comparator[facing=west,mode=compare,powered=false]"


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.none(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8),
                 st.lists(st.booleans(), max_size=2)).filter(lambda v: v not in (True, False)))
def test_placed_takes_only_true_or_false(value):
    with pytest.raises(InputError, match="from_build_file: placed must be True or False"):
        World.from_build_file(LOCK, fmt="snbt", placed=value)


def test_the_blocks_a_structure_gives_block_entity_data_are_written_last():
    """The game's groups: full blocks, the others, then the blocks with `nbt` in the file, each by y, x, z; a
    comparator without `nbt` goes with the others."""
    from scicraft_viz.engine.formats import decode_build
    from scicraft_viz.engine.structure import placement_order

    text = b"""{DataVersion: 4903, size: [2, 2, 1], palette: [{Name: "minecraft:stone"},
      {Name: "minecraft:comparator", Properties: {facing: "west", mode: "compare", powered: "false"}}],
     blocks: [{pos: [0, 1, 0], state: 1, nbt: {id: "minecraft:comparator", OutputSignal: 0}},
      {pos: [1, 1, 0], state: 1}, {pos: [1, 0, 0], state: 0}, {pos: [0, 0, 0], state: 0}], entities: []}"""
    build = decode_build(text, "snbt")
    assert build.with_data == {(0, 1, 0)}
    assert [p for p, _ in placement_order(build)] == [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
    assert [p for p, _ in placement_order(list(build))] == [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]
