"""SciCrafter tasks: loading with schema validation, the canonical 25 tasks and a generator.

A task file (YAML) follows the paper's schema (Appendix C.7): identity, world, allowed_blocks,
inputs, outputs, contract, requirements, evaluation_metrics, test_cases, metadata, plus
`tick_unit` (redstone or game), `world.initial` (the floor) and `harness` (settle/record ticks,
verification-trial budget). Structure is checked with JSON Schema (`schemas/task.schema.json`);
the few cross-field rules a schema cannot express (lamp count = num_outputs, len(delays) = N-1,
...) are checked after it and reported in the same `file: field: problem` form.

Task files are untrusted input: limited in size, read by libyaml without anchors, aliases or tags,
every number finite and in range (docs/limits.md). `load(id_or_path)` is for a program's own caller;
an id from a page address, a trajectory or an MCP client goes through `load_by_id`, which never
reads a path.

    >>> from scicraft_viz import tasks
    >>> tasks.task_ids()[:2]
    ['A_simultaneous_lights_L1', 'A_simultaneous_lights_L2']
    >>> t = tasks.load("C_sequential_activation_L1")
    >>> t.contract["delays_ticks"]
    [1, 2, 1]
    >>> custom = tasks.generate_task("A", 12)      # a task dict for any family and N
    >>> tasks.from_dict(custom).n
    12
"""

from __future__ import annotations

import copy
import functools
import json
import math
import os
import reprlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import yaml

from scicraft_viz.validation import jsonschema as _jsonschema

if TYPE_CHECKING:
    import jsonschema

Pos = tuple[int, int, int]

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "task.schema.json"
FAMILIES = ("A", "B", "C", "D", "E")
LEVELS = ("L1", "L2", "L3", "L4", "L5")
LEVEL_N = {"L1": 4, "L2": 8, "L3": 16, "L4": 32, "L5": 64}
UNIT_GAME_TICKS = {"redstone": 2, "game": 1}
UNIT_ABBREV = {"redstone": "rt", "game": "gt"}

# Limits on task input (see docs/limits.md). The canonical task files are under 7 KB and nest 6 levels deep.
MAX_TASK_FILE_BYTES = 256 * 1024  # larger files are refused before they are read
MAX_TASK_ID_LENGTH = 120  # also the schema's maxLength for task_id
MAX_YAML_DEPTH = 32  # libyaml's composer recurses in C: deep nesting must be refused before it runs
MAX_NUMBER_CHARS = 100  # a number written longer than this is refused before it is converted (no task needs 20)
MAX_EXCERPT = 200  # characters of a task's content quoted in one message
MAX_PROBLEMS = 50  # problems listed for one document; the rest are counted
MAX_RECORD_GAME_TICKS = 100_000  # the schema's maximum for harness.record_game_ticks

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML was built with it

PALETTE = [
    "minecraft:stone_button",
    "minecraft:redstone_lamp",
    "minecraft:redstone_wire",
    "minecraft:redstone_torch",
    "minecraft:redstone_repeater",
    "minecraft:stone",
    "minecraft:glass",
    "minecraft:air",
]

# family -> (id slug, contract type, display name)
FAMILY_INFO = {
    "A": ("simultaneous_lights", "simultaneity", "Simultaneous Lights"),
    "B": ("branch_reach", "branch_reach", "Branch Reach (T-junction)"),
    "C": ("sequential_activation", "sequential", "Sequential Activation"),
    "D": ("equal_delay_distribution", "equal_delay", "Equal-Delay Distribution"),
    "E": ("pulse_shaping", "pulse", "Pulse Shaping"),
}
CONTRACT_FAMILY = {v[1]: k for k, v in FAMILY_INFO.items()}

# Table 3 of the paper: the level parameters of each family.
B_REACH = {"L1": 8, "L2": 12, "L3": 15, "L4": 18, "L5": 20}
E_TAU = {"L1": 4, "L2": 6, "L3": 8, "L4": 10, "L5": 12}
D_DISTANCES = [4, 8, 12, 16]
DIFFICULTY = {"L1": "beginner", "L2": "easy", "L3": "intermediate", "L4": "advanced", "L5": "expert"}

# Knowledge gap and one-phrase hint per level (Table 4 for family A; analogous ones for B-E).
KNOWLEDGE = {
    "A": {
        "L1": ("Button powering primitives: a button must strongly power a supporting block; dust only "
               "conducts via cardinal (N/S/E/W) adjacency; lamps require adjacent powered dust.",
               "Strong-Power-Support-Block"),
        "L2": ("Nested fanout topology (hub -> branch hubs) to reach off-axis/diagonal lamps without diagonal "
               "dust connectivity; preserve symmetry to avoid accidental skew.", "Nested-Hub-Fanout"),
        "L3": ("Signal strength attenuates with wire distance; multi-radius branching (e.g., two rings) must be "
               "planned so all lamps receive nonzero power within the dust budget.", "Signal-Strength-Decay"),
        "L4": ("High-fanout distribution under radius and attenuation constraints: shared backbones/rails and "
               "dense symmetric branching; avoid unintended dust auto-connections/shorts in crowded layouts.",
               "Attenuation-Aware-Fanout"),
        "L5": ("Repeater semantics for scaling: where to insert repeaters to regenerate signal past the "
               "attenuation limit; repeaters are directional and add delay, so boosters must be placed "
               "symmetrically to maintain +-1 tick simultaneity.", "Repeater-Signal-Regeneration"),
    },
    "B": {
        "L1": ("Dust auto-connects into shapes: a trunk with a perpendicular branch forms a T-junction that "
               "splits the signal both ways; a lamp off the trunk axis is lit only by a branch pointing into "
               "it or by a powered block beside it.", "Dust-Branch-Shape"),
        "L2": ("Several branches on one trunk: every junction spends wire budget, and parallel branches laid "
               "side by side merge into each other unless a gap separates them.", "Branch-Spacing"),
        "L3": ("A reach of 15 blocks is the whole dust budget: strength falls by 1 per dust, so trunk plus "
               "branch length must stay within 15 from the last full-strength source.",
               "Signal-Strength-Budget"),
        "L4": ("Reach beyond 15 needs a repeater in the trunk to regenerate strength; it is a diode (input at "
               "its back) and adds 1-4 rt that every lamp behind it shares.", "Repeater-Regeneration"),
        "L5": ("Put the regenerating repeater before the junctions so every branch shares the same delay; a "
               "repeater on one branch only skews its lamps by its delay.", "Shared-Delay-Placement"),
    },
    "C": {
        "L1": ("Repeater delay is quantised in redstone ticks (1-4 rt, cycled by right-clicking) and lamps "
               "turn on the tick they are powered, so a stage delay is the sum of its repeater settings.",
               "Repeater-Delay-Setting"),
        "L2": ("Chaining stages: each lamp must feed the next delay element; a repeater pointing into a block "
               "strongly powers it, so the lamp itself can relay the signal to the next repeater.",
               "Strong-Power-Relay"),
        "L3": ("Bypasses: dust between stages auto-connects sideways and can skip a delay; repeaters are "
               "diodes, dust is not, so stages must be isolated.", "Bypass-Prevention"),
        "L4": ("A 31-stage line must be folded: a repeater only works in a straight line, turns are made at "
               "blocks or lamps, and neighbouring rows must not touch (a powered block lights adjacent "
               "lamps).", "Folded-Delay-Line"),
        "L5": ("Delays accumulate to 94 rt while the 10 rt button pulse travels down the line, so each lamp "
               "is lit only briefly: judge first-on ticks, and fit 63 stages into the region.",
               "Cumulative-Delay-Budget"),
    },
    "D": {
        "L1": ("Dust is instantaneous at any length up to 15, so distance alone causes no delay; delay comes "
               "only from repeaters, which are needed where the wire budget runs out.", "Distance-vs-Delay"),
        "L2": ("A lamp 16 blocks away needs a full-strength run or a regenerating repeater; a repeater on the "
               "long path must be matched by equal delay on the short paths.", "Delay-Compensation"),
        "L3": ("A powered block lights every lamp beside it: dust on top of a block weakly powers it, so one "
               "wire can serve lamps at several distances.", "Powered-Block-Fanout"),
        "L4": ("Many lamps at the same distance lie on a diamond ring around the button; the wiring must "
               "reach ring positions without dust auto-connecting between rows.", "Diamond-Ring-Placement"),
        "L5": ("Sixteen lamps within 4+-1 blocks of the button fill the nearest ring: every close position "
               "must be used and the wiring must leave room for them.", "Near-Field-Packing"),
    },
    "E": {
        "L1": ("The button pulse is fixed at 10 rt and a lamp stays lit 2 rt after losing power, so a short "
               "pulse needs a falling edge: a torch inverter and a second torch form a monostable, and "
               "feedback from the output torch cuts its pulse to 1 rt.", "Torch-Monostable"),
        "L2": ("Pulse length is the time between the inverter's falling edge and the re-powering path; a "
               "repeater line sets it in 1 rt steps, but a gap under 2 rt is swallowed by the torch.",
               "Edge-Detector-Timing"),
        "L3": ("Lamp off-delay: a lamp goes dark 2 rt after it loses power, so the shaped pulse must end "
               "2 rt before the target.", "Lamp-Off-Delay"),
        "L4": ("The shaped pulse must reach 32 lamps without delay (dust or powered blocks only) so every "
               "lamp starts inside the on-window; a repeater after the shaper shifts the start.",
               "Instant-Distribution"),
        "L5": ("At tau = 12 rt the button's own 10 rt pulse plus the 2 rt lamp off-delay is the target: no "
               "shaper, but 64 lamps must light within 1 rt of the press.", "Button-Pulse-Length"),
    },
}

