"""A trial recorded in a world with pistons replays as the live run showed it: the trace records what the blocks
did (`Trace.blocks`) and the values of blocks where they stand at each tick, `recording_of_trial` draws every
tick from them, and a trace file keeps it all, its claims checked on reading."""

import functools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import builds
from scicraft_viz.engine import tracefile
from scicraft_viz.engine.trace import _drawn
from scicraft_viz.engine.world import World
from scicraft_viz.errors import InputError
from scicraft_viz.views.session import Session, recording_of_trial


def _door_button(w):
    w.set_block((1, 1, 1), "stone_button[face=floor,facing=north]")
    w.use((1, 1, 1))


def _door_lever(w):
    w.use(builds.DOOR_LEVER)


def _kick(w):
    w.set_block(builds.FLY_KICK, "redstone_block")


def _clock(w):
    builds.start_observer_clock(w)


def _tff(w):
    w.use(builds.TFF_BUTTON)


# (the build, what starts it, as on a world and as in the explorer, how many ticks to record)
CASES = {
    "door_lever": (builds.piston_door_2x2, _door_lever, lambda s: s.use(builds.DOOR_LEVER), 30),
    "door_button": (builds.piston_door_2x2, _door_button,
                    lambda s: (s.place((1, 1, 1), "stone_button[face=floor,facing=north]"), s.use((1, 1, 1))), 40),
    "flying_machine": (lambda: builds.flying_machine(wall_x=9), _kick,
                       lambda s: s.place(builds.FLY_KICK, "redstone_block"), 100),
    "observer_clock": (builds.observer_clock, _clock,
                       lambda s: s.place(builds.CLOCK_OBSERVERS[1], "observer[facing=west]"), 40),
    "t_flip_flop": (builds.t_flip_flop, _tff, lambda s: s.use(builds.TFF_BUTTON), 40),
}


def trial(case):
    make, start, _, n = CASES[case]
    w = make()
    start(w)
    build = w.blocks()
    return build, w.record(n)


def drawn(frame):
    """What a frame shows: every block's state with the tick's values, and what each moving_piston carries."""
    lay = frame.layout
    return ({p: frame.state(i) for p, i in lay.index.items()},
            {tuple(lay.pos[i].tolist()): m for i, m in lay.moving.items()})


@pytest.mark.parametrize("case", list(CASES))
def test_a_replayed_trial_draws_every_tick_as_the_live_explorer_did(case):
    make, _, act, n = CASES[case]
    build, tr = trial(case)
    live = Session(world=make())
    act(live)
    live.step(n)
    rec = recording_of_trial(build, tr)
    assert (rec.start, rec.end) == (live.start, live.end) == (int(tr.ticks[0]), int(tr.ticks[-1]))
    ticks = range(rec.start, rec.end + 1)
    moved = [t for t in ticks if drawn(rec.frame(t))[1]]
    assert moved  # blocks were in motion on some ticks
    assert [t for t in ticks if drawn(rec.frame(t)) != drawn(live.frame(t))] == []


def test_the_door_replays_its_blocks_in_motion_at_the_ticks_they_move():
    build, tr = trial("door_lever")
    t0 = tr.start_tick
    rec = recording_of_trial(build, tr)
    # the pistons start pulling 2 gt after the flip; the four blocks are in motion for 2 gt and land at +4
    moving = {t - t0: drawn(rec.frame(t))[1] for t in range(t0, t0 + 6)}
    assert [t for t, m in moving.items() if m] == [2, 3]
    assert {p: (m.block, m.direction, m.progress) for p, m in moving[2].items() if not m.piston} == {
        (-1, 1, 0): ("minecraft:stone", "west", 0.5), (-1, 2, 0): ("minecraft:stone", "west", 0.5),
        (2, 1, 0): ("minecraft:stone", "east", 0.5), (2, 2, 0): ("minecraft:stone", "east", 0.5)}
    assert {m.progress for m in moving[3].values()} == {1.0}
    states, _ = drawn(rec.frame(t0 + 4))
    assert [states.get(p, "air") for p in builds.DOORWAY] == ["air"] * 4
    assert [states[p] for p in builds.DOOR_POCKETS] == ["minecraft:stone"] * 4
    # without the record of its blocks, the same trace is drawn with the build's blocks throughout
    tr.blocks = None
    old = recording_of_trial(build, tr)
    assert all(not drawn(old.frame(t))[1] for t in range(t0, t0 + 6))
    assert [drawn(old.frame(t0 + 4))[0][p] for p in builds.DOORWAY] == ["minecraft:stone"] * 4


