"""Minecarts: the plain minecart, the chest and hopper minecarts and the furnace minecart, moving on rails and off them
as vanilla's default (non-experimental) minecart behaviour moves them (Java 1.21 and later; docs/redstone.md sections
74-76, the furnace minecart's fuel and push section 94).

Positions and velocities are doubles, as vanilla keeps them; a container cart's slowdown is a 32-bit float sum,
widened here from that float, so trajectories agree with the game's to the last bits. The world (engine/world.py)
owns the list and calls `tick_all`, which ticks each cart in spawn order (its move, then its push on the carts it
touches, then the detector rails it sets off) during the entity phase of a game tick, after the scheduled ticks and
block events."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from scicraft_viz.engine.items import EPS, Surroundings, collide, intersects, moved_box

KINDS = ("minecart", "chest_minecart", "hopper_minecart", "furnace_minecart")
SLOTS = {"minecart": 0, "chest_minecart": 27, "hopper_minecart": 5, "furnace_minecart": 0}
CONTAINERS = ("chest_minecart", "hopper_minecart")
FURNACE = "furnace_minecart"
MAX_FUEL = 32767  # the most its `Fuel` (a Short) can hold
MAX_PUSH = 6.0e7  # a push is a position less a player's: each component within twice the world's reach
GRAVITY = 0.04  # AbstractMinecart.getDefaultGravity (out of water)
# EntityType.MINECART's box: 0.98F x 0.7F, floats (its half width is the float 0.98F / 2)
HALF_WIDTH, HEIGHT = float(np.float32(0.98) / np.float32(2.0)), float(np.float32(0.7))
MAX_SPEED = 8.0 / 20.0  # OldMinecartBehavior.getMaxSpeed out of water: 0.4 blocks a tick
FURNACE_MAX_SPEED = MAX_SPEED * 0.5  # MinecartFurnace.getMaxSpeed out of water: half a plain cart's
FURNACE_KEEP = 0.8  # a pushing furnace cart keeps 0.8 of its velocity before the push is added
FURNACE_IDLE = 0.98  # without a push it keeps 0.98 (before the 0.96 every cart keeps)
SLOPE_PULL = 0.0078125  # the downhill push of an ascending rail
SLOWDOWN = 0.96  # OldMinecartBehavior.getSlowdownFactor without a passenger
# a cart's air drag off rails, a float in 26.2 (Nucleation's transcription, CART_AIR_DRAG; their cart_ledge capture)
AIR_DRAG = float(np.float32(0.95))
BOOST = 0.06  # a powered rail's push along the motion
BRAKE_STOP = 0.03  # an unpowered powered rail stops a cart slower than this, else halves its speed
START_PUSH = 0.02  # a powered rail starts a resting cart away from a conductor at one end
DETECTOR_RECHECK = 20  # DetectorRailBlock.PRESSED_CHECK_PERIOD
# DetectorRailBlock.getSearchBB: the cell inset 0.2 on every side but the bottom
DETECTOR_BOX = (0.2, 0.0, 0.2, 0.8, 0.8, 0.8)
RAIL_NAMES = ("rail", "powered_rail", "detector_rail", "activator_rail")

# AbstractMinecart.EXITS: the two ends of each rail shape, as (dx, dy, dz) from the rail's cell
_W, _E, _N, _S = (-1, 0, 0), (1, 0, 0), (0, 0, -1), (0, 0, 1)
EXITS = {
    "north_south": (_N, _S), "east_west": (_W, _E),
    "ascending_east": ((-1, -1, 0), _E), "ascending_west": (_W, (1, -1, 0)),
    "ascending_north": (_N, (0, -1, 1)), "ascending_south": ((0, -1, -1), _S),
    "south_east": (_S, _E), "south_west": (_S, _W), "north_west": (_N, _W), "north_east": (_N, _E),
}
# the shapes that pull a cart downhill (along x or z) and seat it a block higher
_SLOPE = {"ascending_east": (-SLOPE_PULL, 0.0), "ascending_west": (SLOPE_PULL, 0.0),
          "ascending_north": (0.0, SLOPE_PULL), "ascending_south": (0.0, -SLOPE_PULL)}


@dataclass
class Minecart:
    """One minecart: its kind (KINDS), its box's bottom centre `pos` and `vel` in blocks per tick, a container
    cart's slots ((item id, count) or None), and a furnace cart's `fuel` (game ticks left) and `push` (vanilla's
    MinecartFurnace.push, x, y, z: the drive it adds to its velocity on rails while it has fuel)."""

    id: int
    kind: str
    pos: list[float]
    vel: list[float]
    slots: tuple = ()
    on_ground: bool = False
    on_rails: bool = False
    removed: bool = field(default=False, repr=False)
    yaw: float = field(default=0.0, repr=False)  # Entity.yRot, a float in degrees: the push between carts reads it
    flipped: bool = field(default=False, repr=False)
    others: list = field(default_factory=list, repr=False)  # the other carts' boxes, which stop this one's move
    # Entity.pistonDeltas: (game tick, x, y, z) of the pushes moving blocks gave it in that tick (engine/push.py)
    piston_deltas: list | None = field(default=None, repr=False, compare=False)
    fuel: int = 0
    push: list = field(default_factory=lambda: [0.0, 0.0, 0.0])
    enabled: bool = True  # a hopper cart's Enabled: it takes items only when set (an activator rail clears it)

    def box(self) -> tuple[float, float, float, float, float, float]:
        x, y, z = self.pos
        return (x - HALF_WIDTH, y, z - HALF_WIDTH, x + HALF_WIDTH, y + HEIGHT, z + HALF_WIDTH)

    def fill_level(self) -> int:
        """What a comparator reads from the cart's container through a detector rail (0 for a plain cart)."""
        from scicraft_viz.engine import blocks as B
        from scicraft_viz.engine import containers

        if self.kind not in CONTAINERS:
            return 0
        return containers.fill_level(self.slots, B.CHEST, size=SLOTS[self.kind])

    def block(self) -> int:
        """The container block whose rules its slots follow (a chest's for a chest cart, a hopper's for a hopper
        cart: every slot takes and gives any item)."""
        from scicraft_viz.engine import blocks as B

        return B.CHEST if self.kind == "chest_minecart" else B.HOPPER

    def slowdown(self) -> float:
        """AbstractMinecart.applyNaturalSlowdown's factor: 0.96 for a plain or furnace cart; a container cart's is the
        float 0.98 + 0.001 for each level its contents fall short of 15."""
        if self.kind not in CONTAINERS:
            return SLOWDOWN
        f = np.float32(0.98) + np.float32(15 - self.fill_level()) * np.float32(0.001)
        return float(np.float32(f))

    def max_speed(self) -> float:
        """AbstractMinecart.getMaxSpeed out of water: the most its move takes along x or z in one tick."""
        return FURNACE_MAX_SPEED if self.kind == FURNACE else MAX_SPEED


