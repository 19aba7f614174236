"""Helpers shared by the rule tests: read canonical block states and sample worlds tick by tick."""

import re

from scicraft_viz import World

_STATE_RE = re.compile(r"^minecraft:([a-z_]+)(?:\[([^\]]*)\])?$")


def parse(state):
    """'minecraft:name[k=v,...]' -> (name, {k: v})."""
    m = _STATE_RE.match(state)
    assert m, f"not a canonical state: {state!r}"
    props = dict(kv.split("=", 1) for kv in m.group(2).split(",")) if m.group(2) else {}
    return m.group(1), props


def name(w, pos):
    return parse(w.get_block(pos))[0]


def prop(w, pos, key):
    return parse(w.get_block(pos))[1][key]


def on(w, pos):
    """lit (lamp/torch) or powered (repeater/button/lever) as a bool."""
    p = parse(w.get_block(pos))[1]
    return (p["lit"] if "lit" in p else p["powered"]) == "true"


def power(w, pos):
    return int(prop(w, pos, "power"))


def floor(w, xs=range(-4, 8), zs=range(-4, 6), y=0):
    for x in xs:
        for z in zs:
            w.set_block((x, y, z), "stone")


def new_world():
    w = World()
    floor(w)
    return w


def run(w, n, probe, actions=None):
    """Run until tick w.tick+n. At each tick: do that tick's actions (absolute tick keys), then
    sample probe(). Returns the change points [(tick, value), ...] starting at the first tick."""
    actions = actions or {}
    end = w.tick + n
    out = []
    while True:
        for act in actions.get(w.tick, ()):
            act()
        v = probe()
        if not out or v != out[-1][1]:
            out.append((w.tick, v))
        if w.tick >= end:
            return out
        w.step()


def one_entity_structure(entity_id: str, nbt: dict) -> bytes:
    """A structure file (.nbt, gzipped) of one stone block with one entity (`entity_id`, its data `nbt`) standing on
    it at (0.5, 1, 0.5)."""
    import gzip
    import io

    import nbtlib
    from nbtlib import Compound, Double, Int, List, String

    root = Compound({
        "DataVersion": Int(3953), "size": List[Int]([Int(2), Int(2), Int(1)]),
        "palette": List[Compound]([Compound({"Name": String("minecraft:stone")})]),
        "blocks": List[Compound]([Compound({"pos": List[Int]([Int(0), Int(0), Int(0)]), "state": Int(0)})]),
        "entities": List[Compound]([Compound({
            "pos": List[Double]([Double(0.5), Double(1.0), Double(0.5)]),
            "blockPos": List[Int]([Int(0), Int(1), Int(0)]),
            "nbt": Compound({"id": String(entity_id), **nbt})})]),
    })
    out = io.BytesIO()
    nbtlib.File(root).write(out)
    return gzip.compress(out.getvalue())
