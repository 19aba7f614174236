"""Trajectory files: the schema, writing and reading, and bad files reported line by line
(never raising), including property tests on untrusted input."""

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import tasks, trajectory
from scicraft_viz.env.trajectory import TOOLS, TrajectoryWriter, make_header, parse_lines, parse_text, read

EXAMPLES = Path(__file__).resolve().parent.parent / "trajectories"
L1 = tasks.load("A_simultaneous_lights_L1")
HEADER = make_header(L1, actor_kind="model", actor_name="m", run_id="r", started="2025-01-01T00:00:00Z")


def step(i, tool="set-block", args=None, result=None):
    args = {"pos": [0, 4, 0], "block": "minecraft:stone"} if args is None else args
    result = {"ok": True, "tick": 20 * (i + 1)} if result is None else result
    return {"type": "step", "step": i, "wall_s": float(i), "tool": tool, "args": args, "result": result}


def text(*objs, raw_lines=()):
    lines = [json.dumps(o) for o in objs] + list(raw_lines)
    return "\n".join(lines) + "\n"


def messages(t):
    return [str(p) for p in t.problems]


def every_line_accounted_for(t, lines):
    """Each non-blank line either loaded (header, step, reasoning) or has a problem of its own."""
    numbered = [(i, ln) for i, ln in enumerate(lines, start=1)
                if (ln if isinstance(ln, str) else ln.decode("utf-8", errors="replace")).strip()]
    done = {s.line for s in t.steps} | {r.line for r in t.reasoning} | {p.line for p in t.problems}
    if t.header is not None:
        done.add(numbered[0][0])
    missing = [i for i, _ in numbered if i not in done]
    assert not missing, (missing, [str(p) for p in t.problems])


# ---------------------------------------------------------------------------------------- schema
def test_schema_is_valid_and_shipped():
    jsonschema.Draft202012Validator.check_schema(trajectory.schema())
    assert trajectory.SCHEMA_PATH.name == "trajectory.schema.json" and trajectory.SCHEMA_PATH.is_file()
    assert trajectory.schema()["$defs"]["step"]["properties"]["tool"]["enum"] == list(TOOLS)


def test_examples_are_valid():
    files = sorted(EXAMPLES.glob("*.jsonl"))
    assert len(files) == 6
    for f in files:
        t = read(f)
        assert t.ok, t.report()
        assert t.header["format"] == "scicraft-trajectory" and t.actor["kind"] == "script"
        assert [s.index for s in t.steps] == list(range(len(t.steps)))
        assert t.steps[-1].tool == "submit" and t.passed is not None
        assert all(0 <= r.before_step <= len(t.steps) for r in t.reasoning)


def test_example_contents():
    t = read(EXAMPLES / "working_A_L4.jsonl")
    assert (t.task_id, len(t.steps), t.trials_used, t.passed, t.budget) == ("A_simultaneous_lights_L4", 154, 3,
                                                                           True, 50)
    assert t.steps[0].args == {"pos": [-9, 4, -8], "block": "redstone_lamp"}
    first = t.reasoning_before(0)
    assert first and first[0].text.startswith("Plan: 32 lamps")


# ---------------------------------------------------------------------------------------- writing
def test_writer_flushes_each_line_and_refuses_to_overwrite(tmp_path):
    p = tmp_path / "w.jsonl"
    ticks = iter([0.0, 0.5, 1.25, 2.0])
    w = TrajectoryWriter(p, HEADER, clock=lambda: next(ticks))
    w.reasoning("think")
    assert w.step("get-block-state", {"pos": [0, 4, 0]}, {"ok": True, "pos": [0, 4, 0], "block": "minecraft:air",
                                                          "tick": 0}) == 0
    # not closed: everything is already on disk, as after a killed process
    t = read(p)
    assert t.ok and [s.wall_s for s in t.steps] == [1.25] and t.reasoning[0].before_step == 0
    w.close()
    with pytest.raises(FileExistsError):
        TrajectoryWriter(p, HEADER)
    TrajectoryWriter(p, HEADER, overwrite=True).close()
    assert read(p).steps == []


def test_make_header_validates():
    with pytest.raises(ValueError, match="actor kind must be one of model, human, script"):
        make_header(L1, actor_kind="robot")
    with pytest.raises(ValueError, match="started must be an ISO 8601 date-time"):
        make_header(L1, started="yesterday")
    h = make_header(L1)
    assert h["budget"] == 50 and h["started"].endswith("Z") and len(h["run_id"]) == 12


