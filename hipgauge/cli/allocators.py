"""Allocator settings for the ``hipgauge`` process: big tables are held briefly, so freed memory goes back.

A 1M-kernel trace passes through a few hundred MB of columns, then polars frames and joins. Two allocators
would otherwise keep what they freed and make the process look (and be, to the OS) several hundred MB
larger than what it holds:

- polars' jemalloc keeps freed pages for 10 s by default; ``_RJEM_MALLOC_CONF`` (read when polars loads,
  so set before it is imported) returns them within a second. Not at once: the joins and sorts that follow
  reuse those pages, and returning them at once made every phase fault in fresh zeroed pages (on the
  1M-kernel read the polars phases took 1.9 s with a decay of 0 and 1.2 s with 1 s, for about 80 MB
  more at the peak). A user's own setting wins.
- glibc raises its mmap threshold each time a large block is freed, after which big arrays come from the
  heap and are not returned; a fixed 4 MiB threshold (``mallopt(M_MMAP_THRESHOLD)``) keeps them mapped
  and unmapped. ``MALLOC_MMAP_THRESHOLD_`` in the environment wins; other C libraries are left alone.

Measured by ``benchmarks/bench_ingest.py`` (peak RSS of the 1M-kernel read with and without these).
"""

from __future__ import annotations

import os
import sys

_JEMALLOC_CONF = "dirty_decay_ms:1000,muzzy_decay_ms:0"
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD_BYTES = 4 * 1024 * 1024


def tune_allocators() -> None:
    """Apply both settings (idempotent; silently skipped where the C library is not glibc)."""
    os.environ.setdefault("_RJEM_MALLOC_CONF", _JEMALLOC_CONF)
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        process = ctypes.CDLL(None)  # the symbols already loaded: libc's among them
        process.gnu_get_libc_version  # noqa: B018 - glibc only: mallopt's parameter numbers are glibc's
        process.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_BYTES)
    except (OSError, AttributeError):
        return
