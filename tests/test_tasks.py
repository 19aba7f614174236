"""Task files: the 25 canonical tasks, schema validation messages, loading and the generator."""

import copy
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import tasks

ROOT = Path(__file__).resolve().parent.parent
TASK_DIR = ROOT / "tasks"

TABLE3 = {
    # family -> level -> parameters of Table 3
    "B": {"L1": 8, "L2": 12, "L3": 15, "L4": 18, "L5": 20},
    "E": {"L1": 4, "L2": 6, "L3": 8, "L4": 10, "L5": 12},
}
TABLE4_HINTS = ["Strong-Power-Support-Block", "Nested-Hub-Fanout", "Signal-Strength-Decay",
                "Attenuation-Aware-Fanout", "Repeater-Signal-Regeneration"]


def canonical_doc(task_id="A_simultaneous_lights_L1"):
    return yaml.safe_load((TASK_DIR / f"{task_id}.yaml").read_text())


# ------------------------------------------------------------------------------- the 25 tasks
def test_task_ids_are_the_papers_25():
    ids = tasks.task_ids()
    assert len(ids) == 25
    for fam, slug in [("A", "simultaneous_lights"), ("B", "branch_reach"), ("C", "sequential_activation"),
                      ("D", "equal_delay_distribution"), ("E", "pulse_shaping")]:
        for lv in range(1, 6):
            assert f"{fam}_{slug}_L{lv}" in ids
    assert sorted(p.stem for p in TASK_DIR.glob("*.yaml")) == ids


@pytest.mark.parametrize("task_id", tasks.canonical_ids())
def test_canonical_file_loads_and_matches_generator(task_id):
    t = tasks.load(task_id)
    assert t.id == task_id and t.family == task_id[0] and t.level == task_id[-2:]
    # the file is exactly what the generator makes (no hand drift)
    assert canonical_doc(task_id) == tasks.canonical_task(t.family, t.level)
    assert t.tick_unit == "redstone"
    assert t.anchor == (0, 4, 0) and t.radius == 10
    assert t.floor == ("minecraft:stone", 3)
    assert t.n == {"L1": 4, "L2": 8, "L3": 16, "L4": 32, "L5": 64}[t.level]
    assert t.contract["num_outputs"] == t.n
    assert t.contract["tolerance_ticks"] == 1
    assert t.trial_budget == 50
    md = t.doc["metadata"]
    assert md["knowledge_gap"] and md["hint"] and md["interpretation"]
    for key in ("identity", "world", "allowed_blocks", "inputs", "outputs", "contract", "requirements",
                "evaluation_metrics", "test_cases", "metadata"):
        if key == "identity":
            assert {"task_id", "family", "level", "task_name", "task_description"} <= set(t.doc)
        else:
            assert key in t.doc
    assert set(t.allowed_blocks) == set(tasks.PALETTE)


