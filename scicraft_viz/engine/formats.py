"""Build files in every format: one reader (`read_build`) and one writer (`write_build`).

Formats: `mcfunction` (vanilla `setblock X Y Z STATE` lines), `litematic` (Litematica), `schem`
(Sponge schematic v1-v3, as WorldEdit writes them), `nbt` (a vanilla structure block's file) and `snbt`
(a structure as text, as Minecraft's game tests keep them) are read and written; MCEdit/Schematica's
`.schematic` (numeric block ids of Minecraft before 1.13, translated by PyMCTranslate: see legacy.py) and
Bedrock Edition's `.mcstructure` (little-endian NBT, Bedrock block states translated by PyMCTranslate: see
mcstructure.py) are read only (see SCHEMATIC_UNSUPPORTED, MCSTRUCTURE_UNSUPPORTED). A build is a list of
(position, canonical state) pairs; what goes to Minecraft is written with vanilla ids (`minecraft:repeater`).

Every input is untrusted: only regular files are read, and each limit below is checked before the
memory it guards is allocated (the file size before reading, the decompressed size while inflating,
the tag count and the declared region size before building anything)."""

from __future__ import annotations

import io
import os
import re
import warnings
import zlib
from collections.abc import Iterable
from pathlib import Path

from scicraft_viz.errors import BuildFileError, InputError

Pos = tuple[int, int, int]
Blocks = list[tuple[Pos, str]]

FORMATS = ("mcfunction", "litematic", "schem", "nbt", "snbt")  # read and written
# MCEdit .schematic, a world's region file and a Bedrock structure are read only
READ_FORMATS = (*FORMATS, "schematic", "mca", "mcstructure")
EXTENSIONS = {".mcfunction": "mcfunction", ".txt": "mcfunction", ".litematic": "litematic", ".schem": "schem",
              ".nbt": "nbt", ".snbt": "snbt", ".schematic": "schematic", ".mca": "mca", ".mcstructure": "mcstructure"}
GZIPPED = ("litematic", "schem", "nbt", "schematic")
SCHEMATIC_UNSUPPORTED = (
    "MCEdit/Schematica .schematic files are read but not written: they hold Minecraft's numeric block ids, "
    "which 1.13 replaced with block states; write .schem, .litematic or a structure .nbt instead")
MCSTRUCTURE_UNSUPPORTED = (
    "Bedrock .mcstructure files are read but not written: the engine follows Java Edition's blocks and rules; "
    "write .schem, .litematic or a structure .nbt instead")


class Build(list):
    """A build as decoded: (position, canonical state) pairs, and `contents`, the items of the containers
    among them as the file's block entities give them ({pos: ((item id, count), ...)}, filled slots in slot
    order)."""

    def __init__(self, items=(), contents: dict | None = None, outputs: dict | None = None,
                 entities: list | None = None, tests: dict | None = None, commands: dict | None = None,
                 with_data: set | None = None):
        super().__init__(items)
        # the positions whose block the file gives block-entity data (a structure's `nbt`), or None where the
        # format does not say
        self.with_data = None if with_data is None else set(with_data)
        self.contents = dict(contents or {})
        # each comparator's OutputSignal as the file's block entities give it, {pos: 0-15}
        self.outputs = dict(outputs or {})
        # the file's item entities (items.ItemSpec), minecarts (carts.CartSpec) and fireballs
        # (fireballs.FireballSpec), in the file's order
        self.entities = list(entities or [])
        # each test block's block-entity data as the file gives it, {pos: (message, powered)}
        self.tests = dict(tests or {})
        # each command block's block-entity data as the file gives it, {pos: fields} (commands.command_block_data)
        self.commands = dict(commands or {})


class _Collected(dict):
    """The containers' contents a decoder fills, and beside them the comparators' outputs."""

    def __init__(self):
        super().__init__()
        self.outputs: dict = {}
        self.entities: list = []
        self.tests: dict = {}
        self.commands: dict = {}
        self.with_data: set | None = None


