"""Moving blocks move the minecarts and item entities in their way (vanilla PistonMovingBlockEntity's
moveCollidedEntities and moveStuckEntities; docs/redstone.md section 89).

Each half-block step of a moving block sweeps the slab in front of its collision boxes (where they stand at the
step's start), and every entity that slab overlaps is moved along the block's travel by its depth in the slab, at
most the step, plus 0.01. The move is an `Entity.move` of mover type PISTON: an entity goes at most 0.51 along each
axis in one game tick over all the pistons that move it, blocks stop it, and a block moving the same way, still on
its way, does not. A slime block sets the velocity of what it meets to 1 along its axis; a honey block moving
sideways carries what stands on it. A retracting piston's head that leaves an entity in the piston's own cell pushes
it back out (fixEntityWithinPistonBase).

While a block moves, its moving_piston collides as the block it carries, where the move has got to (a retracting
piston's base keeps its extended shape meanwhile): `moving_boxes` gives those boxes to the entities' own moves.

The world (engine/world.py) calls `push_entities` after the entities' part of a game tick, which is where vanilla's
moving blocks tick (block entities tick after entities)."""

from __future__ import annotations

import numpy as np

from scicraft_viz.engine.items import Surroundings, collision_boxes, intersects, moved_box

STEP = 0.5  # a moving block's progress in one game tick
OVERSHOOT = 0.01  # moveCollidedEntities adds this to every push
LIMIT = 0.51  # Entity.limitPistonMovement: the most one game tick's pushes move an entity along an axis
TINY = float(np.float32(1.0e-5))  # a limited push this small is dropped
SLOT = 4 / 16  # the depth of a piston head's plate and of the slot its extended base leaves
ARM_NEAR, ARM_FAR = 6 / 16, 10 / 16  # the head's arm, a 4/16 column in the middle of the cell
HONEY_TOP = 1.5000010000000001  # moveStuckEntities looks this high above a moving honey block
_AXIS = {"east": (0, 1), "west": (0, -1), "up": (1, 1), "down": (1, -1), "south": (2, 1), "north": (2, -1)}
_OPPOSITE = {"east": "west", "west": "east", "up": "down", "down": "up", "south": "north", "north": "south"}


def _vec(direction: str) -> tuple[int, int, int]:
    axis, sign = _AXIS[direction]
    v = [0, 0, 0]
    v[axis] = sign
    return v[0], v[1], v[2]


def head_boxes(facing: str, short: bool) -> list[tuple[tuple[float, ...], bool]]:
    """A piston head's collision boxes in its cell, each with whether it is the arm: the plate (4/16 deep at the
    facing side) and the arm behind it (16/16 long, reaching a quarter into the base's cell, or 12/16 when short)."""
    axis, sign = _AXIS[facing]
    plate_lo, plate_hi = [0.0] * 3, [1.0] * 3
    arm_lo, arm_hi = [ARM_NEAR] * 3, [ARM_FAR] * 3
    length = 12 / 16 if short else 1.0
    if sign > 0:
        plate_lo[axis] = 1.0 - SLOT
        arm_hi[axis] = 1.0 - SLOT
        arm_lo[axis] = arm_hi[axis] - length
    else:
        plate_hi[axis] = SLOT
        arm_lo[axis] = SLOT
        arm_hi[axis] = SLOT + length
    return [(tuple(plate_lo + plate_hi), False), (tuple(arm_lo + arm_hi), True)]


def extended_base_box(facing: str) -> tuple[float, ...]:
    """An extended piston base's collision box in its cell: the whole cell but the 4/16 slot at its facing side."""
    axis, sign = _AXIS[facing]
    lo, hi = [0.0] * 3, [1.0] * 3
    if sign > 0:
        hi[axis] = 1.0 - SLOT
    else:
        lo[axis] = SLOT
    return tuple(lo + hi)


