"""Schematic codecs: Litematica (.litematic, through litemapy) and Sponge (.schem v1-v3, NBT through nbtlib).

Decoders take an NBT tree that formats.parse_nbt has already checked for size and shape, validate
what each format requires (declared sizes before allocating, palette indices, entity-free content)
and return (position, canonical state) pairs; encoders write vanilla block ids."""

from __future__ import annotations

import gzip
import io
import math
import re

import numpy as np

from scicraft_viz.engine import blockentity
from scicraft_viz.engine.blocks import (
    MAX_STATE_LENGTH,
    PALETTE,
    SUPPORTED_FAMILIES,
    VANILLA,
    is_known,
    known_properties,
    parse_state,
    split_state,
    vanilla_state,
)
from scicraft_viz.engine.formats import MAX_BLOCKS, MAX_PALETTE, MAX_VOLUME, Blocks, Pos
from scicraft_viz.errors import BuildFileError, InputError, list_positions
from scicraft_viz.safeio import shown

# What a schematic's block state may be made of: an id with an optional namespace, then optional
# [key=value,...]. A key or a value is lowercase letters, digits and '_': a ',', '=' or ']' inside a
# Litematica property value would otherwise add a property of its own once the state is written out.
_ID = re.compile(r"^(?:[a-z0-9_.-]{1,64}:)?[a-z0-9_./-]{1,100}$")
_PROPERTY = re.compile(r"^[a-z0-9_]{1,64}$")
_STATE_CHARS = re.compile(r"^(?:[a-z0-9_.-]+:)?[a-z0-9_./-]+(?:\[[a-z0-9_=,]*\])?$")
MAX_PROPERTIES = 16  # properties of one palette entry (the blocks here have at most 5)

# Minecraft Java 1.20.1; the engine follows 1.20's rules.
DATA_VERSION = 3465
_NAME = "scicraft_viz build"


def _fail(source: str, what: str) -> BuildFileError:
    return BuildFileError(f"{source}: {what}")


def _tag_text(value) -> str:
    """A tag for a message: its type, and its value when that is short."""
    if isinstance(value, str):
        text = repr(str(value))
    elif isinstance(value, bool):
        text = ""
    elif isinstance(value, int):
        text = str(int(value))
    elif isinstance(value, float):
        text = repr(float(value))
    else:
        text = f"of {len(value)} items" if hasattr(value, "__len__") else ""
    return f"{type(value).__name__} {shown(text, 60)}".rstrip()


def _get(tag, key: str, kind, source: str, where: str, default=None):
    """tag[key] checked to be of the NBT type `kind`; a missing key gives `default` unless it is None."""
    import nbtlib

    if not isinstance(tag, nbtlib.Compound):
        raise _fail(source, f"{where} is not a compound")
    if key not in tag:
        if default is not None:
            return default
        raise _fail(source, f"{where}.{key} is missing")
    value = tag[key]
    if not isinstance(value, kind):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise _fail(source, f"{where}.{key} is {type(value).__name__}, expected {names}")
    return value


def sniff(root, source: str) -> str:
    """Which schematic format an NBT root holds (for files without a telling extension)."""
    if "Regions" in root and "MinecraftDataVersion" in root:
        return "litematic"
    if is_mcedit(root):
        return "schematic"
    if "Schematic" in root or "BlockData" in root or "Blocks" in root:
        return "schem"
    if "size" in root and ("palette" in root or "palettes" in root):
        return "nbt"
    raise _fail(source, "an NBT file that is neither a Litematica (.litematic), Sponge (.schem) or MCEdit "
                        "(.schematic) schematic, nor a vanilla structure (.nbt)")


def is_mcedit(root) -> bool:
    """An MCEdit/Schematica .schematic: numeric Blocks and Data arrays, a Materials name, no Sponge Version."""
    return "Materials" in root or ("Blocks" in root and "Data" in root and "Version" not in root
                                   and "Palette" not in root)


