"""Item entities: dropped stacks that fall, slide, merge, press plates and are picked up by hoppers (vanilla
ItemEntity, Java 1.21 rules as in 26.2). docs/redstone.md sections 58-60, and 95 for water and bubble columns.

Positions and velocities are doubles, and every factor vanilla keeps as a 32-bit float (drag 0.98F, block
friction) is widened from that float here, so trajectories agree with the game's to the last bits. The world
(engine/world.py) owns the list and calls `tick_item` for each item in spawn order during the entity phase of a
game tick: after the scheduled ticks and block events, before the hoppers' block-entity phase.

Block collision shapes come from minecraft-data's published shapes (`blockCollisionShapes`); slipperiness and
the speed factors (Block.getFriction, getSpeedFactor) from the Minecraft wiki's tables."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

GRAVITY = 0.04  # ItemEntity.getDefaultGravity
DRAG = float(np.float32(0.98))  # the air drag, a float in vanilla
LIFETIME = 6000  # ItemEntity: an item is discarded at this age
NEVER_PICKUP = 32767  # a pickup delay that never counts down (and an item that never merges)
NEVER_DESPAWN = -32768  # an age that never counts up
HALF_WIDTH, HEIGHT = 0.125, 0.25  # EntityType.ITEM's box: 0.25 x 0.25
EPS = 1.0e-7  # vanilla's collision epsilon (Shapes.collide)
REST_SPEED = float(np.float32(1.0e-5))  # a grounded item slower than this (squared) moves one tick in four
# Block.getFriction (0.6 for every block not listed) and Block.getSpeedFactor (1.0 unless listed).
FRICTION = {name: float(np.float32(f)) for name, f in
            (("ice", 0.98), ("packed_ice", 0.98), ("frosted_ice", 0.98), ("blue_ice", 0.989), ("slime_block", 0.8))}
DEFAULT_FRICTION = float(np.float32(0.6))
SPEED_FACTOR = {"soul_sand": float(np.float32(0.4)), "honey_block": float(np.float32(0.4))}
WEB = (0.25, float(np.float32(0.05)), 0.25)  # WebBlock.entityInside's stuck multiplier
# Water (docs/redstone.md section 95): ItemEntity.setUnderwaterMovement's factors, all floats in vanilla
WATER_MIN_HEIGHT = float(np.float32(0.1))  # how deep an item must be in water to swim rather than fall
WATER_DRAG = float(np.float32(0.99))  # its horizontal drag in water
WATER_RISE, WATER_RISE_BELOW = float(np.float32(5.0e-4)), float(np.float32(0.06))  # it rises while slower than this
FLUID_DEFLATE = 0.001  # Entity.updateFluidHeightAndDoFluidPushing looks at the box deflated by this
# Lava (docs/redstone.md section 102): ItemEntity.setUnderLavaMovement's horizontal drag (a float), the push of its
# current (Entity.updateInWaterStateAndDoFluidPushing, the overworld's 0.0023333333333333335), and burning
LAVA_DRAG = float(np.float32(0.95))
LAVA_PUSH = 0.0023333333333333335
HEALTH = 5  # ItemEntity.health as it spawns
LAVA_DAMAGE, LAVA_FIRE_TICKS = 4.0, 300  # Entity.lavaHurt: 4 damage and 15 seconds of fire
FIRE_DAMAGE, FIRE_FIRE_TICKS = 1.0, 160  # BaseFireBlock.entityInside (fire): 1 damage and 8 seconds of fire
# Items whose stack resists fire (Item.Properties.fireResistant): they neither burn nor catch fire
FIRE_RESISTANT = frozenset(("ancient_debris", "netherite_block", "netherite_ingot", "netherite_scrap",
                            "netherite_sword", "netherite_shovel", "netherite_pickaxe", "netherite_axe",
                            "netherite_hoe", "netherite_helmet", "netherite_chestplate", "netherite_leggings",
                            "netherite_boots"))
# HopperBlockEntity's suck box, relative to the hopper's block: the whole column from 11/16 up to 2 blocks high
SUCK_BOX = (0.0, 11 / 16, 0.0, 1.0, 2.0, 1.0)
# BasePressurePlateBlock.TOUCH_AABB: the entities a plate counts
PLATE_BOX = (0.0625, 0.0, 0.0625, 0.9375, 0.25, 0.9375)


@dataclass
class ItemEntity:
    """One item entity: `count` of `item` (an item id without `minecraft:`), its box's bottom centre `pos` and
    `vel` in blocks per tick, as vanilla keeps them."""

    id: int
    item: str
    count: int
    pos: list[float]
    vel: list[float]
    age: int = 0
    pickup_delay: int = 0
    on_ground: bool = False
    tick_count: int = 0  # Entity.tickCount: the ticks it has lived (its merge and rest cadence)
    stuck: tuple[float, float, float] | None = field(default=None, repr=False)  # a cobweb's, for the next move
    removed: bool = False
    health: int = HEALTH  # ItemEntity.health: fire and lava take it down; at 0 or below the item is gone
    fire: int = -1  # Entity.remainingFireTicks (-1: not burning, as vanilla keeps it out of fire)
    burned: bool = False  # removed by fire or lava (rather than taken or despawned)
    support: tuple[int, int, int] | None = field(default=None, repr=False)  # Entity.mainSupportingBlockPos
    ground_no_blocks: bool = field(default=False, repr=False)  # Entity.onGroundNoBlocks
    # Entity.pistonDeltas: (game tick, x, y, z) of the pushes moving blocks gave it in that tick (engine/push.py)
    piston_deltas: list | None = field(default=None, repr=False, compare=False)

    def box(self) -> tuple[float, float, float, float, float, float]:
        x, y, z = self.pos
        return (x - HALF_WIDTH, y, z - HALF_WIDTH, x + HALF_WIDTH, y + HEIGHT, z + HALF_WIDTH)

    def mergeable(self) -> bool:
        """ItemEntity.isMergable."""
        from scicraft_viz.engine.containers import stack_sizes

        return (not self.removed and self.pickup_delay != NEVER_PICKUP and self.age != NEVER_DESPAWN
                and self.age < LIFETIME and self.count < stack_sizes()[self.item])


class ItemSpec(NamedTuple):
    """An item entity as a build file gives it (and World.saved_entities lists it): `count` of `item` (an id without
    `minecraft:`), its box's bottom centre `pos`, `motion` in blocks per tick, and vanilla's PickupDelay and Age."""

    item: str
    count: int
    pos: tuple[float, float, float]
    motion: tuple[float, float, float]
    pickup_delay: int = 0
    age: int = 0


def from_data(nbt, pos, origin, where: str, pos_where: str, data_where: str, source: str, fail) -> ItemSpec | None:
    """The item entity an entity's data holds (`id` minecraft:item, `Item` {id, count}, `Motion`, `PickupDelay`,
    `Age`) at `pos` (a list of 3 Doubles) from `origin`, or None for another entity; a field of the wrong kind is
    refused through `fail(message)`, naming it (`where`.`pos_where` for the position, `data_where`.KEY for the
    others)."""
    from nbtlib import Compound, Double, List, String

    from scicraft_viz.engine.containers import _item_name
    from scicraft_viz.errors import InputError

    if not isinstance(nbt, Compound) or str(nbt.get("id", "")).removeprefix("minecraft:") != "item" \
            or not isinstance(nbt.get("id"), String):
        return None

    from scicraft_viz.engine.schematic import _tag_text

    def triple(tag, what):
        if not isinstance(tag, List) or len(tag) != 3 or not all(isinstance(v, Double) for v in tag):
            raise fail(f"{what} is {_tag_text(tag)}; expected a list of 3 Doubles")
        return tuple(float(v) for v in tag)

    at = triple(pos, f"{where}.{pos_where}")
    at = (at[0] + origin[0], at[1] + origin[1], at[2] + origin[2])
    motion = triple(nbt["Motion"], f"{data_where}.Motion") if "Motion" in nbt else (0.0, 0.0, 0.0)
    if not all(abs(v) < float("inf") for v in motion):  # vanilla (1.21.11 on) drops a non-finite Motion
        motion = (0.0, 0.0, 0.0)
    stack = nbt.get("Item")
    if not isinstance(stack, Compound) or not isinstance(stack.get("id"), String):
        raise fail(f"{data_where}.Item is {_tag_text(stack)}; expected a compound with an id and a count")
    count = stack.get("count", stack.get("Count", 1))
    try:
        name = _item_name(str(stack["id"]), f"{data_where}.Item.id")
    except InputError as e:
        raise fail(str(e)) from None
    numbers = []
    for key in ("PickupDelay", "Age"):
        v = nbt.get(key, 0)
        if isinstance(v, (String, Compound, List)):
            raise fail(f"{data_where}.{key} is {_tag_text(v)}; expected a number")
        numbers.append(int(v))
    if isinstance(count, (String, Compound, List)) or int(count) < 1:
        raise fail(f"{data_where}.Item.count is {_tag_text(count)}; expected a positive number")
    return ItemSpec(name, int(count), at, motion, numbers[0], numbers[1])


def to_nbt(item: ItemSpec, pos=None):
    """An item entity's data as vanilla saves it (the file's DataVersion is 1.20.1's): `id` minecraft:item, `Item`
    {id, Count}, `Motion`, `Age` and `PickupDelay` (Shorts), and `Pos` when given (the position as the format
    counts it); `from_data` reads it back."""
    from nbtlib import Byte, Compound, Double, List, Short, String

    tag = Compound({"id": String("minecraft:item"),
                    "Item": Compound({"id": String(f"minecraft:{item.item}"), "Count": Byte(item.count)}),
                    "Motion": List[Double]([Double(v) for v in item.motion]),
                    "Age": Short(item.age), "PickupDelay": Short(item.pickup_delay)})
    if pos is not None:
        tag["Pos"] = List[Double]([Double(v) for v in pos])
    return tag


def intersects(a, b) -> bool:
    """AABB.intersects: the boxes overlap with some volume (touching faces do not)."""
    return a[0] < b[3] and a[3] > b[0] and a[1] < b[4] and a[4] > b[1] and a[2] < b[5] and a[5] > b[2]


def moved_box(box, p) -> tuple:
    return (box[0] + p[0], box[1] + p[1], box[2] + p[2], box[3] + p[0], box[4] + p[1], box[5] + p[2])


@functools.lru_cache(maxsize=1)
def _shape_data():
    import minecraft_data

    return minecraft_data("1.20").blockCollisionShapes, minecraft_data("1.20").blocks_name


@functools.lru_cache(maxsize=4096)
def collision_boxes(state: str) -> tuple[tuple[float, ...], ...]:
    """The collision boxes of a block state (`minecraft:name[props]`, vanilla or engine spelling) within its unit
    cube, from minecraft-data's shapes for Java 1.20; none for air, plates, dust and anything without one."""
    from scicraft_viz.engine import blocks as B

    name, props = B.split_state(state)
    name = B.VANILLA_NAME.get(name, name)
    shapes, blocks = _shape_data()
    ids = shapes["blocks"].get(name)
    if ids is None or name == "moving_piston":  # a moving block collides as its block entity says: not modelled
        return ()
    if isinstance(ids, list):
        index = 0
        for s in blocks[name].get("states", []):
            values = [str(v) for v in s["values"]] if "values" in s else ["true", "false"]
            index = index * len(values) + values.index(props.get(s["name"], values[0]))
        ids = ids[index]
    return tuple(tuple(b) for b in shapes["shapes"][str(ids)])


