"""Water: sources, flowing and falling water and waterlogged blocks, with vanilla's fluid ticks (Java 1.20
FlowingFluid / WaterFluid rules). docs/redstone.md sections 67-69.

Water is a block here as in the game: `water[level=N]`, level 0 a source, 1-7 flowing (amount 8 - level), 8 and
above falling (amount 8). A block with `waterlogged=true` holds a source that never moves. Fluid ticks are
scheduled ticks of their own, 5 game ticks after what asked for them, one per position and fluid type (source or
flowing), run in scheduling order. The world (engine/world.py) runs them after the block ticks of a game tick and
asks for them where vanilla does: a water block placed (LiquidBlock.onPlace), a block beside water or a
waterlogged block changed (neighborChanged / updateShape), water that changed its own level.

What a fluid tick does (FlowingFluid.tick): flowing water works out its new state from its neighbours (the
highest neighbour amount less one, falling under water, a source between two sources over a solid block or a
source) and dries up when that is nothing; then any water spreads: down first, and sideways (with a source, or
when it cannot fall) toward the nearest place within 4 blocks where it could fall, every side when none is near.
Water enters air and any block that does not block motion (it breaks dust, repeaters, comparators, torches,
levers, buttons, plates, carpets...), never doors, signs or ladders, and fills a waterloggable block only with a
source (the infinite-source rule)."""

from __future__ import annotations

import functools
import heapq

from scicraft_viz.engine import blocks as B

TICK_DELAY = 5  # WaterFluid.getTickDelay
SLOPE_DISTANCE = 4  # WaterFluid.getSlopeFindDistance
DROP_OFF = 1  # WaterFluid.getDropOff
WATER = "water"
LAVA = "lava"
BUBBLE_COLUMN = "bubble_column"
SOURCE, FLOWING = 0, 1  # the two fluid types a tick is scheduled for (Fluids.WATER, Fluids.FLOWING_WATER)
N_, E_, S_, W_, U_, D_ = range(6)  # blocks.DIRECTIONS order
HORIZONTAL_SCAN = (N_, E_, S_, W_)  # Direction.Plane.HORIZONTAL: the order getSpread looks
SPREAD_ORDER = (N_, S_, W_, E_)  # an EnumMap's order (Direction ordinals): the order sides are filled
UPDATE_ORDER = (W_, E_, D_, U_, N_, S_)  # NeighborUpdater.UPDATE_ORDER
OPPOSITE = (S_, W_, N_, E_, D_, U_)
# LiquidBlock.POSSIBLE_FLOW_DIRECTIONS (down, south, north, east, west), each turned round: the neighbours lava looks at
# for water, in that order (every side but the one below)
LAVA_LOOKS = (U_, N_, S_, W_, E_)
SOLID_SIZE = 0.7291666666666666  # BlockStateBase.calculateSolid: a shape this big on average is solid
FULL_FACE = (1 << 256) - 1


def step(p, k):
    d = B.OFFSETS[k]
    return (p[0] + d[0], p[1] + d[1], p[2] + d[2])


@functools.lru_cache(maxsize=1)
def _waterloggable() -> frozenset:
    from scicraft_viz.engine.items import _shape_data

    blocks = _shape_data()[1]
    return frozenset(n for n, b in blocks.items() if any(s["name"] == "waterlogged" for s in b.get("states", [])))


def _face_mask(boxes, k: int) -> int:
    """The 16 x 16 cells of a block's face toward direction k that its collision boxes reach (VoxelShape.getFaceShape
    on the 1/16 grid vanilla shapes are drawn on)."""
    axis, positive = {N_: (2, False), S_: (2, True), W_: (0, False), E_: (0, True), D_: (1, False), U_: (1, True)}[k]
    u_axis, v_axis = [a for a in range(3) if a != axis]
    mask = 0
    for b in boxes:
        touches = b[axis + 3] >= 1 - 1e-7 if positive else b[axis] <= 1e-7
        if not touches:
            continue
        for i in range(16):
            cu = (i + 0.5) / 16
            if not b[u_axis] < cu < b[u_axis + 3]:
                continue
            for j in range(16):
                cv = (j + 0.5) / 16
                if b[v_axis] < cv < b[v_axis + 3]:
                    mask |= 1 << (i * 16 + j)
    return mask


