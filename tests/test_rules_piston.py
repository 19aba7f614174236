"""Pistons and sticky pistons (Java Edition 1.20): they move as block events, after the scheduled ticks of
their game tick; a moved block travels for 2 game ticks as a moving_piston; at most 12 blocks move;
quasi-connectivity; a sticky piston drops its block on a pulse shorter than its move."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redstone_helpers import new_world, run

from scicraft_viz import World
from scicraft_viz.engine.compiled import CompileRefused, compile_world

P, LEVER = (0, 1, 0), (0, 1, 1)


def row(w, n=4, y=1):
    return [w.get_block((x, y, 0)).removeprefix("minecraft:") for x in range(n)]


def piston_with_lever(kind="piston", front=("stone",)):
    """A piston facing east on the floor, a lever on the floor south of it, blocks in front."""
    w = new_world()
    w.set_block(P, f"{kind}[facing=east]")
    for i, b in enumerate(front):
        w.set_block((1 + i, 1, 0), b)
    w.set_block(LEVER, "lever[face=floor,facing=north]")
    return w


def test_extension_is_a_block_event_and_the_block_arrives_2gt_later():
    w = piston_with_lever()
    w.use(LEVER)  # between ticks 0 and 1: the event runs in tick 1
    assert row(w) == ["piston[extended=false,facing=east]", "stone", "air", "air"]
    got = run(w, 4, lambda: tuple(row(w)))
    moving = ("piston[extended=true,facing=east]", "moving_piston[facing=east,type=normal]",
              "moving_piston[facing=east,type=normal]", "air")
    out = ("piston[extended=true,facing=east]", "piston_head[facing=east,short=false,type=normal]", "stone", "air")
    assert got == [(0, ("piston[extended=false,facing=east]", "stone", "air", "air")), (1, moving), (3, out)]


def test_retraction_normal_leaves_the_block_sticky_pulls_it():
    for kind, pulled in (("piston", False), ("sticky_piston", True)):
        w = piston_with_lever(kind)
        w.use(LEVER)
        w.step(4)
        w.use(LEVER)
        w.step(1)  # the base turns into a moving_piston carrying the retracted piston
        assert row(w)[0] == f"moving_piston[facing=east,type={'sticky' if pulled else 'normal'}]"
        w.step(2)
        assert row(w) == [f"{kind}[extended=false,facing=east]", "stone" if pulled else "air",
                          "air" if pulled else "stone", "air"]


def test_push_limit_is_12_blocks():
    w = piston_with_lever(front=["stone"] * 12)
    w.use(LEVER)
    w.step(3)
    assert [w.get_block((x, 1, 0)) for x in (1, 13)] == [
        "minecraft:piston_head[facing=east,short=false,type=normal]", "minecraft:stone"]
    w = piston_with_lever(front=["stone"] * 13)
    w.use(LEVER)
    w.step(3)
    assert w.get_block(P) == "minecraft:piston[extended=false,facing=east]"
    assert w.get_block((14, 1, 0)) == "minecraft:air"


@pytest.mark.parametrize("blocker", ["obsidian", "bedrock", "barrel", "piston[facing=up,extended=true]"])
def test_immovable_blocks_stop_the_push(blocker):
    w = World(replay=True)  # a headless extended piston can only be placed as /setblock places it
    w.set_block(P, "piston[facing=east]")
    w.set_block((1, 1, 0), "stone")
    w.set_block((2, 1, 0), blocker)
    w.set_block((0, 0, 0), "redstone_block")
    w.step(5)
    assert w.get_block(P) == "minecraft:piston[extended=false,facing=east]"
    assert w.get_block((1, 1, 0)) == "minecraft:stone"


def test_a_retracted_piston_is_pushed_and_arrives_whole():
    w = piston_with_lever(front=["sticky_piston[facing=up]"])
    w.use(LEVER)
    w.step(3)
    assert w.get_block((2, 1, 0)) == "minecraft:sticky_piston[extended=false,facing=up]"


def test_breakable_blocks_in_the_way_are_destroyed():
    w = piston_with_lever(front=["stone", "redstone_torch", "stone"])
    w.use(LEVER)
    w.step(3)
    assert row(w, 4)[1:] == ["piston_head[facing=east,short=false,type=normal]", "stone", "stone"]
    assert [e.pos for e in w.events if e.kind == "removed" and e.block == "minecraft:redstone_torch"] == [(2, 1, 0)]
    w = piston_with_lever(front=["redstone_wire"])  # directly in front: the head breaks it
    w.use(LEVER)
    w.step(3)
    assert row(w, 3)[1:] == ["piston_head[facing=east,short=false,type=normal]", "air"]


def test_quasi_connectivity_a_lever_on_glass_above_powers_the_piston():
    w = new_world()
    w.set_block(P, "piston[facing=east]")
    w.set_block((0, 2, 0), "glass")  # above the piston; glass carries no power to it
    w.set_block((0, 3, 0), "lever[face=floor,facing=north]")  # it would power a block where the glass is
    w.use((0, 3, 0))  # the lever updates the glass's neighbours, the piston among them
    w.step(3)
    assert w.get_block(P) == "minecraft:piston[extended=true,facing=east]"
    w.use((0, 3, 0))
    w.step(3)
    assert w.get_block(P) == "minecraft:piston[extended=false,facing=east]"


def test_quasi_connectivity_waits_for_an_update_bud():
    w = new_world()
    w.set_block(P, "piston[facing=east]")
    # two above: it would power a block above the piston, so it powers the piston, but placing it updates
    # only its own neighbours, and the piston is not one
    w.set_block((0, 3, 0), "redstone_block")
    w.step(10)
    assert w.get_block(P) == "minecraft:piston[extended=false,facing=east]"
    w.set_block((-1, 1, 0), "stone")  # any update beside the piston: now it extends
    w.step(3)
    assert w.get_block(P) == "minecraft:piston[extended=true,facing=east]"


def test_a_head_passes_its_neighbour_updates_to_its_base():
    """A sticky piston held out only through quasi-connectivity (the redstone block diagonally above its head)
    hears of that block being pushed away through its head: it retracts in the same tick, pulling the target
    after it, and goes out again once the redstone block lands right above it (vanilla's head passes every
    neighbour update on to its base; a door of Nucleation's recorded in the game does this at its first
    stroke)."""
    blocks = {(x, 0, z): "minecraft:stone" for x in range(8) for z in range(3)}
    # the redstone block goes in before the target beside the head: placing the target updates the head, which
    # the base hears, and it must find itself powered then
    blocks.update({(4, 2, 1): "minecraft:redstone_block",
                   (3, 1, 1): "minecraft:sticky_piston[extended=true,facing=east]",
                   (4, 1, 1): "minecraft:piston_head[facing=east,short=false,type=sticky]",
                   (5, 1, 1): "minecraft:target", (5, 2, 1): "minecraft:sticky_piston[extended=false,facing=west]"})
    w = World.from_blocks(blocks, replay=True)  # pasted: the base keeps extended=true
    w.step(3)
    assert w.get_block((3, 1, 1)) == "minecraft:sticky_piston[extended=true,facing=east]"  # at rest, held out
    w.set_block((6, 2, 1), "redstone_block")  # powers the west-facing piston: it pushes the redstone block
    seen = {}
    for _ in range(4):
        w.step(1)
        seen[w.tick] = tuple(w.get_block(p).removeprefix("minecraft:").split("[")[0] for p in
                             ((3, 1, 1), (4, 1, 1), (3, 2, 1)))
    assert seen == {4: ("moving_piston", "moving_piston", "moving_piston"),
                    5: ("moving_piston", "moving_piston", "moving_piston"),
                    6: ("sticky_piston", "target", "redstone_block"),
                    7: ("sticky_piston", "moving_piston", "redstone_block")}
    assert w.get_block((3, 1, 1)) == "minecraft:sticky_piston[extended=true,facing=east]"


def test_sticky_piston_drops_its_block_on_a_2gt_pulse():
    w = new_world()
    w.set_block(P, "sticky_piston[facing=east]")
    w.set_block((1, 1, 0), "stone")
    w.set_block((0, 1, -1), "observer[facing=north]")  # its back faces the piston
    w.set_block((0, 1, -2), "stone")
    w.remove_block((0, 1, -2))  # the observer sees it: a 2 gt pulse at ticks 2-3
    w.step(8)
    assert row(w, 3) == ["sticky_piston[extended=false,facing=east]", "air", "stone"]


@pytest.mark.parametrize("off_at, stone_at", [(2, 2), (3, 1)])
def test_sticky_piston_pulls_back_after_a_longer_pulse(off_at, stone_at):
    w = new_world()
    w.set_block(P, "sticky_piston[facing=east]")
    w.set_block((1, 1, 0), "stone")
    w.set_block(LEVER, "lever[face=floor,facing=north]")
    got = run(w, 10, lambda: tuple(row(w, 3)), {0: [lambda: w.use(LEVER)], off_at: [lambda: w.use(LEVER)]})
    want = ["sticky_piston[extended=false,facing=east]", "air", "air"]
    want[stone_at] = "stone"
    assert got[-1] == (off_at + 3, tuple(want))  # the base is back 3 gt after the lever goes off


def test_a_pushed_observer_fires_when_it_arrives():
    w = piston_with_lever(front=["observer[facing=up]"])
    w.use(LEVER)
    got = run(w, 8, lambda: "powered=true" in w.get_block((2, 1, 0)))
    assert got == [(0, False), (5, True), (7, False)]  # arrives at tick 3, fires 2 gt later


@pytest.mark.parametrize("watched", [1, 2])  # where the head goes, where the stone goes
def test_an_observer_sees_a_block_pushed_in_front_of_it_when_the_push_starts(watched):
    """Vanilla puts a moving_piston where each block (and the head) goes with flags that skip neighbour
    updates but not shape updates: an observer facing that place fires 2 gt after the push starts and,
    still on when the block arrives, ignores the arrival."""
    w = piston_with_lever()
    w.set_block((watched, 1, -1), "observer[facing=south]")  # north of the row, watching it
    w.step(2)
    w.use(LEVER)  # the push starts in tick 3, the blocks arrive at the end of tick 5
    got = run(w, 10, lambda: "powered=true" in w.get_block((watched, 1, -1)))
    assert got == [(2, False), (5, True), (7, False)]


def test_the_compiled_engine_refuses_it():
    w = piston_with_lever()
    with pytest.raises(CompileRefused, match=r"piston at \(0, 1, 0\)"):
        compile_world(w)


MOVABLE = ("stone", "glass", "redstone_lamp", "obsidian", "slime_block", "redstone_block")
FACINGS = ("north", "east", "south", "west", "up", "down")


@settings(max_examples=25, deadline=None)
@given(
    blocks=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3), st.integers(0, 4),
                              st.sampled_from(MOVABLE + ("piston", "sticky_piston"))), max_size=30),
    facings=st.lists(st.sampled_from(FACINGS), min_size=30, max_size=30),
    script=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3), st.integers(0, 4), st.sampled_from(
        ("redstone_block", "air")), st.integers(0, 3)), max_size=12),
)
def test_property_pistons_are_deterministic_and_conserve_the_blocks_they_move(blocks, facings, script):
    def build():
        w = World(replay=True)
        for (x, y, z, b), f in zip(blocks, facings, strict=False):
            w.set_block((x, y, z), f"{b}[facing={f}]" if "piston" in b else b)
        return w

    def counts(w):
        c = {}
        for s in w.blocks().values():
            name = s.removeprefix("minecraft:").split("[")[0]
            c[name] = c.get(name, 0) + 1
        return c

    a, b = build(), build()
    for w in (a, b):
        for x, y, z, s, n in script:
            # a scripted change touches only air or a redstone block, so that what pistons move is all
            # the build placed
            if w.get_block((x, y, z)) in ("minecraft:air", "minecraft:redstone_block"):
                w.set_block((x, y, z), s)
            w.step(n)
    assert a.blocks() == b.blocks()
    assert [(e.tick, e.pos, e.kind, e.old, e.new) for e in a.events] == [
        (e.tick, e.pos, e.kind, e.old, e.new) for e in b.events]
    # let every move finish (nothing is scripted any more; a powered piston stays out), then count
    before = counts(build())
    a.step(20)
    after = counts(a)
    for name in MOVABLE[:-1]:
        assert after.get(name, 0) == before.get(name, 0), name
    scripted_rb = after.get("redstone_block", 0) - before.get("redstone_block", 0)
    assert scripted_rb <= sum(1 for s in script if s[3] == "redstone_block")
    assert after.get("piston", 0) == before.get("piston", 0)
    assert after.get("sticky_piston", 0) == before.get("sticky_piston", 0)
    assert "moving_piston" not in after


def slime_in_front(kind="piston"):
    """A piston pushing a slime block standing on obsidian (stone below would stick to it and come too)."""
    w = piston_with_lever(kind, front=["slime_block"])
    w.set_block((1, 0, 0), "obsidian")
    w.set_block((2, 0, 0), "obsidian")  # and where it goes
    return w


def test_slime_carries_the_blocks_touching_it_but_not_immovable_ones():
    w = slime_in_front("sticky_piston")
    w.set_block((1, 2, 0), "glass")  # on top of the slime
    w.set_block((1, 1, -1), "redstone_lamp")  # beside it
    w.set_block((1, 1, 1), "obsidian")  # beside it, immovable: left where it is, the push goes on
    w.use(LEVER)
    w.step(3)
    assert [w.get_block(p).removeprefix("minecraft:").split("[")[0] for p in
            ((2, 1, 0), (2, 2, 0), (2, 1, -1), (1, 1, 1), (1, 2, 0), (1, 1, -1))] == [
        "slime_block", "glass", "redstone_lamp", "obsidian", "air", "air"]
    w.use(LEVER)  # the sticky piston pulls the slime back, and with it what it carries
    w.step(3)
    assert [w.get_block(p).removeprefix("minecraft:").split("[")[0] for p in
            ((1, 1, 0), (1, 2, 0), (1, 1, -1), (2, 1, 0), (2, 2, 0))] == [
        "slime_block", "glass", "redstone_lamp", "air", "air"]


def test_blocks_a_slime_block_carries_count_toward_the_12():
    for stacked, moves in ((11, True), (12, False)):
        w = slime_in_front()
        for y in range(2, 2 + stacked):  # a column of slime on top: each one carries the next
            w.set_block((1, y, 0), "slime_block")
        w.use(LEVER)
        w.step(3)
        assert (w.get_block((2, 1, 0)) == "minecraft:slime_block") is moves


def test_slime_drags_the_floor_it_stands_on():
    w = piston_with_lever(front=["slime_block"])  # on the stone floor: the floor's row comes along
    w.use(LEVER)
    w.step(3)
    assert [w.get_block((x, 0, 0)) for x in (1, 2)] == ["minecraft:air", "minecraft:stone"]
    assert w.get_block((8, 0, 0)) == "minecraft:stone"  # the floor ran to x=7 and moved one east


def test_slime_leaves_breakable_blocks_beside_it_to_pop():
    w = slime_in_front()
    w.set_block((1, 1, -1), "stone_button[face=wall,facing=north]")  # hangs on the slime's north face
    w.use(LEVER)
    w.step(3)
    assert w.get_block((2, 1, 0)) == "minecraft:slime_block"
    assert w.get_block((1, 1, -1)) == "minecraft:air"  # not carried: it lost its support and popped
    assert [e.pos for e in w.events if e.kind == "popped"] == [(1, 1, -1)]


def test_an_immovable_block_in_a_carried_line_stops_the_whole_push():
    w = slime_in_front()
    w.set_block((1, 1, -1), "stone")  # stuck to the slime's north side...
    w.set_block((2, 1, -1), "obsidian")  # ...with obsidian in its way
    w.use(LEVER)
    w.step(3)
    assert w.get_block(P) == "minecraft:piston[extended=false,facing=east]"
    assert w.get_block((1, 1, 0)) == "minecraft:slime_block"


@pytest.mark.parametrize("gone", ["redstone_torch", "redstone_wire"])
@pytest.mark.parametrize("how", ["removed", "replaced", "popped"])
def test_a_torch_or_dust_removed_two_blocks_away_updates_a_bud_piston(gone, how):
    """Vanilla: a torch's or dust's onRemove updates the neighbours of each of its neighbours, so a piston
    two blocks away that quasi-connectivity powers hears it (whether the block is broken, replaced or falls
    off its support), as it hears a torch or dust placed there."""
    w = new_world()
    w.set_block(P, "piston[facing=north]")
    w.set_block((2, 1, 0), gone)  # two blocks east of the piston: placing it is an update the piston hears
    w.step(2)
    w.set_block((0, 3, 0), "redstone_block")  # QC-powers the piston; it sends no update that reaches it
    w.step(10)
    assert w.get_block(P) == "minecraft:piston[extended=false,facing=north]"
    if how == "removed":
        w.remove_block((2, 1, 0))
    elif how == "replaced":
        w.set_block((2, 1, 0), "glass")
    else:
        w.remove_block((2, 0, 0))  # its floor: it pops off
    w.step(1)
    assert w.get_block(P) == "minecraft:piston[extended=true,facing=north]"


def test_a_stone_removed_two_blocks_away_does_not_update_a_bud_piston():
    w = new_world()
    w.set_block(P, "piston[facing=north]")
    w.set_block((2, 1, 0), "stone")
    w.set_block((0, 3, 0), "redstone_block")
    w.step(5)
    w.remove_block((2, 1, 0))  # a plain block's removal updates only its six neighbours
    w.step(5)
    assert w.get_block(P) == "minecraft:piston[extended=false,facing=north]"


def test_an_observer_behind_a_piston_column_fires_the_piston_it_faces_first():
    """An observer's back powers a sticky piston facing down and, by quasi-connectivity, the sticky piston below it:
    the upper one starts pushing the lower one and the block below it down a block, and the lower one's event finds
    a moving block and is dropped. (The column of PistonTests' triple_extender.)"""
    w = World()
    w.set_block((0, 10, 0), "observer[facing=north]")  # watches (0, 10, -1); its back powers (0, 10, 1)
    w.set_block((0, 10, 1), "sticky_piston[facing=down]")
    w.set_block((0, 9, 1), "sticky_piston[facing=down]")
    w.set_block((0, 8, 1), "white_concrete")
    w.set_block((0, 10, -1), "stone")
    w.step(3)  # the observer fires 2 game ticks on, and the move it starts is half done a game tick later
    assert [w.get_block((0, y, 1)).removeprefix("minecraft:") for y in (10, 9, 8, 7)] == [
        "sticky_piston[extended=true,facing=down]", "moving_piston[facing=down,type=sticky]",
        "moving_piston[facing=down,type=normal]", "moving_piston[facing=down,type=normal]"]
