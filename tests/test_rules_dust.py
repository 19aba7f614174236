
import pytest
from redstone_helpers import floor, new_world, on, parse, power, run

from scicraft_viz import World


def shape(w, pos):
    p = parse(w.get_block(pos))[1]
    return {d: p[d] for d in ("north", "east", "south", "west")}


def sides(north="none", east="none", south="none", west="none"):
    return {"north": north, "east": east, "south": south, "west": west}


CROSS = sides("side", "side", "side", "side")
DOT = sides()
LINE_EW = sides(east="side", west="side")
LINE_NS = sides(north="side", south="side")


# ---------------------------------------------------------------- shapes


def test_lone_dust_is_a_cross_with_canonical_string():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    assert w.get_block((0, 1, 0)) == (
        "minecraft:redstone_wire[east=side,north=side,power=0,south=side,west=side]"
    )


def test_use_toggles_unconnected_dust_cross_dot_cross():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    assert w.use((0, 1, 0)) is True
    assert w.get_block((0, 1, 0)) == (
        "minecraft:redstone_wire[east=none,north=none,power=0,south=none,west=none]"
    )
    assert w.use((0, 1, 0)) is True
    assert shape(w, (0, 1, 0)) == CROSS


def test_use_on_connected_dust_does_nothing():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), "redstone_wire")
    before = w.blocks()
    assert w.use((0, 1, 0)) is False
    assert w.blocks() == before
    assert shape(w, (0, 1, 0)) == LINE_EW


def test_two_dust_make_a_straight_line():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((0, 1, 1), "redstone_wire")
    assert shape(w, (0, 1, 0)) == LINE_NS
    assert shape(w, (0, 1, 1)) == LINE_NS


def test_corner_shape():
    w = new_world()
    for p in [(0, 1, 0), (1, 1, 0), (0, 1, 1)]:
        w.set_block(p, "redstone_wire")
    assert shape(w, (0, 1, 0)) == sides(east="side", south="side")
    assert shape(w, (1, 1, 0)) == LINE_EW
    assert shape(w, (0, 1, 1)) == LINE_NS


def test_t_shape_and_four_way_cross():
    w = new_world()
    for p in [(0, 1, 0), (1, 1, 0), (-1, 1, 0), (0, 1, 1)]:
        w.set_block(p, "redstone_wire")
    assert shape(w, (0, 1, 0)) == sides(east="side", south="side", west="side")
    w.set_block((0, 1, -1), "redstone_wire")
    assert shape(w, (0, 1, 0)) == CROSS
    # vanilla updateShape recomputes from scratch: losing one arm of a real cross gives a T
    w.remove_block((0, 1, 1))
    assert shape(w, (0, 1, 0)) == sides(north="side", east="side", west="side")


def test_dot_becomes_line_when_a_neighbour_connects_and_cross_when_it_leaves():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    w.use((0, 1, 0))
    assert shape(w, (0, 1, 0)) == DOT
    w.set_block((1, 1, 0), "redstone_wire")
    assert shape(w, (0, 1, 0)) == LINE_EW
    w.remove_block((1, 1, 0))
    assert shape(w, (0, 1, 0)) == CROSS


def test_dot_stays_dot_when_unrelated_neighbour_placed():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    w.use((0, 1, 0))
    w.set_block((1, 1, 0), "redstone_lamp")
    w.set_block((0, 1, 1), "stone")
    assert shape(w, (0, 1, 0)) == DOT


