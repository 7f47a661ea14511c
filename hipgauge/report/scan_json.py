"""The ``hipgauge.scan/1`` JSON document of a ``ScanResult`` (also what the terminal summary renders)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from enum import Enum
from typing import Any, Iterable

from hipgauge.model import Record, ScanResult, Severity
from hipgauge.rules.share import overall_share
from hipgauge.source.coverage import not_analysed

SCHEMA = "hipgauge.scan/1"
SEVERITY_WEIGHT = {"blocker": 8, "wrong-results": 4, "slow": 2, "info": 1}
HAS_COUNTERPART = ("mapped", "deprecated")


def _plain(value: Any) -> Any:
    """What ``Record.to_dict`` makes of a field value (``_clean(asdict(...))``), without the deep copies."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


def records(items: Iterable[Any]) -> list[dict[str, Any]]:
    """``[r.to_dict() for r in items]``, fast for plain ``Record`` dataclasses (tens of thousands on a big tree)."""
    out: list[dict[str, Any]] = []
    names: dict[type, tuple[str, ...] | None] = {}
    for r in items:
        cls = type(r)
        fields = names.get(cls, ())
        if fields == ():
            fields = names[cls] = (tuple(f.name for f in dataclasses.fields(r))
                                   if dataclasses.is_dataclass(r) and cls.to_dict is Record.to_dict else None)
        out.append(r.to_dict() if fields is None else {n: _plain(getattr(r, n)) for n in fields})
    return out


def _value(v: Any) -> Any:
    return v.value if hasattr(v, "value") else v


def library_mix(result: ScanResult) -> dict[str, dict[str, int]]:
    """Per library: references with a HIP counterpart (mapped, deprecated) and without (unsupported, unknown)."""
    mix: dict[str, dict[str, int]] = {}
    for call in result.api_calls:
        row = mix.setdefault(call.library, {"mapped": 0, "unmapped": 0})
        row["mapped" if call.status in HAS_COUNTERPART else "unmapped"] += 1
    return dict(sorted(mix.items(), key=lambda kv: (-(kv[1]["mapped"] + kv[1]["unmapped"]), kv[0])))


def hottest_files(result: ScanResult, limit: int = 10) -> list[dict[str, Any]]:
    """Files ranked by severity-weighted findings, then references without a HIP counterpart."""
    findings: dict[str, Counter[str]] = {}
    for f in result.findings:
        findings.setdefault(f.file, Counter())[_value(f.severity)] += 1
    unmapped = Counter(c.file for c in result.api_calls if c.status not in HAS_COUNTERPART)
    kernels = Counter(k.file for k in result.kernels)
    rows: list[dict[str, Any]] = []
    for file in set(findings) | set(unmapped):
        sev = findings.get(file, Counter())
        score = sum(SEVERITY_WEIGHT.get(s, 1) * n for s, n in sev.items()) + unmapped.get(file, 0)
        rows.append({"file": file, "score": score, "findings": sum(sev.values()),
                     "by_severity": dict(sev), "unmapped_refs": unmapped.get(file, 0), "kernels": kernels.get(file, 0)})
    rows.sort(key=lambda r: (-r["score"], r["file"]))
    return rows[:limit]


def summary(result: ScanResult) -> dict[str, Any]:
    by_sev = Counter(_value(f.severity) for f in result.findings)
    by_cat = Counter(f.category for f in result.findings)
    share = overall_share(result.file_stats) if result.file_stats else None
    gaps = not_analysed(result.skipped)
    return {
        "files": len(result.files),
        "lines": result.lines_scanned,
        "skipped": len(result.skipped),
        "not_analysed": gaps["count"],
        "caveat": gaps["caveat"],
        "kernels": len(result.kernels),
        "device_functions": len(result.device_functions),
        "launch_sites": len(result.launch_sites),
        "api_calls": len(result.api_calls),
        "library_mix": library_mix(result),
        "findings": len(result.findings),
        "findings_by_severity": {s.value: by_sev.get(s.value, 0) for s in Severity},
        "findings_by_category": dict(sorted(by_cat.items(), key=lambda kv: (-kv[1], kv[0]))),
        "translation_share": None if share is None else round(share, 4),
        "translation_share_source": ("measured: CUDA lines needing no hand edit / all CUDA lines, from the rules' "
                                     "findings and the mapping (rules.share)") if share is not None else
                                    "not computed (rules disabled or no file scanned)",
        "hottest_files": hottest_files(result),
    }


def scan_document(result: ScanResult) -> dict[str, Any]:
    """``hipgauge.scan/1``: the inventory, findings, skipped files and a summary."""
    return {
        "schema": SCHEMA,
        "root": result.root,
        "source": "measured: parsed from the source tree (tree-sitter-cuda + lexical pass over macro bodies); "
                  "HIP counterparts from the HIPIFY tables (ROCm/HIPIFY @014177b) and hipgauge's mapping_extra.tsv",
        "summary": summary(result),
        "files": list(result.files),
        "kernels": records(result.kernels),
        "device_functions": records(result.device_functions),
        "launch_sites": records(result.launch_sites),
        "api_calls": records(result.api_calls),
        "findings": records(result.findings),
        "file_stats": records(result.file_stats),
        "skipped": records(result.skipped),
        "warnings": list(result.warnings),
        "dual_target": result.dual_target,
    }
