"""Vanilla structure files: `.nbt` (what a structure block saves: gzip-compressed NBT) and `.snbt` (the
same structure as text, as Minecraft's game tests keep them).

A structure holds `size`, a palette and a list of blocks, each a palette index and a position inside
`size`. Minecraft writes the binary form with `palette` (or `palettes`, one palette per variant: the first
is read) of {Name, Properties} compounds and `blocks` of {state: index, pos: [x, y, z]}; the text form
packs each palette entry into one string, `minecraft:repeater{delay:2,facing:east,...}`, and names the
block list `data`, its `state` the packed string. Both forms are read. Decoders take an NBT tree already
checked for size and shape (formats.parse_nbt, formats.parse_snbt)."""

from __future__ import annotations

import math
import re

import numpy as np

from scicraft_viz.engine import blockentity
from scicraft_viz.engine.formats import MAX_BLOCKS, MAX_PALETTE, Blocks
from scicraft_viz.engine.schematic import (
    _ID,
    _PROPERTY,
    DATA_VERSION,
    _bounds,
    _fail,
    _get,
    _nbt_bytes,
    _palette_state,
    _resolve,
    _tag_text,
    _yzx,
    entity_summary,
    entity_tag,
    read_entity,
)
from scicraft_viz.safeio import shown

_PACKED = re.compile(r"^([^{}]+)(?:\{(.*)\})?$")


def _packed_state(text: str, where: str, source: str) -> str:
    """`name{key:value,...}` (the text form's palette entry) as `name[key=value,...]`, each part checked."""
    m = _PACKED.match(text)
    if not m or not _ID.match(m.group(1)):
        raise _fail(source, f"{where} is {shown(text, 80)!r}, which is not a block state like "
                            "'minecraft:repeater{delay:2,facing:east}'")
    parts = []
    for kv in (m.group(2) or "").split(",") if m.group(2) else []:
        key, _, value = kv.partition(":")
        key, value = key.strip(), value.strip().strip("'\"")
        if not _PROPERTY.match(key) or not _PROPERTY.match(value):
            raise _fail(source, f"{where} has the property {shown(kv, 60)!r}; a property is key:value, each "
                                "lowercase letters, digits and '_'")
        parts.append(f"{key}={value}")
    return m.group(1) + (f"[{','.join(parts)}]" if parts else "")


