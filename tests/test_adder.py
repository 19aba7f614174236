"""An adder adds: a one-bit full adder built of comparators, tested on every input, as built and as a
.litematic written and read back.

The sum uses the subtract-mode comparator XOR that public redstone tutorials show: two comparators face each
other, each with one input behind it and the other at its side, so each passes its rear input only when the
side input is off, and the block between them is powered by either. Two such gates give S = (A xor B) xor C.
The carry picks B when A and B agree and C when they differ: (B - X) or (C - (C - X)), X = A xor B, each
difference a subtract comparator fed through repeaters so that every signal is 15 or 0. The layout is ours."""

import pytest

from scicraft_viz import World

A, B, C = (0, 1, 0), (10, 1, 0), (10, 1, -10)  # levers
S, COUT = (5, 1, -15), (16, 1, 2)  # lamps


def _xor_gate(w: World, dz: int, a_lever: bool = True) -> None:
    """A (lever at (0, 1, dz), west) xor B (lever at (10, 1, dz), east); the result leaves north, over B's route,
    as dust at (5, 1, dz - 4)."""
    def put(x, y, z, state):
        w.set_block((x, y, z + dz), state)

    def dust(*ps):
        for x, y, z in ps:
            put(x, y, z, "redstone_wire")

    if a_lever:
        put(0, 1, 0, "lever[face=floor,facing=east]")
    put(10, 1, 0, "lever[face=floor,facing=west]")
    dust((1, 1, 0), (2, 1, 0), (8, 1, 0), (9, 1, 0))
    put(3, 1, 0, "repeater[facing=west]")
    put(4, 1, 0, "comparator[facing=west,mode=subtract]")  # A - B
    put(7, 1, 0, "repeater[facing=east]")
    put(6, 1, 0, "comparator[facing=east,mode=subtract]")  # B - A
    dust((1, 1, 1), *[(x, 1, 2) for x in range(1, 7)])  # A round the south to the side of B - A
    put(6, 1, 1, "repeater[facing=south]")
    dust((9, 1, -1), *[(x, 1, -2) for x in range(4, 10)])  # B round the north to the side of A - B
    put(4, 1, -1, "repeater[facing=north]")
    for p in ((5, 1, 0), (5, 1, -1), (5, 2, -2), (5, 1, -3)):  # both comparators power (5, 1, 0)
        put(*p, "stone")
    dust((5, 2, 0), (5, 2, -1), (5, 3, -2), (5, 2, -3), (5, 1, -4))  # up, over B's route, down


def full_adder() -> World:
    w = World()
    for x in range(-1, 19):
        for z in range(-16, 4):
            w.set_block((x, 0, z), "stone")

    def dust(*ps):
        for p in ps:
            w.set_block(p, "redstone_wire")

    _xor_gate(w, 0)  # X = A xor B
    w.set_block((5, 1, -5), "repeater[facing=south]")
    dust(*[(x, 1, -6) for x in range(1, 15)], (1, 1, -7))  # X: west to the second gate, east to the carry
    _xor_gate(w, -10, a_lever=False)  # S = X xor C (C's lever is the second gate's B)
    w.set_block(S, "redstone_lamp")
    dust((11, 1, 0), (12, 1, 0))
    w.set_block((13, 1, 0), "repeater[facing=west]")
    w.set_block((14, 1, 0), "comparator[facing=west,mode=subtract]")  # B - X
    dust(*[(14, 1, z) for z in range(-5, -1)], (14, 1, -7), (14, 1, -8))
    w.set_block((14, 1, -1), "repeater[facing=north]")
    dust((11, 1, -10), (12, 1, -10), (12, 1, -11), *[(x, 1, -12) for x in range(12, 16)])
    w.set_block((13, 1, -10), "repeater[facing=west]")
    w.set_block((14, 1, -10), "comparator[facing=west,mode=subtract]")  # C - X
    w.set_block((14, 1, -9), "repeater[facing=south]")
    w.set_block((15, 1, -11), "repeater[facing=north]")
    w.set_block((15, 1, -10), "comparator[facing=north,mode=subtract]")  # C - (C - X) = C and X
    dust((15, 1, -9), *[(16, 1, z) for z in range(-9, 2)], (15, 1, 0))  # the carry: either difference
    w.set_block(COUT, "redstone_lamp")
    return w


def lit(w: World, p) -> int:
    return int(w.get_block(p).endswith("lit=true]"))


@pytest.mark.parametrize("source", ["built", "litematic"])
def test_the_full_adder_adds_every_input(source):
    base = full_adder()
    if source == "litematic":  # written by our writer, read back as a paste
        base = World.from_build_file(base.to_litematic(), fmt="litematic")
    base.step(40)
    for a in (0, 1):
        for b in (0, 1):
            for c in (0, 1):
                w = base.copy()
                for bit, lever in ((a, A), (b, B), (c, C)):
                    if bit:
                        w.use(lever)
                w.step(40)
                assert w.scheduled() == []  # settled
                assert (lit(w, COUT), lit(w, S)) == divmod(a + b + c, 2), (a, b, c)


def test_the_sum_follows_a_lever_flipped_after_settling():
    w = full_adder()
    w.step(40)
    seen = []
    for lever in (A, B, C, A, B, C):  # counting up and down through the inputs, one lever at a time
        w.use(lever)
        w.step(40)
        seen.append(2 * lit(w, COUT) + lit(w, S))
    assert seen == [1, 2, 3, 2, 1, 0]
