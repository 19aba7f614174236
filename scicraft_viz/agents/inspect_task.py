"""SciCrafter on Inspect AI: any provider's model plays the tasks with the environment calls as tools.

    inspect eval scicraft_viz/scicraft --model openai/gpt-4o -T family=C -T level=L2 -T condition=baseline
    inspect eval scicraft_viz/scicraft --model anthropic/claude-sonnet-4-0 -T family=A,B -T level=all --epochs 8

One sample per task (family x level), one episode per sample and epoch. The agent loop is the
project's own, not Inspect's tool executor, so that every call reaches `SciCraftEnv.call` exactly as
the model wrote it (a malformed call is refused and recorded, and counts against validity); each call
is written to a project trajectory (`-T trajectories=DIR`, default `runs/inspect/`) with the usage of
the model turn that issued it, so the sample replays exactly with `scicraft_viz.agents.replay`. The
trial budget is the environment's: a press beyond it ends the episode (cut off, scored 0). The
scorer is the project's evaluator as `submit` runs it; a failed build's score explanation begins
with `scicraft_viz.diagnose.diagnose` of the world the agent left.

`import_log(path, out_dir)` turns an existing Inspect log into trajectories by feeding each sample's
tool calls to a fresh environment (`scicraft-viz import-inspect LOG`).
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    get_model,
)
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolCallError, ToolInfo, ToolParams
from inspect_ai.util import LimitExceededError

from scicraft_viz.agents.conditions import CONDITIONS, briefing, check_condition
from scicraft_viz.agents.env import TOOLS, SciCraftEnv
from scicraft_viz.tasks import FAMILIES, LEVELS, TaskError, load_by_id

DEFAULT_DIR = "runs/inspect"
NUDGE = "Keep working with the tools; call submit when the build is done."
# Live episodes between the solver and the scorer, by sample uuid.
_EPISODES: dict[str, dict[str, Any]] = {}


def task_ids_for(family: str = "A", level: str = "L1") -> list[str]:
    """Task ids for comma-separated families and levels ('all' for every one)."""
    from scicraft_viz.tasks import task_ids

    fams = list(FAMILIES) if str(family).lower() == "all" else [f.strip().upper() for f in str(family).split(",")]
    lvls = list(LEVELS) if str(level).lower() == "all" else [v.strip().upper() for v in str(level).split(",")]
    for f in fams:
        if f not in FAMILIES:
            raise TaskError(f"family must be one of {', '.join(FAMILIES)} (or all), got {f!r}")
    for v in lvls:
        if v not in LEVELS:
            raise TaskError(f"level must be one of {', '.join(LEVELS)} (or all), got {v!r}")
    known = task_ids()
    return [i for f in fams for v in lvls for i in known if i.startswith(f + "_") and i.endswith("_" + v)]


def tool_infos(env: SciCraftEnv) -> list[ToolInfo]:
    """The MCP server's tool list (same names, descriptions and schemas) in Inspect's form."""
    from scicraft_viz.agents.mcp_server import tool_list

    return [ToolInfo(name=t.name, description=t.description, parameters=ToolParams.model_validate(t.input_schema))
            for t in tool_list(env)]


def _usage(output, model_name: str, started: float) -> dict:
    u = output.usage
    latency = output.time if output.time is not None else time.monotonic() - started
    d: dict[str, Any] = {"model": output.model or model_name}
    if u is not None:
        d["input_tokens"] = int(u.input_tokens + (u.input_tokens_cache_read or 0) + (u.input_tokens_cache_write or 0))
        d["output_tokens"] = int(u.output_tokens)
    d["latency_s"] = round(float(latency), 3)
    return d


def trajectory_file(directory: str | Path, task_id: str, model: str, condition: str, epoch: int) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in model)[:80]
    return Path(directory) / f"{task_id}__{safe}__{condition}__e{epoch}__{uuid.uuid4().hex[:8]}.jsonl"


def _tool_message(call, result: dict) -> ChatMessageTool:
    if result.get("ok"):
        return ChatMessageTool(content=json.dumps(result, separators=(",", ":")), tool_call_id=call.id,
                               function=call.function)
    return ChatMessageTool(content=str(result.get("error")), tool_call_id=call.id, function=call.function,
                           error=ToolCallError("unknown", str(result.get("error"))))


@solver
def scicraft_agent(trajectories: str = DEFAULT_DIR, max_turns: int = 200, max_nudges: int = 2):
    """The agent loop: generate, run every tool call through the environment (recorded), repeat
    until submit, a press beyond the budget (cut off), `max_turns` model turns, or the model stops
    calling tools `max_nudges` times in a row."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        md = state.metadata
        t = load_by_id(md["task_id"])
        model = get_model()
        model_name = str(model)
        path = trajectory_file(trajectories, t.id, model_name, md["condition"], state.epoch)
        env = SciCraftEnv.recording(t, path, actor_kind="model", actor_name=model_name, condition=md["condition"],
                                    budget=md.get("budget"),
                                    setting={"interface": "inspect", "sample_id": str(state.sample_id),
                                             "epoch": state.epoch})
        ep = {"env": env, "path": str(path), "cut_off": None, "turns": 0}
        _EPISODES[state.uuid] = ep
        tools = tool_infos(env)
        idle = 0
        try:
            while not env.done and not env.stopped and ep["turns"] < max_turns:
                started = time.monotonic()
                output = await model.generate(state.messages, tools)
                ep["turns"] += 1
                state.output = output
                msg = output.message
                state.messages.append(msg)
                usage = _usage(output, model_name, started)
                calls = msg.tool_calls or []
                if msg.text or not calls:
                    env.reason(msg.text, usage)
                    usage = None
                for call in calls:
                    before = env.trials_used
                    result = env.call(call.function, call.arguments, usage)
                    usage = None
                    state.messages.append(_tool_message(call, result))
                    if (call.function == "activate-button" and not result.get("ok")
                            and before >= env.budget):
                        ep["cut_off"] = f"cut off: a trial was requested after all {env.budget} were used"
                        break
                if ep["cut_off"]:
                    break
                if calls:
                    idle = 0
                    continue
                idle += 1
                if idle > max_nudges:
                    break
                state.messages.append(ChatMessageUser(content=NUDGE))
        except LimitExceededError as e:  # Inspect ends the sample and still scores it
            ep["cut_off"] = f"cut off: {e.message or e.type + ' limit reached'}"
            raise
        except BaseException:
            # The sample failed (e.g. the provider's API): it is no result, and Inspect may retry it. Its partial
            # record is kept under another suffix, so a report counts only finished runs.
            _EPISODES.pop(state.uuid, None)
            env.close()
            path.replace(path.with_suffix(".jsonl.incomplete"))
            raise
        finally:
            env.close()
        if ep["turns"] >= max_turns and not env.done and not ep["cut_off"]:
            ep["cut_off"] = f"cut off: {max_turns} model turns without a submit"
        return state

    return solve


