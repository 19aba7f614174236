"""Canvas geometry and widget state without a browser: merged buffers, colours per frame,
layer hiding, picking, highlights."""

import numpy as np
import pytest

from scicraft_viz.demo import demo_world
from scicraft_viz.views import Canvas, Session, frame_from_blocks
from scicraft_viz.views import geometry as G
from scicraft_viz.views.canvas import pick_from_point


@pytest.fixture
def demo_session():
    return Session(demo_world())


def normals(mesh):
    tri = mesh.positions.reshape(-1, 3, 3)
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    return np.rint(n / np.linalg.norm(n, axis=1)[:, None]).astype(int)


def test_a_stone_is_a_unit_cube_at_its_position_with_outward_faces():
    f = frame_from_blocks({(3, 5, -2): "stone"})
    mesh = G.build(f.layout).meshes["solid"]
    assert mesh.n_vertices == 36
    assert mesh.positions.min(0).tolist() == [3, 5, -2] and mesh.positions.max(0).tolist() == [4, 6, -1]
    centre = np.array([3.5, 5.5, -1.5])
    tri = mesh.positions.reshape(-1, 3, 3)
    outward = ((tri.mean(1) - centre) * normals(mesh)).sum(1)
    assert (outward > 0).all()


def test_faces_between_full_blocks_are_culled():
    f = frame_from_blocks({(x, 0, z): "stone" for x in range(3) for z in range(3)})
    mesh = G.build(f.layout).meshes["solid"]
    # 9 tops, 9 bottoms, 12 outer sides
    assert mesh.n_vertices == (9 + 9 + 12) * 6


def test_glass_goes_to_its_own_translucent_mesh_with_outlines():
    f = frame_from_blocks({(0, 0, 0): "glass", (1, 0, 0): "glass"})
    g = G.build(f.layout)
    assert g.meshes["solid"].n_vertices == 0
    assert g.meshes["glass"].n_vertices == 10 * 6  # the shared face is hidden
    assert len(g.glass_edges) == 2 * 12 * 2


def test_lit_lamp_glows_and_dark_lamp_does_not():
    lit = frame_from_blocks({(0, 0, 0): "redstone_lamp[lit=true]"})
    dark = frame_from_blocks({(0, 0, 0): "redstone_lamp[lit=false]"})
    g = G.build(lit.layout)
    c_lit, c_dark = G.vertex_colors(g, lit), G.vertex_colors(g, dark)
    assert c_lit["glow"].max() > 100 and c_dark["glow"].max() == 0
    assert c_lit["lamp"].mean() > 2 * c_dark["lamp"].mean()


def test_dust_brightness_follows_power_and_shape_follows_connections():
    blocks = {(0, 0, 0): "stone", (1, 0, 0): "stone",
              (0, 1, 0): "redstone_wire[east=side,north=none,power=15,south=none,west=side]",
              (1, 1, 0): "redstone_wire[east=none,north=none,power=0,south=none,west=none]"}
    f = frame_from_blocks(blocks)
    g = G.build(f.layout)
    dust = g.part == G.P_DUST
    rows = g.block[dust]
    line = f.layout.at((0, 1, 0))
    dot = f.layout.at((1, 1, 0))
    assert (rows == line).sum() == 3  # centre + west arm + east arm
    assert (rows == dot).sum() == 1  # a dot: centre only
    colors = G.box_colors(g, f)[dust]
    assert colors[rows == line][0][0] == pytest.approx(1.0)
    assert colors[rows == dot][0][0] == pytest.approx(0.30)


def test_repeater_delay_moves_its_torch_and_facing_turns_it():
    def delay_torch_z(state):
        f = frame_from_blocks({(0, 0, 0): state})
        g = G.build(f.layout)
        boxes = [b for b, p in zip(range(len(g.part)), g.part) if p == G.P_REP_LIT]
        mesh = g.meshes["solid"]
        torch = boxes[-1]  # the delay torch is the last lit part
        return mesh.positions[mesh.box == torch].mean(0)

    # facing=north: input from the north (-z), output south; longer delay = further north
    z = [delay_torch_z(f"redstone_repeater[delay={d},facing=north]")[2] for d in (1, 2, 3, 4)]
    assert z == pytest.approx([7 / 16, 5 / 16, 3 / 16, 1 / 16])
    x = delay_torch_z("redstone_repeater[delay=4,facing=west]")[0]
    assert x == pytest.approx(1 / 16)


