"""SciCrafter on Inspect AI: any provider's model plays the tasks under the paper's whole protocol.

    inspect eval scicraft_viz/scicraft --model openai/gpt-4o -T family=C -T level=L2 -T condition=baseline
    inspect eval scicraft_viz/scicraft --model scicraft/oracle -T family=all -T level=all \\
        -T setting=curriculum -T condition=hint+scientist -T consolidation=cpce --epochs 8

Run parameters (`-T`): `family` and `level` (comma-separated, a list, or `all`), `condition`
(baseline, hint, scientist, hint+scientist), `setting` (independent: one sample per task, each with
an empty knowledge book; curriculum: one sample per family and epoch that plays its levels L1 to L5
in order, carrying the knowledge book and nothing else from one level to the next),
`consolidation` (the book's format: summary, fee, cpce), `observation` (text: block lists, the paper's
setting; image: render-view pictures in place of scan-redstone-area; both), `budget`, `trajectories`,
`max_turns`. A render-view result reaches the model as its JSON text plus the picture(s) as images.

The engineer is an `inspect_ai.agent.react` agent whose tools are the environment calls; under a
scientist condition its `ask-scientist` tool opens a session of a second react agent, the
scientist (run through `inspect_ai.agent.as_tool`), which experiments in a scratch world with the
same calls and the same trial budget, archives an experiment report, rewrites the book and ends its
session with an answer. Every call reaches `SciCraftEnv.call` as the model wrote it and is written to
a trajectory (`-T trajectories=DIR`, default `runs/inspect/`, created on first use) with the usage of
the model turn that issued it and which agent made it; the book and reports are kept beside it. A
press beyond the budget, by either agent, cuts the episode off (scored 0). The scorer is the
project's evaluator as `submit` runs it; a failed build's explanation begins with its diagnosis. A
sample whose trajectory cannot be written errors, so `inspect eval` reports the error.

The offline agents of `scicraft_viz.experiments.offline` (`--model scicraft/oracle`, `scicraft/random`,
`scicraft/replay -M trajectory=PATH`) need no network and no key.

`import_log(path, out_dir)` turns an existing Inspect log into trajectories by feeding each sample's
tool calls to a fresh environment (`scicraft-viz import-inspect LOG`).
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.agent import AgentPrompt, AgentState, AgentSubmit, as_tool, react
from inspect_ai.agent import agent as inspect_agent
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.hooks import Hooks, RunEnd, hooks
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ContentImage, ContentText, ToolDef, ToolError, ToolParams
from inspect_ai.util import LimitExceededError

from scicraft_viz.env.conditions import (
    CONDITIONS,
    briefing,
    check_condition,
    check_consolidation,
    check_setting,
)
from scicraft_viz.env.environment import ALL_TOOLS, SciCraftEnv
from scicraft_viz.experiments import offline  # registers the offline model providers (scicraft/...)
from scicraft_viz.tasks import FAMILIES, LEVELS, TaskError, load_by_id

DEFAULT_DIR = "runs/inspect"
MAX_LOG_BYTES = 512 * 2**20  # an Inspect log to import
START = "Build the device with the tools, test it with activate-button, then call submit."
NUDGE = "Keep working with the tools; call submit when the build is done."
SCIENTIST_NUDGE = "Keep experimenting with the tools; end your session with end-experiment when you are done."
# Live episodes between the solver and the scorer, by sample uuid.
_EPISODES: dict[str, list[Episode]] = {}


def _names(value, known: tuple[str, ...], what: str) -> list[str]:
    """Names from 'A,C', ['A', 'C'] (Inspect passes a list for -T family=A,C) or 'all'."""
    items = value if isinstance(value, (list, tuple)) else str(value).split(",")
    items = [str(v).strip().upper() for v in items if str(v).strip()]
    if any(v == "ALL" for v in items):
        return list(known)
    for v in items:
        if v not in known:
            raise TaskError(f"{what} must be one of {', '.join(known)} (or all), got {v[:20]!r}")
    if not items:
        raise TaskError(f"no {what} given; choose from {', '.join(known)} (or all)")
    return list(dict.fromkeys(items))


def task_ids_for(family: str | list = "A", level: str | list = "L1") -> list[str]:
    """Task ids for families and levels: comma-separated text, a list, or 'all'; in family, then level order."""
    from scicraft_viz.tasks import task_ids

    fams, lvls = _names(family, FAMILIES, "family"), _names(level, LEVELS, "level")
    known = task_ids()
    return [i for f in fams for v in sorted(lvls, key=LEVELS.index) for i in known
            if i.startswith(f + "_") and i.endswith("_" + v)]


def tool_defs(env: SciCraftEnv, agent: str, ep: Episode, *, skip: tuple[str, ...] = ()) -> list[ToolDef]:
    """`agent`'s environment calls as Inspect tools (the MCP server's names, descriptions and schemas).
    Each goes through `env.call` with the usage of the turn that issued it; a refused call comes back
    to the model as a tool error."""
    from scicraft_viz.env.mcp_server import tool_list

    specs = {t.name: t for t in tool_list(env, env.tools_for(agent))}
    out = []
    for name in env.tools_for(agent):
        if name in skip:
            continue
        spec = specs[name]
        out.append(ToolDef(_caller(env, name, ep), name=name, description=spec.description,
                           parameters=ToolParams.model_validate(spec.input_schema), parallel=False))
    return out


def _caller(env: SciCraftEnv, name: str, ep: Episode):
    async def call(**kwargs: Any) -> Any:
        return ep.run(env, name, kwargs)

    return call


@dataclass
class Episode:
    """One task's episode inside a sample: its environment, trajectory, turns, and why it ended early."""

    env: SciCraftEnv
    path: str
    max_turns: int
    cut_off: str | None = None
    turns: int = 0
    idle: int = 0
    usage: dict | None = None  # the usage of the model turn whose calls are being run
    levels: list = field(default_factory=list)

    def run(self, env: SciCraftEnv, name: str, args: dict) -> Any:
        before = env.trials_used
        usage, self.usage = self.usage, None
        result = env.call(name, args, usage)
        if env.stopped:
            raise RuntimeError(env.stopped)
        if name == "activate-button" and not result.get("ok") and before >= env.budget:
            self.cut_off = (f"cut off: the {env.agent} requested a trial after all {env.budget} were used")
        if not result.get("ok"):
            raise ToolError(str(result.get("error")))
        text = json.dumps(result, separators=(",", ":"))
        if name == "render-view":
            return [ContentText(text=text), *picture_content(env.last_images)]
        return text

    @property
    def over(self) -> bool:
        return bool(self.cut_off or self.env.done or self.env.stopped)

    def keep_going(self, nudge: str, max_nudges: int):
        async def on_continue(state: AgentState) -> bool | str:
            if self.over:
                return False
            if self.turns >= self.max_turns:
                self.cut_off = f"cut off: {self.max_turns} model turns without a submit"
                return False
            if state.output.message.tool_calls:
                self.idle = 0
                return True
            self.idle += 1
            return False if self.idle > max_nudges else nudge

        return on_continue


