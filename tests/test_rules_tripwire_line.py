"""Tripwire: string between two tripwire hooks facing each other attaches them, an item entity or a minecart in a
string powers both hooks, breaking a string trips the line unless it was disarmed, and the compiled engine leaves
them to the reference engine. docs/redstone.md section 88."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redstone_helpers import name, new_world, parse

from scicraft_viz import World
from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.engine.items import LIFETIME


def props(w, pos):
    return parse(w.get_block(pos))[1]


def line(n, *, hooks_first=True, world=None):
    """Hooks at x=0 (facing east, its wall at x=-1) and x=n+1 (facing west, its wall at x=n+2), n strings between,
    at y=1 over new_world's floor."""
    w = world or new_world()
    w.set_block((-1, 1, 0), "stone")
    w.set_block((n + 2, 1, 0), "stone")
    hooks = [((0, 1, 0), "tripwire_hook[facing=east]"), ((n + 1, 1, 0), "tripwire_hook[facing=west]")]
    strings = [((x, 1, 0), "tripwire") for x in range(1, n + 1)]
    for p, s in (hooks + strings if hooks_first else strings + hooks):
        w.set_block(p, s)
    return w


def hooks(w, n):
    """(attached, powered) of both hooks of line(n), as bools."""
    out = []
    for x in (0, n + 1):
        p = props(w, (x, 1, 0))
        out.append((p["attached"] == "true", p["powered"] == "true"))
    return out


def test_tripwire_is_known_by_its_vanilla_states():
    st_ = B.parse_state("tripwire[attached=true,north=true,south=true]")
    assert st_.id == B.PARTIAL and B.is_known("tripwire")
    assert dict(st_.props) == {"attached": "true", "disarmed": "false", "east": "false", "north": "true",
                               "powered": "false", "south": "true", "west": "false"}
    number = B.vanilla_number(st_.name, st_.props)
    assert B.vanilla_state_of(number) == str(st_)
    assert B.support_need("tripwire", st_.props) is None  # 1.20's string floats
    assert B.PUSH_REACTION[number] == B.PUSH_DESTROY
    assert B.TRIP[number] == B.T_STRING | B.T_ATTACHED | 1 << B.T_CONN | 1 << (B.T_CONN + 2)
    hook = B.parse_state("tripwire_hook[attached=true,facing=south,powered=true]")  # no longer refused
    assert B.TRIP[B.vanilla_number(hook.name, hook.props)] == B.T_HOOK | B.T_ATTACHED | B.T_POWERED | 2 << B.T_FACING


@pytest.mark.parametrize("hooks_first", [True, False])
def test_a_line_of_string_between_facing_hooks_attaches_both_hooks_and_every_string(hooks_first):
    """Hooks placed first: the last string placed completes the line (its onPlace asks the west hook). Strings
    first: the last hook placed looks along its facing (setPlacedBy). Each string joins its neighbours along the
    line and the hook facing it."""
    w = line(3, hooks_first=hooks_first)
    assert hooks(w, 3) == [(True, False), (True, False)]
    for x in (1, 2, 3):
        p = props(w, (x, 1, 0))
        assert (p["attached"], p["powered"], p["east"], p["west"], p["north"], p["south"]) == (
            "true", "false", "true", "true", "false", "false")
    assert [s.pos for s in w.scheduled()] == ([(0, 1, 0)] if hooks_first else [])  # the hook looks again at 10


def test_a_string_does_not_join_a_hook_facing_away():
    w = new_world()
    w.set_block((1, 1, 1), "stone")
    w.set_block((1, 1, 0), "tripwire_hook[facing=north]")  # faces away from the string east of it
    w.set_block((2, 1, 0), "tripwire")
    assert props(w, (2, 1, 0))["west"] == "false"
    w.set_block((3, 1, 0), "tripwire")  # a string beside it joins, and the first string's east side follows
    assert props(w, (2, 1, 0))["east"] == "true" and props(w, (3, 1, 0))["west"] == "true"


