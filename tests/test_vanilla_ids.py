"""Every block state the project can write is a real Minecraft Java 1.20 block state.

The reference is PrismarineJS's minecraft-data for 1.20, shipped by the `minecraft-data-latest` package."""

import itertools

import minecraft_data  # the package "minecraft-data-latest"
import pytest

from scicraft_viz import World
from scicraft_viz.engine.blocks import (
    COPPER_BULBS,
    INSTRUMENTS,
    PALETTE,
    canonical,
    parse_state,
    split_state,
    vanilla_state,
)
from scicraft_viz.engine.formats import decode_build, write_build


@pytest.fixture(scope="module")
def vanilla():
    """{block name: {property: allowed values}} for Java 1.20, and for the copper bulbs (new in 1.21) 1.21.1's."""
    out = {}
    for version, wanted in (("1.20", None), ("1.21.1", COPPER_BULBS)):
        for name, block in minecraft_data(version).blocks_name.items():
            if wanted is not None and name not in wanted:
                continue
            props = {}
            for s in block.get("states", []):
                props[s["name"]] = tuple(s["values"]) if "values" in s else ("false", "true")
            out[name] = props
    assert all(n in out for n in COPPER_BULBS)
    # the test block is new in 1.21.5, past the versions the minecraft-data package holds: its one property as the
    # game's block-state registry names it (TestBlock.MODE, TestBlockMode)
    out["test_block"] = {"mode": ("start", "log", "fail", "accept")}
    return out


def every_state():
    for name, (_, allowed, _) in PALETTE.items():
        keys = sorted(allowed)
        for values in itertools.product(*(allowed[k] for k in keys)):
            body = ",".join(f"{k}={v}" for k, v in zip(keys, values))
            yield f"{name}[{body}]" if body else name


def check_vanilla(state: str, vanilla) -> None:
    assert state.startswith("minecraft:"), state
    name, props = split_state(state)
    assert name in vanilla, f"{name} is not a vanilla 1.20 block"
    assert set(props) == set(vanilla[name]), (state, vanilla[name])
    for k, v in props.items():
        assert v in vanilla[name][k], (state, k, v)


def test_every_palette_state_is_written_as_a_vanilla_state(vanilla):
    states = list(every_state())
    assert len(states) == (1 + 1 + 1 + 1 + 3**4 * 16 + 4 * 4 * 2 * 2 + 2 + 4 * 2 + 2
                           + 14 * 3 * 4 * 2  # 13 buttons and the lever
                           + 4 * 2 * 2 + 6 * 2 + 4 * 3 * 2 + 1  # comparator, barrel, chest (3 types), target
                           + 23 * 25 * 2  # note block
                           + 5 * 2 + 2 * 6 * 2 + 3 * 4 * 2  # hopper, dropper and dispenser, furnaces
                           + 12 * (4 * 2 * 2 * 2 * 2 + 4 * 2 * 2 * 2)  # doors, trapdoors (never waterlogged)
                           + 11 * 4 * 2 * 2 * 2  # fence gates
                           + 13 * 2 + 2 * 16 + 2 * 16  # stone and wooden plates, weighted plates, daylight sensor
                           + 3 * 2 * 6 + 10  # powered, activator, detector and plain rails (never waterlogged)
                           + 8 * 2 * 2  # copper bulbs
                           + 4  # the test block's modes
                           + 3 * 6 * 2  # command blocks: impulse, repeating, chain; facing, conditional
                           + 6 * 2 + 2 * 2 * 6 + 6 * 2 * 2 + 6 * 2)  # observer, pistons, piston head, moving piston
    for s in states:
        check_vanilla(vanilla_state(s), vanilla)


def test_note_block_instruments_are_minecrafts_in_its_order(vanilla):
    assert INSTRUMENTS == vanilla["note_block"]["instrument"]


def test_repeater_is_written_with_the_vanilla_id():
    assert vanilla_state("redstone_repeater[facing=west,delay=2]") == (
        "minecraft:repeater[delay=2,facing=west,locked=false,powered=false]")
    assert vanilla_state("minecraft:redstone_lamp") == "minecraft:redstone_lamp[lit=false]"


@pytest.mark.parametrize("text", ["repeater", "minecraft:repeater", "redstone_repeater", "minecraft:redstone_repeater"])
def test_both_repeater_names_are_read(text):
    st = parse_state(text + "[facing=east,delay=3]")
    assert (st.name, st.get("facing"), st.get("delay")) == ("redstone_repeater", "east", "3")
    # the paper's name stays the agent-facing one
    assert canonical(text) == "minecraft:redstone_repeater[delay=1,facing=north,locked=false,powered=false]"


def _sample_world():
    w = World(replay=True)
    for x in range(-2, 6):
        w.set_block((x, 0, 0), "stone")
    w.set_block((-2, 1, 0), "stone_button[face=floor,facing=east]")
    w.set_block((-1, 1, 0), "redstone_wire")
    w.set_block((0, 1, 0), "repeater[facing=west,delay=4]")
    w.set_block((1, 1, 0), "redstone_lamp")
    w.set_block((2, 1, 0), "redstone_torch")
    w.set_block((3, 1, 0), "glass")
    w.set_block((4, 1, 0), "redstone_block")
    w.set_block((5, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((2, 0, 1), "redstone_wall_torch[facing=south]")
    w.step(4)
    return w


@pytest.mark.parametrize("fmt", ["mcfunction", "litematic", "schem"])
def test_every_state_each_writer_emits_is_vanilla(fmt, vanilla):
    import io

    import nbtlib

    from scicraft_viz.engine.formats import gunzip

    w = _sample_world()
    data = write_build(w, fmt)
    if fmt == "mcfunction":
        written = [line.split()[4] for line in data.decode().splitlines()]
        assert all("redstone_repeater" not in s for s in written)
    else:
        root = nbtlib.File.parse(io.BytesIO(gunzip(data, fmt)))
        if fmt == "schem":
            written = list(root["Schematic"]["Blocks"]["Palette"])
        else:
            pal = next(iter(root["Regions"].values()))["BlockStatePalette"]
            written = [str(e["Name"]) + ("[" + ",".join(f"{k}={v}" for k, v in sorted(e["Properties"].items())) + "]"
                                         if "Properties" in e else "") for e in pal]
    assert any(s.startswith("minecraft:repeater[") for s in written)
    for s in written:
        check_vanilla(s, vanilla)
    assert sorted(decode_build(data, fmt)) == sorted(w.blocks().items())
