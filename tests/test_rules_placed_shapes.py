"""Shapes in a placed structure (docs/redstone.md section 91): each block written sends shape updates to the blocks
already written beside it, so a note block takes its instrument anew when a block is written above it as when one is
written below it; one with nothing written after it keeps its saved instrument unless the update pass
(`World.structure_updates`) follows, which works every block's shape out from its neighbours, dust's sides too."""

from __future__ import annotations

from test_rules_landing_order import _pushed_column

from scicraft_viz import World

# Two note blocks saved with the harp on stone: the first has a target above it, the second nothing.
NOTES = b"""{DataVersion: 4903, size: [3, 3, 1], palette: [
  {Name: "minecraft:stone"},
  {Name: "minecraft:note_block", Properties: {instrument: "harp", note: "3", powered: "false"}},
  {Name: "minecraft:target", Properties: {power: "0"}}],
 blocks: [{pos: [0, 2, 0], state: 2}, {pos: [0, 1, 0], state: 1}, {pos: [0, 0, 0], state: 0},
          {pos: [2, 1, 0], state: 1}, {pos: [2, 0, 0], state: 0}],
 entities: []}"""

# Two dust saved as dots side by side on stone, and a third, saved as a cross, alone.
DUST = b"""{DataVersion: 4903, size: [5, 2, 1], palette: [
  {Name: "minecraft:stone"},
  {Name: "minecraft:redstone_wire", Properties: {east: "none", north: "none", power: "0", south: "none",
                                                 west: "none"}},
  {Name: "minecraft:redstone_wire", Properties: {east: "side", north: "side", power: "0", south: "side",
                                                 west: "side"}}],
 blocks: [{pos: [1, 1, 0], state: 1}, {pos: [0, 1, 0], state: 1}, {pos: [4, 1, 0], state: 2},
          {pos: [0, 0, 0], state: 0}, {pos: [1, 0, 0], state: 0}, {pos: [4, 0, 0], state: 0}],
 entities: []}"""

DOT = "minecraft:redstone_wire[east=none,north=none,power=0,south=none,west=none]"
LINE = "minecraft:redstone_wire[east=side,north=none,power=0,south=none,west=side]"
CROSS = "minecraft:redstone_wire[east=side,north=side,power=0,south=side,west=side]"


def note(instrument: str, pitch: int = 3) -> str:
    return f"minecraft:note_block[instrument={instrument},note={pitch},powered=false]"


def test_a_note_block_takes_its_instrument_anew_when_a_block_is_written_above_it():
    """Placed (full blocks by y): the stone, then the note block, saved with the harp, then the target above it, whose
    write re-tunes the note block to the stone's bass drum. The other note block has nothing written after it and keeps
    the harp until the update pass."""
    w = World.from_build_file(NOTES, fmt="snbt", placed=True)
    assert w.get_block((0, 1, 0)) == note("basedrum")
    assert w.get_block((2, 1, 0)) == note("harp")
    w.step(3)
    assert w.get_block((2, 1, 0)) == note("harp")
    w.structure_updates([(0, 0, 0), (2, 0, 0), (0, 1, 0), (2, 1, 0), (0, 2, 0)])
    assert w.get_block((2, 1, 0)) == note("basedrum")


def test_a_block_set_above_a_note_block_re_tunes_it_as_one_set_below_does():
    """/setblock of a block above sends the note block a shape update from above: it reads the block below again."""
    w = World(replay=True)
    w.set_blocks([((0, 0, 0), "glass"), ((0, 1, 0), "note_block[instrument=harp,note=3]")])
    assert w.get_block((0, 1, 0)) == note("harp")
    w.set_block((0, 2, 0), "stone")
    assert w.get_block((0, 1, 0)) == note("hat")
    w.set_block((0, 2, 0), "air")
    assert w.get_block((0, 1, 0)) == note("hat")


def test_dust_beside_dust_takes_its_shape_as_it_is_written_and_keeps_it_in_the_pass():
    """The engine works a dust's sides out as it writes it, the last one written included, so a dust saved as a dot
    beside dust is a line from the start; the pass leaves both, and the lone cross, as they are,
    logging no shape change."""
    w = World.from_build_file(DUST, fmt="snbt", placed=True)
    assert [w.get_block((x, 1, 0)) for x in (0, 1, 4)] == [LINE, LINE, CROSS]
    before = w.events_total
    w.structure_updates([(0, 0, 0), (1, 0, 0), (4, 0, 0), (0, 1, 0), (1, 1, 0), (4, 1, 0)])
    assert [w.get_block((x, 1, 0)) for x in (0, 1, 4)] == [LINE, LINE, CROSS]
    assert w.events_since(before, "shape") == []


def _observer_landed_powered() -> World:
    """A piston pushes a column (an observer facing north in its pulse, a note block on it) up a block; the observer
    lands powered and switches off without its landing's shape updates (section 87)."""
    w = _pushed_column(observer_fired=True)
    assert w.get_block((0, 3, 0)) == "minecraft:observer[facing=north,powered=false]"
    return w


def test_a_note_block_left_with_the_harp_takes_its_instrument_when_a_block_is_set_above_it():
    """The note block landed on the moving observer and keeps the harp (section 87) until a block is set above it:
    that shape update from above has it read the observer below, the bass drum."""
    w = _observer_landed_powered()
    assert w.get_block((0, 4, 0)) == note("harp", 0)
    w.set_block((0, 5, 0), "glass")
    assert w.get_block((0, 4, 0)) == note("basedrum", 0)

