"""Redstone engine kernels: dust settling, neighbour updates and scheduled ticks.

The world lives in flat NumPy arrays bundled in a `Grid` namedtuple (see `world.py`). Every function
here works on those arrays only, so the module knows nothing of worlds, traces or views. The kernels
are compiled with numba; `python_kernels()` loads the same source uncompiled for debugging and for
measuring what the JIT buys.

Timing model (Java Edition 1.20): scheduled ticks due at a game tick run in order of priority, then of
scheduling; dust settles with zero delay; one pending tick per position.
"""

from __future__ import annotations

import importlib.util
import os
from collections import namedtuple

import numpy as np

if globals().get("_FORCE_PYTHON") or os.environ.get("SCICRAFT_NOJIT") == "1":
    JIT = False

    def jit(f):
        return f
else:
    from numba import njit

    JIT = True
    jit = njit(cache=True, nogil=True)

# Block ids (mirrors blocks.py; literal so numba sees constants).
AIR, STONE, GLASS, RBLOCK, WIRE, REPEATER, TORCH, WALL_TORCH, LAMP, BUTTON, LEVER = range(11)
UP, DOWN = 4, 5
# Tick priority ranks: lower runs first.
P_EXTREMELY_HIGH, P_VERY_HIGH, P_HIGH, P_NORMAL = 0, 1, 2, 3
# Event kinds.
EV_STATE, EV_POWER, EV_SHAPE, EV_LOCKED, EV_POPPED, EV_DELAY, EV_BURNOUT = range(7)
# meta slots
M_HEAP, M_SEQ, M_TICK, M_EVN, M_LOG, M_OVERFLOW, M_GEN, M_NCHG = range(8)

BUTTON_TICKS = 20
TORCH_DELAY = 2
LAMP_OFF_DELAY = 4
BURNOUT_WINDOW = 60
BURNOUT_COUNT = 8
BURNOUT_RECHECK = 160

Grid = namedtuple(
    "Grid",
    "off near bt facing face delay sides power on locked ptime ptype toggles tog_i "
    "hk1 hk2 hcell htype meta ev_tick ev_cell ev_kind ev_old ev_new "
    "mark newp queue inq comp chg notify",
)

OPP = np.array([2, 3, 0, 1, 5, 4], dtype=np.int64)


# ----------------------------------------------------------------------------- block predicates
@jit
def is_conductor(b):
    return b == STONE or b == LAMP


@jit
def is_full(b):
    return b == STONE or b == LAMP or b == GLASS or b == RBLOCK


@jit
def is_reactive(b):
    return b >= WIRE


@jit
def opp(k):
    if k < 4:
        return (k + 2) % 4
    return 9 - k


@jit
def attachment(g, c):
    """The cell a block stands on or hangs from (support and torch input), or -1."""
    b = g.bt[c]
    if b == WIRE or b == REPEATER or b == TORCH:
        return c + g.off[DOWN]
    if b == WALL_TORCH:
        return c + g.off[opp(g.facing[c])]
    if b == BUTTON or b == LEVER:
        f = g.face[c]
        if f == 0:
            return c + g.off[DOWN]
        if f == 2:
            return c + g.off[UP]
        return c + g.off[opp(g.facing[c])]
    return -1


@jit
def is_supported(g, c):
    a = attachment(g, c)
    return a < 0 or is_full(g.bt[a])


# ----------------------------------------------------------------------------- signals
@jit
def strong_into(g, c):
    """15 if a repeater, torch, button or lever strongly powers the conductor at c, else 0."""
    for k in range(6):
        n = c + g.off[k]
        b = g.bt[n]
        if b == REPEATER:
            if g.on[n] and g.facing[n] == k:
                return 15
        elif b == TORCH or b == WALL_TORCH:
            if k == DOWN and g.on[n]:
                return 15
        elif b == BUTTON or b == LEVER:
            if g.on[n] and attachment(g, n) == c:
                return 15
    return 0


@jit
def dust_into(g, c):
    """Strongest dust pointing into c or lying on top of it."""
    best = 0
    n = c + g.off[UP]
    if g.bt[n] == WIRE:
        best = g.power[n]
    for k in range(4):
        n = c + g.off[k]
        if g.bt[n] == WIRE and (g.sides[n] >> (2 * opp(k))) & 3:
            if g.power[n] > best:
                best = g.power[n]
    return best


