"""Rule variants (engine/rules.py): each parameter's effect on the reference engine, exactly, and the
compiled engine agreeing with it tick for tick under every listed variant and under random rulesets."""

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import World, evaluator, tasks
from scicraft_viz.engine.blocks import is_attached
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.engine.rules import (
    PARAMS,
    RANDOM_CHOICES,
    VANILLA,
    VARIANTS,
    Ruleset,
    random_ruleset,
    ruleset_from,
)
from scicraft_viz.errors import InputError
from tests.test_compiled import _compare, _compare_or_refused, random_circuit

SOLUTIONS = sorted(Path(__file__).resolve().parent.parent.joinpath("tasks", "solutions").glob("*.mcfunction"))


# ------------------------------------------------------------------------------------- the Ruleset
def test_vanilla_is_the_default_everywhere():
    assert World().rules == VANILLA == ruleset_from(None) == ruleset_from("vanilla")
    assert VANILLA.is_vanilla() and VANILLA.changes() == {} and VANILLA.dust_reach == 14
    assert all(getattr(VANILLA, k) == v[0] for k, v in PARAMS.items() if k != "repeater_lockable")
    assert tasks.load("A_simultaneous_lights_L1").rules == VANILLA


def test_every_listed_variant_changes_one_parameter():
    for name, rs in VARIANTS.items():
        assert rs.name == name
        assert len(rs.changes()) == (0 if name == "vanilla" else 1)


def test_random_rulesets_are_drawn_from_the_listed_choices_and_repeat_by_seed():
    a, b = random_ruleset(12), ruleset_from("random:12")
    assert a == b and a.name == "random:12"
    assert all(getattr(a, k) in v for k, v in RANDOM_CHOICES.items())
    assert len({random_ruleset(s).params.__repr__() for s in range(40)}) > 30


def test_inline_parameters_over_a_base():
    rs = ruleset_from({"base": "fast-torches", "button_ticks": 12})
    assert (rs.name, rs.torch_delay, rs.button_ticks, rs.dust_decay) == ("custom", 1, 12, 1)
    assert ruleset_from({"name": "mine", "dust_decay": 2}).name == "mine"
    assert ruleset_from({"base": "short-dust"}) == VARIANTS["short-dust"]
    # a trajectory header from when slow-torches was listed (torch delay 4) still reads, as a custom ruleset
    old = ruleset_from(dict(VANILLA.to_json(), name="slow-torches", torch_delay=4), "header.rules")
    assert (old.name, old.changes()) == ("slow-torches", {"torch_delay": 4}) and "slow-torches" not in VARIANTS


@pytest.mark.parametrize("spec, words", [
    ("fast", "unknown ruleset 'fast'"),
    ("random:x", "unknown ruleset 'random:x'"),
    ({"torch_delay": 0}, "torch_delay must be a whole number from 1 to 8, not 0"),
    ({"torch_delay": 2.5}, "torch_delay must be a whole number from 1 to 8, not 2.5"),
    ({"torch_delay": True}, "torch_delay must be a whole number from 1 to 8, not True"),
    ({"repeater_lockable": 1}, "repeater_lockable must be true or false, not 1"),
    ({"dust_range": 3}, "unknown rule parameter(s) dust_range"),
    ({"name": "short-dust", "dust_decay": 3}, "name 'short-dust' is a listed ruleset with other parameters"),
    ({"name": "Bad Name"}, "ruleset name 'Bad Name'"),
    (7, "a ruleset is a name or a mapping of parameters, not int"),
])
def test_bad_rulesets_are_named(spec, words):
    with pytest.raises(InputError) as e:
        ruleset_from(spec)
    assert words in str(e.value)


def test_task_field_is_validated_with_a_clear_message():
    doc = tasks.load("A_simultaneous_lights_L1").doc
    good = dict(doc, rules={"base": "short-dust", "torch_delay": 3})
    t = tasks.from_dict(good, "t.yaml")
    assert (t.rules.dust_decay, t.rules.torch_delay) == (2, 3)
    assert tasks.validate(dict(doc, rules="sticky"), "t.yaml") == [
        "t.yaml: rules: unknown ruleset 'sticky'; use one of " + ", ".join(VARIANTS) + " or random:SEED "
        "(SEED a whole number)"]
    assert tasks.validate(dict(doc, rules={"torch_delay": 99}), "t.yaml") == [
        "t.yaml: rules: ruleset custom: torch_delay must be a whole number from 1 to 8, not 99"]
    (wrong_type,) = tasks.validate(dict(doc, rules=5), "t.yaml")
    assert wrong_type.startswith("t.yaml: rules: ")