@pytest.mark.parametrize(
    "extra",
    [
        [((-1, 1, 0), "lever[face=floor,facing=north]")],
        [((-1, 1, 0), "stone_button[face=floor,facing=north]")],
        [((-1, 1, 0), "redstone_torch")],
        [((-1, 1, 0), "redstone_block")],
        [((-2, 1, 0), "stone"), ((-1, 1, 0), "redstone_wall_torch[facing=east]")],
        [((-2, 1, 0), "stone"), ((-1, 1, 0), "lever[face=wall,facing=east]")],
        [((-2, 1, 0), "stone"), ((-1, 1, 0), "stone_button[face=wall,facing=east]")],
        [((-1, 1, 0), "redstone_repeater[facing=west]")],
        [((-1, 1, 0), "redstone_repeater[facing=east]")],
    ],
    ids=[
        "lever", "button", "torch", "redstone_block", "wall_torch", "wall_lever", "wall_button",
        "repeater_back", "repeater_front",
    ],
)
def test_dust_connects_to_sources_and_repeater_ends(extra):
    w = new_world()
    for pos, st in extra:  # wall-mounted ones face east: attached to (-2,1,0) = pos - facing
        w.set_block(pos, st)
    w.set_block((0, 1, 0), "redstone_wire")
    assert shape(w, (0, 1, 0)) == LINE_EW


@pytest.mark.parametrize(
    "neighbour",
    ["redstone_lamp", "stone", "glass", "redstone_repeater[facing=north]", "redstone_repeater[facing=south]"],
)
def test_dust_does_not_connect_to_lamp_stone_glass_or_repeater_side(neighbour):
    w = new_world()
    w.set_block((-1, 1, 0), neighbour)
    w.set_block((0, 1, 0), "redstone_wire")
    assert shape(w, (0, 1, 0)) == CROSS
    # with a real connection to the north the line runs N-S and ignores the neighbour
    w.set_block((0, 1, -1), "redstone_wire")
    assert shape(w, (0, 1, 0)) == LINE_NS


# ---------------------------------------------------------------- up / down and the cut


def _stair(w, step_block, cut=False):
    """lower dust (0,1,0) with a dust to its south (0,1,1); step block (1,1,0) with dust (1,2,0)."""
    w.set_block((0, 1, 1), "redstone_wire")
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), step_block)
    w.set_block((1, 2, 0), "redstone_wire")
    if cut:
        w.set_block((0, 2, 0), "stone")


@pytest.mark.parametrize("step_block", ["stone", "glass", "redstone_lamp"])
def test_dust_connects_up_a_step(step_block):
    w = new_world()
    _stair(w, step_block)
    assert shape(w, (0, 1, 0)) == sides(east="up", south="side")
    # the upper dust connects down (side) and extends into a line
    assert shape(w, (1, 2, 0)) == LINE_EW


@pytest.mark.parametrize("step_block", ["stone", "glass"])
def test_opaque_block_above_lower_dust_cuts_the_step(step_block):
    w = new_world()
    _stair(w, step_block, cut=True)
    assert shape(w, (0, 1, 0)) == LINE_NS
    assert shape(w, (1, 2, 0)) == CROSS


@pytest.mark.parametrize("above", ["glass", "redstone_block"])
def test_transparent_or_redstone_block_above_does_not_cut(above):
    w = new_world()
    _stair(w, "stone")
    w.set_block((0, 2, 0), above)
    assert shape(w, (0, 1, 0)) == sides(east="up", south="side")
    assert shape(w, (1, 2, 0)) == LINE_EW


def test_cut_appears_and_disappears_with_the_block_above():
    w = new_world()
    _stair(w, "stone")
    w.set_block((0, 2, 0), "stone")
    assert shape(w, (0, 1, 0)) == LINE_NS
    w.remove_block((0, 2, 0))
    assert shape(w, (0, 1, 0)) == sides(east="up", south="side")


def _lever_west_of(w, pos):
    x, y, z = pos
    w.set_block((x - 1, y, z), "lever[face=floor,facing=north]")
    return (x - 1, y, z)


@pytest.mark.parametrize("step_block", ["stone", "glass", "redstone_lamp"])
def test_signal_steps_up(step_block):
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), step_block)
    w.set_block((1, 2, 0), "redstone_wire")
    lever = _lever_west_of(w, (0, 1, 0))
    w.use(lever)
    assert power(w, (0, 1, 0)) == 15
    assert power(w, (1, 2, 0)) == 14
    w.use(lever)
    assert power(w, (0, 1, 0)) == 0
    assert power(w, (1, 2, 0)) == 0


