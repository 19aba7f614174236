"""Many evaluations at once: in this process, in local worker processes, or on a Dask cluster.

    >>> from scicraft_viz.tasks import batch, load
    >>> task = load("A_simultaneous_lights_L1")
    >>> for out in batch.evaluate_files(task, ["tasks/solutions"], jobs=2):   # every build file in the folder
    ...     print(out.line())                          # PASS / FAIL with the reasons / ERROR with the reason

`map(fn, items, jobs=N)` is the general tool (results in input order, streamed): one item after
another in this process when jobs is 1, on a `distributed.LocalCluster` of N worker processes
otherwise, or on an existing Dask cluster given by its scheduler address (`scheduler="tcp://host:8786"`)
or a `distributed.Client`. Items travel in chunks so that 10^5-10^6 small items cost few round trips,
and only a bounded window of chunks is in flight, so results are never all held at once.

Limits: `jobs` is at most MAX_JOBS_PER_CPU (4) per CPU of this machine. A scheduler address must be
`tcp://HOST:PORT` (or `HOST:PORT`) with a port 1-65535; before the Dask client is started, the address
must answer a TCP connection and send a Dask handshake within CONNECT_TIMEOUT (5) seconds, so a service
that is not Dask (one that waits, or one that sends other bytes) is refused with its address instead of
hanging or being read as a huge message; a scheduler with no worker after that time is refused too.

A folder stands for the build files under it. Links to folders are not followed (no loops, no way out
of the folder), a link to a file is read only if it leads to a file inside the folder, and a build
file name that is not a regular file (a FIFO, a device) is reported, never opened for reading.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scicraft_viz.safeio import inside, json_text, shown

if TYPE_CHECKING:
    from scicraft_viz.tasks import Task
    from scicraft_viz.tasks.evaluator import Result

BUILD_SUFFIXES = (".mcfunction", ".litematic", ".schem")  # what a directory contributes (not .txt: notes)
CHUNK = 64  # items per task sent to a worker when the count is unknown
MAX_JOBS_PER_CPU = 4  # local worker processes per CPU at most (--jobs)
CONNECT_TIMEOUT = 5.0  # seconds for a scheduler to accept a connection and send its handshake
MAX_HANDSHAKE_BYTES = 65536  # a Dask handshake is about 60 bytes; anything claiming more is not one


class ClusterError(ConnectionError):
    """A Dask scheduler or local cluster that cannot be used; the message names the address."""


def cpu_count() -> int:
    """CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def max_jobs() -> int:
    """The most local worker processes `jobs` may ask for on this machine."""
    return MAX_JOBS_PER_CPU * cpu_count()


