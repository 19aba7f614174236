"""Batch evaluation and the Dask-backed map: results in input order, equal to the serial ones, on a small
in-process LocalCluster (by Client and by scheduler address)."""

import shutil
from functools import partial
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from scicraft_viz import tasks
from scicraft_viz.tasks import batch
from scicraft_viz.tasks.evaluator import evaluate_file

SOL = Path(__file__).resolve().parent.parent / "tasks" / "solutions"


def square_or_fail(x):
    if x == 13:
        return "thirteen"
    return x * x


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0") as c:
        yield c


@pytest.fixture()
def builds(tmp_path):
    d = tmp_path / "builds"
    (d / "deep").mkdir(parents=True)
    for tid in ("C_sequential_activation_L1", "C_sequential_activation_L2"):
        shutil.copy(SOL / f"{tid}.mcfunction", d / f"{tid}.mcfunction")
    (d / "deep" / "x_bad.mcfunction").write_text("setblock 0 4 0 redstone_repeater[facing=up]\n")
    (d / "deep" / "readme.md").write_text("# not a build")
    return d


def test_serial_map_is_the_plain_map():
    assert list(batch.map(square_or_fail, range(20))) == [square_or_fail(x) for x in range(20)]


def test_map_on_a_cluster_keeps_input_order(cluster):
    items = list(range(300))  # many chunks and more than the window in flight
    want = [square_or_fail(x) for x in items]
    with Client(cluster) as client:
        assert list(batch.map(square_or_fail, items, scheduler=client, chunk_size=7)) == want
    assert list(batch.map(square_or_fail, iter(items), scheduler=cluster.scheduler_address)) == want


def test_map_with_jobs_starts_local_worker_processes():
    assert list(batch.map(square_or_fail, range(40), jobs=2)) == [square_or_fail(x) for x in range(40)]


