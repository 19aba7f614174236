"""Components that do not move, run against what vanilla Minecraft (26.2) did with the same structures: Nucleation's
game-test captures (tests/data/nucleation/README.md says where each comes from and how its ticks count). Each
capture lists every block change of every tick, and the containers' slot changes; the engine must make the same
ones at the same ticks."""

import json

import pytest
from vanilla_capture import NUCLEATION, Action, differences, placement_order, vanilla_changes

from scicraft_viz import World
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.engine.formats import decode_build

RB, AIR = "minecraft:redstone_block", "minecraft:air"


def use(tick, pos):
    return Action(tick, "use", pos)


def place(tick, pos, state):
    return Action(tick, "place", pos, state)


# capture -> (structure, the actions Nucleation's conformance test makes, as the capture was made). Each structure was
# placed with vanilla's update pass (World.structure_updates) but those in QUIET, placed without it.
QUIET = ("lever_lamp",)
CAPTURES = {
    # a lever on a block's side lights the lamp beyond the block on the click's own tick
    "lever_lamp": ("lever_lamp", [use(5, (0, 1, 1))]),
    # a stone button pressed at tick 2 lights its lamp at once, lets go 20 gt later, the lamp 4 gt after that
    "button_lamp": ("button_lamp", [use(2, (0, 1, 0))]),
    # a wall button strongly powers the block it hangs on; a ceiling button the block above it
    "button_wall": ("button_wall", [use(5, (0, 1, 1))]),
    "button_ceiling": ("button_ceiling", [use(5, (0, 1, 1))]),
    # an oak button pressed at tick 2 lets go 30 gt later
    "button_wood": ("button_wood", [use(2, (0, 1, 0))]),
    # a comparator behind a barrel of 3 stacks turns on; 6 stacks read 4, and the dust after it shows 4, 3, 2
    "comparator_barrel": ("comparator_barrel", []),
    # a comparator saved lit behind an empty barrel hears the placement's updates and goes out 2 gt later
    "comparator_barrel_off": ("comparator_barrel_off", []),
    "comparator_dust": ("comparator_dust", []),
    # a hopper drains the barrel a comparator reads: on at tick 1, off 2 gt after the last item leaves (tick 18)
    "comparator_drain": ("comparator_drain", []),
    # breaking the dust line's source darkens the whole line in one tick; left alone, it powers the piston
    # through the block it runs onto
    "dust_line": ("dust_line", [place(0, (0, 1, 0), AIR)]),
    "dust_softpower": ("dust_line", []),
    # dust goes down a stone step and powers the lower dust; past glass it does not
    "dust_down_stone": ("dust_down_stone", [place(0, (3, 2, 0), AIR)]),
    "dust_down_glass": ("dust_down_glass", [place(0, (3, 2, 0), AIR)]),
    # a sticky piston pulls a block from beside a dust corner, which turns to run north-south
    "wire_corner_pull": ("wire_corner_pull", [use(10, (0, 2, 1))]),
    # a note block's `powered` follows a redstone block placed beside it and taken away, with no delay
    "note_powered": ("note_powered", [place(0, (1, 0, 0), RB), place(2, (1, 0, 0), AIR)]),
    # the observer watching a note block pulses once from the placement (ticks 1-3), and again when a click at
    # tick 6 changes the note (ticks 7-9)
    "note_click": ("note_click", [use(6, (0, 0, 0))]),
    # a hopper pulls one item every 8 gt from tick 0; two hoppers in a row hand on at ticks 7 and 15
    "hopper_pull": ("hopper_pull", []),
    "hopper_race": ("hopper_race", []),
    # a hopper locked by a redstone block moves its first item the tick the block is broken
    "hopper_locked": ("hopper_locked", [place(0, (1, 1, 0), AIR)]),
    # a dropper fires 4 gt after its rising edge: into the container in front, or out into the world
    "dropper_fill": ("dropper_fill", [place(0, (0, 2, 0), RB), place(2, (0, 2, 0), AIR)]),
    "dropper_into_barrel": ("dropper_into_barrel", [place(0, (1, 1, 0), RB), place(2, (1, 1, 0), AIR)]),
    # an oak and an iron trapdoor beside one redstone block open and shut with it
    "trapdoor_toggle": ("trapdoor_rig", [place(2, (1, 0, 0), RB), place(8, (1, 0, 0), AIR)]),
    # a redstone block lights nine powered rails in a line and no more, and takes them all back at once
    "rails_chain": ("rails_chain", [place(0, (0, 1, 1), RB), place(2, (0, 1, 1), AIR)]),
    # dispensers fire at tick 13: a water or powder snow bucket empties into the air in front and a bucket takes
    # its place in the slot; facing stone, the bucket is thrown out instead; observers watching the cell pulse
    # at 15 (docs/redstone.md section 90)
    "bucket_dispense": ("bucket_dispense", [place(10, (0, 2, z), RB) for z in (0, 2, 6, 8)]
                        + [place(12, (0, 2, z), AIR) for z in (0, 2, 6, 8)]),
    # an empty bucket takes the water source or the powder snow in front; facing air it is thrown out; one of two
    # buckets fills and goes into the first empty slot
    "bucket_pickup": ("bucket_pickup", [place(10, (0, 2, z), RB) for z in (0, 2, 6, 8, 10)]
                      + [place(12, (0, 2, z), AIR) for z in (0, 2, 6, 8, 10)]),
}


