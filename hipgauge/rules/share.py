"""Translation share, first cut: how much of a file's CUDA-relevant code needs no hand edit.

* CUDA-relevant line: a line holding a CUDA API reference (from the inventory's ``api_calls``), a
  finding, or a CUDA construct (kernel/device qualifiers, ``<<<``, built-in index variables,
  ``__syncthreads``, warp intrinsics, ``asm``). Comment-only lines never count.
* Clean line: a CUDA-relevant line with no unmapped reference (status other than "mapped") and no
  blocker or wrong-results finding.

``translation_share = clean / cuda`` (1.0 for a file with no CUDA-relevant line). This is measured
from the source (provenance: measured); ``translate`` later refines it with the real rewrite.
"""

from __future__ import annotations

import bisect
import re
from typing import Any, Iterable

from hipgauge.model import FileStats, Finding, Severity

_CONSTRUCT = re.compile(
    r"(?=[_<tbgwacC])(?:__global__|__device__|__shared__|__constant__|__managed__|__launch_bounds__|<<<"
    r"|\b(?:threadIdx|blockIdx|blockDim|gridDim|warpSize|asm)\b|__syncthreads|__syncwarp|__shfl\w*|__ballot\w*"
    r"|__activemask|\bcuda[A-Z]\w*|\bcu[A-Z][a-z]\w*|\bCU[A-Z_]+\b)")
_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)
_SEVERE = {Severity.BLOCKER, Severity.WRONG_RESULTS}


def _blank(m: re.Match[str]) -> str:
    return "".join("\n" if c == "\n" else " " for c in m.group(0))


def _construct_lines(text: str) -> set[int]:
    """1-based lines holding a CUDA construct outside comments and string literals (whole-text passes)."""
    code = _COMMENT_OR_STRING.sub(_blank, text)
    starts = [m.start() for m in _CONSTRUCT.finditer(code)]
    if not starts:
        return set()
    newlines = [i for i, c in enumerate(code) if c == "\n"] if len(starts) > 64 else None
    out: set[int] = set()
    if newlines is None:
        for pos in starts:
            out.add(code.count("\n", 0, pos) + 1)
    else:
        for pos in starts:
            out.add(bisect.bisect_right(newlines, pos - 1) + 1)
    return out


def file_stats(pf: Any, api_calls: list[Any] | None, findings: list[Finding]) -> FileStats:
    lines: list[str] = list(getattr(pf, "lines", None) or [])
    stats = FileStats(file=getattr(pf, "display", "?"), lines=len(lines))
    relevant: set[int] = set()
    dirty: set[int] = set()
    by_kind: dict[str, int] = {}
    for call in api_calls or []:
        relevant.add(call.line)
        by_kind[call.kind] = by_kind.get(call.kind, 0) + 1
        if call.status == "mapped":
            stats.refs_mapped += 1
        else:
            stats.refs_unmapped += 1
            dirty.add(call.line)
    for f in findings:
        relevant.add(f.line)
        if Severity(f.severity) in _SEVERE:
            dirty.add(f.line)
    if getattr(pf, "kind", "cuda") in ("cuda", "cpp", "header"):
        text = getattr(pf, "text", None)
        relevant |= _construct_lines(text if text is not None else "\n".join(lines))
    stats.refs_by_kind = dict(sorted(by_kind.items()))
    stats.cuda_lines = len(relevant)
    stats.clean_lines = len(relevant - dirty)
    return stats


def overall_share(stats: list[FileStats]) -> float:
    """Clean CUDA-relevant lines over all CUDA-relevant lines, across files (1.0 when there are none)."""
    cuda = sum(s.cuda_lines for s in stats)
    clean = sum(s.clean_lines for s in stats)
    return 1.0 if cuda == 0 else clean / cuda
