"""The rewrites beyond HIPIFY that keep semantics on 64-lane wavefronts (data: ``safe_rewrites.toml``).

* ``warp-mask``: ``__shfl*_sync`` / ``__ballot_sync`` / ``__any_sync`` / ``__all_sync`` whose mask names the whole
  warp (``0xffffffff``, ``~0u``, ``__activemask()``, or a macro/constant defined as such) become the non-``_sync``
  HIP functions with the mask dropped. A partial mask is left alone and reported.
* ``syncwarp``: ``__syncwarp()`` (or with a whole-warp mask) becomes ``__builtin_amdgcn_wave_barrier()``.
* ``hip-symbol`` and the per-release mask handling: ``translate/target.py``; ``runtime-include``:
  ``translate/runtime_include.py``.

Warp-size constants, wmma and inline PTX are never rewritten: they change meaning and stay findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from hipgauge.datafiles import load_data_toml
from hipgauge.model import Record

WARP_MASK = "warp-mask"
SYNCWARP = "syncwarp"
HIP_SYMBOL = "hip-symbol"  # HIP_SYMBOL(…) around a device symbol passed to hipMemcpyToSymbol & co. (target.py)
RUNTIME_INCLUDE = "runtime-include"  # #include <hip/hip_runtime.h> where nvcc's implicit one was relied on
ALL_SAFE_REWRITES = frozenset({WARP_MASK, SYNCWARP, HIP_SYMBOL, RUNTIME_INCLUDE})


@dataclass
class SafeRewrite(Record):
    """One safe rewrite made in a file, with the line before and after."""

    file: str
    line: int
    rule: str  # "warp-mask" | "syncwarp" | "hip-symbol" | "runtime-include" | target.py's rules
    before: str
    after: str
    assumption: str = ""  # what the rewrite takes for granted (stated as a finding), "" when nothing


@dataclass(frozen=True)
class SafeRewriteData:
    """``safe_rewrites.toml``: the names and patterns the safe rewrites use."""

    warp_sync: dict[str, str]
    syncwarp_cuda: str
    syncwarp_hip: str
    full_mask: tuple[re.Pattern[str], ...]
    hip_symbol: dict[str, int] = field(default_factory=dict)  # HIP function → index of its symbol argument

    def is_full_mask(self, text: str, full_mask_names: set[str] | frozenset[str] = frozenset()) -> bool:
        compact = re.sub(r"\s+", "", text)
        while compact.startswith("(") and compact.endswith(")") and _balanced(compact[1:-1]):
            compact = compact[1:-1]
        if compact in full_mask_names:
            return True
        return any(p.match(compact) for p in self.full_mask)


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


@lru_cache(maxsize=1)
def load_safe_rewrites() -> SafeRewriteData:
    doc = load_data_toml("safe_rewrites.toml")  # kept between runs: no TOML parser at start-up
    return SafeRewriteData(
        warp_sync=dict(doc["warp_sync"]),
        syncwarp_cuda=doc["syncwarp"]["cuda"],
        syncwarp_hip=doc["syncwarp"]["hip"],
        full_mask=tuple(re.compile(p) for p in doc["full_mask"]["patterns"]),
        hip_symbol={k: int(v) for k, v in doc.get("hip_symbol", {}).get("symbol_argument", {}).items()},
    )