def _push_along(push: list[float], v: list[float]) -> list[float]:
    """MinecartFurnace.calculateNewPushAlong: the push turned onto the line of the velocity `v` (its three
    components, the y gravity left in it included), keeping its length, when both are long enough horizontally."""
    if push[0] * push[0] + push[2] * push[2] > 1.0e-4 and v[0] * v[0] + v[2] * v[2] > 0.001:
        dot = push[0] * v[0] + push[1] * v[1] + push[2] * v[2]
        inv = 1.0 / (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        q = [v[0] * dot * inv, v[1] * dot * inv, v[2] * dot * inv]  # Vec3.projectedOn
        n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2])
        if n < _NORMALIZE_MIN:  # Vec3.normalize gives zero
            return [0.0, 0.0, 0.0]
        length = math.sqrt(push[0] * push[0] + push[1] * push[1] + push[2] * push[2])
        return [q[0] / n * length, q[1] / n * length, q[2] / n * length]
    return push


_NORMALIZE_MIN = float(np.float32(1.0e-5))


def _natural_slowdown(c: Minecart) -> None:
    """applyNaturalSlowdown after a move along a rail: a furnace cart with a push (longer than 1e-7 squared) turns it
    along its velocity and adds it to 0.8 of that velocity, without one keeps 0.98 of it; then every cart keeps its
    slowdown factor horizontally and loses its vertical speed."""
    v = c.vel
    if c.kind == FURNACE:
        p = c.push
        if p[0] * p[0] + p[1] * p[1] + p[2] * p[2] > 1.0e-7:
            c.push = p = _push_along(p, v)
            v = [v[0] * FURNACE_KEEP + p[0], v[1] * 0.0 + p[1], v[2] * FURNACE_KEEP + p[2]]
        else:
            v = [v[0] * FURNACE_IDLE, v[1] * 0.0, v[2] * FURNACE_IDLE]
    k = c.slowdown()
    c.vel = [v[0] * k, v[1] * 0.0, v[2] * k]


def rail_shape(world: Surroundings, p: tuple[int, int, int]) -> str | None:
    """The shape of the rail at p, or None when no rail is there."""
    name = world.name(*p)
    if name not in RAIL_NAMES:
        return None
    state = world.state(*p)
    return state.split("shape=", 1)[1].split(",", 1)[0].rstrip("]")


def rail_pos(c: Minecart, world: Surroundings) -> tuple[int, int, int]:
    """AbstractMinecart.getCurrentBlockPosOrRailBelow: the cart's cell, or the one below when a rail is there."""
    x, y, z = (math.floor(v) for v in c.pos)
    if world.name(x, y - 1, z) in RAIL_NAMES:
        y -= 1
    return x, y, z


