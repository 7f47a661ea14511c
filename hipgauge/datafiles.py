"""The bundled knowledge files under ``hipgauge/data/``, read from the installed package.

They are read as plain files beside this module (``importlib.resources`` costs ~15 ms of imports at every start,
a tenth of a translate run); a package that is not on the file system (a zip) falls back to it.

Parsed forms are kept between runs of the CLI (``cached_data``): a bundled TOML file's parse (``tomllib`` is
written in Python: ~10 ms for ``rules.toml`` and ``amd_targets.toml`` together, a tenth of a two-file scan) and
what a caller builds from a data file (the mapping table) go, as ``marshal`` data, into the cache folder of
``hipgauge/regex_cache.py`` (``HIPGAUGE_NO_CACHE=1`` turns it off), keyed by the source files' size and
modification time and the caller's format tag, one file per install of hipgauge; a file that does not match or
does not load is rebuilt and rewritten. Every call returns a fresh object, as a parse would.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from collections.abc import Callable
from typing import Any

from hipgauge.regex_cache import cache_folder, write_cache_file
from hipgauge.tomlfile import toml_module


DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def read_data_text(name: str) -> str:
    """The text of ``hipgauge/data/<name>``."""
    try:
        with open(os.path.join(DATA_DIR, name), encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        if os.path.isdir(DATA_DIR):
            raise
    from importlib import resources  # noqa: PLC0415 - only for a package that is not on the file system

    return resources.files("hipgauge").joinpath("data").joinpath(name).read_text(encoding="utf-8")


#: key → the marshal bytes of (stamp, value), for the calls after the first in one process
_memo: dict[str, bytes] = {}
#: this install's part of a kept file's name (a checksum of its data folder's path): two installs sharing a cache
#: folder (a pre-commit hook's environment and the user's own) keep a file each, rather than rewriting one in turn
_INSTALL = f"{zlib.crc32(DATA_DIR.encode('utf-8', 'surrogateescape')):08x}"


def _stamp(names: tuple[str, ...], tag: str) -> tuple[Any, ...] | None:
    """What a cached form of ``names`` must have been made from: each file's size and modification time, and
    ``tag``; None when a file cannot be read (not on the file system)."""
    try:
        stats = [os.stat(os.path.join(DATA_DIR, n)) for n in names]
    except OSError:
        return None
    return (tag, *((n, st.st_size, st.st_mtime_ns) for n, st in zip(names, stats)))


def cached_data(key: str, names: tuple[str, ...], tag: str, build: Callable[[], Any]) -> Any:
    """``build()`` — a value made of what ``marshal`` stores (dicts, lists, tuples, strings, numbers, None) from
    the data files ``names`` — or the same value kept by an earlier run; a fresh object on every call. ``tag``
    names the form ``build`` makes: change it when ``build`` changes."""
    memo = _memo.get(key)
    if memo is not None:
        return marshal.loads(memo)[1]
    stamp = _stamp(names, tag)
    folder = cache_folder()
    path = None
    if stamp is not None and folder is not None:
        path = os.path.join(folder, f"data-{key}-{_INSTALL}-{sys.implementation.cache_tag}-{sys.hexversion:x}.marshal")
        try:
            with open(path, "rb") as fh:
                blob = fh.read()
            kept, data = marshal.loads(blob)
            if kept == stamp:
                _memo[key] = blob
                return data
        except (OSError, ValueError, EOFError, TypeError):
            pass
    value = build()
    try:
        blob = marshal.dumps((stamp, value))
    except ValueError:  # something marshal does not store (a TOML date): not kept
        return value
    _memo[key] = blob
    if path is not None:
        write_cache_file(path, blob)
    return marshal.loads(blob)[1]


def load_data_toml(name: str) -> dict[str, Any]:
    """``hipgauge/data/<name>`` parsed as TOML (a broken bundled file is a programming error: it raises)."""
    result: dict[str, Any] = cached_data(f"toml-{name}", (name,), "tomllib",
                                         lambda: toml_module().loads(read_data_text(name)))
    return result