# ------------------------------------------------------------------------------------- the reference engine
def _floor(w: World, n: int = 24) -> None:
    w.set_blocks([((x, 3, z), "stone") for x in range(-2, n) for z in range(-3, 4)])


def test_dust_decay_sets_the_loss_per_block():
    for decay in (1, 2, 3):
        w = World(rules={"dust_decay": decay})
        _floor(w)
        w.set_block((0, 4, 0), "lever[face=floor]")
        w.set_blocks([((x, 4, 0), "redstone_wire") for x in range(1, 18)])
        w.use((0, 4, 0))
        w.step(1)
        assert [w.power((x, 4, 0)).level for x in range(1, 18)] == [max(0, 15 - decay * k) for k in range(17)]


def _ticks_until(w: World, pos, want: bool, limit: int = 200) -> int:
    for t in range(limit):
        if w.get_block(pos).endswith(("lit=true]", "powered=true]")) == want:
            return t
        w.step(1)
    raise AssertionError("never")


@pytest.mark.parametrize("delay", [1, 2, 5])
def test_torch_delay(delay):
    w = World(rules={"torch_delay": delay})
    _floor(w)
    w.set_blocks([((0, 4, 0), "lever[face=floor]"), ((1, 4, 0), "redstone_wire"), ((2, 4, 0), "stone"),
                  ((3, 4, 0), "redstone_wall_torch[facing=east]")])
    w.use((0, 4, 0))
    assert _ticks_until(w, (3, 4, 0), False) == delay


@pytest.mark.parametrize("ticks", [2, 20, 37])
def test_button_pulse_length(ticks):
    w = World(rules={"button_ticks": ticks})
    _floor(w)
    w.set_blocks([((0, 4, 0), "stone_button[face=floor]"), ((1, 4, 0), "redstone_lamp")])
    w.use((0, 4, 0))
    assert _ticks_until(w, (0, 4, 0), False) == ticks


@pytest.mark.parametrize("delay", [1, 4, 13])
def test_lamp_off_delay(delay):
    w = World(rules={"lamp_off_delay": delay})
    _floor(w)
    w.set_blocks([((0, 4, 0), "lever[face=floor]"), ((1, 4, 0), "redstone_lamp")])
    w.use((0, 4, 0))
    w.step(1)
    w.use((0, 4, 0))
    assert _ticks_until(w, (1, 4, 0), False) == delay


@pytest.mark.parametrize("step", [1, 2, 4])
def test_repeater_step(step):
    w = World(rules={"repeater_step": step})
    _floor(w)
    w.set_blocks([((0, 4, 0), "lever[face=floor]"), ((1, 4, 0), "redstone_repeater[facing=west,delay=3]"),
                  ((2, 4, 0), "redstone_wire")])
    w.use((0, 4, 0))
    assert _ticks_until(w, (1, 4, 0), True) == 3 * step


@pytest.mark.parametrize("lockable", [True, False])
def test_repeater_lockable(lockable):
    w = World(rules={"repeater_lockable": lockable})
    _floor(w)
    # a side repeater, powered by a lever, faces into the main repeater's side
    w.set_blocks([((0, 4, 1), "lever[face=floor]"), ((1, 4, 1), "redstone_repeater[facing=west,delay=1]"),
                  ((1, 4, -1), "lever[face=floor]"), ((1, 4, 0), "redstone_repeater[facing=north,delay=1]")])
    w.use((1, 4, -1))  # the side repeater turns on
    w.step(10)
    assert w.get_block((1, 4, 1)).endswith(f"locked={str(lockable).lower()},powered=false]")
    w.use((0, 4, 1))
    w.step(10)
    assert w.get_block((1, 4, 1)).endswith("powered=false]" if lockable else "powered=true]")


def _torch_clock(rules) -> World:
    w = World(rules=rules)
    _floor(w, 4)
    w.set_blocks([((0, 4, 0), "stone"), ((1, 4, 0), "redstone_wall_torch[facing=east]"),
                  ((1, 4, 1), "redstone_wire"), ((0, 4, 1), "redstone_wire"), ((0, 5, 0), "redstone_wire")])
    return w


