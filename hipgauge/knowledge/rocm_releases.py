"""What a ROCm release's HIP headers offer that translation depends on (``hipgauge/data/rocm_releases.toml``, with
its public sources and date): which headers exist, and whether and how the ``*_sync`` warp builtins are declared.
``release_for`` picks the row that applies to a target version; ``RocmTarget`` is a version with its row."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from hipgauge.datafiles import load_data_toml

DATA_FILE = "rocm_releases.toml"
_VERSION = re.compile(r"^\s*(\d+)\.(\d+)(?:\.\d+)?(?:[-.\w]*)?\s*$")


@dataclass(frozen=True)
class RocmRelease:
    """One ROCm release: its headers and the state of the ``*_sync`` warp builtins."""

    version: tuple[int, int]
    date: str
    headers: frozenset[str]
    warp_sync: str  # none | opt-in | default
    warp_sync_macro: str = ""
    warp_sync_disable_macro: str = ""
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class RocmTarget:
    """The release translation writes for: the version asked for (or found) and the facts of the release row
    that applies to it."""

    version: str  # "5.2"
    release: RocmRelease
    basis: str  # where the version came from

    @property
    def warp_sync_builtins(self) -> bool:
        """Whether ``*_sync`` and ``__syncwarp`` compile without the user defining a macro."""
        return self.release.warp_sync == "default"

    def header_for(self, cuda_header: str) -> str | None:
        """The first HIP header of the fallback list this release ships (None: no fallback list)."""
        choices = load_releases().header_fallback.get(cuda_header)
        if not choices:
            return None
        for h in choices:
            if h in self.release.headers:
                return h
        return choices[-1]

    def to_dict(self) -> dict[str, Any]:
        r = self.release
        return {"version": self.version, "basis": self.basis, "release_row": f"{r.version[0]}.{r.version[1]}",
                "release_date": r.date, "warp_sync": r.warp_sync,
                "warp_sync_macro": r.warp_sync_macro or r.warp_sync_disable_macro or None,
                "source": f"hipgauge/data/{DATA_FILE}"}


@dataclass(frozen=True)
class ReleaseData:
    """``rocm_releases.toml``: the releases, header fallbacks and bf16 spellings."""

    releases: tuple[RocmRelease, ...]  # oldest first
    header_fallback: dict[str, tuple[str, ...]]
    bf16: dict[str, tuple[dict[str, str], dict[str, str]]]  # HIP header → (names, calls)

    def release_for(self, version: tuple[int, int]) -> RocmRelease:
        chosen = self.releases[0]
        for r in self.releases:
            if r.version <= version:
                chosen = r
        return chosen

    @property
    def newest(self) -> RocmRelease:
        return self.releases[-1]


@lru_cache(maxsize=1)
def load_releases() -> ReleaseData:
    doc = load_data_toml(DATA_FILE)
    rows = []
    for r in doc["release"]:
        v = parse_version(r["version"])
        assert v is not None, r["version"]
        rows.append(RocmRelease(v, r["date"], frozenset(r["headers"]), r["warp_sync"], r.get("warp_sync_macro", ""),
                                r.get("warp_sync_disable_macro", ""), tuple(r.get("sources", ()))))
    rows.sort(key=lambda r: r.version)
    bf16 = {h: (dict(t.get("names", {})), dict(t.get("calls", {}))) for h, t in doc.get("bf16", {}).items()}
    return ReleaseData(tuple(rows), {k: tuple(v) for k, v in doc.get("header_fallback", {}).items()}, bf16)


def parse_version(text: str) -> tuple[int, int] | None:
    """``"5.2"``, ``"5.2.3"``, ``"5.2.21153-0"`` → (5, 2); anything else → None."""
    m = _VERSION.match(text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None