# ---------------------------------------------------------------------------------------- bad files
def test_truncated_last_line_keeps_the_rest(tmp_path):
    good = text(HEADER, step(0), step(1))
    p = tmp_path / "cut.jsonl"
    p.write_text(good + json.dumps(step(2))[:40])
    t = read(p)
    assert len(t.steps) == 2
    [m] = messages(t)  # our verdict and where; the JSON library's own words sit between them
    assert m.startswith(f"{p}:4: truncated JSON: ") and m.endswith("(column 40)")
    t = parse_text(text(HEADER, raw_lines=['{"type": "step" "step": 2}']), "mid.jsonl")
    [m] = messages(t)
    assert m.startswith("mid.jsonl:2: invalid JSON: ") and m.endswith("(column 17)")
    t = parse_text(text(HEADER, raw_lines=['{"type": "step", "text": "cut in the mid']), "str.jsonl")
    assert messages(t)[0].startswith("str.jsonl:2: truncated JSON: ")


def test_unknown_tool_is_named_with_its_line():
    t = parse_text(text(HEADER, step(0), step(1, tool="place-block")), "run.jsonl")
    assert len(t.steps) == 1
    assert messages(t) == ["run.jsonl:3: unknown tool 'place-block' (expected one of set-block, get-block-state, "
                           "get-event-stream, scan-redstone-area, activate-button, submit, read-knowledge-book, "
                           "update-knowledge-book, ask-scientist, archive-experiment-report, end-experiment, "
                           "render-view, unknown-tool)"]


def test_missing_header():
    t = parse_text(text(step(0), step(1)), "run.jsonl")
    assert len(t.steps) == 2 and t.header is None
    assert messages(t) == ["run.jsonl:1: missing header: the first line must be a 'header' line (task id, actor, "
                           "run id, start time, budget)"]
    t = parse_text("", "empty.jsonl")
    assert messages(t) == ["empty.jsonl: missing header: the file has no header line"]


def test_out_of_region_coordinates():
    accepted = step(1, args={"pos": [30, 4, 0], "block": "stone"})
    rejected = step(2, args={"pos": [30, 4, 0], "block": "stone"},
                    result={"ok": False, "error": "set-block: pos (30, 4, 0) is outside the build region", "tick": 40})
    t = parse_text(text(HEADER, step(0), accepted, rejected), "run.jsonl")
    assert len(t.steps) == 3
    assert messages(t) == ["run.jsonl:3: set-block at (30, 4, 0) lies outside the build region of "
                           "A_simultaneous_lights_L1 (x -10..10, y -6..14, z -10..10) but is recorded as accepted"]


@pytest.mark.parametrize("line,message", [
    ("[1, 2, 3]", "a line must be a JSON object, got list"),
    ('{"type": "chat"}', "unknown line type 'chat' (expected header, step or reasoning)"),
    ('{"type": "step", "step": 1, "step": 2}', "invalid JSON: duplicate key 'step'"),
    ('{"type": "reasoning", "step": 1, "text": NaN}', "invalid JSON: NaN is not valid JSON"),
    ('{"type": "step", "step": 1, "wall_s": 0, "tool": "set-block", "args": {"pos": [1, 2]}, '
     '"result": {"ok": true, "tick": 0}}', "args.pos must be three integers [x, y, z], got [1, 2]"),
    ('{"type": "step", "step": 1, "wall_s": 0, "tool": "submit", "args": {"now": 1}, '
     '"result": {"ok": true, "tick": 0}}', 'args must be empty for this tool, got {"now": 1}'),
    ('{"type": "step", "step": 1, "wall_s": 0, "tool": "submit", "args": {}, "result": {"ok": false, "tick": 0}}',
     "step field result.error is missing"),
    ('{"type": "step", "step": 1, "wall_s": 0, "tool": "submit", "args": {}}', "step field result is missing"),
    ('{"type": "header"}', "a header may only be the first line"),
])
def test_malformed_lines_are_reported_and_skipped(line, message):
    t = parse_text(text(HEADER, step(0), raw_lines=[line]) + json.dumps(step(2)), "bad.jsonl")
    assert f"bad.jsonl:3: {message}" in messages(t)
    assert [s.index for s in t.steps] == [0, 2]


