"""Build files: vanilla `setblock X Y Z STATE` lines (.mcfunction), read and written."""

from __future__ import annotations

from scicraft_viz.engine.blocks import parse_state
from scicraft_viz.errors import BuildFileError, InputError

Pos = tuple[int, int, int]
# Blocks that hang on others go after every free-standing block, so supports exist first.
_ATTACHED = ("redstone_wire", "redstone_repeater", "redstone_torch", "redstone_wall_torch", "stone_button", "lever")
_MODES = ("replace", "destroy", "keep")


def parse_mcfunction(text: str, source: str = "<string>") -> list[tuple[Pos, str]]:
    """Parse setblock lines into (position, canonical state) pairs, in file order.

    `#` comments and blank lines are skipped; a leading `/` and a trailing mode
    (replace/destroy/keep) are accepted. Anything else raises BuildFileError naming source:line."""
    out: list[tuple[Pos, str]] = []
    for num, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}:{num}"
        words = line.lstrip("/").split()
        if not words or words[0] != "setblock":
            raise BuildFileError(f"{where}: expected 'setblock X Y Z STATE', got {line[:80]!r}")
        if len(words) == 6 and words[5] in _MODES:
            words = words[:5]
        if len(words) != 5:
            raise BuildFileError(f"{where}: expected 'setblock X Y Z STATE' (5 words), got {len(words)} words")
        coords = words[1:4]
        if any(c.startswith(("~", "^")) for c in coords):
            raise BuildFileError(f"{where}: relative coordinates (~ or ^) are not supported; use absolute X Y Z")
        try:
            pos = tuple(int(c) for c in coords)
        except ValueError:
            raise BuildFileError(f"{where}: coordinates must be integers, got {' '.join(coords)!r}") from None
        try:
            state = str(parse_state(words[4]))
        except InputError as e:
            raise BuildFileError(f"{where}: {e}") from None
        out.append((pos, state))  # type: ignore[arg-type]
    return out


def _order(item: tuple[Pos, str]) -> int:
    return 1 if item[1].removeprefix("minecraft:").split("[")[0] in _ATTACHED else 0


def to_mcfunction(blocks: dict[Pos, str]) -> str:
    """setblock lines for the given blocks, supports before what they support."""
    items = sorted(blocks.items(), key=lambda kv: (_order(kv), kv[0][1], kv[0]))
    return "".join(f"setblock {x} {y} {z} {s}\n" for (x, y, z), s in items)


def build_world(text: str, replay: bool = False, source: str = "<string>"):
    """A new World holding the blocks of a build file (supports are placed first)."""
    from scicraft_viz.engine.world import World

    items = parse_mcfunction(text, source)
    w = World(replay=replay)
    ordered = sorted(enumerate(items), key=lambda it: (_order(it[1]), it[0]))
    for num, (pos, state) in ordered:
        try:
            w.set_block(pos, state)
        except InputError as e:
            raise BuildFileError(f"{source}: block {num + 1} ({state} at {pos}): {e}") from None
    return w