def _seat(world: Surroundings, d: float, e: float, f: float) -> tuple[float, float, float] | None:
    """OldMinecartBehavior.getPos: the point of the rail under (d, e, f) nearest it, at the cart's height."""
    i, j, k = math.floor(d), math.floor(e), math.floor(f)
    if world.name(i, j - 1, k) in RAIL_NAMES:
        j -= 1
    shape = rail_shape(world, (i, j, k))
    if shape is None:
        return None
    a, b = EXITS[shape]
    g, h, m0 = i + 0.5 + a[0] * 0.5, j + 0.0625 + a[1] * 0.5, k + 0.5 + a[2] * 0.5
    m, n, o = i + 0.5 + b[0] * 0.5, j + 0.0625 + b[1] * 0.5, k + 0.5 + b[2] * 0.5
    p, q, r = m - g, (n - h) * 2.0, o - m0
    if p == 0.0:
        s = f - k
    elif r == 0.0:
        s = d - i
    else:
        s = ((d - g) * p + (f - m0) * r) * 2.0
    x, y, z = g + p * s, h + q * s, m0 + r * s
    if q < 0.0:
        y += 1.0
    elif q > 0.0:
        y += 0.5
    return x, y, z


def _move(c: Minecart, movement: list[float], world: Surroundings) -> None:
    """Entity.move for a cart (MoverType.SELF) against blocks: the position, the ground, and the velocity a
    collision stops."""
    got = _collide(c.box(), movement, world, c.others)
    d = got[0] * got[0] + got[1] * got[1] + got[2] * got[2]
    if d > EPS or movement[0] ** 2 + movement[1] ** 2 + movement[2] ** 2 - d < EPS:
        c.pos = [c.pos[0] + got[0], c.pos[1] + got[1], c.pos[2] + got[2]]
    hit_x = abs(got[0] - movement[0]) >= 1.0e-5
    hit_z = abs(got[2] - movement[2]) >= 1.0e-5
    hit_y = got[1] != movement[1]
    c.on_ground = hit_y and movement[1] < 0.0
    if hit_x or hit_z:
        c.vel = [0.0 if hit_x else c.vel[0], c.vel[1], 0.0 if hit_z else c.vel[2]]
    if hit_y:  # Block.updateEntityMovementAfterFallOn (slime's bounce is not modelled for carts)
        c.vel[1] = 0.0


def _collide(box, movement: list[float], world: Surroundings, others) -> list[float]:
    """Entity.collide against blocks and the boxes of other minecarts in the way (vanilla's entity collision shapes:
    a cart is solid to another), Y first, then the larger horizontal axis."""
    if not others:
        return collide(box, movement, world)
    from scicraft_viz.engine.items import _clip

    swept = (min(box[0], box[0] + movement[0]), min(box[1], box[1] + movement[1]), min(box[2], box[2] + movement[2]),
             max(box[3], box[3] + movement[0]), max(box[4], box[4] + movement[1]), max(box[5], box[5] + movement[2]))
    near = (swept[0] - 1e-7, swept[1] - 1e-7, swept[2] - 1e-7, swept[3] + 1e-7, swept[4] + 1e-7, swept[5] + 1e-7)
    boxes = world.boxes_near(swept) + [o for o in others if intersects(o, near)]
    out = [0.0, 0.0, 0.0]
    for axis in (1, 2, 0) if abs(movement[0]) < abs(movement[2]) else (1, 0, 2):
        if movement[axis] != 0.0:
            out[axis] = _clip(axis, moved_box(box, out), boxes, movement[axis])
    return out


def _horizontal(v: list[float]) -> float:
    return math.sqrt(v[0] * v[0] + v[2] * v[2])


def _clamp(v: float, lo: float, hi: float) -> float:
    return lo if v < lo else hi if v > hi else v


