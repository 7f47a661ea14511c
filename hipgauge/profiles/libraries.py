"""Which library, kernel family and path served each kernel; per parity row, on each side.

The knowledge is data (``hipgauge/data/kernel_libraries.toml``): ordered rules over the demangled kernel name
give the library (cuDNN, cuBLAS/cuBLASLt, CUTLASS, FlashAttention, MIOpen, Tensile/hipBLASLt, rocBLAS, Composable
Kernel, aotriton, Triton, NCCL/RCCL, PyTorch native …), the family (implicit-GEMM, Winograd, FFT, direct,
naive/generic, GEMM, attention, layout/transform helper …) and the path (``tuned`` | ``generic`` | ``helper`` |
``native``); fields of the name give the tile, the MMA/MFMA instruction and the architecture the kernel was built
for. A name no rule knows is ``unknown`` and is listed, never guessed.

Per parity row (``attach_to_rows``) each side gets the class of its dominant non-helper kernel and
``layout_conversion_ns``: the time of the layout helpers (transposes, NCHW↔NHWC, casts, MIOpen's SubTensorOp)
launched under the same operator calls as the row's kernels, wherever the matcher put those helpers (their own
row, or unmatched), with their share of those calls' kernel time. The diagnosis and advice built on these
classes is ``profiles.library_advice``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import polars as pl

from hipgauge.datafiles import load_data_toml
from hipgauge.profiles.grouping import group_of_kernel_name

UNKNOWN = "unknown"
#: the paths a kernel can be on
PATHS = ("tuned", "generic", "helper", "native")
#: library names that are no vendor library (the framework's or runtime's own kernels)
NATIVE = "native"


@dataclass(frozen=True)
class KernelClass:
    """What one kernel name says about the library that launched it."""

    library: str  # "unknown" when no rule knows the name
    family: str
    path: str  # tuned | generic | helper | native | unknown
    tile: str | None = None
    instruction: str | None = None  # the MMA / MFMA instruction or wave tile, when the name carries it
    kernel_arch: str | None = None  # sm_80, gfx942 … when the name (or its family) fixes it
    layout: bool = False  # a layout or type conversion (its time under a library call is layout_conversion_ns)

    @property
    def known(self) -> bool:
        return self.library != UNKNOWN

    @property
    def is_library(self) -> bool:
        """A vendor or third-party library kernel (not the framework's or runtime's own, not unknown)."""
        return self.known and self.path != NATIVE

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class _Rule:
    library: str
    family: str
    path: str
    regex: re.Pattern[str]
    layout: bool
    layout_families: tuple[str, ...]
    kernel_arch: str | None
    example: str
    source: str


@dataclass(frozen=True)
class _Field:
    regex: re.Pattern[str]
    form: str


@dataclass(frozen=True)
class LibraryKnowledge:
    rules: tuple[_Rule, ...]
    arch: tuple[_Field, ...]
    tile: tuple[_Field, ...]
    instruction: tuple[_Field, ...]


def _fields(items: list[dict[str, Any]]) -> tuple[_Field, ...]:
    return tuple(_Field(re.compile(str(it["match"]), re.IGNORECASE), str(it.get("form", "{}"))) for it in items)


@lru_cache(maxsize=1)
def load_library_knowledge() -> LibraryKnowledge:
    data = load_data_toml("kernel_libraries.toml")
    rules = []
    for it in data.get("rule", []):
        flags = 0 if it.get("case") else re.IGNORECASE
        rules.append(_Rule(str(it["library"]), str(it["family"]), str(it["path"]), re.compile(str(it["match"]), flags),
                           bool(it.get("layout", False)), tuple(str(f) for f in it.get("layout_families", [])),
                           it.get("kernel_arch"), str(it.get("example", "")), str(it.get("source", ""))))
    return LibraryKnowledge(tuple(rules), _fields(data.get("arch", [])), _fields(data.get("tile", [])),
                            _fields(data.get("instruction", [])))


def family_table() -> list[dict[str, Any]]:
    """Every (library, family, path) the rules know, with an example name and its source (docs/libraries.md)."""
    seen: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in load_library_knowledge().rules:
        seen.setdefault((r.library, r.family, r.path), {"library": r.library, "family": r.family, "path": r.path,
                                                         "example": r.example, "source": r.source})
    return list(seen.values())


def _first(fields: tuple[_Field, ...], name: str) -> str | None:
    for f in fields:
        m = f.regex.search(name)
        if m:
            return f.form.format(m.group(1).lower() if f.form in ("sm_{}", "gfx{}") else m.group(1)).replace(", ", "x")
    return None


@lru_cache(maxsize=65536)
def classify_kernel(name: str) -> KernelClass:
    """The library, family, path, tile, instruction and kernel architecture of one (demangled) kernel name."""
    text = (name or "").strip()
    if text.startswith("void "):
        text = text[5:]
    kb = load_library_knowledge()
    for rule in kb.rules:
        if not rule.regex.search(text):
            continue
        family = rule.family
        layout = rule.layout
        if family == "(by kernel group)":
            family = group_of_kernel_name(name)
            if family == "custom":
                family = "other"
            layout = layout or family in rule.layout_families
        native = rule.path == NATIVE
        tile = None if native else _first(kb.tile, text)
        instruction = None if native else _first(kb.instruction, text)
        arch = rule.kernel_arch or (None if native else _first(kb.arch, text))
        return KernelClass(rule.library, family, rule.path, tile, instruction, arch, layout)
    return KernelClass(UNKNOWN, UNKNOWN, UNKNOWN)


# --------------------------------------------------------------------------------------------
# Architectures
# --------------------------------------------------------------------------------------------

_SM_RE = re.compile(r"^sm_?(\d+)")
_GFX_RE = re.compile(r"^gfx(\d+)([0-9a-f])([0-9a-f])$")
_AMD_PARTS = (("mi355", "gfx950"), ("mi350", "gfx950"), ("mi325", "gfx942"), ("mi300", "gfx942"),
              ("mi250", "gfx90a"), ("mi210", "gfx90a"), ("mi100", "gfx908"))


def device_arch(metadata: dict[str, str] | None, device: str | None = None) -> str | None:
    """The profiled device's architecture (``sm_90``, ``gfx942``) from the trace's device properties: the arch
    field, else an NVIDIA compute capability, else a known AMD part name; None when the file says neither."""
    meta = metadata or {}
    arch = (meta.get("arch") or "").strip().lower()
    if arch.startswith(("sm_", "gfx")):
        return arch.split(":")[0]
    name = (device or meta.get("device_name") or "").lower()
    for part, gfx in _AMD_PARTS:
        if part in name:
            return gfx
    cc = (meta.get("compute_capability") or "").strip()
    if cc and "amd" not in name and "radeon" not in name and re.fullmatch(r"\d+\.\d+", cc):
        major, minor = cc.split(".")
        return f"sm_{major}{minor}"
    return None


def _generation(arch: str) -> tuple[str, tuple[int, ...]] | None:
    m = _SM_RE.match(arch)
    if m:
        return "sm", (int(m.group(1)),)
    m = _GFX_RE.match(arch)
    if m:
        return "gfx", (int(m.group(1)), int(m.group(2), 16))
    return None


def older_arch(kernel_arch: str | None, device: str | None) -> bool | None:
    """True when the kernel was built for an older architecture generation than the device it ran on (an sm_80
    kernel on an sm_90 part, a gfx90a kernel on gfx942); None when either is unknown or they are of two vendors."""
    if not kernel_arch or not device:
        return None
    k, d = _generation(kernel_arch), _generation(device)
    if k is None or d is None or k[0] != d[0]:
        return None
    return k[1] < d[1]


# --------------------------------------------------------------------------------------------
# Coverage of a kernel table
# --------------------------------------------------------------------------------------------

#: unknown names listed one by one (the rest counted)
UNKNOWN_LISTED = 12


def coverage(df: pl.DataFrame) -> dict[str, Any]:
    """How much of a kernel table's time the rules classify: all of it, and the library part (vendor and third-party
    library kernels plus the unknown ones, which may be library kernels); the unknown names by time, and time per
    library."""
    if df.height == 0:
        return {"kernel_ns": 0, "classified_ns": 0, "classified_share": None, "library_ns": 0,
                "library_classified_share": None, "by_library": {}, "unknown": [], "unknown_more": 0}
    col = "name" if "name" in df.columns else "raw_name"
    g = df.group_by(col).agg(pl.col("duration_ns").sum().alias("t"))
    total = 0
    classified = 0
    library = 0
    by_lib: dict[str, int] = defaultdict(int)
    unknown: list[tuple[str, int]] = []
    for name, t in g.iter_rows():
        t = int(t or 0)
        total += t
        c = classify_kernel(name or "")
        if c.known:
            classified += t
            by_lib[c.library] += t
            if c.is_library:
                library += t
        else:
            unknown.append((name or "", t))
    unknown.sort(key=lambda x: (-x[1], x[0]))
    unknown_ns = sum(t for _, t in unknown)
    lib_all = library + unknown_ns
    return {
        "kernel_ns": total, "classified_ns": classified,
        "classified_share": (classified / total) if total else None,
        "library_ns": library, "library_classified_share": (library / lib_all) if lib_all else None,
        "by_library": dict(sorted(by_lib.items(), key=lambda kv: -kv[1])),
        "unknown": [{"name": n, "ns": t, "share": (t / total) if total else 0.0} for n, t in unknown[:UNKNOWN_LISTED]],
        "unknown_more": max(0, len(unknown) - UNKNOWN_LISTED),
    }


# --------------------------------------------------------------------------------------------
# Per parity row
# --------------------------------------------------------------------------------------------


@dataclass
class _SideTable:
    names: list[str]
    durs: list[int]
    call_ids: list[Any]  # per kernel: the launching operator call's id, None when the trace has none
    by_call: dict[Any, list[int]]
    div: int
    arch: str | None
    has_calls: bool


def side_table(df: pl.DataFrame, div: int, arch: str | None) -> _SideTable:
    """One side's kernel table, as ``row_library`` reads it."""
    names = [n or r or "" for n, r in zip(df["name"].to_list(), df["raw_name"].to_list())] if df.height else []
    durs = [int(d or 0) for d in df["duration_ns"].to_list()] if df.height else []
    ids = df["operator_id"].to_list() if "operator_id" in df.columns else [None] * df.height
    by_call: dict[Any, list[int]] = defaultdict(list)
    for i, c in enumerate(ids):
        if c is not None:
            by_call[c].append(i)
    return _SideTable(names, durs, ids, dict(by_call), max(div, 1), arch, bool(by_call))