def test_rejected_call_keeps_its_bad_arguments():
    bad = step(1, args={"pos": [1, 2], "block": 5}, result={"ok": False, "error": "set-block: bad", "tick": 20})
    worse = step(2, args={"pos": ["a", None, {}]}, result={"ok": False, "error": "set-block: bad", "tick": 20})
    t = parse_text(text(HEADER, step(0), bad, worse))
    assert t.ok and t.steps[1].args == {"pos": [1, 2], "block": 5} and t.steps[2].args == {"pos": ["a", None, {}]}


def test_step_order_problems():
    t = parse_text(text(HEADER, step(0), step(0), step(3), step(2)), "o.jsonl")
    assert messages(t) == ["o.jsonl:3: step 0 appears twice", "o.jsonl:4: step 3 follows step 0: 2 step(s) missing",
                           "o.jsonl:5: step 2 is out of order (after step 3)"]
    assert [s.index for s in t.steps] == [0, 3]


def test_invalid_utf8_and_unreadable_file(tmp_path):
    t = parse_lines([json.dumps(HEADER).encode(), b'{"type": "reasoning", "step": 0, "text": "\xff"}'], "u.jsonl")
    assert messages(t) == ["u.jsonl:2: not valid UTF-8 (column 43)"]
    t = read(tmp_path / "missing.jsonl")
    assert not t.ok and "cannot read the file" in messages(t)[0]


def test_unknown_task_in_header():
    h = dict(HEADER, task_id="Z_nothing")
    t = parse_text(text(h, step(0)), "z.jsonl")
    assert messages(t)[0].startswith("z.jsonl:1: task 'Z_nothing' cannot be loaded: unknown task id 'Z_nothing';")


def test_trials_beyond_the_budget():
    h = dict(HEADER, budget=1)
    press = {"ok": True, "trial": 1, "tick": 300}
    t = parse_text(text(h, step(0, "activate-button", {}, press), step(1, "activate-button", {}, press)), "b.jsonl")
    assert messages(t) == ["b.jsonl:3: trial 2 exceeds the budget of 1 but is recorded as accepted"]


# ---------------------------------------------------------------------------------------- untrusted input
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=80), max_size=8))
def test_arbitrary_bytes_never_raise(lines):
    t = parse_lines(lines, "fuzz.jsonl", task=L1)
    n = len(lines)
    assert all(p.line is None or 1 <= p.line <= n for p in t.problems)
    assert not t.ok or t.header is not None
    every_line_accounted_for(t, lines)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(
    json_values,
    st.fixed_dictionaries({"type": st.sampled_from(["header", "step", "reasoning"])}, optional={
        "step": st.integers(-2, 5), "tool": st.sampled_from([*TOOLS, "nope"]),
        "args": json_values | st.fixed_dictionaries({"pos": json_values}, optional={"block": json_values}),
        "result": json_values | st.fixed_dictionaries({"ok": st.booleans(), "tick": st.integers(0, 9)},
                                                      optional={"error": st.text(max_size=5)}),
        "wall_s": json_values | st.floats(0, 10), "text": json_values}),
), max_size=6))
def test_arbitrary_json_lines_never_raise(objs):
    lines = [json.dumps(o) for o in objs]
    t = parse_lines(lines, "fuzz.jsonl", task=L1)
    assert len(t.steps) <= len(objs)
    every_line_accounted_for(t, lines)
    for s in t.steps:
        assert s.tool in TOOLS and isinstance(s.result, dict) and isinstance(s.result.get("ok"), bool)


envelopes = st.builds(
    lambda i, tool, args, ok: {"type": "step", "step": i, "wall_s": 0.5, "tool": tool, "args": args,
                               "result": {"ok": ok, "tick": 0, "error": "refused"}},
    st.integers(0, 3), st.sampled_from(TOOLS),
    st.dictionaries(st.sampled_from(["pos", "block", "limit", "center", "radius", "from", "to", "x"]), json_values,
                    max_size=3),
    st.booleans())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(envelopes, max_size=5))
def test_well_formed_steps_with_hostile_arguments_never_raise(steps):
    lines = [json.dumps(HEADER)] + [json.dumps(s) for s in steps]
    t = parse_lines(lines, "fuzz.jsonl", task=L1)
    every_line_accounted_for(t, lines)
    for s in t.steps:
        if s.ok and s.tool == "set-block":
            assert len(s.args["pos"]) == 3