LEARNING = {
    "A": ["strong_power_support_block", "dust_connectivity", "simple_fanout"],
    "B": ["t_junction_branching", "off_axis_routing", "attenuation_awareness"],
    "C": ["repeater_delay_basic", "ordered_activation"],
    "D": ["delay_compensation_basic", "repeater_as_buffer"],
    "E": ["pulse_shaping", "torch_inversion", "lamp_off_delay"],
}

COMMON_REQUIREMENTS = [
    "No block may be placed directly on top of a redstone_lamp (the space above each lamp must remain air).",
    "Construction must fit within the radius-{radius} build region (Chebyshev distance <= {radius} from the "
    "anchor {anchor}).",
    "Use only the allowed block palette (a wall torch counts as redstone_torch).",
    "Exactly one stone_button and exactly {n} redstone_lamps.",
    "No lamp may be lit when the button is pressed (after {settle} game ticks of settling).",
    "No lamp may turn on when the button is not pressed (the response must be caused by the press).",
]

E_RELAXATION_REASON = (
    "Infeasible as written: the paper's on-window t_on in [t_press, t_press+1 rt] admits only lamps fed by the "
    "button's own signal through dust/solid blocks (0 delay) or one delay-1 repeater, because every other "
    "change needs a falling input and the first thing that can fall is a torch, 1 rt after the press. That "
    "signal lasts until the button releases at +10 rt, so such a lamp goes dark no earlier than +12 rt (2 rt "
    "lamp off-delay), while tau={tau} rt needs it dark by +{late} rt. A lamp whose power ends before the "
    "release must be switched on by a falling edge: a torch turns off 1 rt after the press and a second "
    "torch turns on 1 rt later, so such a lamp lights at +2 rt at the earliest. Smallest relaxation: widen "
    "the on-window from 1 rt to 2 rt (t_on in [t_press, t_press+2 rt]); tau and the +-1 rt off-window are "
    "unchanged; the reference two-torch monostable lights at exactly +2 rt. The argument assumes what the "
    "evaluator enforces: the build is placed as a player would (no lamp left stale-unlit beside a powered "
    "block by /setblock order, which the press's block updates could switch on) and no lamp lights in a "
    "no-press control run (no timer started at build time). A random search over 20,000 small circuits "
    "around a button found no lamp lit within 1 rt of the press that went dark before +12 rt."
)


# ---------------------------------------------------------------------------------------- errors
def _clip(text: str, limit: int = MAX_EXCERPT) -> str:
    """At most `limit` characters of `text` (plus a count of what was cut), control and line-separator
    characters escaped, so a message stays one bounded line whatever a file contains."""
    n = len(text)
    text = text[: limit + 1]
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    if n > limit or len(text) > limit:
        text = f"{text[:limit]}... ({n} characters)"
    return text


_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = _repr.maxlong = MAX_EXCERPT
_repr.maxlevel = 3


def _short(value: Any) -> str:
    """A bounded repr of a value taken from a document (repr of a huge value is never built)."""
    try:
        return _clip(_repr.repr(value))
    except ValueError:  # an integer beyond Python's digit limit for str()
        return f"an integer of {value.bit_length()} bits" if isinstance(value, int) else "a value"


class TaskError(ValueError):
    """A task that cannot be loaded."""


class TaskNotFoundError(TaskError):
    """No task with that id or path."""