@pytest.mark.parametrize("n, attached", [(0, False), (1, True), (40, True), (41, False)])
def test_a_line_holds_1_to_40_strings(n, attached):
    w = line(n, world=World())
    assert hooks(w, n) == [(attached, False), (attached, False)]
    assert all(props(w, (x, 1, 0))["attached"] == ("true" if attached else "false") for x in range(1, n + 1))


def _item_line(age):
    """line(3) with a lamp beside the east hook and dust beside the west hook's wall (which only a strongly
    powered block feeds); an item lies on the middle string from tick 0, despawning at tick LIFETIME - age."""
    w = line(3)
    w.set_block((5, 1, 1), "redstone_lamp")  # beside the east hook (weak power around it)
    w.set_block((-1, 1, 1), "redstone_wire")  # beside the west hook's wall (strong power into it)
    w.set_block((-1, 1, -1), "stone")  # the dust runs into stone on its far side
    w.step(10)  # the hook's own look after the last string
    w.spawn_item("stone", 1, (2.5, 1.0, 0.5), age=age)
    return w


@pytest.mark.parametrize("gone_after", [10, 11])
def test_an_item_on_the_string_powers_both_hooks_until_the_strings_check_after_it_is_gone(gone_after):
    """The item is found in the entity phase of the next tick (entityInside): the string, both hooks, the lamp and
    the dust switch in that tick. The string looks again every 10 game ticks, in the scheduled ticks (before the
    entity phase): the first look after the item is gone switches the hooks and the dust off, the lamp 4 game
    ticks later. An item despawning in the tick of a look is still there for it."""
    w = _item_line(LIFETIME - gone_after)
    start = w.tick
    seen = []
    for _ in range(35):
        w.step()
        state = (hooks(w, 3), props(w, (2, 1, 0))["powered"], props(w, (5, 1, 1))["lit"],
                 props(w, (-1, 1, 1))["power"], len(w.item_entities()))
        if not seen or seen[-1][1] != state:
            seen.append((w.tick - start, state))
    on = ([(True, True), (True, True)], "true", "true", "15", 1)
    gone = ([(True, True), (True, True)], "true", "true", "15", 0)
    off = ([(True, False), (True, False)], "false", "true", "0", 0)
    dark = ([(True, False), (True, False)], "false", "false", "0", 0)
    # gone at tick `gone_after`; the string's looks are at 11, 21, ...: the first after it is gone switches off
    first_look = 11 if gone_after < 11 else 21
    assert seen == [(1, on), (gone_after, gone), (first_look, off), (first_look + 4, dark)]


def test_an_item_a_hopper_takes_off_the_string_trips_it_until_the_strings_next_look():
    """The item lies on the string, on the rim of a hopper under it (in the middle it would fall into the bowl,
    below the string): it trips the string in the entity phase, the hopper takes it in the block-entity phase of
    the same tick, and the string's look 10 game ticks later finds nothing."""
    w = line(3)
    w.set_block((2, 0, 0), "hopper")
    w.step(10)
    w.spawn_item("stone", 1, (2.05, 1.0, 0.5))
    got = []
    for _ in range(12):
        w.step()
        got.append((len(w.item_entities()), hooks(w, 3)[0][1], props(w, (2, 1, 0))["powered"]))
    assert got == [(0, True, "true")] * 10 + [(0, False, "false")] * 2
    assert w.items((2, 0, 0)) == [("stone", 1)]


def test_an_item_falling_onto_the_string_trips_it_in_the_tick_its_box_first_meets_the_attached_shape():
    """An attached string's shape is 1/16 to 2.5/16 above its floor: the item trips it in the first tick its box's
    bottom is below 2.5/16 (and above -0.25, its height)."""
    w = line(3)
    w.step(10)
    w.spawn_item("stone", 1, (2.5, 2.0, 0.5))
    trace = []
    for _ in range(20):
        w.step()
        trace.append((w.tick, w.item_entities()[0].pos[1], hooks(w, 3)[0][1]))
    first = next(t for t, y, _ in trace if y - 1 < 2.5 / 16)
    assert [t for t, _, powered in trace if powered] == [t for t, _, _ in trace if t >= first]
    assert first > trace[0][0]  # it fell for some ticks first


