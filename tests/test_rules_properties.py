
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redstone_helpers import floor, name, on, parse

from scicraft_viz import World
from scicraft_viz.errors import BlockStateError, PlacementError, PositionError

FACINGS = ["north", "south", "east", "west"]
FULL = {"stone", "glass", "redstone_lamp", "redstone_block"}
PROPS = {
    "air": set(), "stone": set(), "glass": set(), "redstone_block": set(),
    "redstone_lamp": {"lit"}, "redstone_torch": {"lit"}, "redstone_wall_torch": {"facing", "lit"},
    "redstone_repeater": {"delay", "facing", "locked", "powered"},
    "redstone_wire": {"east", "north", "power", "south", "west"},
    "stone_button": {"face", "facing", "powered"}, "lever": {"face", "facing", "powered"},
}
DOMAIN = {
    "lit": {"true", "false"}, "powered": {"true", "false"}, "locked": {"true", "false"},
    "facing": set(FACINGS), "delay": {"1", "2", "3", "4"}, "face": {"floor", "wall", "ceiling"},
    "east": {"none", "side", "up"}, "north": {"none", "side", "up"}, "south": {"none", "side", "up"},
    "west": {"none", "side", "up"}, "power": {str(i) for i in range(16)},
}
COMPONENTS = {"redstone_repeater", "redstone_torch", "redstone_wall_torch", "stone_button", "lever"}
DIRS = {"north": (0, 0, -1), "south": (0, 0, 1), "east": (1, 0, 0), "west": (-1, 0, 0)}

BAD_STATES = [
    "tnt", "redstone_lamp[color=red]", "redstone_repeater[delay=5]", "redstone_wire[power=16]",
    "redstone_repeater[delay=2", "lever[face=side]", "", "minecraft:", "stone[lit=true]",
]
BAD_POSITIONS = [(0.5, 1, 0), (1, 2), (1, 2, 3, 4), "1,2,3", None, (1, "2", 3)]

pos_st = st.tuples(st.integers(0, 2), st.sampled_from([1, 1, 1, 1, 2, 3]), st.integers(0, 2))
facing_st = st.sampled_from(FACINGS)
_STATES = {
    "plain": st.sampled_from(["stone", "glass", "redstone_lamp", "redstone_block", "redstone_torch", "air"]),
    "wire": st.just("redstone_wire"),
    "wall_torch": st.builds("redstone_wall_torch[facing={}]".format, facing_st),
    "repeater": st.builds("redstone_repeater[facing={},delay={}]".format, facing_st, st.integers(1, 4)),
    "floor_switch": st.builds("{}[face=floor,facing={}]".format, st.sampled_from(["stone_button", "lever"]),
                              facing_st),
    "switch": st.builds("{}[face={},facing={}]".format, st.sampled_from(["stone_button", "lever"]),
                        st.sampled_from(["floor", "wall", "ceiling"]), facing_st),
}
state_st = st.sampled_from(["plain"] * 3 + ["wire"] * 3 + ["repeater"] * 2 + ["floor_switch"] * 2
                           + ["wall_torch", "switch"]).flatmap(_STATES.__getitem__)
_OPS = {
    "set": st.tuples(st.just("set"), pos_st, state_st),
    "use": st.tuples(st.just("use"), pos_st),
    "step": st.tuples(st.just("step"), st.integers(1, 12)),
    "record": st.tuples(st.just("record"), st.integers(0, 8)),
    "remove": st.tuples(st.just("remove"), pos_st),
    "bad_state": st.tuples(st.just("bad_state"), pos_st, st.sampled_from(BAD_STATES)),
    "bad_pos": st.tuples(st.just("bad_pos"), st.sampled_from(BAD_POSITIONS)),
}
op_st = st.sampled_from(["set"] * 6 + ["use"] * 4 + ["step"] * 3 + ["record", "remove", "bad_state", "bad_pos"]
                        ).flatmap(_OPS.__getitem__)

DOC_ERRORS = (BlockStateError, PositionError, PlacementError)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def base_world(replay=False):
    w = World(replay=replay)
    floor(w, xs=range(0, 5), zs=range(0, 5))
    return w


