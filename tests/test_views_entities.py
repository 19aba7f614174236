"""Minecarts and item entities in the explorer: every recorded tick draws the entities the trace holds at that tick,
where they were (going back included: nothing of another tick stays drawn), in one mesh rewritten in place; the
scrubber sends the page the same boxes for each row; hovering names them. The page's own drawing is checked in
tests/browser/test_browser_explorer.py."""

from pathlib import Path

import numpy as np
import pytest

from scicraft_viz import World
from scicraft_viz.engine.carts import HALF_WIDTH, HEIGHT
from scicraft_viz.views import Explorer
from scicraft_viz.views.canvas import Canvas, Pick
from scicraft_viz.views.entities import ITEM_HALF, ITEM_HEIGHT, entity_vertices
from scicraft_viz.views.frame import frame_from_world

NUCLEATION = Path(__file__).parent / "data" / "nucleation"
ITEM_AT = (6.5, 3.0, 0.5)  # above the stone beside the rails: it falls onto it


def cart_world() -> World:
    """A minecart rolling east along a straight rail on a stone floor (Nucleation's cart_flat)."""
    return World.from_build_file(NUCLEATION / "cart_flat.snbt")


@pytest.fixture
def ex():
    """An explorer that recorded 6 ticks of the rolling cart, then (an item dropped in) 6 more."""
    e = Explorer(world=cart_world())
    e.session.step(6)
    e.session.world.spawn_item("redstone", 3, ITEM_AT)
    e.session.step(6)
    return e


def reference():
    """The same run recorded straight from the engine: (carts, items) at each of its 13 ticks."""
    w = cart_world()
    a = w.record(6)
    w.spawn_item("redstone", 3, ITEM_AT)
    b = w.record(6)
    carts = a.carts + b.carts[1:]
    items = [()] * 6 + b.items
    return [tuple(c) for c in carts], [tuple(i) for i in items]


def boxes_of(carts, items):
    """The boxes (low and high corner) the canvas must draw for these entities."""
    out = [((c.pos[0] - HALF_WIDTH, c.pos[1], c.pos[2] - HALF_WIDTH),
            (c.pos[0] + HALF_WIDTH, c.pos[1] + HEIGHT, c.pos[2] + HALF_WIDTH)) for c in carts]
    out += [((e.pos[0] - ITEM_HALF, e.pos[1], e.pos[2] - ITEM_HALF),
             (e.pos[0] + ITEM_HALF, e.pos[1] + ITEM_HEIGHT, e.pos[2] + ITEM_HALF)) for e in items]
    return out


def test_each_tick_shows_the_traces_entities_where_they_were_going_back_too(ex):
    s = ex.session
    carts, items = reference()
    assert (s.start, s.end) == (0, 12) and len(carts) == 13
    xs = [c[0].pos[0] for c in carts]
    assert xs[0] == 2.5 and all(b > a for a, b in zip(xs, xs[1:]))  # the cart rolls east every tick
    assert items[5] == () and items[6][0].pos == ITEM_AT and items[12][0].pos[1] < ITEM_AT[1]  # dropped, falling
    for t in (12, 3, 9, 0, 6, 5, 12, 11):  # live, back, forth, the start, the item's first tick and the one before
        s.seek(t)
        assert ex.canvas.entities == (carts[t], items[t]), t
        got = ex.canvas.entity_boxes()
        want = boxes_of(carts[t], items[t])
        assert len(got) == len(want) == 1 + (t >= 6), t
        assert np.allclose(got, want, atol=1e-5), (t, got, want)
        # what hovering the cart's rail says follows the tick too
        x, y, z = carts[t][0].pos
        text = ex.canvas.hover(Pick(hit=(int(x), 0, int(z)), target=(int(x), 1, int(z)), normal=(0, 1, 0)))
        assert f"minecart #1 at ({x:.3f}, {y:.3f}, {z:.3f})" in text, text
    # stepping draws the next tick's place: the vertices moved by the cart's move
    s.seek(4)
    before = np.asarray(ex.canvas.ent_pos_attr.array).copy()
    ex.stepper.step_button.click()
    assert s.tick == 5
    moved = np.asarray(ex.canvas.ent_pos_attr.array)[:36] - before[:36]
    assert np.allclose(moved, [carts[5][0].pos[0] - carts[4][0].pos[0], 0, 0], atol=1e-5)


def test_the_sessions_trace_keeps_the_entities_of_each_row(ex):
    carts, items = reference()
    tr = ex.session.trace
    assert tr.carts == list(carts) and tr.items == list(items)
    assert Explorer(world=World()).session.trace.carts is None


def test_no_entity_of_another_tick_stays_drawn_and_the_mesh_is_reused(ex):
    s = ex.session
    s.seek(12)
    mesh, pos_attr = ex.canvas._entities, ex.canvas.ent_pos_attr
    s.seek(2)  # before the item was dropped: only the cart, every other box collapsed to nothing
    pos = np.asarray(pos_attr.array).reshape(-1, 36, 3)
    assert len(ex.canvas.entity_boxes()) == 1 and not pos[1:].any()
    assert ex.canvas._entities is mesh and ex.canvas.ent_pos_attr is pos_attr  # same mesh, arrays rewritten


