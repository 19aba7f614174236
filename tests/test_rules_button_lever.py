
import pytest
from redstone_helpers import new_world, on, power, run

BTN = (0, 1, 0)


def test_button_canonical_default_is_wall_north():
    w = new_world()
    w.set_block((0, 1, 1), "stone")  # pos - facing(north) = pos + (0,0,1)
    w.set_block(BTN, "stone_button")
    assert w.get_block(BTN) == "minecraft:stone_button[face=wall,facing=north,powered=false]"
    w.set_block((2, 1, 0), "lever[facing=east,face=floor]")
    assert w.get_block((2, 1, 0)) == "minecraft:lever[face=floor,facing=east,powered=false]"


def test_button_powered_for_exactly_20_gt():
    w = new_world()
    w.set_block(BTN, "stone_button[face=floor,facing=north]")
    got = run(w, 40, lambda: on(w, BTN), {0: [lambda: w.use(BTN)]})
    assert got == [(0, True), (20, False)]


def test_button_pressed_later_releases_20_gt_after_press():
    w = new_world()
    w.set_block(BTN, "stone_button[face=floor,facing=north]")
    got = run(w, 40, lambda: on(w, BTN), {7: [lambda: w.use(BTN)]})
    assert got == [(0, False), (7, True), (27, False)]


def test_pressing_a_pressed_button_does_not_extend_it():
    w = new_world()
    w.set_block(BTN, "stone_button[face=floor,facing=north]")
    press = [lambda: w.use(BTN)]
    got = run(w, 40, lambda: on(w, BTN), {0: press, 10: press, 19: press})
    assert got == [(0, True), (20, False)]


def test_button_can_be_pressed_again_after_release():
    w = new_world()
    w.set_block(BTN, "stone_button[face=floor,facing=north]")
    press = [lambda: w.use(BTN)]
    got = run(w, 60, lambda: on(w, BTN), {0: press, 25: press})
    assert got == [(0, True), (20, False), (25, True), (45, False)]


def test_button_repressed_on_release_tick_stays_powered():
    # scheduled ticks (release) run before actions of the same tick
    w = new_world()
    w.set_block(BTN, "stone_button[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_lamp")
    press = [lambda: w.use(BTN)]
    got = run(w, 60, lambda: (on(w, BTN), on(w, (1, 1, 0))), {0: press, 20: press})
    assert got == [(0, (True, True)), (40, (False, True)), (44, (False, False))]


def test_button_powers_adjacent_dust_and_lamp():
    w = new_world()
    w.set_block(BTN, "stone_button[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_lamp")
    w.set_block((-1, 1, 0), "redstone_wire")
    got = run(w, 30, lambda: (power(w, (-1, 1, 0)), on(w, (1, 1, 0))), {0: [lambda: w.use(BTN)]})
    assert got == [(0, (15, True)), (20, (0, True)), (24, (0, False))]


def test_floor_button_strongly_powers_block_below():
    w = new_world()
    w.set_block((0, 1, 0), "stone")
    w.set_block((0, 2, 0), "stone_button[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_wire")  # beside the block under the button
    got = run(w, 30, lambda: power(w, (1, 1, 0)), {0: [lambda: w.use((0, 2, 0))]})
    assert got == [(0, 15), (20, 0)]


def test_ceiling_button_strongly_powers_block_above():
    w = new_world()
    w.set_block((0, 2, 0), "stone")
    w.set_block((0, 1, 0), "stone_button[face=ceiling,facing=north]")
    w.set_block((0, 3, 0), "redstone_wire")  # on top of the block above the button
    got = run(w, 30, lambda: power(w, (0, 3, 0)), {0: [lambda: w.use((0, 1, 0))]})
    assert got == [(0, 15), (20, 0)]


def test_wall_button_powers_only_attached_block():
    w = new_world()
    w.set_block((1, 1, 0), "stone")                             # attached block
    w.set_block((0, 1, 1), "stone")                             # merely beside the button
    w.set_block(BTN, "stone_button[face=wall,facing=west]")     # attached at (1,1,0)
    w.set_block((2, 1, 0), "redstone_wire")
    w.set_block((0, 1, 2), "redstone_wire")
    w.use(BTN)
    assert power(w, (2, 1, 0)) == 15
    assert power(w, (0, 1, 2)) == 0


def test_button_on_a_lamp_lights_it():
    w = new_world()
    w.set_block((1, 1, 0), "redstone_lamp")
    w.set_block(BTN, "stone_button[face=wall,facing=west]")
    got = run(w, 30, lambda: on(w, (1, 1, 0)), {0: [lambda: w.use(BTN)]})
    assert got == [(0, True), (24, False)]


def test_lever_toggles_on_each_use():
    w = new_world()
    w.set_block(BTN, "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_lamp")
    assert w.use(BTN) is True
    assert w.get_block(BTN) == "minecraft:lever[face=floor,facing=north,powered=true]"
    assert on(w, (1, 1, 0)) is True
    assert w.use(BTN) is True
    assert on(w, BTN) is False
    got = run(w, 10, lambda: (on(w, BTN), on(w, (1, 1, 0))))
    assert got == [(0, (False, True)), (4, (False, False))]


def test_lever_stays_on_without_timeout():
    w = new_world()
    w.set_block(BTN, "lever[face=floor,facing=north]")
    got = run(w, 200, lambda: on(w, BTN), {0: [lambda: w.use(BTN)]})
    assert got == [(0, True)]


def test_wall_lever_strongly_powers_attached_block_only():
    w = new_world()
    w.set_block((1, 1, 0), "stone")
    w.set_block((0, 1, 1), "stone")
    w.set_block(BTN, "lever[face=wall,facing=west]")
    w.set_block((2, 1, 0), "redstone_wire")
    w.set_block((0, 1, 2), "redstone_wire")
    w.use(BTN)
    assert power(w, (2, 1, 0)) == 15
    assert power(w, (0, 1, 2)) == 0


@pytest.mark.parametrize("state", ["stone", "redstone_lamp", "glass", "redstone_block", "redstone_torch"])
def test_use_on_non_interactive_block_returns_false_and_changes_nothing(state):
    w = new_world()
    w.set_block(BTN, state)
    before = (w.blocks(), w.tick)
    assert w.use(BTN) is False
    assert (w.blocks(), w.tick) == before
    assert w.use((5, 5, 5)) is False  # air
