"""`scicraft-viz convert IN OUT` and `scicraft-viz evaluate` on every build format and on hostile files."""

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scicraft_viz.cli import app
from scicraft_viz.engine.formats import read_build

ROOT = Path(__file__).resolve().parent.parent
SOL = ROOT / "tasks" / "solutions"
TASK = "A_simultaneous_lights_L5"
runner = CliRunner()


def run(*args):
    r = runner.invoke(app, list(map(str, args)))
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r


def test_convert_between_all_three_formats(tmp_path):
    src = SOL / f"{TASK}.mcfunction"
    want = sorted(read_build(src))
    chain = [src, tmp_path / "a.schem", tmp_path / "b.litematic", tmp_path / "c.schem", tmp_path / "d.mcfunction"]
    for a, b in zip(chain, chain[1:]):
        r = run("convert", a, b)
        assert (r.exit_code, r.stdout) == (0, f"wrote 166 blocks to {b}\n")
        assert sorted(read_build(b)) == want
    text = (tmp_path / "d.mcfunction").read_text()
    assert "minecraft:repeater[" in text and "redstone_repeater" not in text
    r = run("convert", src, tmp_path / "v2.schem", "--schem-version", "2")
    assert r.exit_code == 0 and sorted(read_build(tmp_path / "v2.schem")) == want


def test_convert_refusals(tmp_path):
    src = SOL / f"{TASK}.mcfunction"
    (tmp_path / "x.schem").write_bytes(b"")
    cases = [
        (("convert", src, tmp_path / "x.schem"),
         f"error: {tmp_path / 'x.schem'} exists; pass --overwrite to replace it"),
        (("convert", src, tmp_path / "out.dat"),
         f"error: cannot tell the format of {tmp_path / 'out.dat'} from its extension; use .mcfunction, .litematic, "
         ".schem, .nbt or .snbt"),
        (("convert", tmp_path / "x.schem", tmp_path / "y.litematic", "--overwrite"),
         f"error: {tmp_path / 'x.schem'}: not a .schem file: expected gzip-compressed NBT (bytes 1f 8b), the file is "
         "empty"),
        (("convert", src, tmp_path / "y.schem", "--schem-version", "4"),
         "error: --schem-version must be 2 or 3, got 4"),
        (("convert", src, tmp_path / "no" / "dir" / "y.schem"),
         f"error: cannot write {tmp_path / 'no' / 'dir' / 'y.schem'}: {os.strerror(errno.ENOENT)}"),
    ]
    for args, message in cases:
        r = run(*args)
        assert (r.exit_code, r.stderr) == (2, message + "\n"), args
    assert not (tmp_path / "y.litematic").exists()


@pytest.mark.parametrize("fmt", ["litematic", "schem"])
def test_evaluate_accepts_schematics(fmt, tmp_path):
    out = tmp_path / f"build.{fmt}"
    assert run("convert", SOL / f"{TASK}.mcfunction", out).exit_code == 0
    r = run("evaluate", TASK, out)
    assert r.exit_code == 0, r.stdout
    broken = tmp_path / f"broken.{fmt}"
    broken.write_bytes(out.read_bytes()[:40])
    r = run("evaluate", TASK, broken)
    assert (r.exit_code, r.stderr) == (2, f"error: {broken}: the gzip data is truncated (it ends before the end of the "
                                          "stream)\n")


def test_evaluate_refuses_what_is_not_a_regular_file(tmp_path):
    r = run("evaluate", TASK, "/dev/zero")
    assert (r.exit_code, r.stderr) == (2, "error: /dev/zero is not a regular file (a device, FIFO or socket); give a "
                                          "build file\n")
    big = tmp_path / "big.mcfunction"
    with open(big, "wb") as f:
        f.truncate(64 * 2**20)
    r = run("evaluate", TASK, big)
    assert (r.exit_code, r.stderr) == (2, f"error: {big} is 67,108,864 bytes; build files may be at most 16 MiB\n")


def test_evaluate_on_a_fifo_exits_2_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.mcfunction"
    os.mkfifo(fifo)
    # a reader that blocked on the FIFO would never return: the timeout turns that into a failure
    p = subprocess.run([sys.executable, "-m", "scicraft_viz", "evaluate", TASK, str(fifo)], capture_output=True,
                       text=True, timeout=120)
    assert (p.returncode, p.stderr) == (2, f"error: {fifo} is not a regular file (a device, FIFO or socket); give a "
                                           "build file\n")


def test_evaluate_caps_the_number_of_blocks(tmp_path):
    many = tmp_path / "many.mcfunction"
    many.write_text("setblock 0 4 0 stone\n" * 100_001)
    r = run("evaluate", TASK, many)
    assert (r.exit_code, r.stderr) == (2, f"error: {many}:100001: more than 100,000 setblock lines; a build holds at "
                                          "most 100,000 blocks\n")


@pytest.mark.parametrize("line, message", [
    ("setblock 1_0 4 0 stone", "coordinates must be integers (digits 0-9 with an optional leading '-'), got '1_0'"),
    ("setblock +3 4 0 stone", "coordinates must be integers (digits 0-9 with an optional leading '-'), got '+3'"),
    ("setblock \u0663 4 0 stone", "unexpected character '\u0663' (U+0663) at column 10; setblock lines are printable "
                                  "ASCII, one per line"),
    ("setblock 0 4 0 stone\u2028setblock 1 4 0 stone", "unexpected character '\\u2028' (U+2028) at column 21; "
                                                       "setblock lines are printable ASCII, one per line"),
])
def test_evaluate_is_strict_about_coordinates_and_lines(line, message, tmp_path):
    b = tmp_path / "b.mcfunction"
    b.write_text("# header\n" + line + "\n", encoding="utf-8")
    r = run("evaluate", TASK, b)
    assert (r.exit_code, r.stderr) == (2, f"error: {b}:2: {message}\n")


def test_a_980k_line_build_is_refused_by_size_before_reading(tmp_path):
    b = tmp_path / "huge.mcfunction"
    b.write_text("setblock 0 4 0 stone\n" * 980_000)
    r = run("evaluate", TASK, b)
    assert (r.exit_code, r.stderr) == (2, f"error: {b} is 20,580,000 bytes; build files may be at most 16 MiB\n")