def friction(name: str) -> float:
    return FRICTION.get(name, DEFAULT_FRICTION)


class Surroundings:
    """What item physics asks of the world, cached for one tick: a block's state name and collision boxes."""

    def __init__(self, state_at):
        self._state_at = state_at  # (x, y, z) -> canonical state string
        self._cache: dict[tuple[int, int, int], str] = {}

    def state(self, x: int, y: int, z: int) -> str:
        p = (x, y, z)
        s = self._cache.get(p)
        if s is None:
            s = self._cache[p] = self._state_at(p)
        return s

    def name(self, x: int, y: int, z: int) -> str:
        return self.state(x, y, z).partition("[")[0].removeprefix("minecraft:")

    def amount(self, x: int, y: int, z: int, fluid: str) -> int:
        """The `fluid` ('water' or 'lava') in a cell as vanilla's FluidState amount (see water_amount)."""
        if fluid == "water":
            return self.water_amount(x, y, z)
        state = self.state(x, y, z)
        if not state.startswith("minecraft:lava"):
            return 0
        level = int(state.partition("level=")[2].partition(",")[0].partition("]")[0] or 0)
        return 8 if level == 0 or level >= 8 else 8 - level

    def water_amount(self, x: int, y: int, z: int) -> int:
        """The water in a cell as vanilla's FluidState amount: 8 for a source (water[level=0], a waterlogged block,
        a bubble column) and for falling water (level 8 and above), 8 - level for flowing water, 0 for none."""
        state = self.state(x, y, z)
        name = state.partition("[")[0].removeprefix("minecraft:")
        if name == "bubble_column" or "waterlogged=true" in state:
            return 8
        if name != "water":
            return 0
        level = int(state.partition("level=")[2].partition(",")[0].partition("]")[0] or 0)
        return 8 if level == 0 or level >= 8 else 8 - level

    def boxes_near(self, box) -> list[tuple[float, ...]]:
        """Every block collision box (in world coordinates) of the cells `box` reaches into, and of those one
        below (a fence or wall stands 1.5 high; no shape reaches sideways out of its cell)."""
        out = []
        for x in range(math.floor(box[0] - EPS), math.floor(box[3] + EPS) + 1):
            for y in range(math.floor(box[1] - EPS) - 1, math.floor(box[4] + EPS) + 1):
                for z in range(math.floor(box[2] - EPS), math.floor(box[5] + EPS) + 1):
                    for b in collision_boxes(self.state(x, y, z)):
                        out.append((b[0] + x, b[1] + y, b[2] + z, b[3] + x, b[4] + y, b[5] + z))
        return out


