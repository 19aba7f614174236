"""The paper's 32-lamp device and its 12 failure variants, rebuilt from Appendix I: lit counts
after one press in this simulator, and every count the paper's text pins down."""

import numpy as np
import pytest

from scicraft_viz import evaluator as ev
from scicraft_viz import gallery

# device -> (lit, lamps, wires, repeaters) in this simulator
EXPECTED = {
    "working": (32, 32, 112, 4),
    "glass_pedestal": (0, 32, 112, 4),
    "broken_bridge": (0, 32, 108, 4),
    "axes_only": (0, 32, 32, 4),
    "backwards_repeaters": (8, 32, 112, 4),
    "long_snake": (10, 32, 94, 0),
    "missing_rails": (24, 32, 56, 4),
    "tiny_core": (8, 32, 20, 0),
    "islands": (16, 32, 76, 0),
    "parallel_lines": (14, 32, 82, 0),
    "connection_trap": (20, 32, 124, 4),
    "dead_end_hooks": (12, 20, 72, 0),
    "the_ring": (0, 16, 14, 0),
}


@pytest.fixture(scope="module")
def results():
    return {d.key: d.evaluate() for d in gallery.devices()}


def test_catalogue_has_case_w_and_the_twelve_cases():
    devs = gallery.devices()
    assert [d.key for d in devs] == list(EXPECTED)
    assert sorted(d.case for d in devs if d.case != "W") == sorted(str(i) for i in range(1, 13))
    assert {d.category for d in devs if d.mode} == {1, 2, 3}


@pytest.mark.parametrize("key", list(EXPECTED))
def test_lit_count_and_block_counts(key, results):
    d = gallery.device(key)
    lit, lamps, wires, reps = EXPECTED[key]
    c = d.counts()
    assert (gallery.lit_count(results[key]), c["redstone_lamp"], c.get("redstone_wire", 0),
            c.get("redstone_repeater", 0)) == (lit, lamps, wires, reps)
    # every count the paper states is reproduced
    assert (d.paper_lit, d.paper_lamps) == (lit, lamps)


@pytest.mark.parametrize("key", list(EXPECTED))
def test_devices_respect_the_task_constraints(key, results):
    r = results[key]
    for name in ("palette", "region", "one_button", "lamp_count", "nothing_on_lamps", "dark_before_press"):
        assert r.check(name).passed, (name, r.check(name).reason)
    assert not r.warnings  # nothing pops off


def test_working_device_passes_a_l4_with_one_rt_skew(results):
    r = results["working"]
    assert r.passed, r.report()
    ons = sorted({lamp["on"] for lamp in r.measured["lamps"]})
    assert ons == [0, 1] and r.measured["skew"] == 1  # lamps behind the repeaters light 1 rt later


def test_failure_variants_fail_their_task(results):
    for key in EXPECTED:
        if key != "working":
            assert not results[key].passed, key


def test_variants_differ_from_case_w_as_the_paper_says():
    w = gallery.device("working").blocks()
    glass = gallery.device("glass_pedestal").blocks()
    assert {p for p in w if w[p] != glass.get(p)} == {(0, 4, 0)} and glass[(0, 4, 0)] == "glass"
    bridge = gallery.device("broken_bridge").blocks()
    assert sorted(set(w) - set(bridge)) == [(-1, 4, 0), (0, 4, -1), (0, 4, 1), (1, 4, 0)]
    back = gallery.device("backwards_repeaters").blocks()
    flipped = sorted(p for p in w if w[p] != back[p])
    assert flipped == [(-4, 4, 0), (0, 4, -4), (0, 4, 4), (4, 4, 0)]
    assert w[(4, 4, 0)] == "redstone_repeater[delay=1,facing=west]"
    assert back[(4, 4, 0)] == "redstone_repeater[delay=1,facing=east]"
    trap = gallery.device("connection_trap").blocks()
    assert set(w) < set(trap) and len(set(trap) - set(w)) == 12
    rails = gallery.device("missing_rails").blocks()
    assert set(rails) < set(w) and len(set(w) - set(rails)) == 56


def test_ring_carries_power_8_to_15_and_lights_nothing():
    d = gallery.device("the_ring")
    w = d.world()
    w.step(40)
    w.use((0, 5, 0))
    tr = w.record(40)
    peak = np.asarray(tr.dust_power).max(axis=0)
    assert len(tr.dust_positions) == 14 and (int(peak.min()), int(peak.max())) == (8, 15)
    assert not np.asarray(tr.lamp_lit).any()


def test_table_rows():
    rows = {r["key"]: r for r in gallery.table()}
    assert rows["working"]["paper"] == rows["working"]["ours"] == "32/32"
    assert rows["dead_end_hooks"]["ours"] == "12/20" and rows["the_ring"]["ours"] == "0/16"


def test_unknown_device_is_named():
    with pytest.raises(KeyError, match="no gallery device 'nope'"):
        gallery.device("nope")


def test_evaluating_a_device_file_round_trip(tmp_path):
    """A device written as a build file evaluates like the block map."""
    from scicraft_viz.engine.mcfunction import to_mcfunction

    d = gallery.device("backwards_repeaters")
    path = tmp_path / "dev.mcfunction"
    path.write_text(to_mcfunction(d.blocks()))
    r = ev.evaluate_file(d.task(), path)
    assert gallery.lit_count(r) == 8