def picture_content(pictures) -> list[ContentImage]:
    """render-view's pictures as Inspect image content (PNG data URIs)."""
    import base64

    return [ContentImage(image="data:image/png;base64," + base64.b64encode(r.png).decode("ascii")) for r in pictures]


def recorded_model(ep: Episode):
    """The model as react's generator: one turn of the task's model, whose usage goes with the first
    call it issues (or with its text, recorded as a reasoning line)."""

    @inspect_agent(name="recorded_model")
    def make():
        async def execute(state: AgentState, tools: list) -> AgentState:
            model = get_model()
            started = time.monotonic()
            output = await model.generate(state.messages, tools)
            ep.turns += 1
            state.output = output
            state.messages.append(output.message)
            usage = _usage(output, str(model), started)
            msg = output.message
            if msg.text or not msg.tool_calls:
                ep.env.reason(msg.text, usage)
                usage = None
            checkers = _checkers(tools) if msg.tool_calls else {}
            for call in msg.tool_calls or []:
                # Inspect answers calls to unknown tools, and calls whose arguments break the tool's schema,
                # without running the tool: record them here, as the environment refuses them, so that
                # validity counts every call the model made.
                if not _runs(call, checkers):
                    ep.env.call(call.function, call.arguments, usage)
                    usage = None
            ep.usage = usage
            return state

        return execute

    return make()


