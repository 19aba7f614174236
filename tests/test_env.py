"""The environment core: the five calls and submit, exact results and ticks, region, palette and
trial budget enforcement, refusal messages, recording and determinism."""

import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import gallery, tasks
from scicraft_viz.env.environment import SciCraftEnv
from scicraft_viz.env.trajectory import TrajectoryWriter, make_header, parse_text, read

L1 = tasks.load("A_simultaneous_lights_L1")


def small(env):
    """Stone at the anchor with a floor button on it, an east-west wire east of it and a lamp beyond."""
    for p, s in [((0, 4, 0), "stone"), ((0, 5, 0), "stone_button[face=floor]"),
                 ((1, 4, 0), "redstone_wire[east=side,west=side]"), ((2, 4, 0), "redstone_lamp")]:
        assert env.set_block(p, s)["ok"]


def test_set_block_result_and_time():
    env = SciCraftEnv(L1)
    assert env.world.tick == 0
    r = env.set_block((0, 4, 0), "stone")
    assert r == {"ok": True, "pos": [0, 4, 0], "block": "minecraft:stone", "popped": [], "tick": 20}
    r = env.set_block([0, 5, 0], "minecraft:stone_button[face=floor]")
    assert r["block"] == "minecraft:stone_button[face=floor,facing=north,powered=false]" and r["tick"] == 40
    # reads take no game time
    assert env.get_block_state((0, 4, 0)) == {"ok": True, "pos": [0, 4, 0], "block": "minecraft:stone", "tick": 40}
    assert env.scan_redstone_area()["tick"] == 40
    env2 = SciCraftEnv(L1, ticks_per_action=0)
    assert env2.set_block((0, 4, 0), "stone")["tick"] == 0


def test_floating_block_pops_at_its_first_neighbour_update():
    env = SciCraftEnv(L1)
    r = env.set_block((5, 6, 5), "redstone_wire")  # /setblock keeps it in the air
    assert r["ok"] and r["popped"] == [] and r["block"].startswith("minecraft:redstone_wire")
    r = env.set_block((6, 6, 5), "glass")
    assert r["popped"] == [[5, 6, 5]]
    assert env.get_block_state((5, 6, 5))["block"] == "minecraft:air"
    # with support it stays
    env.set_block((3, 4, 3), "redstone_wire")
    assert env.set_block((4, 4, 3), "stone")["popped"] == []


def test_activate_button_exact_events_and_ticks():
    env = SciCraftEnv(L1)
    small(env)
    r = env.activate_button()
    t = 80
    assert (r["ok"], r["trial"], r["trials_left"], r["button"], r["press_tick"]) == (True, 1, 49, [0, 5, 0], t)
    assert r["observe_ticks"] == L1.record_game_ticks == 200 and r["tick"] == t + 200 and r["truncated"] == 0
    ev = [(e["tick"] - t, tuple(e["pos"]), e["kind"], e["old"], e["new"]) for e in r["events"]]
    assert ev == [
        (0, (0, 5, 0), "state", 0, 1),     # the press
        (0, (1, 4, 0), "power", 0, 15),    # the strongly powered stone feeds the wire
        (0, (2, 4, 0), "state", 0, 1),     # a lamp turns on in the same tick
        (20, (0, 5, 0), "state", 1, 0),    # the button releases after 10 rt
        (20, (1, 4, 0), "power", 15, 0),
        (24, (2, 4, 0), "state", 1, 0),    # the lamp goes dark 2 rt later
    ]
    # the verdict is never part of a trial's result
    assert not {"passed", "checks", "measured"} & set(r)
    assert env.trials[0].press_tick == t and env.trials[0].trace.first_on((2, 4, 0)) == t


def test_lone_wire_placed_like_setblock_is_a_dot():
    """/setblock keeps the given state: a wire with no sides and no wire beside it is a dot, which
    powers only the block below it, so the lamp stays dark."""
    env = SciCraftEnv(L1)
    for p, s in [((0, 4, 0), "stone"), ((0, 5, 0), "stone_button[face=floor]"), ((1, 4, 0), "redstone_wire"),
                 ((2, 4, 0), "redstone_lamp")]:
        env.set_block(p, s)
    assert env.get_block_state((1, 4, 0))["block"] == (
        "minecraft:redstone_wire[east=none,north=none,power=0,south=none,west=none]")
    r = env.activate_button()
    assert [e["pos"] for e in r["events"] if e["kind"] == "state" and e["new"] == 1] == [[0, 5, 0]]


