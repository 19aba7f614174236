"""Example runs on the gallery's devices, recorded as trajectories (the repository's `trajectories/`).

    python -m scicraft_viz.experiments.examples trajectories

Each example is a scripted agent building one of the paper's devices through the environment's calls
(`scicraft_viz.diagnose.gallery` holds the devices), with a fixed start time and a deterministic
clock, so the files come out the same every time.
"""

from __future__ import annotations

from scicraft_viz.diagnose.gallery import ANCHOR, LAMP, Pos, device, hooks_layout, working_layout

EXAMPLE_START = "2025-01-15T10:00:00Z"


class _Clock:
    """A deterministic wall clock for example runs: each reading advances by a fixed pace."""

    def __init__(self, pace: float = 1.25):
        self.t = 0.0
        self.pace = pace

    def __call__(self) -> float:
        v = self.t
        self.t += self.pace
        return v


def _stages(lay_blocks: dict[Pos, str]) -> dict[str, dict[Pos, str]]:
    """Split a device into the order a builder would place it: lamps, the button's block and the
    button, then wires and repeaters from the center outward."""
    lamps = {p: s for p, s in lay_blocks.items() if s.startswith(LAMP)}
    rest = {p: s for p, s in lay_blocks.items() if p not in lamps}
    center = {p: s for p, s in rest.items() if (p[0], p[2]) == (ANCHOR[0], ANCHOR[2])}
    wires = {p: s for p, s in rest.items() if p not in center}
    order = sorted(wires, key=lambda p: (abs(p[0] - ANCHOR[0]) + abs(p[2] - ANCHOR[2]), p))
    return {"lamps": lamps, "center": dict(sorted(center.items(), key=lambda kv: kv[0][1])),
            "wires": {p: wires[p] for p in order}}


def _place(env, blocks: dict[Pos, str]) -> None:
    for p, s in blocks.items():
        r = env.set_block(p, s)
        if not r["ok"]:
            raise RuntimeError(f"example build refused at {p}: {r['error']}")


def _lit(result: dict) -> int:
    lamps = {tuple(e["pos"]) for e in result.get("events", [])
             if e["block"] == "minecraft:redstone_lamp" and e["kind"] == "state" and e["new"] == 1}
    return len(lamps)


def _run_working(env) -> None:
    full = working_layout().blocks()
    axes = working_layout(branches=False, rails=False).blocks()
    branches = working_layout(rails=False).blocks()
    st = _stages(axes)
    env.reason("Plan: 32 lamps around a central stone with the button on top; four wire axes with a repeater at "
               "distance 4 to refresh the signal. Place the lamps first.")
    _place(env, st["lamps"])
    env.reason("Stone at the anchor, button on top: the button strongly powers the stone, which feeds the four "
               "wires beside it.")
    _place(env, st["center"])
    _place(env, st["wires"])
    env.reason("Axes done. Verify before adding more.")
    r = env.activate_button()
    env.reason(f"Trial 1: {_lit(r)} lamps lit. The axes carry power but no wire touches a lamp: the lamps sit two "
               "blocks off the axes. Add one-wire branches that point into them.")
    _place(env, {p: s for p, s in branches.items() if p not in axes})
    r = env.activate_button()
    env.reason(f"Trial 2: {_lit(r)} lamps lit. The 8 corner lamps have no wire. Run rails from each axis end "
               "along the edge to the corners.")
    _place(env, {p: s for p, s in full.items() if p not in branches})
    r = env.activate_button()
    env.reason(f"Trial 3: {_lit(r)} lamps lit, skew at most 1 rt. Submit.")
    env.submit()


def _run_backwards(env) -> None:
    st = _stages(working_layout(backwards=True).blocks())
    env.reason("Build the four-axis broadcast device; repeaters at distance 4 facing the button to 'collect' the "
               "signal.")
    _place(env, st["lamps"])
    _place(env, st["center"])
    _place(env, st["wires"])
    r = env.activate_button()
    rep = (4, 4, 0)
    env.reason(f"Trial 1: only {_lit(r)} lamps lit, all within distance 4. Inspect a repeater.")
    env.get_block_state(rep)
    env.reason("facing=east means the input is on the east side: the repeaters face the button, so the signal hits "
               "their outputs. Turn all four around.")
    _axis_fix = working_layout().blocks()
    _place(env, {p: s for p, s in _axis_fix.items() if "repeater" in s})
    r = env.activate_button()
    env.reason(f"Trial 2: {_lit(r)} lamps lit. Submit.")
    env.submit()