def add(p, d):
    return (p[0] + d[0], p[1] + d[1], p[2] + d[2])


def support_of(name_, props, p):
    if name_ in ("redstone_wire", "redstone_repeater", "redstone_torch"):
        return add(p, (0, -1, 0))
    if name_ == "redstone_wall_torch":
        return add(p, tuple(-c for c in DIRS[props["facing"]]))
    if name_ in ("stone_button", "lever"):
        if props["face"] == "floor":
            return add(p, (0, -1, 0))
        if props["face"] == "ceiling":
            return add(p, (0, 1, 0))
        return add(p, tuple(-c for c in DIRS[props["facing"]]))
    return None


def check_invariants(w, replay=False):
    blocks = w.blocks()
    names = {}
    for p, s in blocks.items():
        assert isinstance(p, tuple) and len(p) == 3 and all(isinstance(c, int) for c in p)
        n, props = parse(s)
        names[p] = n
        assert n in PROPS and n != "air", s
        assert set(props) == PROPS[n], s
        assert list(props) == sorted(props), s  # canonical: alphabetical
        for k, v in props.items():
            assert v in DOMAIN[k], s
        assert w.get_block(p) == s
    if not replay:
        for p, s in blocks.items():
            n, props = parse(s)
            sp = support_of(n, props, p)
            if sp is not None:
                assert names.get(sp) in FULL, f"{s} at {p} has no support at {sp}"
    return blocks


def ev_key(w):
    return [(e.tick, tuple(e.pos), e.kind, e.block, e.old, e.new) for e in w.events]


def snapshot(w):
    return w.tick, w.blocks(), len(w.events)


def check_record(w, n):
    t0 = w.tick
    blocks0 = w.blocks()
    tr = w.record(n)
    assert w.tick == t0 + n
    assert tr.ticks.tolist() == list(range(t0, t0 + n + 1))
    blocks = w.blocks()
    assert set(blocks) == set(blocks0)
    lamps = sorted(p for p, s in blocks.items() if parse(s)[0] == "redstone_lamp")
    dust = sorted(p for p, s in blocks.items() if parse(s)[0] == "redstone_wire")
    comps = sorted(p for p, s in blocks.items() if parse(s)[0] in COMPONENTS)
    assert [tuple(p) for p in tr.lamp_positions] == lamps
    assert [tuple(p) for p in tr.dust_positions] == dust
    assert [tuple(p) for p in tr.component_positions] == comps
    assert tr.lamp_lit.shape == (n + 1, len(lamps))
    assert tr.dust_power.shape == (n + 1, len(dust))
    assert tr.component_on.shape == (n + 1, len(comps))
    for row, bl in ((0, blocks0), (n, blocks)):
        assert tr.lamp_lit[row].tolist() == [parse(bl[p])[1]["lit"] == "true" for p in lamps]
        assert tr.dust_power[row].tolist() == [int(parse(bl[p])[1]["power"]) for p in dust]
        exp = []
        for p in comps:
            pr = parse(bl[p])[1]
            exp.append((pr["lit"] if "lit" in pr else pr["powered"]) == "true")
        assert tr.component_on[row].tolist() == exp
    assert int(tr.dust_power.max(initial=0)) <= 15


def apply(w, op):
    """Apply one op; return its outcome. Refused calls must leave the world unchanged."""
    before = snapshot(w)
    kind = op[0]
    try:
        if kind == "set":
            w.set_block(op[1], op[2])
            return "ok"
        if kind == "use":
            r = w.use(op[1])
            assert r in (True, False)
            return r
        if kind == "step":
            w.step(op[1])
            assert w.tick == before[0] + op[1]
            return "ok"
        if kind == "record":
            check_record(w, op[1])
            return "ok"
        if kind == "remove":
            w.remove_block(op[1])
            assert name(w, op[1]) == "air"
            return "ok"
        if kind == "bad_state":
            with pytest.raises(BlockStateError):
                w.set_block(op[1], op[2])
        elif kind == "bad_pos":
            with pytest.raises(PositionError):
                w.set_block(op[1], "stone")
        assert snapshot(w) == before
        return "refused"
    except DOC_ERRORS as e:
        assert snapshot(w) == before
        return type(e).__name__