def _resolve(palette: dict[int, str], used: np.ndarray, positions, source: str, omitted: list | None = None,
             count=None, reasons: dict[int, str] | None = None) -> dict[int, str | None]:
    """Canonical state for each palette index used (None for air). Blocks the engine does not know are
    refused with one line naming every bad state, where it is and why, and how many blocks would load;
    given a list `omitted` (skip_unsupported), they are left out instead and listed there as
    (state, count, first positions). `count(i)`: how many cells hold palette entry i. `reasons`: entries
    already known not to load (a legacy id with no translation), and why."""
    out: dict[int, str | None] = {}
    bad: list[tuple[int, str]] = []
    ignored: list[tuple[int, list[str]]] = []  # entries read without properties vanilla does not give them
    for i in used.tolist():
        state = palette[i]
        if reasons and i in reasons:
            bad.append((i, reasons[i]))
            continue
        name = split_state(state)[0]
        if name in ("air", "cave_air", "void_air", "structure_void"):
            out[i] = None
            continue
        if len(state) > MAX_STATE_LENGTH or not _STATE_CHARS.match(state):
            bad.append((i, "not a block state of the palette"))  # not worth parsing, or suggesting a name for
            continue
        if not is_known(name):
            bad.append((i, "not in the palette"))
            continue
        state, dropped = known_properties(state)
        try:
            out[i] = str(parse_state(state))
        except InputError as e:
            bad.append((i, str(e)))
            continue
        if dropped:
            ignored.append((i, dropped))
    if ignored and not (bad and omitted is None):
        _note_ignored(palette, ignored, positions, source)
    if bad and omitted is not None:
        for i, _why in bad:
            ps, total = positions(i)
            omitted.append((palette[i], total, ps))
            out[i] = None
        return out
    if bad:
        shown_bad = []
        for i, why in bad[:8]:  # where each shown entry is: only these few are looked up
            ps, total = positions(i)
            shown_bad.append(f"{shown(palette[i], 100)} at {list_positions(ps, len(ps), total)}: {why}")
        more = f"; and {len(bad) - 8} more" if len(bad) > 8 else ""
        loads = ""
        if count is not None:
            n = sum(count(i) for i, s in out.items() if s is not None)
            loads = (f"; the other {n:,} blocks are supported (read with skip_unsupported=True, CLI "
                     "--skip-unsupported, to open them without these)")
        raise _fail(source, f"{len(bad)} block state(s) cannot be imported: " + "; ".join(shown_bad) + more
                    + f" (the palette: {', '.join(sorted(PALETTE))}, and {len(VANILLA)} full, transparent "
                    f"and partial vanilla blocks, {SUPPORTED_FAMILIES})" + loads)
    return out


def _note_ignored(palette: dict, ignored: list, positions, source: str) -> None:
    """The load report of properties left off (a state saved by another version): one IgnoredPropertiesWarning
    naming each state, the keys dropped, its count and first positions."""
    import warnings

    from scicraft_viz.engine.formats import IgnoredPropertiesWarning

    parts = []
    for i, keys in ignored[:8]:
        ps, total = positions(i)
        parts.append(f"{shown(palette[i], 100)} x{total} at {list_positions(ps, len(ps), total)}: "
                     + ", ".join(repr(k) for k in keys))
    more = f"; and {len(ignored) - 8} more" if len(ignored) > 8 else ""
    warnings.warn(IgnoredPropertiesWarning(
        f"{source}: read without properties Minecraft Java 1.20 does not give these blocks (saved by another "
        "version?): " + "; ".join(parts) + more), stacklevel=4)


def entity_summary(entities, at=None) -> str:
    """'N entities (minecraft:minecart x2 at (1, 1, 2), (3, 1, 2); ...)': each kind of entity with its count,
    and where the file puts them when `at(entity)` gives a block position; a value of the wrong type reads
    as 'an unnamed entity' rather than failing."""
    from nbtlib import Compound, String

    kinds: dict[str, list] = {}
    for e in entities:
        name = None
        if isinstance(e, Compound):
            inner = e.get("nbt")
            for tag in (e.get("Id"), e.get("id"), inner.get("id") if isinstance(inner, Compound) else None):
                if isinstance(tag, String):
                    name = shown(str(tag), 60)
                    break
        p = at(e) if at is not None and isinstance(e, Compound) else None
        kinds.setdefault(name or "an unnamed entity", []).append(p)
    parts = []
    for name, ps in sorted(kinds.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:6]:
        known = [p for p in ps if p is not None]
        parts.append(f"{name} x{len(ps)}" + (f" at {list_positions(known, 3, len(ps))}" if known else ""))
    more = f"; and {len(kinds) - 6} more kinds" if len(kinds) > 6 else ""
    return f"{len(entities)} entities ({'; '.join(parts)}{more})"


