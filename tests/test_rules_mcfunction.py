import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redstone_helpers import new_world, on, parse, power, run

from scicraft_viz import World
from scicraft_viz.engine.mcfunction import parse_mcfunction


def build_error_cls():
    from scicraft_viz import errors, mcfunction
    return getattr(errors, "BuildFileError", None) or mcfunction.BuildFileError


def _settle(w, n=10):
    w.step(n)
    return w.blocks()


def test_parse_mcfunction_lines_comments_blanks_and_slash():
    text = (
        "# a build file\n"
        "\n"
        "setblock 0 0 0 stone\n"
        "   # indented comment\n"
        "/setblock -3 1 12 minecraft:redstone_repeater[facing=west,delay=3]   \n"
        "setblock 1 1 0 redstone_wire\n"
    )
    got = parse_mcfunction(text)
    assert [tuple(p) for p, _ in got] == [(0, 0, 0), (-3, 1, 12), (1, 1, 0)]
    assert all(isinstance(c, int) for p, _ in got for c in p)
    states = [s for _, s in got]
    assert parse(_canon(states[0]))[0] == "stone"
    r = parse(_canon(states[1]))
    assert r[0] == "redstone_repeater"
    assert (r[1]["facing"], r[1]["delay"]) == ("west", "3")
    assert parse(_canon(states[2]))[0] == "redstone_wire"


def _canon(state):
    return state if state.startswith("minecraft:") else "minecraft:" + state


def test_parse_empty_and_comment_only():
    assert list(parse_mcfunction("")) == []
    assert list(parse_mcfunction("# nothing\n\n   \n")) == []


@pytest.mark.parametrize("bad_line", [
    "fill 0 0 0 1 1 1 stone",
    "setblock 0 0 stone",
    "setblock 0 x 0 stone",
    "setblock 0 1.5 0 stone",
    "setblock 0 0 0 tnt",
    "setblock 0 0 0 redstone_repeater[delay=7]",
    "setblock 0 0 0",
])
def test_build_file_error_names_file_and_line(bad_line):
    text = "# header\nsetblock 0 0 0 stone\n" + bad_line + "\nsetblock 0 1 0 redstone_wire\n"
    with pytest.raises(build_error_cls()) as ei:
        parse_mcfunction(text, source="circuits/demo.mcfunction")
    msg = str(ei.value)
    assert "circuits/demo.mcfunction" in msg
    assert re.search(r"\b3\b", msg), msg


def test_from_mcfunction_builds_world():
    text = "setblock 0 0 0 stone\nsetblock 1 0 0 stone\nsetblock 0 1 0 redstone_block\nsetblock 1 1 0 redstone_wire\n"
    w = World.from_mcfunction(text)
    assert w.tick == 0
    assert power(w, (1, 1, 0)) == 15
    assert set(w.blocks()) == {(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)}


def _sample_world(dot=False):
    w = new_world()
    w.set_block((-3, 1, -3), "redstone_block")
    w.set_block((-2, 1, -3), "redstone_wire")
    w.set_block((-1, 1, -3), "redstone_wire")
    w.set_block((0, 1, -3), "redstone_repeater[facing=west,delay=3]")
    w.set_block((1, 1, -3), "redstone_lamp")
    w.set_block((2, 1, -3), "glass")
    w.set_block((2, 2, -3), "redstone_wire")
    w.set_block((3, 1, -3), "redstone_wire")
    w.set_block((0, 1, 0), "stone")
    w.set_block((0, 2, 0), "redstone_torch")
    w.set_block((1, 1, 0), "redstone_wall_torch[facing=east]")
    w.set_block((0, 1, 1), "stone_button[face=wall,facing=south]")
    w.set_block((-1, 1, 0), "lever[face=wall,facing=west]")
    w.set_block((3, 1, 2), "lever[face=floor,facing=east]")
    w.set_block((3, 1, 3), "redstone_lamp")
    w.set_block((4, 1, 3), "redstone_repeater[facing=north,delay=2]")
    w.set_block((4, 1, 4), "redstone_wire")  # in front of the repeater: connected
    if dot:
        w.set_block((6, 1, 0), "redstone_wire")
        assert w.use((6, 1, 0)) is True
    w.step(10)
    return w


_KV = r"[a-z_]+=[a-z0-9_]+"
_LINE_RE = re.compile(r"^/?setblock -?\d+ -?\d+ -?\d+ minecraft:[a-z_]+(\[" + _KV + "(," + _KV + r")*\])?$")


def test_to_mcfunction_format():
    w = _sample_world()
    text = w.to_mcfunction()
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert len(lines) == len(w.blocks())
    for ln in lines:
        assert _LINE_RE.match(ln), ln
    assert {tuple(p) for p, _ in parse_mcfunction(text)} == set(w.blocks())


@pytest.mark.parametrize("replay", [False, True])
def test_mcfunction_round_trip(replay):
    w = _sample_world()
    text = w.to_mcfunction()
    w2 = World.from_mcfunction(text, replay=replay)
    assert _settle(w2) == w.blocks()


def test_mcfunction_round_trip_keeps_dot_in_replay_mode():
    w = _sample_world(dot=True)
    assert w.get_block((6, 1, 0)) == "minecraft:redstone_wire[east=none,north=none,power=0,south=none,west=none]"
    w2 = World.from_mcfunction(w.to_mcfunction(), replay=True)
    assert _settle(w2) == w.blocks()


