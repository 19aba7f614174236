"""The MCP server, driven by the SDK's own client: over stdio (a reference solution built through
tool calls, submitted and replayed; hostile inputs, a flood of 10,000 calls and calls after the
budget is spent), over streamable HTTP (a killed server keeps every call), and the thin layer and
the CLI in process."""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import anyio
import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from typer.testing import CliRunner

from scicraft_viz import evaluator, mcp_server, tasks, trajectory
from scicraft_viz.cli import app
from scicraft_viz.engine.blocks import PALETTE as ENGINE_PALETTE
from scicraft_viz.engine.blocks import SUPPORTED_FAMILIES, VANILLA
from scicraft_viz.engine.mcfunction import parse_mcfunction
from scicraft_viz.env.conditions import task_document
from scicraft_viz.env.environment import TOOLS, SciCraftEnv
from scicraft_viz.env.replay import Replay
from scicraft_viz.tasks.evaluator import _order_key
from scicraft_viz.views.explorer import solution_path

ROOT = Path(__file__).resolve().parents[1]
REGION = "x -10..10, y -6..14, z -10..10 (radius 10 around the anchor (0, 4, 0))"
PALETTE = "air, glass, redstone_lamp, redstone_repeater, redstone_torch, redstone_wire, stone, stone_button"


def stdio_params(task_id: str, path: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "scicraft_viz", "serve-mcp", "--task", task_id, "--trajectory", str(path),
              "--actor-name", "sdk-test", *extra],
        cwd=str(ROOT))


def solution_calls(task_id: str) -> list[tuple[tuple[int, int, int], str]]:
    """The reference build as set-block calls, supports before what they carry (the evaluator's order)."""
    items = parse_mcfunction(solution_path(task_id).read_text(encoding="utf-8"))
    return [kv for _, kv in sorted(enumerate(items), key=_order_key)]


async def build_over_mcp(client: Client, task_id: str) -> list[tuple[str, dict, dict]]:
    """Build the reference solution, run one trial, read events, scan, submit: (tool, args, result) per call."""
    calls: list[tuple[str, dict]] = [("set-block", {"pos": list(p), "block": s}) for p, s in solution_calls(task_id)]
    calls += [("activate-button", {}), ("get-event-stream", {"limit": 3}), ("scan-redstone-area", {}), ("submit", {})]
    out = []
    for tool, args in calls:
        r = await client.call_tool(tool, args)
        out.append((tool, args, r.structured_content))
        assert not r.is_error, (tool, args, r.content[0].text)
        assert json.loads(r.content[0].text) == r.structured_content
    return out


# ---------------------------------------------------------------------------------------- over stdio
def test_reference_solution_over_stdio_replays_to_the_same_verdict(tmp_path):
    task_id = "C_sequential_activation_L1"
    path = tmp_path / "agent.jsonl"

    async def session():
        async with Client(stdio_params(task_id, path)) as client:
            listed = await client.list_tools()
            resources = await client.list_resources()
            doc = await client.read_resource(mcp_server.TASK_URI)
            calls = await build_over_mcp(client, task_id)
            after = await client.call_tool("get-block-state", {"pos": [0, 4, 0]})
            return listed, resources, doc, calls, after

    listed, resources, doc, calls, after = anyio.run(session)

    assert tuple(t.name for t in listed.tools) == TOOLS == (
        "set-block", "get-block-state", "get-event-stream", "scan-redstone-area", "activate-button", "submit")
    schemas = {t.name: t.input_schema for t in listed.tools}
    assert schemas["set-block"]["required"] == ["pos", "block"]
    assert set(schemas["scan-redstone-area"]["properties"]) == {"center", "radius", "from", "to"}
    assert [r.uri for r in resources.resources] == ["scicraft://task"]
    # the baseline condition's document: the task's statement and contract, none of its metadata
    assert yaml.safe_load(doc.contents[0].text) == task_document(tasks.load(task_id), "baseline")
    assert "metadata" not in yaml.safe_load(doc.contents[0].text)

    n_blocks = len(solution_calls(task_id))
    trial = calls[n_blocks][2]
    assert (trial["trial"], trial["trials_left"], trial["press_tick"]) == (1, 49, 20 * n_blocks)
    assert not {"passed", "checks", "measured"} & set(trial)  # a trial never carries the verdict
    submitted = calls[-1][2]
    # the evaluator's own verdict on the build, with the one trial the agent used
    direct = evaluator.evaluate(tasks.load(task_id), solution_path(task_id).read_text(encoding="utf-8"), trials_used=1)
    assert submitted["passed"] is True is direct.passed
    assert submitted["trials"] == direct.to_dict()["trials"] and submitted["trials"]["budget"] == 50
    assert [(c["name"], c["passed"]) for c in submitted["checks"]] == [(c.name, c.passed) for c in direct.checks]
    assert after.is_error and after.content[0].text == f"the episode is over: it was submitted at step {len(calls) - 1}"

    # the file holds every call, results exactly as the client received them
    t = trajectory.read(path)
    assert t.ok, t.report()
    assert t.actor == {"kind": "model", "name": "sdk-test"} and t.header["session"] == {"interface": "mcp"}
    assert t.setting == "independent"
    assert [(s.tool, s.args, s.result) for s in t.steps][: len(calls)] == calls
    assert len(t.steps) == len(calls) + 1 and t.passed is True

    # replay reproduces every result tick for tick, so the same verdict; the evaluator on the build agrees
    rp = Replay(t)
    assert rp.matches, rp.report()
    assert rp.env.submitted == {"step": len(calls) - 1, "passed": True}

    # and it loads in the replay view
    from scicraft_viz.views.replay import ReplayViewer

    viewer = ReplayViewer(path)
    assert viewer.replay.matches and not viewer.replay.problems
    assert viewer.slider.max == len(t.steps) - 1 and viewer.replay.trajectory.passed is True
    assert [t.number for t in viewer.replay.trials] == [1]


