"""Bedrock Edition structures (`.mcstructure`, what a Bedrock structure block exports): little-endian NBT,
uncompressed, its Bedrock block states translated to Java 1.20 block states by PyMCTranslate (Amulet's
translator: Bedrock 1.17.10's blocks to its universal format, then to Java 1.20.1's block states).

The file holds `format_version` (1), `size` (three Ints) and `structure`, which has `block_indices` (two
layers of one Int per cell: the block, then the block sharing the cell, which is water where a block is
waterlogged; -1 is no block, as a structure void), `palette.default.block_palette` ({name, states, version}
compounds), `palette.default.block_position_data` ({cell index: {block_entity_data: {...}}}: a chest's items,
a comparator's output) and `entities`. Cells run z fastest, then y, then x. Some Bedrock blocks keep no
state that Java keeps (a dust's connections, a piston's `extended`): the translator asks the neighbouring
cells, as Amulet does when it converts a world. Blocks load at their cell coordinates (x, y, z), as a
paste."""

from __future__ import annotations

import functools
import re

import numpy as np

from scicraft_viz.engine import blockentity
from scicraft_viz.engine.blocks import known_properties
from scicraft_viz.engine.formats import MAX_BLOCKS, MAX_PALETTE, Blocks
from scicraft_viz.engine.legacy import TARGET_VERSION, _state_text, translators
from scicraft_viz.engine.schematic import _fail, _get, _resolve, _tag_text, _volume, _yzx, entity_summary
from scicraft_viz.errors import BuildFileError
from scicraft_viz.safeio import shown

SOURCE_VERSION = (1, 17, 10)  # Bedrock: read when the palette names no version (its entries' `version`)
MAX_CACHED_SHAPES = 64  # neighbour-dependent translations kept per palette entry (beyond this, each is worked out)


@functools.cache
def bedrock_translator(version: tuple[int, int, int] = SOURCE_VERSION):
    """PyMCTranslate's Bedrock block translator for `version` (the nearest it has; the Java one comes from
    legacy.translators)."""
    translators()  # loads PyMCTranslate quietly (its logging set up as legacy.py does)
    import PyMCTranslate

    tm = PyMCTranslate.new_translation_manager()
    v = tm.get_version("bedrock", version)
    for name in ("get_mapping_to_universal", "get_mapping_from_universal", "_get_raw_specification"):
        setattr(v.block, name, functools.cache(getattr(v.block, name)))
    return v


def _amulet_value(tag, source: str, where: str):
    """An nbtlib property value as amulet-nbt's (the translator's) tag; a compound, list or array is refused."""
    import amulet_nbt
    from nbtlib import Byte, Int, Short, String

    if isinstance(tag, String):
        return amulet_nbt.StringTag(str(tag))
    if isinstance(tag, Byte):
        return amulet_nbt.ByteTag(int(tag))
    if isinstance(tag, Short):
        return amulet_nbt.ShortTag(int(tag))
    if isinstance(tag, Int):
        return amulet_nbt.IntTag(int(tag))
    raise _fail(source, f"{where} is {_tag_text(tag)}; a block state's value is a String, Byte, Short or Int")


def _palette_block(entry, source: str, where: str):
    """The translator's Bedrock Block for a block_palette entry {name, states, version}."""
    import re

    from nbtlib import Compound, String
    from PyMCTranslate.py3.api import Block

    name = str(_get(entry, "name", String, source, where))
    if not re.fullmatch(r"(?:[a-z0-9_.-]{1,64}:)?[A-Za-z0-9_./-]{1,100}", name):  # Bedrock has camelCase names
        raise _fail(source, f"{where}.name is {shown(name, 80)!r}, which is not a block name like "
                            "'minecraft:redstone_wire'")
    states = _get(entry, "states", Compound, source, where, default=Compound())
    if len(states) > 32:
        raise _fail(source, f"{where}.states has {len(states)} entries; a block state has at most 32")
    props = {}
    for key, value in states.items():
        if not re.fullmatch(r"(?:minecraft:)?[a-z0-9_]{1,64}", key):  # Bedrock 1.20+ names some keys minecraft:…
            raise _fail(source, f"{where}.states has the key {shown(key, 60)!r}; a key is lowercase letters, digits "
                                "and '_', after 'minecraft:' or alone")
        props[key] = _amulet_value(value, source, f"{where}.states.{key}")
    namespace, _, base = name.rpartition(":")
    return Block(namespace or "minecraft", base, props)


