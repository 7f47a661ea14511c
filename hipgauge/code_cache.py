"""The compiled code of the dataclasses' generated methods, kept between runs of the CLI.

``dataclasses`` writes each class's ``__init__``, ``__repr__``, ``__eq__``… as source text and compiles it with
``exec`` as the class is made; a two-file ``scan`` makes about 45 dataclasses (~200 methods) and compiling them
costs ~15-25 ms, a sixth of the run. ``install()`` (called by ``hipgauge.cli.main`` next to
``regex_cache.load()``) puts a stand-in for ``exec`` into the ``dataclasses`` module only: it runs the same text
with the same globals and locals, but compiles each distinct text once — the code object comes from the cache
file when an earlier run compiled it; ``save()`` adds the texts this run compiled. The functions made are those
``exec`` would make from the text (same code, same file name ``<string>``); only the compile is skipped.

The file (``code-<Python build>.marshal``, ``marshal`` of text → code object; ``scan`` and ``translate`` keep one
each, ``code-scan-…`` and ``code-translate-…``, so that a run reads only its verb's texts) lives in the cache folder of
``hipgauge/regex_cache.py``, is read only by the interpreter build that wrote it, and is ignored when it does
not load; ``HIPGAUGE_NO_CACHE=1`` turns it off. A ``dataclasses`` without the one ``exec`` call of
``_create_fn`` (Python 3.13 changed that machinery) is left alone. Deleting the file is always safe.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys
from types import CodeType
from typing import Any

from hipgauge.regex_cache import cache_folder, write_cache_file

#: source text → compiled code, from the file and from this run
_codes: dict[str, CodeType] = {}
#: the texts this run compiled (``save()`` adds them to the file)
_new: set[str] = set()
#: the most texts kept: far above what any command makes, a bound on a file that only grows
_LIMIT = 5000
#: the file's part of the name: the verb whose texts it keeps (``install(part)``), "" for the shared one
_part: list[str] = [""]


def cache_file() -> str | None:
    folder = cache_folder()
    if folder is None:
        return None
    part = f"{_part[0]}-" if _part[0] else ""
    return os.path.join(folder, f"code-{part}{sys.implementation.cache_tag}-{sys.hexversion:x}.marshal")


def _exec(source: Any, globals: dict[str, Any] | None = None, locals: Any = None) -> None:
    """``exec`` as ``dataclasses`` calls it, with each distinct source text compiled once."""
    if globals is None:  # as exec does: the caller's (``dataclasses._create_fn``'s) globals
        globals = sys._getframe(1).f_globals
    if isinstance(source, str):
        code = _codes.get(source)
        if code is None:
            code = compile(source, "<string>", "exec")
            _codes[source] = code
            _new.add(source)
        source = code
    builtins.exec(source, globals, locals)


def install(part: str = "") -> int:
    """Put the stand-in into ``dataclasses`` with the cached code; the number of texts loaded (-1: not installed).
    ``part``: a verb with a file of its own (as ``regex_cache.load``), so a run reads only the texts its verb makes."""
    _part[0] = part
    path = cache_file()
    if path is None:
        return -1
    import dataclasses  # noqa: PLC0415 - every verb makes dataclasses: imported here before any is made

    if not hasattr(dataclasses, "_create_fn") or "exec" in vars(dataclasses):
        return -1
    try:
        with open(path, "rb") as fh:
            kept = marshal.loads(fh.read())
        if isinstance(kept, dict):
            _codes.update((k, v) for k, v in kept.items() if isinstance(k, str) and isinstance(v, CodeType))
    except (OSError, ValueError, EOFError, TypeError):
        pass
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    return len(_codes)


def save() -> int:
    """Add the texts this run compiled to the file; the number added."""
    path = cache_file()
    if path is None or not _new:
        return 0
    kept = dict(list(_codes.items())[-_LIMIT:])
    try:
        blob = marshal.dumps(kept)
    except ValueError:
        return 0
    if not write_cache_file(path, blob):
        return 0
    added = len(_new)
    _new.clear()
    return added