class Info:
    """What the fluid rules ask of one block state."""

    __slots__ = ("state", "name", "air", "amount", "source", "falling", "container", "waterlogged", "holds",
                 "solid", "faces", "settable", "lava", "lava_source")

    def __init__(self, state: str):
        from scicraft_viz.engine.items import collision_boxes

        name, props = B.split_state(state)
        vname = B.VANILLA_NAME.get(name, name)
        self.state, self.name = state, name
        self.air = name == "air"
        self.waterlogged = props.get("waterlogged") == "true"
        self.amount, self.source, self.falling = 0, False, False
        self.lava = name == LAVA  # lava is no water: `amount` and the rest stay those of a block without water
        self.lava_source = self.lava and props.get("level", "0") == "0"
        if name == WATER:
            level = int(props.get("level", "0"))
            self.source = level == 0
            self.falling = level >= 8
            self.amount = 8 if level == 0 or level >= 8 else 8 - level
        elif self.waterlogged or name == BUBBLE_COLUMN:  # a bubble column's fluid is a water source
            self.amount, self.source = 8, True
        # LiquidBlockContainer: a waterloggable block takes only a source (SimpleWaterloggedBlock.canPlaceLiquid);
        # the engine keeps some of them (rails, iron trapdoors) unwaterlogged only, so water cannot enter those
        self.container = vname in _waterloggable()
        entry = B.PALETTE.get(name)
        self.settable = self.container and (entry is None or "true" in entry[1].get("waterlogged", ()))
        boxes = collision_boxes(state) if not self.air and name != WATER else ()
        force_solid = name.endswith("_fence_gate") or name == "moving_piston"  # Properties.forceSolidOn
        if force_solid:
            self.solid = True
        elif boxes:
            lo = [min(b[a] for b in boxes) for a in range(3)]
            hi = [max(b[a + 3] for b in boxes) for a in range(3)]
            size = sum(h - low for h, low in zip(hi, lo)) / 3
            self.solid = size >= SOLID_SIZE or hi[1] - lo[1] >= 1.0
        else:
            self.solid = False
        if name == "moving_piston":
            boxes = ((0.0, 0.0, 0.0, 1.0, 1.0, 1.0),)  # it blocks as the block it carries; taken as whole here
        self.faces = tuple(_face_mask(boxes, k) for k in range(6))
        blocks_motion = self.solid and name not in ("cobweb", "bamboo_sapling")
        door = vname.endswith("_door")
        never = door or vname in ("sugar_cane", "bubble_column", LAVA, "nether_portal", "end_portal", "end_gateway",
                                  "structure_void")
        # FlowingFluid.canHoldFluid for flowing water (a container's own rule is asked apart)
        self.holds = not never and not blocks_motion

    def fluid(self) -> tuple[int, bool] | None:
        """(amount, falling) with amount 8 and falling False for a source; None without water."""
        if self.amount == 0:
            return None
        return (self.amount, self.falling)


@functools.lru_cache(maxsize=8192)
def info(state: str) -> Info:
    return Info(state)


def lava_meets(world, p, tick: int, fluid_ticks) -> bool:
    """LiquidBlock.shouldSpreadLiquid for the lava at p, run where vanilla runs it (onPlace, neighborChanged): water
    (or a waterlogged block) above it or beside it turns it to obsidian if it is a source, else to cobblestone; over
    soul soil, blue ice there turns it to basalt; the first of its neighbours in LAVA_LOOKS' order that does either
    decides. The block is set with its updates (setBlockAndUpdate), and water beside it hears of the change. Returns
    True if the lava went."""
    here = info(world._block_at(p))
    if not here.lava:
        return False
    soul_soil = B.split_state(world._block_at(step(p, D_)))[0] == "soul_soil"
    for k in LAVA_LOOKS:
        n = info(world._block_at(step(p, k)))
        if n.amount:
            new = "minecraft:obsidian" if here.lava_source else "minecraft:cobblestone"
        elif soul_soil and n.name == "blue_ice":
            new = "minecraft:basalt[axis=y]"
        else:
            continue
        world._fluid_set(p, new)
        fluid_ticks.neighbours_changed(world, p, tick)
        return True
    return False


