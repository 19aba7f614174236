"""Start JupyterLab on localhost (random port, random token) and Debian's headless Chromium."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from scicraft_viz.views.launch import lab_environment

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
    # headless WebGL needs software rendering
    "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(root: Path, work: Path, timeout: float = 300):
    """Yield (base_url, token) of a JupyterLab serving `root`; its config and state live in `work`."""
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ)
    for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                     ("JUPYTERLAB_SETTINGS_DIR", "settings"), ("JUPYTERLAB_WORKSPACES_DIR", "workspaces")):
        env[var] = str(work / sub)
    # the project's lab settings, as `scicraft-viz lab` uses them: no news pop-up over the notebook (on a fresh
    # install it covers the bottom of the page, the explorer's Export bar and the screenshots)
    env = lab_environment(env)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True"]
    url = f"http://127.0.0.1:{port}"

    def ready() -> None:
        urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2).close()

    with served("JupyterLab", cmd, work / "lab.log", ready, timeout, 0.5, env=env, cwd=root):
        yield url, token


@contextlib.contextmanager
def served(name: str, cmd: list[str], log_path: Path, ready, timeout: float, interval: float, **popen):
    """Start `cmd` in its own process group, logging to `log_path`; yield the process once `ready()` stops
    raising OSError, and stop the whole group afterwards."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, **popen)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    ready()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"{name} did not start:\n" + log_path.read_text()[-3000:]) from None
                    time.sleep(interval)
            yield proc
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def open_notebook(page, url: str, token: str, name: str, timeout: float = 300_000) -> None:
    """Open a notebook in a workspace of its own (so no other notebook is restored beside it) and wait until
    its kernel is idle."""
    workspace = name.removesuffix(".ipynb").replace("/", "-")
    page.goto(f"{url}/lab/workspaces/{workspace}/tree/{name}?token={token}", timeout=timeout)
    page.wait_for_function(
        "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;"
        " return k && k.status === 'idle'; }", timeout=timeout)


def run_all(page, timeout: float = 600_000) -> None:
    """Run every cell and wait until the run is over (JupyterLab's run-all resolves when the last cell has
    run, or at the first failure), no cell is queued and the kernel is idle."""
    page.evaluate("() => { window.__scvRunAll = 'running'; window.jupyterapp.commands.execute('notebook:run-all-cells')"
                  ".then(() => { window.__scvRunAll = 'done'; }, () => { window.__scvRunAll = 'done'; }); }")
    page.wait_for_function(
        "() => { const w = window.jupyterapp.shell.currentWidget;"
        " return window.__scvRunAll === 'done' && w.sessionContext.session.kernel.status === 'idle'"
        " && !Array.from(document.querySelectorAll('.jp-InputArea-prompt')).some(e => e.innerText.includes('*')); }",
        timeout=timeout, polling=500)


def documented_voila_args() -> list[str]:
    """The annotator's launch command as README.md documents it: its JUPYTER_PATH (in the repository), then
    the command after it split into arguments. The tests start Voila exactly this way, with only the port and
    the timings changed."""
    import re
    import shlex

    text = (ROOT / "README.md").read_text(encoding="utf-8").replace("\\\n", "")
    m = re.search(r"^SCICRAFT_RUNS=\S+ JUPYTER_PATH=\$PWD/(\S+)\s+(voila notebooks/annotator\.ipynb .*?)$", text, re.M)
    if m is None:
        raise AssertionError("README.md has no 'SCICRAFT_RUNS=... JUPYTER_PATH=$PWD/... voila "
                             "notebooks/annotator.ipynb ...' line")
    return [str(ROOT / m.group(1)), *shlex.split(m.group(2))]


@contextlib.contextmanager
def voila(runs: Path, log_path: Path, timeout: float = 300, **overrides: str):
    """Yield (url, process) of the annotator page started with the documented command on a free port;
    `overrides` replace options of that command (e.g. {'MappingKernelManager.cull_idle_timeout': '3'})."""
    jupyter_path, *args = documented_voila_args()
    i = args.index("--port")
    args = args[:i] + args[i + 2:]
    keep = [a for a in args if a.split("=")[0].removeprefix("--") not in overrides]
    port = free_port()
    cmd = [sys.executable, "-m", *keep, "--no-browser", f"--port={port}",
           *(f"--{k}={v}" for k, v in overrides.items())]
    env = dict(os.environ, SCICRAFT_RUNS=str(runs), JUPYTER_PATH=jupyter_path)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    with served("Voila", cmd, log_path, lambda: socket.create_connection(("127.0.0.1", port), timeout=1).close(),
                timeout, 0.3, env=env, cwd=ROOT) as proc:
        yield f"http://127.0.0.1:{port}", proc