@pytest.mark.parametrize("capture", CAPTURES)
def test_the_engine_makes_vanillas_block_and_slot_changes_at_every_tick(capture):
    """Whether the blocks are written as the engine pastes them or as the game places a structure (`placed`,
    docs/redstone.md section 86)."""
    structure, actions = CAPTURES[capture]
    for placed in (False, True):
        assert differences(f"{structure}.snbt", f"{capture}.json", actions, inventories=True,
                           placement=capture not in QUIET, placed=placed) == [], placed


def test_the_captures_compared_are_not_empty():
    """Each capture records changes the engine has to make (a capture of nothing would pass whatever it did)."""
    for capture in CAPTURES:
        ticks = json.loads((NUCLEATION / f"{capture}.json").read_text())["ticks"]
        assert any(t["events"] for t in ticks), capture


def _agrees(state: str, expected: str) -> bool:
    """The case names a block and some of its properties: the state has that block and those values."""
    name, _, props = expected.partition("[")
    have = dict(kv.split("=") for kv in state.partition("[")[2].rstrip("]").split(",") if kv)
    want = dict(kv.split("=") for kv in props.rstrip("]").split(",") if kv)
    return state.partition("[")[0] == name and all(have.get(k) == v for k, v in want.items())


def case_failures(name: str, ground: bool = False) -> list[tuple[int, str, str, str]]:
    """A Nucleation case (`<name>.test.json`) run: its actions made on its structure (an action at tick t is made
    when the world stands at tick t, before its next step) and, at each check's tick, (tick, position, expected,
    got) for each block the check names that differs (the world after exactly that many ticks, before that
    tick's actions). `ground`: stone under the structure's footprint, for a case run where the build stood on the
    ground of a world (its `settle` is "in-world")."""
    case = json.loads((NUCLEATION / f"{name}.test.json").read_text())
    w = World.from_build_file(NUCLEATION / f"{name}.snbt")
    if ground:  # the ground first, then the build on it as the file has it (a build with no items)
        blocks = list(decode_build((NUCLEATION / f"{name}.snbt").read_bytes(), "snbt"))
        w = World(replay=True)
        w.set_blocks([((x, -1, z), "stone") for (x, _, z), _ in blocks] + blocks)
    checks = {c["tick"]: c["blocks"] for c in case["checks"]}
    assert all(c["expect"] == "blocks" for c in case["checks"])
    out = []
    for t in range(max(checks) + 1):
        for k, want in checks.get(t, {}).items():
            got = w.get_block(tuple(int(v) for v in k.split(",")))
            if not _agrees(got, want):
                out.append((t, k, want, got))
        for a in case["actions"]:
            if a["tick"] == t:
                if "use" in a:
                    w.use(tuple(a["use"]))
                else:
                    w.set_block(tuple(a["place"]), a["state"])
        w.step(1)
    return out


def test_the_trapdoor_rigs_case_powered_trapdoors_open_and_a_pushed_one_survives_the_trip():
    """Nucleation's case for the trapdoor rig: power opens the oak and the iron trapdoor together and taking it
    away shuts them; a piston pushes a third trapdoor one block and leaves it there when it retracts."""
    assert case_failures("trapdoor_rig") == []


def test_the_button_support_case_a_button_powers_its_floor_block_and_the_dust_beside_it():
    """Nucleation's case: a stone button on a block strongly powers it, so the dust beside the block reads 15 from
    the press (tick 1) until the release 20 gt later. The case ran in a world, the dust on the ground there (in the
    file it stands on the bottom layer, with nothing under it)."""
    assert json.loads((NUCLEATION / "button_support.test.json").read_text())["settle"] == "in-world"
    assert case_failures("button_support", ground=True) == []


def test_the_copper_bulb_latch_case_lit_toggles_on_each_rising_edge_and_survives_losing_power():
    """Nucleation's case: a lever beside dust beside a copper bulb, used at ticks 1, 10 and 20: the bulb is lit and
    powered after the first, lit and unpowered after the second, unlit and powered after the third. Run in a
    world, so on stone (the dust stands on the file's bottom layer)."""
    assert json.loads((NUCLEATION / "copper_bulb_latch.test.json").read_text())["settle"] == "in-world"
    assert case_failures("copper_bulb_latch", ground=True) == []