GOOD = text(HEADER, step(0), step(1, "get-block-state", {"pos": [0, 4, 0]},
                                   {"ok": True, "pos": [0, 4, 0], "block": "minecraft:stone", "tick": 40}),
            {"type": "reasoning", "step": 2, "text": "press"}, step(2, "activate-button", {},
                                                                 {"ok": True, "trial": 1, "events": [], "tick": 240}))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, len(GOOD) - 1), st.integers(1, 30), st.text(max_size=3))
def test_damaged_file_keeps_the_undamaged_lines(at, cut, insert):
    damaged = GOOD[:at] + insert + GOOD[at + cut:]
    t = parse_text(damaged, "d.jsonl", task=L1)
    lines = damaged.split("\n")
    every_line_accounted_for(t, lines)
    # an untouched step line still loads when the lines before it keep the numbering intact
    good = GOOD.split("\n")
    if lines[:2] == good[:2]:
        assert t.header == HEADER and t.steps[0].index == 0


# ---------------------------------------------------------------------------------------- version 2: condition, usage
def test_version_1_files_still_load_as_baseline_runs_without_usage():
    files = sorted(EXAMPLES.glob("*.jsonl"))
    assert files
    for p in files:
        t = read(p)
        assert t.ok, t.report()
        assert t.header["version"] == 1 and t.condition == "baseline"
        assert all(s.usage is None for s in t.steps)
        assert t.usage_totals() == {"input_tokens": 0, "output_tokens": 0, "latency_s": 0.0, "turns": 0}


def test_usage_is_written_per_model_turn_and_summed(tmp_path):
    path = tmp_path / "u.jsonl"
    h = make_header(L1, actor_name="m", condition="hint")
    with TrajectoryWriter(path, h) as w:
        w.reasoning("plan", {"model": "m", "input_tokens": 120, "output_tokens": 30, "latency_s": 1.25})
        w.step("set-block", {"pos": [0, 4, 0], "block": "stone"}, {"ok": True, "tick": 20})
        w.step("get-block-state", {"pos": [0, 4, 0]}, {"ok": True, "tick": 20},
               {"model": "m", "input_tokens": 200, "output_tokens": 8, "total_tokens": None, "latency_s": 0.5})
    t = read(path)
    assert t.ok and t.header["version"] == 5 and t.condition == "hint" and t.observation == "text"
    assert t.steps[1].usage == {"model": "m", "input_tokens": 200, "output_tokens": 8, "latency_s": 0.5}
    assert t.steps[0].usage is None and t.reasoning[0].usage["input_tokens"] == 120
    assert t.usage_totals() == {"input_tokens": 320, "output_tokens": 38, "latency_s": 1.75, "turns": 2}
    assert json.loads(path.read_text().splitlines()[3]) == t.steps[1].to_json() | {"wall_s": t.steps[1].wall_s}
    bad = dict(step(0), usage={"input_tokens": -1})
    assert messages(parse_text(text(HEADER, bad), "b.jsonl")) == [
        "b.jsonl:2: usage.input_tokens: -1 is less than the minimum of 0"]
    bad = dict(HEADER, condition="Hint!")
    assert messages(parse_text(text(bad), "c.jsonl"))[0].startswith("c.jsonl:1: condition: 'Hint!' does not match")


PATH_REFUSED = "looks like a path; only a task id is accepted here (see 'scicraft-viz tasks')"


@pytest.mark.parametrize("task_id, why", [
    ("/etc/passwd", f"task id '/etc/passwd' {PATH_REFUSED}"),
    ("../tasks/A_simultaneous_lights_L1.yaml", f"task id '../tasks/A_simultaneous_lights_L1.yaml' {PATH_REFUSED}"),
    ("tasks/A_simultaneous_lights_L1.yaml", f"task id 'tasks/A_simultaneous_lights_L1.yaml' {PATH_REFUSED}"),
    ("A_simultaneous_lights_L1.yaml", "unknown task id 'A_simultaneous_lights_L1.yaml' (did you mean "
                                      "A_simultaneous_lights_L1?); run 'scicraft-viz tasks' to list the 25 tasks"),
])
def test_a_task_id_that_is_a_path_is_never_read(task_id, why):
    from scicraft_viz.env.replay import Replay

    t = parse_text(text(dict(HEADER, task_id=task_id), step(0)), "p.jsonl")
    assert messages(t) == [f"p.jsonl:1: task {task_id!r} cannot be loaded: {why}"]
    rp = Replay(t)
    assert rp.steps == [] and "root:" not in rp.report()
    assert rp.problems[-1].message == f"cannot replay: {why}"