def test_trial_budget_and_button_refusals():
    env = SciCraftEnv(L1, budget=2)
    r = env.activate_button()
    assert r == {"ok": False, "error": "activate-button: there is no stone button in the build region to press",
                 "tick": 0}
    small(env)
    assert env.activate_button()["trial"] == 1
    assert env.activate_button()["trial"] == 2
    r = env.activate_button()
    assert not r["ok"] and r["error"] == "activate-button: no verification trial left: all 2 are used"
    assert env.trials_used == 2
    env = SciCraftEnv(L1)
    small(env)
    env.set_block((5, 4, 5), "stone")
    env.set_block((5, 5, 5), "stone_button[face=floor]")
    r = env.activate_button()
    assert r["error"] == ("activate-button: 2 stone buttons at (0, 5, 0), (5, 5, 5): the task has a single button, "
                          "remove the others") and env.trials_used == 0


def test_button_still_pressed_uses_no_trial():
    env = SciCraftEnv(L1, observe_ticks=5)
    small(env)
    assert env.activate_button()["ok"]
    r = env.activate_button()
    assert not r["ok"] and "is still pressed" in r["error"] and env.trials_used == 1


@pytest.mark.parametrize("args,message", [
    ({"pos": [30, 4, 0], "block": "stone"},
     "set-block: pos (30, 4, 0) is outside the build region: x -10..10, y -6..14, z -10..10 (radius 10 around the "
     "anchor (0, 4, 0))"),
    ({"pos": [1, 4, 0], "block": "redstone_block"},
     "set-block: minecraft:redstone_block is not in this task's palette (allowed: air, glass, redstone_lamp, "
     "redstone_repeater, redstone_torch, redstone_wire, stone, stone_button)"),
    ({"pos": [1, 4], "block": "stone"}, "set-block: pos must be three integers [x, y, z], got [1, 4]"),
    ({"pos": [1, 4, 0.5], "block": "stone"}, "set-block: pos must be three integers [x, y, z], got [1, 4, 0.5]"),
    ({"pos": [1, 4, True], "block": "stone"}, "set-block: pos must be three integers [x, y, z], got [1, 4, true]"),
    ({"pos": [1, 4, 0]}, "set-block: missing argument 'block'"),
    ({"pos": [1, 4, 0], "block": "stone", "x": 1}, "set-block: unexpected argument 'x' (set-block takes pos, block)"),
    ({"pos": [1, 4, 0], "block": 5}, "set-block: block must be a block-state string such as 'redstone_wire', got 5"),
    ({"pos": [1, 4, 0], "block": "redstone_repeater[delay=7]"},
     "set-block: redstone_repeater property 'delay' cannot be '7' (in 'redstone_repeater[delay=7]'); allowed: 1, 2, "
     "3, 4"),
])
def test_set_block_refusals_explain_themselves(args, message):
    env = SciCraftEnv(L1)
    r = env.call("set-block", args)
    assert r == {"ok": False, "error": message, "tick": 0}
    assert env.world.blocks() == L1.initial_world().blocks()


def test_wall_torch_counts_as_torch_and_air_removes():
    env = SciCraftEnv(L1)
    env.set_block((0, 4, 0), "stone")
    assert env.set_block((1, 4, 0), "redstone_wall_torch[facing=east]")["ok"]
    assert env.set_block((1, 4, 0), "air")["block"] == "minecraft:air"


def test_get_event_stream_cursor_and_limit():
    env = SciCraftEnv(L1, ticks_per_action=0)
    assert env.get_event_stream() == {"ok": True, "events": [], "remaining": 0, "tick": 0}
    env.set_block((0, 4, 0), "stone")
    env.set_block((1, 4, 0), "redstone_lamp")
    r = env.get_event_stream(limit=1)
    assert [(e["kind"], e["pos"]) for e in r["events"]] == [("placed", [0, 4, 0])] and r["remaining"] == 1
    r = env.get_event_stream()
    assert [(e["kind"], e["pos"]) for e in r["events"]] == [("placed", [1, 4, 0])] and r["remaining"] == 0
    assert env.get_event_stream()["events"] == []
    r = env.call("get-event-stream", {"limit": 0})
    assert r["error"] == "get-event-stream: limit must be a positive integer, got 0"