class TaskValidationError(TaskError):
    """A task file that is malformed or inconsistent; `problems` lists `file: field: what` lines."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


# ---------------------------------------------------------------------------------------- the Task
@dataclass
class Task:
    """A validated task, defaults filled in. `doc` is the full document."""

    doc: dict
    source: str | None = None
    id: str = field(init=False)
    family: str = field(init=False)
    level: str = field(init=False)
    contract: dict = field(init=False)

    def __post_init__(self) -> None:
        d = self.doc
        self.id = d["task_id"]
        self.family = d["family"]
        self.level = d["level"]
        self.contract = d["contract"]

    # identity / parameters
    @property
    def name(self) -> str:
        return self.doc["task_name"]

    @property
    def n(self) -> int:
        return int(self.doc["outputs"]["lamps"]["quantity"])

    @property
    def contract_type(self) -> str:
        return self.contract["type"]

    @property
    def tick_unit(self) -> str:
        return self.doc["tick_unit"]

    @property
    def unit(self) -> str:
        """Short unit name: rt or gt."""
        return UNIT_ABBREV[self.tick_unit]

    @property
    def game_ticks_per_unit(self) -> int:
        return UNIT_GAME_TICKS[self.tick_unit]

    def to_game(self, ticks: float) -> float:
        return ticks * self.game_ticks_per_unit

    def from_game(self, game_ticks: float) -> float | int:
        v = game_ticks / self.game_ticks_per_unit
        return int(v) if float(v).is_integer() else v

    # world
    @property
    def anchor(self) -> Pos:
        return tuple(self.doc["world"]["anchor"])  # type: ignore[return-value]

    @property
    def radius(self) -> int:
        return int(self.doc["world"]["radius"])

    @property
    def floor(self) -> tuple[str, int]:
        f = self.doc["world"]["initial"]["floor"]
        return f["block"], int(f["y"])

    def in_region(self, pos: Pos) -> bool:
        return all(abs(p - a) <= self.radius for p, a in zip(pos, self.anchor))

    @functools.cached_property
    def world_key(self) -> str:
        """The world spec and ruleset as canonical text: tasks with the same key start from the same world.
        (A task's document is not changed once loaded; `id`, `family` and `contract` are read once too.)"""
        return json.dumps([self.doc["world"], self.rules.to_json()], sort_keys=True)

    @functools.cached_property
    def rules(self):
        """The task's ruleset (engine/rules.py): its `rules:` field, vanilla when absent."""
        from scicraft_viz.engine.rules import ruleset_from

        return ruleset_from(self.doc.get("rules"))

    def with_rules(self, rules) -> Task:
        """This task under another ruleset (a Ruleset or anything `ruleset_from` takes)."""
        from scicraft_viz.engine.rules import ruleset_from

        rs = ruleset_from(rules)
        doc = copy.deepcopy(self.doc)
        doc["rules"] = rs.to_json()
        t = Task(doc, self.source)
        t.__dict__["rules"] = rs
        return t

    def initial_blocks(self) -> dict[Pos, str]:
        """The world before the build: the floor layer across the region, air elsewhere."""
        block, y = self.floor
        ax, _, az = self.anchor
        r = self.radius
        return {(x, y, z): block for x in range(ax - r, ax + r + 1) for z in range(az - r, az + r + 1)}

    def initial_world(self, replay: bool = True):
        from scicraft_viz.engine.world import World

        w = World(replay=replay, rules=self.rules)
        for pos, state in self.initial_blocks().items():
            w.set_block(pos, state)
        return w

    @property
    def allowed_blocks(self) -> list[str]:
        return list(self.doc["allowed_blocks"])

    # harness
    @property
    def settle_game_ticks(self) -> int:
        return int(self.doc["harness"]["settle_game_ticks"])

    @property
    def record_game_ticks(self) -> int:
        return int(self.doc["harness"]["record_game_ticks"])

    @property
    def trial_budget(self) -> int:
        return int(self.doc["harness"]["trial_budget"])

    @property
    def relaxation(self) -> dict | None:
        return self.doc.get("relaxation")

    def parameters(self) -> dict:
        """The level parameters, for listings."""
        c = self.contract
        p: dict[str, Any] = {"N": self.n}
        keys = {
            "simultaneity": ["tolerance_ticks"],
            "branch_reach": ["max_reach_blocks", "tolerance_ticks", "require_t_junction", "require_repeater"],
            "sequential": ["delays_ticks", "tolerance_ticks"],
            "equal_delay": ["target_distances", "distance_tolerance_blocks", "lamps_per_distance",
                            "tolerance_ticks"],
            "pulse": ["tau_ticks", "on_window_ticks", "tolerance_ticks"],
        }[self.contract_type]
        for k in keys:
            p[k] = c[k]
        p["tick_unit"] = self.tick_unit
        if self.relaxation:
            p["relaxed"] = self.relaxation["field"]
        return p

    def __repr__(self) -> str:
        return f"Task({self.id!r}, N={self.n}, contract={self.contract_type})"


# ---------------------------------------------------------------------------------------- validation
@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    return _jsonschema().Draft202012Validator(schema())


def _field(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def _describe(err: jsonschema.ValidationError) -> tuple[str, str]:
    """(field, problem) in plain words for one schema error, quoting at most MAX_EXCERPT characters."""
    path = list(err.absolute_path)
    if err.validator == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return _field(path + [missing]), "required field is missing"
    if err.validator == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})), key=repr)
        if extra:
            return _field(path + [extra[0]]), "unknown field (not part of the task schema)"
    if err.validator == "const":
        return _field(path), f"{_short(err.instance)} must be {err.validator_value!r}"
    if err.validator == "enum":
        return _field(path), f"{_short(err.instance)} is not one of {', '.join(map(str, err.validator_value))}"
    if err.validator == "pattern" and path and path[-1] == "task_id":
        return _field(path), f"{_short(err.instance)} does not match the family/id pattern {err.validator_value!r}"
    if err.validator == "contains":
        return _field(path), f"must contain {err.validator_value}"
    if err.validator == "type" and not path:
        return _field(path), f"the document is a {type(err.instance).__name__}, not a mapping of task fields"
    if err.validator == "type":
        return _field(path), f"{_short(err.instance)} is not of type {err.validator_value!r}"
    if err.validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        word = {"minimum": "less than the minimum of", "maximum": "greater than the maximum of",
                "exclusiveMinimum": "less than or equal to the minimum of",
                "exclusiveMaximum": "greater than or equal to the maximum of"}[err.validator]
        return _field(path), f"{_short(err.instance)} is {word} {err.validator_value}"
    if err.validator in ("maxLength", "maxItems", "maxProperties"):
        what = "characters" if err.validator == "maxLength" else "entries"
        return _field(path), f"has {len(err.instance)} {what}, more than the limit of {err.validator_value}"
    return _field(path), err.message


def _nonfinite_problems(doc: Any, source: str) -> list[str]:
    """NaN and infinities anywhere (they pass every minimum/maximum check); and, for a document that did not
    come through parse_yaml (a trajectory header, a caller's dict), the size a task file could have: nesting,
    values and text beyond a task file's limits are refused before the schema builds messages from them."""
    out: list[str] = []
    stack: list[tuple[Any, tuple]] = [(doc, ())]
    values = chars = 0
    while stack and len(out) < MAX_PROBLEMS:
        obj, path = stack.pop()
        if isinstance(obj, (dict, list, tuple)):
            values += len(obj)  # counted before the children are stacked, so a huge list is never copied
        if len(path) > MAX_YAML_DEPTH:
            return [f"{source}: {_clip(_field(path[:MAX_YAML_DEPTH]))}: nested more than {MAX_YAML_DEPTH} levels deep"]
        if values > MAX_TASK_FILE_BYTES // 2 or chars > MAX_TASK_FILE_BYTES:
            return [f"{source}: (top level): more values or text than a task file of {MAX_TASK_FILE_BYTES} bytes "
                    "can hold"]
        if isinstance(obj, float) and not math.isfinite(obj):
            out.append(f"{source}: {_clip(_field(path))}: {obj} is not a finite number")
        elif isinstance(obj, str):
            chars += len(obj)
        elif isinstance(obj, dict):
            chars += sum(len(k) for k in obj if isinstance(k, str))
            stack.extend((v, path + (k,)) for k, v in obj.items())
        elif isinstance(obj, (list, tuple)):
            stack.extend((v, path + (i,)) for i, v in enumerate(obj))
    return sorted(out)


