"""A compiled engine for large and long runs: the world as a graph of components.

`compile_world(world)` turns a World into a graph whose nodes are the components (repeaters, torches, lamps,
buttons, levers, comparators, note blocks, pressure plates, daylight sensors, iron doors (both halves one
node) and trapdoors) and whose links say which component can power which. Dust is collapsed, as MCHPRS's
redpiler does: a wire's power is the max over its sources of the source's signal (15, or a comparator's,
plate's or sensor's output) minus the power lost on the way, so a lamp's, torch's, repeater's, door's or
trapdoor's input is a count of the linked sources whose signal arrives above 0, and a comparator's rear and
side are maxima over their own lists of (source, loss). Solid blocks are collapsed the same way: a strongly
powered block is a link from the component that powers it. A container is a constant: the fill level it had
when compiled (a change of contents goes through the reference engine). Plates' entities and daylight
sensors' outputs are set from outside (`k_input`); sensors are updated every 20 game ticks, between runs of
the kernel. A lamp whose only input is one repeater has no link: the repeater checks it itself when it
switches (K_FOLD_FIRST / K_FOLD_LAST). The graph is ticked in numba by an event-driven scheduler (a timing
wheel of FIFO queues per game tick and priority, which keeps vanilla's order: priority, then scheduling
order); idle ticks cost nothing.

It reproduces the reference engine (kernels.py) tick for tick, including scheduled-tick priorities,
repeater delay, locking and pulse stretching, torch delay and burn-out, lamp delays, the button pulse,
comparators (compare, subtract, containers read directly or through a block), note blocks, plates'
presses and re-checks, sensors, doors and trapdoors. What it cannot reproduce exactly it refuses
(`CompileRefused`) at compile time, or it stops before the scheduled tick it cannot take (`step` returns
False) so that the caller continues on the reference engine from a state that is still exact:
- the blocks of the table `_NOT_COMPILED`: observers and pistons; a hopper, dropper or dispenser that could
  act (power can reach it, or a hopper could move items); a trapdoor that could drop a block resting on it; a bell
  that power can reach or that says powered; a bed's half without its other half;
- a block that needs support and has none (it would pop off), a state the block's surroundings
  contradict with no tick pending to fix it (replay-mode /setblock states; a comparator whose stored
  output its inputs do not give; a note block a player placed beside power; a door whose halves disagree or
  lack one), two pending ticks for one block;
- a change after which two components reached only through dust could be scheduled for the same tick
  and priority: their order depends on which dust changed power, which the collapsed graph does not know;
- a burnt-out torch left dark with no tick pending: from then on any update near it matters;
- a scheduled tick whose switch may send a neighbour update to a lit, unpowered lamp whose off tick is due in
  the same game tick and has not run: the lamp would schedule a second off tick (kernels.check), and the graph
  queues a lamp once.
"""

from __future__ import annotations

from numbers import Integral

import numba
import numpy as np
from numba import njit

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.blocks import split_state
from scicraft_viz.engine.jitcache import announce_compiles
from scicraft_viz.engine.kernels import (
    HOPPER_TOP,
    NEAR,
    PLATE_RECHECK,
    WEIGHTED_RECHECK,
    centre_bits,
    holds_need,
    plate_output,
    solid_bit,
)
from scicraft_viz.engine.rules import VANILLA, Ruleset
from scicraft_viz.errors import InputError

announce_compiles()  # one line on stderr if a kernel is not in numba's cache and must be compiled

Pos = tuple[int, int, int]

BURNOUT_WINDOW, BURNOUT_SLOTS, BURNOUT_RECHECK = 60, 8, 160
P_EXTREMELY_HIGH, P_VERY_HIGH, P_HIGH, P_NORMAL = 0, 1, 2, 3
WHEEL = 256  # > the longest delay (160 gt), so a slot never holds two different due ticks
CONST = -1  # source id of a redstone block: always on
UP, DOWN = 4, 5

REPEATER, TORCH, WALL_TORCH, LAMP, BUTTON, LEVER = B.REPEATER, B.TORCH, B.WALL_TORCH, B.LAMP, B.BUTTON, B.LEVER
COMPARATOR, NOTE_BLOCK = B.COMPARATOR, B.NOTE_BLOCK
PLATE, LIGHT_PLATE, HEAVY_PLATE, DAYLIGHT = B.PLATE, B.LIGHT_PLATE, B.HEAVY_PLATE, B.DAYLIGHT
IRON_DOOR, IRON_TRAPDOOR, FENCE_GATE = B.IRON_DOOR, B.IRON_TRAPDOOR, B.FENCE_GATE
# inputs set from outside (plates: entities; daylight sensors: the day time) and outputs that open
_COMPONENTS = (REPEATER, TORCH, WALL_TORCH, LAMP, BUTTON, LEVER, COMPARATOR, NOTE_BLOCK, *B.PLATES, DAYLIGHT,
               IRON_DOOR, IRON_TRAPDOOR, FENCE_GATE)
_ANALOG = (COMPARATOR, *B.PLATES, DAYLIGHT)  # nodes whose signal is their output strength (S_POW)
_CONDUCTORS = (B.STONE, LAMP, B.TARGET, B.BARREL, NOTE_BLOCK, B.DROPPER, B.DISPENSER, B.FURNACE)
COMPARATOR_DELAY = 2  # not varied by rulesets
A_SHIFT = 6  # an analog input entry is (source + 1) << A_SHIFT | weight (the power lost on the way)

# meta slots at the head of the state array; the M_R* slots hold the world's ruleset (engine/rules.py) where
# the kernels read it at run time. Its repeater step, dust decay and locking are folded into the graph.
M_TICK, M_NPEND, M_STATUS, M_SEQ, M_RBUTTON, M_RTORCH, M_RLAMP, M_RBURNOUT = range(8)
NMETA = 8
# state arrays (views of one int64 array, so a call from Python passes two arrays, not twenty)
# S_POW: a comparator's output strength (vanilla's OutputSignal; it is powered exactly when that is > 0) or output
# (a plate's, a daylight sensor's); S_ENT: the entities on a plate; S_FOLD: a repeater's folded lamp (K_FOLD*)
# The first 8 fields, all an event reads of a node, fill one cache line: its state, its pending tick's time and
# queue link, its kind (S_KIND: K_* fields) and its links (S_LNK: first | end << 32, in pairs of `lk`).
(S_ON, S_CNT, S_LCNT, S_PEND, S_NXT, S_PTIME, S_KIND, S_LNK, S_LOCK, S_PRANK, S_PSEQ, S_TOGI, S_POW, S_ENT,
 S_FOLD) = range(15)
N_PER_NODE = 16
# S_KIND: block id | delay << K_DELAY (a repeater's, or a wooden button's press, in game ticks) | K_PRIO (a diode
# facing a diode: it ticks first) | K_LAZY (a lamp fed by repeaters only, see _changed) | K_SELF (its own output is
# among its inputs) |
# K_FOLD_FIRST or K_FOLD_LAST (a repeater whose check of lamp S_FOLD, that lamp's only input, is not a link but
# made by _changed itself, before or after its links: where the link was in the check order)
K_DELAY, K_PRIO, K_LAZY, K_SELF, K_FOLD_FIRST, K_FOLD_LAST = 8, 1 << 24, 1 << 25, 1 << 26, 1 << 27, 1 << 28
K_TOUCH = 1 << 29  # its switch may send a neighbour update to a lamp (G_TA..G_TB, _reaches_due_lamp)
# graph arrays: per-node fields (what the hot path reads is in the state rows: S_KIND, S_LNK), then the links
# (target and flag side by side), dust lists and analog entries. A comparator's rear inputs are analog entries
# G_CA..G_CB-1, its side inputs G_CB..G_CE-1; G_CONT is the fill level of the container it reads (-1: none).
# G_TA..G_TB-1: the lamps (nodes) this node's switch may send a neighbour update to, entries after the analog
# ones: read only in a tick where a lamp's off tick is due (see _run_tick).
(G_NTYPE, G_CA, G_CB, G_CE, G_CONT, G_MODE, G_TA, G_TB) = range(8)
NG = 8
# wq[LAMPQ + slot]: lamp off ticks queued for that slot's game tick, or more: a slot is reset when its tick runs, so a
# tick skipped with nothing queued but lazy lamps leaves its count, and the slot's next tick checks its switches in vain
LAMPQ = 8 * WHEEL
# A link's flag: 1 input, 2 lock, and the power lost on the way (dust) from bit 4 up, which matters only
# when the source is a comparator (any other source emits 15 and reaches only where it arrives above 0).


class CompileRefused(Exception):
    """The world holds something the compiled engine cannot reproduce exactly; use the reference engine."""


# ----------------------------------------------------------------------------------------- kernels
# No kernel allocates, so reference counting is off (with it, every call paid atomic operations on its
# array arguments); the small ones are inlined into the loop that calls them.
_jit = njit(cache=True, _nrt=False)
_inline = njit(cache=True, _nrt=False, inline="always")


@_inline
def _views(G, S):
    n, nl = G[0], G[2]
    o = 16
    node = G[o : o + NG * n].reshape(n, NG)
    o += NG * n
    lk = G[o : o + 2 * nl]  # links in pairs: target, flag
    meta = S[:NMETA]
    st = S[NMETA : NMETA + N_PER_NODE * n].reshape(n, N_PER_NODE)
    o = NMETA + N_PER_NODE * n
    tog = S[o : o + 8 * n].reshape(n, 8)
    o += 8 * n
    wq = S[o : o + 9 * WHEEL]
    return node, lk, meta, st, tog, wq


@_inline
def _dust_views(G):
    n, nd, nl, ndl = G[0], G[1], G[2], G[3]
    o = 16 + NG * n + 2 * nl
    return G[o : o + nd + 1], G[o + nd + 1 : o + nd + 1 + ndl], G[o + nd + 1 + ndl : o + nd + 1 + 2 * ndl]


@_inline
def _analog_view(G):
    n, nd, nl, ndl, na = G[0], G[1], G[2], G[3], G[4]
    o = 16 + NG * n + 2 * nl + nd + 1 + 2 * ndl
    return G[o : o + na]


@_inline
def _schedule(st, wq, x, t, rank, seq):
    """Queue x's tick for game tick t at priority `rank` with scheduling number seq. 1 if queued, 0 if x
    already had a tick pending (the caller counts: seq and the pending count go up by what this returns)."""
    if st[x, S_PEND]:
        return 0
    st[x, S_PEND] = 1
    st[x, S_PTIME] = t
    st[x, S_PRANK] = rank
    st[x, S_PSEQ] = seq
    st[x, S_NXT] = -1
    q = (t & (WHEEL - 1)) * 8 + rank
    last = wq[q + 4]
    if last < 0:
        wq[q] = x
    else:
        st[last, S_NXT] = x
    wq[q + 4] = x
    return 1