def check_jobs(jobs: object) -> int:
    """`jobs` if it is an integer from 1 to max_jobs(); else ValueError saying the bounds."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {shown(repr(jobs), 60)}")
    if jobs > max_jobs():
        raise ValueError(f"jobs must be at most {max_jobs()} ({MAX_JOBS_PER_CPU} per CPU, {cpu_count()} CPUs here), "
                         f"got {jobs}")
    return jobs


_HOST = re.compile(r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}"
                   r"[A-Za-z0-9])?)*\.?$")


def check_scheduler_address(address: object, in_process: bool = False) -> str:
    """The address as `tcp://HOST:PORT`, or ValueError saying what is wrong with it. Accepted: `tcp://HOST:PORT`
    and `HOST:PORT`, HOST a name, an IPv4 address or a bracketed IPv6 address, PORT 1-65535. With
    `in_process` (a Python caller), also the `inproc://` address of a scheduler in this process."""
    import ipaddress
    from urllib.parse import urlsplit

    if not isinstance(address, str):
        raise ValueError(f"a scheduler address must be a string, got {type(address).__name__}")
    given = shown(address, 100)
    if not address or len(address) > 300 or not address.isascii() or not address.isprintable() or " " in address:
        raise ValueError(f"scheduler address {given!r} is not of the form tcp://HOST:PORT")
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme.lower() == "inproc" and in_process:
        return address
    if scheme.lower() == "inproc":
        raise ValueError(f"scheduler address {given!r}: an inproc:// address names a scheduler inside one Python "
                         "process; give tcp://HOST:PORT")
    if scheme.lower() != "tcp":
        raise ValueError(f"scheduler address {given!r}: only tcp://HOST:PORT addresses can be used, not {scheme}://")
    try:
        u = urlsplit("tcp://" + rest)
    except ValueError:  # e.g. brackets around something that is not an IPv6 address
        raise ValueError(f"scheduler address {given!r} is not of the form tcp://HOST:PORT") from None
    if u.path or u.query or u.fragment or u.username is not None or "@" in rest or not u.netloc:
        raise ValueError(f"scheduler address {given!r} is not of the form tcp://HOST:PORT")
    try:
        port = u.port
    except ValueError:
        raise ValueError(f"scheduler address {given!r}: the port must be a number from 1 to 65535") from None
    if port is None:
        raise ValueError(f"scheduler address {given!r} names no port (tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)")
    if not 1 <= port <= 65535:
        raise ValueError(f"scheduler address {given!r}: the port must be a number from 1 to 65535")
    host = u.hostname or ""
    if u.netloc.startswith("["):
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"scheduler address {given!r}: {host!r} is not an IPv6 address") from None
        return f"tcp://[{host}]:{port}"
    if not _HOST.match(host) or len(host) > 253:
        raise ValueError(f"scheduler address {given!r}: {shown(host, 60)!r} is not a host name or IP address")
    return f"tcp://{host}:{port}"


# ---------------------------------------------------------------------------------------- map
def _apply(fn: Callable, chunk: list) -> list:
    return [fn(x) for x in chunk]


def _chunks(items: Iterable, size: int) -> Iterator[list]:
    chunk: list = []
    for x in items:
        chunk.append(x)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _recv(sock, n: int, deadline: float, address: str, timeout: float) -> bytes:
    import time

    out = bytearray()
    while len(out) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        data = sock.recv(min(n - len(out), 65536))
        if not data:
            raise ClusterError(f"{address} closed the connection before sending a Dask handshake; it is not a Dask "
                               "scheduler")
        out += data
    return bytes(out)


def _probe(address: str, timeout: float) -> None:
    """Refuse, within `timeout` seconds, an address that is not a Dask scheduler: it must accept a TCP
    connection and send the opening handshake every Dask endpoint sends (a small framed msgpack
    message). Without this, the Dask client waits forever on a service that waits for a request, and
    reads junk bytes as the length of a message to allocate."""
    import socket
    import threading
    import time

    import msgpack

    u = address.removeprefix("tcp://")
    host, _, port = u.rpartition(":")
    host = host.strip("[]")
    deadline = time.monotonic() + timeout
    # the name is looked up in a thread of its own: a resolver that does not answer must not outlast the timeout
    found: dict[str, Any] = {}

    def resolve() -> None:
        try:
            found["addrs"] = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
        except OSError as e:
            found["error"] = e

    looker = threading.Thread(target=resolve, name="scicraft-resolve", daemon=True)
    looker.start()
    looker.join(timeout)
    if looker.is_alive():
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: the name {shown(host)} was not resolved "
                           f"within {timeout:g} s")
    if "error" in found or not found.get("addrs"):
        e = found.get("error")
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: the name {shown(host)} cannot be resolved"
                           + (f" ({getattr(e, 'strerror', None) or e})" if e else ""))
    family, _, _, _, sockaddr = found["addrs"][0]
    try:
        sock = socket.create_connection(sockaddr[:2], timeout=max(0.1, deadline - time.monotonic()))
    except TimeoutError:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: no connection within {timeout:g} s") \
            from None
    except OSError as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e.strerror or e}") from None
    not_dask = f"{address} is not a Dask scheduler: it did not send a Dask handshake"
    try:
        with sock:
            head = _recv(sock, 8, deadline, address, timeout)
            total = int.from_bytes(head, "little")
            if not 16 < total <= MAX_HANDSHAKE_BYTES:
                raise ClusterError(f"{not_dask} (its first bytes are {shown(repr(head))})")
            body = _recv(sock, total, deadline, address, timeout)
    except ClusterError:
        raise
    except TimeoutError:
        raise ClusterError(f"{address} sent no Dask handshake within {timeout:g} s; it is not a Dask scheduler (or "
                           "not answering)") from None
    except OSError as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e.strerror or e}") from None
    nframes = int.from_bytes(body[:8], "little")
    if not 1 <= nframes <= 16 or 8 + 8 * nframes > total:
        raise ClusterError(not_dask)
    sizes = [int.from_bytes(body[8 + 8 * i:16 + 8 * i], "little") for i in range(nframes)]
    if 8 + 8 * nframes + sum(sizes) != total:
        raise ClusterError(not_dask)
    first = body[8 + 8 * nframes:8 + 8 * nframes + sizes[0]]
    try:
        info = msgpack.unpackb(first, raw=False)
    except Exception:  # noqa: BLE001  # any undecodable frame: not a handshake
        info = None
    if not isinstance(info, dict) or "python" not in info:
        raise ClusterError(not_dask)


def map(fn: Callable[[Any], Any], items: Iterable, *, jobs: int = 1, scheduler: Any = None,
        chunk_size: int | None = None, connect_timeout: float = 5) -> Iterator[Any]:
    """fn(item) for every item, in input order, as they finish.

    jobs=1 and no scheduler: in this process, no Dask. jobs>1: a local Dask cluster of `jobs`
    worker processes (started here, closed when the iteration ends). `scheduler`: a Dask scheduler
    address (given up after `connect_timeout` seconds) or a `distributed.Client` to run on instead.
    `fn` must be picklable (a module-level function or a functools.partial of one) when it runs
    elsewhere."""
    check_jobs(jobs)
    if scheduler is None and jobs == 1:
        for x in items:
            yield fn(x)
        return
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if isinstance(scheduler, Client):
            client = scheduler
        elif scheduler is not None:
            address = check_scheduler_address(scheduler, in_process=True)
            if address.startswith("tcp://"):
                _probe(address, connect_timeout)
            try:
                client = stack.enter_context(Client(address, timeout=connect_timeout))
                if not client.scheduler_info().get("workers"):
                    client.wait_for_workers(1, timeout=connect_timeout)
            except ClusterError:
                raise
            except TimeoutError:
                raise ClusterError(f"the Dask scheduler at {address} has no workers (waited {connect_timeout:g} s)") \
                    from None
            except Exception as e:  # noqa: BLE001  # whatever the client meets, one line naming the address
                raise ClusterError(f"cannot use the Dask scheduler at {address}: {type(e).__name__}: "
                                   f"{shown(e, 200)}") from None
        else:
            try:
                cluster = stack.enter_context(LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                                           dashboard_address=":0"))
                client = stack.enter_context(Client(cluster))
            except Exception as e:  # noqa: BLE001
                raise ClusterError(f"cannot start {jobs} local worker processes: {type(e).__name__}: "
                                   f"{shown(e, 200)}") from None
        workers = max(1, len(client.scheduler_info().get("workers", {})) or jobs)
        it = iter(items)
        if chunk_size is None:
            # several chunks per worker so that uneven items still balance, but never tiny ones; a stream
            # is read ahead far enough to tell whether it is short
            head = list(islice(it, 4 * workers * CHUNK))
            chunk_size = max(1, min(CHUNK, math.ceil(len(head) / (4 * workers))))
            it = chain(head, it)
        where = f"the Dask scheduler at {scheduler}" if isinstance(scheduler, str) else "the Dask cluster"

        def result(future) -> list:
            """A chunk's results; a cluster that fails under it (a worker killed, a connection lost) is one
            ClusterError, not the cluster library's traceback."""
            from concurrent.futures import CancelledError

            from distributed.comm.core import CommClosedError
            from distributed.scheduler import KilledWorker

            try:
                return future.result()
            except (KilledWorker, CancelledError, CommClosedError) as e:
                raise ClusterError(f"{where} failed during the run: {type(e).__name__}: {shown(e, 200)}") from None

        window: deque = deque()
        for chunk in _chunks(it, chunk_size):
            window.append(client.submit(_apply, fn, chunk, pure=False))
            while len(window) >= 4 * workers:
                yield from result(window.popleft())
        while window:
            yield from result(window.popleft())