def _schema_problems(doc: Any, source: str) -> list[str]:
    errors = []
    try:
        for err in _validator().iter_errors(doc):
            # if/then wrappers: report the leaves
            leaves = [err] if not err.context else list(err.context)
            for leaf in leaves:
                fld, what = _describe(leaf)
                errors.append(f"{source}: {_clip(fld)}: {_clip(what, 2 * MAX_EXCERPT)}")
    except ValueError:  # jsonschema's own message could not show an integer beyond Python's digit limit
        errors.append(f"{source}: (top level): an integer too large to be a task parameter")
    # stable, de-duplicated
    seen: dict[str, None] = {}
    for e in sorted(errors):
        seen.setdefault(e, None)
    return list(seen)


def _consistency_problems(doc: dict, source: str) -> list[str]:
    """Cross-field rules a JSON schema cannot express."""
    out: list[str] = []
    c = doc["contract"]
    n = doc["outputs"]["lamps"]["quantity"]
    fam = doc["family"]

    def bad(fld: str, what: str) -> None:
        out.append(f"{source}: {fld}: {what}")

    if "num_outputs" in c and c["num_outputs"] != n:
        bad("contract.num_outputs", f"{c['num_outputs']} does not match outputs.lamps.quantity = {n}")
    lvl = doc["level"]
    if lvl in LEVELS and not doc["task_id"].endswith("_" + lvl):
        bad("task_id", f"{doc['task_id']!r} must end with '_{lvl}' (level is {lvl})")
    if fam == "C":
        if n < 2:
            bad("outputs.lamps.quantity", "a sequence needs at least 2 lamps")
        if len(c["delays_ticks"]) != n - 1:
            bad("contract.delays_ticks", f"has {len(c['delays_ticks'])} delays but N={n} lamps need N-1 = {n - 1}")
    if fam == "D":
        dists = c["target_distances"]
        if len(dists) > n:
            bad("contract.target_distances", f"{len(dists)} distance buckets but only {n} lamps")
        per = c.get("lamps_per_distance")
        if per is not None:
            if len(per) != len(dists):
                bad("contract.lamps_per_distance", f"has {len(per)} entries, target_distances has {len(dists)}")
            elif sum(per) != n:
                bad("contract.lamps_per_distance", f"sums to {sum(per)}, must equal N = {n}")
        tol = c.get("distance_tolerance_blocks", 1)
        srt = sorted(dists)
        for a, b in zip(srt, srt[1:]):
            if b - a <= 2 * tol:
                bad("contract.target_distances",
                    f"buckets {a} and {b} overlap with distance_tolerance_blocks={tol} (need a gap > {2 * tol})")
                break
    if fam == "E":
        tol = c.get("tolerance_ticks", 1)
        if c["tau_ticks"] - tol <= c.get("on_window_ticks", tol):
            bad("contract.tau_ticks",
                f"{c['tau_ticks']} leaves no time between the on-window and the off-window (tolerance {tol})")
    floor = doc["world"].get("initial", {}).get("floor")
    if floor is not None:
        ay, r = doc["world"]["anchor"][1], doc["world"]["radius"]
        if abs(floor["y"] - ay) > r:
            bad("world.initial.floor.y", f"{floor['y']} is outside the build region (anchor y {ay}, radius {r})")
    if "rules" in doc:
        from scicraft_viz.engine.rules import ruleset_from
        from scicraft_viz.errors import InputError

        try:
            ruleset_from(doc["rules"])
        except InputError as e:
            bad("rules", str(e).removeprefix("rules: "))
    if "relaxation" in doc and not doc["relaxation"]["field"].startswith("contract."):
        bad("relaxation.field", "must name a contract field, e.g. contract.on_window_ticks")
    record = doc["harness"]["record_game_ticks"]
    if record > MAX_RECORD_GAME_TICKS:  # only a computed default can get here: the schema bounds a given one
        bad("harness.record_game_ticks", f"the contract's timings need {record} game ticks of recording, more than "
            f"the limit of {MAX_RECORD_GAME_TICKS}")
    return out


def default_record_game_ticks(doc: dict) -> int:
    c = doc["contract"]
    f = UNIT_GAME_TICKS[doc.get("tick_unit", "redstone")]
    tol = c.get("tolerance_ticks", 1)
    if c["type"] == "sequential":
        return int(f * (sum(c["delays_ticks"]) + tol * len(c["delays_ticks"]))) + 100
    if c["type"] == "pulse":
        return int(f * (c["tau_ticks"] + tol)) + 60
    return 200


def _apply_defaults(doc: dict) -> dict:
    d = copy.deepcopy(doc)
    d.setdefault("tick_unit", "redstone")
    w = d["world"]
    init = w.setdefault("initial", {})
    init.setdefault("floor", {"block": "minecraft:stone", "y": w["anchor"][1] - 1})
    init.setdefault("elsewhere", "minecraft:air")
    c = d["contract"]
    n = d["outputs"]["lamps"]["quantity"]
    c.setdefault("tolerance_ticks", 1)
    c.setdefault("num_outputs", n)
    if c["type"] == "branch_reach":
        c.setdefault("require_t_junction", True)
        c.setdefault("require_repeater", False)
        c.setdefault("require_off_axis", True)
        c.setdefault("reach_metric", "manhattan")
    if c["type"] == "equal_delay":
        c.setdefault("distance_tolerance_blocks", 1)
        c.setdefault("distance_metric", "manhattan")
        c.setdefault("lamps_per_distance", balanced_counts(n, len(c["target_distances"])))
    if c["type"] == "pulse":
        c.setdefault("on_window_ticks", c["tolerance_ticks"])
    h = d.setdefault("harness", {})
    h.setdefault("settle_game_ticks", 40)
    h.setdefault("record_game_ticks", default_record_game_ticks(d))
    h.setdefault("trial_budget", 50)
    d.setdefault("metadata", {})
    return d


def validate(doc: Any, source: str = "<task>") -> list[str]:
    """Every problem of a task document as `source: field: what` lines (empty when valid); at most
    MAX_PROBLEMS of them, then one line counting the rest."""
    source = _clip(source)
    problems = _nonfinite_problems(doc, source) or _schema_problems(doc, source)
    if not problems:
        problems = _consistency_problems(_apply_defaults(doc), source)
    if len(problems) > MAX_PROBLEMS:
        problems = problems[:MAX_PROBLEMS] + [f"{source}: (top level): {len(problems) - MAX_PROBLEMS} more problems"]
    return problems


def from_dict(doc: Any, source: str = "<task>") -> Task:
    """A Task from a document; raises TaskValidationError listing every problem."""
    problems = validate(doc, source)
    if problems:
        raise TaskValidationError(problems)
    return Task(_apply_defaults(doc), source)


