"""What the store keeps of one assessment, read out of a ``hipgauge.assessment/1`` document.

This is the store's reader: it knows where the assessment document keeps parity rows, findings,
translation share, build-check results and toolchain versions, and tolerates sections that are
absent (an assessment without profiles has no parity rows; one without hipcc has no build check).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from hipgauge.model import Profile, Record

#: toolchain components the store knows how to name, in display order.
COMPONENT_LABELS: dict[str, str] = {
    "cuda": "CUDA",
    "rocm": "ROCm",
    "hip": "HIP",
    "driver": "driver",
    "nvcc": "nvcc",
    "hipcc": "hipcc",
    "torch": "PyTorch",
    "gpu": "GPU",
    "arch": "arch",
}

#: keys under which profile metadata may name a component (reader spellings → our component).
_META_ALIASES: dict[str, str] = {
    "cuda": "cuda", "cuda_version": "cuda", "cuda_runtime": "cuda", "cuda_runtime_version": "cuda",
    "rocm": "rocm", "rocm_version": "rocm",
    "hip": "hip", "hip_version": "hip", "hip_runtime": "hip", "hip_runtime_version": "hip",
    "driver": "driver", "driver_version": "driver", "cuda_driver": "driver", "cuda_driver_version": "driver",
    "hip_driver": "driver", "hip_driver_version": "driver", "nvidia_driver_version": "driver",
    "nvcc": "nvcc", "nvcc_version": "nvcc",
    "hipcc": "hipcc", "hipcc_version": "hipcc",
    "torch": "torch", "torch_version": "torch", "pytorch": "torch",
    "gpu": "gpu", "device": "gpu", "gpu_name": "gpu", "device_name": "gpu",
    "arch": "arch", "gfx": "arch", "sm": "arch", "gcn_arch": "arch", "compute_capability": "arch",
}


@dataclass
class ParityEntry(Record):
    label: str
    match: str | None
    baseline_ns: float | None
    candidate_ns: float | None
    ratio: float | None
    share: float | None
    baseline_count: int | None = None
    candidate_count: int | None = None
    per_iteration: bool | None = None
    operator: str | None = None
    candidate_names: list[str] = field(default_factory=list)


@dataclass
class BuildCheckEntry(Record):
    arch: str
    vendor: str | None
    units: int
    failed: int
    errors: int
    ok: bool
    #: from the assessment's error classification, when it has one: errors that are the port's own, and errors
    #: that only come from library headers missing on the machine that ran the check (not a port defect)
    port_errors: int | None = None
    environment_errors: int | None = None


@dataclass
class AssessmentRecord(Record):
    """One stored assessment. ``toolchain`` maps component (``rocm``, ``gpu.candidate`` …) → version."""

    project: str
    recorded_at: datetime
    commit: str | None = None
    root: str | None = None
    translation_share: float | None = None
    findings: dict[str, tuple[str | None, int]] = field(default_factory=dict)  # code → (severity, count)
    parity: list[ParityEntry] = field(default_factory=list)
    build_checks: list[BuildCheckEntry] = field(default_factory=list)
    toolchain: dict[str, str] = field(default_factory=dict)
    baseline_ms: float | None = None
    projected_ms: float | None = None
    target_ms: float | None = None
    percentile: float | None = None
    hipgauge_version: str | None = None
    document_schema: str | None = None
    triage: str | None = None
    id: int | None = None

    @property
    def findings_total(self) -> int:
        return sum(count for _, count in self.findings.values())


# --------------------------------------------------------------------------------------------


def _get(doc: Any, *path: str) -> Any:
    cur = doc
    for key in path:
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return cur


def _first(doc: Any, *paths: tuple[str, ...]) -> Any:
    for path in paths:
        value = _get(doc, *path)
        if value is not None:
            return value
    return None


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, dict):  # {"value": 0.93, "source": "measured"}
        return _num(value.get("value"))
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _int(value: Any) -> int | None:
    number = _num(value)
    return None if number is None else int(number)


def comparison_section(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The ``hipgauge.compare/1`` part of an assessment (or the document itself when it is one)."""
    if isinstance(doc.get("rows"), list):
        return doc
    for key in ("comparison", "compare", "parity"):
        section = doc.get(key)
        if isinstance(section, dict) and isinstance(section.get("rows"), list):
            return section
    return None