def hostile_cases() -> list[tuple[str, dict, str]]:
    """(tool, arguments, the exact error text) for calls the server must refuse."""
    unknown = ("set-block: unknown block 'tnt' in 'tnt'; "
               f"supported blocks: {', '.join(sorted(ENGINE_PALETTE))}, and {len(VANILLA)} full, transparent and "
               f"partial vanilla blocks ({SUPPORTED_FAMILIES})")
    return [
        ("set-block", {"pos": [2**70, 4, 0], "block": "stone"},
         f"set-block: pos ({2**70}, 4, 0) is outside the build region: {REGION}"),
        ("set-block", {"pos": [0, -2_000_000_000, 0], "block": "stone"},
         f"set-block: pos (0, -2000000000, 0) is outside the build region: {REGION}"),
        ("set-block", {"pos": [0, 4, 0], "block": "tnt"}, unknown),
        ("set-block", {"pos": [0, 4, 0], "block": "lever"},
         f"set-block: minecraft:lever is not in this task's palette (allowed: {PALETTE})"),
        ("set-block", {"pos": [0, 4, 0], "block": "redstone_wire[power=99]"},
         "set-block: redstone_wire property 'power' cannot be '99' (in 'redstone_wire[power=99]'); allowed: 0, 1, 2, "
         "3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15"),
        ("set-block", {"pos": "0 4 0", "block": "stone"},
         'set-block: pos must be three integers [x, y, z], got "0 4 0"'),
        ("set-block", {"pos": [0.5, 4, 0], "block": "stone"},
         "set-block: pos must be three integers [x, y, z], got [0.5, 4, 0]"),
        ("set-block", {"pos": [0, 4, 0]}, "set-block: missing argument 'block'"),
        ("set-block", {"pos": [0, 4, 0], "block": "stone", "path": "/etc/passwd"},
         "set-block: unexpected argument 'path' (set-block takes pos, block)"),
        ("get-block-state", {"pos": [-11, 4, 0]},
         f"get-block-state: pos (-11, 4, 0) is outside the build region: {REGION}"),
        ("get-event-stream", {"limit": -1}, "get-event-stream: limit must be a positive integer, got -1"),
        ("scan-redstone-area", {"center": [0, 4, 0], "radius": 10**9},
         "scan-redstone-area: radius must be an integer 0..64, got 1000000000"),
        ("scan-redstone-area", {"from": [100, 100, 100], "to": [200, 200, 200]},
         f"scan-redstone-area: the box [100, 100, 100]..[200, 200, 200] does not overlap the build region: {REGION}"),
        ("activate-button", {}, "activate-button: there is no stone button in the build region to press"),
        ("submit", {"force": True}, "submit: unexpected argument 'force' (submit takes no arguments)"),
    ]