def partial_credit(t, measured: dict) -> float:
    """Lamps meeting their windows / N (see `scicraft_viz.agents.report.lamps_meeting`)."""
    from scicraft_viz.agents.report import lamps_meeting

    return lamps_meeting(t, measured) / t.n


@scorer(metrics=[accuracy(), stderr()])
def scicraft_scorer():
    """The evaluator's verdict at submit (1 or 0), with partial credit, trials used, the trajectory
    file and, for a failed build, the diagnosis of the world the agent left."""

    async def score(state: TaskState, target: Target) -> Score:
        ep = _EPISODES.pop(state.uuid, None)
        if ep is None:
            return Score(value=INCORRECT, explanation="the episode never started")
        env: SciCraftEnv = ep["env"]
        meta: dict[str, Any] = {"task_id": env.task.id, "condition": env.condition, "trajectory": ep["path"],
                                "trials_used": env.trials_used, "budget": env.budget, "turns": ep["turns"],
                                "submitted": env.submitted is not None, "cut_off": ep["cut_off"]}
        passed = bool(env.submitted and env.submitted["passed"])
        parts = []
        if env.submitted is None:
            parts.append(ep["cut_off"] or env.stopped or "not submitted: the model stopped before calling submit")
        else:
            from scicraft_viz.tasks.evaluator import Attempt, evaluate

            res = evaluate(env.task, env.world, attempt=Attempt(env.task, budget=env.budget, used=env.trials_used),
                           source="inspect scorer")
            meta["partial_credit"] = partial_credit(env.task, res.to_dict()["measured"])
            parts.append(res.report())
        if not passed:
            from scicraft_viz.diagnose import diagnose

            d = diagnose(env.world, env.task)
            meta["failure_modes"] = d.modes()
            meta["primary_mode"] = d.primary
            lines = [f"- {f.mode}: {f.explanation} Fix: {f.fix}" for f in d.findings[:8]]
            parts.insert(0, "Diagnosis of the final build:\n" + ("\n".join(lines) or "- no finding"))
        return Score(value=CORRECT if passed else INCORRECT, answer="passed" if passed else "failed",
                     explanation="\n\n".join(parts), metadata=meta)

    return score