def parity_entries(comparison: dict[str, Any] | None) -> list[ParityEntry]:
    if not comparison:
        return []
    rows: list[ParityEntry] = []
    for row in comparison.get("rows") or []:
        if not isinstance(row, dict) or not row.get("label"):
            continue
        base = _num(row.get("baseline_ns"))
        cand = _num(row.get("candidate_ns"))
        # assessment documents written before the comparison became one ns document had ms rows
        base_ms, cand_ms = _num(row.get("baseline_ms")), _num(row.get("candidate_ms"))
        if base is None and base_ms is not None:
            base = base_ms * 1e6
        if cand is None and cand_ms is not None:
            cand = cand_ms * 1e6
        ratio = _num(row.get("ratio"))
        if ratio is None and base and cand is not None:
            ratio = cand / base
        names = row.get("candidate_names") or []
        rows.append(ParityEntry(
            label=str(row["label"]),
            match=row.get("match") or row.get("level"),
            baseline_ns=base, candidate_ns=cand, ratio=ratio, share=_num(row.get("share")),
            baseline_count=_int(row.get("baseline_count")), candidate_count=_int(row.get("candidate_count")),
            per_iteration=row.get("per_iteration") if isinstance(row.get("per_iteration"), bool) else None,
            operator=row.get("operator"),
            candidate_names=[str(n) for n in names] if isinstance(names, list) else [],
        ))
    return rows


def _finding_counts(doc: dict[str, Any]) -> dict[str, tuple[str | None, int]]:
    scan = doc.get("scan") if isinstance(doc.get("scan"), dict) else doc
    findings = scan.get("findings") if isinstance(scan, dict) else None
    counts: dict[str, tuple[str | None, int]] = {}
    by_code_list = scan.get("findings_by_code") if isinstance(scan, dict) else None
    if isinstance(by_code_list, list):  # [{"code": "HG101", "count": 3, "severity": "blocker"}, …]: complete counts
        for item in by_code_list:
            if isinstance(item, dict) and item.get("code"):
                counts[str(item["code"])] = (item.get("severity"), _int(item.get("count")) or 0)
        return dict(sorted(counts.items()))
    if isinstance(findings, list):
        tally: Counter[str] = Counter()
        severity: dict[str, str | None] = {}
        for f in findings:
            if isinstance(f, dict) and f.get("code"):
                tally[str(f["code"])] += 1
                severity.setdefault(str(f["code"]), f.get("severity"))
        return {code: (severity[code], n) for code, n in sorted(tally.items())}
    by_code = _first(scan, ("summary", "findings_by_code"), ("summary", "by_code"), ("findings_by_code",), ("by_code",))
    if isinstance(by_code, dict):
        for code, value in by_code.items():
            if isinstance(value, dict):
                counts[str(code)] = (value.get("severity"), _int(value.get("count")) or 0)
            else:
                counts[str(code)] = (None, _int(value) or 0)
    return counts


def _translation_share(doc: dict[str, Any]) -> float | None:
    return _num(_first(
        doc,
        ("translate", "translation_share"), ("translate", "summary", "translation_share"), ("translate", "share"),
        ("scan", "translation_share"), ("scan", "summary", "translation_share"), ("scan", "share"),
        ("translation_share",),
    ))


def _build_checks(doc: dict[str, Any]) -> list[BuildCheckEntry]:
    section = _first(doc, ("build_check",), ("buildcheck",), ("build",))
    if not isinstance(section, dict):
        return []
    units: list[dict[str, Any]] = []
    for key in ("units", "results", "compiles", "compile_results", "tus", "targets"):
        value = section.get(key)
        if isinstance(value, list):
            units.extend(u for u in value if isinstance(u, dict))
    per_arch: dict[str, BuildCheckEntry] = {}
    for unit in units:
        arch = unit.get("arch") or unit.get("target")
        if not arch:
            continue
        ok_value = unit.get("ok", unit.get("success", unit.get("passed")))
        if ok_value is None and isinstance(unit.get("status"), str):
            ok_value = unit["status"].lower() in ("ok", "pass", "passed", "compiled", "success")
        if ok_value is None and unit.get("returncode") is not None:
            ok_value = unit.get("returncode") == 0
        errors = unit.get("errors", unit.get("error_count", 0))
        n_errors = len(errors) if isinstance(errors, list) else (_int(errors) or 0)
        ok = bool(ok_value) if ok_value is not None else n_errors == 0
        entry = per_arch.setdefault(str(arch), BuildCheckEntry(str(arch), unit.get("vendor"), 0, 0, 0, True))
        entry.units += 1
        entry.failed += 0 if ok else 1
        entry.errors += n_errors
        entry.ok = entry.ok and ok
    by_arch = (section.get("classification") or {}).get("by_arch") if isinstance(section.get("classification"), dict) else None
    if isinstance(by_arch, dict):
        for arch, counts in by_arch.items():
            found = per_arch.get(str(arch))
            if found is None or not isinstance(counts, dict):
                continue
            found.port_errors = _int(counts.get("port")) or 0
            found.environment_errors = (_int(counts.get("environment")) or 0) + (_int(counts.get("consequence")) or 0)
    return [per_arch[a] for a in sorted(per_arch)]


def _profile_meta(doc: dict[str, Any], side: str) -> dict[str, Any]:
    for path in ((side,), ("profiles", side), ("comparison", side), ("comparison", "profiles", side),
                 ("inputs", side), (f"{side}_profile",)):
        section = _get(doc, *path)
        if isinstance(section, dict):
            merged = dict(section.get("metadata") or {}) if isinstance(section.get("metadata"), dict) else {}
            for key in ("device", "vendor"):
                if section.get(key) and key not in merged:
                    merged[key] = section[key]
            if merged:
                return merged
    return {}


