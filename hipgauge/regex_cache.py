"""Compiled regular expressions kept between runs of the CLI.

hipgauge compiles about 250 patterns as it starts (the rule anchors and the rules' own patterns, the
preprocessor's, the mapping's), and compiling them (``re``'s parser and compiler are written in Python) costs
about a third of a two-file ``scan`` or ``translate``. ``hipgauge.cli.main`` calls ``load()`` before it imports
the verb's modules: the patterns of the cache file go into the ``re`` module's own cache, so the modules'
``re.compile(...)`` calls find them compiled; after the command, ``save()`` adds the patterns this run compiled
that the file did not hold. Nothing else changes: the pattern objects are the ones ``re.compile`` would make.

The file holds, per pattern, the flags it was compiled with and the arguments ``re`` passed to ``_sre.compile``
(the pattern's compiled code), captured by compiling the pattern once more when it is saved. It is written
atomically, read only by the interpreter build that wrote it (its name carries the Python build and the
regex engine's version), and ignored when it does not load (``_sre`` checks the code it is given). It lives in
``$HIPGAUGE_CACHE_DIR``, else ``$XDG_CACHE_HOME/hipgauge``, else ``~/.cache/hipgauge``; ``HIPGAUGE_NO_CACHE=1``
turns it off. ``scan`` and ``translate`` keep a file each (``regex-scan-…``, ``regex-translate-…``), the other
verbs share one, so that one verb's runs do not evict the patterns of another. Deleting them is always safe.

This module imports nothing of hipgauge's (it sits in the bottom layer).
"""

from __future__ import annotations

import importlib
import marshal
import os
import re
import sys
from typing import Any

#: (pattern type, pattern, flags) → (flags, arguments of ``_sre.compile``) of the patterns the file held
_loaded: dict[tuple[Any, ...], tuple[int, tuple[Any, ...]]] = {}
#: the file's part of the name: the verb whose patterns it keeps (``load(part)``), "" for the shared one
_part: list[str] = [""]


def _limit() -> int:
    """Patterns kept: below the ``re`` module's own cache size, so that loading them evicts nothing."""
    return max(0, int(getattr(re, "_MAXCACHE", 512)) - 64)


def cache_folder() -> str | None:
    """The folder of hipgauge's caches (this file's and ``hipgauge.datafiles``'s), or None when caching is off."""
    if os.environ.get("HIPGAUGE_NO_CACHE", "") not in ("", "0"):
        return None
    folder = os.environ.get("HIPGAUGE_CACHE_DIR", "").strip()
    if not folder:
        xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
        base = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "hipgauge")
    return folder


def cache_file() -> str | None:
    """The cache file of this interpreter build, or None when caching is off."""
    folder = cache_folder()
    if folder is None:
        return None
    try:
        sre = importlib.import_module("_sre")  # the regex engine (no type stubs)
        engine = f"{sre.MAGIC}-{sre.CODESIZE}"
    except (ImportError, AttributeError):
        return None
    build = f"{sys.implementation.cache_tag}-{sys.hexversion:x}-{engine}"
    return os.path.join(folder, f"regex-{_part[0] + '-' if _part[0] else ''}{build}.marshal")


def write_cache_file(path: str, blob: bytes) -> bool:
    """Write ``blob`` to the cache file ``path`` whole or not at all (a temporary file, then a rename, so a
    concurrent run never reads half a file); False when it could not be written (the cache is only a speed-up)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True


def _cache() -> dict[Any, Any] | None:
    cache = getattr(re, "_cache", None)
    return cache if isinstance(cache, dict) else None


def load(part: str = "") -> int:
    """Put the cached patterns into ``re``'s cache; the number loaded (0 when there is no usable file). ``part``:
    a verb with a file of its own (``scan``, ``translate``), so that each keeps the patterns it uses, which the
    others' runs do not evict; the same part is saved to."""
    _part[0] = part
    path = cache_file()
    cache = _cache()
    if path is None or cache is None:
        return 0
    try:
        with open(path, "rb") as f:
            entries = marshal.loads(f.read())
    except (OSError, ValueError, EOFError, TypeError):
        return 0
    sre = importlib.import_module("_sre")
    count = 0
    try:
        for flags, args in entries[: _limit()]:
            key = (type(args[0]), args[0], flags)
            if key not in cache:  # compiled already when a module imported before ``load()`` made it
                cache[key] = sre.compile(*args)
                count += 1
            _loaded[key] = (flags, args)
    except Exception:  # noqa: BLE001 - a file another build wrote, or a damaged one: the rest compile as usual
        return count
    return count


def _compiled_arguments(pattern: str | bytes, flags: int) -> tuple[Any, ...] | None:
    """The arguments ``re`` passes to ``_sre.compile`` for ``pattern``, caught by compiling it again."""
    sre = importlib.import_module("_sre")
    compiler: Any = getattr(re, "_compiler", None) or sys.modules.get("sre_compile")  # 3.11+, 3.10

    caught: list[tuple[Any, ...]] = []
    real = sre.compile

    def spy(*args: Any) -> Any:
        caught.append(args)
        return real(*args)

    setattr(sre, "compile", spy)  # noqa: B010 - for the one compile below; put back in the finally
    try:
        compiler.compile(pattern, flags)
    except Exception:  # noqa: BLE001 - not ours to report: re.compile raised the same error in the run
        return None
    finally:
        setattr(sre, "compile", real)  # noqa: B010
    if len(caught) != 1:
        return None
    # the compiled code as plain ints (``re`` writes its opcodes as named int constants, which marshal cannot store)
    return tuple([int(c) for c in a] if isinstance(a, list) else a for a in caught[0])


def save() -> int:
    """Add the patterns compiled in this run that the file did not hold (this run's first); the number added."""
    path = cache_file()
    cache = _cache()
    if path is None or cache is None:
        return 0
    new: list[tuple[int, tuple[Any, ...]]] = []
    for key in list(cache):
        if key in _loaded or len(key) != 3 or key[0] not in (str, bytes) or type(key[2]) is not int:
            continue
        args = _compiled_arguments(key[1], key[2])
        if args is not None:
            new.append((key[2], args))
    if not new:
        return 0
    kept = [*new, *(entry for key, entry in _loaded.items() if key in cache),
            *(entry for key, entry in _loaded.items() if key not in cache)][: _limit()]
    try:
        blob = marshal.dumps(kept)
    except ValueError:
        return 0
    if not write_cache_file(path, blob):
        return 0
    for flags, args in new:
        _loaded[(type(args[0]), args[0], flags)] = (flags, args)
    return len(new)