def test_a_minecart_in_the_string_powers_the_line():
    w = line(3)
    w.step(10)
    w.spawn_minecart((2.5, 1.0, 0.5))
    w.step()
    assert hooks(w, 3) == [(True, True), (True, True)]
    assert props(w, (2, 1, 0))["powered"] == "true"


def test_breaking_a_string_trips_the_line_for_10_game_ticks_then_lets_it_go():
    """Broken by hand: the string's onRemove tells the hook as a powered string would; the line still counts as
    whole, so both hooks are powered; their look 10 game ticks later finds the gap: unattached and off."""
    w = line(3)
    w.step(10)
    t = w.tick
    w.set_block((2, 1, 0), "air")
    assert hooks(w, 3) == [(True, True), (True, True)]
    assert [(s.tick, s.pos) for s in w.scheduled()] == [(t + 10, (0, 1, 0))]
    w.step(9)
    assert hooks(w, 3) == [(True, True), (True, True)]
    w.step()
    assert hooks(w, 3) == [(False, False), (False, False)]
    assert props(w, (1, 1, 0))["attached"] == props(w, (3, 1, 0))["attached"] == "false"
    assert name(w, (2, 1, 0)) == "air"


def test_a_disarmed_string_broken_lets_the_line_go_at_once_and_comes_back_as_in_1_20():
    """Cut with shears (disarmed first): the line is no longer whole, both hooks let go unpowered at once. Java 1.20's
    calculateState then writes every string of the old line unattached, the cut one from the state it had (bug
    MC-129055, fixed in 1.21.2): the cut string stands again, disarmed and powered."""
    w = line(3)
    w.step(10)
    w.set_block((2, 1, 0), "tripwire[disarmed=true,attached=true]")
    assert hooks(w, 3) == [(True, False), (True, False)]
    w.set_block((2, 1, 0), "air")
    assert hooks(w, 3) == [(False, False), (False, False)]
    p = props(w, (2, 1, 0))
    assert name(w, (2, 1, 0)) == "tripwire"
    assert (p["disarmed"], p["attached"], p["powered"]) == ("true", "false", "true")
    assert props(w, (1, 1, 0))["attached"] == "false"


def test_a_piston_breaking_a_string_trips_the_line_as_breaking_it_by_hand_does():
    w = line(3)
    w.set_block((2, 1, -1), "piston[facing=south]")  # its head goes where the middle string is
    w.step(10)
    assert hooks(w, 3) == [(True, False), (True, False)]
    start = w.tick
    w.set_block((2, 1, -2), "redstone_block")
    seen = []
    for _ in range(15):
        w.step()
        seen.append((w.tick, name(w, (2, 1, 0)), *hooks(w, 3)))
    broke = next(t for t, n, *_ in seen if n != "tripwire")
    assert broke == start + 1  # the push's block event runs in the next tick and breaks the string
    assert {h for t, _, *hs in seen if broke <= t < broke + 10 for h in hs} == {(True, True)}
    assert {h for t, _, *hs in seen if t >= broke + 10 for h in hs} == {(False, False)}


def test_a_hook_losing_its_wall_lets_the_line_go():
    w = line(3)
    w.set_block((-1, 1, 0), "air")
    assert name(w, (0, 1, 0)) == "air"
    assert props(w, (4, 1, 0))["attached"] == "false"
    assert all(props(w, (x, 1, 0))["attached"] == "false" for x in (1, 2, 3))


def test_an_observer_sees_a_string_switch():
    """An observer facing a string pulses when the string is powered (a state change: a shape update)."""
    w = line(3)
    w.set_block((2, 1, 1), "observer[facing=north]")  # its face toward the string, north of it
    w.step(10)
    w.spawn_item("stone", 1, (2.5, 1.0, 0.5))
    got = []
    for _ in range(6):
        w.step()
        got.append(props(w, (2, 1, 1))["powered"])
    assert got == ["false", "false", "true", "true", "false", "false"]  # 2 game ticks on, a 2-tick pulse