def test_a_case_check_that_disagrees_is_reported():
    """The case runner sees a wrong expectation (so the case tests above can fail)."""
    assert _agrees("minecraft:oak_trapdoor[open=true,powered=true]", "minecraft:oak_trapdoor[open=true]")
    assert not _agrees("minecraft:oak_trapdoor[open=true,powered=true]", "minecraft:oak_trapdoor[open=false]")
    assert not _agrees("minecraft:oak_trapdoor[open=true]", "minecraft:iron_trapdoor[open=true]")


# The compiled engine (engine/compiled.py) takes a build whole and is driven by uses and steps: these captures
# are made of uses alone (or nothing), and it compiles them. A capture with a block placed or broken has no compiled
# run (a block edit hands the world back to the reference engine); the others refuse, naming why.
COMPILED = ("lever_lamp", "button_lamp", "button_wall", "button_ceiling", "button_wood", "comparator_barrel",
            "comparator_dust")


@pytest.mark.parametrize("capture", COMPILED)
def test_the_compiled_engine_agrees_with_the_reference_on_the_capture(capture):
    structure, actions = CAPTURES[capture]
    assert all(a.kind == "use" for a in actions)
    ref = World.from_build_file(NUCLEATION / f"{structure}.snbt")
    if capture not in QUIET:
        ref.structure_updates(placement_order(NUCLEATION / f"{structure}.snbt"))
    cw = compile_world(ref)
    n = max(t["tick"] for t in json.loads((NUCLEATION / f"{capture}.json").read_text())["ticks"]) + 1
    seen = set()
    for k in range(n):
        for a in actions:
            if a.tick == k:
                assert cw.use(a.pos) is True and ref.use(a.pos) is True
        ref.step(1)
        assert cw.step(1)
        on = cw.on_states()
        for p, i in cw.node_of.items():
            state = ref.get_block(p)
            assert bool(on[i]) == ("lit=true" in state or "powered=true" in state), (k, p, state)
            seen.add((p, bool(on[i])))
    assert any(v for _, v in seen)  # something came on


def test_the_other_captures_are_refused_by_the_compiled_engine_with_a_reason_or_edit_blocks():
    for capture, (structure, actions) in CAPTURES.items():
        if capture in COMPILED:
            continue
        try:
            compile_world(World.from_build_file(NUCLEATION / f"{structure}.snbt"))
        except CompileRefused as e:
            assert str(e), capture
        else:
            assert any(a.kind == "place" for a in actions), capture


# Nucleation's shulker_pipeline case (and conformance test): the kick of the dispenser, three dropper pulses, the
# hopper locked while the piston breaks the box
SHULKER_ACTIONS = [place(5, (-1, 2, 1), RB), place(30, (2, 0, 1), RB), place(34, (2, 0, 1), AIR),
                   place(38, (2, 0, 1), RB), place(42, (2, 0, 1), AIR), place(46, (1, 1, 2), RB),
                   place(50, (1, 4, 1), RB), place(54, (1, 4, 1), AIR), place(60, (1, 1, 2), AIR),
                   place(82, (2, 0, 1), RB), place(86, (2, 0, 1), AIR)]


@pytest.mark.parametrize("placed", [False, True])
def test_the_shulker_pipeline_matches_the_game_at_every_tick(placed):
    """shulker_full: every block and slot change of its 110 ticks matches. The dispenser places the box at tick 8
    (`facing=up`, a hopper under its place) with the two diamonds its item holds; the hopper under it takes one
    diamond at once and passes them on to the dropper at 16 and 24, which throws them out at 33 and 41; the piston
    breaks the empty box at 50, which drops as an item; the hopper, unlocked at 60, takes it and passes it on at 68,
    and the dropper throws it out at 85 (docs/redstone.md section 96)."""
    assert differences("shulker_pipeline.snbt", "shulker_full.json", SHULKER_ACTIONS, ticks=110, inventories=True,
                       placement=True, placed=placed) == []
    want = vanilla_changes(json.loads((NUCLEATION / "shulker_full.json").read_text()), True)
    box, hopper, dropper = (1, 2, 1), ("slot", (1, 1, 1), 0), ("slot", (2, 1, 1), 0)
    assert want[8][box] == "minecraft:white_shulker_box[facing=up]"
    assert want[8][("slot", box, 0)] == "1x minecraft:diamond" and want[8][hopper] == "1x minecraft:diamond"
    assert [(k, want[k][dropper]) for k in sorted(want) if dropper in want[k]] == [
        (16, "1x minecraft:diamond"), (24, "2x minecraft:diamond"), (33, "1x minecraft:diamond"), (41, ""),
        (68, "1x minecraft:white_shulker_box"), (85, "")]
