"""MCEdit/Schematica `.schematic` files: Minecraft's numeric block ids from before 1.13, read with nbtlib and
translated to Java 1.20 block states by PyMCTranslate (Amulet's translator: Minecraft 1.12.2's numeric
blocks to its universal format, then to 1.20.1's block states).

The file holds Width, Height, Length (Shorts), `Blocks` (the low 8 bits of each cell's id), optionally
`AddBlocks` (the high 4 bits, two cells to a byte: an even cell in the low nibble, an odd one in the high)
or Schematica's older `Add` (one byte per cell), `Data` (4 bits of variant per cell), `TileEntities`
(block entity data: a note block's pitch, a bed's colour, a chest's items) and `Entities`; cells run x
fastest, then z, then y. Some blocks had no stored shape before 1.13 (a dust's connections, a door's
other half, a repeater's lock): the translator works them out from the neighbouring cells, as Minecraft's
own upgrade of an old world does. Blocks load at their cell coordinates (x, y, z), as a paste."""

from __future__ import annotations

import functools
import logging

import numpy as np

from scicraft_viz.engine import blockentity
from scicraft_viz.engine.formats import MAX_BLOCKS, MAX_PALETTE, Blocks
from scicraft_viz.engine.schematic import _fail, _get, _resolve, _tag_text, _volume, entity_summary
from scicraft_viz.errors import BuildFileError
from scicraft_viz.safeio import shown

SOURCE_VERSION = (1, 12, 2)  # the last numeric-id version: every .schematic id means what it meant there
TARGET_VERSION = (1, 20, 1)  # the engine follows 1.20's rules


@functools.cache
def translators():
    """PyMCTranslate's 1.12.2 and 1.20.1 block translators, loaded once (about 3 s: every version's tables)."""
    root = logging.getLogger()
    quiet = logging.NullHandler()
    # PyMCTranslate calls logging.basicConfig(level=INFO) on import, which would make every INFO message of
    # the user's process print; with a handler in place that call does nothing.
    added = not root.handlers
    if added:
        root.addHandler(quiet)
    try:
        import PyMCTranslate
    except ImportError as e:  # a declared dependency; an environment built without it still gets a clear refusal
        raise BuildFileError(f"reading MCEdit .schematic files needs PyMCTranslate, which is not installed here "
                             f"({e}); pip install PyMCTranslate") from None
    finally:
        if added:
            root.removeHandler(quiet)
    # a block it cannot translate is logged with a traceback; here it is named in the file's refusal instead
    logging.getLogger("PyMCTranslate").setLevel(logging.CRITICAL)
    tm = PyMCTranslate.new_translation_manager()
    versions = tm.get_version("java", SOURCE_VERSION), tm.get_version("java", TARGET_VERSION)
    # The translator deep-copies a block's whole mapping on every call (a dust's, with its neighbour rules, is
    # large: 30 ms a cell); the mappings are only read, so this manager (ours alone) keeps one copy of each.
    for v in versions:
        for name in ("get_mapping_to_universal", "get_mapping_from_universal", "_get_raw_specification"):
            setattr(v.block, name, functools.cache(getattr(v.block, name)))
    return versions


def _state_text(block) -> str:
    props = ",".join(f"{k}={getattr(v, 'py_str', None) or getattr(v, 'py_data', v)}"
                     for k, v in sorted(block.properties.items()))
    return f"{block.namespace}:{block.base_name}" + (f"[{props}]" if props else "")


def _block_entity(te, source: str, where: str):
    """An nbtlib TileEntity compound as the translator's BlockEntity (its NBT re-read by amulet-nbt)."""
    import io

    import amulet_nbt
    import nbtlib
    from PyMCTranslate.py3.api import BlockEntity

    name = str(te.get("id", ""))
    namespace, _, base = name.rpartition(":")
    buf = io.BytesIO()
    nbtlib.File(te).write(buf)
    try:
        tag = amulet_nbt.load(buf.getvalue(), compressed=False)
    except Exception as e:  # the tree was checked by formats.check_nbt; a library failure must not reach the user
        raise _fail(source, f"{where} cannot be read ({type(e).__name__})") from None
    return BlockEntity(namespace or "minecraft", base, 0, 0, 0, tag)


