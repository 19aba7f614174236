"""Vision: render-view in the environment per observation mode, recorded by pixel hash with the PNG
beside the trajectory and re-checked on replay; served over MCP as image content to the SDK's client;
in the Inspect runner as images in the tool result, exercised by the offline agents; and the report's
success per observation mode."""

from __future__ import annotations

import base64
import io
import json
import sys
from pathlib import Path

import anyio
import numpy as np
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from PIL import Image

from scicraft_viz import tasks
from scicraft_viz.engine.blocks import is_attached
from scicraft_viz.env import trajectory
from scicraft_viz.env.environment import SciCraftEnv, images_dir
from scicraft_viz.env.replay import Replay, replay_file
from scicraft_viz.experiments import report
from scicraft_viz.tasks.solutions import solution_blocks
from scicraft_viz.views.render import pixel_hash

ROOT = Path(__file__).resolve().parents[1]
TASK = "A_simultaneous_lights_L1"
BASE = ("set-block", "get-block-state", "get-event-stream", "scan-redstone-area", "activate-button", "submit")


def build(env: SciCraftEnv, task) -> None:
    for p, s in sorted(solution_blocks(task).items(), key=lambda it: (is_attached(it[1]), it[0][1], it[0][0],
                                                                      it[0][2])):
        assert env.set_block(list(p), s)["ok"]


# ---------------------------------------------------------------------------------------- the environment
def test_the_observation_mode_decides_the_tools():
    t = tasks.load(TASK)
    assert SciCraftEnv(t).tools_for() == BASE
    assert SciCraftEnv(t, observation="both").tools_for() == BASE + ("render-view",)
    assert SciCraftEnv(t, observation="image").tools_for() == (
        "set-block", "get-block-state", "get-event-stream", "activate-button", "submit", "render-view")
    sci = SciCraftEnv(t, observation="image", condition="scientist")
    assert sci.tools_for("scientist") == ("set-block", "get-block-state", "get-event-stream", "activate-button",
                                          "read-knowledge-book", "update-knowledge-book", "archive-experiment-report",
                                          "end-experiment", "render-view")
    with pytest.raises(ValueError, match="the observation mode must be one of text, image, both, got 'video'"):
        SciCraftEnv(t, observation="video")


def test_a_tool_outside_the_mode_is_refused_in_words():
    t = tasks.load(TASK)
    assert SciCraftEnv(t).render_view()["error"] == (
        "render-view: pictures are not part of the observation mode 'text' (a run started with observation image "
        "or both has them)")
    assert SciCraftEnv(t, observation="image").scan_redstone_area()["error"] == (
        "scan-redstone-area: under the observation mode 'image' the build is seen in pictures (render-view), not as "
        "block lists")


@pytest.mark.parametrize(("args", "error"), [
    ({"camera": "up"}, "render-view: camera must be one of iso, iso-nw, top, north, south, east, west, got 'up'"),
    ({"camera": "top", "position": [0, 9, 0], "look": [0, -1, 0]},
     "render-view: give either camera (a preset) or position and look, not both"),
    ({"width": 20}, "render-view: width must be an integer 64..1024 pixels, got 20"),
    ({"timeline": "yes"}, "render-view: timeline must be true or false, got \"yes\""),
    ({"timeline": True}, "render-view: timeline: there is no trial yet whose lamps could be drawn; press the button "
                         "with activate-button first, or leave timeline out"),
    ({"zoom": 2}, "render-view: unexpected argument 'zoom' (render-view takes camera, position, look, width, height, "
                  "timeline)"),
])
def test_bad_views_are_refused_and_cost_nothing(args, error):
    env = SciCraftEnv(tasks.load(TASK), observation="both")
    r = env.call("render-view", args)
    assert r == {"ok": False, "error": error, "tick": 0}
    assert env.last_images == []


