"""The five rubric signals of DESIGN.md, each with a lean, its evidence and where that evidence came from.

Signals: primary objective, hot-kernel makeup, library dependence, precision path, team economics.
Leans and thresholds are data (``hipgauge/data/rubric.toml``). When a profile is given, evidence about
kernels is weighted by each kernel's share of the profiled time (a warp shuffle in a kernel taking
0.1 % matters little; in the one taking 40 % it decides). The overall triage says which column the
workload clusters in — and that the verdict comes from the per-kernel measurement, not from here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from hipgauge.config import Config, defaults
from hipgauge.datafiles import load_data_toml
from hipgauge.decide.build_errors import classify_build_check
from hipgauge.decide.shares import KernelShares, kernel_shares
from hipgauge.kernel_names import base_name
from hipgauge.knowledge.mapping import NON_LIBRARY
from hipgauge.model import Record, ScanResult
from hipgauge.profiles.libraries import UNKNOWN, classify_kernel
from hipgauge.rules.registry import codes_with_role

if TYPE_CHECKING:
    from hipgauge.decide.cost import CostEstimate
    from hipgauge.model import Profile
    from hipgauge.profiles.parity import ComparisonResult
    from hipgauge.profiles.projection import ProjectionResult

SCHEMA = "hipgauge.decide/1"
PORT, STAY, NEUTRAL = "port", "stay", "neutral"


@lru_cache(maxsize=1)
def load_rubric() -> dict[str, Any]:
    """``rubric.toml`` with each signal's rule codes filled in from the rules' own ``RULE.rubric`` roles."""
    spec = load_data_toml("rubric.toml")
    spec["library_dependence"]["covered_codes"] = codes_with_role("covered-library")
    spec["library_dependence"]["exotic_codes"] = codes_with_role("exotic-library")
    spec["precision_path"]["vendor_specific_codes"] = codes_with_role("vendor-precision")
    return spec


@dataclass
class Signal(Record):
    id: str
    title: str
    lean: str  # port | stay | neutral
    source: str  # measured | config | unknown
    summary: str  # one line
    evidence: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    port_column: str = ""
    stay_column: str = ""
    weighted_by: str = ""  # "profiled time (…)" | "counts" | ""


@dataclass
class Triage(Record):
    cluster: str  # port | stay | split
    counts: dict[str, int]
    summary: str
    statement: str  # the verdict comes from the per-kernel measurement
    measurement: str  # what the measurement says, or that there is none
    #: the interval behind it (``profiles.intervals``: interval_ms, target_verdict, iterations_to_settle, …); None
    #: without a latency CSV
    measurement_interval: dict[str, Any] | None = None


@dataclass
class Decision(Record):
    signals: list[Signal]
    triage: Triage
    weighting: str
    #: the sentence every headline leads with when the tree already builds for AMD (empty otherwise)
    headline: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"schema": SCHEMA, **super().to_dict()}


# ----------------------------------------------------------------------------------------------


def _lean_by(value: float, stay_at: float, port_below: float) -> str:
    """stay at or above ``stay_at``, port below ``port_below``, neutral between."""
    if value >= stay_at:
        return STAY
    if value < port_below:
        return PORT
    return NEUTRAL


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _source_of(config: Config, *keys: str) -> str:
    srcs = [config.source(k) for k in keys]
    if any(s in ("config", "flag") for s in srcs):
        return "config"
    return "unknown"


def _kernel_findings(scan: ScanResult, categories: set[str] | None = None,
                     codes: set[str] | None = None) -> dict[str, Counter]:
    """source kernel name → Counter of rule codes (findings inside that kernel)."""
    kernel_names = {k.name for k in scan.kernels}
    out: dict[str, Counter] = defaultdict(Counter)
    for f in scan.findings:
        if categories is not None and f.category not in categories:
            continue
        if codes is not None and f.code not in codes:
            continue
        if f.kernel and f.kernel in kernel_names:
            out[f.kernel][f.code] += 1
    return out


def _codes_text(counter: Counter) -> str:
    return ", ".join(f"{c} ×{n}" if n > 1 else c for c, n in sorted(counter.items()))


#: unclassified kernel names cited one by one in the evidence line (all of them are in details)
UNCLASSIFIED_CITED = 3


def _profiled_libraries(scan: ScanResult, shares: KernelShares, spec: dict[str, Any]) -> tuple[
        dict[str, float], dict[str, str], dict[str, list[tuple[float, float]]], dict[str, dict[str, float]],
        list[tuple[str, float]]]:
    """The profiled kernels that are not the project's own source kernels, attributed by the one kernel-library
    classifier (``profiles.libraries.classify_kernel``, knowledge in ``kernel_libraries.toml``): time share per
    library, its ROCm coverage (``rubric.toml``), (share, ratio) pairs per library, share per (library, family),
    and the names no rule knows, by share."""
    table: dict[str, str] = spec["kernel_library_coverage"]
    source_kernels = {base_name(k.name) for k in scan.kernels}
    lib_share: dict[str, float] = defaultdict(float)
    lib_cov: dict[str, str] = {}
    lib_ratio: dict[str, list[tuple[float, float]]] = defaultdict(list)
    families: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    unclassified: list[tuple[str, float]] = []
    if not shares:
        return lib_share, lib_cov, lib_ratio, families, unclassified
    for name, share in shares.by_name.items():
        key = base_name(name)
        if key in source_kernels:
            continue
        cls = classify_kernel(name)
        lib_share[cls.library] += share
        lib_cov[cls.library] = table.get(cls.library, table[UNKNOWN])
        families[cls.library][cls.family] += share
        if not cls.known:
            unclassified.append((name, share))
        if key in shares.ratios:
            lib_ratio[cls.library].append((share, shares.ratios[key]))
    unclassified.sort(key=lambda x: (-x[1], x[0]))
    return lib_share, lib_cov, lib_ratio, families, unclassified


def _library_line(lib: str, share: float, coverage: str, families: dict[str, float],
                  ratios: list[tuple[float, float]] | None, unclassified: list[tuple[str, float]]) -> str:
    """One evidence line: a library's share of profiled time, its families, its ROCm coverage and (compared) its
    time-weighted ratio; for the unclassified kernels, their largest names."""
    if lib == UNKNOWN:
        names = ", ".join(n if len(n) <= 60 else n[:59] + "…" for n, _ in unclassified[:UNCLASSIFIED_CITED])
        more = len(unclassified) - UNCLASSIFIED_CITED
        line = (f"profiled kernels no library rule knows: {_pct(share)} of time (ROCm coverage: {coverage}, assumed); "
                f"{names}{f' and {more} more (details.unclassified_kernels)' if more > 0 else ''}")
    else:
        fams = sorted(families.items(), key=lambda x: -x[1])
        text = ", ".join(f for f, _ in fams[:3]) + (f", {len(fams) - 3} more" if len(fams) > 3 else "")
        line = f"profiled {lib} kernels ({text}): {_pct(share)} of time (ROCm coverage: {coverage})"
    if ratios:
        tot = sum(w for w, _ in ratios)
        if tot > 0:
            line += f", {sum(w * r for w, r in ratios) / tot:.2f}× on candidate (time-weighted)"
    return line


# ----------------------------------------------------------------------------------------------


def _primary(config: Config, rubric: dict[str, Any], meta: dict[str, Any]) -> Signal:
    value = config.get("objectives.primary")
    lean = rubric["team_economics"]["primary"].get(value, NEUTRAL)
    src = _source_of(config, "objectives.primary")
    if value == "unknown":
        summary = "not stated: set [objectives] primary = portability | throughput | balanced"
    else:
        summary = f"objectives.primary = {value}"
    return Signal(id="primary_objective", title=meta["title"], lean=lean, source=src, summary=summary,
                  evidence=[f"objectives.primary = {value!r} ({config.source('objectives.primary')})"],
                  details={"primary": value}, port_column=meta["port"], stay_column=meta["stay"])


def _definitions(scan: ScanResult, names: list[str]) -> str:
    """How the distinct kernel names counted here relate to scan's count of definitions (one name may be defined
    once per vendor or per file)."""
    n = len(scan.kernels)
    return "" if n == len(names) else f"; {len(names)} distinct names of the {n} kernel definitions scan counts"


def _hot_kernels(scan: ScanResult, shares: KernelShares, rubric: dict[str, Any], meta: dict[str, Any]) -> Signal:
    spec = rubric["hot_kernel_makeup"]
    cats = set(spec["vendor_specific_categories"])
    vendor = _kernel_findings(scan, categories=cats)
    kernels = sorted({k.name for k in scan.kernels})
    details: dict[str, Any] = {"kernels": len(kernels), "vendor_specific_kernels": len(vendor),
                               "categories": sorted(cats)}
    evidence: list[str] = []
    if not kernels:
        return Signal(id="hot_kernel_makeup", title=meta["title"], lean=NEUTRAL, source="unknown",
                      summary="no __global__ kernels found in the source", evidence=[], details=details,
                      port_column=meta["port"], stay_column=meta["stay"])
    shared = {k: shares.share_of(k) for k in kernels} if shares else {}
    matched = {k: s for k, s in shared.items() if s is not None}
    rows: list[dict[str, Any]] = []
    for k in kernels:
        rows.append({"kernel": k, "share": matched.get(k), "codes": dict(vendor.get(k, {})),
                     "ratio": shares.ratios.get(base_name(k)) if shares else None})
    details["per_kernel"] = rows
    if matched:
        vendor_share = sum(s for k, s in matched.items() if k in vendor)
        source_share = sum(matched.values())
        details.update(vendor_time_share=vendor_share, source_time_share=source_share,
                       matched_kernels=len(matched))
        lean = _lean_by(vendor_share, stay_at=spec["stay_at_time_share"], port_below=spec["port_below_time_share"])
        summary = (f"{_pct(vendor_share)} of profiled kernel time is in kernels using warp/tensor-core/PTX constructs "
                   f"({len(vendor)} of {len(kernels)} source kernels; source kernels hold {_pct(source_share)} of the time)")
        weighted = f"profiled time ({shares.origin}; {len(matched)} of {len(kernels)} source kernels found in it)"
        for r in sorted(rows, key=lambda r: -(r["share"] or 0)):
            if r["share"] is None and not r["codes"]:
                continue
            share = "not in profile" if r["share"] is None else f"{_pct(r['share'])} of time"
            codes = _codes_text(Counter(r["codes"])) if r["codes"] else "clean"
            ratio = f", {r['ratio']:.2f}× on candidate" if r["ratio"] is not None else ""
            evidence.append(f"{r['kernel']}: {share}{ratio} — {codes}")
    else:
        frac = len(vendor) / len(kernels)
        details["vendor_kernel_fraction"] = frac
        lean = _lean_by(frac, stay_at=spec["stay_at_kernel_fraction"], port_below=spec["port_below_kernel_fraction"])
        summary = (f"{len(vendor)} of {len(kernels)} source kernels use warp/tensor-core/PTX constructs (by count: no "
                   "profile weighting)" + _definitions(scan, kernels))
        weighted = "counts (no profile" + (", and no source kernel found in it)" if shares else ")")
        for k in kernels:
            if k in vendor:
                evidence.append(f"{k}: {_codes_text(vendor[k])}")
        clean = [k for k in kernels if k not in vendor]
        if clean:
            evidence.append(f"clean: {', '.join(clean[:12])}{' …' if len(clean) > 12 else ''}")
    return Signal(id="hot_kernel_makeup", title=meta["title"], lean=lean, source="measured", summary=summary,
                  evidence=evidence, details=details, port_column=meta["port"], stay_column=meta["stay"],
                  weighted_by=weighted)


#: library rows (measured or prior) cited in the library-dependence evidence
LIBRARY_ROWS_CITED = 6


def _pct_or(x: Any) -> str:
    return _pct(float(x)) if isinstance(x, (int, float)) else "?"


def _library_rows_evidence(measured: dict[str, Any] | None, priors: dict[str, Any] | None,
                           evidence: list[str], details: dict[str, Any]) -> str:
    """Cite the library rows, weighted by kernel time: the measured rows of a comparison when there is one, else the
    priors of the baseline's library-backed operators (prior, not measured). Returns a summary suffix."""
    if measured and measured.get("rows"):
        rows = measured["rows"]
        details["library_rows"] = {"basis": "measured (compare)", "rows": rows}
        for r in rows[:LIBRARY_ROWS_CITED]:
            b, c = r.get("baseline") or {}, r.get("candidate") or {}
            ratio = f"{r['ratio']:.2f}×" if r.get("ratio") is not None else "?"
            tile = f" {c['tile']}" if c.get("tile") else ""
            layout = (f", layout conversion {c['layout_conversion_ns'] / 1e3:.1f} µs on the candidate"
                      if c.get("layout_conversion_ns") else "")
            evidence.append(f"measured: {r.get('signature') or r['label']} ({_pct_or(r.get('share'))} of baseline kernel "
                            f"time): {b.get('library')} {b.get('family')} → {c.get('library')} {c.get('family')}{tile} "
                            f"({c.get('path')}), {ratio}{layout}")
        generic = sum(r.get("share") or 0.0 for r in rows if (r.get("candidate") or {}).get("path") == "generic")
        details["library_rows"]["generic_share"] = generic
        return f"; measured library rows replace the priors ({_pct(generic)} of baseline time on a generic fallback)"
    if priors and priors.get("rows"):
        rows = priors["rows"]
        details["library_priors"] = priors
        for p in rows[:LIBRARY_ROWS_CITED]:
            prior = p.get("prior") or {}
            what = " ".join(x for x in (p.get("operator"), p.get("shape"), p.get("dtype"), p.get("layout")) if x)
            evidence.append(f"prior, not measured: {what} ({_pct_or(p.get('share'))} of kernel time): {p.get('library')} "
                            f"{p.get('family')} → ROCm {prior.get('expectation', 'unknown')} "
                            f"({prior.get('releases') or 'no prior'})")
        more = len(rows) - LIBRARY_ROWS_CITED + int(priors.get("rows_more") or 0)
        if more > 0:
            evidence.append(f"{more} more library operators with priors in details.library_priors")
        return (f"; prior, not measured: {_pct(priors.get('weak_share') or 0.0)} of kernel time on library paths "
                f"known weak or absent on ROCm, {_pct(priors.get('partial_share') or 0.0)} on partly tuned ones")
    return ""


