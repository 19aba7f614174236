"""A container's items as block-entity data in build files: read from and written to NBT.

Every format keeps a container's items the way vanilla saves them: a list `Items` of compounds, each with
`Slot` (a byte), `id` (an item id) and a count (`Count`, a byte, up to 1.20.4; `count`, an int, from
1.20.5). A litematic keeps the block entity in its region's `TileEntities` (x, y, z inside the region), a
Sponge schematic in `BlockEntities` (`Pos` inside the schematic; version 3 nests the data under `Data`), a
structure in each block's `nbt`, an MCEdit schematic in `TileEntities`, a region's chunk in
`block_entities`. Each stack stays in its slot (World.slots): empty slots before it are kept as None, since
hoppers and droppers take from the first filled slot. A comparator's `OutputSignal` is read too (`collect`'s
`outputs`; World.from_build_file takes it only where it agrees with the comparator's state), and a test block's
`message` and `powered` (`collect`'s `tests`), and a command block's data (`collect`'s `commands`,
engine/commands.py). Block-entity data of other blocks (a sign's text) is not part of the
engine's blocks and is left out."""

from __future__ import annotations

from numbers import Integral

from scicraft_viz.engine import blocks as B
from scicraft_viz.errors import BuildFileError, InputError, fmt_pos

Pos = tuple[int, int, int]
Stack = tuple[str, int]
Contents = dict[Pos, tuple[Stack | None, ...]]


def container_id(state: str) -> int | None:
    """The engine id of the container a canonical state names (containers.BOX for a shulker box), else None."""
    from scicraft_viz.engine import containers as C

    if B.split_state(state)[0].removeprefix("minecraft:") in B.SHULKER_BOXES:
        return C.BOX
    b = B.parse_state(state).id
    return b if b in B.CONTAINERS else None


def read_items(data, block: int, source: str, where: str, pos: Pos, nested: bool = False) -> tuple[Stack | None, ...]:
    """The slots of a container's block-entity data (an nbtlib Compound holding `Items`) up to the last
    filled one, None where a slot is empty. A wrong type, a slot outside the container, a slot given twice,
    an unknown item, a negative count or one above the item's stack size raises BuildFileError naming the
    file, the tag and the block's position. An empty slot (count 0) is skipped, as vanilla reads it."""
    from nbtlib import Compound, List, String

    from scicraft_viz.engine import containers as C

    at = where if nested else f"{source}: {where} (the {C.kind_name(block)} at {fmt_pos(pos)})"
    if not isinstance(data, Compound):
        raise BuildFileError(f"{at} is {type(data).__name__}, expected a compound")
    if "Items" not in data:
        return ()
    items = data["Items"]
    size = C.SLOTS[block]
    if not isinstance(items, List):
        raise BuildFileError(f"{at}: Items is {type(items).__name__}, expected a list of item compounds")
    if len(items) > size:
        raise BuildFileError(f"{at}: Items lists {len(items):,} stacks; a {C.kind_name(block)} has {size} slots")
    sizes = C.stack_sizes()
    slots: dict[int, Stack] = {}
    for i, item in enumerate(items):
        w = f"{at}: Items[{i}]"
        if not isinstance(item, Compound):
            raise BuildFileError(f"{w} is {type(item).__name__}, expected a compound")
        slot = _integer(item, "Slot", w)
        if not 0 <= slot < size:
            raise BuildFileError(f"{w}: Slot {slot} is outside the {C.kind_name(block)}'s slots 0-{size - 1}")
        if slot in slots:
            raise BuildFileError(f"{w}: Slot {slot} is given twice")
        if not isinstance(item.get("id"), String):
            raise BuildFileError(f"{w}: id is {type(item.get('id')).__name__}, expected an item id such as "
                                 "'minecraft:redstone'")
        key = "count" if "count" in item else "Count"
        n = _integer(item, key, w)
        if n < 0:
            raise BuildFileError(f"{w}: {key} is {n}; a count is never negative")
        try:
            name = C._item_name(str(item["id"]), w)
        except InputError as e:
            raise BuildFileError(str(e)) from None
        if n > sizes[name]:
            raise BuildFileError(f"{w}: {n} {name} in one slot; it stacks to {sizes[name]}")
        if n:
            slots[slot] = (_carried(item, name, w), n)
    return tuple(slots.get(k) for k in range(max(slots) + 1)) if slots else ()