def test_scan_redstone_area():
    env = SciCraftEnv(L1)
    small(env)
    r = env.scan_redstone_area((0, 4, 0), 1)
    assert [c["pos"] for c in r["components"]] == [[0, 5, 0], [1, 4, 0]] and r["count"] == 2
    assert r["from"] == [-1, 3, -1] and r["to"] == [1, 5, 1] and not r["clipped"]
    whole = env.scan_redstone_area()
    assert whole["count"] == 3 and whole["from"] == [-10, -6, -10] and whole["to"] == [10, 14, 10]
    r = env.scan_redstone_area(start=[5, 4, 5], end=[40, 4, 5])
    assert r["clipped"] and r["to"] == [10, 4, 5]
    r = env.scan_redstone_area(start=[50, 4, 5], end=[60, 4, 5])
    assert r["error"].startswith("scan-redstone-area: the box [50, 4, 5]..[60, 4, 5] does not overlap the build "
                                 "region")
    r = env.call("scan-redstone-area", {"center": [0, 4, 0]})
    assert r["error"] == "scan-redstone-area: center and radius go together"


def test_submit_runs_the_evaluator_and_ends_the_episode():
    d = gallery.device("working")
    env = SciCraftEnv(d.task())
    for p, s in d.blocks().items():
        env.set_block(p, s)
    env.activate_button()
    r = env.submit()
    assert r["ok"] and r["passed"] and r["trials"] == {"used": 1, "budget": 50, "remaining": 49}
    assert env.done
    r = env.set_block((0, 4, 5), "stone")
    assert r["error"] == f"the episode is over: it was submitted at step {len(d.blocks()) + 1}"


def test_unknown_tools_are_recorded_and_non_object_args_are_not():
    buf = io.StringIO()
    env = SciCraftEnv(L1, TrajectoryWriter(buf, make_header(L1, run_id="r1", started="2025-01-01T00:00:00Z")))
    r = env.call("place-block", {})
    assert r["error"].startswith("unknown tool 'place-block'; the tools are set-block, get-block-state")
    assert env.call("set-block", [1, 2])["error"] == "set-block: arguments must be a JSON object, got list"
    env.set_block((30, 4, 0), "stone")  # refused but recorded
    env.set_block((0, 4, 0), "stone")
    t = parse_text(buf.getvalue())
    assert t.ok and [(s.tool, s.ok) for s in t.steps] == [("unknown-tool", False), ("set-block", False),
                                                          ("set-block", True)]
    assert t.steps[0].args == {"name": "place-block", "arguments": {}}


def test_recording_every_call_as_it_happens(tmp_path):
    path = tmp_path / "run.jsonl"
    clock = iter(range(100))
    env = SciCraftEnv.recording(L1, path, actor_kind="human", actor_name="tester", run_id="r2",
                                started="2025-01-01T00:00:00Z", clock=lambda: next(clock))
    env.reason("first a stone")
    env.set_block((0, 4, 0), "stone")
    # flushed at once: the file is complete before the env is closed
    lines = path.read_text().splitlines()
    assert [json.loads(x)["type"] for x in lines] == ["header", "reasoning", "step"]
    head = json.loads(lines[0])
    assert head["env"] == {"ticks_per_action": 20, "observe_ticks": 200, "max_events": 5000,
                           "engine": "scicraft_viz 0.1.0"}
    assert head["actor"] == {"kind": "human", "name": "tester"} and "task" not in head
    step = json.loads(lines[2])
    assert step == {"type": "step", "step": 0, "wall_s": 2.0, "tool": "set-block",
                    "args": {"pos": [0, 4, 0], "block": "stone"},
                    "result": {"ok": True, "pos": [0, 4, 0], "block": "minecraft:stone", "popped": [], "tick": 20}}
    env.close()
    with pytest.raises(FileExistsError):
        SciCraftEnv.recording(L1, path)


def test_generated_task_is_embedded_in_the_header(tmp_path):
    t = gallery.task_for(20)
    env = SciCraftEnv.recording(t, tmp_path / "g.jsonl", run_id="g", started="2025-01-01T00:00:00Z")
    env.close()
    head = json.loads((tmp_path / "g.jsonl").read_text().splitlines()[0])
    assert head["task"]["outputs"]["lamps"]["quantity"] == 20


def test_same_calls_same_results():
    def run():
        env = SciCraftEnv(L1)
        small(env)
        return [env.activate_button(), env.get_event_stream(), env.submit()]

    assert run() == run()


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="ticks_per_action must be an integer >= 0"):
        SciCraftEnv(L1, ticks_per_action=-1)
    with pytest.raises(ValueError, match="observe_ticks must be at least 1"):
        SciCraftEnv(L1, observe_ticks=0)


