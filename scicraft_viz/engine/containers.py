"""Containers: the items a container holds (block-entity data), its fill level (what a comparator reads), and
the one-item moves of hoppers, droppers and dispensers between them (vanilla HopperBlockEntity.addItem).

A container's contents are a tuple of all its slots in order, None for an empty slot.

Item stack sizes come from PrismarineJS's minecraft-data for Java 1.20 (the `minecraft-data-latest`
package), not from a table typed here.
"""

from __future__ import annotations

import difflib
import functools
from numbers import Integral

import numpy as np

from scicraft_viz.engine import blocks as B
from scicraft_viz.errors import InputError

# Slots per container (vanilla container sizes). A furnace's three slots (input, fuel, result) are filled in
# that order with whatever is given: its fill level counts every slot alike, and which item may go in which
# slot (fuel only in the fuel slot) is not checked.
#
# A shulker box is a vanilla block (engine id STONE, its state number in the cell) that is also a 27-slot
# container: BOX stands for it wherever a container's kind is asked (docs/redstone.md section 96). It takes no
# shulker box item (vanilla ShulkerBoxBlockEntity.canPlaceItemThroughFace).
BOX = -2
SLOTS = {B.BARREL: 27, B.CHEST: 27, B.HOPPER: 5, B.DROPPER: 9, B.DISPENSER: 9, B.FURNACE: 3, BOX: 27}
BOX_ITEMS = frozenset(B.SHULKER_BOXES)  # the shulker box items (an item's id is its block's name)
DEFAULT_ITEM = "stone"  # what a bare count fills a container with: an item that stacks to 64

Stack = tuple[str, int]
Slots = tuple["Stack | None", ...]
UP, DOWN = 4, 5  # direction indices of blocks.DIRECTIONS
# What a furnace offers through each face (vanilla AbstractFurnaceBlockEntity.getSlotsForFace): its result
# and fuel slots below, its input slot above, its fuel slot on the sides.
_FURNACE_FACES = {DOWN: (2, 1), UP: (0,)}
_FURNACE_SIDE = (1,)
_BUCKETS = ("water_bucket", "bucket")  # what may leave a furnace's fuel slot downward


def kind_name(block: int) -> str:
    """The name of a kind of container, for messages: 'chest', 'hopper', ..., 'shulker box'."""
    return "shulker box" if block == BOX else B.NAME_OF_ID[block]


def is_box_cell(U, c: int) -> bool:
    """Does the engine cell c (a row of kernels' U) hold a shulker box?"""
    from scicraft_viz.engine import kernels as sim

    return (c > 0 and int(U[c, sim.BT]) == B.STONE
            and bool(B.BOX_STATE[int(U[c, sim.FACING]) | (int(U[c, sim.FACE]) << 8)]))


class Filled(str):
    """An item id that carries the slots of a container item: a shulker box item holding items (vanilla's item
    component `minecraft:container` from 1.20.5, the tag `BlockEntityTag.Items` before). It is its id
    everywhere an item id is asked for (it compares, hashes and prints as the id); `contents` are the slots the
    box it places (or came from) holds, every one of its 27, None where empty."""

    contents: tuple

    def __new__(cls, name: str, contents: tuple) -> Filled:
        out = super().__new__(cls, name)
        out.contents = tuple(contents)
        return out

    def __reduce__(self):
        return (Filled, (str(self), self.contents))


def with_contents(name: str, slots: tuple) -> str:
    """The item id `name` carrying `slots` (a Filled id), or the bare id when every slot is empty (an empty
    box's item has no contents, as vanilla drops it)."""
    if not any(slots):
        return str(name)
    return Filled(str(name), padded(tuple(slots), BOX) if len(slots) < SLOTS[BOX] else tuple(slots))


def contents_of(item: str) -> tuple:
    """The slots an item id carries (a Filled id's), else ()."""
    return getattr(item, "contents", ())


@functools.lru_cache(maxsize=1)
def stack_sizes() -> dict[str, int]:
    """{item id: max stack size} for Java 1.20."""
    import minecraft_data

    return {name: int(item["stackSize"]) for name, item in minecraft_data("1.20").items_name.items()}


