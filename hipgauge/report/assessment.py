"""Build the ``hipgauge.assessment/1`` document (schema: docs/assessment-schema.md).

This is the one place that turns the stages' results into the plain dict every renderer reads
(HTML, Markdown, terminal, JSON). Renderers never see the analysis objects, only this dict.
Every stage is optional: a missing one appears in ``stages`` with its reason, and its section is null.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from hipgauge import __version__
from hipgauge.knowledge.provenance import data_provenance
from hipgauge.model import FileStats, ScanResult
from hipgauge.report import counter_parity
from hipgauge.source.coverage import not_analysed

if TYPE_CHECKING:
    from hipgauge.decide.cost import CostEstimate
    from hipgauge.decide.rubric import Decision
    from hipgauge.profiles.parity import ComparisonResult
    from hipgauge.profiles.projection import ProjectionResult
    from hipgauge.store.trend import KernelTrend
    from hipgauge.app.translate import TranslateResult

SCHEMA = "hipgauge.assessment/1"
MAX_FINDINGS = 2000  # findings kept in the document (the SARIF file has them all)


def _share(stats: list[FileStats]) -> float | None:
    if not stats:
        return None
    cuda = sum(s.cuda_lines for s in stats)
    clean = sum(s.clean_lines for s in stats)
    return 1.0 if cuda == 0 else clean / cuda


def _scan_section(scan: ScanResult, shares: dict[str, float]) -> dict[str, Any]:
    findings = sorted(scan.findings, key=lambda f: (f.severity.rank, f.file, f.line))
    per_kernel = Counter(f.kernel for f in scan.findings if f.kernel)
    by_cat: dict[str, Counter] = defaultdict(Counter)
    by_file: dict[str, Counter] = defaultdict(Counter)
    for f in scan.findings:
        sev = f.severity.value
        by_cat[f.category][sev] += 1
        by_file[f.file][sev] += 1
    by_code: Counter = Counter()
    code_severity: dict[str, str] = {}
    code_notes: Counter = Counter()
    for f in sorted(scan.findings, key=lambda f: (f.branch is not None, f.severity.rank)):
        by_code[f.code] += 1  # a rule's severity: its worst finding that is not a zero-hour branch note
        code_severity.setdefault(f.code, f.severity.value)
        if f.branch is not None:
            code_notes[f.code] += 1  # of the count, zero-hour notes (code only the CUDA build compiles)
    libs: dict[str, Counter] = defaultdict(Counter)
    for c in scan.api_calls:
        libs[c.library][c.status] += 1
    return {
        "root": scan.root,
        "summary": {
            "files": len(scan.files), "lines": scan.lines_scanned, "kernels": len(scan.kernels),
            "device_functions": len(scan.device_functions), "launch_sites": len(scan.launch_sites),
            "api_references": len(scan.api_calls), "findings": len(scan.findings), "skipped": len(scan.skipped),
        },
        "translation_share": _share(scan.file_stats),
        "kernels": [{"name": k.name, "file": k.file, "line": k.line, "findings": per_kernel.get(k.name, 0),
                     "share": shares.get(k.name)} for k in scan.kernels],
        "libraries": [{"library": lib, "references": sum(c.values()), "mapped": c.get("mapped", 0),
                       "unmapped": c.get("unsupported", 0) + c.get("unknown", 0), "deprecated": c.get("deprecated", 0)}
                      for lib, c in sorted(libs.items(), key=lambda x: -sum(x[1].values()))],
        "findings_by_category": [{"category": cat, "count": sum(c.values()), "by_severity": dict(c)}
                                 for cat, c in sorted(by_cat.items(), key=lambda x: -sum(x[1].values()))],
        "findings_by_code": [{"code": code, "count": n, "severity": code_severity[code], "notes": code_notes[code]}
                             for code, n in sorted(by_code.items(), key=lambda x: (-x[1], x[0]))],
        "findings_by_file": [{"file": fn, "count": sum(c.values()), "by_severity": dict(c)}
                             for fn, c in sorted(by_file.items(), key=lambda x: (-sum(x[1].values()), x[0]))],
        "findings": [f.to_dict() for f in findings[:MAX_FINDINGS]],
        "findings_truncated": max(0, len(findings) - MAX_FINDINGS),
        "file_stats": [s.to_dict() | {"translation_share": s.translation_share} for s in scan.file_stats],
        "skipped": [s.to_dict() for s in scan.skipped],
        "not_analysed": not_analysed(scan.skipped),
        "dual_target": {k: v for k, v in (scan.dual_target or {}).items() if k != "files"},
        "warnings": list(scan.warnings),
    }


def _parity_section(comparison: ComparisonResult, threshold: float) -> dict[str, Any]:
    """The comparison's own document (``ComparisonResult.to_dict``: times in ns, rows in its one order)
    with what the report adds: the slow-ratio threshold and the counts against it."""
    doc = comparison.to_dict()
    rows = doc["rows"]
    slow = [r for r in rows if r["ratio"] is not None and r["ratio"] > threshold]
    doc.update(
        threshold=threshold,
        time_basis=("per iteration (profile totals ÷ iterations)" if comparison.per_iteration
                    else "in total over each profile (iterations unknown)"),
        slower_than_threshold=len(slow),
        within_threshold_share=sum(r["share"] for r in rows if r["ratio"] is not None and r["ratio"] <= threshold),
        # hardware-counter parity: the trio (time, occupancy, memory throughput) per hot kernel
        hot_kernels=[counter_parity.trio(r) for r in counter_parity.hot_rows(rows)],
        counter_notes=counter_parity.side_notes(doc.get("counters")),
    )
    return doc


def _slack_section(projection: ProjectionResult, whatif: list[float]) -> dict[str, Any]:
    """The projection's own document's ``projection`` and ``groups``, each group with its what-if rows."""
    doc = projection.to_dict()
    proj = doc["projection"]
    groups = []
    replayed = projection.group_at
    for g in doc["groups"]:
        ratios = sorted(set(whatif) | ({g["assumed_ratio"]} if g["assumed_ratio"] else set()))
        groups.append(g | {"whatif": [projection.what_if(g["name"], r) for r in ratios]})
    groups.sort(key=lambda g: -g["time_ms"])
    if replayed is not None:
        model = ("projected by timeline replay: the group's kernels at r × their measured time in the baseline's "
                 "timeline, replayed and combined with the latency CSV as projection.model in assessment.json says; "
                 "the largest r within the target found by bisection")
    else:
        model = ("projected = L + t_group × (r − 1); the group may be at most 1 + (T − L) / t_group times slower "
                 "(L: baseline latency at the percentile, T: target, t_group: the group's per-iteration time)")
    return {"projection": proj, "groups": groups, "slack_method": doc["slack_method"], "model": model,
            "library_priors": doc.get("library_priors")}


def _workload_section(item: dict[str, Any], whatif: list[float]) -> dict[str, Any]:
    w = item["workload"]
    return {"name": w.name, "profile": str(w.profile), "latency_csv": str(w.latency_csv) if w.latency_csv else None,
            "target_ms": w.target_ms, "target_from": w.target_from, "percentile": w.percentile,
            "notes": list(w.notes), "warnings": list(item.get("warnings") or []),
            "slack": _slack_section(item["projection"], whatif) if item.get("projection") is not None else None}


def _merge_points(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One point per assessment: rows that share a label in one assessment (several kernels matched at the
    operator level) are summed, so their ratio is Σ candidate / Σ baseline time."""
    keys = ("assessment_id", "recorded_at", "commit", "ratio", "share", "step", "changes", "match")
    merged: list[dict[str, Any]] = []
    sums: list[list[float]] = []
    for p in points:
        if merged and p.get("assessment_id") is not None and merged[-1]["assessment_id"] == p.get("assessment_id"):
            acc = sums[-1]
            acc[0] += float(p.get("baseline_ns") or 0.0)
            acc[1] += float(p.get("candidate_ns") or 0.0)
            merged[-1]["share"] = (merged[-1].get("share") or 0.0) + (p.get("share") or 0.0)
            merged[-1]["ratio"] = acc[1] / acc[0] if acc[0] > 0 else merged[-1]["ratio"]
            merged[-1]["rows"] += 1
            continue
        merged.append({k: p.get(k) for k in keys} | {"rows": 1})
        sums.append([float(p.get("baseline_ns") or 0.0), float(p.get("candidate_ns") or 0.0)])
    for i, p in enumerate(merged):
        prev = merged[i - 1]["ratio"] if i else None
        p["step"] = (p["ratio"] / prev) if prev and p["ratio"] is not None else None
    return merged


