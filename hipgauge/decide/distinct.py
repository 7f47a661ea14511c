"""Hours that scale with distinct work, not with lines (issue 15).

A finding's rule effort is for fixing one *construct*; the same construct again in the same kernel (an unrolled
shuffle ladder, eight ``% 32`` in one loop) is the same edit, and the same construct in 30 generated
instantiation files is one edit to the generator or the template. So findings are grouped:

* key = (rule, construct, scope): in a kernel or template (the enclosing function), the construct is what the
  rule says about it (its message: ``atomicAdd(out, a)`` and ``atomicAdd(out + 1, b)`` on ``half2`` are one edit);
  outside one, the finding's source line with numbers and blanks normalised (``__shfl_xor_sync(m, v, 16)`` and
  ``…, 8)`` are one construct); the scope is that function in its file, or the generated family
  (``hipgauge.source.dualtarget``) for files of the same shape;
* each group costs its rule's effort once × [finding_low_factor, finding_high_factor], and says how many
  occurrences it stands for;
* a template-library rule (``cost_model.library_family_hours``: CUTLASS/CuTe → Composable Kernel) costs its
  stated band once per distinct kernel family (a generated family, else the file), whatever the number of
  findings in it: porting a family to CK is one piece of work whose size the band bounds;
* library calls (rule category ``library``: cuBLASLt, NCCL, cuRAND…) of one rule in one file are one piece of
  work, the file's wrapper around that library: a 200-line cuBLASLt wrapper is one item (its largest rule effort
  once), not 69;
* build findings of one rule in one build script (``-gencode``, ``--use_fast_math``, ``--expt-relaxed-constexpr``
  on five lines of a setup.py) are one edit of that script's flag list: one item;
* zero-hour findings (info notes, "CUDA-only branch" notes) cost nothing and are not listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_NUM = re.compile(r"\b0[xX][0-9a-fA-F]+\b|\b\d+(?:\.\d*)?[uUlLfF]*\b")
_BLANKS = re.compile(r"\s+")


@dataclass
class DistinctItem:
    kind: str  # "finding" | "library-family"
    category: str
    label: str
    low: float
    high: float
    basis: str
    file: str | None
    line: int | None
    count: int


#: groups that are one edit of one file, whatever their count: (unit, where in the label, what the edit is, where
#: in the basis)
_ONE_EDIT = {"library-wrapper": ("call(s)", "in this file", "the file's wrapper", "of one library in"),
             "build-list": ("line(s)", "of this build script", "the script's flag list", "in")}


def construct(snippet: str) -> str:
    """The source line with numbers as ``#`` and blanks collapsed: what "the same construct" compares."""
    return _BLANKS.sub(" ", _NUM.sub("#", snippet or "")).strip()


def finding_items(findings: Iterable[Any], families: dict[str, str], library_bands: dict[str, tuple[float, float]],
                  lo_f: float, hi_f: float, units: dict[str, list[str]] | None = None) -> list[DistinctItem]:
    """Cost items of ``findings`` grouped by distinct work (module docstring). ``families``: file -> generated
    family id; ``library_bands``: rule code -> (low, high) hours per distinct kernel family; ``units``: file -> the
    compiled units that include it (a library family is the kernels of one set of units, not one header)."""
    units = units or {}
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for f in findings:
        h = float(f.effort_hours or 0.0)
        if h <= 0:
            continue
        family = families.get(f.file)
        if f.code in library_bands:
            reach = units.get(f.file)
            unit_key = (reach[0] if len(reach) == 1 else f"{reach[0]} (+{len(reach) - 1} more units)") if reach else None
            key: tuple[Any, ...] = ("library-family", f.code, family or unit_key or f.file)
        elif family is not None:
            key = ("finding", f.code, family)  # same-shape copies: one edit to the template or the generator
        elif f.category == "library":
            key = ("library-wrapper", f.code, f.file)  # the file's wrapper around one library: one piece of work
        elif f.category == "build" and not f.kernel:
            key = ("build-list", f.code, f.file)  # one build script's nvcc flags / arch list: one edit of that list
        elif f.kernel:  # one rule saying the same thing twice in one kernel: one edit (exllamav2's two half2 atomicAdds)
            key = ("finding", f.code, f.file, f.kernel, f.message)
        else:
            key = ("finding", f.code, f.file, "", construct(f.snippet) or f.message)
        groups.setdefault(key, []).append(f)
    out: list[DistinctItem] = []
    for key, fs in groups.items():
        first = fs[0]
        n = len(fs)
        files = len({f.file for f in fs})
        where = (f"{n} occurrence(s) in {files} file(s) of the generated family {families[first.file]}"
                 if families.get(first.file)
                 else f"{n} occurrence(s)" + (f" in {first.kernel}" if first.kernel else "")
                 + (f" across {files} files" if files > 1 else ""))
        if key[0] == "library-family":
            low, high = library_bands[first.code]
            by_units = (f"; the files the same compiled units include are one family: {files} file(s), the kernels of "
                        + ", ".join(units[first.file][:4]) + (" …" if len(units[first.file]) > 4 else "")
                        if units.get(first.file) and not families.get(first.file) else "")
            out.append(DistinctItem("library-family", first.category, f"{first.code} kernel family {key[2]}", low, high,
                                    f"{first.code} per distinct kernel family: band [{low:g}, {high:g}] h once "
                                    f"({where}{by_units}; cost_model.library_family_hours)", first.file, first.line, n))
            continue
        if key[0] in _ONE_EDIT and n > 1:
            unit, here, scope, of = _ONE_EDIT[key[0]]
            h = max(float(f.effort_hours) for f in fs)
            out.append(DistinctItem("finding", first.category, f"{first.code} {first.message} (and {n - 1} more {unit} "
                                    f"{here})", h * lo_f, h * hi_f,
                                    f"rule effort {h:g} h × [{lo_f:g}, {hi_f:g}] once for {scope}: {n} {unit} {of} "
                                    f"{first.file}", first.file, first.line, n))
            continue
        h = float(first.effort_hours)
        out.append(DistinctItem("finding", first.category, f"{first.code} {first.message}", h * lo_f, h * hi_f,
                                f"rule effort {h:g} h × [{lo_f:g}, {hi_f:g}] once for {where}",
                                first.file, first.line, n))
    return out