def _libraries(scan: ScanResult, shares: KernelShares, rubric: dict[str, Any], meta: dict[str, Any],
               measured: dict[str, Any] | None = None, priors: dict[str, Any] | None = None) -> Signal:
    spec = rubric["library_dependence"]
    coverage: dict[str, str] = spec["coverage"]
    calls: dict[str, Counter] = defaultdict(Counter)
    for c in scan.api_calls:
        if c.library in NON_LIBRARY:
            continue
        calls[c.library][c.status] += 1
    exotic_codes, covered_codes = set(spec["exotic_codes"]), set(spec["covered_codes"])
    exotic = Counter(f.code for f in scan.findings if f.code in exotic_codes)
    covered = Counter(f.code for f in scan.findings if f.code in covered_codes)
    unmapped = sum(n for lib in calls.values() for st, n in lib.items() if st in ("unsupported", "unknown"))
    libs_none = sorted(lib for lib in calls if coverage.get(lib, "partial") == "none")
    libs_partial = sorted(lib for lib in calls if coverage.get(lib, "partial") == "partial")
    evidence = []
    for lib in sorted(calls):
        total = sum(calls[lib].values())
        bad = calls[lib]["unsupported"] + calls[lib]["unknown"]
        evidence.append(f"{lib}: {total} references, {bad} without a HIP mapping (ROCm coverage: {coverage.get(lib, 'partial')})")
    if exotic:
        evidence.append(f"exotic library use: {_codes_text(exotic)}")
    if covered:
        evidence.append(f"well-covered library use: {_codes_text(covered)}")
    details: dict[str, Any] = {"libraries": {k: dict(v) for k, v in calls.items()}, "unmapped_references": unmapped,
                               "exotic_codes": dict(exotic), "covered_codes": dict(covered)}
    source = "measured"
    weighted = "counts"
    lib_share, lib_cov, lib_ratio, lib_families, unclassified = _profiled_libraries(scan, shares, spec)
    if lib_share:
        weighted = f"profiled time ({shares.origin})"
        exotic_share = sum(s for lib, s in lib_share.items() if lib_cov[lib] == "none")
        details["library_time_share"] = dict(lib_share)
        details["library_family_time_share"] = {lib: dict(f) for lib, f in lib_families.items()}
        details["library_coverage"] = dict(lib_cov)
        details["exotic_time_share"] = exotic_share
        details["classified_by"] = "hipgauge/data/kernel_libraries.toml (hipgauge.profiles.libraries.classify_kernel)"
        for lib, s in sorted(lib_share.items(), key=lambda x: -x[1]):
            evidence.append(_library_line(lib, s, lib_cov[lib], lib_families[lib], lib_ratio.get(lib), unclassified))
        if unclassified:
            details["unclassified_kernels"] = [{"name": n, "share": s} for n, s in unclassified]
        if exotic_share >= spec["stay_at_time_share"] or (exotic and exotic_share >= spec["port_below_time_share"]):
            lean = STAY
        elif exotic_share < spec["port_below_time_share"] and not exotic and not libs_none:
            lean = PORT
        else:
            lean = NEUTRAL
        unknown_share = lib_share.get(UNKNOWN, 0.0)
        summary = (f"{_pct(sum(lib_share.values()))} of profiled time is in library/framework kernels"
                   f"{f' ({_pct(unknown_share)} in kernels no library rule knows)' if unknown_share else ''}; "
                   f"{_pct(exotic_share)} in libraries with no tuned ROCm path")
    else:
        if not calls and not exotic:
            lean = PORT
            summary = "no CUDA library dependence found in the source"
        elif exotic or libs_none or unmapped:
            lean = STAY
            summary = (f"exotic or unmapped library use: {', '.join(libs_none) or 'none with no ROCm path'}; "
                       f"{unmapped} unmapped references; {sum(exotic.values())} exotic-use findings")
        elif libs_partial:
            lean = NEUTRAL
            summary = f"libraries with partial ROCm coverage: {', '.join(libs_partial)}"
        else:
            lean = PORT
            summary = f"libraries all with well-covered ROCm paths: {', '.join(sorted(calls))}"
    cited: list[str] = []  # the library rows first: they say the most about this signal
    summary += _library_rows_evidence(measured, priors, cited, details)
    evidence[:0] = cited
    return Signal(id="library_dependence", title=meta["title"], lean=lean, source=source, summary=summary,
                  evidence=evidence, details=details, port_column=meta["port"], stay_column=meta["stay"],
                  weighted_by=weighted)


