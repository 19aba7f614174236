"""Build files: vanilla `setblock X Y Z STATE` lines (.mcfunction), read and written.

Reading is as strict as Minecraft: lines end at \\n (or \\r\\n) only, words are separated by spaces
or tabs, coordinates are ASCII `-?[0-9]+` (no `+3`, no `1_0`, no other scripts' digits)."""

from __future__ import annotations

import functools
import re

import numpy as np

from scicraft_viz.engine.blocks import is_attached, parse_state, vanilla_state
from scicraft_viz.engine.formats import MAX_BLOCKS, MAX_COORD
from scicraft_viz.errors import BuildFileError, InputError

Pos = tuple[int, int, int]
_MODES = ("replace", "destroy", "keep")
_INT = re.compile(r"-?[0-9]+")
_WORDS = re.compile(r"[ \t]+")
_PRINTABLE = re.compile(r"[^\t\x20-\x7e]")


# A setblock line as nearly every build file writes it, read with one regex match; any other line
# (comments, odd spacing, a BOM, errors) goes through `_parse_line`, which also words the errors.
_FAST = re.compile(r"[ \t]*/?setblock[ \t]+(-[0-9]{1,8}|[0-9]{1,9})[ \t]+(-[0-9]{1,8}|[0-9]{1,9})"
                   r"[ \t]+(-[0-9]{1,8}|[0-9]{1,9})[ \t]+([!-~]+)(?:[ \t]+(?:replace|destroy|keep))?[ \t]*\r?")
# Every line of a text, one match each (lines end at \n only, as str.split("\n") cuts them): the four
# groups of _FAST when it matches the whole line, else the line itself in `other`.
_LINES = re.compile(r"^(?:" + _FAST.pattern + r"|(?P<other>.*))$", re.M)


@functools.lru_cache(maxsize=4096)
def _canonical(word: str) -> str:
    """The canonical state for a state word; cached, since a build repeats a handful of them."""
    return str(parse_state(word))


def parse_mcfunction(text: str, source: str = "<string>", max_blocks: int = MAX_BLOCKS,
                     omitted: dict | None = None, block_entities: dict | None = None) -> list[tuple[Pos, str]]:
    """Parse setblock lines into (position, canonical state) pairs, in file order.

    `#` comments and blank lines are skipped; a leading `/` and a trailing mode
    (replace/destroy/keep) are accepted. Anything else raises BuildFileError naming source:line,
    as does a file with more than `max_blocks` setblock lines (checked as they are read). Given a dict
    `omitted`, a well-formed setblock line of a block the engine does not know is left out instead and
    noted there ({state word: [positions]}). Given a dict `block_entities`, a command block's data written
    after its state (`setblock X Y Z command_block[...]{Command: "say hi", auto: 1b}`) is read into it
    ({pos: fields}, engine/commands.py); block-entity data of any other block is refused."""
    from scicraft_viz.engine.blocks import is_known, split_state

    out: list[tuple[Pos, str]] = []
    lo, hi = -MAX_COORD, MAX_COORD
    for num, m in enumerate(_LINES.finditer(text), start=1):
        x, y, z, word, line = m.groups()
        if line is None and "{" in word:
            line = m.group()  # block-entity data: _parse_line reads it
        elif line is None:
            if len(out) < max_blocks:
                x, y, z = int(x), int(y), int(z)
                if lo <= x <= hi and lo <= y <= hi and lo <= z <= hi:
                    try:
                        out.append(((x, y, z), _canonical(word)))
                        continue
                    except InputError:
                        if omitted is not None and not is_known(split_state(word)[0]):
                            omitted.setdefault(word, []).append((x, y, z))
                            continue
                        # otherwise _parse_line words the error
            line = m.group()
        elif line[:1] == "#":  # comments (the usual ones start the line) are skipped unread
            continue
        item = _parse_line(line, num, source, len(out), max_blocks, block_entities)
        if item is not None:
            out.append(item)
    return out


def read_setblocks(text: str, source: str = "<string>",
                   max_blocks: int = MAX_BLOCKS) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """parse_mcfunction's result as arrays: positions (n, 3) int64, and for each line the index of its
    block in a list of distinct canonical states. Same lines accepted, same errors raised.

    Plain setblock files are read by a compiled scanner; anything it does not take (a BOM, an odd
    line, an error to word) goes through parse_mcfunction."""
    from scicraft_viz.engine.kernels import JIT
    from scicraft_viz.engine.setblock_scan import scan_setblocks

    # uncompiled (SCICRAFT_NOJIT=1), a byte loop in Python is slower than the regular expressions
    got = scan_setblocks(text, MAX_COORD, max_blocks) if JIT else None
    if got is not None:
        xyz, wid, words = got
        try:
            canon = [_canonical(w) for w in words]
        except InputError:  # parse_mcfunction words the error
            got = None
    if got is None:
        items = parse_mcfunction(text, source, max_blocks)
        xyz = np.array([p for p, _ in items], np.int64).reshape(-1, 3)
        canon, wid = [s for _, s in items], np.arange(len(items))
    states: dict[str, int] = {}
    merged = [states.setdefault(s, len(states)) for s in canon]  # `stone` and `minecraft:stone` are one state
    if len(states) < len(canon):
        wid = np.array(merged, np.int64)[wid]
    return xyz, wid, list(states)


