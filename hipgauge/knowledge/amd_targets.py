"""Every AMD GPU target and the preprocessor names a HIP device pass defines for it (data:
``hipgauge/data/amd_targets.toml``): ``__gfx950__``, its family ``__GFX9__``, its default wave size.

``hipgauge.source.conditions`` makes all of them undefined in the CUDA build and unknown in the HIP build (they
depend on the pass's target); ``hipgauge.source.dualtarget`` reads the family words that mark a project macro as
AMD-only (``CDNA3``, ``RDNA4``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from hipgauge.datafiles import load_data_toml


@dataclass(frozen=True)
class AmdTarget:
    """One AMD GPU target of ``amd_targets.toml``: its name, compiler macros and family."""

    name: str  # gfx942
    macro: str  # __gfx942__
    family: str  # __GFX9__
    wave_size: int
    generation: str  # CDNA3
    products: str


@lru_cache(maxsize=1)
def amd_targets() -> tuple[AmdTarget, ...]:
    """The targets of ``amd_targets.toml``, in file order."""
    doc = load_data_toml("amd_targets.toml")
    return tuple(AmdTarget(t["name"], t["macro"], t["family"], int(t["wave_size"]), t["generation"], t["products"])
                 for t in doc.get("target", []))


@lru_cache(maxsize=1)
def amd_pass_macros() -> tuple[str, ...]:
    """Every name an AMD device pass may define: the per-target and family macros and the per-pass ones
    (``__AMDGCN__``, ``__HIP_DEVICE_COMPILE__``…), sorted."""
    doc = load_data_toml("amd_targets.toml")
    names = set(doc.get("pass_macros", []))
    for t in amd_targets():
        names.update((t.macro, t.family))
    return tuple(sorted(names))


@lru_cache(maxsize=1)
def amd_family_words() -> tuple[str, ...]:
    """Words that mean AMD in a project's macro names (``GFX``, ``CDNA``…)."""
    return tuple(load_data_toml("amd_targets.toml").get("families", []))


def target(name: str) -> AmdTarget | None:
    """The target named ``name`` (``gfx942``; a ``:xnack-`` suffix is ignored), or None."""
    base = name.split(":")[0]
    return next((t for t in amd_targets() if t.name == base), None)