class Move:
    """One moving block as the push sees it: its moving_piston's place (`pos`, its destination), the block it
    carries, where it travels, whether it goes out (`extending`), whether it is a piston's own head or base
    (`source`), and its progress (0, 0.5 or 1)."""

    __slots__ = ("pos", "block", "travel", "extending", "source", "progress")

    def __init__(self, pos, block: str, travel: str, extending: bool, source: bool, progress: float):
        self.pos, self.block, self.travel = pos, block, travel
        self.extending, self.source, self.progress = extending, source, progress

    @property
    def facing(self) -> str:
        """PistonMovingBlockEntity.direction: the piston's facing (the travel when pushing, its opposite when
        pulling)."""
        return self.travel if self.extending else _OPPOSITE[self.travel]

    def offset(self) -> tuple[float, float, float]:
        """moveByPositionAndProgress: where the carried block's cell stands now."""
        f = self.progress - 1.0 if self.extending else 1.0 - self.progress
        v = _vec(self.facing)
        return self.pos[0] + f * v[0], self.pos[1] + f * v[1], self.pos[2] + f * v[2]

    def _base(self) -> list[tuple[float, ...]]:
        """A retracting piston keeps its extended base's box in its own cell while the head comes back."""
        if self.source and not self.extending:
            return [moved_box(extended_base_box(self.facing), self.pos)]
        return []

    def sweep_boxes(self) -> list[tuple[tuple[float, ...], bool]]:
        """getCollisionRelatedBlockState's boxes where the block stands now, each with whether it is a head's arm:
        a piston's own head (pushed out, or pulled back: short once past a quarter) or the carried block's."""
        if self.source:
            short = not self.extending and self.progress > 0.25
            local = head_boxes(self.facing, short)
        else:
            local = [(b, False) for b in collision_boxes(self.block)]
        o = self.offset()
        return [(moved_box(b, o), arm) for b, arm in local]

    def collision_boxes(self, noclip: str | None) -> list[tuple[float, ...]]:
        """PistonMovingBlockEntity.getCollisionShape: what the moving_piston is solid as. During a push along
        `noclip`, a block moving that way that has not arrived is not solid (but a retracting base is)."""
        base = self._base()
        if noclip == self.travel and self.progress < 1.0:
            return base
        if self.source:
            short = self.extending != (1.0 - self.progress < 0.25)
            local = [b for b, _ in head_boxes(self.facing, short)]
        else:
            local = list(collision_boxes(self.block))
        o = self.offset()
        return base + [moved_box(b, o) for b in local]


def moves_of(world, progress_now: bool = True) -> list[tuple[int, Move]]:
    """The world's moving blocks in vanilla's block-entity order (oldest first), with the cell that carries each.
    With `progress_now` False, a block that advanced in the tick just run is given the progress it had before."""
    from scicraft_viz.engine import blocks as B
    from scicraft_viz.engine import kernels as sim

    g = world.g
    n = int(g.meta[sim.M_NMOV])
    if not n:
        return []
    by_pos = world.moving()
    t = world.tick
    out = []
    for m in g.mov[:n].tolist():
        if int(g.U[m, sim.BT]) != B.MOVING_PISTON:
            continue
        pos = tuple(g.P[m].tolist())
        mb = by_pos.get(pos)
        if mb is None:
            continue
        p = mb.progress
        if not progress_now and int(g.T[m, sim.TOG0]) == t:
            p -= STEP
        out.append((m, Move(pos, mb.block, mb.direction, mb.extending, mb.piston, p)))
    return out


class MovingSurroundings(Surroundings):
    """Surroundings whose moving_piston cells collide as their moving blocks (`Move.collision_boxes`), as the
    blocks stand when asked; `noclip` is the direction of the piston push under way, if any."""

    def __init__(self, state_at, moves: dict):
        super().__init__(state_at)
        self.moves = moves  # pos -> Move
        self.noclip: str | None = None

    def boxes_near(self, box) -> list[tuple[float, ...]]:
        out = super().boxes_near(box)
        if not self.moves:
            return out
        for p, mv in self.moves.items():
            if p[0] + 2 < box[0] or p[0] - 1 > box[3] or p[1] + 2 < box[1] or p[1] - 2 > box[4] or (
                    p[2] + 2 < box[2] or p[2] - 1 > box[5]):
                continue
            out.extend(mv.collision_boxes(self.noclip))
        return out


def moving_boxes(world) -> MovingSurroundings:
    """The surroundings the entities' own moves of this tick meet: vanilla's entities tick before the moving blocks
    advance, so each moving block stands where it stood at the tick's start (one that landed in this tick stands
    landed)."""
    moves = {mv.pos: mv for _, mv in moves_of(world, progress_now=False)}
    return MovingSurroundings(world._block_at, moves)