def test_the_scrubber_sends_each_rows_entities_as_the_canvas_draws_them(ex):
    s, sc = ex.session, ex.scrubber
    index = np.frombuffer(sc.ent_index, np.uint32).reshape(-1, 2)
    data = np.frombuffer(sc.ent_data, np.float64).reshape(-1, 12)
    assert (sc.meta["first"], sc.meta["last"]) == (s.start, s.end) and len(index) == 13
    cap = sc.meta["ent"]["cap"]
    assert cap == ex.canvas._ent_cap and sc.ent_attrs == [ex.canvas.ent_pos_attr, ex.canvas.ent_col_attr]
    for k, t in enumerate(range(s.start, s.end + 1)):
        s.seek(t)
        first, n = index[k]
        pos, col = entity_vertices(data[first : first + n], cap)  # what the page writes for this row
        assert np.array_equal(pos, ex.canvas.ent_pos_attr.array) and np.array_equal(col, ex.canvas.ent_col_attr.array)
    # the page's arithmetic, as scrub.py's entities() does it, gives the same float32 vertices
    e = sc.meta["ent"]
    first, n = index[12]
    r = data[first]
    page = np.array([[r[a] + e["template"][v][a] * r[3 + a] for a in range(3)] for v in range(36)], np.float32)
    assert np.array_equal(page, np.asarray(ex.canvas.ent_pos_attr.array)[:36])


def test_the_layer_slider_hides_the_entities_above_it_as_it_hides_blocks(ex):
    """The cart stands in the rails' layer (y 1), the item lies on the stone beside them (y 2): showing y <= 1
    leaves the item out of the canvas and of every row the page is sent; showing all brings it back."""
    c, sc = ex.canvas, ex.scrubber
    cart, item = c.entities[0][0], c.entities[1][0]
    assert int(np.floor(cart.pos[1])) == 1 and int(np.floor(item.pos[1])) == 2
    rows = lambda: np.frombuffer(sc.ent_index, np.uint32).reshape(-1, 2)[:, 1].tolist()  # noqa: E731
    assert rows() == [1] * 6 + [2] * 7
    c.layer.value = 1
    assert np.allclose(c.entity_boxes(), boxes_of([cart], []), atol=1e-5)
    assert rows() == [1] * 13
    c.layer.value = 0  # the floor only: no entity
    assert c.entity_boxes() == [] and rows() == [0] * 13
    c.layer.value = c.layer.max
    assert np.allclose(c.entity_boxes(), boxes_of([cart], [item]), atol=1e-5)
    assert rows() == [1] * 6 + [2] * 7


def test_a_tick_the_page_drew_does_not_send_the_entities_back(ex):
    s = ex.session
    sent = []
    for w in ex._drawn_by_page():
        w.send_state = lambda key=None, _w=w: sent.append(_w)
    ex.scrubber.tick = 3  # as the page reports it after drawing tick 3 itself
    assert s.tick == 3 and ex.canvas.entities[0] == tuple(reference()[0][3])
    assert ex.canvas.ent_pos_attr not in sent and ex.canvas.ent_col_attr not in sent
    s.seek(8)  # chosen in the kernel: sent as before
    assert ex.canvas.ent_pos_attr in sent


def test_more_entities_than_the_mesh_holds_make_room_once():
    w = World.from_blocks([((x, 0, z), "stone") for x in range(4) for z in range(4)])
    for i in range(12):
        w.spawn_item("stone", 1, (0.5 + (i % 4), 1.0, 0.5 + i // 4))
    cv = Canvas()
    cv.show_world(w)
    assert cv._ent_cap >= 12 and len(cv.entity_boxes()) == 12
    assert cv.items_at((1, 0, 0)) == ["item #2: 1 stone at (1.500, 1.000, 0.500), at rest"]
    cv.show_entities()
    assert cv.entity_boxes() == [] and not np.asarray(cv.ent_pos_attr.array).any()


def test_a_worlds_frame_carries_its_entities():
    w = cart_world()
    w.spawn_item("redstone", 1, ITEM_AT)
    f = frame_from_world(w)
    assert f.carts == tuple(w.minecarts()) and f.items == tuple(w.item_entities())


def test_the_event_log_says_a_minecart_set_the_detector_rail_off():
    """Nucleation's detector_rail: a cart rolls over a detector rail at (6, 1, 1), which lights the lamps around it."""
    ex = Explorer(world=World.from_build_file(NUCLEATION / "detector_rail.snbt"))
    ex.session.step(40)
    rail = [c for c in ex.session.causes() if c.event.pos == (6, 1, 1)]
    assert [(c.event.tick, c.text) for c in rail] == [
        (14, "detector_rail (6, 1, 1) turned on: a minecart is on it"),
        (34, "detector_rail (6, 1, 1) turned off: no minecart was on it at its check (a pressed detector rail looks "
             "every 20 gt)")]
    assert [c.text for c in ex.session.causes(14)][1] == (
        "dust (6, 1, 0) reached power 15: at once, when detector_rail (6, 1, 1) turned on")


def test_a_trace_read_back_from_its_file_replays_with_its_entities(tmp_path):
    """A recorded trial (a build and its trace, saved and loaded again) draws each row's cart and item, as the
    annotator's and the replay viewer's canvases show a trial."""
    from scicraft_viz.engine import tracefile
    from scicraft_viz.views.session import recording_of_trial

    w = cart_world()
    w.spawn_item("redstone", 2, ITEM_AT)
    build = w.blocks()
    tracefile.save(w.record(5), tmp_path / "t.json")
    tr = tracefile.load(tmp_path / "t.json")
    rec = recording_of_trial(build, tr)
    cv = Canvas(region=((0, 0, 0), (15, 4, 2)))
    for t in (5, 0, 3):
        f = rec.frame(t)
        assert (f.carts, f.items) == (tr.carts[t], tr.items[t])
        cv.show(f)
        assert np.allclose(cv.entity_boxes(), boxes_of(tr.carts[t], tr.items[t]), atol=1e-5)