def _run_glass(env) -> None:
    st = _stages(working_layout(center="glass").blocks())
    env.reason("Try a redstone block as the power source.")
    env.set_block((0, 4, 0), "redstone_block")
    env.reason("Not in the palette. Check how far the region reaches.")
    env.set_block((11, 4, 0), "stone")
    env.reason("Outside the region (radius 10). Test whether wire can float.")
    env.set_block((5, 6, 5), "redstone_wire")
    env.set_block((6, 6, 5), "glass")
    env.get_block_state((5, 6, 5))
    env.reason("The floating wire popped off when its neighbour changed. Clean up and build the device on glass, "
               "so the pedestal stays transparent.")
    env.set_block((6, 6, 5), "air")
    _place(env, st["lamps"])
    _place(env, st["center"])
    _place(env, st["wires"])
    r = env.activate_button()
    env.reason(f"Trial 1: {_lit(r)} lamps lit. Look at the center.")
    env.scan_redstone_area((0, 4, 0), 1)
    env.get_block_state((0, 4, 0))
    env.reason("The button is on glass: glass is never powered, so nothing reaches the wires. Replace it with "
               "stone.")
    env.set_block((0, 4, 0), "stone")
    r = env.activate_button()
    env.reason(f"Trial 2: {_lit(r)} lamps lit.")
    env.get_event_stream(limit=20)
    env.submit()


def _run_simple(key: str):
    def run(env) -> None:
        st = _stages(device(key).blocks())
        env.reason(f"Build: {device(key).description}")
        _place(env, st["lamps"])
        _place(env, st["center"])
        _place(env, st["wires"])
        r = env.activate_button()
        env.reason(f"Trial 1: {_lit(r)} lamps lit. The wires carry power; submit.")
        env.submit()
    return run


def _run_hooks(env) -> None:
    st = _stages(hooks_layout().blocks())
    env.reason("Four axes with arms; add a short hook at the far arms so they look finished.")
    _place(env, st["lamps"])
    _place(env, st["center"])
    _place(env, st["wires"])
    r = env.activate_button()
    env.reason(f"Trial 1: {_lit(r)} of 20 lamps lit: the hooked arms are dark. A hook turns the last wire into an "
               "L that no longer points at the lamp. Remove the hooks.")
    hooks = {p for p in hooks_layout().blocks() if p not in hooks_layout(hooked=False).blocks()}
    _place(env, {p: "air" for p in sorted(hooks)})
    r = env.activate_button()
    env.reason(f"Trial 2: {_lit(r)} lamps lit. Submit.")
    env.submit()


# file stem -> (gallery device whose task the run is on, the scripted run)
EXAMPLES = {
    "working_A_L4": ("working", _run_working),
    "backwards_repeaters_fixed": ("backwards_repeaters", _run_backwards),
    "glass_pedestal_fixed": ("glass_pedestal", _run_glass),
    "parallel_lines": ("parallel_lines", _run_simple("parallel_lines")),
    "the_ring": ("the_ring", _run_simple("the_ring")),
    "dead_end_hooks_fixed": ("dead_end_hooks", _run_hooks),
}


def write_example_trajectories(directory) -> list:
    """(Re)write the example trajectories in `directory` (the repository's trajectories/)."""
    from pathlib import Path

    from scicraft_viz.env.environment import SciCraftEnv

    out = []
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    for i, (stem, (key, run)) in enumerate(EXAMPLES.items()):
        path = d / f"{stem}.jsonl"
        env = SciCraftEnv.recording(device(key).task(), path, actor_kind="script",
                                    actor_name="scicraft_viz.gallery example",
                                    run_id=f"example-{i + 1:02d}-{stem}",
                                    started=EXAMPLE_START, clock=_Clock(), overwrite=True,
                                    session={"device": key, "paper_case": device(key).case})
        with env:
            run(env)
        out.append(path)
    return out


if __name__ == "__main__":  # pragma: no cover
    import sys

    for p in write_example_trajectories(sys.argv[1] if len(sys.argv) > 1 else "trajectories"):
        print(p)
