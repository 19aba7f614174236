"""Task files: the 25 canonical tasks, schema validation messages, loading and the generator."""

import copy
import os
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from task_helpers import doc_paths

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
    with pytest.raises(tasks.TaskNotFoundError) as e:
        tasks.load("A_simultanous_lights_L2")
    assert "(did you mean A_simultaneous_lights_L2?)" in str(e.value)
    # a level that does not exist is not a typo of another level: no suggestion points at a different task
    with pytest.raises(tasks.TaskNotFoundError) as e:
        tasks.load("A_simultaneous_lights_L9")
    assert "did you mean" not in str(e.value)
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
    with pytest.raises(tasks.TaskValidationError,
                       match=r"broken.yaml: \(top level\): the document is a list, not a mapping of task fields"):
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




_BASE = {i: canonical_doc(i) for i in ("B_branch_reach_L2", "C_sequential_activation_L1", "E_pulse_shaping_L2")}
_ALL_PATHS = {i: list(doc_paths(d)) for i, d in _BASE.items()}


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


# ------------------------------------------------------------------------------- ids from untrusted input
@pytest.mark.parametrize("task_id,message", [
    ("/etc/passwd", "task id '/etc/passwd' looks like a path; only a task id is accepted here"),
    ("../tasks/A_simultaneous_lights_L1", "looks like a path"),
    ("tasks/A_simultaneous_lights_L1.yaml", "looks like a path"),
    ("A_simultaneous_lights_L1/..", "looks like a path"),
    ("..", "looks like a path"),
    (".hidden", "looks like a path"),
    ("C:\\tasks\\x", "looks like a path"),
    ("A" * 121, "has 121 characters, more than the limit of 120"),
    ("A_simultaneous_lights_L1\n", "has characters other than printable ASCII"),
    ("A_simultaneous_lights_L1\u2028", "has characters other than printable ASCII"),
    ("A_simultäneous", "has characters other than printable ASCII"),
    ("", "the task id is empty"),
    ("A_simultaneous_lights_L9", "unknown task id 'A_simultaneous_lights_L9'; run 'scicraft-viz tasks' to list"),
    (None, "a task id must be a string, got NoneType"),
    (["A_simultaneous_lights_L1"], "a task id must be a string, got list"),
])
def test_load_by_id_refuses_everything_but_a_known_id(task_id, message):
    with pytest.raises(tasks.TaskNotFoundError) as ei:
        tasks.load_by_id(task_id)
    assert message in str(ei.value) and "\n" not in str(ei.value) and len(str(ei.value)) < 300


def test_load_by_id_never_reads_a_file_outside_the_task_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "A_outside.yaml").write_text(tasks.dump_yaml(tasks.generate_task("A", 3, task_id="A_outside")))
    assert tasks.load("A_outside.yaml").n == 3  # a program's own caller may pass a path
    with pytest.raises(tasks.TaskNotFoundError, match="unknown task id 'A_outside'"):
        tasks.load_by_id("A_outside")
    assert tasks.load_by_id("E_pulse_shaping_L5").n == 64


def test_load_by_id_takes_the_task_directory_stems_and_canonical_ids(tmp_path, monkeypatch):
    monkeypatch.setenv("SCICRAFT_TASKS_DIR", str(tmp_path))
    (tmp_path / "A_custom.yaml").write_text(tasks.dump_yaml(tasks.generate_task("A", 5, task_id="A_custom")))
    assert tasks.load_by_id("A_custom").n == 5
    t = tasks.load_by_id("C_sequential_activation_L2")  # no file: generated
    assert t.source == "<generated C_sequential_activation_L2>" and t.n == 8


# ------------------------------------------------------------------------------- the cache
def test_cached_tasks_are_copies_and_follow_the_file(tmp_path):
    assert tasks.model._YAML_LOADER is (yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader)
    p = tmp_path / "A_mine.yaml"
    p.write_text(tasks.dump_yaml(tasks.generate_task("A", 3, task_id="A_mine")))
    a = tasks.load(p)
    a.doc["contract"]["tolerance_ticks"] = 7
    a.contract["num_outputs"] = 99
    b = tasks.load(p)
    assert b.contract["tolerance_ticks"] == 1 and b.contract["num_outputs"] == 3 and b.doc is not a.doc
    p.write_text(tasks.dump_yaml(tasks.generate_task("A", 12, task_id="A_mine", tolerance=2)))
    c = tasks.load(p)
    assert c.n == 12 and c.contract["tolerance_ticks"] == 2
    g = tasks.load_by_id("B_branch_reach_L1")
    g.doc["outputs"]["lamps"]["quantity"] = 0
    assert tasks.load_by_id("B_branch_reach_L1").n == 4