def test_render_view_is_recorded_by_hash_with_the_picture_beside_and_replays(tmp_path):
    t = tasks.load(TASK)
    path = tmp_path / "run.jsonl"
    with SciCraftEnv.recording(t, path, observation="both") as env:
        build(env, t)
        first = env.render_view("iso", width=320, height=240)
        env.activate_button()
        second = env.render_view(position=[6.5, 9, 6.5], look=[-1, -1, -1], timeline=True)
        env.submit()
    assert first["ok"] and set(first) == {"ok", "camera", "width", "height", "image", "caption", "tick"}
    assert (first["camera"], first["width"], first["height"]) == ("iso", 320, 240)
    assert second["timeline"]["trial"] == 1 and second["camera"].startswith("from (6.5, 9.0, 6.5) looking")
    shas = [first["image"]["sha256"], second["image"]["sha256"], second["timeline"]["sha256"]]
    folder = images_dir(path)
    assert folder == tmp_path / "run.images"
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{s}.png" for s in shas)
    for s in shas:
        with Image.open(folder / f"{s}.png") as im:
            assert im.format == "PNG" and pixel_hash(im) == s
    traj = trajectory.read(path)
    assert traj.ok and traj.header["version"] == 5 and traj.header["observation"] == "both"
    assert traj.observation == "both" and traj.passed is True
    [view] = [s for s in traj.steps if s.tool == "render-view" and "timeline" not in s.args]
    assert view.args == {"camera": "iso", "width": 320, "height": 240} and view.result == first
    rp = Replay(traj)
    assert rp.matches, rp.report()


def test_render_view_draws_the_minecarts_and_items_of_the_world_it_shows():
    t = tasks.load(TASK)
    env = SciCraftEnv(t, observation="both")
    build(env, t)
    before = env.render_view("top")
    tick = env.world.tick
    blocks = env.world.blocks()
    floor = min(y for (_, y, _) in blocks)
    # two cells of the floor near the build with nothing over them: a chest minecart on one, an item on the other
    open_cells = sorted((x, z) for (x, y, z) in blocks if y == floor and t.in_region((x, y, z))
                        and not any((x, h, z) in blocks for h in range(floor + 1, floor + 8)))
    (cx, cz), (ix, iz) = open_cells[len(open_cells) // 2], open_cells[len(open_cells) // 2 + 1]
    env.world.spawn_minecart((cx + 0.5, floor + 1.0, cz + 0.5), kind="chest_minecart")
    env.world.spawn_item("redstone", 1, (ix + 0.5, floor + 1.0, iz + 0.5))
    after = env.render_view("top")
    assert after["ok"] and after["tick"] == tick == before["tick"]  # a picture takes no game time
    assert before["caption"].endswith(" blocks shown")
    assert after["caption"].endswith(" blocks, 1 minecart, 1 item entity shown")
    assert after["image"]["sha256"] != before["image"]["sha256"]
    img = env.last_images[0].image
    lid = (176, 116, 52)  # a chest minecart's lid from straight above, as the explorer draws it
    assert (np.asarray(img) == lid).all(-1).any()


def test_replay_refuses_a_picture_that_does_not_hold_its_hash(tmp_path):
    t = tasks.load(TASK)
    path = tmp_path / "run.jsonl"
    with SciCraftEnv.recording(t, path, observation="image") as env:
        sha = env.render_view("top")["image"]["sha256"]
    f = images_dir(path) / f"{sha}.png"
    im = Image.open(f).convert("RGB")
    im.putpixel((0, 0), (255, 0, 0))
    f.unlink()
    im.save(f)
    [bad] = replay_file(path).mismatches
    assert bad.tool == "render-view"
    assert bad.mismatch == (f"result.image: the picture {f} beside the trajectory holds other pixels (sha256 "
                            f"{pixel_hash(im)})")
    f.write_bytes(b"not a png")
    assert "beside the trajectory cannot be read" in replay_file(path).mismatches[0].mismatch
    f.unlink()  # a trajectory copied without its pictures: the re-render stands in
    assert replay_file(path).matches


def test_a_recorded_hash_the_rendering_does_not_give_is_a_mismatch(tmp_path):
    t = tasks.load(TASK)
    path = tmp_path / "run.jsonl"
    with SciCraftEnv.recording(t, path, observation="both") as env:
        env.render_view()
    lines = path.read_text().splitlines()
    step = json.loads(lines[1])
    step["result"]["image"]["sha256"] = "0" * 64
    path.write_text("\n".join([lines[0], json.dumps(step)]) + "\n")
    [bad] = replay_file(path).mismatches
    assert bad.mismatch.startswith("result.image.sha256: recorded '0000")


def test_files_before_version_4_load_as_text_runs():
    t = trajectory.read(ROOT / "trajectories" / "working_A_L4.jsonl")
    assert t.ok and t.header["version"] < 4 and t.observation == "text"


# ---------------------------------------------------------------------------------------- MCP
def test_render_view_over_mcp_is_image_content_the_sdk_client_decodes(tmp_path):
    path = tmp_path / "mcp.jsonl"
    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), args=[
        "-m", "scicraft_viz", "serve-mcp", "--task", TASK, "--trajectory", str(path), "--observation", "image"])

    async def session():
        async with Client(params) as client:
            listed = await client.list_tools()
            await client.call_tool("set-block", {"pos": [0, 4, 0], "block": "redstone_lamp"})
            shown = await client.call_tool("render-view", {"camera": "top", "width": 200, "height": 160})
            refused = await client.call_tool("render-view", {"width": 5})
            return listed, shown, refused

    listed, shown, refused = anyio.run(session)
    names = [tl.name for tl in listed.tools]
    assert names == ["set-block", "get-block-state", "get-event-stream", "activate-button", "submit", "render-view"]
    spec = next(tl for tl in listed.tools if tl.name == "render-view")
    assert set(spec.input_schema["properties"]) == {"camera", "position", "look", "width", "height", "timeline"}
    assert not shown.is_error
    text, image = shown.content
    assert text.type == "text" and json.loads(text.text) == shown.structured_content
    assert image.type == "image" and image.mime_type == "image/png"
    with Image.open(io.BytesIO(base64.b64decode(image.data))) as im:
        assert im.size == (200, 160) and pixel_hash(im) == shown.structured_content["image"]["sha256"]
    assert refused.is_error and refused.content[0].text == (
        "render-view: width must be an integer 64..1024 pixels, got 5")
    traj = trajectory.read(path)
    assert traj.observation == "image" and [s.tool for s in traj.steps] == ["set-block", "render-view", "render-view"]
    assert (images_dir(path) / f"{shown.structured_content['image']['sha256']}.png").is_file()
    assert replay_file(path).matches


