"""Generate scicraft_viz/engine/data/vanilla_blocks.json from the block data Minecraft publishes
(PrismarineJS minecraft-data for Java 1.20, the `minecraft-data-latest` package).

Run from the repository root: python tools/gen_block_data.py

Each row is a full, transparent or partial block whose redstone behaviour follows from its shape:
- a block whose collision shape is the whole cube in every state is a full block; it conducts
  (Java's default `isRedstoneConductor` is "the collision shape is a full block") unless it is one
  of the non-conductors below;
- slabs and stairs are partial blocks; each state's sturdy faces (the faces its shape covers whole)
  decide what it holds, and a double slab, a full cube, conducts; so is the honey block (STICKY), which
  covers no face whole and conducts nothing.
Blocks with a behaviour of their own are left out: any block with properties other than those
listed in KEEP (note blocks, observers, targets, furnaces... are mechanisms), and falling blocks; except the
blocks a comparator reads by their state (blocks.ANALOG_STATE, whatever their properties), which are coded
by their shape as the others are (full: 'C' or 'T'; else partial).

Decorative blocks (fences, walls, panes, iron bars, chains, carpets, signs, banners, lanterns, flower pots, ladders,
candles, torches, fire: blocks.decorative_family) are partial blocks too, whatever their properties: their shape
states (a fence's `north=true`...) change nothing for redstone. Glazed terracotta is a full block whatever its
`facing` (blocks.py gives it vanilla's push-only reaction).

Row format: name -> [min state id, [[property, [values...]], ...], default state id, codes, centres], where
codes has one character per state (state id - min state id, first property slowest, as Java numbers
them): 'C' conducts, 'T' full but transparent, or a letter 'a'+mask for a partial state whose sturdy
faces are the 6-bit mask (bit k: direction k of north, east, south, west, up, down); centres (partial blocks
only, else "") has one digit per state: 1 if the top face holds something at its centre (vanilla
canSupportCenter: a torch on a fence post), plus 2 if the bottom face does (a lantern hanging under it).

A face's shape is the block's collision shape cut just inside that face, as vanilla's VoxelShape.getFaceShape
cuts it: a fence post 1.5 blocks tall shows its post at the top face."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import minecraft_data

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from scicraft_viz.engine.blocks import ANALOG_STATE, decorative_family  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "scicraft_viz" / "engine" / "data" / "vanilla_blocks.json"
VERSION = "1.20"
CORE = {"air", "stone", "glass", "redstone_block", "redstone_wire", "repeater", "redstone_torch",
        "redstone_wall_torch", "redstone_lamp", "stone_button", "lever"}
# Full cubes that Java does not count as redstone conductors: glass, ice and leaves materials (not
# opaque before 1.20; 1.20 keeps them non-conducting with `isRedstoneConductor(never)`), glowstone and
# sea lanterns (glass material), beacons (glass material).
NON_CONDUCTORS = {"tinted_glass", "glowstone", "sea_lantern", "ice", "beacon"}
NON_CONDUCTOR_SUFFIXES = ("_stained_glass", "_leaves")
# Falling blocks (sand, gravel, concrete powder) drop at their first update: not static blocks.
FALLING = {"sand", "red_sand", "gravel"}
FALLING_SUFFIXES = ("_concrete_powder",)
# Water, lava and bubble columns: partial blocks with no shape (the engine's fluid rules, engine/fluids.py, move water,
# turn lava that water touches to stone and take a bubble column for a water source; docs/redstone.md sections 67-69,
# 84 and 85).
FLUIDS = {"water", "lava", "bubble_column"}
# Properties a kept full block may have: none of them changes its redstone behaviour.
KEEP = {"axis", "snowy", "distance", "persistent", "waterlogged"}
# Blocks a piston's push treats apart (engine/kernels.py sticky_kind) that are not full cubes: partial blocks
# whose sturdy faces come from their collision shape, which vanilla's default block support shape is.
STICKY = {"honey_block"}
# Blocks whose only behaviour here is what they do to item entities (engine/items.py): soul sand and mud, which vanilla
# makes conductors with a full support shape though their collision shape is 14/16 high (full blocks for redstone),
# and the cobweb, which has no collision shape (a partial block holding nothing).
ENTITY_FULL = {"soul_sand", "mud"}
ENTITY_PARTIAL = {"cobweb"}
# Partial blocks with a redstone behaviour of their own that blocks.py keeps as data (sturdy faces from their shape):
# a lightning rod (a signal source only while struck, blocks.REFUSED_STATES).
SHAPED = {"lightning_rod"}
SLAB = {"type", "waterlogged"}
STAIRS = {"facing", "half", "shape", "waterlogged"}
# The properties each decorative family has in 1.20 (checked, so that a family's rule in blocks.py fits each member).
_LINKS = {"east", "north", "south", "west", "waterlogged"}
DECORATIVE_PROPS = {"fence": _LINKS, "wall": _LINKS | {"up"}, "pane": _LINKS, "chain": {"axis", "waterlogged"},
                    "carpet": set(), "sign": {"rotation", "waterlogged"}, "wall_sign": {"facing", "waterlogged"},
                    "banner": {"rotation"}, "wall_banner": {"facing"}, "lantern": {"hanging", "waterlogged"},
                    "flower_pot": set(), "ladder": {"facing", "waterlogged"},
                    "candle": {"candles", "lit", "waterlogged"}, "torch": set(), "wall_torch": {"facing"},
                    "head": {"rotation"}, "wall_head": {"facing"}, "tripwire_hook": {"attached", "facing", "powered"},
                    "tripwire": {"attached", "disarmed", "east", "north", "powered", "south", "west"},
                    "fire": {"age", "east", "north", "south", "up", "west"},
                    "dirt_path": set(), "powder_snow": set(), "turtle_egg": {"eggs", "hatch"},
                    "bed": {"facing", "occupied", "part"}, "bell": {"attachment", "facing", "powered"},
                    "big_dripleaf": {"facing", "tilt", "waterlogged"}, "big_dripleaf_stem": {"facing", "waterlogged"}}
# Blocks whose support shape (vanilla getBlockSupportShape: what holds a block on their faces) is the whole cube though
# their collision shape is not: powder snow, which entities sink into.
SUPPORT_CUBE = {"powder_snow"}
DIRS = ("north", "east", "south", "west", "up", "down")
GRID = 16


def _face_cover(boxes: list[list[float]], d: str) -> set[tuple[int, int]]:
    """The 1/16 cells of the unit face d that the boxes (each [x0, y0, z0, x1, y1, z1]) cover where they cross
    the plane just inside that face (vanilla getFaceShape)."""
    faces = {"north": (2, 0.0), "south": (2, 1.0), "west": (0, 0.0), "east": (0, 1.0), "down": (1, 0.0), "up": (1, 1.0)}
    axis, at = faces[d]
    inside = 1e-7 if at == 0.0 else 1.0 - 1e-7
    a, b = [i for i in range(3) if i != axis]
    cover = set()
    for box in boxes:
        if not box[axis] <= inside < box[axis + 3]:
            continue
        for i in range(max(0, round(box[a] * GRID)), min(GRID, round(box[a + 3] * GRID))):
            for j in range(max(0, round(box[b] * GRID)), min(GRID, round(box[b + 3] * GRID))):
                cover.add((i, j))
    return cover


def sturdy_mask(boxes: list[list[float]]) -> int:
    """Faces of the unit cube fully covered by the boxes."""
    return sum(1 << k for k, d in enumerate(DIRS) if len(_face_cover(boxes, d)) == GRID * GRID)


# vanilla Block.CENTER_SUPPORT_SHAPE seen on a face: the 2 x 2 sixteenths around the face's centre
CENTRE = {(i, j) for i in (7, 8) for j in (7, 8)}


def centre_code(boxes: list[list[float]]) -> str:
    """1 if the top face holds at its centre, plus 2 if the bottom face does (vanilla canSupportCenter)."""
    return str((CENTRE <= _face_cover(boxes, "up")) + 2 * (CENTRE <= _face_cover(boxes, "down")))


# vanilla WallBlock's test shapes, as the 1/16 cells of the bottom face of the block above a wall they cover: the
# post's, then the side toward north, east, south and west (x from west, z from north)
WALL_TESTS = [{(x, z) for x in range(x0, x1) for z in range(z0, z1)}
              for x0, z0, x1, z1 in ((7, 7, 9, 9), (7, 0, 9, 9), (7, 7, 16, 9), (7, 7, 9, 16), (0, 7, 9, 9))]


def wall_cover_code(boxes: list[list[float]]) -> str:
    """'0' + a 5-bit mask of the WALL_TESTS the bottom face of this shape covers (vanilla WallBlock.isCovered)."""
    bottom = _face_cover(boxes, "down")
    return chr(ord("0") + sum(1 << i for i, t in enumerate(WALL_TESTS) if t <= bottom))


def values(state: dict) -> list[str]:
    return [str(v) for v in state["values"]] if "values" in state else ["true", "false"]


def build_rows() -> dict:
    """The data file's rows, from minecraft-data."""
    data = minecraft_data(VERSION)
    shapes = data.blockCollisionShapes
    full = [[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]]
    rows = {}
    for name, block in sorted(data.blocks_name.items()):
        if name in CORE or name in FALLING or name.endswith(FALLING_SUFFIXES):
            continue
        states = block.get("states", [])
        props = {s["name"] for s in states}
        n = block["maxStateId"] - block["minStateId"] + 1
        ids = shapes["blocks"].get(name)
        if ids is None:
            continue
        per_state = ids if isinstance(ids, list) else [ids] * n
        if len(per_state) != n:
            raise SystemExit(f"{name}: {len(per_state)} shapes for {n} states")
        boxes = [shapes["shapes"][str(i)] for i in per_state]
        slab_or_stairs = (name.endswith("_slab") and props == SLAB) or (name.endswith("_stairs") and props == STAIRS)
        family = decorative_family(name)
        if family is not None:
            if props != DECORATIVE_PROPS[family]:
                raise SystemExit(f"{name}: properties {sorted(props)}, expected {sorted(DECORATIVE_PROPS[family])}")
            support = [full] * n if name in SUPPORT_CUBE else boxes
            codes = "".join(chr(ord("a") + sturdy_mask(b)) for b in support)
        elif slab_or_stairs:
            codes = "".join("C" if b == full else chr(ord("a") + sturdy_mask(b)) for b in boxes)
        elif name in ENTITY_FULL:
            codes = "C" * n
        elif name in STICKY or name in ENTITY_PARTIAL or name in SHAPED:
            codes = "".join(chr(ord("a") + sturdy_mask(b)) for b in boxes)
        elif name in FLUIDS:
            codes = "a" * n
        elif name in ANALOG_STATE:
            whole = "C" if name not in NON_CONDUCTORS else "T"
            codes = "".join(whole if b == full else chr(ord("a") + sturdy_mask(b)) for b in boxes)
        elif name.endswith("_glazed_terracotta") and props == {"facing"}:  # a full block turned by its facing
            codes = "C" * n
        elif all(b == full for b in boxes) and props <= KEEP:
            conducts = name not in NON_CONDUCTORS and not name.endswith(NON_CONDUCTOR_SUFFIXES)
            codes = ("C" if conducts else "T") * n
        else:
            continue
        assert n == len(list(itertools.product(*(values(s) for s in states)))), name
        support = [full] * n if name in SUPPORT_CUBE else boxes
        centres = "".join(centre_code(b) for b in support) if codes[0] not in "CT" else ""
        rows[name] = [block["minStateId"], [[s["name"], values(s)] for s in states], block["defaultState"], codes,
                      centres]
        if codes[0] not in "CT":
            cover = "".join(wall_cover_code(b) for b in boxes)
            if cover.strip("0"):
                WALL_COVER[name] = cover
    return rows


