"""Redstone engine kernels: cell storage, dust settling, neighbour updates and scheduled ticks.

The world lives in NumPy arrays bundled in a `Grid` namedtuple (see `world.py`). Every function here
works on those arrays only, so the module knows nothing of worlds, traces or views. The kernels are
compiled with numba; `python_kernels()` loads the same source uncompiled for debugging and for
measuring what the JIT buys.

Storage is sparse: a cell exists only for a position that holds, or once held, a block. Each cell's
row of the neighbour table `N` lists the cells within two steps of it (Manhattan distance), with 0,
a cell of air that is never written, standing for every position without a cell. Every rule below
reads only within two steps of a cell that exists, so memory follows the circuit, not its bounding box.
A hash table (`HT`, open addressing over the positions in `P`) finds the cell of a position.

Timing model (Java Edition 1.20): scheduled ticks due at a game tick run in order of priority, then of
scheduling; dust settles with zero delay; one pending tick per position. Then, as in vanilla's tick, the
block events queued so far run (pistons start to move), then the moving blocks advance (block entities).
"""

from __future__ import annotations

import importlib.util
import os
from collections import namedtuple

import numpy as np

# Block ids are module-level ints, which numba folds in as constants.
from scicraft_viz.engine.blocks import (
    AIR,
    ANALOG_OUTPUT,
    B_BELL,
    B_HEAD,
    B_POWERED,
    BARREL,
    BED,
    BELL,
    BELL_DOUBLE,
    BELL_NUMBER,
    BELL_SINGLE,
    BOX_STATE,
    BUTTON,
    CENTRE,
    CHEST,
    CMD_CHAIN,
    COMMAND_BLOCK,
    COMPARATOR,
    COPPER_BULB,
    DAYLIGHT,
    DIRT_ID,
    DIRT_NUMBER,
    DIRT_PATH_NUMBER,
    DISPENSER,
    DROPPER,
    FENCE_GATE,
    FURNACE,
    GLASS,
    HEAVY_PLATE,
    HONEY,
    HOOK_NUMBER,
    HOPPER,
    INSTRUMENT_BY_STATE,
    IRON_DOOR,
    IRON_TRAPDOOR,
    L_NEVER,
    L_PANE,
    L_WALL,
    L_WOOD_FENCE,
    LAMP,
    LEAF_DISTANCE,
    LEAF_STRIDE,
    LEVER,
    LIGHT_PLATE,
    LINK,
    LINK_LO,
    LINK_STRIDE,
    LOG,
    MOVING_PISTON,
    NEED,
    NOTE_BLOCK,
    OBSERVER,
    PARTIAL,
    PISTON,
    PISTON_HEAD,
    PLATE,
    PUSH_BLOCK,
    PUSH_DESTROY,
    PUSH_NORMAL,
    PUSH_ONLY,
    PUSH_REACTION,
    RAIL,
    REPEATER,
    SIGNAL_SOURCE,
    SLIME,
    SOLID,
    STAIRS_LO,
    STICKY_PISTON,
    STONE,
    STRING_NUMBER,
    STURDY,
    SUPPORT_CENTRE,
    SUPPORT_FULL,
    SUPPORT_SOLID,
    T_ATTACHED,
    T_CONN,
    T_DISARMED,
    T_FACING,
    T_HOOK,
    T_POWERED,
    T_STRING,
    TARGET,
    TEST_BLOCK,
    TORCH,
    TRIP,
    WALL_COVER,
    WALL_POST_OVERRIDE,
    WALL_TORCH,
    WIRE,
    WOOD_BUTTON_TICKS,
    WOODEN_BUTTON,
    WOODEN_PLATE,
)
from scicraft_viz.engine.blocks import DETECTOR_RAIL as DETECTOR
from scicraft_viz.engine.blocks import PLAIN_RAIL as PLAIN
from scicraft_viz.engine.blocks import REDSTONE_BLOCK as RBLOCK

if globals().get("_FORCE_PYTHON") or os.environ.get("SCICRAFT_NOJIT") == "1":
    JIT = False

    def jit(f):
        return f
else:
    from numba import njit

    from scicraft_viz.engine.jitcache import announce_compiles, drop_stale_kernels

    announce_compiles()  # one line on stderr if a kernel is not in numba's cache and must be compiled

    def _cached_here() -> None:
        """Never called: numba's cache object for it names the folder this file's kernels are cached in."""

    drop_stale_kernels(_cached_here)  # kernels compiled against other block tables are dropped, not run
    JIT = True
    # No kernel allocates or returns arrays, so reference counting is switched off: with it, every call
    # between kernels paid atomic increments on its array arguments (half the run time).
    jit = njit(cache=True, nogil=True, _nrt=False)

UP, DOWN = 4, 5
# Tick priority ranks: lower runs first.
P_EXTREMELY_HIGH, P_VERY_HIGH, P_HIGH, P_NORMAL = 0, 1, 2, 3
# Event kinds (the world adds 7 placed and 8 removed, which it notes itself). EV_RANG: a bell rang (old: the side
# struck, a horizontal direction index).
(EV_STATE, EV_POWER, EV_SHAPE, EV_LOCKED, EV_POPPED, EV_DELAY, EV_BURNOUT, EV_PLACED, EV_REMOVED, EV_MODE, EV_TUNED,
 EV_NOTE, EV_RANG) = range(13)
# meta slots
M_HEAP, M_SEQ, M_TICK, M_EVN, M_LOG, M_OVERFLOW, M_NCHG, M_NCELL, M_LIVE = range(9)
# M_LIVE counts dust with power > 0. While it is 0, no dust has a source, so a change whose dust seeds
# all have no source leaves every network at 0 and settle_dust skips the walk over them: placing an
# unpowered build no longer costs a walk over its whole dust network per block.
# Rule slots (engine/rules.py, Ruleset.meta_values): the parameters a ruleset varies, read at run time so
# that every ruleset shares one compiled kernel. World writes them when it is made.
R_BUTTON, R_TORCH, R_LAMP_OFF, R_REPEATER_STEP, R_DUST_DECAY, R_BURNOUT, R_LOCKABLE = range(9, 16)
# Block events (vanilla's blockEvent queue: pistons) wait in `bev` rows M_BEVH..M_NBEV-1; moving blocks
# (moving_piston cells, vanilla's piston block entities) are listed in `mov`, M_NMOV of them, in the order
# they began. M_PHASE says which part of the tick runs (vanilla asks whether it handles scheduled ticks);
# M_PISTONS counts pistons ever placed, which sets how many free cells a tick may need (moved blocks land
# where no block was); M_DESTROY counts the blocks the last push worked out would break.
# M_OBSERVERS counts observers ever placed: while it is 0, no change needs to look for one.
M_NBEV, M_BEVH, M_NMOV, M_PHASE, M_PISTONS, M_DESTROY, M_OBSERVERS = range(16, 23)
# Items are block-entity data the world keeps (engine/containers.py), so item moves run outside the kernels:
# a dropper or dispenser whose scheduled tick came is listed in `fire` (M_NFIRE of them), and M_WAKE is set
# when a hopper is unlocked or a push breaks a shulker box; `run` then stops at the end of that tick for the
# world to move the items (a broken box drops as an item entity).
M_NFIRE, M_WAKE = 23, 24
# M_PASTE is set while a build file loads as a paste: the fences, walls and panes beside what it places keep the
# sides saved with them (no shape updates reach them, see relink).
M_PASTE = 25
# M_CMD: a command block's scheduled tick came (its cell, > 0): `run` stops in the middle of that tick for the world
# to run the command (engine/commands.py), which then sets -1 to resume the rest of the tick where it stopped.
M_CMD = 26
# M_OX, M_OY, M_OZ: the world's hash origin, where the game would hold its (0, 0, 0). Vanilla iterates a few
# java.util.HashMap and HashSet of BlockPos whose order follows from the absolute position's hash; these orders
# hash a cell's position plus this origin (java_bucket).
M_OX, M_OY, M_OZ = 27, 28, 29
NMETA = 30
# Command blocks (blocks.COMMAND_BLOCK): bits of LOCKED, `auto` and vanilla's conditionMet.
CMD_AUTO, CMD_MET = 1, 2
DISPENSE_DELAY = 4  # game ticks from a dropper's or dispenser's rising edge to its firing
PH_ACTION, PH_TICKS, PH_EVENTS, PH_MOVING = 0, 1, 2, 3
# Block event types (vanilla PistonBaseBlock): extend, retract, retract leaving the pushed block behind.
BE_EXTEND, BE_RETRACT, BE_DROP = 0, 1, 2
PUSH_LIMIT = 12
# Overflow codes: the event buffer, the changed list, the tick heap or the block event queue ran out of
# room (a world bug).
OV_EVENTS, OV_CHANGED, OV_HEAP, OV_BLOCK_EVENTS = 1, 2, 3, 4

# Vanilla values of the rule slots (the kernels read the slots; these stay for callers and docs).
BUTTON_TICKS = 20
TORCH_DELAY = 2
COMPARATOR_DELAY = 2
LAMP_OFF_DELAY = 4
BURNOUT_WINDOW = 60
BURNOUT_COUNT = 8
BURNOUT_SLOTS = 8  # toggle times a torch remembers (a ruleset's burn-out count is at most this)
BURNOUT_RECHECK = 160
NEVER = -(10**9)  # toggle time of a torch that never toggled

# Per-cell bytes live in one row of U, per-cell int64s in one row of T (few arrays to pass around).
(BT, FACING, FACE, DELAY, SIDES, POWER, ON, LOCKED, PTYPE, TOGI, INQ, NEWP, SMASK, PMASK, NEARC,
 LM0, LM1, OM0, OM1, OVL, MARK) = range(21)
# A moving_piston keeps the block it carries in MB_* (id, facing, face, delay, on), its flags in MB_FLAGS
# (1 extending, 2 the piston's own head or base) and how often it has ticked in MB_STEP (vanilla's progress
# 0, 0.5, 1 in steps of a half); the game tick it last ticked sits in T[c, TOG0] (torches only use it).
MB_BT, MB_FACING, MB_FACE, MB_DELAY, MB_ON, MB_FLAGS, MB_STEP = range(21, 28)
NU = 28
# Any other cell keeps in GONE (the moving_piston's MB_BT) the block its last change removed (AIR if none), so
# that the updates a removed torch or dust sends, which reach two steps as a placed one's do, can be told apart.
GONE = MB_BT
MB_EXTENDING, MB_SOURCE = 1, 2
# A comparator keeps its mode (0 compare, 1 subtract) in FACE, which only buttons and levers use otherwise,
# and its output strength (vanilla's block-entity OutputSignal) in POWER; a container keeps its fill level
# (0-15, what a comparator reads from it) in POWER, set by the world from the items it holds.
MODE = FACE
# A note block keeps its note (0-24) in DELAY and its instrument (an index into blocks.INSTRUMENTS) in FACE.
NOTE, INSTRUMENT = DELAY, FACE
INSTR_HARP, INSTR_BASEDRUM, INSTR_HAT, INSTR_BASS = 0, 1, 3, 4
# Doors, trapdoors, plates and the daylight sensor (blocks.py): FACING; FACE a door's half (0 lower) or a
# trapdoor's (0 bottom), and the variant of a stone or wooden plate; DELAY a door's hinge (0 left); ON a door's
# or trapdoor's `open` and a daylight sensor's `inverted`; POWER a door's or trapdoor's `powered` (0/1), a
# plate's or daylight sensor's output. ENTITIES (TOGI, which only torches use otherwise) is the number of
# entities on a plate, set through World.set_entities.
HALF, HINGE, ENTITIES = FACE, DELAY, TOGI
DETECTOR_RECHECK = 20  # a powered detector rail checks for minecarts again this long after
PLATE_RECHECK = 20  # stone and wooden plates re-check the entities on them this long after a press
WEIGHTED_RECHECK = 10  # weighted plates
HEAVY_MAX = 150  # entities a heavy plate counts at most (a light plate 15)
# A hopper's top holds dust (vanilla canSurviveOn names it) but nothing else: sturdy_faces marks it so.
HOPPER_TOP = 64
# Cached structure, refreshed around every block change: SMASK (any cell) marks neighbours that can
# strongly power it; PMASK (dust) neighbours that can feed it; LMASK (dust) which of its 12 link
# candidates hold dust; OMASK (dust) which of those take power from it; NEARC (any cell) is 1 when a
# repeater, torch or lamp lies within two steps, i.e. when a power change there needs delivering.
# LMASK and OMASK are 12-bit, stored as two bytes (LM0/LM1, OM0/OM1). OVL is scratch for bulk loads.
# MARK is a visit mark: every pass that sets marks clears them again from its own list of visited cells,
# so marks never need a wipe of the whole world (and sit in the row the pass reads anyway).
PTIME, TOG0 = 0, 1
NT = TOG0 + 8
# Heap rows: (time*4 + priority rank, sequence, cell, block id).
# Event rows: (tick, cell | kind << 32 | old << 40 | new << 48 | block id << 56).
HK1, HK2, HCELL, HTYPE = range(4)
Grid = namedtuple("Grid", "N U T P HT H E meta queue comp chg notify bev mov fire")

