"""Build-file speed: reading and writing each format, and refusing hostile files.

    python benchmarks/bench_formats.py

Prints best-of-3 wall times in milliseconds for the 64-lamp reference solutions in each format (and the
ratio to .mcfunction measured in the same run), for the largest schematic region the readers accept,
and for refusing a gzip bomb and a 2 GB declared region."""

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


if __name__ == "__main__":
    main()
