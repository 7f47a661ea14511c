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

import re
from typing import Any, Iterable

from hipgauge.model import FileStats, Finding, Severity

_CONSTRUCT = re.compile(
    r"__global__|__device__|__shared__|__constant__|__managed__|__launch_bounds__|<<<|\bthreadIdx\b|\bblockIdx\b"
    r"|\bblockDim\b|\bgridDim\b|\bwarpSize\b|__syncthreads|__syncwarp|__shfl\w*|__ballot\w*|__activemask|\basm\b"
    r"|\bcuda[A-Z]\w*|\bcu[A-Z][a-z]\w*|\bCU[A-Z_]+\b")
_SEVERE = {Severity.BLOCKER, Severity.WRONG_RESULTS}


def _code_lines(lines: list[str]) -> Iterable[tuple[int, str]]:
    in_block = False
    for i, line in enumerate(lines, 1):
        s = line
        if in_block:
            end = s.find("*/")
            if end < 0:
                continue
            s, in_block = s[end + 2:], False
        s = re.sub(r"/\*.*?\*/", " ", s)
        start = s.find("/*")
        if start >= 0:
            s, in_block = s[:start], True
        s = s.split("//", 1)[0]
        if s.strip():
            yield i, s


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
        for i, s in _code_lines(lines):
            if _CONSTRUCT.search(s):
                relevant.add(i)
    stats.refs_by_kind = dict(sorted(by_kind.items()))
    stats.cuda_lines = len(relevant)
    stats.clean_lines = len(relevant - dirty)
    return stats


def overall_share(stats: list[FileStats]) -> float:
    """Clean CUDA-relevant lines over all CUDA-relevant lines, across files (1.0 when there are none)."""
    cuda = sum(s.cuda_lines for s in stats)
    clean = sum(s.clean_lines for s in stats)
    return 1.0 if cuda == 0 else clean / cuda