def _precision(scan: ScanResult, shares: KernelShares, rubric: dict[str, Any], meta: dict[str, Any]) -> Signal:
    spec = rubric["precision_path"]
    std_refs: Counter = Counter()
    ven_refs: Counter = Counter()
    for c in scan.api_calls:
        if any(fnmatchcase(c.cuda_name, p) for p in spec["vendor_names"]):
            ven_refs[c.cuda_name] += 1
        elif any(fnmatchcase(c.cuda_name, p) for p in spec["standard_names"]):
            std_refs[c.cuda_name] += 1
    vcodes = set(spec["vendor_specific_codes"])
    ven_findings = Counter(f.code for f in scan.findings if f.code in vcodes)
    ven_kernels = _kernel_findings(scan, codes=vcodes)
    evidence = []
    if std_refs:
        evidence.append("FP16/BF16 references: " + ", ".join(f"{n} ×{c}" for n, c in std_refs.most_common(8)))
    if ven_refs:
        evidence.append("vendor-specific precision references: " + ", ".join(f"{n} ×{c}" for n, c in ven_refs.most_common(8)))
    if ven_findings:
        evidence.append(f"findings: {_codes_text(ven_findings)}")
    details: dict[str, Any] = {"standard_references": dict(std_refs), "vendor_references": dict(ven_refs),
                               "vendor_findings": dict(ven_findings)}
    weighted = "counts"
    vendor_share = std_share = 0.0
    if shares:
        for key, share in shares.shares.items():
            low = shares.names.get(key, key).lower()
            if any(fnmatchcase(low, p) for p in spec["vendor_kernel_patterns"]) or \
                    any(base_name(k) == key for k in ven_kernels):
                vendor_share += share
            elif any(fnmatchcase(low, p) for p in spec["standard_kernel_patterns"]):
                std_share += share
        details.update(vendor_time_share=vendor_share, standard_time_share=std_share)
        weighted = f"profiled time ({shares.origin})"
        evidence.append(f"profiled time in FP16/BF16 kernels: {_pct(std_share)}; in TF32/FP8/vendor-tuned precision kernels: {_pct(vendor_share)}")
        if vendor_share >= spec["stay_at_time_share"]:
            lean = STAY
        elif std_share > 0 or std_refs:
            lean = PORT
        else:
            lean = NEUTRAL
        summary = f"{_pct(std_share)} of profiled time in FP16/BF16 kernels, {_pct(vendor_share)} in vendor-specific precision kernels"
    else:
        nv = sum(ven_refs.values()) + sum(ven_findings.values())
        ns = sum(std_refs.values())
        if nv and nv >= ns:
            lean, summary = STAY, f"vendor-specific precision constructs ({nv}) outweigh FP16/BF16 ones ({ns})"
        elif ns:
            lean = PORT
            summary = f"FP16/BF16 path ({ns} references)" + (f"; {nv} vendor-specific constructs to review" if nv else "")
        else:
            lean, summary = NEUTRAL, "no reduced-precision path found (FP32, or precision set outside the source)"
    return Signal(id="precision_path", title=meta["title"], lean=lean, source="measured", summary=summary,
                  evidence=evidence, details=details, port_column=meta["port"], stay_column=meta["stay"],
                  weighted_by=weighted)