# ---------------------------------------------------------------------------------------- Inspect
def _inspect_run(tmp_path: Path, model: str, observation: str, **model_args):
    from inspect_ai import eval as inspect_eval
    from inspect_ai.log import resolve_sample_attachments

    from scicraft_viz.experiments.inspect_task import scicraft

    [log] = inspect_eval(scicraft(family="A", level="L1", trajectories=str(tmp_path / "runs"), observation=observation),
                         model=model, model_args=model_args, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    [sample] = log.samples
    return log, resolve_sample_attachments(sample), next(iter(sample.scores.values()))


@pytest.mark.parametrize("observation", ["image", "both"])
def test_the_oracle_looks_at_its_build_in_an_inspect_run(tmp_path, observation):
    from inspect_ai.model import ChatMessageTool

    log, sample, score = _inspect_run(tmp_path, "scicraft/oracle", observation)
    assert score.value == 1.0 and score.metadata["observation"] == observation
    assert log.eval.task_args["observation"] == observation
    views = [m for m in sample.messages if isinstance(m, ChatMessageTool) and m.function == "render-view"]
    assert [[c.type for c in m.content] for m in views] == [["text", "image"], ["text", "image", "image"]]
    traj = trajectory.read(score.metadata["trajectory"])
    assert traj.observation == observation and f"__baseline__{observation}__e1__" in score.metadata["trajectory"]
    assert [s.tool for s in traj.steps if s.tool != "set-block"] == ["render-view", "activate-button", "render-view",
                                                                     "submit"]
    for m, step in zip(views, [s for s in traj.steps if s.tool == "render-view"]):
        result = json.loads(m.content[0].text)
        assert result == step.result
        images = [c.image for c in m.content[1:]]
        assert all(i.startswith("data:image/png;base64,") for i in images)
        shas = [result["image"]["sha256"]] + ([result["timeline"]["sha256"]] if "timeline" in result else [])
        for uri, sha in zip(images, shas):
            with Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))) as im:
                assert pixel_hash(im) == sha
    assert Replay(traj).matches