def read_entity(nbt, pos, origin, where: str, pos_where: str, data_where: str, source: str):
    """The item entity (items.ItemSpec), minecart (carts.CartSpec) or fireball (fireballs.FireballSpec) an entity's
    data holds at `pos` (a list of 3 Doubles) from `origin`, or None for an entity the engine does not model; a field
    of the wrong kind raises BuildFileError naming it."""
    from scicraft_viz.engine import carts, fireballs, items

    def fail(message: str) -> BuildFileError:
        return _fail(source, message)

    for family in (items, carts, fireballs):
        got = family.from_data(nbt, pos, origin, where, pos_where, data_where, source, fail)
        if got is not None:
            return got
    return None


def entity_tag(entity, origin):
    """An entity's data (carts.to_nbt, items.to_nbt, fireballs.to_nbt) with its `Pos` counted from `origin`, and that
    position."""
    from scicraft_viz.engine import carts, fireballs, items

    pos = tuple(v - o for v, o in zip(entity.pos, origin))
    family = carts if isinstance(entity, carts.CartSpec) else fireballs if isinstance(
        entity, fireballs.FireballSpec) else items
    return family.to_nbt(entity, pos), pos


def _read_entities(entities, origin, where: str, source: str, wanted: list | None, data_key: str | None = None):
    """The entities of a list the engine models go to `wanted` (in order); the others are returned. `data_key`: the
    key of each entry's data (Sponge version 3's Data), else the entry itself; a Sponge entry's `Id` names it."""
    from nbtlib import Compound, List

    if wanted is None:
        return entities
    others = List[Compound]()
    for j, e in enumerate(entities):
        w = f"{where}[{j}]"
        data, data_where = e, w
        if isinstance(e, Compound) and "Id" in e and "id" not in e:  # a Sponge entity: its id beside its data
            data = e.get(data_key) if data_key is not None else e
            data = Compound({**data, "id": e["Id"]}) if isinstance(data, Compound) else Compound({"id": e["Id"]})
            data_where = f"{w}.{data_key}" if data_key is not None else w
        got = read_entity(data, e.get("Pos") if isinstance(e, Compound) else None, origin, w, "Pos", data_where,
                          source)
        if got is None:
            others.append(e)
        else:
            wanted.append(got)
    return others


def _refuse_extras(source: str, omitted: list | None = None, **lists) -> None:
    """Entities, block entities and pending ticks have no place in the engine: refused, never dropped
    unless the caller asked to skip what is unsupported (then listed in `omitted`)."""
    found = [entity_summary(v) if k == "entities" else f"{len(v)} {k if ' ' in k else k.replace('_', ' ')}"
             for k, v in lists.items() if v is not None and len(v)]
    if found and omitted is not None:
        omitted.extend((what, 0, []) for what in found)
    elif found:
        raise _fail(source, f"holds {', '.join(found)}; builds here are blocks only (save the schematic "
                            "without entities, from an idle circuit, or read it with skip_unsupported=True, CLI "
                            "--skip-unsupported, to leave them out)")


def _volume(dims, source: str, where: str) -> int:
    if any(d <= 0 for d in dims):
        raise _fail(source, f"{where} has size {' x '.join(map(str, dims))}; every side must be at least 1")
    v = math.prod(dims)
    if v > MAX_VOLUME:
        raise _fail(source, f"{where} declares {' x '.join(map(str, dims))} = {v:,} cells; a schematic may hold at "
                            f"most {MAX_VOLUME:,} cells")
    return v


def _count_blocks(n: int, source: str) -> None:
    if n > MAX_BLOCKS:
        raise _fail(source, f"holds {n:,} blocks; a build holds at most {MAX_BLOCKS:,}")


# ------------------------------------------------------------------------------------------ sponge
def decode_varints(data: np.ndarray, count: int, source: str, where: str) -> np.ndarray:
    """`count` unsigned varints from a byte array (vectorised; at most 5 bytes each)."""
    b = data.astype(np.uint8, copy=False)
    if len(b) == count and (count == 0 or b.max() < 0x80):  # one byte each: a palette of at most 128 entries
        return b.astype(np.int64)
    ends = np.flatnonzero(b < 0x80)
    if len(b) and (len(ends) == 0 or ends[-1] != len(b) - 1):
        raise _fail(source, f"{where} ends in the middle of a varint (truncated)")
    if len(ends) != count:
        raise _fail(source, f"{where} holds {len(ends):,} entries; Width x Height x Length is {count:,}")
    if count == 0:
        return np.zeros(0, np.int64)
    starts = np.concatenate(([0], ends[:-1] + 1))
    lengths = ends - starts + 1
    if lengths.max() > 5:
        raise _fail(source, f"{where} holds a varint longer than 5 bytes")
    k = np.arange(len(b)) - np.repeat(starts, lengths)
    parts = (b & 0x7F).astype(np.int64) << (7 * k)
    return np.add.reduceat(parts, starts)


