"""Block palette, block-state parsing and canonical formatting (Minecraft syntax)."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from scicraft_viz.errors import BlockStateError

# Numeric block ids used by the engine's arrays.
AIR, STONE, GLASS, REDSTONE_BLOCK, WIRE, REPEATER, TORCH, WALL_TORCH, LAMP, BUTTON, LEVER = range(11)
# Comparators and the containers they read (ids 11-39 are kept for components and their neighbours).
COMPARATOR, BARREL, CHEST = 11, 12, 13
TARGET = 14  # a conductive block dust always connects to; its own output needs projectiles (none here)
NOTE_BLOCK = 15
# Blocks that watch and blocks that move: an observer, the two pistons, a piston's head, and the
# moving_piston that stands where a block travels (it holds that block for the 2 game ticks of the move).
OBSERVER, PISTON, STICKY_PISTON, PISTON_HEAD, MOVING_PISTON = range(16, 21)
PISTON_TYPES = ("normal", "sticky")
# Note block instruments in Minecraft's order (tests/test_vanilla_ids.py checks it against Minecraft's data);
# which block gives which is data (INSTRUMENT_OF below); kernels.instrument_on reads it.
INSTRUMENTS = ("harp", "basedrum", "snare", "hat", "bass", "flute", "bell", "guitar", "chime", "xylophone",
               "iron_xylophone", "cow_bell", "didgeridoo", "bit", "banjo", "pling", "zombie", "skeleton", "creeper",
               "dragon", "wither_skeleton", "piglin", "custom_head")
# Containers read by fill level (hoppers, droppers and dispensers also move items: World keeps the items, see
# engine/containers.py), doors, trapdoors, pressure plates and the daylight sensor. One id may name several blocks that
# behave alike (a furnace, blast furnace or smoker; the stone and wooden plates): the variant is kept in FACE.
HOPPER, DROPPER, DISPENSER, FURNACE = 26, 27, 28, 29
IRON_DOOR, IRON_TRAPDOOR = 30, 31
PLATE, LIGHT_PLATE, HEAVY_PLATE = 32, 33, 34  # PLATE: stone and wooden plates (15 while anything stands on them)
DAYLIGHT = 35
FENCE_GATE = 36  # every wood's (blocks.OPENERS): opened and closed by power as a trapdoor, and by hand
# Powered and activator rails: one id, the variant (RAILS) kept in FACE and the shape (RAIL_SHAPES) in DELAY. Power
# passes along a line of them (kernels.rail_chain); docs/redstone.md section 48.
RAIL = 39
# Plain and detector rails share the id (docs/redstone.md section 61): a detector rail is powered only by a minecart
# on it (none here), and only a plain rail takes a curved shape (RAIL_SHAPES[6:]).
RAILS = ("powered_rail", "activator_rail", "detector_rail", "rail")
PLAIN_RAIL, DETECTOR_RAIL = 3, 2  # their index in RAILS, kept in FACE
RAIL_SHAPES = ("north_south", "east_west", "ascending_east", "ascending_west", "ascending_north", "ascending_south",
               "south_east", "south_west", "north_west", "north_east")
# Copper bulbs (1.21; docs/redstone.md section 63): one id, which bulb (COPPER_BULBS) kept in FACE, `lit` in ON and
# `powered` in POWER. A rising edge of power toggles lit. The oxidation stage (index % 4) sets only the light level.
COPPER_BULB = 37
COPPER_BULBS = ("copper_bulb", "exposed_copper_bulb", "weathered_copper_bulb", "oxidized_copper_bulb",
                "waxed_copper_bulb", "waxed_exposed_copper_bulb", "waxed_weathered_copper_bulb",
                "waxed_oxidized_copper_bulb")
BULB_LIGHT = (15, 12, 8, 4)  # light level of a lit bulb by oxidation stage (unaffected, exposed, weathered, oxidized)
# The game-test block (Java 1.21.5): a full conductive block that a piston cannot move, in one of four modes
# (TEST_MODES, kept in FACE). Its block entity's `powered` is kept in ON and, for log, fail and accept, whether it
# was triggered (a rising edge of neighbour signal) since the test last looked, in DELAY. A start block emits 15 to
# every side while powered; the others react to being powered. docs/redstone.md sections 64-66, engine/gametest.py.
TEST_BLOCK = 38
TEST_MODES = ("start", "log", "fail", "accept")
# Command blocks (docs/redstone.md sections 70-73): one id, which kind (COMMAND_BLOCKS: impulse, repeating, chain)
# kept in FACE, `facing` (any of six) in FACING, `conditional` in DELAY. Block-entity data: `powered` in ON, the
# success count (what a comparator reads, at most 15 here) in POWER, `auto` and vanilla's conditionMet as bits of
# LOCKED (kernels.CMD_AUTO, CMD_MET); the command and the rest are kept by the world (engine/commands.py).
COMMAND_BLOCK = 21
COMMAND_BLOCKS = ("command_block", "repeating_command_block", "chain_command_block")
CMD_IMPULSE, CMD_REPEATING, CMD_CHAIN = 0, 1, 2
CONTAINERS = (BARREL, CHEST, HOPPER, DROPPER, DISPENSER, FURNACE)
PLATES = (PLATE, LIGHT_PLATE, HEAVY_PLATE)
WOODS = ("oak", "spruce", "birch", "jungle", "acacia", "dark_oak", "mangrove", "cherry", "bamboo", "crimson", "warped")
# Buttons: stone, polished blackstone and every wood's share BUTTON's id and rules; the index here is kept in DELAY.
# A stone or polished blackstone button stays pressed for the ruleset's button_ticks (20 gt in vanilla), a wooden
# one for WOOD_BUTTON_TICKS (vanilla's BlockSetType: 30 gt). docs/redstone.md section 47.
BUTTONS = ("stone_button", "polished_blackstone_button", *(f"{w}_button" for w in WOODS))
BUTTON_OF = {n: i for i, n in enumerate(BUTTONS)}
WOODEN_BUTTON = 2  # BUTTON_OF of the first wooden button: every index from it is wooden
WOOD_BUTTON_TICKS = 30
VARIANTS = {
    FURNACE: ("furnace", "blast_furnace", "smoker"),
    RAIL: RAILS,
    COPPER_BULB: COPPER_BULBS,
    COMMAND_BLOCK: COMMAND_BLOCKS,
    PLATE: ("stone_pressure_plate", "polished_blackstone_pressure_plate", *(f"{w}_pressure_plate" for w in WOODS)),
}
WOODEN_PLATE = 2  # the variant of the first wooden plate: every variant from it is wooden (it counts items too)
# The engine's id for slabs and stairs that are not full (ids 11-39 are the mechanisms above). Vanilla's
# other full blocks share STONE's id (they conduct) or GLASS's (they do not); see VANILLA below.
PARTIAL = 40

# Direction indices shared with the engine: 0 north, 1 east, 2 south, 3 west, 4 up, 5 down.
DIRECTIONS = ("north", "east", "south", "west", "up", "down")
OFFSETS = ((0, 0, -1), (1, 0, 0), (0, 0, 1), (-1, 0, 0), (0, 1, 0), (0, -1, 0))
HORIZONTAL = DIRECTIONS[:4]
FACES = ("floor", "wall", "ceiling")
CHEST_TYPES = ("single", "left", "right")  # a chest's type, kept in FACE
WIRE_SIDES = ("none", "side", "up")

_BOOL = ("false", "true")
_POWER = tuple(str(i) for i in range(16))
COMPARATOR_MODES = ("compare", "subtract")

# name -> (id, {property: allowed values}, {property: default})
PALETTE: dict[str, tuple[int, dict[str, tuple[str, ...]], dict[str, str]]] = {
    "air": (AIR, {}, {}),
    "stone": (STONE, {}, {}),
    "glass": (GLASS, {}, {}),
    "redstone_block": (REDSTONE_BLOCK, {}, {}),
    "redstone_wire": (
        WIRE,
        {"east": WIRE_SIDES, "north": WIRE_SIDES, "power": _POWER, "south": WIRE_SIDES, "west": WIRE_SIDES},
        {"east": "none", "north": "none", "power": "0", "south": "none", "west": "none"},
    ),
    "redstone_repeater": (
        REPEATER,
        {"delay": ("1", "2", "3", "4"), "facing": HORIZONTAL, "locked": _BOOL, "powered": _BOOL},
        {"delay": "1", "facing": "north", "locked": "false", "powered": "false"},
    ),
    "redstone_torch": (TORCH, {"lit": _BOOL}, {"lit": "true"}),
    "redstone_wall_torch": (WALL_TORCH, {"facing": HORIZONTAL, "lit": _BOOL}, {"facing": "north", "lit": "true"}),
    "redstone_lamp": (LAMP, {"lit": _BOOL}, {"lit": "false"}),
    "stone_button": (
        BUTTON,
        {"face": FACES, "facing": HORIZONTAL, "powered": _BOOL},
        {"face": "wall", "facing": "north", "powered": "false"},
    ),
    "lever": (
        LEVER,
        {"face": FACES, "facing": HORIZONTAL, "powered": _BOOL},
        {"face": "wall", "facing": "north", "powered": "false"},
    ),
    "comparator": (
        COMPARATOR,
        {"facing": HORIZONTAL, "mode": COMPARATOR_MODES, "powered": _BOOL},
        {"facing": "north", "mode": "compare", "powered": "false"},
    ),
    "target": (TARGET, {"power": ("0",)}, {"power": "0"}),
    "test_block": (TEST_BLOCK, {"mode": TEST_MODES}, {"mode": "start"}),
    **{name: (COMMAND_BLOCK, {"conditional": _BOOL, "facing": DIRECTIONS}, {"conditional": "false", "facing": "north"})
       for name in COMMAND_BLOCKS},
    "note_block": (
        NOTE_BLOCK,
        {"instrument": INSTRUMENTS, "note": tuple(str(i) for i in range(25)), "powered": _BOOL},
        {"instrument": "harp", "note": "0", "powered": "false"},
    ),
    "barrel": (BARREL, {"facing": DIRECTIONS, "open": _BOOL}, {"facing": "north", "open": "false"}),
    "hopper": (
        HOPPER,
        {"enabled": _BOOL, "facing": ("down", "north", "south", "west", "east")},
        {"enabled": "true", "facing": "down"},
    ),
    "dropper": (DROPPER, {"facing": DIRECTIONS, "triggered": _BOOL}, {"facing": "north", "triggered": "false"}),
    "dispenser": (DISPENSER, {"facing": DIRECTIONS, "triggered": _BOOL}, {"facing": "north", "triggered": "false"}),
    **{n: (FURNACE, {"facing": HORIZONTAL, "lit": _BOOL}, {"facing": "north", "lit": "false"})
       for n in VARIANTS[FURNACE]},
    "iron_door": (
        IRON_DOOR,
        {"facing": HORIZONTAL, "half": ("lower", "upper"), "hinge": ("left", "right"), "open": _BOOL,
         "powered": _BOOL},
        {"facing": "north", "half": "lower", "hinge": "left", "open": "false", "powered": "false"},
    ),
    # not waterlogged: water is outside the engine
    "iron_trapdoor": (
        IRON_TRAPDOOR,
        {"facing": HORIZONTAL, "half": ("bottom", "top"), "open": _BOOL, "powered": _BOOL, "waterlogged": ("false",)},
        {"facing": "north", "half": "bottom", "open": "false", "powered": "false", "waterlogged": "false"},
    ),
    **{n: (PLATE, {"powered": _BOOL}, {"powered": "false"}) for n in VARIANTS[PLATE]},
    # not waterlogged: water is outside the engine
    **{n: (RAIL, {"powered": _BOOL, "shape": RAIL_SHAPES[:6], "waterlogged": ("false",)},
           {"powered": "false", "shape": "north_south", "waterlogged": "false"}) for n in RAILS[:3]},
    "rail": (RAIL, {"shape": RAIL_SHAPES, "waterlogged": ("false",)}, {"shape": "north_south", "waterlogged": "false"}),
    **{n: (COPPER_BULB, {"lit": _BOOL, "powered": _BOOL}, {"lit": "false", "powered": "false"}) for n in COPPER_BULBS},
    "light_weighted_pressure_plate": (LIGHT_PLATE, {"power": _POWER}, {"power": "0"}),
    "heavy_weighted_pressure_plate": (HEAVY_PLATE, {"power": _POWER}, {"power": "0"}),
    "daylight_detector": (DAYLIGHT, {"inverted": _BOOL, "power": _POWER}, {"inverted": "false", "power": "0"}),
    "observer": (OBSERVER, {"facing": DIRECTIONS, "powered": _BOOL}, {"facing": "south", "powered": "false"}),
    "piston": (PISTON, {"extended": _BOOL, "facing": DIRECTIONS}, {"extended": "false", "facing": "north"}),
    "sticky_piston": (
        STICKY_PISTON, {"extended": _BOOL, "facing": DIRECTIONS}, {"extended": "false", "facing": "north"}),
    "piston_head": (
        PISTON_HEAD,
        {"facing": DIRECTIONS, "short": _BOOL, "type": PISTON_TYPES},
        {"facing": "north", "short": "false", "type": "normal"},
    ),
    "moving_piston": (
        MOVING_PISTON, {"facing": DIRECTIONS, "type": PISTON_TYPES}, {"facing": "north", "type": "normal"}),
    # a double chest's halves (type=left/right) pool their slots (World._chest_partner)
    "chest": (
        CHEST,
        {"facing": HORIZONTAL, "type": CHEST_TYPES, "waterlogged": _BOOL},
        {"facing": "north", "type": "single", "waterlogged": "false"},
    ),
}


# Decorative blocks: no redstone behaviour of their own, none conducts; what matters is what they stand on or hang
# from, what a piston does to them and what their faces hold (from their shapes in engine/data/vanilla_blocks.json).
# family -> (support, push reaction, solid), after vanilla 1.20's canSurvive, PushReaction and isSolid:
# - support: None, or (where, kind): where "down", "up", "behind" (opposite its facing) or "hanging" (up if
#   hanging=true, else down); kind SUPPORT_FULL (that face of the neighbour whole: isFaceSturdy), SUPPORT_CENTRE
#   (the middle of that face: canSupportCenter), SUPPORT_SOLID (a solid neighbour: isSolid) or SUPPORT_ANY (any
#   block but air);
# - push: "move", "break" (PushReaction.DESTROY) or "block" (a block entity: a piston cannot move it);
# - solid: what a sign or banner needs under or behind it (1.20 keeps 1.19's material rule: decoration and
#   carpet materials are not solid).
# docs/redstone.md sections 42-44.
SUPPORT_FULL, SUPPORT_CENTRE, SUPPORT_SOLID, SUPPORT_ANY = range(4)
DECORATIVE: dict[str, tuple[tuple[str, int] | None, str, bool]] = {
    "fence": (None, "move", True),
    "wall": (None, "move", True),
    "pane": (None, "move", True),  # glass panes, stained glass panes and iron bars
    "chain": (None, "move", True),
    "carpet": (("down", SUPPORT_ANY), "move", False),
    "sign": (("down", SUPPORT_SOLID), "block", True),
    "wall_sign": (("behind", SUPPORT_SOLID), "block", True),
    "banner": (("down", SUPPORT_SOLID), "block", True),
    "wall_banner": (("behind", SUPPORT_SOLID), "block", True),
    "lantern": (("hanging", SUPPORT_CENTRE), "break", True),
    "flower_pot": (None, "break", False),  # a flower pot, empty or not, floats
    "ladder": (("behind", SUPPORT_FULL), "break", False),
    "candle": (("down", SUPPORT_CENTRE), "break", False),
    "torch": (("down", SUPPORT_CENTRE), "break", False),  # torches and soul torches (no redstone)
    "wall_torch": (("behind", SUPPORT_FULL), "break", False),
    # heads and skulls float (vanilla gives them no canSurvive); docs/redstone.md section 54
    "head": (None, "break", False),
    "wall_head": (None, "break", False),
    # a tripwire hook hangs on the face behind it (isFaceSturdy); docs/redstone.md section 52. Tripwire (string) needs
    # nothing under it in 1.20 and a piston breaks it (section 88)
    "tripwire_hook": (("behind", SUPPORT_FULL), "break", False),
    "tripwire": (None, "break", False),
    # fire (not soul fire) stays on the whole top face of the block below; vanilla also lets a flammable neighbour
    # hold it, and ages and burns it out at random, which the engine leaves out (docs/redstone.md section 81)
    "fire": (("down", SUPPORT_FULL), "break", False),
    # Blocks with no redstone output that builds hold for their looks or for entities (docs/redstone.md section 83):
    # a dirt path (15/16 high: only its bottom face is whole) and powder snow (no collision shape, but vanilla's
    # getBlockSupportShape makes it a whole cube for what stands on it) are moved by pistons; a turtle egg, a bed's
    # half, a bell and a big dripleaf (and its stem) break (PushReaction.DESTROY). None conducts; a bed (9/16
    # high) is solid by its shape and a bell by forceSolidOn, the plants and eggs are not.
    "dirt_path": (None, "move", True),
    "powder_snow": (None, "move", False),
    "turtle_egg": (None, "break", False),
    "bed": (None, "break", True),
    # a bell's support depends on its attachment (vanilla BellBlock.canSurvive): see _bell_support
    "bell": (None, "break", True),
    "big_dripleaf": (None, "break", False),
    "big_dripleaf_stem": (None, "break", False),
}
ENTITY_DECOR = ("dirt_path", "powder_snow", "turtle_egg", "bell", "big_dripleaf", "big_dripleaf_stem")


def _bell_support(vals: dict) -> tuple[str, int] | None:
    """(where, SUPPORT_* kind) of a bell state (vanilla BellBlock.canSurvive): a floor bell stands on a whole face, a
    ceiling bell hangs from the centre of the face above, a single-wall bell hangs on the whole face of the block it
    faces; a double-wall bell never pops (it turns into a single-wall bell instead: kernels.bell_shape)."""
    attachment = vals["attachment"]
    if attachment == "floor":
        return "down", SUPPORT_FULL
    if attachment == "ceiling":
        return "up", SUPPORT_CENTRE
    if attachment == "single_wall":
        return vals["facing"], SUPPORT_FULL
    return None
HEADS = ("skeleton_skull", "wither_skeleton_skull", "zombie_head", "player_head", "creeper_head", "dragon_head",
         "piglin_head")
WALL_HEADS = tuple(n.replace("_skull", "_wall_skull").replace("_head", "_wall_head") for n in HEADS)


def decorative_family(name: str) -> str | None:
    """The DECORATIVE family of a vanilla block name, or None."""
    if name in ("fire", "tripwire"):
        return name
    if name in ("torch", "soul_torch", "wall_torch", "soul_wall_torch"):
        return "wall_torch" if name.endswith("wall_torch") else "torch"
    if name in ("lantern", "soul_lantern", "chain", "ladder", "flower_pot", "iron_bars"):
        return {"iron_bars": "pane", "soul_lantern": "lantern"}.get(name, name)
    if name.startswith("potted_"):
        return "flower_pot"
    if name == "candle" or name.endswith("_candle"):
        return "candle"
    if name in ENTITY_DECOR:
        return name
    if name.endswith("_bed"):
        return "bed"
    if name in HEADS or name in WALL_HEADS or name == "tripwire_hook":
        return "wall_head" if name in WALL_HEADS else "head" if name in HEADS else name
    if "hanging" in name:
        return None  # hanging signs attach in ways of their own
    for suffix in ("wall_sign", "wall_banner", "sign", "banner", "fence", "wall", "carpet"):
        if name.endswith("_" + suffix):
            return suffix
    if name.endswith("glass_pane"):
        return "pane"
    return None


def _read_data() -> dict:
    """engine/data/vanilla_blocks.json, which tools/gen_block_data.py makes from minecraft-data."""
    import json
    from importlib.resources import files

    return json.loads(files("scicraft_viz.engine").joinpath("data/vanilla_blocks.json").read_text())


_DATA = _read_data()
# Doors and trapdoors of every wood (named by minecraft-data) share the iron ones' id and rules; their index in
# OPENERS (0 for iron) is kept in DELAY, a door's shifted left by one past its hinge. Only iron cannot be opened
# by hand (World.use). docs/redstone.md section 37.
_OPENABLE = _DATA.get("openable", {})
OPENERS = {IRON_DOOR: ("iron_door", *_OPENABLE.get("door", ())),
           IRON_TRAPDOOR: ("iron_trapdoor", *_OPENABLE.get("trapdoor", ())),
           FENCE_GATE: tuple(_OPENABLE.get("fence_gate", ()))}  # no iron one: all open by hand
OPENER_OF = {n: i for names in OPENERS.values() for i, n in enumerate(names)}
for _id, _names in OPENERS.items():
    for _name in _names[1:] if _id != FENCE_GATE else ():
        PALETTE[_name] = PALETTE[_names[0]]
for _name in OPENERS[FENCE_GATE]:  # `in_wall` (lowered beside walls, which the engine lacks) is kept as given
    PALETTE[_name] = (FENCE_GATE, {"facing": HORIZONTAL, "in_wall": _BOOL, "open": _BOOL, "powered": _BOOL},
                      {"facing": "north", "in_wall": "false", "open": "false", "powered": "false"})
for _name in BUTTONS[1:]:
    PALETTE[_name] = PALETTE["stone_button"]
NAME_OF_ID: dict[int, str] = {}
for _name, _entry in PALETTE.items():
    NAME_OF_ID.setdefault(_entry[0], _name)  # an id shared by variants is named by its first
VARIANT_OF = {n: i for vs in VARIANTS.values() for i, n in enumerate(vs)}  # name -> index kept in FACE
# Events and scheduled ticks name a block by its engine id; a partial block by this word.
NAME_OF_ID[PARTIAL] = "partial_block"
# The paper's palette says `redstone_repeater`; Minecraft's id is `repeater`. Both are read; what is
# meant for Minecraft (build files, schematics) is written with the vanilla id.
ALIASES = {"repeater": "redstone_repeater"}
VANILLA_NAME = {v: k for k, v in ALIASES.items()}

# The 16 dye colours in Minecraft's order, and the shulker boxes: the undyed one and one of each colour.
DYE_COLOURS = ("white", "orange", "magenta", "light_blue", "yellow", "lime", "pink", "gray", "light_gray", "cyan",
               "purple", "blue", "brown", "green", "red", "black")
SHULKER_BOXES = ("shulker_box", *(f"{c}_shulker_box" for c in DYE_COLOURS))


def _levels(*values: int) -> dict[str, int]:
    """A property whose comparator output is its own value."""
    return {str(v): v for v in values}


# Blocks a comparator reads by their block state alone (vanilla hasAnalogOutputSignal, with an output that
# getAnalogOutputSignal works out from the state), as data rows after the Minecraft wiki's comparator page:
# name -> (property, {value: output}), the property "" for a block with one output in every state. Each is
# otherwise a vanilla block like the others (engine/data/vanilla_blocks.json: full ones conduct, the others
# are partial blocks whose collision shape says which faces hold). docs/redstone.md section 36.
ANALOG_STATE: dict[str, tuple[str, dict[str, int]]] = {
    "cake": ("bites", {"0": 14, "1": 12, "2": 10, "3": 8, "4": 6, "5": 4, "6": 2}),
    "cauldron": ("", {"": 0}),
    "water_cauldron": ("level", _levels(1, 2, 3)),
    "powder_snow_cauldron": ("level", _levels(1, 2, 3)),
    "lava_cauldron": ("", {"": 3}),
    "composter": ("level", _levels(0, 1, 2, 3, 4, 5, 6, 7, 8)),
    "end_portal_frame": ("eye", {"false": 0, "true": 15}),
    "respawn_anchor": ("charges", {"0": 0, "1": 3, "2": 7, "3": 11, "4": 15}),
    "beehive": ("honey_level", _levels(0, 1, 2, 3, 4, 5)),
    "bee_nest": ("honey_level", _levels(0, 1, 2, 3, 4, 5)),
    "lectern": ("has_book", {"false": 0}),
    "jukebox": ("has_record", {"false": 0}),
    # a shulker box reads as the container it is: an empty one gives 0, one holding items its fill level, which
    # the world keeps in the cell (BOX_STATE below; docs/redstone.md sections 53 and 96)
    **{n: ("", {"": 0}) for n in SHULKER_BOXES},
}
# Vanilla signal sources among them (isSignalSource): dust turns toward them as toward a lever. Their signal
# here is 0 (the states that would give one are refused below), but a powered tripwire hook's (section 88).
SIGNAL_SOURCES = ("lectern", "jukebox", "tripwire_hook", "lightning_rod")  # a hook's signal: section 88
# States of those blocks whose behaviour hangs on what the block state does not say, refused with the reason:
# (name, property, value) -> why.
REFUSED_STATES: dict[tuple[str, str, str], str] = {
    ("lectern", "has_book", "true"): "a lectern's comparator output comes from its book's page and page count "
                                     "(block-entity data the engine does not keep)",
    ("lectern", "powered", "true"): "a powered lectern is in the 2 game-tick pulse of a page turn, whose end is a "
                                    "scheduled tick the state does not carry",
    ("jukebox", "has_record", "true"): "a jukebox's comparator output and its signal come from the disc it holds "
                                       "and whether it plays (block-entity data the engine does not keep)",
    ("composter", "level", "7"): "a composter at level 7 turns to level 8 20 game ticks after it is placed, a "
                                 "scheduled tick the engine does not run",
    ("lightning_rod", "powered", "true"): "a lightning rod is powered for the 8 game ticks after lightning strikes "
                                          "it, whose end is a scheduled tick the state does not carry",
    **{("big_dripleaf", "tilt", t): "a tilted big dripleaf tilts further and springs back by scheduled ticks (10, 10 "
                                    "and 100 game ticks) that the state does not carry" for t in ("unstable", "partial",
                                                                                                 "full")},
}
REFUSED_BLOCKS: dict[str, str] = {
    "chiseled_bookshelf": "a chiseled bookshelf's comparator output is the last slot a player used (block-entity "
                          "data, not its block state)",
    "soul_fire": "soul fire, which stands only on soul sand or soul soil, is not in the engine (fire is)",
}


MAX_STATE_LENGTH = 200  # the longest real state here is about 90 characters
_STATE_RE = re.compile(r"^\s*(?:minecraft:)?([a-z0-9_]+)\s*(?:\[(.*)\])?\s*$")


@dataclass(frozen=True)
class BlockState:
    """A block name with every property present, e.g. redstone_lamp with lit=false."""

    name: str
    props: tuple[tuple[str, str], ...] = ()
    # Properties the caller wrote explicitly (others were defaults); placement may honour them.
    given: frozenset[str] = frozenset()

    @property
    def id(self) -> int:
        """The engine's id: the block's own for the redstone palette; STONE, GLASS or PARTIAL for the
        other vanilla blocks, by how they behave (see `vanilla_kind`)."""
        if self.name in PALETTE:
            return PALETTE[self.name][0]
        return vanilla_kind(self.name, self.props)[0]

    def get(self, key: str) -> str:
        return dict(self.props)[key]

    def __str__(self) -> str:
        if not self.props:
            return f"minecraft:{self.name}"
        return f"minecraft:{self.name}[" + ",".join(f"{k}={v}" for k, v in self.props) + "]"


def parse_state(text: object) -> BlockState:
    """Parse Minecraft block-state syntax; the `minecraft:` prefix and any property may be omitted."""
    if not isinstance(text, str):
        raise BlockStateError(f"block state must be a string like 'redstone_lamp', got {text!r}"[:200])
    if len(text) > MAX_STATE_LENGTH:
        raise BlockStateError(
            f"block state is {len(text)} characters long (at most {MAX_STATE_LENGTH}): {text[:40]!r}..."
        )
    m = _STATE_RE.match(text)
    if not m:
        raise BlockStateError(
            f"cannot read block state {text!r}: expected NAME or NAME[key=value,...], e.g. "
            "'redstone_repeater[facing=west,delay=2]'"
        )
    name, body = ALIASES.get(m.group(1), m.group(1)), m.group(2)
    if name in REFUSED_BLOCKS:
        raise BlockStateError(f"{name} (in {text!r}) is not supported: {REFUSED_BLOCKS[name]}")
    if name not in PALETTE and name not in VANILLA:
        close = difflib.get_close_matches(name, [*PALETTE, *VANILLA], n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise BlockStateError(
            f"unknown block '{name}' in {text!r}{hint}; supported blocks: {', '.join(sorted(PALETTE))}, and "
            f"{len(VANILLA)} full, transparent and partial vanilla blocks ({SUPPORTED_FAMILIES})"
        )
    _, allowed, defaults = PALETTE[name] if name in PALETTE else VANILLA[name]
    values = dict(defaults)
    given: set[str] = set()
    if body is not None and body.strip():
        for part in body.split(","):
            if "=" not in part:
                raise BlockStateError(f"property '{part.strip()}' in {text!r} is not of the form key=value")
            key, value = (s.strip() for s in part.split("=", 1))
            if key not in allowed:
                valid = ", ".join(allowed) if allowed else "none"
                raise BlockStateError(f"{name} has no property '{key}' (in {text!r}); its properties: {valid}")
            if value not in allowed[key]:
                raise BlockStateError(
                    f"{name} property '{key}' cannot be '{value}' (in {text!r}); allowed: {', '.join(allowed[key])}"
                )
            if key in given:
                raise BlockStateError(f"property '{key}' is given twice in {text!r}")
            given.add(key)
            values[key] = value
    for key, value in values.items():
        why = REFUSED_STATES.get((name, key, value))
        if why is not None:
            raise BlockStateError(f"{name} with {key}={value} (in {text!r}) is not supported: {why}")
    return BlockState(name, tuple(sorted(values.items())), frozenset(given))


# ------------------------------------------------------------------ vanilla full and partial blocks
def _load_vanilla() -> dict:
    """{name: (min state number, {property: values}, {property: default}, codes, property order)} from the
    data file that tools/gen_block_data.py makes from minecraft-data."""
    doc = _DATA
    out = {}
    for name, (lo, props, default, codes, _centres) in doc["blocks"].items():
        allowed = {k: tuple(v) for k, v in props}
        # the default state's values, from its number (first property slowest)
        i = default - lo
        defaults = {}
        for k, v in reversed(props):
            defaults[k] = v[i % len(v)]
            i //= len(v)
        out[name] = (lo, allowed, dict(sorted(defaults.items())), codes, [k for k, _ in props])
    return out


_VANILLA = _load_vanilla()
# name -> (engine id of its first state, {property: allowed values}, {property: default}) as PALETTE
VANILLA: dict[str, tuple[int, dict[str, tuple[str, ...]], dict[str, str]]] = {
    n: ({"C": STONE, "T": GLASS}.get(r[3][0], PARTIAL), r[1], r[2]) for n, r in _VANILLA.items()}
SUPPORTED_FAMILIES = ("e.g. concrete, wool, terracotta, planks, glass, stained glass, leaves, slabs, stairs, fences, "
                      "walls, panes, carpets, signs, banners, lanterns, ladders, candles, torches, heads, shulker "
                      "boxes, tripwire hooks and tripwire, lightning rods, fire, beds, bells, turtle eggs, dirt paths, "
                      "powder snow, big dripleaves")
_BY_STATE_ID = sorted((r[0], n) for n, r in _VANILLA.items())


# What a piston does to a vanilla full or partial block (vanilla PushReaction), by state number: 0 moves it,
# 1 cannot move it (obsidian and its kin, unbreakable blocks, blocks with a block entity), 2 breaks it.
PUSH_NORMAL, PUSH_BLOCK, PUSH_DESTROY, PUSH_ONLY = 0, 1, 2, 3  # PUSH_ONLY: pushed, never pulled nor dragged
# Immovable: vanilla's named four (obsidian, crying obsidian, respawn anchor, reinforced deepslate), unbreakable
# blocks (bedrock, barrier, end portal frame) and blocks with a block entity; a piston breaks pumpkins, melons,
# cakes and cobwebs (PushReaction.DESTROY).
_IMMOVABLE = ("obsidian", "crying_obsidian", "respawn_anchor", "bedrock", "reinforced_deepslate", "barrier",
              "end_portal_frame", "beacon", "spawner", "beehive", "bee_nest", "lectern", "jukebox")
# (a shulker box drops as an item)
_BROKEN_BY_PISTON = ("pumpkin", "melon", "cake", "cobweb", "water", "lava", "bubble_column", *SHULKER_BOXES)


def _push_reactions():
    import numpy as np

    top = max(r[0] + len(r[3]) for r in _VANILLA.values())
    out = np.zeros(top + 1, np.uint8)
    by_family = {"block": PUSH_BLOCK, "break": PUSH_DESTROY}
    decorative = [(n, by_family[DECORATIVE[f][1]]) for n in _VANILLA if (f := decorative_family(n)) is not None
                  and DECORATIVE[f][1] in by_family]
    for n, code in decorative:
        lo = _VANILLA[n][0]
        out[lo : lo + len(_VANILLA[n][3])] = code
    glazed = tuple(n for n in _VANILLA if n.endswith("_glazed_terracotta"))  # vanilla PushReaction.PUSH_ONLY
    for names, code in ((_IMMOVABLE, PUSH_BLOCK), (_BROKEN_BY_PISTON, PUSH_DESTROY), (glazed, PUSH_ONLY)):
        for n in names:
            if n in _VANILLA:
                lo = _VANILLA[n][0]
                out[lo : lo + len(_VANILLA[n][3])] = code
    return out


PUSH_REACTION = _push_reactions()


def _states(name: str):
    """(state number, {property: value}) for each state of a vanilla block."""
    lo, allowed, _, codes, order = _VANILLA[name]
    for i in range(len(codes)):
        vals, j = {}, i
        for k in reversed(order):
            vals[k] = allowed[k][j % len(allowed[k])]
            j //= len(allowed[k])
        yield lo + i, vals


def _leaf_tables():
    """By state number: LEAF_DISTANCE, a leaves block's `distance` (1-7; 0 for any other block); LEAF_STRIDE,
    how far apart two of its states one distance apart are numbered; LOG, 1 for a block of vanilla's #logs tag
    (logs, wood, stems and hyphae, stripped or not), from which leaves count their distance."""
    import numpy as np

    top = len(PUSH_REACTION)
    distance, stride, log = np.zeros(top, np.uint8), np.zeros(top, np.uint8), np.zeros(top, np.uint8)
    for name, (lo, allowed, _, codes, order) in _VANILLA.items():
        if name.endswith("_leaves") and "distance" in allowed:
            step = 1
            for k in order[order.index("distance") + 1:]:
                step *= len(allowed[k])
            for number, vals in _states(name):
                distance[number] = int(vals["distance"])
                stride[number] = step
        elif name.endswith(("_log", "_wood", "_stem", "_hyphae")) and name != "mushroom_stem":
            log[lo : lo + len(codes)] = 1
    return distance, stride, log


LEAF_DISTANCE, LEAF_STRIDE, LOG = _leaf_tables()


def _analog_outputs():
    """By state number: the comparator output of a block ANALOG_STATE names (-1: none; a refused state keeps
    -1, it is never placed), and 1 for a state of a block in SIGNAL_SOURCES."""
    import numpy as np

    top = len(PUSH_REACTION)
    out, source = np.full(top, -1, np.int8), np.zeros(top, np.uint8)
    for name, (prop, outputs) in ANALOG_STATE.items():
        if name not in _VANILLA:  # only while tools/gen_block_data.py makes the data file
            continue
        for number, vals in _states(name):
            out[number] = outputs.get(vals.get(prop, ""), -1)
    for name in SIGNAL_SOURCES:
        if name in _VANILLA:
            lo = _VANILLA[name][0]
            source[lo : lo + len(_VANILLA[name][3])] = 1
    return out, source


ANALOG_OUTPUT, SIGNAL_SOURCE = _analog_outputs()


def _box_states():
    """By state number: 1 for a state of a shulker box (a vanilla block that is also a 27-slot container, whose
    fill level the world keeps in the cell as it keeps a chest's: kernels.analog_level reads it there)."""
    import numpy as np

    out = np.zeros(len(PUSH_REACTION), np.uint8)
    for name in SHULKER_BOXES:
        if name in _VANILLA:  # only while tools/gen_block_data.py makes the data file
            lo = _VANILLA[name][0]
            out[lo : lo + len(_VANILLA[name][3])] = 1
    return out


BOX_STATE = _box_states()


def _decorative_tables():
    """By state number: NEED, 0 for a block that needs nothing, else 1 + 4 * direction + support kind (the
    neighbour in that direction must hold it so, see DECORATIVE); SOLID, 1 for a solid block (vanilla isSolid);
    CENTRE, 1 if the top face holds at its centre plus 2 if the bottom face does (full blocks: 3)."""
    import numpy as np

    top = len(PUSH_REACTION)
    need, solid, centre = np.zeros(top, np.uint8), np.ones(top, np.uint8), np.full(top, 3, np.uint8)
    for name, row in _DATA["blocks"].items():
        lo, centres = row[0], row[4]
        for i, ch in enumerate(centres):
            centre[lo + i] = int(ch)
        family = decorative_family(name)
        if family is None:
            continue
        support, _, is_solid = DECORATIVE[family]
        for number, vals in _states(name):
            solid[number] = is_solid
            if family == "bell":
                support = _bell_support(vals)
            if support is None:
                continue
            where, kind = support
            if where == "behind":
                where = DIRECTIONS[(HORIZONTAL.index(vals["facing"]) + 2) % 4]
            elif where == "hanging":
                where = "up" if vals["hanging"] == "true" else "down"
            need[number] = 1 + 4 * DIRECTIONS.index(where) + kind
    return need, solid, centre


NEED, SOLID, CENTRE = _decorative_tables()

# Tripwire hooks and tripwire (string), by state number (docs/redstone.md section 88): TRIP holds T_HOOK or T_STRING,
# T_ATTACHED, T_POWERED, T_DISARMED (string), the string's north, east, south, west connections (bit T_CONN + d) and a
# hook's facing (2 bits from T_FACING, a DIRECTIONS index); 0 for every other block. HOOK_NUMBER[facing * 4 +
# attached * 2 + powered] and STRING_NUMBER[(bits >> 2) & 127] are the state numbers of a hook and of a string.
T_HOOK, T_STRING, T_ATTACHED, T_POWERED, T_DISARMED, T_CONN, T_FACING = 1, 2, 4, 8, 16, 5, 9


def _trip_tables():
    import numpy as np

    trip = np.zeros(len(PUSH_REACTION), np.uint16)
    hook, string = np.zeros(16, np.int64), np.zeros(128, np.int64)
    if "tripwire" not in _VANILLA:  # only while tools/gen_block_data.py makes the data file
        return trip, hook, string
    for number, vals in _states("tripwire_hook"):
        f = HORIZONTAL.index(vals["facing"])
        a, p = vals["attached"] == "true", vals["powered"] == "true"
        trip[number] = T_HOOK | T_ATTACHED * a | T_POWERED * p | f << T_FACING
        hook[f * 4 + a * 2 + p] = number
    for number, vals in _states("tripwire"):
        bits = (T_STRING | T_ATTACHED * (vals["attached"] == "true") | T_POWERED * (vals["powered"] == "true")
                | T_DISARMED * (vals["disarmed"] == "true"))
        for d, side in enumerate(HORIZONTAL):
            bits |= (vals[side] == "true") << (T_CONN + d)
        trip[number] = bits
        string[(bits >> 2) & 127] = number
    return trip, hook, string


TRIP, HOOK_NUMBER, STRING_NUMBER = _trip_tables()

# Fences, walls, glass panes and iron bars take their sides from their neighbours at every shape update, and a player's
# from its neighbours when placed (vanilla CrossCollisionBlock and WallBlock; docs/redstone.md section 57). By state
# number: LINK, what a block is to them (one of L_*: L_NEVER, vanilla's isExceptionForConnection, never joins even by
# a whole face); LINK_LO, the first state number of a linking block's name, and LINK_STRIDE the step between two of its
# states one value apart in its north, east, south, west and up properties (kernels.set_link); WALL_COVER, which of
# a wall's test shapes the bottom face of a block covers (bit 0 the post's, then north, east, south, west; a full block
# all), plus WALL_POST_OVERRIDE for a block of vanilla's #wall_post_override tag (torches, signs, banners: a wall
# below them keeps its post).
L_NONE, L_WOOD_FENCE, L_NETHER_FENCE, L_WALL, L_PANE, L_NEVER = range(6)
WALL_POST_OVERRIDE = 32
_NEVER_LINKS = ("barrier", "pumpkin", "carved_pumpkin", "jack_o_lantern", "melon")  # and leaves, shulker boxes


def link_kind(name: str) -> int:
    """The L_* kind of a vanilla block name."""
    family = decorative_family(name)
    if family == "fence":
        return L_NETHER_FENCE if name == "nether_brick_fence" else L_WOOD_FENCE
    if family == "wall":
        return L_WALL
    if family == "pane":
        return L_PANE
    if name in _NEVER_LINKS or name.endswith(("_leaves", "shulker_box")):
        return L_NEVER
    return L_NONE


def _link_tables():
    import numpy as np

    top = len(PUSH_REACTION)
    link, lo_of, stride = np.zeros(top, np.uint8), np.zeros(top, np.int32), np.zeros((top, 5), np.int32)
    cover = np.zeros(top, np.uint8)
    covers = _DATA.get("wall_cover", {})
    for name, (lo, allowed, _, codes, order) in _VANILLA.items():
        hi = lo + len(codes)
        kind = link_kind(name)
        link[lo:hi] = kind
        if kind in (L_WOOD_FENCE, L_NETHER_FENCE, L_WALL, L_PANE):
            lo_of[lo:hi] = lo
            for j, prop in enumerate(("north", "east", "south", "west", "up")):
                if prop in order:
                    step = 1
                    for k in order[order.index(prop) + 1:]:
                        step *= len(allowed[k])
                    stride[lo:hi, j] = step
        if codes[0] in "CT":
            cover[lo:hi] = 31
        elif name in covers:
            cover[lo:hi] = [ord(ch) - ord("0") for ch in covers[name]]
        if decorative_family(name) in ("torch", "sign", "wall_sign", "banner", "wall_banner"):
            cover[lo:hi] |= WALL_POST_OVERRIDE
    return link, lo_of, stride, cover


LINK, LINK_LO, LINK_STRIDE, WALL_COVER = _link_tables()


# Stairs take their `shape` from the stairs in front of and behind them (vanilla StairBlock.getStairsShape; section
# 57). Every stairs block numbers its states alike (facing north, south, west, east; half top, bottom; shape; then
# waterlogged): by state number, STAIRS_LO is the first state number of a stairs block (0 for any other block), and
# STURDY the whole faces of every vanilla state (63 for a full block), which a stair's shape decides.
STAIR_SHAPES = ("straight", "inner_left", "inner_right", "outer_left", "outer_right")


def _stairs_tables():
    import numpy as np

    top = len(PUSH_REACTION)
    lo_of, sturdy = np.zeros(top, np.int32), np.full(top, 63, np.uint8)
    for name, (lo, allowed, _, codes, order) in _VANILLA.items():
        for i, ch in enumerate(codes):
            if ch not in "CT":
                sturdy[lo + i] = ord(ch) - ord("a")
        if name.endswith("_stairs"):
            if order != ["facing", "half", "shape", "waterlogged"] or allowed["shape"] != STAIR_SHAPES or allowed[
                    "facing"] != ("north", "south", "west", "east"):
                raise ValueError(f"{name}: its states are not numbered as every stairs block's")
            lo_of[lo : lo + len(codes)] = lo
    return lo_of, sturdy


STAIRS_LO, STURDY = _stairs_tables()


# The instrument (an index into INSTRUMENTS) a note block plays above each block: tools/gen_block_data.py derives
# it from minecraft-data (vanilla 1.20 gives every block one; docs/redstone.md section 56). Blocks not named play harp.
INSTRUMENT_OF: dict[str, int] = {n: INSTRUMENTS.index(i) for i, names in _DATA.get("instruments", {}).items()
                                 for n in names}


def _instrument_table():
    """By state number: the instrument of a vanilla full or partial block (0, harp, for state 0, which the palette's
    own stone and glass carry: kernels.instrument_on gives them theirs)."""
    import numpy as np

    out = np.zeros(len(PUSH_REACTION), np.uint8)
    for name, (lo, _, _, codes, _) in _VANILLA.items():
        out[lo : lo + len(codes)] = INSTRUMENT_OF.get(name, 0)
    return out


INSTRUMENT_BY_STATE = _instrument_table()


def instrument_under(state: str) -> int:
    """The instrument (index into INSTRUMENTS) a note block plays above the block `state` (air: harp)."""
    name = split_state(state)[0]
    return INSTRUMENT_OF.get(VANILLA_NAME.get(ALIASES.get(name, name), name), 0)


def support_need(name: str, props) -> tuple[int, int] | None:
    """(direction index, SUPPORT_* kind) of what a vanilla decorative block needs, or None."""
    if name not in _VANILLA:
        return None
    n = int(NEED[vanilla_number(name, props)])
    return ((n - 1) // 4, (n - 1) % 4) if n else None


def analog_output(name: str, props) -> int:
    """The comparator output of a vanilla block state read by its state (ANALOG_STATE), or -1."""
    if name not in ANALOG_STATE or name not in _VANILLA:
        return -1
    return int(ANALOG_OUTPUT[vanilla_number(name, props)])


def vanilla_number(name: str, props) -> int:
    """Java 1.20's numeric id of a vanilla block state (first property slowest, as minecraft-data
    numbers them); it fits 16 bits, which is how the engine keeps a full or partial block's state."""
    lo, allowed, _, _, order = _VANILLA[name]
    d = dict(props)
    i = 0
    for k in order:
        i = i * len(allowed[k]) + allowed[k].index(d[k])
    return lo + i


# The state numbers of the sticky blocks a piston's push knows: slime (a full conductive block) and honey (a
# partial block with no whole face, which conducts nothing); kernels.can_stick says what sticks to what.
SLIME = vanilla_number("slime_block", ())
HONEY = vanilla_number("honey_block", ())


# Bells, beds and dirt paths react to their neighbours (docs/redstone.md section 99). By state number: BELL, 0 for any
# other block, else B_BELL | B_POWERED if powered | attachment (BELL_ATTACHMENTS index) << 2 | facing (HORIZONTAL index)
# << 4, and BELL_NUMBER[(BELL >> 1) & 31] the state number of a bell with those bits; BED, 0 for any other block, else
# B_BED | the direction of its other half (HORIZONTAL index) | B_HEAD for a head | the first state number of its name
# << 4 (two halves pair only within one colour); the state numbers of a dirt path and of the dirt it turns into.
BELL_ATTACHMENTS = ("floor", "ceiling", "single_wall", "double_wall")
B_BELL, B_POWERED, B_HEAD, B_BED = 1, 2, 4, 8
BELL_FLOOR, BELL_CEILING, BELL_SINGLE, BELL_DOUBLE = range(4)


def _bell_bed_tables():
    import numpy as np

    bell, bed = np.zeros(len(PUSH_REACTION), np.int32), np.zeros(len(PUSH_REACTION), np.int32)
    bell_number = np.zeros(32, np.int64)
    if "bell" not in _VANILLA:  # only while tools/gen_block_data.py makes the data file
        return bell, bell_number, bed
    for number, vals in _states("bell"):
        bits = (B_POWERED * (vals["powered"] == "true") | BELL_ATTACHMENTS.index(vals["attachment"]) << 2
                | HORIZONTAL.index(vals["facing"]) << 4)
        bell[number] = B_BELL | bits
        bell_number[bits >> 1] = number
    for name in _VANILLA:
        if not name.endswith("_bed"):
            continue
        lo = _VANILLA[name][0]
        for number, vals in _states(name):
            f = HORIZONTAL.index(vals["facing"])
            head = vals["part"] == "head"
            # vanilla BedBlock.getNeighbourDirection: a foot's other half lies where it faces, a head's behind it
            bed[number] = B_BED | ((f + 2) % 4 if head else f) | B_HEAD * head | lo << 4
    return bell, bell_number, bed


BELL, BELL_NUMBER, BED = _bell_bed_tables()
DIRT_PATH_NUMBER = vanilla_number("dirt_path", ()) if "dirt_path" in _VANILLA else -1
DIRT_NUMBER = vanilla_number("dirt", ()) if "dirt" in _VANILLA else -1
DIRT_ID = VANILLA["dirt"][0] if "dirt" in VANILLA else STONE  # dirt is a full conductive block: STONE's id


def vanilla_kind(name: str, props) -> tuple[int, int, int]:
    """(engine id, sturdy faces, state number) of a vanilla full or partial block state. Sturdy faces
    is a 6-bit mask over DIRECTIONS of the faces the block's shape covers whole: what dust, torches,
    repeaters, buttons and levers can stand on or hang from."""
    n = vanilla_number(name, props)
    code = _VANILLA[name][3][n - _VANILLA[name][0]]
    if code == "C":
        return STONE, 63, n
    if code == "T":
        return GLASS, 63, n
    return PARTIAL, ord(code) - ord("a"), n


def vanilla_state_of(number: int) -> str:
    """The canonical state string of a vanilla state number (inverse of vanilla_number)."""
    import bisect

    j = bisect.bisect_right(_BY_STATE_ID, (number, "~")) - 1
    lo, name = _BY_STATE_ID[j]
    _, allowed, _, codes, order = _VANILLA[name]
    i = number - lo
    if not 0 <= i < len(codes):
        raise ValueError(f"no vanilla block state has number {number}")
    vals = {}
    for k in reversed(order):
        vals[k] = allowed[k][i % len(allowed[k])]
        i //= len(allowed[k])
    body = ",".join(f"{k}={v}" for k, v in sorted(vals.items()))
    return f"minecraft:{name}" + (f"[{body}]" if body else "")


def is_known(name: str) -> bool:
    """True for a block the engine knows: the redstone palette (either repeater name) or VANILLA."""
    return ALIASES.get(name, name) in PALETTE or name in VANILLA


def vanilla_state(text: str) -> str:
    """The state as Minecraft Java writes it (vanilla block ids, e.g. `minecraft:repeater[...]`)."""
    st = parse_state(text)
    name = VANILLA_NAME.get(st.name, st.name)
    return f"minecraft:{name}" + ("[" + ",".join(f"{k}={v}" for k, v in st.props) + "]" if st.props else "")


def canonical(text: str) -> str:
    """The canonical full form of a block-state string."""
    return str(parse_state(text))


_SPLIT_RE = re.compile(r"^(?:minecraft:)?([a-z0-9_]+)(?:\[(.*)\])?$")
_DERIVED = {"power", "lit", "powered", "locked", "enabled", "triggered", "extended", "short"}
# a string's sides and a hook's or string's `attached` follow the line (docs/redstone.md section 88); `disarmed` is
# what shears leave
_TRIP_DERIVED = {"attached", "north", "east", "south", "west"}
_OPENED_BY_POWER = tuple(OPENER_OF)  # their `open` follows power too (a player's placement derives it)


def split_state(state: str) -> tuple[str, dict[str, str]]:
    """'minecraft:name[k=v,...]' -> ('name', {k: v}), without validation (parse_state validates)."""
    m = _SPLIT_RE.match(state)
    if not m:
        return state, {}
    body = m.group(2)
    return m.group(1), dict(kv.split("=", 1) for kv in body.split(",") if "=" in kv) if body else {}


def known_properties(state: str) -> tuple[str, list[str]]:
    """(the state without the properties Java 1.20 does not give its block, those properties' keys), for a
    state 'name[k=v,...]' read without validation: a file saved by another version may carry one (the engine's
    palette has exactly vanilla's keys, tests/test_vanilla_ids.py). An unknown block comes back unchanged."""
    name, props = split_state(state)
    entry = PALETTE.get(ALIASES.get(name, name)) or VANILLA.get(name)
    if entry is None:
        return state, []
    dropped = [k for k in props if k not in entry[1]]
    if not dropped:
        return state, []
    keep = [f"{k}={v}" for k, v in props.items() if k in entry[1]]
    prefix = "minecraft:" if state.startswith("minecraft:") else ""
    return prefix + name + (f"[{','.join(keep)}]" if keep else ""), dropped


# Blocks that hang on another block (they need a support): placed after every free-standing block.
ATTACHED = ("redstone_wire", "redstone_repeater", "redstone_torch", "redstone_wall_torch", *BUTTONS, "lever",
            "comparator", *OPENERS[IRON_DOOR], *VARIANTS[PLATE], "light_weighted_pressure_plate",
            "heavy_weighted_pressure_plate", *RAILS)
ATTACHED_IDS = tuple(dict.fromkeys(PALETTE[n][0] for n in ATTACHED))


def is_attached(state: str) -> bool:
    """True for a block that hangs on another; the state is read without validation, vanilla ids too."""
    name = split_state(state)[0]
    family = decorative_family(name)  # a sign, carpet, lantern... needs a neighbour too
    return ALIASES.get(name, name) in ATTACHED or (family is not None and (DECORATIVE[family][0] is not None
                                                                           or family == "bell"))


def static_state(state: str) -> str:
    """The build-relevant part of a state: what a builder chooses (block, facing, face, delay, a
    dust dot, a lever's position), without what the circuit derives (power, lit, powered, locked,
    dust connections). Two worlds with the same static states are the same build."""
    name, props = split_state(state)
    if name == "redstone_wire":
        dot = all(props.get(s, "none") == "none" for s in HORIZONTAL)
        return "minecraft:redstone_wire" + ("[east=none,north=none,south=none,west=none]" if dot else "")
    kept = "powered" if name == "lever" else "lit" if decorative_family(name) == "candle" else ""  # set by hand
    keep = {k: v for k, v in props.items() if (k not in _DERIVED or k == kept)
            and not (k == "open" and name in _OPENED_BY_POWER)
            and not (name in ("tripwire", "tripwire_hook") and k in _TRIP_DERIVED)}
    if not keep:
        return f"minecraft:{name}"
    return f"minecraft:{name}[" + ",".join(f"{k}={v}" for k, v in sorted(keep.items())) + "]"