def test_cut_blocks_signal_up():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), "stone")
    w.set_block((1, 2, 0), "redstone_wire")
    w.set_block((0, 2, 0), "stone")
    lever = _lever_west_of(w, (0, 1, 0))
    w.use(lever)
    assert power(w, (0, 1, 0)) == 15
    assert power(w, (1, 2, 0)) == 0


def _down_stair(w, step_block):
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), step_block)
    w.set_block((1, 2, 0), "redstone_wire")


def test_signal_steps_down_from_dust_on_stone():
    w = new_world()
    _down_stair(w, "stone")
    w.set_block((2, 2, 0), "redstone_block")
    assert power(w, (1, 2, 0)) == 15
    assert power(w, (0, 1, 0)) == 14
    w.remove_block((2, 2, 0))
    assert power(w, (1, 2, 0)) == 0
    assert power(w, (0, 1, 0)) == 0


def test_signal_never_steps_down_from_dust_on_glass():
    w = new_world()
    _down_stair(w, "glass")
    w.set_block((2, 2, 0), "redstone_block")
    assert power(w, (1, 2, 0)) == 15
    assert power(w, (0, 1, 0)) == 0
    # still visually connected (up) although no signal flows down
    assert shape(w, (0, 1, 0))["east"] == "up"


def test_glass_staircase_climbs_two_steps():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), "glass")
    w.set_block((1, 2, 0), "redstone_wire")
    w.set_block((2, 1, 0), "glass")
    w.set_block((2, 2, 0), "glass")
    w.set_block((2, 3, 0), "redstone_wire")
    lever = _lever_west_of(w, (0, 1, 0))
    w.use(lever)
    assert [power(w, p) for p in [(0, 1, 0), (1, 2, 0), (2, 3, 0)]] == [15, 14, 13]


# ---------------------------------------------------------------- power


def test_power_falls_by_one_per_dust_and_is_zero_after_15():
    w = World()
    floor(w, xs=range(-2, 20), zs=range(-1, 2))
    for x in range(16):
        w.set_block((x, 1, 0), "redstone_wire")
    lever = _lever_west_of(w, (0, 1, 0))
    assert [power(w, (x, 1, 0)) for x in range(16)] == [0] * 16
    w.use(lever)
    assert [power(w, (x, 1, 0)) for x in range(16)] == list(range(15, -1, -1))
    w.use(lever)
    assert [power(w, (x, 1, 0)) for x in range(16)] == [0] * 16


@pytest.mark.parametrize("n_dust, lit", [(15, True), (16, False)])
def test_fifteen_dust_is_the_reach(n_dust, lit):
    w = World()
    floor(w, xs=range(-2, 20), zs=range(-1, 2))
    for x in range(n_dust):
        w.set_block((x, 1, 0), "redstone_wire")
    lamp = (n_dust, 1, 0)
    w.set_block(lamp, "redstone_lamp")
    lever = _lever_west_of(w, (0, 1, 0))
    w.use(lever)
    assert on(w, lamp) is lit
    assert power(w, (n_dust - 1, 1, 0)) == 16 - n_dust


def test_dust_changes_with_zero_delay():
    w = World()
    floor(w, xs=range(-2, 12), zs=range(-1, 2))
    for x in range(10):
        w.set_block((x, 1, 0), "redstone_wire")
    lever = _lever_west_of(w, (0, 1, 0))
    got = run(w, 12, lambda: power(w, (9, 1, 0)), {3: [lambda: w.use(lever)], 7: [lambda: w.use(lever)]})
    assert got == [(0, 0), (3, 6), (7, 0)]


def test_dust_power_is_max_of_sources():
    w = World()
    floor(w, xs=range(-2, 12), zs=range(-1, 2))
    for x in range(9):
        w.set_block((x, 1, 0), "redstone_wire")
    w.set_block((9, 1, 0), "redstone_block")
    lever = _lever_west_of(w, (0, 1, 0))
    assert [power(w, (x, 1, 0)) for x in range(9)] == [7, 8, 9, 10, 11, 12, 13, 14, 15]
    w.use(lever)
    assert [power(w, (x, 1, 0)) for x in range(9)] == [15, 14, 13, 12, 11, 12, 13, 14, 15]