# The blocks Java 1.20 builds with BlockBehaviour.Properties.replaceable() (its Blocks table; minecraft-data carries no
# such flag): a block item placed there, or a bucket's fluid, takes their place. `grass` is 1.20.1's name of
# `short_grass`.
REPLACEABLE = frozenset((
    "air", "cave_air", "void_air", WATER, LAVA, BUBBLE_COLUMN, "fire", "soul_fire", "structure_void", "light",
    "grass", "short_grass", "fern", "dead_bush", "seagrass", "tall_seagrass", "tall_grass", "large_fern", "vine",
    "glow_lichen", "snow", "hanging_roots", "crimson_roots", "warped_roots", "nether_sprouts"))
VINE_FACES = ("up", "north", "east", "south", "west")  # VineBlock.PROPERTY_BY_DIRECTION


def replaceable(state: str) -> bool:
    """BlockState.canBeReplaced(BlockPlaceContext) for a block item that is not the block's own (a dispensed shulker
    box): a replaceable block, except a snow layer thicker than 1 (SnowLayerBlock) and a vine on all five of its
    faces (VineBlock); a sculk vein (MultifaceBlock, whose item is not the one placed) is replaced too."""
    name, props = B.split_state(state)
    name = B.VANILLA_NAME.get(name, name)
    if name == "snow":
        return props.get("layers", "1") == "1"
    if name == "vine":
        return sum(props.get(k) == "true" for k in VINE_FACES) < len(VINE_FACES)
    return name in REPLACEABLE or name == "sculk_vein"


@functools.lru_cache(maxsize=1)
def _shaped() -> frozenset:
    from scicraft_viz.engine.items import _shape_data

    return frozenset(_shape_data()[0]["blocks"])


def fluid_replaceable(state: str) -> bool:
    """BlockState.canBeReplaced(Fluid), which a bucket asks of the block it empties into: a replaceable block (its flag
    alone, whatever its layers or faces) or one that is not solid (BlockStateBase.isSolid: no collision shape, or
    one too small on average and under a block tall; dust, torches, repeaters, rails, buttons, plates...); never an
    end portal or gateway. A block minecraft-data's 1.20 shapes do not know (a copper bulb) is taken as solid."""
    name = B.split_state(state)[0]
    name = B.VANILLA_NAME.get(name, name)
    if name in REPLACEABLE:
        return True
    if name in ("end_portal", "end_gateway") or name not in _shaped():
        return False
    return not info(state).solid


def is_watery(state: str) -> bool:
    """A water block, a waterlogged one or a bubble column: what fluid ticks run for."""
    return state.startswith(("minecraft:water", "minecraft:bubble_column")) or "waterlogged=true" in state


@functools.lru_cache(maxsize=1)
def watery_numbers():
    """By vanilla state number: 1 for water, lava and a waterlogged state (placement rows that bring in the fluid
    rules)."""
    import numpy as np

    top = max(r[0] + len(r[3]) for r in B._VANILLA.values())
    out = np.zeros(top + 1, np.uint8)
    for name, (lo, allowed, _, codes, _order) in B._VANILLA.items():
        if name in (WATER, LAVA, BUBBLE_COLUMN):
            out[lo : lo + len(codes)] = 1
        elif "waterlogged" in allowed:
            for i in range(len(codes)):
                state = B.vanilla_state_of(lo + i)
                if "waterlogged=true" in state:
                    out[lo + i] = 1
    return out


def legacy_state(amount: int, falling: bool) -> str:
    """LiquidBlock's block state for a fluid state (FluidState.createLegacyBlock)."""
    level = 0 if amount == 8 and not falling else 8 if falling else 8 - amount
    return f"minecraft:water[level={level}]"


def waterlogged(b: Info) -> str:
    """The state of the waterloggable block b with `waterlogged=true` (placeLiquid into a container block)."""
    props = B.split_state(b.state)[1]
    props["waterlogged"] = "true"
    return f"minecraft:{b.name}[" + ",".join(f"{k}={v}" for k, v in sorted(props.items())) + "]"