def decode_mcstructure(root, source: str, omitted: list | None = None, contents: dict | None = None) -> Blocks:
    """Blocks of a Bedrock .mcstructure at their cell coordinates, as Java 1.20 block states; the items of its
    containers and its comparators' outputs go to `contents` (blockentity.py)."""
    from nbtlib import Compound, Int, List

    w = "root"
    version = _get(root, "format_version", Int, source, w, default=Int(1))
    if int(version) != 1:
        raise _fail(source, f"root.format_version is {int(version)}; only version 1 (every Bedrock release so far) "
                            "can be read")
    size = _get(root, "size", List, source, w)
    if len(size) != 3 or not all(isinstance(v, Int) for v in size):
        raise _fail(source, f"root.size is {_tag_text(size)}; expected a list of 3 Ints")
    dims = [int(v) for v in size]
    sx, sy, sz = dims
    if any(d < 0 for d in dims):
        raise _fail(source, f"root.size is {' x '.join(map(str, dims))}; no side may be negative")
    st = _get(root, "structure", Compound, source, w)
    layers = _get(st, "block_indices", List, source, "root.structure")
    if not 1 <= len(layers) <= 2:
        raise _fail(source, f"root.structure.block_indices has {len(layers)} layers; expected 2 (blocks, then "
                            "waterlogging)")
    volume = 0 if 0 in dims else _volume(dims, source, "the structure")
    arrays = []
    for j, layer in enumerate(layers):
        where = f"root.structure.block_indices[{j}]"
        if not isinstance(layer, List) or (len(layer) and not isinstance(layer[0], Int)):
            raise _fail(source, f"{where} is {_tag_text(layer)}; expected a list of Ints")
        if len(layer) != volume:
            raise _fail(source, f"{where} holds {len(layer):,} cells; the size {' x '.join(map(str, dims))} has "
                                f"{volume:,}")
        arrays.append(np.fromiter((int(v) for v in layer), np.int64, volume))
    pal_root = _get(st, "palette", Compound, source, "root.structure")
    pal = _get(pal_root, "default", Compound, source, "root.structure.palette")
    pw = "root.structure.palette.default"
    entries = _get(pal, "block_palette", List, source, pw)
    if len(entries) > MAX_PALETTE:
        raise _fail(source, f"{pw}.block_palette has {len(entries):,} entries; at most {MAX_PALETTE:,} are allowed")
    for j, a in enumerate(arrays):
        bad = np.flatnonzero((a < -1) | (a >= len(entries)))
        if len(bad):
            f = int(bad[0])
            raise _fail(source, f"root.structure.block_indices[{j}] gives the cell at {_pos(f, sy, sz)} palette index "
                                f"{int(arrays[j][f])}; the palette has {len(entries)} entries (-1 is no block)")
    bedrock = []
    for j, entry in enumerate(entries):
        where = f"{pw}.block_palette[{j}]"
        if not isinstance(entry, Compound):
            raise _fail(source, f"{where} is {_tag_text(entry)}; expected a compound")
        bedrock.append(_palette_block(entry, source, where))
    blocks_layer = arrays[0]
    water_layer = arrays[1] if len(arrays) > 1 else np.full(volume, -1, np.int64)
    nonair = np.flatnonzero((blocks_layer >= 0) | (water_layer >= 0))
    if len(nonair) > MAX_BLOCKS:
        raise _fail(source, f"holds {len(nonair):,} blocks; a build holds at most {MAX_BLOCKS:,}")
    entities = _get(st, "entities", List, source, "root.structure", default=List[Compound]())
    if len(entities):
        named = [Compound({"id": e["identifier"]}) if isinstance(e, Compound) and "identifier" in e else e
                 for e in entities]
        what = entity_summary(named)
        if omitted is None:
            raise _fail(source, f"holds {what}; builds here are blocks only (save the structure without entities, or "
                                "read it with skip_unsupported=True, CLI --skip-unsupported, to leave them out)")
        omitted.append((what, 0, []))
    data_at = _block_data(pal, source, pw, volume, sy, sz)
    try:
        bedrock_v = bedrock_translator(_palette_version(entries))
        _, java = translators()
    except BuildFileError as e:
        raise _fail(source, str(e)) from None

    from PyMCTranslate.py3.api import Block

    air = Block("minecraft", "air", {})

    def cell_block(f: int):
        """The translator's Bedrock block at a cell, waterlogged as the second layer says."""
        b = int(blocks_layer[f])
        wtr = int(water_layer[f])
        if b < 0 and wtr < 0:
            return air
        if b < 0:
            return bedrock[wtr]
        if wtr < 0:
            return bedrock[b]
        return bedrock[b]  # a waterlogged block: the water is its `waterlogged` (see translate)

    def neighbour(f: int, off) -> int | None:
        x, y, z = _pos(f, sy, sz)
        cx, cy, cz = x + off[0], y + off[1], z + off[2]
        if not (0 <= cx < sx and 0 <= cy < sy and 0 <= cz < sz):
            return None
        return (cx * sy + cy) * sz + cz

    def answer(f: int | None) -> tuple[int, int]:
        return (-2, -2) if f is None else (int(blocks_layer[f]), int(water_layer[f]))

    def translate(block, f: int | None, asked: list | None = None, water: bool = False):
        """(Java state text or None when untranslatable, needs neighbours) for a Bedrock block; at cell f the
        translator may ask the neighbouring cells (each question goes to `asked` as (offset, answer))."""
        newer = _newer_block(block)
        if newer is not None:
            return newer, False
        cb = None
        if f is not None:
            def cb(off):
                g = neighbour(f, off)
                if asked is not None:
                    asked.append((tuple(off), answer(g)))
                return (air if g is None else cell_block(g)), None
        try:
            uni, _, extra = bedrock_v.block.to_universal(block, None, get_block_callback=cb)
            if not uni.namespace.startswith("universal_"):
                return None, extra
            out, _, extra2 = java.block.from_universal(uni, None, get_block_callback=cb)
        except BuildFileError:
            raise
        except Exception:  # the translator's own failure on a state it has no rule for: named below, not raised
            return None, False
        if type(out).__name__ != "Block" or out.namespace != "minecraft" or "block_data" in out.properties:
            return None, extra or extra2
        if out.base_name in ("air", "cave_air", "void_air") and block.base_name not in ("air", "structure_void"):
            return None, extra or extra2  # a block Java keeps as an entity (an item frame): named, not dropped
        text = _state_text(out)
        if water:  # the translator leaves `waterlogged` out: it is set where vanilla gives the block one
            props = {k: v for k, v in (kv.split("=") for kv in text.partition("[")[2].rstrip("]").split(",") if kv)}
            props["waterlogged"] = "true"
            wet = f"{text.partition('[')[0]}[{','.join(f'{k}={v}' for k, v in sorted(props.items()))}]"
            if "waterlogged" not in known_properties(wet)[1]:
                text = wet
        return text, extra or extra2

    keys = blocks_layer[nonair] * (len(entries) + 1) + water_layer[nonair]  # (block, water) pairs
    palette: dict[str, int] = {}
    labels: dict[int, str] = {}
    cell = np.zeros(volume, np.int64)
    shapes: dict[int, list] = {}  # key -> [(asked [(offset, answer)], state)] of neighbour-dependent cells

    def assign(cells: np.ndarray, state: str | None, block) -> None:
        if state is None:
            text = f"bedrock {block.namespace}:{block.base_name}" + (
                "[" + ",".join(f"{k}={getattr(v, 'py_data', v)}" for k, v in sorted(block.properties.items())) + "]"
                if block.properties else "")
            k = palette.setdefault(text, len(palette))
            labels[k] = f"no Java {'.'.join(map(str, TARGET_VERSION))} block state for this Bedrock block"
        else:
            k = palette.setdefault(state, len(palette))
        cell[cells] = k

    for key in np.unique(keys).tolist():
        cells = nonair[keys == key]
        block = cell_block(int(cells[0]))
        wtr = int(water_layer[cells[0]])
        water = int(blocks_layer[cells[0]]) >= 0 and wtr >= 0 and bedrock[wtr].base_name in ("water", "flowing_water")
        plain, needs = translate(block, None, water=water)
        if not needs:
            assign(cells, plain, block)
        else:
            known = shapes.setdefault(key, [])
            for f in cells.tolist():
                state = None
                for asked_before, s in known:
                    if all(answer(neighbour(f, off)) == a for off, a in asked_before):
                        state = s
                        break
                else:
                    asked: list = []
                    s, _ = translate(block, f, asked, water)
                    if len(known) < MAX_CACHED_SHAPES:
                        known.append((asked, s))
                    state = s
                assign(np.array([f]), state, block)
        if len(palette) > MAX_PALETTE:
            raise _fail(source, f"translates to more than {MAX_PALETTE:,} distinct block states")
    names = {i: s for s, i in palette.items()}
    idx = cell[nonair]
    counts = dict(zip(*(a.tolist() for a in np.unique(idx, return_counts=True))))
    used = np.array(sorted(counts), np.int64)

    def positions(i: int):
        rows = nonair[idx == i]
        return sorted((_pos(f, sy, sz) for f in rows[:64].tolist()), key=_yzx)[:3], counts[i]

    states = _resolve(names, used, positions, source, omitted, counts.__getitem__, reasons=labels)
    out = [(_pos(f, sy, sz), states[i]) for f, i in zip(nonair.tolist(), idx.tolist()) if states.get(i) is not None]
    out.sort(key=lambda it: _yzx(it[0]))
    if contents is not None:
        found = dict(out)
        contents.update(blockentity.collect(out, {p: d for p, d in data_at.items() if p in found}, source, omitted,
                                            getattr(contents, "outputs", None)))
    return out


