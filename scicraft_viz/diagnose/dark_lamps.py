"""The dark-lamp walk: for every lamp that never lights, what could feed it and why that stays
dead, traced back toward the button. Evidence is collected per mode and turned into findings by
the rules (a rule's `finding`); fixes are checked afterwards by simulation (`fixes`).

What could feed a dark lamp decides where the walk goes:
* a wire that points into it (or lies on it) but carries no power -> the network is dead or
  too long: long_snake, backwards_repeaters, glass_pedestal, broken_bridge, islands;
* a powered wire that runs past it -> wire semantics: the_ring, dead_end_hooks /
  connection_trap, parallel_lines;
* nothing at all -> coverage: axes_only, tiny_core, missing_rails.
"""

from __future__ import annotations

from typing import Any

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import (
    CONDUCTORS,
    DOWN,
    SIX,
    SOURCES,
    UP,
    Circuit,
    H,
    Pos,
    add,
    dist,
    route,
    safe_start,
    strength_ok,
    sub,
)
from scicraft_viz.diagnose.rules import ORDER, REGISTRY


class Walk:
    """Traces every dark lamp back through what could feed it and collects evidence per mode."""

    def __init__(self, c: Circuit):
        self.c = c
        self.groups: dict[tuple, dict[str, Any]] = {}
        self.uncovered: list[Pos] = []
        self.upstream: dict[Pos, Pos] = {}
        self.cluster = c.clusters()

    def note(self, mode: str, key, lamp: Pos, **info) -> None:
        g = self.groups.setdefault((mode, key), {"mode": mode, "key": key, "lamps": [], "info": {}})
        if lamp not in g["lamps"]:
            g["lamps"].append(lamp)
        for k, v in info.items():
            g["info"].setdefault(k, [])
            if v not in g["info"][k]:
                g["info"][k].append(v)

    # ----------------------------------------------------------- per lamp
    def lamp(self, lamp: Pos) -> None:
        if not self.explain(lamp, lamp, depth=0):
            self.uncovered.append(lamp)

    def popped_near(self, cells) -> Pos | None:
        """A block that popped off right beside one of `cells` (or on a block beside them)."""
        c = self.c
        if not c.popped:
            return None
        for q in sorted(c.popped):
            for m in cells:
                d = sub(q, m)
                if abs(d[1]) <= 1 and abs(d[0]) + abs(d[2]) <= 1 and d != (0, 0, 0):
                    return q
        return None

    def feeders(self, target: Pos) -> list[tuple[str, Pos]]:
        """What could power `target` (a lamp or a conductor standing in for it)."""
        c = self.c
        out = []
        for d in SIX:
            q = add(target, d)
            k = c.name(q)
            if k == "redstone_wire":
                if d == UP or (d in H.values() and c.points_into(q, target)):
                    out.append(("wire", q))
                elif d in H.values():
                    out.append(("passing", q))
            elif k == "redstone_repeater":
                i, o = c.repeater_ends(q)
                if o == target:
                    out.append(("repeater", q))
                elif i == target:
                    out.append(("reversed", q))
            elif k in ("redstone_torch", "redstone_wall_torch") and c.attachment(q) != target and d != DOWN:
                out.append(("torch", q))
            elif k == "stone" and q in c.device and target in c.lamps and self.has_potential(q, target):
                out.append(("block", q))
        return out

    def has_potential(self, block: Pos, exclude: Pos) -> bool:
        """A stone something could power (dust on it or beside it, a repeater or torch at it)."""
        c = self.c
        for d in SIX:
            q = add(block, d)
            if q == exclude:
                continue
            k = c.name(q)
            if k == "redstone_wire" and d != DOWN:
                return True
            if k == "redstone_repeater" and c.repeater_ends(q)[1] == block:
                return True
            if k in ("redstone_torch", "redstone_wall_torch") and d == DOWN:
                return True
            if k in ("stone_button", "lever") and c.attachment(q) == block:
                return True
        return False

    def explain(self, target: Pos, lamp: Pos, depth: int) -> bool:
        """Record why `target` gets no power; False when nothing at all could feed it."""
        c = self.c
        fs = self.feeders(target)
        # a repeater whose input is the target cannot feed it: it only counts when it is turned the
        # wrong way round (signal waiting at its output)
        fs = [(k, q) for k, q in fs if k != "reversed" or c.is_live(c.repeater_ends(q)[1]) or c.is_on(q)]
        if not fs:
            return False
        dead_wires = [q for k, q in fs if k == "wire" and c.power.get(q, 0) == 0]
        passing_live = [q for k, q in fs if k == "passing" and c.power.get(q, 0) > 0]
        passing_dead = [q for k, q in fs if k == "passing" and c.power.get(q, 0) == 0]
        explained = False
        for q in dead_wires:
            self.dead_dust(q, lamp, target)
            explained = True
        for k, q in fs:
            if k == "repeater" and not c.is_on(q):
                explained = self.dead_repeater(q, lamp, depth) or explained
            elif k == "reversed":
                self.note("backwards_repeaters", q, lamp, target=target)
                explained = True
            elif k == "torch" and not c.is_on(q):
                self.note("unexplained", ("torch", q), lamp, torch=q)
                explained = True
            elif k == "block" and depth == 0:
                explained = self.explain(q, lamp, depth + 1) or explained
        if passing_live:
            self.passing(passing_live, target, lamp)
            explained = True
        if not explained and passing_dead:
            for q in passing_dead:
                self.dead_dust(q, lamp, target)
            explained = True
        return explained

    # ----------------------------------------------------------- dead networks
    def dead_repeater(self, r: Pos, lamp: Pos, depth: int) -> bool:
        """A repeater pointing at the target never switched on: follow its input upstream."""
        c = self.c
        i, _ = c.repeater_ends(r)
        if c.is_dust(i) and c.power.get(i, 0) == 0:
            self.dead_dust(i, lamp, r)
            return True
        if c.name(i) == "redstone_lamp" and not c.lit.get(i, False) and i != lamp:
            # a dark lamp relaying to the next stage: this lamp shares that lamp's cause
            self.upstream[lamp] = i
            return True
        if c.name(i) in CONDUCTORS and depth < 2:
            if self.explain(i, lamp, depth + 1):
                return True
        if c.name(i) == "air" and i in c.popped:
            self.note("popped_off", i, lamp, block=c.popped[i])
            return True
        if c.name(i) == "air":
            return False
        self.note("unexplained", ("repeater", r), lamp, repeater=r)
        return True

    def dead_dust(self, q: Pos, lamp: Pos, target: Pos, seen: frozenset = frozenset()) -> None:
        c = self.c
        cid = c.component(q)
        members = c.members(cid)
        if any(c.power.get(m, 0) > 0 for m in members):
            self.note("long_snake", cid, lamp, feeder=q)
            return
        if cid in seen:
            self.note("islands", ("comp", cid), lamp)
            return
        seen = seen | {cid}
        mset = set(members)
        # a repeater between this dead piece and live signal
        for m in members:
            for d in H.values():
                r = add(m, d)
                if c.name(r) != "redstone_repeater":
                    continue
                i, o = c.repeater_ends(r)
                if i == m and c.is_live(o) and not c.is_on(r):
                    self.note("backwards_repeaters", r, lamp, target=target)
                    return
                if o == m and not c.is_on(r) and c.is_dust(i) and c.power.get(i, 0) == 0 \
                        and c.component(i) not in seen:
                    self.dead_dust(i, lamp, r, seen)
                    return
                if o == m and not c.is_on(r) and c.name(i) == "air":
                    # nothing at the repeater's input: a block that fell off, or one wire missing
                    if i in c.popped:
                        self.note("popped_off", i, lamp, block=c.popped[i])
                        return
                    live = [add(i, e) for e in SIX if add(i, e) != r and c.live_for_dust(add(i, e), i)]
                    if c.placeable(i) and live:
                        root = self.root(live[0])
                        for src in live:
                            self.note("broken_bridge", root, lamp, gap=(i, src))
                        return
        # the button stands on glass beside this piece
        for b in c.buttons:
            a = c.attachment(b)
            if a is not None and c.name(a) == "glass":
                near = {add(a, d) for d in SIX} | {add(b, d) for d in SIX}
                if mset & near:
                    self.note("glass_pedestal", b, lamp, glass=a)
                    return
        # a block of this piece fell off for lack of support
        q = self.popped_near(members)
        if q is not None:
            self.note("popped_off", q, lamp, block=c.popped[q])
            return
        # one missing wire between this piece and something live
        gaps: dict[Pos, set[Pos]] = {}
        for m in members:
            for d in H.values():
                g = add(m, d)
                if not c.placeable(g):
                    continue
                for e in SIX:
                    src = add(g, e)
                    if src in mset or src == m:
                        continue
                    if e in (UP, DOWN) and c.name(src) not in CONDUCTORS:
                        continue
                    if c.live_for_dust(src, g):
                        gaps.setdefault(self.root(src), set()).add((g, src))
        if gaps:
            root = min(gaps)
            for g in sorted(gaps[root]):
                self.note("broken_bridge", root, lamp, gap=g)
            return
        cl = {self.cluster.get(m) for m in members}
        has_source = any(self.cluster.get(p) in cl for p, k in c.kind.items() if k in SOURCES)
        # a cluster that also holds the button is no island as a whole: only this dead piece is cut off
        key = ("cluster", min(x for x in cl if x is not None)) if cl - {None} and not has_source else ("comp", cid)
        self.note("islands", key, lamp, sourced=has_source)

    def root(self, src: Pos) -> Pos:
        """The block a gap's live neighbour belongs to: a powered stone itself, a wire's source."""
        c = self.c
        if c.is_dust(src):
            es = c.entries(c.members(c.component(src)))
            return min(es.values()) if es else src
        return src

    # ----------------------------------------------------------- wire semantics
    def passing(self, wires: list[Pos], target: Pos, lamp: Pos) -> None:
        c = self.c
        for x in wires:
            side = next(s for s, d in H.items() if add(x, d) == target)
            cyc = c.shortest_cycle_through(x)
            if cyc is not None and len(cyc) >= 8:
                self.note("the_ring", frozenset(cyc), lamp, wire=x, side=side)
                return
        for x in wires:
            side = next(s for s, d in H.items() if add(x, d) == target)
            for _, y in c.dust_links(x):
                if side not in c.shape_without(x, y):
                    continue
                others = [q for _, q in c.links(x) if q != y]
                still_fed = c.dust_source(x) is not None or any(c.is_live(q) for q in others)
                if not still_fed:
                    continue
                if len(c.dust_links(y)) == 1:
                    self.note("dead_end_hooks", y, lamp, wire=x, side=side)
                else:
                    self.note("connection_trap", y, lamp, wire=x, side=side)
                return
        self.note("parallel_lines", lamp, lamp, wires=tuple(wires), target=target)

    # ----------------------------------------------------------- findings
    def findings(self) -> list[Finding]:
        out = self.coverage()
        # lamps dark only because the lamp relaying to them is dark share that lamp's findings
        for lp in list(self.upstream):
            root, seen = lp, {lp}
            while root in self.upstream and self.upstream[root] not in seen:
                root = self.upstream[root]
                seen.add(root)
            for g in self.groups.values():
                if root in g["lamps"] and lp not in g["lamps"]:
                    g["lamps"].append(lp)
            for f in out:
                if root in f.lamps and lp not in f.lamps:
                    f.lamps.append(lp)
        for (mode, key), g in self.groups.items():
            out.append(REGISTRY[mode].finding(self, key, sorted(g["lamps"]), g["info"]))
        out.sort(key=lambda f: (ORDER.get(f.mode, 99), f.positions[:1], f.lamps[:1]))
        return out

    # ----------------------------------------------------------- lamps no wire reaches
    def lamp_gaps(self, lamp: Pos) -> list[tuple[Pos, Pos]]:
        """(empty cell, live neighbour) where one wire would feed the lamp: beside the lamp, or on
        top of a solid block beside it (a wire on a block powers the block, which lights the lamp)."""
        c = self.c
        cells = [add(lamp, d) for d in H.values()]
        cells += [add(add(lamp, d), UP) for d in H.values() if c.name(add(lamp, d)) == "stone"]
        out = []
        for g in cells:
            if not c.placeable(g):
                continue
            for e in SIX:
                src = add(g, e)
                if src == lamp or (e in (UP, DOWN) and c.name(src) not in CONDUCTORS):
                    continue
                if c.live_for_dust(src, g):
                    out.append((g, src))
        return out

    def coverage(self) -> list[Finding]:
        c = self.c
        rest = []
        for lp in self.uncovered:
            near = [lp] + [add(lp, d) for d in H.values() if c.name(add(lp, d)) == "stone"]
            q = self.popped_near(near)
            if q is not None:
                self.note("popped_off", q, lp, block=c.popped[q])
            else:
                rest.append(lp)
        self.uncovered = rest
        if not self.uncovered:
            return []
        served = [lp for lp in c.lamps if self.feeders(lp)]
        live = [p for p in c.dust if c.power.get(p, 0) > 0]
        taken: set[Pos] = set()
        paths: dict[Pos, list[Pos]] = {}
        starts = [p for p in live if safe_start(c, p)]
        for lp in sorted(self.uncovered, key=lambda p: min((dist(p, q) for q in live), default=0)):
            path = route(c, starts, lp, taken)
            if path is not None and strength_ok(c, path, lp):
                paths[lp] = path
                taken |= set(path)
        out = []
        if c.dust and not served:
            out.append(self._coverage("axes_only", self.uncovered, paths, live))
            return out
        bridged = []
        for lp in self.uncovered:
            gaps = self.lamp_gaps(lp)
            if gaps:
                root = self.root(gaps[0][1])
                for g, src in gaps:
                    if self.root(src) == root:
                        self.note("broken_bridge", root, lp, gap=(g, src))
                bridged.append(lp)
        self.uncovered = [lp for lp in self.uncovered if lp not in bridged]
        if not self.uncovered:
            return out
        if not c.dust:
            return [Finding("unexplained", list(self.uncovered), list(self.uncovered),
                            "nothing reaches these lamps and there is no wire to carry the button's signal.",
                            "lay redstone wire from the button's block to the lamps")]
        xs = [p[0] for p in c.dust]
        zs = [p[2] for p in c.dust]
        inside = [lp for lp in self.uncovered if min(xs) <= lp[0] <= max(xs) and min(zs) <= lp[2] <= max(zs)]
        outside = [lp for lp in self.uncovered if lp not in inside]
        if outside:
            out.append(self._coverage("tiny_core", outside, paths, live, bbox=(min(xs), max(xs), min(zs), max(zs))))
        if inside:
            out.append(self._coverage("missing_rails", inside, paths, live))
        return out

    def _coverage(self, mode: str, lamps: list[Pos], paths: dict, live: list[Pos], bbox=None) -> Finding:
        return REGISTRY[mode].finding(self, None, lamps, {"paths": paths, "live": live, "bbox": bbox})