def _clip(axis: int, box, boxes, delta: float) -> float:
    """Shapes.collide along one axis: how far `box` may go (up to `delta`) before it meets one of `boxes`; boxes it
    already overlaps do not stop it."""
    a, b = [i for i in range(3) if i != axis]
    for o in boxes:
        if abs(delta) < EPS:
            return 0.0
        if not (box[a + 3] > o[a] + EPS and box[a] < o[a + 3] - EPS and box[b + 3] > o[b] + EPS
                and box[b] < o[b + 3] - EPS):
            continue
        if delta > 0.0 and o[axis] >= box[axis + 3] - EPS:
            delta = min(delta, o[axis] - box[axis + 3])
        elif delta < 0.0 and o[axis + 3] <= box[axis] + EPS:
            delta = max(delta, o[axis + 3] - box[axis])
    return delta


def collide(box, movement: list[float], world: Surroundings) -> list[float]:
    """Entity.collide against blocks: Y first, then the larger horizontal axis (vanilla's axisStepOrder)."""
    swept = (min(box[0], box[0] + movement[0]), min(box[1], box[1] + movement[1]), min(box[2], box[2] + movement[2]),
             max(box[3], box[3] + movement[0]), max(box[4], box[4] + movement[1]), max(box[5], box[5] + movement[2]))
    boxes = world.boxes_near(swept)
    out = [0.0, 0.0, 0.0]
    order = (1, 2, 0) if abs(movement[0]) < abs(movement[2]) else (1, 0, 2)
    for axis in order:
        d = movement[axis]
        if d != 0.0:
            d = _clip(axis, moved_box(box, out), boxes, d)
            out[axis] = d
    return out