def history_section(trends: list[KernelTrend], store: str, assessments: int, project: str | None,
                    current_id: int | None = None, limit: int = 12) -> dict[str, Any]:
    """Per-kernel ratio trends from the history store (``HistoryStore.trend``), hottest first, for the report."""
    kernels = []
    for t in trends:
        d = t.to_dict()
        points = _merge_points(d.get("points", []))
        first, last = (points[0].get("ratio"), points[-1].get("ratio")) if points else (None, None)
        kernels.append({"label": d["label"], "project": d.get("project"), "latest_ratio": last,
                        "change": (last / first) if first and last is not None and len(points) > 1 else None,
                        "points": points})
    kernels.sort(key=lambda k: -((k["points"][-1].get("share") or 0.0) if k["points"] else 0.0))
    return {"store": store, "project": project, "assessments": assessments, "current_assessment_id": current_id,
            "kernels": kernels[:limit], "kernels_total": len(kernels),
            "basis": "ratio = candidate / baseline time of the kernel in each stored assessment (measured); the "
                     "toolchain change at each step is read from the profiles' metadata and the compilers found"}


def _headline(doc: dict[str, Any]) -> dict[str, Any]:
    scan, tr = doc.get("scan"), doc.get("translate") or {}
    share = tr.get("translation_share") if tr.get("translation_share") is not None else (scan or {}).get("translation_share")
    share_from = "translate" if tr.get("translation_share") is not None else "scan"
    h_share = {"value": share, "source": "measured" if share is not None else "unknown",
               "basis": f"CUDA lines needing no hand edit / CUDA lines ({share_from} of the source tree)"}
    parity, slack = doc.get("parity"), doc.get("slack")
    proj = (parity or {}).get("projection") or (slack or {}).get("projection")
    h_parity: dict[str, Any] = {"source": "unknown", "projected_ms": None, "target_ms": None, "baseline_ms": None,
                                "meets_target": None, "percentile": None, "interval_ms": None, "target_verdict": None}
    if proj:
        h_parity.update({k: proj.get(k) for k in ("projected_ms", "target_ms", "baseline_ms", "meets_target", "percentile",
                                                  "interval_ms", "target_verdict")})
        h_parity["source"] = proj.get("source") or "measured"
    if parity:
        worst = max((r for r in parity["rows"] if r["ratio"] is not None),
                    key=lambda r: (r["ratio"], r["share"]), default=None)
        h_parity["kind"] = "compare"
        h_parity["slower_than_threshold"] = parity["slower_than_threshold"]
        h_parity["worst"] = worst and {"label": worst["label"], "ratio": worst["ratio"], "share": worst["share"]}
        h_parity["basis"] = "per-kernel candidate/baseline ratios and the end-to-end projection at the percentile"
    elif slack:
        tight = min((g for g in slack["groups"] if g["max_ratio"] is not None), key=lambda g: g["max_ratio"], default=None)
        h_parity["kind"] = "project"
        h_parity["tightest_group"] = tight and {"name": tight["name"], "max_ratio": tight["max_ratio"], "share": tight["share"],
                                                "max_ratio_at_interval": tight.get("max_ratio_at_interval")}
        h_parity["basis"] = "baseline only: slack per kernel group against the target (no candidate measured)"
    else:
        h_parity["kind"] = "none"
        h_parity["basis"] = "no profile given"
    cost = doc.get("cost") or {}
    h_hours = {"low": cost.get("low_hours"), "high": cost.get("high_hours"), "source": "estimated" if cost else "unknown",
               "basis": "cost model (hipgauge/data/cost_model.toml) over findings, slow/unmatched kernels, unmapped operators"}
    h_net = {"value": cost.get("net_usd_per_year"), "lockin_known": cost.get("lockin_known", True), "lockin_usd_per_year": cost.get("lockin_usd_per_year"),
             "upkeep_usd_per_year": (cost.get("upkeep") or {}).get("usd_per_year"),
             "break_even": cost.get("break_even"), "source": "estimated" if cost else "unknown",
             "basis": "fleet_spend_per_year × procurement_leverage − (validation + dual-variant hours) × hourly_rate"}
    bc_summary = (doc.get("build_check") or {}).get("summary") if isinstance(doc.get("build_check"), dict) else None
    if isinstance(bc_summary, dict) and bc_summary.get("coverage"):
        h_hours["build_check_coverage"] = bc_summary["coverage"]
    caveat = ((scan or {}).get("not_analysed") or {}).get("caveat")
    dt = (scan or {}).get("dual_target") or {}
    amd = {"builds_for_amd": bool(dt.get("builds_for_amd")), "evidence": list(dt.get("amd_build_evidence") or []),
           "sentence": dt.get("amd_headline") or "", "source": "measured" if scan else "unknown",
           "basis": "a HIP build in the build scripts, a project vendor switch or a shim (scan: dual_target)"}
    if amd["builds_for_amd"] and h_hours["low"] is not None:
        h_hours["basis"] = ("one-time = the gaps in the code the tree's HIP build compiles (files and branches only "
                            "the CUDA build compiles are not costed); keeping both builds green is the upkeep. "
                            + str(h_hours["basis"]))
    return {"translation_share": h_share, "parity": h_parity, "hours_to_close": h_hours, "lockin_minus_upkeep": h_net,
            "caveat": caveat, "amd": amd}


