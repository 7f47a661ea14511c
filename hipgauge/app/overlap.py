"""The scan's tree pass overlapped with the work that does not need it (a local pool, where processes fork).

``scan_entries`` needs the tree's dual-target view (``dualtarget.tree_dual``: CCCL ~3 s on one core) before any
file's analysis, and the tree's names (``defined.tree_names``) too. With a local pool on a platform that forks,
``Background`` computes the tree pass in a forked child while this process computes the names and reads and parses
the files the pool will analyse (``preload``): the pool's workers, forked once the tree pass is in, inherit those
parsed files and skip that step (``take_preloaded``). The parse is a third of a file's analysis; the second core
was idle while the tree pass ran.

Nothing here changes a result: the child runs the same call on the same inputs (when it fails, the call is made
again here, and raises here as it would have), and a preloaded file is what ``load_file`` and ``ParsedFile.tree``
give, read and parsed a little earlier (a file whose read or parse fails is left to the worker, to fail there as
it always has).
"""

from __future__ import annotations

import gc
import multiprocessing
from typing import Any, Callable, Iterable

from hipgauge.source.parse import ParsedFile, load_file
from hipgauge.source.walk import SourceEntry

#: source bytes read and parsed ahead, at most: syntax trees take ~14x their source (CCCL: 13.7 MB, ~190 MB)
PRELOAD_BYTES = 32 * 1024 * 1024

#: key -> the file as ``load_file`` read it, its syntax tree built: in the process that read it ahead and in the
#: pool workers forked from it (each takes a file out as it analyses it); empty otherwise
_PRELOADED: dict[tuple[str, str], ParsedFile] = {}


def fork_available() -> bool:
    """Processes fork here (a forked pool worker inherits what this process read ahead)."""
    try:
        return "fork" in multiprocessing.get_all_start_methods() and multiprocessing.get_start_method() == "fork"
    except (RuntimeError, ValueError):
        return False


def _key(entry: SourceEntry) -> tuple[str, str]:
    return (entry.display, str(entry.path))


def take_preloaded(entry: SourceEntry) -> ParsedFile | None:
    """The file read and parsed ahead for ``entry`` (once: it is handed out and forgotten), None when it was not."""
    if not _PRELOADED:
        return None
    return _PRELOADED.pop(_key(entry), None)


def preload(entries: Iterable[SourceEntry], stop: Callable[[], bool], budget: int = PRELOAD_BYTES) -> int:
    """Read and parse ``entries`` in order (not Python files: those are read otherwise) until ``stop()`` or
    ``budget`` source bytes; the number of files preloaded."""
    done = used = 0
    for entry in entries:
        if used >= budget or stop():
            break
        if entry.kind == "python":
            continue
        try:
            pf = load_file(entry)
            if not isinstance(pf, ParsedFile):
                continue
            pf.tree  # noqa: B018 - built now, on the otherwise idle core
        except Exception:  # noqa: BLE001 - left to the worker, which words it as it always has
            continue
        _PRELOADED[_key(entry)] = pf
        used += len(pf.data)
        done += 1
    return done


def clear_preloaded() -> None:
    _PRELOADED.clear()


def _child(conn: Any, fn: Callable[[], Any]) -> None:
    # a process that makes one call and exits: no collector passes (a tenth of CCCL's tree pass; what little
    # cyclic garbage the pass leaves goes with the process)
    gc.disable()
    try:
        got = fn()
    except BaseException:  # noqa: BLE001 - the parent makes the call again, and raises there
        conn.send(("failed", None))
    else:
        try:
            conn.send(("ok", got))
        except BaseException:  # noqa: BLE001 - not picklable: as above
            conn.send(("failed", None))
    conn.close()


class Background:
    """``fn()`` computed in a forked child process (``fn`` is not pickled: the child inherits it).
    ``ready()``: the answer is in (or the child failed); ``result()``: the answer, waiting for it, or ``fn()``
    computed in this process when the child failed (its exception then raised here)."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        ctx = multiprocessing.get_context("fork")
        self._recv, send = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_child, args=(send, fn), daemon=True)
        self._proc.start()
        send.close()

    def ready(self) -> bool:
        try:
            return self._recv.poll()
        except (OSError, EOFError):
            return True

    def result(self) -> Any:
        collecting = gc.isenabled()
        gc.disable()  # unpickling a tree's worth of small dicts: the collector's passes were two thirds of it
        try:
            status, got = self._recv.recv()
        except (OSError, EOFError):  # the child died (killed, out of memory)
            status, got = "failed", None
        finally:
            if collecting:
                gc.enable()
        if status != "ok":
            return self.fn()
        return got

    def close(self) -> None:
        self._recv.close()
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()
