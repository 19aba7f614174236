"""What the views draw: a world's blocks as parallel arrays (a Layout) plus the per-tick values
(a Frame). Views never read the engine: they are handed frames built from block-state strings or
from a recorded trace row."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.blocks import split_state
from scicraft_viz.views.block_colors import block_color

Pos = tuple[int, int, int]

SIDE_NAMES = ("north", "east", "south", "west")
# opaque: they hide the faces of their neighbours
FULL_CUBES = (B.STONE, B.LAMP, B.REDSTONE_BLOCK, B.BARREL, B.TARGET, B.NOTE_BLOCK, B.DROPPER, B.DISPENSER, B.FURNACE,
              B.OBSERVER, B.TEST_BLOCK, B.COMMAND_BLOCK)
# blocks whose `open` follows power: a frame shows it from `on` (their `powered`)
OPENED_BY_POWER = ("iron_door", "iron_trapdoor")
DYNAMIC_PROPS = {"power", "lit", "powered", "locked"}


@dataclass
class Layout:
    """Blocks as arrays, one row per block, sorted by position (x, y, z)."""

    pos: np.ndarray  # int32 (N, 3)
    kind: np.ndarray  # uint8 (N,), the engine's block ids (scicraft_viz.engine.blocks)
    facing: np.ndarray  # uint8 (N,), index into blocks.DIRECTIONS
    face: np.ndarray  # uint8 (N,), index into blocks.FACES
    delay: np.ndarray  # uint8 (N,)
    sides: np.ndarray  # uint8 (N, 4): dust connection north, east, south, west (0 none, 1 side, 2 up)
    states: list[str]  # canonical state strings as they were when the layout was made
    index: dict[Pos, int] = field(default_factory=dict)
    # RGB (0-1) of a vanilla block drawn in its own colour (concrete, planks, slabs...), -1 for the others
    tint: np.ndarray | None = None
    # blocks a piston is moving, by the row of the moving_piston carrying them (engine.world.MovingBlock:
    # the carried state, where from, how far along); the geometry draws each between its two places
    moving: dict[int, object] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.states)

    @property
    def positions(self) -> list[Pos]:
        return [tuple(p) for p in self.pos.tolist()]

    def name(self, i: int) -> str:
        return split_state(self.states[i])[0]

    def at(self, pos: Pos) -> int | None:
        return self.index.get(tuple(pos))

    def moved_on(self, moving: dict) -> Layout:
        """The same blocks with other blocks in motion ({position: MovingBlock}, as World.moving gives them): a
        layout sharing these arrays, since geometry follows layouts; only moving_piston cells carry a block."""
        rows = ((self.index.get(p), m) for p, m in moving.items())
        return replace(self, moving={i: m for i, m in rows if i is not None and self.kind[i] == B.MOVING_PISTON})


@dataclass
class Frame:
    """A layout and the values that change from tick to tick."""

    layout: Layout
    on: np.ndarray  # bool (N,): lamp/torch lit, repeater/button/lever powered
    power: np.ndarray  # uint8 (N,): dust power
    locked: np.ndarray  # bool (N,): repeater locked
    tick: int | None = None
    # block-entity text for hover: a command block's command and state, {pos: line} (frame_from_world)
    notes: dict = field(default_factory=dict)
    # the entities at this tick: minecarts (engine/carts.py CartInfo) and item entities (engine/world.py ItemInfo)
    carts: tuple = ()
    items: tuple = ()

    def state(self, i: int) -> str:
        """The block state at row i with this frame's values (for tooltips and messages)."""
        lay = self.layout
        name, props = split_state(lay.states[i])
        if "power" in props:
            props["power"] = str(int(self.power[i]))
        for key in ("lit", "powered"):
            if key in props:
                props[key] = "true" if self.on[i] else "false"
        if name in OPENED_BY_POWER and "powered" in props:
            props["open"] = props["powered"]
        if "locked" in props:
            props["locked"] = "true" if self.locked[i] else "false"
        if not props:
            return f"minecraft:{name}"
        return f"minecraft:{name}[" + ",".join(f"{k}={v}" for k, v in sorted(props.items())) + "]"

    def describe(self, pos: Pos) -> str:
        i = self.layout.at(pos)
        return "air" if i is None else self.state(i).removeprefix("minecraft:")