def _economics(config: Config, rubric: dict[str, Any], meta: dict[str, Any], cost: CostEstimate | None) -> Signal:
    spec = rubric["team_economics"]
    fleet = config.get("objectives.fleet")
    pressure = config.get("objectives.procurement_pressure")
    votes = [spec["fleet"].get(fleet, NEUTRAL), spec["procurement_pressure"].get(pressure, NEUTRAL)]
    evidence = [f"objectives.fleet = {fleet!r} ({config.source('objectives.fleet')})",
                f"objectives.procurement_pressure = {pressure!r} ({config.source('objectives.procurement_pressure')})"]
    keys = ["objectives.fleet", "objectives.procurement_pressure"]
    details: dict[str, Any] = {"fleet": fleet, "procurement_pressure": pressure}
    net = cost.net_usd_per_year if cost is not None else None
    if cost is not None and net is not None and config.source("economics.fleet_spend_per_year") in ("config", "flag"):
        votes.append(PORT if net > 0 else STAY)
        keys.append("economics.fleet_spend_per_year")
        details["net_usd_per_year"] = net
        evidence.append(f"avoided lock-in minus upkeep: {net:,.0f} USD/year (estimated by the cost model)")
    port, stay = votes.count(PORT), votes.count(STAY)
    lean = PORT if port > stay else STAY if stay > port else NEUTRAL
    src = _source_of(config, *keys)
    summary = f"fleet {fleet}, procurement pressure {pressure}" if src == "config" else \
        "not stated: set [objectives] fleet and procurement_pressure, [economics] fleet_spend_per_year"
    return Signal(id="team_economics", title=meta["title"], lean=lean, source=src, summary=summary,
                  evidence=evidence, details=details, port_column=meta["port"], stay_column=meta["stay"])