def _checkers(tools: list) -> dict:
    """Each tool's argument validator by name, made once per model turn (a turn may carry hundreds of calls)."""
    from inspect_ai.tool import ToolDef as _Def

    from scicraft_viz.validation import jsonschema

    out = {}
    for t in tools:
        d = t if isinstance(t, _Def) else _Def(t)
        out[d.name] = jsonschema().Draft202012Validator(d.parameters.model_dump(exclude_none=True))
    return out


def _runs(call, checkers: dict) -> bool:
    """Whether Inspect will run this call's tool: the tool exists and the arguments fit its schema."""
    check = checkers.get(call.function)
    if call.parse_error or check is None:
        return False
    return not any(True for _ in check.iter_errors(call.arguments))


def _count(*parts) -> int | None:
    """A token count from a provider or a log: the sum of the parts, or None if any is not a finite,
    non-negative number of sane size (a log may hold NaN, infinity, negatives or 10**400)."""
    total = 0
    for v in parts:
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or not 0 <= v < 1e15:
            return None
        total += int(v)
    return total


def _usage(output, model_name: str, started: float) -> dict:
    u = output.usage
    latency = output.time if output.time is not None else time.monotonic() - started
    d: dict[str, Any] = {"model": str(output.model or model_name)[:200]}
    if u is not None:
        d["input_tokens"] = _count(u.input_tokens, u.input_tokens_cache_read, u.input_tokens_cache_write)
        d["output_tokens"] = _count(u.output_tokens)
    lat = _count(latency)
    d["latency_s"] = round(float(latency), 3) if lat is not None else None
    return {k: v for k, v in d.items() if v is not None}


def trajectory_file(directory: str | Path, task_id: str, model: str, condition: str, epoch: int,
                    setting: str = "independent", observation: str = "text") -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in model)[:80]
    cond = condition.replace("+", "-")
    tag = ("" if setting == "independent" else f"__{setting}") + ("" if observation == "text" else f"__{observation}")
    return Path(directory) / f"{task_id}__{safe}__{cond}{tag}__e{epoch}__{uuid.uuid4().hex[:8]}.jsonl"


def _quiet_prompt(text: str) -> AgentPrompt:
    """Only the project's own words: none of react's generic assistant, handoff or submit prompts."""
    return AgentPrompt(instructions=text, handoff_prompt=None, assistant_prompt=None, submit_prompt=None)


def ask_scientist_tool(ep: Episode, max_nudges: int) -> ToolDef:
    """The engineer's ask-scientist call: opens the session in the environment (recorded), runs the
    scientist as a react agent through `as_tool`, and returns its answer."""
    from scicraft_viz.env.mcp_server import tool_list
    from scicraft_viz.env.scientist import scientist_briefing

    env = ep.env
    spec = next(t for t in tool_list(env, ("ask-scientist",)))

    async def ask(**kwargs: Any) -> str:
        ep.run(env, "ask-scientist", kwargs)  # raises ToolError if refused (no session opened)
        text = scientist_briefing(env.task, kwargs["question"], book=env.book, reports=list(env.reports),
                                  consolidation=env.consolidation, trials_left=env.trials_left,
                                  ticks_per_action=env.ticks_per_action, observe_ticks=env.observe_ticks,
                                  observation=env.observation)
        scientist = react(name="scientist", description="Answers a question about the game by controlled "
                                                        "experiments and records the findings in the knowledge book.",
                          prompt=_quiet_prompt(text), model=recorded_model(ep),
                          tools=tool_defs(env, "scientist", ep, skip=("end-experiment",)),
                          submit=AgentSubmit(name="end-experiment", tool=tool_defs(env, "scientist", ep)[-1],
                                             answer_only=True, keep_in_messages=True),
                          on_continue=ep.keep_going(SCIENTIST_NUDGE, max_nudges))
        answer = await as_tool(scientist)(input=kwargs["question"])
        if env.agent == "scientist" and not ep.over:
            # the scientist stopped without ending its session: close it, so the engineer has the turn again
            ep.run(env, "end-experiment", {"answer": "(the scientist stopped without an answer)"})
        if ep.over:
            raise ToolError(ep.cut_off or env.stopped or "the episode is over")
        return str(answer)

    return ToolDef(ask, name="ask-scientist", description=spec.description,
                   parameters=ToolParams.model_validate(spec.input_schema), parallel=False)