def test_round_trip_with_lever_on_in_replay_mode():
    w = _sample_world()
    w.use((3, 1, 2))
    w.step(10)
    assert on(w, (3, 1, 3)) is True
    w2 = World.from_mcfunction(w.to_mcfunction(), replay=True)
    assert _settle(w2) == w.blocks()


def test_round_trip_then_same_behaviour():
    w = _sample_world()
    w2 = World.from_mcfunction(w.to_mcfunction())
    w2.step(10)
    probe_pos = (0, 1, 1)
    w.use(probe_pos)
    w2.use(probe_pos)
    a = run(w, 40, lambda: (on(w, (0, 2, 0)), on(w, (1, 1, 0))))
    b = run(w2, 40, lambda: (on(w2, (0, 2, 0)), on(w2, (1, 1, 0))))
    assert [v for _, v in a] == [v for _, v in b]
    assert [t - a[0][0] for t, _ in a] == [t - b[0][0] for t, _ in b]
    assert a[1:] != []


def test_from_mcfunction_bad_line_raises_build_file_error():
    with pytest.raises(build_error_cls()) as ei:
        World.from_mcfunction("setblock 0 0 0 stone\nsetblock 0 0 0 nonsense_block\n")
    assert re.search(r"\b2\b", str(ei.value))


# ------------------------------------------------------------------------ strict parsing and limits
def _error(text, **kw):
    with pytest.raises(build_error_cls()) as ei:
        parse_mcfunction(text, source="b.mcfunction", **kw)
    return str(ei.value)


@pytest.mark.parametrize("coord", ["1_0", "+3", "\u0661", "\uff13", "3.0", "0x1", "--1", "1e3", "-"])
def test_coordinates_are_ascii_integers_only(coord):
    msg = _error(f"setblock 0 {coord} 0 stone\n")
    if coord in ("\u0661", "\uff13"):  # Arabic-Indic one, fullwidth three
        assert msg == (f"b.mcfunction:1: unexpected character {coord!r} (U+{ord(coord):04X}) at column 12; setblock "
                       "lines are printable ASCII, one per line")
    else:
        assert msg == ("b.mcfunction:1: coordinates must be integers (digits 0-9 with an optional leading '-'), "
                       f"got {coord!r}")


def test_coordinates_outside_the_world_are_refused():
    assert _error("setblock 30000001 0 0 stone\n") == (
        "b.mcfunction:1: coordinate 30000001 is outside the world (|coordinate| <= 30,000,000)")
    assert _error("setblock 0 " + "9" * 5000 + " 0 stone\n") == (
        "b.mcfunction:1: coordinate 99999999999999999999 is outside the world (|coordinate| <= 30,000,000)")
    assert parse_mcfunction("setblock -30000000 0 30000000 stone\n") == [((-30000000, 0, 30000000), "minecraft:stone")]


def test_lines_end_only_at_newline():
    text = "setblock 0 0 0 stone\r\nsetblock 1 0 0 glass\n\n# c\u2028omment\r\n"
    assert parse_mcfunction(text) == [((0, 0, 0), "minecraft:stone"), ((1, 0, 0), "minecraft:glass")]
    assert _error("setblock 0 0 0 stone\u2028setblock 1 0 0 stone\n") == (
        "b.mcfunction:1: unexpected character '\\u2028' (U+2028) at column 21; setblock lines are printable ASCII, "
        "one per line")
    assert _error("setblock 0 0 0 stone\rsetblock 1 0 0 stone\n") == (
        "b.mcfunction:1: unexpected character '\\r' (U+000D) at column 21; setblock lines are printable ASCII, "
        "one per line")
    assert _error("setblock\u00a00 0 0 stone\n").startswith("b.mcfunction:1: unexpected character '\\xa0' (U+00A0)")
    assert parse_mcfunction("\ufeffsetblock 0 0 0 stone\n\tsetblock\t1 0 0 stone replace\n") == [
        ((0, 0, 0), "minecraft:stone"), ((1, 0, 0), "minecraft:stone")]


def test_block_count_is_capped_before_the_list_grows():
    text = "setblock 0 0 0 stone\n# x\nsetblock 1 0 0 stone\nsetblock 2 0 0 stone\n"
    assert len(parse_mcfunction(text, max_blocks=3)) == 3
    assert _error(text + "setblock 3 0 0 stone\n", max_blocks=3) == (
        "b.mcfunction:5: more than 3 setblock lines; a build holds at most 3 blocks")


def test_export_uses_the_vanilla_repeater_id_and_reads_back():
    w = _sample_world()
    text = w.to_mcfunction()
    assert "minecraft:repeater[delay=3,facing=west," in text and "redstone_repeater" not in text
    assert dict(parse_mcfunction(text)) == w.blocks()


_COORD = re.compile(r"-?[0-9]+")


@settings(max_examples=150, deadline=None)
@given(coord=st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\n"), max_size=6))
def test_a_coordinate_is_accepted_exactly_when_it_is_ascii_digits(coord):
    text = f"setblock 0 {coord} 0 stone\n"
    ok = bool(_COORD.fullmatch(coord)) and abs(int(coord)) <= 30_000_000
    try:
        got = parse_mcfunction(text)
    except build_error_cls():
        assert not ok or coord.strip(" \t") != coord
    else:
        assert got == [((0, int(coord), 0), "minecraft:stone")]


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=200))
def test_any_text_parses_or_fails_with_file_and_line(text):
    try:
        items = parse_mcfunction(text, source="f.mcfunction")
    except build_error_cls() as e:
        assert re.match(r"f\.mcfunction:\d+: ", str(e))
    else:
        assert all(isinstance(c, int) for p, _ in items for c in p)
