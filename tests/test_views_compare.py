"""Two builds side by side: the build diff in words, each build tested with its verdict, and the findings
walked with previous / next, outlined in both canvases."""

import pytest

from scicraft_viz.views import Explorer, build_diff, compare_builds

REP1 = "minecraft:redstone_repeater[delay=1,facing=east]"
REP3 = "minecraft:redstone_repeater[delay=3,facing=east]"


def test_build_diff_compares_static_states_in_position_order():
    a = {(0, 1, 0): "minecraft:stone", (2, 1, 0): REP1, (3, 1, 0): "minecraft:redstone_wire[power=7]"}
    b = {(2, 1, 0): REP3, (3, 1, 0): "minecraft:redstone_wire[power=0]", (1, 1, 0): "minecraft:redstone_lamp",
         (5, 1, 0): "minecraft:air"}
    d = build_diff(a, b)
    assert [(x.pos, x.kind) for x in d] == [((0, 1, 0), "only in a"), ((1, 1, 0), "only in b"),
                                            ((2, 1, 0), "changed")]  # the dust's power is not part of a build
    assert [x.text(("agent", "reference")) for x in d] == [
        "(0, 1, 0): stone only in agent",
        "(1, 1, 0): redstone_lamp only in reference",
        "(2, 1, 0): agent has redstone_repeater[delay=1,facing=east], reference has "
        "redstone_repeater[delay=3,facing=east]"]
    assert build_diff(a, dict(a)) == []


@pytest.fixture(scope="module")
def broken_build():
    ex = Explorer(task="E_pulse_shaping_L2", build="solution")
    s = ex.session
    rep = next(p for p, st in s.world.blocks().items() if "repeater" in st)
    s.use(rep)
    s.use(rep)  # delay 1 -> 3: every lamp goes dark too late
    return rep, s.build()


def test_a_broken_build_beside_the_reference(broken_build):
    rep, build = broken_build
    c = compare_builds("E_pulse_shaping_L2", build, "solution", labels=("broken", "reference"))
    assert [(d.pos, d.kind) for d in c.differences] == [(rep, "changed")]
    assert "delay=3" in c.differences[0].a and "delay=1" in c.differences[0].b
    assert [r.passed for r in c.results] == [False, True]
    assert len(c.contracts[0].violations) == len(c.contracts[0].lamps) > 0 and c.contracts[1].violations == []
    assert all(cv.highlighted("diff") == [rep] for cv in c.canvases)
    assert all(cv.highlighted("current") == [] for cv in c.canvases)
    assert c.next() == c.differences[0] and all(cv.highlighted("current") == [rep] for cv in c.canvases)
    assert "font-weight:bold" in c.findings.value and "broken has redstone_repeater[delay=3" in c.findings.value
    assert c.previous() == c.differences[0]  # one finding: previous and next both stay on it
    assert "FAIL" in c.children[1].children[0].children[0].value
    assert "PASS" in c.children[1].children[1].children[0].value


def test_the_same_build_twice_has_no_findings():
    c = compare_builds("E_pulse_shaping_L2", "solution", "solution", labels=("trial 1", "trial 2"))
    assert c.differences == [] and c.next_button.disabled and "no differences" in c.findings.value
    assert "the builds are the same block for block" in c.children[0].value
    with pytest.raises(ValueError, match="no finding to choose"):
        c.next()


def test_shown_figures_carry_what_the_kernel_drew(broken_build):
    """A page that loads the widgets after the cell ran (Voila) draws each timeline from the figure's snapshot:
    showing the comparison refreshes it, so each side's title names its verdict, not the bare 'lamp timeline'."""
    _, build = broken_build
    c = compare_builds("E_pulse_shaping_L2", build, "solution", labels=("broken", "reference"))
    c._repr_mimebundle_()
    titles = [t.figure._widget_layout["title"]["text"] for t in c.timelines]
    assert titles == [t.figure.layout.title.text for t in c.timelines]
    assert titles == ["lamp timeline · E_pulse_shaping_L2 contract: 8 lamp(s) violate it",
                      "lamp timeline · E_pulse_shaping_L2 contract: all lamps within their windows"], titles