def decode_mcedit(root, source: str, omitted: list | None = None, contents: dict | None = None) -> Blocks:
    """Blocks of an MCEdit/Schematica .schematic at their cell coordinates, as 1.20 block states; the items of
    its containers go to `contents` (blockentity.py: item ids must be 1.20's, e.g. 'minecraft:redstone')."""
    from nbtlib import ByteArray, Compound, Int, List, Short, String

    w = "root"
    materials = _get(root, "Materials", String, source, w, default=String("Alpha"))
    if str(materials) != "Alpha":
        raise _fail(source, f"root.Materials is {shown(str(materials), 40)!r}; only 'Alpha' (Java Edition's numeric "
                            "ids) can be read")
    dims = [int(_get(root, k, Short, source, w)) & 0xFFFF for k in ("Width", "Height", "Length")]
    width, height, length = dims
    volume = _volume(dims, source, "the schematic")
    blocks = _get(root, "Blocks", ByteArray, source, w)
    data = _get(root, "Data", ByteArray, source, w)
    for key, arr in (("Blocks", blocks), ("Data", data)):
        if len(arr) != volume:
            raise _fail(source, f"root.{key} holds {len(arr):,} bytes; Width x Height x Length is "
                                f"{width} x {height} x {length} = {volume:,}")
    ids = np.asarray(blocks).view(np.uint8).astype(np.int32)
    if "AddBlocks" in root:
        add = np.asarray(_get(root, "AddBlocks", ByteArray, source, w)).view(np.uint8).astype(np.int32)
        if len(add) != (volume + 1) // 2:
            raise _fail(source, f"root.AddBlocks holds {len(add):,} bytes; {volume:,} cells need {(volume + 1) // 2:,} "
                                "(two to a byte)")
        nibbles = np.stack([add & 0x0F, add >> 4], axis=1).reshape(-1)[:volume]  # even cell low, odd cell high
        ids |= nibbles << 8
    elif "Add" in root:
        add = np.asarray(_get(root, "Add", ByteArray, source, w)).view(np.uint8).astype(np.int32)
        if len(add) != volume:
            raise _fail(source, f"root.Add holds {len(add):,} bytes; Width x Height x Length is {volume:,}")
        ids |= (add & 0x0F) << 8
    meta = np.asarray(data).view(np.uint8).astype(np.int32) & 0x0F
    keys = ids * 16 + meta
    mapping = _schematica_mapping(root, source)

    def pos_of(flat: int) -> tuple[int, int, int]:
        return flat % width, flat // (width * length), (flat // width) % length

    nonair = np.flatnonzero(ids != 0)
    if len(nonair) > MAX_BLOCKS:
        raise _fail(source, f"holds {len(nonair):,} blocks; a build holds at most {MAX_BLOCKS:,}")
    entities = _get(root, "Entities", List, source, w, default=List[Compound]())
    if len(entities):
        if omitted is None:
            raise _fail(source, f"holds {entity_summary(entities)}; builds here are blocks only (save the schematic "
                                "without entities, or read it with skip_unsupported=True, CLI --skip-unsupported, to "
                                "leave them out)")
        omitted.append((entity_summary(entities), 0, []))
    tiles: dict[int, Compound] = {}
    data_at: dict = {}
    for i, te in enumerate(_get(root, "TileEntities", List, source, w, default=List[Compound]())):
        where = f"root.TileEntities[{i}]"
        p = [int(_get(te, a, Int, source, where)) for a in "xyz"]
        _get(te, "id", String, source, where)
        if not all(0 <= c < d for c, d in zip(p, dims)):
            raise _fail(source, f"{where} is at {tuple(p)}, outside the schematic's {width} x {height} x {length} "
                                "cells")
        tiles[(p[1] * length + p[2]) * width + p[0]] = te
        data_at[tuple(p)] = (te, where)

    try:
        old, new = translators()
    except BuildFileError as e:
        raise _fail(source, str(e)) from None
    legacy: dict[int, object] = {}  # key -> the translator's 1.12 Block

    def old_block(key: int):
        b = legacy.get(key)
        if b is None:
            b = legacy[key] = _legacy_block(old, key >> 4, key & 15, mapping)
        return b

    def answer(f: int | None) -> int:
        """What a neighbour cell tells the translator, as a number: its key, doubled, plus one when it holds
        block entity data (such answers are never memoised); 0 outside the schematic (air)."""
        return 0 if f is None else int(keys[f]) * 2 + (f in tiles)

    def neighbour(flat: int, off) -> int | None:
        x, y, z = pos_of(flat)
        cx, cy, cz = x + off[0], y + off[1], z + off[2]
        if not (0 <= cx < width and 0 <= cy < height and 0 <= cz < length):
            return None
        return (cy * length + cz) * width + cx

    def translate(key: int, flat: int | None, asked: list | None = None):
        """(state text or None when untranslatable, needs neighbours, 1.20 block entity) for a cell's key;
        flat=None translates without a position (the answer for a block that needs none). Each neighbour
        the translator asks about goes to `asked` as (offset, answer)."""
        be = None
        cb = None
        if flat is not None:
            def cb(off):
                f = neighbour(flat, off)
                if asked is not None:
                    asked.append((tuple(off), answer(f)))
                if f is None:
                    return old_block(0), None
                te = tiles.get(f)
                return old_block(int(keys[f])), (None if te is None else
                                                 _block_entity(te, source, f"root.TileEntities at {pos_of(f)}"))
            te = tiles.get(flat)
            if te is not None:
                be = _block_entity(te, source, f"root.TileEntities at {pos_of(flat)}")
        try:
            uni, ube, extra = old.block.to_universal(old_block(key), be, get_block_callback=cb)
            if not uni.namespace.startswith("universal_"):
                return None, extra, None
            out, obe, extra2 = new.block.from_universal(uni, ube, get_block_callback=cb)
        except BuildFileError:
            raise
        except Exception:  # the translator's own failure on a value it has no rule for: named below, not raised
            return None, False, None
        if type(out).__name__ != "Block" or out.namespace != "minecraft" or "block_data" in out.properties:
            return None, extra or extra2, None  # an entity (an item frame), or a block 1.20 does not have
        return _state_text(out), extra or extra2, obe

    # A cell whose state depends on its neighbours (a dust's connections, a door's other half): the translator
    # asks about neighbours one at a time, each question chosen by the earlier answers, so the questions and
    # answers form a decision tree per key: a cell whose neighbours give answers already seen gets that
    # leaf's state without translating again. A node is [offset asked, {answer: node}]; a leaf is (state,).
    trees: dict[int, list] = {}

    def neighbourly(key: int, flat: int) -> tuple[str | None, object]:
        if flat in tiles:
            state, _, obe = translate(key, flat)
            return state, obe
        node = trees.get(key)
        while node is not None and len(node) == 2:
            node = node[1].get(answer(neighbour(flat, node[0])))
        if node is not None:
            return node[0], None
        asked: list = []
        state, _, obe = translate(key, flat, asked)
        if any(a & 1 for _, a in asked):
            return state, obe  # a neighbour's block entity data took part: not memoised
        if not asked:
            trees.setdefault(key, (state,))
            return state, obe
        node = trees.setdefault(key, [asked[0][0], {}])
        for i, (off, a) in enumerate(asked):
            if len(node) != 2 or node[0] != off:
                return state, obe  # the translator asked differently this time: keep the tree as it was
            nxt = asked[i + 1][0] if i + 1 < len(asked) else None
            node = node[1].setdefault(a, [nxt, {}] if nxt is not None else (state,))
        return state, obe

    palette: dict[str, int] = {}
    labels: dict[int, str] = {}  # palette index -> why it cannot load, for untranslatable keys
    cell = np.zeros(volume, np.int64)
    data_left = 0
    uniq = np.unique(keys[nonair]).tolist()
    for key in uniq:
        plain, needs, _ = translate(key, None)
        cells = nonair[keys[nonair] == key]
        with_te = [f for f in cells.tolist() if f in tiles]
        if not needs and not with_te:
            _assign(palette, labels, cell, cells, plain, key, mapping)
            continue
        for f in cells.tolist():
            if f in tiles or needs:
                # a dust's connections, a door's half: asked of the neighbours, memoised by what was asked
                state, obe = neighbourly(key, f)
                if obe is not None and f in tiles and "Items" not in tiles[f]:
                    data_left += 1  # a container's items are read below
            else:
                state = plain
            _assign(palette, labels, cell, np.array([f]), state, key, mapping)
        if len(palette) > MAX_PALETTE:
            raise _fail(source, f"translates to more than {MAX_PALETTE:,} distinct block states")
    if data_left and omitted is not None:
        omitted.append((f"block entity data on {data_left} blocks", 0, []))
    names = {i: s for s, i in palette.items()}
    flat_cells = nonair
    idx = cell[flat_cells]
    counts = dict(zip(*(a.tolist() for a in np.unique(idx, return_counts=True))))
    used = np.array(sorted(counts), np.int64)

    def positions(i: int):
        rows = flat_cells[idx == i][:3].tolist()
        return [pos_of(f) for f in rows], counts[i]

    states = _resolve(names, used, positions, source, omitted, counts.__getitem__, reasons=labels)
    out = [(pos_of(f), states[i]) for f, i in zip(flat_cells.tolist(), idx.tolist()) if states.get(i) is not None]
    if contents is not None:
        # a container's items are read from the file's own TileEntity (the translator carries no items)
        contents.update(blockentity.collect(out, {p: d for p, d in data_at.items() if "Items" in d[0]}, source,
                                            omitted))
    return out