# ---------------------------------------------------------------------------------------- evaluation
@dataclass
class Outcome:
    """One build's evaluation: its result, or why it could not be used. `build` is the file's name as
    it is printed (control and separator characters escaped, see safeio.shown)."""

    build: str
    result: Result | None = None
    error: str | None = None

    @property
    def code(self) -> int:
        """The CLI's exit code for this build alone: 0 pass, 1 fail, 2 unusable."""
        return 2 if self.result is None else 0 if self.result.passed else 1

    def line(self) -> str:
        """One line: PASS / FAIL with the failed checks' reasons / ERROR with the reason. Whatever a file
        name or a message holds, it stays one line: no name can print a verdict line of its own."""
        if self.result is None:
            return shown(f"ERROR {self.build}: {self.error}")
        if self.result.passed:
            return shown(f"PASS {self.build}")
        why = "; ".join(f"{c.name}: {c.reason}" for c in self.result.failures)
        return shown(f"FAIL {self.build}: {' '.join(why.split())}")

    def json(self) -> str:
        """One compact JSON object: the full result, or {build, passed: false, error} (standard JSON: no
        NaN or Infinity)."""
        if self.result is None:
            return json_text({"build": self.build, "passed": False, "error": self.error})
        return json_text(self.result.to_dict())


def coded_line(out: Outcome) -> tuple[int, str]:
    return out.code, out.line()