# ----------------------------------------------------------------------------- the push
def _limit(e, t: int, axis: int, d: float) -> float:
    """Entity.limitPistonMovement along one axis: the game tick's pushes so far and this one stay within 0.51."""
    deltas = e.piston_deltas
    if deltas is None or deltas[0] != t:
        deltas = [t, 0.0, 0.0, 0.0]
        e.piston_deltas = deltas
    total = min(max(d + deltas[1 + axis], -LIMIT), LIMIT)
    d = total - deltas[1 + axis]
    deltas[1 + axis] = total
    return d


def move_entity(e, travel: str, distance: float, world: MovingSurroundings, t: int, others=()) -> bool:
    """moveEntityByPiston: `distance` along `travel`, an Entity.move of mover type PISTON (limited, then stopped by
    blocks, by other carts for a cart). Whether the entity moved."""
    from scicraft_viz.engine import carts, fireballs, items

    axis, sign = _AXIS[travel]
    d = distance * sign
    if d * d > 1.0e-7:
        d = _limit(e, t, axis, d)
        if abs(d) <= TINY:
            return False
    if d == 0.0:
        return False
    movement = [0.0, 0.0, 0.0]
    movement[axis] = d
    before = tuple(e.pos)
    world.noclip = travel
    try:
        if isinstance(e, carts.Minecart):
            e.others = list(others)
            carts._move(e, movement, world)
            e.others = []
        elif isinstance(e, fireballs.Fireball):
            fireballs.move(e, movement, world)
        else:
            items.move(e, movement, world)
    finally:
        world.noclip = None
    return tuple(e.pos) != before


def _depth(slab, travel: str, box) -> float:
    """getMovement: how deep `box` reaches into `slab` from its back."""
    axis, sign = _AXIS[travel]
    return slab[axis + 3] - box[axis] if sign > 0 else box[axis + 3] - slab[axis]


def movement_area(box, travel: str, d: float) -> tuple[float, ...]:
    """PistonMath.getMovementArea: the slab `d` deep that `box`'s leading face sweeps along `travel`."""
    axis, sign = _AXIS[travel]
    lo, hi = list(box[:3]), list(box[3:])
    face = box[axis + 3] if sign > 0 else box[axis]
    lo[axis], hi[axis] = (face, face + d) if sign > 0 else (face - d, face)
    return tuple(lo + hi)


def _arm_gate(e, box, axis: int) -> bool:
    """The arm reaches an entity only when its position (centre x, feet y, centre z) lies in the arm's column
    across the travel (Nucleation's captures of pistons pulling entities)."""
    b = e.box()
    point = ((b[0] + b[3]) / 2, b[1], (b[2] + b[5]) / 2)
    return all(box[i] < point[i] < box[i + 3] for i in range(3) if i != axis)


def push_depth(mv: Move, e, d: float = STEP) -> float:
    """moveCollidedEntities' push for one entity: the deepest its box reaches into a slab swept by one of the
    block's boxes (0 when none), before the cap and the 0.01."""
    axis, _ = _AXIS[mv.travel]
    eb = e.box()
    h = 0.0
    for box, arm in mv.sweep_boxes():
        if arm and not _arm_gate(e, box, axis):
            continue
        area = movement_area(box, mv.travel, d)
        if not intersects(area, eb):
            continue
        h = max(h, _depth(area, mv.travel, eb))
        if h >= d:
            break
    return h


def _bounds(boxes) -> tuple[float, ...]:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), min(b[2] for b in boxes),
            max(b[3] for b in boxes), max(b[4] for b in boxes), max(b[5] for b in boxes))


def _base_fix(mv: Move, e, d: float, world, t: int, others) -> None:
    """fixEntityWithinPistonBase: an entity a retracting head left overlapping the piston's own cell goes back out
    of it, against the travel, when it only pokes into the cell."""
    cell = (mv.pos[0], mv.pos[1], mv.pos[2], mv.pos[0] + 1, mv.pos[1] + 1, mv.pos[2] + 1)
    b = e.box()
    if not intersects(b, cell):
        return
    out = _OPPOSITE[mv.travel]
    clipped = tuple(max(b[i], cell[i]) for i in range(3)) + tuple(min(b[i + 3], cell[i + 3]) for i in range(3))
    e1 = _depth(cell, out, b) + OVERSHOOT
    e2 = _depth(cell, out, clipped) + OVERSHOOT
    if abs(e1 - e2) < 0.01:
        move_entity(e, out, min(e1, d) + OVERSHOOT, world, t, others)