def test_level_parameters_follow_table_3():
    for lv in tasks.LEVELS:
        b = tasks.load(f"B_branch_reach_{lv}").contract
        assert b["max_reach_blocks"] == TABLE3["B"][lv]
        assert b["require_t_junction"] is True
        assert b["require_repeater"] is (lv in ("L4", "L5"))
        e = tasks.load(f"E_pulse_shaping_{lv}").contract
        assert e["tau_ticks"] == TABLE3["E"][lv]
        d = tasks.load(f"D_equal_delay_distribution_{lv}")
        assert d.contract["target_distances"] == [4, 8, 12, 16]
        assert d.contract["lamps_per_distance"] == [d.n // 4] * 4
        c = tasks.load(f"C_sequential_activation_{lv}")
        k = (c.n - 2) // 2
        assert c.contract["delays_ticks"] == [1, 2] * k + [1]
    assert tasks.load("C_sequential_activation_L1").contract["delays_ticks"] == [1, 2, 1]


def test_family_a_hints_are_table_4():
    assert [tasks.load(f"A_simultaneous_lights_{lv}").doc["metadata"]["hint"] for lv in tasks.LEVELS] == TABLE4_HINTS
    hints = {tasks.load(i).doc["metadata"]["hint"] for i in tasks.task_ids()}
    assert len(hints) == 25  # one distinct phrase per level


def test_e_relaxation_is_marked():
    for lv in ("L1", "L2", "L3", "L4"):
        t = tasks.load(f"E_pulse_shaping_{lv}")
        r = t.relaxation
        assert r["field"] == "contract.on_window_ticks" and r["paper_value"] == 1 and r["value"] == 2
        assert t.contract["on_window_ticks"] == 2
        assert "Infeasible" in r["reason"] and "RELAXED" in t.doc["task_description"]
    t5 = tasks.load("E_pulse_shaping_L5")
    assert t5.relaxation is None and t5.contract["on_window_ticks"] == 1
    for i in tasks.task_ids():
        if not i.startswith("E_"):
            assert tasks.load(i).relaxation is None


def test_interpretations_are_stated_in_the_description():
    b = tasks.load("B_branch_reach_L1").doc["task_description"]
    assert "3 or 4 sides" in b and "Manhattan" in b and "off-axis" in b
    d = tasks.load("D_equal_delay_distribution_L1").doc["task_description"]
    assert "Manhattan distance" in d and "+/-1" in d


# ------------------------------------------------------------------------------- loading
def test_load_by_path_and_by_id_agree(tmp_path):
    p = tmp_path / "mine.yaml"
    p.write_text((TASK_DIR / "C_sequential_activation_L2.yaml").read_text())
    assert tasks.load(p).doc == tasks.load("C_sequential_activation_L2").doc


def test_unknown_task_is_refused_with_a_suggestion():
    with pytest.raises(tasks.TaskNotFoundError, match=r"did you mean A_simultaneous_lights_L\d"):
        tasks.load("A_simultaneous_lights_L9")
    with pytest.raises(tasks.TaskNotFoundError, match="does not exist"):
        tasks.load("nowhere/task.yaml")


def test_tasks_dir_override_and_generated_fallback(tmp_path, monkeypatch):
    monkeypatch.setenv("SCICRAFT_TASKS_DIR", str(tmp_path))
    assert tasks.task_ids() == tasks.canonical_ids()  # empty dir: the canonical 25, generated
    t = tasks.load("D_equal_delay_distribution_L3")
    assert t.source.startswith("<generated") and t.n == 16
    (tmp_path / "A_custom.yaml").write_text(tasks.dump_yaml(tasks.generate_task("A", 5, task_id="A_custom")))
    assert tasks.task_ids() == ["A_custom"]
    assert tasks.load("A_custom").n == 5


def test_paper_example_yaml_validates():
    """The paper's Appendix C.2 example (without our extra fields) is a valid task."""
    text = """
task_id: A_simultaneous_lights_L1
family: A
level: L1
task_name: Simultaneous Lights (N=4)
task_description: |
  Build a redstone circuit that turns on 4 lamps with (near) zero skew after a single button press.
difficulty: beginner
world: {anchor: [0, 4, 0], radius: 10}
allowed_blocks: [minecraft:stone_button, minecraft:redstone_lamp, minecraft:redstone_wire,
  minecraft:redstone_torch, minecraft:redstone_repeater, minecraft:stone, minecraft:glass, minecraft:air]
inputs: {button: {type: minecraft:stone_button, quantity: 1}}
outputs: {lamps: {type: minecraft:redstone_lamp, quantity: 4}}
contract: {type: simultaneity, tolerance_ticks: 1, num_outputs: 4}
requirements: [No block may be placed directly on top of a redstone_lamp]
evaluation_metrics:
  functional_correctness: {description: Verify all lamps activate, weight: 1.0,
                           check_method: verify_all_lamps_activated}
  simultaneity: {description: Max skew across lamps <= 1 tick, weight: 1.0,
                 check_method: verify_max_skew_within, params: {tolerance_ticks: 1}}
test_cases:
- name: single_press
  sequence: [{action: press_button}, {action: check_lamps_on}]
metadata: {learning_objectives: [strong_power_support_block], estimated_difficulty_score: 1.0}
"""
    t = tasks.load_text(text, "paper-A-L1")
    assert t.tick_unit == "redstone" and t.floor == ("minecraft:stone", 3)
    assert t.settle_game_ticks == 40 and t.trial_budget == 50


# ------------------------------------------------------------------------------- schema errors
def _mutate(doc, path, value):
    d = copy.deepcopy(doc)
    cur = d
    for k in path[:-1]:
        cur = cur[k]
    if value is KeyError:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value
    return d


BAD = [
    (("contract", "tolerance_ticks"), -1, "contract.tolerance_ticks: -1 is less than the minimum of 0"),
    (("contract",), KeyError, "contract: required field is missing"),
    (("contract", "type"), KeyError, "contract.type: required field is missing"),
    (("contract", "type"), "sequential", "contract.type: 'sequential' must be 'simultaneity'"),
    (("contract", "skew"), 3, "contract.skew: unknown field"),
    (("tick_unit",), "second", "tick_unit: 'second' is not one of redstone, game"),
    (("family",), "F", "family: 'F' is not one of A, B, C, D, E"),
    (("world", "radius"), "ten", "world.radius: 'ten' is not of type 'integer'"),
    (("world", "anchor"), [0, 4], "world.anchor: [0, 4] is too short"),
    (("outputs", "lamps", "quantity"), 0, "outputs.lamps.quantity: 0 is less than the minimum of 1"),
    (("inputs", "button", "quantity"), 2, "inputs.button.quantity: 2 must be 1"),
    (("allowed_blocks",), ["minecraft:stone", "minecraft:redstone_lamp", "minecraft:tnt"],
     "allowed_blocks[2]: 'minecraft:tnt' is not one of"),
    (("allowed_blocks",), ["minecraft:stone", "minecraft:redstone_lamp"], "allowed_blocks: must contain"),
    (("test_cases",), [], "test_cases: [] should be non-empty"),
    (("harness", "trial_budget"), 0, "harness.trial_budget: 0 is less than the minimum of 1"),
    (("task_id",), "B_simultaneous_lights_L1", "task_id: 'B_simultaneous_lights_L1' does not match"),
    (("extra_top",), 1, "extra_top: unknown field"),
]


@pytest.mark.parametrize("path,value,expected", BAD, ids=[".".join(b[0]) + f"={b[1]!r}"[:20] for b in BAD])
def test_schema_error_names_file_field_and_problem(path, value, expected):
    doc = _mutate(canonical_doc(), path, value)
    with pytest.raises(tasks.TaskValidationError) as ei:
        tasks.from_dict(doc, "tasks/A_simultaneous_lights_L1.yaml")
    lines = ei.value.problems
    assert all(line.startswith("tasks/A_simultaneous_lights_L1.yaml: ") for line in lines)
    assert any(expected in line for line in lines), lines


@pytest.mark.parametrize("task_id,path,value,expected", [
    ("A_simultaneous_lights_L1", ("contract", "num_outputs"), 5,
     "contract.num_outputs: 5 does not match outputs.lamps.quantity = 4"),
    ("C_sequential_activation_L1", ("contract", "delays_ticks"), [1, 2],
     "contract.delays_ticks: has 2 delays but N=4 lamps need N-1 = 3"),
    ("C_sequential_activation_L1", ("contract", "delays_ticks"), [1, -2, 1],
     "contract.delays_ticks[1]: -2 is less than the minimum of 0"),
    ("D_equal_delay_distribution_L1", ("contract", "target_distances"), [4, 5, 12, 16],
     "contract.target_distances: buckets 4 and 5 overlap"),
    ("D_equal_delay_distribution_L1", ("contract", "lamps_per_distance"), [2, 1, 1, 1],
     "contract.lamps_per_distance: sums to 5, must equal N = 4"),
    ("E_pulse_shaping_L1", ("contract", "tau_ticks"), 0, "contract.tau_ticks: 0 is less than or equal to the minimum"),
    ("E_pulse_shaping_L1", ("contract", "tau_ticks"), 2, "leaves no time between the on-window"),
    ("B_branch_reach_L1", ("contract", "max_reach_blocks"), 8.5, "contract.max_reach_blocks: 8.5 is not of type"),
    ("B_branch_reach_L1", ("level",), "L2", "task_id: 'B_branch_reach_L1' must end with '_L2'"),
    ("E_pulse_shaping_L1", ("relaxation", "reason"), KeyError, "relaxation.reason: required field is missing"),
])
def test_inconsistent_family_fields(task_id, path, value, expected):
    doc = _mutate(canonical_doc(task_id), path, value)
    problems = tasks.validate(doc, f"tasks/{task_id}.yaml")
    assert any(expected in p for p in problems), problems


def test_yaml_syntax_and_duplicate_keys_are_refused(tmp_path):
    p = tmp_path / "broken.yaml"
    p.write_text("task_id: A_x\nfamily: [A\n")
    with pytest.raises(tasks.TaskValidationError, match=r"broken.yaml: line \d+: invalid YAML"):
        tasks.load(p)
    p.write_text("task_id: A_x\ntask_id: A_y\n")
    with pytest.raises(tasks.TaskValidationError, match="duplicate key 'task_id'"):
        tasks.load(p)
    p.write_text("- just\n- a list\n")
    with pytest.raises(tasks.TaskValidationError, match=r"broken.yaml: \(top level\): .* is not of type 'object'"):
        tasks.load(p)


def test_every_problem_is_reported():
    doc = _mutate(canonical_doc(), ("contract", "tolerance_ticks"), -1)
    doc = _mutate(doc, ("tick_unit",), "x")
    assert len(tasks.validate(doc, "f.yaml")) == 2


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_arbitrary_text_is_refused_cleanly(text):
    try:
        tasks.load_text(text, "fuzz.yaml")
    except tasks.TaskValidationError as e:
        assert all(p.startswith("fuzz.yaml: ") for p in e.problems)


_values = st.one_of(st.none(), st.booleans(), st.integers(-5, 100), st.floats(allow_nan=False, width=32),
                    st.text(max_size=8), st.lists(st.integers(-2, 20), max_size=4),
                    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))