# name -> one wall_cover_code per state, for the partial blocks whose bottom face covers any of WALL_TESTS (a full
# block covers them all): what makes a wall's side below them tall (docs/redstone.md section 57)
WALL_COVER: dict[str, str] = {}


# Families of blocks that power opens and closes, with the properties each member must have (engine/blocks.py
# builds a palette entry for each name listed here; doors and trapdoors copy their iron member's).
OPENABLE = {"door": ("facing", "half", "hinge", "open", "powered"),
            "trapdoor": ("facing", "half", "open", "powered", "waterlogged"),
            "fence_gate": ("facing", "in_wall", "open", "powered")}


def build_openable() -> dict:
    """{family: the names of its members besides iron, in minecraft-data's order}, each checked to have the
    properties its iron member has."""
    data = minecraft_data(VERSION)
    out = {}
    for family, props in OPENABLE.items():
        names = [n for n in data.blocks_name if n.endswith("_" + family) and n != f"iron_{family}"]
        for n in names:
            have = tuple(s["name"] for s in data.blocks_name[n]["states"])
            if have != props:
                raise SystemExit(f"{n}: properties {have}, expected {props}")
        out[family] = names
    return out


# Note block instruments. Java 1.20 gives each block an instrument in its block properties, chosen so that every
# block keeps the one 1.19 gave it: a few blocks by name, then by material (stone-like: basedrum; sand: snare;
# glass: hat; wood: bass; anything else: harp), as the Minecraft wiki's Note Block page lists them. minecraft-data
# publishes no instrument and no material, but it does publish the tool that mines each block, which stands for the
# material: wood is what an axe mines, stone-like blocks what a pickaxe mines; the names below are the blocks
# where the tool and the material part ways (metals, ice and amethyst mined by a pickaxe, decorations by an axe).
NAMED_INSTRUMENT = {"clay": "flute", "gold_block": "bell", "packed_ice": "chime", "bone_block": "xylophone",
                    "iron_block": "iron_xylophone", "soul_sand": "cow_bell", "pumpkin": "didgeridoo",
                    "emerald_block": "bit", "hay_block": "banjo", "glowstone": "pling"}
