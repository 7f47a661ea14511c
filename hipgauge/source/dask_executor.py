"""Run ``scan_tree``'s per-file work on a Dask cluster (``hipgauge scan --executor dask --scheduler ADDR``).

``make_map(address, workers)`` returns a ``map_files(fn, items)`` with the same contract as the local
pool: it applies ``fn`` to every item and yields the results in the order of ``items``. Files are sent
in chunks (one task per chunk, not per file) so that the scheduler's per-task overhead (~1 ms) stays
small against the parse work; the merge of the results stays in the calling process.

The items are ``SourceEntry`` values holding absolute paths: every worker must see the scanned trees
at the same paths (a shared filesystem, or the same checkout on every node). With ``address=None`` a
``LocalCluster`` is started for the call (tests, or one big machine) and closed after it.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from hipgauge.errors import InputError

T = TypeVar("T")
R = TypeVar("R")


def _run_chunk(fn: Callable[[Any], Any], chunk: Sequence[Any]) -> list[Any]:
    return [fn(item) for item in chunk]


def chunked(items: Sequence[T], size: int) -> list[list[T]]:
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


def chunk_size_for(n_items: int, n_workers: int, per_worker: int = 4, largest: int = 64) -> int:
    """About ``per_worker`` chunks per worker (so a slow chunk does not leave the others idle), at most ``largest`` files each."""
    if n_items <= 0:
        return 1
    return max(1, min(largest, math.ceil(n_items / max(1, n_workers * per_worker))))


class DaskMap:
    """A ``map_files(fn, items)`` over a Dask cluster; each call connects, runs, and disconnects."""

    def __init__(self, address: str | None = None, workers: int | None = None, *, processes: bool = True,
                 chunk_size: int | None = None, connect_timeout_s: float = 20.0):
        self.address = address
        self.workers = workers
        self.processes = processes
        self.chunk_size = chunk_size
        self.connect_timeout_s = connect_timeout_s
        self.last_workers: int = 0  # workers the last call ran on (for reports)
        self.last_chunks: int = 0

    def _client(self) -> tuple[Any, Any]:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError("the Dask executor needs dask[distributed]: pip install 'hipgauge[dask]'") from None
        if self.address is None:
            cluster = LocalCluster(n_workers=self.workers or 2, threads_per_worker=1, processes=self.processes,
                                   dashboard_address=None, silence_logs=40)
            return Client(cluster), cluster
        try:
            client = Client(self.address, timeout=f"{self.connect_timeout_s}s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"cannot reach the Dask scheduler: {exc.__class__.__name__}: {exc}", self.address) from None
        if self.workers:
            try:
                client.wait_for_workers(self.workers, timeout=self.connect_timeout_s)
            except (TimeoutError, OSError):
                client.close()
                raise InputError(f"the Dask cluster did not offer {self.workers} worker(s) within "
                                 f"{self.connect_timeout_s:g} s", self.address) from None
        return client, None

    def __call__(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        items = list(items)
        if not items:
            return iter(())
        return self._run(fn, items)

    def _run(self, fn: Callable[[T], R], items: list[T]) -> Iterator[R]:
        client, cluster = self._client()
        try:
            n_workers = len(client.scheduler_info().get("workers", {})) or (self.workers or 1)
            self.last_workers = n_workers
            size = self.chunk_size or chunk_size_for(len(items), n_workers)
            chunks = chunked(items, size)
            self.last_chunks = len(chunks)
            # pure=False: the same chunk scanned twice (a file changed between runs) must not be deduplicated
            futures = client.map(_run_chunk, [fn] * len(chunks), chunks, pure=False)
            for future in futures:  # in submission order: results come back in the order of ``items``
                yield from future.result()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def make_map(address: str | None, workers: int | None = None, **kwargs: Any) -> DaskMap:
    """A ``map_files(fn, items)`` running on the Dask scheduler at ``address`` (``tcp://host:8786``),
    or on a ``LocalCluster`` of ``workers`` processes when ``address`` is None."""
    return DaskMap(address, workers, **kwargs)