def _move_along_track(c: Minecart, p: tuple[int, int, int], shape: str, world: Surroundings, conductor) -> None:
    """OldMinecartBehavior.moveAlongTrack, without passengers."""
    d, e, f = c.pos
    before = _seat(world, d, e, f)
    e = float(p[1])
    name = world.name(*p)
    boost = brake = False
    if name == "powered_rail":
        boost = "powered=true" in world.state(*p)
        brake = not boost
    if shape in _SLOPE:
        sx, sz = _SLOPE[shape]
        c.vel = [c.vel[0] + sx, c.vel[1], c.vel[2] + sz]
        e += 1.0
    a, b = EXITS[shape]
    h, i = float(b[0] - a[0]), float(b[2] - a[2])
    j = math.sqrt(h * h + i * i)
    if c.vel[0] * h + c.vel[2] * i < 0.0:
        h, i = -h, -i
    speed = min(2.0, _horizontal(c.vel))
    c.vel = [speed * h / j, c.vel[1], speed * i / j]
    if brake:
        if _horizontal(c.vel) < BRAKE_STOP:
            c.vel = [0.0, 0.0, 0.0]
        else:
            c.vel = [c.vel[0] * 0.5, c.vel[1] * 0.0, c.vel[2] * 0.5]
    m, n = p[0] + 0.5 + a[0] * 0.5, p[2] + 0.5 + a[2] * 0.5
    o, q = p[0] + 0.5 + b[0] * 0.5, p[2] + 0.5 + b[2] * 0.5
    h, i = o - m, q - n
    if h == 0.0:
        t = f - p[2]
    elif i == 0.0:
        t = d - p[0]
    else:
        t = ((d - m) * h + (f - n) * i) * 2.0
    c.pos = [m + h * t, e, n + i * t]
    top = c.max_speed()
    _move(c, [_clamp(c.vel[0], -top, top), 0.0, _clamp(c.vel[2], -top, top)], world)
    fx, fz = math.floor(c.pos[0]) - p[0], math.floor(c.pos[2]) - p[2]
    if a[1] != 0 and fx == a[0] and fz == a[2]:
        c.pos[1] += a[1]
    elif b[1] != 0 and fx == b[0] and fz == b[2]:
        c.pos[1] += b[1]
    _natural_slowdown(c)
    after = _seat(world, *c.pos)
    if after is not None and before is not None:
        drop = (before[1] - after[1]) * 0.05
        u = _horizontal(c.vel)
        if u > 0.0:
            c.vel = [c.vel[0] * ((u + drop) / u), c.vel[1], c.vel[2] * ((u + drop) / u)]
        c.pos[1] = after[1]
    v, w = math.floor(c.pos[0]), math.floor(c.pos[2])
    if v != p[0] or w != p[2]:
        u = _horizontal(c.vel)
        c.vel = [u * (v - p[0]), c.vel[1], u * (w - p[2])]
    if boost:
        u = _horizontal(c.vel)
        if u > 0.01:
            c.vel = [c.vel[0] + c.vel[0] / u * BOOST, c.vel[1], c.vel[2] + c.vel[2] / u * BOOST]
        elif shape == "east_west":
            if conductor((p[0] - 1, p[1], p[2])):
                c.vel = [START_PUSH, c.vel[1], c.vel[2]]
            elif conductor((p[0] + 1, p[1], p[2])):
                c.vel = [-START_PUSH, c.vel[1], c.vel[2]]
        elif shape == "north_south":
            if conductor((p[0], p[1], p[2] - 1)):
                c.vel = [c.vel[0], c.vel[1], START_PUSH]
            elif conductor((p[0], p[1], p[2] + 1)):
                c.vel = [c.vel[0], c.vel[1], -START_PUSH]


def _come_off_track(c: Minecart, world: Surroundings) -> None:
    """AbstractMinecart.comeOffTrack: the speed clamped to the maximum, halved on the ground, then a free move with
    air drag 0.95F (the float, 0.949999988079071) while airborne; a furnace cart's push does nothing off rails."""
    top = c.max_speed()
    c.vel = [_clamp(c.vel[0], -top, top), c.vel[1], _clamp(c.vel[2], -top, top)]
    if c.on_ground:
        c.vel = [v * 0.5 for v in c.vel]
    _move(c, list(c.vel), world)
    if not c.on_ground:
        c.vel = [v * AIR_DRAG for v in c.vel]


def tick_cart(c: Minecart, world: Surroundings, conductor) -> None:
    """OldMinecartBehavior.tick on the server, without passengers, up to its push (the world runs
    `push_neighbours` next): gravity, the move along the rail the cart is on (or off rails), then its heading.
    `conductor(p)` tells whether the block at p conducts redstone (a powered rail starts a resting cart away from
    one)."""
    c.vel = [c.vel[0], c.vel[1] - GRAVITY, c.vel[2]]
    xo, zo, yaw_before = c.pos[0], c.pos[2], c.yaw
    p = rail_pos(c, world)
    shape = rail_shape(world, p)
    c.on_rails = shape is not None
    if shape is not None:
        # the rail's state as it was before the move: a powered activator rail disables a hopper cart, an
        # unpowered one enables it again (MinecartHopper.activateMinecart; other kinds do nothing)
        activator = world.name(*p) == "activator_rail" and world.state(*p)
        _move_along_track(c, p, shape, world, conductor)
        if activator and c.kind == "hopper_minecart":
            c.enabled = "powered=true" not in activator
    else:
        _come_off_track(c, world)
    # the heading: along the tick's travel when it cleared 0.001 squared, turned half round when it swings by 170
    # degrees or more (the cart is then `flipped`), each step a float as vanilla keeps yRot
    d, e = xo - c.pos[0], zo - c.pos[2]
    if d * d + e * e > 0.001:
        c.yaw = _f32(math.degrees(math.atan2(e, d)))
        if c.flipped:
            c.yaw = _f32(c.yaw + np.float32(180.0))
    f = (c.yaw - yaw_before) % 360.0
    if f >= 180.0:
        f -= 360.0
    if f < -170.0 or f >= 170.0:
        c.yaw = _f32(c.yaw + np.float32(180.0))
        c.flipped = not c.flipped
    c.yaw = float(np.fmod(np.float32(c.yaw), np.float32(360.0)))
    if c.kind == FURNACE:  # MinecartFurnace.tick after the move: a tick of fuel burns; out of fuel, the push is gone
        if c.fuel > 0:
            c.fuel -= 1
        if c.fuel <= 0:
            c.push = [0.0, 0.0, 0.0]


def _f32(v) -> float:
    return float(np.float32(v))


