"""read_setblocks (the compiled setblock scanner plus its fallback) against parse_mcfunction, the
specification of the build-file format: same blocks in the same order, or the same error."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scicraft_viz.engine.formats import MAX_BLOCKS, MAX_COORD
from scicraft_viz.engine.mcfunction import parse_mcfunction, read_setblocks
from scicraft_viz.errors import BuildFileError

SOLUTIONS = sorted((Path(__file__).resolve().parent.parent / "tasks" / "solutions").glob("*.mcfunction"))


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as e:  # any exception must be matched exactly
        return "error", (type(e), str(e))


def assert_same(text, source="<t>", max_blocks=MAX_BLOCKS):
    """read_setblocks(text) is parse_mcfunction(text) as arrays, or raises exactly the same error."""
    want_kind, want = _outcome(parse_mcfunction, text, source, max_blocks)
    got_kind, got = _outcome(read_setblocks, text, source, max_blocks)
    if want_kind == "error":
        assert got_kind == "error", f"parse_mcfunction raised {want!r}, read_setblocks returned {got!r}"
        assert got == want
        return None
    assert got_kind == "ok", f"parse_mcfunction returned {want!r}, read_setblocks raised {got!r}"
    xyz, wid, states = got
    assert isinstance(xyz, np.ndarray) and xyz.dtype == np.int64 and xyz.shape == (len(want), 3)
    assert isinstance(wid, np.ndarray) and wid.dtype == np.int64 and wid.shape == (len(want),)
    assert isinstance(states, list) and len(set(states)) == len(states)
    assert all(isinstance(s, str) for s in states)
    if len(wid):
        assert 0 <= wid.min() and wid.max() < len(states)
    assert [(tuple(p), states[w]) for p, w in zip(xyz.tolist(), wid.tolist())] == want
    assert set(states) == {s for _, s in want}  # every listed state is used
    return xyz, wid, states


# ---------------------------------------------------------------- property test

BLANKS = ["", " ", "  ", "\t", " \t ", "\x0b", "\x0c", "\x85", "\u2028", "\u3000", "\xa0"]
SEPS = [" ", " ", " ", "  ", "\t", " \t", "", "\x0b", "\x0c", "\xa0", "\r"]
COMMANDS = ["setblock", "setblock", "setblock", "/setblock", "/setblock", "setblocks", "Setblock", "/ setblock",
            "setblok", "fill", "#setblock", "//setblock", "\ufeffsetblock"]
COORDS = ["0", "1", "-1", "12", "-3", "-0", "+3", "1_0", "007", "-007", "00000000", "000000001", "-00000001",
          "12345678", "-12345678", "123456789", "-123456789", "1234567890", "0000000000", "99999999", "999999999",
          "29999999", "30000000", "30000001", "-29999999", "-30000000", "-30000001", "030000000", "-030000000",
          "~", "~1", "^", "1.5", "x", "--1", "1-2", "\u0661", "\uff11", "²", "", "9" * 20, "-" + "9" * 20]
VALID_STATES = ["stone", "stone", "minecraft:stone", "redstone_lamp", "redstone_lamp[lit=false]",
                "redstone_lamp[lit=true]", "repeater[facing=east,delay=2]",
                "minecraft:redstone_repeater[delay=4,facing=west]", "redstone_wire", "redstone_torch", "lever",
                "glass", "minecraft:glass", "redstone_block", "stone_button", "air"]
STATES = VALID_STATES + ["tnt", "stone[foo=bar]", "redstone_repeater[delay=7]", "sculk_sensor", "stone[", "STONE",
                         "replace", "keep", "stone#x", "stöne", "#", ""]
MODES = ["", "", "", " replace", " destroy", " keep", "\treplace", " replacex", " Replace", " keep keep",
         " replace ", " replac", " # comment", " extra"]
ENDINGS = ["\n", "\n", "\n", "\r\n", "\r\n", "\r", "\r\r\n", "", "\n\n", " \n", "\t\r\n", "\x85", "\u2028",
           "\x0b\n", "\x0c\n"]
OTHER_LINES = ["", " ", "\t", "\r", " \r", "\r \r", "# comment", "#", "  # indented", "\t#tab comment",
               "# ünïcödé", "#\x0b", "\ufeff", "\ufeff# bom comment", "\ufeff ", "stone", "setblock",
               "setblock 1 2 3", "setblock 1 2 stone", "setblock 1 2 3 stone stone", "/", "/#", "\x00", "\x7f"]


def _pick(options):
    return st.sampled_from(options)


# a setblock-ish line: mostly well-formed, with one or more parts replaced by an edge case
_SETBLOCK_LINE = st.builds(
    lambda lead, cmd, s1, x, s2, y, s3, z, s4, state, mode, trail: (lead + cmd + s1 + x + s2 + y + s3 + z + s4
                                                                     + state + mode + trail),
    _pick(BLANKS), _pick(COMMANDS), _pick(SEPS), _pick(COORDS), _pick(SEPS), _pick(COORDS), _pick(SEPS),
    _pick(COORDS), _pick(SEPS), _pick(STATES), _pick(MODES), _pick(BLANKS),
)
# a plain line, the kind the scanner must take
_PLAIN_LINE = st.builds(
    lambda lead, slash, x, y, z, state, mode, trail: f"{lead}{slash}setblock {x} {y} {z} {state}{mode}{trail}",
    _pick(["", " ", "\t", "  "]), _pick(["", "/"]),
    *(st.one_of(st.integers(-MAX_COORD, MAX_COORD).map(str), st.integers(-40, 40).map(str),
                _pick(["29999999", "30000000", "-30000000", "-29999999", "-0", "007", "-007", "000000001",
                       "-00000001", "00000000", "999999"]))
      for _ in range(3)),
    _pick(VALID_STATES), _pick(["", "", " replace", " destroy", " keep"]), _pick(["", " ", "\t"]),
)
_FRAGMENTS = BLANKS + SEPS + COMMANDS + COORDS + STATES + MODES + ENDINGS + ["#", "/", "-", "\ufeff", "\n", "\r\n"]
_FRAGMENT_LINE = st.lists(_pick(_FRAGMENTS), max_size=12).map("".join)
# a plain line with any state word, valid or not (the scanner takes it; the state decides)
_PLAIN_ANY_STATE = st.builds(lambda x, y, z, state: f"setblock {x} {y} {z} {state}",
                             *(_pick(["0", "-1", "30000000", "-0"]) for _ in range(3)),
                             _pick([w for w in STATES if w.isascii() and w and " " not in w]))
_LINE = st.one_of(_PLAIN_LINE, _PLAIN_ANY_STATE, _SETBLOCK_LINE, _pick(OTHER_LINES), _FRAGMENT_LINE)


_PLAIN_OTHER = ["", " ", "\t", "# comment", "  # indented", "#", "#setblock 1 2 3 dirt", "\t#"]
_PLAIN_LINE_OR_COMMENT = st.one_of(_PLAIN_LINE, _PLAIN_LINE, _PLAIN_LINE, _pick(_PLAIN_OTHER))


@st.composite
def build_texts(draw):
    """Texts of three kinds: plain (lines the scanner takes), plain with a few odd lines or line endings
    mixed in, and anything assembled from the fragments."""
    kind = draw(st.integers(0, 2))
    if kind == 2:
        lines = draw(st.lists(st.tuples(_LINE, _pick(ENDINGS)), max_size=12))
    else:
        lines = draw(st.lists(st.tuples(_PLAIN_LINE_OR_COMMENT, _pick(["\n", "\n", "\r\n"])), max_size=12))
        if kind == 1:
            for _ in range(draw(st.integers(1, 2))):
                odd = draw(st.tuples(_LINE, _pick(ENDINGS)))
                lines.insert(draw(st.integers(0, len(lines))), odd)
    if lines and draw(st.booleans()):  # duplicate positions / repeated lines
        lines += draw(st.lists(_pick(lines), max_size=3))
        lines = draw(st.permutations(lines))
    if lines and draw(st.booleans()):  # the last line without its line ending
        lines[-1] = (lines[-1][0], "")
    text = "".join(line + end for line, end in lines)
    if draw(st.integers(0, 9)) == 0:
        text = "\ufeff" + text
    return text


@settings(max_examples=300, deadline=None)
@given(text=build_texts(), max_blocks=st.one_of(st.just(MAX_BLOCKS), st.just(MAX_BLOCKS), st.integers(0, 5)))
@example(text="", max_blocks=MAX_BLOCKS)
@example(text="", max_blocks=0)
@example(text="# only a comment\n\n  \r\n", max_blocks=0)
@example(text="setblock 0 0 0 stone\nsetblock 0 0 0 stone\n", max_blocks=1)
@example(text="setblock 0 0 0 stone\nsetblock 0 0 0 stone\n", max_blocks=2)
@example(text="setblock 1 2 3 stone\nsetblock 1 2 3 dirt\n", max_blocks=1)
@example(text="setblock 1 2 3 dirt\nsetblock 1 2 3 stone\n", max_blocks=0)
@example(text="\ufeffsetblock 1 2 3 stone\r\n", max_blocks=MAX_BLOCKS)
@example(text="setblock 1 2 3 stone\r\r\n", max_blocks=MAX_BLOCKS)
@example(text="setblock 1 2 3 stone\rsetblock 4 5 6 stone\n", max_blocks=MAX_BLOCKS)
@example(text="setblock 30000000 -30000000 -0 stone keep\n", max_blocks=MAX_BLOCKS)
@example(text="setblock 030000000 -30000000 0 stone\n", max_blocks=MAX_BLOCKS)
@example(text="setblock -030000000 0 0 stone\n", max_blocks=MAX_BLOCKS)
@example(text="setblock 30000001 0 0 stone\n", max_blocks=MAX_BLOCKS)
@example(text="setblock 1 2 3 stone replacex\n", max_blocks=MAX_BLOCKS)
@example(text="setblock 1 2 3 stone\x0b\n", max_blocks=MAX_BLOCKS)
@example(text="setblock 1 2 3 stone\x85setblock 1 2 4 stone", max_blocks=MAX_BLOCKS)
@example(text="setblock 1 2 3 stone\u2028setblock 1 2 4 stone", max_blocks=MAX_BLOCKS)
@example(text="\x0c# not a comment for Minecraft\n", max_blocks=MAX_BLOCKS)
def test_read_setblocks_matches_parse_mcfunction(text, max_blocks):
    assert_same(text, "prop.mcfunction", max_blocks)


@settings(max_examples=300, deadline=None)
@given(text=st.text(st.sampled_from("setblock 0123456789-+_#/[]=,:\t\r\n\x0b\x0c\x85\u2028\ufeff\u0661stoneSTONE"),
                    max_size=60),
       max_blocks=st.one_of(st.just(MAX_BLOCKS), st.integers(0, 5)))
def test_read_setblocks_matches_parse_mcfunction_on_character_soup(text, max_blocks):
    assert_same(text, "soup.mcfunction", max_blocks)


# ---------------------------------------------------------------- exact expectations

def test_all_reference_solutions():
    assert len(SOLUTIONS) == 25
    for path in SOLUTIONS:
        text = path.read_text()
        xyz, wid, states = assert_same(text, str(path))
        assert len(xyz) > 0
        want = parse_mcfunction(text, str(path))
        assert np.array_equal(xyz, np.array([p for p, _ in want], np.int64).reshape(-1, 3))
        assert [states[w] for w in wid.tolist()] == [s for _, s in want]


def test_stone_and_minecraft_stone_are_one_state():
    text = ("setblock 0 0 0 stone\nsetblock 1 0 0 minecraft:stone\nsetblock 2 0 0 redstone_lamp\n"
            "setblock 3 0 0 stone\n")
    xyz, wid, states = assert_same(text)
    assert xyz.tolist() == [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]
    assert len(states) == 2
    assert wid[0] == wid[1] == wid[3] != wid[2]
    assert states[wid[0]] == parse_mcfunction("setblock 0 0 0 stone")[0][1]


def test_comment_blank_line_and_crlf():
    text = ("# header comment\r\n\r\n  # indented\nsetblock -5 64 7 redstone_lamp[lit=true]\r\n\n"
            "/setblock 1 2 3 stone keep\r\n")
    xyz, wid, states = assert_same(text)
    assert xyz.tolist() == [[-5, 64, 7], [1, 2, 3]]
    assert [states[w] for w in wid.tolist()] == [s for _, s in parse_mcfunction(text)]


def test_edge_coordinates():
    text = "setblock 30000000 -30000000 -0 stone\nsetblock 000000001 -00000001 29999999 stone\n"
    xyz, _, _ = assert_same(text)
    assert xyz.tolist() == [[30000000, -30000000, 0], [1, -1, 29999999]]


@pytest.mark.parametrize("coord", ["1234567890", "0000000001", "-123456789", "30000001", "-30000001"])
def test_out_of_range_coordinate_error_matches(coord):
    text = f"setblock 0 0 0 stone\nsetblock 1 {coord} 2 stone\n"
    with pytest.raises(BuildFileError) as want:
        parse_mcfunction(text, "big.mcfunction")
    with pytest.raises(BuildFileError) as got:
        read_setblocks(text, "big.mcfunction")
    assert type(got.value) is type(want.value)
    assert str(got.value) == str(want.value)
    assert "big.mcfunction:2" in str(got.value)


def test_max_blocks_error_matches():
    text = "setblock 0 0 0 stone\n# c\nsetblock 1 0 0 stone\n"
    with pytest.raises(BuildFileError) as want:
        parse_mcfunction(text, "m", 1)
    with pytest.raises(BuildFileError) as got:
        read_setblocks(text, "m", 1)
    assert str(got.value) == str(want.value) and "m:3" in str(got.value)


def test_invalid_state_error_matches():
    text = "setblock 0 0 0 stone\nsetblock 1 0 0 tnt\nsetblock 2 0 0 stone[foo=bar]\n"
    with pytest.raises(BuildFileError) as want:
        parse_mcfunction(text, "s")
    with pytest.raises(BuildFileError) as got:
        read_setblocks(text, "s")
    assert str(got.value) == str(want.value) and "s:2" in str(got.value)


def test_non_ascii_text_falls_back_and_parses_identically():
    text = "\ufeff# ünïcödé comment — über\nsetblock 1 2 3 stone\nsetblock 4 5 6 minecraft:stone replace\n"
    xyz, wid, states = assert_same(text)
    assert xyz.tolist() == [[1, 2, 3], [4, 5, 6]]
    assert len(states) == 1 and wid.tolist() == [0, 0]


def test_empty_text():
    xyz, wid, states = assert_same("")
    assert xyz.shape == (0, 3) and wid.shape == (0,) and states == []


def test_large_file_with_repeated_states_and_duplicate_positions():
    words = ["stone", "minecraft:stone", "redstone_lamp", "redstone_lamp[lit=false]", "redstone_wire",
             "repeater[facing=east,delay=2]", "minecraft:redstone_repeater[delay=2,facing=east]", "glass"]
    lines = [f"setblock {i % 97 - 40} {i % 13} {-(i * 7919) % 100003} {words[i * 31 % len(words)]}"
             for i in range(5000)]
    lines[1234] = lines[17]  # a duplicate position
    text = "\r\n".join(lines) + "\r\n"
    xyz, wid, states = assert_same(text)
    assert len(xyz) == 5000 and len(states) == 5  # stone, lamp, wire, repeater and glass