def decode_structure(root, source: str, omitted: list | None = None, contents: dict | None = None) -> Blocks:
    """Blocks of a vanilla structure (binary or text form) at their positions inside the structure; the
    items of its containers (each block's `nbt`) go to `contents` (blockentity.py)."""
    from nbtlib import Compound, Int, List, String

    w = "root"
    size = _get(root, "size", List, source, w)
    if len(size) != 3 or not all(isinstance(v, Int) for v in size):
        raise _fail(source, f"root.size is {_tag_text(size)}; expected a list of 3 Ints")
    dims = [int(v) for v in size]
    if any(d < 0 for d in dims):
        raise _fail(source, f"root.size is {' x '.join(map(str, dims))}; no side may be negative")
    if "palettes" in root and "palette" not in root:
        palettes = _get(root, "palettes", List, source, w)
        if not len(palettes) or not isinstance(palettes[0], List):
            raise _fail(source, "root.palettes holds no palette")
        pal_tag, pw = palettes[0], "root.palettes[0]"
    else:
        pal_tag, pw = _get(root, "palette", List, source, w), "root.palette"
    if len(pal_tag) > MAX_PALETTE:
        raise _fail(source, f"{pw} has {len(pal_tag):,} entries; at most {MAX_PALETTE:,} are allowed")
    palette: dict[int, str] = {}
    for j, entry in enumerate(pal_tag):
        where = f"{pw}[{j}]"
        if isinstance(entry, String):
            palette[j] = _packed_state(str(entry), where, source)
        elif isinstance(entry, Compound):
            palette[j] = _palette_state(entry, where, source)
        else:
            raise _fail(source, f"{where} is {_tag_text(entry)}; expected a compound or a string")
    packed = {v: k for k, v in palette.items()}  # the text form names a block's state by its packed string
    key = "data" if "data" in root and "blocks" not in root else "blocks"
    cells = _get(root, key, List, source, w, default=List[Compound]())
    entities = _get(root, "entities", List, source, w, default=List[Compound]())
    wanted = getattr(contents, "entities", None)  # item entities are read where the caller keeps them
    others = []
    for j, e in enumerate(entities):
        item = None
        if wanted is not None and isinstance(e, Compound):  # an item entity, a minecart or a fireball
            item = read_entity(e.get("nbt"), e.get("pos"), (0, 0, 0), f"root.entities[{j}]", "pos",
                               f"root.entities[{j}].nbt", source)
        if item is not None:
            wanted.append(item)
        else:
            others.append(e)
    if others:
        _omit_or_refuse(omitted, source, entity_summary(others, _block_pos))
    xyz = np.zeros((len(cells), 3), np.int64)
    idx = np.zeros(len(cells), np.int64)
    data_at: dict = {}
    for i, cell in enumerate(cells):
        where = f"root.{key}[{i}]"
        pos = _get(cell, "pos", List, source, where)
        if len(pos) != 3 or not all(isinstance(v, Int) for v in pos):
            raise _fail(source, f"{where}.pos is {_tag_text(pos)}; expected a list of 3 Ints")
        p = [int(v) for v in pos]
        if not all(0 <= c < d for c, d in zip(p, dims)):
            raise _fail(source, f"{where}.pos {tuple(p)} lies outside the structure's size "
                                f"{' x '.join(map(str, dims))}")
        state = _get(cell, "state", (Int, String), source, where)
        if isinstance(state, String):
            text = _packed_state(str(state), f"{where}.state", source)
            k = packed.get(text)
            if k is None:
                k = packed[text] = len(palette)
                palette[k] = text
        else:
            k = int(state)
            if k not in palette or k < 0:
                raise _fail(source, f"{where}.state is palette index {k}; the palette has {len(pal_tag)} entries")
        if "nbt" in cell:
            data_at[tuple(p)] = (cell["nbt"], f"{where}.nbt")
        else:
            data_at.pop(tuple(p), None)  # a later entry for a position wins
        xyz[i] = p
        idx[i] = k
    keys = np.array(sorted(palette), np.int64)
    counts = {int(k): int(c) for k, c in zip(*np.unique(idx, return_counts=True))}
    used = np.array([k for k in keys.tolist() if counts.get(k)], np.int64)

    def positions(k: int):
        rows = np.flatnonzero(idx == k)
        order = sorted((tuple(int(c) for c in xyz[r]) for r in rows[:64]), key=_yzx)[:3]
        return order, counts[k]

    states = _resolve(palette, used, positions, source, omitted, counts.__getitem__)
    found: dict = {}
    for (x, y, z), k in zip(xyz.tolist(), idx.tolist()):
        s = states.get(k)
        if s is not None:
            found[(x, y, z)] = s
        else:
            found.pop((x, y, z), None)  # a later entry for a position wins, air included
    if len(found) > MAX_BLOCKS:
        raise _fail(source, f"holds {len(found):,} blocks; a build holds at most {MAX_BLOCKS:,}")
    if contents is not None:
        contents.with_data = {p for p in data_at if p in found}
        contents.update(blockentity.collect(found.items(), data_at, source, omitted,
                                             getattr(contents, "outputs", None),
                                             getattr(contents, "tests", None), getattr(contents, "commands", None)))
    return sorted(found.items(), key=lambda it: _yzx(it[0]))


def _block_pos(entity):
    """An entity's block position in a structure (its blockPos), if the file gives one as three Ints."""
    from nbtlib import Int, List

    p = entity.get("blockPos")
    return tuple(int(v) for v in p) if isinstance(p, List) and len(p) == 3 and all(isinstance(v, Int) for v in p) \
        else None


def _omit_or_refuse(omitted: list | None, source: str, what: str) -> None:
    """Entities have no place in the engine: refused, or with skip_unsupported listed as left out."""
    if omitted is None:
        raise _fail(source, f"holds {what}; builds here are blocks only (save the structure without entities, "
                            "or read it with skip_unsupported=True, CLI --skip-unsupported, to leave them out)")
    omitted.append((what, 0, []))