def _palette_version(entries) -> tuple[int, int, int]:
    """The Bedrock version the palette's blocks were saved by: the newest of its entries' `version` (an Int whose
    bytes are major, minor, patch, build), else SOURCE_VERSION."""
    from nbtlib import Int

    found = [int(e["version"]) & 0xFFFFFFFF for e in entries if isinstance(e.get("version"), Int)]
    if not found:
        return SOURCE_VERSION
    v = max(found)
    return (v >> 24) & 0xFF, (v >> 16) & 0xFF, (v >> 8) & 0xFF


_COPPER_BULB = re.compile(r"(?:waxed_)?(?:exposed_|weathered_|oxidized_)?copper_bulb")


def _newer_block(block) -> str | None:
    """The Java state of a Bedrock block newer than the translator's Java version, or None for the others: the
    copper bulbs (Bedrock `lit` and `powered_bit`, Java `lit` and `powered`, in 1.21 on both)."""
    if block.namespace != "minecraft" or not _COPPER_BULB.fullmatch(block.base_name):
        return None
    props = block.properties
    if set(props) - {"lit", "powered_bit"}:
        return None

    def flag(key: str) -> str:
        return "true" if int(getattr(props.get(key), "py_data", 0) or 0) else "false"

    return f"minecraft:{block.base_name}[lit={flag('lit')},powered={flag('powered_bit')}]"


