"""Item entities in lava and fire: lava holds them up as water does, with more drag, and burns them away unless the
item resists fire (netherite); a fire block burns them too. docs/redstone.md section 102."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redstone_helpers import new_world

F = lambda v: float(np.float32(v))  # noqa: E731  a float constant of the game, widened to a double
RISE, RISE_BELOW, DRAG, LAVA_DRAG = F(5.0e-4), F(0.06), F(0.98), F(0.95)


def _pool(item, pos, vel=(0.0, 0.0, 0.0), cells=((0, 1, 0),)):
    """Lava sources on new_world's floor (its top at y = 1), an item of `item` at pos."""
    w = new_world()
    for p in cells:
        w.set_block(p, "lava")
    w.spawn_item(item, 1, pos, vel)
    return w


def _floating(n, vx=0.0):
    """The item's (x, y, vx, vy) after each of n ticks deep in still lava, from y = 1 at x = 0.5: setUnderLavaMovement
    (horizontal x 0.95F, up 5e-4F while slower than 0.06F), the move, then the air drag 0.98F."""
    x, y, vy, out = 0.5, 1.0, 0.0, []
    for _ in range(n):
        vx *= LAVA_DRAG
        vy += RISE if vy < RISE_BELOW else 0.0
        x, y = x + vx, y + vy
        vx, vy = vx * DRAG, vy * DRAG
        out.append((x, y, vx, vy))
    return out


def test_an_item_in_lava_rises_slowly_and_burns_away_in_its_third_tick():
    """Tick 1: no harm (an entity is never in lava in its first tick), it rises by 5e-4. Tick 2: lava takes 4 of
    its 5 health and sets it on fire. Tick 3: the next 4 remove it."""
    w = _pool("stone", (0.5, 1.0, 0.5))
    want = _floating(2)
    for x, y, vx, vy in want:
        w.step()
        (e,) = w.item_entities()
        assert e.pos == (x, y, 0.5) and e.velocity == (vx, vy, 0.0)
    w.step()
    assert w.item_entities() == []


def test_lava_drags_an_item_sideways_by_0_95_each_tick():
    w = _pool("netherite_ingot", (0.5, 1.0, 0.5), (0.1, 0.0, 0.0), cells=[(x, 1, 0) for x in range(3)])
    for x, y, vx, vy in _floating(6, 0.1):
        w.step()
        (e,) = w.item_entities()
        assert e.pos == (x, y, 0.5) and e.velocity == (vx, vy, 0.0)


def test_a_netherite_item_floats_in_lava_for_good():
    """It never burns: it rises while more than 0.1 deep (the lava's top at 1 + 8/9), falls back when less, and
    bobs within the lava, never back to the floor."""
    w = _pool("netherite_ingot", (0.5, 1.0, 0.5))
    ys = []
    for _ in range(400):
        w.step()
        (e,) = w.item_entities()
        ys.append(e.pos[1])
    surface = 1.0 + F(F(8) / F(9))
    assert ys == sorted(ys[:50]) + ys[50:]  # rising at first
    assert all(1.3 < y < surface for y in ys[100:])


def test_an_item_falling_into_lava_burns_in_its_second_tick_there():
    """From y = 3 it falls freely; after tick 8 its bottom (1.6252) is under the lava's top (1.8889), so tick 9
    starts in lava (health 5 - 4 = 1, slowed as in lava) and tick 10 removes it."""
    w = _pool("stone", (0.5, 3.0, 0.5))
    y, vy = 3.0, 0.0
    for _ in range(8):
        vy -= 0.04
        y += vy
        vy *= DRAG
        w.step()
        (e,) = w.item_entities()
        assert e.pos[1] == y and e.velocity[1] == vy
    assert y < 1.0 + F(F(8) / F(9)) < y + 0.3  # only now in it
    w.step()
    (e,) = w.item_entities()
    assert e.velocity[1] == (vy + RISE) * DRAG
    w.step()
    assert w.item_entities() == []


