"""Run a game test (Minecraft's own test framework, GameTestHelper and GameTestSequence) on the engine.

A test's structure is loaded from tests/data/gametests/ (Bedrock .mcstructure files of Microsoft's
minecraft-gametests, read by the engine's .mcstructure reader). Positions in a test are relative to the
test's structure block, which stands one block below the structure's corner: relative (x, y, z) is the
structure's cell (x, y - 1, z).

Timing follows Java's framework: the structure is placed during a game tick (its pending ticks and block
events cleared, so it loads as a paste does), the test's function runs after the next game tick's level
tick (test tick 0, or `setup_ticks` later), and each later test tick comes after one more game tick. At each
test tick the actions run after a delay come first (`run_after_delay`, pulse_redstone's air), then each
sequence runs its events in order until one must wait:
- then_execute(fn): runs fn; an assertion failing fails the test;
- then_execute_after(n, fn) / then_idle(n): waits until n ticks after the previous event, then as then_execute;
- then_wait(fn): waits until fn passes (any tick);
- then_wait_after(n, fn): waits until fn passes, and fails the test unless that is exactly n ticks after the
  previous event (Java's thenWaitUntil(delay, fn): an exact-tick assertion);
- then_succeed(): the test passes.
A test that has not passed by max_ticks fails (a timeout)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from scicraft_viz import World
from tests.redstone_helpers import parse

DATA = Path(__file__).parent / "data" / "gametests"


class Failed(Exception):
    """The game test failed (an assertion in an action, an event passing at the wrong tick, a timeout)."""


class _Waiting(Exception):
    pass


class GameTest:
    def __init__(self, structure: str, setup_ticks: int = 0, max_ticks: int = 100, without=()):
        """`without`: relative positions left empty, as if the structure had been saved without their blocks."""
        self.w = World.from_build_file(DATA / f"{structure}.mcstructure")
        if without:
            drop = {self.at(rel) for rel in without}
            assert all(self.w.get_block(p) != "minecraft:air" for p in drop), "nothing to leave out"
            self.w = World.from_blocks([(p, s) for p, s in self.w.blocks().items() if p not in drop], replay=True)
        self.w.clear_scheduled()  # as Java's GameTestInfo does once the structure is placed
        self.max_ticks = max_ticks
        self.w.step(1 + setup_ticks)
        self.tick = 0
        self.delayed: list[tuple[int, Callable]] = []
        self.sequences: list[Sequence] = []
        self.succeeded_at: int | None = None

    # ---------------------------------------------------------------------- positions and blocks
    @staticmethod
    def at(rel) -> tuple[int, int, int]:
        x, y, z = rel
        return x, y - 1, z

    def block(self, rel) -> tuple[str, dict]:
        return parse(self.w.get_block(self.at(rel)))

    def name(self, rel) -> str:
        return self.block(rel)[0]

    def prop(self, rel, key: str) -> str:
        return self.block(rel)[1][key]

    def assert_block(self, name: str, rel, present: bool = True) -> None:
        got = self.name(rel)
        assert (got == name) == present, \
            f"tick {self.tick}: {rel} holds {got}, expected {'' if present else 'no '}{name}"

    def assert_prop(self, key: str, value: str, rel) -> None:
        got = self.prop(rel, key)
        assert got == value, f"tick {self.tick}: {rel} {self.name(rel)} has {key}={got}, expected {value}"

    # ---------------------------------------------------------------------- actions (GameTestHelper)
    def set_block(self, rel, state: str) -> None:
        self.w.set_block(self.at(rel), state)

    def pulse_redstone(self, rel, ticks: int) -> None:
        """A redstone block at rel now, and air there `ticks` test ticks later."""
        self.set_block(rel, "redstone_block")
        self.run_after_delay(ticks, lambda: self.set_block(rel, "air"))

    def run_after_delay(self, ticks: int, fn: Callable) -> None:
        self.delayed.append((self.tick + ticks, fn))

    def pull_lever(self, rel) -> None:
        self.assert_block("lever", rel)
        self.w.use(self.at(rel))

    def press_button(self, rel) -> None:
        assert self.name(rel).endswith("_button"), f"{rel} holds {self.name(rel)}, not a button"
        self.w.use(self.at(rel))

    def sequence(self) -> Sequence:
        s = Sequence(self)
        self.sequences.append(s)
        return s

    def succeed_when(self, fn: Callable) -> None:
        self.sequence().then_wait(fn).then_succeed()

    def succeed(self) -> None:
        if self.succeeded_at is None:
            self.succeeded_at = self.tick

    # ---------------------------------------------------------------------- running
    def run(self) -> int:
        """Tick until the test passes; returns the test tick it passed at. Raises Failed."""
        while True:
            due = [d for d in self.delayed if d[0] <= self.tick]
            self.delayed = [d for d in self.delayed if d[0] > self.tick]
            for _, fn in due:
                must(fn, self.tick)
            for s in self.sequences:
                s.tick_and_continue(self.tick)
                if self.succeeded_at is not None:
                    return self.succeeded_at
            if self.tick >= self.max_ticks:
                waiting = "".join(f"; a sequence waits on its event {s.done + 1}: {s.last_error}"
                                  for s in self.sequences if s.events)
                raise Failed(f"timed out after {self.max_ticks} ticks{waiting}")
            self.w.step(1)
            self.tick += 1


def must(fn: Callable, tick: int) -> None:
    try:
        fn()
    except AssertionError as e:
        raise Failed(f"tick {tick}: {e}") from None


class Sequence:
    def __init__(self, test: GameTest):
        self.t = test
        self.events: list[tuple[int | None, Callable]] = []
        self.last = test.tick
        self.done = 0
        self.passed: list[int] = []  # the tick each event passed at
        self.last_error = ""

    def then_execute(self, fn: Callable) -> Sequence:
        self.events.append((None, lambda: must(fn, self.t.tick)))
        return self

    def then_execute_after(self, ticks: int, fn: Callable) -> Sequence:
        def event():
            if self.t.tick < self.last + ticks:
                raise _Waiting(f"waiting until tick {self.last + ticks}")
            must(fn, self.t.tick)
        self.events.append((None, event))
        return self

    def then_idle(self, ticks: int) -> Sequence:
        return self.then_execute_after(ticks, lambda: None)

    def then_wait(self, fn: Callable) -> Sequence:
        self.events.append((None, fn))
        return self

    def then_wait_after(self, ticks: int, fn: Callable) -> Sequence:
        self.events.append((ticks, fn))
        return self

    def then_succeed(self) -> Sequence:
        self.events.append((None, self.t.succeed))
        return self

    def tick_and_continue(self, tick: int) -> None:
        while self.events:
            delay, fn = self.events[0]
            try:
                fn()
            except (AssertionError, _Waiting) as e:
                self.last_error = str(e)
                return
            self.events.pop(0)
            self.done += 1
            self.passed.append(tick)
            last, self.last = self.last, tick
            if delay is not None and tick - last != delay:
                raise Failed(f"event {self.done} passed at tick {tick}, expected exactly tick {last + delay}")
