"""Glazed terracotta (docs/redstone.md section 44): a full block that conducts as stone does, turned by its
facing, which a piston pushes but never pulls, and which a slime or honey block never drags along."""

from redstone_helpers import name, new_world

from scicraft_viz.engine import blocks as B

GLAZED = "gray_glazed_terracotta[facing=north]"


def _piston(kind, front):
    """A piston facing east at (0, 1, 0), a lever at (0, 1, 1), `front` from (1, 1, 0) eastward."""
    w = new_world()
    w.set_block((0, 1, 0), f"{kind}[facing=east]")
    for i, s in enumerate(front):
        w.set_block((1 + i, 1, 0), s)
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    return w


def test_glazed_terracotta_is_a_full_conductive_block_with_its_facing():
    st = B.parse_state(GLAZED)
    assert st.id == B.STONE and str(st) == "minecraft:gray_glazed_terracotta[facing=north]"
    assert B.PUSH_REACTION[B.vanilla_number(st.name, st.props)] == B.PUSH_ONLY


def test_a_piston_pushes_glazed_terracotta_but_a_sticky_piston_never_pulls_it():
    w = _piston("sticky_piston", [GLAZED, "stone"])
    w.use((0, 1, 1))
    w.step(3)
    assert [name(w, (x, 1, 0)) for x in (1, 2, 3)] == ["piston_head", "gray_glazed_terracotta", "stone"]
    w.use((0, 1, 1))
    w.step(3)
    assert [name(w, (x, 1, 0)) for x in (0, 1, 2, 3)] == ["sticky_piston", "air", "gray_glazed_terracotta", "stone"]
    s = _piston("sticky_piston", ["stone"])
    s.use((0, 1, 1))
    s.step(3)
    s.use((0, 1, 1))
    s.step(3)
    assert [name(s, (x, 1, 0)) for x in (1, 2)] == ["stone", "air"]  # the control: stone comes back


def test_a_slime_block_pushes_glazed_terracotta_ahead_but_never_drags_it_from_beside():
    w = _piston("piston", ["slime_block", GLAZED])
    w.set_block((1, 1, -1), GLAZED)  # beside the slime block, across the push
    w.set_block((1, 2, 0), "stone")  # above it: dragged along
    w.use((0, 1, 1))
    w.step(3)
    assert [name(w, (x, 1, 0)) for x in (1, 2, 3)] == ["piston_head", "slime_block", "gray_glazed_terracotta"]
    assert name(w, (2, 2, 0)) == "stone" and name(w, (1, 2, 0)) == "air"
    assert name(w, (1, 1, -1)) == "gray_glazed_terracotta" and name(w, (2, 1, -1)) == "air"


def test_a_glazed_terracotta_behind_a_slime_block_in_the_line_is_left_behind():
    """A sticky piston pulls a slime block; the glazed terracotta stuck to the slime's far side stays."""
    w = _piston("sticky_piston", ["slime_block", GLAZED])
    w.use((0, 1, 1))
    w.step(3)
    assert [name(w, (x, 1, 0)) for x in (1, 2, 3)] == ["piston_head", "slime_block", "gray_glazed_terracotta"]
    w.use((0, 1, 1))
    w.step(3)
    assert [name(w, (x, 1, 0)) for x in (1, 2, 3)] == ["slime_block", "air", "gray_glazed_terracotta"]