def _structure_root(items: Blocks, contents: dict | None = None, entities=()):
    from nbtlib import Compound, Int, List, String

    (x0, y0, z0), dims = _bounds(items)
    from scicraft_viz.engine.blocks import split_state, vanilla_state

    palette: dict[str, int] = {}
    pal = List[Compound]()
    blocks = List[Compound]()
    for (x, y, z), state in items:
        v = vanilla_state(state)
        k = palette.get(v)
        if k is None:
            k = palette[v] = len(palette)
            name, props = split_state(v)
            entry = Compound({"Name": String(f"minecraft:{name}")})
            if props:
                entry["Properties"] = Compound({a: String(b) for a, b in props.items()})
            pal.append(entry)
        cell = Compound({"state": Int(k), "pos": List[Int]([Int(x - x0), Int(y - y0), Int(z - z0)])})
        stacks = (contents or {}).get((x, y, z))
        if stacks:
            cell["nbt"] = blockentity.block_entity(state, stacks)
        blocks.append(cell)
    moving = List[Compound]()
    for entity in entities:  # vanilla's entry: pos and blockPos from the structure's origin, the entity's data in nbt
        tag, pos = entity_tag(entity, (x0, y0, z0))
        moving.append(Compound({"pos": tag["Pos"], "blockPos": List[Int]([Int(math.floor(v)) for v in pos]),
                                "nbt": tag}))
    return Compound({"DataVersion": Int(DATA_VERSION), "size": List[Int]([Int(d) for d in dims]), "palette": pal,
                     "blocks": blocks, "entities": moving})


def encode_structure(items: Blocks, contents: dict | None = None, entities=()) -> bytes:
    """A vanilla structure file (.nbt) of the blocks, its origin at the build's lowest corner; containers'
    items (`contents`, {pos: stacks}) in their blocks' `nbt`; minecarts and item entities (`entities`,
    carts.CartSpec and items.ItemSpec) in `entities`, their positions from the origin."""
    return _nbt_bytes(_structure_root(items, contents, entities))


def encode_snbt(items: Blocks, contents: dict | None = None, entities=()) -> bytes:
    """The same structure as text (.snbt), in the packed form Minecraft's game tests use."""
    from nbtlib import List, String, serialize_tag

    root = _structure_root(items, contents, entities)
    packed = []
    for entry in root["palette"]:
        props = entry.get("Properties", {})
        packed.append(String(str(entry["Name"]) + ("{" + ",".join(f"{k}:{v}" for k, v in props.items()) + "}"
                                                   if props else "")))
    for cell in root["blocks"]:
        cell["state"] = packed[int(cell["state"])]
    root["data"] = root.pop("blocks")
    root["palette"] = List[String](packed)
    return (serialize_tag(root, indent=4, compact=False) + "\n").encode("utf-8")


# Blocks that carry block-entity data in a structure the game saves (vanilla keeps it as the block's `nbt`).
def _block_entity_blocks() -> frozenset:
    from scicraft_viz.engine import blocks as B

    return frozenset(("barrel", "chest", "hopper", "dropper", "dispenser", "furnace", "blast_furnace", "smoker",
                      "comparator", "daylight_detector", "moving_piston", "test_block", *B.COMMAND_BLOCKS,
                      *B.SHULKER_BOXES, *B.HEADS, *B.WALL_HEADS))


BLOCK_ENTITY_BLOCKS = _block_entity_blocks()


def placement_order(blocks) -> list[tuple[tuple[int, int, int], str]]:
    """A structure's (position, state) pairs in the order the game writes them when it places the structure
    (StructureTemplate's block list): full blocks, then the others, then those with block-entity data, each group
    by y, then x, then z. Air is left out. The blocks with block-entity data are those the file gives it
    (`blocks.with_data`, a structure's `nbt`), or where the format does not say, those of BLOCK_ENTITY_BLOCKS."""
    from scicraft_viz.engine import blocks as B

    with_data = getattr(blocks, "with_data", None)

    def group(p, state: str) -> int:
        name = B.split_state(state)[0].removeprefix("minecraft:")
        if p in with_data if with_data is not None else name in BLOCK_ENTITY_BLOCKS:
            return 2
        st = B.parse_state(state)
        full = st.id in (B.STONE, B.GLASS, B.REDSTONE_BLOCK, B.LAMP, B.TARGET, B.NOTE_BLOCK, B.OBSERVER) or (
            st.id in (B.PISTON, B.STICKY_PISTON) and st.get("extended") == "false")
        return 0 if full else 1

    return [(p, s) for _, _, p, s in sorted((group(p, s), (p[1], p[0], p[2]), p, s) for p, s in blocks
                                            if s != "minecraft:air")]