@_inline
def _is_analog(b):
    return b == COMPARATOR or b == PLATE or b == LIGHT_PLATE or b == HEAVY_PLATE or b == DAYLIGHT


@_inline
def _level(node, st, s):
    """The signal node s (CONST: a redstone block) emits: 15 when on; a comparator, plate or daylight
    sensor its output."""
    if s < 0:
        return 15
    if _is_analog(node[s, G_NTYPE]):
        return st[s, S_POW]
    return 15 if st[s, S_ON] else 0


@_inline
def _strongest(node, st, alist, i0, i1):
    best = 0
    for i in range(i0, i1):
        a = alist[i]
        v = _level(node, st, (a >> A_SHIFT) - 1) - (a & ((1 << A_SHIFT) - 1))
        if v > best:
            best = v
    return best


@_jit
def _comparator_output(node, st, alist, x):
    """What comparator x computes now (kernels.comparator_output): rear, the container's level when it
    reads one and the rear gives less than 15, then compare or subtract the stronger side."""
    rear = _strongest(node, st, alist, node[x, G_CA], node[x, G_CB])
    if node[x, G_CONT] >= 0 and rear < 15:
        rear = node[x, G_CONT]
    if rear == 0:
        return 0
    side = _strongest(node, st, alist, node[x, G_CB], node[x, G_CE])
    if side > rear:
        return 0
    return rear - side if node[x, G_MODE] else rear


@_inline
def _lazy_lamp(st, wq, x, before, p, tick, seq, rlamp):
    """The check of lamp x fed by repeaters only (K_LAZY), its input having gone from `before` to `p`: its off
    tick (normal priority) runs after every repeater tick of its game tick, so it sees the input as it stood
    since the last change; it is settled here, at the next change, or when read (_settle_lamps), instead of
    being queued. Returns the next scheduling number (the off tick takes one, as a queued one would)."""
    if st[x, S_PEND] and st[x, S_PTIME] < tick:
        st[x, S_PEND] = 0
        if not before:
            st[x, S_ON] = 0
    if st[x, S_ON]:
        if not p and not st[x, S_PEND]:
            st[x, S_PEND] = 1
            st[x, S_PTIME] = tick + rlamp
            st[x, S_PRANK] = P_NORMAL
            st[x, S_PSEQ] = seq
            seq += 1
            wq[LAMPQ + ((tick + rlamp) & (WHEEL - 1))] += 1
    elif p:
        st[x, S_ON] = 1
    return seq


@_inline
def _changed(node, lk, alist, st, wq, c, analog, old, new, tick, seq, rlamp, rtorch):
    """Component c switched (its emitted signal went from `old` to `new`) at game tick `tick`: update the
    input and lock counts it feeds and check each component whose input or lock depends on it (and c
    itself), in the reference engine's neighbour-update order. A check reads only the checked component's
    own counts (a comparator: its inputs' signals), so each can follow its own update.
    The scheduling number and the pending count live in the caller's locals (the state array's meta slots
    share memory with every node's fields, so the compiler could keep them in no register): returns
    (next scheduling number, ticks queued). `analog`: c is a comparator, plate or daylight sensor (its signal
    is not just 0 or 15)."""
    queued = 0
    d = 1 if new > old else -1
    fold = st[c, S_KIND] & (K_FOLD_FIRST | K_FOLD_LAST)
    if fold:  # a repeater's folded lamp: its only input is c, so its count is c's state
        x = st[c, S_FOLD]
        st[x, S_CNT] = 1 if new > 0 else 0
        if fold & K_FOLD_FIRST:
            seq = _lazy_lamp(st, wq, x, old > 0, new > 0, tick, seq, rlamp)
    links = st[c, S_LNK]
    for i in range(2 * (links & 0xFFFFFFFF), 2 * (links >> 32), 2):
        x = lk[i]
        f = lk[i + 1]
        kind = st[x, S_KIND]
        b = kind & 255
        if b == COMPARATOR:
            if not st[x, S_PEND] and _comparator_output(node, st, alist, x) != st[x, S_POW]:
                k = _schedule(st, wq, x, tick + COMPARATOR_DELAY, P_HIGH if kind & K_PRIO else P_NORMAL, seq)
                seq += k
                queued += k
            continue
        cnt = st[x, S_CNT]
        before = cnt > 0
        if f & 1:
            if analog:
                w = f >> 4
                cnt += (1 if new > w else 0) - (1 if old > w else 0)
            else:
                cnt += d
            st[x, S_CNT] = cnt
        p = cnt > 0
        if b == REPEATER:
            if f & 2:  # S_LOCK is always S_LCNT > 0 (a compiled state that is not is refused)
                lc = st[x, S_LCNT] + (((1 if new > 0 else 0) - (1 if old > 0 else 0)) if analog else d)
                st[x, S_LCNT] = lc
                st[x, S_LOCK] = 1 if lc > 0 else 0
            if st[x, S_LCNT] == 0 and (st[x, S_ON] != 0) != p:
                if kind & K_PRIO:
                    rank = P_EXTREMELY_HIGH
                elif st[x, S_ON]:
                    rank = P_VERY_HIGH
                else:
                    rank = P_HIGH
                k = _schedule(st, wq, x, tick + ((kind >> K_DELAY) & 0xFFFF), rank, seq)
                seq += k
                queued += k
        elif b == LAMP:
            if kind & K_LAZY:
                seq = _lazy_lamp(st, wq, x, before, p, tick, seq, rlamp)
            elif st[x, S_ON]:
                if not p:
                    k = _schedule(st, wq, x, tick + rlamp, P_NORMAL, seq)
                    seq += k
                    queued += k
                    wq[LAMPQ + ((tick + rlamp) & (WHEEL - 1))] += k
            elif p:
                st[x, S_ON] = 1
        elif b == NOTE_BLOCK or b == IRON_DOOR or b == IRON_TRAPDOOR or b == FENCE_GATE:
            # powered (a door's, trapdoor's or gate's open with it) follows the input at the neighbour update
            st[x, S_ON] = 1 if p else 0
        elif (st[x, S_ON] != 0) == p:  # a torch
            k = _schedule(st, wq, x, tick + rtorch, P_NORMAL, seq)
            seq += k
            queued += k
    if fold & K_FOLD_LAST:
        seq = _lazy_lamp(st, wq, st[c, S_FOLD], old > 0, new > 0, tick, seq, rlamp)
    return seq, queued


@_inline
def _recent(tog, c, t):
    n = 0
    for i in range(BURNOUT_SLOTS):
        if t - tog[c, i] <= BURNOUT_WINDOW:
            n += 1
    return n


@_inline
def _tick_one(node, lk, alist, st, tog, wq, c, b, t, seq, rburnout, rlamp, rtorch):
    """Run the scheduled tick of component c (of kind b) at game tick t; returns (next scheduling number,
    ticks queued). (One call of _changed at the end, with the signal c switched from and to: each inlined
    copy of it costs compile time.)"""
    old = -1
    new = 0
    queued = 0
    later = 0  # a tick to schedule for c after its neighbour updates: delay, and rank
    later_rank = P_NORMAL
    if b == REPEATER:
        if st[c, S_LCNT] > 0:
            return seq, 0
        should = st[c, S_CNT] > 0
        if st[c, S_ON]:
            if not should:
                st[c, S_ON] = 0
                old, new = 15, 0
        else:
            st[c, S_ON] = 1
            old, new = 0, 15
            if not should:
                kind = st[c, S_KIND]
                if kind & K_SELF:
                    later, later_rank = (kind >> K_DELAY) & 0xFFFF, P_VERY_HIGH
                else:
                    # what its own neighbour update (the first of them) does: its input did not move
                    rank = P_EXTREMELY_HIGH if kind & K_PRIO else P_VERY_HIGH
                    k = _schedule(st, wq, c, t + ((kind >> K_DELAY) & 0xFFFF), rank, seq)
                    seq += k
                    queued += k
    elif b == LAMP:
        if st[c, S_ON] and st[c, S_CNT] == 0:
            st[c, S_ON] = 0
    elif b == TORCH or b == WALL_TORCH:
        powered = st[c, S_CNT] > 0
        if st[c, S_ON]:
            if powered:
                st[c, S_ON] = 0
                i = st[c, S_TOGI]
                tog[c, i] = t
                st[c, S_TOGI] = (i + 1) % BURNOUT_SLOTS
                old, new = 15, 0
                if _recent(tog, c, t) >= rburnout:
                    later = BURNOUT_RECHECK
        elif not powered:  # burnt-out torches with no input never get here (see _run_tick)
            st[c, S_ON] = 1
            old, new = 0, 15
    elif b == BUTTON:
        if st[c, S_ON]:
            st[c, S_ON] = 0
            old, new = 15, 0
    elif b == COMPARATOR:
        # it stores the new output and updates its neighbours; with the output unchanged, a compare-mode
        # comparator's update reaches only components that already agree with their inputs: nothing moves
        out = _comparator_output(node, st, alist, c)
        if out != st[c, S_POW]:
            old, new = st[c, S_POW], out
            st[c, S_POW] = out
            st[c, S_ON] = 1 if out > 0 else 0
    elif b == PLATE or b == LIGHT_PLATE or b == HEAVY_PLATE:
        if st[c, S_POW] > 0:  # kernels.plate_check at the re-check: the output its entities give now
            out = plate_output(b, st[c, S_ENT])
            if out > 0:
                later = PLATE_RECHECK if b == PLATE else WEIGHTED_RECHECK
            if out != st[c, S_POW]:
                old, new = st[c, S_POW], out
                st[c, S_POW] = out
                st[c, S_ON] = 1 if out > 0 else 0
            elif later:
                k = _schedule(st, wq, c, t + later, P_NORMAL, seq)
                seq += k
                queued += k
    if old >= 0:
        seq, k = _changed(node, lk, alist, st, wq, c, _is_analog(b), old, new, t, seq,
                          rlamp, rtorch)
        queued += k
        if later:
            k = _schedule(st, wq, c, t + later, later_rank, seq)
            seq += k
            queued += k
    return seq, queued


@_inline
def _reaches_due_lamp(node, alist, st, x, rank, t):
    """May the tick of x (priority `rank`), about to run in game tick t, send a neighbour update to a lit,
    unpowered lamp whose off tick is due in t and has not run? Vanilla's scheduleTick finds that tick gone from
    the tick containers, so such a lamp schedules a second one (kernels.check), which the graph cannot queue:
    the run stops before x and the reference engine takes it from there. A lamp settled lazily (K_LAZY) runs its
    off tick at its place among the normal-priority ticks."""
    for i in range(node[x, G_TA], node[x, G_TB]):
        y = alist[i]
        if st[y, S_PEND] and st[y, S_PTIME] == t and st[y, S_ON] and st[y, S_CNT] == 0:
            if not st[y, S_KIND] & K_LAZY or rank < P_NORMAL or st[x, S_PSEQ] < st[y, S_PSEQ]:
                return True
    return False