@pytest.mark.parametrize("item, gone", [("stone", 7), ("netherite_ingot", None)])
def test_an_item_in_fire_burns_away_at_its_fifth_hurt(item, gone):
    """An item (id 1) lying in fire: each move into it (tick 1, then every 4th tick as it rests: 3, 7) takes 1 and
    sets 8 seconds (160 ticks) of fire, and every tick whose fire count is a multiple of 20 (ticks 2 and 4) takes
    1 more: 5 health are gone at tick 7. A netherite item neither burns nor catches fire."""
    w = new_world()
    w.set_block((0, 1, 0), "fire")
    w.spawn_item(item, 1, (0.5, 1.0, 0.5))
    for t in range(1, 40):
        w.step()
        assert len(w.item_entities()) == (0 if gone is not None and t >= gone else 1), t


def test_water_puts_out_a_burning_item():
    """Set on fire by its first move, through fire (8 seconds of fire, health 4), it slides into water, which puts
    the fire out: still burning, it would lose 1 at each 20th fire tick (ticks 2, 22, 42 and 62) and be gone at 62."""
    w = new_world()
    w.set_block((0, 1, 0), "fire")
    w.set_block((1, 1, 0), "water")
    w.spawn_item("stone", 1, (0.5, 1.0, 0.5), (0.3, 0.0, 0.0))
    w.step(100)
    assert [e.item for e in w.item_entities()] == ["stone"]


def test_lavas_current_pushes_an_item_toward_lower_lava():
    """A source beside lava[level=2] (2/3 high) flows east. The item (netherite, so it stays) is pushed as its tick
    starts and again after its move: by 0.0045 while it is nearly at rest (under 0.003 a tick sideways), else by
    lava's 0.0023333333333333335."""
    w = _pool("netherite_ingot", (0.5, 1.0, 0.5))
    w.set_block((1, 1, 0), "lava[level=2]")

    def push(vx):
        return 0.0045000000000000005 if abs(vx) < 0.003 else 0.0023333333333333335

    x, y, vx, vy = 0.5, 1.0, 0.0, 0.0
    for _ in range(12):
        vx += push(vx)
        vx *= LAVA_DRAG
        vy += RISE if vy < RISE_BELOW else 0.0
        x, y = x + vx, y + vy
        vx, vy = vx * DRAG, vy * DRAG
        vx += push(vx)
        w.step()
        (e,) = w.item_entities()
        assert e.pos == (x, y, 0.5) and e.velocity == (vx, vy, 0.0)
    assert w.get_block((1, 1, 0)) == "minecraft:lava[level=2]"  # lava stays as loaded (section 84)


@settings(max_examples=25, deadline=None)
@given(h=st.floats(1.0, 6.0), vx=st.floats(-0.05, 0.05), vz=st.floats(-0.05, 0.05),
       item=st.sampled_from(["stone", "netherite_ingot", "oak_planks"]))
def test_an_item_over_a_lava_pool_burns_in_its_second_tick_in_lava_unless_it_resists_fire(h, vx, vz, item):
    """Dropped anywhere over a 5 x 5 pool: the tick after the first tick (other than its very first) that starts
    with its bottom under the lava's top, it is gone; a netherite item never is."""
    w = _pool(item, (2.5, h, 2.5), (vx, 0.0, vz), cells=[(x, 1, z) for x in range(5) for z in range(5)])
    top = 1.0 + F(F(8) / F(9))
    y, hurt_at = h, None
    for t in range(1, 60):
        if hurt_at is None and t > 1 and y < top:
            hurt_at = t
        w.step()
        items = w.item_entities()
        if item != "netherite_ingot" and hurt_at is not None and t > hurt_at:
            assert items == [], t
            return
        (e,) = items
        y = e.pos[1]
    assert item == "netherite_ingot"