def test_layer_slider_hides_blocks_above_it():
    c = Canvas(region=((0, 0, 0), (4, 4, 4)))
    c.show_blocks({(1, 0, 1): "stone", (1, 1, 1): "stone", (1, 2, 1): "stone"})
    assert c.vertex_count()["solid"] == (2 + 3 * 4) * 6
    c.layer.value = 0
    assert c.vertex_count()["solid"] == 36


def test_colours_only_change_when_the_layout_is_the_same(demo_session):
    c = Canvas(region=demo_session.region)
    c.show(demo_session.frame())
    pos_before = c._buffers["solid"].pos_attr.array.copy()
    demo_session.press()
    demo_session.step(4)
    c.show(demo_session.frame())
    assert np.array_equal(c._buffers["solid"].pos_attr.array, pos_before)


def test_buffers_keep_capacity_and_grow_only_when_needed():
    c = Canvas(region=((0, 0, 0), (40, 2, 40)))
    c.show_blocks({(0, 0, 0): "stone"})
    geom = c._buffers["solid"].mesh.geometry
    c.show_blocks({(0, 0, 0): "stone", (2, 0, 0): "stone"})
    assert c._buffers["solid"].mesh.geometry is geom
    c.show_blocks({(x, 0, z): "stone" for x in range(0, 40, 2) for z in range(0, 40, 2)})
    assert c._buffers["solid"].mesh.geometry is not geom
    assert c.vertex_count()["solid"] == 400 * 36


@pytest.mark.parametrize("point, normal, hit, target", [
    ((2.5, 4.0, 3.5), (0, 1, 0), (2, 3, 3), (2, 4, 3)),
    ((3.0, 4.5, 3.5), (1, 0, 0), (2, 4, 3), (3, 4, 3)),
    ((2.5, 4.5, 3.0), (0, 0, -1), (2, 4, 3), (2, 4, 2)),
    ((2.5, 3.0625, 3.5), (0, 1, 0), (2, 3, 3), (2, 4, 3)),  # the top of a dust on (2, 3, 3)
])
def test_picks_turn_into_the_hit_block_and_the_cell_in_front(point, normal, hit, target):
    p = pick_from_point(point, normal, [True, False, False, False])
    assert (p.hit, p.target, p.shift, p.ctrl) == (hit, target, True, False)


def test_pick_on_a_side_face_knows_its_facing():
    assert pick_from_point((3.0, 4.5, 3.5), (1, 0, 0)).facing == "east"
    assert pick_from_point((2.5, 4.0, 3.5), (0, 1, 0)).facing is None
    assert pick_from_point((0, 0, 0), (0, 0, 0)) is None


def test_highlight_outlines_given_positions():
    c = Canvas(region=((0, 0, 0), (4, 4, 4)))
    c.highlight([(1, 2, 3), (0, 0, 0)], "#ff0000", name="mine")
    assert c.highlighted("mine") == [(1, 2, 3), (0, 0, 0)]
    c.clear_highlight("mine")
    assert c.highlighted("mine") == []


def test_camera_presets():
    c = Canvas(region=((0, 0, 0), (8, 8, 8)))
    c.show_blocks({(4, 0, 4): "stone", (4, 1, 4): "redstone_lamp"})
    c.view("top")
    x, y, z = c.camera.position
    # vertices are shifted so that the build's centre sits where the orbit controls look (the origin)
    assert c._offset == pytest.approx((4.5, 1.5, 4.5))
    solid = c._buffers["solid"]
    assert solid.pos_attr.array[: solid.n].min(0) == pytest.approx((-0.5, -1.5, -0.5))
    assert abs(x) < 1e-6 and y > 5 and abs(z) < 1e-2
    c.view("front")
    assert c.camera.position[2] > 5 and abs(c.camera.position[0]) < 1e-6 and c.view_buttons.value == "Front"
    with pytest.raises(ValueError, match="unknown view 'side'"):
        c.view("side")


