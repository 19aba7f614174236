"""Starting JupyterLab on one of the project's notebooks (what `scicraft-viz lab` runs).

`lab_command` builds the command: JupyterLab with the notebook as its start page (`LabApp.default_url`),
so the address the server prints opens the notebook, not the Launcher. `run_lab` runs it: the server
in a session of its own, the address of the notebook with its token printed once the server answers,
and SIGINT, SIGTERM or SIGHUP stopping the server, which shuts its kernels down, before the command
returns. `lab_environment` adds the project's lab settings (`lab_config/`): JupyterLab's news pop-up
("Would you like to get notified about official Jupyter news?") is switched off, since on a fresh
install it covers the bottom of the page, where the explorer's Export bar is.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
# a Jupyter configuration directory holding only labconfig/page_config.json (see lab_environment)
LAB_CONFIG_DIR = Path(__file__).resolve().parent / "lab_config"
# JupyterLab's plugin that asks about news and update checks in a pop-up on first start
NEWS_PLUGIN = "@jupyterlab/apputils-extension:announcements"
STOP_TIMEOUT_S = 30.0  # time the server gets to shut its kernels down before it is killed


def notebook_path(name: str) -> Path:
    """A notebook by name ('quickstart', 'replay.ipynb', ...) in the repository's notebooks/, or a path."""
    given = Path(name)
    if given.suffix == ".ipynb" and given.is_file():
        return given.resolve()
    stem = given.name.removesuffix(".ipynb")
    path = NOTEBOOKS / f"{stem}.ipynb"
    if not path.is_file():
        known = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) if NOTEBOOKS.is_dir() else []
        listing = f"; the notebooks are: {', '.join(known)}" if known else (
            f"; no notebooks/ folder at {NOTEBOOKS} (run from a clone of the repository, installed with pip -e)")
        raise FileNotFoundError(f"no notebook {name!r}{listing}")
    return path


def server_root(path: Path) -> Path:
    """The folder the server serves: the repository for its own notebooks (they read tasks/ and
    trajectories/ next to notebooks/), else the notebook's folder."""
    return NOTEBOOKS.parent if path.parent == NOTEBOOKS else path.parent


def notebook_url_path(path: Path) -> str:
    """The notebook's address in JupyterLab, relative to the server: /lab/tree/<path from the root>."""
    return "/lab/tree/" + quote(path.relative_to(server_root(path)).as_posix())


def lab_command(name: str = "quickstart", *, as_root: bool | None = None, port: int | None = None) -> list[str]:
    """The command that opens JupyterLab on a notebook; Jupyter refuses to run as root without --allow-root."""
    path = notebook_path(name)
    if as_root is None:
        as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    # the server's root must hold the notebook, wherever the command is run from
    cmd = [sys.executable, "-m", "jupyterlab", str(path), f"--ServerApp.root_dir={server_root(path)}",
           f"--LabApp.default_url={notebook_url_path(path)}"]
    if as_root:
        cmd.append("--allow-root")
    if port is not None:
        cmd += [f"--ServerApp.port={port}", "--ServerApp.port_retries=0"]
    return cmd


def lab_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for the server: `base` (default os.environ) with the project's lab settings
    first on JUPYTER_CONFIG_PATH (the user's own settings still apply beside them)."""
    env = dict(os.environ if base is None else base)
    rest = env.get("JUPYTER_CONFIG_PATH")
    env["JUPYTER_CONFIG_PATH"] = str(LAB_CONFIG_DIR) + (os.pathsep + rest if rest else "")
    return env


def install_lab_config(prefix: str | os.PathLike | None = None) -> Path:
    """Write the project's lab settings into an environment's own Jupyter configuration
    (`<prefix>/etc/jupyter/labconfig/page_config.json`, default sys.prefix), keeping what is there;
    for servers the project does not start itself, such as Binder's (binder/postBuild calls this)."""
    target = Path(sys.prefix if prefix is None else prefix) / "etc" / "jupyter" / "labconfig" / "page_config.json"
    ours = json.loads((LAB_CONFIG_DIR / "labconfig" / "page_config.json").read_text(encoding="utf-8"))
    data = json.loads(target.read_text(encoding="utf-8")) if target.is_file() else {}
    for key, value in ours.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key].update(value)
        else:
            data[key] = value
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return target


def _server_info(pid: int, env: dict[str, str]) -> dict | None:
    """The running server's own record (port, token, url), which Jupyter writes once it listens."""
    from jupyter_core.paths import jupyter_runtime_dir

    saved = os.environ.get("JUPYTER_RUNTIME_DIR")
    try:  # the runtime folder as the server sees it
        if "JUPYTER_RUNTIME_DIR" in env:
            os.environ["JUPYTER_RUNTIME_DIR"] = env["JUPYTER_RUNTIME_DIR"]
        runtime = Path(jupyter_runtime_dir())
    finally:
        if saved is None:
            os.environ.pop("JUPYTER_RUNTIME_DIR", None)
        else:
            os.environ["JUPYTER_RUNTIME_DIR"] = saved
    try:
        info = json.loads((runtime / f"jpserver-{pid}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or "url" not in info:
        return None
    # the record can be read a moment before the socket accepts (or be left by a server that failed to
    # bind): the address is announced only once a connection to it succeeds
    try:
        socket.create_connection((str(info.get("hostname") or "127.0.0.1"), int(info["port"])), timeout=1).close()
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return info


def notebook_url(info: dict, url_path: str) -> str:
    """The address that opens the notebook, from the server's record: its url, the path and the token."""
    url = str(info["url"]).rstrip("/") + url_path
    token = info.get("token")
    return f"{url}?token={token}" if token else url


def run_lab(cmd: list[str], url_path: str, *, env: dict[str, str] | None = None,
            say: Callable[[str], None] | None = None, poll_s: float = 0.2) -> int:
    """Run the JupyterLab command until the server stops; print the notebook's address once it listens.

    The server runs in a session of its own, so a terminal's Ctrl-C reaches this process only: SIGINT,
    SIGTERM and SIGHUP here send SIGTERM to the server, which shuts its kernels down and exits; after
    STOP_TIMEOUT_S, or at a second signal, its whole process group is killed. Returns the server's exit
    code (0 when it stopped because this process was asked to stop)."""
    say = say or (lambda text: print(text, flush=True))
    env = lab_environment() if env is None else env
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, start_new_session=True)
    stopping: list[float] = []

    def kill_group(sig: int) -> None:
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def on_signal(signum, frame) -> None:
        if stopping:  # asked twice: no more waiting
            kill_group(signal.SIGKILL)
            return
        stopping.append(time.monotonic())
        if proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass

    handled = (signal.SIGINT, signal.SIGTERM) + ((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ())
    previous = {s: signal.signal(s, on_signal) for s in handled}
    try:
        announced = False
        while proc.poll() is None:
            if not announced and not stopping:
                info = _server_info(proc.pid, env)
                if info is not None:
                    say(f"JupyterLab is serving {url_path.removeprefix('/lab/tree/')}; open it at\n"
                        f"    {notebook_url(info, url_path)}\n(Ctrl-C stops the server and its kernels)")
                    announced = True
            if stopping and time.monotonic() - stopping[0] > STOP_TIMEOUT_S:
                kill_group(signal.SIGKILL)
            try:
                proc.wait(timeout=poll_s if not announced or stopping else 1.0)
            except subprocess.TimeoutExpired:
                pass
        kill_group(signal.SIGTERM)  # anything the server left in its group
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    return 0 if stopping and proc.returncode in (0, -signal.SIGTERM) else proc.returncode