# Mth.SIN: the float table of 65536 samples of a turn that vanilla's Mth.sin and Mth.cos read
_SIN = np.sin(np.arange(65536, dtype=np.float64) * (2.0 * math.pi / 65536.0)).astype(np.float32)
PUSH = float(np.float32(0.05))  # the push between carts, a float in vanilla
PUSH_REACH = float(np.float32(0.2))  # how far beyond a cart's box (sideways) it pushes others


def _mth(radians: np.float32, quarter: int) -> float:
    i = int(np.float32(radians * np.float32(10430.378)) + np.float32(quarter)) if quarter else int(
        np.float32(radians * np.float32(10430.378)))
    return float(_SIN[i & 0xFFFF])


def push(this: Minecart, by: Minecart) -> None:
    """AbstractMinecart.push(entity) of cart `this` by the cart `by`: when `by` lies ahead of or behind `this` (its
    heading within about 37 degrees), each keeps 0.2 of its velocity and both take the pair's mean, pushed apart by
    0.05 (less when farther than a block); between a furnace cart and another kind, the other keeps 0.2 of its own
    and takes the furnace cart's velocity, pushed apart by the same amount, and the furnace cart keeps 0.95 of its
    velocity."""
    dx, dz = by.pos[0] - this.pos[0], by.pos[2] - this.pos[2]
    sq = dx * dx + dz * dz
    if not sq >= 1.0e-4:
        return
    dist = math.sqrt(sq)
    k = min(1.0 / dist, 1.0)
    px, pz = dx / dist * k * PUSH, dz / dist * k * PUSH
    r = np.float32(np.float32(this.yaw) * np.float32(math.pi / 180.0))
    fx, fz = _mth(r, 16384), _mth(r, 0)
    n = math.sqrt(fx * fx + fz * fz)
    if abs(dx / dist * (fx / n) + dz / dist * (fz / n)) < 0.800000011920929:
        return
    mine, theirs = this.vel, by.vel
    if by.kind == FURNACE and this.kind != FURNACE:  # a furnace cart hands its velocity on and keeps 0.95 of it
        this.vel = [mine[0] * 0.2 + (theirs[0] - px), mine[1], mine[2] * 0.2 + (theirs[2] - pz)]
        by.vel = [theirs[0] * 0.95, theirs[1], theirs[2] * 0.95]
    elif this.kind == FURNACE and by.kind != FURNACE:
        by.vel = [theirs[0] * 0.2 + (mine[0] + px), theirs[1], theirs[2] * 0.2 + (mine[2] + pz)]
        this.vel = [mine[0] * 0.95, mine[1], mine[2] * 0.95]
    else:
        mx, mz = (theirs[0] + mine[0]) / 2.0, (theirs[2] + mine[2]) / 2.0
        this.vel = [mine[0] * 0.2 + (mx - px), mine[1], mine[2] * 0.2 + (mz - pz)]
        by.vel = [theirs[0] * 0.2 + (mx + px), theirs[1], theirs[2] * 0.2 + (mz + pz)]


def push_neighbours(c: Minecart, carts: list) -> None:
    """OldMinecartBehavior.pushAndPickupEntities between carts: every other cart whose box meets this one's,
    widened by 0.2 sideways, is pushed by it."""
    b = c.box()
    reach = (b[0] - PUSH_REACH, b[1], b[2] - PUSH_REACH, b[3] + PUSH_REACH, b[4], b[5] + PUSH_REACH)
    for o in carts:
        if o is not c and not o.removed and intersects(reach, o.box()):
            push(o, c)


def detector_cells(c: Minecart) -> list[tuple[int, int, int]]:
    """The cells the cart's box (deflated by 1e-5) reaches into: those whose blocks' entityInside it sets off."""
    b = c.box()
    return [(x, y, z) for x in range(math.floor(b[0] + 1e-5), math.floor(b[3] - 1e-5) + 1)
            for y in range(math.floor(b[1] + 1e-5), math.floor(b[4] - 1e-5) + 1)
            for z in range(math.floor(b[2] + 1e-5), math.floor(b[5] - 1e-5) + 1)]


def container_in(carts: list, box) -> Minecart | None:
    """The first chest or hopper cart, in spawn order, whose box meets `box` (vanilla's HopperBlockEntity.getContainerAt
    picks one of the container entities there at random; see docs/limits.md)."""
    for c in carts:
        if not c.removed and c.kind in CONTAINERS and intersects(c.box(), box):
            return c
    return None


def on_detector(c: Minecart, p: tuple[int, int, int]) -> bool:
    """Whether the detector rail at p counts the cart (its box meets the rail's search box)."""
    return not c.removed and intersects(c.box(), moved_box(DETECTOR_BOX, p))


