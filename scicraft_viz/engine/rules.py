"""Rule variants: the engine's timing and signal constants as data.

A `Ruleset` is a name plus parameters; `VANILLA` is Java Edition 1.20. Both engines read the ruleset at
run time (the reference kernels from meta slots of the World's Grid, the compiled engine from its state
header and from distances and delays folded in when it compiles), so a variant costs no recompile.
Variants exist to test whether a solution was understood or memorised (SciCrafter, Section 6.4): a task
may name one (`rules:` in its YAML) and a run may draw one from a seed (`random:SEED`).

Every parameter has a range. The ranges keep the engines exact (every delay stays below the compiled
engine's 256-tick timing wheel, and a torch keeps the 8-entry toggle history it burns out from) and keep
every mechanism the canonical tasks build on: dust still carries at least 4 blocks, repeaters still
regenerate and delay, torches still invert, lamps still light at once and buttons still pulse (only
locking can be switched off, and no reference solution uses it). The reference-solution builders
(`tasks/solutions.py`) follow the ruleset and have a design for every canonical task under every listed
variant; under a random or custom ruleset they may have none, say why (`reference_problem`), and a run
leaves such a pair out or redraws (docs/rule_variants.md).
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass, fields, replace

from scicraft_viz.errors import InputError

# name: (vanilla value, least, greatest, what it is)
PARAMS: dict[str, tuple[int, int, int, str]] = {
    "button_ticks": (20, 2, 60, "game ticks a pressed button stays on"),
    "torch_delay": (2, 1, 8, "game ticks a torch takes to switch"),
    "lamp_off_delay": (4, 1, 20, "game ticks a lamp stays lit after losing power"),
    "repeater_step": (2, 1, 6, "game ticks per repeater delay setting (a repeater waits setting x step)"),
    "dust_decay": (1, 1, 3, "power dust loses per block it carries a signal"),
    "burnout_count": (8, 2, 8, "toggles within 60 game ticks that burn a torch out"),
    "repeater_lockable": (1, 0, 1, "whether a repeater powered from the side by another repeater locks"),
}
BOOL_PARAMS = frozenset({"repeater_lockable"})
_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")


@dataclass(frozen=True)
class Ruleset:
    name: str = "vanilla"
    button_ticks: int = 20
    torch_delay: int = 2
    lamp_off_delay: int = 4
    repeater_step: int = 2
    dust_decay: int = 1
    burnout_count: int = 8
    repeater_lockable: bool = True

    def __post_init__(self):
        if not isinstance(self.name, str) or not (_NAME.fullmatch(self.name) or self.name.startswith("random:")):
            raise InputError(f"ruleset name {self.name!r}: use lower-case letters, digits, '-' and '_'")
        for k, (_, lo, hi, _what) in PARAMS.items():
            v = getattr(self, k)
            if k in BOOL_PARAMS:
                if not isinstance(v, bool):
                    raise InputError(f"ruleset {self.name}: {k} must be true or false, not {v!r}")
            elif type(v) is not int or not lo <= v <= hi:
                raise InputError(f"ruleset {self.name}: {k} must be a whole number from {lo} to {hi}, not {v!r}")

    @property
    def params(self) -> dict:
        """The parameters (everything but the name)."""
        d = asdict(self)
        del d["name"]
        return d

    @property
    def dust_reach(self) -> int:
        """How many dust blocks past the first a full-strength signal still reaches (14 in vanilla)."""
        return (15 - 1) // self.dust_decay

    def changes(self) -> dict:
        """The parameters that differ from vanilla, with their values."""
        return {k: v for k, v in self.params.items() if v != getattr(VANILLA, k)}

    def is_vanilla(self) -> bool:
        return not self.changes()

    def to_json(self) -> dict:
        return {"name": self.name, **self.params}

    def meta_values(self) -> tuple[int, ...]:
        """The values the reference kernels read, in the order of their R_* meta slots."""
        return (self.button_ticks, self.torch_delay, self.lamp_off_delay, self.repeater_step, self.dust_decay,
                self.burnout_count, int(self.repeater_lockable))


VANILLA = Ruleset()

# The listed variants: each changes one mechanism a canonical task depends on, and every canonical task can
# still be solved under it. Family E's windows bound the torch delay, the button pulse and the lamp off-delay
# from above (a lamp lit within the on-window stays lit until the button releases unless two torches light
# it, 2 x torch delay after the press): slower torches, a button held over 22 game ticks or lamps lingering
# over 4 leave some E task with no solution at all, so those three go the other way or only a little
# (docs/rule_variants.md gives the argument).
VARIANTS: dict[str, Ruleset] = {r.name: r for r in (
    VANILLA,
    Ruleset("fast-torches", torch_delay=1),
    Ruleset("short-dust", dust_decay=2),
    Ruleset("longer-button", button_ticks=22),
    Ruleset("short-button", button_ticks=10),
    Ruleset("slow-repeaters", repeater_step=4),
    Ruleset("quick-lamps", lamp_off_delay=1),
    Ruleset("fragile-torches", burnout_count=4),
    Ruleset("no-locking", repeater_lockable=False),
)}

# What `random:SEED` draws each parameter from (vanilla is among the choices of each).
RANDOM_CHOICES: dict[str, tuple] = {
    "button_ticks": (10, 15, 20, 30),
    "torch_delay": (1, 2, 3, 4),
    "lamp_off_delay": (2, 4, 8, 12),
    "repeater_step": (1, 2, 3, 4),
    "dust_decay": (1, 2),
    "burnout_count": (4, 6, 8),
    "repeater_lockable": (True, False),
}


def random_ruleset(seed: int) -> Ruleset:
    """The ruleset `random:SEED` names: every parameter drawn from RANDOM_CHOICES by a generator seeded
    with SEED (the same seed gives the same ruleset on every machine and Python version)."""
    rng = random.Random(f"scicraft-rules:{seed}")
    return Ruleset(f"random:{seed}", **{k: rng.choice(v) for k, v in RANDOM_CHOICES.items()})


def ruleset_from(spec: object, where: str = "rules") -> Ruleset:
    """A Ruleset from what a task file, a command line or a trajectory header gives: None (vanilla), a
    Ruleset, a listed name, "random:SEED", or a mapping {name?, base?, parameters...} whose parameters
    override those of `base` (a listed name, default vanilla)."""
    if spec is None:
        return VANILLA
    if isinstance(spec, Ruleset):
        return spec
    if isinstance(spec, str):
        s = spec.strip()
        if s in VARIANTS:
            return VARIANTS[s]
        m = re.fullmatch(r"random:(\d{1,18})", s)
        if m:
            return random_ruleset(int(m.group(1)))
        raise InputError(f"{where}: unknown ruleset {spec!r}; use one of {', '.join(VARIANTS)} or random:SEED "
                         "(SEED a whole number)")
    if isinstance(spec, dict):
        unknown = sorted(str(k) for k in spec if k not in PARAMS and k not in ("name", "base"))
        if unknown:
            raise InputError(f"{where}: unknown rule parameter(s) {', '.join(unknown)}; known: "
                             f"name, base, {', '.join(PARAMS)}")
        base = ruleset_from(spec.get("base", "vanilla"), f"{where}.base")
        params = {k: spec[k] for k in PARAMS if k in spec}
        if "name" in spec and not isinstance(spec["name"], str):
            raise InputError(f"{where}.name: must be a string, not {spec['name']!r}")
        name = spec.get("name") or (base.name if not params else "custom")
        try:
            rs = replace(base, name=name, **params)
        except InputError as e:
            raise InputError(f"{where}: {e}") from None
        if "name" in spec and rs.name in VARIANTS and rs != VARIANTS[rs.name]:
            raise InputError(f"{where}: name {rs.name!r} is a listed ruleset with other parameters; pick another name")
        return rs
    raise InputError(f"{where}: a ruleset is a name or a mapping of parameters, not {type(spec).__name__}")


def field_names() -> tuple[str, ...]:
    return tuple(f.name for f in fields(Ruleset))