def _parse_line(line: str, num: int, source: str, count: int, max_blocks: int,
                block_entities: dict | None = None) -> tuple[Pos, str] | None:
    """One line of a build file: its block, None for a blank or comment line; BuildFileError otherwise.
    `count` blocks were read before it; a command block's data goes to `block_entities` (parse_mcfunction)."""
    line = line.removesuffix("\r")
    if num == 1:
        line = line.removeprefix("\ufeff")
    line = line.strip(" \t")
    if not line or line.startswith("#"):
        return None
    where = f"{source}:{num}"
    bad = _PRINTABLE.search(line)
    if bad:
        ch = bad.group()
        raise BuildFileError(f"{where}: unexpected character {ch!r} (U+{ord(ch):04X}) at column {bad.start() + 1}; "
                             "setblock lines are printable ASCII, one per line")
    tag_text = None
    if "{" in line:  # a command block's data: {...} right after its state, then perhaps a mode
        line, _, rest = line.partition("{")
        tag_text = "{" + rest
        last = tag_text.rstrip(" \t").rsplit(" ", 1)
        if len(last) == 2 and last[1] in _MODES:
            tag_text = last[0]
    words = _WORDS.split(line.removeprefix("/"))
    if not words or words[0] != "setblock":
        raise BuildFileError(f"{where}: expected 'setblock X Y Z STATE', got {line[:80]!r}")
    if len(words) == 6 and words[5] in _MODES:
        words = words[:5]
    if len(words) != 5:
        raise BuildFileError(f"{where}: expected 'setblock X Y Z STATE' (5 words), got {len(words)} words")
    coords = words[1:4]
    if any(c.startswith(("~", "^")) for c in coords):
        raise BuildFileError(f"{where}: relative coordinates (~ or ^) are not supported; use absolute X Y Z")
    for c in coords:
        if not _INT.fullmatch(c):
            raise BuildFileError(f"{where}: coordinates must be integers (digits 0-9 with an optional leading "
                                 f"'-'), got {c[:20]!r}")
        if len(c) > 9 or abs(int(c)) > MAX_COORD:
            raise BuildFileError(f"{where}: coordinate {c[:20]} is outside the world (|coordinate| <= "
                                 f"{MAX_COORD:,})")
    if count >= max_blocks:
        raise BuildFileError(f"{where}: more than {max_blocks:,} setblock lines; a build holds at most "
                             f"{max_blocks:,} blocks")
    try:
        state = _canonical(words[4])
    except InputError as e:
        raise BuildFileError(f"{where}: {e}") from None
    pos = (int(coords[0]), int(coords[1]), int(coords[2]))
    if tag_text is not None:
        _read_block_entity(tag_text, state, pos, where, block_entities)
    return pos, state


def _read_block_entity(tag_text: str, state: str, pos: Pos, where: str, block_entities: dict | None) -> None:
    from nbtlib import parse_nbt

    from scicraft_viz.engine.blocks import COMMAND_BLOCKS, split_state
    from scicraft_viz.engine.commands import command_block_data

    if block_entities is None or split_state(state)[0] not in COMMAND_BLOCKS:
        raise BuildFileError(f"{where}: block-entity data ({{...}}) is read only for command blocks, in build files")
    try:
        tag = parse_nbt(tag_text)
    except Exception as e:  # nbtlib's parse errors are of several kinds
        raise BuildFileError(f"{where}: cannot read the command block's data: {str(e)[:120]}") from None
    block_entities[pos] = command_block_data(tag, where, "its data", pos)


def _order(item: tuple[Pos, str]) -> int:
    """Blocks that hang on others go after every free-standing block, so supports exist first."""
    return 1 if is_attached(item[1]) else 0


def to_mcfunction(blocks: dict[Pos, str], entities: dict | None = None) -> str:
    """setblock lines for the given blocks with vanilla ids, supports before what they support; a command
    block's data (`entities`, {pos: nbtlib compound}) follows its state as vanilla's /setblock takes it."""
    items = sorted(blocks.items(), key=lambda kv: (_order(kv), kv[0][1], kv[0]))
    tags = {p: t.snbt() for p, t in (entities or {}).items()}
    return "".join(f"setblock {x} {y} {z} {vanilla_state(s)}{tags.get((x, y, z), '')}\n" for (x, y, z), s in items)


def world_from_blocks(items, replay: bool = False, source: str = "<string>", paste: bool = False):
    """A new World holding the given (pos, state) pairs (supports are placed first). `paste`: the blocks are a
    schematic's or structure's, pasted as saved: the fences, walls and panes among them keep their sides (replay
    alone follows /setblock, whose shape updates reach them)."""
    from scicraft_viz.engine.kernels import M_PASTE
    from scicraft_viz.engine.world import World

    w = World(replay=replay)
    ordered = sorted(enumerate(items), key=lambda it: (_order(it[1]), it[0]))
    w.g.meta[M_PASTE] = int(paste)
    try:
        for num, (pos, state) in ordered:
            try:
                w.set_block(pos, state)
            except InputError as e:
                raise BuildFileError(f"{source}: block {num + 1} ({state} at {pos}): {e}") from None
    finally:
        w.g.meta[M_PASTE] = 0
    return w


def build_world(text: str, replay: bool = False, source: str = "<string>"):
    """A new World holding the blocks of a build file's text (supports are placed first)."""
    return world_from_blocks(parse_mcfunction(text, source), replay=replay, source=source)
