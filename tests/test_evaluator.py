"""The evaluator: temporal contracts on synthetic traces, constraints on synthetic block maps,
and the full stimulus/record procedure on small engine worlds."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import evaluator as ev
from scicraft_viz import tasks

P = [(1, 4, 1), (2, 4, 1), (3, 4, 1), (4, 4, 1)]


def trace(rows, spec):
    """bool (rows, L): spec is a list of (on, off) game ticks per lamp (off None = stays lit, on None = never)."""
    lit = np.zeros((rows, len(spec)), bool)
    for j, (on, off) in enumerate(spec):
        if on is not None:
            lit[on:off, j] = True
    return lit


def by_name(checks):
    return {c.name: c for c in checks}


def task(family, n=4, **kw):
    return tasks.from_dict(tasks.generate_task(family, n, **kw))


# ------------------------------------------------------------------------------- lamp times
def test_lamp_times():
    lit = trace(30, [(2, 10), (None, None), (0, None), (4, 6)])
    lit[20:22, 3] = True
    ons, offs, again = ev.lamp_times(lit)
    assert ons == [2, None, 0, 4] and offs == [10, None, None, 6] and again == [None, None, None, 20]


# ------------------------------------------------------------------------------- simultaneity (eq. 7/9)
def test_simultaneity_within_tolerance_in_redstone_ticks():
    t = task("A")  # tolerance 1 rt = 2 gt
    checks, m = ev.contract_checks(t, P, trace(40, [(2, 22), (4, 24), (3, 23), (2, 22)]))
    c = by_name(checks)
    assert c["all_lamps_activate"].passed and c["simultaneity"].passed
    assert m["skew"] == 1 and [x["on"] for x in m["lamps"]] == [1, 2, 1.5, 1]


def test_simultaneity_skew_too_large_names_the_lamps():
    t = task("A")
    checks, m = ev.contract_checks(t, P, trace(40, [(2, 22), (8, 28), (2, 22), (2, 22)]))
    c = by_name(checks)["simultaneity"]
    assert not c.passed and m["skew"] == 3
    assert "3 rt apart" in c.reason and "(2, 4, 1) at +4 rt" in c.reason and "allowed skew is 1 rt" in c.reason


def test_simultaneity_in_game_ticks():
    t = task("A", tick_unit="game", tolerance=1)
    checks, m = ev.contract_checks(t, P, trace(40, [(2, None), (4, None), (2, None), (2, None)]))
    c = by_name(checks)["simultaneity"]
    assert not c.passed and m["skew"] == 2 and "2 gt apart" in c.reason and "1 gt" in c.reason


def test_lamp_that_never_lights():
    t = task("D")
    checks, _ = ev.contract_checks(t, P, trace(51, [(2, 22), (None, None), (2, 22), (2, 22)]))
    c = by_name(checks)
    assert not c["all_lamps_activate"].passed
    assert "1 of 4 lamp(s) never turned on within 25 rt after the press: (2, 4, 1)" == c["all_lamps_activate"].reason
    assert not c["simultaneity"].passed and "never did" in c["simultaneity"].reason
    checks, _ = ev.contract_checks(t, P, trace(50, [(None, None)] * 4))
    assert "no lamp turned on" in by_name(checks)["simultaneity"].reason


# ------------------------------------------------------------------------------- sequential (eq. 8)
def test_sequence_passes_with_order_from_on_ticks():
    t = task("C")  # delays [1, 2, 1] rt, tol 1 rt
    # lamps listed out of order: stage order comes from the on-ticks
    lit = trace(60, [(8, 28), (2, 22), (10, 30), (4, 24)])
    checks, m = ev.contract_checks(t, P, lit)
    assert by_name(checks)["sequence"].passed
    assert m["delays"] == [1, 2, 1] and m["order"][0] == [2, 4, 1]


def test_sequence_edges_of_tolerance():
    t = task("C")
    ok, _ = ev.contract_checks(t, P, trace(60, [(2, None), (2, None), (8, None), (12, None)]))  # 0, 3, 2 rt
    assert by_name(ok)["sequence"].passed
    bad, m = ev.contract_checks(t, P, trace(60, [(2, None), (2, None), (10, None), (12, None)]))  # 0, 4, 1
    c = by_name(bad)["sequence"]
    assert not c.passed and m["delays"] == [0, 4, 1]
    assert "stage 2->3" in c.reason and "delay 4 rt, expected 2 rt +/- 1 rt" in c.reason


def test_sequence_missing_stage():
    t = task("C")
    checks, _ = ev.contract_checks(t, P, trace(60, [(2, None), (4, None), (None, None), (None, None)]))
    c = by_name(checks)["sequence"]
    assert not c.passed and c.reason.startswith("only 2 of 4 stages lit (2 lamp(s) never turned on)")


def test_sequence_in_game_ticks_with_zero_tolerance():
    t = task("C", tick_unit="game", tolerance=0, delays=[2, 4, 2])
    checks, _ = ev.contract_checks(t, P, trace(60, [(1, None), (3, None), (7, None), (9, None)]))
    assert by_name(checks)["sequence"].passed
    checks, _ = ev.contract_checks(t, P, trace(60, [(1, None), (3, None), (8, None), (10, None)]))
    assert "delay 5 gt, expected 4 gt +/- 0 gt" in by_name(checks)["sequence"].reason


# ------------------------------------------------------------------------------- pulse (eqs. 10-11)
def test_pulse_exact():
    t = task("E", tau=6, on_window=2)  # on within 2 rt, off in [5, 7] rt
    checks, m = ev.contract_checks(t, P, trace(80, [(4, 12)] * 4))
    c = by_name(checks)
    assert c["pulse_on_window"].passed and c["pulse_off_window"].passed and c["single_pulse"].passed
    assert m["pulse_widths"] == [4] * 4 and m["lamps"][0]["off"] == 6


@pytest.mark.parametrize("spec,check,words", [
    ([(6, 12)], "pulse_on_window", "turned on at +3 rt (must turn on within [0, 2] rt of the press)"),
    ([(0, 8)], "pulse_off_window", "went dark at +4 rt (lit for 4 rt); it must go dark within [5, 7] rt"),
    ([(0, 16)], "pulse_off_window", "went dark at +8 rt"),
    ([(0, None)], "pulse_off_window", "was still lit at the end of the recording"),
    ([(None, None)], "pulse_on_window", "not every lamp turned on"),
])
def test_pulse_failures(spec, check, words):
    t = task("E", 1, tau=6, on_window=2)
    checks, _ = ev.contract_checks(t, P[:1], trace(80, spec))
    c = by_name(checks)[check]
    assert not c.passed and words in c.reason


def test_pulse_must_not_relight():
    t = task("E", 1, tau=6, on_window=2)
    lit = trace(80, [(4, 12)])
    lit[30:40, 0] = True
    checks, _ = ev.contract_checks(t, P[:1], lit)
    c = by_name(checks)
    assert c["pulse_off_window"].passed and not c["single_pulse"].passed
    assert "lit again at +15 rt" in c["single_pulse"].reason


def test_paper_on_window_refuses_the_monostable_timing():
    strict = task("E", 1, tau=6, on_window=1)  # the paper's eq. 10
    checks, _ = ev.contract_checks(strict, P[:1], trace(80, [(4, 12)]))
    assert not by_name(checks)["pulse_on_window"].passed


# ------------------------------------------------------------------------------- structure
FLOOR = {(x, 3, z): "minecraft:stone" for x in range(-10, 11) for z in range(-10, 11)}
LAMP = "minecraft:redstone_lamp[lit=false]"
BUTTON = "minecraft:stone_button[face=floor,facing=north,powered=false]"
WIRE = "minecraft:redstone_wire[east=none,north=none,power=0,south=none,west=none]"


def blocks_with(extra):
    b = dict(FLOOR)
    b.update(extra)
    return b


def four_lamps(extra=None):
    d = {(0, 4, 0): BUTTON, (2, 4, 2): LAMP, (-2, 4, 2): LAMP, (2, 4, -2): LAMP, (-2, 4, -2): LAMP}
    d.update(extra or {})
    return blocks_with(d)


def test_structure_all_good():
    checks, info = ev.structural_checks(task("A"), four_lamps())
    assert all(c.passed for c in checks), [c.reason for c in checks if not c.passed]
    assert info["buttons"] == [(0, 4, 0)] and len(info["lamps"]) == 4


def test_palette_allows_wall_torch_but_not_lever():
    torch = "minecraft:redstone_wall_torch[facing=east,lit=true]"
    ok, _ = ev.structural_checks(task("A"), four_lamps() | {(5, 4, 5): torch})
    assert by_name(ok)["palette"].passed
    lever = "minecraft:lever[face=floor,facing=north,powered=false]"
    bad, _ = ev.structural_checks(task("A"), four_lamps() | {(5, 4, 5): lever})
    c = by_name(bad)["palette"]
    assert not c.passed
    assert c.reason.startswith("1 block(s) not in the allowed palette: minecraft:lever at (5, 4, 5) (allowed: ")


def test_region():
    extra = {(11, 4, 0): "minecraft:glass", (0, 15, 0): "minecraft:stone"}
    checks, _ = ev.structural_checks(task("A"), four_lamps() | extra)
    c = by_name(checks)["region"]
    assert not c.passed and "2 block(s) outside the radius-10 cube around the anchor (0, 4, 0)" in c.reason
    assert "glass at (11, 4, 0)" in c.reason


def test_button_and_lamp_counts():
    b = four_lamps()
    del b[(0, 4, 0)]
    c = by_name(ev.structural_checks(task("A"), b)[0])
    assert not c["one_button"].passed and c["one_button"].reason == "there is no stone_button to press"
    c = by_name(ev.structural_checks(task("A"), four_lamps() | {(5, 4, 0): BUTTON})[0])
    assert "2 stone_buttons at (0, 4, 0), (5, 4, 0); exactly one is allowed" == c["one_button"].reason
    c = by_name(ev.structural_checks(task("A", 5), four_lamps())[0])
    assert c["lamp_count"].reason == "4 redstone_lamps placed, the task needs exactly 5"


def test_nothing_on_top_of_a_lamp():
    c = by_name(ev.structural_checks(task("A"), four_lamps() | {(2, 5, 2): WIRE})[0])["nothing_on_lamps"]
    assert not c.passed
    assert c.reason == "redstone_wire at (2, 5, 2) sits directly on top of the lamp at (2, 4, 2)"
    # beside a lamp is fine
    assert by_name(ev.structural_checks(task("A"), four_lamps() | {(3, 5, 2): WIRE})[0])["nothing_on_lamps"].passed


def test_t_junction_detection():
    w = WIRE
    line = {(0, 5, 0): w, (1, 5, 0): w, (2, 5, 0): w}
    assert ev.t_junctions(line) == []
    tee = line | {(1, 5, 1): w}
    assert ev.t_junctions(tee) == [(1, 5, 0)]
    lone_cross = {(5, 5, 5): w}
    assert ev.t_junctions(lone_cross) == []
    # up/down connections count; an opaque block above cuts the upward one
    stair = {(0, 5, 0): w, (-1, 5, 0): w, (0, 5, 1): w, (1, 6, 0): w, (1, 5, 0): "minecraft:stone"}
    assert ev.dust_connections(stair, (0, 5, 0)) == ["east", "south", "west"]
    assert ev.t_junctions(stair | {(0, 6, 0): "minecraft:stone"}) == []
    # repeaters connect only at their front and back
    rep = {(0, 5, 0): w, (-1, 5, 0): w, (1, 5, 0): w,
           (0, 5, 1): "minecraft:redstone_repeater[delay=1,facing=east,locked=false,powered=false]"}
    assert ev.t_junctions(rep) == []
    rep[(0, 5, 1)] = "minecraft:redstone_repeater[delay=1,facing=south,locked=false,powered=false]"
    assert ev.t_junctions(rep) == [(0, 5, 0)]


def test_branch_reach_checks():
    t = task("B", 4, max_reach=8, require_repeater=True)
    b = four_lamps()
    c = by_name(ev.structural_checks(t, b)[0])
    assert not c["t_junction"].passed and "no T-junction" in c["t_junction"].reason
    assert not c["reach"].passed and "farthest lamp is 4 blocks" in c["reach"].reason
    assert c["off_axis"].passed
    assert not c["repeater_used"].passed
    b = four_lamps({(8, 4, 0): LAMP})
    b.pop((2, 4, 2))
    c = by_name(ev.structural_checks(t, b)[0])
    assert c["reach"].passed and not c["off_axis"].passed
    assert "lamp(s) at (8, 4, 0) share the button's x or z coordinate" in c["off_axis"].reason


def test_distance_buckets():
    t = task("D", 4, distances=[2, 4], distance_tolerance=0)  # 2 lamps per bucket, exact distances
    b = blocks_with({(0, 4, 0): BUTTON, (1, 4, 1): LAMP, (-1, 4, 1): LAMP, (2, 4, 2): LAMP, (-2, 4, 2): LAMP})
    c = by_name(ev.structural_checks(t, b)[0])["distance_buckets"]
    assert c.passed and c.details["counts"] == [2, 2]
    del b[(-2, 4, 2)]
    b[(-3, 4, 2)] = LAMP
    c = by_name(ev.structural_checks(t, b)[0])["distance_buckets"]
    assert not c.passed
    assert "lamp at (-3, 4, 2) is 5 blocks from the button, not within +/-0 of any of [2, 4]" in c.reason
    assert "distance 4: 1 lamp(s), expected 2" in c.reason
    # with a tolerance of 1 the same lamp falls in the bucket of 4
    t1 = task("D", 4, distances=[2, 5], distance_tolerance=1)
    assert by_name(ev.structural_checks(t1, b)[0])["distance_buckets"].passed


# ------------------------------------------------------------------------------- full evaluation
def small_a_build():
    """Button on a stone, dust ring: 4 lamps lit by dust pointing into them (N=4, skew 0)."""
    return "\n".join([
        "# four lamps around a button",
        "setblock 0 4 0 stone",
        "setblock 0 5 0 stone_button[face=floor]",
        "setblock 0 5 1 redstone_repeater[facing=north,delay=1]",
        "setblock 0 4 1 stone",
        "setblock 0 4 2 stone",
        "setblock 0 5 2 redstone_wire",
        "setblock -1 4 2 stone", "setblock 1 4 2 stone",
        "setblock -1 5 2 redstone_wire", "setblock 1 5 2 redstone_wire",
        "setblock -1 4 1 redstone_lamp", "setblock 1 4 1 redstone_lamp",
        "setblock -1 4 3 redstone_lamp", "setblock 1 4 3 redstone_lamp",
    ]) + "\n"


def test_evaluate_small_build():
    t = task("A")
    r = ev.evaluate(t, small_a_build(), source="small.mcfunction")
    assert r.passed, r.report()
    assert [c.name for c in r.checks] == ["palette", "region", "one_button", "lamp_count", "nothing_on_lamps",
                                         "dark_before_press", "no_response_without_press", "all_lamps_activate",
                                         "simultaneity", "trial_budget"]
    assert {x["on"] for x in r.measured["lamps"]} == {1} and r.measured["skew"] == 0
    assert r.trials == {"used": 0, "budget": 50, "remaining": 50}  # the scoring press is not a trial
    assert r.metrics["simultaneity"]["passed"] and r.metrics["constraints"]["passed"]
    d = r.to_dict()
    assert d["passed"] and d["checks"][0]["name"] == "palette" and "PASS" in r.report()


def test_lamp_lit_before_the_press():
    t = task("A", 1)
    r = ev.evaluate(t, "setblock 0 4 0 stone_button[face=floor]\nsetblock 3 4 3 redstone_torch\n"
                       "setblock 3 4 4 redstone_lamp\n")
    c = r.check("dark_before_press")
    assert not c.passed and "(3, 4, 4) were already lit before the press" in c.reason


def test_no_button_skips_the_dynamic_checks():
    t = task("C")
    r = ev.evaluate(t, "setblock 1 4 1 redstone_lamp\n")
    assert not r.passed
    assert r.check("sequence").reason == "not run: the build needs exactly one button to press"
    assert r.trials["used"] == 0


def test_trial_budget_accounting():
    t = task("A")
    # the budget limits the agent's trials; the evaluator's own scoring press is not charged
    assert ev.evaluate(t, small_a_build(), trials_used=50).passed
    r = ev.evaluate(t, small_a_build(), trials_used=51)
    assert not r.passed and r.check("trial_budget").reason == (
        "the attempt used 51 verification trials, more than its budget of 50")
    assert r.check("simultaneity").passed  # the circuit is still measured and reported
    attempt = ev.Attempt(t, budget=3)
    w = ev.build_world(t, small_a_build())
    assert attempt.press(w) and attempt.used == 1
    for _ in range(2):
        w.step(30)
        attempt.press(w)
    res = attempt.evaluate(small_a_build())
    assert res.passed and res.trials == {"used": 3, "budget": 3, "remaining": 0}
    with pytest.raises(ev.TrialBudgetExceeded):
        attempt.press(w)
    with pytest.raises(ValueError):
        ev.Attempt(t, budget=0)


def test_build_file_details():
    t = task("A")
    # later lines win, supports are placed first whatever the order
    w = ev.build_world(t, "setblock 1 5 1 redstone_wire\nsetblock 1 4 1 stone\n"
                          "setblock 2 4 2 stone\nsetblock 2 4 2 air\n")
    b = w.blocks()
    assert ev.block_name(b[(1, 5, 1)]) == "redstone_wire" and (2, 4, 2) not in b
    # an unsupported block is not placed (in the game it would pop off) and is reported as a warning
    r = ev.evaluate(t, small_a_build() + "setblock 5 6 5 redstone_wire\n")
    assert r.passed and len(r.warnings) == 1
    assert r.warnings[0].startswith("redstone_wire at (5, 6, 5) was not placed: ")


STALE = [
    "setblock 0 4 0 stone", "setblock 0 5 0 stone_button[face=floor]",
    "setblock 0 4 -1 redstone_wall_torch[facing=north]",  # on the button's block, under the lamp above it
    "setblock 0 5 -1 redstone_lamp", "setblock 1 5 -1 redstone_lamp",
    "setblock 1 4 0 redstone_wire",
]


@pytest.mark.parametrize("order", [STALE, STALE[::-1]])
def test_result_does_not_depend_on_line_order(order):
    """With /setblock order the lamp at (1,5,-1) could be left unlit beside the torch-powered lamp and
    light at the press; placed as a player it is lit before the press, whatever the order."""
    r = ev.evaluate(task("E", 2, tau=3, on_window=1), "\n".join(order))
    c = r.check("dark_before_press")
    assert not c.passed and "(0, 5, -1), (1, 5, -1) were already lit" in c.reason


def test_timer_started_at_build_time_is_not_a_response():
    lines = ["setblock 0 4 0 stone", "setblock 0 5 0 stone_button[face=floor]",
             "setblock 1 4 1 redstone_lamp", "setblock -5 4 -5 redstone_torch"]
    lines += [f"setblock {x} 4 -5 redstone_repeater[facing=west,delay=4]" for x in range(-4, 2)]
    lines += ["setblock 2 4 -5 redstone_lamp"]
    r = ev.evaluate(task("A", 2), "\n".join(lines))
    assert r.check("dark_before_press").passed
    c = r.check("no_response_without_press")
    assert not c.passed and "lamp(s) (2, 4, -5) (at +" in c.reason and "turned on anyway" in c.reason


@pytest.mark.parametrize("text,words", [
    ("setblock 0 4 0 stone_button[face=floor]\nfill 0 0 0 1 1 1 stone\n", "b.mcfunction:2: expected 'setblock"),
    ("setblock 0 4 x stone\n", "b.mcfunction:1: coordinates must be integers"),
    ("setblock 0 4 0 redstone_repeater[delay=5]\n", "b.mcfunction:1: redstone_repeater property 'delay' cannot be '5'"),
    ("setblock 0 4 0 tnt\n", "unknown block 'tnt'"),
    ("setblock 0 4 0 redstone_lamp[power=3]\n", "redstone_lamp has no property 'power'"),
    ("setblock 0 99999999 0 stone\n", "b.mcfunction:1: coordinate 99999999 is outside the world"),
    ("setblock 0 4 0 stone\n/\n", "b.mcfunction:2: expected 'setblock X Y Z STATE', got '/'"),
])
def test_bad_build_files(text, words):
    with pytest.raises(ev.BuildError, match=None) as ei:
        ev.evaluate(task("A"), text, source="b.mcfunction")
    assert words in str(ei.value)


def test_evaluate_file_errors(tmp_path):
    with pytest.raises(ev.BuildError, match="does not exist"):
        ev.evaluate_file(task("A"), tmp_path / "none.mcfunction")
    p = tmp_path / "bin.mcfunction"
    p.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ev.BuildError, match="cannot read"):
        ev.evaluate_file(task("A"), p)


_states = st.sampled_from(["stone", "glass", "redstone_wire", "redstone_lamp", "redstone_torch",
                           "redstone_repeater[facing=east,delay=2]", "stone_button[face=floor]",
                           "redstone_wall_torch[facing=west]", "air", "lever[face=floor]", "redstone_block",
                           "redstone_repeater[delay=9]", "glowstone", "stone[lit=true]"])
_coord = st.integers(-12, 12)
_line = st.one_of(
    st.builds(lambda x, y, z, s: f"setblock {x} {y} {z} {s}", _coord, st.integers(2, 8), _coord, _states),
    st.text(max_size=30),
    st.just("# comment"),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line, max_size=12))
def test_untrusted_build_files_evaluate_or_fail_cleanly(lines):
    t = task("A", 2)
    try:
        r = ev.evaluate(t, "\n".join(lines), source="fuzz.mcfunction")
    except ev.BuildError as e:
        assert str(e).startswith("fuzz.mcfunction")
    else:
        assert isinstance(r.passed, bool) and r.checks[-1].name == "trial_budget"
        for c in r.checks:
            assert c.passed or c.reason


# ------------------------------------------------------------------------------- many builds
SOLUTIONS = tasks.tasks_dir() / "solutions"


def slow_world(t, text):
    """The build as the evaluator once made it: floor and build placed block by block, no template."""
    from scicraft_viz.engine.mcfunction import parse_mcfunction
    from scicraft_viz.errors import PlacementError

    last = {}
    for pos, state in parse_mcfunction(text):
        last.pop(pos, None)
        last[pos] = state
    w = t.initial_world(replay=False)
    for _, (pos, state) in sorted(enumerate(last.items()), key=ev._order_key):
        try:
            w.set_block(pos, state)
        except PlacementError:
            pass
    return w


def verdict(r):
    d = r.to_dict()
    del d["build"], d["warnings"]  # only the text path names its source and reports refused placements
    return d


def broken(text, drop, delay_line):
    """A reference build with some lines dropped and one repeater's delay changed."""
    lines = [ln for ln in text.splitlines() if ln.startswith("setblock")]
    keep = [ln for i, ln in enumerate(lines) if i % max(2, len(lines) // max(1, drop)) != 1 or drop == 0]
    reps = [i for i, ln in enumerate(keep) if "delay=" in ln]
    if reps:
        i = reps[delay_line % len(reps)]
        d = int(keep[i].split("delay=")[1][0])
        keep[i] = keep[i].replace(f"delay={d}", f"delay={d % 4 + 1}")
    return "\n".join(keep) + "\n"


@pytest.mark.parametrize("family", "ABCDE")
def test_evaluate_many_equals_one_by_one_on_reference_and_broken_builds(family):
    tid = {f: i for i in tasks.task_ids() for f in i[0]}[family]  # the family's L5 task
    t = tasks.load(tid)
    text = (SOLUTIONS / f"{tid}.mcfunction").read_text()
    builds = [text, broken(text, 3, 0), broken(text, 0, 1), "setblock 0 4 0 stone_button[face=floor]\n"]
    many = ev.evaluate_many(t, builds, sources=[f"b{i}" for i in range(4)])
    one = [ev.evaluate(t, b, source=f"b{i}") for i, b in enumerate(builds)]
    assert [r.to_dict() for r in many] == [r.to_dict() for r in one]
    assert many[0].passed and not many[1].passed and not many[3].passed
    # and the same as the slow path: the world built block by block, every tick of the control run simulated
    assert [verdict(r) for r in many] == [verdict(ev.evaluate(t, slow_world(t, b))) for b in builds]


_small = ["A_simultaneous_lights_L1", "B_branch_reach_L1", "C_sequential_activation_L2",
          "D_equal_delay_distribution_L1", "E_pulse_shaping_L1", "E_pulse_shaping_L2"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_small), st.integers(0, 6), st.integers(0, 5))
def test_evaluate_many_equals_the_slow_path_on_mutated_builds(tid, drop, delay_line):
    t = tasks.load(tid)
    b = broken((SOLUTIONS / f"{tid}.mcfunction").read_text(), drop, delay_line)
    (r,) = ev.evaluate_many(t, [b])
    assert verdict(r) == verdict(ev.evaluate(t, slow_world(t, b)))


def test_evaluate_many_keeps_or_raises_build_errors():
    t = task("A")
    good, bad = small_a_build(), "setblock 0 4 0 stone\nsetblock 1 2\n"
    out = ev.evaluate_many(t, [good, bad, good], sources=["g1", "bad.mcfunction", "g2"], errors="keep")
    assert [type(x).__name__ for x in out] == ["Result", "BuildError", "Result"]
    assert str(out[1]).startswith("bad.mcfunction:2:") and out[0].passed and out[2].build == "g2"
    with pytest.raises(ev.BuildError, match="bad.mcfunction:2:"):
        ev.evaluate_many(t, [good, bad], sources=["g1", "bad.mcfunction"])
    with pytest.raises(ValueError, match="2 builds but 1 sources"):
        ev.evaluate_many(t, [good, good], sources=["x"])


def test_plain_python_kernels_give_the_same_verdicts():
    """The program evaluates one build of usual size with the plain-Python kernels (they start faster
    than the compiled engine): every reference build and broken variant must score the same."""
    import json
    import os
    import subprocess
    import sys

    from scicraft_viz import solutions

    cases = []
    for tid in tasks.task_ids():
        t = tasks.load(tid)
        cases.append((tid, (SOLUTIONS / f"{tid}.mcfunction").read_text()))
        for kind in ("missing_wire", "wrong_delay"):
            got = solutions.broken_variant(t, kind)
            if got is not None:
                cases.append((tid, "".join(f"setblock {x} {y} {z} {s}\n" for (x, y, z), s in got[0].items())))
    code = ("import json, sys\nfrom scicraft_viz import tasks\nfrom scicraft_viz.tasks import evaluator as ev\n"
            "from scicraft_viz.engine import kernels\nassert not kernels.JIT\n"
            "print(json.dumps([ev.evaluate(tasks.load(t), b).to_dict() for t, b in json.load(sys.stdin)]))\n")
    p = subprocess.run([sys.executable, "-c", code], input=json.dumps(cases), capture_output=True, text=True,
                       env=dict(os.environ, SCICRAFT_NOJIT="1"), timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    plain = json.loads(p.stdout)
    compiled = [json.loads(json.dumps(ev.evaluate(tasks.load(t), b).to_dict())) for t, b in cases]
    assert len(cases) > 50 and sum(r["passed"] for r in compiled) == 25
    assert plain == compiled


def test_a_world_reports_what_popped_off_in_its_history_whatever_its_length():
    """A World handed in reports every block its history says popped off (as recorded trajectories
    expect), picked out of a long history of presses without changing the verdict."""
    t = tasks.load("A_simultaneous_lights_L1")
    w = ev.build_world(t, (SOLUTIONS / "A_simultaneous_lights_L1.mcfunction").read_text())
    wire = next(p for p, s in sorted(w.blocks().items())
                if s.startswith("minecraft:redstone_wire") and w.get_block((p[0], p[1] - 1, p[2])) == "minecraft:stone")
    w.set_block((wire[0], wire[1] - 1, wire[2]), "air")
    assert w.get_block(wire) == "minecraft:air"
    button = next(p for p, s in w.blocks().items() if s.startswith("minecraft:stone_button"))
    for _ in range(50):
        w.use(button)
        w.step(30)
    r = ev.evaluate(t, w)
    assert r.warnings == [f"redstone_wire at ({wire[0]}, {wire[1]}, {wire[2]}) had no support and popped off"]
    assert r.to_dict()["checks"] == ev.evaluate(t, w.blocks()).to_dict()["checks"]
