"""The World: sparse block storage in NumPy arrays, placement rules and the public stepping API."""

from __future__ import annotations

import copy
import functools
import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain, islice
from numbers import Integral
from typing import NamedTuple

import numpy as np

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine import commands
from scicraft_viz.engine import kernels as sim
from scicraft_viz.engine.blocks import BlockState, parse_state, split_state
from scicraft_viz.engine.items import ItemEntity, JavaRandom
from scicraft_viz.engine.rules import Ruleset, ruleset_from
from scicraft_viz.errors import BlockStateError, BuildFileError, InputError, PlacementError, PositionError, fmt_pos

Pos = tuple[int, int, int]

MAX_COORD = 30_000_000  # Minecraft's world border
# Limits, checked before anything is allocated (docs/api.md, "Limits"):
MAX_CELLS = 8_000_000  # positions that hold, or once held, a block (about 300 bytes each)
MAX_TICK = 2**60  # the tick counter's ceiling (ticks are kept as int64, times four in the tick heap)
EVENT_HISTORY = 100_000

EVENT_KINDS = ("state", "power", "shape", "locked", "popped", "delay", "burnout", "placed", "removed", "mode", "tuned",
               "note", "rang")
_STATE_PROP = {B.LAMP: "lit", B.TORCH: "lit", B.WALL_TORCH: "lit", B.IRON_DOOR: "open", B.IRON_TRAPDOOR: "open",
               B.FENCE_GATE: "open", B.COPPER_BULB: "lit",
               B.DAYLIGHT: "inverted", B.PISTON: "extended", B.STICKY_PISTON: "extended", B.PISTON_HEAD: "short"}
_VANILLA_IDS = (B.STONE, B.GLASS, B.PARTIAL)  # ids whose cells may hold a vanilla block's state number
# vanilla TripWireBlock's shapes: attached (1/16 to 2.5/16 high) and not (half a block); the entities a string finds
STRING_ATTACHED_BOX = (0.0, 0.0625, 0.0, 1.0, 0.15625, 1.0)
STRING_LOOSE_BOX = (0.0, 0.0, 0.0, 1.0, 0.5, 1.0)


@dataclass(frozen=True)
class Event:
    """One change of the world: `state` (lit/powered), `power` (dust, a comparator's output, a
    container's fill level), `shape` (dust sides), `locked`, `delay`, `mode` (a comparator's: 0 compare,
    1 subtract), `tuned` (a note block's note), `note` (a note block played: old is the instrument's index
    in blocks.INSTRUMENTS, new the note), `rang` (a bell rang: old is the side struck, an index into
    blocks.HORIZONTAL), `burnout`, `popped` (an unsupported block fell off), `placed`,
    `removed`."""

    tick: int
    pos: Pos
    kind: str
    block: str
    old: int
    new: int

    def describe(self) -> str:
        name = self.block.removeprefix("minecraft:")
        if self.kind == "state":
            prop = _STATE_PROP.get(B.PALETTE[name][0] if name in B.PALETTE else -1, "powered")
            return f"tick {self.tick}: {name} at {self.pos} {prop}={'true' if self.new else 'false'}"
        if self.kind == "power":
            what = {"redstone_wire": "dust"}.get(name, name)
            return f"tick {self.tick}: {what} at {self.pos} power {self.old} -> {self.new}"
        if self.kind == "note":
            return f"tick {self.tick}: {name} at {self.pos} played {B.INSTRUMENTS[self.old]} note {self.new}"
        if self.kind == "rang":
            return f"tick {self.tick}: {name} at {self.pos} rang (struck on its {B.HORIZONTAL[self.old]} side)"
        if self.kind == "mode":
            modes = B.COMPARATOR_MODES
            return f"tick {self.tick}: {name} at {self.pos} mode {modes[self.old]} -> {modes[self.new]}"
        if self.kind == "popped":
            return f"tick {self.tick}: {name} at {self.pos} popped off (no support)"
        if self.kind == "burnout":
            return f"tick {self.tick}: torch at {self.pos} burnt out"
        if self.kind in ("placed", "removed"):
            return f"tick {self.tick}: {self.kind} {name} at {self.pos}"
        return f"tick {self.tick}: {name} at {self.pos} {self.kind} {self.old} -> {self.new}"


class Power(NamedTuple):
    """What `World.power(pos)` reads: strong and weak power received, and the block's own level."""

    strong: int
    weak: int
    level: int


class MovingBlock(NamedTuple):
    """A block a piston is moving (`World.moving()`), kept by the moving_piston at its destination.

    `source` is where it set off from (a retracting piston's own base stays where it is, so its source is
    its own place; its head is drawn sliding back into it); `progress` is vanilla's: 0 when the move
    starts, 0.5 a game tick later, 1 the tick before the block lands."""

    block: str
    source: Pos
    direction: str  # where it travels (the piston's facing when pushing, the opposite when pulling)
    progress: float
    extending: bool
    piston: bool  # the piston's own head (pushing out) or base (pulling its head back in)


class Scheduled(NamedTuple):
    """A pending scheduled tick (`World.scheduled()`): due game tick, block position, block, priority."""

    tick: int
    pos: Pos
    block: str
    priority: int


def _short_repr(value: object) -> str:
    """A repr for a message, at most 200 characters, on one line."""
    import reprlib

    from scicraft_viz.safeio import shown

    try:
        return shown(reprlib.repr(value), 200)
    except Exception:  # noqa: BLE001  # a repr that fails
        return f"a {type(value).__name__}"


def check_pos(pos: object) -> Pos:
    """Validate a position: three integers (bools and floats are refused)."""
    if type(pos) is tuple and len(pos) == 3:  # the common case, checked fast
        x, y, z = pos
        if (type(x) is int and type(y) is int and type(z) is int
                and -MAX_COORD <= x <= MAX_COORD and -MAX_COORD <= y <= MAX_COORD and -MAX_COORD <= z <= MAX_COORD):
            return pos  # type: ignore[return-value]
    if isinstance(pos, (str, bytes)) or not isinstance(pos, Iterable):
        raise PositionError(f"position must be three integers (x, y, z), got {_short_repr(pos)}")
    try:
        items = list(islice(pos, 4))  # an endless iterable is not read past its fourth item
    except Exception:  # noqa: BLE001  # an iterable that fails is not a position either
        items = []
    if len(items) != 3 or not all(isinstance(v, Integral) and not isinstance(v, bool) for v in items):
        raise PositionError(f"position must be three integers (x, y, z), got {_short_repr(pos)}")
    p = tuple(int(v) for v in items)
    if any(abs(v) > MAX_COORD for v in p):
        raise PositionError(f"position {_short_repr(p)} is outside the Minecraft world (|coordinate| <= 30,000,000)")
    return p  # type: ignore[return-value]


def _support_of(st: BlockState, p: Pos) -> tuple[Pos, str] | None:
    """Where a block needs a solid block, and a phrase for messages; None if it needs none."""
    x, y, z = p
    name = st.name
    if name in ("redstone_wire", "redstone_repeater", "redstone_torch", "comparator", *B.RAILS) or (
            st.id in B.PLATES or name == "iron_door" and st.get("half") == "lower"):
        return (x, y - 1, z), "a solid block below"
    if name == "redstone_wall_torch" or (st.id in (B.BUTTON, B.LEVER) and st.get("face") == "wall"):
        dx, dy, dz = B.OFFSETS[B.DIRECTIONS.index(st.get("facing"))]
        return (x - dx, y - dy, z - dz), f"a solid block behind it (facing={st.get('facing')})"
    if st.id in (B.BUTTON, B.LEVER):
        if st.get("face") == "floor":
            return (x, y - 1, z), "a solid block below (face=floor)"
        return (x, y + 1, z), "a solid block above (face=ceiling)"
    need = B.support_need(name, st.props) if st.id == B.PARTIAL else None
    if need is not None:  # a decorative block (blocks.DECORATIVE)
        k, kind = need
        dx, dy, dz = B.OFFSETS[k]
        where = "above" if k == 4 else "below" if k == 5 else f"behind it (facing={st.get('facing')})"
        phrase = _NEED_PHRASES[kind].format(where)
        if name == "fire":  # section 81
            phrase += " (a flammable neighbour does not hold fire here)"
        return (x + dx, y + dy, z + dz), phrase
    return None


# What a decorative block needs, by blocks.SUPPORT_* kind.
_NEED_PHRASES = ("a block {} with a whole face toward it", "a block {} that holds it at the centre of its face",
                 "a solid block {}", "a block {} (not air)")


def _needs_support(st: np.ndarray) -> bool:
    """Does any placement row place a decorative block that needs a neighbour (blocks.NEED)?"""
    part = st[:, sim.S_ID] == B.PARTIAL
    return bool(part.any() and B.NEED[st[part, sim.S_FACING] | (st[part, sim.S_FACE] << 8)].any())


def _is_any(a: np.ndarray, ids) -> np.ndarray:
    """a == any of a few ids: np.isin's set machinery costs more than these comparisons on small arrays."""
    mask = np.zeros(a.shape, bool)
    for b in ids:
        mask |= a == b
    return mask


class _LazyStates:
    """states[j]: the BlockState of kept item j, looked up only when an error message needs it."""

    def __init__(self, uniq: list, idx: list[int]):
        self.uniq, self.idx = uniq, idx

    def __getitem__(self, j: int) -> BlockState:
        return self.uniq[self.idx[j]][0]


class _LazyPositions:
    """positions[j]: row j of xyz as a tuple, made only when a message needs it."""

    def __init__(self, xyz: np.ndarray):
        self.xyz = xyz

    def __getitem__(self, j: int) -> Pos:
        return tuple(self.xyz[j].tolist())


@functools.lru_cache(maxsize=4096)
def _item_row(text: str, replay: bool) -> tuple[BlockState, tuple[int, ...]]:
    """A block state and the engine's placement row for it (the kernels' S_* columns); cached, since
    a build repeats a handful of states."""
    st = parse_state(text)
    if st.id == B.MOVING_PISTON:
        raise BlockStateError(f"{text!r}: a moving_piston is what a piston leaves while it moves a block; "
                              "it cannot be placed")
    if st.name not in B.PALETTE:
        # a vanilla full or partial block: the engine keeps its state number in FACING (low byte) and
        # FACE (high byte), and a partial block's sturdy faces in DELAY
        kid, sturdy, number = B.vanilla_kind(st.name, st.props)
        return st, (kid, number & 255, number >> 8, sturdy if kid == B.PARTIAL else 1, 0, 0,
                    sim.CMP_FACING | sim.CMP_FACE, 0)
    props = dict(st.props)
    sides = ("north", "east", "south", "west")
    # A dust starts as a cross (a player's placement) unless it is asked for as a dot; /setblock
    # starts from the given sides, whose default is a dot.
    dot = st.name == "redstone_wire" and all(props[k] == "none" and (replay or k in st.given) for k in sides)
    given_on = props.get("lit", props.get("powered", props.get("extended", props.get("short", "false")))) == "true"
    on = given_on if replay else (st.id in (B.TORCH, B.WALL_TORCH) or (st.id == B.LEVER and given_on))
    inert = _INERT_FLAG.get(st.id)  # a container's flag with no redstone meaning, kept in ON as given
    if inert is not None:
        # a player's dropper or dispenser is placed untriggered (vanilla getStateForPlacement); /setblock keeps it
        on = props[inert] == "true" and (replay or st.id not in (B.DROPPER, B.DISPENSER))
    cmp = (
        (sim.CMP_FACING if "facing" in props else 0)
        | (sim.CMP_FACE if "face" in props or "mode" in props or "instrument" in props or st.id == B.PISTON_HEAD
           else 0)
        | (sim.CMP_DELAY if "delay" in props or "note" in props else 0)
        | (sim.CMP_ON if st.id == B.LEVER or (inert is not None and st.id not in _DERIVED_FLAG) else 0)
    )
    if st.id in (B.STONE, B.GLASS, B.PARTIAL):
        # vanilla full and partial blocks share these ids and tell themselves apart by the state number in FACING
        # and FACE (0 here): compared, so that stone set over oak planks replaces them
        cmp |= sim.CMP_FACING | sim.CMP_FACE
    # FACE holds a button's or lever's face, a comparator's mode (kernels.MODE) or a note block's instrument
    face = B.FACES.index(props["face"]) if "face" in props else B.PISTON_TYPES.index(props["type"]) if (
        st.id == B.PISTON_HEAD) else B.TEST_MODES.index(props["mode"]) if st.id == B.TEST_BLOCK else (
        B.COMPARATOR_MODES.index(props["mode"]) if "mode" in props else
        B.INSTRUMENTS.index(props["instrument"]) if "instrument" in props else 0)
    delay = int(props.get("delay", props.get("note", 1)))  # DELAY holds a note block's note (kernels.NOTE)
    power = 0
    b = st.id
    if st.name in B.VARIANT_OF:  # a furnace's or plate's variant, kept in FACE
        face = B.VARIANT_OF[st.name]
        cmp |= sim.CMP_FACE
    elif b == B.CHEST:
        face = B.CHEST_TYPES.index(props["type"])
        cmp |= sim.CMP_FACE
    elif b == B.BUTTON:  # which button (blocks.BUTTONS), kept in DELAY
        delay = B.BUTTON_OF[st.name]
        cmp |= sim.CMP_DELAY
    if b == B.TEST_BLOCK:  # DELAY: triggered (kernels.check), never as placed
        delay = 0
    elif b == B.COMMAND_BLOCK:  # DELAY: conditional; its kind is its variant (FACE)
        delay = int(props["conditional"] == "true")
        cmp |= sim.CMP_DELAY
    if b == B.RAIL:  # its shape, kept in DELAY; powered is worked out when it is placed (vanilla onPlace)
        delay = B.RAIL_SHAPES.index(props["shape"])
        cmp |= sim.CMP_DELAY
        if st.name == "detector_rail":  # no minecart: unpowered, as vanilla's onPlace (checkPressed) leaves it
            on = False
    elif b == B.COPPER_BULB:  # lit in ON, powered in POWER: /setblock and a paste keep both as given
        power = int(replay and props["powered"] == "true")
    if b in (B.IRON_DOOR, B.IRON_TRAPDOOR, B.FENCE_GATE):
        # FACE: a door's or trapdoor's half (1 upper, top), a fence gate's in_wall
        face = int(props.get("half") in ("upper", "top") or props.get("in_wall") == "true")
        # DELAY: a door's hinge (bit 0) and which door or trapdoor it is (blocks.OPENERS: 0 iron, then woods)
        delay = (int(props.get("hinge") == "right") | B.OPENER_OF[st.name] << 1 if b == B.IRON_DOOR
                 else B.OPENER_OF[st.name])
        cmp = sim.CMP_FACING | sim.CMP_FACE | sim.CMP_DELAY
        # /setblock keeps open and powered as given; a player's placement derives both (kernels.place)
        on = replay and props["open"] == "true"
        power = int(replay and props["powered"] == "true")
    elif b in B.PLATES or b == B.DAYLIGHT:
        if replay:
            power = 15 if props.get("powered") == "true" else int(props.get("power", 0))
        on = power > 0
        if b == B.DAYLIGHT:
            on = props["inverted"] == "true"
            cmp |= sim.CMP_ON
    row = (b, B.DIRECTIONS.index(props["facing"]) if "facing" in props else 0, face, delay, int(dot), int(on), cmp,
           power)
    return st, row


_INERT_FLAG = {B.BARREL: "open", B.CHEST: "waterlogged", B.HOPPER: "enabled", B.DROPPER: "triggered",
               B.DISPENSER: "triggered", B.FURNACE: "lit"}
# Of those, the flags power decides (kernels.check): kept as given when placed, but not part of what the block is
_DERIVED_FLAG = (B.HOPPER, B.DROPPER, B.DISPENSER)
HOPPER_COOLDOWN = 8  # game ticks a hopper waits after moving an item (vanilla setCooldown(8))
# what a dispenser's filled bucket empties into the cell in front (docs/redstone.md section 90)
_AIRS = ("minecraft:air", "minecraft:cave_air", "minecraft:void_air")  # vanilla BlockState.isAir


def _is_box(kind: np.ndarray, facing: np.ndarray, face: np.ndarray) -> np.ndarray:
    """Which of these engine blocks (id, FACING, FACE, as a cell or a placement row keeps them) are shulker boxes:
    vanilla full blocks (STONE) whose state number is a box's."""
    stone = kind == B.STONE
    number = np.where(stone, facing.astype(np.int64) | (face.astype(np.int64) << 8), 0)
    return stone & (B.BOX_STATE[number] != 0)


def _box_rows(st: np.ndarray) -> np.ndarray:
    """Which placement rows place a shulker box."""
    return _is_box(st[:, sim.S_ID], st[:, sim.S_FACING], st[:, sim.S_FACE])


BUCKET_CONTENTS = {"water_bucket": "minecraft:water[level=0]", "lava_bucket": "minecraft:lava[level=0]",
                   "powder_snow_bucket": "minecraft:powder_snow"}


def _parse_item(state: object, replay: bool) -> tuple[BlockState, tuple[int, ...]]:
    if not isinstance(state, str):
        parse_state(state)  # raises the usual BlockStateError, naming what was given
    return _item_row(str(state), replay)