def execute(ops, copy_at=None, replay=False):
    w = base_world(replay)
    snaps, outcomes, orig = [], [], None
    for i, op in enumerate(ops):
        if i == copy_at:
            orig, orig_snap = w, (snapshot(w), ev_key(w))
            w = w.copy()
        outcomes.append(apply(w, op))
        check_invariants(w, replay)
        snaps.append((w.tick, w.blocks(), ev_key(w)))
    if orig is not None:
        assert (snapshot(orig), ev_key(orig)) == orig_snap  # the original is untouched by its copy
    return snaps, outcomes


@SETTINGS
@given(ops=st.lists(op_st, max_size=30))
def test_random_worlds_invariants_determinism_and_documented_errors(ops):
    a, outcomes = execute(ops)
    b, outcomes_b = execute(ops)
    assert outcomes == outcomes_b
    assert a == b


@SETTINGS
@given(ops=st.lists(op_st, max_size=30))
def test_replay_mode_random_worlds_are_deterministic(ops):
    a, outcomes = execute(ops, replay=True)
    b, outcomes_b = execute(ops, replay=True)
    assert outcomes == outcomes_b
    assert a == b
    assert "PlacementError" not in outcomes  # replay never refuses for support


@SETTINGS
@given(ops=st.lists(op_st, min_size=1, max_size=30), data=st.data())
def test_copy_continues_identically(ops, data):
    k = data.draw(st.integers(0, len(ops) - 1))
    a, outcomes = execute(ops)
    c, outcomes_c = execute(ops, copy_at=k)
    assert outcomes == outcomes_c
    assert a == c


@SETTINGS
@given(ops=st.lists(op_st, max_size=30))
def test_refused_calls_have_no_effect_on_the_future(ops):
    a, outcomes = execute(ops)
    kept = [op for op, out in zip(ops, outcomes, strict=True) if out in ("ok", True, False)]
    a_kept = [s for s, out in zip(a, outcomes, strict=True) if out in ("ok", True, False)]
    b, _ = execute(kept)
    assert [s[:2] for s in b] == [s[:2] for s in a_kept]


# ---------------------------------------------------------------- static reference model
# Palette without timed components: stone, glass, lamp, redstone_block, dust. Dust power, dust
# shape and lamp state are fully determined by REDSTONE.md / vanilla RedStoneWireBlock rules.

CONDUCTOR = {"stone", "redstone_lamp"}
HORIZ = {"north": (0, 0, -1), "east": (1, 0, 0), "south": (0, 0, 1), "west": (-1, 0, 0)}
UP, DOWN = (0, 1, 0), (0, -1, 0)
SIX = list(HORIZ.values()) + [UP, DOWN]


