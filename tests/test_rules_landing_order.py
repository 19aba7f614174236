"""The blocks a piston moves land in the order their moves began, the far end of the push first, and an observer
that arrives powered switches off as it lands without the landing's neighbour and shape updates, and dust the
moving blocks turn tells no neighbour of its new shape (docs/redstone.md section 87)."""

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


def test_dust_a_landing_block_turns_away_from_a_piston_tells_the_piston_nothing():
    """A lever's dust runs straight into a piston (facing up) and holds it out; a normal piston pushes a target
    beside the dust, which on landing turns the dust toward it, away from the piston. The dust's change of shape
    tells no neighbour (vanilla sets it with flags that send no neighbour updates), and the landing's own updates
    reach only the target's six neighbours: the piston, unpowered now, stays out until a neighbour update reaches
    it."""
    w = World()
    for x in (-1, 0):
        w.set_block((x, 0, 0), "stone")
    w.set_block((-1, 1, 0), "lever[face=floor,facing=east]")
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), "piston[facing=up]")
    w.set_block((0, 1, -3), "piston[facing=south]")
    w.set_block((0, 1, -2), "target")
    w.use((-1, 1, 0))
    w.step(3)
    assert w.get_block((0, 1, 0)) == "minecraft:redstone_wire[east=side,north=none,power=15,south=none,west=side]"
    assert w.get_block((1, 1, 0)) == "minecraft:piston[extended=true,facing=up]"
    w.set_block((0, 1, -4), "redstone_block")
    w.step(3)  # the target lands at (0, 1, -1) two game ticks after its move began
    assert w.get_block((0, 1, -1)) == "minecraft:target[power=0]"
    assert w.get_block((0, 1, 0)) == "minecraft:redstone_wire[east=none,north=side,power=15,south=none,west=side]"
    w.step(5)
    assert w.get_block((1, 1, 0)) == "minecraft:piston[extended=true,facing=up]"
    w.set_block((2, 1, 0), "stone")  # a block placed beside it: it hears, finds itself unpowered and retracts
    w.step(1)
    assert w.get_block((1, 1, 0)) == "minecraft:moving_piston[facing=up,type=normal]"


def _composter_lane() -> World:
    """A composter (level 3) read through stone by the comparator A at (3, 1, 0), facing west; a second lane,
    stone at (0, 1, 1) and the comparator B at (-1, 1, 1) facing east, reads the place the composter will land in;
    a piston at (1, 1, -1) faces south, toward the composter."""
    w = World()
    for x in range(-1, 4):
        for z in range(-2, 3):
            w.set_block((x, 0, z), "stone")
    w.set_block((1, 1, 0), "composter[level=3]")
    w.set_block((2, 1, 0), "stone")
    w.set_block((3, 1, 0), "comparator[facing=west]")
    w.set_block((0, 1, 1), "stone")
    w.set_block((-1, 1, 1), "comparator[facing=east]")
    w.set_block((1, 1, -1), "piston[facing=south]")
    w.step(4)
    return w


def _comparators(w: World) -> list[tuple[str, int]]:
    return [(w.get_block(p).split("powered=")[1].rstrip("]"), w.power(p).level) for p in ((3, 1, 0), (-1, 1, 1))]


def test_a_comparator_is_not_told_that_a_piston_carried_off_the_block_it_reads_through_a_conductor():
    """Vanilla's piston sets the moving blocks and empties the places left behind with flags that send no
    neighbour update, then updates only the six neighbours of each place a block left: the stone is told, the
    comparator A two steps off is not, and it keeps the composter's 3 until a neighbour update reaches it. The
    composter landing is set with its updates, and a block with an analog output tells the comparators beside it
    and beyond a conductor (updateNeighbourForOutputSignal): B reads it 2 game ticks after the landing."""
    w = _composter_lane()
    assert _comparators(w) == [("true", 3), ("false", 0)]
    w.set_block((1, 1, -2), "redstone_block")
    w.step(1)  # the piston pushes: the composter is a moving block
    assert w.get_block((1, 1, 1)) == "minecraft:moving_piston[facing=south,type=normal]"
    w.step(2)  # it lands
    assert w.get_block((1, 1, 1)) == "minecraft:composter[level=3]"
    assert _comparators(w) == [("true", 3), ("false", 0)]
    w.step(2)
    assert _comparators(w) == [("true", 3), ("true", 3)]
    w.step(10)
    assert _comparators(w) == [("true", 3), ("true", 3)]
    w.set_block((3, 1, -1), "stone")  # a neighbour update at last: A re-reads and turns off 2 game ticks later
    w.step(1)
    assert _comparators(w) == [("true", 3), ("true", 3)]
    w.step(1)
    assert _comparators(w) == [("false", 0), ("true", 3)]


def test_a_piston_that_lands_checks_itself_before_it_tells_the_piston_behind_it():
    """A piston (facing up) pushed onto a redstone block's side lands over another piston (facing up), which the
    redstone block powers by quasi-connectivity and which could not push while the block above it was moving. As
    in vanilla's setBlock, the landed piston checks itself first (onPlace) and queues its push, then its
    neighbours hear of it: the piston below queues its push second, and when its turn comes the piston above is
    extended and cannot be moved."""
    w = World()
    for x in range(-3, 2):
        w.set_block((x, 0, 1), "stone")
    w.set_block((0, 0, 0), "piston[facing=up]")  # B
    w.set_block((-1, 1, 0), "piston[facing=up]")  # A, on the stone below it
    w.set_block((-1, 0, 0), "stone")
    w.set_block((-2, 1, 0), "piston[facing=east]")  # P
    w.set_block((1, 1, 0), "redstone_block")
    w.step(2)
    assert w.get_block((0, 0, 0)) == "minecraft:piston[extended=false,facing=up]"  # told of nothing yet
    w.set_block((-3, 1, 0), "redstone_block")
    w.step(1)
    assert w.get_block((0, 1, 0)) == "minecraft:moving_piston[facing=east,type=normal]"
    w.step(2)  # A lands, queues its push, and B queues its own
    assert w.get_block((0, 1, 0)) == "minecraft:piston[extended=false,facing=up]"
    w.step(1)
    assert [w.get_block((0, y, 0)) for y in range(3)] == [
        "minecraft:piston[extended=false,facing=up]", "minecraft:piston[extended=true,facing=up]",
        "minecraft:moving_piston[facing=up,type=normal]"]
    w.step(3)
    assert [w.get_block((0, y, 0)) for y in range(3)] == [
        "minecraft:piston[extended=false,facing=up]", "minecraft:piston[extended=true,facing=up]",
        "minecraft:piston_head[facing=up,short=false,type=normal]"]