def _paths(doc, prefix=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


_BASE = {i: canonical_doc(i) for i in ("B_branch_reach_L2", "C_sequential_activation_L1", "E_pulse_shaping_L2")}
_ALL_PATHS = {i: list(_paths(d)) for i, d in _BASE.items()}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(_BASE)), st.data(), _values)
def test_mutated_documents_load_or_fail_with_located_messages(task_id, data, value):
    path = data.draw(st.sampled_from(_ALL_PATHS[task_id]))
    doc = _mutate(_BASE[task_id], path, value)
    try:
        t = tasks.from_dict(doc, "m.yaml")
    except tasks.TaskValidationError as e:
        assert e.problems and all(p.startswith("m.yaml: ") and p.count(": ") >= 2 for p in e.problems)
    else:
        assert t.n >= 1


# ------------------------------------------------------------------------------- generator
@pytest.mark.parametrize("family", tasks.FAMILIES)
@pytest.mark.parametrize("n", [2, 5, 12, 100])
def test_generator_any_family_and_n(family, n):
    doc = tasks.generate_task(family, n)
    t = tasks.from_dict(doc)
    assert t.n == n and t.family == family and t.level == "custom"
    assert t.id.startswith(f"{family}_") and t.id.endswith(f"_n{n}")
    assert tasks.load_text(tasks.dump_yaml(doc)).doc == t.doc  # round-trips through YAML


