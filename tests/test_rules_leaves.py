"""Leaves count their distance from the nearest log (docs/redstone.md section 46)."""

from scicraft_viz import World


def leaves(d: int) -> str:
    return f"minecraft:oak_leaves[distance={d},persistent=true,waterlogged=false]"


def test_leaves_take_their_distance_from_a_log_one_game_tick_after_it_changes():
    w = World(replay=True)
    w.set_block((0, 0, 0), leaves(7))
    w.set_block((-1, 0, 0), leaves(7))
    w.set_block((1, 0, 0), "oak_log[axis=y]")
    assert w.get_block((0, 0, 0)) == leaves(7)  # the log's shape update schedules a tick; nothing changes yet
    w.step(1)
    assert [w.get_block((x, 0, 0)) for x in (0, -1)] == [leaves(1), leaves(7)]
    w.step(1)  # the change is itself a shape update: the leaves beside follow a tick later
    assert w.get_block((-1, 0, 0)) == leaves(2)
    w.set_block((1, 0, 0), "minecraft:air")
    w.step(1)
    assert [w.get_block((x, 0, 0)) for x in (0, -1)] == [leaves(3), leaves(2)]  # one more than the least beside


def test_an_observer_watching_leaves_sees_the_distance_change():
    w = World(replay=True)
    w.set_block((0, 0, 0), leaves(7))
    w.set_block((0, 1, 0), "minecraft:observer[facing=down]")
    w.set_block((1, 0, 0), "minecraft:oak_wood[axis=y]")
    w.step(1)
    assert w.get_block((0, 0, 0)) == leaves(1)
    w.step(1)
    assert w.get_block((0, 1, 0)) == "minecraft:observer[facing=down,powered=false]"
    w.step(1)  # 2 gt after the leaves changed
    assert w.get_block((0, 1, 0)) == "minecraft:observer[facing=down,powered=true]"


def test_leaves_beside_leaves_alone_and_stone_keep_what_they_say():
    w = World(replay=True)
    w.set_block((0, 0, 0), leaves(4))
    w.set_block((1, 0, 0), "minecraft:stone")  # not a log: distance 7 from it, 8 is capped at 7
    w.step(1)
    assert w.get_block((0, 0, 0)) == leaves(7)


def test_the_compiled_engine_refuses_leaves_whose_distance_would_change_and_runs_the_others():
    import pytest

    from scicraft_viz.engine.compiled import CompileRefused, compile_world

    w = World(replay=True)
    w.set_block((0, 0, 0), "minecraft:oak_log[axis=y]")
    w.set_block((1, 0, 0), leaves(1))
    w.set_block((2, 0, 0), leaves(2))
    w.set_block((0, 1, 0), "minecraft:lever[face=floor,facing=north]")
    w.step(2)  # the ticks placing them scheduled (they change nothing)
    compile_world(w)  # the leaves say what their neighbours give
    w.set_block((3, 0, 0), leaves(5))
    w.step(2)
    with pytest.raises(CompileRefused, match=r"leaves at \(3, 0, 0\) say distance=5 but the blocks around give 3"):
        compile_world(w)