def test_look_quaternion_points_the_camera_at_the_target():
    from scicraft_viz.views.canvas import look_quaternion

    for eye, target in [((10, 12, 9), (0.5, 5, -8.5)), ((0, 20, 0.001), (0, 0, 0)), ((0, 3, 15), (0, 3, 0))]:
        x, y, z, w = look_quaternion(eye, target)
        # rotate the camera's forward axis (0, 0, -1) by the quaternion
        v = np.array([0.0, 0.0, -1.0])
        q = np.array([x, y, z])
        fwd = v + 2 * np.cross(q, np.cross(q, v) + w * v)
        want = np.subtract(target, eye) / np.linalg.norm(np.subtract(target, eye))
        assert fwd == pytest.approx(want, abs=1e-6)


def test_adjacent_lit_lamps_stay_separate_blocks():
    f = frame_from_blocks({(0, 0, 0): "redstone_lamp[lit=true]", (1, 0, 0): "redstone_lamp[lit=true]"})
    g = G.build(f.layout)
    mesh = g.meshes["lamp"]
    left = mesh.positions[g.block[mesh.box] == f.layout.at((0, 0, 0))]
    right = mesh.positions[g.block[mesh.box] == f.layout.at((1, 0, 0))]
    assert right[:, 0].min() - left[:, 0].max() == pytest.approx(2 / 16)  # a dark seam between them
    assert mesh.n_vertices == 2 * 36  # every face kept, so each lamp has its own edges
    shades = {tuple(c) for c in G.vertex_colors(g, f)["lamp"]}
    assert len(shades) >= 3  # lit lamps keep their face shading: top, sides and front differ


def test_an_unpressed_button_does_not_look_like_stone():
    f = frame_from_blocks({(0, 0, 0): "stone", (0, 1, 0): "stone_button[face=floor,facing=north]"})
    g = G.build(f.layout)
    colors = G.box_colors(g, f)
    button = colors[g.part == G.P_BUTTON][0]
    stone = colors[g.part == G.P_STONE][0]
    assert np.abs(button - stone).max() > 0.25 and button[2] > button[0]  # cyan, not grey


@pytest.mark.parametrize("delay", [1, 2, 3, 4])
def test_repeater_delay_is_counted_by_pips_on_both_sides(delay):
    f = frame_from_blocks({(0, 0, 0): f"redstone_repeater[delay={delay},facing=north]"})
    g = G.build(f.layout)
    assert int((g.part == G.P_REP_PIP).sum()) == 2 * delay
    mesh = g.meshes["solid"]
    pips = np.isin(mesh.box, np.flatnonzero(g.part == G.P_REP_PIP))
    assert mesh.positions[pips][:, 1].max() == pytest.approx((4 + 3 * (delay - 1)) / 16)


def test_see_through_lamps_toggle_the_lamp_material():
    c = Canvas(region=((0, 0, 0), (4, 4, 4)))
    c.show_blocks({(1, 0, 1): "redstone_lamp"})
    mat = c._buffers["lamp"].material
    assert (mat.opacity, mat.depthWrite) == (1.0, True)
    c.xray.value = True
    assert (mat.opacity, mat.depthWrite) == (0.3, False)


def test_comparator_shows_its_mode_on_the_front_torch_and_power_on_the_rear_torches():
    def colours(state):
        f = frame_from_blocks({(0, 0, 0): state})
        g = G.build(f.layout)
        col = G.box_colors(g, f)
        mesh = g.meshes["solid"]
        front = np.flatnonzero(g.part == G.P_CMP_FRONT)
        rear = np.flatnonzero(g.part == G.P_REP_LIT)[:2]
        where = mesh.positions[np.isin(mesh.box, front)].mean(0)
        return col[front[0]].tolist(), col[rear[0]].tolist(), where

    red, dark = np.array(G._COLORS["rep_on"], np.float32), np.array(G._COLORS["rep_off"], np.float32)
    front, rear, where = colours("comparator[facing=north,mode=compare,powered=false]")
    assert front == dark.tolist() and rear == dark.tolist()
    front, rear, _ = colours("comparator[facing=north,mode=subtract,powered=true]")
    assert front == red.tolist() and rear == red.tolist()
    # facing=north: input from the north, output (and the front torch) to the south
    assert where[2] > 0.5


