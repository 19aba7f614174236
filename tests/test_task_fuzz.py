"""The task parser under hypothesis: any text, any mutation of a real task file and any document gives a
Task or a TaskError whose message is bounded and names the source, never another exception."""

import math
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from task_helpers import doc_paths

from scicraft_viz import tasks
from scicraft_viz.tasks import model

TASK_DIR = Path(__file__).resolve().parent.parent / "tasks"
TEXTS = {p.stem: p.read_text() for p in sorted(TASK_DIR.glob("*.yaml"))}
SOURCE = "fuzz.yaml"
# a line is the source, a field (clipped to MAX_EXCERPT) and a problem (clipped to twice that), plus counts
MAX_LINE = len(SOURCE) + 3 * model.MAX_EXCERPT + 100
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# fragments that exercise YAML's corners: anchors, aliases, tags, special floats, huge numbers, nesting
TOKENS = ["\n", "  ", "- ", ": ", "? ", "[", "]", "{", "}", ",", "&a ", "*a", "&b [*a, *a]",
          "!!python/object:os.system ", "!!binary ", "!!set ", "!!timestamp ", "!!bool ", "!!float ", ".nan", ".inf",
          "-.inf", "1.0e+400", "9" * 5000, "0x1F",
          "'", '"', "|", ">", "#", "---\n", "...\n", "%YAML 1.1\n", "\t", "\u2028", "\x00", "\ufeff", "é",
          "task_id", "contract", "tolerance_ticks", "tau_ticks", "delays_ticks", "quantity", "harness", "null", "~",
          "<<: ", "=", "[" * 60, "]" * 60]


def check(run):
    """`run()` gives a Task, or a TaskError with bounded, located lines; nothing else escapes."""
    try:
        t = run()
    except tasks.TaskError as e:
        lines = str(e).splitlines()
        assert 1 <= len(lines) <= model.MAX_PROBLEMS + 1
        assert all(line.startswith(f"{SOURCE}: ") and len(line) <= MAX_LINE for line in lines), lines
        return None
    assert isinstance(t, tasks.Task) and 1 <= t.n <= 512
    assert 1 <= t.record_game_ticks <= model.MAX_RECORD_GAME_TICKS and 1 <= t.trial_budget <= 1000
    assert all(math.isfinite(v) for v in _numbers(t.doc))
    t.parameters()
    return t


def _numbers(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _numbers(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _numbers(v)
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield float(obj)


@FUZZ
@given(st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=12)), max_size=40))
def test_token_soup(parts):
    check(lambda: tasks.load_text("".join(parts), SOURCE))


@st.composite
def mutated_task_text(draw):
    text = draw(st.sampled_from(sorted(TEXTS)))
    text = TEXTS[text]
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "replace_value", "duplicate_line"]))
        if kind == "insert":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        elif kind == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 40)):]
        elif kind == "duplicate_line":
            lines = text.splitlines(keepends=True)
            k = draw(st.integers(0, len(lines) - 1))
            text = "".join(lines[: k + 1] + [lines[k]] + lines[k + 1:])
        else:  # the value after one `key: ` becomes something else
            lines = text.splitlines(keepends=True)
            k = draw(st.integers(0, len(lines) - 1))
            if ": " in lines[k]:
                head = lines[k].split(": ", 1)[0]
                value = draw(st.sampled_from([".nan", ".inf", "-1", "1.0e+400", "1e400", "100001", "0", "2.5", "'x'",
                                              "[]", "{}", "null", "&z 1", "*z", "9" * 5000, "[" * 40]))
                lines[k] = f"{head}: {value}\n"
            text = "".join(lines)
    return text


@FUZZ
@given(mutated_task_text())
def test_mutated_task_files(text):
    check(lambda: tasks.load_text(text, SOURCE))


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=20,
)




DOCS = {k: yaml.safe_load(TEXTS[k]) for k in ("A_simultaneous_lights_L2", "B_branch_reach_L4",
                                               "C_sequential_activation_L3", "D_equal_delay_distribution_L2",
                                               "E_pulse_shaping_L1")}
PATHS = {k: list(doc_paths(d)) for k, d in DOCS.items()}


@FUZZ
@given(st.sampled_from(sorted(DOCS)), st.data(), json_values)
def test_any_value_anywhere_in_a_real_task(task_id, data, value):
    doc = yaml.safe_load(TEXTS[task_id])
    path = data.draw(st.sampled_from(PATHS[task_id]))
    cur = doc
    for key in path[:-1]:
        cur = cur[key]
    cur[path[-1]] = value
    check(lambda: tasks.from_dict(doc, SOURCE))
    # the same document written as YAML (safe_dump cannot write every float key; that is not the parser's fault)
    try:
        text = yaml.safe_dump(doc)
    except yaml.YAMLError:
        return
    check(lambda: tasks.load_text(text, SOURCE))


@FUZZ
@given(json_values)
def test_any_document(doc):
    check(lambda: tasks.from_dict(doc, SOURCE))
    check(lambda: tasks.load_text(yaml.safe_dump(doc), SOURCE))


@FUZZ
@given(st.text(max_size=300))
def test_any_task_id_is_a_known_id_or_refused(task_id):
    try:
        t = tasks.load_by_id(task_id)
    except tasks.TaskNotFoundError as e:
        assert len(str(e)) <= 2 * model.MAX_EXCERPT + 100 and "\n" not in str(e)
    else:
        assert task_id in tasks.task_ids() and t.id == task_id