class UnsupportedBlocksWarning(UserWarning):
    """Blocks, entities or block entity data a build file holds that were left out on request
    (skip_unsupported=True); the message lists each with its count and first positions."""



class IgnoredPropertiesWarning(UserWarning):
    """Block properties a build file gives a block that Java 1.20 does not give it (a state saved by another
    version): the blocks load without them, and the message lists each state with the keys left off, its
    count and first positions."""


MAX_FILE_BYTES = 16 * 2**20  # on disk, checked before reading
MAX_REGION_BYTES = 64 * 2**20  # a world's region file (.mca): up to 1,024 chunks, each read only if the box needs it
MAX_NBT_BYTES = 16 * 2**20  # a schematic once decompressed (stops gzip bombs)
MAX_NBT_TAGS = 200_000  # NBT values in one file (a list of 10M bytes would cost gigabytes as objects)
MAX_NBT_DEPTH = 64  # nesting of NBT lists and compounds
MAX_SNBT_BYTES = 4 * 2**20  # an SNBT text (its parser takes about a second per MiB)
MAX_BLOCKS = 100_000  # non-air blocks in one build (setblock lines, or schematic cells)
MAX_VOLUME = 2**21  # cells of a schematic's declared region(s), e.g. 128 x 128 x 128
MAX_PALETTE = 4096  # entries of a schematic palette
MAX_COORD = 30_000_000  # Minecraft's world border

GZIP_MAGIC = b"\x1f\x8b"


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB"


# ------------------------------------------------------------------------------------------- files
def read_file_bytes(path: str | os.PathLike, limit: int = MAX_FILE_BYTES, *,
                    within: str | os.PathLike | None = None) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; anything else raises BuildFileError.

    Read through `safeio` (the one rule for files): opened without blocking and checked on the open
    descriptor, so a FIFO, a device (/dev/zero) or a file swapped in after a check never blocks or
    streams forever. Given `within` (the folder a command walked), a link out of it is refused."""
    from scicraft_viz.safeio import UnsafeFile, read_regular, shown

    try:
        return read_regular(path, limit, "build file", within=within)
    except UnsafeFile as e:
        name = shown(os.fspath(path))
        message = {
            "missing": f"build file {name} does not exist",
            "directory": f"{name} is a directory, not a build file",
            "special": f"{name} is not a regular file (a device, FIFO or socket); give a build file",
            "too_large": (f"{name} is {e.size:,} bytes; build files may be at most {_mib(limit)}" if e.size is not None
                          else f"{name} is more than {_mib(limit)}; build files may be at most {_mib(limit)}"),
        }.get(e.reason, str(e))
        raise BuildFileError(message) from None


def gunzip(data: bytes, source: str, limit: int = MAX_NBT_BYTES) -> bytearray:
    """Inflate a gzip stream, refusing more than `limit` bytes of output before producing them."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = bytearray()  # grown in steps of 1 MiB, so a bomb costs at most the limit
    pending = data
    try:
        while not d.eof:
            chunk = d.decompress(pending, 2**20)
            pending = d.unconsumed_tail
            out += chunk
            if len(out) > limit:
                raise BuildFileError(f"{source}: decompresses to more than {_mib(limit)}; schematics may be at most "
                                     f"{_mib(limit)} uncompressed")
            if not chunk and not pending:
                break
    except zlib.error as e:
        raise BuildFileError(f"{source}: the gzip data is corrupt ({e})") from None
    if not d.eof:
        raise BuildFileError(f"{source}: the gzip data is truncated (it ends before the end of the stream)")
    if d.unused_data.strip(b"\x00"):
        raise BuildFileError(f"{source}: {len(d.unused_data)} bytes of unexpected data after the gzip stream")
    return out


