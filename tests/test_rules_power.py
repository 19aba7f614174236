
from redstone_helpers import new_world, on, power, run

# Layout used below: a conductive block S at (1,1,0); things on its far side at x=2.


def test_lever_attached_to_stone_strongly_powers_it():
    w = new_world()
    w.set_block((1, 1, 0), "stone")
    w.set_block((0, 1, 0), "lever[face=wall,facing=west]")  # attached at pos - facing = (1,1,0)
    w.set_block((2, 1, 0), "redstone_wire")
    flip = [lambda: w.use((0, 1, 0))]
    got = run(w, 10, lambda: power(w, (2, 1, 0)), {1: flip, 6: flip})
    assert got == [(0, 0), (1, 15), (6, 0)]


def test_button_attached_to_stone_strongly_powers_it_for_20_gt():
    w = new_world()
    w.set_block((1, 1, 0), "stone")
    w.set_block((0, 1, 0), "stone_button[face=wall,facing=west]")
    w.set_block((2, 1, 0), "redstone_wire")
    got = run(w, 30, lambda: power(w, (2, 1, 0)), {0: [lambda: w.use((0, 1, 0))]})
    assert got == [(0, 15), (20, 0)]


def test_floor_button_does_not_power_solid_block_beside_it():
    w = new_world()
    w.set_block((0, 1, 0), "stone_button[face=floor,facing=north]")
    w.set_block((1, 1, 0), "stone")
    w.set_block((2, 1, 0), "redstone_wire")
    w.set_block((1, 1, 1), "redstone_lamp")
    w.use((0, 1, 0))
    assert on(w, (0, 1, 0)) is True
    assert power(w, (2, 1, 0)) == 0
    assert on(w, (1, 1, 1)) is False


