"""Run a build holding test blocks as vanilla runs a block-based game test (Java 1.21.5+).

A block-based game test is a structure with exactly one start test block and at least one accept block. Vanilla's
BlockBasedTestInstance, as this module follows it (docs/redstone.md sections 64-66):

- the test starts in the game tick its structure is placed: the start block is triggered (`powered` turns on, its
  six neighbours hear of it), then the test looks at its blocks at once; that look is the test's tick 0;
- from then on the test looks at its blocks once a game tick, after the world's tick (scheduled ticks, block events,
  block entities), at ticks 0 to max_ticks - 1: an accept block triggered since the start passes the test; else a
  fail block triggered since the last look fails it (with the fail block's message); log blocks triggered since the
  last look log their message. Fail and log blocks are reset after each look, accept blocks are not;
- a test still undecided when its tick passes max_ticks fails at tick max_ticks + 1: "Didn't succeed or fail within
  max_ticks ticks";
- a structure without a start block, with two or more, or without an accept block fails at tick 0.

A test block is triggered by a rising edge of neighbour signal (as a lamp hears it: power into it, dust pointing
into it or lying on it), which the engine notes the moment it happens: a pulse that starts and ends between two
looks is seen. "Structure order" (which of two blocks decides first) is vanilla's: x fastest, then y, then z."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine import kernels as sim
from scicraft_viz.errors import InputError, fmt_pos

Pos = tuple[int, int, int]
MAX_TEST_TICKS = 1_000_000  # a longer test is refused: vanilla's own run for days of game time


@dataclass(frozen=True)
class GameTestResult:
    """How a game test ended.

    - `status`: "passed", "failed" or "timed_out";
    - `tick`: the test's tick at which it ended (tick 0 is the tick it started; the world has run that many game
      ticks since);
    - `reason`: vanilla's message (a fail block's message, "Didn't succeed or fail within N ticks", ...);
    - `block`: the accept or fail block that decided it (None for a timeout or a structure without the blocks it
      needs);
    - `log`: every message logged, in order: (tick, position, mode, message): the start block's when it is triggered,
      each log block's at the look that finds it triggered (vanilla prints a log block's message twice, at its
      rising edge and again at that look, in the same tick);
    - `start`: the start block's position (None when there is not exactly one)."""

    status: str
    tick: int
    reason: str
    block: Pos | None
    log: tuple[tuple[int, Pos, str, str], ...]
    start: Pos | None

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def describe(self) -> str:
        where = f" by the {self._mode_at()} block at {fmt_pos(self.block)}" if self.block is not None else ""
        head = f"{self.status.replace('_', ' ')} at tick {self.tick}{where}"
        lines = [head + (f": {self.reason}" if self.reason else "")]
        lines += [f"  tick {t}: {mode} block at {fmt_pos(p)} logs {m!r}" for t, p, mode, m in self.log]
        return "\n".join(lines)

    def _mode_at(self) -> str:
        return "accept" if self.status == "passed" else "fail"


def _test_blocks(world) -> dict[str, list[tuple[Pos, int]]]:
    """The test blocks of each mode, in structure order, with their cells."""
    out: dict[str, list[tuple[Pos, int]]] = {m: [] for m in B.TEST_MODES}
    cells = world.cells_of(B.TEST_BLOCK)
    U = world.g.U
    found = [(tuple(int(v) for v in world.g.P[c]), int(c)) for c in cells]
    for p, c in sorted(found, key=lambda pc: (pc[0][2], pc[0][1], pc[0][0])):
        out[B.TEST_MODES[int(U[c, sim.MODE])]].append((p, c))
    return out


def run_game_test(src, max_ticks: object = 100, *, setup_ticks: object = 0,
                  skip_unsupported: bool = False) -> GameTestResult:
    """Run a block-based game test on `src`: a World (stepped in place, as it stands), or a build file (path or bytes)
    loaded as World.from_build_file loads it, after which its scheduled ticks and block events are cleared as vanilla
    clears them in a test's box (World.clear_scheduled). `max_ticks` and `setup_ticks` are the test instance's
    (vanilla's test instance files give them; the structure does not): the world runs `setup_ticks` game ticks
    before the test starts. Returns a GameTestResult; the module docstring says how vanilla decides it."""
    from scicraft_viz.engine.world import World

    if not isinstance(max_ticks, Integral) or isinstance(max_ticks, bool) or not 1 <= max_ticks <= MAX_TEST_TICKS:
        raise InputError(f"run_game_test: max_ticks must be an integer from 1 to {MAX_TEST_TICKS:,}, got "
                         f"{str(max_ticks)[:40]!r}")
    if not isinstance(setup_ticks, Integral) or isinstance(setup_ticks, bool) or not 0 <= setup_ticks <= MAX_TEST_TICKS:
        raise InputError(f"run_game_test: setup_ticks must be an integer from 0 to {MAX_TEST_TICKS:,}, got "
                         f"{str(setup_ticks)[:40]!r}")
    max_ticks = int(max_ticks)
    if isinstance(src, World):
        world = src
    else:  # placed as vanilla places a test's structure: what the placing scheduled is cleared
        world = World.from_build_file(src, skip_unsupported=skip_unsupported)
        world.clear_scheduled()
    if setup_ticks:
        world.step(int(setup_ticks))
    blocks = _test_blocks(world)
    U = world.g.U
    log: list[tuple[int, Pos, str, str]] = []

    def end(status: str, tick: int, reason: str, block: Pos | None = None, start: Pos | None = None):
        return GameTestResult(status, tick, reason, block, tuple(log), start)

    starts = blocks["start"]
    if not starts:
        return end("failed", 0, "Missing test block: start")
    if len(starts) > 1:
        return end("failed", 0, f"Too many test blocks: start ({len(starts)}, at "
                   f"{', '.join(fmt_pos(p) for p, _ in starts[:4])}{', ...' if len(starts) > 4 else ''})")
    start, sc = starts[0]
    for mode in ("log", "fail", "accept"):  # the structure is fresh: nothing has triggered yet
        for _, c in blocks[mode]:
            U[c, sim.DELAY] = 0
    world._call(world._k.test_start, sc)
    message = world._test_messages.get(start, "")
    if message.strip():
        log.append((0, start, "start", message))
    accepts = blocks["accept"]
    for tick in range(max_ticks):
        if tick:
            world.step(1)
        U = world.g.U
        if not accepts:
            return end("failed", tick, "Missing test block: accept", None, start)
        for p, c in accepts:
            if U[c, sim.DELAY]:
                return end("passed", tick, "", p, start)
        failed = None
        for p, c in blocks["fail"]:
            if U[c, sim.DELAY]:
                U[c, sim.DELAY] = 0
                if failed is None:
                    failed = p
        for p, c in blocks["log"]:
            if U[c, sim.DELAY]:
                U[c, sim.DELAY] = 0
                text = world._test_messages.get(p, "")
                if text.strip():
                    log.append((tick, p, "log", text))
        if failed is not None:
            return end("failed", tick, world._test_messages.get(failed, ""), failed, start)
    world.step(2)
    return end("timed_out", max_ticks + 1, f"Didn't succeed or fail within {max_ticks} ticks", None, start)