# --------------------------------------------------------------------------------------------- NBT
# Value sizes of the fixed-size NBT tags (byte, short, int, long, float, double) and the item sizes of
# the arrays (byte, int, long arrays).
_FIXED = {1: 1, 2: 2, 3: 4, 4: 8, 5: 4, 6: 8}
_ARRAY = {7: 1, 11: 4, 12: 8}
_MIN_SIZE = {**_FIXED, 7: 4, 8: 2, 9: 5, 10: 1, 11: 4, 12: 4}


def check_nbt(buf: bytes | bytearray, source: str, byteorder: str = "big") -> None:
    """Walk an uncompressed NBT file without building it and raise BuildFileError unless it is one
    complete compound whose every length fits the data, within the tag and nesting limits.

    The NBT library trusts lengths (a truncated file reads as zeros), so this runs first. Bedrock writes its
    numbers little-endian (byteorder="little")."""
    n = len(buf)
    pos = 0
    tags = 0

    def fail(what: str) -> BuildFileError:
        return BuildFileError(f"{source}: not a valid NBT file: {what} (at byte {pos} of {n})")

    def take(k: int) -> int:
        nonlocal pos
        if k < 0 or pos + k > n:
            raise fail("the data is truncated")
        start = pos
        pos += k
        return start

    def u16() -> int:
        return int.from_bytes(buf[take(2):pos], byteorder)  # type: ignore[arg-type]

    def i32() -> int:
        return int.from_bytes(buf[take(4):pos], byteorder, signed=True)  # type: ignore[arg-type]

    if n == 0:
        raise fail("the file is empty")
    if buf[0] != 10:
        raise fail(f"the root tag has type {buf[0]}, expected a compound (10)")
    take(1)
    take(u16())
    stack: list[list[int]] = [[10, 0]]  # [10, 0] is a compound; [9, item type, items left] is a list
    while stack:
        if len(stack) > MAX_NBT_DEPTH:
            raise fail(f"tags nested more than {MAX_NBT_DEPTH} deep")
        top = stack[-1]
        if top[0] == 10:
            kind = buf[take(1)]
            if kind == 0:
                stack.pop()
                continue
            take(u16())
        else:
            if top[2] == 0:
                stack.pop()
                continue
            kind = top[1]
            if kind in _FIXED:  # a list of numbers: skip them all at once
                tags += top[2]
                if tags > MAX_NBT_TAGS:
                    raise fail(f"more than {MAX_NBT_TAGS:,} values")
                take(top[2] * _FIXED[kind])
                top[2] = 0
                continue
            top[2] -= 1
        tags += 1
        if tags > MAX_NBT_TAGS:
            raise fail(f"more than {MAX_NBT_TAGS:,} values")
        if kind in _FIXED:
            take(_FIXED[kind])
        elif kind in _ARRAY:
            count = i32()
            if count < 0:
                raise fail(f"an array of negative length {count}")
            take(count * _ARRAY[kind])
        elif kind == 8:
            take(u16())
        elif kind == 9:
            item = buf[take(1)]
            count = i32()
            if item > 12 or count < 0 or (item == 0 and count > 0):
                raise fail(f"a list of {count} items of tag type {item}")
            if count and count * _MIN_SIZE[item] > n - pos:
                raise fail(f"a list declares {count:,} items but only {n - pos:,} bytes remain")
            stack.append([9, item, count])
        elif kind == 10:
            stack.append([10, 0])
        else:
            raise fail(f"unknown tag type {kind}")
    if pos != n:
        raise fail(f"{n - pos} bytes of unexpected data after the root compound")


def parse_nbt(data: bytes, source: str):
    """An nbtlib File from gzip-compressed NBT bytes, after the checks above."""
    import nbtlib

    raw = gunzip(data, source)
    check_nbt(raw, source)
    try:
        return nbtlib.File.parse(io.BytesIO(raw))
    except Exception as e:  # checked above; a library failure on odd data must not reach the user
        raise BuildFileError(f"{source}: not a valid NBT file ({type(e).__name__}: {str(e)[:120]})") from None