@pytest.mark.parametrize("case", ["flying_machine", "observer_clock", "t_flip_flop"])
def test_the_recorded_blocks_are_the_worlds_blocks_at_every_tick(case):
    make, start, _, n = CASES[case]
    w = make()
    start(w)
    build, tr = w.blocks(), w.record(n)
    w2 = make()
    start(w2)
    for t in tr.ticks.tolist():
        if t > w2.tick:
            w2.step(1)
        blocks, moving = tr.blocks_at(build, t)
        assert {p: _drawn(s) for p, s in blocks.items()} == {p: _drawn(s) for p, s in w2.blocks().items()}
        assert moving == w2.moving()


def test_a_component_a_piston_moves_is_recorded_where_it_stands():
    build, tr = trial("flying_machine")
    front = (5, 0, 1)  # where the machine's front observer is carried to on its first step east
    stood = [t for t in tr.ticks.tolist() if tr.blocks_at(build, t)[0].get(front, "").startswith("minecraft:observer")]
    assert stood and stood[0] > tr.start_tick and front not in tr.component_positions[:0]
    on = dict(zip(tr.ticks.tolist(), tr.series(front).tolist()))
    assert not any(on[t] for t in on if t not in stood)  # off wherever no observer stood
    assert any(on[t] for t in stood)  # it fired once moved, as a moved observer does


def test_a_world_without_pistons_and_a_lamps_only_trace_record_no_blocks():
    w = World.from_blocks({(0, 0, 0): "minecraft:redstone_lamp", (1, 0, 0): "minecraft:lever[face=wall,facing=east]"})
    assert w.record(3).blocks is None
    d = builds.piston_door_2x2()
    assert d.record(3, lamps_only=True).blocks is None
    assert d.record(0).blocks == [] and d.record(3).blocks == []  # at rest: nothing changed, nothing moved


# ------------------------------------------------------------------ trace files
@pytest.mark.parametrize("case", ["door_lever", "flying_machine"])
def test_a_trace_file_round_trips_and_replays_the_same_frames(case, tmp_path):
    build, tr = trial(case)
    f = tmp_path / "trial.trace.json"
    tracefile.save(tr, f)
    back = tracefile.load(f)
    for k in ("ticks", "lamp_lit", "dust_power", "component_on"):
        assert np.array_equal(getattr(back, k), getattr(tr, k)) and getattr(back, k).dtype == getattr(tr, k).dtype
    assert (back.lamp_positions, back.dust_positions, back.component_positions, back.component_kinds) == (
        tr.lamp_positions, tr.dust_positions, tr.component_positions, tr.component_kinds)
    assert back.events == tr.events and back.blocks == tr.blocks and back.blocks
    a, b = recording_of_trial(build, tr), recording_of_trial(build, back)
    assert all(drawn(a.frame(t)) == drawn(b.frame(t)) for t in range(a.start, a.end + 1))


def test_a_trace_file_without_blocks_loads_with_none(tmp_path):
    _, tr = trial("door_lever")
    obj = tracefile.to_json(tr)
    del obj["blocks"]
    assert tracefile.from_json(obj).blocks is None
    obj["blocks"] = None
    assert tracefile.from_json(obj).blocks is None


@functools.cache
def _door_text():
    return json.dumps(tracefile.to_json(trial("door_lever")[1]))


def _door_json():
    return json.loads(_door_text())


def _moving_row(obj):
    return next(i for i, r in enumerate(obj["blocks"]) if r["moving"])


def _set(path, value):
    def edit(obj):
        *head, last = path(obj)
        cur = obj
        for k in head:
            cur = cur[k]
        cur[last] = value
    return edit


