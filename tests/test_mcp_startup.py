"""The MCP server answers `initialize` before the engine starts: the environment builds its world on
first use, and the server starts the engine once the client confirms the handshake or lists the
tools (or at the first call), exactly once."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import pytest
from mcp.client import Client

from scicraft_viz import mcp_server, tasks
from scicraft_viz.env.environment import SciCraftEnv

ROOT = Path(__file__).resolve().parents[1]
TASK = "A_simultaneous_lights_L1"


def test_the_world_is_built_on_first_use_and_the_header_is_written_at_start(tmp_path):
    task = tasks.load(TASK)
    env = SciCraftEnv.recording(task, tmp_path / "run.jsonl")
    assert env._world is None
    header = json.loads((tmp_path / "run.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert header["task_id"] == TASK
    r = env.get_block_state([0, 3, 0])
    assert r == {"ok": True, "pos": [0, 3, 0], "block": "minecraft:stone", "tick": 0}
    assert env._world is not None
    eager = task.initial_world(replay=True)
    assert env.world.blocks() == eager.blocks() and env._cursors["engineer"] == eager.events_total
    env.close()


def test_engine_starts_once_in_the_background_when_the_tools_are_listed(tmp_path):
    task = tasks.load(TASK)
    env = SciCraftEnv(task)
    prepared: list[str] = []
    started = threading.Event()

    def prepare() -> None:
        prepared.append(threading.current_thread().name)
        started.set()

    server = mcp_server.build_server(env, prepare)
    assert prepared == [] and env._world is None

    async def session():
        async with Client(server) as client:  # in process: the 2026 protocol, which has no `initialized`
            assert env._world is None
            assert [t.name for t in (await client.list_tools()).tools][0] == "set-block"
            with anyio.fail_after(30):
                while not started.is_set():
                    await anyio.sleep(0.01)
            result = await client.call_tool("get-block-state", {"pos": [0, 3, 0]})
            return result.structured_content

    assert anyio.run(session) == {"ok": True, "pos": [0, 3, 0], "block": "minecraft:stone", "tick": 0}
    assert prepared == ["scicraft-engine-start"]


def test_a_call_before_the_handshake_starts_the_engine_itself():
    env = SciCraftEnv(tasks.load(TASK))
    prepared: list[int] = []
    layer = mcp_server.EnvTools(env, mcp_server.EngineStart(env, lambda: prepared.append(1)))
    r = layer.call("get-block-state", {"pos": [0, 4, 0]})
    assert r.structured_content == {"ok": True, "pos": [0, 4, 0], "block": "minecraft:air", "tick": 0}
    layer.call("get-block-state", {"pos": [0, 4, 0]})
    assert prepared == [1]


@pytest.mark.parametrize("confirm", [False, True])
def test_initialize_alone_never_starts_the_engine_and_the_confirmation_does(tmp_path, confirm):
    """Over stdio: a client that only asks `initialize` and goes away gets its answer, the header is written,
    and the compiled engine is never loaded (numba not imported at exit); once the client confirms the
    handshake (`notifications/initialized`), the engine starts and has started by the time the process ends."""
    code = ("import sys, atexit\n"
            "atexit.register(lambda: print('numba' in sys.modules, file=sys.stderr))\n"
            "from scicraft_viz.cli import run\n"
            "sys.argv = ['scicraft-viz', 'serve-mcp', '--task', {!r}, '--trajectory', {!r}]\n"
            "run()\n").format(TASK, str(tmp_path / "run.jsonl"))
    req = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    lines = [req, {"jsonrpc": "2.0", "method": "notifications/initialized"}] if confirm else [req]
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT)
    p.stdin.write(json.dumps(req) + "\n")
    p.stdin.flush()
    reply = json.loads(p.stdout.readline())  # answered before anything else is sent
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "scicraft-viz"
    out, err = p.communicate("".join(json.dumps(m) + "\n" for m in lines[1:]), timeout=60)
    assert p.returncode == 0 and out == ""
    assert err.strip().splitlines()[-1] == str(confirm)
    assert json.loads((tmp_path / "run.jsonl").read_text(encoding="utf-8").splitlines()[0])["task_id"] == TASK