def test_an_imported_inspect_log_keeps_its_pictures_beside_the_trajectory(tmp_path):
    from scicraft_viz.experiments.inspect_task import import_log

    log, _, score = _inspect_run(tmp_path, "scicraft/oracle", "image")
    [path] = import_log(log.location, tmp_path / "imported")
    traj = trajectory.read(path)
    assert traj.observation == "image" and traj.passed is True
    shas = sorted(s.result[k]["sha256"] for s in traj.steps if s.tool == "render-view"
                  for k in ("image", "timeline") if k in s.result)
    assert sorted(p.stem for p in images_dir(path).iterdir()) == shas
    assert [p.name for p in (tmp_path / "imported").iterdir() if p.name.endswith(".images")] == [
        images_dir(path).name]
    assert replay_file(path).matches


def test_the_schema_and_the_tool_list_name_the_renderer_s_presets_and_limits():
    from scicraft_viz.env.mcp_server import tool_list
    from scicraft_viz.views.render import MAX_SIZE, MIN_SIZE, PRESETS

    args = trajectory.schema()["$defs"]["args_render"]["properties"]
    assert args["camera"]["enum"] == list(PRESETS)
    assert (args["width"]["minimum"], args["width"]["maximum"]) == (MIN_SIZE, MAX_SIZE)
    [spec] = tool_list(SciCraftEnv(tasks.load(TASK), observation="both"), ("render-view",))
    assert spec.input_schema["properties"]["camera"]["enum"] == list(PRESETS)
    assert spec.input_schema["properties"]["height"]["maximum"] == MAX_SIZE


def test_the_random_agent_under_image_mode_never_scans_and_replays(tmp_path):
    _, _, score = _inspect_run(tmp_path, "scicraft/random", "image", seed=3, turns=25)
    traj = trajectory.read(score.metadata["trajectory"])
    tools = [s.tool for s in traj.steps]
    assert "scan-redstone-area" not in tools and "render-view" in tools
    assert Replay(traj).matches


def test_an_inspect_run_in_text_mode_has_no_render_view(tmp_path):
    _, _, score = _inspect_run(tmp_path, "scicraft/oracle", "text")
    traj = trajectory.read(score.metadata["trajectory"])
    assert traj.observation == "text" and "render-view" not in [s.tool for s in traj.steps]


# ---------------------------------------------------------------------------------------- report
def test_report_splits_success_by_observation_mode(tmp_path):
    t = tasks.load(TASK)
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, observation, passes in (("t1", "text", True), ("t2", "text", False), ("i1", "image", True),
                                      ("b1", "both", False), ("b2", "both", True)):
        with SciCraftEnv.recording(t, runs / f"{name}.jsonl", actor_name="m", observation=observation) as env:
            if passes:
                build(env, t)
            if observation != "text":
                env.render_view()
            env.submit()
    recs = report.load_runs(runs, progress=False, cache=None)
    assert [r.status for r in recs] == ["counted"] * 5
    tabs = report.tables(recs, setting="independent")
    tab = tabs["observation"]
    assert tab.columns == ["model", "setting", "condition", "consolidation", "observation", "runs", "tasks", "passed",
                           "success %", "95% CI low", "95% CI high"]
    assert [row[:9] for row in tab.rows] == [
        ["m", "independent", "baseline", None, "text", 2, 1, 1, 50.0],
        ["m", "independent", "baseline", None, "image", 1, 1, 1, 100.0],
        ["m", "independent", "baseline", None, "both", 2, 1, 1, 50.0],
    ]
    # the paper's cells keep the text runs only
    [cell] = tabs["cells"].rows
    assert cell[:8] == ["m", "independent", "baseline", None, 2, 1, 2, 1]  # runs, tasks, epochs, passed
    runs_tab = tabs["runs"]
    col = runs_tab.columns.index("observation")
    assert sorted(r[col] for r in runs_tab.rows) == ["both", "both", "image", "text", "text"]
    validity = {(r[1]): r[2:] for r in tabs["validity"].rows}
    assert validity["render-view"] == [3, 3, 0, 100.0]