def parse_bedrock_nbt(data: bytes, source: str):
    """An nbtlib File from a Bedrock file's uncompressed little-endian NBT, after the checks above."""
    import nbtlib

    if len(data) > MAX_NBT_BYTES:
        raise BuildFileError(f"{source} is {len(data):,} bytes; Bedrock structures may be at most "
                             f"{_mib(MAX_NBT_BYTES)}")
    if data[:2] == GZIP_MAGIC:
        raise BuildFileError(f"{source}: starts with gzip's magic bytes; a Bedrock .mcstructure is uncompressed "
                             "little-endian NBT (a Java structure .nbt?)")
    check_nbt(data, source, "little")
    try:
        return nbtlib.File.parse(io.BytesIO(data), byteorder="little")
    except Exception as e:  # checked above; a library failure on odd data must not reach the user
        raise BuildFileError(f"{source}: not a valid NBT file ({type(e).__name__}: {str(e)[:120]})") from None


# ------------------------------------------------------------------------------------ reading
def detect_format(data: bytes, name: str = "") -> str | None:
    """The format named by the extension, checked against the file's first bytes; None for a
    gzip-compressed file with an unknown extension (told apart after decompression)."""
    ext = EXTENSIONS.get(Path(name).suffix.lower())
    gz = data[:2] == GZIP_MAGIC
    if ext == "mcfunction" and gz:
        raise BuildFileError(f"{name}: starts with gzip's magic bytes (a schematic?), not setblock text")
    if ext == "snbt" and gz:
        raise BuildFileError(f"{name}: starts with gzip's magic bytes (a binary structure .nbt?), not SNBT text")
    if ext == "mcstructure" and gz:
        raise BuildFileError(f"{name}: starts with gzip's magic bytes; a Bedrock .mcstructure is uncompressed "
                             "little-endian NBT (a Java structure .nbt?)")
    if ext in GZIPPED and not gz:
        found = "the file is empty" if not data else f"it starts with {data[:8]!r}"
        raise BuildFileError(f"{name}: not a .{ext} file: expected gzip-compressed NBT (bytes 1f 8b), {found}")
    if ext:
        return ext
    if data[:3] == b"\x0a\x00\x00" and b"format_version" in data[:32]:  # Bedrock's little-endian root compound
        return "mcstructure"
    return None if gz else "mcfunction"