def _item_name(item: object, where: str) -> str:
    if isinstance(item, Filled) and str(item) in BOX_ITEMS:  # a shulker box item with its contents, as read
        return item
    if not isinstance(item, str):
        raise InputError(f"{where}: an item must be an item id such as 'stone', got {item!r}"[:200])
    name = item.strip().removeprefix("minecraft:")
    sizes = stack_sizes()
    if name not in sizes or name == "air":
        close = difflib.get_close_matches(name, sizes, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise InputError(f"{where}: '{name[:60]}' is not a Minecraft 1.20 item{hint}")
    return name


def _count(n: object, where: str) -> int:
    if not isinstance(n, Integral) or isinstance(n, bool) or n < 0:
        raise InputError(f"{where}: an item count must be a non-negative integer, got {n!r}"[:200])
    return int(n)


def slot_stacks(items: object, block: int, where: str) -> tuple[Stack | None, ...]:
    """The slots a container holding `items` fills, in order: `items` is a count of a 64-stack item,
    or a list of (item id, count) pairs; a count above the item's stack size fills several slots, and None
    stands for an empty slot (kept in its place)."""
    if isinstance(items, Integral) and not isinstance(items, bool):
        pairs = [(DEFAULT_ITEM, _count(items, where))]
    elif isinstance(items, (list, tuple)):
        pairs = []
        for i, pair in enumerate(items):
            if pair is None:  # an empty slot kept in its place
                pairs.append(None)
                continue
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise InputError(f"{where}: item {i} must be an (item id, count) pair, got {pair!r}"[:200])
            pairs.append((_item_name(pair[0], f"{where}, item {i}"), _count(pair[1], f"{where}, item {i}")))
    else:
        raise InputError(f"{where}: items must be a count or a list of (item id, count) pairs, got {items!r}"[:200])
    sizes = stack_sizes()
    slots: list[Stack | None] = []
    for pair in pairs:
        if pair is None:
            slots.append(None)
            continue
        name, n = pair
        size = sizes[name]
        while n > 0:
            slots.append((name, min(n, size)))
            n -= size
    if len(slots) > SLOTS[block]:
        raise InputError(
            f"{where}: these items need {len(slots)} slots; a {kind_name(block)} has {SLOTS[block]}"
        )
    return tuple(slots)


def fill_level(slots: tuple[Stack | None, ...], block: int, size: int | None = None) -> int:
    """What a comparator reads from the container: 0 when empty, else 1 + floor(14 * fullness), where
    fullness is the mean over all slots of count / stack size. Summed in 32-bit floats slot by slot, as
    vanilla does, so rounding at the boundaries is vanilla's. Empty slots may be given as None. `size`: the
    slots to average over when not the block's own (54 for a double chest)."""
    if not any(slots):
        return 0
    sizes = stack_sizes()
    f = np.float32(0)
    for stack in slots:
        if stack is None:
            continue
        name, n = stack
        f = np.float32(f + np.float32(n) / np.float32(sizes[name]))
    f = np.float32(f / np.float32(size or SLOTS[block]))
    return int(np.floor(np.float32(f * np.float32(14)))) + 1


def padded(filled: tuple[Stack, ...], block: int) -> Slots:
    """Every slot of the container, filled ones first as `slot_stacks` gives them."""
    return tuple(filled) + (None,) * (SLOTS[block] - len(filled))


def face_slots(block: int, face: int, n: int | None = None) -> tuple[int, ...]:
    """The slots an item may enter or leave through `face` (a direction index, -1 for none): a furnace's
    depend on the face; every other container offers all its slots in order (`n` of them when not the
    block's own count: 54 for a double chest)."""
    if block == B.FURNACE and face >= 0:
        return _FURNACE_FACES.get(face, _FURNACE_SIDE)
    return tuple(range(n or SLOTS[block]))


def _max_stack(name: str) -> int:
    return min(stack_sizes()[name], 64)


def _can_place(block: int, slot: int, name: str) -> bool:
    """Vanilla canPlaceItem: a furnace takes anything in its input slot, nothing in its result slot; its fuel
    slot would take fuels, which the engine does not know (docs/limits.md), so it takes none. A shulker box
    takes anything but a shulker box (canPlaceItemThroughFace)."""
    if block == BOX:
        return name not in BOX_ITEMS
    return block != B.FURNACE or slot == 0


def is_full(slots: Slots, block: int, face: int) -> bool:
    """Every slot offered through `face` holds a full stack (vanilla isFullContainer)."""
    return all(slots[i] is not None and slots[i][1] >= _max_stack(slots[i][0])
               for i in face_slots(block, face, len(slots)))


def is_empty(slots: Slots, block: int, face: int) -> bool:
    return all(slots[i] is None for i in face_slots(block, face, len(slots)))


def add_one(slots: Slots, block: int, name: str, face: int) -> Slots | None:
    """The slots after one `name` goes in through `face` (vanilla addItem with a one-item stack: the first
    offered slot that is empty or holds the same item below its stack size), or None when none takes it."""
    for i in face_slots(block, face, len(slots)):
        s = slots[i]
        if not _can_place(block, i, name):
            continue
        if s is None:
            return slots[:i] + ((name, 1),) + slots[i + 1 :]
        if s[0] == name and s[1] < _max_stack(name):
            return slots[:i] + ((name, s[1] + 1),) + slots[i + 1 :]
    return None


def take_one(slots: Slots, i: int) -> Slots:
    """The slots after one item leaves slot i (which holds one or more)."""
    name, n = slots[i]
    return slots[:i] + (((name, n - 1) if n > 1 else None),) + slots[i + 1 :]


def can_take(block: int, slot: int, name: str, face: int) -> bool:
    """Vanilla canTakeItemThroughFace: from a furnace's fuel slot only buckets leave downward."""
    return not (block == B.FURNACE and face == DOWN and slot == 1 and name not in _BUCKETS)


def add_stack(slots: Slots, block: int, name: str, n: int, face: int = -1) -> tuple[Slots, int]:
    """(the slots after, the count left over) when a stack of n `name` goes in through `face` (vanilla addItem
    with a whole stack, as a hopper takes an item entity): slot by slot in order, an empty slot takes all that
    is left, a slot of the same item fills up to its stack size."""
    out = list(slots)
    for i in face_slots(block, face, len(slots)):
        if n == 0:
            break
        if not _can_place(block, i, name):
            continue
        s = out[i]
        if s is None:
            out[i], n = (name, n), 0
        elif s[0] == name and s[1] < _max_stack(name):
            k = min(n, _max_stack(name) - s[1])
            out[i], n = (name, s[1] + k), n - k
    return tuple(out), n