values = st.recursive(
    st.none() | st.booleans() | st.integers(-40, 40) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30) | st.sampled_from(["stone", "redstone_wire", "stone_button[face=floor]", "air"]),
    lambda ch: st.lists(ch, max_size=4) | st.dictionaries(st.text(max_size=5), ch, max_size=3), max_leaves=8)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["set-block", "get-block-state", "get-event-stream", "scan-redstone-area",
                                           "activate-button", "submit"]),
                          st.dictionaries(st.sampled_from(["pos", "block", "limit", "center", "radius", "from", "to"]),
                                          values, max_size=3)), max_size=6))
def test_hostile_arguments_never_raise(calls):
    env = SciCraftEnv(L1, ticks_per_action=1, observe_ticks=30)
    for tool, args in calls:
        r = env.call(tool, args)
        assert isinstance(r["ok"], bool) and isinstance(r["tick"], int)
        assert r["ok"] or (isinstance(r["error"], str) and r["error"].startswith((tool, "the episode")))
        json.dumps(r, allow_nan=False)


# ---------------------------------------------------------------------------------------- no stimulus without a trial
@pytest.mark.parametrize("state, message", [
    ("stone_button[face=floor,powered=true]",
     "set-block: minecraft:stone_button cannot be placed with powered=true at [0, 5, 0]: place it unpowered "
     "(powered=false) and press it with activate-button, which uses a verification trial"),
    ("redstone_repeater[facing=west,powered=true]",
     "set-block: minecraft:redstone_repeater cannot be placed with powered=true at [0, 5, 0]: place it unpowered "
     "(powered=false) and its input powers it"),
])
def test_powered_placements_are_refused_and_light_nothing(state, message):
    env = SciCraftEnv(L1)
    small(env)
    env.get_event_stream()
    r = env.set_block((0, 5, 0), state)
    assert r == {"ok": False, "error": message, "tick": 80}
    assert env.get_block_state((0, 5, 0))["block"] == "minecraft:stone_button[face=floor,facing=north,powered=false]"
    assert env.get_event_stream()["events"] == [] and env.trials_used == 0
    assert env.set_block((0, 5, 0), "stone_button[face=floor,powered=false]")["ok"]  # explicit false is fine


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["stone_button[face=floor,facing={f}]", "redstone_repeater[facing={f},delay=2]",
                        "stone_button[face=wall,facing={f}]"]),
       st.sampled_from(["north", "south", "east", "west"]), st.booleans())
def test_no_placement_lights_the_lamp_without_a_trial(template, facing, powered):
    """Next to a lamp, no placement of a button or repeater, powered or not, lights it: only a trial may."""
    env = SciCraftEnv(L1)
    env.set_block((0, 4, 0), "stone")
    env.set_block((1, 4, 0), "redstone_lamp")
    state = template.format(f=facing)
    if powered:
        state = state[:-1] + ",powered=true]"
    r = env.set_block((0, 5, 0), state)
    assert r["ok"] is not powered
    assert not any(e["kind"] == "state" and e["new"] == 1 for e in env.get_event_stream()["events"])
    assert env.get_block_state((1, 4, 0))["block"] == "minecraft:redstone_lamp[lit=false]"


# ---------------------------------------------------------------------------------------- bounds
def test_budget_is_bounded_and_trials_are_not_all_kept():
    from scicraft_viz.env.environment import KEEP_TRIALS, MAX_BUDGET

    with pytest.raises(ValueError) as e:
        SciCraftEnv(L1, budget=MAX_BUDGET + 1)
    assert str(e.value) == "the trial budget must be 1..1000, got 1001"
    env = SciCraftEnv(L1, budget=MAX_BUDGET, observe_ticks=30)
    small(env)
    for k in range(1, 13):
        r = env.activate_button()
        assert (r["trial"], r["trials_left"]) == (k, MAX_BUDGET - k)
        env.set_block((5, 4, 5), "stone")  # lets the press end
    assert env.trials_used == 12 and len(env.trials) == KEEP_TRIALS == 4
    assert [t.number for t in env.trials] == [9, 10, 11, 12]