@_inline
def _run_tick(node, lk, alist, st, tog, wq, t, seq, npend, rburnout, rlamp, rtorch):
    """All scheduled ticks due at t, by priority then scheduling order: (False if it stopped before one,
    next scheduling number, ticks pending). No entry is queued for tick t while it runs (every delay is
    at least 1 and below WHEEL), so each queue is walked from its head and emptied at the end."""
    s8 = (t & (WHEEL - 1)) * 8
    lamps = wq[LAMPQ + (t & (WHEEL - 1))] > 0  # a lamp's off tick may be due now
    for q in range(s8, s8 + 4):
        x = wq[q]
        if x < 0:
            continue
        while x >= 0:
            b = st[x, S_KIND] & 255
            if (b == TORCH or b == WALL_TORCH) and not st[x, S_ON] and st[x, S_CNT] == 0:
                if _recent(tog, x, t) >= rburnout:
                    # burnt out, it stays dark with nothing pending, and from then on any update that
                    # reaches it matters, which the graph does not see: leave the rest to the reference
                    wq[q] = x
                    return False, seq, npend
            if lamps and st[x, S_KIND] & K_TOUCH and _reaches_due_lamp(node, alist, st, x, q - s8, t):
                wq[q] = x
                return False, seq, npend
            nxt = st[x, S_NXT]
            npend -= 1
            st[x, S_PEND] = 0
            seq, k = _tick_one(node, lk, alist, st, tog, wq, x, b, t, seq, rburnout, rlamp, rtorch)
            npend += k
            x = nxt
        wq[q] = -1
        wq[q + 4] = -1
    wq[LAMPQ + (t & (WHEEL - 1))] = 0
    return True, seq, npend


@_inline
def _due(wq, t):
    """Is anything queued in tick t's slot (a queue's head is -1 when it is empty)?"""
    s8 = (t & (WHEEL - 1)) * 8
    return (wq[s8] & wq[s8 + 1] & wq[s8 + 2] & wq[s8 + 3]) >= 0


@_inline
def _use(node, lk, alist, st, wq, c, tick, seq, rbutton, rlamp, rtorch):
    """Press button c or flip lever c at game tick `tick`: (next scheduling number, ticks queued)."""
    b = st[c, S_KIND] & 255
    queued = 0
    if b == BUTTON:
        if st[c, S_ON]:
            return seq, 0
        st[c, S_ON] = 1
        d = (st[c, S_KIND] >> K_DELAY) & 0xFFFF  # a wooden button's 30 gt, else the ruleset's button time
        k = _schedule(st, wq, c, tick + (d if d else rbutton), P_NORMAL, seq)
        seq += k
        queued += k
    elif b == LEVER:
        st[c, S_ON] = 0 if st[c, S_ON] else 1
    else:
        return seq, 0
    on = st[c, S_ON]
    seq, k = _changed(node, lk, alist, st, wq, c, False, 15 - 15 * on, 15 * on, tick, seq,
                      rlamp, rtorch)
    return seq, queued + k


@_jit
def k_step(G, S, until, act):
    """Press button (or flip lever) `act` at the end of the current tick unless act < 0, then advance to
    game tick `until`, skipping ticks with nothing due. Returns 1, or 0 when it stopped inside tick
    meta[M_TICK] before a scheduled tick it cannot take (that tick's remaining entries have not run)."""
    node, lk, meta, st, tog, wq = _views(G, S)
    alist = _analog_view(G)
    tick, seq, npend = meta[M_TICK], meta[M_SEQ], meta[M_NPEND]
    rburnout, rlamp, rtorch = meta[M_RBURNOUT], meta[M_RLAMP], meta[M_RTORCH]
    if act >= 0:
        seq, k = _use(node, lk, alist, st, wq, act, tick, seq, meta[M_RBUTTON], rlamp,
                      rtorch)
        npend += k
    ok = True
    while tick < until:
        if npend == 0:
            tick = until
            break
        t = tick + 1
        while t <= until and not _due(wq, t):
            t += 1
        if t > until:
            tick = until
            break
        tick = t
        ok, seq, npend = _run_tick(node, lk, alist, st, tog, wq, t, seq, npend, rburnout,
                                   rlamp, rtorch)
        if not ok:
            break
    meta[M_TICK] = tick
    meta[M_SEQ] = seq
    meta[M_NPEND] = npend
    if not ok:
        meta[M_STATUS] = 1
        return 0
    return 1


@_jit
def k_input(G, S, x, value):
    """An input set from outside, at the end of the current tick: the entities on plate x become `value`
    (an unpressed plate with entities is pressed at once: kernels.set_entities), or daylight sensor x's
    output becomes `value` (kernels.set_output)."""
    node, lk, meta, st, tog, wq = _views(G, S)
    alist = _analog_view(G)
    b = node[x, G_NTYPE]
    old = st[x, S_POW]
    new = old
    later = 0
    if b == DAYLIGHT:
        new = value
    else:
        st[x, S_ENT] = value
        if old == 0 and value > 0:
            new = plate_output(b, value)
            later = PLATE_RECHECK if b == PLATE else WEIGHTED_RECHECK
            st[x, S_ON] = 1
    tick, seq, npend = meta[M_TICK], meta[M_SEQ], meta[M_NPEND]
    if new != old:
        st[x, S_POW] = new
        seq, k = _changed(node, lk, alist, st, wq, x, True, old, new, tick, seq,
                          meta[M_RLAMP], meta[M_RTORCH])
        npend += k
    if later:
        k = _schedule(st, wq, x, tick + later, P_NORMAL, seq)
        seq += k
        npend += k
    meta[M_SEQ] = seq
    meta[M_NPEND] = npend


@_inline
def _dust_power(node, dptr, dnode, ddist, st, out):
    for d in range(dptr.shape[0] - 1):
        best = 0
        for i in range(dptr[d], dptr[d + 1]):
            v = _level(node, st, dnode[i]) - ddist[i]
            if v > best:
                best = v
        out[d] = best


@_jit
def k_dust_power(G, S, out):
    node, lk, meta, st, tog, wq = _views(G, S)
    dptr, dnode, ddist = _dust_views(G)
    _dust_power(node, dptr, dnode, ddist, st, out)


@_jit
def k_comparator_outputs(G, S, out):
    """out[i] = the output comparator node i computes from its inputs now (0 for other nodes)."""
    node, lk, meta, st, tog, wq = _views(G, S)
    alist = _analog_view(G)
    for x in range(out.shape[0]):
        out[x] = _comparator_output(node, st, alist, x) if node[x, G_NTYPE] == COMPARATOR else 0


@_inline
def _settle_lamps(node, st, upto):
    """Run the off ticks of lamps fed by repeaters only that fell due by game tick `upto`."""
    for x in range(st.shape[0]):
        if st[x, S_PEND] and st[x, S_KIND] & K_LAZY and st[x, S_PTIME] <= upto:
            st[x, S_PEND] = 0
            if st[x, S_CNT] == 0:
                st[x, S_ON] = 0


@_jit
def k_settle(G, S):
    """Bring the lamps settled lazily up to date (up to the tick before, after a stop inside a tick)."""
    node, lk, meta, st, tog, wq = _views(G, S)
    _settle_lamps(node, st, meta[M_TICK] - 1 if meta[M_STATUS] else meta[M_TICK])


@_jit
def k_record(G, S, rec_on, rec_pow, rec_out):
    """Fill row 0 of rec_on (node states), rec_pow (dust power) and rec_out (comparator outputs, when it
    has columns) with the state now and each further row with the state after one more game tick.
    Returns the rows filled (fewer if stopped, see k_step)."""
    node, lk, meta, st, tog, wq = _views(G, S)
    alist = _analog_view(G)
    dptr, dnode, ddist = _dust_views(G)
    n = rec_on.shape[1]
    for row in range(rec_on.shape[0]):
        if row:
            t = meta[M_TICK] + 1
            meta[M_TICK] = t
            if _due(wq, t):
                ok, seq, npend = _run_tick(node, lk, alist, st, tog, wq, t, meta[M_SEQ],
                                           meta[M_NPEND], meta[M_RBURNOUT], meta[M_RLAMP], meta[M_RTORCH])
                meta[M_SEQ] = seq
                meta[M_NPEND] = npend
                if not ok:
                    meta[M_STATUS] = 1
                    return row
        _settle_lamps(node, st, meta[M_TICK])
        for i in range(n):
            rec_on[row, i] = st[i, S_ON]
        for i in range(rec_out.shape[1]):
            rec_out[row, i] = st[i, S_POW]
        _dust_power(node, dptr, dnode, ddist, st, rec_pow[row])
    return rec_on.shape[0]


# ----------------------------------------------------------------------------------------- compiler
_OFF = B.OFFSETS
# The reference engine delivers neighbour updates to the cells within two steps in this order.
_NEAR_RANK = {tuple(d): i for i, d in enumerate(NEAR.tolist())}
_SIDES = ("north", "east", "south", "west")


def _add(p: Pos, k: int) -> Pos:
    o = _OFF[k]
    return (p[0] + o[0], p[1] + o[1], p[2] + o[2])


def _opp(k: int) -> int:
    return (k + 2) % 4 if k < 4 else 9 - k


class _Block:
    """A block's static properties and its state. `on`: lit or powered; a door's or trapdoor's open, a
    daylight sensor's inverted, a plate's pressed. `power`: dust's power; a door's or trapdoor's powered
    (0/1), a plate's or daylight sensor's output. `face`: a button's or lever's face, a door's or trapdoor's
    half (0 lower, bottom). `flag`: a hopper's enabled, a dropper's or dispenser's triggered."""

    __slots__ = ("id", "facing", "face", "delay", "sides", "on", "locked", "power", "sturdy", "mode", "flag", "analog",
                 "number")

    def __init__(self, state: str):
        name, props = split_state(state)
        self.analog = -1  # what a comparator reads from a vanilla block by its state (blocks.ANALOG_STATE)
        self.number = 0  # a vanilla block's state number
        if name not in B.PALETTE:  # a vanilla full or partial block: its engine id and sturdy faces
            self.id, self.sturdy, number = B.vanilla_kind(name, props)
            self.analog = int(B.ANALOG_OUTPUT[number])
            self.number = number
            self.facing = self.face = self.delay = self.power = 0
            self.sides = (0, 0, 0, 0)
            self.on = self.locked = self.flag = False
            self.mode = 0
            return
        b = self.id = B.PALETTE[name][0]
        self.mode = B.COMPARATOR_MODES.index(props["mode"]) if "mode" in props and b == B.COMPARATOR else 0
        self.facing = B.DIRECTIONS.index(props["facing"]) if "facing" in props else 0
        self.face = B.FACES.index(props["face"]) if "face" in props else int(props.get("half") in ("upper", "top"))
        self.delay = B.BUTTON_OF[name] if b == BUTTON else int(props.get("delay", 1))
        self.sides = tuple(B.WIRE_SIDES.index(props[s]) for s in _SIDES) if b == B.WIRE else (0, 0, 0, 0)
        self.on = props.get("lit", props.get("powered")) == "true"
        self.locked = props.get("locked") == "true"
        self.power = int(props.get("power", 0))
        self.flag = props.get("enabled", props.get("triggered")) == "true"
        if b in (IRON_DOOR, IRON_TRAPDOOR, FENCE_GATE):
            self.on, self.power = props.get("open") == "true", int(props.get("powered") == "true")
        elif b == PLATE:
            self.power = 15 if self.on else 0
        elif b in B.PLATES:
            self.on = self.power > 0
        elif b == DAYLIGHT:
            self.on = props.get("inverted") == "true"
        # whole faces (kernels.sturdy_faces): a hopper's top holds dust only (see _Structure.holds)
        full = (B.STONE, B.GLASS, LAMP, B.REDSTONE_BLOCK, B.TARGET, B.BARREL, NOTE_BLOCK, B.DROPPER, B.DISPENSER,
                B.FURNACE)
        if b in full:
            self.sturdy = 63
        elif b == IRON_TRAPDOOR:
            self.sturdy = 1 << _opp(self.facing) if self.on else 1 << (UP if self.face else DOWN)
        elif b == DAYLIGHT:
            self.sturdy = 1 << DOWN
        elif b == B.HOPPER:
            self.sturdy = 1 << UP
        else:
            self.sturdy = 0