# ------------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("task_id,path,value,expected", [
    ("A_simultaneous_lights_L1", ("contract", "tolerance_ticks"), ".nan",
     "contract.tolerance_ticks: nan is not a finite number"),
    ("A_simultaneous_lights_L1", ("contract", "tolerance_ticks"), ".inf",
     "contract.tolerance_ticks: inf is not a finite number"),
    ("E_pulse_shaping_L1", ("contract", "tau_ticks"), "-.inf", "contract.tau_ticks: -inf is not a finite number"),
    ("C_sequential_activation_L1", ("contract", "delays_ticks"), "[1, .nan, 1]",
     "contract.delays_ticks[1]: nan is not a finite number"),
    ("A_simultaneous_lights_L1", ("evaluation_metrics", "simultaneity", "weight"), ".NaN",
     "evaluation_metrics.simultaneity.weight: nan is not a finite number"),
    ("A_simultaneous_lights_L1", ("metadata", "estimated_difficulty_score"), "1.0e+400",
     "metadata.estimated_difficulty_score: inf is not a finite number"),
    ("E_pulse_shaping_L1", ("relaxation", "value"), ".nan", "relaxation.value: nan is not a finite number"),
    ("A_simultaneous_lights_L1", ("harness", "trial_budget"), "1001",
     "harness.trial_budget: 1001 is greater than the maximum of 1000"),
    ("A_simultaneous_lights_L1", ("world", "anchor"), "[0, 4, 1000000000]",
     "world.anchor[2]: 1000000000 is greater than the maximum of 30000000"),
    ("A_simultaneous_lights_L1", ("contract", "tolerance_ticks"), "100001",
     "contract.tolerance_ticks: 100001 is greater than the maximum of 100000"),
    ("A_simultaneous_lights_L1", ("outputs", "lamps", "quantity"), "9" * 5000,
     "line 36: a number written with 5000 characters, more than the limit of 100"),
])
def test_every_number_is_finite_and_in_range(task_id, path, value, expected):
    doc = canonical_doc(task_id)
    text = tasks.dump_yaml(_mutate(doc, path, "@@"))
    text = text.replace("'@@'", value)
    with pytest.raises(tasks.TaskValidationError) as ei:
        tasks.load_text(text, "t.yaml")
    assert any(p.startswith("t.yaml: ") and expected in p for p in ei.value.problems), ei.value.problems


def test_contract_timings_that_need_too_long_a_recording_are_refused():
    doc = canonical_doc("C_sequential_activation_L1")
    doc["contract"]["delays_ticks"] = [50000, 50000, 50000]
    del doc["harness"]["record_game_ticks"]
    assert tasks.validate(doc, "t.yaml") == [
        "t.yaml: harness.record_game_ticks: the contract's timings need 300106 game ticks of recording, more than "
        "the limit of 100000"]


# ------------------------------------------------------------------------------- hostile YAML
BILLION_LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))


@pytest.mark.parametrize("text,expected", [
    (BILLION_LAUGHS, "t.yaml: line 1: anchors and aliases (& and *) are not allowed in a task file"),
    ("task_id: A_x\nfamily: *x\n", "t.yaml: line 2: anchors and aliases (& and *) are not allowed in a task file"),
    ("x: !!python/object/apply:os.system ['true']\n",
     "t.yaml: line 1: tags (such as 'tag:yaml.org,2002:python/object/apply:os.system') are not allowed"),
    ("x: !!timestamp 12\n", "t.yaml: line 1: tags (such as 'tag:yaml.org,2002:timestamp') are not allowed"),
    ("[" * 33 + "]" * 33, "t.yaml: line 1: nested more than 32 levels deep"),
    ("[" * 200_000 + "]" * 200_000, "t.yaml: (top level): 400000 characters, more than the limit of 262144"),
    # deeper than libyaml's own nesting limit (newer PyYAML wheels refuse these in the parser already): the
    # refusal is still the project's, whichever layer stops first
    ("[" * 100_000 + "]" * 100_000, "t.yaml: line 1: nested more than 32 levels deep"),
    ("{a: " * 2000 + "}" * 2000, "t.yaml: line 1: nested more than 32 levels deep"),
    ("- " * 2000 + "x\n", "t.yaml: line 1: nested more than 32 levels deep"),
])
def test_hostile_yaml_is_refused_before_it_is_built(text, expected):
    with pytest.raises(tasks.TaskValidationError) as ei:
        tasks.load_text(text, "t.yaml")
    assert str(ei.value).startswith(expected), str(ei.value)