def engineer(ep: Episode, text: str, max_nudges: int):
    """The engineer: a react agent over the environment calls, ending at submit."""
    env = ep.env
    tools = tool_defs(env, "engineer", ep, skip=("submit", "ask-scientist"))
    if "ask-scientist" in env.tools_for("engineer"):
        tools.append(ask_scientist_tool(ep, max_nudges))
    submit = next(t for t in tool_defs(env, "engineer", ep) if t.name == "submit")
    return react(name="engineer", prompt=_quiet_prompt(text), model=recorded_model(ep), tools=tools,
                 submit=AgentSubmit(name="submit", tool=submit, answer_only=True, keep_in_messages=True),
                 on_continue=ep.keep_going(NUDGE, max_nudges))


@solver
def scicraft_agent(trajectories: str = DEFAULT_DIR, max_turns: int = 200, max_nudges: int = 2):
    """Plays a sample's tasks in order (one, or a family's levels in the curriculum setting): for each,
    a recorded environment and the engineer (with its scientist) until submit, a press beyond the
    budget, `max_turns` model turns, or the model stops calling tools `max_nudges` times in a row."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        md = state.metadata
        model_name = str(get_model())
        episodes: list[Episode] = []
        _EPISODES[state.uuid] = episodes
        book = ""
        if trajectories == DEFAULT_DIR:  # the default is created on first use; a folder given must exist
            from scicraft_viz.paths import default_runs_dir

            directory = default_runs_dir("inspect")
        else:
            directory = Path(trajectories)
        ids = md["task_ids"]
        # the ruleset, where a reference agent may read it (offline.RULES_KEY); agents under test see no store
        state.store.set(offline.RULES_KEY, md.get("rules"))
        for position, tid in enumerate(ids, 1):
            t = load_by_id(tid)
            if md.get("rules") is not None:  # -T rules=...: the run's ruleset, in the header, never in the briefing
                t = t.with_rules(md["rules"])
            path = trajectory_file(directory, t.id, model_name, md["condition"], state.epoch, md["setting"],
                                   md.get("observation", "text"))
            curriculum = ({"family": t.family, "position": position, "levels": list(ids), "epoch": state.epoch}
                          if md["setting"] == "curriculum" else None)
            env = SciCraftEnv.recording(
                t, path, actor_kind="model", actor_name=model_name, condition=md["condition"],
                setting=md["setting"], consolidation=md["consolidation"], book=book, budget=md.get("budget"),
                curriculum=curriculum, observation=md.get("observation", "text"),
                session={"interface": "inspect", "sample_id": str(state.sample_id), "epoch": state.epoch})
            ep = Episode(env, str(path), max_turns)
            episodes.append(ep)
            text = briefing(t, env.condition, budget=env.budget, ticks_per_action=env.ticks_per_action,
                            observe_ticks=env.observe_ticks, setting=env.setting, consolidation=env.consolidation,
                            book=book)
            agent_state = AgentState(messages=[ChatMessageUser(content=START)])
            try:
                agent_state = await engineer(ep, text, max_nudges)(agent_state)
            except LimitExceededError as e:  # Inspect ends the sample and still scores it
                ep.cut_off = f"cut off: {e.message or e.type + ' limit reached'}"
                env.close()
                raise
            except BaseException:
                # The sample failed (the provider's API, a trajectory that cannot be written): it is no result, and
                # Inspect reports the error. Its partial record is kept under another suffix, so a report counts
                # only finished runs.
                _EPISODES.pop(state.uuid, None)
                env.close()
                Path(path).replace(Path(path).with_suffix(".jsonl.incomplete"))
                raise
            finally:
                env.close()
            if env.stopped:
                raise RuntimeError(env.stopped)
            state.messages.extend(agent_state.messages)
            state.output = agent_state.output
            book = env.book  # the book, and nothing else, goes on to the next level
        return state

    return solve


def partial_credit(t, measured: dict) -> float:
    """Lamps meeting their windows / N (see `scicraft_viz.experiments.report.lamps_meeting`)."""
    from scicraft_viz.experiments.report import lamps_meeting

    return lamps_meeting(t, measured) / t.n


def _episode_score(ep: Episode) -> tuple[bool, dict, list[str]]:
    env = ep.env
    meta: dict[str, Any] = {"task_id": env.task.id, "condition": env.condition, "setting": env.setting,
                            "observation": env.observation,
                            "consolidation": env.consolidation, "trajectory": ep.path,
                            "trials_used": env.trials_used, "budget": env.budget, "turns": ep.turns,
                            "submitted": env.submitted is not None, "cut_off": ep.cut_off,
                            "scientist_sessions": env.sessions, "reports": len(env.reports)}
    passed = bool(env.submitted and env.submitted["passed"])
    parts = []
    if env.submitted is None:
        parts.append(ep.cut_off or env.stopped or "not submitted: the model stopped before calling submit")
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
    meta["passed"] = passed
    return passed, meta, parts


@scorer(metrics=[mean(), stderr()])
def scicraft_scorer():
    """The evaluator's verdict at submit: 1 or 0 for one task; in the curriculum setting, the share of
    the family's levels passed, with each level's verdict in the metadata. Partial credit, trials,
    the trajectory file and, for a failed build, the diagnosis of the world the agent left."""

    async def score(state: TaskState, target: Target) -> Score:
        episodes = _EPISODES.pop(state.uuid, None)
        if not episodes:
            return Score(value=0.0, explanation="the episode never started")
        results = [_episode_score(ep) for ep in episodes]
        if len(results) == 1:
            passed, meta, parts = results[0]
            return Score(value=1.0 if passed else 0.0, answer="passed" if passed else "failed",
                         explanation="\n\n".join(parts), metadata=meta)
        n = sum(p for p, _, _ in results)
        expl = "\n\n".join(f"== {m['task_id']}: {'passed' if p else 'failed'}\n" + "\n\n".join(parts)
                            for p, m, parts in results)
        return Score(value=n / len(results), answer=f"{n}/{len(results)} levels passed", explanation=expl,
                     metadata={"levels": [m for _, m, _ in results], "setting": "curriculum"})

    return score


def samples(family, level, condition: str, budget: int | None = None, setting: str = "independent",
            consolidation: str = "cpce", observation: str = "text", rules: str | None = None) -> list[Sample]:
    """One sample per task (independent) or per family, its levels in order (curriculum)."""
    ids = task_ids_for(family, level)
    if not ids:
        raise TaskError(f"no task matches family {family!r} and level {level!r}")
    groups: list[tuple[str, list[str]]]
    if setting == "curriculum":
        fams = list(dict.fromkeys(load_by_id(i).family for i in ids))
        groups = [(f"{f}_curriculum", [i for i in ids if load_by_id(i).family == f]) for f in fams]
    else:
        groups = [(i, [i]) for i in ids]
    sample_rules: dict[str, str | None] = {sid: rules for sid, _ in groups}
    if rules is not None:
        groups, sample_rules = _offered(groups, rules)
    out = []
    for sid, group in groups:
        first = load_by_id(group[0])
        b = first.trial_budget if budget is None else budget
        text = briefing(first, condition, budget=b, setting=setting, consolidation=consolidation)
        out.append(Sample(id=sid, input=[ChatMessageSystem(content=text), ChatMessageUser(content=START)],
                          target="passed", metadata={"task_ids": group, "task_id": group[0], "condition": condition,
                                                     "setting": setting, "consolidation": consolidation,
                                                     "budget": b, "observation": observation,
                                                     "rules": sample_rules[sid]}))
    return out


def _offered(groups: list[tuple[str, list[str]]], rules: str) -> tuple[list[tuple[str, list[str]]], dict]:
    """Only task and ruleset pairs the generator can solve are offered (scicraft/oracle passes every sample).
    Under random:SEED a sample whose tasks are not all solvable under the drawn ruleset runs under the first of
    random:SEED+1, SEED+2, ... that they are (the header records the one drawn); under a listed or given
    ruleset the tasks without a reference design are left out, and none left is an error."""
    import re

    from scicraft_viz.tasks.solutions import reference_problem

    def problems(ids: list[str], spec: str) -> dict[str, str]:
        out = {}
        for i in ids:
            why = reference_problem(load_by_id(i).with_rules(spec))
            if why:
                out[i] = why
        return out

    kept, chosen = [], {}
    m = re.fullmatch(r"random:(\d+)", rules.strip())
    for sid, ids in groups:
        if m:
            seed = int(m.group(1))
            spec = next((f"random:{seed + k}" for k in range(1000) if not problems(ids, f"random:{seed + k}")), None)
            if spec is None:
                raise TaskError(f"-T rules={rules}: no ruleset drawn from seeds {seed} to {seed + 999} leaves "
                                f"every task of {sid} solvable")
            kept.append((sid, ids))
            chosen[sid] = spec
        else:
            bad = problems(ids, rules)
            left = [i for i in ids if i not in bad]
            if left:
                kept.append((sid, left))
                chosen[sid] = rules
    if not kept:
        raise TaskError(f"-T rules={rules}: no selected task has a reference design under it ("
                        + "; ".join(f"{i}: {w}" for i, w in problems(groups[0][1], rules).items()) + ")")
    return kept, chosen


@task
def scicraft(family: str | list = "A", level: str | list = "L1", condition: str = "baseline",
             setting: str = "independent", consolidation: str = "cpce", budget: int | None = None,
             trajectories: str = DEFAULT_DIR, max_turns: int = 200, observation: str = "text",
             rules: str | None = None) -> Task:
    """SciCrafter tasks of `family` and `level` (comma-separated, lists, or 'all') under `condition`
    (baseline, hint, scientist, hint+scientist) and `setting` (independent, curriculum), the knowledge
    book in `consolidation` format (summary, fee, cpce), `budget` verification trials (default: the
    task's, 50); the agent observes the world through `observation` (text, image or both); `rules` (a listed
    variant or random:SEED, engine/rules.py) replaces each task's ruleset and is never told to the agent; only
    the pairs the reference builders can solve are offered (see `_offered`)."""
    from scicraft_viz.engine.rules import ruleset_from
    from scicraft_viz.env.environment import check_observation

    if rules is not None:
        rules = str(rules)
        ruleset_from(rules, "-T rules")  # a bad name fails here, before any sample runs

    observation = check_observation(observation)
    condition = check_condition(condition)
    setting = check_setting(setting)
    consolidation = check_consolidation(consolidation)
    if budget is not None:
        budget = int(budget)
    name = f"scicraft-{condition}-{setting}" + ("" if observation == "text" else f"-{observation}")
    return Task(dataset=MemoryDataset(samples(family, level, condition, budget, setting, consolidation, observation,
                                              rules), name=name),
                solver=scicraft_agent(trajectories=str(trajectories), max_turns=int(max_turns)),
                scorer=scicraft_scorer(),
                metadata={"condition": condition, "setting": setting, "consolidation": consolidation,
                          "observation": observation, "rules": rules, "conditions": list(CONDITIONS)})


# ---------------------------------------------------------------------------------------- failures are loud
_FAILED: list[str] = []


@hooks(name="scicraft_exit_status", description="A SciCrafter run that errors makes `inspect eval` exit with 1")
class ExitStatus(Hooks):
    """`inspect eval` exits 0 whatever became of the samples. A SciCrafter run whose trajectory could not
    be written, or whose sample errored, is no result, so the command line says so and exits with 1
    (only there: a Python caller of `inspect_ai.eval` reads the log's status instead)."""

    async def on_run_end(self, data: RunEnd) -> None:
        import atexit
        import os
        import sys

        for log in data.logs or []:
            if log.eval.task.split("/")[-1] == "scicraft" and log.status != "success":
                why = log.error.message.splitlines()[0][:300] if log.error else log.status
                _FAILED.append(f"{log.eval.task} ({log.eval.model}): {why}")
        if data.exception is not None:
            _FAILED.append(str(data.exception).splitlines()[0][:300] if str(data.exception) else "the run failed")
        if not _FAILED or os.path.basename(sys.argv[0]) != "inspect":
            return
        print("scicraft: the run did not complete: " + "; ".join(_FAILED), file=sys.stderr, flush=True)

        def fail() -> None:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(1)

        atexit.register(fail)


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

    from scicraft_viz.env.environment import MAX_BUDGET, check_observation, images_dir
    from scicraft_viz.safeio import atomic_path, check_regular

    check_regular(log_path, MAX_LOG_BYTES, "Inspect log")
    try:
        log = read_eval_log(str(log_path))
    except Exception as e:  # any unreadable log is one clear message
        raise ValueError(f"cannot read the Inspect log {log_path}: {str(e).splitlines()[0][:200]}") from None
    model = str(log.eval.model)[:200]
    args = log.eval.task_args if isinstance(log.eval.task_args, dict) else {}
    plans = []
    # every sample is checked before anything is written: a bad one is refused with where it is
    for s in log.samples or []:
        md = s.metadata if isinstance(s.metadata, dict) else {}
        where = f"{log_path}: sample {str(s.id)[:60]!r} (epoch {s.epoch})"
        ids = md.get("task_ids")
        if isinstance(ids, list) and len(ids) > 1:
            continue  # a curriculum sample: the runner wrote one trajectory per level already
        tid = md.get("task_id") or str(s.id)
        try:
            t = load_by_id(str(tid))
        except TaskError:
            continue  # not a SciCrafter sample
        try:
            cond = check_condition(md.get("condition", args.get("condition", "baseline")))
            setting = check_setting(md.get("setting", args.get("setting", "independent")))
            consolidation = check_consolidation(md.get("consolidation", args.get("consolidation", "cpce")))
            observation = check_observation(md.get("observation", args.get("observation", "text")))
            rules = md.get("rules", args.get("rules"))
            if rules is not None:
                t = t.with_rules(rules)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        budget = md.get("budget")
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)
                                   or not 1 <= budget <= MAX_BUDGET):
            raise ValueError(f"{where}: metadata.budget must be an integer 1..{MAX_BUDGET}, got "
                             f"{repr(budget)[:40]}")
        plans.append((s, t, cond, setting, consolidation, budget, observation))
    written = []
    if plans:
        from scicraft_viz.env.trajectory import prepare_directory

        prepare_directory(Path(out_dir) / "x.jsonl")
    for s, t, cond, setting, consolidation, budget, observation in plans:
        path = Path(out_dir) / f"{t.id}__imported__e{s.epoch}__{uuid.uuid4().hex[:8]}.jsonl"
        # written beside the target and renamed when complete: a failed import leaves no partial file
        with atomic_path(path, overwrite=overwrite) as tmp:
            env = SciCraftEnv.recording(t, tmp, actor_kind="model", actor_name=model, condition=cond, budget=budget,
                                        setting=setting, consolidation=consolidation, overwrite=True,
                                        observation=observation,
                                        session={"interface": "inspect-import", "log": Path(log_path).name[:200],
                                                 "sample_id": str(s.id)[:200], "epoch": s.epoch})
            with env:
                for kind, payload, usage in _calls_of(s):
                    if kind == "reason":
                        env.reason(payload or "", usage)
                    else:
                        fn, call_args = payload
                        env.call(_tool_name(fn), call_args, usage)
            if env.stopped:
                raise OSError(env.stopped)
            pictures = images_dir(tmp)
        if pictures.is_dir():  # the pictures of render-view calls follow the file to its name
            pictures.replace(images_dir(path))
        written.append(path)
    return written


def _tool_name(fn: str) -> str:
    name = fn.replace("_", "-")
    for tool in ALL_TOOLS:
        if name == tool or name.endswith("-" + tool):
            return tool
    return fn