# ----------------------------------------------------------------------------- the world's side
class CartInfo(NamedTuple):
    """A minecart as `World.minecarts` lists it: its kind (minecart, chest_minecart, hopper_minecart,
    furnace_minecart), `pos` its box's bottom centre, `velocity` in blocks per game tick, `on_rails` whether its last
    tick moved it along a rail, a container cart's slots in order ((item id, count), or None for an empty slot), and a
    furnace cart's `fuel` (game ticks left) and `push` (x, z: the drive it adds on rails, vanilla's PushX and
    PushZ)."""

    id: int
    kind: str
    pos: tuple[float, float, float]
    velocity: tuple[float, float, float]
    on_rails: bool
    slots: tuple = ()
    fuel: int = 0
    push: tuple[float, float] = (0.0, 0.0)
    enabled: bool = True  # a hopper cart takes items only while enabled (vanilla's Enabled)


class CartSpec(NamedTuple):
    """A minecart as a build file gives it: kind, position, motion, a container cart's slots and a furnace cart's fuel
    and push."""

    kind: str
    pos: tuple[float, float, float]
    motion: tuple[float, float, float]
    slots: tuple = ()
    yaw: float = 0.0  # its heading in degrees (a float), which decides which carts it lets push it
    fuel: int = 0  # a furnace cart's game ticks of fuel (vanilla's Fuel)
    push: tuple[float, float] = (0.0, 0.0)  # a furnace cart's drive (vanilla's PushX, PushZ)
    enabled: bool = True  # a hopper cart's Enabled (an activator rail sets and clears it)


def check_fuel(fuel: object, where: str) -> int:
    """A furnace cart's fuel: a whole number of game ticks from 0 to 32767 (vanilla keeps it in a Short), or
    InputError naming `where`."""
    from numbers import Integral

    from scicraft_viz.errors import InputError

    if not isinstance(fuel, Integral) or isinstance(fuel, bool) or not 0 <= fuel <= MAX_FUEL:
        raise InputError(f"{where} must be a whole number of game ticks from 0 to {MAX_FUEL}, got {fuel!r}"[:300])
    return int(fuel)


def check_push(value: object, where: str) -> float:
    """One component of a furnace cart's push: a finite number within MAX_PUSH blocks, or InputError naming
    `where`."""
    from numbers import Real

    from scicraft_viz.errors import InputError

    if not isinstance(value, Real) or isinstance(value, bool) or not math.isfinite(value) or abs(value) > MAX_PUSH:
        raise InputError(f"{where} must be a finite number of blocks within {MAX_PUSH:,.0f}, got {value!r}"[:300])
    return float(value)


def check_cart(kind: object, pos: object, velocity: object, items: object, where: str,
               yaw: object = 0.0, fuel: object = 0, push: object = (0.0, 0.0), enabled: object = True) -> CartSpec:
    """A minecart's fields checked as `World.spawn_minecart` takes them, or InputError starting with `where`."""
    from scicraft_viz.engine import blocks as B
    from scicraft_viz.engine import containers
    from scicraft_viz.engine.world import _real_triple
    from scicraft_viz.errors import InputError

    name = kind.removeprefix("minecraft:") if isinstance(kind, str) else kind
    if name not in KINDS:
        raise InputError(f"{where}: the kind must be one of {', '.join(KINDS)}, got {kind!r}"[:300])
    at = _real_triple(pos, f"{where}: the position")
    vel = _real_triple(velocity, f"{where}: the velocity")
    if any(abs(v) > 3e7 for v in at) or any(abs(v) > 10.0 for v in vel):
        raise InputError(f"{where}: the position must lie within 30,000,000 blocks and each velocity component "
                         f"within 10 blocks a tick, got {at} and {vel}")
    from numbers import Real

    if not isinstance(yaw, Real) or isinstance(yaw, bool) or not math.isfinite(yaw):
        raise InputError(f"{where}: the yaw must be a finite number of degrees, got {yaw!r}"[:300])
    slots: tuple = ()
    if name == FURNACE:
        fuel = check_fuel(fuel, f"{where}: the fuel")
        if not isinstance(push, (tuple, list)) or len(push) != 2:
            raise InputError(f"{where}: the push must be (x, z), two numbers, got {push!r}"[:300])
        push = (check_push(push[0], f"{where}: the push's x"), check_push(push[1], f"{where}: the push's z"))
    elif not (isinstance(fuel, int) and fuel == 0 and isinstance(push, (tuple, list))
              and all(isinstance(v, (int, float)) and v == 0 for v in push)):
        raise InputError(f"{where}: only a furnace minecart takes fuel and a push, not a {name}")
    else:
        push = (0.0, 0.0)
    if name in ("minecart", FURNACE):
        if items not in (None, (), []):
            raise InputError(f"{where}: a {'plain' if name == 'minecart' else 'furnace'} minecart holds no items")
    else:
        block = B.CHEST if name == "chest_minecart" else B.HOPPER
        filled = containers.slot_stacks(items if items is not None else [], block, where)
        slots = containers.padded(filled, block)
    if not isinstance(enabled, bool):
        raise InputError(f"{where}: enabled must be True or False, got {enabled!r}"[:300])
    if not enabled and name != "hopper_minecart":
        raise InputError(f"{where}: only a hopper minecart can be disabled, not a {name}")
    return CartSpec(name, at, vel, slots, float(yaw), int(fuel), push, enabled)


