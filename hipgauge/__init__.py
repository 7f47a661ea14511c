"""hipgauge: measure whether a CUDA serving path can move to AMD/ROCm through HIP, and what it costs.

The public Python API is ``hipgauge.scan(path)`` and ``hipgauge.compare(base, cand)`` (``hipgauge/api.py``,
docs/python-api.md). They are loaded on first use (PEP 562), so ``import hipgauge`` imports nothing else:
the package root sits in the bottom layer and reaches the application layer only by name, at attribute
access, never through an import statement (see ``hipgauge/layers.py``).
"""

from __future__ import annotations

#: ``typing.TYPE_CHECKING`` without importing typing: ``hipgauge --version`` loads this module and little else
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

#: public names served by hipgauge/api.py, loaded lazily
_API = ("scan", "compare")

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    if name in _API:
        import importlib  # noqa: PLC0415 - the lazy facade: nothing is imported until hipgauge.scan/compare is used

        return getattr(importlib.import_module("hipgauge.api"), name)
    raise AttributeError(f"module 'hipgauge' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])