def encode_varints(values: np.ndarray) -> bytes:
    if len(values) == 0 or values.max() < 0x80:
        return values.astype(np.uint8).tobytes()
    out = bytearray()
    for v in values.tolist():
        while v >= 0x80:
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        out.append(v)
    return bytes(out)


def decode_sponge(root, source: str, omitted: list | None = None, contents: dict | None = None) -> Blocks:
    """Blocks of a Sponge schematic (v1, v2 or v3) at Offset + (x, y, z); the items of its containers go
    to `contents` (blockentity.py)."""
    from nbtlib import ByteArray, Compound, Int, IntArray, List, Short

    sch = root["Schematic"] if isinstance(root.get("Schematic"), Compound) else root
    w = "Schematic"
    version = int(_get(sch, "Version", Int, source, w))
    if version not in (1, 2, 3):
        raise _fail(source, f"Sponge schematic version {version} is not supported (versions 1, 2 and 3 are)")
    dims = [int(_get(sch, k, Short, source, w)) & 0xFFFF for k in ("Width", "Height", "Length")]
    width, height, length = dims
    volume = _volume(dims, source, "the schematic")
    offset = _get(sch, "Offset", IntArray, source, w, default=IntArray([0, 0, 0]))
    if len(offset) != 3:
        raise _fail(source, f"Schematic.Offset has {len(offset)} values, expected 3")
    ox, oy, oz = (int(v) for v in offset)
    none = List[Compound]()
    entities = _get(sch, "Entities", List, source, w, default=none)  # every field is type-checked before use
    # an entity's Pos counts from the schematic's lowest corner, as its cells do
    entities = _read_entities(entities, (ox, oy, oz), "Schematic.Entities", source,
                              getattr(contents, "entities", None), "Data" if version == 3 else None)
    if version == 3:
        container = _get(sch, "Blocks", Compound, source, w, default=Compound())
        if not container:
            _refuse_extras(source, omitted, entities=entities)
            return []
        cw = "Schematic.Blocks"
        palette_tag = _get(container, "Palette", Compound, source, cw)
        data = _get(container, "Data", ByteArray, source, cw)
        block_entities = _get(container, "BlockEntities", List, source, cw, default=none)
        where_data = "Schematic.Blocks.Data"
    else:
        palette_tag = _get(sch, "Palette", Compound, source, w)
        data = _get(sch, "BlockData", ByteArray, source, w)
        block_entities = _get(sch, "BlockEntities", List, source, w, default=none)
        if not block_entities:
            block_entities = _get(sch, "TileEntities", List, source, w, default=none)
        where_data = "Schematic.BlockData"
    _refuse_extras(source, omitted, entities=entities)
    if len(palette_tag) > MAX_PALETTE:
        raise _fail(source, f"the palette has {len(palette_tag):,} entries; at most {MAX_PALETTE:,} are allowed")
    palette: dict[int, str] = {}
    for state, idx in palette_tag.items():
        if not isinstance(idx, Int) or not 0 <= int(idx) < 2**31:
            raise _fail(source, f"{w if version < 3 else 'Schematic.Blocks'}.Palette[{shown(state, 80)!r}] is "
                                f"{_tag_text(idx)}; expected an Int >= 0")
        if int(idx) in palette:
            raise _fail(source, f"palette index {int(idx)} is given to both {palette[int(idx)][:80]!r} and "
                                f"{state[:80]!r}")
        palette[int(idx)] = str(state)
    indices = decode_varints(np.asarray(data), volume, source, where_data)

    def pos_of(flat: np.ndarray) -> np.ndarray:
        x = flat % width
        z = (flat // width) % length
        y = flat // (width * length)
        return np.stack([x + ox, y + oy, z + oz], axis=1)

    # Each cell's palette slot in one vectorised pass (no sort of the cells), so that refusing a file
    # costs what reading it costs, however many of its entries are bad.
    keys = np.array(sorted(palette), dtype=np.int64)
    slot = np.minimum(np.searchsorted(keys, indices), max(len(keys) - 1, 0))
    known = keys[slot] == indices if len(keys) else np.zeros(len(indices), bool)
    if not known.all():
        f = int(np.argmin(known))
        i = int(indices[f])
        p = tuple(int(c) for c in pos_of(np.array([f]))[0])
        raise _fail(source, f"palette index {i} at {p} is out of range: the palette has no entry {i} "
                            f"(it has {len(palette)} entries{', ' + str(sorted(palette)[:8]) if palette else ''})")
    counts = np.bincount(slot, minlength=len(keys))
    used = keys[counts > 0]
    count_of = dict(zip(keys.tolist(), counts.tolist()))

    def positions(i: int):  # asked for the few entries a message shows
        flat = np.flatnonzero(indices == i)[:3]
        return [tuple(int(c) for c in row) for row in pos_of(flat)], count_of[i]

    states = _resolve(palette, used, positions, source, omitted, count_of.__getitem__)
    solid_slot = np.array([states.get(k) is not None for k in keys.tolist()], dtype=bool)
    flat = np.flatnonzero(solid_slot[slot]) if len(keys) else np.zeros(0, np.int64)
    _count_blocks(len(flat), source)
    out = [((int(x), int(y), int(z)), states[int(i)]) for (x, y, z), i in zip(pos_of(flat), indices[flat])]
    data_at: dict = {}
    be_key = "Schematic.Blocks.BlockEntities" if version == 3 else "Schematic.BlockEntities"
    for j, be in enumerate(block_entities):
        where = f"{be_key}[{j}]"
        x, y, z = blockentity.position(be, "Pos", source, where)
        if not (0 <= x < width and 0 <= y < height and 0 <= z < length):
            raise _fail(source, f"{where}.Pos {(x, y, z)} lies outside the schematic's {width} x {height} x {length} "
                                "cells")
        # version 3 nests the block's data under Data; versions 1 and 2 keep it beside Pos and Id
        data_at[(x + ox, y + oy, z + oz)] = ((be["Data"], where + ".Data") if version == 3 and "Data" in be
                                             else (be, where))
    if contents is not None:
        contents.update(blockentity.collect(out, data_at, source, omitted, getattr(contents, "outputs", None),
                                             getattr(contents, "tests", None), getattr(contents, "commands", None)))
    return out


def _bounds(items: Blocks) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    if not items:
        return (0, 0, 0), (1, 1, 1)
    ps = np.array([p for p, _ in items], dtype=np.int64)
    lo = ps.min(axis=0)
    dims = ps.max(axis=0) - lo + 1
    v = math.prod(int(d) for d in dims)
    if v > MAX_VOLUME:
        raise BuildFileError(f"the build spans {' x '.join(str(int(d)) for d in dims)} = {v:,} cells; a schematic may "
                             f"hold at most {MAX_VOLUME:,} cells (a .mcfunction file has no such limit)")
    return tuple(int(c) for c in lo), tuple(int(d) for d in dims)  # type: ignore[return-value]


def _nbt_bytes(root, root_name: str = "") -> bytes:
    import nbtlib

    buf = io.BytesIO()
    nbtlib.File(root, root_name=root_name).write(buf)
    return gzip.compress(buf.getvalue(), mtime=0)


def encode_sponge(items: Blocks, version: int = 3, contents: dict | None = None, entities=()) -> bytes:
    """A Sponge schematic of the blocks: Offset is the build's lowest corner, so pasting at 0 0 0
    puts every block back at its own coordinates. Version 3 (WorldEdit 7.3+) unless version=2. The items
    of containers (`contents`, {pos: stacks}) go in BlockEntities; minecarts and item entities (`entities`,
    carts.CartSpec and items.ItemSpec) in Entities, each with its Pos from the lowest corner, its Id, and its data
    under Data (version 3) or beside them (version 2)."""
    from nbtlib import ByteArray, Compound, Int, IntArray, List, Short

    if version not in (2, 3):
        raise BuildFileError(f"Sponge schematic version {version} cannot be written (choose 2 or 3)")
    (x0, y0, z0), (width, height, length) = _bounds(items)
    palette = {"minecraft:air": 0}
    indices = np.zeros(width * height * length, dtype=np.int64)
    for (x, y, z), state in items:
        v = vanilla_state(state)
        indices[(x - x0) + (z - z0) * width + (y - y0) * width * length] = palette.setdefault(v, len(palette))
    data = ByteArray(np.frombuffer(encode_varints(indices), dtype=np.int8))
    pal = Compound({k: Int(v) for k, v in palette.items()})

    def short(v: int) -> Short:
        return Short(v - 65536 if v >= 32768 else v)

    sch = Compound({
        "Version": Int(version), "DataVersion": Int(DATA_VERSION),
        "Metadata": Compound({"Name": _name_tag()}),
        "Width": short(width), "Height": short(height), "Length": short(length),
        "Offset": IntArray([x0, y0, z0]),
    })
    states = dict(items)
    entities_be = List[Compound]()
    for (x, y, z), stacks in sorted((contents or {}).items(), key=lambda it: _yzx(it[0])):
        pos = IntArray([x - x0, y - y0, z - z0])
        be = blockentity.block_entity(states[(x, y, z)], stacks)
        if version == 3:  # the block's data under Data, its id beside it
            entities_be.append(Compound({"Pos": pos, "Id": be.pop("id"), "Data": be}))
        else:
            entities_be.append(Compound({"Pos": pos, "Id": be.pop("id"), **be}))
    moving = List[Compound]()
    for entity in entities:
        tag, _ = entity_tag(entity, (x0, y0, z0))
        pos = tag.pop("Pos")
        name = tag.pop("id")
        moving.append(Compound({"Pos": pos, "Id": name, "Data": tag} if version == 3 else {"Pos": pos, "Id": name,
                                                                                            **tag}))
    if moving:
        sch["Entities"] = moving
    if version == 3:
        sch["Blocks"] = Compound({"Palette": pal, "Data": data, "BlockEntities": entities_be})
        return _nbt_bytes(Compound({"Schematic": sch}))
    sch.update({"PaletteMax": Int(len(palette)), "Palette": pal, "BlockData": data, "BlockEntities": entities_be})
    return _nbt_bytes(sch, "Schematic")


def _name_tag():
    from nbtlib import String

    return String(_NAME)


# --------------------------------------------------------------------------------------- litematic
def _unpack_bits(longs: np.ndarray, count: int, nbits: int) -> np.ndarray:
    """Litematica's packed indices: `nbits` per entry, low bits first, entries may span two longs."""
    words = longs.astype(np.int64).view(np.uint64)
    bit = np.arange(count, dtype=np.uint64) * np.uint64(nbits)
    w = (bit >> np.uint64(6)).astype(np.int64)
    off = bit & np.uint64(63)
    lo = words[w] >> off
    spill = off + np.uint64(nbits) > np.uint64(64)
    nxt = words[np.minimum(w + 1, len(words) - 1)]
    hi = np.where(spill, nxt << ((np.uint64(64) - off) & np.uint64(63)), np.uint64(0))
    return ((lo | hi) & np.uint64((1 << nbits) - 1)).astype(np.int64)


def _litematic_regions(root, source: str, omitted: list | None = None,
                       entities: list | None = None) -> list[tuple[str, Pos, Pos, np.ndarray, list, list]]:
    """Each region's name, position, signed size, palette indices (x fastest, then z, then y), palette and
    block entities, after checking what litemapy would otherwise allocate or index blindly. Its minecarts and item
    entities go to `entities` when given (read_entity; an entity's Pos counts from the region's Position, as
    Litematica saves it)."""
    from nbtlib import Compound, Int, List, LongArray

    _get(root, "MinecraftDataVersion", Int, source, "root")
    _get(root, "Version", Int, source, "root")
    meta = _get(root, "Metadata", Compound, source, "root")
    _get(meta, "EnclosingSize", Compound, source, "Metadata")
    regions = _get(root, "Regions", Compound, source, "root")
    total = 0
    out = []
    for name, reg in regions.items():
        where = f"Regions.{shown(name, 40)}"
        if not isinstance(reg, Compound):
            raise _fail(source, f"{where} is not a compound")
        pos = _get(reg, "Position", Compound, source, where)
        size = _get(reg, "Size", Compound, source, where)
        origin = tuple(int(_get(pos, a, Int, source, where + ".Position")) for a in "xyz")
        signed = tuple(int(_get(size, a, Int, source, where + ".Size")) for a in "xyz")
        if 0 in signed:
            raise _fail(source, f"{where} has size {' x '.join(map(str, signed))}; no side may be 0")
        dims = [abs(d) for d in signed]
        total += _volume(dims, source, f"region {shown(name, 40)!r}")
        if total > MAX_VOLUME:
            raise _fail(source, f"its regions declare {total:,} cells; a schematic may hold at most {MAX_VOLUME:,}")
        pal = _get(reg, "BlockStatePalette", List, source, where)
        if not 1 <= len(pal) <= MAX_PALETTE:
            raise _fail(source, f"{where}.BlockStatePalette has {len(pal)} entries; expected 1 to {MAX_PALETTE}")
        names = [_palette_state(entry, f"{where}.BlockStatePalette[{j}]", source) for j, entry in enumerate(pal)]
        extras = {}
        for key in ("Entities", "TileEntities", "PendingBlockTicks", "PendingFluidTicks"):
            extras[key] = _get(reg, key, List, source, where, default=List[Compound]())
        extras["Entities"] = _read_entities(extras["Entities"], origin, f"{where}.Entities", source, entities)
        # pending ticks would have to run at their recorded times, which the engine cannot take from a file
        _refuse_extras(source, omitted, entities=extras["Entities"], **{
            "pending block ticks (PendingBlockTicks)": extras["PendingBlockTicks"],
            "pending fluid ticks (PendingFluidTicks)": extras["PendingFluidTicks"]})
        states = _get(reg, "BlockStates", LongArray, source, where)
        volume = math.prod(dims)
        nbits = max(math.ceil(math.log2(len(pal))), 2)
        expected = math.ceil(volume * nbits / 64)
        if len(states) != expected:
            raise _fail(source, f"{where}.BlockStates holds {len(states):,} longs; a {' x '.join(map(str, dims))} "
                                f"region with {len(pal)} palette entries needs {expected:,}")
        idx = _unpack_bits(np.asarray(states), volume, nbits)
        if volume and idx.max() >= len(pal):
            f = int(np.flatnonzero(idx >= len(pal))[0])
            wx, wl = dims[0], dims[2]
            cell = (f % wx, f // (wx * wl), (f // wx) % wl)
            raise _fail(source, f"palette index {int(idx[f])} at cell {cell} of region {shown(name, 40)!r} is out of "
                                f"range (the palette has {len(pal)} entries)")
        out.append((str(name), origin, signed, idx, names, extras["TileEntities"]))
    return out


def _palette_state(entry, where: str, source: str) -> str:
    """The block state a Litematica palette entry stands for, `name[key=value,...]`. Every part is checked
    before it is joined: a value such as "west,delay=4" would otherwise smuggle in a property."""
    from nbtlib import Compound, String

    name = str(_get(entry, "Name", String, source, where))
    if not _ID.match(name):
        raise _fail(source, f"{where}.Name is {shown(name, 80)!r}, which is not a block id")
    props = _get(entry, "Properties", Compound, source, where, default=Compound())
    if len(props) > MAX_PROPERTIES:
        raise _fail(source, f"{where}.Properties has {len(props)} entries; a block has at most {MAX_PROPERTIES}")
    parts = []
    for key, value in props.items():
        if not _PROPERTY.match(key):
            raise _fail(source, f"{where}.Properties has the key {shown(key, 60)!r}; a property name is lowercase "
                                "letters, digits and '_'")
        if not isinstance(value, String):
            raise _fail(source, f"{where}.Properties.{key} is {_tag_text(value)}, expected String")
        if not _PROPERTY.match(str(value)):
            raise _fail(source, f"{where}.Properties.{key} is {shown(str(value), 60)!r}; a property value is lowercase "
                                "letters, digits and '_' (no ',', '=' or ']')")
        parts.append(f"{key}={value}")
    return name + (f"[{','.join(parts)}]" if parts else "")


def decode_litematic(root, source: str, omitted: list | None = None, contents: dict | None = None) -> Blocks:
    """Blocks of a Litematica schematic, at region position + cell (the schematic's own coordinates).

    Palette entries are checked and joined here (each name, key and value on its own); the packed cells
    are unpacked with numpy (litemapy's own reader walks every cell in Python, 40x slower on a full-size
    region; tests compare the two)."""
    found: dict[Pos, str] = {}
    data_at: dict = {}
    regions = _litematic_regions(root, source, omitted, getattr(contents, "entities", None))
    for name, (px, py, pz), (sx, sy, sz), idx, states, tiles in regions:
        solid = [j for j, st in enumerate(states) if split_state(st)[0] not in ("air", "cave_air", "void_air")]
        flat = np.flatnonzero(np.isin(idx, solid))
        _count_blocks(len(found) + len(flat), source)
        wx, wl = abs(sx), abs(sz)
        # cells count from the region's position towards its size; a negative size extends the other way
        xs = px + flat % wx + (sx + 1 if sx < 0 else 0)
        zs = pz + (flat // wx) % wl + (sz + 1 if sz < 0 else 0)
        ys = py + flat // (wx * wl) + (sy + 1 if sy < 0 else 0)
        for x, y, z, j in zip(xs.tolist(), ys.tolist(), zs.tolist(), idx[flat].tolist()):
            state = states[j]
            if found.setdefault((x, y, z), state) != state:
                raise _fail(source, f"two regions put different blocks at ({x}, {y}, {z}): {found[(x, y, z)][:80]} "
                                    f"and {state[:80]}")
        # a block entity's x, y, z count from the region's lowest corner, as its cells do
        for j, te in enumerate(tiles):
            where = f"Regions.{shown(name, 40)}.TileEntities[{j}]"
            x, y, z = blockentity.position(te, "xyz", source, where)
            if not (0 <= x < abs(sx) and 0 <= y < abs(sy) and 0 <= z < abs(sz)):
                raise _fail(source, f"{where} is at {(x, y, z)}, outside its region's "
                                    f"{abs(sx)} x {abs(sy)} x {abs(sz)} cells")
            data_at[(px + x + (sx + 1 if sx < 0 else 0), py + y + (sy + 1 if sy < 0 else 0),
                     pz + z + (sz + 1 if sz < 0 else 0))] = (te, where)
    cells: dict[str, list[Pos]] = {}
    for p, state in found.items():
        cells.setdefault(state, []).append(p)
    names = list(cells)
    resolved = _resolve(dict(enumerate(names)), np.arange(len(names)),
                        lambda i: (sorted(cells[names[i]], key=_yzx)[:3], len(cells[names[i]])), source, omitted,
                        lambda i: len(cells[names[i]]))
    canon = {n: resolved[i] for i, n in enumerate(names)}
    out = sorted(((p, canon[s]) for p, s in found.items() if canon[s] is not None),
                 key=lambda it: _yzx(it[0]))  # type: ignore[misc]
    if contents is not None:
        contents.update(blockentity.collect(out, data_at, source, omitted, getattr(contents, "outputs", None),
                                             getattr(contents, "tests", None), getattr(contents, "commands", None)))
    return out


def _yzx(p: Pos) -> tuple[int, int, int]:
    return p[1], p[2], p[0]


def encode_litematic(items: Blocks, contents: dict | None = None, entities=()) -> bytes:
    """A one-region Litematica schematic of the blocks, its region at the build's lowest corner; the items
    of containers (`contents`, {pos: stacks}) go in its TileEntities, minecarts and item entities (`entities`,
    carts.CartSpec and items.ItemSpec) in its Entities, each Pos counted from the region's Position."""
    import litemapy

    (x0, y0, z0), (width, height, length) = _bounds(items)
    region = litemapy.Region(x0, y0, z0, width, height, length)
    cache: dict[str, litemapy.BlockState] = {}
    for (x, y, z), state in items:
        b = cache.get(state)
        if b is None:
            name, props = split_state(vanilla_state(state))
            b = cache[state] = litemapy.BlockState(f"minecraft:{name}", **props)
        region[x - x0, y - y0, z - z0] = b
    states = dict(items)
    for (x, y, z), stacks in sorted((contents or {}).items(), key=lambda it: _yzx(it[0])):
        from nbtlib import Int

        region.tile_entities.append(litemapy.TileEntity(blockentity.block_entity(
            states[(x, y, z)], stacks, x=Int(x - x0), y=Int(y - y0), z=Int(z - z0))))
    for entity in entities:
        region.entities.append(litemapy.Entity(entity_tag(entity, (x0, y0, z0))[0]))
    schem = region.as_schematic(name=_NAME, author="scicraft_viz", mc_version=DATA_VERSION)
    return _nbt_bytes(schem.to_nbt(save_soft=True))
