"""A box out of a Java world save: one region file (`r.X.Z.mca`, the Anvil format) read with nbtlib.

A region file holds up to 32 x 32 chunks. Its first 4 KiB give each chunk's place, (x & 31) + (z & 31) * 32:
3 bytes of offset and 1 byte of length, both in 4 KiB sectors (0 and 0: never saved); the next 4 KiB are
timestamps. At a chunk's offset: its length in bytes (4, big-endian, counting the next byte), the
compression (1 gzip, 2 zlib, 3 none; 4 LZ4 and 127 a named custom one are not read here; +128 means the
chunk lives in a separate .mcc file) and the compressed NBT. A chunk saved by 1.18 or later holds
`sections`, each `Y` (its 16-block slice) with `block_states`: a palette of {Name, Properties} and `data`,
4,096 palette indices of max(4, ceil(log2(palette size))) bits packed into longs, low bits first, as many
to a long as fit whole (none spans two longs), y then z then x. Every length, offset and index is checked
before it is used; the blocks load at their world coordinates."""

from __future__ import annotations

import math
import zlib

import numpy as np

from scicraft_viz.engine import blockentity
from scicraft_viz.engine.formats import (
    MAX_BLOCKS,
    MAX_COORD,
    MAX_NBT_BYTES,
    MAX_VOLUME,
    Blocks,
    _mib,
    check_nbt,
    gunzip,
)
from scicraft_viz.engine.schematic import _fail, _get, _palette_state, _refuse_extras, _resolve, _yzx
from scicraft_viz.errors import BuildFileError

Box = tuple[int, int, int, int, int, int]  # x0, y0, z0, x1, y1, z1, both corners included
SECTOR = 4096
MAX_BOX_NBT_BYTES = 256 * 2**20  # all the chunks a box reaches, inflated (a chunk of a real world: ~20-100 KiB)


def check_box(box, source: str = "box") -> Box:
    """Six integers, the two corners of a box (each included), inside the world and at most MAX_VOLUME cells."""
    try:
        values = tuple(box)
    except TypeError:
        raise BuildFileError(f"{source}: expected six integers x0, y0, z0, x1, y1, z1, got {box!r}"[:200]) from None
    if len(values) != 6 or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise BuildFileError(f"{source}: expected six integers x0, y0, z0, x1, y1, z1, got {values!r}"[:200])
    if any(abs(v) > MAX_COORD for v in values):
        raise BuildFileError(f"{source}: {values} reaches outside the Minecraft world (|coordinate| <= {MAX_COORD:,})")
    lo = tuple(min(a, b) for a, b in zip(values[:3], values[3:]))
    hi = tuple(max(a, b) for a, b in zip(values[:3], values[3:]))
    cells = math.prod(h - l + 1 for l, h in zip(lo, hi))
    if cells > MAX_VOLUME:
        raise BuildFileError(f"{source}: the box {lo} to {hi} holds {cells:,} cells; a box may hold at most "
                             f"{MAX_VOLUME:,}")
    return (*lo, *hi)  # type: ignore[return-value]