def test_map_refuses_bad_jobs_and_unreachable_schedulers():
    with pytest.raises(ValueError, match="jobs must be a positive integer, got 0"):
        list(batch.map(square_or_fail, [1], jobs=0))
    with pytest.raises(ConnectionError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        list(batch.map(square_or_fail, [1], scheduler="tcp://127.0.0.1:9", connect_timeout=1))


def test_build_paths_expand_directories_sorted(builds, tmp_path):
    missing = tmp_path / "nope.mcfunction"
    got = list(batch.build_paths([builds, missing]))
    assert got == [builds / "C_sequential_activation_L1.mcfunction", builds / "C_sequential_activation_L2.mcfunction",
                   builds / "deep" / "x_bad.mcfunction", missing]


def test_evaluate_files_on_a_cluster_equals_serial(builds, cluster):
    t = tasks.load("C_sequential_activation_L1")
    serial = list(batch.evaluate_files(t, [builds]))
    assert [o.code for o in serial] == [0, 1, 2]
    assert serial[0].result.to_dict() == evaluate_file(t, builds / "C_sequential_activation_L1.mcfunction").to_dict()
    assert serial[2].error.startswith(f"{builds / 'deep' / 'x_bad.mcfunction'}:1: redstone_repeater property 'facing'")
    on_cluster = list(batch.evaluate_files(t, [builds], scheduler=cluster.scheduler_address))
    assert [(o.build, o.error, o.result and o.result.to_dict()) for o in on_cluster] == \
        [(o.build, o.error, o.result and o.result.to_dict()) for o in serial]
    lines = list(batch.evaluate_files(t, [builds], scheduler=cluster.scheduler_address, render=batch.coded_line))
    assert lines == [batch.coded_line(o) for o in serial]
    assert lines[0] == (0, f"PASS {builds / 'C_sequential_activation_L1.mcfunction'}")
    assert lines[1][0] == 1 and lines[1][1].startswith(f"FAIL {builds / 'C_sequential_activation_L2.mcfunction'}: "
                                                       "lamp_count: 8 redstone_lamps placed, the task needs exactly 4")


def test_outcome_renderings():
    t = tasks.load("C_sequential_activation_L1")
    ok = batch.evaluate_one(t, SOL / "C_sequential_activation_L1.mcfunction")
    bad = batch.Outcome("b.mcfunction", error="b.mcfunction:1: expected 'setblock X Y Z STATE'")
    assert ok.code == 0 and bad.code == 2
    assert bad.line() == "ERROR b.mcfunction: b.mcfunction:1: expected 'setblock X Y Z STATE'"
    assert bad.json() == ('{"build": "b.mcfunction", "passed": false, "error": '
                          '"b.mcfunction:1: expected \'setblock X Y Z STATE\'"}')
    assert partial(batch.evaluate_one, t, render=batch.coded_json)(SOL / "C_sequential_activation_L1.mcfunction") \
        == (0, ok.json())


def test_a_build_that_breaks_the_evaluator_does_not_stop_the_batch(monkeypatch, builds):
    from scicraft_viz.tasks import evaluator

    def boom(task, path, trials_used=0):
        if path.name.endswith("L2.mcfunction"):
            raise RuntimeError("engine buffer overflow")
        return real(task, path, trials_used=trials_used)

    real = evaluator.evaluate_file
    monkeypatch.setattr(evaluator, "evaluate_file", boom)
    t = tasks.load("C_sequential_activation_L1")
    lines = [o.line() for o in batch.evaluate_files(t, [builds])]
    assert lines[1] == (f"ERROR {builds / 'C_sequential_activation_L2.mcfunction'}: the evaluation failed: "
                        "RuntimeError: engine buffer overflow")
    assert lines[0].startswith("PASS") and lines[2].startswith("ERROR")


def test_walking_a_folder_is_iterative_and_never_leaves_it(tmp_path):
    """Any depth (no recursion limit), links to folders never followed (no loop), a link to a file read only
    when it stays inside the folder, a FIFO reported rather than skipped or opened for reading."""
    import os

    root = tmp_path / "deep"
    d = str(root)
    os.mkdir(d)
    for _ in range(1500):  # deeper than Python's recursion limit (made one level at a time: mkdir -p recurses)
        d += "/a"
        os.mkdir(d)
    d = Path(d)
    (d / "x.mcfunction").write_text("setblock 0 4 0 stone\n")
    (root / "loop").symlink_to(".")
    (root / "out.mcfunction").symlink_to(tmp_path / "elsewhere.mcfunction")
    (tmp_path / "elsewhere.mcfunction").write_text("setblock 0 4 0 stone\n")
    os.mkfifo(root / "f.mcfunction")
    items = list(batch.build_items([root]))
    assert [str(i.path.relative_to(root))[-14:] for i in items] == ["a/x.mcfunction", "f.mcfunction",
                                                                   "out.mcfunction"]
    t = tasks.load("A_simultaneous_lights_L1")
    out = [batch.evaluate_one(t, i) for i in items]
    assert out[1].error == (f"{root / 'f.mcfunction'} is not a regular file (a device, FIFO or socket); give a "
                            "build file")
    assert out[2].error == f"{root / 'out.mcfunction'} is a link out of {root}; it is not followed"
    # remove the deep tree here, level by level: pytest's own clean-up of old temporary folders must not meet it
    (d / "x.mcfunction").unlink()
    while d != root:
        d.rmdir()
        d = d.parent


@pytest.mark.parametrize("address,want", [
    ("127.0.0.1:8786", "tcp://127.0.0.1:8786"),
    ("tcp://[::1]:8786", "tcp://[::1]:8786"),
    ("tcp://scheduler.example:1", "tcp://scheduler.example:1"),
    ("tcp://127.0.0.1:0", "the port must be a number from 1 to 65535"),
    ("tcp://127.0.0.1:65536", "the port must be a number from 1 to 65535"),
    ("tcp://h:8786/path", "is not of the form tcp://HOST:PORT"),
    ("tcp://user@h:8786", "is not of the form tcp://HOST:PORT"),
    ("tcp://[nope]:1", "is not of the form tcp://HOST:PORT"),
    ("ws://h:1", "only tcp://HOST:PORT addresses can be used, not ws://"),
    ("tcp://h\n:1", "is not of the form tcp://HOST:PORT"),
])
def test_scheduler_addresses_are_checked_before_use(address, want):
    if want.startswith("tcp://"):
        assert batch.check_scheduler_address(address) == want
    else:
        with pytest.raises(ValueError, match=want.replace("(", r"\(").replace(")", r"\)")):
            batch.check_scheduler_address(address)


def test_jobs_are_bounded_by_the_cpus():
    assert batch.check_jobs(batch.max_jobs()) == batch.max_jobs()
    for bad in (0, -1, True, 2.0, batch.max_jobs() + 1, 10**9):
        with pytest.raises(ValueError, match="jobs must be"):
            batch.check_jobs(bad)