GLASS_MATERIAL = {"glass", "tinted_glass", "glass_pane", "sea_lantern", "beacon", "conduit"}
SAND_MATERIAL = {"sand", "red_sand", "gravel", "suspicious_sand", "suspicious_gravel"}
STONE_WITHOUT_TOOL = {"bedrock", "end_portal_frame", "reinforced_deepslate"}
# mined by a pickaxe, not stone-like: metal, heavy metal, ice, amethyst, piston, clay (infested blocks), dirt
# (packed mud), shulker shell and decoration (rails, buttons) materials
PICKAXE_NOT_STONE = {"ancient_debris", "anvil", "chipped_anvil", "damaged_anvil", "bell", "blue_ice", "ice",
                     "brewing_stand", "chain", "diamond_block", "lapis_block", "netherite_block", "lodestone",
                     "grindstone", "heavy_weighted_pressure_plate", "light_weighted_pressure_plate", "hopper",
                     "iron_bars", "iron_door", "iron_trapdoor", "lantern", "soul_lantern", "lightning_rod",
                     "redstone_block", "packed_mud", "piston", "sticky_piston", "piston_head", "rail",
                     "powered_rail", "detector_rail", "activator_rail"}
PICKAXE_NOT_STONE_PARTS = ("amethyst", "cauldron", "infested_", "shulker_box", "_button")
AXE_NOT_WOOD = {"ladder", "bamboo", "scaffolding"}  # decoration and bamboo materials; wooden buttons are decoration


