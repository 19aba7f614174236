"""Command blocks: impulse, repeating and chain (docs/redstone.md sections 70-73).

The kernels keep what redstone needs of a command block (blocks.COMMAND_BLOCK: its kind, facing, `conditional`,
`powered`, `auto`, vanilla's conditionMet and its success count, which a comparator reads) and schedule its tick;
when the tick comes they stop in the middle of the game tick and the world calls `run_tick` here, which does what
vanilla's CommandBlock.tick does: run the command, then the chain in front of it, then let comparators re-read it.
The world keeps the rest of the block entity (CommandData): the command, SuccessCount, LastOutput, TrackOutput,
UpdateLastExecution and LastExecution.

Commands run through the world's own placement, with /setblock's semantics (states as given): `setblock`, `fill`
and `clone`; `say`, `tell` (`msg`, `w`) and `tellraw` are recorded as messages (World.command_messages). Any other
command is recorded as unsupported, naming it and the block's position, and fails (success count 0)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from scicraft_viz.engine import blocks as B
from scicraft_viz.errors import BlockStateError, BuildFileError, InputError, fmt_pos

Pos = tuple[int, int, int]

MAX_COMMAND_CHARS = 32_500  # what vanilla's command block screen takes
MAX_CHAIN = 65_536  # vanilla's gamerule maxCommandChainLength
FILL_LIMIT = 32_768  # vanilla's gamerule commandModificationBlockLimit: blocks one fill or clone may touch
MAX_MESSAGES = 10_000  # command messages a world keeps (the oldest go first)
WORLD_BOTTOM, WORLD_TOP = -64, 320  # the overworld's build height (vanilla isInWorldBounds)
WORLD_EDGE = 30_000_000
RUN = ("setblock", "fill", "clone")
SAID = ("say", "tell", "msg", "w", "tellraw")
KINDS = ("impulse", "repeating", "chain")


@dataclass
class CommandData:
    """A command block's block-entity data as the world keeps it (vanilla's names in brackets)."""

    kind: int  # blocks.CMD_IMPULSE, CMD_REPEATING or CMD_CHAIN: whose default `auto` this is
    command: str = ""  # (Command)
    success_count: int = 0  # (SuccessCount); the kernels keep min(success_count, 15) for comparators
    last_output: str = ""  # (LastOutput), the text of the last message the command gave, while track_output
    track_output: bool = True  # (TrackOutput)
    update_last_execution: bool = True  # (UpdateLastExecution)
    last_execution: int = -1  # (LastExecution): the game tick it last ran, -1 when not kept
    problem: str = ""  # why the command last failed to run (unsupported or unreadable), '' when it ran
    _parsed: tuple = field(default=("", None), repr=False, compare=False)  # (command, parse result) cache


@dataclass(frozen=True)
class CommandMessage:
    """A message a command block gave: `kind` 'say', 'tell', 'tellraw' (what it said), 'unsupported' (a command
    the engine does not run) or 'failed' (a command it could not read or carry out, as vanilla's error)."""

    tick: int
    pos: Pos
    kind: str
    text: str


@dataclass(frozen=True)
class CommandBlockInfo:
    """What World.command_block tells of one command block: its block state's kind, facing and conditional,
    and its block-entity data."""

    pos: Pos
    kind: str  # 'impulse', 'repeating' or 'chain'
    facing: str
    conditional: bool
    command: str
    auto: bool
    powered: bool
    condition_met: bool
    success_count: int
    last_output: str
    track_output: bool
    update_last_execution: bool
    last_execution: int
    problem: str

    def describe(self) -> str:
        """One line for hover text: the command (shortened, control characters shown as escapes) and state."""
        cmd = shown_command(self.command)
        mode = "always active" if self.auto else "needs redstone"
        out = (f"{self.kind}{', conditional' if self.conditional else ''}, {mode}, "
               f"{'powered' if self.powered else 'unpowered'}; command {cmd}; success count {self.success_count}")
        if self.problem:
            out += f"; {self.problem}"
        elif self.last_output:
            out += f"; last output {shown_command(self.last_output, 80)}"
        return out


def shown_command(text: str, limit: int = 120) -> str:
    """A command as hover text and messages show it: quoted, control characters escaped, long ones cut."""
    if not text:
        return "(none)"
    s = repr(text[:limit])
    return s + (f" ... ({len(text):,} characters)" if len(text) > limit else "")


def new_messages() -> deque:
    return deque(maxlen=MAX_MESSAGES)


# ---------------------------------------------------------------------------------------------- world side
def _sim(world):
    from scicraft_viz.engine import kernels as sim

    return sim


def _pos(world, c: int) -> Pos:
    return tuple(int(v) for v in world.g.P[c].tolist())  # type: ignore[return-value]


def data_at(world, p: Pos, c: int) -> CommandData:
    """The block entity of the command block at p (cell c), made with vanilla's defaults if it has none."""
    sim = _sim(world)
    kind = int(world.g.U[c, sim.FACE])
    d = world._commands.get(p)
    if d is None or d.kind != kind:
        d = world._commands[p] = CommandData(kind)
        auto = kind == B.CMD_CHAIN  # vanilla newBlockEntity: a chain block starts always active
        U = world.g.U
        U[c, sim.LOCKED] = (int(U[c, sim.LOCKED]) & sim.CMD_MET) | (sim.CMD_AUTO if auto else 0)
    return d


def sync_placed(world, xyz: np.ndarray, st: np.ndarray, bad: np.ndarray) -> None:
    """After blocks were placed at xyz: a new command block gets its default block entity, and one replaced by
    another block loses its own."""
    sim = _sim(world)
    U = world.g.U
    rows = np.nonzero((st[:, sim.S_ID] == B.COMMAND_BLOCK) & (bad == 0))[0].tolist()
    if world._commands and len(xyz) <= len(world._commands):
        rows = range(len(xyz))  # few blocks placed: look at each
    elif world._commands:  # many placed: look at the command blocks the world had instead
        for p in list(world._commands):
            c = world._find(p)
            if c <= 0 or int(U[c, sim.BT]) != B.COMMAND_BLOCK:
                del world._commands[p]
    for j in rows:
        if bad[j]:
            continue
        p = (int(xyz[j, 0]), int(xyz[j, 1]), int(xyz[j, 2]))
        if int(st[j, sim.S_ID]) != B.COMMAND_BLOCK and p not in world._commands:
            continue
        c = world._find(p)
        if c > 0 and int(U[c, sim.BT]) == B.COMMAND_BLOCK:
            data_at(world, p, c)
        else:
            world._commands.pop(p, None)


def info(world, p: Pos, c: int) -> CommandBlockInfo:
    sim = _sim(world)
    U = world.g.U
    d = data_at(world, p, c)
    flags = int(U[c, sim.LOCKED])
    return CommandBlockInfo(
        p, KINDS[int(U[c, sim.FACE])], B.DIRECTIONS[int(U[c, sim.FACING])], bool(U[c, sim.DELAY]), d.command,
        bool(flags & sim.CMD_AUTO), bool(U[c, sim.ON]), bool(flags & sim.CMD_MET), d.success_count, d.last_output,
        d.track_output, d.update_last_execution, d.last_execution, d.problem)


def check_command(command: object, what: str) -> str:
    if not isinstance(command, str):
        raise InputError(f"{what}: a command must be a string, got {type(command).__name__}")
    if len(command) > MAX_COMMAND_CHARS:
        raise InputError(f"{what}: the command is {len(command):,} characters; a command block holds at most "
                         f"{MAX_COMMAND_CHARS:,}")
    return command


def set_auto(world, c: int, auto: bool) -> None:
    """Vanilla setAutomatic: an impulse or repeating block turned always active while unpowered schedules its
    tick 1 gt later."""
    world._reserve()
    world._call(world._k.cmd_set_auto, c, 1 if auto else 0)


def load_block_entities(world, found: dict, source: str) -> None:
    """Command blocks' block-entity data from a build file ({pos: dict from command_block_data}), after its
    blocks: data at a position without a command block is left out."""
    sim = _sim(world)
    for p, fields in found.items():
        c = world._find(p)
        if c <= 0 or int(world.g.U[c, sim.BT]) != B.COMMAND_BLOCK:
            continue
        d = data_at(world, p, c)
        d.command = fields["Command"]
        d.success_count = fields["SuccessCount"]
        d.last_output = fields["LastOutput"]
        d.track_output = fields["TrackOutput"]
        d.update_last_execution = fields["UpdateLastExecution"]
        d.last_execution = fields["LastExecution"] if d.update_last_execution else -1
        U = world.g.U
        U[c, sim.POWER] = min(d.success_count, 15)
        U[c, sim.ON] = int(fields["powered"])
        U[c, sim.LOCKED] = sim.CMD_MET if fields["conditionMet"] else 0
        set_auto(world, c, fields["auto"])


def command_block_data(tag, source: str, where: str, pos: Pos) -> dict:
    """A command block entity's fields as vanilla's CommandBlockEntity.load reads them, with its defaults for
    what is left out; a tag of the wrong type, or a command longer than MAX_COMMAND_CHARS, is refused naming it."""
    from nbtlib import Compound, String

    at = f"{source}: {where} (the command block at {fmt_pos(pos)})"
    if not isinstance(tag, Compound):
        raise BuildFileError(f"{at} is {type(tag).__name__}, expected a compound")

    def text(key: str) -> str:
        v = tag.get(key, String(""))
        if not isinstance(v, String):
            raise BuildFileError(f"{at}: {key} is {type(v).__name__}, expected a string")
        return str(v)

    def number(key: str, default: int, lo: int, hi: int) -> int:
        v = tag.get(key)
        if v is None:
            return default
        if not isinstance(v, int) or isinstance(v, bool):
            raise BuildFileError(f"{at}: {key} is {type(v).__name__}, expected an integer from {lo:,} to {hi:,}")
        if not lo <= int(v) <= hi:
            raise BuildFileError(f"{at}: {key} is {int(v):,}, expected an integer from {lo:,} to {hi:,}")
        return int(v)

    command = text("Command")
    if len(command) > MAX_COMMAND_CHARS:
        raise BuildFileError(f"{at}: Command is {len(command):,} characters; a command block holds at most "
                             f"{MAX_COMMAND_CHARS:,}")
    last = tag.get("LastOutput")
    if isinstance(last, Compound):  # a text component saved as NBT (1.21.5 and later): its plain text
        words = last.get("text", last.get("translate", String("")))
        out_text = str(words)[:MAX_COMMAND_CHARS] if isinstance(words, String) else ""
    else:
        out_text = _output_text(text("LastOutput"))
    out = {"Command": command, "LastOutput": out_text}
    for key, default in (("auto", 0), ("powered", 0), ("conditionMet", 0), ("TrackOutput", 1),
                         ("UpdateLastExecution", 1)):
        out[key] = bool(number(key, default, 0, 1))
    out["SuccessCount"] = number("SuccessCount", 0, 0, 2**31 - 1)
    out["LastExecution"] = number("LastExecution", -1, -(2**63), 2**63 - 1)
    return out


def _output_text(raw: str) -> str:
    """LastOutput as vanilla saves it is a JSON text component; its plain text (the raw string if it is not)."""
    import json

    if not raw:
        return ""
    try:
        v = json.loads(raw)
    except (ValueError, RecursionError):
        return raw[:MAX_COMMAND_CHARS]
    if isinstance(v, dict) and isinstance(v.get("text"), str):
        return v["text"][:MAX_COMMAND_CHARS]
    return raw[:MAX_COMMAND_CHARS]


def entity_tag(world_or_fields, p: Pos | None = None):
    """A command block's block entity for a build file (vanilla's keys), from the world (at p) or from the fields
    command_block_data read."""
    import json

    from nbtlib import Byte, Compound, Int, Long, String

    if p is not None:
        world = world_or_fields
        i = world.command_block(p)
        f = {"Command": i.command, "auto": i.auto, "powered": i.powered, "conditionMet": i.condition_met,
             "SuccessCount": i.success_count, "LastOutput": i.last_output, "TrackOutput": i.track_output,
             "UpdateLastExecution": i.update_last_execution, "LastExecution": i.last_execution}
    else:
        f = world_or_fields
    tag = Compound({
        "Command": String(f["Command"]), "auto": Byte(int(f["auto"])), "powered": Byte(int(f["powered"])),
        "conditionMet": Byte(int(f["conditionMet"])), "SuccessCount": Int(f["SuccessCount"]),
        "TrackOutput": Byte(int(f["TrackOutput"])), "UpdateLastExecution": Byte(int(f["UpdateLastExecution"])),
        "CustomName": String('{"text":"@"}'),
    })
    if f["LastOutput"]:
        tag["LastOutput"] = String(json.dumps({"text": f["LastOutput"]}))
    if f["UpdateLastExecution"] and f["LastExecution"] >= 0:
        tag["LastExecution"] = Long(f["LastExecution"])
    return tag


# ---------------------------------------------------------------------------------------------- the tick
def run_tick(world, c: int) -> None:
    """Vanilla CommandBlock.tick for the command block at cell c, inside the game tick the kernels stopped in."""
    sim = _sim(world)
    k = world._k
    world._reserve()
    g = world.g
    if int(g.U[c, sim.BT]) != B.COMMAND_BLOCK:
        return
    p = _pos(world, c)
    kind = int(g.U[c, sim.FACE])
    facing = int(g.U[c, sim.FACING])
    conditional = bool(g.U[c, sim.DELAY])
    d = data_at(world, p, c)
    met = bool(int(g.U[c, sim.LOCKED]) & sim.CMD_MET)
    if kind == B.CMD_REPEATING:
        k.cmd_mark_met(g.U, g.N, c)
    if kind != B.CMD_CHAIN:
        if met:
            if d.command:
                _perform(world, p, c, d)
            else:
                _set_count(world, c, d, 0)
            _chain(world, p, facing)
        elif conditional:
            _set_count(world, c, d, 0)
    c = world._find(p)
    g = world.g
    if c > 0 and int(g.U[c, sim.BT]) == B.COMMAND_BLOCK:
        if kind == B.CMD_REPEATING and int(g.U[c, sim.FACE]) == kind and (
                g.U[c, sim.ON] or int(g.U[c, sim.LOCKED]) & sim.CMD_AUTO):
            world._reserve()
            k.schedule(world.g, c, 1, sim.P_NORMAL)
            world._check()
        world._call(k.output_changed, c)


def _set_count(world, c: int, d: CommandData, n: int) -> None:
    """setSuccessCount: no comparator hears of it until the block's output is next updated."""
    sim = _sim(world)
    d.success_count = n
    world.g.U[c, sim.POWER] = min(n, 15)


def _chain(world, p: Pos, facing: int) -> None:
    """Vanilla CommandBlock.executeChain from the block at p: each chain block in turn, while they continue."""
    sim = _sim(world)
    i = MAX_CHAIN
    x, y, z = p
    while True:
        if i <= 0:
            i -= 1
            break
        i -= 1
        dx, dy, dz = B.OFFSETS[facing]
        x, y, z = x + dx, y + dy, z + dz
        q = (x, y, z)
        c = world._find(q)
        U = world.g.U
        if c <= 0 or int(U[c, sim.BT]) != B.COMMAND_BLOCK or int(U[c, sim.FACE]) != B.CMD_CHAIN:
            break
        d = data_at(world, q, c)
        if U[c, sim.ON] or int(U[c, sim.LOCKED]) & sim.CMD_AUTO:
            if world._k.cmd_mark_met(U, world.g.N, c):
                if not _perform(world, q, c, d):
                    break
                world._call(world._k.output_changed, world._find(q))
            elif U[c, sim.DELAY]:
                _set_count(world, c, d, 0)
        c = world._find(q)
        if c <= 0 or int(world.g.U[c, sim.BT]) != B.COMMAND_BLOCK:
            break  # the command removed its own block: vanilla reads the facing of what stands there
        facing = int(world.g.U[c, sim.FACING])
    if i <= 0:
        _note(world, p, "failed", f"command block chain from {fmt_pos(p)} tried to execute more than "
                                  f"{MAX_CHAIN:,} steps (maxCommandChainLength)")


def _perform(world, p: Pos, c: int, d: CommandData) -> bool:
    """Vanilla BaseCommandBlock.performCommand: False (nothing done) when it already ran in this game tick."""
    t = world.tick
    if t == d.last_execution:
        return False
    d.problem = ""
    if not d.command:  # nothing runs; the last output stays
        count, out = 0, d.last_output
    elif d.command == "Searge":  # vanilla's easter egg
        count, out = 1, "#itzlipofutzli"
    else:
        count, out = execute(world, p, d)
    d.success_count = count
    d.last_output = out if d.track_output else ""
    c = world._find(p)
    if c > 0 and int(world.g.U[c, _sim(world).BT]) == B.COMMAND_BLOCK:
        world.g.U[c, _sim(world).POWER] = min(count, 15)
    d.last_execution = t if d.update_last_execution else -1
    return True


def _note(world, p: Pos, kind: str, text: str) -> None:
    world._command_log.append(CommandMessage(world.tick, p, kind, text))


# ---------------------------------------------------------------------------------------------- commands
class CommandError(Exception):
    """A command that fails as vanilla's would (its message), or that the engine does not run (unsupported)."""

    def __init__(self, message: str, unsupported: bool = False):
        super().__init__(message)
        self.unsupported = unsupported


def execute(world, p: Pos, d: CommandData) -> tuple[int, str]:
    """Run the command of the block at p: (success count, output message). A failure or an unsupported command is
    recorded in the world's messages and in the block's `problem`, and counts 0."""
    text = d.command
    if d._parsed[0] != text or d._parsed[1] is None:
        try:
            d._parsed = (text, parse(text))
        except CommandError as e:
            d._parsed = (text, e)
    parsed = d._parsed[1]
    try:
        if isinstance(parsed, CommandError):
            raise parsed
        return 1, parsed(world, p)
    except CommandError as e:
        kind = "unsupported" if e.unsupported else "failed"
        msg = f"{kind} command at {fmt_pos(p)}: {e}"
        d.problem = msg
        _note(world, p, kind, msg)
        return 0, str(e)


def parse(text: str):
    """A runner for the command text (a function of (world, block position) returning its message), or a
    CommandError saying why it cannot run."""
    for i, ch in enumerate(text):
        if ord(ch) < 32 or ord(ch) == 127:
            raise CommandError(f"the command holds control character U+{ord(ch):04X} at column {i + 1}; "
                               "a command is one line of printable text")
    body = text[1:] if text.startswith("/") else text
    words = body.split(" ")
    name = words[0].removeprefix("minecraft:")
    args = words[1:]
    if name in SAID:
        return _said(name, args)
    if name not in RUN:
        shown = repr(name[:40]) if name else "an empty word"
        raise CommandError(f"{shown} is not a command the engine runs (it runs setblock, fill and clone, and "
                           "records say, tell, msg, w and tellraw)", unsupported=True)
    if any(not w for w in args):
        raise CommandError("expected one space between arguments")
    args = _join_states(args)
    if name == "setblock":
        return _setblock(args)
    if name == "fill":
        return _fill(args)
    return _clone(args)


def _join_states(args: list[str]) -> list[str]:
    """Words of a block state written with spaces inside its brackets, joined."""
    out: list[str] = []
    for w in args:
        if out and out[-1].count("[") > out[-1].count("]"):
            out[-1] += w
        else:
            out.append(w)
    return out


def _said(name: str, args: list[str]):
    if name == "say":
        if not args:
            raise CommandError("say: expected a message")
        msg = " ".join(args)
        kind, line = "say", f"[@] {msg}"
    elif name == "tellraw":
        if len(args) < 2:
            raise CommandError("tellraw: expected a target and a JSON text")
        kind, line = "tellraw", f"to {args[0]}: {' '.join(args[1:])}"
    else:
        if len(args) < 2:
            raise CommandError(f"{name}: expected a target and a message")
        kind, line = "tell", f"@ whispers to {args[0]}: {' '.join(args[1:])}"

    def run(world, p: Pos) -> str:
        _note(world, p, kind, line)
        return "" if kind == "say" else line

    return run


def _coord(word: str, base: int, what: str) -> int:
    """One block coordinate: absolute (an integer) or relative (~, ~N, ~-0.5) to the block's centre."""
    if word.startswith("^"):
        raise CommandError("local coordinates (^) are not supported; use ~ or absolute ones", unsupported=True)
    if word.startswith("~"):
        rest = word[1:]
        try:
            off = float(rest) if rest else 0.0
        except ValueError:
            raise CommandError(f"{what}: cannot read coordinate {word[:20]!r}") from None
        if not math.isfinite(off) or abs(off) > 2 * WORLD_EDGE:
            raise CommandError(f"{what}: coordinate {word[:20]!r} is out of range")
        return math.floor(base + 0.5 + off)
    if not (word.lstrip("-").isdigit() and word.isascii()) or len(word) > 12:
        raise CommandError(f"{what}: expected an integer or ~ coordinate, got {word[:20]!r}")
    return int(word)


def _pos_of(words: list[str], at: int, what: str):
    if len(words) < at + 3:
        raise CommandError(f"{what}: expected three coordinates")
    parts = words[at:at + 3]
    for w in parts:
        _coord(w, 0, what)  # read now, so a bad coordinate fails before the command runs

    def pos(p: Pos) -> Pos:
        q = (_coord(parts[0], p[0], what), _coord(parts[1], p[1], what), _coord(parts[2], p[2], what))
        if not WORLD_BOTTOM <= q[1] < WORLD_TOP or abs(q[0]) >= WORLD_EDGE or abs(q[2]) >= WORLD_EDGE:
            raise CommandError(f"{what}: {fmt_pos(q)} is out of this world (y from {WORLD_BOTTOM} to "
                               f"{WORLD_TOP - 1})")
        return q

    return pos


def _state(word: str, what: str) -> str:
    if "{" in word:
        raise CommandError(f"{what}: block-entity data in a command ({{...}}) is not supported", unsupported=True)
    if word.startswith("#"):
        raise CommandError(f"{what}: block tags ({word[:40]}) are not supported", unsupported=True)
    try:
        st = B.parse_state(word)
    except BlockStateError as e:
        raise CommandError(f"{what}: {e}", unsupported=True) from None
    if st.id == B.MOVING_PISTON:
        raise CommandError(f"{what}: a moving_piston cannot be placed")
    return str(st)


def _place(world, q: Pos, state: str) -> None:
    from scicraft_viz.engine.world import _parse_item

    _, row = _parse_item(state, True)
    world._load(np.array([q], np.int64), np.array([row], np.int64), np.zeros(1, np.uint8), as_setblock=True)


def _here(world, q: Pos) -> str:
    return B.canonical(world._block_at(q))


def _setblock(args: list[str]):
    what = "setblock"
    pos = _pos_of(args, 0, what)
    if len(args) < 4:
        raise CommandError("setblock: expected a block after the coordinates")
    state = _state(args[3], what)
    mode = args[4] if len(args) > 4 else "replace"
    if mode not in ("replace", "keep", "destroy") or len(args) > 5:
        raise CommandError(f"setblock: expected replace, keep or destroy after the block, got "
                           f"{' '.join(args[4:])[:40]!r}")
    air = "minecraft:air"

    def run(world, p: Pos) -> str:
        q = pos(p)
        here = _here(world, q)
        if mode == "keep" and here != air:
            raise CommandError("Could not set the block")
        if mode == "destroy" and here != air:
            _place(world, q, air)  # vanilla destroyBlock (its drops are not simulated)
            here = air
        if here == state:
            raise CommandError("Could not set the block")
        _place(world, q, state)
        return f"Changed the block at {q[0]}, {q[1]}, {q[2]}"

    return run


def _box(a: Pos, b: Pos, what: str) -> tuple[Pos, Pos, int]:
    lo = (min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2]))
    hi = (max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2]))
    n = (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1)
    if n > FILL_LIMIT:
        raise CommandError(f"Too many blocks in the specified area (maximum {FILL_LIMIT}, specified {n})")
    return lo, hi, n


