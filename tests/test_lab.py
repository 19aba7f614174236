"""`scicraft-viz lab` as a user runs it: the address it prints opens the quickstart notebook (not the
Launcher), JupyterLab's news pop-up is switched off, and SIGTERM or SIGINT (Ctrl-C) stops the server and
its kernels: nothing is left listening on the port and no process it started is left running."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 180  # a loaded 2-core machine can take a minute to start JupyterLab
STOP_TIMEOUT_S = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, r.read()


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return True
    except OSError:
        return False



def _cmdline(p: psutil.Process) -> str:
    """A child's command line; empty for one that has just exited (a zombie until the server reaps it)."""
    try:
        return " ".join(p.cmdline())
    except psutil.Error:
        return ""

def test_lab_print_shows_the_command():
    out = subprocess.run([sys.executable, "-m", "scicraft_viz", "lab", "--port", "8899", "--no-browser", "--print"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "--LabApp.default_url=/lab/tree/notebooks/quickstart.ipynb" in out.stdout
    assert "--ServerApp.port=8899" in out.stdout and out.stdout.rstrip().endswith("--no-browser")


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_lab_prints_the_quickstart_address_and_stops_with_its_kernels(tmp_path, stop):
    port = free_port()
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"), JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"))
    proc = subprocess.Popen(["scicraft-viz", "lab", "--no-browser", "--port", str(port)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=open(tmp_path / "lab.log", "w"), text=True,
                            start_new_session=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        url, printed = None, []
        deadline = time.monotonic() + START_TIMEOUT_S
        while url is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                continue
            if line is None:
                break
            printed.append(line)
            m = re.search(r"(http://\S+)", line)
            url = m.group(1) if m else None
        assert url is not None, "".join(printed) + (tmp_path / "lab.log").read_text()[-3000:]
        m = re.fullmatch(rf"http://(localhost|127\.0\.0\.1):{port}/lab/tree/notebooks/quickstart\.ipynb\?token=(\w+)",
                         url)
        assert m, url
        base, token = f"http://127.0.0.1:{port}", m.group(2)

        status, page = get(url)
        assert status == 200
        # the page's configuration switches JupyterLab's news pop-up off
        config = json.loads(re.search(rb'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                      page, re.S).group(1))
        assert "@jupyterlab/apputils-extension:announcements" in config["disabledExtensions"]
        # the address is the quickstart notebook itself (JupyterLab answers 200 for any /lab/tree path)
        status, body = get(f"{base}/api/contents/notebooks/quickstart.ipynb?token={token}&content=0")
        assert status == 200 and json.loads(body)["type"] == "notebook"

        # a kernel, as a user's open notebook would have
        req = urllib.request.Request(f"{base}/api/kernels?token={token}", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            kernel = json.loads(r.read())["id"]
        deadline = time.monotonic() + START_TIMEOUT_S
        started = []
        while time.monotonic() < deadline:
            started = psutil.Process(proc.pid).children(recursive=True)
            if any(f"kernel-{kernel}" in _cmdline(p) for p in started):
                break
            time.sleep(0.5)
        assert any(f"kernel-{kernel}" in _cmdline(p) for p in started), [_cmdline(p) for p in started]

        proc.send_signal(stop)
        assert proc.wait(timeout=STOP_TIMEOUT_S) == 0
        assert not listening(port), f"port {port} still answers after {stop.name}"
        _, alive = psutil.wait_procs(started, timeout=STOP_TIMEOUT_S)
        assert not alive, [_cmdline(p) for p in alive]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_the_lab_settings_merge_into_an_environments_configuration(tmp_path):
    """What binder/postBuild does: the news pop-up is switched off beside whatever the environment had."""
    from scicraft_viz.views.launch import install_lab_config

    target = tmp_path / "etc" / "jupyter" / "labconfig" / "page_config.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"disabledExtensions": {"some-extension": True}, "other": 1}))
    assert install_lab_config(tmp_path) == target
    assert json.loads(target.read_text()) == {
        "disabledExtensions": {"some-extension": True, "@jupyterlab/apputils-extension:announcements": True},
        "other": 1}
    assert install_lab_config(tmp_path) == target  # twice is the same as once
    assert json.loads(target.read_text())["disabledExtensions"]["some-extension"] is True
