"""An advisory lock file beside the database, so only one process writes at a time.

DuckDB lets one process open a file read-write; a second one fails at once. Writers take an
exclusive ``flock`` on ``<db>.lock`` (readers a shared one) and wait, polling, up to a timeout. The
kernel drops the lock when its process dies, so a killed run never leaves the store locked.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

from hipgauge.errors import InputError


class StoreLock:
    def __init__(self, db_path: Path, exclusive: bool, timeout_s: float = 60.0, poll_s: float = 0.05):
        self.path = Path(str(db_path) + ".lock")
        self.exclusive = exclusive
        self.timeout_s = timeout_s
        self.poll_s = poll_s
        self._fd: int | None = None

    def __enter__(self) -> "StoreLock":
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:  # a read-only or missing location: one line naming it (exit 2), never a traceback
            raise InputError(f"cannot write the history store here: {exc.strerror or exc.__class__.__name__}",
                             exc.filename or self.path.parent) from None
        mode = (fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                fcntl.flock(fd, mode)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise InputError(
                        f"history store is busy (another hipgauge holds {self.path.name} for over {self.timeout_s:g} s)",
                        self.path.parent,
                    ) from None
                time.sleep(self.poll_s)
        self._fd = fd
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