def test_generator_parameters():
    c = tasks.from_dict(tasks.generate_task("C", 4, delays=[3, 1, 4], tick_unit="game", tolerance=0))
    assert c.contract["delays_ticks"] == [3, 1, 4] and c.tick_unit == "game" and c.unit == "gt"
    assert c.record_game_ticks == 3 + 1 + 4 + 100
    b = tasks.from_dict(tasks.generate_task("B", 6, max_reach=17))
    assert b.contract["require_repeater"] is True  # beyond the 15-block dust budget
    d = tasks.from_dict(tasks.generate_task("D", 7, distances=[3, 9]))
    assert d.contract["lamps_per_distance"] == [4, 3]
    e = tasks.from_dict(tasks.generate_task("E", 3, tau=7, on_window=2))
    assert (e.contract["tau_ticks"], e.contract["on_window_ticks"]) == (7, 2)
    assert e.to_game(7) == 14 and e.from_game(15) == 7.5
    with pytest.raises(tasks.TaskError):
        tasks.generate_task("F", 4)
    with pytest.raises(tasks.TaskError):
        tasks.generate_task("A", 0)
    assert tasks.generate_task("D", 2)["contract"]["target_distances"] == [4, 8]
    with pytest.raises(tasks.TaskValidationError, match="3 distance buckets but only 2 lamps"):
        tasks.generate_task("D", 2, distances=[4, 8, 12])


def test_region_and_initial_world():
    t = tasks.load("A_simultaneous_lights_L1")
    assert t.in_region((10, 14, -10)) and t.in_region((0, -6, 0))
    assert not t.in_region((11, 4, 0)) and not t.in_region((0, 15, 0))
    floor = t.initial_blocks()
    assert len(floor) == 21 * 21 and set(floor.values()) == {"minecraft:stone"}
    assert {p[1] for p in floor} == {3}
