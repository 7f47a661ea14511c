"""Progress inside one large file: the stage working through a file reports how far it got, and whoever
shows progress (the scan pipeline, for its bar) listens. Nothing is shown when nobody listens.

The stages call ``within_file(fraction)``; ``listening(hook)`` sets the hook for the current context (a
thread or task; a worker process of a pool has none, so only serial scans report inside a file). This
module imports nothing of hipgauge's.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

_HOOK: ContextVar[Callable[[float], None] | None] = ContextVar("hipgauge_file_progress", default=None)


def within_file(fraction: float) -> None:
    """Report that the current file is ``fraction`` (0–1) done; a no-op when nobody listens."""
    hook = _HOOK.get()
    if hook is not None:
        hook(min(1.0, max(0.0, fraction)))


@contextmanager
def listening(hook: Callable[[float], None] | None) -> Iterator[None]:
    """Call ``hook(fraction)`` for each ``within_file`` report made inside the block."""
    token = _HOOK.set(hook)
    try:
        yield
    finally:
        _HOOK.reset(token)