def test_dust_powered_by_strongly_powered_block_beside_it():
    w = new_world()
    w.set_block((-1, 1, 0), "stone")
    w.set_block((-2, 1, 0), "lever[face=wall,facing=west]")  # attached to (-1,1,0)
    w.set_block((0, 1, 0), "redstone_wire")
    w.use((-2, 1, 0))
    assert power(w, (0, 1, 0)) == 15
    assert shape(w, (0, 1, 0)) == CROSS  # a stone block is not a connection


# ---------------------------------------------------------------- output


def test_dust_pointing_into_lamp_lights_it_same_tick():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), "redstone_lamp")
    lever = _lever_west_of(w, (0, 1, 0))
    got = run(w, 20, lambda: on(w, (1, 1, 0)), {2: [lambda: w.use(lever)], 8: [lambda: w.use(lever)]})
    assert got == [(0, False), (2, True), (12, False)]


def test_dust_running_past_a_lamp_does_not_power_it():
    w = new_world()
    w.set_block((0, 1, -1), "lever[face=floor,facing=north]")
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((0, 1, 1), "redstone_wire")
    w.set_block((1, 1, 0), "redstone_lamp")
    got = run(w, 10, lambda: (power(w, (0, 1, 0)), on(w, (1, 1, 0))), {0: [lambda: w.use((0, 1, -1))]})
    assert got == [(0, (15, False))]
    assert shape(w, (0, 1, 0)) == LINE_NS


def test_dust_on_top_of_lamp_powers_it():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_lamp")
    w.set_block((0, 2, 0), "redstone_wire")
    got = run(
        w, 20, lambda: on(w, (0, 1, 0)),
        {1: [lambda: w.set_block((1, 2, 0), "redstone_block")], 10: [lambda: w.remove_block((1, 2, 0))]},
    )
    assert got == [(0, False), (1, True), (14, False)]


def test_cross_powers_all_sides_dot_powers_only_block_below():
    w = new_world()
    lamp_below = (0, 0, 0)
    lamp_side = (1, 1, 0)
    w.set_block(lamp_below, "redstone_lamp")
    w.set_block(lamp_side, "redstone_lamp")
    w.set_block((-1, 1, 0), "stone")
    w.set_block((-2, 1, 0), "lever[face=wall,facing=west]")  # strongly powers (-1,1,0)
    w.set_block((0, 1, 0), "redstone_wire")
    assert shape(w, (0, 1, 0)) == CROSS

    def probe():
        return power(w, (0, 1, 0)), on(w, lamp_below), on(w, lamp_side)

    got = run(w, 20, probe, {0: [lambda: w.use((-2, 1, 0))], 5: [lambda: w.use((0, 1, 0))]})
    assert got == [(0, (15, True, True)), (9, (15, True, False))]
    assert shape(w, (0, 1, 0)) == DOT
    # back to a cross: the side lamp is lit again at once
    w.use((0, 1, 0))
    assert on(w, lamp_side) is True


def test_dust_does_not_power_block_above_it():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((0, 2, 0), "stone")
    w.set_block((0, 3, 0), "redstone_lamp")
    w.set_block((1, 2, 0), "redstone_lamp")
    w.set_block((-1, 1, 0), "redstone_block")
    w.step(6)
    assert power(w, (0, 1, 0)) == 15
    assert on(w, (0, 3, 0)) is False
    assert on(w, (1, 2, 0)) is False


def test_dust_feeds_repeater_at_its_back_even_with_power_1():
    w = World()
    floor(w, xs=range(-2, 20), zs=range(-1, 2))
    for x in range(15):
        w.set_block((x, 1, 0), "redstone_wire")
    w.set_block((15, 1, 0), "redstone_repeater[facing=west]")
    lever = _lever_west_of(w, (0, 1, 0))
    got = run(w, 6, lambda: (power(w, (14, 1, 0)), on(w, (15, 1, 0))), {0: [lambda: w.use(lever)]})
    assert got == [(0, (1, False)), (2, (1, True))]