def _cells(box, deflate: float):
    """The cells a box (deflated by `deflate`) overlaps."""
    lo = [math.floor(box[i] + deflate) for i in range(3)]
    hi = [math.floor(box[i + 3] - deflate) for i in range(3)]
    for x in range(lo[0], hi[0] + 1):
        for y in range(lo[1], hi[1] + 1):
            for z in range(lo[2], hi[2] + 1):
                yield x, y, z


def _touch_webs(e: ItemEntity, world: Surroundings) -> None:
    """Entity.checkInsideBlocks for cobwebs: a box inside one is slowed on its next move."""
    for x, y, z in _cells(e.box(), 1.0e-5):
        if world.name(x, y, z) == "cobweb":
            e.stuck = WEB


def _touch_bubble_columns(e: ItemEntity, world: Surroundings) -> None:
    """BubbleColumnBlock.entityInside for each bubble column the item's box is in (Entity.checkInsideBlocks, the
    box deflated by 1e-5): one with water above it pushes up by 0.06 (at most to 0.7 a tick) or, `drag=true`,
    down by 0.03 (at most to -0.3) (Entity.onInsideBubbleColumn); the top one of a column, with no water or block
    above, pushes up by 0.1 (to 1.8) or down by 0.03 (to -0.9) (onAboveBubbleColumn). Each column cell the box
    is in pushes once."""
    for x, y, z in _cells(e.box(), 1.0e-5):
        state = world.state(x, y, z)
        if not state.startswith("minecraft:bubble_column"):
            continue
        drag = "drag=true" in state
        top = world.water_amount(x, y + 1, z) == 0 and not collision_boxes(world.state(x, y + 1, z))
        if drag:
            e.vel[1] = max(-0.9 if top else -0.3, e.vel[1] - 0.03)
        else:
            e.vel[1] = min(1.8, e.vel[1] + 0.1) if top else min(0.7, e.vel[1] + 0.06)


_HORIZONTAL = ((0, -1), (1, 0), (0, 1), (-1, 0))  # Direction.Plane.HORIZONTAL: north, east, south, west
WATER_PUSH = 0.014  # Entity.updateInWaterStateAndDoWaterCurrentPushing's push strength
WATER_PUSH_MIN = 0.0045000000000000005  # the least push an item nearly at rest gets


def _own_height(amount: int) -> float:
    return float(np.float32(np.float32(amount) / np.float32(9.0)))


def _falling(state: str, fluid: str = "water") -> bool:
    level = state.partition("level=")[2].partition(",")[0].partition("]")[0]
    return state.startswith(f"minecraft:{fluid}[") and level.isdigit() and int(level) >= 8


def _solid_face(world: Surroundings, x: int, y: int, z: int, fluid: str = "water") -> bool:
    """FlowingFluid.isSolidFace as the engine can tell it: a block (not the same fluid, not ice) whose collision
    shape is the whole cube."""
    state = world.state(x, y, z)
    if world.amount(x, y, z, fluid) or world.name(x, y, z) == "ice":
        return False
    return collision_boxes(state) == ((0.0, 0.0, 0.0, 1.0, 1.0, 1.0),)


def _other_fluid(world: Surroundings, x: int, y: int, z: int, fluid: str) -> bool:
    if fluid == "water":
        return world.name(x, y, z) == "lava"
    return world.water_amount(x, y, z) > 0


