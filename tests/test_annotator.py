"""The human-baseline annotator, driven through its widgets: a person's session and an agent's MCP
session of the same build leave the same record and get the same verdict; the timer, the trial
budget, refused clicks and the no-retry rule; the notebook page."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from scicraft_viz import evaluator, tasks, trajectory
from scicraft_viz.engine.blocks import parse_state, split_state
from scicraft_viz.engine.mcfunction import parse_mcfunction
from scicraft_viz.env.replay import Replay
from scicraft_viz.tasks.evaluator import _order_key
from scicraft_viz.views.annotator import Annotator, annotator_page, previous_attempts
from scicraft_viz.views.explorer import solution_path
from scicraft_viz.views.replay import ReplayViewer

ROOT = Path(__file__).resolve().parents[1]
NORMAL = {"east": (1, 0, 0), "west": (-1, 0, 0), "south": (0, 0, 1), "north": (0, 0, -1)}
REGION = "x -10..10, y -6..14, z -10..10 (radius 10 around the anchor (0, 4, 0))"


class Clock:
    """A wall clock the test moves by hand."""

    def __init__(self):
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def solution_calls(task_id: str):
    items = parse_mcfunction(solution_path(task_id).read_text(encoding="utf-8"))
    return [kv for _, kv in sorted(enumerate(items), key=_order_key)]


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def started(tmp_path, task="A_simultaneous_lights_L1", participant="P01", **kw) -> Annotator:
    a = Annotator(task, out_dir=tmp_path, clock=kw.pop("clock", Clock()), **kw)
    a.participant.value = participant
    a.consent.value = True
    a.start_button.click()
    assert a.env is not None, a.last_message
    return a


def click_place(a: Annotator, pos, state: str) -> None:
    """Place one block the way a person would: choose it in the palette, double-click a face."""
    name, props = split_state(state)
    x, y, z = pos
    if name == "redstone_wall_torch":
        n = NORMAL[props["facing"]]  # a wall torch points away from the block it hangs on
        a.palette.choose("torch", face="auto")
        a.canvas.click_face((x - n[0], y, z - n[2]), n)
        return
    if name == "redstone_repeater":
        a.palette.choose("repeater", facing=props["facing"], delay=int(props["delay"]))
    elif name == "stone_button":
        a.palette.choose("button", face=props["face"], facing=props["facing"])
    elif name == "redstone_torch":
        a.palette.choose("torch", face="floor")
    else:
        a.palette.choose({"redstone_wire": "dust", "redstone_lamp": "lamp"}.get(name, name))
    a.canvas.click_face((x, y - 1, z), (0, 1, 0))  # the top face of the block below


def canonical(step: dict) -> tuple:
    args = dict(step["args"])
    if "block" in args:
        args["block"] = str(parse_state(args["block"]))
    return step["tool"], args, step["result"]


def test_a_person_and_an_agent_building_the_same_leave_the_same_record(tmp_path):
    task_id = "E_pulse_shaping_L1"  # floor and wall torches, repeaters, a button: every kind of click
    calls = solution_calls(task_id)
    clock = Clock()
    a = started(tmp_path / "human", task=task_id, clock=clock)
    for pos, state in calls:
        clock.t += 2.5
        click_place(a, pos, state)
        assert a.last_message.startswith("placed "), (pos, state, a.last_message)
    a.trial_button.click()
    assert a.trial_box.layout.display is None and a.timeline.lamps
    a.submit_button.click()
    assert a.confirm_button.layout.display is None
    a.confirm_button.click()
    assert a.finished and a.done_box.value.count("Submitted.") == 1
    assert "PASS" not in a.done_box.value and "FAIL" not in a.done_box.value  # show_verdict is off

    agent_path = tmp_path / "agent.jsonl"

    async def agent():
        params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), args=[
            "-m", "scicraft_viz", "serve-mcp", "--task", task_id, "--trajectory", str(agent_path)])
        async with Client(params) as client:
            for pos, state in calls:
                await client.call_tool("set-block", {"pos": list(pos), "block": state})
            await client.call_tool("activate-button", {})
            return (await client.call_tool("submit", {})).structured_content

    agent_submit = anyio.run(agent)

    human, model = lines(a.path), lines(agent_path)
    assert human[0]["actor"] == {"kind": "human", "name": "P01"} and model[0]["actor"] == {"kind": "model"}
    assert human[0]["session"] == {"interface": "annotator", "time_limit_s": 1800}
    assert {k: v for k, v in human[0].items() if k not in ("actor", "run_id", "started", "session")} == \
        {k: v for k, v in model[0].items() if k not in ("actor", "run_id", "started", "session")}
    assert [canonical(s) for s in human[1:]] == [canonical(s) for s in model[1:]]
    assert [s["wall_s"] for s in human[1:4]] == [2.5, 5.0, 7.5]
    assert human[-1]["result"] == agent_submit == a.submit_result
    assert agent_submit["passed"] is True

    for path in (a.path, agent_path):
        rp = Replay(trajectory.read(path))
        assert rp.matches, rp.report()
        assert ReplayViewer(path).replay.trajectory.passed is True


def test_the_timer_submits_the_build_when_time_runs_out(tmp_path):
    clock = Clock()
    a = started(tmp_path, clock=clock, time_limit_s=60)
    assert "time left 01:00 of 01:00" in a.timer.value and a.clock_tick.playing
    click_place(a, (0, 4, 0), "minecraft:stone")
    click_place(a, (0, 5, 0), "minecraft:stone_button[face=floor,facing=north]")
    clock.t += 59.2
    a.clock_tick.value += 1  # what the page's one-second timer does
    assert "time left 00:01 of 01:00" in a.timer.value and not a.finished
    before = a.path.read_text()
    clock.t += 0.8
    a.clock_tick.value += 1
    assert a.finished and not a.clock_tick.playing
    assert "time left 00:00 of 01:00 · submitted" in a.timer.value
    assert "Time is up: your build was submitted as it stood." in a.done_box.value
    rec = lines(a.path)
    assert rec[-2] == {"type": "reasoning", "step": 2, "wall_s": 60.0,
                       "text": "[annotator] time limit of 01:00 reached: the build was submitted as it stood"}
    assert rec[-1]["tool"] == "submit" and rec[-1]["result"]["ok"] and rec[-1]["result"]["passed"] is False
    assert a.path.read_text().startswith(before)  # append-only

    # nothing changes after the submit; clicks say why and write nothing
    after = a.path.read_text()
    click_place(a, (1, 4, 0), "minecraft:stone")
    assert a.last_message == "the session is over: the build was submitted, nothing can change now"
    a.trial_button.click()
    a.notes.value = "one more idea"
    a.note_button.click()
    assert a.path.read_text() == after
    assert a.trial_button.disabled and a.submit_button.disabled


def test_refused_clicks_explain_themselves_and_are_recorded_as_an_agent_s_would(tmp_path):
    a = Annotator("A_simultaneous_lights_L1", out_dir=tmp_path, clock=Clock())
    a.canvas.click_face((0, 3, 0), (0, 1, 0))
    assert a.last_message == "press Start first"
    for pid, consent, message in [
        ("", True, "enter a participant id: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit "
                   "(got '')"),
        ("../etc", True, "enter a participant id: 1-64 letters, digits, '.', '_' or '-', starting with a letter or "
                         "digit (got '../etc')"),
        ("P02", False, "tick the consent box first"),
    ]:
        a.participant.value, a.consent.value = pid, consent
        a.start_button.click()
        assert (a.last_message, a.env) == (message, None)
    assert list(tmp_path.iterdir()) == []
    a.consent.value = True
    a.start_button.click()
    assert a.env is not None and a.work.layout.display is None and a.setup.layout.display == "none"

    # refused before the environment: nothing is written
    a.canvas.click(None)
    assert a.last_message == "nothing there: double-click on a block or on the floor"
    a.palette.choose("torch", face="ceiling")
    a.canvas.click_face((0, 3, 0), (0, 1, 0))
    assert a.last_message == "a torch cannot hang under a block: click a top or side face"
    a.canvas.click_face((2, 4, 2), (0, 1, 0), shift=True)
    assert a.last_message == "nothing to remove at (2, 4, 2)"
    a.canvas.click_face((0, 3, 0), (0, 1, 0), ctrl=True)
    assert a.last_message == ("stone at (0, 3, 0) cannot be used here: ctrl+double-click a repeater to change its "
                              "delay, or use Run trial")
    a.notes.value = "   "
    a.note_button.click()
    assert a.last_message == "write something in the note box first"
    assert len(lines(a.path)) == 1

    # refused by the environment: recorded, as an agent's refused call is
    a.palette.choose("stone")
    a.canvas.click_face((10, 3, 10), (1, 0, 0))
    assert a.last_message == f"set-block: pos (11, 3, 10) is outside the build region: {REGION}"
    a.trial_button.click()
    assert a.last_message == "activate-button: there is no stone button in the build region to press"
    # a repeater's delay through ctrl+double-click is a set-block with the next delay
    a.palette.choose("repeater", facing="west", delay=4)
    a.canvas.click_face((3, 3, 3), (0, 1, 0))
    a.canvas.click_face((3, 4, 3), (0, 1, 0), ctrl=True)
    assert a.last_message == "repeater at (3, 4, 3): delay 1"
    a.notes.value = "the repeater faces west"
    a.note_button.click()
    a.canvas.click_face((3, 4, 3), (1, 0, 0), shift=True)
    assert a.last_message == "removed the block at (3, 4, 3)"
    a.submit_button.click()
    a.cancel_button.click()
    assert a.last_message == "not submitted: keep building" and not a.finished

    rec = lines(a.path)
    assert [(r["type"], r.get("tool"), r.get("args"), r.get("result", {}).get("ok")) for r in rec[1:]] == [
        ("step", "set-block", {"pos": [11, 3, 10], "block": "stone"}, False),
        ("step", "activate-button", {}, False),
        ("step", "set-block", {"pos": [3, 4, 3], "block": "redstone_repeater[delay=4,facing=west]"}, True),
        ("step", "set-block", {"pos": [3, 4, 3], "block": "redstone_repeater[delay=1,facing=west]"}, True),
        ("reasoning", None, None, None),
        ("step", "set-block", {"pos": [3, 4, 3], "block": "air"}, True),
    ]
    assert rec[5] == {"type": "reasoning", "step": 4, "wall_s": 0.0, "text": "the repeater faces west"}
    t = trajectory.read(a.path)
    assert t.ok and t.actor == {"kind": "human", "name": "P02"} and t.final is None


def test_a_trial_shows_raw_observations_and_the_budget(tmp_path):
    a = started(tmp_path, budget=3)
    assert "trials 0/3 (3 left)" in a.trials.value and "You have 3 trials" in a.instructions.value
    for pos, state in [((0, 4, 0), "stone"), ((0, 5, 0), "stone_button[face=floor,facing=north]"),
                       ((1, 4, 0), "redstone_lamp")]:
        click_place(a, pos, state)
    a.trial_button.click()
    assert a.last_message == "trial 1: pressed at game tick 60, watched 200 game ticks; 2 trial(s) left"
    assert "trials 1/3 (2 left)" in a.trials.value
    assert a.timeline.lamps == [(1, 4, 0)] and a.timeline._contract is None  # no contract windows: no verdict
    assert "<td>+0 gt</td><td>(1, 4, 0)</td><td>on</td>" in a.trial_info.value
    assert "<td>+24 gt</td><td>(1, 4, 0)</td><td>off</td>" in a.trial_info.value
    assert not any(w in a.trial_info.value.lower() for w in ("pass", "fail", "contract", "window"))
    assert (a.trial_tick.min, a.trial_tick.max) == (60, 260)
    a.trial_tick.value = 70
    frame = a.canvas.frame
    assert not a.live and frame.tick == 70 and bool(frame.on[frame.layout.at((1, 4, 0))])
    a.trial_tick.value = 90
    assert not a.canvas.frame.on[a.canvas.frame.layout.at((1, 4, 0))]
    a.live_button.click()
    assert a.live and a.canvas.frame.tick == a.env.world.tick == 260
    a.trial_button.click()
    a.trial_button.click()
    assert a.last_message == "trial 3: pressed at game tick 460, watched 200 game ticks; 0 trial(s) left"
    a.trial_button.click()
    assert a.last_message == "activate-button: no verification trial left: all 3 are used"
    a.submit_button.click()
    assert a.last_message == "Submit now? This is final: the build is checked once and cannot be changed afterwards."
    a.confirm_button.click()
    # the evaluator judges the session against the budget of 3 with all 3 spent, as it would an agent's
    assert a.submit_result["trials"] == {"used": 3, "budget": 3, "remaining": 0}
    build = "setblock 0 4 0 stone\nsetblock 0 5 0 stone_button[face=floor,facing=north]\nsetblock 1 4 0 redstone_lamp"
    direct = evaluator.evaluate(a.task, build, trials_used=3)
    assert [(c["name"], c["passed"], c["reason"]) for c in a.submit_result["checks"]] == [
        (c.name, c.passed, c.reason) for c in direct.checks]
    t = trajectory.read(a.path)
    assert t.budget == 3 and t.task().trial_budget == 3 and t.passed is False


def test_no_second_attempt_after_submitting(tmp_path):
    first = started(tmp_path, participant="P03")
    first.submit_button.click()
    first.confirm_button.click()
    assert previous_attempts(tmp_path, "A_simultaneous_lights_L1", "P03") == [(first.path, True)]
    again = Annotator("A_simultaneous_lights_L1", out_dir=tmp_path, participant="P03")
    again.consent.value = True
    again.start_button.click()
    assert again.env is None
    assert again.last_message == (f"participant P03 already submitted A_simultaneous_lights_L1 ({first.path.name}): "
                                  "there are no retries after submitting")
    # an abandoned (unsubmitted) session does not block, but is named
    abandoned = started(tmp_path, participant="P04")
    abandoned.close()
    other = started(tmp_path, participant="P04")
    assert other.last_message.endswith(f"(an unfinished earlier session exists: {abandoned.path.name})")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first.path.name, abandoned.path.name,
                                                                  other.path.name])


def test_the_notebook_page_reads_its_parameters_from_the_address(tmp_path, monkeypatch):
    nb = json.loads((ROOT / "notebooks" / "annotator.ipynb").read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    monkeypatch.setenv("SCICRAFT_RUNS", str(tmp_path))
    monkeypatch.setenv("QUERY_STRING", "task=C_sequential_activation_L1&participant=P09&minutes=20")
    scope: dict = {}
    exec(compile(code, "annotator.ipynb", "exec"), scope)
    page = scope["page"]
    assert isinstance(page, Annotator) and page.task.id == "C_sequential_activation_L1"
    assert (page.participant.value, page.participant.disabled, page.time_limit_s) == ("P09", True, 1200.0)
    assert page.out_dir == tmp_path
    bad = annotator_page("task=C_sequential_activation_L1&minutes=soon")
    assert bad.value == ("<div class='scv-page-error' style='color:#d6336c;font-size:14px'>This session cannot start: "
                         "minutes must be a number, got &#x27;soon&#x27;. Please tell the experimenter.</div>")


def test_time_limit_must_be_positive():
    with pytest.raises(ValueError, match="time_limit_s must be a positive number of seconds or None, got 0"):
        Annotator("A_simultaneous_lights_L1", time_limit_s=0)
    assert tasks.load("A_simultaneous_lights_L1").trial_budget == 50


def test_the_page_takes_task_ids_only_never_a_path(tmp_path):
    secret = tmp_path / "secret.yaml"
    secret.write_text("id: leaked\nname: top secret\n", encoding="utf-8")
    for value in ("/etc/passwd", str(secret), "../tasks/A_simultaneous_lights_L1.yaml"):
        page = annotator_page(f"task={value}", out_dir=tmp_path)
        assert not isinstance(page, Annotator)
        assert page.value.startswith("<div class='scv-page-error'") and "task id" in page.value, page.value
        assert "root:" not in page.value and "top secret" not in page.value
    ok = annotator_page("task=B_branch_reach_L1", out_dir=tmp_path)
    assert isinstance(ok, Annotator) and ok.task.id == "B_branch_reach_L1"


def test_undo_puts_back_what_an_edit_changed_through_recorded_calls(tmp_path):
    a = started(tmp_path)
    floor = (0, 3, 0)
    assert a.env.world.get_block(floor) == "minecraft:stone"
    click_place(a, (0, 4, 0), "redstone_wire")
    click_place(a, (1, 4, 0), "redstone_wire")
    assert a.env.world.get_block((1, 4, 0)).startswith("minecraft:redstone_wire")
    a.palette.choose("stone", tool="remove")
    a.canvas.click_face(floor, (0, 1, 0))  # removing the floor block: the dust on it pops off
    assert a.env.world.get_block(floor) == "minecraft:air"
    assert a.env.world.get_block((0, 4, 0)) == "minecraft:air"
    calls = a.env.steps
    a.undo_button.click()
    assert a.last_message == "undid the last edit: put back stone at (0, 3, 0), redstone_wire at (0, 4, 0)"
    assert a.env.world.get_block(floor) == "minecraft:stone"
    assert a.env.world.get_block((0, 4, 0)).startswith("minecraft:redstone_wire")
    assert a.env.steps == calls + 2  # the stone, then the dust on it: two set-block calls
    a.undo_button.click()
    assert a.env.world.get_block((1, 4, 0)) == "minecraft:air"
    a.undo_button.click()
    assert a.env.world.get_block((0, 4, 0)) == "minecraft:air"
    assert a.undo_button.disabled
    assert a.undo() is None and a.last_message == "nothing to undo"
    steps = [s for s in lines(a.path) if s.get("type") == "step"]
    assert [s["args"]["block"].removeprefix("minecraft:").split("[")[0] for s in steps[-4:]] == [
        "stone", "redstone_wire", "air", "air"]


def test_a_block_on_top_of_a_lamp_is_warned_about(tmp_path):
    a = started(tmp_path)
    click_place(a, (2, 4, 2), "redstone_lamp")
    assert a.last_message == "placed redstone_lamp at (2, 4, 2)" and a.lamp_warning() == ""
    a.palette.choose("stone")
    a.canvas.click_face((2, 4, 2), (0, 1, 0))
    assert a.last_message == ("placed stone at (2, 5, 2). Warning: stone at (2, 5, 2) sits on the lamp at (2, 4, 2): "
                              "blocks on top of a lamp break the task's rules")
    assert "color:#d6336c" in a.message.value
    a.undo_button.click()
    assert a.lamp_warning() == "" and a.last_message.startswith("undid the last edit")


def test_the_consent_form_is_on_the_page(tmp_path):
    a = Annotator("A_simultaneous_lights_L1", out_dir=tmp_path)
    assert a.instructions_box.titles == ("Instructions", "Consent form")
    assert "What is recorded: every action you take on this page" in a.consent_text.value
    assert "consent form (above)" in a.consent.description
    own = Annotator("A_simultaneous_lights_L1", out_dir=tmp_path, consent_text="Our lab's form <v2>")
    assert "Our lab&#x27;s form &lt;v2&gt;" in own.consent_text.value


def test_the_documented_voila_command_culls_idle_kernels(tmp_path):
    """The launch command of README and docs/human_baseline.md, with shorter culling times: the kernel a
    page load started is shut down once idle with no page connected."""
    import re
    import time
    import urllib.request

    import psutil

    from tests.browser.lab import documented_voila_args, voila

    docs = (ROOT / "docs" / "human_baseline.md").read_text(encoding="utf-8").replace("\\\n", "")
    jupyter_path, *args = documented_voila_args()
    assert " ".join(args) in " ".join(docs.split())  # the same command in both documents
    assert "JUPYTER_PATH=$PWD/scicraft_viz/views/voila_data voila" in " ".join(docs.split())
    assert (Path(jupyter_path) / "voila" / "templates" / "scicraft" / "index.html.j2").is_file()
    culling = {a.split("=")[0]: a.split("=")[1] for a in args if "KernelManager" in a}
    assert culling == {"--MappingKernelManager.cull_idle_timeout": "900", "--MappingKernelManager.cull_interval": "60"}
    fast = {"MappingKernelManager.cull_idle_timeout": "3", "MappingKernelManager.cull_interval": "1"}
    with voila(tmp_path / "runs", tmp_path / "voila.log", **fast) as (url, proc):
        page = urllib.request.urlopen(f"{url}/?task=A_simultaneous_lights_L1", timeout=120).read().decode()
        assert "A_simultaneous_lights_L1" in page

        def kernels():
            alive = []
            for p in psutil.Process(proc.pid).children(recursive=True):
                try:  # a culled kernel that its parent has not reaped yet is a zombie: it is gone
                    if p.status() != psutil.STATUS_ZOMBIE and "ipykernel_launcher" in " ".join(p.cmdline()):
                        alive.append(p)
                except (psutil.NoSuchProcess, psutil.ZombieProcess):
                    pass
            return alive

        deadline = time.monotonic() + 60
        while kernels():
            assert time.monotonic() < deadline, "the idle kernel was never culled"
            time.sleep(0.5)
        log = (tmp_path / "voila.log").read_text()
        assert re.search(r"Culling 'idle' kernel .* due to 3 seconds of inactivity", log), log[-2000:]


def test_the_default_folder_is_created_at_start_and_a_mistyped_one_is_refused(tmp_path, monkeypatch):
    """runs/human (the widget's default, and README's SCICRAFT_RUNS=$PWD/runs/human) is created with its
    parents on a fresh clone; any other folder may lack only its last level, so a typo is not created."""
    monkeypatch.chdir(tmp_path)
    a = started(tmp_path / "runs" / "human")  # neither runs/ nor runs/human exists yet
    assert a.path.parent == tmp_path / "runs" / "human" and a.path.is_file()
    a.close()
    relative = Annotator("A_simultaneous_lights_L1", clock=Clock())  # the default out_dir, relative
    (tmp_path / "runs" / "human").rename(tmp_path / "elsewhere")
    (tmp_path / "runs").rmdir()
    relative.participant.value, relative.consent.value = "P02", True
    relative.start_button.click()
    assert relative.env is not None and relative.path.parent == Path("runs/human")
    relative.close()

    typo = Annotator("A_simultaneous_lights_L1", out_dir=tmp_path / "rnus" / "humans", clock=Clock())
    typo.participant.value, typo.consent.value = "P03", True
    typo.start_button.click()
    assert typo.env is None and not (tmp_path / "rnus").exists()
    assert "does not exist" in typo.last_message and str(tmp_path / "rnus") in typo.last_message, typo.last_message