def _provenance(doc: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    h = doc["headline"]
    inputs = doc["inputs"]
    out.append({"figure": "translation share", "value": h["translation_share"]["value"],
                "source": h["translation_share"]["source"], "from": h["translation_share"]["basis"]})
    p = h["parity"]
    if p.get("baseline_ms") is not None:
        out.append({"figure": f"baseline latency P{p.get('percentile') or ''}", "value": p["baseline_ms"], "source": "measured",
                    "from": inputs.get("latency_csv") or inputs.get("baseline") or ""})
    if p.get("projected_ms") is not None:
        out.append({"figure": "projected latency", "value": p["projected_ms"], "source": p["source"],
                    "from": inputs.get("candidate_latency_csv") or inputs.get("candidate") or ""})
    if p.get("target_ms") is not None:
        out.append({"figure": "latency target", "value": p["target_ms"], "source": inputs.get("target_source", "assumed"),
                    "from": inputs.get("target_from", "")})
    if doc.get("parity"):
        out.append({"figure": "per-kernel ratios", "value": len(doc["parity"]["rows"]), "source": "measured",
                    "from": f"{inputs.get('baseline')} vs {inputs.get('candidate')}"})
    out.append({"figure": "hours to close the gap", "value": [h["hours_to_close"]["low"], h["hours_to_close"]["high"]],
                "source": h["hours_to_close"]["source"], "from": h["hours_to_close"]["basis"]})
    out.append({"figure": "lock-in minus upkeep (USD/year)", "value": h["lockin_minus_upkeep"]["value"],
                "source": h["lockin_minus_upkeep"]["source"], "from": h["lockin_minus_upkeep"]["basis"]})
    for prm in (doc.get("cost") or {}).get("parameters", []):
        out.append({"figure": prm["name"], "value": prm["value"],
                    "source": {"config": "assumed", "flag": "assumed"}.get(prm["source"], prm["source"]),
                    "from": prm["origin"]})
    bc = doc.get("build_check") or {}
    cls = bc.get("classification") if isinstance(bc, dict) else None
    if cls:
        tools = ", ".join(f"{t.get('name') or n} {t.get('version')}" for n, t in (bc.get("toolchains") or {}).items()
                          if isinstance(t, dict))
        out.append({"figure": "build check: port errors", "value": cls["diagnostics"]["port"], "source": "measured",
                    "from": f"compiler output ({tools}) for {', '.join([*(bc.get('amd_arch') or []), *(bc.get('nvidia_arch') or [])])}"})
        out.append({"figure": "build check: errors from library headers not installed here (environment gap)",
                    "value": cls["diagnostics"]["environment"] + cls["diagnostics"]["consequence"], "source": "measured",
                    "from": cls["basis"]})
    for w in doc.get("workloads") or []:
        proj = (w.get("slack") or {}).get("projection") or {}
        if proj.get("baseline_ms") is not None:
            out.append({"figure": f"{w['name']}: baseline P{proj.get('percentile'):g}", "value": proj["baseline_ms"],
                        "source": "measured", "from": w.get("latency_csv") or w.get("profile")})
        if w.get("target_ms") is not None:
            out.append({"figure": f"{w['name']}: latency target", "value": w["target_ms"], "source": "assumed",
                        "from": w.get("target_from") or ""})
        groups = [g for g in (w.get("slack") or {}).get("groups", []) if g.get("max_ratio") is not None]
        if groups:
            tight = min(groups, key=lambda g: g["max_ratio"])
            out.append({"figure": f"{w['name']}: slack of {tight['name']}", "value": tight["max_ratio"], "source": "estimated",
                        "from": "1 + (T − L) / t_group over the profile's kernel time per iteration"})
    for s in (doc.get("decision") or {}).get("signals", []):
        out.append({"figure": f"rubric: {s['title']}", "value": s["lean"], "source": s["source"],
                    "from": s.get("weighted_by") or s["summary"]})
    return out


def build_assessment(*, scan: ScanResult | None = None, translate: TranslateResult | None = None,
                     build_check: dict[str, Any] | None = None, comparison: ComparisonResult | None = None,
                     projection: ProjectionResult | None = None, decision: Decision | None = None,
                     cost: CostEstimate | None = None,
                     inputs: dict[str, Any] | None = None, stages: list[dict[str, Any]] | None = None,
                     warnings: list[str] | None = None, slow_ratio_threshold: float = 1.10,
                     whatif_ratios: list[float] | None = None, version: str | None = None,
                     generated_at: str | None = None, workloads: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The assessment document from the stages' typed results. ``build_check`` is the pipeline's
    ``hipgauge.build-check/1`` document with its error ``classification`` (``decide.build_errors``), shown as
    given. ``workloads``: ``{"workload": Workload, "projection": ProjectionResult | None, "warnings": […]}`` of
    further profiles shown on their own."""
    if version is None:
        version = __version__
    decision_d = decision.to_dict() if decision is not None else None
    shares: dict[str, float] = {}
    if decision_d:
        for sig in decision_d.get("signals", []):
            for row in (sig.get("details") or {}).get("per_kernel", []) or []:
                if row.get("share") is not None:
                    shares[row["kernel"]] = row["share"]
    tr_section = None
    if translate is not None:
        tr_section = {"translation_share": _share(translate.stats), "document": translate.to_dict()}
    whatif = whatif_ratios or [1.05, 1.1, 1.25, 1.4, 2.0]
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "tool": {"name": "hipgauge", "version": version},
        "generated_at": generated_at or _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "inputs": dict(inputs or {}),
        "stages": list(stages or []),
        "scan": _scan_section(scan, shares) if scan is not None else None,
        "translate": tr_section,
        "build_check": build_check,
        "parity": _parity_section(comparison, slow_ratio_threshold) if comparison is not None else None,
        "slack": _slack_section(projection, whatif) if projection is not None else None,
        "decision": decision_d,
        "cost": cost.to_dict() if cost is not None else None,
        "workloads": [_workload_section(w, whatif) for w in workloads or []],
        "history": None,
        "warnings": list(warnings or []),
    }
    doc["headline"] = _headline(doc)
    doc["provenance"] = _provenance(doc)
    # the bundled data tables the figures and findings rest on: when their facts were read, and from where
    doc["knowledge"] = [d.to_dict() for d in data_provenance()]
    return doc
