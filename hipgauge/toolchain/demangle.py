"""Itanium C++ demangling of kernel symbols (cxxfilt over the system's libstdc++ ``__cxa_demangle``)."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=4096)
def demangle(symbol: str) -> str:
    """The demangled name, or the symbol unchanged when it is not a mangled C++ name."""
    if not symbol.startswith("_Z"):
        return symbol
    try:
        import cxxfilt

        return cxxfilt.demangle(symbol)
    except Exception:  # noqa: BLE001 - an undemanglable symbol stays as the compiler wrote it
        return symbol