def layout_from_blocks(blocks: dict[Pos, str], moving: dict | None = None
                       ) -> tuple[Layout, np.ndarray, np.ndarray, np.ndarray]:
    """Parse {pos: state} into a Layout plus the values its states carry (on, power, locked); `moving`
    ({pos: engine.world.MovingBlock}, from `World.moving()`) says what the moving_piston blocks carry."""
    items = sorted(blocks.items())
    n = len(items)
    pos = np.zeros((n, 3), np.int32)
    kind = np.zeros(n, np.uint8)
    facing = np.zeros(n, np.uint8)
    face = np.zeros(n, np.uint8)
    delay = np.ones(n, np.uint8)
    sides = np.zeros((n, 4), np.uint8)
    on = np.zeros(n, bool)
    power = np.zeros(n, np.uint8)
    locked = np.zeros(n, bool)
    states = []
    dirs = {d: i for i, d in enumerate(B.DIRECTIONS)}
    faces = {f: i for i, f in enumerate(B.FACES)}
    wire = {w: i for i, w in enumerate(B.WIRE_SIDES)}
    tint = np.full((n, 3), -1.0, np.float32)
    for i, (p, s) in enumerate(items):
        name, props = split_state(s)
        name = B.ALIASES.get(name, name)  # vanilla's `repeater` is the palette's `redstone_repeater`
        pos[i] = p
        states.append(s)
        if name not in B.PALETTE:  # a vanilla full or partial block: drawn by its category, in its colour
            props = {**B.VANILLA.get(name, (0, {}, {}))[2], **props}  # a state may leave out its defaults
            kind[i] = B.vanilla_kind(name, props)[0]
            tint[i] = block_color(name) or -1.0
            if "facing" in props:
                facing[i] = dirs[props["facing"]]
            delay[i] = B.vanilla_kind(name, props)[1]  # a partial block's whole faces: its shape
            if name in ("tripwire", "tripwire_hook"):  # their powered is in the state (docs/redstone.md section 88)
                on[i] = props.get("powered") == "true"
            continue
        kind[i] = B.PALETTE[name][0]
        if not props:
            continue
        if "facing" in props:
            facing[i] = dirs[props["facing"]]
        if "face" in props:
            face[i] = faces[props["face"]]
        elif "mode" in props:  # a comparator's or test block's mode, kept where the engine keeps it
            face[i] = (B.TEST_MODES if name == "test_block" else B.COMPARATOR_MODES).index(props["mode"])
        elif "half" in props:  # a door's or trapdoor's half (1: upper, top), as the engine keeps it
            face[i] = int(props["half"] in ("upper", "top"))
        elif name in B.VARIANT_OF:  # a furnace's or plate's variant
            face[i] = B.VARIANT_OF[name]
        elif "type" in props and props["type"] in B.PISTON_TYPES:  # a piston head's (or moving piston's) type
            face[i] = B.PISTON_TYPES.index(props["type"])
        if "hinge" in props:
            delay[i] = int(props["hinge"] == "right")
        if "delay" in props:
            delay[i] = int(props["delay"])
        if "conditional" in props:  # a command block's, kept where the engine keeps it
            delay[i] = int(props["conditional"] == "true")
        if "power" in props:
            power[i] = int(props["power"])
        if name == "redstone_wire":
            sides[i] = [wire[props.get(k, "none")] for k in SIDE_NAMES]
        on[i] = props.get("lit", props.get("open" if name in B.OPENER_OF else "powered", "false")) == "true"
        locked[i] = props.get("locked") == "true"
    index = {tuple(p): i for i, (p, _) in enumerate(items)}
    carried = {index[p]: m for p, m in (moving or {}).items() if p in index and kind[index[p]] == B.MOVING_PISTON}
    lay = Layout(pos, kind, facing, face, delay, sides, states, index, tint, carried)
    return lay, on, power, locked


def frame_from_blocks(blocks: dict[Pos, str], tick: int | None = None, moving: dict | None = None) -> Frame:
    """A frame showing exactly the given block states (any world, any moment); `moving` as for
    `layout_from_blocks`."""
    lay, on, power, locked = layout_from_blocks(blocks, moving)
    return Frame(lay, on, power, locked, tick)


def world_entities(world) -> tuple[tuple, tuple]:
    """A world's minecarts, and its item entities and fireballs, as they are now (none for a world that holds no
    entities)."""
    if not hasattr(world, "minecarts"):
        return (), ()
    balls = tuple(world.fireballs()) if hasattr(world, "fireballs") else ()
    return tuple(world.minecarts()), tuple(world.item_entities()) + balls


def frame_from_world(world) -> Frame:
    """The world as it is now, blocks in motion drawn where they are on their way; a command block shown
    powered while its block entity is, with its command in `notes`; its minecarts and item entities."""
    f = frame_from_blocks(world.blocks(), world.tick, world.moving())
    f.carts, f.items = world_entities(world)
    found = world.command_blocks() if hasattr(world, "command_blocks") else {}
    for p, cb in found.items():
        i = f.layout.at(p)
        if i is not None:
            f.on[i] = cb.powered
            f.notes[p] = cb.describe()
    return f
