"""Builds loaded from public files and run as their authors describe (sources and licences in the README
next to each file under tests/data/)."""

import json
from pathlib import Path

import pytest
from redstone_helpers import run
from vanilla_capture import NUCLEATION, Action, differences, vanilla_changes

from scicraft_viz import World
from scicraft_viz.engine.formats import UnsupportedBlocksWarning

DATA = Path(__file__).resolve().parent / "data"
LITHIUM_SORTER = DATA / "lithium" / "test_redstone.item_sorter.snbt"
NOTE = (11, 2, 10)  # on the emerald block: powered once the sort is right
START = (9, 5, 2)  # the red terracotta: the test's redstone block goes here
INPUT = (6, 5, 1)  # the half of the input double chest that holds the items
SORTED = [(8, 1, z) for z in range(3, 9)]  # the half of each slice's sorted double chest its hoppers fill
LOCK = [(6, 2, z) for z in range(3, 9)]  # each slice's lock hopper


def count(w, pos):
    return sum(n for _, n in w.items(pos))


def test_lithiums_item_sorter_sorts_each_item_into_its_slice_and_powers_its_check():
    """The hopper under the input chest's left half pulls from the double chest as one inventory, the right
    half's slots first (vanilla's compound container), so the items flow although they sit in the right half.
    Each sorted item reaches its slice's chest but the last, which its lock hopper holds until another comes
    (as in every sorter of this kind); the slab slice's lock hopper already held a slab when the structure was
    saved, so both slabs pass. With every fed slice's chest filled and the others empty, the note block on the
    emerald block is powered at tick 87, 85 gt after the start."""
    w = World.from_build_file(LITHIUM_SORTER)
    assert [w.items(p) for p in LOCK] == [[("smooth_stone_slab", 1)]] + [[]] * 5
    w.step(2)

    def probe():
        return "powered=true" in w.get_block(NOTE), tuple(count(w, p) for p in SORTED), count(w, INPUT)

    got = run(w, 200, probe, {2: [lambda: w.set_block(START, "redstone_block")]})
    # one item leaves the input every 8 gt from tick 4 (the torch goes out 2 gt after the start); the note block
    # is powered from tick 87, when the last torch has reached its chest
    assert got == [(2, (False, (0, 0, 0, 0, 0, 0), 9)), (4, (False, (0, 0, 0, 0, 0, 0), 8)),
                   (12, (False, (0, 0, 0, 0, 0, 0), 7)), (20, (False, (0, 0, 0, 0, 0, 0), 6)),
                   (28, (False, (0, 0, 0, 0, 0, 0), 5)), (36, (False, (0, 0, 0, 0, 0, 0), 4)),
                   (40, (False, (0, 0, 0, 1, 0, 0), 4)), (44, (False, (0, 0, 0, 1, 0, 0), 3)),
                   (51, (False, (1, 0, 0, 1, 0, 0), 3)), (52, (False, (1, 0, 0, 1, 0, 0), 2)),
                   (56, (False, (1, 0, 0, 2, 0, 0), 2)), (59, (False, (2, 0, 0, 2, 0, 0), 2)),
                   (60, (False, (2, 0, 0, 2, 0, 0), 1)), (64, (False, (2, 0, 0, 3, 0, 0), 1)),
                   (68, (False, (2, 0, 0, 3, 0, 0), 0)), (81, (False, (2, 0, 1, 3, 0, 0), 0)),
                   (87, (True, (2, 0, 1, 3, 0, 0), 0)), (97, (True, (2, 0, 2, 3, 0, 0), 0))]
    assert [w.items(p) for p in SORTED] == [[("smooth_stone_slab", 2)], [], [("repeater", 2)],
                                           [("redstone_torch", 3)], [], []]
    assert [w.items(p) for p in LOCK] == [[("smooth_stone_slab", 1)], [], [("repeater", 1)],
                                         [("redstone_torch", 1)], [], []]
    assert w.items((6, 4, 9)) == [("white_concrete", 64), ("sticky_piston", 64)]  # the overflow got nothing
    filters = [w.slots((6, 3, z))[0] for z in range(3, 9)]
    assert filters == [(item, 41) for item in ("smooth_stone_slab", "redstone", "repeater", "redstone_torch",
                                               "comparator", "slime_block")]


KICK = (2, 1, 1)  # above the rear sticky piston: the case's redstone block goes here at tick 2 and goes at tick 4


def nucleation_flying_machine():
    """The engine as its case runs it; vanilla's tick k (the capture's and the case's numbering, 0 the first
    tick after the paste) is the world's tick k + 1 here, and an action at tick k comes before it."""
    w = World.from_build_file(NUCLEATION / "flying_machine_east.snbt")
    case = json.loads((NUCLEATION / "flying_machine.test.json").read_text())
    actions = {a["tick"]: a for a in case["actions"]}
    assert [(k, tuple(a["place"]), a["state"]) for k, a in actions.items()] == [
        (2, KICK, "minecraft:redstone_block"), (4, KICK, "minecraft:air")]
    return w, case, actions