def test_barrel_is_a_full_block_that_hides_faces_and_a_chest_is_drawn_smaller():
    f = frame_from_blocks({(0, 0, 0): "barrel", (1, 0, 0): "stone", (3, 0, 0): "chest[facing=west]"})
    g = G.build(f.layout)
    mesh = g.meshes["solid"]
    assert mesh.n_vertices == 2 * 5 * 6 + 6 * 6 + 6 * 6  # two cubes sharing a hidden face, chest + latch
    chest = mesh.positions[np.isin(mesh.box, np.flatnonzero(g.part == G.P_CHEST))]
    assert chest.max(0)[1] == pytest.approx(14 / 16)
    latch = mesh.positions[np.isin(mesh.box, np.flatnonzero(g.part == G.P_LATCH))].mean(0)
    assert latch[0] < 3.1  # on the west side, where a chest facing west opens


def test_hover_describes_a_comparator_in_words():
    from scicraft_viz.views.canvas import describe_block

    f = frame_from_blocks({(0, 1, 0): "comparator[facing=east,mode=subtract,powered=true]"})
    assert describe_block(f, (0, 1, 0)) == (
        "(0, 1, 0) comparator[facing=east,mode=subtract,powered=true] · input from the east, output to the west, "
        "subtract mode; powered")


@pytest.mark.parametrize("power, lit", [(0, "abcdef"), (7, "abc"), (12, "abdeg"), (15, "acdfg")])
def test_power_numbers_light_the_segments_of_the_dust_power(power, lit):
    dust = f"redstone_wire[east=none,north=none,power={power},south=none,west=none]"
    f = frame_from_blocks({(0, 0, 0): "stone", (0, 1, 0): dust})
    assert not np.isin(G.build(f.layout).part, [*G.P_SEG, G.P_SEG_TEN]).any()  # only when asked for
    g = G.build(f.layout, numbers=True)
    colors = G.box_colors(g, f)
    on = {"abcdefg"[k] for k, p in enumerate(G.P_SEG) if colors[g.part == p].max() > 0}
    assert on == set(lit)
    assert (colors[g.part == G.P_SEG_TEN].max() > 0) == (power >= 10)
    # drawn additively just above the dust, top faces only: an unlit (black) segment adds nothing
    glow = g.meshes["glow"]
    seg = np.isin(g.part[glow.box], [*G.P_SEG, G.P_SEG_TEN])
    assert seg.sum() == 8 * 6 and np.allclose(glow.positions[seg, 1], 1 + 1.2 / 16)


def test_canvas_toggles_numbers_and_shows_a_compass_and_a_grid(demo_session):
    c = Canvas(demo_session.frame(), region=demo_session.region)
    glow = c.vertex_count()["glow"]
    c.numbers.value = True
    wires = int((c.frame.layout.kind == G.B.WIRE).sum())
    assert c.vertex_count()["glow"] == glow + 8 * 6 * wires
    compass = dict(c.guides()["compass"])
    circuit = c._circuit()
    bx0, bz0 = circuit[:, 0].min(), circuit[:, 2].min()
    bx1, bz1 = circuit[:, 0].max() + 1, circuit[:, 2].max() + 1
    (x0, _, z0), (x1, _, z1) = c.region
    assert (bx0, bz0, bx1, bz1) != (x0, z0, x1 + 1, z1 + 1)  # the build is smaller than its region
    # the letters, sized to the build (an eighth of its larger side, 0.8 to 1.6 blocks), stand just beyond the
    # sides of the build the camera frames, not of the region
    size = min(max(max(bx1 - bx0, bz1 - bz0) / 8, 0.8), 1.6)
    assert [s.scale[0] for s in c._compass.children] == [pytest.approx(size)] * 4
    gap = 0.4 + size / 2
    assert compass["N"][2] == pytest.approx(bz0 - gap) and compass["S"][2] == pytest.approx(bz1 + gap)
    assert compass["W"][0] == pytest.approx(bx0 - gap) and compass["E"][0] == pytest.approx(bx1 + gap)
    assert compass["N"][0] == pytest.approx((bx0 + bx1) / 2) and compass["E"][2] == pytest.approx((bz0 + bz1) / 2)
    # drawn over the blocks (never hidden behind them) and after the see-through meshes
    assert all(not s.material.depthTest and s.renderOrder > max(b.mesh.renderOrder for b in c._buffers.values())
               for s in c._compass.children)
    assert not c._grid.visible
    c.grid.value = True
    labels = dict(c.guides()["grid"])
    assert c._grid.visible
    assert {t for t in labels if t[0] == "x"} == {f"x{x}" for x in range(bx0, circuit[:, 0].max() + 1)}
    assert {t for t in labels if t[0] == "z"} == {f"z{z}" for z in range(bz0, circuit[:, 2].max() + 1)}
    assert labels[f"x{bx0 + 2}"][0] - labels[f"x{bx0}"][0] == pytest.approx(2)  # each label over its column
    assert labels[f"x{bx0}"][2] < bz0 and labels[f"z{bz0}"][0] < bx0  # just outside the north and west sides


