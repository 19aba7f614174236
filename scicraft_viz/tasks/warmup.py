"""Compile every kernel of the engine now, with the argument types the project uses (`scicraft-viz warmup`).

It lives with the tasks because it exercises what the project really calls: the reference engine, build
files, one evaluation per task family and the compiled engine of long runs on reference builds. The
notice shown when numba compiles is `engine/jitcache.py`'s."""

from __future__ import annotations

import time


def warmup(progress=None) -> float:
    """Compile (or load from the cache) every kernel the project calls, with the argument types it uses:
    placement, stepping, recording and events on the reference engine (normal and replay worlds), build
    files read into arrays and placed in bulk, evaluations of every task family's reference builds and
    the compiled engine of long runs (the views, the diagnosis and the agents' environment call the
    same kernels with the same types). Returns the seconds it took; `progress(text)` is
    called before each part."""
    import os

    if os.environ.get("SCICRAFT_NOJIT") == "1":
        raise RuntimeError("SCICRAFT_NOJIT=1 is set: the kernels run as plain Python and there is nothing to compile")
    say = progress or (lambda text: None)
    t0 = time.perf_counter()

    from scicraft_viz.engine.world import World

    say("placing blocks, stepping, recording and reading events")
    w = World()
    for x in range(-1, 9):
        w.set_block((x, 0, 0), "stone")
    row = ("stone_button[face=floor]", "redstone_wire", "redstone_repeater[facing=west,delay=2]", "redstone_lamp",
           "redstone_wire", "glass", "redstone_torch")
    for x, state in enumerate(row):
        w.set_block((x, 1, 0), state)
    w.set_block((7, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((8, 1, 0), "redstone_block")
    w.set_block((5, 2, 0), "redstone_wire")
    w.use((0, 1, 0))
    w.get_block((1, 1, 0))
    w.events_since(0)
    trace = w.record(40)
    trace.first_on((3, 1, 0))
    w.record(10, dust=[(1, 1, 0)])
    w.record(10, lamps_only=True)
    for p in ((0, 0, 0), (3, 1, 0), (1, 1, 0), (5, 1, 0)):  # a conductor, a lamp, dust and glass
        w.power(p)
    w.scheduled()
    w.use((7, 1, 0))
    w.use((2, 1, 0))
    w.use((1, 1, 0))
    w.step(200)
    w.remove_block((5, 2, 0))
    w.events_since(0)
    w.copy().step(1)

    say("comparators reading containers")
    c = World()
    for x in range(3):
        c.set_block((x, 0, 0), "stone")
    c.set_block((0, 1, 0), "barrel")
    c.set_block((1, 1, 0), "comparator[facing=west]")
    c.set_items((0, 1, 0), 64)
    c.use((1, 1, 0))
    c.step(4)
    c.set_items((0, 1, 0), [("ender_pearl", 20)])
    c.copy().step(2)
    for p in ((0, 1, 0), (1, 1, 0), (2, 0, 0)):
        c.power(p)
    c.output_signal((1, 1, 0)), c.fill_level((0, 1, 0)), c.items((0, 1, 0))

    say("plates, doors, trapdoors and daylight sensors")
    d = World()
    for x in range(4):
        d.set_block((x, 0, 0), "stone")
    d.set_block((0, 1, 0), "light_weighted_pressure_plate")
    d.set_block((1, 1, 0), "iron_door")
    d.set_block((2, 1, 0), "iron_trapdoor")
    d.set_block((3, 1, 0), "daylight_detector")
    d.set_entities((0, 1, 0), 3)
    d.set_time_of_day(6000)
    d.use((3, 1, 0))
    d.step(40)
    d.log_events = False
    d.step(5000)  # on the compiled engine: its input kernel (plates' entities, sensors' updates)
    d.set_entities((0, 1, 0), 0)
    d.step(20)

    say("command blocks")
    k = World()
    k.set_block((0, 0, 0), "command_block[facing=east]")
    k.set_block((1, 0, 0), "chain_command_block[facing=east]")
    k.set_block((0, -1, 1), "stone")
    k.set_block((0, 0, 1), "comparator[facing=north]")
    k.set_block((0, 1, 0), "lever[face=floor]")
    k.set_command((0, 0, 0), "setblock ~ ~3 ~ redstone_block")
    k.set_command((1, 0, 0), "say warm", auto=True)
    k.use((0, 1, 0))
    k.record(4)

    say("replay worlds (blocks that pop off)")
    r = World(replay=True)
    r.set_block((0, 5, 0), "redstone_wire")
    r.set_block((0, 4, 0), "stone")
    r.remove_block((0, 4, 0))
    r.step(2)
    r.events_since(0)

    say("build files read into arrays, bulk placement, one evaluation per task family")
    from scicraft_viz import tasks
    from scicraft_viz.engine import mcfunction
    from scicraft_viz.tasks import evaluator

    solutions = tasks.tasks_dir() / "solutions"
    builds = []
    for tid in [t for t in tasks.task_ids() if t.endswith(("_L1", "_L5"))]:
        task = tasks.load_by_id(tid)
        path = solutions / f"{tid}.mcfunction"
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        mcfunction.read_setblocks(text)
        evaluator.evaluate(task, text)
        evaluator.evaluate_file(task, path)
        evaluator.evaluate_many(task, [text, text.replace("redstone_lamp", "glass", 1)])
        player = task.initial_world(replay=False)
        player.set_blocks(mcfunction.parse_mcfunction(text), skip_errors=True)
        player.step(5)
        World.from_mcfunction(text, replay=True).step(5)
        builds.append((task, text))

    say("the compiled engine of long runs")
    for task, text in builds[-2:]:
        for n_steps in (30, 5000):
            long_run = evaluator.build_world(task, text)
            long_run.log_events = False
            button = next(p for p, s in long_run.blocks().items() if "button" in s)
            for _ in range(20):
                long_run.use(button)
                long_run.step(n_steps)
            long_run.get_block(button)
            long_run.record(5)
    return time.perf_counter() - t0