# A call to a tool that does not exist is recorded as an unknown-tool step; an oversized one is refused before it
# reaches the environment, so it is not recorded (like a protocol error).
UNKNOWN = "unknown tool 'rm -rf'; the tools are set-block, get-block-state, get-event-stream, scan-redstone-area, " \
          "activate-button, submit"
UNRECORDED = [
    ("rm -rf", {}, UNKNOWN),
    ("set-block", {"pos": [0, 4, 0], "block": "stone" * 4000},
     "set-block: the arguments are 20031 bytes of JSON, more than the 8192 this server accepts (positions are three "
     "integers, a block is a short block-state string)"),
]


def test_hostile_inputs_flood_and_spent_budget_leave_the_server_up(tmp_path):
    path = tmp_path / "hostile.jsonl"
    cases = hostile_cases()
    flood = [cases[i] for i in (0, 2, 3, 5, 9)]
    n_flood = 10_000

    async def session():
        async with Client(stdio_params("A_simultaneous_lights_L1", path, "--budget", "2")) as client:
            got = []
            for tool, args, _ in cases + UNRECORDED:
                r = await client.call_tool(tool, args)
                got.append((r.is_error, r.content[0].text, r.structured_content))
            flood_results: list = [None] * n_flood
            limit = anyio.Semaphore(32)

            async def one(i):
                tool, args, _ = flood[i % len(flood)]
                async with limit:
                    r = await client.call_tool(tool, args)
                flood_results[i] = (r.is_error, r.content[0].text)

            async with anyio.create_task_group() as tg:
                for i in range(n_flood):
                    tg.start_soon(one, i)
            # a button on a stone, then the budget of 2 trials and one more
            build = [await client.call_tool("set-block", {"pos": [0, 4, 0], "block": "stone"}),
                     await client.call_tool("set-block", {"pos": [0, 5, 0], "block": "stone_button[face=floor]"})]
            trials = [await client.call_tool("activate-button", {}) for _ in range(3)]
            submitted = await client.call_tool("submit", {})
            late = await client.call_tool("set-block", {"pos": [1, 4, 0], "block": "stone"})
            still = await client.list_tools()
            return got, flood_results, build, trials, submitted, late, still

    got, flood_results, build, trials, submitted, late, still = anyio.run(session)

    for (tool, args, message), (is_error, text, structured) in zip(cases + UNRECORDED, got):
        assert is_error and text == message, (tool, args)
        assert structured == {"ok": False, "error": message, "tick": 0}
    expected_flood = [(True, flood[i % len(flood)][2]) for i in range(n_flood)]
    assert flood_results == expected_flood

    assert not any(r.is_error for r in build)
    t1, t2, t3 = (r.structured_content for r in trials)
    assert (t1["trial"], t1["trials_left"], t2["trial"], t2["trials_left"]) == (1, 1, 2, 0)
    assert trials[2].is_error
    assert trials[2].content[0].text == "activate-button: no verification trial left: all 2 are used"
    s = submitted.structured_content
    assert not submitted.is_error and s["passed"] is False
    # the verdict is the evaluator's own, judged against the server's budget of 2 with both trials spent
    assert s["trials"] == {"used": 2, "budget": 2, "remaining": 0}
    task2 = mcp_server.task_with_budget(tasks.load("A_simultaneous_lights_L1"), 2)
    direct = evaluator.evaluate(task2, "setblock 0 4 0 stone\nsetblock 0 5 0 stone_button[face=floor]", trials_used=2)
    assert [(c["name"], c["passed"], c["reason"]) for c in s["checks"]] == [
        (c.name, c.passed, c.reason) for c in direct.checks]
    assert {c["name"] for c in s["checks"] if not c["passed"]} >= {"lamp_count"}
    recorded = len(cases) + 1 + n_flood + 2 + 3 + 1
    assert late.is_error and late.content[0].text == f"the episode is over: it was submitted at step {recorded - 1}"
    assert tuple(t.name for t in still.tools) == TOOLS

    # every recorded call is in the file, each line valid against the trajectory schema; nothing else was written.
    # (Checked here line by line rather than with trajectory.read, whose per-line validation of 10,000 lines would
    # dominate the test's time; test_a_refused_call_with_a_string_position_loads covers read on hostile lines.)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    validator = jsonschema.Draft202012Validator(trajectory.schema())
    # the flood repeats five calls: one line of each distinct content stands for all of them
    distinct = {json.dumps({k: v for k, v in obj.items() if k not in ("step", "wall_s")}): obj for obj in lines}
    assert [list(validator.iter_errors(obj)) for obj in distinct.values()] == [[]] * len(distinct)
    steps = lines[1:]
    assert [s["step"] for s in steps] == list(range(recorded + 1))
    assert [(s["tool"], s["args"], s["result"]) for s in steps[: len(cases)]] == [
        (tool, args, {"ok": False, "error": message, "tick": 0}) for tool, args, message in cases]
    assert (steps[len(cases)]["tool"], steps[len(cases)]["args"]) == ("unknown-tool", {"name": "rm -rf",
                                                                                      "arguments": {}})
    assert sum(1 for s in steps if not s["result"]["ok"]) == len(cases) + 1 + n_flood + 1 + 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostile.jsonl"]


