"""The diagnosis and the causes under a rule variant: reach, delays and budgets come from the ruleset, and
fixes are checked by simulation under it."""

from scicraft_viz import World, tasks
from scicraft_viz.diagnose import diagnose as run
from scicraft_viz.engine.causes import explain

T4 = tasks.from_dict(tasks.generate_task("A", 1))
W, L = "redstone_wire", "redstone_lamp"


def circuit(*parts):
    b = {(0, 4, 0): "stone", (0, 5, 0): "stone_button[face=floor]"}
    for x, z, s in parts:
        b[(x, 4, z)] = s
    return b


def test_a_line_vanilla_dust_reaches_is_too_long_under_short_dust():
    parts = [(x, 0, W) for x in range(1, 10)] + [(10, 0, L)]
    assert run(circuit(*parts), T4).findings == []  # 9 dust: the last carries 7
    short = T4.with_rules("short-dust")
    (f,) = run(circuit(*parts), short).findings
    assert f.mode == "long_snake"
    assert "(strength falls by 2 per wire and lasts 8)" in f.explanation
    # the repeaters it proposes are placed for a loss of 2 per wire, and the fix works under that ruleset
    assert f.fix_blocks
    assert run(circuit(*parts) | f.fix_blocks, short).findings == []


def test_causes_use_the_worlds_delays():
    w = World(rules={"torch_delay": 5, "button_ticks": 8})
    w.set_blocks([((x, 3, z), "stone") for x in range(-1, 5) for z in range(-1, 2)])
    w.set_blocks([((0, 4, 0), "stone_button[face=floor]"), ((1, 4, 0), "redstone_wire"), ((2, 4, 0), "stone"),
                  ((3, 4, 0), "redstone_wall_torch[facing=east]")])
    w.use((0, 4, 0))
    w.step(20)
    texts = [c.text for c in explain(w.events, w.blocks(), w.rules)]
    assert "wall torch (3, 4, 0) went dark: scheduled 5 gt ago when stone (2, 4, 0) placed" in texts
    assert "wall torch (3, 4, 0) lit: scheduled 5 gt ago when dust (1, 4, 0) fell to power 0" in texts
    assert "button (0, 4, 0) sprang back: scheduled 4 rt ago when button (0, 4, 0) was pressed" in texts
    # read with vanilla delays, the same events are not the ones their ticks scheduled
    assert "wall torch (3, 4, 0) lit: nothing logged before it explains it (it may predate the log)" in [
        c.text for c in explain(w.events, w.blocks())]