def from_data(nbt, pos, origin, where: str, pos_where: str, data_where: str, source: str, fail) -> CartSpec | None:
    """The minecart an entity's data holds (`id`, `Motion`, `Items`; a hopper cart's `Enabled`; a furnace cart's `Fuel`,
    `PushX`, `PushZ`) at
    `pos` (a list of 3 Doubles) from `origin`, or None for another entity."""
    from nbtlib import Compound, Double, Float, List

    from scicraft_viz.engine import blocks as B
    from scicraft_viz.engine.blockentity import read_items
    from scicraft_viz.errors import InputError

    kind = str(nbt.get("id", "")).removeprefix("minecraft:") if isinstance(nbt, Compound) else ""
    if kind not in KINDS:
        return None

    def triple(tag, what):
        if not isinstance(tag, List) or len(tag) != 3 or not all(isinstance(v, Double) for v in tag):
            got = f"a list of {len(tag)} {tag.subtype.__name__}s" if isinstance(tag, List) else (
                "missing" if tag is None else f"a {type(tag).__name__}")
            raise fail(f"{what} is {got}; expected a list of 3 Doubles")
        return tuple(float(v) for v in tag)

    at = triple(pos, f"{where}.{pos_where}")
    at = (at[0] + origin[0], at[1] + origin[1], at[2] + origin[2])
    motion = triple(nbt["Motion"], f"{data_where}.Motion") if "Motion" in nbt else (0.0, 0.0, 0.0)
    if not all(math.isfinite(v) for v in motion):  # vanilla drops a non-finite Motion
        motion = (0.0, 0.0, 0.0)
    if "Passengers" in nbt:
        raise fail(f"{where} ({kind}) carries passengers, which the engine does not model")
    items = []
    if kind in CONTAINERS and "Items" in nbt and all(math.isfinite(v) for v in at):
        block = B.CHEST if kind == "chest_minecart" else B.HOPPER
        cell = tuple(math.floor(v) for v in at)
        items = list(read_items(nbt, block, source, f"{data_where} ({kind})", cell))
    rot = nbt.get("Rotation")
    yaw = float(rot[0]) if isinstance(rot, List) and len(rot) == 2 and all(isinstance(v, Float) for v in rot) else 0.0
    fuel, push = 0, (0.0, 0.0)
    if kind == FURNACE:
        fuel, push = _furnace_fields(nbt, data_where, fail)
    enabled = True  # MinecartHopper.readAdditionalSaveData: Enabled, true when absent
    if kind == "hopper_minecart" and "Enabled" in nbt:
        from nbtlib import Byte

        tag = nbt["Enabled"]
        if not isinstance(tag, Byte):
            raise fail(f"{data_where}.Enabled (hopper_minecart) is a {type(tag).__name__} {str(tag)[:60]}; "
                       "expected a Byte (0: disabled)")
        enabled = int(tag) != 0
    try:
        got = check_cart(kind, at, motion, items, where, yaw if math.isfinite(yaw) else 0.0, fuel, push)
    except InputError as e:
        raise fail(str(e)) from None
    return got._replace(enabled=enabled)


def _furnace_fields(nbt, where: str, fail) -> tuple[int, tuple[float, float]]:
    """A furnace cart's `Fuel` (an integer tag, 0 to 32767 game ticks; 0 when absent) and `PushX`, `PushZ` (number
    tags, finite; 0 when absent), as MinecartFurnace.readAdditionalSaveData reads them; anything else is refused
    through `fail`, naming the field."""
    from nbtlib import Byte, Double, Float, Int, Long, Short

    from scicraft_viz.errors import InputError

    def shown(tag) -> str:
        return f"{type(tag).__name__} {str(tag)[:60]}"

    def field(key: str) -> str:
        return f"{where}.{key} (furnace_minecart)"

    fuel_tag = nbt.get("Fuel")
    fuel = 0
    if fuel_tag is not None:
        if not isinstance(fuel_tag, (Byte, Short, Int, Long)):
            raise fail(f"{field('Fuel')} is a {shown(fuel_tag)}; expected a Short of game ticks from 0 to {MAX_FUEL}")
        try:
            fuel = check_fuel(int(fuel_tag), field("Fuel"))
        except InputError as e:
            raise fail(str(e)) from None
    push = []
    for key in ("PushX", "PushZ"):
        tag = nbt.get(key)
        if tag is None:
            push.append(0.0)
            continue
        if not isinstance(tag, (Double, Float, Byte, Short, Int, Long)):
            raise fail(f"{field(key)} is a {shown(tag)}; expected a Double")
        try:
            push.append(check_push(float(tag), field(key)))
        except InputError as e:
            raise fail(str(e)) from None
    return fuel, (push[0], push[1])