def test_a_refused_call_with_a_string_position_loads(tmp_path):
    path = tmp_path / "string_pos.jsonl"
    with mcp_server.open_env(tasks.load("A_simultaneous_lights_L1"), path) as env:
        layer = mcp_server.EnvTools(env)
        for tool, args, _ in hostile_cases():
            assert layer.call(tool, args).is_error
    t = trajectory.read(path)
    assert t.ok, t.report()
    assert [(s.tool, s.args, s.result["error"]) for s in t.steps] == hostile_cases()


# ---------------------------------------------------------------------------------------- over HTTP
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_on_localhost_and_a_killed_server_loses_nothing(tmp_path):
    path = tmp_path / "http.jsonl"
    port = _free_port()
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "scicraft_viz", "serve-mcp", "--task", "A_simultaneous_lights_L1", "--transport",
         "streamable-http", "--port", str(port), "--trajectory", str(path)],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp_path / "server.log").read_text()) from None
                time.sleep(0.2)

        calls = [("set-block", {"pos": [0, 4, 0], "block": "stone"}),
                 ("set-block", {"pos": [0, 5, 0], "block": "stone_button[face=floor]"}),
                 ("set-block", {"pos": [1, 4, 0], "block": "redstone_lamp"}),
                 ("get-block-state", {"pos": [99, 4, 0]}),
                 ("activate-button", {})]

        async def session():
            async with Client(url) as client:
                return [(tool, args, (await client.call_tool(tool, args)).structured_content) for tool, args in calls]

        results = anyio.run(session)
        # a request naming another host is refused (DNS-rebinding protection of a loopback server)
        req = urllib.request.Request(url, data=b"{}", method="POST", headers={
            "Host": "attacker.example", "Content-Type": "application/json", "Accept": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req, timeout=10)
        assert refused.value.code == 421
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # no shutdown, no close: only what was flushed survives
        proc.wait(timeout=20)
        log.close()

    assert [r["ok"] for _, _, r in results] == [True, True, True, False, True]
    lamp_on = [e for e in results[4][2]["events"] if e["block"] == "minecraft:redstone_lamp"]
    assert [(e["tick"] - results[4][2]["press_tick"], e["new"]) for e in lamp_on] == [(0, 1), (24, 0)]
    t = trajectory.read(path)
    assert t.ok, t.report()
    assert [(s.tool, s.args, s.result) for s in t.steps] == results


# ---------------------------------------------------------------------------------------- in process
def test_thin_layer_passes_results_through_unchanged(tmp_path):
    task = tasks.load("A_simultaneous_lights_L1")
    env = SciCraftEnv(task)
    layer = mcp_server.EnvTools(env)
    r = layer.call("set-block", {"pos": [0, 4, 0], "block": "stone"})
    assert not r.is_error and r.structured_content == {"ok": True, "pos": [0, 4, 0], "block": "minecraft:stone",
                                                       "popped": [], "tick": 20}
    assert r.content[0].text == '{"ok":true,"pos":[0,4,0],"block":"minecraft:stone","popped":[],"tick":20}'
    r = layer.call("get-block-state", None)
    assert r.is_error and r.content[0].text == "get-block-state: missing argument 'pos'"
    assert env.steps == 2
    descriptions = {t.name: t.description for t in layer.tools}
    assert f"Palette: {PALETTE} (a wall torch" in descriptions["set-block"]
    assert "Uses one of the 50 verification trials" in descriptions["activate-button"]
    text = mcp_server.instructions(env)
    assert text.startswith("SciCrafter task A_simultaneous_lights_L1: Simultaneous Lights (N=4)\n\nBuild a redstone")
    assert "Verification trials: 50" in text and "Build region: x -10..10, y -6..14, z -10..10" in text


def test_unknown_resource_is_a_protocol_error():
    env = SciCraftEnv(tasks.load("A_simultaneous_lights_L1"))

    async def session():
        async with Client(mcp_server.build_server(env)) as client:
            with pytest.raises(MCPError) as e:
                await client.read_resource("file:///etc/passwd")
            return e.value

    err = anyio.run(session)
    assert err.message == "unknown resource 'file:///etc/passwd'; the resources are scicraft://task"


def test_trajectory_path_choices(tmp_path):
    task = tasks.load("A_simultaneous_lights_L1")
    assert mcp_server.trajectory_path(None, task, "r1") == Path("runs/A_simultaneous_lights_L1__r1.jsonl")
    assert mcp_server.trajectory_path(tmp_path, task, "r1") == tmp_path / "A_simultaneous_lights_L1__r1.jsonl"
    assert mcp_server.trajectory_path("new/dir/", task, "r1") == Path("new/dir/A_simultaneous_lights_L1__r1.jsonl")
    assert mcp_server.trajectory_path(tmp_path / "x.jsonl", task, "r1") == tmp_path / "x.jsonl"


def test_cli_refuses_unusable_options_in_one_line(tmp_path):
    runner = CliRunner()
    existing = tmp_path / "taken.jsonl"
    existing.write_text("keep me\n")
    cases = [
        (["--task", "Z_nope_L9"], "error: unknown task 'Z_nope_L9'; run 'scicraft-viz tasks' to list the 25 tasks"),
        (["--task", "A_simultaneous_lights_L1", "--budget", "0"],
         "error: the trial budget must be 1..1000, got 0"),
        (["--task", "A_simultaneous_lights_L1", "--budget", "1000000"],
         "error: the trial budget must be 1..1000, got 1000000"),
        (["--task", "A_simultaneous_lights_L1", "--condition", "oracle"],
         "error: unknown condition 'oracle'; choose one of baseline, hint, scientist, hint+scientist"),
        (["--task", "A_simultaneous_lights_L1", "--transport", "sse"],
         "error: unknown transport 'sse'; choose stdio or streamable-http"),
        (["--task", "A_simultaneous_lights_L1", "--actor-kind", "robot", "--trajectory", str(tmp_path)],
         "error: actor kind must be one of model, human, script, got 'robot'"),
        (["--task", "A_simultaneous_lights_L1", "--trajectory", str(existing)],
         f"error: trajectory file {existing} already exists (a run never overwrites another; pass --overwrite or "
         "choose another path)"),
    ]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cases.append((["--task", "A_simultaneous_lights_L1", "--transport", "streamable-http", "--port", str(port),
                       "--trajectory", str(tmp_path)],
                      f"error: port {port} on 127.0.0.1 cannot be used: {os.strerror(errno.EADDRINUSE)}"))
        for args, message in cases:
            res = runner.invoke(app, ["serve-mcp", *args])
            assert res.exit_code == 2, (args, res.output)
            assert res.output.strip().splitlines() == [message]
    assert existing.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.jsonl"]


# ---------------------------------------------------------------------------------------- a clean experiment
def test_no_stimulus_without_a_trial_and_the_condition_over_stdio(tmp_path):
    """Over the SDK's client: a pressed button cannot be placed, so nothing lights with 0 trials used; the
    hint condition's instructions and task resource carry the hint, recorded in the header."""
    path = tmp_path / "hint.jsonl"

    async def session():
        async with Client(stdio_params("A_simultaneous_lights_L1", path, "--condition", "hint")) as client:
            init = client.instructions
            doc = await client.read_resource(mcp_server.TASK_URI)
            out = [await client.call_tool(tool, args) for tool, args in [
                ("set-block", {"pos": [0, 4, 0], "block": "stone"}),
                ("set-block", {"pos": [1, 4, 0], "block": "redstone_lamp"}),
                ("set-block", {"pos": [0, 5, 0], "block": "stone_button[face=floor,powered=true]"}),
                ("set-block", {"pos": [0, 5, 0], "block": "redstone_repeater[facing=east,powered=true]"}),
                ("get-event-stream", {}), ("scan-redstone-area", {})]]
            return init, doc, out

    init, doc, out = anyio.run(session)
    hint = ("Hint (SciCrafter paper, Table 4): Strong-Power-Support-Block - a direction to investigate, not a "
            "mechanism.")
    assert init.endswith("\n\n" + hint)
    assert yaml.safe_load(doc.contents[0].text)["hint"] == hint
    assert [r.is_error for r in out] == [False, False, True, True, False, False]
    assert out[2].content[0].text == (
        "set-block: minecraft:stone_button cannot be placed with powered=true at [0, 5, 0]: place it unpowered "
        "(powered=false) and press it with activate-button, which uses a verification trial")
    assert out[3].content[0].text.startswith("set-block: minecraft:redstone_repeater cannot be placed with "
                                             "powered=true at [0, 5, 0]")
    events = out[4].structured_content["events"]
    assert not [e for e in events if e["kind"] == "state" and e["new"] == 1]
    assert [c["block"] for c in out[5].structured_content["components"]] == ["minecraft:redstone_lamp[lit=false]"]
    t = trajectory.read(path)
    assert t.ok and t.condition == "hint" and t.trials_used == 0 and len(t.steps) == 6


def _rpc(proc, obj: dict | None = None, raw: str | None = None) -> dict | None:
    line = raw if raw is not None else json.dumps(obj)
    proc.stdin.write((line + "\n").encode())
    proc.stdin.flush()
    if obj is not None and "id" not in obj:
        return None
    return json.loads(proc.stdout.readline())


def test_lone_surrogate_over_raw_stdio_is_answered(tmp_path):
    """A client that sends a lone surrogate (legal as a JSON escape) gets a tool error, not silence."""
    path = tmp_path / "s.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "scicraft_viz", "serve-mcp", "--task", "A_simultaneous_lights_L1",
                             "--trajectory", str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=str(ROOT))
    try:
        init = _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        assert init["result"]["serverInfo"]["name"] == "scicraft-viz"
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        bad = _rpc(proc, raw='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"set-block",'
                             '"arguments":{"pos":[0,4,0],"block":"stone\\ud800"}}}')
        good = _rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                           "params": {"name": "set-block", "arguments": {"pos": [0, 4, 0], "block": "stone"}}})
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert bad["id"] == 2 and bad["result"]["isError"] is True
    assert bad["result"]["content"][0]["text"] == ("set-block: arguments.block (character 6, U+D800) holds a lone "
                                                   "surrogate, which is not valid Unicode text")
    assert good["result"]["structuredContent"]["ok"] is True
    t = trajectory.read(path)
    assert t.ok and [s.args["block"] for s in t.steps] == ["stone"]