def _pos(f: int, sy: int, sz: int) -> tuple[int, int, int]:
    """A cell's (x, y, z) from its index: z runs fastest, then y, then x."""
    return f // (sy * sz), (f // sz) % sy, f % sz


def _block_data(pal, source: str, pw: str, volume: int, sy: int, sz: int) -> dict:
    """The block entities of block_position_data, {pos: (compound in Java's form, where)}: a container's
    Items with Java's keys (Bedrock names an item `Name`, Java `id`), a comparator's OutputSignal as is."""
    from nbtlib import Byte, Compound, List, String

    data = _get(pal, "block_position_data", Compound, source, pw, default=Compound())
    out = {}
    for key, value in data.items():
        where = f"{pw}.block_position_data[{shown(key, 20)!r}]"
        if not key.isdigit() or int(key) >= volume:
            raise _fail(source, f"{where}: the key is not a cell index from 0 to {volume - 1}")
        be = _get(value, "block_entity_data", Compound, source, where, default=Compound())
        if str(be.get("id", "")) == "PistonArm":
            continue  # a piston's progress and arm: Java keeps what it needs of them in the block state
        tag = Compound({k: v for k, v in be.items() if k != "Items"})
        if "Items" in be:
            items = be["Items"]
            if not isinstance(items, List):
                raise _fail(source, f"{where}.block_entity_data.Items is {_tag_text(items)}; expected a list")
            java_items = []
            for i, item in enumerate(items):
                if not isinstance(item, Compound):
                    raise _fail(source, f"{where}.block_entity_data.Items[{i}] is {_tag_text(item)}; expected a "
                                        "compound")
                name = item.get("Name", item.get("id"))
                if isinstance(name, String) and str(name) in ("", "minecraft:air"):
                    continue  # Bedrock lists an empty slot as air
                java_items.append(Compound({"Slot": item.get("Slot", Byte(0)), "id": name if name is not None
                                            else String(""), "Count": item.get("Count", Byte(1))}))
            tag["Items"] = List[Compound](java_items)
        out[_pos(int(key), sy, sz)] = (tag, f"{where}.block_entity_data")
    return out
