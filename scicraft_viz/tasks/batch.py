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
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scicraft_viz.tasks import Task
    from scicraft_viz.tasks.evaluator import Result

BUILD_SUFFIXES = (".mcfunction", ".litematic", ".schem")  # what a directory contributes (not .txt: notes)
CHUNK = 64  # items per task sent to a worker when the count is unknown


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


def _probe(address: str, timeout: float) -> None:
    """Fail at once on a refused TCP address (the Dask client would retry until its timeout)."""
    import socket
    from urllib.parse import urlsplit

    if address.startswith("tcp://"):
        u = urlsplit(address)
        if u.hostname and u.port:
            socket.create_connection((u.hostname, u.port), timeout=timeout).close()


def map(fn: Callable[[Any], Any], items: Iterable, *, jobs: int = 1, scheduler: Any = None,
        chunk_size: int | None = None, connect_timeout: float = 5) -> Iterator[Any]:
    """fn(item) for every item, in input order, as they finish.

    jobs=1 and no scheduler: in this process, no Dask. jobs>1: a local Dask cluster of `jobs`
    worker processes (started here, closed when the iteration ends). `scheduler`: a Dask scheduler
    address (given up after `connect_timeout` seconds) or a `distributed.Client` to run on instead.
    `fn` must be picklable (a module-level function or a functools.partial of one) when it runs
    elsewhere."""
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    if scheduler is None and jobs == 1:
        for x in items:
            yield fn(x)
        return
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if isinstance(scheduler, Client):
            client = scheduler
        elif scheduler is not None:
            try:
                _probe(str(scheduler), connect_timeout)
                client = stack.enter_context(Client(str(scheduler), timeout=connect_timeout))
            except (OSError, TimeoutError) as e:
                raise ConnectionError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
        else:
            cluster = stack.enter_context(LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                                       dashboard_address=":0"))
            client = stack.enter_context(Client(cluster))
        workers = max(1, len(client.scheduler_info().get("workers", {})) or jobs)
        it = iter(items)
        if chunk_size is None:
            # several chunks per worker so that uneven items still balance, but never tiny ones; a stream
            # is read ahead far enough to tell whether it is short
            head = list(islice(it, 4 * workers * CHUNK))
            chunk_size = max(1, min(CHUNK, math.ceil(len(head) / (4 * workers))))
            it = chain(head, it)
        window: deque = deque()
        for chunk in _chunks(it, chunk_size):
            window.append(client.submit(_apply, fn, chunk, pure=False))
            while len(window) >= 4 * workers:
                yield from window.popleft().result()
        while window:
            yield from window.popleft().result()


# ---------------------------------------------------------------------------------------- evaluation
@dataclass
class Outcome:
    """One build's evaluation: its result, or why it could not be used."""

    build: str
    result: Result | None = None
    error: str | None = None

    @property
    def code(self) -> int:
        """The CLI's exit code for this build alone: 0 pass, 1 fail, 2 unusable."""
        return 2 if self.result is None else 0 if self.result.passed else 1

    def line(self) -> str:
        """One line: PASS / FAIL with the failed checks' reasons / ERROR with the reason."""
        if self.result is None:
            return f"ERROR {self.build}: {self.error}"
        if self.result.passed:
            return f"PASS {self.build}"
        why = "; ".join(f"{c.name}: {c.reason}" for c in self.result.failures)
        return f"FAIL {self.build}: {' '.join(why.split())}"

    def json(self) -> str:
        """One compact JSON object: the full result, or {build, passed: false, error}."""
        if self.result is None:
            return json.dumps({"build": self.build, "passed": False, "error": self.error})
        return json.dumps(self.result.to_dict())


def coded_line(out: Outcome) -> tuple[int, str]:
    return out.code, out.line()


def coded_json(out: Outcome) -> tuple[int, str]:
    return out.code, out.json()


def build_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Files as given; directories replaced by every build file under them, in sorted order, found
    as they are needed (a run directory may hold a million). A missing path is kept, so that its
    evaluation reports it."""
    for p in (Path(p) for p in paths):
        if p.is_dir():
            yield from _walk(p)
        else:
            yield p


def _walk(d: Path) -> Iterator[Path]:
    for e in sorted(os.scandir(d), key=lambda e: e.name):
        if e.is_dir():
            yield from _walk(Path(e.path))
        elif e.is_file() and Path(e.name).suffix in BUILD_SUFFIXES:
            yield Path(e.path)


def evaluate_one(task: Task, path: str | Path, render: Callable[[Outcome], Any] | None = None,
                 trials_used: int = 0) -> Any:
    """The Outcome of evaluating one build file (passed through `render` when given, in the worker)."""
    from scicraft_viz.tasks.evaluator import BuildError, evaluate_file

    try:
        out = Outcome(str(path), evaluate_file(task, path, trials_used=trials_used))
    except (BuildError, ValueError, OSError) as e:
        out = Outcome(str(path), error=" ".join(str(e).split()))
    except Exception as e:  # one build that breaks the evaluator must not stop a batch
        out = Outcome(str(path), error=f"the evaluation failed: {type(e).__name__}: {' '.join(str(e).split())}")
    return out if render is None else render(out)


def evaluate_files(task: Task, paths: Iterable[str | Path], *, jobs: int = 1, scheduler: Any = None,
                   render: Callable[[Outcome], Any] | None = None, trials_used: int = 0) -> Iterator[Any]:
    """Evaluate build files (directories stand for the build files under them) against one task,
    yielding an Outcome per build in order; `render` (picklable) turns each Outcome into what is
    sent back, e.g. `Outcome.line` so that a cluster returns a line instead of a whole Result. On a
    cluster, the workers read the files: the paths must be valid there (a shared file system)."""
    files = build_paths(paths)
    fn = partial(evaluate_one, task, render=render, trials_used=trials_used)
    return map(fn, files, jobs=jobs, scheduler=scheduler)