def test_new_blocks_are_drawn_and_their_state_shows():
    """Doors and trapdoors show the panel that applies (shut or open); a pressed plate reddens; a daylight
    sensor brightens with its output; containers have their own shapes; hover text says it in words."""
    from scicraft_viz.views.canvas import describe_block

    blocks = {(0, 0, 0): "iron_door[half=lower,facing=east,open=true,powered=true]",
              (0, 1, 0): "iron_door[half=upper,facing=east,open=true,powered=true]",
              (2, 0, 0): "iron_trapdoor[half=top]", (4, 0, 0): "stone_pressure_plate[powered=true]",
              (5, 0, 0): "oak_pressure_plate", (6, 0, 0): "daylight_detector[power=15]",
              (7, 0, 0): "daylight_detector[power=0]", (8, 0, 0): "hopper", (9, 0, 0): "furnace[lit=true]",
              (10, 0, 0): "dropper[facing=up]", (11, 0, 0): "light_weighted_pressure_plate[power=5]"}
    f = frame_from_blocks(blocks)
    g = G.build(f.layout)
    colors = G.box_colors(g, f)

    def parts_of(pos, part):
        return np.flatnonzero((g.block == f.layout.at(pos)) & (g.part == part))

    iron = np.array(G._COLORS["iron"], np.float32)
    for pos, open_ in (((0, 0, 0), True), ((2, 0, 0), False)):
        shut, opened = parts_of(pos, G.P_SHUT), parts_of(pos, G.P_OPEN)
        assert len(shut) == len(opened) == 1
        assert np.allclose(colors[opened[0] if open_ else shut[0]], iron)
        assert np.allclose(colors[shut[0] if open_ else opened[0]], 0.0)
    pressed, released = colors[parts_of((4, 0, 0), G.P_PLATE)[0]], colors[parts_of((5, 0, 0), G.P_PLATE)[0]]
    assert pressed[0] > pressed[1] + 0.2 and abs(released[0] - released[1]) < 0.2
    assert colors[parts_of((6, 0, 0), G.P_DAYLIGHT)[0]].sum() > colors[parts_of((7, 0, 0), G.P_DAYLIGHT)[0]].sum()
    assert len(parts_of((8, 0, 0), G.P_HOPPER)) == 3
    assert np.allclose(colors[parts_of((9, 0, 0), G.P_FURNACE_FRONT)[0]], G._COLORS["furnace_lit"])
    assert len(parts_of((10, 0, 0), G.P_MOUTH)) == 1
    assert describe_block(f, (0, 1, 0)).endswith("open=true,powered=true] · open (powered)")
    assert describe_block(f, (2, 0, 0)).endswith("· shut (unpowered)")
    assert describe_block(f, (11, 0, 0)).endswith("light_weighted_pressure_plate[power=5] · pressed, output 5")
    assert describe_block(f, (5, 0, 0)).endswith("· released")
    assert describe_block(f, (6, 0, 0)).endswith("daylight_detector[power=15] · output 15")
    assert describe_block(f, (8, 0, 0)).endswith("hopper · moves an item down every 8 game ticks, pulls from above; "
                                                 "enabled")