@pytest.mark.parametrize("count", [2, 4, 8])
def test_burnout_count(count):
    w = _torch_clock({"burnout_count": count})
    offs = 0
    lit = True
    for _ in range(120):
        w.step(1)
        now = w.get_block((1, 4, 0)).endswith("lit=true]")
        offs += lit and not now
        lit = now
    assert offs == count and not lit


def test_copies_keep_the_ruleset():
    w = World(rules="fast-torches")
    assert w.copy().rules is w.rules


# ------------------------------------------------------------------------------------- both engines
def _solution_world(path: Path, rules: Ruleset) -> tuple[World, object]:
    task = tasks.load(path.stem).with_rules(rules)
    w = evaluator.build_world(task, path.read_text())
    assert w.rules == rules
    w.step(task.settle_game_ticks)
    (button,) = [p for p, s in w.blocks().items() if s.startswith("minecraft:stone_button")]
    return w, button


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "vanilla"])
def test_reference_solutions_tick_identical_under_every_variant(variant):
    rs = VARIANTS[variant]
    compiled = 0
    for path in SOLUTIONS:
        w, button = _solution_world(path, rs)
        try:
            cw = compile_world(w)
        except CompileRefused as e:  # a variant may make a build one the graph cannot follow: it says why
            assert str(e)
            continue
        compiled += 1
        ticks = _compare(w, cw, [(button, rs.button_ticks + 9)] * 4)
        assert ticks == 4 * (rs.button_ticks + 10) or cw.stopped
    assert compiled >= 20  # the comparison means something only if the graph follows most builds


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "vanilla"])
def test_solutions_built_for_a_variant_tick_identical_in_both_engines(variant):
    """The builders' designs that differ from the vanilla one (made for the variant) run alike in both engines."""
    from scicraft_viz.tasks.solutions import solution_blocks

    rs = VARIANTS[variant]
    own = 0
    for path in SOLUTIONS:
        task = tasks.load(path.stem)
        blocks = solution_blocks(task.with_rules(rs))
        if blocks == solution_blocks(task):
            continue
        own += 1
        w = evaluator.build_world(task.with_rules(rs), blocks)
        w.step(task.settle_game_ticks)
        (button,) = [p for p, s in w.blocks().items() if s.startswith("minecraft:stone_button")]
        cw = compile_world(w)  # every design the builders make is one the compiled engine follows
        assert _compare(w, cw, [(button, rs.button_ticks + 9)] * 4) == 4 * (rs.button_ticks + 10) or cw.stopped
    # how many canonical tasks the variant gives a design of its own (the rest keep the vanilla one)
    assert own == {"fast-torches": 1, "short-dust": 17, "longer-button": 0, "short-button": 3, "slow-repeaters": 9,
                   "quick-lamps": 4, "fragile-torches": 0, "no-locking": 0}[variant]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False), seed=st.integers(0, 10**6))
def test_random_circuits_tick_identical_under_random_rulesets(rnd, seed):
    rs = random_ruleset(seed)
    w = random_circuit(rnd)
    _compare_or_refused(_rebuilt(w, rs), rnd, 6, 40)


def _rebuilt(w: World, rs: Ruleset) -> World:
    """The random circuit's blocks placed again, in order, in a world under rs, then settled."""
    out = World(log_events=False, rules=rs)
    out.set_blocks(sorted(w.blocks().items(), key=lambda kv: (kv[0][1], kv[0])))
    out.step(random.Random(rs.name).randint(0, 40))
    return out


def test_pure_python_kernels_follow_the_ruleset_as_the_jit_does():
    import numpy as np

    rs = random_ruleset(2)  # every parameter but the burn-out count changed
    path = next(p for p in SOLUTIONS if p.stem == "C_sequential_activation_L2")
    task = tasks.load(path.stem).with_rules(rs)
    items = evaluator.parse_build(path.read_text())
    traces = []
    for jit in (True, False):
        w = World(jit=jit, rules=rs)
        w.set_blocks(task.initial_blocks().items())
        w.set_blocks(sorted(items, key=lambda it: (is_attached(it[1]), it[0][1], it[0])))
        w.step(task.settle_game_ticks)
        (button,) = [p for p, s in w.blocks().items() if s.startswith("minecraft:stone_button")]
        w.use(button)
        traces.append(w.record(80))
    assert np.array_equal(traces[0].lamp_lit, traces[1].lamp_lit)
    assert np.array_equal(traces[0].component_on, traces[1].component_on)
    assert traces[0].lamp_lit.any() and not traces[0].lamp_lit[0].any()