class _UniqueKeyLoader(_YAML_LOADER):  # type: ignore[misc,valid-type]
    """The safe loader (libyaml's when installed) that refuses duplicate keys: a silent override is
    almost always a mistake."""


def _construct_mapping(loader, node, deep=False):
    seen: set = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            dup = key in seen
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, f"unhashable key {_short(key)}", key_node.start_mark) from None
        if dup:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {_short(key)}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


class _NotAllowed(yaml.constructor.ConstructorError):
    """Well-formed YAML that a task file may not contain; its message is the project's own."""


def _construct_int(loader, node):
    """Integers, refused before conversion when written with more than MAX_NUMBER_CHARS characters: the
    limit is the project's own, so the refusal does not depend on the interpreter's digit limit."""
    text = loader.construct_scalar(node)
    if len(text) > MAX_NUMBER_CHARS:
        raise _NotAllowed(None, None, f"a number written with {len(text)} characters, more than the limit of "
                          f"{MAX_NUMBER_CHARS}", node.start_mark)
    return loader.construct_yaml_int(node)


_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)

_OPEN_EVENTS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSE_EVENTS = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def _check_events(text: str, source: str) -> None:
    """Refuse anchors, aliases, explicit tags and deep nesting before anything is built. Aliases let a few
    KB expand to gigabytes ("billion laughs"), and libyaml's composer recurses in C, so deep nesting could
    crash the process. The event parser itself keeps its own stack, so this scan is safe on any text.

    The parser may refuse the text itself before this scan has seen what is wrong: libyaml has a nesting
    limit of its own, and its scanner reads flow brackets ahead of the events it delivers, so `[[[[...`
    can fail there before any event arrives. The part of the text before the parser's error is then
    scanned again with PyYAML's pure-Python parser (which has no such limit), so a text that breaks one
    of the task file's own rules gets the project's message whichever layer stops first; otherwise the
    parser's own error stands."""
    try:
        _scan_events(text, source, _YAML_LOADER)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        if _YAML_LOADER is yaml.SafeLoader or mark is None:
            raise
        prefix = text[: mark.index + 1]
        if prefix.count("[") + prefix.count("{") > MAX_YAML_DEPTH:  # only flow brackets are read ahead
            try:
                _scan_events(prefix, source, yaml.SafeLoader)
            except yaml.YAMLError:
                pass  # the prefix ends inside the text the parser refused: its own error stands
        raise


def _scan_events(text: str, source: str, loader) -> None:
    depth = 0
    for ev in yaml.parse(text, Loader=loader):
        if isinstance(ev, yaml.AliasEvent) or getattr(ev, "anchor", None) is not None:
            raise TaskValidationError([f"{source}: line {ev.start_mark.line + 1}: anchors and aliases (& and *) "
                                       "are not allowed in a task file"])
        if getattr(ev, "tag", None) is not None:  # PyYAML's constructors crash on some mistyped explicit tags
            raise TaskValidationError([f"{source}: line {ev.start_mark.line + 1}: tags (such as {_short(ev.tag)}) "
                                       "are not allowed in a task file"])
        if isinstance(ev, _OPEN_EVENTS):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise TaskValidationError([f"{source}: line {ev.start_mark.line + 1}: nested more than "
                                           f"{MAX_YAML_DEPTH} levels deep"])
        elif isinstance(ev, _CLOSE_EVENTS):
            depth -= 1


def parse_yaml(text: str, source: str = "<task>") -> Any:
    """The YAML document in `text` as plain data. Refuses texts over MAX_TASK_FILE_BYTES characters,
    anchors/aliases, explicit tags, nesting beyond MAX_YAML_DEPTH and duplicate keys (TaskValidationError)."""
    source = _clip(source)
    if not isinstance(text, str):
        raise TaskValidationError([f"{source}: (top level): task text must be a string, got {type(text).__name__}"])
    if len(text) > MAX_TASK_FILE_BYTES:
        raise TaskValidationError([f"{source}: (top level): {len(text)} characters, more than the limit of "
                                   f"{MAX_TASK_FILE_BYTES} for a task"])
    try:
        _check_events(text, source)
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except TaskValidationError:
        raise
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1}" if mark is not None else "(top level)"
        what = "" if isinstance(e, _NotAllowed) else "invalid YAML: "
        raise TaskValidationError([f"{source}: {where}: {what}{_clip(str(e.problem or e.context))}"]) from None
    except yaml.YAMLError as e:
        raise TaskValidationError([f"{source}: (top level): invalid YAML: {_clip(str(e))}"]) from None
    except ValueError as e:  # e.g. an integer longer than Python's digit limit
        raise TaskValidationError([f"{source}: (top level): invalid YAML: {_clip(str(e))}"]) from None
    except RecursionError:
        raise TaskValidationError([f"{source}: (top level): invalid YAML: nested too deeply"]) from None


def load_text(text: str, source: str = "<task>") -> Task:
    """A Task from YAML text."""
    return from_dict(parse_yaml(text, source), source)