def _measurement(comparison: ComparisonResult | None, projection: ProjectionResult | None) -> str:
    proj = comparison.projection if comparison is not None else projection.projection if projection is not None else None
    if proj is None:
        return ("no per-kernel measurement yet: give a baseline profile (and a candidate profile from the AMD "
                "target) for the verdict")
    target, base, projected = proj.target_ms, proj.baseline_ms, proj.projected_ms
    label = f"P{proj.percentile:g}"
    source = proj.source.value
    if comparison is not None:
        what, value = "projected on the candidate", projected if projected is not None else base
    else:
        what, value = "baseline", base if base is not None else projected
        source = "measured"
    if value is None:
        return "the profile gave no end-to-end latency at the percentile"
    if target is None:
        return f"{label} {what}: {value:.2f} ms (no latency target set)"
    result = comparison if comparison is not None else projection
    interval = getattr(result, "interval", None)
    if interval is not None and abs(interval.value_ms - value) < 1e-9:
        status, need, _ = interval.verdict(target)
        text = (f"{label} {what}: {value:.2f} ms (interval {interval.lo_ms:.2f}–{interval.hi_ms:.2f} ms, "
                f"{100 * interval.confidence:.0f}%) {status}{' against' if status not in ('meets', 'misses') else ''} the "
                f"{target:g} ms target ({source})")
        if need is not None:
            text += f"; about {need} iterations (now {interval.iterations}) would settle it"
        elif status not in ("meets", "misses"):
            text += "; more iterations will not settle it: the model's own error reaches the target"
    else:
        verdict = "meets" if value <= target else "misses"
        text = f"{label} {what}: {value:.2f} ms {verdict} the {target:g} ms target ({source})"
    if comparison is None:
        text += "; no candidate measured yet, so the port's per-kernel delta is still open"
    return text