class _Structure:
    """The world's blocks and the static relations the kernels derive from them."""

    def __init__(self, states: dict[Pos, str]):
        self.b = {p: _Block(s) for p, s in states.items()}

    def id(self, p: Pos) -> int:
        blk = self.b.get(p)
        return blk.id if blk is not None else B.AIR

    def conductor(self, p: Pos) -> bool:
        return self.id(p) in _CONDUCTORS

    def container(self, p: Pos) -> bool:
        """A container: one of blocks.CONTAINERS or a shulker box (a vanilla block with 27 slots)."""
        blk = self.b.get(p)
        return blk is not None and (blk.id in B.CONTAINERS or (blk.id == B.STONE and bool(B.BOX_STATE[blk.number])))

    def analog(self, p: Pos, levels: dict) -> int:
        """What a comparator reads from the block at p by itself (kernels.analog_level): a container's fill
        level, a vanilla block's output by its state, or -1."""
        if self.container(p):
            return levels.get(p, 0)
        blk = self.b.get(p)
        return blk.analog if blk is not None else -1

    def attachment(self, p: Pos) -> Pos | None:
        blk = self.b[p]
        if blk.id in (B.WIRE, REPEATER, TORCH, COMPARATOR, *B.PLATES) or (blk.id == IRON_DOOR and blk.face == 0):
            return _add(p, DOWN)
        if blk.id == WALL_TORCH:
            return _add(p, _opp(blk.facing))
        if blk.id in (BUTTON, LEVER):
            if blk.face == 0:
                return _add(p, DOWN)
            if blk.face == 2:
                return _add(p, UP)
            return _add(p, _opp(blk.facing))
        if blk.id == B.PARTIAL and B.NEED[blk.number]:  # a decorative block (blocks.DECORATIVE)
            return _add(p, (int(B.NEED[blk.number]) - 1) // 4)
        return None

    def strong_sources(self, n: Pos) -> set:
        """Components that strongly power the conductor at n."""
        out = set()
        for k in range(6):
            m = _add(n, k)
            blk = self.b.get(m)
            if blk is None:
                continue
            if blk.id in (REPEATER, COMPARATOR) and blk.facing == k:
                out.add(m)
            elif blk.id in (TORCH, WALL_TORCH) and k == DOWN:
                out.add(m)
            elif blk.id in (BUTTON, LEVER) and self.attachment(m) == n:
                out.add(m)
            elif blk.id in B.PLATES and k == UP:
                out.add(m)
        return out

    def holds(self, a: Pos, p: Pos) -> bool:
        """Does the block at a hold the block at p, which hangs from or stands on it (kernels.supports)?"""
        blk, held = self.b.get(a), self.b[p]
        face = B.OFFSETS.index((p[0] - a[0], p[1] - a[1], p[2] - a[2]))
        if blk is None:
            return False
        sf = blk.sturdy | (HOPPER_TOP if blk.id == B.HOPPER else 0)
        centre = centre_bits(blk.id, blk.facing, int(blk.on), sf, blk.number)
        if held.id == TORCH:
            return bool(centre & 1)
        if held.id in B.PLATES:  # a rigid top (a hopper's rim too) or one that covers its centre (a fence post)
            return bool((blk.sturdy >> face) & 1 or centre & 1)
        if held.id == B.PARTIAL:
            kind = (int(B.NEED[held.number]) - 1) % 4
            return bool(holds_need(kind, face, sf, centre, solid_bit(blk.id, blk.number), False))
        return bool((blk.sturdy >> face) & 1 and (blk.id != B.HOPPER or held.id == B.WIRE))

    def dust_sources(self, d: Pos) -> set:
        """What feeds the dust at d with 15 (components; CONST for a redstone block)."""
        out = set()
        for k in range(6):
            n = _add(d, k)
            blk = self.b.get(n)
            if blk is None or blk.id in (B.WIRE, B.GLASS):
                continue
            if blk.id in _CONDUCTORS:
                out |= self.strong_sources(n)
            elif blk.id == B.REDSTONE_BLOCK:
                out.add(CONST)
            elif blk.id in (REPEATER, COMPARATOR):
                if blk.facing == k:
                    out.add(n)
            elif blk.id == TORCH:
                if k != UP:
                    out.add(n)
            elif blk.id == WALL_TORCH:
                if k != blk.facing:
                    out.add(n)
            elif blk.id in (BUTTON, LEVER, *B.PLATES, DAYLIGHT):
                out.add(n)
        return out

    def reads_from(self, m: Pos, d: Pos, h: int) -> bool:
        n = _add(m, h)
        if n == d:
            return True
        if self.conductor(n):
            return _add(n, UP) == d and not self.conductor(_add(m, UP))
        return _add(n, DOWN) == d

    def dust_links(self, x: Pos) -> list[Pos]:
        """Dust that takes power from the dust at x (one less)."""
        out = []
        for j in range(12):
            y = _add(x, j // 3)
            if j % 3 == 1:
                y = _add(y, UP)
            elif j % 3 == 2:
                y = _add(y, DOWN)
            if self.id(y) == B.WIRE and self.reads_from(y, x, _opp(j // 3)):
                out.append(y)
        return out


def _merge(into: dict, more: dict) -> dict:
    """Union of {source: power lost on the way}, keeping the smaller loss (the stronger signal)."""
    for q, w in more.items():
        if w < into.get(q, 99):
            into[q] = w
    return into


def _signal_sources(s: _Structure, reach: dict, src: Pos, k: int) -> dict:
    """{source: power lost on the way} for the sources whose signal the block at src passes to the
    receiver at src - off[k] (kernels.signal_to with dust)."""
    blk = s.b.get(src)
    if blk is None:
        return {}
    b = blk.id
    if b in _CONDUCTORS:
        out = dict.fromkeys(s.strong_sources(src), 0)
        up = _add(src, UP)
        if s.id(up) == B.WIRE:
            _merge(out, reach[up])
        for k2 in range(4):
            n = _add(src, k2)
            if s.id(n) == B.WIRE and s.b[n].sides[_opp(k2)]:
                _merge(out, reach[n])
        return out
    if b == B.WIRE:
        if k == DOWN:
            return {}
        if k == UP or blk.sides[_opp(k)]:
            return dict(reach[src])
        return {}
    if b in (REPEATER, COMPARATOR):
        return {src: 0} if blk.facing == k else {}
    if b == TORCH:
        return {src: 0} if k != UP else {}
    if b == WALL_TORCH:
        return {src: 0} if k != blk.facing else {}
    if b in (BUTTON, LEVER, *B.PLATES, DAYLIGHT):
        return {src: 0}
    if b == B.REDSTONE_BLOCK:
        return {CONST: 0}
    return {}


def _side_sources(s: _Structure, reach: dict, n: Pos, k: int) -> dict:
    """What the block at n gives a comparator's side (k points from the comparator to n;
    kernels.side_signal): dust its power whatever its shape, a redstone block 15, a diode facing in."""
    blk = s.b.get(n)
    if blk is None:
        return {}
    if blk.id == B.WIRE:
        return dict(reach[n])
    if blk.id == B.REDSTONE_BLOCK:
        return {CONST: 0}
    if blk.id in (REPEATER, COMPARATOR) and blk.facing == k:
        return {n: 0}
    return {}


def _around(s: _Structure, reach: dict, p: Pos) -> dict:
    """{source: power lost on the way} for what reaches the block at p from its six sides (what lights a lamp
    there: kernels.lamp_powered)."""
    out: dict = {}
    for k in range(6):
        _merge(out, _signal_sources(s, reach, _add(p, k), k))
    return out


def _hopper_refusal(s: _Structure, reach: dict, p: Pos) -> str | None:
    if _around(s, reach, p):
        return "power can reach it (power locks a hopper), which the compiled graph does not follow"
    if not s.b[p].flag:
        return "it is disabled with nothing powering it (the next update enables it)"
    if any(s.container(_add(p, k)) for k in (UP, s.b[p].facing)):
        return "items can move between it and the container above it or in front of it (the graph keeps levels fixed)"
    return None


def _dispenser_refusal(s: _Structure, reach: dict, p: Pos) -> str | None:
    if _around(s, reach, p) or _around(s, reach, _add(p, UP)):
        return ("power can reach it, beside it or beside the block above (it would fire), which the compiled graph "
                "does not follow")
    if s.b[p].flag:
        return "it is triggered with nothing powering it (the next update resets it)"
    return None


def _trapdoor_refusal(s: _Structure, reach: dict, p: Pos) -> str | None:
    if any(q != CONST for q in _around(s, reach, p)):  # power can open or close it
        for k in range(6):
            q = _add(p, k)
            if q in s.b and s.attachment(q) == p:
                return f"{B.NAME_OF_ID[s.id(q)]} at {q} rests on it and would fall when power opens or closes it"
    return None


def _leaf_reading(s: _Structure, q: Pos) -> int:
    """What leaves count from the block at q (kernels.leaf_distance_at): 0 from a log, a leaves block's distance,
    else 7."""
    blk = s.b.get(q)
    if blk is None or blk.id not in (B.STONE, B.GLASS, B.PARTIAL):
        return 7
    if B.LOG[blk.number]:
        return 0
    return int(B.LEAF_DISTANCE[blk.number]) or 7


# What the graph does not compile, in one table: a block id and why it is refused, always (a reason) or where
# a test of the block in its surroundings gives a reason. A hopper, dropper or dispenser compiles as a container
# at a fixed level only where it cannot act (move items, be locked, fire); a trapdoor or fence gate where its
# moving cannot drop a block.
_NOT_COMPILED = {
    **dict.fromkeys((B.OBSERVER, B.PISTON, B.STICKY_PISTON, B.PISTON_HEAD, B.MOVING_PISTON),
                    "the compiled graph has no blocks that watch or move (observers, pistons)"),
    B.TEST_BLOCK: "a test block's powered and triggered flags are block-entity data the compiled graph does not keep",
    B.COMMAND_BLOCK: "a command block runs its command through the world, which the compiled graph cannot call",
    B.RAIL: "rails are not compiled: powered and activator rails pass power along their line, and a plain rail's "
            "shape follows its neighbours, which the compiled graph does not follow",
    B.COPPER_BULB: "a copper bulb toggles on each rising edge of its power, a memory the compiled graph has no node "
                   "for",
    B.HOPPER: _hopper_refusal, B.DROPPER: _dispenser_refusal, B.DISPENSER: _dispenser_refusal,
    IRON_TRAPDOOR: _trapdoor_refusal, FENCE_GATE: _trapdoor_refusal,  # a torch stands on a closed fence gate
}


def _line_aligned(a: np.ndarray) -> np.ndarray:
    """A copy of the int64 array `a` that starts on a 64-byte cache line. The state array's node rows (after 8
    meta slots) and its scheduler's slots then start on line boundaries too, with the fields the kernel reads on
    every event in one line, whatever address the allocator gave; so do the graph's node rows (after a 16-slot
    header)."""
    buf = np.empty(a.size + 8, np.int64)
    k = (-buf.ctypes.data % 64) // 8
    out = buf[k : k + a.size]
    out[:] = a
    return out


class CompiledWorld:
    """A world compiled into a component graph (see the module docstring). Build with `compile_world`."""

    def __init__(self, states: dict[Pos, str], tick: int, pending, toggles, seq: int, rules: Ruleset = VANILLA,
                 levels: dict[Pos, int] | None = None, entities: dict[Pos, int] | None = None, day_offset: int = 0):
        """`levels`: each comparator's output strength, each container's fill level, each plate's and daylight
        sensor's output (block-entity data; 0, or what the state says, if left out). `entities`: the entities
        on each plate (0 if left out). `day_offset`: the day time minus the game tick (World.time_of_day)."""
        self.rules = rules
        self.day_offset = day_offset
        levels = levels or {}
        entities = entities or {}
        s = _Structure(states)
        for p, blk in s.b.items():
            why = _NOT_COMPILED.get(blk.id)
            if isinstance(why, str):
                raise CompileRefused(f"{B.NAME_OF_ID[blk.id]} at {p}: {why}")
            trip = int(B.TRIP[blk.number]) if blk.id == B.PARTIAL else 0
            if trip & B.T_STRING or trip & (B.T_ATTACHED | B.T_POWERED):  # docs/redstone.md section 88
                raise CompileRefused(f"{split_state(states[p])[0]} at {p}: tripwire and strung hooks switch by what "
                                     "enters the string and by their own scheduled ticks, which the compiled graph "
                                     "has no node for")
        comps = sorted(p for p, blk in s.b.items() if blk.id in _COMPONENTS)
        for p, blk in s.b.items():
            a = s.attachment(p)
            if a is not None and not s.holds(a, p):
                raise CompileRefused(f"{B.NAME_OF_ID[blk.id]} at {p} has no support and would pop off")
            if blk.id == IRON_DOOR:  # the other half (vanilla: a half without one falls at its next shape update)
                o = s.b.get(_add(p, DOWN if blk.face else UP))
                if o is None or o.id != IRON_DOOR or o.face == blk.face:
                    raise CompileRefused(f"iron_door at {p} has no other half and would fall at the next change there")
                if (o.on, o.power) != (blk.on, blk.power):
                    raise CompileRefused(f"the two halves of the iron_door at {p} disagree on open or powered")
            bed = int(B.BED[blk.number]) if blk.id == B.PARTIAL else 0
            if bed:  # the other half (vanilla: a half without one goes at its next shape update from there)
                o = s.b.get(_add(p, bed & 3))
                ob = int(B.BED[o.number]) if o is not None and o.id == B.PARTIAL else 0
                if not ob or ob >> 4 != bed >> 4 or not (ob ^ bed) & B.B_HEAD:
                    raise CompileRefused(f"{split_state(states[p])[0]} at {p} has no other half and would go at the "
                                         "next change there")
            if blk.id == B.GLASS and B.LEAF_DISTANCE[blk.number]:
                d = min(7, 1 + min(_leaf_reading(s, _add(p, k)) for k in range(6)))
                if d != B.LEAF_DISTANCE[blk.number]:
                    raise CompileRefused(f"leaves at {p} say distance={B.LEAF_DISTANCE[blk.number]} but the blocks "
                                         f"around give {d} (the next shape update beside them changes it)")
            if blk.id == NOTE_BLOCK:  # its instrument is worked out again at every shape update from below
                below = states.get(_add(p, DOWN), "air")
                given = B.INSTRUMENTS.index(split_state(states[p])[1].get("instrument", "harp"))
                if s.id(_add(p, DOWN)) in (*_COMPONENTS, B.WIRE) and given != B.instrument_under(below):
                    raise CompileRefused(f"note_block at {p} says instrument={B.INSTRUMENTS[given]} but the "
                                         f"{split_state(below)[0]} below it gives "
                                         f"{B.INSTRUMENTS[B.instrument_under(below)]}, and changes state")
            if blk.id in (IRON_DOOR, IRON_TRAPDOOR, FENCE_GATE) and blk.on != bool(blk.power):
                raise CompileRefused(f"{B.NAME_OF_ID[blk.id]} at {p} is {'open' if blk.on else 'closed'} but "
                                     f"{'' if blk.power else 'not '}powered (the graph moves them together)")
        n = len(comps)
        dust = sorted(p for p, blk in s.b.items() if blk.id == B.WIRE)
        # dust reach: for every source, the dust within the ruleset's reach (14 links in vanilla) of the dust
        # it feeds, at the least distance
        feeds: dict = {}
        for d in dust:
            for src in s.dust_sources(d):
                feeds.setdefault(src, []).append(d)
        links = {d: s.dust_links(d) for d in dust}
        dist: dict[Pos, dict] = {d: {} for d in dust}
        for src, seeds in feeds.items():
            seen = {d: 0 for d in seeds}
            frontier = list(seeds)
            for depth in range(1, rules.dust_reach + 1):
                nxt = []
                for x in frontier:
                    for y in links[x]:
                        if y not in seen:
                            seen[y] = depth
                            nxt.append(y)
                frontier = nxt
            for d, v in seen.items():
                dist[d][src] = v
        # {source: power lost on the way} per dust
        reach = {d: {q: v * rules.dust_decay for q, v in dist[d].items()} for d in dust}
        for p, blk in s.b.items():
            why = _NOT_COMPILED.get(blk.id)
            if why is not None and (why := why(s, reach, p)) is not None:
                raise CompileRefused(f"{B.NAME_OF_ID[blk.id]} at {p}: {why}")
            bell = int(B.BELL[blk.number]) if blk.id == B.PARTIAL else 0
            if bell and (_around(s, reach, p) or bell & B.B_POWERED):  # docs/redstone.md section 99
                raise CompileRefused(f"{split_state(states[p])[0]} at {p}: power can reach it or it says powered, and "
                                     "a bell's powered follows its power (a rising edge rings it), which the compiled "
                                     "graph has no node for")
        # inputs and locks
        inputs: dict[Pos, dict] = {}
        locks: dict[Pos, set] = {}
        analog: dict[Pos, tuple] = {}  # a comparator's (rear sources, side sources, container level or -1)
        for p in comps:
            blk = s.b[p]
            if blk.id in (LAMP, NOTE_BLOCK, IRON_TRAPDOOR, FENCE_GATE):
                inputs[p] = _around(s, reach, p)
            elif blk.id == IRON_DOOR:  # powered when either half receives a signal
                inputs[p] = _merge(_around(s, reach, p), _around(s, reach, _add(p, DOWN if blk.face else UP)))
            elif blk.id in (TORCH, WALL_TORCH):
                k = DOWN if blk.id == TORCH else _opp(blk.facing)
                inputs[p] = _signal_sources(s, reach, s.attachment(p), k)
            elif blk.id == REPEATER:
                f = blk.facing
                behind = _add(p, f)
                inputs[p] = dict(reach[behind]) if s.id(behind) == B.WIRE else _signal_sources(s, reach, behind, f)
                locks[p] = set()
                for side in ((f + 1) % 4, (f + 3) % 4) if rules.repeater_lockable else ():
                    q = _add(p, side)
                    if s.id(q) in (REPEATER, COMPARATOR) and s.b[q].facing == side:  # vanilla isLocked: diodes
                        locks[p].add(q)
            elif blk.id == COMPARATOR:
                f = blk.facing
                behind = _add(p, f)
                cont = s.analog(behind, levels)
                if cont >= 0:
                    rear: dict = {}
                else:
                    rear = dict(reach[behind]) if s.id(behind) == B.WIRE else _signal_sources(s, reach, behind, f)
                    if s.conductor(behind):
                        cont = s.analog(_add(behind, f), levels)
                side: dict = {}
                for k in ((f + 1) % 4, (f + 3) % 4):
                    _merge(side, _side_sources(s, reach, _add(p, k), k))
                analog[p] = (rear, side, cont)
                inputs[p] = _merge(dict(rear), side)
        checks: dict[Pos, set] = {p: set() for p in comps}
        for p, srcs in inputs.items():
            for q in srcs:
                if q != CONST:
                    checks[q].add(p)
        for p, srcs in locks.items():
            for q in srcs:
                checks[q].add(p)
        prio = {p: self._prioritized(s, p) for p in comps if s.b[p].id in (REPEATER, COMPARATOR)}

        def slots(x: Pos) -> set:
            """(delay, priority) of the scheduled ticks a check of x can make."""
            xb = s.b[x]
            if xb.id == REPEATER:
                ranks = (P_EXTREMELY_HIGH,) if prio[x] else (P_VERY_HIGH, P_HIGH)
                return {(rules.repeater_step * xb.delay, r) for r in ranks}
            if xb.id == COMPARATOR:
                return {(COMPARATOR_DELAY, P_HIGH if prio[x] else P_NORMAL)}
            if xb.id in (TORCH, WALL_TORCH):
                return {(rules.torch_delay, P_NORMAL)}
            return set()  # a lamp's tick changes nothing else; a note block has none

        # check order: the components within two steps in the engine's neighbour order (the switching
        # component itself first), then those reached through dust. The reference orders the latter by
        # which dust changed power, which the graph does not track; the order can only matter between
        # components that may be scheduled for the same tick and priority (two torches, two repeaters of
        # one delay, a comparator and a torch of the same delay...) and whose downstream cones meet.
        cone_cache: dict[Pos, set] = {}

        def cone(x: Pos) -> set:
            if x not in cone_cache:
                seen, todo = {x}, [x]
                while todo:
                    for q in checks[todo.pop()]:
                        if q not in seen:
                            seen.add(q)
                            todo.append(q)
                cone_cache[x] = seen
            return cone_cache[x]

        order: dict[Pos, list] = {}
        for c in comps:
            cb = s.b[c]
            near, far = [], []
            for x in checks[c]:
                dlt = (x[0] - c[0], x[1] - c[1], x[2] - c[2])
                (near if dlt in _NEAR_RANK else far).append(x)
            # A component's update of itself (first in the order) can only act when its own output is
            # among its inputs: otherwise a torch is consistent after switching, and a repeater that
            # switched on with no input is scheduled off by _tick_one in the same place in the order.
            near.sort(key=lambda x, c=c: _NEAR_RANK[(x[0] - c[0], x[1] - c[1], x[2] - c[2])])
            members = [(x, slots(x)) for x in sorted(far)]
            for i, (x, sx) in enumerate(members):
                for y, sy in members[i + 1 :]:
                    if sx & sy and cone(x) & cone(y):
                        raise CompileRefused(
                            f"{B.NAME_OF_ID[cb.id]} at {c} reaches {B.NAME_OF_ID[s.b[x].id]} at {x} and "
                            f"{B.NAME_OF_ID[s.b[y].id]} at {y} only through dust, with the same delay and meeting "
                            "downstream: their order depends on which dust changes power"
                        )
            order[c] = near + sorted(far)
        # Lamps with the same inputs and the same state behave alike (a lamp's tick changes nothing
        # else), so each such group is one node.
        pend_of = {p: (due, rank) for due, rank, _, p in pending}
        rep: dict[Pos, Pos] = {}
        groups: dict = {}
        for p in comps:
            if s.b[p].id == LAMP:
                rep[p] = groups.setdefault((frozenset(inputs[p].items()), s.b[p].on, pend_of.get(p)), p)
            elif s.b[p].id == IRON_DOOR and s.b[p].face:  # a door's two halves are one node, the lower half's
                rep[p] = _add(p, DOWN)
        nodes = [p for p in comps if rep.get(p, p) == p]
        self.positions = nodes
        self.index = {p: i for i, p in enumerate(nodes)}
        self.node_of = {p: self.index[rep.get(p, p)] for p in comps}
        self.members: list[list[Pos]] = [[] for _ in nodes]
        for p in comps:
            self.members[self.node_of[p]].append(p)
        self.kinds = np.array([s.b[p].id for p in nodes], np.int64)
        self.dust_positions = dust
        self.n, self.nd = n, nd = len(nodes), len(dust)
        node = np.zeros((n, NG), np.int64)
        node[:, G_NTYPE] = self.kinds
        node[:, G_CONT] = -1
        alist: list[int] = []

        def entries(srcs: dict) -> list[int]:
            return [(1 + (CONST if q == CONST else self.node_of[q])) << A_SHIFT | w for q, w in srcs.items()]

        kind = self.kinds.copy()  # S_KIND
        for i, p in enumerate(nodes):
            blk = s.b[p]
            if blk.id == REPEATER:
                kind[i] |= rules.repeater_step * blk.delay << K_DELAY | K_PRIO * prio[p]
            elif blk.id == BUTTON and blk.delay >= B.WOODEN_BUTTON:
                kind[i] |= B.WOOD_BUTTON_TICKS << K_DELAY
            elif blk.id == LAMP:
                kind[i] |= K_LAZY * all(q != CONST and s.b[q].id == REPEATER for q in inputs[p])
            elif blk.id == COMPARATOR:
                rear, side, cont = analog[p]
                kind[i] |= K_PRIO * prio[p]
                node[i, G_CA] = len(alist)
                alist += entries(rear)
                node[i, G_CB] = len(alist)
                alist += entries(side)
                node[i, G_CE] = len(alist)
                node[i, G_CONT] = cont
                node[i, G_MODE] = blk.mode
            if p in inputs.get(p, ()) or p in locks.get(p, ()):
                kind[i] |= K_SELF
        self._lazy = (kind & K_LAZY) != 0
        # The lamps each ticking component's switch may send a neighbour update to, a superset of the reference's
        # (kernels.piston_reached): a repeater or comparator the block in front and its neighbours, a button its
        # neighbours and those of its support, a torch or plate what is within two steps; through dust it may
        # change, what is within two steps of that dust; through a note block it flips, its neighbours. A lamp
        # that has the switching component for a 0-or-15 input is left out: while that lamp is unpowered the
        # component is off, and its switch powers the lamp.
        lamps = {p for p in comps if s.b[p].id == LAMP}
        one = [(0, 0, 0), *map(tuple, _OFF)]

        def lamps_near(q: Pos | None, offsets) -> set:
            if q is None:
                return set()
            return {(q[0] + a, q[1] + b, q[2] + c) for a, b, c in offsets} & lamps

        touch: dict[Pos, set] = {}
        for p in comps if lamps else ():
            blk = s.b[p]
            if blk.id in (REPEATER, COMPARATOR):
                touch[p] = lamps_near(_add(p, _opp(blk.facing)), one)
            elif blk.id == BUTTON:
                touch[p] = lamps_near(p, one) | lamps_near(s.attachment(p), one)
            elif blk.id in (TORCH, WALL_TORCH, *B.PLATES):
                touch[p] = lamps_near(p, _NEAR_RANK)
        for d in dust if touch else ():
            near = lamps_near(d, _NEAR_RANK)
            for q in dist[d] if near else ():
                if q in touch:
                    touch[q] |= near
        for o in comps if touch else ():
            if s.b[o].id == NOTE_BLOCK and (near := lamps_near(o, one)):
                for q in inputs[o]:
                    if q in touch:
                        touch[q] |= near
        for i, p in enumerate(nodes):
            node[i, G_TA] = len(alist)
            analog_source = s.b[p].id in _ANALOG
            alist += sorted({self.node_of[x] for x in touch.get(p, ()) if analog_source or p not in inputs[x]})
            node[i, G_TB] = len(alist)
            if node[i, G_TB] > node[i, G_TA]:
                kind[i] |= K_TOUCH
        lk: list[int] = []  # pairs: target, flag
        first = np.zeros(n, np.int64)
        fold = np.zeros(n, np.int64)  # S_FOLD
        for i, c in enumerate(nodes):
            first[i] = len(lk) // 2
            seen = set()
            out: list[tuple[int, int]] = []
            for x in order.get(c, ()):
                j = self.node_of[x]
                if j not in seen:
                    seen.add(j)
                    w = inputs.get(x, {}).get(c)
                    out.append((j, (w is not None) | (2 * (c in locks.get(x, ()))) | (w or 0) << 4))
            # A repeater's check of a lamp fed by it alone is made by _changed without a link (one link fewer
            # per switch), in the same place in the order, so only the first or last link is folded: the
            # scheduling numbers its off tick takes stay those the reference gives it.
            if s.b[c].id == REPEATER:
                for at, flag in ((0, K_FOLD_FIRST), (len(out) - 1, K_FOLD_LAST)):
                    if out and kind[j := out[at][0]] & K_LAZY and len(inputs[nodes[j]]) == 1:
                        del out[at]
                        kind[i] |= flag
                        fold[i] = j
                        break
            for j, f in out:
                lk += (j, f)
        ends = np.append(first[1:], len(lk) // 2)
        dptr = np.zeros(nd + 1, np.int64)
        dnode: list[int] = []
        ddist: list[int] = []
        for j, d in enumerate(dust):
            for src, v in dist[d].items():
                dnode.append(CONST if src == CONST else self.node_of[src])
                ddist.append(v * rules.dust_decay)  # the power lost on the way
            dptr[j + 1] = len(dnode)
        header = np.zeros(16, np.int64)
        header[:5] = (n, nd, len(lk) // 2, len(dnode), len(alist))
        self.G = _line_aligned(np.concatenate(
            [header, node.ravel(), np.array(lk, np.int64), dptr, np.array(dnode, np.int64), np.array(ddist, np.int64),
             np.array(alist, np.int64)]
        ))
        self.S = _line_aligned(np.zeros(NMETA + N_PER_NODE * n + 8 * n + 9 * WHEEL, np.int64))
        st = self._views()[1]
        st[:, S_KIND] = kind
        st[:, S_LNK] = first | ends << 32
        st[:, S_FOLD] = fold
        self._inputs = {self.index[p]: [(CONST if q == CONST else self.node_of[q], w) for q, w in v.items()]
                        for p, v in inputs.items() if p in self.index and p not in analog}
        self._locks = {self.index[p]: [self.node_of[q] for q in v] for p, v in locks.items()}
        pending = [e for e in pending if self.node_of.get(e[3], -1) < 0 or e[3] in self.index]
        self._load(s, tick, pending, toggles, seq, levels, entities)
        self.buttons = {p: i for i, p in enumerate(nodes) if s.b[p].id in (BUTTON, LEVER)}
        self.plates = {p: i for i, p in enumerate(nodes) if s.b[p].id in B.PLATES}
        # daylight sensors in x, y, z order, the order the reference engine updates them in
        self.sensors = {p: i for i, p in enumerate(nodes) if s.b[p].id == DAYLIGHT}
        self._on = self._views()[1][:, S_ON]

    @staticmethod
    def _prioritized(s: _Structure, p: Pos) -> bool:
        """kernels.diode_prioritized: a diode facing into another diode that does not face back."""
        out = _opp(s.b[p].facing)
        front = _add(p, out)
        return s.id(front) in (REPEATER, COMPARATOR) and s.b[front].facing != out

    def _views(self):
        n = self.n
        meta = self.S[:NMETA]
        st = self.S[NMETA : NMETA + N_PER_NODE * n].reshape(n, N_PER_NODE)
        o = NMETA + N_PER_NODE * n
        tog = self.S[o : o + 8 * n].reshape(n, 8)
        o += 8 * n
        wq = self.S[o : o + 9 * WHEEL]  # per slot: the head of each priority's queue, then its tail; lamp counts
        return meta, st, tog, wq

    def _load(self, s: _Structure, tick: int, pending, toggles, seq: int, levels: dict, entities: dict) -> None:
        """Dynamic state from the world: on/locked states, pending ticks, torch toggle history. The
        state must be one the reference engine could continue from without a stray update mattering."""
        meta, st, tog, wq = self._views()
        meta[M_TICK], meta[M_SEQ] = tick, seq
        r = self.rules
        meta[M_RBUTTON], meta[M_RTORCH], meta[M_RLAMP], meta[M_RBURNOUT] = (
            r.button_ticks, r.torch_delay, r.lamp_off_delay, r.burnout_count)
        wq[:LAMPQ] = -1
        wq[LAMPQ:] = 0
        tog[:] = -(10**9)
        for i, p in enumerate(self.positions):
            st[i, S_ON] = s.b[p].on
            st[i, S_LOCK] = s.b[p].locked
            if self.kinds[i] in _ANALOG:
                st[i, S_POW] = levels.get(p, s.b[p].power)
            if self.kinds[i] in B.PLATES:
                st[i, S_ON] = st[i, S_POW] > 0
                st[i, S_ENT] = entities.get(p, 0)
        for p, (times, k) in toggles.items():
            if p in self.index:
                tog[self.index[p]] = times
                st[self.index[p], S_TOGI] = k
        for due, rank, sq, p in sorted(pending):
            i = self.index.get(p)
            if i is None:
                raise CompileRefused(f"a tick is pending at {p}, which holds no component")
            if st[i, S_PEND]:
                raise CompileRefused(f"two ticks are pending for the block at {p}")
            if not 0 < due - tick < WHEEL:
                raise CompileRefused(f"the tick pending at {p} is due at {due}, outside the scheduler's window")
            st[i, S_PEND], st[i, S_PTIME], st[i, S_PRANK], st[i, S_PSEQ], st[i, S_NXT] = 1, due, rank, sq, -1
            if self.kinds[i] == LAMP:
                wq[LAMPQ + (due & (WHEEL - 1))] += 1
            if self._lazy[i]:
                continue  # settled by _changed or k_settle, never queued
            q = (due & (WHEEL - 1)) * 8 + rank
            if wq[q + 4] < 0:
                wq[q] = i
            else:
                st[wq[q + 4], S_NXT] = i
            wq[q + 4] = i
            meta[M_NPEND] += 1
        on = st[:, S_ON]

        def level(q: int) -> int:
            return 15 if q == CONST else int(st[q, S_POW]) if self.kinds[q] in _ANALOG else 15 * int(on[q])

        for i, srcs in self._inputs.items():
            st[i, S_CNT] = sum(1 for q, w in srcs if level(q) > w)
        for i, srcs in self._locks.items():
            st[i, S_LCNT] = sum(1 for q in srcs if on[q])
        power = self.dust_power()
        for j, d in enumerate(self.dust_positions):
            if power[j] != s.b[d].power:
                raise CompileRefused(f"dust at {d} has power {s.b[d].power}, its sources give {power[j]}")
        computed = self.comparator_outputs()
        for i, p in enumerate(self.positions):
            b, x, pend, inp = s.b[p].id, bool(on[i]), bool(st[i, S_PEND]), bool(st[i, S_CNT] > 0)
            name = B.NAME_OF_ID[b]
            if b == REPEATER:
                if bool(st[i, S_LOCK]) != bool(st[i, S_LCNT] > 0):
                    raise CompileRefused(f"repeater at {p} has a lock state its neighbours contradict")
                if not st[i, S_LOCK] and x != inp and not pend:
                    raise CompileRefused(f"repeater at {p} disagrees with its input and has no tick pending")
            elif b in (TORCH, WALL_TORCH, LAMP) and (x == inp if b != LAMP else x != inp) and not pend:
                raise CompileRefused(f"{name} at {p} disagrees with its input and has no tick pending")
            elif b == BUTTON and x and not pend:
                raise CompileRefused(f"button at {p} is pressed with no release pending")
            elif b in (NOTE_BLOCK, IRON_DOOR, IRON_TRAPDOOR, FENCE_GATE) and x != inp:
                raise CompileRefused(f"{name} at {p} disagrees with its input (it waits for a neighbour update)")
            elif b == COMPARATOR:
                if x != (st[i, S_POW] > 0):
                    raise CompileRefused(f"comparator at {p} is {'' if x else 'not '}powered with output "
                                         f"{st[i, S_POW]}")
                if computed[i] != st[i, S_POW] and not pend:
                    raise CompileRefused(f"comparator at {p} holds output {st[i, S_POW]}, its inputs give "
                                         f"{computed[i]}, and it has no tick pending")

    # ------------------------------------------------------------------------------ running
    @property
    def tick(self) -> int:
        return int(self.S[M_TICK])

    @property
    def stopped(self) -> bool:
        """True once the graph stopped before a tick it cannot take (continue on the reference engine)."""
        return bool(self.S[M_STATUS])

    def use(self, pos: Pos) -> bool | None:
        """Press a button, flip a lever, or toggle a daylight sensor's `inverted` (its output is worked out
        at once); None if pos holds none of these (the graph cannot do that action). The position is
        checked as the reference engine checks it (world.check_pos)."""
        from scicraft_viz.engine.world import check_pos

        p = check_pos(pos)
        i = self.buttons.get(p)
        if i is None:
            i = self.sensors.get(p)
            if i is None:
                return None
            k_settle(self.G, self.S)
            st = self._views()[1]
            st[i, S_ON] = 1 - st[i, S_ON]
            k_input(self.G, self.S, i, self._daylight(self.tick, int(st[i, S_ON])))
            return True
        if self.kinds[i] == BUTTON and self._on[i]:
            return False
        k_step(self.G, self.S, self.tick, i)
        return True

    def set_entities(self, pos: Pos, n: int) -> None:
        """World.set_entities on the graph: the entities on the plate at pos become n (at most 255 kept)."""
        from scicraft_viz.engine.world import check_pos

        p = check_pos(pos)
        if p not in self.plates:
            raise InputError(f"set_entities: {p} holds no pressure plate of this compiled graph")
        if not isinstance(n, Integral) or isinstance(n, bool) or n < 0:
            raise InputError(
                f"set_entities at {p}: the number of entities must be a non-negative integer, got {n!r}"[:200])
        k_input(self.G, self.S, self.plates[p], min(int(n), 255))

    def set_time_of_day(self, t: int) -> None:
        """World.set_time_of_day on the graph: the day time is t now; sensors see it at their next update."""
        if not isinstance(t, Integral) or isinstance(t, bool) or not 0 <= t <= 2**62:
            raise InputError(f"set_time_of_day: the day time must be a non-negative integer, got {t!r}"[:200])
        self.day_offset = int(t) - self.tick

    def _daylight(self, tick: int, inverted: int) -> int:
        from scicraft_viz.engine.daylight import sensor_output

        return sensor_output(tick + self.day_offset, inverted)

    def _update_daylight(self, tick: int) -> None:
        """The daylight sensors' update at game tick `tick` (a multiple of 20), after its scheduled ticks."""
        st = self._views()[1]
        for i in self.sensors.values():
            out = self._daylight(tick, int(st[i, S_ON]))
            if out != st[i, S_POW]:
                k_input(self.G, self.S, i, out)

    def advance(self, G, S, until: int, act: int) -> int:
        """k_step (the same arguments: the World's fast path calls either) with the daylight sensors'
        updates: with sensors, the run stops at each multiple of 20 game ticks for them, as the reference
        engine's does."""
        if not self.sensors:
            return k_step(G, S, until, act)
        while True:
            t = int(S[M_TICK])
            stop = min(until, (t // 20 + 1) * 20)
            if not k_step(G, S, stop, act):
                return 0
            act = -1
            if stop > t and stop % 20 == 0:
                self._update_daylight(stop)
            if stop >= until:
                return 1

    def step(self, n: int) -> bool:
        """Advance n game ticks; False if it stopped early (see `stopped`)."""
        if self.S[M_STATUS]:
            return False
        return bool(self.advance(self.G, self.S, self.tick + n, -1))

    def record(self, n: int, outputs: bool = False) -> tuple[np.ndarray, ...]:
        """Component states (n+1, components) and dust power (n+1, dust) for this tick and the next n;
        fewer rows if it stopped early. With `outputs`, also each node's output strength (n+1,
        components; a comparator's, plate's or daylight sensor's, 0 for the rest)."""
        on = np.zeros((n + 1, self.n), np.uint8)
        pw = np.zeros((n + 1, self.nd), np.uint8)
        out = np.zeros((n + 1, self.n if outputs else 0), np.uint8)
        if self.S[M_STATUS]:
            rows = 0
        elif not self.sensors:
            rows = k_record(self.G, self.S, on, pw, out)
        else:  # in runs up to each multiple of 20, whose row shows the sensors' update
            r, end = 0, self.tick + n
            while True:
                t = self.tick
                stop = min(end, (t // 20 + 1) * 20)
                m = stop - t
                got = k_record(self.G, self.S, on[r : r + m + 1], pw[r : r + m + 1], out[r : r + m + 1])
                if got < m + 1:
                    rows = r + got
                    break
                if m and stop % 20 == 0:
                    self._update_daylight(stop)
                    k_record(self.G, self.S, on[r + m : r + m + 1], pw[r + m : r + m + 1], out[r + m : r + m + 1])
                r += m
                if stop == end:
                    rows = n + 1
                    break
        return (on[:rows], pw[:rows], out[:rows]) if outputs else (on[:rows], pw[:rows])

    def on_states(self) -> np.ndarray:
        k_settle(self.G, self.S)
        return self._views()[1][:, S_ON].astype(bool)

    def locked_states(self) -> np.ndarray:
        return self._views()[1][:, S_LOCK].astype(bool)

    def dust_power(self) -> np.ndarray:
        out = np.zeros(self.nd, np.int64)
        k_dust_power(self.G, self.S, out)
        return out

    def output_signals(self) -> np.ndarray:
        """Each node's output strength: a comparator's OutputSignal, a plate's or daylight sensor's output,
        0 for other nodes."""
        return self._views()[1][:, S_POW].copy()

    def comparator_outputs(self) -> np.ndarray:
        """The output each comparator node computes from its inputs now (0 for other nodes)."""
        out = np.zeros(self.n, np.int64)
        k_comparator_outputs(self.G, self.S, out)
        return out

    def pending(self) -> list[tuple[int, int, int, Pos]]:
        """Pending ticks as (due tick, priority rank, scheduling number, position)."""
        k_settle(self.G, self.S)
        meta, st, tog, wq = self._views()
        return [
            (int(st[i, S_PTIME]), int(st[i, S_PRANK]), int(st[i, S_PSEQ]), self.positions[i])
            for i in np.nonzero(st[:, S_PEND])[0]
        ]


def compile_world(world) -> CompiledWorld:
    """Compile a World's current blocks and dynamic state. Raises CompileRefused with the reason when
    the graph could not follow the reference engine exactly."""
    n = len(getattr(world, "_entities", ()))
    if n:
        raise CompileRefused(f"the world holds {n} item entities: their physics, the hoppers that take them and the "
                             "plates they press run in the reference engine only")
    carts = getattr(world, "_carts", ())
    if carts:
        raise CompileRefused(f"the world holds {len(carts)} minecarts ({carts[0].kind} at "
                             f"{tuple(round(v, 3) for v in carts[0].pos)}): their movement and the detector rails "
                             "they press run in the reference engine only (docs/redstone.md sections 74-76)")
    balls = [f for f in getattr(world, "_fireballs", ()) if not f.removed]
    if balls:
        raise CompileRefused(f"the world holds {len(balls)} fireballs ({balls[0].kind} at "
                             f"{tuple(round(v, 3) for v in balls[0].pos)}): their flight and the plates they press "
                             "run in the reference engine only (docs/redstone.md section 97)")
    if getattr(world, "_fluid", None) is not None:
        wet = world.water()
        if wet or world.fluid_ticks():
            where = f" at {next(iter(wet))}" if wet else ""
            raise CompileRefused(f"water{where}: the compiled graph runs no fluid ticks (water spreads, dries up and "
                                 "breaks blocks in the reference engine only, docs/redstone.md section 67)")
    tick, pending, toggles, seq = world_dynamic_state(world)
    _check_links(world)
    return CompiledWorld(world.blocks(), tick, pending, toggles, seq, world.rules, world_levels(world),
                         world_entities(world), world.time_of_day - tick)


def _check_links(world) -> None:
    """Refuse a fence, wall, pane, iron bars or stairs that a shape update from a block the graph switches would change
    (kernels.relink; the graph sends no shape updates): one whose side toward such a block, or a wall whose tall
    sides and post under it, are not what they would be worked out again; and one beside an iron or wooden
    trapdoor, or under a fence gate, whose faces move when power opens it. docs/redstone.md section 57."""
    from scicraft_viz.engine import kernels as sim

    g, k = world.g, world._k
    U, N = g.U, g.N
    switching = (*_COMPONENTS, B.WIRE)
    for c in world.cells_of(B.PARTIAL).tolist():
        off = int(k.stairs_at(U, c))
        if off >= 0:  # stairs: their shape, worked out again at a shape update from a side
            near = [int(U[N[c, sim.FC[d]], sim.BT]) for d in range(4)]
            if any(b in switching for b in near) and int(k.stairs_shape(U, N, c)) != (off // 2) % 5:
                number = int(k.state_number(U, c))
                raise CompileRefused(f"{B.vanilla_state_of(number)} at {tuple(g.P[c].tolist())}: its shape is not "
                                     "what the stairs around give, and the next shape update beside it would change it")
            continue
        if not k.is_linking(U, c):
            continue
        number = int(k.state_number(U, c))
        wall = B.LINK[number] == B.L_WALL
        p = tuple(g.P[c].tolist())
        for d in (0, 1, 2, 3, UP):
            n = int(N[c, sim.FC[d]])
            b = int(U[n, sim.BT])
            if b == IRON_TRAPDOOR or (b == FENCE_GATE and d == UP and wall):
                raise CompileRefused(f"{B.vanilla_state_of(number)} at {p}: the {B.NAME_OF_ID[b]} beside it changes "
                                     "its faces when power moves it, and the graph sends no shape updates")
            if b in switching and (d < 4 or wall) and int(k.linked_number(U, N, c, number, d)) != number:
                raise CompileRefused(f"{B.vanilla_state_of(number)} at {p}: its side toward the "
                                     f"{B.NAME_OF_ID[b]} at {tuple(g.P[n].tolist())} is not what its neighbours give, "
                                     "and the next shape update from there would change it")


def world_levels(world) -> dict[Pos, int]:
    """Each comparator's output strength, each container's fill level and each plate's and daylight
    sensor's output (block-entity data that the block states do not show, or not all of)."""
    from scicraft_viz.engine import kernels as sim

    g = world.g
    cells = world.cells_of(B.COMPARATOR, *B.CONTAINERS, *B.PLATES, DAYLIGHT).tolist()
    cells += [world._find(p) for p in world.boxes_holding_items()]  # shulker boxes: their fill levels
    return {tuple(g.P[c].tolist()): int(g.U[c, sim.POWER]) for c in cells}


def world_entities(world) -> dict[Pos, int]:
    """The entities on each pressure plate (World.set_entities)."""
    from scicraft_viz.engine import kernels as sim

    g = world.g
    return {tuple(g.P[c].tolist()): int(g.U[c, sim.ENTITIES]) for c in world.cells_of(*B.PLATES).tolist()}


def world_dynamic_state(world):
    """(tick, pending ticks as (due, rank, seq, pos), torch toggle history, next scheduling number)."""
    from scicraft_viz.engine import kernels as sim

    g = world.g
    pending = []
    for k1, k2, c, ty in g.H[: int(g.meta[sim.M_HEAP])].tolist():
        if int(g.U[c, sim.BT]) != ty:
            continue  # a tick for a block since replaced: it never runs
        p = tuple(g.P[c].tolist())
        if int(g.U[c, sim.PTYPE]) != ty or int(g.T[c, sim.PTIME]) != k1 // 4:
            raise CompileRefused(f"a second tick is pending for the block at {p}")
        pending.append((k1 // 4, k1 % 4, k2, p))
    toggles = {}
    for c in world.cells_of(B.TORCH, B.WALL_TORCH).tolist():
        toggles[tuple(g.P[c].tolist())] = (g.T[c, sim.TOG0 :].tolist(), int(g.U[c, sim.TOGI]))
    return world.tick, pending, toggles, int(g.meta[sim.M_SEQ])


def _bound(kernel, *args):
    """The machine code numba compiled `kernel` to for arguments like `args` (calling it once with them, so they
    must ask for nothing to be done). Called directly it skips the dispatcher's matching of argument types,
    which costs about as much as a short step: World.step calls it once per step."""
    kernel(*args)
    try:
        return kernel.get_overload(tuple(numba.typeof(a) for a in args))
    except (AttributeError, KeyError, TypeError):  # another numba's internals: the dispatcher does the same
        return kernel


class Runner:
    """A World's compiled engine while the World runs on it (World.use and World.step drive it
    directly): the graph, where each node lives in the World's storage, a press or lever flip waiting
    for the next step (`act`), and when each button releases (`release`). `last_pos` and `last_node`: the
    position object World.use last found a button or lever at, and its node (a caller that presses the
    same tuple again skips the validation and the lookup; a tuple of ints cannot change)."""

    __slots__ = ("cw", "cells", "dust_cells", "G", "S", "kernel", "buttons", "plates", "act", "tick", "release",
                 "press_ticks", "last_pos", "last_node")

    def __init__(self, world):
        self.cw = cw = compile_world(world)
        find = world._find
        self.cells = [np.array([find(p) for p in ps], np.int64) for ps in cw.members]
        self.dust_cells = np.array([find(p) for p in cw.dust_positions], np.int64)
        self.G, self.S = cw.G, cw.S
        # the World's fast path calls kernel(G, S, until, act): k_step's machine code itself, unless daylight
        # sensors need their updates every 20 game ticks
        self.kernel = cw.advance if cw.sensors else _bound(k_step, cw.G, cw.S, cw.tick, -1)
        self.buttons = cw.buttons
        self.plates = cw.plates
        self.act = -1
        self.tick = cw.tick
        self.press_ticks = cw.rules.button_ticks
        self.last_pos: Pos | None = None
        self.last_node: int | None = None  # (so that use(None) finds nothing here and is refused as before)
        # a button is released by its own tick, button_ticks after the press: known without asking the graph
        _, st, *_ = cw._views()
        never = -(1 << 62)
        self.release = [
            (int(st[i, S_PTIME]) if st[i, S_PEND] and st[i, S_ON] else never) if cw.kinds[i] == BUTTON else None
            for i in range(cw.n)
        ]

    def flush(self) -> bool:
        return self.advance(0)

    def advance(self, n: int) -> bool:
        """Run n game ticks; False if the graph stopped before a tick it cannot take."""
        act, self.act = self.act, -1
        if self.kernel(self.G, self.S, self.tick + n, act):
            self.tick += n
            return True
        return False

    def set_entities(self, i: int, n: int) -> None:
        """The entities on plate node i become n, after a press or flip made since the last step."""
        self.flush()
        k_input(self.G, self.S, i, n)

    def write_back(self, g) -> None:
        """Put the graph's state into the World's arrays (kernels.Grid) so the reference engine can
        continue from it. After a stop inside a tick, the World is left at the previous tick with that
        tick's remaining scheduled ticks pending, which is how the reference engine resumes it."""
        from scicraft_viz.engine import kernels as sim

        cw = self.cw
        k_settle(cw.G, cw.S)
        meta, st, tog, wq = cw._views()
        for i, cells in enumerate(self.cells):
            g.U[cells, sim.ON] = st[i, S_ON]
            if cw.kinds[i] == REPEATER:
                g.U[cells, sim.LOCKED] = st[i, S_LOCK]
            elif cw.kinds[i] in _ANALOG:
                g.U[cells, sim.POWER] = st[i, S_POW]
                if cw.kinds[i] in B.PLATES:
                    g.U[cells, sim.ENTITIES] = st[i, S_ENT]
            elif cw.kinds[i] in (IRON_DOOR, IRON_TRAPDOOR, FENCE_GATE):
                g.U[cells, sim.POWER] = st[i, S_ON]  # powered, which open follows
            elif cw.kinds[i] in (TORCH, WALL_TORCH):
                g.T[cells, sim.TOG0 :] = tog[i]
                g.U[cells, sim.TOGI] = st[i, S_TOGI]
        if len(self.dust_cells):
            g.U[self.dust_cells, sim.POWER] = cw.dust_power()
            n = int(g.meta[sim.M_NCELL])
            g.meta[sim.M_LIVE] = np.count_nonzero((g.U[:n, sim.BT] == sim.WIRE) & (g.U[:n, sim.POWER] > 0))
        every = np.concatenate(self.cells) if self.cells else np.zeros(0, np.int64)
        h = int(g.meta[sim.M_HEAP])
        H = g.H[:h]
        # entries for these blocks are all in the graph now; others (for blocks since replaced) stay
        mine = np.isin(H[:, sim.HCELL], every) & (g.U[H[:, sim.HCELL], sim.BT] == H[:, sim.HTYPE])
        rows = [H[~mine]]
        g.T[every, sim.PTIME] = -1
        for i in np.nonzero(st[:, S_PEND])[0]:
            cells = self.cells[i]
            g.T[cells, sim.PTIME] = st[i, S_PTIME]
            g.U[cells, sim.PTYPE] = cw.kinds[i]
            r = np.empty((len(cells), 4), np.int64)
            r[:, sim.HK1] = st[i, S_PTIME] * 4 + st[i, S_PRANK]
            r[:, sim.HK2] = st[i, S_PSEQ]
            r[:, sim.HCELL] = cells
            r[:, sim.HTYPE] = cw.kinds[i]
            rows.append(r)
        heap = np.concatenate(rows)
        heap = heap[np.lexsort((heap[:, sim.HK2], heap[:, sim.HK1]))]  # sorted rows form a valid heap
        g.H[: len(heap)] = heap  # the World keeps room for one entry per cell plus slack
        g.meta[sim.M_HEAP] = len(heap)
        g.meta[sim.M_SEQ] = meta[M_SEQ]
        g.meta[sim.M_TICK] = meta[M_TICK] - 1 if meta[M_STATUS] else meta[M_TICK]

