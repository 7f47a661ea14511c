"""The two failures a command reports without a traceback.

``InputError`` is bad usage or bad input: the CLI prints its one-line message (which names the
file, and the line or record where it applies) and exits 2. ``GateFailed`` is a threshold the user
set that the data crossed: exit 1.
"""

from __future__ import annotations

#: ``typing.TYPE_CHECKING`` without importing typing or pathlib: ``hipgauge --version`` imports this module
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


class HipgaugeError(Exception):
    exit_code = 2


class InputError(HipgaugeError):
    """Bad usage or bad input. ``str()`` is the one line the user sees."""

    exit_code = 2

    def __init__(self, message: str, path: str | Path | None = None, where: str | int | None = None):
        self.path = str(path) if path is not None else None
        self.where = where
        prefix = ""
        if self.path:
            prefix = f"{self.path}"
            if where is not None and where != "":
                prefix += f":{where}"
            prefix += ": "
        # one line whatever the message quotes (a decoder error may quote text holding a newline)
        super().__init__((prefix + message).replace("\r", "\\r").replace("\n", "\\n"))


class GateFailed(HipgaugeError):
    """A gate or threshold failed (exit 1)."""

    exit_code = 1