def build_text(data: bytes, fmt: str | None = None, source: str = "<bytes>") -> str | None:
    """The setblock text of a build file given as bytes, or None when it is a schematic (format by
    `fmt`, else by `source`'s extension and the magic bytes). Raises BuildFileError for an oversized
    file or text that is not UTF-8."""
    if fmt is not None and fmt not in READ_FORMATS:
        raise BuildFileError(f"unknown build format {fmt!r}; choose one of {', '.join(READ_FORMATS)}")
    if fmt is None:
        fmt = detect_format(data, source)
    limit = MAX_REGION_BYTES if fmt == "mca" else MAX_FILE_BYTES
    if len(data) > limit:
        raise BuildFileError(f"{source} is {len(data):,} bytes; {'region' if fmt == 'mca' else 'build'} files may be "
                             f"at most {_mib(limit)}")
    if fmt != "mcfunction":
        return None
    if data[:2] == GZIP_MAGIC:
        raise BuildFileError(f"{source}: starts with gzip's magic bytes (a schematic?), not setblock text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BuildFileError(f"cannot read {source}: not UTF-8 text (byte {e.start} is 0x{data[e.start]:02x})") \
            from None


def decode_build(data: bytes, fmt: str | None = None, source: str = "<bytes>", *,
                 skip_unsupported: bool = False, box=None) -> Build:
    """The blocks of a build file given as bytes (format by `fmt`, else by `source`'s extension and
    the magic bytes), with the items its containers hold (Build.contents). With skip_unsupported, blocks
    the engine does not know (and entities) are left out and listed in an UnsupportedBlocksWarning,
    instead of refusing the file. `box` (x0, y0, z0, x1,
    y1, z1, corners included) selects what to read from a world's region file (.mca), and only there."""
    if fmt is None:
        fmt = detect_format(data, source)
    text = build_text(data, fmt, source)
    omitted: list | None = [] if skip_unsupported else None
    contents = _Collected()
    if box is not None and fmt != "mca":
        raise BuildFileError(f"{source}: a box selects blocks from a world's region file (.mca); this is a {fmt} file")
    if fmt == "mca":
        from scicraft_viz.engine.region import decode_region

        out = decode_region(data, source, box, omitted, contents)
        _warn_omitted(omitted, out, source)
        return Build(out, contents, contents.outputs, contents.entities, contents.tests, contents.commands,
                     contents.with_data)
    if text is not None:
        from scicraft_viz.engine.mcfunction import parse_mcfunction

        lines: dict | None = {} if skip_unsupported else None
        out = parse_mcfunction(text, source, omitted=lines, block_entities=contents.commands)
        if lines and omitted is not None:
            omitted.extend((word, len(ps), ps[:3]) for word, ps in lines.items())
            _warn_omitted(omitted, out, source)
        return Build(out, contents, contents.outputs, contents.entities, contents.tests, contents.commands,
                     contents.with_data)
    if fmt == "snbt":
        from scicraft_viz.engine.structure import decode_structure

        out = decode_structure(parse_snbt(data, source), source, omitted, contents)
        _warn_omitted(omitted, out, source)
        return Build(out, contents, contents.outputs, contents.entities, contents.tests, contents.commands,
                     contents.with_data)
    if fmt == "mcstructure":
        from scicraft_viz.engine.mcstructure import decode_mcstructure

        out = decode_mcstructure(parse_bedrock_nbt(data, source), source, omitted, contents)
        _warn_omitted(omitted, out, source)
        return Build(out, contents, contents.outputs, contents.entities, contents.tests, contents.commands,
                     contents.with_data)
    if data[:2] != GZIP_MAGIC:
        raise BuildFileError(f"{source}: not a {fmt or 'schematic'} file: expected gzip-compressed NBT "
                             f"(bytes 1f 8b), found {data[:8]!r}")
    from scicraft_viz.engine import schematic

    root = parse_nbt(data, source)
    if fmt is None or fmt == "schematic":  # some editors save Sponge schematics as .schematic: the content decides
        fmt = schematic.sniff(root, source)
    elif fmt == "schem" and schematic.is_mcedit(root):
        fmt = "schematic"
    if fmt == "schematic":
        from scicraft_viz.engine.legacy import decode_mcedit

        out = decode_mcedit(root, source, omitted, contents)
    elif fmt == "litematic":
        out = schematic.decode_litematic(root, source, omitted, contents)
    elif fmt == "nbt":
        from scicraft_viz.engine.structure import decode_structure

        out = decode_structure(root, source, omitted, contents)
    else:
        out = schematic.decode_sponge(root, source, omitted, contents)
    _warn_omitted(omitted, out, source)
    return Build(out, contents, contents.outputs, contents.entities, contents.tests, contents.commands,
                     contents.with_data)


def _warn_omitted(omitted: list | None, loaded: Blocks, source: str) -> None:
    if not omitted:
        return
    parts = []
    for what, count, ps in omitted[:12]:
        from scicraft_viz.errors import list_positions

        parts.append(f"{what} x{count} at {list_positions(ps, len(ps), count)}" if count else what)
    more = f"; and {len(omitted) - 12} more" if len(omitted) > 12 else ""
    warnings.warn(UnsupportedBlocksWarning(
        f"{source}: loaded {len(loaded):,} blocks; left out (not supported): " + "; ".join(parts) + more), stacklevel=3)


# A quoted string, or an unterminated one up to the end of the text: every quote starts a match that is
# consumed, so the scan is linear whatever the text (a failed match would be retried from every later quote).
_SNBT_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*\\?(?:"|\Z)|\'[^\'\\]*(?:\\.[^\'\\]*)*\\?(?:\'|\Z)', re.S)


def check_snbt(text: str, source: str) -> None:
    """Bound an SNBT text before parsing it: nesting depth and number of values (the same limits as
    binary NBT), counted with quoted strings blanked out."""
    import numpy as np

    bare = _SNBT_STRING.sub('""', text).encode("utf-8")
    b = np.frombuffer(bare, np.uint8)
    opens = (b == ord("{")) | (b == ord("["))
    step = opens.astype(np.int32) - ((b == ord("}")) | (b == ord("]")))
    if len(step):
        depth = np.cumsum(step)
        if depth.max() > MAX_NBT_DEPTH:
            at = int(np.argmax(depth > MAX_NBT_DEPTH))
            raise BuildFileError(f"{source}: not a valid SNBT file: tags nested more than {MAX_NBT_DEPTH} deep "
                                 f"(at character {at})")
    values = int(opens.sum() + (b == ord(",")).sum())
    if values > MAX_NBT_TAGS:
        raise BuildFileError(f"{source}: not a valid SNBT file: more than {MAX_NBT_TAGS:,} values")


def parse_snbt(data: bytes, source: str):
    """An nbtlib Compound from SNBT text (a structure as text), after the checks above."""
    import nbtlib

    if len(data) > MAX_SNBT_BYTES:
        raise BuildFileError(f"{source} is {len(data):,} bytes; SNBT files may be at most {_mib(MAX_SNBT_BYTES)}")
    if data[:2] == GZIP_MAGIC:
        raise BuildFileError(f"{source}: starts with gzip's magic bytes (a binary structure .nbt?), not SNBT text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BuildFileError(f"cannot read {source}: not UTF-8 text (byte {e.start} is 0x{data[e.start]:02x})") \
            from None
    check_snbt(text, source)
    try:
        root = nbtlib.parse_nbt(text)
    except Exception as e:  # bounded above; a library failure on odd text must not reach the user
        raise BuildFileError(f"{source}: not a valid SNBT file ({type(e).__name__}: {str(e)[:160]})") from None
    if not isinstance(root, nbtlib.Compound):
        kind = "list" if isinstance(root, list) else "single value"
        raise BuildFileError(f"{source}: not a structure: the SNBT text is a {kind}, not a compound {{...}}")
    return root


def read_build(path: str | os.PathLike, fmt: str | None = None, *, skip_unsupported: bool = False,
               box=None) -> Build:
    """The blocks of a build file: [(position, canonical state)], in file order, with its containers'
    items in `.contents` (Build).

    The format comes from `fmt`, else from the extension (.mcfunction/.txt, .litematic, .schem, .nbt,
    .snbt, .schematic, .mcstructure, .mca with a `box`) checked against the magic bytes, else from the content. Raises
    BuildFileError naming the file
    and what is wrong: an unreadable or oversized file, a bad line, corrupt NBT, a block outside the
    palette (each named with its count and first positions, and how many blocks would load). With
    skip_unsupported=True such blocks and any entities are left out instead, listed in an
    UnsupportedBlocksWarning."""
    from scicraft_viz.safeio import shown

    return decode_build(read_file_bytes(path, region_limit(path, fmt)), fmt, shown(os.fspath(path)),
                        skip_unsupported=skip_unsupported, box=box)


def region_limit(path, fmt: str | None = None) -> int:
    """How large a file may be: a world's region file more than a build file."""
    is_region = fmt == "mca" or (fmt is None and Path(os.fspath(path)).suffix.lower() == ".mca")
    return MAX_REGION_BYTES if is_region else MAX_FILE_BYTES


# ------------------------------------------------------------------------------------ writing
def check_blocks(blocks, source: str = "build") -> Blocks:
    """(position, canonical state) pairs from a {pos: state} dict, (pos, state) pairs or a World;
    air is an empty cell and is left out, a later entry for a position wins."""
    from scicraft_viz.engine.blocks import parse_state

    if hasattr(blocks, "blocks") and callable(blocks.blocks):
        blocks = blocks.blocks()
    items: Iterable = blocks.items() if isinstance(blocks, dict) else blocks
    out: dict[Pos, str] = {}
    for i, item in enumerate(items):
        try:
            pos, state = item
            p = tuple(pos)
        except (TypeError, ValueError):
            raise BuildFileError(f"{source}: entry {i + 1} is not a (position, state) pair: {item!r}"[:200]) from None
        if len(p) != 3 or not all(isinstance(c, int) and not isinstance(c, bool) for c in p):
            raise BuildFileError(f"{source}: entry {i + 1}: position {p!r} is not three integers"[:200])
        if any(abs(c) > MAX_COORD for c in p):
            raise BuildFileError(f"{source}: entry {i + 1}: position {p} is outside the Minecraft world "
                                 f"(|coordinate| <= {MAX_COORD:,})")
        try:
            st = parse_state(state)
        except InputError as e:
            raise BuildFileError(f"{source}: block at {p}: {e}") from None
        out.pop(p, None)  # type: ignore[arg-type]
        if st.name != "air":
            out[p] = str(st)  # type: ignore[index]
        if len(out) > MAX_BLOCKS:
            raise BuildFileError(f"{source}: more than {MAX_BLOCKS:,} blocks; a build holds at most {MAX_BLOCKS:,}")
    return list(out.items())


def encode_build(blocks, fmt: str, *, schem_version: int = 3, contents=None) -> bytes:
    """A build file's bytes in `fmt` ('mcfunction', 'litematic', 'schem', 'nbt', 'snbt'), with vanilla ids.
    Containers' items go in as block entities: `contents` ({pos: [(item id, count), ...]}), else those of
    `blocks` when it is a World or a decoded Build. Minecarts, item entities and fireballs go in as entities: a World's
    (World.saved_entities) or a decoded Build's (`entities`). Setblock text carries neither: they are left out
    with an UnsupportedBlocksWarning."""
    if fmt not in FORMATS:
        raise BuildFileError(f"unknown build format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if contents is None:
        contents = blocks.contents() if callable(getattr(blocks, "contents", None)) else getattr(blocks, "contents",
                                                                                                  None)
    if callable(getattr(blocks, "saved_entities", None)):  # a World's minecarts and item entities
        entities = list(blocks.saved_entities())
    else:  # a decoded Build's
        entities = list(getattr(blocks, "entities", None) or [])
    cmds: dict = {}
    if callable(getattr(blocks, "command_block_entities", None)):  # a World's command blocks
        cmds = blocks.command_block_entities()
    elif getattr(blocks, "commands", None):  # a decoded Build's
        from scicraft_viz.engine.commands import entity_tag

        cmds = {p: entity_tag(f) for p, f in blocks.commands.items()}
    items = check_blocks(blocks)
    from scicraft_viz.engine.blockentity import check_contents

    contents = check_contents(contents, dict(items))
    if fmt == "mcfunction":
        from scicraft_viz.engine.mcfunction import to_mcfunction

        if contents:
            warnings.warn(UnsupportedBlocksWarning(
                f"setblock text carries no block entity data: the items of {len(contents)} container(s) are left out "
                "(write .litematic, .schem, .nbt or .snbt to keep them)"), stacklevel=3)
        if entities:
            from scicraft_viz.engine.carts import CartSpec
            from scicraft_viz.engine.fireballs import FireballSpec

            n = sum(isinstance(e, CartSpec) for e in entities)
            f = sum(isinstance(e, FireballSpec) for e in entities)
            what = f"{n} minecart(s) and {len(entities) - n - f} item entity(ies)"
            if f:
                what = f"{n} minecart(s), {len(entities) - n - f} item entity(ies) and {f} fireball(s)"
            warnings.warn(UnsupportedBlocksWarning(
                f"setblock text carries no entities: {what} are left out (write .litematic, .schem, .nbt or .snbt to "
                "keep them)"), stacklevel=3)
        writable = {p: t for p, t in check_contents(cmds, dict(items)).items() if _printable(t.snbt())}
        if len(writable) < len(cmds):
            warnings.warn(UnsupportedBlocksWarning(
                f"setblock text is printable ASCII: the data of {len(cmds) - len(writable)} command block(s) whose "
                "command holds other characters is left out (write .litematic, .schem, .nbt or .snbt to keep it)"),
                stacklevel=3)
        return to_mcfunction(dict(items), writable).encode("utf-8")
    from scicraft_viz.engine import schematic

    contents = {**contents, **check_contents(cmds, dict(items))}
    if fmt == "litematic":
        return schematic.encode_litematic(items, contents, entities)
    if fmt in ("nbt", "snbt"):
        from scicraft_viz.engine import structure

        encode = structure.encode_structure if fmt == "nbt" else structure.encode_snbt
        return encode(items, contents, entities)
    return schematic.encode_sponge(items, version=schem_version, contents=contents, entities=entities)


def _printable(text: str) -> bool:
    return all(" " <= ch <= "~" for ch in text)


def format_of_path(path: str | os.PathLike) -> str:
    fmt = EXTENSIONS.get(Path(path).suffix.lower())
    if fmt == "schematic":
        raise BuildFileError(SCHEMATIC_UNSUPPORTED)
    if fmt == "mcstructure":
        raise BuildFileError(MCSTRUCTURE_UNSUPPORTED)
    if fmt is None:
        from scicraft_viz.safeio import shown

        raise BuildFileError(f"cannot tell the format of {shown(os.fspath(path))} from its extension; use .mcfunction, "
                             ".litematic, .schem, .nbt or .snbt")  # the formats written
    return fmt


def write_build(blocks, path_or_fmt: str | os.PathLike, *, schem_version: int = 3, contents=None) -> bytes:
    """Write a build ({pos: state}, (pos, state) pairs, a Build or a World) and return the file's bytes.

    `path_or_fmt` is a format name ('mcfunction', 'litematic', 'schem': nothing is written) or a
    path whose extension names the format. Sponge schematics are version 3 unless schem_version=2.
    Containers' items are written as encode_build says."""
    if isinstance(path_or_fmt, str) and path_or_fmt in FORMATS:
        return encode_build(blocks, path_or_fmt, schem_version=schem_version, contents=contents)
    return _write_file(encode_build(blocks, format_of_path(path_or_fmt), schem_version=schem_version,
                                    contents=contents), path_or_fmt)


def _write_file(data: bytes, path: str | os.PathLike, overwrite: bool = True) -> bytes:
    """Write a whole file atomically (safeio.atomic_write): a failure (full disk, file-size limit) leaves
    no partial file and keeps the previous one."""
    from scicraft_viz.safeio import atomic_write, shown

    try:
        atomic_write(path, data, overwrite=overwrite)
    except FileExistsError:
        raise BuildFileError(f"{shown(os.fspath(path))} exists; pass --overwrite to replace it") from None
    except OSError as e:
        raise BuildFileError(f"cannot write {shown(os.fspath(path))}: {e.strerror or e}") from None
    return data


def convert(src: str | os.PathLike, dst: str | os.PathLike, *, schem_version: int = 3,
            overwrite: bool = True, skip_unsupported: bool = False, box=None) -> int:
    """Read any build file and write it in the format of dst's extension; returns the block count.
    The new file replaces dst only once it is complete; without `overwrite` an existing dst is refused."""
    format_of_path(dst)  # a bad target is refused before the source is read
    items = read_build(src, skip_unsupported=skip_unsupported, box=box)
    _write_file(encode_build(items, format_of_path(dst), schem_version=schem_version), dst, overwrite)
    return len(items)