def test_the_views_draw_the_string_along_its_line_and_hover_says_why_a_hook_is_on_or_off():
    from test_rules_decorative_views import _by_position

    from scicraft_viz.views.canvas import describe_block
    from scicraft_viz.views.frame import frame_from_world

    w = line(1)
    w.set_block((3, 1, 2), "stone")
    w.set_block((3, 1, 1), "tripwire_hook[facing=north]")  # unstrung
    f = frame_from_world(w)
    boxes = [b for b, _, _ in _by_position(f)[(1, 1, 0)]]
    # an attached string: a knot and threads west and east at 1/16 above its floor
    assert sorted(boxes) == sorted([[1.46875, 1.0625, 0.46875, 1.53125, 1.09375, 0.53125],
                                    [1.53125, 1.0625, 0.484375, 2, 1.09375, 0.515625],
                                    [1, 1.0625, 0.484375, 1.46875, 1.09375, 0.515625]])
    assert "attached to a hook facing it" in describe_block(f, (0, 1, 0))
    assert "unstrung" in describe_block(f, (3, 1, 1))
    assert "unpowered: no entity on it; attached" in describe_block(f, (1, 1, 0))
    w.spawn_item("stone", 1, (1.5, 1.0, 0.5))
    w.step()
    f = frame_from_world(w)
    assert "powered: a string of its line has an entity on it" in describe_block(f, (2, 1, 0))
    assert describe_block(f, (1, 1, 0)).split(" · ")[1].startswith("powered: an entity's box meets it")


def test_a_lines_derived_states_are_not_part_of_the_build():
    """static_state keeps what a builder chooses: a hook's facing, a string's disarmed; not attached, powered or a
    string's sides, which follow the line (as dust's sides do)."""
    w = line(2)
    assert B.static_state(w.get_block((1, 1, 0))) == "minecraft:tripwire[disarmed=false]"
    assert B.static_state(w.get_block((3, 1, 0))) == "minecraft:tripwire_hook[facing=west]"


def test_the_compiled_engine_refuses_tripwire_and_strung_hooks():
    w = line(3)
    with pytest.raises(CompileRefused, match="tripwire"):
        compile_world(w)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 44), gaps=st.sets(st.integers(1, 44), max_size=3), order=st.randoms(use_true_random=False),
       hooks_first=st.booleans())
def test_both_hooks_are_attached_iff_a_whole_line_of_1_to_40_strings_joins_them(n, gaps, order, hooks_first):
    """Strings placed in any order, some places left empty: both hooks end attached exactly when every place
    between them holds a string and there are 1 to 40 of them, and every string agrees."""
    w = World()
    w.set_block((-1, 1, 0), "stone")
    w.set_block((n + 2, 1, 0), "stone")
    places = [x for x in range(1, n + 1) if x not in gaps]
    order.shuffle(places)
    hook_items = [((0, 1, 0), "tripwire_hook[facing=east]"), ((n + 1, 1, 0), "tripwire_hook[facing=west]")]
    items = [((x, 1, 0), "tripwire") for x in places]
    for p, s in (hook_items + items if hooks_first else items + hook_items):
        w.set_block(p, s)
    whole = 1 <= n <= 40 and len(places) == n
    assert hooks(w, n) == [(whole, False), (whole, False)]
    assert {props(w, (x, 1, 0))["attached"] for x in places} <= {"true" if whole else "false"}