def reference(kinds):
    def k(p):
        return kinds.get(p, "air")

    dust = [p for p, n in kinds.items() if n == "redstone_wire"]
    # shapes
    shapes = {}
    for p in dust:
        above_open = k(add(p, UP)) not in CONDUCTOR
        sides_ = {}
        for d, v in HORIZ.items():
            n = add(p, v)
            if above_open and k(n) in FULL and k(add(n, UP)) == "redstone_wire":
                sides_[d] = "up"
            elif k(n) in ("redstone_wire", "redstone_block"):
                sides_[d] = "side"
            elif k(n) not in CONDUCTOR and k(add(n, DOWN)) == "redstone_wire":
                sides_[d] = "side"
            else:
                sides_[d] = "none"
        conn = {d for d, s in sides_.items() if s != "none"}
        if not conn & {"north", "south"}:
            for d in ("east", "west"):
                if d not in conn:
                    sides_[d] = "side"
        if not conn & {"east", "west"}:
            for d in ("north", "south"):
                if d not in conn:
                    sides_[d] = "side"
        shapes[p] = sides_
    # power: least fixpoint of P = max(source, max(in-neighbour dust) - 1)
    src = {p: 15 if any(k(add(p, v)) == "redstone_block" for v in SIX) else 0 for p in dust}
    feeders = {}
    for p in dust:
        f = []
        above_cond = k(add(p, UP)) in CONDUCTOR
        for v in HORIZ.values():
            n = add(p, v)
            if k(n) == "redstone_wire":
                f.append(n)
            if k(n) in CONDUCTOR:
                if not above_cond and k(add(n, UP)) == "redstone_wire":
                    f.append(add(n, UP))
            elif k(add(n, DOWN)) == "redstone_wire":
                f.append(add(n, DOWN))
        feeders[p] = f
    P = dict(src)
    changed = True
    while changed:
        changed = False
        for p in dust:
            v = max([src[p]] + [P[q] - 1 for q in feeders[p]])
            if v > P[p]:
                P[p], changed = v, True

    def dust_outputs_into(q):
        """q is weakly powered (or directly powered, for a lamp) by dust."""
        d_above = add(q, UP)
        if k(d_above) == "redstone_wire" and P[d_above] > 0:
            return True
        for d, v in HORIZ.items():
            src_p = add(q, tuple(-c for c in v))  # dust on the opposite side pointing towards d
            if k(src_p) == "redstone_wire" and P[src_p] > 0 and shapes[src_p][d] != "none":
                return True
        return False

    lamps = {}
    for p, n in kinds.items():
        if n != "redstone_lamp":
            continue
        lit = dust_outputs_into(p)
        for v in SIX:
            q = add(p, v)
            if k(q) == "redstone_block" or (k(q) in CONDUCTOR and dust_outputs_into(q)):
                lit = True
        lamps[p] = lit
    return shapes, P, lamps


_LAYER = {
    1: ["air"] * 5 + ["redstone_wire"] * 8 + ["stone", "stone", "glass", "redstone_lamp", "redstone_lamp",
                                             "redstone_block"],
    2: ["air"] * 10 + ["redstone_wire"] * 6 + ["stone", "stone", "glass", "glass", "redstone_lamp",
                                              "redstone_block"],
    3: ["air"] * 10 + ["redstone_wire"] * 6,
}
CELLS = [(x, y, z) for y in (1, 2, 3) for x in range(5) for z in range(5)]
static_st = st.tuples(*[st.sampled_from(_LAYER[p[1]]) for p in CELLS]).map(
    lambda kinds: [(p, k) for p, k in zip(CELLS, kinds, strict=True) if k != "air"]
)


def assert_matches_reference(w):
    """After settling, every dust shape and power and every lamp agree with the reference model."""
    w.step(6)
    blocks = check_invariants(w)
    kinds = {p: parse(s)[0] for p, s in blocks.items()}
    shapes, P, lamps = reference(kinds)
    for p in shapes:
        props = parse(blocks[p])[1]
        assert {d: props[d] for d in HORIZ} == shapes[p], f"shape of dust at {p}"
        assert int(props["power"]) == P[p], f"power of dust at {p}"
    for p, lit in lamps.items():
        assert on(w, p) is lit, f"lamp at {p}"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(placements=static_st)
def test_static_dust_network_matches_reference_model(placements):
    w = base_world()
    for p, s in placements:
        if name(w, p) != "air":
            continue
        try:
            w.set_block(p, s)
        except PlacementError:
            assert s == "redstone_wire"
            assert name(w, add(p, DOWN)) not in FULL
    assert_matches_reference(w)


edit_st = st.lists(
    st.tuples(st.sampled_from(CELLS),
              st.sampled_from(["air", "air", "air", "stone", "glass", "redstone_block", "redstone_wire"])),
    max_size=12,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(placements=static_st, edits=edit_st)
def test_static_network_after_removals_and_replacements_matches_reference(placements, edits):
    w = base_world()
    for p, s in placements:
        try:
            w.set_block(p, s)
        except PlacementError:
            pass
    for p, s in edits:
        try:
            w.set_block(p, s)
        except PlacementError:
            assert s == "redstone_wire"
    assert_matches_reference(w)