def test_repeater_strongly_powers_block_in_front():
    w = new_world()
    w.set_block((-1, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((0, 1, 0), "redstone_repeater[facing=west,delay=1]")
    w.set_block((1, 1, 0), "stone")
    w.set_block((2, 1, 0), "redstone_wire")
    w.set_block((1, 2, 0), "redstone_wire")  # dust on top of the strongly powered block
    got = run(w, 10, lambda: (power(w, (2, 1, 0)), power(w, (1, 2, 0))), {0: [lambda: w.use((-1, 1, 0))]})
    assert got == [(0, (0, 0)), (2, (15, 15))]


def test_torch_strongly_powers_block_above():
    w = new_world()
    w.set_block((0, 2, 0), "stone")          # above the torch: strongly powered
    w.set_block((1, 1, 0), "stone")
    w.set_block((1, 2, 0), "redstone_wire")  # on (1,1,0), beside (0,2,0)
    got = run(w, 6, lambda: power(w, (1, 2, 0)), {1: [lambda: w.set_block((0, 1, 0), "redstone_torch")]})
    assert got == [(0, 0), (1, 15)]


def test_torch_does_not_power_solid_block_beside_it():
    w = new_world()
    w.set_block((1, 1, 0), "stone")          # beside the torch
    w.set_block((2, 1, 0), "redstone_wire")  # beside (1,1,0)
    w.set_block((1, 1, 1), "redstone_lamp")  # beside (1,1,0)
    w.set_block((1, 2, 0), "redstone_torch")  # on (1,1,0): lit unless (1,1,0) is powered
    w.set_block((0, 1, 0), "redstone_torch")
    w.step(6)
    assert on(w, (0, 1, 0)) is True
    assert power(w, (2, 1, 0)) == 0
    assert on(w, (1, 1, 1)) is False
    assert on(w, (1, 2, 0)) is True


def _weak_setup(w):
    """lever -> dust (0,1,0) pointing into S=(1,1,0); around S: lamp, torch on top, repeater, dust."""
    w.set_block((-1, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), "stone")
    w.set_block((1, 1, 1), "redstone_lamp")
    w.set_block((1, 2, 0), "redstone_torch")
    w.set_block((1, 1, -1), "redstone_repeater[facing=south,delay=1]")  # input = S
    w.set_block((2, 1, 0), "redstone_wire")


def test_weakly_powered_block_powers_lamp_torch_repeater_but_not_dust():
    w = new_world()
    _weak_setup(w)

    def probe():
        return (on(w, (1, 1, 1)), on(w, (1, 2, 0)), on(w, (1, 1, -1)), power(w, (2, 1, 0)))

    got = run(w, 30, probe, {0: [lambda: w.use((-1, 1, 0))], 10: [lambda: w.use((-1, 1, 0))]})
    # lamp on at once, torch off after 2 gt, repeater on after 2 gt, far dust never powered
    assert got == [
        (0, (True, True, False, 0)),
        (2, (True, False, True, 0)),
        (12, (True, True, False, 0)),
        (14, (False, True, False, 0)),
    ]


def test_dust_on_top_of_block_weakly_powers_it():
    w = new_world()
    w.set_block((1, 1, 0), "stone")
    w.set_block((1, 2, 0), "redstone_wire")
    w.set_block((2, 1, 0), "redstone_lamp")
    w.set_block((1, 1, -1), "redstone_repeater[facing=south,delay=2]")  # input = (1,1,0)
    got = run(w, 10, lambda: (on(w, (2, 1, 0)), on(w, (1, 1, -1))),
              {2: [lambda: w.set_block((0, 2, 0), "redstone_block")]})
    assert got == [(0, (False, False)), (2, (True, False)), (6, (True, True))]


def test_lever_on_glass_powers_nothing_through_it():
    w = new_world()
    w.set_block((1, 1, 0), "glass")
    w.set_block((0, 1, 0), "lever[face=wall,facing=west]")  # attached to the glass
    w.set_block((2, 1, 0), "redstone_lamp")
    w.set_block((1, 2, 0), "redstone_torch")
    w.set_block((1, 1, 1), "redstone_wire")
    got = run(w, 10, lambda: (on(w, (0, 1, 0)), on(w, (2, 1, 0)), on(w, (1, 2, 0)), power(w, (1, 1, 1))),
              {0: [lambda: w.use((0, 1, 0))]})
    assert got == [(0, (True, False, True, 0))]


def test_dust_pointing_into_glass_does_not_power_it():
    w = new_world()
    w.set_block((-1, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), "glass")
    w.set_block((2, 1, 0), "redstone_lamp")
    w.set_block((1, 2, 0), "redstone_torch")
    got = run(w, 10, lambda: (power(w, (0, 1, 0)), on(w, (2, 1, 0)), on(w, (1, 2, 0))),
              {0: [lambda: w.use((-1, 1, 0))]})
    assert got == [(0, (15, False, True))]


def test_button_on_glass_powers_its_own_neighbours_only():
    w = new_world()
    w.set_block((1, 1, 0), "glass")
    w.set_block((0, 1, 0), "stone_button[face=wall,facing=west]")  # on the glass
    w.set_block((2, 1, 0), "redstone_lamp")   # beyond the glass
    w.set_block((0, 1, -1), "redstone_lamp")  # beside the button
    w.set_block((0, 1, 1), "redstone_wire")   # beside the button
    w.set_block((1, 2, 0), "redstone_torch")  # on the glass

    def probe():
        return on(w, (2, 1, 0)), on(w, (0, 1, -1)), power(w, (0, 1, 1)), on(w, (1, 2, 0))

    got = run(w, 30, probe, {0: [lambda: w.use((0, 1, 0))]})
    assert got == [(0, (False, True, 15, True)), (20, (False, True, 0, True)), (24, (False, False, 0, True))]


def test_glass_under_dust_is_not_powered():
    w = new_world()
    w.set_block((0, 1, 0), "glass")
    w.set_block((0, 2, 0), "redstone_wire")
    w.set_block((1, 2, 0), "redstone_block")
    w.set_block((0, 1, 1), "redstone_lamp")  # beside the glass
    w.set_block((-1, 1, 0), "redstone_repeater[facing=east]")  # input = glass
    w.step(6)
    assert power(w, (0, 2, 0)) == 15
    assert on(w, (0, 1, 1)) is False
    assert on(w, (-1, 1, 0)) is False


def test_redstone_block_powers_adjacent_dust_lamp_and_repeater():
    w = new_world()
    w.set_block((1, 1, 0), "redstone_lamp")
    w.set_block((0, 1, 1), "redstone_wire")
    w.set_block((-1, 1, 0), "redstone_repeater[facing=east]")  # input at (0,1,0)

    def place():
        w.set_block((0, 1, 0), "redstone_block")
        w.set_block((0, 2, 0), "redstone_wire")  # a redstone block holds dust

    got = run(w, 8, lambda: (on(w, (1, 1, 0)), power(w, (0, 1, 1)), on(w, (-1, 1, 0))), {0: [place]})
    assert got == [(0, (True, 15, False)), (2, (True, 15, True))]
    assert power(w, (0, 2, 0)) == 15


def test_redstone_block_does_not_power_stone_beside_it():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_block")
    w.set_block((1, 1, 0), "stone")
    w.set_block((2, 1, 0), "redstone_wire")
    w.set_block((1, 1, 1), "redstone_lamp")
    w.set_block((1, 2, 0), "redstone_torch")
    w.step(6)
    assert power(w, (2, 1, 0)) == 0
    assert on(w, (1, 1, 1)) is False
    assert on(w, (1, 2, 0)) is True


def test_strongly_powered_lamp_powers_dust_beside_it():
    # a lamp is conductive: a lever on it powers it strongly, and it powers adjacent dust
    w = new_world()
    w.set_block((1, 1, 0), "redstone_lamp")
    w.set_block((0, 1, 0), "lever[face=wall,facing=west]")
    w.set_block((2, 1, 0), "redstone_wire")
    w.use((0, 1, 0))
    assert on(w, (1, 1, 0)) is True
    assert power(w, (2, 1, 0)) == 15


def test_weakly_powered_lamp_powers_adjacent_lamp_but_not_dust():
    w = new_world()
    w.set_block((-1, 1, 0), "redstone_wire")
    w.set_block((0, 1, 0), "redstone_wire")   # points east into the lamp
    w.set_block((1, 1, 0), "redstone_lamp")
    w.set_block((2, 1, 0), "redstone_lamp")
    w.set_block((1, 1, 1), "redstone_wire")   # beside the lamp
    w.set_block((-2, 1, 0), "redstone_block")
    assert power(w, (0, 1, 0)) == 14
    assert on(w, (1, 1, 0)) is True
    assert on(w, (2, 1, 0)) is True
    assert power(w, (1, 1, 1)) == 0


def test_repeater_into_glass_powers_nothing_beyond():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_block")
    w.set_block((1, 1, 0), "redstone_repeater[facing=west]")
    w.set_block((2, 1, 0), "glass")
    w.set_block((3, 1, 0), "redstone_lamp")
    w.set_block((2, 1, 1), "redstone_wire")
    w.set_block((2, 2, 0), "redstone_torch")
    w.step(6)
    assert on(w, (1, 1, 0)) is True
    assert on(w, (3, 1, 0)) is False
    assert power(w, (2, 1, 1)) == 0
    assert on(w, (2, 2, 0)) is True