def test_an_item_a_piston_pushes_onto_a_string_trips_it_in_the_same_tick():
    """A push moves an entity as its own move does (docs/redstone.md section 89), so the string it lands in is
    pressed in the tick of the push: the item, centred in the head's slot, is shoved into the string's cell on the
    second tick of the extension, and both hooks are powered at the end of that tick."""
    w = World()
    w.set_block((2, 0, 0), "minecraft:stone")
    w.set_block((3, 0, 0), "minecraft:stone")
    w.set_block((4, 0, 0), "minecraft:stone")
    w.set_block((2, 1, 0), "minecraft:sticky_piston[facing=east]")
    w.set_block((4, 1, -3), "minecraft:stone")
    w.set_block((4, 1, 2), "minecraft:stone")
    w.set_block((4, 1, -2), "tripwire_hook[facing=south]")
    w.set_block((4, 1, 1), "tripwire_hook[facing=north]")
    w.set_block((4, 1, -1), "tripwire")
    w.set_block((4, 1, 0), "tripwire")
    w.spawn_item("redstone", 1, (3.5, 1.0, 0.5), pickup_delay=32767)
    w.step(2)
    assert [props(w, (4, 1, z))["attached"] for z in (-2, 1)] == ["true", "true"]
    w.set_block((1, 1, 0), "minecraft:redstone_block")
    w.step(1)
    assert w.item_entities()[0].pos[0] == 3.5 + 0.125 + 0.01  # still short of the string's cell
    assert [props(w, (4, 1, z))["powered"] for z in (-2, 0, 1)] == ["false"] * 3
    w.step(1)
    assert w.item_entities()[0].pos[0] - 0.125 > 4
    assert [props(w, (4, 1, z))["powered"] for z in (-2, 0, 1)] == ["true"] * 3


def _fireball_line(y, z, vz):
    """_item_line's line, lamp and dust with a small fireball (box 0.3125) flying along z at height y over the middle
    string, power 0: its speed drops to 0.95 of itself each tick."""
    w = line(3)
    w.set_block((5, 1, 1), "redstone_lamp")
    w.set_block((-1, 1, 1), "redstone_wire")
    w.set_block((-1, 1, -1), "stone")
    w.step(10)
    w.spawn_fireball((2.5, y, z), (0.0, 0.0, vz), "small_fireball", power=0.0)
    return w


def _changes(w, n):
    start, seen = w.tick, []
    for _ in range(n):
        w.step()
        state = (hooks(w, 3), props(w, (2, 1, 0))["powered"], props(w, (5, 1, 1))["lit"], props(w, (-1, 1, 1))["power"])
        if not seen or seen[-1][1] != state:
            seen.append((w.tick - start, state))
    return seen


def test_a_fireball_trips_the_string_in_the_tick_after_its_box_first_meets_it():
    """docs/redstone.md section 101. From z = -2 at 0.5 a tick, slowing by 0.95: after n ticks it stands at
    z = -2 + 10 (1 - 0.95^n), so after tick 4 (z = -0.1450625) its box reaches z 0.0112 and meets the attached
    shape. A fireball looks into the blocks before it moves, so the string trips in tick 5, the hooks, the dust (15)
    and the lamp with it. The box leaves the string after tick 8 (z = 1.3654); the string's look 10 game ticks after
    it tripped (tick 15) finds nothing and lets go, the lamp 4 game ticks later."""
    seen = _changes(_fireball_line(1.05, -2.0, 0.5), 30)
    idle = ([(True, False), (True, False)], "false", "false", "0")
    on = ([(True, True), (True, True)], "true", "true", "15")
    off = ([(True, False), (True, False)], "false", "true", "0")
    assert seen == [(1, idle), (5, on), (15, off), (19, idle)]


def test_a_fireball_resting_in_the_string_trips_it_in_its_first_tick_and_holds_it():
    seen = _changes(_fireball_line(1.05, 0.5, 0.0), 25)
    assert seen == [(1, ([(True, True), (True, True)], "true", "true", "15"))]


@pytest.mark.parametrize("y, trips", [(1.15, True), (1.16, False)])
def test_a_fireball_trips_the_string_only_if_its_box_meets_the_attached_shape(y, trips):
    """The attached string's shape reaches 2.5/16 = 0.15625 above its floor: a box whose bottom is at 1.15 meets
    it, one at 1.16 passes over."""
    w = _fireball_line(y, 0.5, 0.0)
    w.step()
    assert hooks(w, 3) == [(True, trips), (True, trips)]