def water_flow(world: Surroundings, x: int, y: int, z: int, fluid: str = "water") -> tuple[float, float, float]:
    """FlowingFluid.getFlow of the water (or, with `fluid` 'lava', the lava) at (x, y, z): toward each side whose
    fluid stands lower (or, where the side is open and empty, toward the fluid under it), by the difference of
    heights, normalised; a falling fluid beside a solid face also pulls down by 6 before the last normalising."""
    own = _own_height(world.amount(x, y, z, fluid))
    dx = dz = 0.0
    for sx, sz in _HORIZONTAL:
        nx, nz = x + sx, z + sz
        amount = world.amount(nx, y, nz, fluid)
        state = world.state(nx, y, nz)
        if _other_fluid(world, nx, y, nz, fluid):
            continue  # FlowingFluid.affectsFlow: another fluid neither draws nor holds back
        d = 0.0
        if amount == 0:
            if not collision_boxes(state):  # an open side: the fluid below it, if any, draws
                below = world.amount(nx, y - 1, nz, fluid)
                if below:
                    d = float(np.float32(own - (_own_height(below) - _own_height(8))))
        else:
            d = float(np.float32(own - _own_height(amount)))
        if d != 0.0:
            dx += sx * d
            dz += sz * d
    fx, fy, fz = dx, 0.0, dz
    if _falling(world.state(x, y, z), fluid):
        for sx, sz in _HORIZONTAL:
            if _solid_face(world, x + sx, y, z + sz, fluid) or _solid_face(world, x + sx, y + 1, z + sz, fluid):
                fx, fy, fz = _normalised((fx, fy, fz))
                fy -= 6.0
                break
    return _normalised((fx, fy, fz))


def _normalised(v: tuple[float, float, float]) -> tuple[float, float, float]:
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    return (0.0, 0.0, 0.0) if n < 1.0e-5 else (v[0] / n, v[1] / n, v[2] / n)


def water_height(e: ItemEntity, world: Surroundings, push: bool = True, fluid: str = "water") -> float | None:
    """Entity.updateFluidHeightAndDoFluidPushing for water (or, with `fluid` 'lava', lava): how far below the
    surface of the fluid its box (narrowed by 0.001) touches the bottom of the item's box stands (a cell's surface
    is its y plus the fluid's height: 1 under more of it, else its amount / 9), or None when it touches none. With
    `push`, the current of those cells pushes the item: their flows (each scaled by the depth so far while that is
    under 0.4) averaged, normalised and scaled to 0.014 for water, 0.0023333333333333335 for lava (at least 0.0045
    for an item nearly at rest)."""
    strength = WATER_PUSH if fluid == "water" else LAVA_PUSH
    b = e.box()
    lo = [math.floor(b[i] + FLUID_DEFLATE) for i in range(3)]
    hi = [math.ceil(b[i + 3] - FLUID_DEFLATE) for i in range(3)]
    bottom = b[1]
    deepest = None
    flow = [0.0, 0.0, 0.0]
    cells = 0
    for x in range(lo[0], hi[0]):
        for y in range(lo[1], hi[1]):
            for z in range(lo[2], hi[2]):
                amount = world.amount(x, y, z, fluid)
                if amount == 0:
                    continue
                own = 1.0 if world.amount(x, y + 1, z, fluid) else _own_height(amount)
                top = y + own
                if top >= bottom:
                    deepest = max(top - bottom, deepest if deepest is not None else 0.0)
                    if push:
                        f = water_flow(world, x, y, z, fluid)
                        if deepest < 0.4:
                            f = (f[0] * deepest, f[1] * deepest, f[2] * deepest)
                        flow = [flow[0] + f[0], flow[1] + f[1], flow[2] + f[2]]
                        cells += 1
    if push and (flow[0] or flow[1] or flow[2]):
        flow = [c / cells for c in flow]
        f = _normalised(tuple(flow))
        f = (f[0] * strength, f[1] * strength, f[2] * strength)
        if (abs(e.vel[0]) < 0.003 and abs(e.vel[2]) < 0.003
                and math.sqrt(f[0] ** 2 + f[1] ** 2 + f[2] ** 2) < WATER_PUSH_MIN):
            f = tuple(c / strength * WATER_PUSH_MIN for c in f)
        e.vel = [e.vel[0] + f[0], e.vel[1] + f[1], e.vel[2] + f[2]]
    return deepest


ON_DEPTH = float(np.float32(0.2))  # Entity.getOnPosLegacy: the block an entity stands on
# ItemEntity.getBlockPosBelowThatAffectsMyMovement: the block whose slipperiness and speed factor an item feels
MOVE_DEPTH = float(np.float32(0.999999))


def _below(e: ItemEntity, depth: float, world: Surroundings) -> tuple[int, int, int]:
    """Entity.getOnPos(depth): the block `depth` below the item's feet, in the column of the block it stands on
    (its supporting block: a fence, wall or gate itself), else under its centre."""
    if e.support is None:
        return math.floor(e.pos[0]), math.floor(e.pos[1] - depth), math.floor(e.pos[2])
    name = world.name(*e.support)
    if (depth <= 1.0e-5 or (depth <= 0.5 and name.endswith("_fence")) or name.endswith("_wall")
            or name.endswith("_fence_gate")):
        return e.support
    return e.support[0], math.floor(e.pos[1] - depth), e.support[2]