def _carried(item, name: str, where: str) -> str:
    """The id of the item compound `item` (id `name`), carrying its contents when it is a shulker box item
    holding items: the component `minecraft:container` (1.20.5 on: a list of {slot, item: {id, count}}) or the
    tag `BlockEntityTag.Items` (before: Items as a box's own block entity has them)."""
    from nbtlib import Compound, List

    from scicraft_viz.engine import containers as C

    if name not in C.BOX_ITEMS:
        return name
    comps, tag = item.get("components"), item.get("tag")
    if isinstance(comps, Compound) and "minecraft:container" in comps:
        listed = comps["minecraft:container"]
        w = f"{where}: components.minecraft:container"
        if not isinstance(listed, List):
            raise BuildFileError(f"{w} is {type(listed).__name__}, expected a list of {{slot, item}} compounds")
        entries = []
        for i, e in enumerate(listed):
            if not isinstance(e, Compound) or not isinstance(e.get("item"), Compound):
                raise BuildFileError(f"{w}[{i}] is not a compound with an item compound")
            entries.append(Compound({**e["item"], **({"Slot": e["slot"]} if "slot" in e else {})}))
        inner = Compound({"Items": List[Compound](entries)})
        at = w
    elif isinstance(tag, Compound) and isinstance(tag.get("BlockEntityTag"), Compound):
        inner, at = tag["BlockEntityTag"], f"{where}: tag.BlockEntityTag"
    else:
        return name
    slots = read_items(inner, C.BOX, "", at, (0, 0, 0), nested=True)
    return C.with_contents(name, C.padded(slots, C.BOX))


def _integer(tag, key: str, where: str) -> int:
    from nbtlib import Byte, Int, Short

    v = tag.get(key)
    if not isinstance(v, (Byte, Short, Int)) or not isinstance(v, Integral):
        kind = "missing" if v is None else type(v).__name__
        raise BuildFileError(f"{where}: {key} is {kind}, expected an integer")
    return int(v)


def items_tag(stacks) -> object:
    """`Items` as vanilla 1.20.1 writes it: Slot, id and Count (a byte) for each filled slot (None: an
    empty one, written as vanilla does by leaving it out)."""
    from nbtlib import Byte, Compound, List, String

    from scicraft_viz.engine import containers as C

    out = []
    for i, stack in enumerate(stacks):
        if stack is None:
            continue
        name, n = stack
        item = Compound({"Slot": Byte(i), "id": String(f"minecraft:{name}"), "Count": Byte(n)})
        if C.contents_of(name):  # a shulker box item holding items: as 1.20.1 keeps them
            item["tag"] = Compound({"BlockEntityTag": Compound({"Items": items_tag(C.contents_of(name))})})
        out.append(item)
    return List[Compound](out)


def block_entity(state: str, stacks, **extra) -> object:
    """A container's block entity: its id (the block's vanilla id; every shulker box's is `shulker_box`), `Items`,
    and the given extra tags; `stacks` may instead be a block entity's own tags (a command block's,
    commands.entity_tag), kept as they are."""
    from nbtlib import Compound, String

    kind = B.parse_state(state).name
    name = String("minecraft:" + ("shulker_box" if kind in B.SHULKER_BOXES else kind))  # one id for every box
    if isinstance(stacks, Compound):
        return Compound({**extra, "id": name, **stacks})
    return Compound({**extra, "id": name, "Items": items_tag(stacks)})


def comparator_output(tag, source: str, where: str, pos: Pos) -> int | None:
    """A comparator block entity's `OutputSignal` (0-15), or None when it has none; anything else is refused
    naming the tag."""
    from nbtlib import Compound, Int

    if not isinstance(tag, Compound) or "OutputSignal" not in tag:
        return None
    v = tag["OutputSignal"]
    if not isinstance(v, Int) or not 0 <= int(v) <= 15:
        raise BuildFileError(f"{source}: {where}.OutputSignal (the comparator at {fmt_pos(pos)}) is "
                             f"{str(v)[:40]!r}; expected an Int from 0 to 15")
    return int(v)


