"""Which blocks keep public build files out: read every build file under the given folders, leaving out the
blocks the engine does not know, and count them.

    python benchmarks/bench_unknown_blocks.py FOLDER [FOLDER ...]

Prints how many files load whole, how many only without some blocks, how many are refused for another reason
(size limits, broken files), and the blocks left out most often: in how many files, and how many in all. The
blocks at the top are the ones worth the engine's next rules."""

from __future__ import annotations

import re
import sys
import warnings
from collections import Counter
from pathlib import Path

from scicraft_viz.engine.formats import READ_FORMATS, UnsupportedBlocksWarning, read_build
from scicraft_viz.errors import BuildFileError

_LEFT_OUT = re.compile(r"minecraft:([a-z0-9_]+)(?:\[[^\]]*\])? x(\d+)")


def survey(folders: list[str]) -> tuple[int, int, int, Counter, Counter]:
    whole = partial = failed = 0
    files, blocks = Counter(), Counter()
    paths = sorted(p for f in folders for p in Path(f).rglob("*") if p.suffix.lstrip(".") in READ_FORMATS
                   and p.suffix != ".mca")
    for path in paths:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                read_build(path, skip_unsupported=True)
            except BuildFileError:
                failed += 1
                continue
        names: Counter = Counter()
        for w in caught:
            if issubclass(w.category, UnsupportedBlocksWarning):
                for m in _LEFT_OUT.finditer(str(w.message)):
                    names[m.group(1)] += int(m.group(2))
        if names:
            partial += 1
            files.update(names.keys())
            blocks.update(names)
        else:
            whole += 1
    return whole, partial, failed, files, blocks


def main(folders: list[str]) -> None:
    whole, partial, failed, files, blocks = survey(folders)
    print(f"{whole + partial + failed} build files: {whole} load whole, {partial} only without some blocks, "
          f"{failed} refused for another reason")
    print(f"{'block':36s} {'files':>6s} {'blocks':>8s}")
    for name, n in files.most_common(40):
        print(f"{name:36s} {n:6d} {blocks[name]:8d}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