# Columns of the neighbour table: 0 the cell itself, then every other cell within Manhattan distance 2
# in x, y, z order of the offsets. Passes over a cell's surroundings follow this order, which decides the
# order of neighbour updates and so the scheduling order of ticks due together (as in a dense x-y-z grid).
# FC[k] is the column of the face neighbour toward direction k; CC[j] that of dust link candidate j:
# beside the dust (j % 3 == 0), one up (1) or one down (2), toward horizontal direction j // 3.
_FACES = ((0, 0, -1), (1, 0, 0), (0, 0, 1), (-1, 0, 0), (0, 1, 0), (0, -1, 0))
_NEAR = [(0, 0, 0)] + [
    (dx, dy, dz)
    for dx in range(-2, 3)
    for dy in range(-2, 3)
    for dz in range(-2, 3)
    if 0 < abs(dx) + abs(dy) + abs(dz) <= 2
]
NNEAR = len(_NEAR)  # 25
NEAR = np.array(_NEAR, dtype=np.int64)
NEAR_OPP = np.array([_NEAR.index((-dx, -dy, -dz)) for dx, dy, dz in _NEAR], dtype=np.int64)
FC = np.array([_NEAR.index(d) for d in _FACES], dtype=np.int64)
# FC2[k]: the column of the cell two steps toward direction k (a comparator reads a container there).
FC2 = np.array([_NEAR.index((2 * d[0], 2 * d[1], 2 * d[2])) for d in _FACES], dtype=np.int64)
# QC[k]: the column of the cell beside the one above, toward direction k (a piston's quasi-connectivity).
QC = np.array([_NEAR.index((d[0], 1 + d[1], d[2])) for d in _FACES[:5]], dtype=np.int64)
CC = np.array(
    [_NEAR.index((_FACES[j // 3][0], (0, 1, -1)[j % 3], _FACES[j // 3][2])) for j in range(12)], dtype=np.int64
)
# Whose cached structure a change at a cell can alter, by column: a block's masks read its faces, a
# dust's also its up and down link candidates (one step sideways and one up or down). 1: any block
# there, 2: only dust, 0: none (two steps straight, or diagonal in the horizontal plane).
REACH = np.array(
    [1 if abs(dx) + abs(dy) + abs(dz) <= 1 else 2 if dy != 0 and abs(dx) + abs(dz) == 1 else 0
     for dx, dy, dz in _NEAR], dtype=np.int64
)


# Vanilla's orders, by direction index (north 0, east 1, south 2, west 3, up 4, down 5): shape updates go to
# a block's neighbours west, east, north, south, down, up (BlockBehaviour.UPDATE_SHAPE_ORDER); neighbour
# updates west, east, down, up, north, south (NeighborUpdater.UPDATE_ORDER); a slime block's branches are
# looked for down, up, north, south, west, east (Direction.values()).
SHAPE_ORDER = np.array([3, 1, 0, 2, 5, 4], dtype=np.int64)
BRANCH_ORDER = np.array([5, 4, 0, 2, 3, 1], dtype=np.int64)
# Columns of the neighbour table in the order a piston's updates reach them: the six faces in vanilla's
# neighbour-update order, then the cells two steps out (which hear a torch's or dust's change) in table
# order, then the cell itself (vanilla tells an arriving block of itself last).
_UPDATE_FACES = [3, 1, 5, 4, 0, 2]
VANILLA_COLS = np.array([_NEAR.index(_FACES[k]) for k in _UPDATE_FACES]
                        + [j for j in range(1, NNEAR) if j not in [_NEAR.index(_FACES[k]) for k in _UPDATE_FACES]]
                        + [0], dtype=np.int64)
# ... and in the order a torch's switch reaches them: its onPlace updates the neighbours of each of its six
# neighbours (down, up, north, south, west, east), each in neighbour-update order, then its own neighbours
_D_VALUES = [5, 4, 0, 2, 3, 1]
_TORCH_SEQ = [tuple(a + b for a, b in zip(_FACES[d], _FACES[e])) for d in _D_VALUES for e in _UPDATE_FACES] + [
    _FACES[e] for e in _UPDATE_FACES]
TORCH_COLS = np.array(list(dict.fromkeys(_NEAR.index(v) for v in _TORCH_SEQ))
                      + [j for j in range(NNEAR) if _NEAR[j] not in _TORCH_SEQ], dtype=np.int64)
# ... and, for a repeater, comparator or observer whose output faces direction k, in the order its output reaches
# them: the block in front first (neighborChanged), then that block's neighbours in neighbour-update order but the
# way back (updateNeighborsAtExceptFromFacing), then the rest in table order (the component itself last)
_FRONT_SEQ = [[_FACES[k]] + [tuple(a + b for a, b in zip(_FACES[k], _FACES[e])) for e in _UPDATE_FACES
                             if tuple(a + b for a, b in zip(_FACES[k], _FACES[e])) != (0, 0, 0)] for k in range(6)]
FRONT_COLS = np.array([[_NEAR.index(v) for v in seq] + [j for j in range(1, NNEAR) if _NEAR[j] not in seq] + [0]
                       for seq in _FRONT_SEQ], dtype=np.int64)
# Vanilla's default dust (DefaultRedstoneWireEvaluator.updatePowerStrength): a dust whose power changes tells the
# neighbours of seven places, itself and its faces, put in a java.util.HashSet in Direction.values() order and
# walked in the set's order. WIRE_SET[i] is the offset of place i (0 the dust itself, then down, up, north, south,
# west, east); WIRE_NB[i, k] the column, in the dust's neighbour table, of the k-th neighbour of place i in
# neighbour-update order (west, east, down, up, north, south).
_WIRE_SET = [(0, 0, 0)] + [_FACES[d] for d in _D_VALUES]
WIRE_SET = np.array(_WIRE_SET, dtype=np.int64)
WIRE_NB = np.array([[_NEAR.index(tuple(a + b for a, b in zip(o, _FACES[k]))) for k in _UPDATE_FACES]
                    for o in _WIRE_SET], dtype=np.int64)
# Which link candidate of dust x a dust at candidate j of d is: the opposite side, up and down swapped.
LINK_BACK = np.array([((j // 3 + 2) % 4) * 3 + (0, 2, 1)[j % 3] for j in range(12)], dtype=np.int64)
# The places a change at a switching component reaches dust through: itself, then its faces in neighbour-update
# order (a lever or button tells its own neighbours, then those of the block it is on).
ENTRY_PERM = sum((([0] + [1 + _D_VALUES.index(k) for k in _UPDATE_FACES])[i]) << (3 * i) for i in range(7))


# ----------------------------------------------------------------------------- cell storage
@jit
def hslot(x, y, z, mask):
    h = np.int64(x) * np.int64(0x9E3779B1) + np.int64(y) * np.int64(0x85EBCA77) + np.int64(z) * np.int64(0xC2B2AE3D)
    h ^= h >> 29
    return h & mask


@jit
def find_cell(HT, P, x, y, z):
    """The cell at (x, y, z), or -1 if none exists."""
    mask = HT.shape[0] - 1
    i = hslot(x, y, z, mask)
    while True:
        c = HT[i]
        if c < 0:
            return -1
        if P[c, 0] == x and P[c, 1] == y and P[c, 2] == z:
            return c
        i = (i + 1) & mask


@jit
def hash_insert(HT, P, c):
    mask = HT.shape[0] - 1
    i = hslot(P[c, 0], P[c, 1], P[c, 2], mask)
    while HT[i] >= 0:
        i = (i + 1) & mask
    HT[i] = c


@jit
def rehash(HT, P, ncell):
    HT[:] = -1
    for c in range(1, ncell):
        hash_insert(HT, P, c)


@jit
def add_cell(g, x, y, z):
    """A new cell of air at (x, y, z), which has none, linked both ways with the cells around it.
    The caller has made room (arrays and hash table)."""
    c = g.meta[M_NCELL]
    g.meta[M_NCELL] = c + 1
    g.P[c, 0] = x
    g.P[c, 1] = y
    g.P[c, 2] = z
    hash_insert(g.HT, g.P, c)
    g.N[c, 0] = c
    for j in range(1, NNEAR):
        n = find_cell(g.HT, g.P, x + NEAR[j, 0], y + NEAR[j, 1], z + NEAR[j, 2])
        if n < 0:
            n = 0
        else:
            g.N[n, NEAR_OPP[j]] = c
        g.N[c, j] = n
    for j in range(NU):
        g.U[c, j] = 0
    g.U[c, DELAY] = 1
    g.T[c, PTIME] = -1
    for j in range(TOG0, NT):
        g.T[c, j] = NEVER
    return c


@jit
def count_missing(HT, P, xyz, create):
    """How many of the positions xyz[create] have no cell (a position given twice counts twice)."""
    n = 0
    for i in range(xyz.shape[0]):
        if create[i] and find_cell(HT, P, xyz[i, 0], xyz[i, 1], xyz[i, 2]) < 0:
            n += 1
    return n


@jit
def cells_for(g, xyz, create, out):
    """out[i] = the cell at xyz[i], made when missing if create[i], else -1 when missing."""
    for i in range(xyz.shape[0]):
        c = find_cell(g.HT, g.P, xyz[i, 0], xyz[i, 1], xyz[i, 2])
        if c < 0 and create[i]:
            c = add_cell(g, xyz[i, 0], xyz[i, 1], xyz[i, 2])
        out[i] = c


# ----------------------------------------------------------------------------- block predicates
@jit
def is_conductor(b):
    return (b == STONE or b == LAMP or b == BARREL or b == TARGET or b == NOTE_BLOCK or b == DROPPER
            or b == DISPENSER or b == FURNACE or b == TEST_BLOCK or b == COMMAND_BLOCK)


@jit
def cmd_mark_met(U, N, c):
    """Vanilla CommandBlockEntity.markConditionMet: a conditional command block's condition holds when the block
    behind it (opposite its facing) is a command block whose success count is above 0; any other's always does.
    Kept in LOCKED's CMD_MET bit; returns it."""
    met = True
    if U[c, DELAY]:
        n = N[c, FC[opp(U[c, FACING])]]
        met = U[n, BT] == COMMAND_BLOCK and U[n, POWER] > 0
    U[c, LOCKED] = (U[c, LOCKED] & CMD_AUTO) | (CMD_MET if met else 0)
    return met


@jit
def test_emits(U, c):
    """A powered start test block: 15 to every side (vanilla TestBlock.getSignal), weak only."""
    return U[c, BT] == TEST_BLOCK and U[c, MODE] == 0 and U[c, ON] != 0


@jit
def is_full(b):
    return b == GLASS or b == COPPER_BULB or b == RBLOCK or b == OBSERVER or is_piston(b) or is_conductor(b)


@jit
def is_piston(b):
    return b == PISTON or b == STICKY_PISTON


@jit
def is_container(b):
    """A block with a comparator-readable fill level (vanilla hasAnalogOutputSignal)."""
    return b == BARREL or b == CHEST or b == HOPPER or b == DROPPER or b == DISPENSER or b == FURNACE


@jit
def is_vanilla(b):
    """An id whose cell keeps a vanilla block's state number (low byte in FACING, high byte in FACE)."""
    return b == STONE or b == GLASS or b == PARTIAL


@jit
def state_number(U, c):
    return np.int64(U[c, FACING]) | (np.int64(U[c, FACE]) << 8)


@jit
def analog_level(U, c):
    """What a comparator reads from the block at c by itself (vanilla getAnalogOutputSignal): a container's
    fill level (a shulker box's too), the output of a vanilla block read by its state (blocks.ANALOG_STATE),
    or -1 for any other block (vanilla hasAnalogOutputSignal false)."""
    b = U[c, BT]
    if is_container(b):
        return np.int64(U[c, POWER])
    if is_vanilla(b):
        n = state_number(U, c)
        if BOX_STATE[n]:  # a shulker box: a container, its fill level kept in POWER as a chest's
            return np.int64(U[c, POWER])
        return np.int64(ANALOG_OUTPUT[n])
    if b == COMMAND_BLOCK:  # vanilla CommandBlock: its success count (kept at most 15)
        return np.int64(U[c, POWER])
    if b == COPPER_BULB:  # vanilla CopperBulbBlock: 15 while lit
        return 15 if U[c, ON] else 0
    if b == RAIL and U[c, FACE] == DETECTOR:  # a powered detector rail: the fill level of a container cart on it
        return np.int64(U[c, POWER]) if U[c, ON] else 0
    return -1


@jit
def is_plate(b):
    return b == PLATE or b == LIGHT_PLATE or b == HEAVY_PLATE


@jit
def is_opener(b):
    """A door, trapdoor or fence gate: opened by power, on the neighbour update that brings it."""
    return b == IRON_DOOR or b == IRON_TRAPDOOR or b == FENCE_GATE


@jit
def is_diode(b):
    return b == REPEATER or b == COMPARATOR


@jit
def is_component(b):
    """A block with scheduled ticks or a lamp: what a power change near it must reach."""
    return ((b >= REPEATER and b <= LAMP) or b == COMPARATOR or b == NOTE_BLOCK or is_opener(b) or b == OBSERVER
            or is_piston(b) or b == PISTON_HEAD or b == HOPPER or is_dispenser(b) or b == RAIL or b == TEST_BLOCK
            or b == COPPER_BULB or b == COMMAND_BLOCK)


@jit
def is_dispenser(b):
    """A dropper or dispenser: fired by a rising edge of power, quasi-connectivity included."""
    return b == DROPPER or b == DISPENSER


@jit
def is_qc(b):
    """A block that also reads power at the position above it (quasi-connectivity), so it hears only the
    neighbour updates vanilla sends (see piston_reached)."""
    return is_piston(b) or is_dispenser(b)


@jit
def is_notified(b, structural):
    """Does a neighbour update reach b? Dust, buttons, levers and plates only read a block change (support); a
    piston head reads every one, to pass it on to its base; an observer reads none (it watches shape updates,
    see notify_observers)."""
    if b == OBSERVER:
        return False
    if structural:
        return ((b >= WIRE and b <= LEVER) or b == COMPARATOR or b == NOTE_BLOCK or is_opener(b) or is_plate(b)
                or is_piston(b) or b == PISTON_HEAD or b == HOPPER or is_dispenser(b) or b == RAIL
                or b == TEST_BLOCK or b == COPPER_BULB or b == COMMAND_BLOCK)
    return is_component(b)


@jit
def instrument_on(U, c):
    """The instrument a note block plays on the block at c (vanilla: the block below decides; the data says which,
    blocks.INSTRUMENT_OF). A vanilla block reads its state number; the palette's blocks are named here by id and
    variant, as the data names them (tests/test_rules_instruments.py checks each against it)."""
    b = U[c, BT]
    if is_vanilla(b):
        number = state_number(U, c)
        if number == 0:  # the palette's own stone and glass
            return INSTR_BASEDRUM if b == STONE else INSTR_HAT if b == GLASS else INSTR_HARP
        return np.int64(INSTRUMENT_BY_STATE[number])
    if b == DROPPER or b == DISPENSER or b == FURNACE or b == OBSERVER or (b == PLATE and U[c, FACE] < WOODEN_PLATE):
        return INSTR_BASEDRUM  # stone-like blocks, the stone and polished blackstone plates
    if b == BARREL or b == CHEST or b == NOTE_BLOCK or b == PLATE or b == DAYLIGHT or b == FENCE_GATE:
        return INSTR_BASS  # wooden blocks (the wooden plates)
    if (b == IRON_DOOR and U[c, HINGE] >> 1) or (b == IRON_TRAPDOOR and U[c, DELAY]):
        return INSTR_BASS  # a wooden door or trapdoor
    return INSTR_HARP


@jit
def play_note(g, c):
    """A note block plays (an event) when the block above it is air."""
    if g.U[g.N[c, FC[UP]], BT] == AIR:
        log_event(g, c, EV_NOTE, g.U[c, INSTRUMENT], g.U[c, NOTE])


@jit
def sturdy_faces(U, c):
    """Faces of the block at c that hold dust, torches, repeaters, buttons and levers (6-bit mask over
    directions): every face of a full block, the whole faces of a slab or stair (kept in DELAY)."""
    b = U[c, BT]
    if is_piston(b) and U[c, ON]:
        # an extended base is a 12/16 box against its back: only the back face is whole (a lever on top of a
        # sideways piston falls when it extends)
        return 1 << opp(U[c, FACING])
    if is_full(b):
        return 63
    if b == PISTON_HEAD:
        return 1 << U[c, FACING]  # the head's plate
    if b == MOVING_PISTON and U[c, MB_FLAGS] & MB_SOURCE and not U[c, MB_FLAGS] & MB_EXTENDING:
        # a retracting base keeps the extended base's box until it lands (vanilla PistonMovingBlockEntity's
        # collision shape): dust or a torch on its back stays
        return 1 << opp(U[c, FACING])
    if b == MOVING_PISTON and U[c, MB_STEP] >= 2:
        # a moving block at the end of its move (progress 1, landing on its next tick) stands where it will land:
        # its collision shape, which holds what rests on it as the block itself will
        mb = U[c, MB_BT]
        if is_full(mb):
            return 63
        if mb == PARTIAL:
            return U[c, MB_DELAY]
        return 0
    if b == PARTIAL:
        return U[c, DELAY]
    if b == IRON_TRAPDOOR:
        if U[c, ON]:  # open: the panel stands against the side opposite its facing
            return 1 << opp(U[c, FACING])
        return 1 << UP if U[c, HALF] else 1 << DOWN
    if b == DAYLIGHT:
        return 1 << DOWN
    if b == HOPPER:
        return (1 << UP) | HOPPER_TOP
    return 0


@jit
def opp(k):
    if k < 4:
        return (k + 2) % 4
    return 9 - k


@jit
def attach_dir(b, face, facing):
    """Direction from a block to what it stands on or hangs from, or -1 if it needs nothing. (A vanilla block keeps
    its state number in FACING and FACE: a decorative one's need is blocks.NEED of it.)"""
    if (b == WIRE or b == REPEATER or b == TORCH or b == COMPARATOR or is_plate(b) or (b == IRON_DOOR and face == 0)
            or b == RAIL):
        return DOWN
    if b == WALL_TORCH:
        return opp(facing)
    if b == BUTTON or b == LEVER:
        if face == 0:
            return DOWN
        if face == 2:
            return UP
        return opp(facing)
    if b == PARTIAL:
        n = np.int64(NEED[np.int64(facing) | (np.int64(face) << 8)])
        return (n - 1) // 4 if n else -1
    return -1


@jit
def attachment(U, N, c):
    """The cell a block stands on or hangs from (support and torch input), or -1."""
    b = U[c, BT]
    if b == WIRE or b == REPEATER or b == TORCH or b == COMPARATOR or is_plate(b) or b == RAIL:
        return N[c, FC[DOWN]]
    if b == WALL_TORCH:
        return N[c, FC[opp(U[c, FACING])]]
    if b == BUTTON or b == LEVER:
        f = U[c, FACE]
        if f == 0:
            return N[c, FC[DOWN]]
        if f == 2:
            return N[c, FC[UP]]
        return N[c, FC[opp(U[c, FACING])]]
    if b == PARTIAL:
        k = attach_dir(b, U[c, FACE], U[c, FACING])
        return N[c, FC[k]] if k >= 0 else -1
    return -1


@jit
def holds(sf, b, k):
    """Does a block with sturdy faces sf hold block b on its face k? (A hopper's top holds only dust and rails: its
    rim is vanilla's rigid support.)"""
    if (sf >> k) & 1 == 0:
        return False
    return b == WIRE or b == RAIL or is_plate(b) or not (sf & HOPPER_TOP)


@jit
def centre_bits(b, facing, on, sf, number):
    """1 if the top face of a block holds something at its centre (vanilla canSupportCenter: a torch on a fence
    post), plus 2 if its bottom face does (a lantern hanging under it); sf its sturdy faces, number its state
    number if it is a vanilla block. Beyond whole faces: a closed fence gate's bar (1.5 blocks high, it crosses
    the top), a hopper's downward spout, a chest's bottom, a piston head's arm."""
    if b == PARTIAL:
        return np.int64(CENTRE[number])
    m = np.int64(sf)
    if m & HOPPER_TOP:
        m &= ~((1 << UP) | HOPPER_TOP)  # the top of a hopper is a rim around its bowl
    r = ((m >> UP) & 1) | (((m >> DOWN) & 1) << 1)
    if b == FENCE_GATE and on == 0:
        r |= 1
    elif (b == HOPPER and facing == DOWN) or b == CHEST:
        r |= 2
    elif b == PISTON_HEAD and facing == DOWN:
        r |= 1
    elif b == PISTON_HEAD and facing == UP:
        r |= 2
    elif is_piston(b) and on and facing < 4:
        r |= 3  # an extended sideways base (12/16 deep) still covers the centres of its top and bottom faces
    return r


@jit
def centre_faces(U, c):
    b = U[c, BT]
    if b == MOVING_PISTON and U[c, MB_FLAGS] & MB_SOURCE and not U[c, MB_FLAGS] & MB_EXTENDING and U[c, FACING] < 4:
        return 3  # a retracting sideways base keeps the extended base's box until it lands
    return centre_bits(b, U[c, FACING], U[c, ON], sturdy_faces(U, c), state_number(U, c))


@jit
def solid_bit(b, number):
    """Vanilla isSolid (what a sign or banner needs): 1.19's solid materials; not dust, torches, buttons, levers,
    repeaters, comparators, nor the decorative blocks of decoration materials (blocks.DECORATIVE)."""
    if b == PARTIAL:
        return SOLID[number] != 0
    return not (b == AIR or b == WIRE or b == TORCH or b == WALL_TORCH or b == BUTTON or b == LEVER
                or b == REPEATER or b == COMPARATOR or b == RAIL)


@jit
def holds_need(kind, face, sf, centre, solid, air):
    """Does a block hold a decorative block that needs support `kind` (blocks.SUPPORT_*) on its face `face`,
    given its sturdy faces, centre bits, solidity and whether it is air?"""
    if kind == SUPPORT_FULL:
        return holds(sf, PARTIAL, face)
    if kind == SUPPORT_CENTRE:
        return (centre >> (0 if face == UP else 1)) & 1 == 1
    if kind == SUPPORT_SOLID:
        return solid
    return not air  # SUPPORT_ANY


@jit
def supports(U, s, b, number, k):
    """Does the block at s hold block b (state number `number` if vanilla), which needs it in direction k?"""
    if b == TORCH:  # vanilla canSupportCenter(below, UP)
        return centre_faces(U, s) & 1 == 1
    if is_plate(b):  # vanilla canSupportRigidBlock(below) || canSupportCenter(below, UP)
        return holds(sturdy_faces(U, s), b, UP) or centre_faces(U, s) & 1 == 1
    if b == PARTIAL:
        n = np.int64(NEED[number])
        return holds_need((n - 1) % 4, opp(k), sturdy_faces(U, s), centre_faces(U, s),
                          solid_bit(U[s, BT], state_number(U, s)), U[s, BT] == AIR)
    return holds(sturdy_faces(U, s), b, opp(k))


@jit
def is_supported(U, N, c):
    b = U[c, BT]
    k = attach_dir(b, U[c, FACE], U[c, FACING])
    if b == RAIL and RAIL_RISE[U[c, DELAY]] >= 0:  # an ascending rail also needs the block it climbs toward
        a = RAIL_RISE[U[c, DELAY]]
        if not holds(sturdy_faces(U, N[c, FC[a]]), RAIL, UP):
            return False
    return k < 0 or supports(U, N[c, FC[k]], b, state_number(U, c), k)


@jit
def needs_support(U, c):
    """A decorative vanilla block that needs a neighbour (blocks.NEED): block changes near it reach it."""
    return U[c, BT] == PARTIAL and NEED[state_number(U, c)] != 0


# ----------------------------------------------------------------------------- signals
@jit
def strong_into(U, N, c):
    """The strong power of the conductor at c: 15 from a repeater, torch, button or lever, a comparator's
    output, else 0."""
    m = U[c, SMASK]
    if m == 0:
        return 0
    best = 0
    for k in range(6):
        if not (m >> k) & 1:
            continue
        n = N[c, FC[k]]
        b = U[n, BT]
        if b == REPEATER or b == OBSERVER:
            if U[n, ON] and U[n, FACING] == k:
                return 15
        elif b == TORCH or b == WALL_TORCH:
            if k == DOWN and U[n, ON]:
                return 15
        elif b == BUTTON or b == LEVER:
            if U[n, ON] and attachment(U, N, n) == c:
                return 15
        elif b == COMPARATOR:
            if U[n, ON] and U[n, FACING] == k and U[n, POWER] > best:
                best = U[n, POWER]
        elif k == UP and is_plate(b) and U[n, POWER] > best:  # a plate strongly powers the block below it
            best = U[n, POWER]
        elif k == UP and b == RAIL and U[n, FACE] == DETECTOR and U[n, ON]:  # so does a pressed detector rail
            return 15
        elif b == PARTIAL and hook_powering(U, n) and hook_facing(U, n) == k:  # a powered hook, the block behind it
            return 15
    return best


@jit
def dust_into(U, N, c):
    """Strongest dust pointing into c or lying on top of it."""
    best = 0
    n = N[c, FC[UP]]
    if U[n, BT] == WIRE:
        best = U[n, POWER]
    for k in range(4):
        n = N[c, FC[k]]
        if U[n, BT] == WIRE and (U[n, SIDES] >> (2 * opp(k))) & 3:
            if U[n, POWER] > best:
                best = U[n, POWER]
    return best


@jit
def signal_to(U, N, src, k, with_dust):
    """Signal the block at src sends to the receiver one step from src opposite to k (k points
    receiver -> src)."""
    b = U[src, BT]
    if is_conductor(b):
        if test_emits(U, src):
            return 15
        s = strong_into(U, N, src)
        if with_dust and s < 15:
            d = dust_into(U, N, src)
            if d > s:
                s = d
        return s
    if b == WIRE:
        if not with_dust or k == DOWN:
            return 0
        if k == UP:
            return U[src, POWER]
        if (U[src, SIDES] >> (2 * opp(k))) & 3:
            return U[src, POWER]
        return 0
    if b == REPEATER or b == OBSERVER:
        return 15 if (U[src, ON] and U[src, FACING] == k) else 0
    if b == TORCH:
        return 15 if (U[src, ON] and k != UP) else 0
    if b == WALL_TORCH:
        return 15 if (U[src, ON] and k != U[src, FACING]) else 0
    if b == BUTTON or b == LEVER:
        return 15 if U[src, ON] else 0
    if b == RBLOCK:
        return 15
    if b == COMPARATOR:
        return U[src, POWER] if (U[src, ON] and U[src, FACING] == k) else 0
    if is_plate(b) or b == DAYLIGHT:
        return U[src, POWER]
    if b == RAIL and U[src, FACE] == DETECTOR:  # a detector rail with a minecart on it: 15 to every side
        return 15 if U[src, ON] else 0
    if b == PARTIAL:  # a powered tripwire hook: 15 to every side
        return 15 if hook_powering(U, src) else 0
    return 0


@jit
def lamp_powered(U, N, c):
    for k in range(6):
        if signal_to(U, N, N[c, FC[k]], k, True) > 0:
            return True
    return False


@jit
def torch_powered(U, N, c):
    a = attachment(U, N, c)
    k = DOWN if U[c, BT] == TORCH else opp(U[c, FACING])
    return signal_to(U, N, a, k, True) > 0


@jit
def repeater_input(U, N, c):
    k = U[c, FACING]
    n = N[c, FC[k]]
    if U[n, BT] == WIRE:
        return U[n, POWER] > 0
    return signal_to(U, N, n, k, True) > 0


@jit
def repeater_locked(U, N, c):
    """Vanilla isLocked: a repeater or comparator facing into a side emits a signal into it."""
    f = U[c, FACING]
    for s in ((f + 1) % 4, (f + 3) % 4):
        n = N[c, FC[s]]
        if U[n, FACING] == s and U[n, ON] and (U[n, BT] == REPEATER or (U[n, BT] == COMPARATOR and U[n, POWER] > 0)):
            return True
    return False


@jit
def diode_prioritized(U, N, c):
    """Vanilla shouldPrioritize: a repeater or comparator facing into another diode that does not face
    back into it ticks ahead of others."""
    out = opp(U[c, FACING])
    front = N[c, FC[out]]
    return is_diode(U[front, BT]) and U[front, FACING] != out


# ----------------------------------------------------------------------------- comparator
@jit
def comparator_rear(U, N, c):
    """A comparator's rear input: what the block behind it gives by itself (analog_level) if anything, else the
    power behind it (dust at its own level), replaced by what the block behind a conductor there gives by
    itself when the conductor receives less than 15."""
    k = U[c, FACING]
    n = N[c, FC[k]]
    b = U[n, BT]
    a = analog_level(U, n)
    if a >= 0:
        return a
    if b == WIRE:
        i = np.int64(U[n, POWER])
    else:
        i = np.int64(signal_to(U, N, n, k, True))
    if i < 15 and is_conductor(b):
        a = analog_level(U, N[c, FC2[k]])
        if a >= 0:
            i = a
    return i


@jit
def side_signal(U, N, n, s):
    """What the block at n gives a comparator's side (s points from the comparator to n): dust its
    power, a redstone block 15, a diode facing in its output; nothing else (a torch, lever or button
    beside it powers no side, and a solid block none either)."""
    b = U[n, BT]
    if b == WIRE:
        return U[n, POWER]
    if b == RBLOCK:
        return 15
    if b == REPEATER or b == OBSERVER:
        return 15 if (U[n, ON] and U[n, FACING] == s) else 0
    if b == COMPARATOR:
        return U[n, POWER] if (U[n, ON] and U[n, FACING] == s) else 0
    return 0


@jit
def comparator_side(U, N, c):
    f = U[c, FACING]
    a = (f + 1) % 4
    b = (f + 3) % 4
    return max(side_signal(U, N, N[c, FC[a]], a), side_signal(U, N, N[c, FC[b]], b))


@jit
def comparator_output(U, N, c):
    """The output a comparator computes now (vanilla calculateOutputSignal)."""
    i = comparator_rear(U, N, c)
    if i == 0:
        return 0
    j = comparator_side(U, N, c)
    if j > i:
        return 0
    return i - j if U[c, MODE] else i


@jit
def comparator_should_on(U, N, c):
    """Whether a comparator should be powered now (vanilla shouldTurnOn)."""
    i = comparator_rear(U, N, c)
    if i == 0:
        return False
    j = comparator_side(U, N, c)
    return i > j or (i == j and U[c, MODE] == 0)


# ----------------------------------------------------------------------------- dust
@jit
def candidate(N, d, j):
    """Link candidate j of dust d (see CC)."""
    return N[d, CC[j]]


@jit
def reads_from(U, N, d, j):
    """Does the dust at candidate j of dust d take power from d? (Vanilla: a dust one up reads
    through the air above d; a dust one down reads down the side of a conductor that carries d,
    unless its own column is blocked above.)"""
    v = j % 3
    if v == 0:
        return True
    if v == 1:
        return not is_conductor(U[N[d, FC[UP]], BT])
    return is_conductor(U[N[d, FC[DOWN]], BT]) and not is_conductor(U[N[d, FC[j // 3]], BT])


@jit
def dust_source(U, N, d):
    """Power dust at d takes from non-dust neighbours (signal_to without dust, written flat because this
    is the engine's hottest path)."""
    m = U[d, PMASK]
    best = 0
    for k in range(6):
        if not (m >> k) & 1:
            continue
        n = N[d, FC[k]]
        b = U[n, BT]
        if is_conductor(b):
            if b == TEST_BLOCK and test_emits(U, n):
                return 15
            if U[n, SMASK] != 0:
                s = strong_into(U, N, n)
                if s == 15:
                    return 15
                if s > best:
                    best = s
        elif b == RBLOCK:
            return 15
        elif is_plate(b) or b == DAYLIGHT:
            if U[n, POWER] > best:
                best = U[n, POWER]
        elif b == PARTIAL:
            if hook_powering(U, n):
                return 15
        elif U[n, ON]:
            if b == REPEATER or b == OBSERVER:
                if U[n, FACING] == k:
                    return 15
            elif b == TORCH:
                if k != UP:
                    return 15
            elif b == WALL_TORCH:
                if k != U[n, FACING]:
                    return 15
            elif b == BUTTON or b == LEVER:
                return 15
            elif b == COMPARATOR:
                if U[n, FACING] == k and U[n, POWER] > best:
                    best = U[n, POWER]
            elif b == RAIL and U[n, FACE] == DETECTOR:
                return 15
    return best


@jit
def connects_to(U, n, h):
    b = U[n, BT]
    if (b == WIRE or b == TORCH or b == WALL_TORCH or b == BUTTON or b == LEVER or b == RBLOCK or b == COMPARATOR
            or b == TARGET or is_plate(b) or b == DAYLIGHT):
        return True
    if b == REPEATER:
        return U[n, FACING] == h or U[n, FACING] == opp(h)
    if b == OBSERVER:
        return U[n, FACING] == h  # its back, where its signal comes out
    if is_vanilla(b):
        return SIGNAL_SOURCE[state_number(U, n)] != 0  # a lectern or jukebox (vanilla isSignalSource)
    return b == RAIL and U[n, FACE] == DETECTOR  # a detector rail is a signal source (without a minecart, of 0)


@jit
def wire_shape(U, N, d, was_dot):
    """Packed sides (2 bits each: 0 none, 1 side, 2 up) following vanilla's connection rules."""
    can_up = not is_conductor(U[N[d, FC[UP]], BT])
    raw = 0
    for h in range(4):
        n = N[d, FC[h]]
        b = U[n, BT]
        s = 0
        sf = sturdy_faces(U, n)
        if can_up and (sf >> UP) & 1 and U[N[d, CC[3 * h + 1]], BT] == WIRE:
            s = 2 if (sf >> opp(h)) & 1 else 1  # up the block's side only when that side is whole
        elif connects_to(U, n, h):
            s = 1
        elif not is_conductor(b) and U[N[d, CC[3 * h + 2]], BT] == WIRE:
            s = 1
        raw |= s << (2 * h)
    if raw == 0 and was_dot:
        return 0
    n_ = raw & 3
    e_ = (raw >> 2) & 3
    s_ = (raw >> 4) & 3
    w_ = (raw >> 6) & 3
    if n_ == 0 and s_ == 0:
        if w_ == 0:
            raw |= 1 << 6
        if e_ == 0:
            raw |= 1 << 2
    if e_ == 0 and w_ == 0:
        if n_ == 0:
            raw |= 1
        if s_ == 0:
            raw |= 1 << 4
    return raw


@jit
def wire_raw_connected(U, N, d):
    """True if the dust at d connects to anything (so `use` cannot toggle cross/dot)."""
    return wire_shape(U, N, d, True) != 0


@jit
def put_event(g, c, kind, old, new, b):
    if g.meta[M_LOG] == 0:
        return
    i = g.meta[M_EVN]
    if i >= g.E.shape[0]:
        g.meta[M_OVERFLOW] = OV_EVENTS
        return
    g.E[i, 0] = g.meta[M_TICK]
    g.E[i, 1] = (
        np.int64(c) | (np.int64(kind) << 32) | (np.int64(old) << 40) | (np.int64(new) << 48) | (np.int64(b) << 56)
    )
    g.meta[M_EVN] = i + 1


@jit
def log_event(g, c, kind, old, new):
    # the block as it is now: it may pop or be replaced before the log is read
    put_event(g, c, kind, old, new, g.U[c, BT])
    if g.meta[M_OBSERVERS] == 0:
        return
    # a change of block state sends shape updates to the neighbours, which observers watch (a comparator's
    # output and a container's fill level live in block entities, and a note played changes no state)
    if kind == EV_POPPED:
        notify_observers(g, c)
    elif g.U[c, NEARC] and (kind == EV_STATE or kind == EV_SHAPE or kind == EV_LOCKED or kind == EV_DELAY
                            or kind == EV_MODE or kind == EV_TUNED
                            or (kind == EV_POWER and (g.U[c, BT] == WIRE or g.U[c, BT] == COPPER_BULB))):
        notify_observers(g, c)


@jit
def notify_observers(g, c):
    """A shape update from c reaches its six neighbours west, east, north, south, down, up (vanilla's shape-update
    order, which orders the ticks of observers due together): an observer facing c, leaves (see watch_shape), and a
    fence, wall, pane or iron bars beside c, which takes its side toward c anew (relink) and, if that changed it,
    sends shape updates of its own (relinked)."""
    if g.meta[M_OBSERVERS] == 0:
        return
    U = g.U
    N = g.N
    for k in SHAPE_ORDER:
        watch_shape(g, c, k)
        n = N[c, FC[k]]
        if is_linking(U, n) and relink(g, n, opp(k)):
            relinked(g, n)
        elif k < 4 and (trip_of(U, n) & T_STRING) != 0:
            string_relink(g, n, opp(k))
        elif k < 4 and stairs_at(U, n) >= 0 and restair(g, n):
            restaired(g, n)


@jit
def watch_shape(g, c, k):
    """The neighbour of c toward k hears c's shape update: an unpowered observer facing c without a tick pending
    schedules one, 2 game ticks on (vanilla ObserverBlock.updateShape); leaves schedule their distance tick; a bell
    may take one wall or two (bell_shape)."""
    n = g.N[c, FC[k]]
    if bell_of(g.U, n) != 0:
        bell_shape(g, n, opp(k))
    else:
        watch_plain(g, c, k)


@jit
def watch_plain(g, c, k):
    """watch_shape for any neighbour but a bell: observers, leaves, a dirt path under c and a bed's half whose other
    half belongs at c. (Kept apart so that a bell's own shape updates, which reach these, call no bell again: the
    kernels do not recurse.)"""
    U = g.U
    n = g.N[c, FC[k]]
    if U[n, BT] == OBSERVER and U[n, FACING] == opp(k) and not U[n, ON]:
        start_signal(g, n)
    elif is_vanilla(U[n, BT]) and LEAF_DISTANCE[state_number(U, n)]:
        # vanilla LeavesBlock.updateShape: a tick 1 gt on, unless c is a log and the leaves already say 1
        d = leaf_distance_at(U, c) + 1
        if d != 1 or LEAF_DISTANCE[state_number(U, n)] != 1:
            schedule(g, n, 1, P_NORMAL)
    elif U[n, BT] == PARTIAL and state_number(U, n) == DIRT_PATH_NUMBER:
        # vanilla DirtPathBlock.updateShape from above: a path that cannot stay (a solid block over it, not a fence
        # gate) turns to dirt at a tick 1 gt on
        if k == DOWN and not path_survives(U, c):
            schedule(g, n, 1, P_NORMAL)
    elif k < 4 and (bed_of(U, n) & 3) == opp(k) and bed_of(U, n) != 0 and not bed_paired(U, g.N, n):
        push_changed(g, n, K_UNPAIRED)  # vanilla BedBlock.updateShape: any change where its other half belongs


@jit
def path_survives(U, a):
    """Vanilla DirtPathBlock.canSurvive, for the block at a above a path: it is not solid, or it is a fence gate."""
    b = U[a, BT]
    return b == FENCE_GATE or not solid_bit(b, state_number(U, a))


@jit
def path_to_dirt(g, c):
    """Vanilla DirtPathBlock.tick (FarmBlock.turnToDirt): the path becomes dirt, whatever is above it now, set with
    neighbour and shape updates."""
    U = g.U
    put_event(g, c, EV_REMOVED, 0, 0, PARTIAL)
    U[c, GONE] = PARTIAL
    U[c, BT] = DIRT_ID
    U[c, FACING] = DIRT_NUMBER & 255
    U[c, FACE] = DIRT_NUMBER >> 8
    U[c, DELAY] = 1  # as a placed full block keeps it
    put_event(g, c, EV_PLACED, 0, 0, DIRT_ID)
    reshape_near(g, c)
    push_changed(g, c, K_BLOCK)
    notify_observers(g, c)
    propagate(g, -1)


# ----------------------------------------------------------------------------- bells and beds
# docs/redstone.md section 99. blocks.BELL and blocks.BED say what a state number is.
@jit
def bell_of(U, c):
    """blocks.BELL of the block at c: 0 unless it is a bell."""
    if U[c, BT] != PARTIAL:
        return np.int64(0)
    return np.int64(BELL[state_number(U, c)])


@jit
def bed_of(U, c):
    """blocks.BED of the block at c: 0 unless it is a bed's half."""
    if U[c, BT] != PARTIAL:
        return np.int64(0)
    return np.int64(BED[state_number(U, c)])


@jit
def bed_paired(U, N, c):
    """Does the bed's half at c have its other half (the other part of a bed of its colour) where it belongs?"""
    bed = bed_of(U, c)
    o = bed_of(U, N[c, FC[bed & 3]])
    return o != 0 and (o >> 4) == (bed >> 4) and ((o ^ bed) & B_HEAD) != 0


@jit
def set_bell(g, c, bits):
    """The bell at c takes the state blocks.BELL `bits` describe. A change of powered is logged as a state event; a
    change of attachment or facing as the block replaced. The caller sends its shape updates."""
    U = g.U
    was = bell_of(U, c)
    number = np.int64(BELL_NUMBER[(bits >> 1) & 31])
    moved = ((was ^ bits) & ~B_POWERED) != 0
    if moved:
        put_event(g, c, EV_REMOVED, 0, 0, PARTIAL)
    U[c, FACING] = number & 255
    U[c, FACE] = number >> 8
    if moved:
        put_event(g, c, EV_PLACED, 0, 0, PARTIAL)
    if ((was ^ bits) & B_POWERED) != 0:
        put_event(g, c, EV_STATE, 1 if was & B_POWERED else 0, 1 if bits & B_POWERED else 0, PARTIAL)


@jit
def bell_shape(g, c, d):
    """Vanilla BellBlock.updateShape: the bell at c hears a shape update from direction d, along the axis it faces.
    A double-wall bell whose neighbour there has no whole face toward d becomes a single-wall bell facing away from
    it; a single-wall bell that gets a whole face on its free side (toward its facing) becomes a double-wall bell.
    The new state is set with shape updates only."""
    U = g.U
    bell = bell_of(U, c)
    f = (bell >> 4) & 3
    if d >= 4 or (d & 1) != (f & 1):
        return
    att = (bell >> 2) & 3
    sf = sturdy_faces(U, g.N[c, FC[d]])
    if att == BELL_DOUBLE and ((sf >> d) & 1) == 0:
        set_bell(g, c, B_BELL | (bell & B_POWERED) | BELL_SINGLE << 2 | opp(d) << 4)
    elif att == BELL_SINGLE and d == opp(f) and ((sf >> f) & 1) != 0:
        set_bell(g, c, (bell & ~12) | BELL_DOUBLE << 2)
    else:
        return
    if g.meta[M_OBSERVERS] > 0:
        for k in SHAPE_ORDER:  # its own shape updates (a bell beside it does not hear them)
            watch_plain(g, c, k)


# ----------------------------------------------------------------------------- fences, walls, panes
# docs/redstone.md section 57. A fence, wall, pane or iron bars (blocks.LINK) keeps its sides in its state number;
# blocks.LINK_STRIDE says how to step one of them.
@jit
def is_linking(U, x):
    if not is_vanilla(U[x, BT]):
        return False
    kind = LINK[state_number(U, x)]
    return kind >= L_WOOD_FENCE and kind <= L_PANE


@jit
def link_value(number, j, nv):
    """The index of the value of property j (north, east, south, west, up) in a linking block's state number."""
    return ((number - np.int64(LINK_LO[number])) // np.int64(LINK_STRIDE[number, j])) % nv


@jit
def with_value(number, j, v, nv):
    return number + (v - link_value(number, j, nv)) * np.int64(LINK_STRIDE[number, j])


@jit
def joins(U, N, c, kind, k):
    """Does the fence, wall or pane at c (of LINK kind `kind`) join its neighbour toward k (vanilla connectsTo)? A
    fence joins fences of its own kind (wooden or nether brick), a wall or pane joins walls, panes and iron bars;
    fences and walls join a fence gate standing across the line; and every one joins a whole face turned to it,
    but for leaves, barriers, pumpkins, melons and shulker boxes (blocks.L_NEVER)."""
    n = N[c, FC[k]]
    b = U[n, BT]
    if b == FENCE_GATE:
        return kind != L_PANE and U[n, FACING] % 2 != k % 2
    other = LINK[state_number(U, n)] if is_vanilla(b) else 0
    if kind == L_WALL or kind == L_PANE:
        if other == L_WALL or other == L_PANE:
            return True
    elif other == kind:
        return True
    if other == L_NEVER:
        return False
    return (sturdy_faces(U, n) >> opp(k)) & 1 == 1


@jit
def cover_below(U, x):
    """Which of a wall's test shapes the bottom face of the block at x covers (blocks.WALL_COVER: bit 0 the post's,
    then north, east, south, west), plus WALL_POST_OVERRIDE for a redstone torch or a pressure plate."""
    b = U[x, BT]
    if is_vanilla(b):
        number = state_number(U, x)
        return np.int64(WALL_COVER[number]) if number else 31  # state 0: the palette's stone and glass
    if is_piston(b) and U[x, ON]:  # an extended base: a 12/16 box against its back
        f = U[x, FACING]
        return 31 if f == UP else 0 if f == DOWN else 31 & ~(2 << f)
    if is_full(b) or b == REPEATER or b == COMPARATOR or b == DAYLIGHT:
        return 31
    if b == IRON_TRAPDOOR:
        return 31 if not U[x, ON] and U[x, HALF] == 0 else 0
    if b == FENCE_GATE:  # closed: a bar across its facing; open: no collision
        return 0 if U[x, ON] else 1 | (20 if U[x, FACING] % 2 == 0 else 10)
    if b == HOPPER:
        return 1 if U[x, FACING] == DOWN else 0  # the spout down is the post's width
    if b == CHEST:
        return 1
    if b == PISTON_HEAD:
        f = U[x, FACING]
        return 31 if f == DOWN else 1 if f == UP else 0
    if b == TORCH or is_plate(b):
        return WALL_POST_OVERRIDE
    return 0


@jit
def wall_number(U, N, c, number, conn):
    """The state number of the wall at c joined on the sides in the 4-bit mask conn (north, east, south, west):
    a side is tall where the block above covers it, low elsewhere; the post stands unless the wall runs straight
    through (vanilla WallBlock.updateShape and shouldRaisePost)."""
    above = N[c, FC[UP]]
    cov = cover_below(U, above)
    v0 = 0
    v1 = 0
    v2 = 0
    v3 = 0
    for k in range(4):
        v = 0
        if (conn >> k) & 1:
            v = 2 if cov & (2 << k) else 1
        number = with_value(number, k, v, 3)
        if k == 0:
            v0 = v
        elif k == 1:
            v1 = v
        elif k == 2:
            v2 = v
        else:
            v3 = v
    post = True
    ab = state_number(U, above)
    if is_linking(U, above) and LINK[ab] == L_WALL and link_value(ab, 4, 2) == 0:
        post = True  # a wall above with its post up
    elif conn == 0 or (v0 == 0) != (v2 == 0) or (v1 == 0) != (v3 == 0):
        post = True  # no side, an end or a corner
    elif (v0 == 2 and v2 == 2) or (v1 == 2 and v3 == 2):
        post = False
    else:
        post = cov & (WALL_POST_OVERRIDE | 1) != 0
    return with_value(number, 4, 0 if post else 1, 2)


@jit
def linked_number(U, N, c, number, k):
    """The state number of the fence, wall or pane at c once its side toward k is worked out again (k -1: every
    side, as a placement works them out; UP: a wall's tall sides and post only)."""
    kind = LINK[number]
    if kind == L_WALL:
        conn = 0
        for j in range(4):
            if (j == k or k < 0) and joins(U, N, c, kind, j) or (j != k and k >= 0 and link_value(number, j, 3) != 0):
                conn |= 1 << j
        return wall_number(U, N, c, number, conn)
    for j in range(4):
        if j == k or k < 0:
            number = with_value(number, j, 0 if joins(U, N, c, kind, j) else 1, 2)  # true is value 0
    return number


@jit
def relink(g, n, k):
    """Vanilla updateShape of the fence, wall or pane at n from its neighbour toward k: a fence or pane takes that
    side anew (not from above or below), a wall that side and, from above, its tall sides and post; set without
    neighbour updates. Returns True if its state changed. (Its faces and kind stay, so nothing cached around it
    changes: no reshape_near, which would also make the shape-update kernels call themselves, which numba's cache
    cannot keep.)"""
    U = g.U
    number = state_number(U, n)
    if g.meta[M_PASTE] or k == DOWN or (k == UP and LINK[number] != L_WALL):
        return False
    new = linked_number(U, g.N, n, number, k)
    if new == number:
        return False
    put_event(g, n, EV_REMOVED, 0, 0, U[n, BT])
    U[n, FACING] = new & 255
    U[n, FACE] = new >> 8
    put_event(g, n, EV_PLACED, 0, 0, U[n, BT])
    return True


# Stairs (blocks.STAIRS_LO): a state's offset from its block's first is ((facing * 2 + half) * 5 + shape) * 2 +
# waterlogged, facing in vanilla's order north, south, west, east (STAIR_DIR: as a direction index).
STAIR_DIR = np.array([0, 2, 3, 1], dtype=np.int64)


@jit
def stairs_at(U, x):
    """The offset of the stairs state at x from its block's first state, or -1 for any other block."""
    if U[x, BT] != PARTIAL:
        return -1
    number = state_number(U, x)
    lo = np.int64(STAIRS_LO[number])
    return number - lo if lo else -1


@jit
def can_take(U, N, c, d, half, k):
    """Vanilla canTakeShape: the block toward k is not stairs facing d on the same half."""
    o = stairs_at(U, N[c, FC[k]])
    return o < 0 or STAIR_DIR[o // 20] != d or (o // 10) % 2 != half


@jit
def stairs_shape(U, N, c):
    """The shape (an index into blocks.STAIR_SHAPES) of the stairs at c, from the stairs in front of them (an outer
    corner) or behind them (an inner corner) on the same half, turned across (vanilla getStairsShape)."""
    off = stairs_at(U, c)
    d = STAIR_DIR[off // 20]
    half = (off // 10) % 2
    o = stairs_at(U, N[c, FC[d]])
    if o >= 0 and (o // 10) % 2 == half:
        d1 = STAIR_DIR[o // 20]
        if d1 % 2 != d % 2 and can_take(U, N, c, d, half, opp(d1)):
            return 3 if d1 == (d + 3) % 4 else 4
    o = stairs_at(U, N[c, FC[opp(d)]])
    if o >= 0 and (o // 10) % 2 == half:
        d2 = STAIR_DIR[o // 20]
        if d2 % 2 != d % 2 and can_take(U, N, c, d, half, d2):
            return 1 if d2 == (d + 3) % 4 else 2
    return 0


@jit
def restair(g, c):
    """Vanilla updateShape of the stairs at c from a side: its shape anew, and with it its whole faces; set without
    neighbour updates. Returns True if it changed."""
    U = g.U
    if g.meta[M_PASTE]:
        return False
    number = state_number(U, c)
    new = number + (stairs_shape(U, g.N, c) - (stairs_at(U, c) // 2) % 5) * 2
    if new == number:
        return False
    put_event(g, c, EV_REMOVED, 0, 0, PARTIAL)
    U[c, FACING] = new & 255
    U[c, FACE] = new >> 8
    U[c, DELAY] = STURDY[new]
    put_event(g, c, EV_PLACED, 0, 0, PARTIAL)
    for j in range(NNEAR):  # the masks of the blocks that read its faces (not reshape_near: no updates from here)
        x = g.N[c, j]
        if REACH[j] == 1 and U[x, BT] != AIR:
            refresh(U, g.N, x)
    return True


@jit
def restaired(g, n):
    """The stairs at n changed shape: their shape updates reach the observers, leaves, fences, walls and panes
    around them (whose faces toward them may have changed)."""
    U = g.U
    for k in SHAPE_ORDER:
        watch_shape(g, n, k)
        m = g.N[n, FC[k]]
        if is_linking(U, m) and relink(g, m, opp(k)):
            relinked(g, m)


@jit
def shape_from_neighbours(g, c):
    """A fence, wall, pane or stairs at c takes every side, or its shape, from its neighbours (vanilla
    getStateForPlacement and updateFromNeighbourShapes), without updates."""
    U = g.U
    if is_linking(U, c):
        number = linked_number(U, g.N, c, state_number(U, c), -1)
    elif stairs_at(U, c) >= 0:
        number = state_number(U, c)
        number += (stairs_shape(U, g.N, c) - (stairs_at(U, c) // 2) % 5) * 2
        U[c, DELAY] = STURDY[number]
    elif (trip_of(U, c) & T_STRING) != 0:  # vanilla TripWireBlock.getStateForPlacement
        bits = trip_of(U, c) & ~(15 << T_CONN)
        for k in range(4):
            if string_joins(U, g.N, c, k):
                bits |= 1 << (T_CONN + k)
        number = string_number(bits)
    else:
        return
    U[c, FACING] = number & 255
    U[c, FACE] = number >> 8


@jit
def relinked(g, n):
    """The fence, wall or pane at n changed by a shape update: its own shape updates reach the observers and leaves
    around it, and a wall below it (whose tall sides and post follow what stands on it), and so on down."""
    U = g.U
    N = g.N
    x = n
    while True:
        below = 0
        for k in SHAPE_ORDER:
            watch_shape(g, x, k)
            if k == DOWN:
                w = N[x, FC[DOWN]]
                if is_linking(U, w) and relink(g, w, UP):
                    below = w
        if below == 0:
            return
        x = below


@jit
def leaf_distance_at(U, x):
    """What leaves count from the block at x: 0 from a log, a leaves block's own distance, else 7."""
    b = U[x, BT]
    if not is_vanilla(b):
        return 7
    number = state_number(U, x)
    if LOG[number]:
        return 0
    d = LEAF_DISTANCE[number]
    return d if d else 7


@jit
def leaves_tick(g, c):
    """Vanilla LeavesBlock.tick: the distance becomes one more than the least of its six neighbours' (at most
    7), set as setBlock does with neighbour updates and shape updates (which the leaves beside hear)."""
    U = g.U
    N = g.N
    number = state_number(U, c)
    d = LEAF_DISTANCE[number]
    if d == 0:
        return
    least = 7
    for k in range(6):
        least = min(least, leaf_distance_at(U, N[c, FC[k]]) + 1)
    if least == d:
        return
    new = number + (np.int64(least) - np.int64(d)) * np.int64(LEAF_STRIDE[number])
    put_event(g, c, EV_REMOVED, 0, 0, U[c, BT])
    U[c, FACING] = new & 255
    U[c, FACE] = new >> 8
    put_event(g, c, EV_PLACED, 0, 0, U[c, BT])
    reshape_near(g, c)
    push_changed(g, c, K_BLOCK)
    notify_observers(g, c)


# ----------------------------------------------------------------------------- tripwire
# docs/redstone.md section 88. A tripwire hook and tripwire (string) are vanilla blocks (their state numbers in
# FACING and FACE); blocks.TRIP says what a state number is. A string keeps in ENTITIES what the world found in it at
# the end of the last entity phase: bit 0 an entity box meeting its attached shape, bit 1 its unattached shape.
TRIP_RECHECK = 10  # vanilla RECHECK_PERIOD of both blocks
TRIP_REACH = 42  # vanilla WIRE_DIST_MAX: a hook looks 41 blocks out, so a line holds at most 40 strings
TDX = np.array([0, 1, 0, -1], dtype=np.int64)
TDZ = np.array([-1, 0, 1, 0], dtype=np.int64)


@jit
def trip_of(U, c):
    """blocks.TRIP of the block at c: 0 unless it is a tripwire hook or a string."""
    if U[c, BT] != PARTIAL:
        return np.int64(0)
    return np.int64(TRIP[state_number(U, c)])


@jit
def hook_powering(U, c):
    """Is c a powered tripwire hook (15 to every side, strongly into the block behind it)?"""
    return (trip_of(U, c) & (T_HOOK | T_POWERED)) == (T_HOOK | T_POWERED)


@jit
def hook_facing(U, c):
    return (trip_of(U, c) >> T_FACING) & 3


@jit
def hook_number(facing, attached, powered):
    return np.int64(HOOK_NUMBER[facing * 4 + (2 if attached else 0) + (1 if powered else 0)])


@jit
def string_number(bits):
    return np.int64(STRING_NUMBER[(bits >> 2) & 127])


@jit
def trip_cell(g, c, d, j):
    """The cell j blocks from c toward horizontal direction d (0: no cell, air)."""
    return cell_at(g, g.P[c, 0] + TDX[d] * j, g.P[c, 1], g.P[c, 2] + TDZ[d] * j)


@jit
def set_trip(g, c, number):
    """vanilla setBlock(flags 3) of a hook's or string's state at c: its neighbours hear of it (a hook's power as a
    lever's), and a shape update goes out (observers, strings beside it). A string written where the cell no longer
    holds one is placed again (vanilla 1.20's calculateState does so, MC-129055)."""
    U = g.U
    if U[c, BT] == PARTIAL and state_number(U, c) == number:
        return
    was = trip_of(U, c)
    if U[c, BT] != PARTIAL or was == 0:
        if U[c, BT] != AIR:
            put_event(g, c, EV_REMOVED, 0, 0, U[c, BT])
        clear_power(g, c)
        U[c, BT] = PARTIAL
        U[c, ON] = 0
        U[c, SIDES] = 0
        U[c, LOCKED] = 0
        U[c, ENTITIES] = 0
        g.T[c, PTIME] = -1
        was = 0
    else:
        put_event(g, c, EV_REMOVED, 0, 0, PARTIAL)
    U[c, FACING] = number & 255
    U[c, FACE] = number >> 8
    U[c, DELAY] = 0  # neither holds anything on its faces
    put_event(g, c, EV_PLACED, 0, 0, PARTIAL)
    if was == 0:
        reshape_near(g, c)
    notify_observers(g, c)
    push_changed(g, c, K_BLOCK)
    now = np.int64(TRIP[number])
    if (now & T_HOOK) != 0 and ((was ^ now) & T_POWERED) != 0:
        push_changed(g, c, K_COMP)


@jit
def calculate_state(g, c, number, being_removed, notify, src, src_number):
    """vanilla TripWireHookBlock.calculateState for the hook at c in state `number`: it looks out along its facing,
    up to 41 blocks, for a hook facing back; the line between is whole when every block is a string and no string is
    disarmed (the string at `src` counts as `src_number`, what it was as it changed), and it holds at least one
    string. Both hooks become attached if it is whole, and powered if any string that is not disarmed is powered as
    well; the strings take the new `attached` when it changed. A string changing (src >= 0) has the hook look again
    10 game ticks later. `being_removed`: the hook is going (its onRemove), only the other hook and the strings
    change. `notify` is vanilla's updateSource flag (the neighbour updates here go out either way)."""
    U = g.U
    bits = np.int64(TRIP[number])
    f = (bits >> T_FACING) & 3
    attached = (bits & T_ATTACHED) != 0
    whole = not being_removed
    powered = False
    far = 0
    for j in range(1, TRIP_REACH):
        n = trip_cell(g, c, f, j)
        t = trip_of(U, n)
        if (t & T_HOOK) != 0:
            if ((t >> T_FACING) & 3) == opp(f):
                far = j
            break
        if (t & T_STRING) == 0 and j != src:
            whole = False
        else:
            if j == src:
                t = np.int64(TRIP[src_number])
            armed = (t & T_DISARMED) == 0
            powered = powered or (armed and (t & T_POWERED) != 0)
            if j == src:
                schedule(g, c, TRIP_RECHECK, P_NORMAL)
                whole = whole and armed
    whole = whole and far > 1
    powered = powered and whole
    if far > 0:
        set_trip(g, trip_cell(g, c, f, far), hook_number(opp(f), whole, powered))
    if not being_removed:
        set_trip(g, c, hook_number(f, whole, powered))
    if attached != whole:
        for k in range(1, far):
            n = trip_cell(g, c, f, k)
            if k == src:
                t = np.int64(TRIP[src_number])
            else:
                t = trip_of(U, n)
                if (t & T_STRING) == 0:
                    continue
            if n > 0:
                set_trip(g, n, string_number((t & ~T_ATTACHED) | (T_ATTACHED if whole else 0)))


@jit
def update_source(g, c, number):
    """vanilla TripWireBlock.updateSource: the string at c (now in state `number`) tells the hook at the south or
    west end of its line, if that hook faces the line, to look at its line again."""
    U = g.U
    for d in (2, 3):
        for i in range(1, TRIP_REACH):
            n = trip_cell(g, c, d, i)
            t = trip_of(U, n)
            if (t & T_HOOK) != 0:
                if ((t >> T_FACING) & 3) == opp(d):
                    calculate_state(g, n, state_number(U, n), False, True, i, number)
                break
            if (t & T_STRING) == 0:
                break


@jit
def string_check(g, c):
    """vanilla TripWireBlock.checkPressed: the string is powered while an entity's box meets its shape (the
    attached or the unattached one, ENTITIES); a change tells its line's hook, and while it is powered it looks
    again 10 game ticks later."""
    U = g.U
    bits = trip_of(U, c)
    was = (bits & T_POWERED) != 0
    now = (U[c, ENTITIES] & (1 if (bits & T_ATTACHED) != 0 else 2)) != 0
    if now != was:
        number = string_number((bits & ~T_POWERED) | (T_POWERED if now else 0))
        set_trip(g, c, number)
        update_source(g, c, number)
    if now:
        schedule(g, c, TRIP_RECHECK, P_NORMAL)


@jit
def string_joins(U, N, s, k):
    """vanilla TripWireBlock.shouldConnectTo: the string at s joins what is toward k if it is a string, or a hook
    facing it."""
    t = trip_of(U, N[s, FC[k]])
    if (t & T_HOOK) != 0:
        return ((t >> T_FACING) & 3) == opp(k)
    return (t & T_STRING) != 0


@jit
def string_relink(g, s, k):
    """vanilla TripWireBlock.updateShape from its side k: that side's connection follows the block there; a change
    sends shape updates on (observers), no neighbour update."""
    U = g.U
    bits = trip_of(U, s)
    want = (bits & ~(1 << (T_CONN + k))) | ((1 << (T_CONN + k)) if string_joins(U, g.N, s, k) else 0)
    if want == bits:
        return
    number = string_number(want)
    put_event(g, s, EV_REMOVED, 0, 0, PARTIAL)
    U[s, FACING] = number & 255
    U[s, FACE] = number >> 8
    put_event(g, s, EV_PLACED, 0, 0, PARTIAL)
    for j in SHAPE_ORDER:
        watch_shape(g, s, j)


@jit
def trip_replaced(g, c, gone, moving):
    """A block change at c, already written: vanilla onRemove of the hook or string that was there (state number
    `gone`, -1 if none), then onPlace of a string now there (the same block staying is neither). A string going
    tells its hook as a powered string would (breaking a line trips it, unless the string was disarmed); a hook
    going that was attached or powered lets its line go. `moving` is unused by vanilla's rules here (a piston breaks
    both blocks, which is not a move)."""
    U = g.U
    was = np.int64(TRIP[gone]) if gone >= 0 else np.int64(0)
    now = trip_of(U, c)
    if (was & now & (T_HOOK | T_STRING)) != 0:
        return
    if (was & T_STRING) != 0:
        update_source(g, c, string_number(was | T_POWERED))
    elif (was & T_HOOK) != 0 and (was & (T_ATTACHED | T_POWERED)) != 0:
        calculate_state(g, c, gone, True, False, -1, 0)
    now = trip_of(U, c)
    if (now & T_STRING) != 0 and (was & T_STRING) == 0:
        update_source(g, c, state_number(U, c))


@jit
def trip_entities(g, c, found):
    """The world found entities in the string at c (ENTITIES bits): an unpowered string checks at once (vanilla
    entityInside, which a powered string ignores: it waits for its tick). Returns as `use` does."""
    if needs_room(g):
        return 2
    g.U[c, ENTITIES] = found
    if (trip_of(g.U, c) & T_POWERED) == 0 and found != 0:
        string_check(g, c)
        propagate(g, -1)
    if g.meta[M_OVERFLOW]:
        return 3
    return 1


@jit
def lmask(U, x):
    return np.int64(U[x, LM0]) | (np.int64(U[x, LM1]) << 8)


@jit
def omask(U, x):
    return np.int64(U[x, OM0]) | (np.int64(U[x, OM1]) << 8)


@jit
def unmark(U, cells, n):
    for i in range(n):
        U[cells[i], MARK] = 0


# Kinds of entries in the changed list: a block appeared, vanished or changed shape; a component
# switched; a dust's power changed. Entries are stored as cell * 4 + kind.
K_BLOCK, K_COMP, K_DUST = 0, 1, 2
# A door half whose other half may be gone (kernels.pair_door): it falls at the start of the next round.
K_UNPAIRED = 3


@jit
def push_changed(g, c, kind):
    """Queue cell c for neighbour updates."""
    i = g.meta[M_NCHG]
    if i < g.chg.shape[0]:
        g.chg[i] = c * 4 + kind
        g.meta[M_NCHG] = i + 1
    else:
        g.meta[M_OVERFLOW] = OV_CHANGED


@jit
def add_seed(g, x, ns):
    if g.U[x, BT] == WIRE and not g.U[x, MARK]:
        g.U[x, MARK] = 1
        g.notify[ns] = x
        ns += 1
    return ns


@jit
def add_seeds_around(g, c, ns):
    """Dust next to c, and next to c itself when c is a conductor."""
    for k in range(6):
        ns = add_seed(g, g.N[c, FC[k]], ns)
    return ns


@jit
def component_seeds(g, c, ns):
    """Dust whose sources a switching component can change: dust it touches on its output side,
    and dust around the block it strongly powers."""
    U = g.U
    N = g.N
    b = U[c, BT]
    if is_diode(b) or b == OBSERVER:
        f = N[c, FC[opp(U[c, FACING])]]
        ns = add_seed(g, f, ns)
        if is_conductor(U[f, BT]):
            ns = add_seeds_around(g, f, ns)
        return ns
    ns = add_seeds_around(g, c, ns)
    if b == TORCH or b == WALL_TORCH:
        a = N[c, FC[UP]]
    else:
        a = attachment(U, N, c)
    if a >= 0 and is_conductor(U[a, BT]):
        ns = add_seeds_around(g, a, ns)
    return ns


@jit
def settle_dust(g, seeds, nseeds):
    """Recompute the power of every dust network touching the seeds to its least fixed point."""
    U = g.U
    N = g.N
    m = 0
    for i in range(nseeds):
        s = seeds[i]
        if U[s, BT] == WIRE and not U[s, MARK]:
            U[s, MARK] = 1
            g.comp[m] = s
            m += 1
    if m == 0:
        return
    if g.meta[M_LIVE] == 0:
        fed = False
        for i in range(m):
            if dust_source(U, N, g.comp[i]):
                fed = True
                break
        if not fed:
            unmark(U, g.comp, m)
            return
    i = 0
    while i < m:
        d = g.comp[i]
        i += 1
        lm = lmask(U, d)
        j = 0
        while lm:
            if lm & 1:
                x = candidate(N, d, j)
                if not U[x, MARK]:
                    U[x, MARK] = 1
                    g.comp[m] = x
                    m += 1
            lm >>= 1
            j += 1
    unmark(U, g.comp, m)
    # sources, then spread (power - decay per dust, 1 in vanilla) along links, SPFA style
    decay = g.meta[R_DUST_DECAY]
    cap = g.queue.shape[0]
    head = 0
    tail = 0
    for i in range(m):
        d = g.comp[i]
        p = dust_source(U, N, d)
        U[d, NEWP] = p
        if p > decay:
            g.queue[tail] = d
            tail += 1
            if tail == cap:
                tail = 0
            U[d, INQ] = 1
    while head != tail:
        d = g.queue[head]
        head += 1
        if head == cap:
            head = 0
        U[d, INQ] = 0
        v = U[d, NEWP] - decay
        if v <= 0:
            continue
        om = omask(U, d)
        j = 0
        while om:
            if om & 1:
                x = candidate(N, d, j)
                if U[x, NEWP] < v:
                    U[x, NEWP] = v
                    if not U[x, INQ]:
                        U[x, INQ] = 1
                        g.queue[tail] = x
                        tail += 1
                        if tail == cap:
                            tail = 0
            om >>= 1
            j += 1
    for i in range(m):
        d = g.comp[i]
        p = U[d, NEWP]
        if p != U[d, POWER]:
            log_event(g, d, EV_POWER, U[d, POWER], p)
            if U[d, POWER] == 0:
                g.meta[M_LIVE] += 1
            elif p == 0:
                g.meta[M_LIVE] -= 1
            U[d, NEWP] = U[d, POWER]  # the power before, which dust_order replays vanilla's updates from
            U[d, POWER] = p
            push_changed(g, d, K_DUST)


# ----------------------------------------------------------------------------- vanilla's dust order
@jit
def wire_target(g, d):
    """The power vanilla's dust at d would take now (calculateTargetStrength): its non-dust sources, or the
    strongest dust it reads from less the decay, where a dust changed this round counts with its replayed power
    (NEWP) and any other with its power."""
    U = g.U
    N = g.N
    src = dust_source(U, N, d)
    if src >= 15:
        return 15
    best = 0
    lm = lmask(U, d)
    j = 0
    while lm:
        if lm & 1:
            x = candidate(N, d, j)
            if (omask(U, x) >> LINK_BACK[j]) & 1:
                v = U[x, NEWP] if U[x, OVL] & 1 else U[x, POWER]
                if v > best:
                    best = v
        lm >>= 1
        j += 1
    v = best - g.meta[R_DUST_DECAY]
    return max(src, v, 0)


@jit
def wire_perm(g, d):
    """Dust d's seven places (WIRE_SET) in the order of vanilla's HashSet of them, by world position (the hash
    origin added), packed three bits each, the first lowest, with the count 7 above."""
    buckets = 0  # each place's bucket, four bits each, worked out once
    for i in range(7):
        buckets |= near_bucket(g, d, WIRE_SET[i, 0], WIRE_SET[i, 1], WIRE_SET[i, 2], 16) << (4 * i)
    perm = 0
    n = 0
    for b in range(16):
        for i in range(7):
            if (buckets >> (4 * i)) & 15 == b:
                perm |= i << (3 * n)
                n += 1
    return perm | (7 << 27)


@jit
def piston_ready(g, x):
    """Whether the piston at x, reading its power with the dust changed this round at its replayed powers, finds
    itself powered or not as it will with the settled dust (vanilla's piston reads its power when told, and what
    powers it may be dust three steps away: dust on a block beside the place above it)."""
    U = g.U
    N = g.N
    final = piston_powered(U, N, x)
    above = N[x, FC[UP]]
    for r in range(2):
        c = x if r == 0 else above
        for j in range(NNEAR):
            y = N[c, j]
            if y > 0 and U[y, OVL] & 1 and not U[y, OVL] & 4:
                U[y, OVL] |= 4
                p = U[y, POWER]
                U[y, POWER] = U[y, NEWP]
                U[y, NEWP] = p
    now = piston_powered(U, N, x)
    for r in range(2):
        c = x if r == 0 else above
        for j in range(NNEAR):
            y = N[c, j]
            if y > 0 and U[y, OVL] & 4:
                U[y, OVL] &= ~4
                p = U[y, POWER]
                U[y, POWER] = U[y, NEWP]
                U[y, NEWP] = p
    return now == final


@jit
def wire_ready(g, x):
    """Whether the dust changed this round around x (within two steps) is, as replayed so far, on or off as it
    ends: x reacts to its updates from then on as it will to the settled dust. A piston: whether its power, read
    with the replayed dust, is as it ends (piston_ready)."""
    U = g.U
    if is_piston(U[x, BT]):
        return piston_ready(g, x)
    f = 0
    s = 0
    for j in range(NNEAR):
        y = g.N[x, j]
        if U[y, OVL] & 1:
            f = max(f, np.int64(U[y, POWER]))
            s = max(s, np.int64(U[y, NEWP]))
    return (f > 0) == (s > 0)


@jit
def wire_push(g, sp, base, st):
    g.queue[2 * sp] = base
    g.queue[2 * sp + 1] = st
    return sp + 1


@jit
def wire_replay(g, sp, nr, budget):
    """Run the updates on the stack (g.queue, two slots a frame: the cell whose places are told, and the places'
    order, the place and the neighbour reached) depth first, as vanilla's CollectingNeighborUpdater does: a dust
    whose replayed power changes pushes its seven places, told before the rest. Each non-dust block reached
    joins the reach list (g.comp) the first time wire_ready holds for it. Returns (nr, budget); budget < 0 when
    the replay ran too long or too deep."""
    U = g.U
    N = g.N
    cap = (g.queue.shape[0] - 1) // 2
    while sp > 0:
        f = 2 * (sp - 1)
        base = g.queue[f]
        st = g.queue[f + 1]
        perm = st & 0x1FFFFF
        i = (st >> 21) & 7
        k = (st >> 24) & 7
        n = (st >> 27) & 7
        if i >= n:
            sp -= 1
            continue
        x = N[base, WIRE_NB[(perm >> (3 * i)) & 7, k]]
        k += 1
        if k == 6:
            k = 0
            i += 1
        g.queue[f + 1] = perm | (i << 21) | (k << 24) | (n << 27)
        b = U[x, BT]
        if b == WIRE:
            if U[x, OVL] & 1:
                t = wire_target(g, x)
                if t != U[x, NEWP]:
                    U[x, NEWP] = t
                    budget -= 1
                    if budget < 0 or sp >= cap:
                        return nr, -1
                    sp = wire_push(g, sp, x, wire_perm(g, x))
        elif b != AIR and not U[x, OVL] & 2 and wire_ready(g, x):
            U[x, OVL] |= 2
            g.comp[nr] = x
            nr += 1
    return nr, budget


@jit
def piston_near(g, end0, end1):
    """Whether a piston stands within two steps of a dust changed in chg[end0:end1] (where its updates, its power,
    or a block it powers can reach the piston)."""
    U = g.U
    N = g.N
    for i in range(end0, end1):
        if g.chg[i] & 3 == K_DUST:
            d = g.chg[i] >> 2
            for j in range(1, NNEAR):
                if is_piston(U[N[d, j], BT]):
                    return True
    return False


@jit
def dust_order(g, start, end0, end1):
    """The order in which vanilla's dust would first bring the blocks around it to how they end, for the round of
    changes chg[start:end0] whose dust settle_dust changed (chg[end0:end1], each dust's power before in NEWP):
    the changes tell their places (a block change itself, a component also its faces), and the changed dust is
    replayed from its power before, depth first, each dust telling its places in vanilla's HashSet order. The
    blocks reached are listed in g.comp, in order; returns how many, or -1 when the replay gave up (then the
    order stays the table's)."""
    U = g.U
    for i in range(end0, end1):
        if g.chg[i] & 3 == K_DUST:
            U[g.chg[i] >> 2, OVL] |= 1
    nr = 0
    budget = 64 * (end1 - end0) + 256
    for i in range(start, end1):
        c = g.chg[i] >> 2
        kind = g.chg[i] & 3
        if kind == K_UNPAIRED:
            continue
        if kind == K_DUST:
            if U[c, NEWP] == U[c, POWER]:
                continue
            t = wire_target(g, c)
            if t == U[c, NEWP]:
                continue
            U[c, NEWP] = t
            nr, budget = wire_replay(g, wire_push(g, 0, c, wire_perm(g, c)), nr, budget)
        else:
            nr, budget = wire_replay(g, wire_push(g, 0, c, ENTRY_PERM | ((7 if kind == K_COMP else 1) << 27)),
                                     nr, budget)
        if budget < 0:
            break
    for i in range(end0, end1):
        U[g.chg[i] >> 2, OVL] = 0
    for i in range(nr):
        U[g.comp[i], OVL] = 0
    return nr if budget >= 0 else -1


# ----------------------------------------------------------------------------- scheduling
@jit
def has_pending(g, c):
    U = g.U
    return g.T[c, PTIME] >= 0 and U[c, PTYPE] == U[c, BT]


@jit
def before(H, a, k1, k2):
    """Does heap row a run before an entry with keys (k1, k2)?"""
    return H[a, HK1] < k1 or (H[a, HK1] == k1 and H[a, HK2] < k2)


@jit
def heap_put(H, i, k1, k2, cell, ty):
    H[i, HK1] = k1
    H[i, HK2] = k2
    H[i, HCELL] = cell
    H[i, HTYPE] = ty


@jit
def heap_move(H, dst, src):
    for j in range(4):
        H[dst, j] = H[src, j]


@jit
def in_container(g, c):
    """Has c a tick pending that is not due now? Vanilla collects the ticks due in a tick out of the chunks' tick
    containers before running them, so while they run, hasScheduledTick (which reads the containers) no longer
    sees them; willTickThisTick, which repeaters, comparators and torches ask instead, does (has_pending)."""
    return has_pending(g, c) and not (g.meta[M_PHASE] == PH_TICKS and g.T[c, PTIME] <= g.meta[M_TICK])


@jit
def lamp_due(g, c):
    """Is c a lit lamp whose off tick is due in this tick and has not run? Only then does a neighbour update
    change what it does (check: it schedules a second tick), so only then must it hear exactly the updates
    vanilla sends (piston_reached); otherwise a check of a lamp only re-reads its power."""
    return g.U[c, ON] != 0 and has_pending(g, c) and not in_container(g, c)


@jit
def start_signal(g, c):
    """Vanilla ObserverBlock.startSignal: a tick 2 gt on unless one is in the containers, so an observer whose own
    tick is due in this tick but has not run yet schedules another one."""
    if not in_container(g, c):
        enqueue(g, c, 2, P_NORMAL)


@jit
def schedule(g, c, delay, rank):
    if has_pending(g, c):
        return
    enqueue(g, c, delay, rank)


@jit
def enqueue(g, c, delay, rank):
    U = g.U
    i = g.meta[M_HEAP]
    if i >= g.H.shape[0]:
        g.meta[M_OVERFLOW] = OV_HEAP
        return
    t = g.meta[M_TICK] + delay
    g.T[c, PTIME] = t
    U[c, PTYPE] = U[c, BT]
    k1 = t * 4 + rank
    k2 = g.meta[M_SEQ]
    g.meta[M_SEQ] += 1
    g.meta[M_HEAP] = i + 1
    while i > 0:
        p = (i - 1) // 2
        if before(g.H, p, k1, k2):
            break
        heap_move(g.H, i, p)
        i = p
    heap_put(g.H, i, k1, k2, c, U[c, BT])


@jit
def heap_pop(g):
    """Remove the first entry; returns its slot values as (k1, cell, type)."""
    H = g.H
    k1, c, ty = H[0, HK1], H[0, HCELL], H[0, HTYPE]
    n = g.meta[M_HEAP] - 1
    g.meta[M_HEAP] = n
    if n > 0:
        lk1, lk2, lc, lt = H[n, HK1], H[n, HK2], H[n, HCELL], H[n, HTYPE]
        i = 0
        while True:
            a = 2 * i + 1
            if a >= n:
                break
            if a + 1 < n and before(H, a + 1, H[a, HK1], H[a, HK2]):
                a += 1
            if not before(H, a, lk1, lk2):
                break
            heap_move(H, i, a)
            i = a
        heap_put(H, i, lk1, lk2, lc, lt)
    return k1, c, ty


# ----------------------------------------------------------------------------- updates
@jit
def set_on(g, c, v):
    U = g.U
    if U[c, ON] != v:
        log_event(g, c, EV_STATE, U[c, ON], v)
        U[c, ON] = v


@jit
def check(g, c, exempt):
    """A neighbour update reaching c (vanilla neighborChanged). Returns True if c popped off.

    `exempt` is a block just placed by /setblock: it is not checked for support, and lamps and
    repeaters keep the state they were given (only dust and torches update themselves on placement)."""
    U = g.U
    N = g.N
    b = U[c, BT]
    if c == exempt:
        if (b == LAMP or b == REPEATER or b == COMPARATOR or b == NOTE_BLOCK or is_opener(b) or is_dispenser(b)
                or b == TEST_BLOCK or b == COMMAND_BLOCK or bell_of(U, c) != 0):
            return False
    elif not is_supported(U, N, c):
        return True
    if b == LAMP:
        p = lamp_powered(U, N, c)
        if U[c, ON] and not p:
            # vanilla RedstoneLampBlock.neighborChanged: scheduleTick, which the tick containers turn down while
            # they hold one for the lamp; its own tick due in this tick has left them, so it schedules another
            if not in_container(g, c):
                enqueue(g, c, g.meta[R_LAMP_OFF], P_NORMAL)
        elif not U[c, ON] and p:
            set_on(g, c, 1)
    elif b == TORCH or b == WALL_TORCH:
        if (U[c, ON] != 0) == torch_powered(U, N, c):
            schedule(g, c, g.meta[R_TORCH], P_NORMAL)
    elif b == COMMAND_BLOCK:
        # vanilla CommandBlock.neighborChanged: `powered` follows its neighbours at once; an impulse or repeating
        # block that is not `auto` schedules its tick 1 gt after a rising edge, its condition read then
        p = lamp_powered(U, N, c)
        was = U[c, ON]
        U[c, ON] = 1 if p else 0
        if p and not was and not (U[c, LOCKED] & CMD_AUTO) and U[c, FACE] != CMD_CHAIN:
            cmd_mark_met(U, N, c)
            schedule(g, c, 1, P_NORMAL)
    elif b == TEST_BLOCK:
        # vanilla TestBlock.neighborChanged: a log, fail or accept block's `powered` follows its neighbours at once
        # and a rising edge triggers it; no block state changes (nothing else hears of it)
        if U[c, MODE] != 0:
            p = lamp_powered(U, N, c)
            if p and not U[c, ON]:
                U[c, ON] = 1
                U[c, DELAY] = 1
            elif not p and U[c, ON]:
                U[c, ON] = 0
    elif b == REPEATER:
        lk = 1 if g.meta[R_LOCKABLE] and repeater_locked(U, N, c) else 0
        if lk != U[c, LOCKED]:
            log_event(g, c, EV_LOCKED, U[c, LOCKED], lk)
            U[c, LOCKED] = lk
        if not lk:
            should = repeater_input(U, N, c)
            if (U[c, ON] != 0) != should:
                if diode_prioritized(U, N, c):
                    rank = P_EXTREMELY_HIGH
                elif U[c, ON]:
                    rank = P_VERY_HIGH
                else:
                    rank = P_HIGH
                schedule(g, c, g.meta[R_REPEATER_STEP] * U[c, DELAY], rank)
    elif b == NOTE_BLOCK:
        # vanilla NoteBlock.neighborChanged: powered follows the neighbours at once, a rising edge plays
        p = lamp_powered(U, N, c)
        if (U[c, ON] != 0) != p:
            if p:
                play_note(g, c)
            set_on(g, c, 1 if p else 0)
            push_changed(g, c, K_BLOCK)  # set with neighbour updates: a QC piston beside it hears them
    elif b == COMPARATOR:
        if comparator_output(U, N, c) != U[c, POWER] or (U[c, ON] != 0) != comparator_should_on(U, N, c):
            schedule(g, c, COMPARATOR_DELAY, P_HIGH if diode_prioritized(U, N, c) else P_NORMAL)
    elif b == IRON_DOOR:
        # vanilla DoorBlock.neighborChanged: powered if either half has a neighbour signal; open follows a
        # change of powered, and the other half copies the new state at once (its updateShape)
        o = door_partner(U, N, c)
        p = lamp_powered(U, N, c) or (o > 0 and lamp_powered(U, N, o))
        if (U[c, POWER] != 0) != p:
            set_opened(g, c, p)
            if o > 0:
                set_opened(g, o, p)
    elif b == IRON_TRAPDOOR or b == FENCE_GATE:
        # vanilla TrapDoorBlock and FenceGateBlock.neighborChanged: open follows a change of powered
        p = lamp_powered(U, N, c)
        if (U[c, POWER] != 0) != p:
            U[c, POWER] = 1 if p else 0
            if (U[c, ON] != 0) != p:
                set_on(g, c, 1 if p else 0)
                trapdoor_moved(g, c)
    elif b == RAIL and U[c, FACE] < DETECTOR:
        # vanilla PoweredRailBlock.updateState: powered by a neighbour signal or along the line of rails; the new
        # state updates its neighbours and those of the block below (and above, on a slope): within two steps
        p = lamp_powered(U, N, c) or rail_chain(g, c, True) or rail_chain(g, c, False)
        if (U[c, ON] != 0) != p:
            set_on(g, c, 1 if p else 0)
            push_changed(g, c, K_COMP)
    elif b == RAIL and U[c, FACE] == PLAIN:
        # vanilla RailBlock.updateState: a plain rail at a junction of three takes its shape anew (the signal picks
        # the curve) on an update from a signal source; here, when its neighbour signal (kept in ON) changes
        p = 1 if lamp_powered(U, N, c) else 0
        if p != U[c, ON]:
            U[c, ON] = p
            if not g.meta[M_PASTE] and rail_junction(g, c) == 3:
                rail_derive(g, c, p, False)
    elif b == COPPER_BULB:
        # vanilla CopperBulbBlock.checkAndFlip: when powered differs from the neighbour signal, a rising edge toggles
        # lit; both are set at once, with neighbour updates (and comparators told of the new output)
        p = lamp_powered(U, N, c)
        if (U[c, POWER] != 0) != p:
            log_event(g, c, EV_POWER, U[c, POWER], 1 if p else 0)
            U[c, POWER] = 1 if p else 0
            if p:
                set_on(g, c, 1 - U[c, ON])
            push_changed(g, c, K_COMP)
    elif b == PISTON or b == STICKY_PISTON:
        check_extend(g, c)
    elif b == HOPPER:
        # vanilla HopperBlock.checkPoweredState (on placement too): enabled while no signal reaches it; the new
        # state updates no neighbours (observers still see it)
        en = 0 if lamp_powered(U, N, c) else 1
        if U[c, ON] != en:
            set_on(g, c, en)
            if en:
                g.meta[M_WAKE] = 1
    elif is_dispenser(b):
        # vanilla DispenserBlock.neighborChanged: a rising edge (quasi-connectivity included) marks it triggered
        # and schedules its firing; losing power clears triggered. Neither updates a neighbour.
        p = lamp_powered(U, N, c) or qc_powered(U, N, c)
        if p and not U[c, ON]:
            schedule(g, c, DISPENSE_DELAY, P_NORMAL)
            set_on(g, c, 1)
        elif not p and U[c, ON]:
            set_on(g, c, 0)
    elif b == PARTIAL and bell_of(U, c) != 0:
        # vanilla BellBlock.neighborChanged: powered follows the neighbour signal; a rising edge rings it, struck on
        # the side it faces; the new state is set with neighbour and shape updates (flag 3)
        bell = bell_of(U, c)
        p = lamp_powered(U, N, c)
        if ((bell & B_POWERED) != 0) != p:
            if p:
                put_event(g, c, EV_RANG, (bell >> 4) & 3, 0, PARTIAL)
            set_bell(g, c, (bell & ~B_POWERED) | (B_POWERED if p else 0))
            notify_observers(g, c)
            push_changed(g, c, K_BLOCK)
    elif b == PISTON_HEAD and c != exempt:
        if not head_fits(U, N, c):
            return False  # vanilla neighborChanged: a head without its base passes nothing on (it goes only
            # when the block behind it changes, propagate_in)
        # vanilla PistonHeadBlock.neighborChanged: a head that stays passes the update on to its base, which
        # looks at its power again (a base powered only through quasi-connectivity can move on it)
        base = N[c, FC[opp(U[c, FACING])]]
        if is_piston(U[base, BT]):
            check_extend(g, base)
    return False


# Rails (blocks.RAIL_SHAPES, kept in DELAY): the direction an ascending rail climbs toward (its high end), by shape;
# RAIL_STEP[shape, forward] is (dx, dy, dz) to the next rail vanilla's findPoweredRailSignal looks at, and RAIL_AXIS
# the shape it passes on (0 north-south, 1 east-west).
RAIL_RISE = np.array([-1, -1, 1, 3, 0, 2, -1, -1, -1, -1], dtype=np.int64)
RAIL_STEP = np.array([[[0, 0, -1], [0, 0, 1]], [[1, 0, 0], [-1, 0, 0]], [[1, 1, 0], [-1, 0, 0]],
                      [[1, 0, 0], [-1, 1, 0]], [[0, 1, -1], [0, 0, 1]], [[0, 0, -1], [0, 1, 1]]], dtype=np.int64)
RAIL_AXIS = np.array([0, 1, 1, 1, 0, 0, 2, 2, 2, 2], dtype=np.int64)  # 2: a curve, on neither axis
RAIL_REACH = 8  # powered rails a signal passes along after the first


@jit
def same_rail(g, x, y, z, c, axis):
    """The cell of a powered rail of c's kind at (x, y, z) that lines up with `axis` (vanilla
    isSameRailWithPower, without its recursion), or 0."""
    n = cell_at(g, x, y, z)
    U = g.U
    if n <= 0 or U[n, BT] != RAIL or U[n, FACE] != U[c, FACE] or not U[n, ON]:
        return 0
    return n if RAIL_AXIS[U[n, DELAY]] == axis else 0


@jit
def rail_chain(g, c, forward):
    """Is rail c powered along its line, one way (vanilla findPoweredRailSignal): up to RAIL_REACH powered rails of
    its kind in a row, level or one up or down, the last of them with a neighbour signal."""
    U = g.U
    N = g.N
    x, y, z = g.P[c, 0], g.P[c, 1], g.P[c, 2]
    r = c
    for _ in range(RAIL_REACH):
        sh = U[r, DELAY]
        d = RAIL_STEP[sh, 1 if forward else 0]
        x, y, z = x + d[0], y + d[1], z + d[2]
        n = same_rail(g, x, y, z, c, RAIL_AXIS[sh])
        if n == 0 and d[1] == 0:  # a step down: the rail below the next position
            n = same_rail(g, x, y - 1, z, c, RAIL_AXIS[sh])
            y -= 1
        if n == 0:
            return False
        if lamp_powered(U, N, n):
            return True
        r = n
    return False


# Rail shapes (vanilla RailState; docs/redstone.md section 61). RAIL_CONN[shape] holds the offsets of the two places
# a rail of that shape connects to (an ascending rail's high end one block up); shapes 6-9 are the curves.
RAIL_CONN = np.array([[[0, 0, -1], [0, 0, 1]], [[-1, 0, 0], [1, 0, 0]], [[-1, 0, 0], [1, 1, 0]],
                      [[-1, 1, 0], [1, 0, 0]], [[0, 1, -1], [0, 0, 1]], [[0, 0, -1], [0, 1, 1]],
                      [[1, 0, 0], [0, 0, 1]], [[-1, 0, 0], [0, 0, 1]], [[-1, 0, 0], [0, 0, -1]],
                      [[1, 0, 0], [0, 0, -1]]], dtype=np.int64)
R_NS, R_EW, R_AEAST, R_AWEST, R_ANORTH, R_ASOUTH, R_SE, R_SW, R_NW, R_NE = range(10)


@jit
def rail_at(g, x, y, z):
    """The cell of a rail (any kind) at (x, y, z), or 0."""
    c = find_cell(g.HT, g.P, x, y, z)
    return c if c > 0 and g.U[c, BT] == RAIL else 0


@jit
def rail_near(g, x, y, z):
    """Vanilla RailState.getRail: the rail at (x, y, z), else the one above it, else the one below it, or 0."""
    r = rail_at(g, x, y, z)
    if r == 0:
        r = rail_at(g, x, y + 1, z)
    if r == 0:
        r = rail_at(g, x, y - 1, z)
    return r


@jit
def rail_links(g, r, x, z):
    """Does the rail at r, by its shape, connect toward the column (x, z)? (vanilla hasConnection: x and z only)"""
    sh = g.U[r, DELAY]
    for i in range(2):
        if g.P[r, 0] + RAIL_CONN[sh, i, 0] == x and g.P[r, 2] + RAIL_CONN[sh, i, 2] == z:
            return True
    return False


@jit
def rail_kept(g, r, i):
    """Vanilla removeSoftConnections, for the rail at r's connection i: is there a rail there that connects back?"""
    sh = g.U[r, DELAY]
    q = rail_near(g, g.P[r, 0] + RAIL_CONN[sh, i, 0], g.P[r, 1] + RAIL_CONN[sh, i, 1], g.P[r, 2] + RAIL_CONN[sh, i, 2])
    return q != 0 and rail_links(g, q, g.P[r, 0], g.P[r, 2])


@jit
def rail_accepts(g, r, x, z):
    """Vanilla canConnectTo after removeSoftConnections: the rail at r, its connections to rails that do not connect
    back dropped, can connect to a rail in column (x, z): it already does, or it keeps fewer than two."""
    if not (rail_kept(g, r, 0) and rail_kept(g, r, 1)):
        return True
    return rail_links(g, r, x, z)


@jit
def rail_climb(g, x, y, z, sh):
    """A straight shape turned ascending toward a rail one block up beyond either end (the later check wins)."""
    if sh == R_NS:
        if rail_at(g, x, y + 1, z - 1):
            sh = R_ANORTH
        if rail_at(g, x, y + 1, z + 1):
            sh = R_ASOUTH
    elif sh == R_EW:
        if rail_at(g, x + 1, y + 1, z):
            sh = R_AEAST
        if rail_at(g, x - 1, y + 1, z):
            sh = R_AWEST
    return sh


@jit
def set_rail_shape(g, c, sh):
    """A rail's shape set with neighbour updates (vanilla setBlock with flags 3)."""
    log_event(g, c, EV_SHAPE, g.U[c, DELAY], sh)
    g.U[c, DELAY] = sh
    push_changed(g, c, K_BLOCK)


@jit
def rail_connect(g, r, x, z):
    """Vanilla RailState.connectTo: the rail at r, with the connections it keeps and one more toward the rail in
    column (x, z), takes the shape they give (a curve for a plain rail only)."""
    U = g.U
    rx, ry, rz = g.P[r, 0], g.P[r, 1], g.P[r, 2]
    sh0 = U[r, DELAY]
    n = s = w = e = False
    for i in range(3):
        if i < 2:
            if not rail_kept(g, r, i):
                continue
            cx, cz = rx + RAIL_CONN[sh0, i, 0], rz + RAIL_CONN[sh0, i, 2]
        else:
            cx, cz = x, z
        n = n or (cx == rx and cz == rz - 1)
        s = s or (cx == rx and cz == rz + 1)
        w = w or (cx == rx - 1 and cz == rz)
        e = e or (cx == rx + 1 and cz == rz)
    sh = -1
    if n or s:
        sh = R_NS
    if w or e:
        sh = R_EW
    if U[r, FACE] == PLAIN:
        sh = rail_corner(n, s, w, e, sh)
    sh = rail_climb(g, rx, ry, rz, sh)
    if sh < 0:
        sh = R_NS
    if sh != sh0:
        set_rail_shape(g, r, sh)


@jit
def rail_corner(n, s, w, e, sh):
    """A plain rail's curve when rails lie on exactly two sides that meet at a corner (n, s, w, e: which sides),
    else sh unchanged."""
    if s and e and not n and not w:
        return R_SE
    if s and w and not n and not e:
        return R_SW
    if n and w and not s and not e:
        return R_NW
    if n and e and not s and not w:
        return R_NE
    return sh


@jit
def rail_derive(g, c, powered, always):
    """Vanilla RailState.place for the rail at c (`powered`: its neighbour signal): its shape from the rails around it
    that can take a connection (a curve only for a plain rail; at a plain junction of three the signal picks the
    curve), ascending toward a rail one block up, else kept; then each rail it now connects to joins it (connectTo).
    `always` (vanilla onPlace) makes the neighbours join even when the shape stays."""
    U = g.U
    x, y, z = g.P[c, 0], g.P[c, 1], g.P[c, 2]
    plain = U[c, FACE] == PLAIN
    q = rail_near(g, x, y, z - 1)
    n = q != 0 and rail_accepts(g, q, x, z)
    q = rail_near(g, x, y, z + 1)
    s = q != 0 and rail_accepts(g, q, x, z)
    q = rail_near(g, x - 1, y, z)
    w = q != 0 and rail_accepts(g, q, x, z)
    q = rail_near(g, x + 1, y, z)
    e = q != 0 and rail_accepts(g, q, x, z)
    ns = n or s
    ew = w or e
    sh = -1
    if ns and not ew:
        sh = R_NS
    if ew and not ns:
        sh = R_EW
    if plain:
        sh = rail_corner(n, s, w, e, sh)
    if sh < 0:
        if ns and ew:
            sh = U[c, DELAY]
        elif ns:
            sh = R_NS
        elif ew:
            sh = R_EW
        if plain:
            if powered:
                if s and e:
                    sh = R_SE
                if s and w:
                    sh = R_SW
                if n and e:
                    sh = R_NE
                if n and w:
                    sh = R_NW
            else:
                if n and w:
                    sh = R_NW
                if n and e:
                    sh = R_NE
                if s and w:
                    sh = R_SW
                if s and e:
                    sh = R_SE
    sh = rail_climb(g, x, y, z, sh)
    if sh < 0:
        sh = U[c, DELAY]
    changed = sh != U[c, DELAY]
    if not (always or changed):
        return
    if changed:
        set_rail_shape(g, c, sh)
    for i in range(2):
        q = rail_near(g, x + RAIL_CONN[sh, i, 0], y + RAIL_CONN[sh, i, 1], z + RAIL_CONN[sh, i, 2])
        if q != 0 and rail_accepts(g, q, x, z):
            rail_connect(g, q, x, z)


@jit
def rail_junction(g, c):
    """Vanilla RailState.countPotentialConnections: how many of the four sides have a rail level, above or below."""
    x, y, z = g.P[c, 0], g.P[c, 1], g.P[c, 2]
    k = 0
    for d in range(4):
        if rail_near(g, x + NEAR[FC[d], 0], y, z + NEAR[FC[d], 2]):
            k += 1
    return k


@jit
def door_partner(U, N, c):
    """The other half of the door at c, or 0 when there is none."""
    o = N[c, FC[DOWN]] if U[c, HALF] else N[c, FC[UP]]
    if U[o, BT] == IRON_DOOR and U[o, HALF] != U[c, HALF]:
        return o
    return 0


@jit
def set_opened(g, c, p):
    """A door half's powered and open become p."""
    g.U[c, POWER] = 1 if p else 0
    set_on(g, c, 1 if p else 0)


@jit
def trapdoor_moved(g, c):
    """A trapdoor opened or closed: its sturdy faces moved, so dust shapes around it are worked out again
    and a block it held falls off (vanilla: the shape updates its new state sends)."""
    U = g.U
    N = g.N
    reshape_near(g, c)
    for k in range(6):
        x = N[c, FC[k]]
        if U[x, BT] != AIR and x != c and attachment(U, N, x) == c and not is_supported(U, N, x):
            pop(g, x)


@jit
def clear_power(g, c):
    """Zero the power of the block at c (before it is replaced), keeping M_LIVE's count."""
    if g.U[c, BT] == WIRE and g.U[c, POWER] > 0:
        g.meta[M_LIVE] -= 1
    g.U[c, POWER] = 0


@jit
def clear_cell(g, c):
    U = g.U
    clear_power(g, c)
    U[c, BT] = AIR
    U[c, ON] = 0
    U[c, SIDES] = 0
    U[c, LOCKED] = 0
    g.T[c, PTIME] = -1


@jit
def refresh(U, N, x):
    """Recompute the cached structure masks of the block at x from its neighbours."""
    sm = 0
    pm = 0
    for k in range(6):
        nb = U[N[x, FC[k]], BT]
        if (nb == REPEATER or nb == TORCH or nb == WALL_TORCH or nb == BUTTON or nb == LEVER or nb == COMPARATOR
                or (k == UP and (is_plate(nb) or (nb == RAIL and U[N[x, FC[k]], FACE] == DETECTOR)))
                or nb == OBSERVER or (trip_of(U, N[x, FC[k]]) & T_HOOK) != 0):
            sm |= 1 << k
        if nb != AIR and nb != WIRE and nb != GLASS:
            pm |= 1 << k
    U[x, SMASK] = sm
    lm = 0
    om = 0
    if U[x, BT] == WIRE:
        for j in range(12):
            y = candidate(N, x, j)
            if U[y, BT] == WIRE:
                lm |= 1 << j
                if reads_from(U, N, x, j):
                    om |= 1 << j
    U[x, PMASK] = pm
    U[x, LM0] = lm & 255
    U[x, LM1] = lm >> 8
    U[x, OM0] = om & 255
    U[x, OM1] = om >> 8


@jit
def near_component(U, N, x):
    for j in range(NNEAR):
        if is_component(U[N[x, j], BT]) or bell_of(U, N[x, j]) != 0:
            return 1
    return 0


@jit
def reshape_near(g, c):
    """After a block change at c: refresh cached structure and dust shapes around it (where they read
    c, see REACH); dust whose shape changed join the changed list. Air keeps no structure (only
    blocks read it)."""
    reshape_in(g, c, 1)


@jit
def reshape_in(g, c, tell):
    """reshape_near; with `tell` 0 (a piston's moving blocks made, left or landed), dust whose shape changed
    tells no neighbours, as vanilla's shape updates set it with flags that send no neighbour updates; with
    `tell` -1 (a block set without shape updates), only the cached structure is refreshed: no note block, door
    half or dust around c hears of it.

    NEARC is worked out in full for c only; around it, a new repeater, torch or lamp sets it, and a
    removed one leaves it set: a stale 1 costs a look at the neighbours, never a missed update."""
    U = g.U
    N = g.N
    comp = is_component(U[c, BT]) or bell_of(U, c) != 0
    for j in range(NNEAR):
        x = N[c, j]
        if U[x, BT] == AIR:
            continue
        if j == 0:
            U[x, NEARC] = near_component(U, N, x)
        elif tell >= 0 and j == FC[UP] and U[x, BT] == NOTE_BLOCK:
            U[x, INSTRUMENT] = instrument_on(U, c)  # vanilla updateShape: the block below changed
        elif comp:
            U[x, NEARC] = 1
        if tell >= 0 and j == FC[DOWN] and U[x, BT] == NOTE_BLOCK:  # the block above changed: vanilla's updateShape
            U[x, INSTRUMENT] = instrument_on(U, N[x, FC[DOWN]])  # from above works the instrument out anew too
        if tell >= 0 and U[x, BT] == IRON_DOOR and (
                (j == FC[DOWN] and U[x, HALF] == 0) or (j == FC[UP] and U[x, HALF] == 1)):
            pair_door(g, x, c)
        elif tell >= 0 and j != 0 and U[x, BT] == PARTIAL:
            bed = np.int64(BED[state_number(U, x)])
            # vanilla BedBlock.updateShape from its other half's side: a half without its other half goes
            if bed != 0 and j == FC[opp(bed & 3)] and not bed_paired(U, N, x):
                push_changed(g, x, K_UNPAIRED)
        r = REACH[j]
        if r == 0 or (r == 2 and U[x, BT] != WIRE):
            continue  # nothing x's structure or shape reads has changed
        refresh(U, N, x)
        if tell >= 0 and U[x, BT] == WIRE:
            s = wire_shape(U, N, x, U[x, SIDES] == 0)
            if s != U[x, SIDES]:
                log_event(g, x, EV_SHAPE, U[x, SIDES], s)
                U[x, SIDES] = s
                if x != c and tell == 1:
                    push_changed(g, x, K_BLOCK)


@jit
def pair_door(g, x, c):
    """The block at c, where the other half of the door half at x belongs, changed (vanilla updateShape
    from above or below): x takes the state of a matching half there, or falls when there is none."""
    U = g.U
    if U[c, BT] == IRON_DOOR and U[c, HALF] != U[x, HALF]:
        U[x, FACING] = U[c, FACING]
        U[x, HINGE] = U[c, HINGE]
        U[x, POWER] = U[c, POWER]
        set_on(g, x, U[c, ON])
    else:
        push_changed(g, x, K_UNPAIRED)


@jit
def propagate(g, exempt):
    """Settle dust and deliver neighbour updates for every entry of the changed list."""
    propagate_in(g, exempt, 0)


@jit
def propagate_in(g, exempt, vanilla):
    """propagate; with `vanilla`, the changes queued so far (a piston's places) reach their neighbours in
    vanilla's order (VANILLA_COLS) rather than the table's; what follows from them goes in table order.
    An `exempt` of -2 - c: the changes queued so far do not update cell c itself (a piston base turning
    extended tells only its neighbours); what follows from them reaches it as usual."""
    U = g.U
    N = g.N
    start = 0
    quiet = -1
    if exempt < -1:
        quiet = -2 - exempt
        exempt = -1
    while True:
        end = g.meta[M_NCHG]
        if start >= end:
            break
        i = start
        while i < g.meta[M_NCHG]:  # a half that falls may leave another without its other half
            x = g.chg[i] >> 2
            if g.chg[i] & 3 == K_UNPAIRED and U[x, BT] == IRON_DOOR and door_partner(U, N, x) == 0:
                pop(g, x)
            elif g.chg[i] & 3 == K_UNPAIRED and bed_of(U, x) != 0 and not bed_paired(U, N, x):
                pop(g, x)
            i += 1
        end = g.meta[M_NCHG]
        # dust whose sources or links may differ now
        ns = 0
        for i in range(start, end):
            c = g.chg[i] >> 2
            kind = g.chg[i] & 3
            if kind == K_BLOCK:
                for j in range(NNEAR):
                    ns = add_seed(g, N[c, j], ns)
            elif kind == K_COMP:
                ns = component_seeds(g, c, ns)
        unmark(U, g.notify, ns)
        end0 = end
        settle_dust(g, g.notify, ns)
        end = g.meta[M_NCHG]
        # where a piston, whose block events queue in the order pistons hear of a change, stands by the changed
        # dust, the blocks the dust reaches hear of it in vanilla's order (dust_order)
        nr = -1
        if end > end0 and g.meta[M_PISTONS] and piston_near(g, end0, end):
            nr = dust_order(g, start, end0, end)
        # neighbour updates reach the blocks within two steps of a change; only a block change can
        # take away support, so only then do dust and buttons need a look
        nn = 0
        for i in range(start, end):
            c = g.chg[i] >> 2
            structural = (g.chg[i] & 3) == K_BLOCK
            if (g.chg[i] & 3) == K_UNPAIRED or (not structural and not U[c, NEARC]):
                continue
            door = U[c, BT] == IRON_DOOR
            front = -1
            # in a world with pistons (which only this engine runs: the compiled graph declines them) a component's
            # output reaches the block in front first, as in vanilla; elsewhere the table's order, which the
            # compiled graph's scheduling numbers follow
            if (vanilla == 0 and not structural and g.meta[M_PISTONS]
                    and (is_diode(U[c, BT]) or U[c, BT] == OBSERVER)):
                front = opp(U[c, FACING])
            for jj in range(NNEAR):
                j = (VANILLA_COLS[jj] if vanilla == 1 else TORCH_COLS[jj] if vanilla == 2
                     else FRONT_COLS[front, jj] if front >= 0 else jj)
                x = N[c, j]
                if j == 0 and x == quiet:
                    continue
                if door and U[x, BT] == IRON_DOOR:
                    continue  # vanilla: a door ignores the neighbour updates a door sends
                if (structural and U[x, BT] == PISTON_HEAD and N[x, FC[opp(U[x, FACING])]] == c
                        and not head_fits(U, N, x)):
                    # vanilla PistonHeadBlock.updateShape: the block behind the head changed and is not its base
                    pop(g, x)
                    continue
                if ((is_notified(U[x, BT], structural) or (structural and needs_support(U, x)) or bell_of(U, x) != 0)
                        and not U[x, MARK]):
                    if ((is_qc(U[x, BT]) or U[x, BT] == PISTON_HEAD or (U[x, BT] == LAMP and lamp_due(g, x)))
                            and not piston_reached(U, N, c, g.chg[i] & 3, j)):
                        continue
                    # a piston's places and landings reach a comparator only as vanilla's updates do: a comparator
                    # re-reads its inputs when told, and one reading a block two steps off through a conductor
                    # must not learn that the block was carried away before vanilla tells it
                    if (vanilla == 1 and structural and U[x, BT] == COMPARATOR
                            and not piston_reached(U, N, c, K_BLOCK, j) and not output_signal_reaches(U, N, c, j)):
                        continue
                    U[x, MARK] = 1
                    g.notify[nn] = x
                    nn += 1
        if nr > 0:
            m = 0
            for r in range(nr):
                x = g.comp[r]
                if U[x, MARK] == 1:
                    U[x, MARK] = 2
                    g.queue[m] = x
                    m += 1
            for r in range(nn):
                x = g.notify[r]
                if U[x, MARK] == 1:
                    g.queue[m] = x
                    m += 1
            for r in range(nn):
                g.notify[r] = g.queue[r]
        unmark(U, g.notify, nn)
        start = end
        for i in range(nn):
            x = g.notify[i]
            if check(g, x, exempt):
                pop(g, x)
        # a /setblock placement spares only the placed block from its own updates; what follows
        # from blocks popping reaches it like any other neighbour update
        exempt = -1
        quiet = -1
        vanilla = 0
    g.meta[M_NCHG] = 0


@jit
def near_dist(j, ref):
    """Manhattan distance between the offsets of neighbour-table columns j and ref."""
    return abs(NEAR[j, 0] - NEAR[ref, 0]) + abs(NEAR[j, 1] - NEAR[ref, 1]) + abs(NEAR[j, 2] - NEAR[ref, 2])


@jit
def piston_reached(U, N, c, kind, j):
    """Does vanilla send the piston at column j of c a neighbour update for this change? Other blocks
    re-read their inputs whenever they are told, but a piston powered only through quasi-connectivity
    moves at its next update (and a lamp whose off tick is due now schedules another, lamp_due), so it
    hears exactly what vanilla sends: a placed or removed block updates its
    six neighbours (dust and torches two steps out); dust changing power updates two steps out; a switching
    torch too; a repeater, comparator or observer the block in front and that block's neighbours; a button
    or lever its neighbours and those of the block it hangs on."""
    if kind == K_DUST:
        return True
    b = U[c, BT]
    if kind == K_BLOCK:
        if b != MOVING_PISTON:  # a torch or dust removed (onRemove) updates two steps out as a placed one does
            r = U[c, GONE]
            if r == WIRE or r == TORCH or r == WALL_TORCH:
                return True
        return near_dist(j, 0) <= 1 or b == WIRE or b == TORCH or b == WALL_TORCH
    if is_diode(b) or b == OBSERVER:
        return near_dist(j, FC[opp(U[c, FACING])]) <= 1
    if b == BUTTON or b == LEVER or (trip_of(U, c) & T_HOOK) != 0:  # a hook's notifyNeighbors is a lever's
        return near_dist(j, 0) == 1 or near_dist(j, FC[attach_dir(b, U[c, FACE], U[c, FACING])]) == 1
    if b == TEST_BLOCK:
        return near_dist(j, 0) == 1  # a start block's trigger updates its six neighbours (updateNeighborsAt)
    return True


@jit
def output_signal_reaches(U, N, c, j):
    """Does vanilla's updateNeighbourForOutputSignal, which a block with an analog output sends when it is set
    (Level.markAndNotifyBlock), reach the comparator at column j of c? Only while the block at c has an analog
    output, and only a comparator beside it north, east, south or west, or one beyond a conductor there."""
    if analog_level(U, c) < 0:
        return False
    for k in range(4):
        n = N[c, FC[k]]
        if j == FC[k] or (j == FC2[k] and U[n, BT] != COMPARATOR and is_conductor(U[n, BT])):
            return True
    return False


@jit
def pop(g, x):
    """The block at x falls off (no support): it goes, and the change is queued for propagate."""
    log_event(g, x, EV_POPPED, g.U[x, BT], AIR)
    gone = trip_of(g.U, x)
    number = state_number(g.U, x)
    g.U[x, GONE] = g.U[x, BT]
    clear_cell(g, x)
    if gone != 0:
        trip_replaced(g, x, number, True)
    reshape_near(g, x)
    push_changed(g, x, K_BLOCK)


@jit
def torch_changed(g, c):
    """A torch switched: its neighbours within two steps hear it in vanilla's order (TORCH_COLS)."""
    push_changed(g, c, K_COMP)
    propagate_in(g, -1, 2)


@jit
def changed(g, c):
    push_changed(g, c, K_COMP)
    propagate(g, -1)


# ----------------------------------------------------------------------------- scheduled ticks
@jit
def recent_toggles(g, c, t):
    n = 0
    for i in range(BURNOUT_SLOTS):
        if t - g.T[c, TOG0 + i] <= BURNOUT_WINDOW:
            n += 1
    return n


@jit
def run_tick(g, c):
    U = g.U
    N = g.N
    b = U[c, BT]
    t = g.meta[M_TICK]
    if b == COMMAND_BLOCK:  # the world runs it (engine/commands.py): `run` stops here for it
        g.meta[M_CMD] = c
        return
    if is_vanilla(b):
        t = trip_of(U, c)
        if (t & T_HOOK) != 0:  # vanilla TripWireHookBlock.tick
            calculate_state(g, c, state_number(U, c), False, True, -1, 0)
            propagate(g, -1)
        elif (t & T_STRING) != 0:  # vanilla TripWireBlock.tick: a powered string checks for entities again
            if (t & T_POWERED) != 0:
                string_check(g, c)
                propagate(g, -1)
        elif b == PARTIAL and state_number(U, c) == DIRT_PATH_NUMBER:
            path_to_dirt(g, c)
        else:
            leaves_tick(g, c)
        return
    if b == REPEATER:
        if g.meta[R_LOCKABLE] and repeater_locked(U, N, c):
            return
        should = repeater_input(U, N, c)
        if U[c, ON] and not should:
            set_on(g, c, 0)
            changed(g, c)
        elif not U[c, ON]:
            set_on(g, c, 1)
            changed(g, c)
            if not should:
                schedule(g, c, g.meta[R_REPEATER_STEP] * U[c, DELAY], P_VERY_HIGH)
    elif b == TORCH or b == WALL_TORCH:
        powered = torch_powered(U, N, c)
        if U[c, ON]:
            if powered:
                set_on(g, c, 0)
                i = U[c, TOGI]
                g.T[c, TOG0 + i] = t
                U[c, TOGI] = (i + 1) % BURNOUT_SLOTS
                torch_changed(g, c)
                if recent_toggles(g, c, t) >= g.meta[R_BURNOUT]:
                    log_event(g, c, EV_BURNOUT, 0, 1)
                    schedule(g, c, BURNOUT_RECHECK, P_NORMAL)
        elif not powered and recent_toggles(g, c, t) < g.meta[R_BURNOUT]:
            set_on(g, c, 1)
            torch_changed(g, c)
    elif b == LAMP:
        if U[c, ON] and not lamp_powered(U, N, c):
            set_on(g, c, 0)
            if g.meta[M_NCHG] > 0:  # its shape update left a bed's half without its other half: it goes now
                propagate(g, -1)
    elif b == BUTTON:
        if U[c, ON]:
            set_on(g, c, 0)
            changed(g, c)
    elif b == COMPARATOR:
        comparator_refresh(g, c)
    elif is_plate(b):
        if U[c, POWER] > 0:  # vanilla BasePressurePlateBlock.tick: a pressed plate checks its entities again
            plate_check(g, c)
    elif b == RAIL and U[c, FACE] == DETECTOR:
        if U[c, ON]:  # vanilla DetectorRailBlock.tick: a powered detector rail checks for minecarts again
            detector_check(g, c)
    elif is_dispenser(b):
        # vanilla DispenserBlock.tick fires whatever its state; the world moves the item (World._move_items)
        n = g.meta[M_NFIRE]
        if n < g.fire.shape[0]:
            g.fire[n] = c
            g.meta[M_NFIRE] = n + 1
    elif b == OBSERVER:
        # vanilla ObserverBlock.tick: the state first (observers watching this one hear of it), then the
        # tick that ends the pulse, then the blocks behind
        if U[c, ON]:
            set_on(g, c, 0)
        else:
            set_on(g, c, 1)
            schedule(g, c, 2, P_NORMAL)
        changed(g, c)


@jit
def plate_signal(U, c):
    """What the plate at cell c outputs with its entities (plate_output)."""
    return plate_output(U[c, BT], np.int64(U[c, ENTITIES]))


@jit
def plate_output(b, n):
    """What a plate of block b outputs with n entities on it: a stone or wooden plate 15 for any; a light
    weighted plate one per entity, a heavy one one per ten begun (vanilla ceil(min(n, max) / max * 15) in
    floats, which gives exactly these). The compiled engine calls it too."""
    if n == 0:
        return 0
    if b == PLATE:
        return 15
    if b == LIGHT_PLATE:
        return min(n, 15)
    return (min(n, HEAVY_MAX) + 9) // 10


@jit
def plate_check(g, c):
    """Vanilla checkPressed: the plate's output follows its entities (neighbours and the block below hear
    of a change), and while it is pressed it re-checks after its delay."""
    U = g.U
    new = plate_signal(U, c)
    old = U[c, POWER]
    if new != old:
        if U[c, BT] == PLATE:
            set_on(g, c, 1 if new else 0)
        else:
            log_event(g, c, EV_POWER, old, new)
            U[c, ON] = 1 if new else 0
        U[c, POWER] = new
        changed(g, c)
    if new > 0:
        schedule(g, c, PLATE_RECHECK if U[c, BT] == PLATE else WEIGHTED_RECHECK, P_NORMAL)


@jit
def detector_check(g, c):
    """Vanilla DetectorRailBlock.checkPressed, with the minecarts on the rail counted by the world in ENTITIES: powered
    follows them (the rail's neighbours and those of the block below hear of a change), a powered rail checks again
    20 game ticks later, and the comparators reading it are told (its level, the fill level of a container cart on
    it, is kept in POWER)."""
    U = g.U
    N = g.N
    on = 1 if U[c, ENTITIES] > 0 else 0
    if U[c, ON] != on:
        set_on(g, c, on)
        push_changed(g, c, K_COMP)
    if on:
        schedule(g, c, DETECTOR_RECHECK, P_NORMAL)
    for k in range(4):  # vanilla updateNeighbourForOutputSignal
        n = N[c, FC[k]]
        if U[n, BT] != COMPARATOR and is_conductor(U[n, BT]):
            n = N[c, FC2[k]]
        if U[n, BT] == COMPARATOR and check(g, n, -1):
            pop(g, n)
    propagate(g, -1)


@jit
def set_carts(g, c, n, level):
    """The minecarts on the detector rail at c become n, the fill level a comparator reads through it `level`; an
    unpowered rail with a cart on it checks at once (vanilla entityInside, which a powered rail ignores: it waits for
    its re-check). Returns as `use` does."""
    if needs_room(g):
        return 2
    g.U[c, ENTITIES] = min(n, 255)
    g.U[c, POWER] = level
    if g.U[c, ON] == 0 and n > 0:
        detector_check(g, c)
    if g.meta[M_OVERFLOW]:
        return 3
    return 1


@jit
def comparator_refresh(g, c):
    """A comparator's tick (and what a click runs at once): store the output it computes, then, if that
    changed or it compares, match `powered` to its inputs and update the blocks in front. (In subtract
    mode with the output unchanged, `powered` stays as it is, as in vanilla.)"""
    U = g.U
    N = g.N
    out = comparator_output(U, N, c)
    old = U[c, POWER]
    if out != old:
        log_event(g, c, EV_POWER, old, out)
        U[c, POWER] = out
    if out != old or U[c, MODE] == 0:
        set_on(g, c, 1 if comparator_should_on(U, N, c) else 0)
        changed(g, c)


@jit
def needs_room(g):
    """True when the tick heap or the event buffer lacks room for what one action or tick can add
    (the world makes room, then calls again)."""
    n = g.meta[M_NCELL]
    if g.meta[M_HEAP] + n + 64 > g.H.shape[0]:
        return True
    if g.meta[M_PISTONS]:  # moved blocks may land where no cell is: room for every piston to move twice
        need = n + cell_headroom(g.meta[M_PISTONS])
        if need > g.U.shape[0] or 2 * need > g.HT.shape[0] or 2 * need + 64 > g.bev.shape[0]:
            return True
    return g.meta[M_LOG] != 0 and g.meta[M_EVN] > g.E.shape[0] - (n + 256)


@jit
def run(g, until, rec_on_cells, rec_pow_cells, rec_on, rec_pow, row0):
    """Advance to game tick `until`. Records rows (state after each tick) when the rec arrays are
    non-empty. Returns the tick reached, earlier than `until` if the world must make room first,
    or -1 if something overflowed."""
    U = g.U
    rows = rec_on.shape[0]
    row = row0
    while True:
        if g.meta[M_CMD] < 0:  # back from a command block's tick: the rest of this tick's scheduled ticks
            g.meta[M_CMD] = 0
            if g.meta[M_OVERFLOW]:
                break
            t = g.meta[M_TICK]
            ticked = True
        else:
            if g.meta[M_TICK] >= until:
                break
            if g.meta[M_OVERFLOW]:
                break
            if needs_room(g):
                break
            idle = g.meta[M_NBEV] == g.meta[M_BEVH] and g.meta[M_NMOV] == 0  # no block event, nothing moving
            if rows == 0 and idle and g.meta[M_HEAP] == 0:
                g.meta[M_TICK] = until
                break
            if rows == 0 and idle and g.H[0, HK1] // 4 > until:
                g.meta[M_TICK] = until
                break
            if rows == 0 and idle and g.H[0, HK1] // 4 > g.meta[M_TICK] + 1:
                g.meta[M_TICK] = g.H[0, HK1] // 4 - 1
            t = g.meta[M_TICK] + 1
            g.meta[M_TICK] = t
            ticked = not idle
        g.meta[M_PHASE] = PH_TICKS
        while g.meta[M_HEAP] > 0 and g.H[0, HK1] // 4 <= t:
            k1, c, ty = heap_pop(g)
            if U[c, PTYPE] == ty and g.T[c, PTIME] == k1 // 4:
                g.T[c, PTIME] = -1
            if U[c, BT] == ty:
                run_tick(g, c)
                ticked = True
                if g.meta[M_CMD] > 0:
                    break
        if g.meta[M_CMD] > 0:  # stopped inside tick t: the world runs the command block, then resumes the tick
            return -1 if g.meta[M_OVERFLOW] else t - 1
        if g.meta[M_NBEV] > g.meta[M_BEVH]:
            g.meta[M_PHASE] = PH_EVENTS
            run_block_events(g)
            ticked = True
        if g.meta[M_NMOV]:
            g.meta[M_PHASE] = PH_MOVING
            tick_moving(g)
        g.meta[M_PHASE] = PH_ACTION
        if row < rows:
            if ticked or row == 0:
                for i in range(rec_on_cells.shape[0]):
                    rec_on[row, i] = U[rec_on_cells[i], ON]
                for i in range(rec_pow_cells.shape[0]):
                    rec_pow[row, i] = U[rec_pow_cells[i], POWER]
            else:  # only a scheduled tick changes the world here: the row is the one before
                for i in range(rec_on_cells.shape[0]):
                    rec_on[row, i] = rec_on[row - 1, i]
                for i in range(rec_pow_cells.shape[0]):
                    rec_pow[row, i] = rec_pow[row - 1, i]
            row += 1
        if g.meta[M_NFIRE] or g.meta[M_WAKE]:
            break  # items move at the end of this tick (the world's part)
    if g.meta[M_OVERFLOW]:
        return -1
    return g.meta[M_TICK]


# ----------------------------------------------------------------------------- pistons
@jit
def cell_headroom(npistons):
    """Free cells a tick may need: every piston moving twice, each move landing up to 13 blocks where no
    cell was."""
    return 32 * npistons + 64


@jit
def head_fits(U, N, c):
    """Vanilla PistonHeadBlock.canSurvive: behind the head stands its extended base of the same type, or a
    moving_piston facing its way."""
    f = U[c, FACING]
    b = N[c, FC[opp(f)]]
    if U[b, BT] == MOVING_PISTON:
        return U[b, FACING] == f
    return U[b, BT] == (STICKY_PISTON if U[c, FACE] else PISTON) and U[b, ON] == 1 and U[b, FACING] == f


@jit
def piston_powered(U, N, c):
    """Vanilla getNeighborSignal: a signal into any side but the front, or into the position above the
    piston from any side but below (quasi-connectivity: what would power a block above powers the piston)."""
    f = U[c, FACING]
    for k in range(6):
        if k != f and signal_to(U, N, N[c, FC[k]], k, True) > 0:
            return True
    return qc_powered(U, N, c)


@jit
def qc_powered(U, N, c):
    """Quasi-connectivity: a signal into the position above c from any side but below (c itself)."""
    for k in range(5):
        if signal_to(U, N, N[c, QC[k]], k, True) > 0:
            return True
    return False


@jit
def push_reaction(U, x):
    """What a piston does to the block at x (vanilla PushReaction; a retracted piston moves)."""
    b = U[x, BT]
    if is_vanilla(b):
        return PUSH_REACTION[state_number(U, x)]
    if (b == WIRE or b == REPEATER or b == TORCH or b == WALL_TORCH or b == BUTTON or b == LEVER or b == COMPARATOR
            or b == IRON_DOOR):  # doors of every wood and iron: PushReaction.DESTROY
        return PUSH_DESTROY
    if is_container(b) or b == PISTON_HEAD or b == MOVING_PISTON or b == TEST_BLOCK or b == COMMAND_BLOCK:
        return PUSH_BLOCK  # a block entity, or part of a piston
    return PUSH_NORMAL


@jit
def pushable(U, x, allow_destroy, along):
    """Vanilla PistonBaseBlock.isPushable. `along`: the direction vanilla checks is the push's own (a block in a
    pushed line, a piston's first block when it extends), not a slime block's side or a pull: a glazed terracotta
    (PUSH_ONLY) moves only then."""
    b = U[x, BT]
    if b == AIR:
        return True
    if is_piston(b):
        return U[x, ON] == 0
    r = push_reaction(U, x)
    if r == PUSH_BLOCK:
        return False
    if r == PUSH_DESTROY:
        return allow_destroy
    if r == PUSH_ONLY:
        return along
    return True


@jit
def cell_at(g, x, y, z):
    c = find_cell(g.HT, g.P, x, y, z)
    return 0 if c < 0 else c


# Slots of g.queue while a push is worked out: the blocks to move from 0, their destinations from Q_DEST,
# the blocks it breaks from Q_DESTROY (at most Q_DESTROY_MAX of them).
Q_DEST, Q_DESTROY, Q_DESTROY_MAX = 16, 32, 32
# Slots of g.comp while a push is worked out: a line's blocks while the list is reordered from 0, where
# the last line ran into a listed block at COLLIDED (-1 if it did not), add_branches' stack from STACK
# (g.comp has at least COMP_MIN slots).
COLLIDED, STACK, COMP_MIN = 31, 32, 160


@jit
def sticky_kind(U, x):
    """1 for a slime block (a stone-like block holding slime's state number), 2 for a honey block (a partial
    block holding honey's), else 0."""
    n = np.int64(U[x, FACING]) | (np.int64(U[x, FACE]) << 8)
    if U[x, BT] == STONE and n == SLIME:
        return 1
    if U[x, BT] == PARTIAL and n == HONEY:
        return 2
    return 0


@jit
def is_sticky(U, x):
    return sticky_kind(U, x) != 0


@jit
def can_stick(U, a, b):
    """Vanilla canStickToEachOther: either is sticky, but slime and honey never stick to each other."""
    ka, kb = sticky_kind(U, a), sticky_kind(U, b)
    return (ka != 0 or kb != 0) and ka + kb != 3


@jit
def in_push(g, n, x):
    for i in range(n):
        if g.queue[i] == x:
            return True
    return False


@jit
def add_line(g, c, x, d, n, along):
    """Vanilla PistonStructureResolver.addBlockLine from the block at x along push direction d: the slime
    chain behind it, then the blocks ahead until air. Returns the new count of blocks to move, or -1 when
    the push must fail. `along`: the line starts with the piston's own block (else beside a slime block)."""
    U = g.U
    g.comp[COLLIDED] = -1
    if U[x, BT] == AIR or not pushable(U, x, False, along) or x == c or in_push(g, n, x):
        return n
    dx, dy, dz = NEAR[FC[d], 0], NEAR[FC[d], 1], NEAR[FC[d], 2]
    px, py, pz = g.P[x, 0], g.P[x, 1], g.P[x, 2]
    i = 1
    if i + n > PUSH_LIMIT:
        return -1
    cur = x
    while is_sticky(U, cur):
        b = cell_at(g, px - dx * i, py - dy * i, pz - dz * i)
        if U[b, BT] == AIR or not can_stick(U, cur, b) or not pushable(U, b, False, False) or b == c:
            break
        cur = b
        i += 1
        if i + n > PUSH_LIMIT:
            return -1
    added = 0
    for k in range(i - 1, -1, -1):
        b = cell_at(g, px - dx * k, py - dy * k, pz - dz * k)
        if not in_push(g, n, b):
            g.queue[n] = b
            n += 1
            added += 1
    k = 1
    while True:
        b = cell_at(g, px + dx * k, py + dy * k, pz + dz * k)
        at = push_index(g, n, b)
        if at >= 0:
            # vanilla reorderListAtCollision: this line moves to just before the block it ran into, and the
            # slime blocks up to that one look for their branches now
            for j in range(added):
                g.comp[j] = g.queue[n - added + j]
            for j in range(n - added - 1, at - 1, -1):
                g.queue[j + added] = g.queue[j]
            for j in range(added):
                g.queue[at + j] = g.comp[j]
            g.comp[COLLIDED] = at + added  # the caller looks for the branches up to that block now
            return n
        if U[b, BT] == AIR:
            return n
        if b == c or not pushable(U, b, True, True):
            return -1
        if push_reaction(U, b) == PUSH_DESTROY:
            nd = g.meta[M_DESTROY]
            if nd >= Q_DESTROY_MAX:
                return -1
            g.queue[Q_DESTROY + nd] = b
            g.meta[M_DESTROY] = nd + 1
            return n
        if n >= PUSH_LIMIT:
            return -1
        g.queue[n] = b
        n += 1
        added += 1
        k += 1


@jit
def push_index(g, n, x):
    for i in range(n):
        if g.queue[i] == x:
            return i
    return -1


@jit
def add_branches(g, c, x, d, n):
    """Vanilla PistonStructureResolver.addBranchingBlocks: the lines of the blocks stuck to the slime or honey
    block at x across the push, looked for in vanilla's order of directions. A line that runs into a block
    already listed makes vanilla look for the branches of every slime block listed up to that one, inside
    this call: the nesting is kept on a stack in g.comp from STACK (numba's cached code cannot recurse),
    frames of (a slime block, its next direction) or (-1 - last index, next index)."""
    U = g.U
    top = g.comp.shape[0] - 2
    sp = STACK
    g.comp[sp] = x
    g.comp[sp + 1] = 0
    sp += 2
    while sp > STACK:
        a = g.comp[sp - 2]
        i = g.comp[sp - 1]
        if a >= 0:
            if i == 6:
                sp -= 2
                continue
            g.comp[sp - 1] = i + 1
            k = BRANCH_ORDER[i]
            if k == d or k == opp(d):
                continue
            b = g.N[a, FC[k]]
            if U[b, BT] == AIR or not can_stick(U, b, a):
                continue
            n = add_line(g, c, b, d, n, False)
            if n < 0:
                return n
            last = g.comp[COLLIDED]
            if last >= 0:
                if sp > top:
                    return -1
                g.comp[sp] = -1 - last
                g.comp[sp + 1] = 0
                sp += 2
        else:
            if i > -1 - a:
                sp -= 2
                continue
            g.comp[sp - 1] = i + 1
            y = g.queue[i]
            if is_sticky(U, y):
                if sp > top:
                    return -1
                g.comp[sp] = y
                g.comp[sp + 1] = 0
                sp += 2
    return n


@jit
def resolve(g, c, f, extending):
    """Vanilla PistonStructureResolver: the blocks the piston at c (facing f) moves into g.queue, and the
    blocks the push breaks from Q_DESTROY (meta[M_DESTROY] of them); the count of blocks to move, or -1 if
    it cannot move. Slime blocks bring along what touches them sideways (their own lines in turn)."""
    U = g.U
    g.meta[M_DESTROY] = 0
    d = f if extending else opp(f)
    s = 1 if extending else 2
    start = cell_at(g, g.P[c, 0] + s * NEAR[FC[f], 0], g.P[c, 1] + s * NEAR[FC[f], 1],
                    g.P[c, 2] + s * NEAR[FC[f], 2])
    if not pushable(U, start, False, extending):
        if extending and push_reaction(U, start) == PUSH_DESTROY:
            g.queue[Q_DESTROY] = start
            g.meta[M_DESTROY] = 1
            return 0
        return -1
    n = add_line(g, c, start, d, 0, True)
    i = 0
    while i < n and n >= 0:
        x = g.queue[i]
        if is_sticky(U, x):
            n = add_branches(g, c, x, d, n)
        i += 1
    return n


@jit
def drop_moving(g, m):
    """Take cell m off the list of moving blocks (the order of the others is kept)."""
    n = g.meta[M_NMOV]
    i = 0
    while i < n and g.mov[i] != m:
        i += 1
    if i == n:
        return
    for j in range(i, n - 1):
        g.mov[j] = g.mov[j + 1]
    g.meta[M_NMOV] = n - 1


@jit
def make_moving(g, m, f, typ, bt, facing, face, delay, on, flags, shape):
    """Cell m becomes a moving_piston (facing f, type typ) carrying the given block: no neighbour update goes
    out (vanilla places it with flags that skip them; the caller updates where vanilla does), but with
    `shape` a shape update does, so the observers facing m see it at once."""
    U = g.U
    drop_moving(g, m)
    if U[m, BT] != AIR:
        put_event(g, m, EV_REMOVED, 0, 0, U[m, BT])
    clear_power(g, m)
    U[m, BT] = MOVING_PISTON
    U[m, FACING] = f
    U[m, FACE] = typ
    U[m, DELAY] = 1
    U[m, SIDES] = 0
    U[m, ON] = 0
    U[m, LOCKED] = 0
    U[m, MB_BT] = bt
    U[m, MB_FACING] = facing
    U[m, MB_FACE] = face
    U[m, MB_DELAY] = delay
    U[m, MB_ON] = on
    U[m, MB_FLAGS] = flags
    U[m, MB_STEP] = 0
    g.T[m, PTIME] = -1
    g.T[m, TOG0] = NEVER
    put_event(g, m, EV_PLACED, 0, 0, MOVING_PISTON)
    i = g.meta[M_NMOV]
    g.mov[i] = m
    g.meta[M_NMOV] = i + 1
    if shape:  # dust beside it takes its shape now, observers facing it hear it
        reshape_in(g, m, 0)
        notify_observers(g, m)


@jit
def vanish(g, x, shape_update):
    """The block at x becomes air; with shape_update, the observers facing x hear of it."""
    if g.U[x, BT] == AIR:
        return
    put_event(g, x, EV_REMOVED, 0, 0, g.U[x, BT])
    drop_moving(g, x)
    gone = trip_of(g.U, x)
    number = state_number(g.U, x)
    g.U[x, GONE] = g.U[x, BT]  # a torch or dust a push breaks updates two steps out (its onRemove)
    clear_cell(g, x)
    if gone != 0:  # a hook or string a push breaks (its onRemove)
        trip_replaced(g, x, number, True)
    if shape_update:
        notify_observers(g, x)


@jit
def java_bucket(x, y, z, cap):
    """The bucket of a java.util.HashMap of capacity `cap` that holds vanilla's BlockPos (x, y, z):
    Vec3i.hashCode in 32-bit arithmetic, spread by HashMap.hash."""
    h = ((np.int64(y) + np.int64(z) * 31) * 31 + np.int64(x)) & 0xFFFFFFFF
    return (h ^ (h >> 16)) & (cap - 1)


@jit
def near_bucket(g, x, dx, dy, dz, cap):
    """java_bucket of the position (dx, dy, dz) from cell x as the game holds it: the world's hash origin added
    (M_OX..M_OZ)."""
    return java_bucket(g.P[x, 0] + dx + g.meta[M_OX], g.P[x, 1] + dy + g.meta[M_OY], g.P[x, 2] + dz + g.meta[M_OZ],
                       cap)


@jit
def cell_bucket(g, x, cap):
    """java_bucket of cell x's position as the game holds it (near_bucket)."""
    return near_bucket(g, x, 0, 0, 0, cap)


@jit
def left_in_map_order(g, n):
    """The places in g.queue[0:n] in the order vanilla's moveBlocks walks its HashMap of them (written to
    g.comp from Q_DEST): a fresh HashMap (16 buckets, doubling while a bucket would hold more than 8 of
    the at most 12 entries) iterates bucket by bucket, each bucket's keys in the order they were put."""
    cap = 16
    for i in range(n):
        x = g.queue[i]
        while cap < 64:
            b = cell_bucket(g, x, cap)
            same = 1
            for j in range(i):
                y = g.queue[j]
                if cell_bucket(g, y, cap) == b:
                    same += 1
            if same <= 8:
                break
            cap *= 2
    m = 0
    for b in range(cap):
        for i in range(n):
            x = g.queue[i]
            if cell_bucket(g, x, cap) == b:
                g.comp[Q_DEST + m] = x
                m += 1


@jit
def move_blocks(g, c, f, extending):
    """Vanilla PistonBaseBlock.moveBlocks, in its order: break what the push breaks (last found first);
    turn every moved block's destination into a moving_piston carrying it, last block first, then the
    head's place when extending (each sends shape updates, which observers hear); empty the places left
    behind and send their shape updates in the order of vanilla's HashMap of them; then queue the
    neighbour updates: the broken places (last found first), the places the blocks moved from (last block
    first), the head's place. The places the blocks go to hear of it when they arrive."""
    U = g.U
    N = g.N
    h = N[c, FC[f]]
    if not extending and U[h, BT] == PISTON_HEAD:
        vanish(g, h, False)
    n = resolve(g, c, f, extending)
    if n < 0:
        return False
    d = f if extending else opp(f)
    nd = g.meta[M_DESTROY]
    # what each block is, before any moves (a destination may be another moved block's place)
    for j in range(n):
        x = g.queue[j]
        g.comp[j] = (np.int32(U[x, BT]) | (np.int32(U[x, FACING]) << 8) | (np.int32(U[x, FACE]) << 16)
                     | (np.int32(U[x, DELAY] & 63) << 24) | (np.int32(U[x, ON] & 1) << 30))
    for j in range(nd - 1, -1, -1):
        x = g.queue[Q_DESTROY + j]
        if is_vanilla(U[x, BT]) and BOX_STATE[state_number(U, x)]:
            g.meta[M_WAKE] = 1  # a shulker box breaks: the world drops it, with its items, at the end of this tick
        vanish(g, x, False)
    for j in range(n - 1, -1, -1):
        src = g.queue[j]
        x = g.P[src, 0] + NEAR[FC[d], 0]
        y = g.P[src, 1] + NEAR[FC[d], 1]
        z = g.P[src, 2] + NEAR[FC[d], 2]
        dst = find_cell(g.HT, g.P, x, y, z)
        if dst < 0:
            dst = add_cell(g, x, y, z)
        g.queue[Q_DEST + j] = dst
        v = g.comp[j]
        make_moving(g, dst, f, 0, v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >> 24) & 63, (v >> 30) & 1,
                    MB_EXTENDING if extending else 0, True)
    if extending:
        if h == 0:
            h = add_cell(g, g.P[c, 0] + NEAR[FC[f], 0], g.P[c, 1] + NEAR[FC[f], 1], g.P[c, 2] + NEAR[FC[f], 2])
        typ = 1 if U[c, BT] == STICKY_PISTON else 0
        make_moving(g, h, f, typ, PISTON_HEAD, f, typ, 1, 0, MB_EXTENDING | MB_SOURCE, True)
    # the places left behind: air at once, then their shape updates in HashMap order
    left_in_map_order(g, n)
    for j in range(n):
        x = g.comp[Q_DEST + j]
        if U[x, BT] != MOVING_PISTON:
            vanish(g, x, False)
    for j in range(n):
        x = g.comp[Q_DEST + j]
        if U[x, BT] == AIR:
            reshape_in(g, x, 0)
            notify_observers(g, x)
    for j in range(nd - 1, -1, -1):
        reshape_in(g, g.queue[Q_DESTROY + j], 0)
        push_changed(g, g.queue[Q_DESTROY + j], K_BLOCK)
    for j in range(n - 1, -1, -1):
        reshape_in(g, g.queue[j], 0)
        push_changed(g, g.queue[j], K_BLOCK)
    if extending:
        reshape_in(g, h, 0)
        push_changed(g, h, K_BLOCK)
    return True


@jit
def finish_moving(g, m, cut_short):
    """The block the moving_piston at m carries takes its place (vanilla PistonMovingBlockEntity: after its
    last tick, or at once when a piston cuts the move short, when a piston's own head vanishes instead),
    as vanilla's setBlock places it: its neighbour updates first (and then its own), then its shape
    updates."""
    U = g.U
    N = g.N
    drop_moving(g, m)
    bt = U[m, MB_BT]
    if cut_short and U[m, MB_FLAGS] & MB_SOURCE:
        bt = AIR
    put_event(g, m, EV_REMOVED, 0, 0, MOVING_PISTON)
    U[m, BT] = bt
    U[m, FACING] = U[m, MB_FACING]
    U[m, FACE] = U[m, MB_FACE]
    U[m, DELAY] = U[m, MB_DELAY]
    U[m, ON] = U[m, MB_ON] if bt != AIR else 0
    U[m, SIDES] = 0
    U[m, LOCKED] = 0
    U[m, POWER] = 0
    g.T[m, PTIME] = -1
    for j in range(TOG0, NT):
        g.T[m, j] = NEVER
    shape_from_neighbours(g, m)  # vanilla updateFromNeighbourShapes: a fence lands joining its new neighbours
    if bt != AIR:
        put_event(g, m, EV_PLACED, 0, 0, bt)
    if bt == NOTE_BLOCK:
        U[m, INSTRUMENT] = instrument_on(U, N[m, FC[DOWN]])
    elif bt == OBSERVER:
        if U[m, ON]:
            # vanilla onPlace: arrived powered with no tick pending, it switches off at once, with flags that send
            # no updates, and tells the blocks behind it (updateNeighborsInFront). The landing's own neighbour and
            # shape updates then never go out (Level.setBlock sends them only if the block still stands as it set
            # it): the note block above keeps its instrument, the dust beside it its shape, observers facing it
            # see nothing
            put_event(g, m, EV_STATE, 1, 0, OBSERVER)
            U[m, ON] = 0
            reshape_in(g, m, -1)
            changed(g, m)
            return
        start_signal(g, m)  # its shape is worked out from its neighbours, so it sees the block in front
    reshape_in(g, m, 0)
    if is_piston(bt):
        # vanilla onPlace: a piston that arrives checks whether to extend before its neighbours hear of it (they
        # may be pistons whose push it now lets through, or would have blocked while it was moving)
        check_extend(g, m)
    push_changed(g, m, K_BLOCK)
    propagate_in(g, -1, 1)
    notify_observers(g, m)


@jit
def queue_block_event(g, c, typ):
    """Vanilla Level.blockEvent: queued once (the same event for the same block waits only once)."""
    b = g.U[c, BT]
    for i in range(g.meta[M_BEVH], g.meta[M_NBEV]):
        if g.bev[i, 0] == c and g.bev[i, 1] == typ and g.bev[i, 2] == b:
            return
    n = g.meta[M_NBEV]
    if n >= g.bev.shape[0]:
        g.meta[M_OVERFLOW] = OV_BLOCK_EVENTS
        return
    g.bev[n, 0] = c
    g.bev[n, 1] = typ
    g.bev[n, 2] = b
    g.meta[M_NBEV] = n + 1


@jit
def check_extend(g, c):
    """Vanilla PistonBaseBlock.checkIfExtend, run on every neighbour update of a piston: queue an extension
    when powered, retracted and able to push; a retraction when unpowered and extended, which leaves the
    pushed block behind (a sticky piston's short pulse) while that block has not yet travelled half way,
    or while scheduled ticks run, or in the game tick it last moved."""
    U = g.U
    N = g.N
    f = U[c, FACING]
    p = piston_powered(U, N, c)
    if p and not U[c, ON]:
        if resolve(g, c, f, True) >= 0:
            queue_block_event(g, c, BE_EXTEND)
    elif not p and U[c, ON]:
        typ = BE_RETRACT
        m = N[c, FC2[f]]
        if (U[m, BT] == MOVING_PISTON and U[m, FACING] == f and U[m, MB_FLAGS] & MB_EXTENDING
                and (U[m, MB_STEP] <= 1 or g.T[m, TOG0] == g.meta[M_TICK] or g.meta[M_PHASE] == PH_TICKS)):
            typ = BE_DROP
        queue_block_event(g, c, typ)


@jit
def trigger(g, c, typ):
    """Vanilla PistonBaseBlock.triggerEvent: the piston at c extends or retracts now."""
    U = g.U
    N = g.N
    f = U[c, FACING]
    p = piston_powered(U, N, c)
    if p and typ != BE_EXTEND:
        set_on(g, c, 1)  # powered again before its turn: it stays out
        return
    if not p and typ == BE_EXTEND:
        return
    if typ == BE_EXTEND:
        if not move_blocks(g, c, f, True):
            return
        # the move's neighbour updates run to the end while the base is still retracted (vanilla moveBlocks
        # returns before triggerEvent sets extended): a piston whose own push took its power away hears of
        # it now, finds itself unpowered and retracted, and so stays out until a later update
        propagate_in(g, -1, 1)
        # then the base turns extended as vanilla's setBlock does it: neighbour updates, then shape updates
        put_event(g, c, EV_STATE, 0, 1, U[c, BT])
        U[c, ON] = 1
        reshape_in(g, c, 0)
        push_changed(g, c, K_BLOCK)
        propagate_in(g, -2 - c, 1)  # not itself: vanilla's onPlace checks nothing when only `extended` changes
        notify_observers(g, c)
        return
    sticky = U[c, BT] == STICKY_PISTON
    h = N[c, FC[f]]
    if U[h, BT] == MOVING_PISTON:
        finish_moving(g, h, True)
    # the base becomes a moving_piston with no updates of its own; then its neighbour updates, then its
    # shape updates (vanilla: blockUpdated, then updateNeighbourShapes)
    make_moving(g, c, f, 1 if sticky else 0, U[c, BT], f, 0, 1, 0, MB_SOURCE, False)
    reshape_in(g, c, 0)
    push_changed(g, c, K_BLOCK)
    propagate_in(g, -1, 1)
    notify_observers(g, c)
    pulls = False
    if sticky:
        m = N[c, FC2[f]]
        if U[m, BT] == MOVING_PISTON and U[m, FACING] == f and U[m, MB_FLAGS] & MB_EXTENDING:
            finish_moving(g, m, True)  # the block it was pushing arrives now and stays
            pulls = True
        elif (typ == BE_RETRACT and U[m, BT] != AIR and pushable(U, m, False, False)
              and push_reaction(U, m) == PUSH_NORMAL):
            move_blocks(g, c, f, False)  # vanilla ignores whether it moved: the head is gone either way
            pulls = True
    if not pulls and U[h, BT] != AIR:
        # vanilla removeBlock: the head's neighbour updates, then its shape updates
        vanish(g, h, False)
        reshape_in(g, h, 0)
        push_changed(g, h, K_BLOCK)
        propagate_in(g, -1, 1)
        notify_observers(g, h)
    propagate_in(g, -1, 1)


@jit
def run_block_events(g):
    """Vanilla runBlockEvents: every queued block event in order, those they queue too; one whose block
    is gone does nothing."""
    U = g.U
    while g.meta[M_BEVH] < g.meta[M_NBEV]:
        i = g.meta[M_BEVH]
        g.meta[M_BEVH] = i + 1
        c = g.bev[i, 0]
        if U[c, BT] == g.bev[i, 2]:
            trigger(g, c, g.bev[i, 1])
    g.meta[M_BEVH] = 0
    g.meta[M_NBEV] = 0


@jit
def tick_moving(g):
    """The moving blocks' part of the tick (vanilla block entities), oldest first: each advances half way,
    and after two steps its block arrives."""
    U = g.U
    i = 0
    while i < g.meta[M_NMOV]:
        m = g.mov[i]
        if U[m, BT] != MOVING_PISTON:  # replaced by a placement
            drop_moving(g, m)
            continue
        g.T[m, TOG0] = g.meta[M_TICK]
        if U[m, MB_STEP] >= 2:
            finish_moving(g, m, False)
        else:
            U[m, MB_STEP] += 1
            i += 1


# ----------------------------------------------------------------------------- actions
@jit
def place(g, c, old_type, exempt, player):
    """Finish a block change at c (its new id and static properties already written). A player's
    placement derives lit/powered from the surroundings; /setblock (exempt == c) keeps them."""
    U = g.U
    N = g.N
    b = U[c, BT]
    if b != old_type:
        g.T[c, PTIME] = -1
    U[c, GONE] = old_type if b != old_type else AIR
    if b == OBSERVER or (is_vanilla(b) and LEAF_DISTANCE[state_number(U, c)]) or is_linking(U, c) or (
            stairs_at(U, c) >= 0) or (trip_of(U, c) & T_STRING) != 0 or bell_of(U, c) != 0 or bed_of(U, c) != 0 or (
            b == PARTIAL and state_number(U, c) == DIRT_PATH_NUMBER):
        g.meta[M_OBSERVERS] += 1  # they hear shape updates
    if player:  # vanilla getStateForPlacement: a fence's sides, a stair's shape from the neighbours
        shape_from_neighbours(g, c)
    reshape_near(g, c)
    notify_observers(g, c)  # a block placed or removed: a shape update to its neighbours
    if b == PISTON or b == STICKY_PISTON:
        g.meta[M_PISTONS] += 1
        exempt = -1  # vanilla PistonBaseBlock.onPlace: a piston placed by any means (a paste too) checks its power
    elif b == PISTON_HEAD:
        exempt = c  # a head waits for a neighbour update before it checks for its base
    elif b == COPPER_BULB:
        exempt = -1  # vanilla CopperBulbBlock.onPlace: a bulb placed by any means checks its power at once
    elif b == OBSERVER and U[c, ON]:
        # vanilla ObserverBlock.onPlace: placed powered with no tick pending, it switches off at once,
        # quietly (no shape update), and updates the blocks behind it
        if not in_container(g, c):
            put_event(g, c, EV_STATE, 1, 0, OBSERVER)
            U[c, ON] = 0
            push_changed(g, c, K_COMP)
    if b == REPEATER:
        U[c, LOCKED] = 1 if g.meta[R_LOCKABLE] and repeater_locked(U, N, c) else 0
        if player and not U[c, LOCKED] and repeater_input(U, N, c):
            schedule(g, c, 1, P_NORMAL)
    elif b == COMPARATOR:
        if player and comparator_should_on(U, N, c):
            schedule(g, c, 1, P_NORMAL)
    elif b == NOTE_BLOCK:
        if player:  # a player's note block takes its instrument from the block below, and is not powered
            U[c, INSTRUMENT] = instrument_on(U, N[c, FC[DOWN]])
        exempt = c  # nor does it update itself when placed (vanilla: powered waits for a neighbour update)
    elif is_dispenser(b) or bell_of(U, c) != 0:
        exempt = c  # vanilla: triggered (a bell's powered) waits for a neighbour update too
    elif is_plate(b):
        U[c, ENTITIES] = 0  # a plate is placed with nothing on it
    elif (b == IRON_TRAPDOOR or b == FENCE_GATE) and player:
        # vanilla getStateForPlacement: open and powered when it has a neighbour signal
        p = 1 if lamp_powered(U, N, c) else 0
        U[c, ON] = p
        U[c, POWER] = p
        if p:
            trapdoor_moved(g, c)
    elif b == IRON_DOOR and player:
        # a player places the lower half; the upper half comes with it (vanilla setPlacedBy), both open and
        # powered when either has a neighbour signal (getStateForPlacement). The world has checked that the
        # space above is air and has a cell.
        u = N[c, FC[UP]]
        U[u, BT] = IRON_DOOR
        U[u, FACING] = U[c, FACING]
        U[u, HALF] = 1
        U[u, HINGE] = U[c, HINGE]
        U[u, SIDES] = 0
        U[u, LOCKED] = 0
        g.T[u, PTIME] = -1
        p = 1 if lamp_powered(U, N, c) or lamp_powered(U, N, u) else 0
        U[c, ON] = p
        U[c, POWER] = p
        U[u, ON] = p
        U[u, POWER] = p
        put_event(g, u, EV_PLACED, 0, 0, IRON_DOOR)
        reshape_near(g, u)
        push_changed(g, c, K_BLOCK)
        push_changed(g, u, K_BLOCK)
        propagate(g, -1)
        return
    if b == RAIL and old_type != RAIL and not g.meta[M_PASTE]:
        # vanilla BaseRailBlock.onPlace (a player's rail, /setblock; a paste keeps the shapes saved): its shape from
        # the rails around it, which join it
        p = lamp_powered(U, N, c)
        if U[c, FACE] == PLAIN:
            U[c, ON] = 1 if p else 0
        rail_derive(g, c, p, True)
    push_changed(g, c, K_BLOCK)
    propagate(g, exempt)


# Columns of a placement item (one row per block to place), prepared by the world from a block state.
S_ID, S_FACING, S_FACE, S_DELAY, S_DOT, S_ON, S_CMP, S_POWER = range(8)
NS = 8  # S_POWER: a door's or trapdoor's powered, a plate's or daylight sensor's output, as given
# S_CMP bits: which static properties decide whether the block already there is the same block.
CMP_FACING, CMP_FACE, CMP_DELAY, CMP_ON = 1, 2, 4, 8


@jit
def unsupported(g, cells, st, bad, stop_at_first):
    """A player's placements in order, checked for support without placing anything: bad[i] = 1
    when item i would need a full block where there is none (counting earlier items; a refused item
    places nothing). Returns the first refused index, or -1."""
    U = g.U
    N = g.N
    first = -1
    for i in range(cells.shape[0]):
        c = cells[i]
        b = st[i, S_ID]
        number = np.int64(st[i, S_FACING]) | (np.int64(st[i, S_FACE]) << 8)
        k = attach_dir(b, st[i, S_FACE], st[i, S_FACING])
        if k >= 0:
            s = N[c, FC[k]]
            if U[s, OVL]:  # an earlier item: its faces as it will be (MARK: 1 + centre bits + 4 * solid)
                m = np.int64(U[s, MARK])  # 0: the earlier item is air, which holds nothing
                sf, centre = np.int64(U[s, OVL]) - 1, (m - 1) & 3 if m > 0 else 0
                solid, air = m > 0 and (m - 1) >> 2 == 1, m == 0
            else:
                sf, centre = np.int64(sturdy_faces(U, s)), centre_faces(U, s)
                solid, air = solid_bit(U[s, BT], state_number(U, s)), U[s, BT] == AIR
            if b == TORCH:
                ok = centre & 1 == 1
            elif is_plate(b):
                ok = holds(sf, b, UP) or centre & 1 == 1
            elif b == PARTIAL:
                ok = holds_need((np.int64(NEED[number]) - 1) % 4, opp(k), sf, centre, solid, air)
            else:
                ok = holds(sf, b, opp(k))
            if not ok:
                bad[i] = 1
                if first < 0:
                    first = i
                if stop_at_first:
                    break
                continue
        if c > 0:  # what a later item sees here: this item's sturdy faces, centre bits and solidity
            sf = (63 if is_full(b) else st[i, S_DELAY] if b == PARTIAL else
                  (1 << UP) | HOPPER_TOP if b == HOPPER else 1 << DOWN if b == DAYLIGHT else
                  (1 << UP if st[i, S_FACE] else 1 << DOWN) if b == IRON_TRAPDOOR else 0)
            U[c, OVL] = 1 + sf
            U[c, MARK] = 0 if b == AIR else 1 + centre_bits(b, st[i, S_FACING], st[i, S_ON], sf, number) + 4 * (
                1 if solid_bit(b, number) else 0)
    for i in range(cells.shape[0]):
        if cells[i] > 0:
            U[cells[i], OVL] = 0
            U[cells[i], MARK] = 0
    return first


@jit
def same_static(U, c, st, i):
    """True when the block at c already is item i up to derived properties (placing it is a no-op)."""
    if U[c, BT] != st[i, S_ID]:
        return False
    m = st[i, S_CMP]
    if m & CMP_FACING and U[c, FACING] != st[i, S_FACING]:
        return False
    if m & CMP_FACE and U[c, FACE] != st[i, S_FACE]:
        return False
    if m & CMP_DELAY and U[c, DELAY] != st[i, S_DELAY]:
        return False
    if m & CMP_ON and U[c, ON] != st[i, S_ON]:
        return False
    return True


@jit
def place_items(g, cells, st, bad, start, stop, replay):
    """Place items start..stop-1 in order, exactly as one set_block each (skipping items with bad[i]).
    Returns the index reached: earlier than `stop` when the world must make room first (it then
    calls again) or something overflowed."""
    U = g.U
    i = start
    while i < stop:
        if g.meta[M_OVERFLOW] or needs_room(g):
            break
        c = cells[i]
        b = st[i, S_ID]
        if bad[i] or c < 0:
            i += 1
            continue
        old = U[c, BT]
        gone = np.int64(TRIP[state_number(U, c)]) if old == PARTIAL else 0  # a hook or string replaced
        gone_number = state_number(U, c)
        if b == AIR:
            if old != AIR:
                put_event(g, c, EV_REMOVED, 0, 0, old)
                clear_power(g, c)
                U[c, BT] = AIR
                U[c, ON] = 0
                U[c, SIDES] = 0
                U[c, LOCKED] = 0
                if gone != 0:
                    trip_replaced(g, c, gone_number, False)
                place(g, c, old, -1, not replay)
            i += 1
            continue
        if old != AIR and same_static(U, c, st, i):
            i += 1
            continue
        kind = U[c, FACE]
        clear_power(g, c)
        U[c, POWER] = st[i, S_POWER]
        U[c, TOGI] = 0
        U[c, BT] = b
        U[c, FACING] = st[i, S_FACING]
        U[c, FACE] = st[i, S_FACE]
        U[c, DELAY] = st[i, S_DELAY]
        U[c, SIDES] = 0 if st[i, S_DOT] else 0x55
        U[c, LOCKED] = 0
        U[c, ON] = st[i, S_ON]
        for j in range(TOG0, NT):
            g.T[c, j] = NEVER
        if old != AIR:
            put_event(g, c, EV_REMOVED, 0, 0, old)
        put_event(g, c, EV_PLACED, 0, 0, b)
        if b == RAIL and old == RAIL and kind != U[c, FACE]:
            old = AIR  # another kind of rail: vanilla's onPlace runs for it as for a new block
        placed = trip_of(U, c)
        if gone != 0 or placed != 0:
            trip_replaced(g, c, gone_number if gone else -1, False)
        place(g, c, old, c if replay else -1, not replay)
        if (placed & T_HOOK) != 0 and not replay and (gone & T_HOOK) == 0 and (trip_of(U, c) & T_HOOK) != 0:
            # vanilla TripWireHookBlock.setPlacedBy: a hook a player places looks for its line at once
            calculate_state(g, c, state_number(U, c), False, False, -1, 0)
            propagate(g, -1)
        i += 1
    return i


@jit
def use(g, c):
    """A player's right-click. Returns 1 if something changed, 0 if not, 2 if the world must make
    room first (nothing done), 3 if something overflowed."""
    if needs_room(g):
        return 2
    r = click(g, c)
    if g.meta[M_OVERFLOW]:
        return 3
    return r


@jit
def click(g, c):
    U = g.U
    N = g.N
    b = U[c, BT]
    if b == BUTTON:
        if U[c, ON]:
            return 0
        set_on(g, c, 1)
        # a wooden button (blocks.BUTTONS, index in DELAY) stays pressed 30 gt, the others the ruleset's time
        schedule(g, c, WOOD_BUTTON_TICKS if U[c, DELAY] >= WOODEN_BUTTON else g.meta[R_BUTTON], P_NORMAL)
        changed(g, c)
        return 1
    if b == LEVER:
        set_on(g, c, 0 if U[c, ON] else 1)
        changed(g, c)
        return 1
    if b == REPEATER:
        nd = U[c, DELAY] % 4 + 1
        log_event(g, c, EV_DELAY, U[c, DELAY], nd)
        U[c, DELAY] = nd
        return 1
    if b == NOTE_BLOCK:
        nn = (U[c, NOTE] + 1) % 25
        log_event(g, c, EV_TUNED, U[c, NOTE], nn)
        U[c, NOTE] = nn
        play_note(g, c)
        push_changed(g, c, K_BLOCK)  # vanilla sets the new note with neighbour updates (a QC piston hears them)
        propagate(g, -1)
        return 1
    if b == COMPARATOR:
        nm = 1 - U[c, MODE]
        log_event(g, c, EV_MODE, U[c, MODE], nm)
        U[c, MODE] = nm
        comparator_refresh(g, c)
        return 1
    if is_opener(b) and (b == FENCE_GATE or U[c, DELAY] >> (1 if b == IRON_DOOR else 0) > 0):
        # a fence gate, or a wooden door or trapdoor (iron ones are variant 0): `open` flips, `powered` stays,
        # and no neighbour hears of it (vanilla use, setBlock without neighbour updates); shape updates reach the
        # observers, a door's other half, which copies it, and what rests on a trapdoor
        v = 0 if U[c, ON] else 1
        set_on(g, c, v)
        if b == IRON_DOOR:
            o = door_partner(U, N, c)
            if o > 0:
                set_on(g, o, v)
        else:
            trapdoor_moved(g, c)
            propagate(g, -1)
        return 1
    if b == WIRE:
        if wire_raw_connected(U, N, c):
            return 0
        ns = 0x55 if U[c, SIDES] == 0 else 0
        log_event(g, c, EV_SHAPE, U[c, SIDES], ns)
        U[c, SIDES] = ns
        push_changed(g, c, K_BLOCK)
        propagate(g, -1)
        return 1
    return 0


@jit
def test_start(g, c):
    """A start test block is triggered (vanilla TestBlockEntity.trigger): `powered` turns on and its six neighbours
    hear of it; its block state stays as it is. Returns as `use` does."""
    if needs_room(g):
        return 2
    if g.U[c, BT] != TEST_BLOCK or g.U[c, MODE] != 0 or g.U[c, ON]:
        return 0
    g.U[c, ON] = 1
    changed(g, c)
    if g.meta[M_OVERFLOW]:
        return 3
    return 1


@jit
def cmd_set_auto(g, c, auto):
    """Vanilla CommandBlockEntity.setAutomatic for the command block at c: an impulse or repeating block that
    becomes always active while unpowered marks its condition and schedules its tick 1 gt later. Returns as
    `use` does."""
    if needs_room(g):
        return 2
    U = g.U
    was = U[c, LOCKED] & CMD_AUTO
    U[c, LOCKED] = (U[c, LOCKED] & CMD_MET) | (CMD_AUTO if auto else 0)
    if auto and not was and not U[c, ON] and U[c, FACE] != CMD_CHAIN:
        cmd_mark_met(U, g.N, c)
        schedule(g, c, 1, P_NORMAL)
    if g.meta[M_OVERFLOW]:
        return 3
    return 1


@jit
def comparators_reread(g, c):
    """Vanilla updateNeighbourForOutputSignal for the block at c: each comparator beside it, or behind a conductor
    beside it (north, east, south, west), re-reads it, and what that changes runs before the next one is asked."""
    U = g.U
    N = g.N
    for k in range(4):
        n = N[c, FC[k]]
        if U[n, BT] != COMPARATOR and is_conductor(U[n, BT]):
            n = N[c, FC2[k]]
        if U[n, BT] == COMPARATOR and check(g, n, -1):
            pop(g, n)
            propagate(g, -1)


@jit
def output_changed(g, c):
    """Vanilla updateNeighbourForOutputSignal for the block at c (a command block after it ran): the comparators
    that read it re-read it. Returns as `use` does."""
    if needs_room(g):
        return 2
    comparators_reread(g, c)
    if g.meta[M_OVERFLOW]:
        return 3
    return 1


@jit
def set_fill(g, c, level):
    """A container's fill level becomes `level`; the comparators that read it hear of it (vanilla
    updateNeighbourForOutputSignal: one beside it, or one behind a conductor beside it, north, east,
    south, west). Returns as `use` does."""
    if needs_room(g):
        return 2
    U = g.U
    if U[c, POWER] == level:
        return 0
    log_event(g, c, EV_POWER, U[c, POWER], level)
    U[c, POWER] = level
    comparators_reread(g, c)
    if g.meta[M_OVERFLOW]:
        return 3
    return 1


@jit
def set_entities(g, c, n):
    """The number of entities on the plate at c becomes n. An unpressed plate checks them at once (vanilla
    entityInside, which a pressed plate ignores: it waits for its re-check). Returns as `use` does."""
    if needs_room(g):
        return 2
    g.U[c, ENTITIES] = min(n, 255)
    if g.U[c, POWER] == 0 and n > 0:
        plate_check(g, c)
    if g.meta[M_OVERFLOW]:
        return 3
    return 1


@jit
def set_output(g, c, level, inverted):
    """The daylight sensor at c: its `inverted` (kept in ON) becomes `inverted`, with no update (vanilla
    use), then its output becomes `level`, updating its neighbours if it changed. Returns as `use` does.
    Also a comparator's output read from a file (ON, its `powered`, given unchanged)."""
    if needs_room(g):
        return 2
    U = g.U
    set_on(g, c, inverted)
    if U[c, POWER] != level:
        log_event(g, c, EV_POWER, U[c, POWER], level)
        U[c, POWER] = level
        changed(g, c)
    if g.meta[M_OVERFLOW]:
        return 3
    return 1


@jit
def structure_update(g, c):
    """Vanilla's last pass over a structure it has placed (StructureTemplate.placeInWorld, unless the shapes are
    known): the block at c takes its shape from its neighbours, so an unpowered observer starts a pulse whatever it
    watches (ObserverBlock.updateShape from its facing side), a note block takes the instrument of the block under
    it and dust its sides (what the shape updates of the blocks written after it would have set), and its neighbours
    hear of it (blockUpdated).
    Returns as `use` does."""
    if needs_room(g):
        return 2
    U = g.U
    if U[c, BT] == OBSERVER and not U[c, ON]:
        start_signal(g, c)
    if U[c, BT] == NOTE_BLOCK:  # NoteBlock.updateShape from below: the instrument of the block under it
        U[c, INSTRUMENT] = instrument_on(U, g.N[c, FC[DOWN]])
    if U[c, BT] == WIRE:  # RedStoneWireBlock.updateShape from above: every side worked out anew
        s = wire_shape(U, g.N, c, U[c, SIDES] == 0)
        if s != U[c, SIDES]:
            log_event(g, c, EV_SHAPE, U[c, SIDES], s)
            U[c, SIDES] = s
    number = state_number(U, c) if is_vanilla(U[c, BT]) else 0
    shape_from_neighbours(g, c)  # a fence, wall or pane takes every side, stairs their shape (section 57)
    if number and state_number(U, c) != number:
        put_event(g, c, EV_REMOVED, 0, 0, U[c, BT])
        put_event(g, c, EV_PLACED, 0, 0, U[c, BT])
        reshape_near(g, c)
        if is_linking(U, c):
            relinked(g, c)
        else:
            restaired(g, c)
    push_changed(g, c, K_BLOCK)
    propagate(g, -1)
    if g.meta[M_OVERFLOW]:
        return 3
    return 1


@jit
def edge_shape_update(g, c, d):
    """Vanilla StructureTemplate.updateShapeAtEdge, for one face of a placed structure: the block at c hears a
    shape update from side d, where no block of the structure stands. An unpowered observer facing d starts its
    pulse (the one reaction to such an update that waits for a tick; the pass that follows redoes the others).
    Returns as `use` does."""
    if needs_room(g):
        return 2
    U = g.U
    if U[c, BT] == OBSERVER and U[c, FACING] == d and not U[c, ON]:
        start_signal(g, c)
    if g.meta[M_OVERFLOW]:
        return 3
    return 1


def python_kernels():
    """This module loaded again without numba: slow, but steppable in a debugger."""
    spec = importlib.util.spec_from_file_location("scicraft_viz._sim_python", __file__)
    mod = importlib.util.module_from_spec(spec)
    mod.__dict__["_FORCE_PYTHON"] = True
    spec.loader.exec_module(mod)
    return mod
