"""Itanium C++ symbol demangling, shared by the compiler-output parsers and the profile readers."""

from __future__ import annotations

import re
from functools import lru_cache

import cxxfilt

_KD_RE = re.compile(r"\.kd$")


@lru_cache(maxsize=65536)
def demangle(name: str) -> str:
    """Readable name: demangles ``_Z…`` symbols (dropping an AMD ``.kd`` code-object suffix); other names unchanged."""
    if not name:
        return name
    stripped = name.strip()
    if stripped.startswith("_Z") or stripped.startswith("__Z"):
        base = _KD_RE.sub("", stripped)
        try:
            return cxxfilt.demangle(base)
        except Exception:  # noqa: BLE001 - cxxfilt raises on names it cannot parse; keep them as they are
            return stripped
    return stripped