@jit
def signal_to(g, src, k, with_dust):
    """Signal the block at src sends to the receiver at src - off[k] (k points receiver -> src)."""
    b = g.bt[src]
    if b == STONE or b == LAMP:
        s = strong_into(g, src)
        if with_dust and s < 15:
            d = dust_into(g, src)
            if d > s:
                s = d
        return s
    if b == WIRE:
        if not with_dust or k == DOWN:
            return 0
        if k == UP:
            return g.power[src]
        if (g.sides[src] >> (2 * opp(k))) & 3:
            return g.power[src]
        return 0
    if b == REPEATER:
        return 15 if (g.on[src] and g.facing[src] == k) else 0
    if b == TORCH:
        return 15 if (g.on[src] and k != UP) else 0
    if b == WALL_TORCH:
        return 15 if (g.on[src] and k != g.facing[src]) else 0
    if b == BUTTON or b == LEVER:
        return 15 if g.on[src] else 0
    if b == RBLOCK:
        return 15
    return 0


@jit
def lamp_powered(g, c):
    for k in range(6):
        if signal_to(g, c + g.off[k], k, True) > 0:
            return True
    return False


@jit
def torch_powered(g, c):
    a = attachment(g, c)
    k = DOWN if g.bt[c] == TORCH else opp(g.facing[c])
    return signal_to(g, a, k, True) > 0


@jit
def repeater_input(g, c):
    k = g.facing[c]
    n = c + g.off[k]
    if g.bt[n] == WIRE:
        return g.power[n] > 0
    return signal_to(g, n, k, True) > 0


@jit
def repeater_locked(g, c):
    f = g.facing[c]
    for s in ((f + 1) % 4, (f + 3) % 4):
        n = c + g.off[s]
        if g.bt[n] == REPEATER and g.on[n] and g.facing[n] == s:
            return True
    return False


@jit
def repeater_prioritized(g, c):
    out = opp(g.facing[c])
    front = c + g.off[out]
    return g.bt[front] == REPEATER and g.facing[front] != out


# ----------------------------------------------------------------------------- dust
@jit
def wire_links_to(g, d, connects):
    """Candidate cells for dust-to-dust links of d (same level, one up, one down diagonals)."""
    for h in range(4):
        n = d + g.off[h]
        connects[3 * h] = n
        connects[3 * h + 1] = n + g.off[UP]
        connects[3 * h + 2] = n + g.off[DOWN]


@jit
def reads_from(g, m, d, h):
    """Does dust m take power from dust d, where d lies toward horizontal direction h from m's column?"""
    n = m + g.off[h]  # m's horizontal neighbour toward d
    if n == d:
        return True
    if is_conductor(g.bt[n]):
        return n + g.off[UP] == d and not is_conductor(g.bt[m + g.off[UP]])
    return n + g.off[DOWN] == d


@jit
def dust_source(g, d):
    best = 0
    for k in range(6):
        s = signal_to(g, d + g.off[k], k, False)
        if s > best:
            best = s
    return best


@jit
def connects_to(g, n, h):
    b = g.bt[n]
    if b == WIRE or b == TORCH or b == WALL_TORCH or b == BUTTON or b == LEVER or b == RBLOCK:
        return True
    if b == REPEATER:
        return g.facing[n] == h or g.facing[n] == opp(h)
    return False


@jit
def wire_shape(g, d, was_dot):
    """Packed sides (2 bits each: 0 none, 1 side, 2 up) following vanilla's connection rules."""
    can_up = not is_conductor(g.bt[d + g.off[UP]])
    raw = 0
    for h in range(4):
        n = d + g.off[h]
        b = g.bt[n]
        s = 0
        if can_up and is_full(b) and g.bt[n + g.off[UP]] == WIRE:
            s = 2
        elif connects_to(g, n, h):
            s = 1
        elif not is_conductor(b) and g.bt[n + g.off[DOWN]] == WIRE:
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
def wire_raw_connected(g, d):
    """True if the dust at d connects to anything (so `use` cannot toggle cross/dot)."""
    return wire_shape(g, d, True) != 0


@jit
def log_event(g, c, kind, old, new):
    if g.meta[M_LOG] == 0:
        return
    i = g.meta[M_EVN]
    if i >= g.ev_tick.shape[0]:
        g.meta[M_OVERFLOW] = 1
        return
    g.ev_tick[i] = g.meta[M_TICK]
    g.ev_cell[i] = c
    g.ev_kind[i] = kind
    g.ev_old[i] = old
    g.ev_new[i] = new
    g.meta[M_EVN] = i + 1