# Run before a file-size limit is set in a child process: the engine compiles its kernels on first use, and
# numba's cache files must not be what hits the limit.
WARM_UP = ("from scicraft_viz import tasks; from scicraft_viz.env.environment import SciCraftEnv; "
           "e = SciCraftEnv(tasks.load('A_simultaneous_lights_L1')); e.set_block((0, 4, 0), 'stone'); "
           "e.set_block((0, 5, 0), 'stone_button[face=floor]'); e.activate_button(); e.get_event_stream(); "
           "e.scan_redstone_area(); e.submit(); ")


def test_a_full_trajectory_file_stops_the_episode_with_a_clear_tool_error(tmp_path):
    """The server under a file-size limit: the call that cannot be recorded is undone and answered with an
    error naming the file; every later call is refused the same way; the file replays cleanly."""
    path = tmp_path / "full.jsonl"
    code = WARM_UP + ("import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (1500, 1500)); "
                      "from scicraft_viz.cli import app; sys.argv[0] = 'scicraft-viz'; app()")
    params = StdioServerParameters(command=sys.executable, args=[
        "-c", code, "serve-mcp", "--task", "A_simultaneous_lights_L1", "--trajectory", str(path)], cwd=str(ROOT))

    async def session():
        async with Client(params) as client:
            return [await client.call_tool("set-block", {"pos": [x, 4, 0], "block": "stone"}) for x in range(-8, 9)]

    out = anyio.run(session)
    errors = [r.is_error for r in out]
    n = errors.index(True)
    assert n >= 1 and errors == [False] * n + [True] * (len(out) - n)
    stop = (f"the episode is stopped: the trajectory file {path} cannot be written ({os.strerror(errno.EFBIG)}); the "
            "last call was undone and nothing more is accepted")
    assert {r.content[0].text for r in out[n:]} == {stop}
    t = trajectory.read(path)
    assert t.ok and len(t.steps) == n
    assert Replay(t).matches