def parse_box(text: str) -> Box:
    """`x0,y0,z0,x1,y1,z1` (the CLI's --box) as a checked box."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 6 or not all(p.lstrip("-").isdigit() and p.isascii() for p in parts):
        raise BuildFileError(f"--box {text[:80]!r}: expected six integers x0,y0,z0,x1,y1,z1")
    return check_box(tuple(int(p) for p in parts), "--box")


def _inflate(payload: bytes, kind: int, where: str, source: str) -> bytes:
    if kind == 1:
        return bytes(gunzip(payload, f"{source}: {where}"))
    if kind == 3:
        if len(payload) > MAX_NBT_BYTES:
            raise _fail(source, f"{where} is more than {_mib(MAX_NBT_BYTES)} uncompressed")
        return payload
    if kind != 2:
        names = {4: "LZ4", 127: "a custom compression"}
        what = ("stored in a separate .mcc file (the chunk is too large for the region file)" if kind & 128 else
                f"compressed with {names.get(kind, f'unknown method {kind}')}; only gzip (1), zlib (2) and none (3) "
                "are read")
        raise _fail(source, f"{where} is {what}")
    d = zlib.decompressobj()
    try:
        out = d.decompress(payload, MAX_NBT_BYTES + 1)
    except zlib.error as e:
        raise _fail(source, f"{where}: the zlib data is corrupt ({e})") from None
    if len(out) > MAX_NBT_BYTES:
        raise _fail(source, f"{where} decompresses to more than {_mib(MAX_NBT_BYTES)}")
    if not d.eof:
        raise _fail(source, f"{where}: the zlib data is truncated")
    return out


def _chunk(data: bytes, cx: int, cz: int, source: str, inflated: list[int]):
    """The NBT root of chunk (cx, cz), or None when the region file never saved it. `inflated` counts the
    bytes inflated so far for this box (a file of 1,024 small gzip bombs stops at MAX_BOX_NBT_BYTES)."""
    import io

    import nbtlib

    slot = (cx & 31) + (cz & 31) * 32
    entry = data[4 * slot:4 * slot + 4]
    offset, sectors = int.from_bytes(entry[:3], "big"), entry[3]
    where = f"chunk ({cx}, {cz})"
    if offset == 0 and sectors == 0:
        return None
    start = offset * SECTOR
    if offset < 2 or start + 5 > len(data):
        raise _fail(source, f"{where}: its offset, sector {offset}, lies outside the file's {len(data):,} bytes"
                            if offset >= 2 else f"{where}: its offset, sector {offset}, lies in the file's header")
    length = int.from_bytes(data[start:start + 4], "big")
    if length < 1 or start + 4 + length > len(data) or length + 4 > max(sectors, 1) * SECTOR:
        raise _fail(source, f"{where}: its length, {length:,} bytes at byte {start:,}, does not fit its {sectors} "
                            f"sectors and the file's {len(data):,} bytes")
    raw = _inflate(data[start + 5:start + 4 + length], data[start + 4], where, source)
    inflated[0] += len(raw)
    if inflated[0] > MAX_BOX_NBT_BYTES:
        raise _fail(source, f"the chunks the box reaches decompress to more than {_mib(MAX_BOX_NBT_BYTES)} (at "
                            f"{where}); read a smaller box")
    check_nbt(raw, f"{source}: {where}")
    try:
        root = nbtlib.File.parse(io.BytesIO(raw))
    except Exception as e:  # checked above; a library failure on odd data must not reach the user
        raise _fail(source, f"{where}: not valid NBT ({type(e).__name__})") from None
    return root


def decode_region(data: bytes, source: str, box, omitted: list | None = None, contents: dict | None = None) -> Blocks:
    """The blocks of a region file inside `box` (world coordinates, both corners included); the items of
    the containers among them (the chunks' block_entities) go to `contents` (blockentity.py)."""
    from nbtlib import Byte, Compound, Int, List, LongArray

    if box is None:
        raise _fail(source, "a region file holds up to 1,024 chunks of a world; give the box to read (box=(x0, y0, z0, "
                            "x1, y1, z1), CLI --box x0,y0,z0,x1,y1,z1)")
    x0, y0, z0, x1, y1, z1 = check_box(box)
    if len(data) < 2 * SECTOR:
        raise _fail(source, f"not a region file: {len(data):,} bytes, shorter than its 8,192-byte header")
    if (x0 >> 9, z0 >> 9) != (x1 >> 9, z1 >> 9):
        raise _fail(source, f"the box spans region files r.{x0 >> 9}.{z0 >> 9}.mca to r.{x1 >> 9}.{z1 >> 9}.mca; a box "
                            "is read from one region file")
    xs, ys, zs, states = [], [], [], []
    inflated = [0]
    palette: dict[str, int] = {}
    data_at: dict = {}
    ticks: list = []  # the pending block ticks inside the box: refused as a litematic's are (schematic._refuse_extras)
    for cx in range(x0 >> 4, (x1 >> 4) + 1):
        for cz in range(z0 >> 4, (z1 >> 4) + 1):
            root = _chunk(data, cx, cz, source, inflated)
            where = f"chunk ({cx}, {cz})"
            if root is None:
                raise _fail(source, f"{where} was never saved in this region file (the box reaches it)")
            if "Level" in root or "sections" not in root:
                version = root.get("DataVersion")
                raise _fail(source, f"{where} was saved by Minecraft before 1.18 (DataVersion "
                                    f"{int(version) if isinstance(version, Int) else 'missing'}); open the world in "
                                    "1.18 or later and save it first")
            pos = [int(_get(root, k, Int, source, where)) for k in ("xPos", "zPos")]
            if pos != [cx, cz]:
                raise _fail(source, f"{where}: the file's slot for it holds chunk ({pos[0]}, {pos[1]}); the box lies "
                                    "outside this region file, or the file is damaged")
            for i, be in enumerate(_get(root, "block_entities", List, source, where, default=List[Compound]())):
                p = blockentity.position(be, "xyz", source, f"{where}.block_entities[{i}]")
                if x0 <= p[0] <= x1 and y0 <= p[1] <= y1 and z0 <= p[2] <= z1:
                    data_at[p] = (be, f"{where}.block_entities[{i}]")
            for i, t in enumerate(_get(root, "block_ticks", List, source, where, default=List[Compound]())):
                p = blockentity.position(t, "xyz", source, f"{where}.block_ticks[{i}]")
                if x0 <= p[0] <= x1 and y0 <= p[1] <= y1 and z0 <= p[2] <= z1:
                    ticks.append(p)
            for j, sec in enumerate(_get(root, "sections", List, source, where)):
                sw = f"{where}.sections[{j}]"
                sy = int(_get(sec, "Y", Byte, source, sw))
                if sy * 16 > y1 or sy * 16 + 15 < y0 or "block_states" not in sec:
                    continue
                bs = _get(sec, "block_states", Compound, source, sw)
                pal = _get(bs, "palette", List, source, sw + ".block_states")
                if not 1 <= len(pal) <= 4096:
                    raise _fail(source, f"{sw}.block_states.palette has {len(pal):,} entries; expected 1 to 4,096")
                names = [_palette_state(e, f"{sw}.block_states.palette[{k}]", source) for k, e in enumerate(pal)]
                if len(pal) == 1:
                    idx = np.zeros(4096, np.int64)
                else:
                    bits = max(4, math.ceil(math.log2(len(pal))))
                    per = 64 // bits
                    longs = _get(bs, "data", LongArray, source, sw + ".block_states")
                    need = -(-4096 // per)
                    if len(longs) != need:
                        raise _fail(source, f"{sw}.block_states.data holds {len(longs):,} longs; 4,096 entries of "
                                            f"{bits} bits ({len(pal)} palette entries) need {need:,}")
                    words = np.asarray(longs).astype(np.int64).view(np.uint64)
                    k = np.arange(4096)
                    idx = ((words[k // per] >> ((k % per) * bits).astype(np.uint64)) & np.uint64((1 << bits) - 1))
                    idx = idx.astype(np.int64)
                    if idx.max() >= len(pal):
                        f = int(np.argmax(idx >= len(pal)))
                        cell = (cx * 16 + f % 16, sy * 16 + f // 256, cz * 16 + (f // 16) % 16)
                        raise _fail(source, f"{sw}.block_states.data: palette index {int(idx[f])} at {cell} is out "
                                            f"of range (the palette has {len(pal)} entries)")
                k = np.arange(4096)
                wx, wy, wz = cx * 16 + k % 16, sy * 16 + k // 256, cz * 16 + (k // 16) % 16
                inside = (wx >= x0) & (wx <= x1) & (wy >= y0) & (wy <= y1) & (wz >= z0) & (wz <= z1)
                glob = np.array([palette.setdefault(n, len(palette)) for n in names], np.int64)
                xs.append(wx[inside])
                ys.append(wy[inside])
                zs.append(wz[inside])
                states.append(glob[idx[inside]])
    _refuse_extras(source, omitted, **{"pending block ticks (block_ticks)": ticks})
    if not xs:
        return []
    x, y, z, s = (np.concatenate(a) for a in (xs, ys, zs, states))
    names = {i: n for n, i in palette.items()}
    solid = np.array([names[i].split("[")[0].removeprefix("minecraft:") not in ("air", "cave_air", "void_air")
                      for i in range(len(names))], bool)
    keep = solid[s]
    x, y, z, s = x[keep], y[keep], z[keep], s[keep]
    if len(s) > MAX_BLOCKS:
        raise _fail(source, f"the box holds {len(s):,} blocks; a build holds at most {MAX_BLOCKS:,}")
    counts = dict(zip(*(a.tolist() for a in np.unique(s, return_counts=True))))

    def positions(i: int):
        rows = np.flatnonzero(s == i)
        return sorted(((int(x[r]), int(y[r]), int(z[r])) for r in rows[:64]), key=_yzx)[:3], counts[i]

    resolved = _resolve(names, np.array(sorted(counts), np.int64), positions, source, omitted, counts.__getitem__)
    out = [((a, b, c), resolved[i]) for a, b, c, i in zip(x.tolist(), y.tolist(), z.tolist(), s.tolist())
           if resolved.get(i) is not None]
    if contents is not None:
        contents.update(blockentity.collect(out, data_at, source, omitted, getattr(contents, "outputs", None),
                                             getattr(contents, "tests", None), getattr(contents, "commands", None)))
    return sorted(out, key=lambda it: _yzx(it[0]))