def _assign(palette: dict, labels: dict, cell: np.ndarray, cells: np.ndarray, state: str | None, key: int,
            mapping: dict[int, str]) -> None:
    """Give `cells` the palette index of `state`; an untranslatable key gets a label naming its legacy id."""
    if state is None:
        name = mapping.get(key >> 4)
        text = f"legacy id {key >> 4}:{key & 15}" + (f" ({name})" if name else "")
        k = palette.setdefault(text, len(palette))
        labels[k] = "no Java 1.20 block state for this id and data value"
    else:
        k = palette.setdefault(state, len(palette))
    cell[cells] = k


def _legacy_block(old, block_id: int, data: int, mapping: dict[int, str]):
    """The translator's 1.12 block for a numeric id and data value; a Schematica file's own id table
    (SchematicaMapping) names the id when it has one."""
    import amulet_nbt
    from PyMCTranslate.py3.api import Block

    name = mapping.get(block_id)
    if name is None:
        return old.block.ints_to_block(block_id, data)
    namespace, _, base = name.rpartition(":")
    return Block(namespace or "minecraft", base, {"block_data": amulet_nbt.IntTag(data)})


def _schematica_mapping(root, source: str) -> dict[int, str]:
    """Schematica's SchematicaMapping {block name: id}, as id -> name (empty when absent)."""
    from nbtlib import Compound, Short

    tag = _get(root, "SchematicaMapping", Compound, source, "root", default=Compound())
    if len(tag) > 4096:
        raise _fail(source, f"root.SchematicaMapping has {len(tag):,} entries; ids run from 0 to 4095")
    out: dict[int, str] = {}
    for name, value in tag.items():
        if not isinstance(value, Short) or not 0 <= int(value) < 4096:
            raise _fail(source, f"root.SchematicaMapping[{shown(name, 60)!r}] is {_tag_text(value)}; expected a Short "
                                "id from 0 to 4095")
        out[int(value)] = str(name)
    return out
