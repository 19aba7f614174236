"""Note block instruments from the block below (Java Edition 1.20): every block the engine knows gives the
instrument vanilla gives it, from the data tools/gen_block_data.py derives from minecraft-data; docs/redstone.md
section 56."""

import pytest
from redstone_helpers import new_world, prop

from scicraft_viz import World
from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.compiled import CompileRefused, compile_world

# The wiki's Note Block page, one block or more for each instrument a block below gives.
WIKI = {
    "oak_planks": "bass", "crimson_stem": "bass", "oak_slab": "bass", "oak_fence": "bass", "oak_sign": "bass",
    "white_banner": "bass", "bookshelf": "bass",
    "glass": "hat", "white_stained_glass": "hat", "glass_pane": "hat", "sea_lantern": "hat", "tinted_glass": "hat",
    "stone": "basedrum", "cobblestone": "basedrum", "white_concrete": "basedrum", "terracotta": "basedrum",
    "netherrack": "basedrum", "obsidian": "basedrum", "quartz_block": "basedrum", "sandstone": "basedrum",
    "stone_bricks": "basedrum", "coal_ore": "basedrum", "bedrock": "basedrum", "nether_brick_fence": "basedrum",
    "gold_block": "bell", "clay": "flute", "packed_ice": "chime", "white_wool": "guitar", "red_wool": "guitar",
    "bone_block": "xylophone", "iron_block": "iron_xylophone", "pumpkin": "didgeridoo",
    "emerald_block": "bit", "hay_block": "banjo", "glowstone": "pling",
    "dirt": "harp", "white_carpet": "harp", "iron_bars": "harp", "diamond_block": "harp", "ice": "harp",
    "copper_block": "harp", "oak_leaves": "harp", "slime_block": "harp", "lantern": "harp",
}


@pytest.mark.parametrize("below, instrument", sorted(WIKI.items()))
def test_a_placed_note_block_plays_what_the_block_below_gives(below, instrument):
    w = World()
    w.set_block((0, -1, 0), "stone")  # what a carpet or lantern stands on
    w.set_block((0, 0, 0), below)
    w.set_block((0, 1, 0), "note_block")
    assert prop(w, (0, 1, 0), "instrument") == instrument


def test_the_data_names_the_instruments_of_blocks_the_engine_does_not_hold():
    # falling blocks and soul sand (not a full block) are not in the engine; the data gives them theirs
    got = {n: B.INSTRUMENTS[B.INSTRUMENT_OF[n]] for n in ("sand", "gravel", "red_concrete_powder", "soul_sand")}
    assert got == {"sand": "snare", "gravel": "snare", "red_concrete_powder": "snare", "soul_sand": "cow_bell"}


def _placed_below(name: str) -> list[tuple[tuple[int, int, int], str]]:
    """What to paste for the block `name` below a note block (a door comes in two halves)."""
    if name in B.OPENERS[B.IRON_DOOR]:
        return [((0, 1, 0), f"{name}[half=lower]"), ((0, 2, 0), f"{name}[half=upper]")]
    return [((0, 1, 0), name)]


PALETTE = sorted(n for n in B.PALETTE if n not in ("air", "moving_piston", "piston_head"))


@pytest.mark.parametrize("name", PALETTE)
def test_every_block_of_the_palette_gives_the_instrument_the_data_names(name):
    """The kernels name the palette's blocks by id and variant; the data by name: they agree for each."""
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 1), "stone")  # what a wall torch, button or lever facing north hangs on
    items = _placed_below(name)
    nb = (0, items[-1][0][1] + 1, 0)
    w.set_block(nb, "note_block[instrument=flute]")  # pasted first: it keeps flute until the block below changes
    for pos, state in items:
        w.set_block(pos, state)
    assert prop(w, nb, "instrument") == B.INSTRUMENTS[B.instrument_under(name)]


def test_the_instrument_follows_the_block_below_and_is_played():
    w = new_world()
    w.set_block((1, 0, 0), "white_wool")
    w.set_block((1, 1, 0), "note_block[note=3]")
    assert prop(w, (1, 1, 0), "instrument") == "guitar"
    w.set_block((1, 0, 0), "gold_block")
    assert prop(w, (1, 1, 0), "instrument") == "bell"
    w.set_block((0, 1, 0), "lever[face=floor,facing=north,powered=true]")
    w.set_block((1, 1, 1), "stone")  # a neighbour update: the note block turns powered and plays
    assert [(e.tick, B.INSTRUMENTS[e.old], e.new) for e in w.events if e.kind == "note"] == [(0, "bell", 3)]
    w.remove_block((1, 0, 0))
    assert prop(w, (1, 1, 0), "instrument") == "harp"


def test_the_compiled_engine_refuses_a_note_block_whose_instrument_the_block_below_would_change():
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "redstone_lamp")
    w.set_block((0, 2, 0), "note_block[instrument=bell]")  # a lamp gives harp, and its lit changes
    with pytest.raises(CompileRefused, match=r"note_block at \(0, 2, 0\) says instrument=bell but the redstone_lamp "
                                             r"below it gives harp"):
        compile_world(w)
    w.set_block((0, 1, 0), "white_wool")  # a block whose state never changes: the given instrument stays
    w.set_block((0, 2, 0), "note_block[instrument=bell]")
    assert prop(w, (0, 2, 0), "instrument") == "bell"
    compile_world(w)