@jit
def push_changed(g, c):
    """Queue c for neighbour updates. Dust whose power changed is queued as -(c+1): it needs its
    neighbours updated but is already settled, so it seeds no new dust settling."""
    i = g.meta[M_NCHG]
    if i < g.chg.shape[0]:
        g.chg[i] = c
        g.meta[M_NCHG] = i + 1
    else:
        g.meta[M_OVERFLOW] = 2


@jit
def settle_dust(g, seeds, nseeds):
    """Recompute the power of every dust network touching the seeds to its least fixed point."""
    g.meta[M_GEN] += 1
    gen = g.meta[M_GEN]
    m = 0
    for i in range(nseeds):
        s = seeds[i]
        if g.bt[s] == WIRE and g.mark[s] != gen:
            g.mark[s] = gen
            g.comp[m] = s
            m += 1
    if m == 0:
        return
    cand = np.empty(12, dtype=np.int64)
    i = 0
    while i < m:
        d = g.comp[i]
        i += 1
        wire_links_to(g, d, cand)
        for j in range(12):
            x = cand[j]
            if g.bt[x] == WIRE and g.mark[x] != gen:
                g.mark[x] = gen
                g.comp[m] = x
                m += 1
    # sources, then spread (power - 1 per dust) along links, SPFA style
    cap = g.queue.shape[0]
    head = 0
    tail = 0
    for i in range(m):
        d = g.comp[i]
        p = dust_source(g, d)
        g.newp[d] = p
        if p > 1:
            g.queue[tail] = d
            tail = (tail + 1) % cap
            g.inq[d] = 1
    while head != tail:
        d = g.queue[head]
        head = (head + 1) % cap
        g.inq[d] = 0
        v = g.newp[d] - 1
        if v <= 0:
            continue
        wire_links_to(g, d, cand)
        for j in range(12):
            x = cand[j]
            if g.bt[x] == WIRE and g.newp[x] < v and reads_from(g, x, d, opp(j // 3)):
                g.newp[x] = v
                if not g.inq[x]:
                    g.inq[x] = 1
                    g.queue[tail] = x
                    tail = (tail + 1) % cap
    for i in range(m):
        d = g.comp[i]
        p = g.newp[d]
        if p != g.power[d]:
            log_event(g, d, EV_POWER, g.power[d], p)
            g.power[d] = p
            push_changed(g, -d - 1)


# ----------------------------------------------------------------------------- scheduling
@jit
def has_pending(g, c):
    return g.ptime[c] >= 0 and g.ptype[c] == g.bt[c]


@jit
def schedule(g, c, delay, rank):
    if has_pending(g, c):
        return
    t = g.meta[M_TICK] + delay
    g.ptime[c] = t
    g.ptype[c] = g.bt[c]
    k1 = t * 4 + rank
    k2 = g.meta[M_SEQ]
    g.meta[M_SEQ] += 1
    i = g.meta[M_HEAP]
    g.meta[M_HEAP] = i + 1
    while i > 0:
        p = (i - 1) // 2
        if g.hk1[p] < k1 or (g.hk1[p] == k1 and g.hk2[p] < k2):
            break
        g.hk1[i] = g.hk1[p]
        g.hk2[i] = g.hk2[p]
        g.hcell[i] = g.hcell[p]
        g.htype[i] = g.htype[p]
        i = p
    g.hk1[i] = k1
    g.hk2[i] = k2
    g.hcell[i] = c
    g.htype[i] = g.bt[c]


@jit
def heap_pop(g):
    """Remove the first entry; returns its slot values as (k1, cell, type)."""
    k1 = g.hk1[0]
    c = g.hcell[0]
    ty = g.htype[0]
    n = g.meta[M_HEAP] - 1
    g.meta[M_HEAP] = n
    if n > 0:
        lk1 = g.hk1[n]
        lk2 = g.hk2[n]
        lc = g.hcell[n]
        lt = g.htype[n]
        i = 0
        while True:
            a = 2 * i + 1
            if a >= n:
                break
            b = a + 1
            if b < n and (g.hk1[b] < g.hk1[a] or (g.hk1[b] == g.hk1[a] and g.hk2[b] < g.hk2[a])):
                a = b
            if lk1 < g.hk1[a] or (lk1 == g.hk1[a] and lk2 < g.hk2[a]):
                break
            g.hk1[i] = g.hk1[a]
            g.hk2[i] = g.hk2[a]
            g.hcell[i] = g.hcell[a]
            g.htype[i] = g.htype[a]
            i = a
        g.hk1[i] = lk1
        g.hk2[i] = lk2
        g.hcell[i] = lc
        g.htype[i] = lt
    return k1, c, ty


# ----------------------------------------------------------------------------- updates
@jit
def set_on(g, c, v):
    if g.on[c] != v:
        log_event(g, c, EV_STATE, g.on[c], v)
        g.on[c] = v


@jit
def check(g, c, exempt):
    """A neighbour update reaching c (vanilla neighborChanged). Returns True if c popped off."""
    b = g.bt[c]
    if c != exempt and not is_supported(g, c):
        return True
    if b == LAMP:
        p = lamp_powered(g, c)
        if g.on[c] and not p:
            schedule(g, c, LAMP_OFF_DELAY, P_NORMAL)
        elif not g.on[c] and p:
            set_on(g, c, 1)
    elif b == TORCH or b == WALL_TORCH:
        if (g.on[c] != 0) == torch_powered(g, c):
            schedule(g, c, TORCH_DELAY, P_NORMAL)
    elif b == REPEATER:
        lk = 1 if repeater_locked(g, c) else 0
        if lk != g.locked[c]:
            log_event(g, c, EV_LOCKED, g.locked[c], lk)
            g.locked[c] = lk
        if not lk:
            should = repeater_input(g, c)
            if (g.on[c] != 0) != should:
                if repeater_prioritized(g, c):
                    rank = P_EXTREMELY_HIGH
                elif g.on[c]:
                    rank = P_VERY_HIGH
                else:
                    rank = P_HIGH
                schedule(g, c, 2 * g.delay[c], rank)
    return False


@jit
def clear_cell(g, c):
    g.bt[c] = AIR
    g.on[c] = 0
    g.power[c] = 0
    g.sides[c] = 0
    g.locked[c] = 0
    g.ptime[c] = -1


@jit
def reshape_near(g, c):
    """Recompute dust shapes around c after a block change there; changed dust join the changed list."""
    for j in range(g.near.shape[0]):
        x = c + g.near[j]
        if g.bt[x] == WIRE:
            s = wire_shape(g, x, g.sides[x] == 0)
            if s != g.sides[x]:
                log_event(g, x, EV_SHAPE, g.sides[x], s)
                g.sides[x] = s
                if x != c:
                    push_changed(g, x)


@jit
def propagate(g, exempt):
    """Settle dust and deliver neighbour updates for every cell in g.chg[0:meta[M_NCHG]]."""
    start = 0
    while True:
        end = g.meta[M_NCHG]
        if start >= end:
            break
        # dust near each changed block may have new sources or links
        g.meta[M_GEN] += 1
        gen = g.meta[M_GEN]
        ns = 0
        for i in range(start, end):
            c = g.chg[i]
            if c < 0:
                continue
            for j in range(g.near.shape[0]):
                x = c + g.near[j]
                if g.bt[x] == WIRE and g.mark[x] != gen:
                    g.mark[x] = gen
                    g.notify[ns] = x
                    ns += 1
        settle_dust(g, g.notify, ns)
        end = g.meta[M_NCHG]
        # neighbour updates reach every reactive block within two steps of a change
        g.meta[M_GEN] += 1
        gen = g.meta[M_GEN]
        nn = 0
        for i in range(start, end):
            c = g.chg[i]
            if c < 0:
                c = -c - 1
            for j in range(g.near.shape[0]):
                x = c + g.near[j]
                if is_reactive(g.bt[x]) and g.mark[x] != gen:
                    g.mark[x] = gen
                    g.notify[nn] = x
                    nn += 1
        start = end
        for i in range(nn):
            x = g.notify[i]
            if g.bt[x] >= WIRE and check(g, x, exempt):
                log_event(g, x, EV_POPPED, g.bt[x], AIR)
                clear_cell(g, x)
                reshape_near(g, x)
                push_changed(g, x)
    g.meta[M_NCHG] = 0


@jit
def changed(g, c):
    push_changed(g, c)
    propagate(g, -1)


# ----------------------------------------------------------------------------- scheduled ticks
@jit
def recent_toggles(g, c, t):
    n = 0
    for i in range(BURNOUT_COUNT):
        if t - g.toggles[c, i] <= BURNOUT_WINDOW:
            n += 1
    return n


@jit
def run_tick(g, c):
    b = g.bt[c]
    t = g.meta[M_TICK]
    if b == REPEATER:
        if repeater_locked(g, c):
            return
        should = repeater_input(g, c)
        if g.on[c] and not should:
            set_on(g, c, 0)
            changed(g, c)
        elif not g.on[c]:
            set_on(g, c, 1)
            changed(g, c)
            if not should:
                schedule(g, c, 2 * g.delay[c], P_VERY_HIGH)
    elif b == TORCH or b == WALL_TORCH:
        powered = torch_powered(g, c)
        if g.on[c]:
            if powered:
                set_on(g, c, 0)
                i = g.tog_i[c]
                g.toggles[c, i] = t
                g.tog_i[c] = (i + 1) % BURNOUT_COUNT
                changed(g, c)
                if recent_toggles(g, c, t) >= BURNOUT_COUNT:
                    log_event(g, c, EV_BURNOUT, 0, 1)
                    schedule(g, c, BURNOUT_RECHECK, P_NORMAL)
        elif not powered and recent_toggles(g, c, t) < BURNOUT_COUNT:
            set_on(g, c, 1)
            changed(g, c)
    elif b == LAMP:
        if g.on[c] and not lamp_powered(g, c):
            set_on(g, c, 0)
    elif b == BUTTON:
        if g.on[c]:
            set_on(g, c, 0)
            changed(g, c)


@jit
def run(g, until, rec_on_cells, rec_pow_cells, rec_on, rec_pow, row0, ev_margin):
    """Advance to game tick `until`. Records rows (state after each tick) when the rec arrays are
    non-empty. Returns the tick reached: earlier than `until` only if the event buffer is nearly full."""
    rows = rec_on.shape[0]
    row = row0
    while g.meta[M_TICK] < until:
        if g.meta[M_LOG] and g.meta[M_EVN] > g.ev_tick.shape[0] - ev_margin:
            break
        if rows == 0 and g.meta[M_HEAP] == 0:
            g.meta[M_TICK] = until
            break
        if rows == 0 and g.hk1[0] // 4 > until:
            g.meta[M_TICK] = until
            break
        if rows == 0 and g.hk1[0] // 4 > g.meta[M_TICK] + 1:
            g.meta[M_TICK] = g.hk1[0] // 4 - 1
        t = g.meta[M_TICK] + 1
        g.meta[M_TICK] = t
        while g.meta[M_HEAP] > 0 and g.hk1[0] // 4 <= t:
            k1, c, ty = heap_pop(g)
            if g.ptype[c] == ty and g.ptime[c] == k1 // 4:
                g.ptime[c] = -1
            if g.bt[c] == ty:
                run_tick(g, c)
        if row < rows:
            for i in range(rec_on_cells.shape[0]):
                rec_on[row, i] = g.on[rec_on_cells[i]]
            for i in range(rec_pow_cells.shape[0]):
                rec_pow[row, i] = g.power[rec_pow_cells[i]]
            row += 1
    return g.meta[M_TICK]


# ----------------------------------------------------------------------------- actions
@jit
def place(g, c, old_type, exempt, player):
    """Finish a block change at c (its new id and static properties already written)."""
    b = g.bt[c]
    if b != old_type:
        g.ptime[c] = -1
    reshape_near(g, c)
    if b == REPEATER:
        g.locked[c] = 1 if repeater_locked(g, c) else 0
        if player and not g.locked[c] and repeater_input(g, c):
            schedule(g, c, 1, P_NORMAL)
    push_changed(g, c)
    propagate(g, exempt)


@jit
def use(g, c):
    """A player's right-click. Returns 1 if something changed."""
    b = g.bt[c]
    if b == BUTTON:
        if g.on[c]:
            return 0
        set_on(g, c, 1)
        schedule(g, c, BUTTON_TICKS, P_NORMAL)
        changed(g, c)
        return 1
    if b == LEVER:
        set_on(g, c, 0 if g.on[c] else 1)
        changed(g, c)
        return 1
    if b == REPEATER:
        nd = g.delay[c] % 4 + 1
        log_event(g, c, EV_DELAY, g.delay[c], nd)
        g.delay[c] = nd
        return 1
    if b == WIRE:
        if wire_raw_connected(g, c):
            return 0
        ns = 0x55 if g.sides[c] == 0 else 0
        log_event(g, c, EV_SHAPE, g.sides[c], ns)
        g.sides[c] = ns
        changed(g, c)
        return 1
    return 0


def python_kernels():
    """This module loaded again without numba: slow, but steppable in a debugger."""
    spec = importlib.util.spec_from_file_location("scicraft_viz._sim_python", __file__)
    mod = importlib.util.module_from_spec(spec)
    mod.__dict__["_FORCE_PYTHON"] = True
    spec.loader.exec_module(mod)
    return mod