class FluidTicks:
    """Pending fluid ticks and the rules that run them, for one world."""

    def __init__(self):
        self.heap: list[tuple[int, int, tuple, int]] = []
        self.pending: set[tuple[tuple, int]] = set()
        self.seq = 0
        self.snap = None  # the cell rows the last look saw (World._fluid_sync)
        self.sources_made = 0  # sources the infinite-source rule made (a count the tests read)

    def copy(self) -> FluidTicks:
        f = FluidTicks()
        f.heap = list(self.heap)
        f.pending = set(self.pending)
        f.seq = self.seq
        f.snap = None if self.snap is None else self.snap.copy()
        f.sources_made = self.sources_made
        return f

    def schedule(self, p, typ: int, due: int) -> None:
        """LevelTicks.schedule: nothing if a tick of that type is already pending there."""
        key = (p, typ)
        if key in self.pending:
            return
        self.pending.add(key)
        heapq.heappush(self.heap, (due, self.seq, p, typ))
        self.seq += 1

    def clear(self) -> None:
        """Drop every pending fluid tick."""
        self.heap.clear()
        self.pending.clear()

    def next_due(self) -> int | None:
        return self.heap[0][0] if self.heap else None

    def listing(self) -> list[tuple[int, tuple, str]]:
        """The pending fluid ticks in the order they run: (due tick, position, 'water' or 'flowing_water')."""
        return [(t, p, ("water", "flowing_water")[typ]) for t, _, p, typ in sorted(self.heap)]

    # ------------------------------------------------------------------ the tick
    def run_due(self, world, tick: int) -> bool:
        """Run every fluid tick due by `tick` in order (ServerLevel.tickFluid); True if any ran."""
        ran = False
        while self.heap and self.heap[0][0] <= tick:
            _, _, p, typ = heapq.heappop(self.heap)
            self.pending.discard((p, typ))
            here = info(world._block_at(p))
            if here.amount == 0 or (SOURCE if here.source else FLOWING) != typ:
                continue
            ran = True
            self._tick(world, p, here, tick)
        return ran

    def _at(self, world, p) -> Info:
        return info(world._block_at(p))

    def _tick(self, world, p, here: Info, tick: int) -> None:
        fs = here.fluid()
        if not here.source:
            new = self.new_liquid(world, p, here)
            if new is None:
                self._set(world, p, "minecraft:air", tick)
                return
            if new != fs:
                if new == (8, False):
                    self.sources_made += 1
                self._set(world, p, legacy_state(*new), tick)
                fs = new
                here = self._at(world, p)
        self.spread(world, p, here, fs, tick)

    def _set(self, world, p, state: str, tick: int) -> None:
        """level.setBlock with updates: the block changes (the engine sends its neighbour and shape updates), a
        water block placed asks for its own tick (onPlace), and water beside it hears of the change."""
        world._fluid_set(p, state)
        now = self._at(world, p)
        if now.amount and now.name == WATER:
            self.schedule(p, SOURCE if now.source else FLOWING, tick + TICK_DELAY)
        self.neighbours_changed(world, p, tick)
        if now.amount and now.name != WATER:  # SimpleWaterloggedBlock.placeLiquid schedules after its update
            self.schedule(p, SOURCE, tick + TICK_DELAY)

    def neighbours_changed(self, world, p, tick: int) -> None:
        for k in UPDATE_ORDER:
            q = step(p, k)
            i = self._at(world, q)
            if i.lava:
                lava_meets(world, q, tick, self)
            elif i.amount:
                self.schedule(q, SOURCE if i.source else FLOWING, tick + TICK_DELAY)

    # ------------------------------------------------------------------ FlowingFluid's rules
    def pass_wall(self, a: Info, k: int, b: Info) -> bool:
        """canPassThroughWall: the two faces between a and b (a's toward k) do not close the opening together."""
        return (a.faces[k] | b.faces[OPPOSITE[k]]) != FULL_FACE

    def can_hold(self, i: Info, source: bool) -> bool:
        """canHoldFluid for a source (the only water a waterloggable block takes) or flowing water."""
        if i.container:
            return source and i.settable and not i.waterlogged
        return i.holds

    def new_liquid(self, world, p, here: Info):
        """getNewLiquid: the fluid state water at p would have from its neighbours, or None."""
        best, sources = 0, 0
        for k in HORIZONTAL_SCAN:
            n = self._at(world, step(p, k))
            if n.amount and self.pass_wall(here, k, n):
                if n.source:
                    sources += 1
                best = max(best, n.amount)
        if sources >= 2:
            below = self._at(world, step(p, D_))
            if below.solid or below.source:
                return (8, False)
        above = self._at(world, step(p, U_))
        if above.amount and self.pass_wall(here, U_, above):
            return (8, True)
        k = best - DROP_OFF
        return None if k <= 0 else (k, False)

    def can_spread_to(self, a: Info, k: int, b: Info, fluid) -> bool:
        """canSpreadTo: b holds no water (water never replaces water), the faces let it through and b can hold it."""
        if fluid is None or b.amount:
            return False
        return self.pass_wall(a, k, b) and self.can_hold(b, fluid == (8, False))

    def spread_to(self, world, q, b: Info, fluid, tick: int) -> None:
        if b.container:  # placeLiquid: waterlogged, with a tick of its own
            if fluid == (8, False) and b.settable and not b.waterlogged:
                self._set(world, q, waterlogged(b), tick)
            return
        if fluid == (8, False):
            self.sources_made += 1
        self._set(world, q, legacy_state(*fluid), tick)  # what stood there is broken (beforeDestroyingBlock)

    def source_neighbours(self, world, p) -> int:
        return sum(1 for k in HORIZONTAL_SCAN if self._at(world, step(p, k)).source)

    def is_hole(self, world, a: Info, p, below_fluid) -> bool:
        """isWaterHole: water at p (block a) could fall into the block below."""
        b = self._at(world, step(p, D_))
        if not self.pass_wall(a, D_, b):
            return False
        return bool(b.amount) or self.can_hold(b, below_fluid == (8, False))

    def passable(self, a: Info, k: int, b: Info) -> bool:
        """canPassThrough for the slope search (flowing water): not a source, through the faces, and held."""
        return not b.source and self.pass_wall(a, k, b) and self.can_hold(b, False)

    def slope_distance(self, world, p, here: Info, depth: int, came_from: int) -> int:
        best = 1000
        for k in HORIZONTAL_SCAN:
            if k == came_from:
                continue
            q = step(p, k)
            n = self._at(world, q)
            if self.passable(here, k, n):
                if self.is_hole(world, n, q, (7, False)):
                    return depth
                if depth < SLOPE_DISTANCE:
                    best = min(best, self.slope_distance(world, q, n, depth + 1, OPPOSITE[k]))
        return best

    def get_spread(self, world, p, here: Info) -> dict[int, tuple]:
        """getSpread: the sides toward the nearest drop within 4 blocks (all sides at the least distance), each
        with the fluid state it would take."""
        best, out = 1000, {}
        for k in HORIZONTAL_SCAN:
            q = step(p, k)
            n = self._at(world, q)
            if not self.passable(here, k, n):
                continue
            fluid = self.new_liquid(world, q, n)
            j = 0 if self.is_hole(world, n, q, (7, False)) else self.slope_distance(world, q, n, 1, OPPOSITE[k])
            if j < best:
                out.clear()
            if j <= best:
                out[k] = fluid
                best = j
        return out

    def spread_sides(self, world, p, here: Info, fs, tick: int) -> None:
        amount = 7 if fs[1] else fs[0] - DROP_OFF
        if amount <= 0:
            return
        spread = self.get_spread(world, p, here)
        for k in SPREAD_ORDER:
            if k not in spread:
                continue
            q = step(p, k)
            n = self._at(world, q)
            here = self._at(world, p)
            if self.can_spread_to(here, k, n, spread[k]):
                self.spread_to(world, q, n, spread[k], tick)

    def spread(self, world, p, here: Info, fs, tick: int) -> None:
        if fs is None:
            return
        below_p = step(p, D_)
        below = self._at(world, below_p)
        fluid_below = self.new_liquid(world, below_p, below)
        if self.can_spread_to(here, D_, below, fluid_below):
            self.spread_to(world, below_p, below, fluid_below, tick)
            if self.source_neighbours(world, p) >= 3:
                self.spread_sides(world, p, self._at(world, p), fs, tick)
        elif here.source or not self.is_hole(world, here, p, fluid_below):
            self.spread_sides(world, p, here, fs, tick)