def to_nbt(cart: CartSpec, pos=None):
    """A minecart's data as vanilla saves it (the file's DataVersion is 1.20.1's): `id`, `Motion`, `Rotation` (its
    yaw and a pitch of 0, Floats), a container cart's `Items` (Slot, id, Count), a hopper cart's `Enabled` (a Byte),
    a furnace cart's `Fuel`, `PushX` and `PushZ`, and `Pos` when given (the position as the format counts it);
    `from_data` reads it back."""
    from nbtlib import Byte, Compound, Double, Float, List, Short, String

    from scicraft_viz.engine.blockentity import items_tag

    tag = Compound({"id": String(f"minecraft:{cart.kind}"),
                    "Motion": List[Double]([Double(v) for v in cart.motion]),
                    "Rotation": List[Float]([Float(cart.yaw), Float(0.0)])})
    if cart.kind in CONTAINERS:
        tag["Items"] = items_tag(cart.slots)
    if cart.kind == "hopper_minecart":
        tag["Enabled"] = Byte(int(cart.enabled))
    elif cart.kind == FURNACE:  # MinecartFurnace.addAdditionalSaveData: the push's y is not kept
        tag.update({"Fuel": Short(cart.fuel), "PushX": Double(cart.push[0]), "PushZ": Double(cart.push[1])})
    if pos is not None:
        tag["Pos"] = List[Double]([Double(v) for v in pos])
    return tag


def spec(c: Minecart) -> CartSpec:
    """A cart of the world as a build file keeps it (World.saved_entities)."""
    return CartSpec(c.kind, tuple(c.pos), tuple(c.vel), tuple(c.slots), c.yaw, c.fuel, (c.push[0], c.push[2]),
                    c.enabled)


def spawn(world, spec: CartSpec) -> int:
    """Add a minecart to the world's entities (after those already there); returns its id."""
    c = Minecart(world._next_entity, spec.kind, list(spec.pos), list(spec.motion), tuple(spec.slots),
                 yaw=float(np.fmod(np.float32(spec.yaw), np.float32(360.0))), fuel=spec.fuel,
                 push=[spec.push[0], 0.0, spec.push[1]], enabled=spec.enabled)
    world._next_entity += 1
    world._carts.append(c)
    count_on_detectors(world)
    return c.id


def info(c: Minecart) -> CartInfo:
    return CartInfo(c.id, c.kind, tuple(c.pos), tuple(c.vel), c.on_rails, tuple(c.slots), c.fuel,
                    (c.push[0], c.push[2]), c.enabled)


def _detector_cell(world, p) -> int:
    """The cell of the detector rail at p, or 0."""
    from scicraft_viz.engine import blocks as B
    from scicraft_viz.engine import kernels as sim

    c = world._find(p)
    if c > 0 and int(world.g.U[c, sim.BT]) == B.RAIL and int(world.g.U[c, sim.FACE]) == B.DETECTOR_RAIL:
        return c
    return 0


def _count(world, p) -> tuple[int, int]:
    """(how many minecarts the detector rail at p counts, the fill level a comparator reads through it: the first
    container cart's, as vanilla's getAnalogOutputSignal takes the first it finds)."""
    n, level = 0, 0
    for c in world._carts:
        if on_detector(c, p):
            if n == 0 or (level == 0 and c.kind in CONTAINERS):
                level = c.fill_level()
            n += 1
    return n, level


def count_on_detectors(world) -> None:
    """Every detector rail keeps the number of carts on it for its next re-check (kernels.detector_check), without
    an update: vanilla's rail looks for carts only when it ticks or a cart enters it."""
    from scicraft_viz.engine import blocks as B
    from scicraft_viz.engine import kernels as sim

    U = world.g.U
    for c in world.cells_of(B.RAIL).tolist():
        if int(U[c, sim.FACE]) != B.DETECTOR_RAIL:
            continue
        n, level = _count(world, tuple(world.g.P[c].tolist()))
        U[c, sim.ENTITIES] = min(n, 255)
        U[c, sim.POWER] = level


def tick_all(world) -> None:
    """The carts' part of the entity phase, in spawn order: each moves (tick_cart), then the detector rails its box
    reaches into that are not powered check for carts (DetectorRailBlock.entityInside), then an enabled hopper cart
    takes an item (World._cart_suck)."""
    from scicraft_viz.engine import kernels as sim

    def conductor(p) -> bool:
        c = world._find(p)
        return c > 0 and bool(sim.is_conductor(int(world.g.U[c, sim.BT])))

    from scicraft_viz.engine.push import moving_boxes

    surroundings = moving_boxes(world)  # moving blocks collide where they stand
    for cart in world._carts:
        cart.others = [o.box() for o in world._carts if o is not cart and not o.removed]
        tick_cart(cart, surroundings, conductor)
        cart.others = []
        if len(world._carts) > 1:
            push_neighbours(cart, world._carts)
        for p in detector_cells(cart):
            if surroundings.name(*p) != "detector_rail":
                continue
            c = _detector_cell(world, p)
            if c and not world.g.U[c, sim.ON]:
                n, level = _count(world, p)
                if n:
                    world._call(world._k.set_carts, c, n, level)
                    surroundings = moving_boxes(world)  # the update may have changed blocks
        if cart.kind == "hopper_minecart" and cart.enabled and not cart.removed:
            world._cart_suck(cart)  # MinecartHopper.tick after the cart's own tick
    count_on_detectors(world)