HOSTILE = [
    (_set(lambda o: ["blocks", _moving_row(o), "moving", 0, "direction"], "upward"), "blocks[0].moving[0].direction"),
    (_set(lambda o: ["blocks", _moving_row(o), "moving", 0, "progress"], 0.3), "blocks[0].moving[0].progress"),
    (_set(lambda o: ["blocks", _moving_row(o), "moving", 0, "block"], "minecraft:stone[bogus=1]"),
     "blocks[0].moving[0].block"),
    (_set(lambda o: ["blocks", _moving_row(o), "moving", 0, "block"], "minecraft:moving_piston"),
     "blocks[0].moving[0].block"),
    (_set(lambda o: ["blocks", _moving_row(o), "moving", 0, "pos"], [50, 1, 0]), "blocks[0].moving: at tick"),
    (_set(lambda o: ["blocks", _moving_row(o), "moving", 0, "pos"], [2**40, 1, 0]), "blocks[0].moving[0].pos"),
    (_set(lambda o: ["blocks", _moving_row(o), "changed", 0, "state"], "minecraft:no_such_block"),
     "blocks[0].changed[0].state"),
    (_set(lambda o: ["blocks", _moving_row(o), "tick"], 10**6), "blocks[0].tick"),
    (_set(lambda o: ["blocks", 1, "tick"], 100), "blocks[1].tick"),
    (_set(lambda o: ["blocks", _moving_row(o), "moving"], []), "blocks[0].moving"),
    (_set(lambda o: ["components", 0, "kind"], "minecraft:tnt"), "components[0].kind"),
    (_set(lambda o: ["components", 0, "changes"], [[1, 1], [1, 0]]), "components[0].changes[1]"),
    (_set(lambda o: ["dust", 0, "changes"], [[0, 16]]), "dust[0].changes[0][1]"),
    (_set(lambda o: ["dust", 1, "pos"], None), "dust[1].pos"),
    (_set(lambda o: ["rows"], 0), "rows"),
    (_set(lambda o: ["events", 0, "tick"], -5), "events[0].tick"),
    (_set(lambda o: ["version"], 2), "version"),
]


@pytest.mark.parametrize("edit,where", HOSTILE)
def test_a_hostile_trace_file_is_refused_naming_the_field(edit, where):
    obj = _door_json()
    edit(obj)
    with pytest.raises(InputError) as e:
        tracefile.from_json(obj, "trace file x.json")
    assert str(e.value).startswith("trace file x.json: ") and where in str(e.value)


def test_duplicate_positions_and_files_that_are_not_json_are_refused(tmp_path):
    obj = _door_json()
    obj["dust"][1]["pos"] = obj["dust"][0]["pos"]
    with pytest.raises(InputError, match=r"dust\[1\]\.pos: .* listed twice"):
        tracefile.from_json(obj)
    f = tmp_path / "t.json"
    f.write_text('{"rows": NaN}')
    with pytest.raises(InputError, match="trace file .*t.json"):
        tracefile.load(f)
    with pytest.raises(InputError, match="does not exist"):
        tracefile.load(tmp_path / "missing.json")


def test_a_trace_that_does_not_fit_the_build_is_refused():
    build, tr = trial("door_lever")
    tr.blocks[0] = tr.blocks[0]._replace(changed={})  # the moving_pistons never placed
    with pytest.raises(InputError, match=r"does not fit the build: at tick \d+ it records a block in motion"):
        recording_of_trial(build, tr)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_edit_of_a_trace_file_loads_or_is_refused_with_an_input_error(data):
    obj = _door_json()
    target = obj
    path = []
    while isinstance(target, (dict, list)) and target and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(target) if isinstance(target, dict) else range(len(target))))
        path.append(key)
        if not isinstance(target[key], (dict, list)):
            break
        target = target[key]
    value = data.draw(st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=False),
                                st.text(max_size=20), st.lists(st.integers(-3, 40), max_size=4)))
    if path:
        cur = obj
        for k in path[:-1]:
            cur = cur[k]
        cur[path[-1]] = value
    try:
        tr = tracefile.from_json(obj)
    except InputError:
        return
    assert len(tr) == obj["rows"]

