"""Fireball entities: small fireballs, dragon fireballs and (large) fireballs flying in a straight line, pushed by
moving blocks and counted by pressure plates (vanilla AbstractHurtingProjectile and its Fireball, SmallFireball and
DragonFireball). docs/redstone.md section 97.

A fireball has no gravity. Its position is its box's bottom centre; each game tick (in the entity phase, after the
carts and item entities) it looks along its motion for the first block or entity in the way (ProjectileUtil's
raycast); on a hit it is removed (the fire a small fireball lights is placed, the explosion or cloud of the others
is left out); otherwise it moves by its motion and takes the new motion (motion + normalize(motion) x power) x 0.95
(0.8 when it started the tick in water)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from scicraft_viz.engine.items import collide, collision_boxes, intersects

KINDS = {"small_fireball": 0.3125, "dragon_fireball": 1.0, "fireball": 1.0}  # EntityType sizes (square boxes)
INERTIA = float(np.float32(0.95))  # AbstractHurtingProjectile.getInertia, a float
WATER_INERTIA = float(np.float32(0.8))  # getLiquidInertia
DEFAULT_POWER = 0.1  # accelerationPower when a file gives none (1.20.5+)
MAX_SPEED = 10.0  # blocks a tick on each axis: vanilla's Motion is clamped to 10 when loaded
EFFECT = {"small_fireball": "sets fire to what it hits", "dragon_fireball": "leaves a lingering cloud",
          "fireball": "explodes"}


@dataclass
class Fireball:
    """One fireball: `kind` (small_fireball, dragon_fireball, fireball), its box's bottom centre `pos`, `vel` in
    blocks per tick, and its acceleration: `power` (1.20.5+ acceleration_power, along the motion) or `power_vec`
    (the older `power` list, added as it is)."""

    id: int
    kind: str
    pos: list[float]
    vel: list[float]
    power: float = DEFAULT_POWER
    power_vec: tuple[float, float, float] | None = None
    tick_count: int = 0
    removed: bool = False
    on_ground: bool = False  # never grounded (no gravity): a honey block does not carry it
    piston_deltas: list | None = field(default=None, repr=False, compare=False)

    def box(self) -> tuple[float, float, float, float, float, float]:
        h = KINDS[self.kind] / 2
        x, y, z = self.pos
        return (x - h, y, z - h, x + h, y + KINDS[self.kind], z + h)


class FireballInfo(NamedTuple):
    """A fireball as `World.fireballs` lists it: `pos` its box's bottom centre, `velocity` in blocks per game tick,
    `power` its acceleration_power (None where it keeps an older file's `power` vector, `power_vec`)."""

    id: int
    kind: str
    pos: tuple[float, float, float]
    velocity: tuple[float, float, float]
    power: float | None
    power_vec: tuple[float, float, float] | None = None


class FireballSpec(NamedTuple):
    kind: str
    pos: tuple[float, float, float]
    motion: tuple[float, float, float]
    power: float
    power_vec: tuple[float, float, float] | None


def _real(v: object) -> bool:
    from numbers import Real

    return isinstance(v, Real) and not isinstance(v, bool) and math.isfinite(v)


def check_fireball(kind: object, pos: object, velocity: object, power: object, where: str) -> FireballSpec:
    """A fireball's fields as `World.spawn_fireball` takes them, or InputError starting with `where`: `power` a
    finite number (acceleration_power) or three (an older file's `power` vector)."""
    from scicraft_viz.engine.world import _real_triple
    from scicraft_viz.errors import InputError

    name = kind.removeprefix("minecraft:") if isinstance(kind, str) else kind
    if name not in KINDS:
        raise InputError(f"{where}: the kind must be one of {', '.join(KINDS)}, got {kind!r}"[:300])
    at = _real_triple(pos, f"{where}: the position")
    vel = _real_triple(velocity, f"{where}: the velocity")
    if any(abs(v) > 3e7 for v in at) or any(abs(v) > MAX_SPEED for v in vel):
        raise InputError(f"{where}: the position must lie within 30,000,000 blocks and each velocity component "
                         f"within {MAX_SPEED:g} blocks a tick, got {at} and {vel}")
    vec = None
    if isinstance(power, (tuple, list)):
        vec = _real_triple(power, f"{where}: the power vector")
        if any(abs(v) > MAX_SPEED for v in vec):
            raise InputError(f"{where}: each power component must lie within {MAX_SPEED:g}, got {vec}")
        p = 0.0
    elif _real(power) and abs(power) <= MAX_SPEED:
        p = float(power)
    else:
        raise InputError(f"{where}: the power must be a finite number within {MAX_SPEED:g} (or three, an older "
                         f"file's power vector), got {power!r}"[:300])
    return FireballSpec(name, at, vel, p, vec)


def from_data(nbt, pos, origin, where: str, pos_where: str, data_where: str, source: str, fail) -> FireballSpec | None:
    """The fireball an entity's data holds (`id`, `Motion`, `acceleration_power` or an older `power` list) at `pos`
    (a list of 3 Doubles) from `origin`, or None for another entity. A field of the wrong kind or a value that is not
    a finite number is refused through `fail(message)`, naming the entity and the field."""
    from nbtlib import Byte, Compound, Double, Float, Int, List, Long, Short

    from scicraft_viz.errors import InputError

    kind = str(nbt.get("id", "")).removeprefix("minecraft:") if isinstance(nbt, Compound) else ""
    if kind not in KINDS:
        return None
    numbers = (Double, Float, Byte, Short, Int, Long)

    def triple(tag, what):
        if not isinstance(tag, List) or len(tag) != 3 or not all(isinstance(v, numbers) for v in tag):
            got = f"a list of {len(tag)} {tag.subtype.__name__}s" if isinstance(tag, List) else (
                "missing" if tag is None else f"a {type(tag).__name__}")
            raise fail(f"{what} ({kind}) is {got}; expected a list of 3 Doubles")
        out = tuple(float(v) for v in tag)
        if not all(math.isfinite(v) for v in out):
            raise fail(f"{what} ({kind}) is {list(out)}; expected finite numbers")
        return out

    at = triple(pos, f"{where}.{pos_where}")
    at = (at[0] + origin[0], at[1] + origin[1], at[2] + origin[2])
    motion = triple(nbt["Motion"], f"{data_where}.Motion") if "Motion" in nbt else (0.0, 0.0, 0.0)
    if "Passengers" in nbt:
        raise fail(f"{where} ({kind}) carries passengers, which the engine does not model")
    power: object = DEFAULT_POWER
    if "acceleration_power" in nbt:
        tag = nbt["acceleration_power"]
        if not isinstance(tag, numbers):
            raise fail(f"{data_where}.acceleration_power ({kind}) is a {type(tag).__name__} {str(tag)[:60]}; "
                       "expected a Double")
        power = float(tag)
        if not math.isfinite(power):
            raise fail(f"{data_where}.acceleration_power ({kind}) is {power}; expected a finite number")
    elif "power" in nbt:
        power = triple(nbt["power"], f"{data_where}.power")
    try:
        return check_fireball(kind, at, motion, power, where)
    except InputError as e:
        raise fail(str(e)) from None


def spec(f: Fireball) -> FireballSpec:
    """A fireball of the world as a build file keeps it (World.saved_entities)."""
    return FireballSpec(f.kind, tuple(f.pos), tuple(f.vel), f.power, f.power_vec)


def to_nbt(f: FireballSpec, pos=None):
    """A fireball's data as `from_data` reads it back: `id`, `Motion`, and its acceleration as it was given
    (`acceleration_power`, or the older `power` list), with `Pos` when given (as the format counts it)."""
    from nbtlib import Compound, Double, List, String

    def doubles(v):
        return List[Double]([Double(x) for x in v])

    tag = Compound({"id": String(f"minecraft:{f.kind}"), "Motion": doubles(f.motion)})
    if f.power_vec is None:
        tag["acceleration_power"] = Double(f.power)
    else:
        tag["power"] = doubles(f.power_vec)
    if pos is not None:
        tag["Pos"] = doubles(pos)
    return tag


def spawn(world, spec: FireballSpec) -> int:
    f = Fireball(world._next_entity, spec.kind, list(spec.pos), list(spec.motion), spec.power, spec.power_vec)
    world._next_entity += 1
    world._fireballs.append(f)
    return f.id


def info(f: Fireball) -> FireballInfo:
    return FireballInfo(f.id, f.kind, tuple(f.pos), tuple(f.vel), None if f.power_vec else f.power, f.power_vec)


# ----------------------------------------------------------------------------- the raycast (ProjectileUtil)
def _clip_box(box, start, delta, best: float):
    """AABB.clip's face test: the first face of `box` the segment start + t delta (0 < t < best) enters, as (t, axis,
    side) with side -1 for the low face, or None."""
    out = None
    for axis in range(3):
        d = delta[axis]
        if d > 1.0e-7:
            face, side = box[axis], -1
        elif d < -1.0e-7:
            face, side = box[axis + 3], 1
        else:
            continue
        t = (face - start[axis]) / d
        if not 0.0 < t < best:
            continue
        ok = True
        for o in range(3):
            if o == axis:
                continue
            c = start[o] + t * delta[o]
            if not box[o] - 1.0e-7 < c < box[o + 3] + 1.0e-7:
                ok = False
                break
        if ok:
            best, out = t, (t, axis, side)
    return out


def _nearest_axis(delta) -> tuple[int, int]:
    """Direction.getNearest's axis and sign for a vector (its largest component, x before y before z on ties)."""
    axis = max(range(3), key=lambda i: (abs(delta[i]), -i))
    return axis, (1 if delta[axis] > 0 else -1)


def _block_hit(start, end, world):
    """Level.clip with the blocks' collision shapes and no fluids: the first block on the segment (walked cell by
    cell as BlockGetter.traverseBlocks walks it), as ((x, y, z), hit point, (axis, side) of the face hit), or None."""
    delta = [end[i] - start[i] for i in range(3)]
    if delta == [0.0, 0.0, 0.0]:
        return None
    a = [end[i] + -1.0e-7 * (start[i] - end[i]) for i in range(3)]  # Mth.lerp(-1e-7, to, from)
    b = [start[i] + -1.0e-7 * (end[i] - start[i]) for i in range(3)]  # Mth.lerp(-1e-7, from, to)
    cell = [math.floor(v) for v in b]

    def test(c):
        boxes = collision_boxes(world.state(*c))
        if not boxes:
            return None
        if delta[0] ** 2 + delta[1] ** 2 + delta[2] ** 2 < 1.0e-7:
            return None
        probe = [start[i] + delta[i] * 0.001 for i in range(3)]
        for bx in boxes:  # the segment starts inside the shape: hit where it starts, on its nearest face
            if all(bx[i] + c[i] <= probe[i] < bx[i + 3] + c[i] for i in range(3)):
                axis, sign = _nearest_axis(delta)
                return tuple(c), tuple(probe), (axis, -sign)
        best, got = 1.0, None
        for bx in boxes:
            box = tuple(bx[i] + c[i % 3] for i in range(6))
            hit = _clip_box(box, start, delta, best)
            if hit is not None:
                best, got = hit[0], hit
        if got is None:
            return None
        t, axis, side = got
        return tuple(c), tuple(start[i] + t * delta[i] for i in range(3)), (axis, side)

    found = test(cell)
    if found is not None:
        return found
    d = [a[i] - b[i] for i in range(3)]
    sign = [(1 if v > 0 else -1 if v < 0 else 0) for v in d]
    step = [1.0 / abs(v) if sign[i] else math.inf for i, v in enumerate(d)]
    frac = [step[i] * ((1.0 - (b[i] - math.floor(b[i]))) if sign[i] > 0 else (b[i] - math.floor(b[i])))
            if sign[i] else math.inf for i in range(3)]
    while any(frac[i] <= 1.0 for i in range(3)):
        if frac[0] < frac[1]:
            axis = 0 if frac[0] < frac[2] else 2
        else:
            axis = 1 if frac[1] < frac[2] else 2
        cell[axis] += sign[axis]
        frac[axis] += step[axis]
        found = test(cell)
        if found is not None:
            return found
    return None


def margin(f: Fireball) -> float:
    """ProjectileUtil.computeMargin: how far the boxes of the entities it may hit are widened (none in its first
    ticks, up to 0.3F)."""
    return max(0.0, min(float(np.float32(0.3)), float(np.float32(f.tick_count - 2) / np.float32(20.0))))


def hit(f: Fireball, world, targets) -> tuple[str, object, tuple] | None:
    """ProjectileUtil.getHitResultOnMoveVector: ("block", (cell, face), point) or ("entity", target, point) for the
    first thing its motion would reach this tick, or None. `targets` are the entities it can hit (minecarts and
    large fireballs, vanilla's pickable entities here), each with a box()."""
    start = tuple(f.pos)
    end = tuple(f.pos[i] + f.vel[i] for i in range(3))
    block = _block_hit(start, end, world)
    out = None
    if block is not None:
        end = block[1]
        out = ("block", (block[0], block[2]), block[1])
    b = f.box()
    v = f.vel
    reach = (min(b[0], b[0] + v[0]) - 1.0, min(b[1], b[1] + v[1]) - 1.0, min(b[2], b[2] + v[2]) - 1.0,
             max(b[3], b[3] + v[0]) + 1.0, max(b[4], b[4] + v[1]) + 1.0, max(b[5], b[5] + v[2]) + 1.0)
    m = margin(f)
    delta = [end[i] - start[i] for i in range(3)]
    best = math.inf
    for t in targets:
        if t is f or t.removed or not intersects(t.box(), reach):
            continue
        tb = t.box()
        grown = (tb[0] - m, tb[1] - m, tb[2] - m, tb[3] + m, tb[4] + m, tb[5] + m)
        got = _clip_box(grown, start, delta, 1.0)
        if got is None:
            continue
        point = tuple(start[i] + got[0] * delta[i] for i in range(3))
        dist = sum((point[i] - start[i]) ** 2 for i in range(3))
        if dist < best:
            best, out = dist, ("entity", t, point)
    return out


def _warn(f: Fireball, what: str, world) -> None:
    key = (f.kind, what.split(" ")[0] + what.split(" ")[1])  # once per kind of fireball and kind of hit
    if key in world._fireball_warned:
        return
    world._fireball_warned.add(key)
    x, y, z = f.pos
    lacks = {"small_fireball": "fire on entities or soul fire", "fireball": "explosions"}.get(f.kind,
                                                                                             "area effect clouds")
    warnings.warn(f"fireball #{f.id} ({f.kind}) at ({x:.4g}, {y:.4g}, {z:.4g}) {what}; the engine has no {lacks}, "
                  "so that effect is left out and the fireball is removed (docs/limits.md)", UserWarning, stacklevel=4)


def _light_fire(world, f: Fireball, cell, face) -> None:
    """SmallFireball.onHitBlock: fire in the cell beside the face hit, when that cell is air (isEmptyBlock)."""
    axis, side = face
    q = list(cell)
    q[axis] += side
    q = tuple(q)
    if world._block_at(q) != "minecraft:air":
        return
    below = world._block_at((q[0], q[1] - 1, q[2])).partition("[")[0].removeprefix("minecraft:")
    if below in ("soul_sand", "soul_soil"):  # BaseFireBlock.getState gives soul fire there, which the engine lacks
        _warn(f, f"would light soul fire at {q}", world)
        return
    world._fluid_set(q, "minecraft:fire")


def tick_fireball(f: Fireball, world, surroundings, targets) -> None:
    """AbstractHurtingProjectile.tick for a fireball with no owner: the raycast along its motion, a hit removing it
    (and lighting fire for a small one), else the move by its motion and the inertia."""
    from scicraft_viz.engine.items import water_height

    f.tick_count += 1
    in_water = water_height(f, surroundings, push=False) is not None
    got = hit(f, surroundings, targets)
    if got is not None:
        what, target, point = got
        if what == "block":
            cell, face = target
            if f.kind == "small_fireball":
                _light_fire(world, f, cell, face)
            else:
                _warn(f, f"hit the block at {cell} and {EFFECT[f.kind]} in the game", world)
        else:
            _warn(f, f"hit entity #{target.id} ({target.kind}) and {EFFECT[f.kind]} in the game", world)
        f.removed = True
        return
    v = f.vel
    f.pos = [f.pos[0] + v[0], f.pos[1] + v[1], f.pos[2] + v[2]]
    k = WATER_INERTIA if in_water else INERTIA
    if f.power_vec is not None:
        a = f.power_vec
    else:
        n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        a = (0.0, 0.0, 0.0) if n < 1.0e-4 else (v[0] / n * f.power, v[1] / n * f.power, v[2] / n * f.power)
    f.vel = [(v[0] + a[0]) * k, (v[1] + a[1]) * k, (v[2] + a[2]) * k]


def move(f: Fireball, movement: list[float], world) -> None:
    """Entity.move for a fireball pushed by a moving block: blocks stop it, and a face it runs into stops its motion
    across that face."""
    got = collide(f.box(), movement, world)
    f.pos = [f.pos[0] + got[0], f.pos[1] + got[1], f.pos[2] + got[2]]
    hit_x = abs(got[0] - movement[0]) >= 1.0e-5
    hit_z = abs(got[2] - movement[2]) >= 1.0e-5
    hit_y = got[1] != movement[1]
    f.vel = [0.0 if hit_x else f.vel[0], 0.0 if hit_y else f.vel[1], 0.0 if hit_z else f.vel[2]]


def tick_all(world) -> None:
    """The fireballs' part of the entity phase, in spawn order."""
    from scicraft_viz.engine.push import moving_boxes

    surroundings = moving_boxes(world)
    targets = [c for c in world._carts if not c.removed] + [o for o in world._fireballs if o.kind == "fireball"]
    for f in world._fireballs:
        if not f.removed:
            tick_fireball(f, world, surroundings, targets)
            if f.removed and f.kind == "small_fireball":
                surroundings = moving_boxes(world)  # the fire it lit
    world._fireballs = [f for f in world._fireballs if not f.removed]
