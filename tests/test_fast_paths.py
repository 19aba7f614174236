"""The evaluator's fast paths give exactly what the plain paths give: the one-regex reading of setblock
lines against the line-by-line reader (results and error messages), the vectorised block listings
against per-cell formatting, and duplicate positions in a build."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicraft_viz import World, tasks
from scicraft_viz.engine import mcfunction
from scicraft_viz.errors import BuildFileError
from scicraft_viz.tasks import evaluator as ev

SOLUTIONS = Path(__file__).resolve().parents[1] / "tasks" / "solutions"


def line_by_line(text: str, source: str, max_blocks: int):
    """The reader without its fast path: every line through `_parse_line`."""
    out = []
    for num, raw in enumerate(io.StringIO(text, newline="\n"), start=1):
        item = mcfunction._parse_line(raw.removesuffix("\n"), num, source, len(out), max_blocks)
        if item is not None:
            out.append(item)
    return out


def outcome(fn, *args):
    try:
        return fn(*args)
    except BuildFileError as e:
        return ("error", str(e))


COORD = st.one_of(st.integers(-31_000_000, 31_000_000).map(str),
                  st.sampled_from(["-0", "007", "-000000001", "000000001", "123456789", "-12345678", "1_0", "+3",
                                   "~1", "^", "0x1", "\u0663", "3.0", ""]))
STATE = st.sampled_from(["stone", "minecraft:redstone_lamp", "repeater[facing=west,delay=2]", "redstone_wire[power=3]",
                         "redstone_lamp[lit=maybe]", "unknown_block", "replace", "stone[", "lever[face=floor]",
                         "redstone_torch[lit=false,lit=true]", "MINECRAFT:stone", "stone]"])
SEP = st.sampled_from([" ", "\t", "  ", " \t", "\u00a0", "\r"])
SETBLOCK = st.builds(
    lambda lead, slash, word, seps, x, y, z, state, mode, tail: (
        f"{lead}{slash}{word}{seps[0]}{x}{seps[1]}{y}{seps[2]}{z}{seps[3]}{state}{mode}{tail}"),
    st.sampled_from(["", " ", "\t", "\ufeff"]), st.sampled_from(["", "/", "//"]),
    st.sampled_from(["setblock", "setblock", "Setblock", "fill"]), st.lists(SEP, min_size=4, max_size=4),
    COORD, COORD, COORD, STATE, st.sampled_from(["", " replace", "\tkeep", " destroy", " foo", " keep replace"]),
    st.sampled_from(["", " ", "\r", " \r", "\r\r", "\r ", "\x0c"]))
LINE = st.one_of(SETBLOCK, SETBLOCK, st.sampled_from(["", "   ", "# a comment \x00 with anything", "\t# tabbed", "\r"]),
                 st.text(st.sampled_from("setblock 0123 -#/\r\t\ufeffé"), max_size=24))


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=8), st.integers(0, 6), st.booleans())
def test_the_fast_reader_gives_what_the_line_reader_gives(lines, max_blocks, final_newline):
    text = "\n".join(lines) + ("\n" if final_newline else "")
    assert outcome(mcfunction.parse_mcfunction, text, "b.mcfunction", max_blocks) == \
        outcome(line_by_line, text, "b.mcfunction", max_blocks)


def test_fast_reader_examples():
    text = "\ufeffsetblock 1 2 3 stone\n/setblock -4 5 6 repeater[delay=2] keep\r\n# note\n\nsetblock 7 8 9 lever\n"
    assert mcfunction.parse_mcfunction(text) == [
        ((1, 2, 3), "minecraft:stone"),
        ((-4, 5, 6), "minecraft:redstone_repeater[delay=2,facing=north,locked=false,powered=false]"),
        ((7, 8, 9), "minecraft:lever[face=wall,facing=north,powered=false]")]
    with pytest.raises(BuildFileError) as e:
        mcfunction.parse_mcfunction("setblock 1 2 3 stone\nsetblock -000000001 0 0 stone\n", "b")
    assert str(e.value) == "b:2: coordinate -000000001 is outside the world (|coordinate| <= 30,000,000)"
    with pytest.raises(BuildFileError) as e:
        mcfunction.parse_mcfunction("setblock 1 2 3 stone\nsetblock 1 2 4 glass\n", "b", max_blocks=1)
    assert str(e.value) == "b:2: more than 1 setblock lines; a build holds at most 1 blocks"


def per_cell_blocks(w: World) -> dict:
    """blocks() as one formatted state per cell."""
    import numpy as np

    from scicraft_viz.engine import kernels as sim

    cells = w._sorted(np.nonzero(w.g.U[: w._ncell, sim.BT])[0])
    return {tuple(w.g.P[c].tolist()): w._state_at(c) for c in cells.tolist()}


@pytest.mark.parametrize("tid", ["B_branch_reach_L5", "E_pulse_shaping_L3"])
def test_block_listings_match_per_cell_formatting(tid):
    task = tasks.load(tid)
    w = ev.build_world(task, (SOLUTIONS / f"{tid}.mcfunction").read_text())
    w.use(next(p for p, s in w.blocks().items() if "stone_button" in s))
    w.step(7)  # mid-pulse: lit, powered, dust at several powers
    blocks = w.blocks()
    assert blocks == per_cell_blocks(w) and list(blocks) == sorted(blocks)
    groups = w.blocks_by_state()
    assert {p: s for s, ps in groups.items() for p in ps} == blocks
    assert all(ps == sorted(ps) for ps in groups.values())
    assert sum(map(len, groups.values())) == len(blocks)
    assert World().blocks() == {} and World().blocks_by_state() == {}


def test_a_later_line_wins_and_list_positions_read_like_tuples():
    task = tasks.load("A_simultaneous_lights_L1")
    text = (SOLUTIONS / "A_simultaneous_lights_L1.mcfunction").read_text()
    items = mcfunction.parse_mcfunction(text)
    lamp = next(p for p, s in items if "lamp" in s)
    with_glass_first = [(lamp, "minecraft:glass"), *items]  # the lamp's own line comes later and wins
    assert ev.evaluate(task, with_glass_first).to_dict() == ev.evaluate(task, items).to_dict()
    as_lists = [(list(p), s) for p, s in with_glass_first]
    assert ev.evaluate(task, as_lists).to_dict() == ev.evaluate(task, items).to_dict()
    lamp_last = [*items, (lamp, "minecraft:glass")]  # now the glass wins: one lamp short
    assert not ev.evaluate(task, lamp_last).check("lamp_count").passed