# ---------------------------------------------------------------------------------------- text that is not Unicode
def test_lone_surrogates_are_refused_with_a_clear_message(tmp_path):
    path = tmp_path / "s.jsonl"
    with SciCraftEnv.recording(L1, path) as env:
        assert env.set_block((0, 4, 0), "stone\ud800") == {
            "ok": False, "tick": 0,
            "error": "set-block: arguments.block (character 6, U+D800) holds a lone surrogate, which is not valid "
                     "Unicode text"}
        assert env.call("get-event-stream", {"lim\udfffit": 1})["error"] == (
            "get-event-stream: arguments: a key (character 4, U+DFFF) holds a lone surrogate, which is not valid "
            "Unicode text")
        assert env.call("set\ud800block", {})["error"].startswith("unknown tool 'set\\\\ud800block'")
        assert env.reason("thinking \udc80 aloud")
        assert env.set_block((0, 4, 0), "stone")["ok"]
    t = read(path)
    assert t.ok and [s.tool for s in t.steps] == ["unknown-tool", "set-block"]
    assert t.steps[0].args == {"name": "set\\ud800block", "arguments": {}}
    assert t.reasoning[0].text == "thinking \\udc80 aloud"
    with pytest.raises(ValueError) as e:
        SciCraftEnv.recording(L1, tmp_path / "n.jsonl", actor_name="m\udcff")
    assert str(e.value) == ("the actor name (character 2, U+DCFF) holds a lone surrogate, which is not valid Unicode "
                            "text")
    assert not (tmp_path / "n.jsonl").exists()


# ---------------------------------------------------------------------------------------- the record never diverges
class FailingFile(io.StringIO):
    """A stream that accepts `lines` lines, then fails like a full disk."""

    name = "full.jsonl"

    def __init__(self, lines: int):
        super().__init__()
        self.left = lines

    def write(self, s):
        if self.left <= 0:
            raise OSError(28, "No space left on device")
        self.left -= 1
        return super().write(s)


def replayed_world(text: str):
    from scicraft_viz.env.replay import Replay

    rp = Replay(parse_text(text, "record"), L1)
    assert rp.matches, rp.report()
    return rp.final_world()


@pytest.mark.parametrize("lines", [3, 4, 5, 6, 7])
def test_a_failed_write_undoes_the_call_and_stops_the_episode(lines):
    f = FailingFile(lines)  # the header, then lines - 1 calls
    env = SciCraftEnv(L1)
    env.recorder = TrajectoryWriter(f, make_header(L1))
    calls = [("set-block", {"pos": [0, 4, 0], "block": "stone"}),
             ("set-block", {"pos": [0, 5, 0], "block": "stone_button[face=floor]"}),
             ("set-block", {"pos": [1, 4, 0], "block": "redstone_wire"}),
             ("set-block", {"pos": [2, 4, 0], "block": "redstone_lamp"}),
             ("activate-button", {}), ("get-event-stream", {}), ("submit", {})]
    results = [env.call(tool, args) for tool, args in calls]
    stop = ("the episode is stopped: the trajectory file full.jsonl cannot be written (No space left on device); "
            "the last call was undone and nothing more is accepted")
    assert [r["ok"] for r in results] == [True] * (lines - 1) + [False] * (len(calls) - lines + 1)
    assert {r["error"] for r in results[lines - 1:]} == {stop}
    world = replayed_world(f.getvalue())
    assert world.blocks() == env.world.blocks() and world.tick == env.world.tick
    assert env.trials_used == sum(1 for tool, _ in calls[: lines - 1] if tool == "activate-button")
    assert env.submitted is None and env.steps == lines - 1
    assert env.get_block_state((0, 4, 0))["error"] == stop


def test_file_size_limit_cuts_no_line_and_the_record_equals_the_world(tmp_path):
    """RLIMIT_FSIZE in a child process: writes beyond the limit fail with EFBIG."""
    import subprocess
    import sys

    path = tmp_path / "limited.jsonl"
    code = f"""
import json, resource
from scicraft_viz import tasks
from scicraft_viz.env.environment import SciCraftEnv
t = tasks.load("A_simultaneous_lights_L1")
warm = SciCraftEnv(t)  # the engine compiles on first use; numba's cache files must not hit the limit
warm.set_block((0, 4, 0), "stone")
env = SciCraftEnv.recording(t, {str(path)!r})
resource.setrlimit(resource.RLIMIT_FSIZE, (1200, 1200))
out = []
for x in range(-5, 6):
    out.append(env.set_block((x, 4, 0), "stone"))
print(json.dumps({{"results": out, "blocks": sorted(map(list, env.world.blocks())), "tick": env.world.tick}}))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    child = json.loads(proc.stdout)
    oks = [r["ok"] for r in child["results"]]
    n = oks.index(False)
    assert n >= 1 and oks == [True] * n + [False] * (11 - n)
    assert child["results"][n]["error"] == (
        f"the episode is stopped: the trajectory file {path} cannot be written (File too large); the last call was "
        "undone and nothing more is accepted")
    text = path.read_text()
    assert len(text.encode()) <= 1200 and text.endswith("\n")
    t = parse_text(text, "limited")
    assert t.ok and len(t.steps) == n
    world = replayed_world(text)
    assert sorted(map(list, world.blocks())) == child["blocks"] and world.tick == child["tick"]