def coded_json(out: Outcome) -> tuple[int, str]:
    return out.code, out.json()


@dataclass(frozen=True)
class Found:
    """A build file found under a folder the caller named: read only if it lies inside `folder` once
    links are resolved; `problem` says why it is reported without being read."""

    path: Path
    folder: Path
    problem: str | None = None


def build_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Files as given; directories replaced by every build file under them, in sorted order, found
    as they are needed (a run directory may hold a million). A missing path is kept, so that its
    evaluation reports it."""
    for item in build_items(paths):
        yield item.path if isinstance(item, Found) else item


def build_items(paths: Iterable[str | Path | Found]) -> Iterator[Path | Found]:
    """What `evaluate_files` evaluates: each path as given, and for a folder a `Found` for every build
    file under it (links to folders are not followed; a folder that cannot be listed is reported)."""
    for item in paths:
        if isinstance(item, Found):
            yield item
            continue
        p = Path(item)
        if p.is_dir():
            yield from _walk(p)
        else:
            yield p


def _walk(root: Path) -> Iterator[Found]:
    """Build files under `root`, depth first in name order, without recursion (any depth) and without
    following a link to a folder (a link cannot loop, or lead out of `root`)."""
    stack: list[Iterator[Path | Found]] = [iter([root])]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        if isinstance(item, Found):
            yield item
            continue
        try:
            with os.scandir(item) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            yield Found(item, root, f"cannot list the folder: {e.strerror or e}")
            continue
        listing: list[Path | Found] = []
        for e in entries:
            p = Path(e.path)
            try:
                if e.is_dir(follow_symlinks=False):
                    listing.append(p)
                    continue
                if Path(e.name).suffix not in BUILD_SUFFIXES or (e.is_symlink() and e.is_dir()):
                    continue  # not a build file name, or a link to a folder (not followed)
            except OSError:
                pass  # reading it will say what is wrong
            listing.append(Found(p, root))
        stack.append(iter(listing))


def evaluate_one(task: Task, path: str | Path | Found, render: Callable[[Outcome], Any] | None = None,
                 trials_used: int = 0) -> Any:
    """The Outcome of evaluating one build file (passed through `render` when given, in the worker)."""
    from scicraft_viz.tasks.evaluator import BuildError, evaluate_file

    found = path if isinstance(path, Found) else None
    if found is not None:
        path = found.path
    name = shown(os.fspath(path))
    try:
        if found is not None and found.problem:
            raise BuildError(f"{name}: {found.problem}")
        if found is not None and not inside(path, found.folder):
            raise BuildError(f"{name} is a link out of {shown(os.fspath(found.folder))}; it is not followed")
        out = Outcome(name, evaluate_file(task, path, trials_used=trials_used))
    except (BuildError, ValueError, OSError) as e:
        out = Outcome(name, error=" ".join(str(e).split()))
    except Exception as e:  # one build that breaks the evaluator must not stop a batch
        out = Outcome(name, error=f"the evaluation failed: {type(e).__name__}: {' '.join(str(e).split())}")
    return out if render is None else render(out)


def evaluate_files(task: Task, paths: Iterable[str | Path], *, jobs: int = 1, scheduler: Any = None,
                   render: Callable[[Outcome], Any] | None = None, trials_used: int = 0) -> Iterator[Any]:
    """Evaluate build files (directories stand for the build files under them) against one task,
    yielding an Outcome per build in order; `render` (picklable) turns each Outcome into what is
    sent back, e.g. `Outcome.line` so that a cluster returns a line instead of a whole Result. On a
    cluster, the workers read the files: the paths must be valid there (a shared file system)."""
    check_jobs(jobs)
    if scheduler is not None and isinstance(scheduler, str):
        scheduler = check_scheduler_address(scheduler, in_process=True)
    fn = partial(evaluate_one, task, render=render, trials_used=trials_used)
    return map(fn, build_items(paths), jobs=jobs, scheduler=scheduler)