def _cells(lo: Pos, hi: Pos):
    """Positions of a box in vanilla's order (BlockPos.betweenClosed): x fastest, then y, then z."""
    for z in range(lo[2], hi[2] + 1):
        for y in range(lo[1], hi[1] + 1):
            for x in range(lo[0], hi[0] + 1):
                yield (x, y, z)


def _matches(state: str, name: str, props: dict) -> bool:
    n, have = B.split_state(state)
    return n == name and all(have.get(k) == v for k, v in props.items())


def _fill(args: list[str]):
    what = "fill"
    a = _pos_of(args, 0, what)
    b = _pos_of(args, 3, what)
    if len(args) < 7:
        raise CommandError("fill: expected a block after the two corners")
    state = _state(args[6], what)
    mode = args[7] if len(args) > 7 else "replace"
    if mode not in ("replace", "keep", "hollow", "outline", "destroy"):
        raise CommandError(f"fill: expected replace, keep, hollow, outline or destroy, got {mode[:40]!r}")
    flt = None
    if mode == "replace" and len(args) > 8:
        if len(args) > 9:
            raise CommandError(f"fill: unexpected {' '.join(args[9:])[:40]!r} after the filter")
        fs = B.split_state(_state(args[8], what))  # the filter's name, and only the properties it gives
        given = B.split_state(args[8].removeprefix("minecraft:"))[1] if "[" in args[8] else {}
        flt = (fs[0], given)
    elif len(args) > 8:
        raise CommandError(f"fill: unexpected {' '.join(args[8:])[:40]!r} after {mode}")
    air = "minecraft:air"

    def run(world, p: Pos) -> str:
        lo, hi, _ = _box(a(p), b(p), what)
        done = 0
        for q in _cells(lo, hi):
            here = _here(world, q)
            if flt is not None and not _matches(here, *flt):
                continue
            edge = q[0] in (lo[0], hi[0]) or q[1] in (lo[1], hi[1]) or q[2] in (lo[2], hi[2])
            put = state
            if mode == "outline" and not edge:
                continue
            if mode == "hollow" and not edge:
                put = air
            if mode == "keep" and here != air:
                continue
            if mode == "destroy" and here != air:
                _place(world, q, air)
                here = air
            if here == put:
                continue
            _place(world, q, put)
            done += 1
        if not done:
            raise CommandError("No blocks were filled")
        return f"Successfully filled {done} block(s)"

    return run