def samples(family: str, level: str, condition: str, budget: int | None = None) -> list[Sample]:
    out = []
    for tid in task_ids_for(family, level):
        t = load_by_id(tid)
        b = t.trial_budget if budget is None else budget
        text = briefing(t, condition, budget=b)
        out.append(Sample(id=tid, input=[ChatMessageSystem(content=text),
                                         ChatMessageUser(content="Build the device with the tools, test it with "
                                                                 "activate-button, then call submit.")],
                          target="passed", metadata={"task_id": tid, "condition": condition, "budget": b}))
    return out


@task
def scicraft(family: str = "A", level: str = "L1", condition: str = "baseline", budget: int | None = None,
             trajectories: str = DEFAULT_DIR, max_turns: int = 200) -> Task:
    """SciCrafter tasks of `family` and `level` (comma-separated, or 'all') under `condition`
    (baseline or hint), `budget` verification trials (default: the task's, 50)."""
    condition = check_condition(condition)
    if budget is not None:
        budget = int(budget)
    return Task(dataset=MemoryDataset(samples(family, level, condition, budget), name=f"scicraft-{condition}"),
                solver=scicraft_agent(trajectories=trajectories, max_turns=int(max_turns)),
                scorer=scicraft_scorer(), metadata={"condition": condition, "conditions": list(CONDITIONS)})


# ---------------------------------------------------------------------------------------- importing logs
def _calls_of(sample) -> list[tuple[str, Any, dict | None]]:
    """(kind, payload, usage) in conversation order: ('reason', text, usage) and ('call', (fn, args), usage)."""
    from inspect_ai.event import ModelEvent

    outputs = [e.output for e in (sample.events or []) if isinstance(e, ModelEvent) and e.output is not None]
    out: list[tuple[str, Any, dict | None]] = []
    k = 0
    for m in sample.messages or []:
        if not isinstance(m, ChatMessageAssistant):
            continue
        usage = None
        if k < len(outputs):
            o = outputs[k]
            usage = _usage(o, o.model or (m.model or ""), time.monotonic())
            if o.time is None:
                usage.pop("latency_s", None)
            k += 1
        calls = m.tool_calls or []
        if m.text or not calls:
            out.append(("reason", m.text, usage))
            usage = None
        for c in calls:
            out.append(("call", (c.function, c.arguments), usage))
            usage = None
    return out


def import_log(log_path: str | Path, out_dir: str | Path, overwrite: bool = False) -> list[Path]:
    """One trajectory per sample of an Inspect log whose task is a SciCrafter task (the sample's
    `task_id` metadata or id). The calls are fed to a fresh environment, so the trajectory holds
    what the environment answers; tool names are the environment's (`set-block`, ...; `set_block`
    and an `mcp_`-style prefix are accepted). Raises ValueError naming the log for an unreadable log."""
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(log_path))
    except Exception as e:  # any unreadable log is one clear message
        raise ValueError(f"cannot read the Inspect log {log_path}: {str(e).splitlines()[0][:200]}") from None
    model = log.eval.model
    condition = (log.eval.task_args or {}).get("condition", "baseline")
    written = []
    for s in log.samples or []:
        tid = (s.metadata or {}).get("task_id") or str(s.id)
        try:
            t = load_by_id(tid)
        except TaskError:
            continue
        cond = check_condition((s.metadata or {}).get("condition", condition))
        path = Path(out_dir) / f"{tid}__imported__e{s.epoch}__{uuid.uuid4().hex[:8]}.jsonl"
        budget = (s.metadata or {}).get("budget")
        env = SciCraftEnv.recording(t, path, actor_kind="model", actor_name=model, condition=cond, budget=budget,
                                    overwrite=overwrite, setting={"interface": "inspect-import",
                                                                  "log": Path(log_path).name,
                                                                  "sample_id": str(s.id), "epoch": s.epoch})
        with env:
            for kind, payload, usage in _calls_of(s):
                if kind == "reason":
                    env.reason(payload or "", usage)
                else:
                    fn, args = payload
                    env.call(_tool_name(fn), args, usage)
        written.append(path)
    return written


def _tool_name(fn: str) -> str:
    name = fn.replace("_", "-")
    for tool in TOOLS:
        if name == tool or name.endswith("-" + tool):
            return tool
    return fn