def test_refused_starts_leave_no_file_and_create_at_most_one_directory(tmp_path):
    runner = CliRunner()
    target = tmp_path / "run.jsonl"
    cases = [
        (["--trajectory", str(target), "--condition", "oracle"], "error: unknown condition 'oracle'; choose one of "
                                                                   "baseline, hint, scientist, hint+scientist"),
        (["--trajectory", str(target), "--budget", "5000"], "error: the trial budget must be 1..1000, got 5000"),
        (["--trajectory", str(tmp_path / "a" / "b" / "c") + "/"],
         re.escape(f"error: cannot write the trajectory file {tmp_path / 'a' / 'b' / 'c'}/A_simultaneous_lights_L1__")
         + "[0-9a-f]{12}" + re.escape(f".jsonl: the directory {tmp_path / 'a' / 'b'} does not exist (only the last "
                                      "level of a trajectory path is created)")),
    ]
    for args, message in cases:
        res = runner.invoke(app, ["serve-mcp", "--task", "A_simultaneous_lights_L1", *args], env={"COLUMNS": "300"})
        assert res.exit_code == 2, res.output
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and (lines[0] == message or re.fullmatch(message, lines[0])), lines
    assert list(tmp_path.iterdir()) == []
    env = mcp_server.open_env(tasks.load("A_simultaneous_lights_L1"), str(tmp_path / "new") + "/", run_id="r1")
    env.close()
    assert [p.name for p in (tmp_path / "new").iterdir()] == ["A_simultaneous_lights_L1__r1.jsonl"]


