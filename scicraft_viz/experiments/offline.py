"""Offline agents as Inspect model providers: the whole pipeline runs with no network and no key.

    inspect eval scicraft_viz/scicraft --model scicraft/oracle -T family=all -T level=L1,L2
    inspect eval scicraft_viz/scicraft --model scicraft/random -M seed=7 -M turns=40
    inspect eval scicraft_viz/scicraft --model scicraft/replay -M trajectory=runs/human/C_..._P07_....jsonl \\
        -T family=C -T level=L1

- `scicraft/oracle` plays the task's reference solution through the tools and submits, so it scores 1
  on every canonical task under every condition and setting. Under a rule variant (`-T rules=...`) it
  plays the generator's solution for that ruleset, which it reads from the sample (a reference agent
  may; an agent under test is never told the ruleset). Where the protocol has them it uses
  every part: it reads the book, asks the scientist one question; the scientist builds a small
  experiment in its scratch world, presses it three times, archives a report with the numbers it
  measured, adds an entry to the book in the run's format and answers; where the engineer keeps the
  book (a curriculum without scientist) it adds an entry after its trial. Where render-view exists
  (`-T observation=image|both`) it looks at its build before the trial and at the build with the
  lamp timeline after it. It is the ceiling and the check that the harness, the budget and the book work.
- `scicraft/random` makes random calls (`-M seed=N`, `-M turns=N` before it submits), never pressing
  beyond the budget (and, where render-view exists, now and then a picture from a random preset): a floor.
- `scicraft/replay` plays the calls of a recorded trajectory (`-M trajectory=PATH`), the engineer's in
  order and, in each scientist session, the scientist's, then submits if the recording did not: a
  person's or another harness's run re-scored here.

The agents are stateless: each turn is decided from the conversation so far (the briefing, the calls
already made and their results), so they behave the same under any concurrency. They report their
own token usage (characters / 4), so nothing reaches for a tokenizer download.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo

AGENTS = ("oracle", "random", "replay")
CHUNK = 128  # set-block calls per turn when the oracle places its design
QUESTION = ("When a stone button is pressed, after how many game ticks does a redstone lamp at the end of a short "
            "line of dust light, and how many game ticks after the press does it go dark again?")


# ---------------------------------------------------------------------------------------- reading the conversation
def _text(m: ChatMessage) -> str:
    return m.text if isinstance(m.content, list) else str(m.content or "")


def _system(messages: list[ChatMessage]) -> str:
    return next((_text(m) for m in messages if isinstance(m, ChatMessageSystem)), "")


def _calls(messages: list[ChatMessage]) -> list[ToolCall]:
    return [c for m in messages if isinstance(m, ChatMessageAssistant) for c in (m.tool_calls or [])]


def _results(messages: list[ChatMessage], function: str) -> list[dict]:
    """The JSON results of the successful calls of `function`, oldest first."""
    out = []
    for m in messages:
        if isinstance(m, ChatMessageTool) and m.function == function and m.error is None:
            try:
                v = json.loads(_text(m))
            except ValueError:
                continue
            if isinstance(v, dict):
                out.append(v)
    return out


def _region(system: str) -> tuple[tuple[int, int, int], int, int] | None:
    """(anchor, radius, floor y) from a briefing's 'x a..b, y c..d, z e..f' and 'floor ... y=N'."""
    m = re.search(r"x (-?\d+)\.\.(-?\d+), y (-?\d+)\.\.(-?\d+), z (-?\d+)\.\.(-?\d+)", system)
    f = re.search(r"floor (?:fills |at )?y=(-?\d+)", system)
    if not m or not f:
        return None
    x0, x1, y0, y1, z0, z1 = (int(v) for v in m.groups())
    return ((x0 + x1) // 2, (y0 + y1) // 2, (z0 + z1) // 2), (x1 - x0) // 2, int(f.group(1))


def _consolidation(messages: list[ChatMessage], system: str) -> str:
    for r in _results(messages, "read-knowledge-book"):
        fmt = str(r.get("format", ""))
        return "cpce" if fmt.startswith("Claim") else "fee" if fmt.startswith("Finding") else "summary"
    if "Claim-Proof-Constraints-Example" in system:
        return "cpce"
    return "fee" if "Finding-Explanation-Example" in system else "summary"


def _book(messages: list[ChatMessage]) -> str:
    """The book as last read, with whatever this conversation has written since."""
    book = ""
    for m in messages:
        if isinstance(m, ChatMessageTool) and m.function == "read-knowledge-book" and m.error is None:
            try:
                book = str(json.loads(_text(m)).get("book", ""))
            except ValueError:
                pass
        if isinstance(m, ChatMessageAssistant):
            for c in m.tool_calls or []:
                if c.function == "update-knowledge-book" and isinstance(c.arguments.get("book"), str):
                    book = c.arguments["book"]
    return book


def entry(consolidation: str, title: str, claim: str, proof: str, constraints: str, example: str) -> str:
    """One book entry in the run's format."""
    if consolidation == "cpce":
        return (f"## {title}\n### Claim\n{claim}\n### Proof\n{proof}\n### Constraints\n{constraints}\n"
                f"### Example\n{example}\n")
    if consolidation == "fee":
        return f"## {title}\n### Finding\n{claim}\n### Explanation\n{proof} {constraints}\n### Example\n{example}\n"
    return f"{title}: {claim} {proof} {constraints} {example}\n"


def _with(book: str, new: str) -> str:
    """The book with `new` added at the end, or in place of an entry with the same first line."""
    title = new.splitlines()[0]
    if title in book.splitlines():
        return book
    return (book.rstrip() + "\n\n" + new) if book.strip() else new


def _lamp_ticks(trial: dict) -> tuple[list[int], list[int]]:
    """Game ticks after the press at which lamps lit and went dark, from a trial's raw events."""
    on, off = [], []
    press = int(trial.get("press_tick", 0))
    for e in trial.get("events", []):
        if "redstone_lamp" in str(e.get("block")) and e.get("kind") == "state":
            (on if e.get("new") == 1 else off).append(int(e["tick"]) - press)
    return on, off


# ---------------------------------------------------------------------------------------- the agents' turns
Turn = tuple[str, list[tuple[str, dict]]]  # text, calls


RULES_KEY = "scicraft:rules"  # the sample's store entry the runner fills with -T rules=...


def _run_rules() -> str | None:
    """The ruleset of the sample being run (-T rules=...), which the runner keeps in the sample's store;
    None outside a sample or without -T rules."""
    from inspect_ai.util import store

    try:
        return store().get(RULES_KEY)
    except (LookupError, RuntimeError):  # no sample is running (the model called directly)
        return None


def _oracle_engineer(messages: list[ChatMessage], tools: set[str]) -> Turn:
    from scicraft_viz.engine.blocks import is_attached
    from scicraft_viz.tasks import load_by_id, solutions

    system = _system(messages)
    m = re.search(r"SciCrafter task (\S+):", system)
    if not m:
        return "The briefing names no SciCrafter task; submitting.", [("submit", {})]
    task = load_by_id(m.group(1))
    rules = _run_rules()
    if rules is not None:  # a reference agent may read the run's ruleset (agents under test are never told it)
        task = task.with_rules(rules)
    done = [c.function for c in _calls(messages)]
    if "read-knowledge-book" in tools and "read-knowledge-book" not in done:
        return "First, what the knowledge book holds.", [("read-knowledge-book", {})]
    if "ask-scientist" in tools and "ask-scientist" not in done:
        return "A question for the scientist before building.", [("ask-scientist", {"question": QUESTION})]
    design = sorted(solutions.solution_blocks(task).items(),
                    key=lambda it: (is_attached(it[1]), it[0][1], it[0][0], it[0][2]))
    placed = done.count("set-block")
    if placed < len(design):
        part = design[placed: placed + CHUNK]
        return (f"Placing blocks {placed + 1}-{placed + len(part)} of {len(design)} of the design.",
                [("set-block", {"pos": list(p), "block": s}) for p, s in part])
    if "render-view" in tools and "render-view" not in done:
        return "The build is placed; a look at it before the trial.", [("render-view", {"camera": "iso"})]
    if "activate-button" not in done:
        return "The build is complete; one verification trial.", [("activate-button", {})]
    if "render-view" in tools and done.count("render-view") < 2:
        return ("How the lamps behaved, from above with the trial's timeline.",
                [("render-view", {"camera": "top", "timeline": True})])
    if "update-knowledge-book" in tools and "update-knowledge-book" not in done:
        trials = _results(messages, "activate-button")
        on, _ = _lamp_ticks(trials[-1]) if trials else ([], [])
        fmt = _consolidation(messages, system)
        new = entry(fmt, f"{task.id}: the design that was built",
                    f"This level's design lit {len(set(on))} lamp event(s), the first {min(on) if on else 'never'} "
                    "game ticks after the press.",
                    f"Observed in trial {len(trials)} of {task.id}: the raw events of the press.",
                    "Measured on this level's layout only.",
                    f"The build of {task.id} as placed before this entry.")
        return "Recording the level in the book.", [("update-knowledge-book", {"book": _with(_book(messages), new)})]
    return "Submitting the build.", [("submit", {})]


def _oracle_scientist(messages: list[ChatMessage], tools: set[str]) -> Turn:
    system = _system(messages)
    region = _region(system)
    done = [c.function for c in _calls(messages)]
    if "read-knowledge-book" in tools and "read-knowledge-book" not in done:
        return "What is known already.", [("read-knowledge-book", {})]
    if region is None:
        return "The briefing gives no region to experiment in.", [("end-experiment", {"answer": "no experiment"})]
    (ax, _, az), _, fy = region
    y = fy + 1
    rig = [((ax, y, az), "stone_button[face=floor]"), ((ax + 1, y, az), "redstone_wire"),
           ((ax + 2, y, az), "redstone_wire"), ((ax + 3, y, az), "redstone_lamp")]
    if done.count("set-block") < len(rig):
        return ("Apparatus: a button, two dust and a lamp in a row.",
                [("set-block", {"pos": list(p), "block": s}) for p, s in rig])
    trials = _results(messages, "activate-button")
    presses = done.count("activate-button")
    if presses < 3 and presses == len(trials):
        return f"Repetition {presses + 1} of 3.", [("activate-button", {})]
    if presses < 3:  # a press was refused: the budget is spent, or the button is still down
        return "A press was refused; ending the session.", [("end-experiment", {"answer": "the experiment could not "
                                                                                          "be repeated three times"})]
    runs = [_lamp_ticks(t) for t in trials[-3:]]
    ons = [min(on) if on else None for on, _ in runs]
    offs = [max(off) if off else None for _, off in runs]
    same = len(set(ons)) == 1 and len(set(offs)) == 1
    record = "\n".join(f"- repetition {i}: lamp on at +{a} gt, off at +{b} gt" for i, (a, b) in
                       enumerate(zip(ons, offs), 1))
    if "archive-experiment-report" not in done:
        report = (
            f"## 1. Research question\n{QUESTION}\n## 2. Hypothesis\nThe lamp lights in the tick of the press and "
            "goes dark some ticks after the button releases.\n## 3. Experiment design\nVaried: nothing (three "
            "repetitions). Measured: the game ticks of the lamp's state changes after the press. Fixed: the layout.\n"
            f"## 4. Experiment steps\nButton at {[ax, y, az]}, dust at {[ax + 1, y, az]} and {[ax + 2, y, az]}, lamp "
            f"at {[ax + 3, y, az]}; press three times.\n## 5. Experiment record\n{record}\n## 6. Results\n"
            f"Lamp on at +{ons[0]} gt, off at +{offs[0]} gt; the repetitions {'agree' if same else 'disagree'}.\n"
            "## 7. Analysis and summary\nThe button's pulse and the lamp's delays fix these numbers.\n"
            "## 8. Next steps\nVary the length of the dust line.\n")
        return "Archiving the report.", [("archive-experiment-report", {"report": report})]
    if "update-knowledge-book" in tools and "update-knowledge-book" not in done:
        fmt = _consolidation(messages, system)
        new = entry(fmt, "Button pulse seen through a lamp",
                    f"A lamp fed by a pressed stone button lights +{ons[0]} gt after the press and goes dark "
                    f"+{offs[0]} gt after it.", f"Three repetitions gave:\n{record}",
                    "Measured with two dust between button and lamp; longer lines are untested.",
                    "A lamp that must stay lit for a while can be driven straight from the button.")
        return "Adding the finding to the book.", [("update-knowledge-book", {"book": _with(_book(messages), new)})]
    return "Done.", [("end-experiment", {"answer": f"The lamp lit at +{ons[0]} gt and went dark at +{offs[0]} gt "
                                                   f"after the press (three repetitions, "
                                                   f"{'all equal' if same else 'not all equal'})."})]


def _random_turn(messages: list[ChatMessage], tools: set[str], seed: int, turns: int) -> Turn:
    system = _system(messages)
    own = [c.function for c in _calls(messages)]
    key = f"{seed}|{system[:2000]}|{len(own)}|{_text(messages[-1])[:200] if messages else ''}"
    rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
    scientist = "end-experiment" in tools
    limit = 4 if scientist else turns
    if len(own) >= limit:
        return ("Done.", [("end-experiment", {"answer": "random exploration"})]) if scientist else \
            ("Submitting.", [("submit", {})])
    region = _region(system)
    if region is None:
        return "No region in the briefing.", [("scan-redstone-area", {})]
    (ax, _, az), r, fy = region
    budget = re.search(r"Verification trials: (\d+)", system)
    left = (int(budget.group(1)) if budget else 0) - own.count("activate-button")
    if not scientist and "ask-scientist" in tools and "ask-scientist" not in own:
        return "Asking.", [("ask-scientist", {"question": QUESTION})]
    pal = re.search(r"Palette: ([a-z_, ]+)\.", system)
    names = [n.strip() for n in pal.group(1).split(",")] if pal else ["stone", "redstone_wire"]
    roll = rng.random()
    if roll < 0.1 and left > 0 and not scientist:
        return "A trial.", [("activate-button", {})]
    pos = [ax + rng.randint(-min(r, 4), min(r, 4)), fy + rng.randint(1, 3), az + rng.randint(-min(r, 4), min(r, 4))]
    if roll < 0.2:
        if "render-view" in tools and roll < 0.15:
            return "A look.", [("render-view", {"camera": rng.choice(["iso", "top", "north", "east"])})]
        return "A look.", [("get-block-state", {"pos": pos})]
    name = rng.choice(names)
    if name == "redstone_repeater":
        name += f"[facing={rng.choice(['north', 'south', 'east', 'west'])},delay={rng.randint(1, 4)}]"
    elif name == "stone_button":
        name += "[face=floor]"
    return "A block.", [("set-block", {"pos": pos, "block": name})]


def _replay_turn(messages: list[ChatMessage], tools: set[str], traj) -> Turn:
    own = _calls(messages)
    if "end-experiment" in tools:  # a scientist session: the recorded one that answered the same question
        question = next((_text(m) for m in messages if isinstance(m, ChatMessageUser)), "")
        steps, start = traj.steps, None
        for i, s in enumerate(steps):
            if s.tool == "ask-scientist" and s.ok and s.args.get("question") == question:
                start = i
                break
        session = []
        if start is not None:
            for s in steps[start + 1:]:
                if s.agent != "scientist":
                    break
                session.append((s.tool, s.args))
        if len(own) < len(session):
            return "Replaying the scientist's call.", [session[len(own)]]
        return "End of the recorded session.", [("end-experiment", {"answer": "(replayed)"})]
    calls = [(s.tool, s.args) for s in traj.steps if s.agent == "engineer" and s.tool in tools]
    if traj.problems and not calls:
        return (f"The trajectory cannot be replayed: {traj.problems[0]}", [("submit", {})])
    if len(own) < len(calls):
        return f"Replaying call {len(own) + 1} of {len(calls)}.", [calls[len(own)]]
    return "The recording ends here; submitting.", [("submit", {})]


class OfflineAgent(ModelAPI):
    """An offline agent (`scicraft/oracle`, `scicraft/random`, `scicraft/replay`) as an Inspect model."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        if model_name not in AGENTS:
            raise ValueError(f"unknown offline agent scicraft/{model_name}; choose one of "
                             f"{', '.join('scicraft/' + a for a in AGENTS)}")
        self.seed = int(model_args.get("seed", 0))
        self.turns = max(1, int(model_args.get("turns", 30)))
        self.trajectory = None  # read once: every turn of every sample plays from it
        if model_name == "replay":
            from scicraft_viz.env.trajectory import read

            path = model_args.get("trajectory")
            if not path:
                raise ValueError("scicraft/replay needs the trajectory to play: -M trajectory=PATH")
            self.trajectory = read(path)
            if self.trajectory.header is None:
                problems = self.trajectory.problems
                raise ValueError(f"scicraft/replay: {problems[0] if problems else 'no header'}")

    def connection_key(self) -> str:
        return f"scicraft/{self.model_name}"

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        names = {t.name for t in tools}
        if self.model_name == "oracle":
            text, calls = (_oracle_scientist if "end-experiment" in names else _oracle_engineer)(input, names)
        elif self.model_name == "random":
            text, calls = _random_turn(input, names, self.seed, self.turns)
        else:
            text, calls = _replay_turn(input, names, self.trajectory)
        calls = [(fn, args) for fn, args in calls if fn in names]
        n = len(_calls(input))
        msg = ChatMessageAssistant(content=text, model=f"scicraft/{self.model_name}", source="generate",
                                   tool_calls=[ToolCall(id=f"call_{n + i}", function=fn, arguments=args)
                                               for i, (fn, args) in enumerate(calls)] or None)
        used_in = sum(len(_text(m)) for m in input) // 4
        used_out = (len(text) + sum(len(json.dumps(a)) for _, a in calls)) // 4
        return ModelOutput(model=f"scicraft/{self.model_name}",
                           choices=[ChatCompletionChoice(message=msg, stop_reason="tool_calls" if calls else "stop")],
                           usage=ModelUsage(input_tokens=used_in, output_tokens=used_out,
                                            total_tokens=used_in + used_out))


@modelapi(name="scicraft")
def scicraft_offline() -> type[ModelAPI]:
    return OfflineAgent
