"""A task's world with a build on it, placed the way the environment's set-block places blocks.

    >>> from scicraft_viz import tasks
    >>> from scicraft_viz.tasks.worlds import task_world
    >>> w = task_world(tasks.load("A_simultaneous_lights_L1"), {(0, 5, 0): "stone_button[face=floor]",
    ...                                                          (0, 4, 0): "stone"})
    >>> w.get_block((0, 5, 0))
    'minecraft:stone_button[face=floor,facing=north,powered=false]'

(`engine.mcfunction.world_from_blocks` is another thing: a fresh world of its own from build-file
items, with no task floor.)
"""

from __future__ import annotations

from scicraft_viz.engine.blocks import is_attached
from scicraft_viz.tasks.model import Task


def task_world(task: Task, blocks):
    """The task's initial world with `blocks` ({pos: state} or (pos, state) pairs) placed one by one
    as set-block places them (/setblock-faithful: an unsupported block pops off at its first
    neighbour update). Free-standing blocks go first, bottom up, then what hangs on them, so a build
    that is complete never depends on the order it was listed in."""
    items = list(blocks.items() if isinstance(blocks, dict) else blocks)
    w = task.initial_world(replay=True)

    def key(item):
        (pos, state) = item
        return (1 if is_attached(state) else 0, pos[1], pos)

    for pos, state in sorted(items, key=key):
        w.set_block(tuple(pos), state)
    return w