LONE_SURROGATES = st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff"])


@settings(max_examples=150, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(LONE_SURROGATES | st.characters()),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
                    max_leaves=12),
       st.sampled_from(["tools/call", "resources/read", "ping"]))
def test_incoming_lines_are_cleaned_of_lone_surrogates(payload, method):
    """Whatever a client sends, the line the SDK reads is valid UTF-8; a clean line passes unchanged; a tool call
    that held a lone surrogate is marked with where it was."""
    from scicraft_viz.env.environment import surrogate_at

    params = {"name": "set-block", "arguments": {"block": payload}} if method == "tools/call" else {"x": payload}
    line = json.dumps({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}) + "\n"
    out = mcp_server.clean_line(line)
    out.encode("utf-8")
    obj = json.loads(out)
    assert surrogate_at(obj) is None
    sent = json.loads(line)["params"]  # what the server reads: an escaped high+low pair is one character
    if surrogate_at(sent) is None:
        assert out == line
    elif method == "tools/call":
        assert obj["params"]["_meta"][mcp_server.INVALID_TEXT] == surrogate_at(sent["arguments"], "arguments")


def test_a_start_whose_header_cannot_be_written_leaves_no_file(tmp_path):
    """Under a file-size limit smaller than the header: the start is refused in one line, no 0-byte file is
    left behind, and the same command works once the limit is gone."""
    path = tmp_path / "run.jsonl"
    code = WARM_UP + ("import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100)); "
                      "from scicraft_viz.cli import app; sys.argv[0] = 'scicraft-viz'; app()")
    args = ["serve-mcp", "--task", "A_simultaneous_lights_L1", "--trajectory", str(path)]
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, cwd=str(ROOT))
    assert proc.returncode == 2
    too_large = os.strerror(errno.EFBIG)
    assert proc.stderr.strip().splitlines() == [f"error: cannot write the trajectory file {path}: {too_large}"]
    assert not path.exists()
    proc = subprocess.run([sys.executable, "-m", "scicraft_viz", *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr
    assert trajectory.read(path).ok