def instrument(name: str, tool: str) -> str:
    """The instrument a note block plays above the block `name`, mined by `tool` (minecraft-data's material)."""
    if name in NAMED_INSTRUMENT:
        return NAMED_INSTRUMENT[name]
    if name.endswith("_wool"):
        return "guitar"
    if name in GLASS_MATERIAL or name.endswith(("_stained_glass", "_stained_glass_pane")):
        return "hat"
    if name in SAND_MATERIAL or name.endswith("_concrete_powder"):
        return "snare"
    if tool == "mineable/axe" and name not in AXE_NOT_WOOD and not name.endswith("_button"):
        return "bass"
    copper_metal = "copper" in name and not name.endswith("_ore") and name != "raw_copper_block"
    if tool == "mineable/pickaxe" and name not in PICKAXE_NOT_STONE and not copper_metal and not any(
            p in name for p in PICKAXE_NOT_STONE_PARTS):
        return "basedrum"
    if name in STONE_WITHOUT_TOOL or name.startswith("dead_") and "coral" in name:
        return "basedrum"
    return "harp"


def build_instruments() -> dict:
    """{instrument: the names of the blocks that give it} for every block of minecraft-data but harp's."""
    out: dict[str, list[str]] = {}
    for name, block in sorted(minecraft_data(VERSION).blocks_name.items()):
        got = instrument(name, block["material"])
        if got != "harp":
            out.setdefault(got, []).append(name)
    return out


def main() -> int:
    rows = build_rows()
    doc = {"source": f"minecraft-data {VERSION} (PrismarineJS), generated by tools/gen_block_data.py",
           "blocks": rows, "openable": build_openable(), "instruments": build_instruments(),
           "wall_cover": WALL_COVER}
    OUT.write_text(json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n")
    kinds: dict[str, int] = {}
    for row in rows.values():
        kind = {"C": "conductive", "T": "transparent"}.get(row[3][0], "partial")
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{len(rows)} blocks written to {OUT} ({kinds})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
