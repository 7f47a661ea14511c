"""Translation share (placeholder: the rules issue replaces this)."""

from __future__ import annotations

from typing import Any

from hipgauge.model import FileStats, Finding


def file_stats(pf: Any, api_calls: list[Any], findings: list[Finding]) -> FileStats:
    return FileStats(file=getattr(pf, "display", "?"), lines=len(getattr(pf, "lines", [])))


def overall_share(stats: list[FileStats]) -> float:
    cuda = sum(s.cuda_lines for s in stats)
    clean = sum(s.clean_lines for s in stats)
    return 1.0 if cuda == 0 else clean / cuda