def _supporting_block(e: ItemEntity, box, world: Surroundings) -> tuple[int, int, int] | None:
    """Level.findSupportingBlock: of the blocks whose collision boxes reach into `box`, the one whose centre is
    nearest the item's position (the greatest by y, z, x among equals)."""
    best, dist = None, math.inf
    cells = ((x, y, z) for x in range(math.floor(box[0] - EPS), math.floor(box[3] + EPS) + 1)
             for y in range(math.floor(box[1] - EPS) - 1, math.floor(box[4] + EPS) + 1)  # a fence reaches up
             for z in range(math.floor(box[2] - EPS), math.floor(box[5] + EPS) + 1))
    for x, y, z in cells:
        boxes = [moved_box(b, (x, y, z)) for b in collision_boxes(world.state(x, y, z))]
        if not any(intersects(b, box) for b in boxes):
            continue
        d = (x + 0.5 - e.pos[0]) ** 2 + (y + 0.5 - e.pos[1]) ** 2 + (z + 0.5 - e.pos[2]) ** 2
        if d < dist or (d == dist and (best is None or (best[1], best[2], best[0]) < (y, z, x))):
            best, dist = (x, y, z), d
    return best


def _check_support(e: ItemEntity, moved: list[float], world: Surroundings) -> None:
    """Entity.checkSupportingBlock after a move: the block a grounded item stands on, looked for in a thin box
    under its feet (and, when none is there, where it stood before this move's horizontal part)."""
    if not e.on_ground:
        e.ground_no_blocks = False
        e.support = None
        return
    b = e.box()
    thin = (b[0], b[1] - 1.0e-6, b[2], b[3], b[1], b[5])
    found = _supporting_block(e, thin, world)
    if found is None and not e.ground_no_blocks:
        found = _supporting_block(e, moved_box(thin, (-moved[0], 0.0, -moved[2])), world)
    e.support = found
    e.ground_no_blocks = found is None


def move(e: ItemEntity, movement: list[float], world: Surroundings) -> None:
    """Entity.move for an item (MoverType.SELF)."""
    if e.stuck is not None:  # a cobweb scales this move and stops the item
        movement = [movement[i] * e.stuck[i] for i in range(3)]
        e.stuck = None
        e.vel = [0.0, 0.0, 0.0]
    got = collide(e.box(), movement, world)
    d = got[0] * got[0] + got[1] * got[1] + got[2] * got[2]
    if d > EPS or movement[0] ** 2 + movement[1] ** 2 + movement[2] ** 2 - d < EPS:
        e.pos = [e.pos[0] + got[0], e.pos[1] + got[1], e.pos[2] + got[2]]
    hit_x = abs(got[0] - movement[0]) >= 1.0e-5  # Mth.equal's tolerance
    hit_z = abs(got[2] - movement[2]) >= 1.0e-5
    hit_y = got[1] != movement[1]
    e.on_ground = hit_y and movement[1] < 0.0
    _check_support(e, got, world)
    if hit_x or hit_z:
        e.vel = [0.0 if hit_x else e.vel[0], e.vel[1], 0.0 if hit_z else e.vel[2]]
    on = _below(e, ON_DEPTH, world)
    if hit_y:  # Block.updateEntityAfterFallOn: slime bounces a falling item back at 0.8 of its speed
        if world.name(*on) == "slime_block":
            if e.vel[1] < 0.0:
                e.vel[1] = -e.vel[1] * 0.8
        else:
            e.vel[1] = 0.0
    if e.on_ground and world.name(*on) == "slime_block" and abs(e.vel[1]) < 0.1:  # SlimeBlock.stepOn
        k = 0.4 + abs(e.vel[1]) * 0.2
        e.vel = [e.vel[0] * k, e.vel[1], e.vel[2] * k]
    _touch_webs(e, world)
    _touch_bubble_columns(e, world)
    _touch_fire(e, world)
    # Entity.getBlockSpeedFactor: the block it is in, else the one below that affects its movement
    f = SPEED_FACTOR.get(world.name(*(math.floor(c) for c in e.pos)))
    if f is None:
        f = SPEED_FACTOR.get(world.name(*_below(e, MOVE_DEPTH, world)), 1.0)
    if f != 1.0:
        e.vel = [e.vel[0] * f, e.vel[1], e.vel[2] * f]


def _hurt(e: ItemEntity, amount: float) -> None:
    """ItemEntity.hurt by fire or lava: its health drops by `amount` (kept as an int); at 0 or below it is gone."""
    if e.item in FIRE_RESISTANT:
        return
    e.health = int(float(np.float32(np.float32(e.health) - np.float32(amount))))
    if e.health <= 0:
        e.removed = e.burned = True