class World:
    """A redstone world stepped in game ticks, faithful to Java Edition 1.20 for its palette.

    `replay=True` follows /setblock instead of a player's placement: nothing is refused for lack of
    support; an unsupported block pops off at its first neighbour update."""

    # --- compiled-engine hook (engine/compiled.py): after a run of use/step calls with the event log
    # off, or for a long step, the world runs on a compiled component graph (`_cg`, a compiled.Runner)
    # and its arrays are stale; any access to them (`g`) first writes the graph's state back and drops
    # the graph. Block edits clear the memory of a refused compile.
    _cg = None
    _cg_calls = 0
    _cg_refused = False
    # It pays after this many use/step calls in a row, or for one step of this many game ticks: compiling
    # a 64-lamp device takes a few milliseconds, the time of a few thousand reference-engine ticks.
    _cg_after_calls = 16
    _cg_after_ticks = 4096

    @property
    def g(self) -> sim.Grid:
        if self._cg is not None:
            self._cg_sync()
        return self._g

    @g.setter
    def g(self, grid: sim.Grid) -> None:
        self._g = grid

    def _cg_sync(self) -> None:
        cg, self._cg = self._cg, None
        self._cg_calls = 0
        cg.flush()
        cg.write_back(self._g)

    def _cg_engage(self, n: int) -> bool:
        """Count a use/step call; switch to the compiled engine when it pays. True if running on it."""
        self._cg_calls += 1
        if self._log or not self.jit or self._cg_refused or self._entities or self._carts or self._fireballs:
            return False
        if self._cg_calls < self._cg_after_calls and n < self._cg_after_ticks:
            return False
        from scicraft_viz.engine import compiled

        try:
            self._cg = compiled.Runner(self)
        except compiled.CompileRefused:
            self._cg_refused = True
        return self._cg is not None
    # --- end of the compiled-engine hook

    def __init__(self, replay: bool = False, jit: bool = True, log_events: bool = True, rules: object = None):
        self.replay = replay
        self._rules = ruleset_from(rules)
        self._k = sim if jit else _python_kernels()
        self.jit = jit and self._k.JIT
        # Events wait in the engine's buffer (two int64s each) until something reads them or the buffer
        # fills; then they become int64 rows (tick, x, y, z, kind, block id, old, new), and Event
        # objects only when read. Logging stays cheap while the engine runs.
        self._ev_chunks: deque[np.ndarray] = deque()
        self._ev_kept = 0
        self._events_total = 0
        self._log = log_events
        self._items: dict[Pos, tuple] = {}  # container contents (block-entity data), by position: every slot
        # the shulker boxes standing in the world, which a piston breaking drops as items (section 96), and the
        # name of each (what it drops), by position
        self._boxes: set[Pos] = set()
        self._box_kinds: dict[Pos, str] = {}
        # the cells of hoppers in the order they were placed (vanilla ticks block entities in the order they were
        # added), each with the first game tick its cooldown lets it move an item
        self._hoppers: dict[int, int] = {}
        self._entities: list[ItemEntity] = []  # item entities, in the order they tick (engine/items.py)
        self._next_entity = 1  # the id the next item entity or minecart gets
        self._carts: list = []  # minecarts, in the order they tick (engine/carts.py)
        self._fireballs: list = []  # fireballs, in the order they tick (engine/fireballs.py)
        self._fireball_warned: set = set()  # (kind, what) of the fireball effects already warned of
        self._rng = JavaRandom(0)  # the level's random source: droppers' eject velocities
        self._plate_items: dict[Pos, int] = {}  # the item entities each pressure plate counted last
        self._trip_found: set[Pos] = set()  # the strings (tripwire) an entity's box met at the last look
        self._test_messages: dict[Pos, str] = {}  # test blocks' messages (block-entity data), by position
        self._commands: dict[Pos, commands.CommandData] = {}  # command blocks' block-entity data, by position
        self._command_log = commands.new_messages()  # what command blocks said, and what they could not run
        self._fluid = None  # pending fluid ticks (engine/fluids.py), made when water or a waterlogged block comes
        self._fluid_busy = False
        self.g: sim.Grid = self._grid(64, 128)
        self.g.meta[sim.M_NCELL] = 1  # cell 0 is the shared air that stands for every position without a cell
        self.g.meta[sim.M_LOG] = 1 if log_events else 0
        self.g.meta[sim.R_BUTTON : sim.R_LOCKABLE + 1] = self._rules.meta_values()

    # ------------------------------------------------------------------ storage
    @staticmethod
    def _grid(cap: int, hcap: int, heap: int = 1024) -> sim.Grid:
        """Empty arrays for `cap` cells (np.zeros and np.empty leave pages untouched until used)."""
        T = np.empty((cap, sim.NT), np.int64)
        T[0, sim.PTIME] = -1
        return sim.Grid(
            N=np.zeros((cap, sim.NNEAR), np.int32),
            U=np.zeros((cap, sim.NU), np.uint8),
            T=T,
            P=np.zeros((cap, 3), np.int32),
            HT=np.full(hcap, -1, np.int32),
            H=np.zeros((heap, 4), np.int64),
            E=np.empty((16384 + 2 * cap, 2), np.int64),
            meta=np.zeros(sim.NMETA, np.int64),
            queue=np.empty(cap + 1, np.int32),
            comp=np.empty(max(cap, sim.COMP_MIN), np.int32),
            chg=np.empty(4 * cap + 64, np.int32),
            notify=np.empty(cap, np.int32),
            bev=np.empty((2 * cap + 64, 3), np.int64),
            mov=np.empty(cap, np.int32),
            fire=np.empty(cap, np.int32),
        )

    def _regrid(self, cap: int, hcap: int) -> sim.Grid:
        """A copy of the world's arrays with room for `cap` cells and a hash table of `hcap` slots."""
        g = self.g
        n = self._ncell
        new = self._grid(cap, hcap, g.H.shape[0])
        for name in ("N", "U", "T", "P"):
            getattr(new, name)[:n] = getattr(g, name)[:n]
        nh, ne = int(g.meta[sim.M_HEAP]), int(g.meta[sim.M_EVN])
        new.H[:nh] = g.H[:nh]
        new.E[:ne] = g.E[:ne]
        nb, nm = int(g.meta[sim.M_NBEV]), int(g.meta[sim.M_NMOV])
        new.bev[:nb] = g.bev[:nb]
        new.mov[:nm] = g.mov[:nm]
        nf = int(g.meta[sim.M_NFIRE])
        new.fire[:nf] = g.fire[:nf]
        new.meta[:] = g.meta
        if hcap == g.HT.shape[0]:
            new.HT[:] = g.HT
        else:
            self._k.rehash(new.HT, new.P, n)
        return new

    @property
    def rules(self) -> Ruleset:
        """The ruleset this world runs under (engine/rules.py; vanilla unless given to World())."""
        return self._rules

    @property
    def _ncell(self) -> int:
        return int(self.g.meta[sim.M_NCELL])

    def _make_room(self, xyz: np.ndarray, create: np.ndarray) -> None:
        """Room for cells at the positions xyz[create] that have none yet; refused before anything is
        allocated when the world would pass MAX_CELLS."""
        g = self.g
        cap, hcap = g.U.shape[0], g.HT.shape[0]
        most = self._ncell + len(xyz)  # as if every position were new: when even that fits, nothing to count
        if most <= cap and 2 * most <= hcap and most - 1 <= MAX_CELLS:
            return
        need = self._ncell + int(self._k.count_missing(g.HT, g.P, xyz, create))
        if need - 1 > MAX_CELLS:  # counts a position given twice twice; count exactly before refusing
            fresh = np.unique(xyz[create], axis=0)
            need = self._ncell + sum(self._find(tuple(p)) < 0 for p in fresh.tolist())
            if need - 1 > MAX_CELLS:
                raise PositionError(
                    f"the world would hold {need - 1:,} block positions; the engine's limit is {MAX_CELLS:,} "
                    "(positions that hold, or once held, a block)"
                )
        if need <= cap and 2 * need <= hcap:
            return
        if need > cap:
            cap = max(need, 2 * cap)
        while 2 * need > hcap:
            hcap *= 4
        self.g = self._regrid(cap, hcap)

    def _reserve_cells(self, n: int) -> None:
        """Room for n more cells without growing the arrays, kept by copies: a template world copied
        for many builds then skips one regrid per copy."""
        need = self._ncell + n
        cap, hcap = self.g.U.shape[0], self.g.HT.shape[0]
        if need <= cap and 2 * need <= hcap:
            return
        while 2 * need > hcap:
            hcap *= 4
        self.g = self._regrid(max(need, cap), hcap)

    def _cells(self, xyz: np.ndarray) -> np.ndarray:
        """The cell at each position of xyz (n, 3) int64, or -1 where there is none."""
        out = np.empty(len(xyz), np.int64)
        self._k.cells_for(self.g, xyz, np.zeros(len(xyz), np.bool_), out)
        return out

    def _find(self, p: Pos) -> int:
        """The cell at p, or -1."""
        g = self.g
        return int(self._k.find_cell(g.HT, g.P, p[0], p[1], p[2]))

    def _reserve(self) -> None:
        """Room in the tick heap for one pending tick per cell plus stale entries, and in the event
        buffer for whatever one action or tick can log (the kernels stop and ask when short)."""
        g = self.g
        need = int(g.meta[sim.M_HEAP]) + self._ncell + 64
        if need > g.H.shape[0]:
            H = np.zeros((2 * need, 4), np.int64)
            H[: g.H.shape[0]] = g.H
            self.g = g = g._replace(H=H)
        if g.meta[sim.M_EVN] > g.E.shape[0] - (self._ncell + 256):
            self._drain()
        if g.meta[sim.M_PISTONS]:  # room for the cells moved blocks may land in (kernels.needs_room)
            need = self._ncell + int(self._k.cell_headroom(int(g.meta[sim.M_PISTONS])))
            cap, hcap = g.U.shape[0], g.HT.shape[0]
            if need > cap or 2 * need > hcap:
                while 2 * need > hcap:
                    hcap *= 4
                self.g = self._regrid(max(need, 2 * cap) if need > cap else cap, hcap)

    def _check(self) -> None:
        code = int(self.g.meta[sim.M_OVERFLOW])
        if code:
            self.g.meta[sim.M_OVERFLOW] = 0
            what = {sim.OV_EVENTS: "event buffer", sim.OV_CHANGED: "changed list", sim.OV_HEAP: "tick heap",
                    sim.OV_BLOCK_EVENTS: "block event queue"}[code]
            raise RuntimeError(f"engine {what} overflow: a single tick changed more than the engine can track")

    def _positions(self, cells: np.ndarray) -> list[Pos]:
        return list(zip(*self.g.P[cells].T.tolist())) if len(cells) else []

    def _states(self, cells: np.ndarray) -> list[str]:
        """The canonical state of each cell, formatted once per distinct state (a build has few)."""
        if not len(cells):
            return []
        # U's first 8 columns (BT .. LOCKED) are all that a state string reads: one uint64 key per cell
        key = np.ascontiguousarray(self.g.U[cells, : sim.LOCKED + 1]).view(np.uint64).ravel()
        _, first, inv = np.unique(key, return_index=True, return_inverse=True)
        names = [self._state_at(c) for c in cells[first].tolist()]
        return [names[i] for i in inv.ravel().tolist()]

    def _sorted(self, cells: np.ndarray) -> np.ndarray:
        """Cells in x, y, z order of their positions."""
        P = self.g.P[cells]
        return cells[np.lexsort((P[:, 2], P[:, 1], P[:, 0]))]

    # ------------------------------------------------------------------ events
    def _drain(self) -> None:
        """Move events from the engine's buffer to the kept history, still packed: they are decoded
        only when read (a cell's position never changes, so decoding later gives the same answer)."""
        g = self.g
        n = int(g.meta[sim.M_EVN])
        if not n:
            return
        self._ev_chunks.append(g.E[:n].copy())
        g.meta[sim.M_EVN] = 0
        self._ev_kept += n
        self._events_total += n
        while self._ev_kept - len(self._ev_chunks[0]) >= EVENT_HISTORY:
            self._ev_kept -= len(self._ev_chunks.popleft())

    def events_since(self, total: int, kind: str | None = None) -> list[Event]:
        """Events after the first `total` ever logged (see events_total), as far as they are kept; only
        those of one kind (e.g. "popped") when `kind` is given, picked before any is decoded."""
        self._drain()
        want = self._events_total - total
        if want <= 0 or not self._ev_chunks:
            return []
        ev = np.concatenate(self._ev_chunks)[-min(want, EVENT_HISTORY):]
        if kind is not None:
            ev = ev[((ev[:, 1] >> 32) & 255) == EVENT_KINDS.index(kind)]
        w = ev[:, 1]
        xyz = self.g.P[w & 0xFFFFFFFF].tolist()
        cols = zip(ev[:, 0].tolist(), ((w >> 32) & 255).tolist(), ((w >> 56) & 255).tolist(),
                   ((w >> 40) & 255).tolist(), ((w >> 48) & 255).tolist(), strict=True)
        U = self.g.U

        def block(c: int, b: int) -> str:
            # a vanilla block is named by the state its cell holds, while the cell still holds that kind
            if b in _VANILLA_IDS and U[c, sim.BT] == b and (U[c, sim.FACING] or U[c, sim.FACE]):
                return self._state_at(c).split("[", 1)[0]
            return self._name_of(c, b)

        cells = (w & 0xFFFFFFFF).tolist()
        return [
            Event(t, tuple(p), EVENT_KINDS[k], block(c, b), o, n)
            for p, c, (t, k, b, o, n) in zip(xyz, cells, cols, strict=True)
        ]

    @property
    def events(self) -> list[Event]:
        """The most recent events (up to 100,000), oldest first."""
        self._drain()
        return self.events_since(max(0, self._events_total - EVENT_HISTORY))

    @property
    def events_total(self) -> int:
        """How many events were logged since the world was made (including ones no longer kept)."""
        return self._events_total + int(self.g.meta[sim.M_EVN])

    @property
    def log_events(self) -> bool:
        return self._log

    @log_events.setter
    def log_events(self, on: bool) -> None:
        self._log = bool(on)
        self.g.meta[sim.M_LOG] = 1 if on else 0

    # ------------------------------------------------------------------ public API
    @property
    def tick(self) -> int:
        if self._cg is not None:
            return self._cg.tick
        return int(self.g.meta[sim.M_TICK])

    def get_block(self, pos: object) -> str:
        """The canonical full block state at pos, e.g. 'minecraft:redstone_lamp[lit=true]'."""
        return self._block_at(check_pos(pos))

    def _block_at(self, p: Pos) -> str:
        """get_block for a position known to be three ints, which may lie just past the world's edge
        (a support position): air there, as everywhere without a block."""
        c = self._find(p)
        return self._state_at(c) if c > 0 else "minecraft:air"

    def _state_at(self, c: int) -> str:
        return self._state_of(self.g.U[c].tolist())

    def _state_of(self, u: list[int]) -> str:
        """The canonical state of a cell row (a list of U's columns)."""
        b = u[sim.BT]
        name = B.NAME_OF_ID[b]
        tf = ("false", "true")
        if b == B.WIRE:
            s = u[sim.SIDES]
            side = [B.WIRE_SIDES[(s >> (2 * h)) & 3] for h in range(4)]
            props = f"east={side[1]},north={side[0]},power={u[sim.POWER]},south={side[2]},west={side[3]}"
        elif b == B.REPEATER:
            props = (
                f"delay={u[sim.DELAY]},facing={B.DIRECTIONS[u[sim.FACING]]},"
                f"locked={tf[u[sim.LOCKED]]},powered={tf[u[sim.ON]]}"
            )
        elif b in (B.TORCH, B.LAMP):
            props = f"lit={tf[u[sim.ON]]}"
        elif b == B.WALL_TORCH:
            props = f"facing={B.DIRECTIONS[u[sim.FACING]]},lit={tf[u[sim.ON]]}"
        elif b in (B.BUTTON, B.LEVER):
            if b == B.BUTTON:
                name = B.BUTTONS[u[sim.DELAY]]
            props = f"face={B.FACES[u[sim.FACE]]},facing={B.DIRECTIONS[u[sim.FACING]]},powered={tf[u[sim.ON]]}"
        elif b == B.COMPARATOR:
            props = (f"facing={B.DIRECTIONS[u[sim.FACING]]},mode={B.COMPARATOR_MODES[u[sim.MODE]]},"
                     f"powered={tf[u[sim.ON]]}")
        elif b == B.NOTE_BLOCK:
            props = (f"instrument={B.INSTRUMENTS[u[sim.INSTRUMENT]]},note={u[sim.NOTE]},"
                     f"powered={tf[u[sim.ON]]}")
        elif b == B.TARGET:
            props = "power=0"  # set by projectile hits only
        elif b == B.COMMAND_BLOCK:  # its command, powered and auto are block-entity data (engine/commands.py)
            name = B.COMMAND_BLOCKS[u[sim.FACE]]
            props = f"conditional={tf[u[sim.DELAY]]},facing={B.DIRECTIONS[u[sim.FACING]]}"
        elif b == B.TEST_BLOCK:
            props = f"mode={B.TEST_MODES[u[sim.MODE]]}"  # its powered and triggered are block-entity data
        elif b == B.OBSERVER:
            props = f"facing={B.DIRECTIONS[u[sim.FACING]]},powered={tf[u[sim.ON]]}"
        elif b in (B.PISTON, B.STICKY_PISTON):
            props = f"extended={tf[u[sim.ON]]},facing={B.DIRECTIONS[u[sim.FACING]]}"
        elif b == B.PISTON_HEAD:
            props = f"facing={B.DIRECTIONS[u[sim.FACING]]},short={tf[u[sim.ON]]},type={B.PISTON_TYPES[u[sim.FACE]]}"
        elif b == B.MOVING_PISTON:
            props = f"facing={B.DIRECTIONS[u[sim.FACING]]},type={B.PISTON_TYPES[u[sim.FACE]]}"
        elif b == B.BARREL:
            props = f"facing={B.DIRECTIONS[u[sim.FACING]]},open={tf[u[sim.ON]]}"
        elif b == B.CHEST:
            props = (f"facing={B.DIRECTIONS[u[sim.FACING]]},type={B.CHEST_TYPES[u[sim.FACE]]},"
                     f"waterlogged={tf[u[sim.ON]]}")
        elif b == B.HOPPER:
            props = f"enabled={tf[u[sim.ON]]},facing={B.DIRECTIONS[u[sim.FACING]]}"
        elif b in (B.DROPPER, B.DISPENSER):
            props = f"facing={B.DIRECTIONS[u[sim.FACING]]},triggered={tf[u[sim.ON]]}"
        elif b == B.FURNACE:
            name = B.VARIANTS[b][u[sim.FACE]]
            props = f"facing={B.DIRECTIONS[u[sim.FACING]]},lit={tf[u[sim.ON]]}"
        elif b == B.IRON_DOOR:
            name = B.OPENERS[b][u[sim.HINGE] >> 1]
            props = (f"facing={B.DIRECTIONS[u[sim.FACING]]},half={('lower', 'upper')[u[sim.HALF]]},"
                     f"hinge={('left', 'right')[u[sim.HINGE] & 1]},open={tf[u[sim.ON]]},powered={tf[u[sim.POWER]]}")
        elif b == B.FENCE_GATE:
            name = B.OPENERS[b][u[sim.DELAY]]
            props = (f"facing={B.DIRECTIONS[u[sim.FACING]]},in_wall={tf[u[sim.FACE]]},open={tf[u[sim.ON]]},"
                     f"powered={tf[u[sim.POWER]]}")
        elif b == B.IRON_TRAPDOOR:
            name = B.OPENERS[b][u[sim.DELAY]]
            props = (f"facing={B.DIRECTIONS[u[sim.FACING]]},half={('bottom', 'top')[u[sim.HALF]]},"
                     f"open={tf[u[sim.ON]]},powered={tf[u[sim.POWER]]},waterlogged=false")
        elif b == B.PLATE:
            name = B.VARIANTS[b][u[sim.FACE]]
            props = f"powered={tf[u[sim.POWER] > 0]}"
        elif b in (B.LIGHT_PLATE, B.HEAVY_PLATE):
            props = f"power={u[sim.POWER]}"
        elif b == B.RAIL:
            name = B.RAILS[u[sim.FACE]]
            props = f"shape={B.RAIL_SHAPES[u[sim.DELAY]]},waterlogged=false"
            if u[sim.FACE] != B.PLAIN_RAIL:
                props = f"powered={tf[u[sim.ON]]}," + props
        elif b == B.COPPER_BULB:
            name = B.COPPER_BULBS[u[sim.FACE]]
            props = f"lit={tf[u[sim.ON]]},powered={tf[u[sim.POWER] > 0]}"
        elif b == B.DAYLIGHT:
            props = f"inverted={tf[u[sim.ON]]},power={u[sim.POWER]}"
        elif b in _VANILLA_IDS and (u[sim.FACING] or u[sim.FACE]):
            return B.vanilla_state_of(u[sim.FACING] | u[sim.FACE] << 8)
        else:
            return f"minecraft:{name}"
        return f"minecraft:{name}[{props}]"

    def _name_of(self, c: int, b: int) -> str:
        """The name of block id b at cell c: a variant (an oak plate, a smoker) by the one the cell holds."""
        if b in B.VARIANTS and int(self.g.U[c, sim.BT]) == b:
            return "minecraft:" + B.VARIANTS[b][int(self.g.U[c, sim.FACE])]
        if b in B.OPENERS and int(self.g.U[c, sim.BT]) == b:
            return "minecraft:" + B.OPENERS[b][int(self.g.U[c, sim.DELAY]) >> (b == B.IRON_DOOR)]
        if b == B.BUTTON and int(self.g.U[c, sim.BT]) == b:
            return "minecraft:" + B.BUTTONS[int(self.g.U[c, sim.DELAY])]
        return "minecraft:" + B.NAME_OF_ID[b]

    def set_block(self, pos: object, state: object) -> None:
        """Place a block as a player would (or as /setblock would, in replay mode).

        Derived properties (dust shape and power, lit, powered, locked) come from the surroundings;
        neighbours are updated at once and delays run as scheduled ticks. Raises a ValueError
        subclass, leaving the world unchanged, for bad positions, states or unsupported placements."""
        p = check_pos(pos)
        st, row = _parse_item(state, self.replay)
        if st.id != B.AIR and not self.replay:
            need = _support_of(st, p)
            if need is not None:
                sp, phrase = need
                c = self._find(sp)
                k = B.OFFSETS.index((sp[0] - p[0], sp[1] - p[1], sp[2] - p[2]))  # from the block to its support
                number = B.vanilla_number(st.name, st.props) if st.id == B.PARTIAL else 0
                if c <= 0 or not self._k.supports(self.g.U, c, st.id, number, k):
                    raise PlacementError(
                        f"cannot place {st.name} at {p}: it needs {phrase} at {sp}, but there is {self._block_at(sp)}"
                    )
            if st.id == B.IRON_DOOR:
                why = self._door_refusal(st, p, {})
                if why:
                    raise PlacementError(why)
        self._load(np.array([p], np.int64), np.array([row], np.int64), np.zeros(1, np.uint8))

    def set_blocks(self, items: Iterable, *, skip_errors: bool = False) -> list[tuple[int, InputError]]:
        """Place many blocks at once: the same world, events and pending ticks as set_block on each
        (pos, state) pair in order, without the per-call cost. `items` may also be a {pos: state} dict.

        By default the call is all or nothing: the first bad position, bad state or unsupported
        placement (counting the blocks placed before it in `items`) raises, naming the item's index,
        and nothing is placed. With skip_errors=True those items are left out, as a loop that catches
        each error would, and the call returns [(index, error), ...]."""
        if isinstance(items, dict):
            items = items.items()
        positions: list[Pos] = []
        uniq: list[tuple[BlockState, tuple[int, ...]]] = []  # distinct states: a build repeats a handful
        memo: dict[str, int] = {}  # state text -> its index in uniq
        idx: list[int] = []
        keep: list[int] = []
        errors: list[tuple[int, InputError]] = []
        replay = self.replay
        lo, hi = -MAX_COORD, MAX_COORD
        for i, item in enumerate(items):
            # the usual item, (three-int tuple, known state text), accepted inline without a call per block
            if type(item) is tuple and len(item) == 2:
                pos, state = item
                if type(pos) is tuple and len(pos) == 3 and type(state) is str:
                    k = memo.get(state)
                    x, y, z = pos
                    if (k is not None and type(x) is int and type(y) is int and type(z) is int
                            and lo <= x <= hi and lo <= y <= hi and lo <= z <= hi):
                        positions.append(pos)
                        idx.append(k)
                        keep.append(i)
                        continue
            try:
                try:
                    pos, state = item
                except (TypeError, ValueError):
                    raise InputError(f"expected a (position, state) pair, got {item!r}"[:200]) from None
                p = check_pos(pos)
                st, row = _item_row(state, replay) if type(state) is str else _parse_item(state, replay)
            except InputError as e:
                err = type(e)(f"item {i}: {e}")
                if not skip_errors:
                    raise err from None
                errors.append((i, err))
                continue
            k = len(uniq)
            uniq.append((st, row))
            if type(state) is str:
                memo[state] = k
            positions.append(p)
            idx.append(k)
            keep.append(i)
        if not positions:
            return errors
        xyz = np.fromiter(chain.from_iterable(positions), np.int64, 3 * len(positions)).reshape(-1, 3)
        st_arr = np.array([row for _, row in uniq], np.int64)[np.array(idx, np.intp)]
        return self._place(xyz, st_arr, _LazyStates(uniq, idx), keep, errors, skip_errors)

    def set_block_arrays(self, xyz: np.ndarray, sid: np.ndarray, states: list[str], *,
                         skip_errors: bool = False) -> list[tuple[int, InputError]]:
        """set_blocks for blocks given as arrays: positions xyz (n, 3) and, for each, the index sid[i] of
        its state in `states`. Placed in order, with set_blocks' errors, indices and skip_errors; the
        bulk path for large builds (`mcfunction.read_setblocks` gives these arrays)."""
        xyz = np.asarray(xyz)
        sid = np.asarray(sid)
        n = len(xyz) if xyz.ndim else -1
        if xyz.shape != (n, 3) or sid.shape != (n,) or xyz.dtype.kind not in "iu" or (n and sid.dtype.kind not in "iu"):
            raise InputError(f"expected positions of shape (n, 3) and state indices of shape (n,) as integer "
                             f"arrays, got {xyz.shape} {xyz.dtype} and {sid.shape} {sid.dtype}")
        if not n:
            return []
        # checked before a cast could wrap a value; per row only when something is out of range
        inside = xyz.min() >= -MAX_COORD and xyz.max() <= MAX_COORD
        pos_ok = np.ones(n, bool) if inside else ((xyz >= -MAX_COORD) & (xyz <= MAX_COORD)).all(axis=1)
        given, xyz = xyz, xyz.astype(np.int64, copy=False)
        if sid.min() < 0 or sid.max() >= len(states):
            i = int(np.argmax((sid < 0) | (sid >= len(states))))
            raise InputError(f"item {i}: state index {int(sid[i])} is not in the {len(states)} states given")
        uniq: list = []
        refused: dict[int, InputError] = {}  # state index -> why it is refused
        for k, state in enumerate(states):
            try:
                uniq.append(_parse_item(state, self.replay))
            except InputError as e:
                uniq.append(None)
                refused[k] = e
        ok = pos_ok.copy()
        for k in refused:
            ok &= sid != k
        errors: list[tuple[int, InputError]] = []
        keep: range | list[int] = range(n)
        if not ok.all():
            for i in np.nonzero(~ok)[0].tolist():  # as set_blocks checks them: the position, then the state
                e = refused[int(sid[i])] if pos_ok[i] else PositionError(
                    f"position {tuple(given[i].tolist())} is outside the Minecraft world (|coordinate| <= 30,000,000)")
                err = type(e)(f"item {i}: {e}")
                if not skip_errors:
                    raise err
                errors.append((i, err))
            keep = np.nonzero(ok)[0].tolist()
            xyz, sid = xyz[ok], sid[ok]
            if not len(keep):
                return errors
        rows = np.array([(0,) * sim.NS if u is None else u[1] for u in uniq], np.int64)
        return self._place(xyz, rows[sid], _LazyStates(uniq, sid), keep, errors, skip_errors)

    def _door_refusal(self, st: BlockState, p: Pos, earlier: dict) -> str | None:
        """Why a player cannot place this door half at p, or None: a player places the lower half, and the
        upper half needs air above it. An upper half that is already there (the one its lower half brought)
        is accepted: placing it changes nothing. `earlier`: {position: state text} placed before it in the
        same call."""
        if st.get("half") == "upper":
            there = earlier.get(p) or self._block_at(p)
            name, props = split_state(there)
            if name == "iron_door" and all(props.get(k) == st.get(k) for k in ("half", "facing", "hinge")):
                return None
            return (f"cannot place iron_door[half=upper] at {p}: a player places a door by its lower half "
                    "(the upper half comes with it); /setblock (replay=True) places halves one by one")
        up = (p[0], p[1] + 1, p[2])
        above = earlier.get(up) or self._block_at(up)
        if split_state(above)[0] != "air":
            return f"cannot place iron_door at {p}: its upper half needs air at {up}"
        return None

    def _place(self, xyz: np.ndarray, st_arr: np.ndarray, states, keep, errors: list, skip_errors: bool):
        """Place rows checked by set_blocks or set_block_arrays: keep[j] is row j's index in the caller's
        items, states[j] its BlockState (for messages)."""
        positions = _LazyPositions(xyz)
        bad = np.zeros(len(xyz), np.uint8)
        cells = None
        door_why: dict[int, str] = {}
        if not self.replay and (st_arr[:, sim.S_ID] == B.IRON_DOOR).any():
            earlier: dict[Pos, str] = {}
            for j, p in enumerate(map(tuple, xyz.tolist())):
                st = states[j]
                if st.name == "iron_door":
                    why = self._door_refusal(st, p, earlier)
                    if why:
                        door_why[j] = why
                        bad[j] = 1
                        continue
                    if st.get("half") == "lower":  # its upper half comes with it
                        upper = str(st).replace("half=lower", "half=upper")
                        earlier[(p[0], p[1] + 1, p[2])] = upper
                earlier[p] = str(st)
        if not self.replay and (_is_any(st_arr[:, sim.S_ID], B.ATTACHED_IDS).any() or _needs_support(st_arr)):
            create = st_arr[:, sim.S_ID] != B.AIR
            self._make_room(xyz, create)
            cells = np.empty(len(xyz), np.int64)
            self._k.cells_for(self.g, xyz, create, cells)  # made here once, for the support check and the load
        if cells is not None and (self._k.unsupported(self.g, cells, st_arr, bad, not skip_errors) >= 0 or door_why):
            if not skip_errors:
                j = int(np.argmax(bad))
                why = door_why.get(j) or self._support_error(j, positions, states, bad)
                raise PlacementError(f"item {keep[j]}: {why}")

            def refused(j: int) -> None:  # called when the world is as it was when item j's turn came
                why = door_why.get(j) or self._support_error(j, positions, states)
                errors.append((keep[j], PlacementError(f"item {keep[j]}: {why}")))

            self._load(xyz, st_arr, bad, refused, cells)
        else:
            self._load(xyz, st_arr, bad, cells=cells)
        errors.sort(key=lambda e: e[0])
        return errors

    @classmethod
    def from_blocks(cls, items: Iterable, replay: bool = False, jit: bool = True, log_events: bool = True,
                    rules: object = None) -> World:
        """A new World (under `rules`, vanilla by default) holding the given (pos, state) pairs, placed in
        order (see set_blocks)."""
        w = cls(replay=replay, jit=jit, log_events=log_events, rules=rules)
        w.set_blocks(items)
        return w

    def _support_error(self, j: int, positions: list[Pos], states: list[BlockState], bad=None) -> str:
        """set_block's message for item j. With `bad`, the world is still as it was before the first
        item, and a support placed by an earlier item is named as it was given."""
        p, st = positions[j], states[j]
        sp, phrase = _support_of(st, p)  # type: ignore[misc]
        below = self._block_at(sp)
        for i in range(j - 1, -1, -1) if bad is not None else ():
            if positions[i] == sp and not bad[i]:
                below = str(states[i])
                break
        return f"cannot place {st.name} at {p}: it needs {phrase} at {sp}, but there is {below}"

    def _load(self, xyz: np.ndarray, st: np.ndarray, bad: np.ndarray, refused=None, cells=None,
              as_setblock: bool = False) -> None:
        """Place rows of (position, placement row) in order, skipping rows flagged in `bad`; refused(j)
        is called for each of those when its turn comes. `cells`: the rows' cells, when already made.
        `as_setblock`: placed as /setblock places them whatever the world's `replay` (a command block's command)."""
        self._cg_refused = False
        if cells is None:
            create = (st[:, sim.S_ID] != B.AIR) & (bad == 0)
            self._make_room(xyz, create)
            cells = np.empty(len(xyz), np.int64)
            self._k.cells_for(self.g, xyz, create, cells)
        if len(st) == 1:  # one set_block: plain ints are cheaper than array passes
            b0 = int(st[0, sim.S_ID])
            day, door = b0 == B.DAYLIGHT, b0 == B.IRON_DOOR and not bad[0]
        else:
            day, door = bool((st[:, sim.S_ID] == B.DAYLIGHT).any()), bool((st[:, sim.S_ID] == B.IRON_DOOR).any())
        self._has_daylight |= day
        if door and not self.replay:  # a player's door places its upper half too: its cell, made here
            doors = (st[:, sim.S_ID] == B.IRON_DOOR) & (bad == 0)
            up = xyz[doors] + np.array([0, 1, 0], np.int64)
            self._make_room(up, np.ones(len(up), bool))
            self._k.cells_for(self.g, up, np.ones(len(up), bool), np.empty(len(up), np.int64))
        stops = np.nonzero(bad)[0].tolist() if refused is not None else []
        i, n = 0, len(xyz)
        for stop in [*stops, n]:
            while i < stop:
                self._reserve()
                i = int(self._k.place_items(self.g, cells, st, bad, i, stop, self.replay or as_setblock))
                self._check()
            if stop < n:
                refused(stop)
                i = stop + 1
        if self._items:
            self._forget_replaced_containers()
        if not self._fluid_busy and (self._fluid is not None or _wet_rows(st)):
            self._fluid_sync()
        if self._commands or (b0 == B.COMMAND_BLOCK if len(st) == 1 else
                              bool((st[:, sim.S_ID] == B.COMMAND_BLOCK).any())):
            commands.sync_placed(self, xyz, st, bad)
        if self._hoppers or (b0 == B.HOPPER if len(st) == 1 else bool((st[:, sim.S_ID] == B.HOPPER).any())):
            self._track_hoppers(cells[(bad == 0) & (cells > 0)])
        if self._boxes or _box_rows(st).any():
            self._track_boxes(cells[(bad == 0) & (cells > 0)])

    # ------------------------------------------------------------------ containers (block-entity data)
    def _container(self, pos: object, what: str) -> tuple[Pos, int, int]:
        """(pos, cell, kind) of the container at pos: its engine id, containers.BOX for a shulker box."""
        from scicraft_viz.engine import containers

        p = check_pos(pos)
        c = self._find(p)
        b = int(self.g.U[c, sim.BT]) if c > 0 else B.AIR
        if containers.is_box_cell(self.g.U, c):
            return p, c, containers.BOX
        if b not in B.CONTAINERS:
            names = ", ".join(B.NAME_OF_ID[i] for i in B.CONTAINERS) + " or shulker box"
            raise InputError(f"{what}: {p} holds {self._block_at(p)}, not a container ({names})")
        return p, c, b

    def set_items(self, pos: object, items: object) -> None:
        """Put items in the container at pos, replacing what it held: a count of a 64-stack item, or a
        list of (item id, count) pairs (e.g. [("ender_pearl", 16)]) filling its slots from the first, where
        None leaves a slot empty (as build files and hoppers leave gaps). Comparators reading it see the new
        fill level (kernels.set_fill); see `fill_level`. A half of a double chest holds its own 27 slots;
        comparators read both halves as one 54-slot inventory."""
        from scicraft_viz.engine import containers

        p, c, b = self._container(pos, "set_items")
        filled = containers.slot_stacks(items, b, f"set_items at {p}")
        self._cg_refused = False
        self._put_slots(p, c, b, containers.padded(filled, b))

    def _put_slots(self, p: Pos, c: int, b: int, slots: tuple, quiet: bool = False) -> None:
        """The container at p (cell c, block b) now holds `slots`; its fill level follows, and so does the
        other half's when it is half of a double chest. `quiet` (block-entity data loaded as a structure is
        placed) sets the levels without telling the comparators that read them."""
        if any(slots):
            self._items[p] = slots
        else:
            self._items.pop(p, None)
        q = self._chest_partner(p) if b == B.CHEST else None
        for h, d in ((p, c), (q, None if q is None else self._find(q))):
            if d is None:
                continue
            if quiet:
                self.g.U[d, sim.POWER] = self._level_of(h, b)
            else:
                self._call(self._k.set_fill, d, self._level_of(h, b))

    def _chest_partner(self, p: Pos) -> Pos | None:
        """The other half of the double chest at p, or None. As vanilla's chest combiner: a left half's
        partner is the block clockwise of its facing (seen from above), a right half's the one counter-
        clockwise, and it must be a chest facing the same way whose type is the other half's."""
        U = self.g.U
        c = self._find(p)
        if c <= 0 or int(U[c, sim.BT]) != B.CHEST or int(U[c, sim.FACE]) == 0:
            return None
        t, f = int(U[c, sim.FACE]), int(U[c, sim.FACING])
        dx, dy, dz = B.OFFSETS[(f + (1 if t == 1 else 3)) % 4]
        q = (p[0] + dx, p[1] + dy, p[2] + dz)
        d = self._find(q)
        if d > 0 and int(U[d, sim.BT]) == B.CHEST and int(U[d, sim.FACING]) == f and int(U[d, sim.FACE]) not in (0, t):
            return q
        return None

    def _level_of(self, p: Pos, b: int) -> int:
        """The fill level of the container at p: a double chest's over both halves' 54 slots, the right
        half's first (vanilla's CompoundContainer order; the float sum is taken in that order)."""
        from scicraft_viz.engine import containers

        q = self._chest_partner(p) if b == B.CHEST else None
        if q is None:
            return containers.fill_level(self._items.get(p, ()), b)
        right, left = (p, q) if int(self.g.U[self._find(p), sim.FACE]) == 2 else (q, p)
        return containers.fill_level(self._items.get(right, ()) + self._items.get(left, ()), b, size=54)

    def contents(self) -> dict[Pos, list[tuple[str, int] | None]]:
        """Every container holding items, {pos: [(item id, count) or None, ...]}: its slots in order up to
        the last filled one, None where a slot is empty (as `slots` gives them, so `set_items` puts each
        stack back in its slot); build files write them as block-entity data."""
        out = {}
        for p, s in sorted(self._items.items()):
            s = list(s)
            while s and s[-1] is None:
                s.pop()
            out[p] = s
        return out

    def items(self, pos: object) -> list[tuple[str, int]]:
        """The stacks the container at pos holds, one (item id, count) per filled slot, in slot order."""
        p, _, _ = self._container(pos, "items")
        return [s for s in self._items.get(p, ()) if s is not None]

    def slots(self, pos: object) -> list[tuple[str, int] | None]:
        """Every slot of the container at pos in order: (item id, count), or None where it is empty (a
        hopper or dropper taking items from its first slots leaves gaps that `items` does not show)."""
        from scicraft_viz.engine import containers

        p, _, b = self._container(pos, "slots")
        return list(self._items.get(p, (None,) * containers.SLOTS[b]))

    # ------------------------------------------------------------------ items moving (block-entity data)
    def _track_hoppers(self, cells: np.ndarray) -> None:
        """After a placement at `cells`: hoppers new there join the tick order at its end, hoppers replaced
        leave it (only a placement makes or takes a hopper: none pops off, no piston moves one)."""
        hop = self.g.U[cells, sim.BT] == B.HOPPER
        if self._hoppers:
            known = np.fromiter(self._hoppers, np.int64, len(self._hoppers))
            for c in cells[~hop & np.isin(cells, known)].tolist():
                del self._hoppers[c]
        for c in cells[hop].tolist():
            self._hoppers.setdefault(c, 0)

    def _container_at(self, p: Pos) -> tuple[int, int]:
        """(cell, block id) of the container at p (containers.BOX for a shulker box), or (0, AIR) when there is
        none."""
        from scicraft_viz.engine import containers

        c = self._find(p)
        b = int(self.g.U[c, sim.BT]) if c > 0 else B.AIR
        if b == B.STONE and containers.is_box_cell(self.g.U, c):
            return c, containers.BOX
        return (c, b) if b in B.CONTAINERS else (0, B.AIR)

    def _reach(self, x: float, y: float, z: float) -> tuple[int, int, object]:
        """Vanilla HopperBlockEntity.getContainerAt(x, y, z): the block container in the cell holding the point
        (cell, block, None), else the first chest or hopper minecart whose box meets the 1-block box centred on the
        point (0, the block its slots follow, the cart), else (0, AIR, None)."""
        p = (math.floor(x), math.floor(y), math.floor(z))
        c, b = self._container_at(p)
        if c > 0 or not self._carts:
            return c, b, None
        from scicraft_viz.engine import carts

        cart = carts.container_in(self._carts, (x - 0.5, y - 0.5, z - 0.5, x + 0.5, y + 0.5, z + 0.5))
        return (0, cart.block(), cart) if cart is not None else (0, B.AIR, None)

    def _reach_cell(self, p: Pos) -> tuple[int, int, object]:
        """`_reach` at the centre of the cell p (what a hopper or dropper looks into)."""
        return self._reach(p[0] + 0.5, p[1] + 0.5, p[2] + 0.5)

    def _held(self, p: Pos, b: int, cart) -> tuple:
        """The slots of the inventory `_reach` found at p: the cart's, or the block container's."""
        return cart.slots if cart is not None else self._slots_at(p, b)

    def _hold(self, p: Pos, c: int, b: int, cart, slots: tuple) -> None:
        """The inventory `_reach` found at p now holds `slots`."""
        if cart is not None:
            cart.slots = slots
        else:
            self._put_inventory(p, c, b, slots)

    def _track_boxes(self, cells: np.ndarray) -> None:
        """After a placement at `cells`: the shulker boxes placed there join the boxes the world watches (a
        piston breaking one drops it), the boxes replaced leave without a drop (a placement, /setblock)."""
        U, P = self.g.U, self.g.P
        box = _is_box(U[cells, sim.BT], U[cells, sim.FACING], U[cells, sim.FACE])
        if self._boxes:  # the boxes a placement replaced
            gone = set(map(tuple, P[cells[~box]].tolist())) & self._boxes
            self._boxes -= gone
            for p in gone:
                self._box_kinds.pop(p, None)
        for p in map(tuple, P[cells[box]].tolist()):
            self._boxes.add(p)
            self._box_kinds[p] = split_state(self._block_at(p))[0].removeprefix("minecraft:")

    def boxes_holding_items(self) -> list[Pos]:
        """The shulker boxes that hold items, by position."""
        return sorted(p for p in self._boxes if p in self._items)

    def _drop_broken_boxes(self) -> None:
        """The shulker boxes a piston broke in the tick just run drop as items (vanilla PistonBaseBlock.moveBlocks:
        dropResources with the box's block entity), each carrying the items the box held (its loot table copies
        them), where Block.popResource puts a dropped item: a random point within a quarter block of the
        box's centre, thrown up at 0.2 with a random sideways speed, picked up after 10 ticks."""
        from scicraft_viz.engine import containers
        from scicraft_viz.engine.items import pop_resource

        U = self.g.U
        for p in sorted(self._boxes):
            c = self._find(p)
            if containers.is_box_cell(U, c):
                continue
            self._boxes.discard(p)
            kind = self._box_kinds.pop(p, "shulker_box")
            held = self._items.pop(p, ())
            at, vel = pop_resource(self._rng, p)
            self._add_entity(containers.with_contents(kind, held), 1, at, vel, 10, 0)

    def _slots_at(self, p: Pos, b: int) -> tuple:
        """The slots hoppers and droppers see at p: a double chest's 54, its right half's first (vanilla's
        CompoundContainer), else the container's own."""
        from scicraft_viz.engine import containers

        return sum((self._items.get(h) or (None,) * containers.SLOTS[b] for h in self._halves(p, b)), ())

    def _halves(self, p: Pos, b: int) -> tuple[Pos, ...]:
        """The containers that make up the inventory at p: a double chest's two halves, right half first."""
        q = self._chest_partner(p) if b == B.CHEST else None
        if q is None:
            return (p,)
        return (p, q) if int(self.g.U[self._find(p), sim.FACE]) == 2 else (q, p)

    def _put_inventory(self, p: Pos, c: int, b: int, slots: tuple) -> None:
        """The inventory at p (as `_slots_at` gives it) now holds `slots`: each half of a double chest takes
        its own 27."""
        halves = self._halves(p, b)
        if len(halves) == 1:
            self._put_slots(p, c, b, slots)
            return
        n = len(slots) // 2
        for h, part in zip(halves, (slots[:n], slots[n:]), strict=True):
            if part != (self._items.get(h) or (None,) * n):  # only the half that changed hears of it
                self._put_slots(h, self._find(h), b, part)

    def _hoppers_due(self) -> int | None:
        """The first game tick at which an unlocked hopper has an item it could move (into the container it
        faces, or from the container above), or None when none has: then nothing but an unlock (the kernels
        stop at one) or the world's own item moves can set one going."""
        from scicraft_viz.engine import containers

        U = self.g.U
        due = None
        for c, ready in self._hoppers.items():
            if not U[c, sim.ON]:
                continue
            p = tuple(self.g.P[c].tolist())
            have = False
            if p in self._items:  # it holds items, and a container that is not full is in front
                f = int(U[c, sim.FACING])
                q = _ahead(p, f)
                cq, bq, cart = self._reach_cell(q)
                have = bq != B.AIR and not containers.is_full(self._held(q, bq, cart), bq, B.OFFSETS.index(_back(f)))
            if not have and not containers.is_full(self._slots_at(p, B.HOPPER), B.HOPPER, -1):
                a = (p[0], p[1] + 1, p[2])  # or it has room, and the container above has items
                ca, ba, cart = self._reach_cell(a)
                have = ba != B.AIR and not containers.is_empty(self._held(a, ba, cart), ba, containers.DOWN)
            if have and (due is None or ready < due):
                due = ready
        return due

    def _move_items(self) -> None:
        """The item moves of the tick just run (vanilla order: droppers and dispensers fire in the scheduled
        ticks, then hoppers tick as block entities, in the order they were placed)."""
        g = self.g
        fired = g.fire[: int(g.meta[sim.M_NFIRE])].tolist()
        g.meta[sim.M_NFIRE] = 0
        g.meta[sim.M_WAKE] = 0
        for c in fired:
            if int(g.U[c, sim.BT]) in (B.DROPPER, B.DISPENSER):
                self._dispense(c)
        if self._boxes:  # block events (a piston breaking a box) come after the scheduled ticks
            self._drop_broken_boxes()
        if self._carts:  # minecarts tick before item entities (docs/limits.md)
            from scicraft_viz.engine import carts

            carts.tick_all(self)
        if self._entities:
            self._tick_entities()
        starts: list = []
        if self._fireballs:  # after the carts and item entities (docs/redstone.md section 97)
            from scicraft_viz.engine import fireballs

            before = {f.id: f.box() for f in self._fireballs}
            fireballs.tick_all(self)
            starts = [before[f.id] for f in self._fireballs if f.id in before]
            self._count_on_plates()
        if self._entities or self._carts or self._fireballs or self._trip_found:
            self._touch_strings(True, starts)
        if self._carts or self._entities or self._fireballs:
            self._push_entities()
        t = self.tick
        for c in list(self._hoppers):
            if self._hoppers[c] <= t:  # read now: a hopper filled earlier in this tick may have been held back
                self._hopper_tick(c, t)
        if self._carts and self._hoppers:  # what a comparator reads through a detector rail, after the hoppers
            from scicraft_viz.engine import carts

            carts.count_on_detectors(self)
        taken = any(e.removed for e in self._entities)
        if self._entities or self._plate_items or self._fireballs:  # items the hoppers took leave the plates
            self._entities = [e for e in self._entities if not e.removed]
            self._count_on_plates()
        if taken and self._trip_found:  # what a string's next check will find without the items taken
            self._touch_strings(False)
        g.meta[sim.M_WAKE] = 0

    def _dispense(self, c: int) -> None:
        """A dropper or dispenser fires (vanilla dispenseFrom). It takes from its first filled slot (vanilla
        picks one at random; see docs/limits.md). A dropper facing a container puts the item in it, or keeps
        it when that container cannot take it; otherwise, and always for a dispenser, the item leaves as an
        item entity thrown out of its front (engine/items.py eject)."""
        from scicraft_viz.engine import containers

        p = tuple(self.g.P[c].tolist())
        b = int(self.g.U[c, sim.BT])
        slots = self._items.get(p)
        if not slots:
            return
        i = next(j for j, s in enumerate(slots) if s is not None)
        name = slots[i][0]
        f = int(self.g.U[c, sim.FACING])
        q = _ahead(p, f)
        if b == B.DISPENSER and (name in BUCKET_CONTENTS or name == "bucket") and self._use_bucket(p, c, slots, i, q):
            return
        if b == B.DISPENSER and name in B.SHULKER_BOXES:  # placed, or kept when it cannot be (section 96)
            self._place_box(p, c, slots, i, q, f)
            return
        cq, bq, cart = self._reach_cell(q) if b == B.DROPPER else (0, B.AIR, None)
        if bq != B.AIR:  # a container block, or a chest or hopper minecart in the cell
            was = self._held(q, bq, cart)
            into = containers.add_one(was, bq, name, B.OFFSETS.index(_back(f)))
            if into is None:
                return
            self._hold(q, cq, bq, cart, into)  # vanilla: the container it fills hears first
            if cart is None and bq == B.HOPPER and not any(was):
                self._hoppers[cq] = self.tick + HOPPER_COOLDOWN - 1
        self._put_slots(p, c, b, containers.take_one(slots, i))
        if bq == B.AIR:  # out into the world as an item entity (docs/redstone.md section 60)
            from scicraft_viz.engine.items import eject

            at, vel = eject(self._rng, p, B.OFFSETS[f])
            self._add_entity(name, 1, at, vel, 0, 0)

    def _place_box(self, p: Pos, c: int, slots: tuple, i: int, q: Pos, f: int) -> None:
        """A dispenser fires the shulker box item in slot i at the cell q in front (vanilla ShulkerBoxDispenseBehavior):
        BlockItem.place into a DirectionalPlaceContext places the box when the block at q can be replaced
        (fluids.replaceable: air, water, lava, fire...; what stood there goes without a drop) and no minecart's box
        overlaps the cell (the box's full collision shape, Level.isUnobstructed: item entities and fireballs do not
        count), facing the way the dispenser faces when the block below q is air, else up (the context's clicked
        face), with the items the item carries; then the slot gives up the item. Otherwise the dispense fails: the
        item stays (the game plays the fail sound), nothing is thrown."""
        from scicraft_viz.engine import containers, fluids

        if not fluids.replaceable(self._block_at(q)) or self._cart_overlaps(q):
            return
        below = self._block_at((q[0], q[1] - 1, q[2]))
        facing = B.DIRECTIONS[f] if below in _AIRS else "up"
        item = slots[i][0]
        self._fluid_set(q, f"minecraft:{item}[facing={facing}]")  # setBlock with its updates
        cq = self._find(q)
        held = containers.contents_of(item)
        if any(held) and containers.is_box_cell(self.g.U, cq):  # the block entity takes the item's contents
            self._put_slots(q, cq, containers.BOX, tuple(held))
        self._put_slots(p, c, B.DISPENSER, containers.take_one(slots, i))

    def _cart_overlaps(self, q: Pos) -> bool:
        """Does a minecart's box overlap the cell q with some volume (touching faces do not)?"""
        from scicraft_viz.engine.items import intersects

        cell = (q[0], q[1], q[2], q[0] + 1, q[1] + 1, q[2] + 1)
        return any(not cart.removed and intersects(cart.box(), cell) for cart in self._carts)

    def _use_bucket(self, p: Pos, c: int, slots: tuple, i: int, q: Pos) -> bool:
        """A dispenser fires the bucket in slot i at the cell q in front (vanilla's dispense behaviours of the
        buckets, docs/redstone.md sections 90 and 98): a filled bucket empties into q (_empty_bucket); an empty one
        takes a water or lava source, powder snow, or the water of a waterlogged block. The block changes with
        updates, then vanilla's consumeWithRemainder: the bucket left over takes the slot when it held one bucket,
        else goes into the first slot that has room for it, else out of the front as an item entity. False when
        the bucket cannot be used (it is then thrown out as any item is, DefaultDispenseItemBehavior)."""
        from scicraft_viz.engine import containers

        name = slots[i][0]
        front = self._block_at(q)
        if name in BUCKET_CONTENTS:
            if not self._empty_bucket(name, q, front):
                return False
            left = "bucket"
        else:
            kind, props = split_state(front)
            if kind in ("water", "lava") and props.get("level", "0") == "0":
                new, left = "minecraft:air", f"{kind}_bucket"
            elif kind == "powder_snow":
                new, left = "minecraft:air", "powder_snow_bucket"
            elif props.get("waterlogged") == "true":
                new, left = front.replace("waterlogged=true", "waterlogged=false"), "water_bucket"
            else:  # flowing water or lava, or nothing to take: no BucketPickup gives a bucket
                return False
            self._fluid_set(q, new)
        b = int(self.g.U[c, sim.BT])
        rest = containers.take_one(slots, i)
        if rest[i] is None:
            rest = rest[:i] + ((left, 1),) + rest[i + 1 :]
        else:
            into = containers.add_one(rest, b, left, -1)
            if into is None:
                from scicraft_viz.engine.items import eject

                at, vel = eject(self._rng, p, B.OFFSETS[int(self.g.U[c, sim.FACING])])
                self._add_entity(left, 1, at, vel, 0, 0)
            else:
                rest = into
        self._put_slots(p, c, b, rest)
        return True

    def _empty_bucket(self, name: str, q: Pos, front: str) -> bool:
        """The filled bucket `name` empties into q, where `front` stands; False when it cannot. Powder snow goes only
        into air (SolidBucketItem: isEmptyBlock). Water and lava follow BucketItem.emptyContents: air, or a block
        the fluid may replace (fluids.fluid_replaceable), or for water a waterloggable block. Water in a
        waterloggable block waterlogs it (placeLiquid, whose fluid tick comes 5 game ticks on) or, already
        waterlogged, leaves it as it is, the bucket emptied all the same. Otherwise a replaceable block or one that
        is not solid is broken with its drops (Level.destroyBlock: each stack the loot gives thrown up from the
        cell, Block.popResource, then the cell set to the block's own fluid or air), unless it is a fluid, and the
        fluid's source is set there. Rails and iron trapdoors, which the engine keeps unwaterlogged, refuse water
        (docs/limits.md)."""
        from scicraft_viz.engine import fluids

        if name not in ("water_bucket", "lava_bucket"):
            if front not in _AIRS:
                return False
            self._fluid_set(q, BUCKET_CONTENTS[name])
            return True
        here = fluids.info(front)
        may_replace = fluids.fluid_replaceable(front)
        water = name == "water_bucket"
        if not (front in _AIRS or may_replace or (here.container and water)):
            return False
        if here.container and water:
            if not here.settable:
                return False
            if not here.waterlogged:
                self._fluid_set(q, fluids.waterlogged(here))
            return True
        if may_replace and front not in _AIRS and here.name not in (fluids.WATER, fluids.LAVA, fluids.BUBBLE_COLUMN):
            from scicraft_viz.engine.items import block_drops, pop_resource

            for item, n in block_drops(front):
                at, vel = pop_resource(self._rng, q)
                self._add_entity(item, n, at, vel, 10, 0)
            self._fluid_set(q, "minecraft:water[level=0]" if here.waterlogged else "minecraft:air")
        fluid = BUCKET_CONTENTS[name]
        if self._block_at(q) != fluid:  # setBlock of the same state changes nothing
            self._fluid_set(q, fluid)
        return True

    def _hopper_tick(self, c: int, t: int, entity: ItemEntity | None = None) -> None:
        """Vanilla HopperBlockEntity.tryMoveItems for a hopper off cooldown: unless locked, push one item
        into the container it faces, then, unless full, pull one from the container above, or with none there
        take a whole item entity from the space above (`entity`: the one item entity inside it that set this
        off, vanilla's entityInside); either restarts its cooldown."""
        from scicraft_viz.engine import containers

        U = self.g.U
        if not U[c, sim.ON]:
            return
        p = tuple(self.g.P[c].tolist())
        moved = False
        mine = self._slots_at(p, B.HOPPER)
        f = int(U[c, sim.FACING])
        q = _ahead(p, f)
        face = B.OFFSETS.index(_back(f))
        # a container block, else a chest or hopper minecart in the cell
        cq, bq, cart = self._reach_cell(q) if any(mine) else (0, B.AIR, None)
        if bq != B.AIR:
            was = self._held(q, bq, cart)
            if not containers.is_full(was, bq, face):
                for i, s in enumerate(mine):
                    if s is None:
                        continue
                    into = containers.add_one(was, bq, s[0], face)
                    if into is not None:
                        mine = containers.take_one(mine, i)
                        self._put_slots(p, c, B.HOPPER, mine)
                        self._hold(q, cq, bq, cart, into)
                        # vanilla: an empty hopper given an item by a hopper moves it on 7 gt later, whichever
                        # of the two ticks first (a hopper minecart has no cooldown)
                        if cart is None and bq == B.HOPPER and not any(was):
                            self._hoppers[cq] = t + HOPPER_COOLDOWN - 1
                        moved = True
                        break
        if not containers.is_full(mine, B.HOPPER, -1):
            a = (p[0], p[1] + 1, p[2])
            ca, ba, cart = self._reach_cell(a)  # a container block, else a chest or hopper minecart above
            if entity is not None or (ba == B.AIR and self._entities):
                if self._pick_up(p, c, entity):
                    moved = True
            elif ba != B.AIR:
                got = self._take_from(a, ca, ba, cart, mine)
                if got is not None:
                    self._put_slots(p, c, B.HOPPER, got)
                    moved = True
        if moved:
            # an item entity inside the hopper sets it going in the entity phase, before its own block-entity
            # tick counts the cooldown down once more
            self._hoppers[c] = t + HOPPER_COOLDOWN - (entity is not None)

    def _take_from(self, a: Pos, ca: int, ba: int, cart, mine: tuple) -> tuple | None:
        """Vanilla suckInItems from the inventory `_reach` found at a (through its bottom face): the first item
        its slots offer that `mine` (a hopper's 5 slots) has room for leaves it; `mine` after taking it, or None
        when nothing moved."""
        from scicraft_viz.engine import containers

        src = self._held(a, ba, cart)
        for i in containers.face_slots(ba, containers.DOWN, len(src)):
            s = src[i]
            if s is None or not containers.can_take(ba, i, s[0], containers.DOWN):
                continue
            into = containers.add_one(mine, B.HOPPER, s[0], -1)
            if into is not None:
                self._hold(a, ca, ba, cart, containers.take_one(src, i))
                return into
        return None

    def _cart_suck(self, cart) -> bool:
        """MinecartHopper.suckInItems, every tick while the hopper minecart is enabled (no cooldown): one item from
        the inventory whose block holds the point 1.5 above the cart's bottom centre (or a container cart meeting
        the block-sized box centred there); with no inventory there, the item entities meeting the hopper's
        suck box (the column from 11/16 to 2 blocks up, a block wide, centred on the cart), no block above stopping
        it; then, when nothing moved, the item entities meeting its own box widened by 0.25 sideways. An item
        entity goes in whole or in part (what does not fit stays); the first taken whole ends the tick's search.
        True when something moved."""
        from scicraft_viz.engine import containers
        from scicraft_viz.engine.items import SUCK_BOX, intersects, moved_box

        x, y, z = cart.pos
        ca, ba, other = self._reach(x, y + 1.5, z)
        a = (math.floor(x), math.floor(y + 1.5), math.floor(z))
        if ba != B.AIR:
            if containers.is_empty(self._held(a, ba, other), ba, containers.DOWN):
                got = None
            else:
                got = self._take_from(a, ca, ba, other, cart.slots)
            if got is not None:
                cart.slots = got
                return True
            boxes = ()
        else:
            boxes = (moved_box(SUCK_BOX, (x - 0.5, y, z - 0.5)),)
        b = cart.box()
        boxes += ((b[0] - 0.25, b[1], b[2] - 0.25, b[3] + 0.25, b[4], b[5] + 0.25),)
        for box in boxes:
            for e in self._entities:
                if e.removed or not intersects(e.box(), box):
                    continue
                slots, left = containers.add_stack(cart.slots, B.HOPPER, e.item, e.count)
                cart.slots = slots
                e.count = left
                if left == 0:
                    e.removed = True
                    return True
        return False

    def _pick_up(self, p: Pos, c: int, entity: ItemEntity | None) -> bool:
        """Vanilla HopperBlockEntity.suckInItems without a container above: the item entities whose boxes
        reach into the column above the hopper (from 11/16 up to 2 blocks), in spawn order, unless a full
        block other than a beehive sits on it; the first taken whole ends the search (a stack taken in part
        stays where it is, smaller, and the search goes on). True when one was taken whole."""
        from scicraft_viz.engine import containers
        from scicraft_viz.engine.items import SUCK_BOX, collision_boxes, intersects, moved_box

        above = self._block_at((p[0], p[1] + 1, p[2]))
        if (entity is None and collision_boxes(above) == ((0, 0, 0, 1, 1, 1),)
                and split_state(above)[0] not in ("beehive", "bee_nest")):  # vanilla's tag does_not_block_hoppers
            return False
        suck = moved_box(SUCK_BOX, p)
        for e in (entity,) if entity is not None else self._entities:
            if e.removed or not intersects(e.box(), suck):
                continue
            slots, left = containers.add_stack(self._slots_at(p, B.HOPPER), B.HOPPER, e.item, e.count)
            if left != e.count:
                self._put_slots(p, c, B.HOPPER, slots)
            e.count = left
            if left == 0:
                e.removed = True
                return True
        return False

    # ------------------------------------------------------------------ item entities (engine/items.py)
    def _add_entity(self, item: str, count: int, pos, vel, pickup_delay: int, age: int) -> int:
        e = ItemEntity(self._next_entity, item, count, [float(v) for v in pos], [float(v) for v in vel], age,
                       pickup_delay)
        self._next_entity += 1
        self._entities.append(e)
        return e.id

    def spawn_item(self, item: object, count: object, pos: object, velocity: object = (0.0, 0.0, 0.0), *,
                   pickup_delay: object = 0, age: object = 0) -> int:
        """Put an item entity into the world: `count` of `item` (an item id such as 'redstone', at most one
        stack) with its box's bottom centre at `pos` (x, y, z in blocks, any real numbers) moving at `velocity`
        (blocks per game tick). `pickup_delay` and `age` in game ticks as vanilla's PickupDelay and Age (32767
        and -32768: never). It moves from the next step on, after the tick's scheduled ticks. Returns its id
        (1, 2, ... in spawn order). docs/redstone.md section 58."""
        name, n, at, vel, delay, age_ = check_item_entity(item, count, pos, velocity, pickup_delay, age, "spawn_item")
        self.g  # noqa: B018  leaves the compiled engine, which has no item entities
        return self._add_entity(name, n, at, vel, delay, age_)

    def item_entities(self) -> list[ItemInfo]:
        """Every item entity in the world, in the order they tick (spawn order)."""
        return [ItemInfo(e.id, e.item, e.count, tuple(e.pos), tuple(e.vel), e.on_ground, e.age, e.pickup_delay)
                for e in self._entities]

    def spawn_fireball(self, pos: object, velocity: object = (0.0, 0.0, 0.0), kind: object = "small_fireball", *,
                       power: object = 0.1) -> int:
        """Put a fireball into the world: `kind` small_fireball (a 0.3125 box), dragon_fireball or fireball (1.0),
        its box's bottom centre at `pos` (x, y, z in blocks) moving at `velocity` (blocks per game tick, each
        component within 10), accelerating by `power` (vanilla's acceleration_power, a finite number) along its
        motion each tick, or by a vector of three (an older file's `power` list). It moves from the next step on,
        after the tick's scheduled ticks. Returns its id (shared with item entities and minecarts, in spawn order).
        docs/redstone.md section 97."""
        from scicraft_viz.engine import fireballs

        spec = fireballs.check_fireball(kind, pos, velocity, power, "spawn_fireball")
        self.g  # noqa: B018  leaves the compiled engine, which has no fireballs
        return fireballs.spawn(self, spec)

    def fireballs(self) -> list:
        """Every fireball in the world, in the order they tick (engine/fireballs.py FireballInfo)."""
        from scicraft_viz.engine import fireballs

        return [fireballs.info(f) for f in self._fireballs]

    def spawn_minecart(self, pos: object, velocity: object = (0.0, 0.0, 0.0), kind: object = "minecart", *,
                       items: object = None, yaw: object = 0.0, fuel: object = 0,
                       push: object = (0.0, 0.0), enabled: object = True) -> int:
        """Put a minecart into the world: `kind` minecart, chest_minecart, hopper_minecart or furnace_minecart, its
        box's bottom centre
        at `pos` (x, y, z in blocks; a cart on a flat rail at (x, y, z) sits at (x + 0.5, y + 0.0625, z + 0.5)) moving
        at `velocity` (blocks per game tick); a chest or hopper minecart holds `items` as `set_items` takes them;
        `yaw` is its heading in degrees (vanilla's Rotation: 0 along x, 90 along z), which decides which carts may
        push it; a furnace minecart burns `fuel` (game ticks, 0 to 32767; a piece of coal gives 3600) and drives itself
        along rails by `push` (x, z: vanilla's PushX, PushZ) while it has fuel; a hopper minecart takes items only while
        `enabled` (vanilla's Enabled, which activator rails set and clear). It
        moves from the next step on, after the tick's scheduled ticks. Returns its id (shared with item entities, in
        spawn order). docs/redstone.md sections 74-76 and 94."""
        from scicraft_viz.engine import carts

        spec = carts.check_cart(kind, pos, velocity, items, "spawn_minecart", yaw, fuel, push, enabled)
        self.g  # noqa: B018  leaves the compiled engine, which has no minecarts
        return carts.spawn(self, spec)

    def minecarts(self) -> list:
        """Every minecart in the world, in the order they tick (engine/carts.py CartInfo)."""
        from scicraft_viz.engine import carts

        return [carts.info(c) for c in self._carts]

    def saved_entities(self) -> list:
        """The minecarts (carts.CartSpec), item entities (items.ItemSpec) and fireballs (fireballs.FireballSpec) as a
        build file keeps them, in spawn order: what the writers save and `from_build_file` spawns again."""
        from scicraft_viz.engine import carts, fireballs
        from scicraft_viz.engine.items import ItemSpec

        alive = sorted([(c.id, carts.spec(c)) for c in self._carts if not c.removed]
                       + [(e.id, ItemSpec(e.item, e.count, tuple(e.pos), tuple(e.vel), e.pickup_delay, e.age))
                          for e in self._entities if not e.removed]
                       + [(f.id, fireballs.spec(f)) for f in self._fireballs if not f.removed], key=lambda it: it[0])
        return [e for _, e in alive]

    def clear_scheduled(self) -> None:
        """Drop every scheduled tick and block event waiting in the world, as vanilla does in a game test's box once
        its structure is placed (placing it block by block sends shape updates: an observer placed before the block
        it watches has scheduled a pulse, which this takes back). Fluid ticks stay, as vanilla's clearing leaves
        them."""
        g = self.g
        n = int(g.meta[sim.M_HEAP])
        g.T[g.H[:n, sim.HCELL], sim.PTIME] = -1
        g.meta[sim.M_HEAP] = 0
        g.meta[sim.M_NBEV] = g.meta[sim.M_BEVH]

    def set_random_seed(self, seed: object) -> None:
        """Seed the world's random source (vanilla's level random, java.util.Random's generator), from which a
        dropper or dispenser draws the velocity of each item it throws out. A new world's seed is 0."""
        if not isinstance(seed, Integral) or isinstance(seed, bool):
            raise InputError(f"set_random_seed: the seed must be an integer, got {_short_repr(seed)}")
        self._rng = JavaRandom(int(seed))

    @property
    def hash_origin(self) -> Pos:
        """Where this world's (0, 0, 0) would stand in a game world (see set_hash_origin); (0, 0, 0) unless set."""
        m = self.g.meta
        return int(m[sim.M_OX]), int(m[sim.M_OY]), int(m[sim.M_OZ])

    def set_hash_origin(self, origin: object) -> None:
        """Say where this world's (0, 0, 0) stands in the game world a build is compared with. Vanilla walks some
        hash sets of block positions (the places a piston's push leaves, the seven places dust updates around
        itself) in an order that follows from each position's hash, which is computed on the absolute position:
        the same build placed elsewhere can act in another order. The engine hashes position + origin. No build
        file format records where its build stood in a world (a structure's own offset is not that), so it stays
        (0, 0, 0) until set."""
        try:
            p = check_pos(origin)
        except PositionError as e:
            raise PositionError(f"set_hash_origin: {e}") from None
        m = self.g.meta
        m[sim.M_OX], m[sim.M_OY], m[sim.M_OZ] = p

    def _tick_entities(self) -> None:
        """The entity phase of the tick just run: each item entity moves (ItemEntity.tick), a hopper it is
        inside may take it, it may merge; then the pressure plates count the items on them."""
        from scicraft_viz.engine.items import (
            SUCK_BOX,
            intersects,
            merge_with_neighbours,
            merges_now,
            moved_box,
            tick_item,
        )
        from scicraft_viz.engine.push import moving_boxes

        world = moving_boxes(self)  # moving blocks collide where they stand
        t = self.tick
        for e in self._entities:
            if e.removed:
                continue
            before = tuple(e.pos)
            moved = tick_item(e, world)
            if e.removed or not moved:
                if not e.removed and merges_now(e, before):
                    merge_with_neighbours(e, self._entities)
                continue
            b = e.box()
            for x in range(math.floor(b[0] + 1e-5), math.floor(b[3] - 1e-5) + 1):
                for y in range(math.floor(b[1] + 1e-5), math.floor(b[4] - 1e-5) + 1):
                    for z in range(math.floor(b[2] + 1e-5), math.floor(b[5] - 1e-5) + 1):
                        if world.name(x, y, z) != "hopper" or e.removed:
                            continue
                        c = self._find((x, y, z))
                        if self._hoppers.get(c, t) < t and intersects(b, moved_box(SUCK_BOX, (x, y, z))):
                            self._hopper_tick(c, t, e)
            if not e.removed and merges_now(e, before):
                merge_with_neighbours(e, self._entities)
        self._entities = [e for e in self._entities if not e.removed]
        self._count_on_plates()

    def _push_entities(self) -> None:
        """The moving blocks' part of the tick just run: each pushes the minecarts and item entities in its way
        (engine/push.py, docs/redstone.md section 89); the detector rails, plates and strings then count again (a
        push moves an entity as its own move does, so a string it is pushed onto trips in this tick)."""
        from scicraft_viz.engine import push

        if push.push_entities(self):
            if self._carts:
                from scicraft_viz.engine import carts

                carts.count_on_detectors(self)
            if self._entities or self._fireballs:
                self._count_on_plates()
            self._touch_strings(True)

    def _count_on_plates(self) -> None:
        """Tell each wooden or weighted pressure plate how many item entities it now counts (their boxes
        overlapping its touch box); stone plates count only mobs and players."""
        from scicraft_viz.engine.items import PLATE_BOX, intersects, moved_box

        plates = set(self._positions(self.cells_of(*B.PLATES)))

        U = self.g.U
        counts: dict[Pos, int] = {}
        for e in self._entities + [f for f in self._fireballs if not f.removed]:  # fireballs too (section 97)
            b = e.box()
            for x in range(math.floor(b[0]), math.floor(b[3]) + 1):
                for y in range(math.floor(b[1]), math.floor(b[4]) + 1):
                    for z in range(math.floor(b[2]), math.floor(b[5]) + 1):
                        if (x, y, z) not in plates:
                            continue
                        c = self._find((x, y, z))
                        if c > 0 and _counts_items(U, c) and intersects(b, moved_box(PLATE_BOX, (x, y, z))):
                            counts[(x, y, z)] = counts.get((x, y, z), 0) + 1
        for p in counts.keys() | self._plate_items.keys():
            n, old = counts.get(p, 0), self._plate_items.get(p, 0)
            c = self._find(p)
            if c <= 0 or not _counts_items(U, c):
                self._plate_items.pop(p, None)
                continue
            have = int(U[c, sim.ENTITIES])
            want = min(max(have - old, 0) + n, 255)  # the others (set_entities) and the items now
            if have != want:  # (a plate placed anew where items lay starts from none)
                self._call(self._k.set_entities, c, want)
                U = self.g.U
            if n:
                self._plate_items[p] = n
            else:
                self._plate_items.pop(p, None)

    def _touch_strings(self, press: bool, starts: list | None = None) -> None:
        """Tripwire and entities (docs/redstone.md sections 88 and 101): every string whose cell an item entity's,
        minecart's or fireball's box reaches into (vanilla Entity.checkInsideBlocks: the box shrunk by 1e-7) keeps
        whether a box meets its attached shape (bit 0) and its unattached one (bit 1), for its next check
        (kernels.string_check). With `press`, an unpowered string so reached checks at once (vanilla entityInside);
        without, the bits are only kept up to date (after the hoppers took items). `starts` are the boxes the
        fireballs still flying had as this tick began: a fireball looks into the blocks before it moves
        (AbstractHurtingProjectile.tick), so a string it reaches only after its move is tripped in its next tick."""
        boxes = ([e.box() for e in self._entities if not e.removed] + [c.box() for c in self._carts if not c.removed]
                 + [f.box() for f in self._fireballs if not f.removed])
        found = self._string_bits(boxes)
        trips = found
        if starts:  # what the strings' checks see now: the fireballs where they stood before their move
            trips = self._string_bits(boxes[:len(boxes) - len(starts)] + starts)
        for p in sorted(self._trip_found | found.keys() | trips.keys()):
            bits = self._trip_bits(p)
            if not bits & B.T_STRING:
                continue
            c = self._find(p)
            want = found.get(p, 0)
            if press and trips.get(p, 0) and not bits & B.T_POWERED:
                self._call(self._k.trip_entities, c, trips[p])
                c = self._find(p)
            self.g.U[c, sim.ENTITIES] = want
        self._trip_found = {p for p, v in found.items() if v}

    def _string_bits(self, boxes: list) -> dict[Pos, int]:
        """For each string a box reaches into (the box shrunk by 1e-7): bit 0 when a box meets its attached shape,
        bit 1 its unattached one."""
        from scicraft_viz.engine.items import intersects, moved_box

        reach = [(b, (x, y, z)) for b in boxes
                 for x in range(math.floor(b[0] + 1e-7), math.floor(b[3] - 1e-7) + 1)
                 for y in range(math.floor(b[1] + 1e-7), math.floor(b[4] - 1e-7) + 1)
                 for z in range(math.floor(b[2] + 1e-7), math.floor(b[5] - 1e-7) + 1)]
        found: dict[Pos, int] = {}
        if reach:  # the cells the boxes reach, looked up at once; only strings matter
            cells = self._cells(np.array([p for _, p in reach], np.int64).reshape(-1, 3))
            U = self.g.U
            ok = cells > 0
            number = U[cells, sim.FACING].astype(np.int64) | U[cells, sim.FACE].astype(np.int64) << 8
            string = ok & (U[cells, sim.BT] == B.PARTIAL) & (B.TRIP[np.where(ok, number, 0)] & B.T_STRING != 0)
            for j in np.nonzero(string)[0].tolist():
                b, p = reach[j]
                bits = found.get(p, 0)
                if intersects(b, moved_box(STRING_ATTACHED_BOX, p)):
                    bits |= 1
                if intersects(b, moved_box(STRING_LOOSE_BOX, p)):
                    bits |= 2
                found[p] = bits
        return found

    def _trip_bits(self, p: Pos) -> int:
        """blocks.TRIP of the block at p (0 unless a tripwire hook or string)."""
        c = self._find(p)
        if c <= 0:
            return 0
        U = self.g.U
        if int(U[c, sim.BT]) != B.PARTIAL:
            return 0
        return int(B.TRIP[int(U[c, sim.FACING]) | int(U[c, sim.FACE]) << 8])

    def fill_level(self, pos: object) -> int:
        """The signal a comparator reads from the container at pos (0-15)."""
        _, c, _ = self._container(pos, "fill_level")
        return int(self.g.U[c, sim.POWER])

    def output_signal(self, pos: object) -> int:
        """The output strength the comparator at pos holds (vanilla's block-entity OutputSignal); it
        emits it while powered (see `power`)."""
        p = check_pos(pos)
        c = self._find(p)
        if c <= 0 or int(self.g.U[c, sim.BT]) != B.COMPARATOR:
            raise InputError(f"output_signal: {p} holds {self._block_at(p)}, not a comparator")
        return int(self.g.U[c, sim.POWER])

    def _call(self, kernel, *args) -> int:
        """Run an action kernel that answers as `use` does (2: make room and call again; 3: overflow)."""
        r = kernel(self.g, *args)
        if r == 2:
            self._reserve()
            r = kernel(self.g, *args)
        if r == 3:
            self._check()
        return r

    # ------------------------------------------------------------------ pressure plates
    def _plate(self, pos: object, what: str) -> tuple[Pos, int]:
        p = check_pos(pos)
        c = self._find(p)
        if c <= 0 or int(self.g.U[c, sim.BT]) not in B.PLATES:
            raise InputError(f"{what}: {p} holds {self._block_at(p)}, not a pressure plate")
        return p, c

    def set_entities(self, pos: object, n: object) -> None:
        """Put n entities on the pressure plate at pos (0 takes them off). An unpressed plate with entities
        on it is pressed at once, as vanilla's entityInside does during the tick just run; a pressed plate
        notices a change only at its re-check (20 game ticks after a press for stone and wooden plates, 10
        for weighted ones). Stone and wooden plates give 15 for any entity (n counts what the plate detects:
        a stone plate only mobs and players); a light weighted plate min(n, 15), a heavy one
        ceil(min(n, 150) / 10)."""
        p = check_pos(pos)
        i = self._cg.plates.get(p) if self._cg is not None else None  # a plate on the compiled graph
        if i is None:
            p, c = self._plate(p, "set_entities")
        if not isinstance(n, Integral) or isinstance(n, bool) or n < 0:
            raise InputError(f"set_entities at {p}: the number of entities must be a non-negative integer, "
                             f"got {_short_repr(n)}")
        if i is not None:
            self._cg.set_entities(i, int(min(n, 255)))
            return
        self._call(self._k.set_entities, c, int(min(n + self._plate_items.get(p, 0), 255)))

    def entities(self, pos: object) -> int:
        """The number of entities on the pressure plate at pos (set_entities, and the item entities it counts; at
        most 255 are kept)."""
        _, c = self._plate(pos, "entities")
        return int(self.g.U[c, sim.ENTITIES])

    # ------------------------------------------------------------------ daylight
    _items_rec: dict | None = None  # set by record(): {tick: the item entities after it}
    _has_daylight = False  # set when a daylight sensor is placed (see _run)
    # The day time follows the game tick: day_time = tick + _day_offset (a new world starts at day time 0,
    # sunrise; vanilla's daylight cycle adds 1 a tick).
    _day_offset = 0

    @property
    def time_of_day(self) -> int:
        """Vanilla's day time now (0 sunrise, 6000 noon, 12000 sunset, 18000 midnight; it goes on past
        24000, as vanilla's does). It advances one per game tick."""
        return self.tick + self._day_offset

    def set_time_of_day(self, t: object) -> None:
        """Set the day time (as /time set does). Daylight sensors see it at their next update: every game
        tick that is a multiple of 20, after the tick's scheduled ticks (vanilla's block-entity phase)."""
        if not isinstance(t, Integral) or isinstance(t, bool) or not 0 <= t <= 2**62:
            raise InputError(f"set_time_of_day: the day time must be a non-negative integer (0 sunrise, 6000 noon, "
                             f"18000 midnight), got {_short_repr(t)}")
        self._day_offset = int(t) - self.tick
        if self._cg is not None:  # the compiled graph's sensors follow the same clock
            self._cg.cw.day_offset = self._day_offset

    def _daylight_output(self, tick: int, inverted: int) -> int:
        from scicraft_viz.engine.daylight import sensor_output

        # vanilla works out the sky's darkness at the start of a tick, before the day time advances
        return sensor_output(tick + self._day_offset, inverted)

    def _update_daylight(self, sensors: np.ndarray) -> None:
        """The daylight sensors' block-entity update at the current tick (a multiple of 20)."""
        U = self.g.U
        for c in sensors.tolist():
            if int(U[c, sim.BT]) == B.DAYLIGHT:
                inverted = int(U[c, sim.ON])
                self._call(self._k.set_output, c, self._daylight_output(self.tick, inverted), inverted)

    def _forget_replaced_containers(self) -> None:
        """Drop the contents of containers a placement replaced (their level went back to 0), and set the
        level of each chest whose pairing a placement may have changed (a half placed or removed beside it)."""
        from scicraft_viz.engine import containers

        U = self.g.U
        near = set()
        for p in self._items:
            near.add(p)
            near.update((p[0] + dx, p[1], p[2] + dz) for dx, _, dz in B.OFFSETS[:4])
        for p in list(self._items):
            c = self._find(p)
            if (c <= 0 or (int(U[c, sim.BT]) not in B.CONTAINERS and not containers.is_box_cell(U, c))
                    or int(U[c, sim.POWER]) == 0):
                del self._items[p]
        # A half placed or removed beside a chest changes what a comparator reading that chest would get, but
        # vanilla tells no comparator: the block's update reaches the new half's own neighbours only, and the
        # other half's change of shape is no output-signal update. A comparator reads the new level at its
        # next update, so the level is set here without notifying (set_fill would notify).
        for p in sorted(near):
            c = self._find(p)
            if c > 0 and int(U[c, sim.BT]) == B.CHEST:
                U[c, sim.POWER] = self._level_of(p, B.CHEST)

    def remove_block(self, pos: object) -> None:
        """Replace the block at pos with air; blocks it supported pop off."""
        self.set_block(pos, "air")

    def use(self, pos: object) -> bool:
        """A player's right-click at pos: press a button, toggle a lever, cycle a repeater's delay,
        switch a comparator between compare and subtract (it recomputes its output at once), raise a note
        block's note by one (24 wraps to 0; it plays when the block above is air), toggle
        unconnected dust between cross and dot, or open or close a wooden door, trapdoor or fence gate
        (not an iron one). Returns True if anything changed."""
        cg = self._cg
        if cg is not None:  # a button or lever on the compiled graph (Runner.use, inlined)
            if pos is cg.last_pos:  # the very tuple last found at a button or lever: checked then
                i = cg.last_node
            else:
                p = check_pos(pos)  # one validation whichever engine runs: (0.0, 1, 0) or (0, True, 0) is refused
                i = cg.buttons.get(p)
                if i is not None and p is pos:  # a tuple of ints (a list could change before the next call)
                    cg.last_pos, cg.last_node = pos, i
            if i is not None:
                if cg.act >= 0:
                    cg.advance(0)
                release = cg.release[i]
                if release is not None:
                    tick = cg.tick
                    if tick < release:
                        return False  # still pressed
                    cg.release[i] = tick + cg.press_ticks
                cg.act = i
                return True
        pos = check_pos(pos)
        c = self._find(pos)
        if c <= 0:
            return False
        self._cg_calls += 1
        if self.g.U[c, sim.BT] == B.DAYLIGHT:  # inverted toggles and the output is worked out at once
            inverted = 1 - int(self.g.U[c, sim.ON])
            self._call(self._k.set_output, c, self._daylight_output(self.tick, inverted), inverted)
            return True
        if self.g.U[c, sim.BT] not in (B.BUTTON, B.LEVER):
            self._cg_refused = False
        r = self._k.use(self.g, c)
        if r == 2:
            self._reserve()
            r = self._k.use(self.g, c)
        if r == 3:
            self._check()
        return r == 1

    def step(self, n: int = 1) -> None:
        """Advance n game ticks, running the ticks scheduled for each."""
        cg = self._cg
        if cg is not None and type(n) is int and 0 <= n <= MAX_TICK - (until := cg.tick):
            until += n
            act, cg.act = cg.act, -1  # a press made since the last step acts first (Runner.advance, inlined)
            if cg.kernel(cg.G, cg.S, until, act):
                cg.tick = until
            else:  # the graph stopped before a tick it cannot take: the reference engine goes on
                self._cg_sync()
                self._run(until)
            return
        if type(n) is not int or not 0 <= n <= MAX_TICK - self.tick:
            n = self._tick_count(n, "step count")
        if self._cg_engage(n):
            self.step(n)
            return
        self._run(self.tick + n)

    def _tick_count(self, n: object, what: str) -> int:
        if not isinstance(n, Integral) or isinstance(n, bool) or n < 0:
            raise ValueError(f"{what} must be a non-negative integer, got {n!r}")
        if n > MAX_TICK - self.tick:
            raise ValueError(
                f"{what} {n} would take the world past game tick 2**60 = {MAX_TICK:,}, the engine's limit "
                f"(now at tick {self.tick:,})"
            )
        return int(n)

    def _run(self, until: int, rec: tuple | None = None) -> None:
        k = self._k
        if rec is None:
            rec = (_NO_CELLS, _NO_CELLS, _NO_ROWS, _NO_ROWS)
        row = 1
        start = self.tick
        # daylight sensors: none can appear or go while the world steps (nothing pops them); looked for only
        # once one was placed, so that stepping a world without them never scans its cells
        sensors = self.cells_of(B.DAYLIGHT) if self._has_daylight else _NO_CELLS
        if self._has_daylight and not len(sensors):
            self._has_daylight = False
        while True:
            # with daylight sensors, the run stops at each multiple of 20 for their update; with hoppers, at the
            # first tick one may move an item (the kernels stop by themselves after a dropper fires or a
            # hopper is unlocked)
            stop = until if not len(sensors) else min(until, (self.tick // 20 + 1) * 20)
            # entities move every tick; water is watched (a shulker box a piston breaks drops in its tick: the
            # kernels stop at the end of that tick by themselves)
            if self._entities or self._carts or self._fireballs or self._fluid is not None:
                stop = min(stop, self.tick + 1)
            if self._fluid is not None:
                self._fluid_sync()  # what an action changed beside water since the last tick
            elif self._hoppers:
                due = self._hoppers_due()
                if due is not None:
                    stop = min(stop, max(self.tick + 1, due))
            self.g.meta[sim.M_WAKE] = 0
            reached = k.run(self.g, stop, rec[0], rec[1], rec[2], rec[3], row)
            while reached >= 0 and self.g.meta[sim.M_CMD] > 0:  # a command block's tick, inside tick reached + 1
                row += reached - start
                start = reached
                c = int(self.g.meta[sim.M_CMD])
                self.g.meta[sim.M_CMD] = 0
                commands.run_tick(self, c)
                self._reserve()
                self.g.meta[sim.M_CMD] = -1  # the kernels go on with the rest of the tick
                reached = k.run(self.g, stop, rec[0], rec[1], rec[2], rec[3], row)
            if reached < 0:
                self._check()  # raises on overflow
            row += reached - start
            moved, start = reached > start, reached
            wet = False
            if moved and self._fluid is not None:  # the fluid ticks, after the block ticks (ServerLevel.tick)
                self._fluid_sync()
                self._fluid_busy = True
                try:
                    wet = self._fluid.run_due(self, reached)
                finally:
                    self._fluid_busy = False
                if wet:
                    self._fluid_sync()
            if moved:
                items = bool(self.g.meta[sim.M_NFIRE] or self._hoppers or self._entities or self._plate_items
                             or self._carts or self._fireballs or self._trip_found or self._boxes)
                if items:
                    self._move_items()
                    if self._items_rec is not None:  # record() keeps each tick's item entities and minecarts
                        self._items_rec[reached] = tuple(self.item_entities())
                        if self._carts:
                            self._items_rec[("carts", reached)] = tuple(self.minecarts())
                        if self._fireballs:
                            self._items_rec[("fireballs", reached)] = tuple(self.fireballs())
                if len(sensors) and reached % 20 == 0:
                    self._update_daylight(sensors)
                if (items or wet or (len(sensors) and reached % 20 == 0)) and len(rec[2]) and row - 1 < len(rec[2]):
                    rec[2][row - 1] = self.g.U[rec[0], sim.ON]  # the row of this tick shows the update
                    rec[3][row - 1] = self.g.U[rec[1], sim.POWER]
            if reached == until:
                return
            if reached != stop:
                self._check()
                self._reserve()

    # ------------------------------------------------------------------ water (engine/fluids.py)
    def _fluid_set(self, p: Pos, state: str) -> None:
        """A fluid tick's setBlock: the state as given (no player derivation), with the engine's updates."""
        _, row = _parse_item(state, True)
        self._load(np.array([p], np.int64), np.array([row], np.int64), np.zeros(1, np.uint8))

    def _fluid_sync(self) -> None:
        """Ask for the fluid ticks vanilla would have asked for since the last look: a water block placed
        (LiquidBlock.onPlace), and water or a waterlogged block beside a block that changed (neighborChanged,
        updateShape), in the order of the cells, each changed cell's neighbours in vanilla's update order."""
        from scicraft_viz.engine import fluids

        if self._fluid is None:
            self._fluid = fluids.FluidTicks()
        f = self._fluid
        g = self.g
        n = int(g.meta[sim.M_NCELL])
        cur = g.U[:n, : sim.LOCKED + 1]
        snap = f.snap
        if snap is None:
            changed = np.arange(1, n)
        else:
            m = min(len(snap), n)
            changed = np.concatenate([np.nonzero((cur[:m] != snap[:m]).any(axis=1))[0], np.arange(m, n)])
        f.snap = cur.copy()
        if not len(changed):
            return
        t = self.tick
        wet = {}

        def watery(c: int) -> object:
            if c not in wet:
                wet[c] = fluids.info(self._state_at(c)) if c > 0 else None
            i = wet[c]
            return i if i is not None and i.amount else None

        lava = []  # lava placed, or beside a change: it looks for water (LiquidBlock.onPlace, neighborChanged)
        for c in changed.tolist():
            if c <= 0:
                continue
            i = watery(c)
            if i is not None:
                f.schedule(tuple(g.P[c].tolist()), fluids.SOURCE if i.source else fluids.FLOWING, t + fluids.TICK_DELAY)
            elif wet[c] is not None and wet[c].lava:
                lava.append(c)
            for k in fluids.UPDATE_ORDER:
                q = int(g.N[c, sim.FC[k]])
                j = watery(q) if q > 0 else None
                if j is not None:
                    f.schedule(tuple(g.P[q].tolist()), fluids.SOURCE if j.source else fluids.FLOWING,
                               t + fluids.TICK_DELAY)
                elif q > 0 and wet[q] is not None and wet[q].lava:
                    lava.append(q)
        if lava:
            self._fluid_busy = True
            try:
                for c in dict.fromkeys(lava):
                    fluids.lava_meets(self, tuple(g.P[c].tolist()), t, f)
            finally:
                self._fluid_busy = False

    def fluid_ticks(self) -> list[tuple[int, Pos, str]]:
        """The pending fluid ticks in the order they run: (due game tick, position, 'water' for a source's or
        'flowing_water'). docs/redstone.md section 67."""
        return self._fluid.listing() if self._fluid is not None else []

    def water(self) -> dict[Pos, str]:
        """Every water block, waterlogged block and bubble column, {position: state}."""
        from scicraft_viz.engine import fluids

        return {p: s for p, s in self.blocks().items() if fluids.is_watery(s)}

    def blocks(self) -> dict[Pos, str]:
        """Every non-air block as {position: canonical state}, in x, y, z order."""
        cells = self._sorted(np.nonzero(self.g.U[: self._ncell, sim.BT])[0])
        return dict(zip(self._positions(cells), self._states(cells), strict=True))

    def moving(self) -> dict[Pos, MovingBlock]:
        """Every block in motion, by the position of the moving_piston that carries it (its destination),
        in x, y, z order: what it is, where from, and how far along."""
        g = self.g
        out: dict[Pos, MovingBlock] = {}
        for c in self.cells_of(B.MOVING_PISTON).tolist():
            u = g.U[c].tolist()
            row = [0] * len(u)
            for col, mb in ((sim.BT, sim.MB_BT), (sim.FACING, sim.MB_FACING), (sim.FACE, sim.MB_FACE),
                            (sim.DELAY, sim.MB_DELAY), (sim.ON, sim.MB_ON)):
                row[col] = u[mb]
            flags = u[sim.MB_FLAGS]
            extending, piston = bool(flags & sim.MB_EXTENDING), bool(flags & sim.MB_SOURCE)
            f = u[sim.FACING]
            d = f if extending else ((f + 2) % 4 if f < 4 else 9 - f)  # kernels.opp
            pos = tuple(g.P[c].tolist())
            step = (0, 0, 0) if piston and not extending else B.OFFSETS[d]
            source = (pos[0] - step[0], pos[1] - step[1], pos[2] - step[2])
            out[pos] = MovingBlock(self._state_of(row), source, B.DIRECTIONS[d], u[sim.MB_STEP] / 2, extending, piston)
        return out

    def blocks_by_state(self) -> dict[str, list[Pos]]:
        """The non-air blocks grouped by canonical state, {state: [positions in x, y, z order]}: what
        `blocks()` holds, read in one vectorised pass for code that looks at blocks by kind."""
        cells = self._sorted(np.nonzero(self.g.U[: self._ncell, sim.BT])[0])
        if not len(cells):
            return {}
        key = np.ascontiguousarray(self.g.U[cells, : sim.LOCKED + 1]).view(np.uint64).ravel()
        _, first, inv = np.unique(key, return_index=True, return_inverse=True)
        inv = inv.ravel()
        order = np.argsort(inv, kind="stable")  # grouped by key, x, y, z order kept inside each group
        ends = np.cumsum(np.bincount(inv, minlength=len(first))).tolist()
        pos = self._positions(cells[order])
        out: dict[str, list[Pos]] = {}
        start = 0
        for c, end in zip(cells[first].tolist(), ends, strict=True):
            s = self._state_at(c)
            # keys differing only in what the state string leaves out (a stone's power) share a state
            out[s] = sorted(out[s] + pos[start:end]) if s in out else pos[start:end]
            start = end
        return out

    def cells_of(self, *ids: int) -> np.ndarray:
        """Cell indices of the blocks with any of the given ids, in x, y, z order (engine use)."""
        return self._sorted(np.nonzero(_is_any(self.g.U[: self._ncell, sim.BT], ids))[0].astype(np.int64))

    def copy(self) -> World:
        """An independent copy: same blocks, tick, pending ticks and recent events. The engine's event
        buffer is not copied: pending events are moved to the history first, which both share."""
        self._drain()
        w = World.__new__(World)
        w.__dict__.update(self.__dict__)
        w._ev_chunks = deque(self._ev_chunks)
        w._items = dict(self._items)
        w._hoppers = dict(self._hoppers)
        w._boxes = set(self._boxes)
        w._box_kinds = dict(self._box_kinds)
        w._entities = [copy.deepcopy(e) for e in self._entities]
        w._carts = [copy.deepcopy(c) for c in self._carts]
        w._fireballs = [copy.deepcopy(f) for f in self._fireballs]
        w._fireball_warned = set(self._fireball_warned)
        w._rng = copy.deepcopy(self._rng)
        w._plate_items = dict(self._plate_items)
        w._trip_found = set(self._trip_found)
        w._test_messages = dict(self._test_messages)
        w._commands = {p: copy.copy(d) for p, d in self._commands.items()}
        w._command_log = commands.new_messages()
        w._command_log.extend(self._command_log)
        w._fluid = self._fluid.copy() if self._fluid is not None else None
        w.g = self._regrid(self.g.U.shape[0], self.g.HT.shape[0])
        return w

    def _become_copy_of(self, src: World) -> bool:
        """Become what src.copy() would give, in this world's arrays when they have src's shapes (no
        allocation: an evaluation thread reuses one world); False, changing nothing, when they do not.
        Rows past src's cells may hold old data: the engine rewrites a row whole before it uses it."""
        g, s = self.g, src.g
        if any(getattr(g, k).shape != getattr(s, k).shape for k in ("N", "U", "T", "P", "HT", "H", "E", "bev", "mov")):
            return False
        src._drain()
        n, nh = int(s.meta[sim.M_NCELL]), int(s.meta[sim.M_HEAP])
        for k in ("N", "U", "T", "P"):
            getattr(g, k)[:n] = getattr(s, k)[:n]
        g.HT[:] = s.HT
        g.H[:nh] = s.H[:nh]
        nb, nm = int(s.meta[sim.M_NBEV]), int(s.meta[sim.M_NMOV])
        g.bev[:nb] = s.bev[:nb]
        g.mov[:nm] = s.mov[:nm]
        g.meta[:] = s.meta
        self.__dict__.clear()  # counters and flags this world gathered (e.g. toward the compiled engine) go too
        self.__dict__.update(src.__dict__)
        self._g = g
        self._ev_chunks = deque(src._ev_chunks)
        self._items = dict(src._items)
        self._hoppers = dict(src._hoppers)
        self._boxes = set(src._boxes)
        self._box_kinds = dict(src._box_kinds)
        self._entities = [copy.deepcopy(e) for e in src._entities]
        self._carts = [copy.deepcopy(c) for c in src._carts]
        self._fireballs = [copy.deepcopy(f) for f in src._fireballs]
        self._fireball_warned = set(src._fireball_warned)
        self._rng = copy.deepcopy(src._rng)
        self._plate_items = dict(src._plate_items)
        self._trip_found = set(src._trip_found)
        self._test_messages = dict(src._test_messages)
        self._commands = {p: copy.copy(d) for p, d in src._commands.items()}
        self._command_log = commands.new_messages()
        self._command_log.extend(src._command_log)
        self._fluid = src._fluid.copy() if src._fluid is not None else None
        return True

    def record(self, n: int, *, lamps_only: bool = False, dust=None):
        """Run n game ticks and return a Trace with n+1 rows (row 0 is the state now). lamps_only and
        dust (positions) narrow what is recorded (see engine.trace.record)."""
        from scicraft_viz.engine.trace import record

        return record(self, n, lamps_only=lamps_only, dust=dust)

    # ------------------------------------------------------------------ read-only probes (a multimeter)
    def power(self, pos: object) -> Power:
        """The power at pos as the engine sees it now: `strong` (what a repeater, torch, button or lever
        (15) or a comparator (its output) strongly powers this conductor with), `weak` (the strongest
        signal reaching this block from any side, dust included: what lights a lamp or feeds a repeater),
        and `level` (dust: its power; a repeater, torch, button, lever or redstone block: 15 when it emits,
        else 0; a comparator: its output while powered; a container: its fill level; a pressure plate or
        daylight sensor: its output)."""
        p = check_pos(pos)
        c = self._find(p)
        if c <= 0:
            return Power(0, 0, 0)
        g, k = self.g, self._k
        U, N = g.U, g.N
        b = int(U[c, sim.BT])
        conductor = bool(k.is_conductor(b))
        strong = int(k.strong_into(U, N, c)) if conductor else 0
        if conductor or b == B.GLASS:
            # a conductor is weakly powered by dust pointing into it or lying on it, not by its neighbours
            weak = int(k.dust_into(U, N, c)) if b != B.GLASS else 0
        else:
            weak = max((int(k.signal_to(U, N, N[c, sim.FC[d]], d, True)) for d in range(6)), default=0)
        if b == B.WIRE:
            level = int(U[c, sim.POWER])
        elif b == B.REDSTONE_BLOCK:
            level = 15
        elif b in (B.REPEATER, B.TORCH, B.WALL_TORCH, B.BUTTON, B.LEVER, B.OBSERVER):
            level = 15 if U[c, sim.ON] else 0
        elif b == B.COMPARATOR:
            level = int(U[c, sim.POWER]) if U[c, sim.ON] else 0
        elif b in B.CONTAINERS or b in B.PLATES or b == B.DAYLIGHT or p in self._boxes:
            level = int(U[c, sim.POWER])
        else:
            level = 0
        return Power(strong, max(weak, strong), level)

    def scheduled(self) -> list[Scheduled]:
        """The scheduled ticks still pending, in the order the engine will run them: each names the
        game tick it is due, the block, and its priority (0 runs first among ticks due together)."""
        g = self.g
        n = int(g.meta[sim.M_HEAP])
        H = g.H[:n]
        order = np.lexsort((H[:, sim.HK2], H[:, sim.HK1]))
        out = []
        for i in order.tolist():
            k1, c, ty = int(H[i, sim.HK1]), int(H[i, sim.HCELL]), int(H[i, sim.HTYPE])
            due = k1 // 4
            # an entry whose block was replaced, or that a later one superseded, will do nothing
            if int(g.U[c, sim.BT]) != ty or int(g.U[c, sim.PTYPE]) != ty or int(g.T[c, sim.PTIME]) != due:
                continue
            out.append(Scheduled(due, tuple(g.P[c].tolist()), self._name_of(c, ty), k1 % 4))
        return out

    def memory_bytes(self) -> int:
        """Bytes held by the world's arrays (capacity included; untouched pages cost no RAM)."""
        return sum(a.nbytes for a in self.g)

    # ------------------------------------------------------------------ build files
    def to_mcfunction(self) -> str:
        from scicraft_viz.engine.mcfunction import to_mcfunction

        return to_mcfunction(self.blocks(), self.command_block_entities())

    @classmethod
    def from_mcfunction(cls, text: str, replay: bool = False, source: str = "<string>") -> World:
        from scicraft_viz.engine.mcfunction import build_world

        return build_world(text, replay=replay, source=source)

    # Schematics (scicraft_viz.engine.formats): `src` is a path or the file's bytes; `to_*` returns the
    # bytes and also writes them when given a path.
    @classmethod
    def from_build_file(cls, src, replay: bool | None = None, fmt: str | None = None, *,
                        skip_unsupported: bool = False, box=None, in_world: bool = False,
                        placed: bool = False) -> World:
        """A World from any build file (.mcfunction, .litematic, .schem, .nbt, .snbt, .schematic) given as a path
        or bytes.

        Schematics and structures load as a paste does (replay=True, /setblock's rules): states as saved
        (a button saved pressed stays pressed), and a block whose support lies outside the file is kept
        until an update reaches it. Setblock text (.mcfunction) is placed as a player would unless
        replay=True. Blocks the engine does not know refuse the file, naming each with its count and
        positions; skip_unsupported=True leaves them out with an UnsupportedBlocksWarning listing them.
        A world's region file (.mca) is read inside `box` (x0, y0, z0, x1, y1, z1), as a paste.

        in_world=True loads the build as it stands in the world it was saved from, at rest, rather than pasted
        into a new one: the states and block-entity data as saved and nothing waiting, no scheduled tick, block
        event or fluid tick. A paste hands each block's neighbours the updates of its placement as it goes, so an
        observer written before the block it watches, a leaf, or a comparator whose container is filled after
        it has a tick due; in the game's own world none of them has (docs/redstone.md section 79). It implies
        replay=True. The few blocks the engine settles as it writes them come out as a paste leaves them (an
        observer saved powered is unpowered, its pulse's end being a tick the file cannot hold).

        placed=True loads the build as the game places a structure (StructureTemplate.placeInWorld, a structure
        block's load or /place without its update pass; `structure_updates` adds that pass): the blocks are written
        one at a time in the game's order (full blocks, then the others, then those with block-entity data, each
        by y, x, z), each with the updates /setblock sends, so what a block works out from its neighbours (a
        repeater's lock, a dust's power, a piston's push or pull) follows what is already written; each block's
        block-entity data (a container's items, a comparator's output) is taken as soon as the block is written,
        without updates; and at the end each of those blocks has the comparators beside it re-read it. It implies
        replay=True (docs/redstone.md section 86)."""
        from scicraft_viz.engine import formats
        from scicraft_viz.engine.mcfunction import world_from_blocks

        if isinstance(src, (bytes, bytearray)):
            data, source = bytes(src), "<bytes>"
        else:
            from scicraft_viz.safeio import shown

            data, source = formats.read_file_bytes(src, formats.region_limit(src, fmt)), shown(str(src))
        kind = fmt or formats.detect_format(data, source)
        if in_world not in (True, False):
            raise InputError(f"from_build_file: in_world must be True or False, got {_short_repr(in_world)}")
        if in_world and replay is False:
            raise InputError("from_build_file: in_world=True loads the states as saved, which replay=False "
                             "(a player's placement) would re-derive; leave replay out")
        if placed not in (True, False):
            raise InputError(f"from_build_file: placed must be True or False, got {_short_repr(placed)}")
        if placed and in_world:
            raise InputError("from_build_file: placed=True places the build as the game places a structure and "
                             "in_world=True loads it as it stood in its world; give one of them")
        if placed and replay is False:
            raise InputError("from_build_file: placed=True writes the states as saved, which replay=False "
                             "(a player's placement) would re-derive; leave replay out")
        if in_world or placed:
            replay = True
        if replay is None:
            replay = kind != "mcfunction" and formats.build_text(data, kind, source) is None
        items = formats.decode_build(data, fmt, source, skip_unsupported=skip_unsupported, box=box)
        if placed:
            w = cls._placed(items, source)
        else:
            w = world_from_blocks(items, replay=replay, source=source, paste=kind != "mcfunction")
            for p, stacks in items.contents.items():  # block-entity data: the containers' items, after the blocks
                try:
                    w.set_items(p, list(stacks))
                except InputError as e:
                    raise BuildFileError(f"{source}: {e}") from None
        commands.load_block_entities(w, getattr(items, "commands", {}), source)  # success counts before outputs
        if not placed:
            w._load_outputs(items.outputs)
        w._load_test_blocks(getattr(items, "tests", {}))
        for entity in items.entities:  # a structure's item entities, minecarts and fireballs, in its order
            try:
                if hasattr(entity, "power"):  # a fireball (engine/fireballs.py FireballSpec)
                    w.spawn_fireball(entity.pos, entity.motion, entity.kind,
                                     power=entity.power if entity.power_vec is None else entity.power_vec)
                    continue
                if hasattr(entity, "kind"):  # a minecart (engine/carts.py CartSpec)
                    w.spawn_minecart(entity.pos, entity.motion, entity.kind, items=list(entity.slots), yaw=entity.yaw,
                                     fuel=entity.fuel, push=entity.push, enabled=entity.enabled)
                    continue
                name, count, pos, motion, delay, age = entity
                w.spawn_item(name, count, pos, motion, pickup_delay=delay, age=age)
            except InputError as e:
                raise BuildFileError(f"{source}: {e}") from None
        if in_world:  # nothing is due in a world at rest: not the ticks the paste's updates scheduled, nor water's
            w.clear_scheduled()
            if w._fluid is not None:
                w._fluid.clear()
        return w

    @classmethod
    def _placed(cls, items, source: str) -> World:
        """A new World holding a decoded build placed as the game places a structure (from_build_file's
        placed=True): blocks in the game's order, each block's items or comparator output taken quietly as it is
        written, then each of those blocks tells the comparators beside it (BlockEntity.setChanged)."""
        from scicraft_viz.engine import containers
        from scicraft_viz.engine.structure import BLOCK_ENTITY_BLOCKS, placement_order

        w = cls(replay=True)
        order = placement_order(items)
        number = {p: i for i, (p, _) in enumerate(items)}
        w.g.meta[sim.M_PASTE] = 1
        try:
            for p, state in order:
                try:
                    w.set_block(p, state)
                    if p in items.contents:  # the container's data, loaded without an update
                        _, c, b = w._container(p, "placing the structure")
                        slots = containers.padded(containers.slot_stacks(list(items.contents[p]), b,
                                                                         f"the items at {p}"), b)
                        w._put_slots(p, c, b, slots, quiet=True)
                    c = w._find(p)
                    if p in items.outputs and c > 0 and int(w.g.U[c, sim.BT]) == B.COMPARATOR:  # its saved output
                        w.g.U[c, sim.POWER] = int(items.outputs[p])
                except InputError as e:
                    raise BuildFileError(f"{source}: block {number[p] + 1} ({state} at {p}): {e}") from None
        finally:
            w.g.meta[sim.M_PASTE] = 0
        with_data = getattr(items, "with_data", None)
        for p, state in order:  # BlockEntity.setChanged: the comparators beside it re-read it
            if p in with_data if with_data is not None else (
                    B.split_state(state)[0].removeprefix("minecraft:") in BLOCK_ENTITY_BLOCKS):
                w._call(w._k.output_changed, w._find(p))
        return w

    def structure_updates(self, positions: Iterable) -> None:
        """The update pass vanilla makes after placing a structure with updates (a structure block's load, /place
        template): for each position in order, the block there takes its shape from its neighbours (an unpowered
        observer starts a pulse, whatever it watches) and its neighbours hear of it, so a comparator or torch
        loaded in a state its inputs contradict schedules its change and an unsupported block pops.
        `from_build_file` loads as a paste and makes no such pass; call this right after it for a structure
        placed so. Positions without a block are skipped. Before the pass, vanilla updates the shapes along the
        structure's surface (StructureTemplate.updateShapeAtEdge): an observer facing out of the structure starts
        its pulse then, in the order of that walk (the faces across z, then y, then x), ahead of the pass.
        docs/redstone.md sections 49 and 50."""
        cells = []
        for pos in positions:
            p = check_pos(pos)
            c = self._find(p)
            if c > 0 and int(self.g.U[c, sim.BT]) != B.AIR:
                cells.append((p, c))
        for c, d in _edge_observers(self.g.U, cells):
            self._call(self._k.edge_shape_update, c, d)
        for _, c in cells:
            self._call(self._k.structure_update, c)

    def _load_outputs(self, outputs: dict) -> None:
        """Comparators' recorded outputs (block-entity OutputSignal, 0-15): one that agrees with its comparator's
        `powered` (powered exactly when above 0) is taken, as vanilla loads it; any other is replaced by the
        output the comparator works out from its inputs now. The blocks in front hear of the change."""
        g = self.g
        for p, v in outputs.items():
            c = self._find(p)
            if c <= 0 or int(g.U[c, sim.BT]) != B.COMPARATOR:
                continue
            if (v > 0) != bool(g.U[c, sim.ON]):
                v = int(self._k.comparator_output(g.U, g.N, c))
            if v != int(g.U[c, sim.POWER]):
                self._call(self._k.set_output, c, v, int(g.U[c, sim.ON]))

    def _load_test_blocks(self, tests: dict) -> None:
        """Test blocks' block-entity data ({pos: (message, powered)}): the message is kept, and `powered` as saved
        (a start block saved powered emits from the start; a log, fail or accept block saved powered is triggered
        only after it has lost its signal and found one again)."""
        g = self.g
        for p, (message, powered) in tests.items():
            c = self._find(p)
            if c <= 0 or int(g.U[c, sim.BT]) != B.TEST_BLOCK:
                continue
            if message:
                self._test_messages[p] = message
            if powered and int(g.U[c, sim.MODE]) == 0:
                self._call(self._k.test_start, c)
            elif powered:
                g.U[c, sim.ON] = 1

    def test_message(self, pos: object) -> str:
        """The message of the test block at pos (block-entity data; '' if it has none)."""
        p = check_pos(pos)
        if self._block_at(p).startswith("minecraft:test_block["):
            return self._test_messages.get(p, "")
        raise InputError(f"test_message: {fmt_pos(p)} holds {self._block_at(p)}, not a test block")

    def set_test_message(self, pos: object, message: object) -> None:
        """Set the message of the test block at pos (what a log block logs, a fail block's failure message)."""
        p = check_pos(pos)
        if not isinstance(message, str) or len(message) > 10_000:
            raise InputError(f"set_test_message: the message must be a string of at most 10,000 characters, got "
                             f"{_short_repr(message)}")
        if not self._block_at(p).startswith("minecraft:test_block["):
            raise InputError(f"set_test_message: {fmt_pos(p)} holds {self._block_at(p)}, not a test block")
        if message:
            self._test_messages[p] = message
        else:
            self._test_messages.pop(p, None)

    # ------------------------------------------------------------------ command blocks (engine/commands.py)
    def _command_cell(self, pos: object, what: str) -> tuple[Pos, int]:
        p = check_pos(pos)
        c = self._find(p)
        if c <= 0 or int(self.g.U[c, sim.BT]) != B.COMMAND_BLOCK:
            raise InputError(f"{what}: {fmt_pos(p)} holds {self._block_at(p)}, not a command block")
        return p, c

    def command_block(self, pos: object) -> commands.CommandBlockInfo:
        """The command block at pos: its kind, facing, conditional, command and the rest of its block-entity data
        (`problem` says why its command last failed to run, naming it, '' when it ran)."""
        p, c = self._command_cell(pos, "command_block")
        return commands.info(self, p, c)

    def command_blocks(self) -> dict[Pos, commands.CommandBlockInfo]:
        """Every command block in the world, by position."""
        return {p: commands.info(self, p, c) for p in list(self._commands)
                if (c := self._find(p)) > 0 and int(self.g.U[c, sim.BT]) == B.COMMAND_BLOCK}

    def set_command(self, pos: object, command: object = None, *, auto: object = None,
                    track_output: object = None, update_last_execution: object = None) -> None:
        """Set the command block at pos's command (at most commands.MAX_COMMAND_CHARS characters) and flags, as
        its screen does. Turning `auto` on for an unpowered impulse or repeating block schedules its tick 1 game
        tick later (vanilla setAutomatic)."""
        p, c = self._command_cell(pos, "set_command")
        flags = {"auto": auto, "track_output": track_output, "update_last_execution": update_last_execution}
        for name, v in flags.items():
            if v is not None and not isinstance(v, bool):
                raise InputError(f"set_command: {name} must be True or False, got {_short_repr(v)}")
        if command is not None:
            command = commands.check_command(command, "set_command")
        d = commands.data_at(self, p, c)
        if command is not None:
            d.command = command
            d.problem = ""
        if track_output is not None:
            d.track_output = track_output
            if not track_output:
                d.last_output = ""
        if update_last_execution is not None:
            d.update_last_execution = update_last_execution
        if auto is not None:
            commands.set_auto(self, c, auto)

    def command_messages(self) -> list[commands.CommandMessage]:
        """What command blocks said (say, tell, tellraw) and the commands they could not run (unsupported or
        failed, naming the command block), oldest first; the newest commands.MAX_MESSAGES are kept."""
        return list(self._command_log)

    def command_block_entities(self) -> dict:
        """Each command block's block entity as a build file keeps it (nbtlib compounds, vanilla's keys)."""
        return {p: commands.entity_tag(self, p) for p in self.command_blocks()}

    @classmethod
    def from_litematic(cls, src, replay: bool = False) -> World:
        return cls.from_build_file(src, replay, "litematic")

    @classmethod
    def from_schem(cls, src, replay: bool = False) -> World:
        return cls.from_build_file(src, replay, "schem")

    def to_litematic(self, path=None) -> bytes:
        from scicraft_viz.engine.formats import write_build

        return write_build(self, path if path is not None else "litematic")

    def to_schem(self, path=None, version: int = 3) -> bytes:
        from scicraft_viz.engine.formats import write_build

        return write_build(self, path if path is not None else "schem", schem_version=version)

    def __repr__(self) -> str:
        n = int(np.count_nonzero(self.g.U[: self._ncell, sim.BT]))
        return f"World(tick={self.tick}, blocks={n}, replay={self.replay})"


_PY_KERNELS = None
_NO_CELLS = np.zeros(0, np.int64)


class ItemInfo(NamedTuple):
    """An item entity as `World.item_entities` lists it: `pos` is its box's bottom centre, `velocity` in blocks
    per game tick; `age` and `pickup_delay` in game ticks as vanilla's Age and PickupDelay."""

    id: int
    item: str
    count: int
    pos: tuple[float, float, float]
    velocity: tuple[float, float, float]
    on_ground: bool
    age: int
    pickup_delay: int


def check_item_entity(item: object, count: object, pos: object, velocity: object, pickup_delay: object,
                      age: object, where: str) -> tuple[str, int, tuple, tuple, int, int]:
    """An item entity's fields checked as `World.spawn_item` takes them (and a trace file's `items` claims them):
    (item id, count, position, velocity, pickup delay, age), or InputError starting with `where`."""
    from scicraft_viz.engine.containers import _count, _item_name, stack_sizes

    name = _item_name(item, where)
    n = _count(count, where)
    if not 1 <= n <= stack_sizes()[name]:
        raise InputError(f"{where}: an item entity holds 1 to {stack_sizes()[name]} {name}, got {n}")
    at = _real_triple(pos, f"{where}: the position")
    vel = _real_triple(velocity, f"{where}: the velocity")
    if any(abs(v) > 3e7 for v in at) or any(abs(v) > 10.0 for v in vel):
        raise InputError(f"{where}: the position must lie within 30,000,000 blocks and each velocity "
                         f"component within 10 blocks a tick (the bound vanilla gave loaded entities before "
                         f"1.21.11, kept so that one move searches a bounded space), got {at} and {vel}")
    ints = []
    for v, what, lo, hi in ((pickup_delay, "pickup_delay", 0, 32767), (age, "age", -32768, 32767)):
        if not isinstance(v, Integral) or isinstance(v, bool) or not lo <= v <= hi:
            raise InputError(f"{where}: {what} must be an integer from {lo} to {hi}, got {_short_repr(v)}")
        ints.append(int(v))
    return name, n, at, vel, ints[0], ints[1]


def _real_triple(v: object, what: str) -> tuple[float, float, float]:
    from numbers import Real

    if (not isinstance(v, (list, tuple)) or len(v) != 3
            or not all(isinstance(x, Real) and not isinstance(x, bool) and math.isfinite(x) for x in v)):
        raise InputError(f"{what} must be three finite numbers (x, y, z), got {_short_repr(v)}")
    return (float(v[0]), float(v[1]), float(v[2]))


def _wet_rows(st: np.ndarray) -> bool:
    """Do any placement rows place water or a waterlogged block?"""
    from scicraft_viz.engine.fluids import watery_numbers

    ids = st[:, sim.S_ID]
    vanilla = _is_any(ids, _VANILLA_IDS)
    if vanilla.any():
        numbers = st[vanilla, sim.S_FACING] | (st[vanilla, sim.S_FACE] << 8)
        if watery_numbers()[numbers].any():
            return True
    return bool(((ids == B.CHEST) & (st[:, sim.S_ON] == 1)).any())


def _counts_items(U, c: int) -> bool:
    """A wooden or weighted pressure plate at cell c (they count every entity; a stone one only mobs)."""
    b = int(U[c, sim.BT])
    return b in (B.LIGHT_PLATE, B.HEAVY_PLATE) or (b == B.PLATE and int(U[c, sim.FACE]) >= B.WOODEN_PLATE)
# vanilla DiscreteVoxelShape.forAllFaces walks the faces across z first, then y, then x, each along lines
# ordered by the other two axes; for a face direction (engine index: north, east, south, west, up, down), the
# walk it belongs to and how a position's face sorts in it ((outer, middle, scan) axes, +1 on scan for a face
# on the far side, reached when the walk leaves the block)
_EDGE_WALK = {0: (0, (0, 1, 2), 0), 2: (0, (0, 1, 2), 1), 5: (1, (2, 0, 1), 0), 4: (1, (2, 0, 1), 1),
              3: (2, (1, 2, 0), 0), 1: (2, (1, 2, 0), 1)}


def _edge_observers(U: np.ndarray, cells: list[tuple[Pos, int]]) -> list[tuple[int, int]]:
    """(cell, face) of each observer among `cells` whose watched face lies on the surface of their set, in the
    order vanilla's updateShapeAtEdge reaches those faces."""
    placed = {p for p, _ in cells}
    found = []
    for p, c in cells:
        if int(U[c, sim.BT]) != B.OBSERVER:
            continue
        d = int(U[c, sim.FACING])
        if _ahead(p, d) in placed:
            continue
        walk, axes, far = _EDGE_WALK[d]
        key = [p[a] for a in axes]
        key[2] += far
        found.append(((walk, *key), c, d))
    return [(c, d) for _, c, d in sorted(found)]


def _ahead(p: Pos, k: int) -> Pos:
    d = B.OFFSETS[k]
    return (p[0] + d[0], p[1] + d[1], p[2] + d[2])


def _back(k: int) -> tuple[int, int, int]:
    """The offset opposite direction k (the face of the block ahead that an item enters through)."""
    d = B.OFFSETS[k]
    return (-d[0], -d[1], -d[2])

_NO_ROWS = np.zeros((0, 0), np.uint8)


def _python_kernels():
    global _PY_KERNELS
    if _PY_KERNELS is None:
        _PY_KERNELS = sim.python_kernels()
    return _PY_KERNELS