def _measurement_interval(comparison: ComparisonResult | None, projection: ProjectionResult | None) -> dict[str, Any] | None:
    """The interval the measurement line states, as its dict (the same one ``compare`` / ``project`` carry)."""
    result = comparison if comparison is not None else projection
    interval = getattr(result, "interval", None)
    if result is None or interval is None:
        return None
    return interval.to_dict(result.projection.target_ms)


def _build_evidence(signals: list[Signal], build_check: dict[str, Any] | None) -> None:
    """Build-check evidence; the leans are unchanged (environment gaps say nothing about the port)."""
    cls = build_check.get("classification") if isinstance(build_check, dict) else None
    cls = cls or classify_build_check(build_check)
    if not cls:
        return
    by_id = {s.id: s for s in signals}
    port = cls["port_errors"]
    if port:
        distinct = {(e.get("file"), e.get("line"), e.get("message")) for e in port}
        first = port[0]
        by_id["hot_kernel_makeup"].evidence.append(
            f"build check: {len(distinct)} port compile error(s), e.g. {first.get('file')}:{first.get('line')} "
            f"{first.get('message')}")
        by_id["hot_kernel_makeup"].details["build_port_errors"] = len(distinct)
    headers = sorted({m["header"] for m in cls["missing_headers"] if m["kind"] == "environment"})
    if headers:
        by_id["library_dependence"].evidence.append(
            f"build check: library headers not installed on the checking machine ({', '.join(headers)}): "
            "an environment gap, not counted against the port")
        by_id["library_dependence"].details["build_missing_headers"] = headers