def _clone(args: list[str]):
    what = "clone"
    a = _pos_of(args, 0, what)
    b = _pos_of(args, 3, what)
    dest = _pos_of(args, 6, what)
    mask = args[9] if len(args) > 9 else "replace"
    how = args[10] if len(args) > 10 else "normal"
    if mask == "filtered":
        raise CommandError("clone: the filtered mask is not supported", unsupported=True)
    if mask not in ("replace", "masked") or how not in ("normal", "force", "move") or len(args) > 11:
        raise CommandError(f"clone: expected replace or masked, then normal, force or move, got "
                           f"{' '.join(args[9:])[:40]!r}")
    air = "minecraft:air"

    def run(world, p: Pos) -> str:
        lo, hi, _ = _box(a(p), b(p), what)
        d0 = dest(p)
        d1 = (d0[0] + hi[0] - lo[0], d0[1] + hi[1] - lo[1], d0[2] + hi[2] - lo[2])
        if not WORLD_BOTTOM <= d1[1] < WORLD_TOP:
            raise CommandError(f"clone: {fmt_pos(d1)} is out of this world")
        overlap = all(d0[i] <= hi[i] and lo[i] <= d1[i] for i in range(3))
        if overlap and how == "normal":
            raise CommandError("The source and destination areas cannot overlap")
        src = [(q, world._block_at(q)) for q in _cells(lo, hi)]
        if any(B.split_state(s)[0] in B.COMMAND_BLOCKS or B.split_state(s)[0] in _ENTITY_BLOCKS for _, s in src):
            raise CommandError("clone: copying blocks with block-entity data is not supported", unsupported=True)
        moved = [(q, (q[0] - lo[0] + d0[0], q[1] - lo[1] + d0[1], q[2] - lo[2] + d0[2]), s) for q, s in src
                 if not (mask == "masked" and B.split_state(s)[0] == "air")]
        if how == "move":
            for q, _, _s in moved:
                if _here(world, q) != air:
                    _place(world, q, air)
        done = 0
        for _, t, s in moved:
            if _here(world, t) != B.canonical(s):
                _place(world, t, s)
                done += 1
        if not done:
            raise CommandError("No blocks were cloned")
        return f"Successfully cloned {done} block(s)"

    return run


_ENTITY_BLOCKS = ("chest", "barrel", "hopper", "dropper", "dispenser", "furnace", "blast_furnace", "smoker",
                  "test_block", "comparator")