def row_library(idx: list[int], side: _SideTable) -> dict[str, Any] | None:
    """``{library, family, path, tile, instruction, kernel_arch, device_arch, older_arch, layout_conversion_ns,
    layout_conversion_share, layout_helpers, basis}`` for one side of a row (its kernels at ``idx``); None for a
    side with no kernels."""
    if not idx:
        return None
    t: dict[str, int] = defaultdict(int)
    for i in idx:
        t[side.names[i]] += side.durs[i]
    ranked = sorted(t.items(), key=lambda kv: (-kv[1], kv[0]))
    main = [(n, d) for n, d in ranked if classify_kernel(n).path != "helper"] or ranked
    cls = classify_kernel(main[0][0])
    calls = {side.call_ids[i] for i in idx if side.call_ids[i] is not None}
    helpers: dict[str, int] = defaultdict(int)
    if calls:
        members = [j for c in calls for j in side.by_call.get(c, [])]
        basis = "helpers launched under the row's operator calls"
    else:
        members = list(idx)
        basis = "helpers in the row itself (the trace has no operator call ids)"
    call_ns = sum(side.durs[j] for j in members)
    for j in members:
        if classify_kernel(side.names[j]).layout:
            helpers[side.names[j]] += side.durs[j]
    layout_ns: int | None = sum(helpers.values())
    share = (layout_ns / call_ns) if call_ns and layout_ns is not None else None
    if cls.layout:  # the row is itself a helper: its time is counted in the row of the call it serves
        layout_ns, share, basis = None, None, "the row is a layout helper; counted in the row of its call"
    older = older_arch(cls.kernel_arch, side.arch)
    return {
        "library": cls.library, "family": cls.family, "path": cls.path, "tile": cls.tile,
        "instruction": cls.instruction, "kernel_arch": cls.kernel_arch, "device_arch": side.arch,
        "older_arch": older,
        "layout_conversion_ns": None if layout_ns is None else round(layout_ns / side.div),
        "layout_conversion_share": share,
        "layout_helpers": [n for n, _ in sorted(helpers.items(), key=lambda kv: -kv[1])][:5],
        "kernel": main[0][0],
        "basis": basis,
    }


def attach_to_rows(rows_units: Iterable[tuple[Any, list[int], list[int]]], base: _SideTable, cand: _SideTable) -> None:
    """Set each parity row's ``library`` to ``{"baseline": …, "candidate": …}`` (``row_library`` per side)."""
    for row, bidx, cidx in rows_units:
        row.library = {"baseline": row_library(bidx, base), "candidate": row_library(cidx, cand)}
