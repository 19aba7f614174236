"""Containers as comparator inputs: the items a container holds (block-entity data) and its fill level.

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
SLOTS = {B.BARREL: 27, B.CHEST: 27, B.HOPPER: 5, B.DROPPER: 9, B.DISPENSER: 9, B.FURNACE: 3}
DEFAULT_ITEM = "stone"  # what a bare count fills a container with: an item that stacks to 64

Stack = tuple[str, int]


@functools.lru_cache(maxsize=1)
def stack_sizes() -> dict[str, int]:
    """{item id: max stack size} for Java 1.20."""
    import minecraft_data

    return {name: int(item["stackSize"]) for name, item in minecraft_data("1.20").items_name.items()}


def _item_name(item: object, where: str) -> str:
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


def slot_stacks(items: object, block: int, where: str) -> tuple[Stack, ...]:
    """The slots a container holding `items` fills, in order: `items` is a count of a 64-stack item,
    or a list of (item id, count) pairs; a count above the item's stack size fills several slots."""
    if isinstance(items, Integral) and not isinstance(items, bool):
        pairs = [(DEFAULT_ITEM, _count(items, where))]
    elif isinstance(items, (list, tuple)):
        pairs = []
        for i, pair in enumerate(items):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise InputError(f"{where}: item {i} must be an (item id, count) pair, got {pair!r}"[:200])
            pairs.append((_item_name(pair[0], f"{where}, item {i}"), _count(pair[1], f"{where}, item {i}")))
    else:
        raise InputError(f"{where}: items must be a count or a list of (item id, count) pairs, got {items!r}"[:200])
    sizes = stack_sizes()
    slots: list[Stack] = []
    for name, n in pairs:
        size = sizes[name]
        while n > 0:
            slots.append((name, min(n, size)))
            n -= size
    if len(slots) > SLOTS[block]:
        raise InputError(
            f"{where}: these items need {len(slots)} slots; a {B.NAME_OF_ID[block]} has {SLOTS[block]}"
        )
    return tuple(slots)


def fill_level(slots: tuple[Stack, ...], block: int, size: int | None = None) -> int:
    """What a comparator reads from the container: 0 when empty, else 1 + floor(14 * fullness), where
    fullness is the mean over all slots of count / stack size. Summed in 32-bit floats slot by slot, as
    vanilla does, so rounding at the boundaries is vanilla's. `size`: the slots to average over when not
    the block's own (54 for a double chest)."""
    if not slots:
        return 0
    sizes = stack_sizes()
    f = np.float32(0)
    for name, n in slots:
        f = np.float32(f + np.float32(n) / np.float32(sizes[name]))
    f = np.float32(f / np.float32(size or SLOTS[block]))
    return int(np.floor(np.float32(f * np.float32(14)))) + 1
