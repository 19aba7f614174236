"""The protocol over MCP: serve-mcp's --condition, --setting, --consolidation and --book; the book as
tools and a resource; the scientist's prompt and session; everything recorded and replayed."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from typer.testing import CliRunner

from scicraft_viz import mcp_server, tasks, trajectory
from scicraft_viz.cli import app
from scicraft_viz.env.environment import SciCraftEnv
from scicraft_viz.env.replay import replay_file
from scicraft_viz.experiments.offline import entry

ROOT = Path(__file__).resolve().parents[1]
TASK = "B_branch_reach_L1"
BOOK = entry("fee", "Carried over", "Dust reaches 15 blocks.", "Seen at L1.", "Flat only.", "A line of 15 dust.")


def test_a_scientist_session_over_mcp(tmp_path):
    env = SciCraftEnv.recording(tasks.load(TASK), tmp_path / "r.jsonl", condition="scientist", setting="curriculum",
                                consolidation="fee", book=BOOK)

    async def session():
        async with Client(mcp_server.build_server(env)) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            uris = [r.uri for r in (await client.list_resources()).resources]
            prompts = [p.name for p in (await client.list_prompts()).prompts]
            book = (await client.read_resource(mcp_server.BOOK_URI)).contents[0].text
            prompt = await client.get_prompt("scientist", {"question": "How far does dust carry?"})
            with pytest.raises(MCPError) as bad:
                await client.get_prompt("scientist", {"question": ""})
            opened = await client.call_tool("ask-scientist", {"question": "How far does dust carry?"})
            placed = await client.call_tool("set-block", {"pos": [1, 4, 1], "block": "redstone_wire"})
            wrong = await client.call_tool("update-knowledge-book", {"book": "no entries"})
            new = BOOK + "\n" + entry("fee", "Reach", "15 blocks.", "Measured.", "Flat only.", "Fifteen dust.")
            written = await client.call_tool("update-knowledge-book", {"book": new})
            ended = await client.call_tool("end-experiment", {"answer": "15 blocks"})
            after = (await client.read_resource(mcp_server.BOOK_URI)).contents[0].text
            return tools, uris, prompts, book, prompt, bad.value, opened, placed, wrong, written, ended, after

    tools, uris, prompts, book, prompt, bad, opened, placed, wrong, written, ended, after = anyio.run(session)
    env.close()
    assert tools == ["set-block", "get-block-state", "get-event-stream", "scan-redstone-area", "activate-button",
                     "submit", "read-knowledge-book", "update-knowledge-book", "ask-scientist",
                     "archive-experiment-report", "end-experiment"]
    assert uris == ["scicraft://task", "scicraft://knowledge-book"] and prompts == ["scientist"]
    assert book == BOOK and "How far does dust carry?" in prompt.messages[0].content.text
    assert "### Finding" in prompt.messages[0].content.text and bad.message == "the question is empty"
    assert opened.structured_content["session"] == 1 and placed.structured_content["ok"]
    assert wrong.is_error and wrong.content[0].text.startswith("update-knowledge-book: the book must be made of")
    assert written.structured_content["entries"] == 2 and ended.structured_content["reports"] == 0
    assert after.endswith("Fifteen dust.\n")
    assert env.world.get_block((1, 4, 1)) == "minecraft:air"  # the scientist built in its scratch world
    rp = replay_file(tmp_path / "r.jsonl")
    assert rp.matches and [s.agent for s in rp.steps] == ["engineer", "scientist", "scientist", "scientist",
                                                          "scientist"]


def test_serve_mcp_takes_the_protocol_options(tmp_path):
    book = tmp_path / "book.md"
    book.write_text(BOOK, encoding="utf-8")
    path = tmp_path / "run.jsonl"
    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), args=[
        "-m", "scicraft_viz", "serve-mcp", "--task", TASK, "--trajectory", str(path), "--condition", "hint+scientist",
        "--setting", "curriculum", "--consolidation", "fee", "--book", str(book)])

    async def session():
        async with Client(params) as client:
            return client.instructions, await client.call_tool("read-knowledge-book", {})

    instructions, read = anyio.run(session)
    assert instructions.startswith("You are the engineer") and instructions.endswith(BOOK.strip())
    assert read.structured_content["book"] == BOOK
    t = trajectory.read(path)
    assert (t.condition, t.setting, t.consolidation, t.book_in) == ("hint+scientist", "curriculum", "fee", BOOK)


@pytest.mark.parametrize("args,message", [
    (["--condition", "scientists"], "unknown condition 'scientists'; choose one of baseline, hint, scientist, "
                                    "hint+scientist"),
    (["--setting", "later"], "unknown setting 'later'; choose one of independent, curriculum"),
    (["--consolidation", "prose"], "unknown consolidation 'prose'; choose one of summary, fee, cpce"),
    (["--book", "/nonexistent/book.md"], "cannot read the book file /nonexistent/book.md: No such file or directory"),
])
def test_bad_protocol_options_are_refused_before_a_file_is_made(tmp_path, args, message):
    r = CliRunner().invoke(app, ["serve-mcp", "--task", TASK, "--trajectory", str(tmp_path / "x.jsonl"), *args])
    assert r.exit_code == 2 and r.output.strip().endswith(message)
    assert not (tmp_path / "x.jsonl").exists()