def _burn(e: ItemEntity, water: float | None, lava: float | None) -> bool:
    """Entity.baseTick's fire and lava, after the fluids are measured: water puts the item out; a burning item
    takes 1 each time its fire ticks reach a multiple of 20 outside lava, its fire ticks counting down; in lava
    (deeper than 0, and not in the item's first tick) Entity.lavaHurt sets 15 seconds of fire and takes 4. True
    when this burned it away (the rest of its tick no longer matters)."""
    immune = e.item in FIRE_RESISTANT
    if water is not None:  # Entity.updateInWaterStateAndDoWaterCurrentPushing: clearFire
        e.fire = 0
    if e.fire > 0:
        if immune:
            e.fire = max(e.fire - 4, 0)
        else:
            if e.fire % 20 == 0 and not (e.tick_count > 1 and lava):
                _hurt(e, FIRE_DAMAGE)
            e.fire -= 1
    if e.tick_count > 1 and lava and not immune:  # isInLava is false in an entity's first tick (firstTick)
        e.fire = max(e.fire, LAVA_FIRE_TICKS)
        _hurt(e, LAVA_DAMAGE)
    return e.removed


def _touch_fire(e: ItemEntity, world: Surroundings) -> None:
    """After a move: each fire block the box is in (Entity.checkInsideBlocks, BaseFireBlock.entityInside) counts
    its fire ticks up from below 0, sets at least 8 seconds of fire once they reach 0 and takes 1; with no fire or
    lava where the box is, a fire that has run out stays out (remainingFireTicks -1)."""
    for x, y, z in _cells(e.box(), 1.0e-5):
        if world.name(x, y, z) in ("fire", "soul_fire") and not e.removed:
            if e.item not in FIRE_RESISTANT:
                if e.fire < 0:
                    e.fire += 1
                if e.fire >= 0:
                    e.fire = max(e.fire, FIRE_FIRE_TICKS)
            _hurt(e, FIRE_DAMAGE)
    if e.fire <= 0 and not any(world.name(*c) in ("fire", "soul_fire", "lava") for c in _cells(e.box(), 1.0e-6)):
        e.fire = -1


def tick_item(e: ItemEntity, world: Surroundings) -> bool:
    """ItemEntity.tick without its merge (`merge_with_neighbours`), which the world runs right after it. True when
    it moved this tick (a resting item moves every 4th tick only), which is when the blocks it is inside (a
    hopper) see it (Entity.applyEffectsFromBlocks follows the move)."""
    e.tick_count += 1
    depth = water_height(e, world)  # Entity.baseTick: the water the item is in as the tick starts
    lava = water_height(e, world, fluid="lava")  # and the lava, whose current pushes it too
    if _burn(e, depth, lava):
        return False
    if 0 < e.pickup_delay != NEVER_PICKUP:
        e.pickup_delay -= 1
    if depth is not None and depth > WATER_MIN_HEIGHT:  # ItemEntity.setUnderwaterMovement: it swims up slowly
        rise = WATER_RISE if e.vel[1] < WATER_RISE_BELOW else 0.0
        e.vel = [e.vel[0] * WATER_DRAG, e.vel[1] + rise, e.vel[2] * WATER_DRAG]
    elif lava is not None and lava > WATER_MIN_HEIGHT:  # setUnderLavaMovement: as in water, with more drag
        rise = WATER_RISE if e.vel[1] < WATER_RISE_BELOW else 0.0
        e.vel = [e.vel[0] * LAVA_DRAG, e.vel[1] + rise, e.vel[2] * LAVA_DRAG]
    else:
        e.vel[1] -= GRAVITY
    horizontal = e.vel[0] * e.vel[0] + e.vel[2] * e.vel[2]
    moved = not e.on_ground or horizontal > REST_SPEED or (e.tick_count + e.id) % 4 == 0
    if moved:
        move(e, list(e.vel), world)
        f = DRAG
        if e.on_ground:
            f = float(np.float32(friction(world.name(*_below(e, MOVE_DEPTH, world))) * np.float32(DRAG)))
        e.vel = [e.vel[0] * f, e.vel[1] * DRAG, e.vel[2] * f]
        if e.on_ground and e.vel[1] < 0.0:
            e.vel[1] *= -0.5
        water_height(e, world)  # the current pushes again where the move left it
        water_height(e, world, fluid="lava")
    else:
        _touch_webs(e, world)  # the block effects of its last movement still apply
        _touch_bubble_columns(e, world)
    if e.age != NEVER_DESPAWN:
        e.age += 1
    if e.age >= LIFETIME:
        e.removed = True
    return moved


def merges_now(e: ItemEntity, before: tuple[float, float, float]) -> bool:
    """Whether the item looks for stacks to merge with this tick: every 2nd tick of its life when it crossed
    into another block this tick, else every 40th."""
    crossed = any(math.floor(before[i]) != math.floor(e.pos[i]) for i in range(3))
    return e.tick_count % (2 if crossed else 40) == 0