def test_a_parser_error_is_reported_in_the_projects_form(monkeypatch):
    """Whatever the YAML library says, and whichever check of its own it makes, the refusal is a
    TaskValidationError that names the file and the line and says the text is not valid YAML; the
    library's own words are not part of what is checked."""
    with pytest.raises(tasks.TaskValidationError) as ei:
        tasks.load_text("task_id: A_x\nfamily: [A\n", "t.yaml")
    (line,) = ei.value.problems
    assert line.startswith("t.yaml: line 3: invalid YAML: ") and "\n" not in line, line

    def refuse(*args, **kwargs):  # a parser that stops at the first character with a message of its own
        raise yaml.scanner.ScannerError(None, None, "any wording at all", yaml.Mark("t.yaml", 0, 0, 0, None, None))
        yield  # a generator, as yaml.parse is

    monkeypatch.setattr(tasks.model.yaml, "parse", refuse)
    with pytest.raises(tasks.TaskValidationError) as ei:
        tasks.load_text("task_id: A_x\n", "t.yaml")
    assert ei.value.problems == ["t.yaml: line 1: invalid YAML: any wording at all"]


def test_messages_quote_a_bounded_excerpt_and_count_the_rest():
    doc = canonical_doc()
    doc["task_name"] = "x" * 100_000
    (line,) = tasks.validate(doc, "t.yaml")
    assert line.startswith("t.yaml: task_name: has 100000 characters, more than the limit of 200")
    doc = canonical_doc()
    doc["task_id"] = "\u2028" * 300
    problems = tasks.validate(doc, "t.yaml")
    assert problems[-1] == "t.yaml: task_id: has 300 characters, more than the limit of 120"
    assert problems[0].startswith("t.yaml: task_id: '\\u2028\\u2028") and problems[0].endswith("pattern '^A_'")
    assert all(len(p) < 600 and "\u2028" not in p for p in problems)
    doc = canonical_doc()
    doc["requirements"] = list(range(60))
    problems = tasks.validate(doc, "t.yaml")
    assert len(problems) == tasks.model.MAX_PROBLEMS + 1
    assert problems[0] == "t.yaml: requirements[0]: 0 is not of type 'string'"
    assert problems[-1] == "t.yaml: (top level): 10 more problems"


def test_task_files_that_are_not_small_regular_utf8_files_are_refused(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(10**12)  # sparse: reading it would take a terabyte
    with pytest.raises(tasks.TaskValidationError, match=r"big.yaml: \(top level\): 1000000000000 bytes, more than "
                                                        r"the limit of 262144 bytes for a task file"):
        tasks.load(big)
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)  # no writer: opening it must not wait for one
    with pytest.raises(tasks.TaskNotFoundError, match="fifo.yaml is not a regular file"):
        tasks.load(fifo)
    with pytest.raises(tasks.TaskNotFoundError, match="task file /dev/zero is not a regular file"):
        tasks.load("/dev/zero")
    with pytest.raises(tasks.TaskNotFoundError, match=f"task file {tmp_path} is not a regular file"):
        tasks.load(tmp_path)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"task_id: A_caf\xe9\n")
    with pytest.raises(tasks.TaskValidationError, match=r"latin.yaml: \(top level\): not UTF-8 text \(byte 14\)"):
        tasks.load(latin)


@pytest.mark.parametrize("path,value", [
    (("requirements",), ["x"] * 10**6),
    (("task_description",), "x" * 10**7),
    (("metadata", "notes"), {f"k{i}": i for i in range(200_000)}),
])
def test_documents_bigger_than_a_task_file_are_refused_before_the_schema(path, value):
    """A trajectory header carries a task as JSON: it may be no bigger than a task file could be."""
    doc = _mutate(canonical_doc(), path, value)
    assert tasks.validate(doc, "h.jsonl") == [
        "h.jsonl: (top level): more values or text than a task file of 262144 bytes can hold"]


def test_documents_nested_deeper_than_a_task_file_are_refused():
    deep: list = []
    for _ in range(40):
        deep = [deep]
    doc = _mutate(canonical_doc(), ("metadata", "deep"), deep)
    (line,) = tasks.validate(doc, "h.jsonl")
    assert line.startswith("h.jsonl: metadata.deep[0][0]") and line.endswith(": nested more than 32 levels deep")
