"""Timing helpers shared by the benchmark scripts (run as `python benchmarks/NAME.py`)."""

import time


def best(fn, n: int = 3, clock=time.perf_counter) -> float:
    """The smallest time of n calls of fn, by `clock` (wall time unless told otherwise)."""
    out = []
    for _ in range(n):
        t = clock()
        fn()
        out.append(clock() - t)
    return min(out)