def test_block_data(tag, source: str, where: str, pos: Pos) -> tuple[str, bool]:
    """A test block entity's `message` (a string, '' when left out) and `powered` (a byte, false when left out), as
    vanilla's TestBlockEntity.loadAdditional reads them; a tag of another type is refused naming it."""
    from nbtlib import Byte, Compound, String

    at = f"{source}: {where} (the test block at {fmt_pos(pos)})"
    if not isinstance(tag, Compound):
        raise BuildFileError(f"{at} is {type(tag).__name__}, expected a compound")
    message = tag.get("message", String(""))
    if not isinstance(message, String):
        raise BuildFileError(f"{at}: message is {type(message).__name__}, expected a string")
    powered = tag.get("powered", Byte(0))
    if not isinstance(powered, Byte) or int(powered) not in (0, 1):
        raise BuildFileError(f"{at}: powered is {str(powered)[:40]!r}, expected a byte 0 or 1")
    return str(message), bool(int(powered))


def collect(found, data: dict[Pos, tuple[object, str]], source: str, omitted: list | None = None,
            outputs: dict | None = None, tests: dict | None = None, commands: dict | None = None) -> Contents:
    """The contents of the containers among the loaded blocks `found` ((pos, canonical state) pairs) from
    block entities `data` ({pos: (nbt compound, where in the file)}). Data at a block that is no container
    is left out (the module's docstring says why), and listed in `omitted` (skip_unsupported) when given;
    then a container whose items cannot be read is left empty and listed with the reason, instead of
    refusing the file."""
    states = dict(found)
    out: Contents = {}
    left = 0
    for p, (tag, where) in data.items():
        state = states.get(p)
        if outputs is not None and state is not None and state.startswith("minecraft:comparator["):
            v = comparator_output(tag, source, where, p)  # World.from_build_file checks it against the state
            if v is not None:
                outputs[p] = v
                continue
        if tests is not None and state is not None and state.startswith("minecraft:test_block["):
            tests[p] = test_block_data(tag, source, where, p)
            continue
        if commands is not None and state is not None and B.split_state(state)[0] in B.COMMAND_BLOCKS:
            from scicraft_viz.engine.commands import command_block_data

            commands[p] = command_block_data(tag, source, where, p)
            continue
        b = container_id(state) if state is not None else None
        if b is None:
            left += 1
            continue
        try:
            stacks = read_items(tag, b, source, where, p)
        except BuildFileError as e:
            if omitted is None:
                raise
            omitted.append((f"the items of {str(e).removeprefix(source + ': ')}", 0, []))
            continue
        if any(stacks):
            out[p] = stacks
    if left and omitted is not None:
        omitted.append((f"block entity data on {left} blocks that are not containers", 0, []))
    return out


def position(tag, keys, source: str, where: str) -> Pos:
    """A block entity's position: three Ints x, y, z (keys="xyz"), or an IntArray of three (keys="Pos")."""
    from nbtlib import Compound, Int, IntArray

    if not isinstance(tag, Compound):
        raise BuildFileError(f"{source}: {where} is {type(tag).__name__}, expected a compound")
    if keys == "Pos":
        v = tag.get(keys)
        if not isinstance(v, IntArray) or len(v) != 3:
            raise BuildFileError(f"{source}: {where}.{keys} is {type(v).__name__ if v is not None else 'missing'}"
                                 f"{f' of {len(v)}' if isinstance(v, IntArray) else ''}; expected 3 ints")
        return int(v[0]), int(v[1]), int(v[2])
    out = []
    for k in keys:
        v = tag.get(k)
        if not isinstance(v, Int):
            raise BuildFileError(f"{source}: {where}.{k} is {type(v).__name__ if v is not None else 'missing'}, "
                                 "expected an Int")
        out.append(int(v))
    return out[0], out[1], out[2]


def check_contents(contents, blocks: dict[Pos, str], source: str = "build") -> Contents:
    """Contents given with a build to write ({pos: [(item, count), ...]}), each at a container of the
    build, checked as World.set_items checks them."""
    from nbtlib import Compound

    from scicraft_viz.engine import containers as C

    out: Contents = {}
    for p, items in dict(contents or {}).items():
        state = blocks.get(tuple(p))
        if isinstance(items, Compound) and state is not None and B.split_state(state)[0] in B.COMMAND_BLOCKS:
            out[tuple(p)] = items  # type: ignore[index]  # a command block's block entity (commands.entity_tag)
            continue
        b = container_id(state) if state is not None else None
        if b is None:
            raise BuildFileError(f"{source}: items given at {fmt_pos(p)}, which holds "
                                 f"{state or 'no block'}, not a container")
        try:
            stacks = C.slot_stacks(list(items), b, f"{source}: items at {fmt_pos(p)}")
        except InputError as e:
            raise BuildFileError(str(e)) from None
        if any(stacks):
            out[tuple(p)] = stacks  # type: ignore[index]
    return out