def _library_rows(comparison: ComparisonResult | None, projection: ProjectionResult | None,
                  baseline: Profile | None) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(measured library section of a comparison, priors of the baseline's library operators): the measured rows
    when a candidate was profiled, else the priors (from the projection, or computed from the baseline)."""
    if comparison is not None and comparison.libraries:
        return comparison.libraries, None
    if projection is not None and projection.library_priors:
        return None, projection.library_priors
    if baseline is not None and baseline.kernels is not None:
        from hipgauge.profiles.library_priors import library_priors  # noqa: PLC0415 - only for a baseline-only decision

        return None, library_priors(baseline.kernels)
    return None, None


def decide(scan: ScanResult | None, comparison: ComparisonResult | None = None,
           projection: ProjectionResult | None = None, config: Config | None = None,
           *, baseline: Profile | None = None, cost: CostEstimate | None = None, build_check: dict[str, Any] | None = None) -> Decision:
    """The five signals and the triage. ``baseline`` (a Profile) weights kernel evidence by time.
    ``build_check`` (a ``hipgauge.build-check/1`` dict) adds evidence: its port errors to the hot-kernel
    makeup, its missing library headers to library dependence as an environment gap (never as a defect)."""
    config = config or defaults()
    scan = scan or ScanResult(root="")
    if any(f.branch for f in scan.findings):  # CUDA-only branch notes: the HIP build has its own path there
        scan = replace(scan, findings=[f for f in scan.findings if not f.branch])
    rubric = load_rubric()
    meta = {s["id"]: s for s in rubric["signal"]}
    shares = kernel_shares(baseline=baseline, comparison=comparison, projection=projection)
    signals = [
        _primary(config, rubric, meta["primary_objective"]),
        _hot_kernels(scan, shares, rubric, meta["hot_kernel_makeup"]),
        _libraries(scan, shares, rubric, meta["library_dependence"], *_library_rows(comparison, projection, baseline)),
        _precision(scan, shares, rubric, meta["precision_path"]),
        _economics(config, rubric, meta["team_economics"], cost),
    ]
    _build_evidence(signals, build_check)
    counts = {PORT: 0, STAY: 0, NEUTRAL: 0}
    for s in signals:
        counts[s.lean] += 1
    cluster = PORT if counts[PORT] > counts[STAY] else STAY if counts[STAY] > counts[PORT] else "split"
    words = {PORT: "toward a HIP port", STAY: "toward staying on CUDA", "split": "in neither column"}
    amd = (scan.dual_target or {}).get("amd_headline") or ""
    if amd:  # it builds for AMD already: the question is keeping the AMD build, not porting
        words[PORT] = "toward running on AMD (its HIP build exists: the gaps and the upkeep, not a port)"
    summary = (f"the workload clusters {words[cluster]}: {counts[PORT]} of 5 signals lean port, "
               f"{counts[STAY]} stay, {counts[NEUTRAL]} neutral")
    weighting = f"profiled time ({shares.origin})" if shares else "counts (no profile given)"
    triage = Triage(cluster=cluster, counts=counts, summary=summary, statement=rubric["statement"],
                    measurement=_measurement(comparison, projection),
                    measurement_interval=_measurement_interval(comparison, projection))
    return Decision(signals=signals, triage=triage, weighting=weighting, headline=amd)