def _after_move(world, e, surroundings) -> None:
    """applyEffectsFromBlocks after a push: a cart sets off the unpowered detector rails its box reaches into."""
    from scicraft_viz.engine import carts
    from scicraft_viz.engine import kernels as sim

    if not isinstance(e, carts.Minecart):
        return
    for p in carts.detector_cells(e):
        if surroundings.name(*p) != "detector_rail":
            continue
        c = carts._detector_cell(world, p)
        if c and not world.g.U[c, sim.ON]:
            n, level = carts._count(world, p)
            if n:
                world._call(world._k.set_carts, c, n, level)


def push_entities(world) -> bool:
    """The moving blocks' pushes of the tick just run, each block in turn (oldest first), each from the progress it
    had to the one it has now. Whether an entity moved."""
    steps = moves_of(world, progress_now=False)
    if not steps:
        return False
    from scicraft_viz.engine import kernels as sim

    t = world.tick
    g = world.g
    bodies = ([c for c in world._carts if not c.removed] + [e for e in world._entities if not e.removed]
              + [f for f in world._fireballs if not f.removed])
    if not bodies:
        return False
    moves = {mv.pos: mv for _, mv in steps}
    surroundings = MovingSurroundings(world._block_at, moves)
    moved = False
    for m, mv in steps:
        if int(g.T[m, sim.TOG0]) != t or mv.progress >= 1.0:
            continue  # did not advance in this tick, or landed
        boxes = mv.sweep_boxes()
        if boxes:
            moved |= _push_one(world, mv, boxes, bodies, surroundings, t)
        moved |= _carry_on_honey(world, mv, bodies, surroundings, t)
        mv.progress = min(mv.progress + STEP, 1.0)  # later blocks meet this one where it has now got to
    return moved


def _push_one(world, mv: Move, boxes, bodies, surroundings, t: int) -> bool:
    from scicraft_viz.engine import carts

    d = STEP
    bounds = _bounds([b for b, _ in boxes])
    area = movement_area(bounds, mv.travel, d)
    reach = (min(area[0], bounds[0]), min(area[1], bounds[1]), min(area[2], bounds[2]),
             max(area[3], bounds[3]), max(area[4], bounds[4]), max(area[5], bounds[5]))
    slime = mv.block.partition("[")[0].removeprefix("minecraft:") == "slime_block"
    axis, sign = _AXIS[mv.travel]
    moved = False
    for e in bodies:
        if e.removed or not intersects(e.box(), reach):
            continue
        if slime:  # the slime block launches what it meets at 1 block a tick along its travel
            v = list(e.vel)
            v[axis] = float(sign)
            e.vel = v
        h = push_depth(mv, e, d)
        if h <= 0.0:
            continue
        h = min(h, d) + OVERSHOOT
        others = [o.box() for o in world._carts if o is not e and not o.removed] if isinstance(
            e, carts.Minecart) else ()
        if move_entity(e, mv.travel, h, surroundings, t, others):
            moved = True
            _after_move(world, e, surroundings)
        if not mv.extending and mv.source:
            before = tuple(e.pos)
            _base_fix(mv, e, d, surroundings, t, others)
            moved |= tuple(e.pos) != before
    return moved


def _carry_on_honey(world, mv: Move, bodies, surroundings, t: int) -> bool:
    """moveStuckEntities: a honey block moving sideways carries what stands on it (grounded, its centre over the
    block or standing on the block's destination cell) along, the step's whole half block."""
    if mv.block.partition("[")[0].removeprefix("minecraft:") != "honey_block" or _AXIS[mv.travel][0] == 1:
        return False
    from scicraft_viz.engine import carts

    top = max((b[4] for b in collision_boxes(mv.block)), default=0.0)
    area = moved_box((0.0, top, 0.0, 1.0, HONEY_TOP, 1.0), mv.offset())
    moved = False
    for e in bodies:
        if e.removed or not e.on_ground or not intersects(e.box(), area):
            continue
        support = getattr(e, "support", None)
        if not (support == tuple(mv.pos) or (area[0] <= e.pos[0] <= area[3] and area[2] <= e.pos[2] <= area[5])):
            continue
        others = [o.box() for o in world._carts if o is not e and not o.removed] if isinstance(
            e, carts.Minecart) else ()
        if move_entity(e, mv.travel, STEP, surroundings, t, others):
            moved = True
            _after_move(world, e, surroundings)
    return moved