def merge_with_neighbours(e: ItemEntity, items: list[ItemEntity]) -> None:
    """ItemEntity.mergeWithNeighbours: the stacks of the same item within half a block sideways (boxes
    overlapping at the same height) join, the smaller into the larger (into the other item when equal),
    unless the two would not fit in one stack."""
    from scicraft_viz.engine.containers import stack_sizes

    if not e.mergeable():
        return
    b = e.box()
    near = (b[0] - 0.5, b[1], b[2] - 0.5, b[3] + 0.5, b[4], b[5] + 0.5)
    for o in items:
        if o is e or not o.mergeable() or not intersects(near, o.box()) or o.item != e.item:
            continue
        if o.count + e.count > stack_sizes()[e.item]:
            continue
        dest, src = (e, o) if o.count < e.count else (o, e)
        dest.count += src.count
        dest.pickup_delay = max(dest.pickup_delay, src.pickup_delay)
        dest.age = min(dest.age, src.age)
        src.count = 0
        src.removed = True
        if e.removed:
            return


class JavaRandom:
    """java.util.Random (vanilla's LegacyRandomSource): the level's random source, which a dropper's ejected item
    draws its velocity from."""

    _MUL, _ADD, _MASK = 0x5DEECE66D, 0xB, (1 << 48) - 1

    def __init__(self, seed: int) -> None:
        self.seed = (seed ^ self._MUL) & self._MASK

    def _next(self, bits: int) -> int:
        self.seed = (self.seed * self._MUL + self._ADD) & self._MASK
        return self.seed >> (48 - bits)

    def next_double(self) -> float:
        return ((self._next(26) << 27) + self._next(27)) * 2.0**-53

    def triangle(self, mean: float, deviation: float) -> float:
        return mean + deviation * (self.next_double() - self.next_double())


def eject(rng: JavaRandom, p: tuple[int, int, int], step: tuple[int, int, int]) -> tuple[list[float], list[float]]:
    """(position, velocity) of the item a dropper or dispenser at `p` facing `step` ejects: vanilla's
    DefaultDispenseItemBehavior.spawnItem with speed 6, from 0.7 out of the block's centre."""
    pos = [p[0] + 0.5 + 0.7 * step[0], p[1] + 0.5 + 0.7 * step[1], p[2] + 0.5 + 0.7 * step[2]]
    pos[1] -= 0.125 if step[1] else 0.15625
    speed = rng.next_double() * 0.1 + 0.2
    spread = 0.0172275 * 6
    vel = [rng.triangle(step[0] * speed, spread), rng.triangle(0.2, spread), rng.triangle(step[2] * speed, spread)]
    return pos, vel


def pop_resource(rng: JavaRandom, p: tuple[int, int, int]) -> tuple[list[float], list[float]]:
    """(position, velocity) of an item a block at `p` drops (vanilla Block.popResource): within a quarter block of
    the block's centre each way, drawn x, y, z from the level's random source (the box's bottom half an item's
    height below the point drawn), then the new ItemEntity's speed: up 0.2, sideways up to 0.1 each way."""
    pos = [p[0] + 0.5 + rng.next_double() * 0.5 - 0.25, p[1] + 0.5 + rng.next_double() * 0.5 - 0.25 - HEIGHT / 2,
           p[2] + 0.5 + rng.next_double() * 0.5 - 0.25]
    vel = [rng.next_double() * 0.2 - 0.1, 0.2, rng.next_double() * 0.2 - 0.1]
    return pos, vel


@functools.lru_cache(maxsize=1)
def _loot_data():
    import minecraft_data

    data = minecraft_data("1.20")
    return data.blockLoot, data.blocks_name, data.items


def block_drops(state: str) -> tuple[tuple[str, int], ...]:
    """What a block broken with no tool and no entity drops (Block.dropResources, as Level.destroyBlock calls it), in
    its loot table's order, from minecraft-data's 1.20 loot: each sure drop of a fixed count. A block whose table only
    copies another's (a wall torch, sign, banner or head) drops the item minecraft-data names for it; a candle drops
    as many candles as it holds; a cobweb drops string (its table gives the cobweb itself only to shears or silk
    touch). Drops left to chance (a count range, a chance below 1) are left out (has_chance_drops)."""
    from scicraft_viz.engine import blocks as B

    name, props = B.split_state(state)
    name = B.VANILLA_NAME.get(name, name)
    if name == "cobweb":
        return (("string", 1),)
    loot, blocks, items = _loot_data()
    entries = loot.get(name) or []
    if not entries:
        ids = blocks[name]["drops"] if name in blocks else []
        return tuple((items[i]["name"], 1) for i in ids)
    out = []
    for e in entries:
        lo, *hi = e.get("stackSizeRange", [1, 1])
        if e.get("dropChance", 1) == 1 and all(h == lo for h in hi) and lo:
            out.append((e["item"], lo))
    if name.endswith("candle") and out:
        out[0] = (out[0][0], int(props.get("candles", "1")))
    return tuple(out)


def has_chance_drops(state: str) -> bool:
    """Does the block's loot table give something left to chance, which block_drops leaves out?"""
    from scicraft_viz.engine import blocks as B

    name = B.split_state(state)[0]
    name = B.VANILLA_NAME.get(name, name)
    if name == "cobweb":
        return False
    return any(e.get("dropChance", 1) != 1 or len(set(e.get("stackSizeRange", [1, 1]))) > 1
               for e in _loot_data()[0].get(name) or [])