# ---------------------------------------------------------------------------------------- files
def tasks_dir() -> Path:
    """The directory of task files: $SCICRAFT_TASKS_DIR, else the repository's tasks/."""
    env = os.environ.get("SCICRAFT_TASKS_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "tasks"


def _display(path: Path) -> str:
    try:
        return _clip(str(path.resolve().relative_to(Path.cwd().resolve())))
    except (ValueError, OSError, RuntimeError):
        return _clip(str(path))


def canonical_ids() -> list[str]:
    return [f"{f}_{FAMILY_INFO[f][0]}_{lv}" for f in FAMILIES for lv in LEVELS]


def task_ids() -> list[str]:
    """Ids of the available tasks: the files in tasks_dir(), or the canonical 25 if there are none."""
    d = tasks_dir()
    ids = sorted(p.stem for p in d.glob("*.yaml")) if d.is_dir() else []
    return ids or canonical_ids()


# Parsed and validated documents, keyed by what identifies a file's content (path, inode, mtimes, size) or
# by canonical id; callers get a fresh copy, so changing a Task never changes the cache.
_CACHE: OrderedDict[tuple, tuple[dict, str]] = OrderedDict()
_CACHE_SIZE = 256
_CACHE_LOCK = threading.Lock()


def _copy_doc(obj: Any) -> Any:
    # documents are plain JSON-like data; this is several times faster than copy.deepcopy
    if isinstance(obj, dict):
        return {k: _copy_doc(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_copy_doc(v) for v in obj]
    return obj


def _cached(key: tuple, make) -> Task:
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
    if hit is None:
        task = make()
        hit = (_copy_doc(task.doc), task.source)
        with _CACHE_LOCK:
            _CACHE[key] = hit
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return Task(_copy_doc(hit[0]), hit[1])


def _read_task_file(path: str | os.PathLike) -> Task:
    """A task file, refused unless it is a regular file of at most MAX_TASK_FILE_BYTES bytes of UTF-8
    (opened and read by safeio, the one rule for files; the messages are the task loader's own)."""
    from scicraft_viz.safeio import UnsafeFile, open_regular, read_fd

    p = Path(path)
    shown = _clip(str(path))

    def too_large(size: int | None) -> TaskValidationError:
        what = f"{size} bytes, more than" if size is not None else "more than"
        return TaskValidationError([f"{_display(p)}: (top level): {what} the limit of {MAX_TASK_FILE_BYTES} bytes for "
                                    "a task file"])

    try:
        # non-blocking: opening a FIFO must not wait for a writer; the descriptor is then checked
        fd = open_regular(p, MAX_TASK_FILE_BYTES, "task file")
    except UnsafeFile as e:
        if e.reason == "too_large":
            raise too_large(e.size) from None
        if e.reason == "missing":
            raise TaskNotFoundError(f"task file {shown} does not exist") from None
        if e.reason in ("special", "directory"):
            raise TaskNotFoundError(f"task file {shown} is not a regular file") from None
        raise TaskNotFoundError(f"cannot read task file {shown}: {e.detail or e}") from None
    try:
        st = os.fstat(fd)
        # the working directory is part of the key because messages name the file relative to it
        key = ("file", os.getcwd(), str(p), st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size)

        def make() -> Task:
            try:
                data = read_fd(os.dup(fd), p, MAX_TASK_FILE_BYTES, "task file")
            except UnsafeFile:  # grew after the check
                raise too_large(None) from None
            source = _display(p)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as e:
                raise TaskValidationError([f"{source}: (top level): not UTF-8 text (byte {e.start})"]) from None
            return load_text(text, source)

        return _cached(key, make)
    except OSError as e:
        raise TaskNotFoundError(f"cannot read task file {shown}: {e.strerror or e}") from None
    finally:
        os.close(fd)


def _load_by_id(task_id: str, what: str = "task") -> Task:
    """The task file tasks_dir()/ID.yaml, else the generated canonical task, else TaskNotFoundError."""
    from scicraft_viz.safeio import inside

    d = tasks_dir()
    f = d / f"{task_id}.yaml"
    if os.path.lexists(f):  # whatever it is (a FIFO, a broken link), the file reader says what is wrong with it
        if os.path.islink(f) and os.path.exists(f) and not inside(f, d):  # an id never leads out of the folder
            raise TaskNotFoundError(f"task file {_display(f)} is a link out of {_clip(str(d))}; it is not followed")
        return _read_task_file(f)
    if task_id in canonical_ids():
        return _cached(("canonical", task_id), lambda: from_dict(canonical_task(task_id[0], task_id[-2:]),
                                                                  f"<generated {task_id}>"))
    return _unknown(task_id, what)


def _typo_of(task_id: str, known: list[str]) -> str | None:
    """The known id that `task_id` is a misspelling of, or None. A suggestion must never name a
    different task: the numbers in the id (its level or N) have to be the same, and the rest close
    ('A_simultaneous_lights_L9' is no typo of any level, 'A_simultaneous_lights_n20' none of L2)."""
    import difflib
    import re

    if len(task_id) > MAX_TASK_ID_LENGTH:
        return None
    digits = re.findall(r"\d+", task_id)
    same = [k for k in known if re.findall(r"\d+", k) == digits]
    if not same:
        return None
    folded = {k.lower(): k for k in same}
    if task_id.lower() in folded:
        return folded[task_id.lower()]
    close = difflib.get_close_matches(task_id, same, n=1, cutoff=0.85)
    return close[0] if close else None


def _unknown(task_id: str, what: str = "task") -> NoReturn:
    import re

    known = task_ids()
    m = re.fullmatch(r"([A-E])_([a-z_]+)_n(\d+)", task_id)
    if m and FAMILY_INFO[m.group(1)][0] == m.group(2):
        # the id generate_task gives a task with no level: such a task exists only as a document
        raise TaskNotFoundError(
            f"{what} {_short(task_id)} is a generated task (family {m.group(1)}, N={m.group(3)}), not a task file: "
            "a run on it carries the task in its trajectory header (header['task'], loaded by Trajectory.task() "
            "and Replay.task), and tasks.generate_task() makes it again from its parameters")
    close = _typo_of(task_id, known)
    hint = f" (did you mean {close}?)" if close else ""
    raise TaskNotFoundError(f"unknown {what} {_short(task_id)}{hint}; run 'scicraft-viz tasks' to list the "
                            f"{len(known)} tasks")


def load_by_id(task_id: str) -> Task:
    """Load a task by its id only, for ids that come from untrusted input (a page address, a trajectory,
    an MCP client): never read as a path. Accepts the stems of tasks_dir()'s files and the canonical ids;
    anything else (a path, '..', an over-long or non-printable string) raises TaskNotFoundError."""
    if not isinstance(task_id, str):
        raise TaskNotFoundError(f"a task id must be a string, got {type(task_id).__name__}")
    if not task_id:
        raise TaskNotFoundError("the task id is empty; run 'scicraft-viz tasks' to list the tasks")
    if len(task_id) > MAX_TASK_ID_LENGTH:
        raise TaskNotFoundError(f"task id {_short(task_id)} has {len(task_id)} characters, more than the limit "
                                f"of {MAX_TASK_ID_LENGTH}")
    if not (task_id.isascii() and task_id.isprintable()):
        raise TaskNotFoundError(f"task id {_short(task_id)} has characters other than printable ASCII")
    if "/" in task_id or "\\" in task_id or ".." in task_id or task_id.startswith(".") or os.path.isabs(task_id):
        raise TaskNotFoundError(f"task id {_short(task_id)} looks like a path; only a task id is accepted here "
                                "(see 'scicraft-viz tasks')")
    return _load_by_id(task_id, "task id")


def load(id_or_path: str | os.PathLike) -> Task:
    """Load a task by id (from tasks_dir(), or generated if it is a canonical id) or by file path.

    For a program's own caller (command-line arguments, code): anything that looks like a path is read
    as one. Ids from untrusted input go through `load_by_id`. Parsed files are cached by path, inode,
    modification time and size; every call returns its own copy."""
    s = os.fspath(id_or_path) if isinstance(id_or_path, os.PathLike) else id_or_path
    if not isinstance(s, str):
        raise TaskNotFoundError(f"a task id or path must be a string, got {type(s).__name__}")
    looks_like_path = isinstance(id_or_path, os.PathLike) or s.endswith((".yaml", ".yml")) or os.sep in s or "/" in s
    if looks_like_path or os.path.isfile(s):
        return _read_task_file(s)
    return _load_by_id(s)


def load_all() -> list[Task]:
    return [load(i) for i in task_ids()]


# ---------------------------------------------------------------------------------------- generator
def balanced_counts(n: int, k: int) -> list[int]:
    """n lamps over k buckets as evenly as possible (earlier buckets take the remainder)."""
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def alternating_delays(n: int) -> list[int]:
    """The paper's C pattern: [1, 2, 1, 2, ..., 1] of length n-1 (n even) ."""
    return [1 if i % 2 == 0 else 2 for i in range(n - 1)]


def _fmt_ticks(v: float, unit: str) -> str:
    return f"{v:g} {UNIT_ABBREV[unit]}"


def generate_task(
    family: str,
    n: int,
    *,
    level: str = "custom",
    task_id: str | None = None,
    tick_unit: str = "redstone",
    tolerance: float = 1,
    anchor: tuple[int, int, int] = (0, 4, 0),
    radius: int = 10,
    max_reach: int | None = None,
    require_repeater: bool | None = None,
    delays: list[float] | None = None,
    distances: list[int] | None = None,
    distance_tolerance: int = 1,
    lamps_per_distance: list[int] | None = None,
    tau: float | None = None,
    on_window: float | None = None,
    settle_game_ticks: int = 40,
    record_game_ticks: int | None = None,
    trial_budget: int = 50,
    relaxation: dict | None = None,
) -> dict:
    """A task document for any family, N and parameters (validated before it is returned).

    Defaults follow the paper: tolerance 1, B reach 8 (repeater required beyond 15), C delays
    [1,2,1,2,...] of length N-1, D distances {4,8,12,16}, E tau 12 with the paper's on-window 1."""
    if family not in FAMILIES:
        raise TaskError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise TaskError(f"N must be a positive integer, got {n!r}")
    slug, ctype, title = FAMILY_INFO[family]
    if task_id is None:
        task_id = f"{family}_{slug}_{level}" if level in LEVELS else f"{family}_{slug}_n{n}"
    u = UNIT_ABBREV[tick_unit] if tick_unit in UNIT_ABBREV else tick_unit
    contract: dict[str, Any] = {"type": ctype, "tolerance_ticks": tolerance, "num_outputs": n}
    tol_txt = f"+/-{tolerance:g} {u}"
    interp = ""
    requirements: list[str] = []
    metrics: dict[str, Any] = {
        "functional_correctness": {
            "description": "Verify all lamps activate",
            "weight": 1.0,
            "check_method": "verify_all_lamps_activated",
        }
    }
    skew_metric = {
        "description": f"Max skew across lamps <= {tolerance:g} {u}",
        "weight": 1.0,
        "check_method": "verify_max_skew_within",
        "params": {"tolerance_ticks": tolerance},
    }
    check_action: dict[str, Any] = {"action": "check_lamps_on"}
    if family == "A":
        name = f"{title} (N={n})"
        desc = (f"Build a redstone circuit that turns on {n} lamps with (near) zero skew after a single button "
                "press.")
        interp = (f"Checked (eq. 7): every lamp turns on after the press and max_i t_i - min_i t_i <= "
                  f"{tolerance:g} {u}, where t_i is the first game tick lamp i is lit.")
        requirements.append(f"All {n} lamps must turn on within {tol_txt} of each other after the button press")
        metrics["simultaneity"] = skew_metric
    elif family == "B":
        reach = 8 if max_reach is None else max_reach
        rep = reach > 15 if require_repeater is None else require_repeater
        contract.update({"max_reach_blocks": reach, "require_t_junction": True, "require_repeater": rep,
                         "require_off_axis": True, "reach_metric": "manhattan"})
        name = f"{title} (N={n}, reach={reach})"
        desc = (f"Build a trunk-and-branch wiring layout that reaches {n} lamps that are not collinear with the "
                f"button, the farthest at least {reach} blocks away. The circuit must use at least one explicit "
                f"T-junction and still satisfy the same {tol_txt} simultaneity tolerance.")
        interp = (f"Checked: (1) simultaneity as family A (skew <= {tolerance:g} {u}); (2) T-junction: some "
                  "redstone dust is connected on 3 or 4 sides (to dust, including one block up/down, or to a "
                  "component it connects to) and carries power during the test; (3) reach: the largest "
                  "Manhattan distance |dx|+|dy|+|dz| from the button to a lamp is at least "
                  f"{reach} blocks (a lower bound of any wire path to it); (4) off-axis: every lamp differs "
                  "from the button in x and in z" + ("; (5) at least one repeater is used" if rep else "") + ".")
        requirements += [
            f"All {n} lamps must turn on within {tol_txt} of each other after the button press",
            "At least one T-junction (fan-out) must be present in the wiring topology",
            f"At least one lamp must be {reach} or more blocks (Manhattan distance) from the button",
            "No lamp may lie on the button's x or z axis line (lamps are off-axis)",
            "The solution must respect redstone attenuation (no dead outputs)",
        ]
        if rep:
            requirements.append("At least one repeater must be used (reach beyond the 15-block dust budget)")
        metrics["simultaneity"] = skew_metric
        metrics["topology"] = {"description": "At least one powered T-junction in the dust graph", "weight": 1.0,
                               "check_method": "verify_t_junction"}
        metrics["reach"] = {"description": f"Farthest lamp at Manhattan distance >= {reach}", "weight": 1.0,
                            "check_method": "verify_branch_reach", "params": {"max_reach_blocks": reach}}
    elif family == "C":
        if n < 2:
            raise TaskError("family C needs N >= 2")
        ds = alternating_delays(n) if delays is None else list(delays)
        contract["delays_ticks"] = ds
        short = str(ds) if len(ds) <= 8 else f"[1,2]x{(n - 2) // 2}+[1]" if ds == alternating_delays(n) else "custom"
        name = f"{title} (N={n}, delays={short})"
        desc = (f"After a button press, activate {n} lamps in order with inter-stage delays {short} {u} "
                f"({tol_txt} tolerance).")
        interp = (f"Checked (eq. 8): lamps are ordered by their first on-tick t_1 <= ... <= t_N (stage i is the "
                  f"i-th lamp to light) and |t_(i+1) - t_i - delta_i| <= {tolerance:g} {u} for every i; t_1 "
                  "itself is free. Every lamp must light.")
        requirements.append("Lamps must activate in order with the specified inter-stage delays")
        metrics["functional_correctness"] = {
            "description": "Verify order and timing per delays", "weight": 1.0,
            "check_method": "verify_sequence_with_delays",
            "params": {"delays_ticks": ds, "tolerance_ticks": tolerance}}
        check_action = {"action": "check_sequence", "params": {"delays_ticks": ds, "tolerance_ticks": tolerance}}
    elif family == "D":
        dists = list(D_DISTANCES[: max(1, min(n, len(D_DISTANCES)))] if distances is None else distances)
        per = balanced_counts(n, len(dists)) if lamps_per_distance is None else list(lamps_per_distance)
        contract.update({"target_distances": dists, "distance_tolerance_blocks": distance_tolerance,
                         "lamps_per_distance": per, "distance_metric": "manhattan"})
        dtxt = "{" + ",".join(map(str, dists)) + "}"
        name = f"{title} (N={n}, distances={dtxt})"
        desc = (f"Place and wire a circuit so that {n} lamps at different distances from the button still turn "
                f"on within {tol_txt} of each other after a button press. The intended solution uses repeaters "
                "as compensatory delay elements on the faster (shorter) paths.")
        interp = ("Checked: (1) distance buckets: the Manhattan distance |dx|+|dy|+|dz| from the button to "
                  f"each lamp must be within +/-{distance_tolerance} block(s) of one of {dtxt}, with "
                  f"{per} lamps in the buckets respectively; (2) simultaneity (eq. 9): max_i t_i - min_i t_i "
                  f"<= {tolerance:g} {u}.")
        requirements += [
            f"All {n} lamps must turn on within {tol_txt} (skew <= {tolerance:g})",
            f"Lamps sit at Manhattan distances {dtxt} (+/-{distance_tolerance}) from the button, {per} per "
            "distance",
            "The solution must compensate different distances using repeater delays where paths differ",
        ]
        metrics["skew_tolerance"] = skew_metric
        metrics["distance_buckets"] = {"description": "Lamps placed in the distance buckets", "weight": 1.0,
                                       "check_method": "verify_distance_buckets",
                                       "params": {"target_distances": dists}}
    else:  # E
        t = 12 if tau is None else tau
        ow = tolerance if on_window is None else on_window
        contract.update({"tau_ticks": t, "on_window_ticks": ow})
        name = f"{title} (N={n}, tau={t:g})"
        desc = (f"On each button press, keep all {n} lamps lit for a target duration of {t:g} {u} measured from "
                "the press, then return to off.")
        interp = (f"Checked (eqs. 10-11) for every lamp i: first on-tick t_on in [t_press, t_press+{ow:g} {u}], "
                  f"first off-tick after it t_off in [t_press+{t - tolerance:g}, t_press+{t + tolerance:g}] {u}, "
                  "and the lamp stays dark from t_off until the end of the recording (one pulse per press).")
        requirements += [
            f"Every lamp turns on within {ow:g} {u} of the press",
            f"Every lamp turns off {t:g} {tol_txt} after the press and stays off",
        ]
        metrics["pulse_window"] = {"description": f"On within {ow:g} {u}, off at tau={t:g} {tol_txt}",
                                   "weight": 1.0, "check_method": "verify_pulse_window",
                                   "params": {"tau_ticks": t, "on_window_ticks": ow, "tolerance_ticks": tolerance}}
        check_action = {"action": "check_pulse", "params": {"tau_ticks": t, "on_window_ticks": ow}}
    metrics["constraints"] = {"description": "Palette, region, one button, N lamps, nothing on top of a lamp",
                              "weight": 1.0, "check_method": "verify_constraints"}
    fmt = {"radius": radius, "anchor": list(anchor), "n": n, "settle": settle_game_ticks}
    requirements += [r.format(**fmt) for r in COMMON_REQUIREMENTS]
    desc += (f"\n\nWorld: a radius-{radius} cube around the anchor {list(anchor)} (Chebyshev distance), a stone "
             f"floor filling the layer y={anchor[1] - 1} and air elsewhere. Times are in {tick_unit} ticks "
             f"({u}; 1 rt = 2 game ticks). The evaluator places the build as a player would, lets it settle for "
             f"{settle_game_ticks} game ticks, checks that no lamp lights without a press, then presses the button "
             f"once and records every game tick.\n{interp}\n")
    if relaxation:
        desc += f"RELAXED: {relaxation['field']} = {relaxation['value']} (paper: {relaxation['paper_value']}). " \
                f"{relaxation['reason']}\n"
    gap, hint = KNOWLEDGE[family].get(level, ("Custom task: combine the mechanisms of the family's levels.",
                                               "Custom"))
    doc: dict[str, Any] = {
        "task_id": task_id,
        "family": family,
        "level": level,
        "task_name": name,
        "task_description": desc,
        "difficulty": DIFFICULTY.get(level, "custom"),
        "tick_unit": tick_unit,
        "world": {
            "anchor": list(anchor),
            "radius": radius,
            "initial": {"floor": {"block": "minecraft:stone", "y": anchor[1] - 1}, "elsewhere": "minecraft:air"},
        },
        "allowed_blocks": list(PALETTE),
        "inputs": {"button": {"type": "minecraft:stone_button", "quantity": 1}},
        "outputs": {"lamps": {"type": "minecraft:redstone_lamp", "quantity": n}},
        "contract": contract,
    }
    if relaxation:
        doc["relaxation"] = relaxation
    doc["requirements"] = requirements
    doc["evaluation_metrics"] = metrics
    doc["test_cases"] = [{"name": "single_press", "sequence": [{"action": "press_button"}, check_action]}]
    harness = {"settle_game_ticks": settle_game_ticks, "trial_budget": trial_budget}
    harness["record_game_ticks"] = record_game_ticks or default_record_game_ticks(doc)
    doc["harness"] = harness
    doc["metadata"] = {
        "learning_objectives": LEARNING[family],
        "estimated_difficulty_score": float(LEVELS.index(level) + 1) if level in LEVELS else 0.0,
        "knowledge_gap": gap,
        "hint": hint,
        "interpretation": interp,
        "generated": level not in LEVELS,
    }
    problems = validate(doc, f"<generated {task_id}>")
    if problems:
        raise TaskValidationError(problems)
    return doc


def canonical_task(family: str, level: str) -> dict:
    """One of the 25 tasks with Table 3's parameters (and the documented relaxation for E L1-L4)."""
    if level not in LEVELS:
        raise TaskError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    n = LEVEL_N[level]
    kw: dict[str, Any] = {}
    if family == "B":
        kw["max_reach"] = B_REACH[level]
        kw["require_repeater"] = level in ("L4", "L5")
    elif family == "E":
        tau = E_TAU[level]
        kw["tau"] = tau
        if tau < 12:
            kw["on_window"] = 2
            kw["relaxation"] = {
                "field": "contract.on_window_ticks",
                "paper_value": 1,
                "value": 2,
                "reason": E_RELAXATION_REASON.format(tau=tau, late=tau + 1),
            }
        else:
            kw["on_window"] = 1
    return generate_task(family, n, level=level, **kw)


# ---------------------------------------------------------------------------------------- YAML out
class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data) -> bool:  # task files may not contain anchors or aliases
        return True


def _repr_str(dumper, s: str):
    style = "|" if "\n" in s else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style=style)


def _repr_list(dumper, items: list):
    flow = all(isinstance(i, (int, float)) and not isinstance(i, bool) for i in items)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flow)


_Dumper.add_representer(str, _repr_str)
_Dumper.add_representer(list, _repr_list)


def dump_yaml(doc: dict) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, width=110, allow_unicode=False)


def write_canonical_tasks(directory: str | os.PathLike | None = None) -> list[Path]:
    """Write the 25 canonical task files (the repository's tasks/*.yaml are made this way)."""
    from scicraft_viz.safeio import atomic_write

    d = Path(directory) if directory is not None else tasks_dir()
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for fam in FAMILIES:
        for lvl in LEVELS:
            doc = canonical_task(fam, lvl)
            p = d / f"{doc['task_id']}.yaml"
            header = (f"# SciCrafter task {doc['task_id']} (generated by scicraft_viz.tasks.write_canonical_tasks;"
                      " schema: scicraft_viz/schemas/task.schema.json)\n")
            atomic_write(p, (header + dump_yaml(doc)).encode("utf-8"), overwrite=True)  # whole or not at all
            out.append(p)
    return out


if __name__ == "__main__":  # pragma: no cover
    for p in write_canonical_tasks():
        print(p)