def toolchain_from_document(doc: dict[str, Any]) -> dict[str, str]:
    """Toolchain versions the document carries: profile metadata of both sides, build-check compilers."""
    tools: dict[str, str] = {}
    sided = {"gpu", "arch", "driver"}  # these differ per side; others belong to one vendor
    for side in ("baseline", "candidate"):
        found: dict[str, list[str]] = {}
        for key, value in _profile_meta(doc, side).items():
            component = _META_ALIASES.get(str(key).lower())
            if component is None or value in (None, "") or isinstance(value, (dict, list)):
                continue
            found.setdefault(f"{component}.{side}" if component in sided else component, []).append(str(value))
        for name, values in found.items():
            # a reader may give both the raw field (12040) and its readable form (12.4): keep the readable one
            if name.startswith("arch."):  # "sm_90" / "gfx942" over a bare compute capability
                best = next((v for v in values if v.startswith(("sm_", "gfx"))), values[0])
            else:
                best = next((v for v in values if "." in v), values[0])
            tools.setdefault(name, best)
    explicit = doc.get("toolchain")
    if isinstance(explicit, dict):
        for key, value in explicit.items():
            if value not in (None, "") and not isinstance(value, (dict, list)):
                tools[str(key)] = str(value)
    for path in (("build_check", "toolchains"), ("build_check", "compilers"), ("build_check", "toolchain")):
        compilers = _get(doc, *path)
        if isinstance(compilers, dict):
            for key, value in compilers.items():
                if isinstance(value, dict):  # {"name": "hipcc", "path": …, "version": "5.2.21153-0"}
                    key = value.get("name") or key
                    value = value.get("version")
                component = _META_ALIASES.get(str(key).lower(), str(key).lower())
                if value not in (None, ""):
                    tools.setdefault(component, str(value))
    return tools


def toolchain_from_profiles(baseline: Profile | None = None, candidate: Profile | None = None) -> dict[str, str]:
    """Toolchain versions from two ``Profile`` objects, as the document would carry them."""
    sides: dict[str, Any] = {}
    for side, profile in (("baseline", baseline), ("candidate", candidate)):
        if profile is None:
            continue
        meta = dict(profile.metadata)
        if profile.device:
            meta.setdefault("device_name", profile.device)
        sides[side] = {"metadata": meta}
    return toolchain_from_document(sides) if sides else {}


def _parse_date(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def _utc_naive(moment: datetime) -> datetime:
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment


def record_from_document(doc: dict[str, Any], meta: dict[str, Any] | None = None) -> AssessmentRecord:
    """Build the stored record of an assessment document; ``meta`` overrides (project, commit, date, toolchain, root)."""
    meta = dict(meta or {})
    comparison = comparison_section(doc)
    projection = _first(comparison or {}, ("projection",)) or _first(doc, ("projection", "projection"), ("projection",))
    projection = projection if isinstance(projection, dict) else {}
    root = meta.get("root") or _first(doc, ("scan", "root"), ("inputs", "source"), ("root",), ("path",))
    date = _parse_date(meta.get("date")) or _parse_date(_first(doc, ("created",), ("generated_at",), ("date",), ("created_at",)))
    toolchain = toolchain_from_document(doc)
    toolchain.update({k: str(v) for k, v in (meta.get("toolchain") or {}).items() if v not in (None, "")})
    triage = _first(doc, ("decision", "triage"), ("decision", "overall"), ("decision", "lean"))
    if isinstance(triage, dict):
        triage = triage.get("cluster") or triage.get("lean") or triage.get("value")
    return AssessmentRecord(
        project=str(meta.get("project") or doc.get("project") or _project_name(root) or "default"),
        recorded_at=_utc_naive(date or datetime.now(timezone.utc)),
        commit=meta.get("commit") or _first(doc, ("commit",), ("scan", "commit")),
        root=str(root) if root else None,
        translation_share=_translation_share(doc),
        findings=_finding_counts(doc),
        parity=parity_entries(comparison),
        build_checks=_build_checks(doc),
        toolchain=toolchain,
        baseline_ms=_num(projection.get("baseline_ms")),
        projected_ms=_num(projection.get("projected_ms")),
        target_ms=_num(projection.get("target_ms")),
        percentile=_num(projection.get("percentile")),
        hipgauge_version=_first(doc, ("hipgauge_version",), ("tool", "version"), ("generator", "version")),
        document_schema=doc.get("schema"),
        triage=str(triage) if triage is not None else None,
    )


def _project_name(root: Any) -> str | None:
    if not root:
        return None
    name = str(root).rstrip("/").rsplit("/", 1)[-1]
    return name or None


def dumps_names(names: list[str]) -> str:
    return json.dumps(names, ensure_ascii=False)