def test_nucleations_flying_machine_matches_the_vanilla_capture_block_for_block_at_every_tick():
    """Every block change of the wiki's two-way engine "B" kicked once, as vanilla 26.2 made them (the capture
    lists the changes of each tick with the full states before and after), for all 75 ticks it recorded: the
    kick, and seven steps east, one every 10 gt."""
    w, _, actions = nucleation_flying_machine()
    capture = json.loads((NUCLEATION / "flying_kick.json").read_text())
    vanilla = vanilla_changes(capture)
    assert sorted(vanilla) == list(range(2, 75, 2)) and sum(map(len, vanilla.values())) > 200
    acts = [Action(k, "place", tuple(a["place"]), a["state"]) for k, a in actions.items()]
    assert differences("flying_machine_east.snbt", "flying_kick.json", acts, 75, world=w) == []


def test_nucleations_flying_machine_stands_where_its_case_says_at_ticks_61_and_71():
    w, case, actions = nucleation_flying_machine()
    checks = {c["tick"]: c for c in case["checks"] if c["expect"] == "blocks"}
    empty = next(c for c in case["checks"] if c["expect"] == "air")
    for k in range(72):
        if k in actions:
            w.set_block(tuple(actions[k]["place"]), actions[k]["state"])
        w.step(1)
        if k in checks:
            want = {tuple(int(v) for v in p.split(",")): s for p, s in checks[k]["blocks"].items()}
            assert {p: w.get_block(p) for p in want} == want
            (x0, y0, z0), (x1, y1, z1) = empty["region"]
            if k == empty["tick"]:
                assert all(w.get_block((x, y, z)) == "minecraft:air" for x in range(x0, x1 + 1)
                           for y in range(y0, y1 + 1) for z in range(z0, z1 + 1))
    assert sorted(checks) == [61, 71]


COUNTER = DATA / "nucleation" / "cutecounter.schem"
COUNTER_AT = (22, 66, 51)  # the schematic's Offset: where its (0, 0, 0) lands


def counter_cell(x, y, z):
    return COUNTER_AT[0] + x, COUNTER_AT[1] + y, COUNTER_AT[2] + z


def test_nucleations_counter_of_t_flip_flops_adds_one_for_each_press_of_its_button():
    """A tower of eight T flip-flops (a locked repeater holds each stage; a lamp beside it shows the bit, the lowest
    the least), fed by a stone button through a comparator, a repeater and a torch. Saved reading 74 (0b01001010),
    each press adds one, 8 gt after the press: a lamp that lights does so then; where a carry turns stages from 1 to
    0, their lamps go out 4 gt later (a lamp's turning off), so for those 4 gt the reading is 79 (on the way from 75
    to 76 and from 77 to 78) and 95 (from 79 to 80). The button (20 gt) is pressed every 40 gt."""
    w = World.from_build_file(COUNTER)
    lamps = [counter_cell(2, y, 2) for y in range(3, 18, 2)]
    button = counter_cell(2, 1, 3)
    assert [w.get_block(p) for p in lamps[:2]] == ["minecraft:redstone_lamp[lit=false]",
                                                   "minecraft:redstone_lamp[lit=true]"]

    def count():
        return sum(1 << i for i, p in enumerate(lamps) if "lit=true" in w.get_block(p))

    got = run(w, 260, count, {t: [lambda: w.use(button)] for t in range(5, 206, 40)})
    assert got == [(0, 74), (13, 75), (53, 79), (57, 76), (93, 77), (133, 79), (137, 78), (173, 79), (213, 95),
                   (217, 80)]
    assert w.get_block(button) == "minecraft:stone_button[face=wall,facing=south,powered=false]"


def test_nucleations_bedrock_copper_bulb_flip_flop_loads_as_java_blocks():
    """Bedrock 1.21 structure (`minecraft:cardinal_direction` on its comparator, a waxed copper bulb), read as Java
    states; its save-mode structure block is left out by name. A torch on a target block feeds the side of a
    subtracting comparator that reads the bulb through the wool behind it."""
    with pytest.warns(UnsupportedBlocksWarning, match=r"minecraft:structure_block\[mode=save\] x1 at \(0, 1, 0\)"):
        w = World.from_build_file(DATA / "nucleation" / "flip-flop.mcstructure", skip_unsupported=True)
    got = {p: s for p, s in w.blocks().items() if not s.endswith("white_wool")}
    assert got == {(0, 1, 1): "minecraft:waxed_copper_bulb[lit=false,powered=false]",
                   (1, 2, 1): "minecraft:redstone_wire[east=up,north=none,power=0,south=none,west=side]",
                   (2, 1, 0): "minecraft:redstone_wire[east=side,north=none,power=15,south=side,west=none]",
                   (2, 1, 1): "minecraft:comparator[facing=west,mode=subtract,powered=false]",
                   (2, 3, 1): "minecraft:redstone_wire[east=side,north=none,power=0,south=none,west=side]",
                   (3, 1, 0): "minecraft:redstone_wall_torch[facing=west,lit=true]",
                   (3, 2, 1): "minecraft:redstone_wire[east=side,north=none,power=0,south=none,west=up]",
                   (4, 1, 0): "minecraft:target[power=0]"}
    assert len(w.blocks()) == 21
