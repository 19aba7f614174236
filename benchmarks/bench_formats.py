"""Build-file speed: reading and writing each format, and refusing hostile files.

    python benchmarks/bench_formats.py

Prints best-of-3 wall times in milliseconds for the 64-lamp reference solutions in each format (and the
ratio to .mcfunction measured in the same run), for the largest schematic region the readers accept,
for refusing a gzip bomb and a 2 GB declared region, and for MCEdit .schematic files (legacy numeric ids
translated by PyMCTranslate): the solutions saved with 1.12 ids, and a board dense with dust, repeaters and
torches whose every state depends on its neighbours."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import nbtlib
from nbtlib import ByteArray, Compound, Int, Short
from timing import best

from scicraft_viz.engine import formats
from scicraft_viz.engine.formats import decode_build, encode_build, read_build
from scicraft_viz.errors import BuildFileError

ROOT = Path(__file__).resolve().parent.parent




def refused(data: bytes, fmt: str) -> None:
    try:
        decode_build(data, fmt)
    except BuildFileError:
        return
    raise AssertionError("not refused")


def main() -> None:
    fmts = ("mcfunction", "litematic", "schem")
    print(f"{'64-lamp solution':<40}{'blocks':>7}" + "".join(f"{f + ' r/w ms':>22}" for f in fmts))
    for path in sorted((ROOT / "tasks" / "solutions").glob("*_L5.mcfunction")):
        items = read_build(path)
        cells = []
        base = None
        for fmt in fmts:
            data = encode_build(items, fmt)
            r = best(lambda data=data, fmt=fmt: decode_build(data, fmt))
            w = best(lambda fmt=fmt, items=items: encode_build(items, fmt))
            base = base or (r, w)
            cells.append(f"{1000 * r:6.1f}/{1000 * w:5.1f} ({r / base[0]:3.1f}x)")
        print(f"{path.stem:<40}{len(items):>7}" + "".join(f"{c:>22}" for c in cells))

    side = round(formats.MAX_VOLUME ** (1 / 3))
    big = [((x, 0, z), "minecraft:stone") for x in range(side) for z in range(side)]
    big += [((0, side - 1, 0), "minecraft:glass"), ((side - 1, side - 1, side - 1), "minecraft:glass")]
    print(f"\nlargest accepted region ({side}^3 = {side ** 3:,} cells, {len(big):,} blocks):")
    for fmt in ("litematic", "schem"):
        data = encode_build(big, fmt)
        r = best(lambda data=data, fmt=fmt: decode_build(data, fmt), n=1)
        w = best(lambda fmt=fmt: encode_build(big, fmt), n=1)
        print(f"  {fmt:<10} read {r:6.2f} s, write {w:6.2f} s, {len(data):,} bytes")

    bomb = gzip.compress(b"\x00" * (64 * 2**20), 1)
    sch = Compound({"Version": Int(3), "DataVersion": Int(3465), "Width": Short(-1), "Height": Short(-1),
                    "Length": Short(-1), "Blocks": Compound({"Palette": Compound({"minecraft:air": Int(0)}),
                                                             "Data": ByteArray([])})})
    buf = io.BytesIO()
    nbtlib.File(Compound({"Schematic": sch})).write(buf)
    huge = gzip.compress(buf.getvalue())
    t = best(lambda: refused(bomb, "schem"))
    print(f"\nrefusing a gzip bomb ({len(bomb):,} bytes -> 64 MiB): {1000 * t:.1f} ms")
    print(f"refusing a declared 65535^3 region: {1000 * best(lambda: refused(huge, 'schem')):.2f} ms")
    legacy_schematics()


def legacy_file(cells: dict, dims) -> bytes:
    import numpy as np

    w, h, l = dims
    ids = np.zeros(w * h * l, np.uint8)
    data = np.zeros(w * h * l, np.uint8)
    for (x, y, z), (i, d) in cells.items():
        ids[(y * l + z) * w + x], data[(y * l + z) * w + x] = i, d
    root = Compound({"Width": Short(w), "Height": Short(h), "Length": Short(l), "Materials": nbtlib.String("Alpha"),
                     "Blocks": ByteArray(ids.view(np.int8)), "Data": ByteArray(data.view(np.int8))})
    buf = io.BytesIO()
    nbtlib.File(root, root_name="Schematic").write(buf)
    return gzip.compress(buf.getvalue())


def legacy_schematics() -> None:
    import time

    import numpy as np

    from scicraft_viz.engine.blocks import split_state, vanilla_state
    from scicraft_viz.engine.legacy import translators

    t = time.perf_counter()
    old, new = translators()  # first: it imports PyMCTranslate without the logging set-up that library does
    import amulet_nbt
    from PyMCTranslate.py3.api import Block
    print(f"\nMCEdit .schematic (legacy ids): loading the translator's tables once: {time.perf_counter() - t:.2f} s")
    for path in sorted((ROOT / "tasks" / "solutions").glob("*_L5.mcfunction")):
        items = read_build(path)
        lo = np.min([p for p, _ in items], axis=0)
        cells = {}
        for p, state in items:  # the solution in 1.12's numeric ids (the translator, run the other way)
            name, props = split_state(vanilla_state(state))
            uni = new.block.to_universal(Block("minecraft", name, {k: amulet_nbt.StringTag(v)
                                                                   for k, v in props.items()}))[0]
            cells[tuple(int(c) for c in np.subtract(p, lo))] = old.block.block_to_ints(old.block.from_universal(uni)[0])
        data = legacy_file(cells, [max(c[i] for c in cells) + 1 for i in range(3)])
        r = best(lambda data=data: decode_build(data, "schematic"))
        print(f"  {path.stem:<38}{len(items):>7} blocks, read {1000 * r:6.1f} ms")
    rng = np.random.default_rng(1)
    cells = {}
    for x in range(64):
        for z in range(64):
            cells[(x, 0, z)] = (1, 0)
            top = [(55, 0), (55, 0), (93, int(rng.integers(16))), (76, 5), (123, 0), (0, 0)]
            cells[(x, 1, z)] = top[rng.integers(6)]
            cells[(x, 2, z)] = [(55, 0), (0, 0), (0, 0)][rng.integers(3)]
    data = legacy_file(cells, (64, 3, 64))
    n = sum(1 for c in cells.values() if c[0])
    r = best(lambda: decode_build(data, "schematic"), n=1)
    print(f"  random 64 x 3 x 64 board of dust, repeaters, torches, lamps: {n:,} blocks, read {r:.2f} s")


if __name__ == "__main__":
    main()
