"""The nouns every stage shares.

Data flows one way: readers build these, analyses transform them, renderers print them.
Nothing here knows a file format or an output format. Every record is a frozen-ish dataclass
with ``to_dict()`` for the JSON documents; tables of many profile records are polars frames
whose columns are fixed by ``KERNEL_RECORD_SCHEMA`` (``hipgauge.model.profile``).

Three modules, one import path. ``from hipgauge.model import X`` serves every name; the module holding ``X`` is
loaded on first use (PEP 562), so ``hipgauge scan`` and ``hipgauge translate`` never load the profile side:

* ``hipgauge.model.vocabulary`` — ``Severity``, ``Confidence``, ``Provenance``, the ``Record`` mixin;
* ``hipgauge.model.source`` — the scan / rules / translate records (``Finding``, ``ApiCall``, ``ScanResult`` …);
* ``hipgauge.model.profile`` — the compare / project records (``Profile``, ``ParityRow``, ``Projection`` …) and
  the table schemas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names as the type checker sees them; at run time ``__getattr__`` loads them
    from hipgauge.model.profile import (COUNTER_RECORD_SCHEMA, KERNEL_RECORD_SCHEMA, OPTIONAL_KERNEL_COLUMNS,
                                        GroupSlack, KernelRecord, MatchLevel, ParityRow, Profile, Projection,
                                        TimedOnBothSides)
    from hipgauge.model.source import (ApiCall, DeviceFunction, FileStats, Finding, Kernel, LaunchSite, ScanResult,
                                       SkippedFile)
    from hipgauge.model.vocabulary import Confidence, Provenance, Record, Severity, _clean  # noqa: F401

__all__ = [
    # hipgauge.model.vocabulary
    "Severity", "Confidence", "Provenance", "Record",
    # hipgauge.model.source
    "SkippedFile", "Kernel", "DeviceFunction", "LaunchSite", "ApiCall", "Finding", "FileStats", "ScanResult",
    # hipgauge.model.profile
    "KERNEL_RECORD_SCHEMA", "OPTIONAL_KERNEL_COLUMNS", "COUNTER_RECORD_SCHEMA", "KernelRecord", "Profile",
    "MatchLevel", "TimedOnBothSides", "ParityRow", "Projection", "GroupSlack",
]

#: every name → the submodule that defines it
_HOME: dict[str, str] = {name: ("vocabulary" if i < 4 else "source" if i < 12 else "profile")
                         for i, name in enumerate(__all__)}
_HOME["_clean"] = "vocabulary"


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'hipgauge.model' has no attribute {name!r}")
    if home == "vocabulary":
        from hipgauge.model import vocabulary as module  # noqa: PLC0415 - loaded on first use (module docstring)
    elif home == "source":
        from hipgauge.model import source as module  # type: ignore[no-redef]  # noqa: PLC0415
    else:
        from hipgauge.model import profile as module  # type: ignore[no-redef]  # noqa: PLC0415
    value = getattr(module, name)
    globals()[name] = value  # later reads skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})
