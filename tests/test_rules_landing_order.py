"""The blocks a piston moves land in the order their moves began, the far end of the push first, and an observer
that arrives powered switches off as it lands without the landing's neighbour and shape updates
(docs/redstone.md section 87)."""

from scicraft_viz import World


def _pushed_column(observer_fired: bool) -> World:
    """A piston facing up under an observer (facing north) under a note block; with `observer_fired` the observer
    is in its 2-game-tick pulse when the piston pushes the column up a block."""
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "piston[facing=up]")
    w.set_block((0, 2, 0), "observer[facing=north]")
    w.set_block((0, 3, 0), "note_block")
    w.step(3)
    if observer_fired:
        w.set_block((0, 2, -1), "stone")  # the observer sees it and fires 2 game ticks on
        w.step(2)
    assert w.get_block((0, 2, 0)) == f"minecraft:observer[facing=north,powered={str(observer_fired).lower()}]"
    w.set_block((0, 1, 1), "redstone_block")
    w.step(2)
    assert [w.get_block((0, y, 0)) for y in (2, 3, 4)] == ["minecraft:moving_piston[facing=up,type=normal]"] * 3
    w.step(1)
    return w


def test_a_note_block_landing_on_a_moving_block_takes_the_harp_and_keeps_it_under_an_observer_landing_powered():
    """The note block, at the far end of the push, lands first, on the moving observer (whose instrument is the
    harp); the observer lands next, powered, and switches off at once, so its landing sends no shape update and
    the note block keeps the harp."""
    w = _pushed_column(observer_fired=True)
    assert [w.get_block((0, y, 0)) for y in (2, 3, 4)] == [
        "minecraft:piston_head[facing=up,short=false,type=normal]", "minecraft:observer[facing=north,powered=false]",
        "minecraft:note_block[instrument=harp,note=0,powered=false]"]
    w.step(4)  # and the observer, which did not see the block in front of it change, does not pulse
    assert w.get_block((0, 3, 0)) == "minecraft:observer[facing=north,powered=false]"
    assert w.get_block((0, 4, 0)) == "minecraft:note_block[instrument=harp,note=0,powered=false]"


def test_an_observer_landing_unpowered_retunes_the_note_block_that_landed_on_it():
    """The same push with the observer at rest: its landing's shape update reaches the note block above, which
    takes the observer's instrument (the bass drum)."""
    w = _pushed_column(observer_fired=False)
    assert w.get_block((0, 3, 0)) == "minecraft:observer[facing=north,powered=false]"
    assert w.get_block((0, 4, 0)) == "minecraft:note_block[instrument=basedrum,note=0,powered=false]"
