"""Hours to close the gap a port leaves, the yearly upkeep of two toolchains, avoided lock-in, break-even.

The model is stated in the header of ``hipgauge/data/cost_model.toml``. Every parameter is reported
with its value and where it came from (config file, command-line flag, or the documented default), and
every one can be overridden in ``hipgauge.toml`` ([economics], [cost_model]) or with ``--set``.
"""

from __future__ import annotations

import math
import posixpath
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from hipgauge.config import SCHEMA as CONFIG_SCHEMA
from hipgauge.config import Config, defaults
from hipgauge.datafiles import load_data_toml
from hipgauge.decide.build_errors import classify_build_check
from hipgauge.errors import InputError
from hipgauge.kernel_names import base_name
from hipgauge.knowledge.mapping import NON_LIBRARY
from hipgauge.model import Record, ScanResult
from hipgauge.decide.distinct import finding_items

if TYPE_CHECKING:
    from hipgauge.profiles.parity import ComparisonResult

SCHEMA = "hipgauge.cost/1"
DATA_FILE = "hipgauge/data/cost_model.toml"


@lru_cache(maxsize=1)
def load_cost_model() -> dict[str, Any]:
    return load_data_toml("cost_model.toml")


@dataclass
class Parameter(Record):
    name: str  # dotted config key
    value: Any
    source: str  # config | flag | default
    origin: str  # the file or flag it came from
    doc: str = ""


@dataclass
class CostItem(Record):
    kind: str  # finding | kernel-tuning | unmatched-kernel | library-op | build-error
    category: str
    label: str
    low_hours: float
    high_hours: float
    basis: str  # how the hours were obtained
    file: str | None = None
    line: int | None = None
    share: float | None = None
    ratio: float | None = None
    count: int = 1  # occurrences this item stands for (same rule and construct in one kernel, or same-shape files)


@dataclass
class CategoryCost(Record):
    category: str
    count: int
    low_hours: float
    high_hours: float


@dataclass
class Upkeep(Record):
    validation_hours: float
    dual_variant_kernels: list[str]
    dual_variant_hours: float
    hours_per_year: float
    usd_per_year: float


@dataclass
class CostEstimate(Record):
    items: list[CostItem]
    by_category: list[CategoryCost]
    low_hours: float
    high_hours: float
    one_time_low_usd: float
    one_time_high_usd: float
    upkeep: Upkeep
    lockin_usd_per_year: float
    net_usd_per_year: float  # avoided lock-in − upkeep cost
    break_even_years_low: float | None  # from the low one-time cost; None = never within reach
    break_even_years_high: float | None
    break_even: str  # one sentence
    cumulative: list[dict[str, float]]  # per year: net value low/high after the one-time cost
    parameters: list[Parameter]
    notes: list[str] = field(default_factory=list)
    source: str = "estimated"
    lockin_known: bool = True  # False while economics.fleet_spend_per_year is the default 0
    #: the items that weigh most, with their arithmetic (``basis``) and how many occurrences each stands for
    drivers: list[dict[str, Any]] = field(default_factory=list)
    #: what keeping the tree green for both vendors costs, from scan's dual-target inventory
    dual_toolchain: dict[str, Any] = field(default_factory=dict)
    #: the sentence every headline leads with when the tree already builds for AMD (empty otherwise)
    headline: str = ""
    #: findings of ``cost_model.review_confidences`` (low): listed for a person to check, no hours (grouped like
    #: the costed findings: one row per distinct piece of work, with its count)
    review: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"schema": SCHEMA, **super().to_dict()}


def parameters(config: Config) -> dict[str, Parameter]:
    """Every parameter of the model: [economics] from config, [cost_model] from config or the data file."""
    data = load_cost_model()
    out: dict[str, Parameter] = {}
    for section in ("economics", "cost_model"):
        for key, spec in CONFIG_SCHEMA[section].items():
            dotted = f"{section}.{key}"
            value = config.values.get(dotted, spec.default)
            src = config.source(dotted)
            if src == "config":
                origin = config.path or "config"
            elif src == "flag":
                origin = "command line (--set)"
            else:
                origin = "hipgauge/config.py defaults"
            if section == "cost_model" and value is None:
                value, src, origin = data.get(key), "default", DATA_FILE
            out[dotted] = Parameter(name=dotted, value=value, source=src, origin=origin, doc=spec.doc)
    return out


def _band(ratio: float, bands: list[list[float]]) -> tuple[float, float, float] | None:
    for max_ratio, low, high in sorted(bands, key=lambda b: b[0]):
        if ratio <= max_ratio:
            return float(max_ratio), float(low), float(high)
    if bands:
        max_ratio, low, high = max(bands, key=lambda b: b[0])
        return float(max_ratio), float(low), float(high)
    return None


def _unmatched(comparison: ComparisonResult) -> list[tuple[str, float]]:
    """(label, share) of the baseline work with no counterpart."""
    return [(u.label, u.share) for u in comparison.unmatched_baseline]


def estimate_cost(scan: ScanResult | None, comparison: ComparisonResult | None = None, config: Config | None = None,
                  build_check: dict[str, Any] | None = None) -> CostEstimate:
    """``build_check``: a ``hipgauge.build-check/1`` dict; its port errors that no finding covers are costed,
    its environment gaps (library headers not installed where it ran) are not."""
    config = config or defaults()
    scan = scan or ScanResult(root="")
    params = parameters(config)
    p = {k: v.value for k, v in params.items()}
    lo_f, hi_f = float(p["cost_model.finding_low_factor"]), float(p["cost_model.finding_high_factor"])
    rate = float(p["economics.hourly_rate"])
    threshold = float(p["economics.slow_ratio_threshold"])
    min_share = float(p["cost_model.min_kernel_share"])
    notes: list[str] = []
    items: list[CostItem] = []

    finding_lines: set[tuple[str, int]] = set()
    for f in scan.findings:
        finding_lines.add((f.file, f.line))
    families: dict[str, str] = {}
    for fam in (scan.dual_target or {}).get("generated_families", []):
        for f in [*fam["files_all"], *([fam["template"]] if fam.get("template") else [])]:
            families.setdefault(f, fam["id"])  # the template the copies instantiate is the same kernel family
    family_bands = {str(k): (float(v[0]), float(v[1]))
                    for k, v in (p.get("cost_model.library_family_hours") or {}).items()}
    review_conf = {str(c) for c in (p.get("cost_model.review_confidences") or [])}
    costed = [f for f in scan.findings if _confidence(f) not in review_conf]
    to_review = [f for f in scan.findings if _confidence(f) in review_conf and float(f.effort_hours or 0) > 0]
    units = (scan.dual_target or {}).get("library_units") or {}
    for g in finding_items(costed, families, family_bands, lo_f, hi_f, units):
        items.append(CostItem(kind=g.kind, category=g.category, label=g.label, low_hours=g.low, high_hours=g.high,
                              basis=g.basis, file=g.file, line=g.line, count=g.count))
    review = [{"label": f"review (low confidence, not costed): {g.label}", "category": g.category,
               "where": f"{g.file}:{g.line}" if g.file else None, "count": g.count, "hours": 0.0,
               "basis": f"confidence in {sorted(review_conf)} (cost_model.review_confidences): listed for review, "
                        f"no hours; costed it would be {g.low:g}–{g.high:g} h"}
              for g in finding_items(to_review, families, family_bands, lo_f, hi_f, units)]
    if review:
        notes.append(f"{len(to_review)} low-confidence finding(s) ({len(review)} distinct) listed for review, not "
                     "costed (cost_model.review_confidences): the rule could not tell a warp width from a data "
                     "layout or a per-vendor value there")

    tuned: list[str] = []
    if comparison is not None:
        bands = p["cost_model.tuning_bands"] or []
        below = 0
        for row in comparison.rows:
            ratio = row.ratio
            if ratio is None or ratio <= threshold:
                continue
            share, label = float(row.share), row.label
            if share < min_share:
                below += 1
                continue
            band = _band(ratio, bands)
            if band is None:
                continue
            max_r, low, high = band
            tuned.append(label)
            items.append(CostItem(kind="kernel-tuning", category="kernel tuning", label=label, low_hours=low,
                                  high_hours=high, share=share, ratio=ratio,
                                  basis=f"{ratio:.2f}× > {threshold:g}: band ≤ {max_r:g}× = [{low:g}, {high:g}] h"))
        if below:
            notes.append(f"{below} kernel(s) slower than {threshold:g}× but under {min_share:.1%} of baseline time: not costed")
        for label, share in _unmatched(comparison):
            if share < min_share:
                continue
            low, high = float(p["cost_model.unmatched_kernel_hours_low"]), float(p["cost_model.unmatched_kernel_hours_high"])
            items.append(CostItem(kind="unmatched-kernel", category="unmatched kernels", label=label, low_hours=low,
                                  high_hours=high, share=share, basis=f"no counterpart in the candidate: [{low:g}, {high:g}] h"))
    else:
        notes.append("no candidate profile: kernel tuning hours are not estimated (measure with --candidate)")

    cuda_only = _cuda_only_lines(scan)
    not_hip = _not_hip_files(scan)
    in_cuda_branch = 0
    ops: dict[tuple[str, str], list[Any]] = {}  # (library, file) -> its unmapped calls: one wrapper, one piece of work
    for c in scan.api_calls:
        if c.library in NON_LIBRARY or c.status not in ("unsupported", "unknown") or c.kind != "function":
            continue
        if (c.file, c.line) in finding_lines:
            continue  # already costed by the finding at that line
        if c.file in not_hip or any(a <= c.line <= b for a, b in cuda_only.get(c.file, ())):
            in_cuda_branch += 1
            continue  # the HIP build has its own path there
        ops.setdefault((c.library, c.file), []).append(c)
    seen_ops: set[tuple[str, str]] = set()
    for (library, file), calls in ops.items():
        names = list(dict.fromkeys(c.cuda_name for c in calls if (library, c.cuda_name) not in seen_ops))
        if not names:
            continue
        seen_ops.update((library, n) for n in names)
        low, high = float(p["cost_model.library_op_hours_low"]), float(p["cost_model.library_op_hours_high"])
        label = names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more {library} name(s) in {file}"
        items.append(CostItem(kind="library-op", category=f"library: {library}", label=label, low_hours=low,
                              high_hours=high, file=file, line=calls[0].line, count=len(names),
                              basis=f"no HIP mapping ({calls[0].status}): [{low:g}, {high:g}] h once for the "
                                    f"{len(names)} unmapped {library} name(s) this file uses (one wrapper, one "
                                    "piece of work)"))

    if in_cuda_branch:
        notes.append(f"{in_cuda_branch} unmapped library reference(s) sit in CUDA-only branches or files (the HIP "
                     "build has its own path): not costed")
    dt0 = scan.dual_target or {}
    sel = dt0.get("build_selection") or {}
    if dt0.get("builds_for_amd") and sel.get("cuda_only_files"):
        n_notes = sum(1 for f in scan.findings if f.branch in ("cuda-only", "not-built") and f.file in not_hip)
        folders = Counter(posixpath.dirname(f) or "." for f in sel["cuda_only_files"])
        where = ", ".join(f"{d}/ ({n})" for d, n in folders.most_common(3)) + (", …" if len(folders) > 3 else "")
        notes.append(f"{len(sel['cuda_only_files'])} file(s) only the CUDA build compiles (its build scripts say so; "
                     f"{where}): their {n_notes} finding(s) are zero-hour notes, not port work; the HIP build lacks "
                     "what they provide, so a serving path that uses it needs it ported or replaced")
    _build_items(build_check, items, notes, finding_lines, p)

    cats: dict[str, list[CostItem]] = defaultdict(list)
    for it in items:
        cats[it.category].append(it)
    by_category = sorted(
        (CategoryCost(category=c, count=len(v), low_hours=sum(i.low_hours for i in v), high_hours=sum(i.high_hours for i in v))
         for c, v in cats.items()), key=lambda c: -c.high_hours)
    low_h = sum(i.low_hours for i in items)
    high_h = sum(i.high_hours for i in items)

    dual_cats = set(p["cost_model.dual_variant_categories"] or [])
    dual = {f.kernel for f in scan.findings if f.category in dual_cats and f.kernel}
    dual_bases = {base_name(k) for k in dual}
    dual |= {t for t in tuned if base_name(t) not in dual_bases}
    dual |= {k["kernel"] for k in (scan.dual_target or {}).get("kernels_with_variants", []) if k.get("two_variants")}
    dual_list = sorted(dual)
    validation = float(p["economics.releases_per_year"]) * float(p["economics.validation_hours_per_release"])
    dual_h = len(dual_list) * float(p["economics.tuned_variant_hours_per_year"])
    upkeep_h = validation + dual_h
    upkeep = Upkeep(validation_hours=validation, dual_variant_kernels=dual_list, dual_variant_hours=dual_h,
                    hours_per_year=upkeep_h, usd_per_year=upkeep_h * rate)
    lockin = float(p["economics.fleet_spend_per_year"]) * float(p["economics.procurement_leverage"])
    net = lockin - upkeep.usd_per_year
    one_low, one_high = low_h * rate, high_h * rate
    horizon = int(p["cost_model.horizon_years"])
    if params["economics.fleet_spend_per_year"].source == "default":
        notes.append("economics.fleet_spend_per_year is not set (default 0): the avoided lock-in is unknown, not zero")
    if params["economics.fleet_spend_per_year"].source == "default" and lockin == 0:
        be_low = be_high = None
        sentence = ("unknown: set economics.fleet_spend_per_year (and procurement_leverage) to weigh the avoided "
                    f"lock-in against {upkeep.usd_per_year:,.0f} USD/year of upkeep")
    elif net > 0:
        be_low, be_high = one_low / net, one_high / net
        sentence = (f"breaks even after {be_low:.1f}–{be_high:.1f} years "
                    f"(one-time {one_low:,.0f}–{one_high:,.0f} USD against {net:,.0f} USD/year net)")
        if be_high > horizon:
            sentence += f"; the high end is beyond the {horizon}-year horizon"
    else:
        be_low = be_high = None
        sentence = (f"never breaks even: upkeep ({upkeep.usd_per_year:,.0f} USD/year) is not smaller than the "
                    f"avoided lock-in ({lockin:,.0f} USD/year)")
    cumulative = [{"year": y, "net_low_usd": net * y - one_high, "net_high_usd": net * y - one_low}
                  for y in range(0, horizon + 1)]
    drivers = [{"label": i.label, "kind": i.kind, "count": i.count, "low_hours": i.low_hours, "high_hours": i.high_hours,
                "share_of_high": (i.high_hours / high_h) if high_h else None, "where": f"{i.file}:{i.line}" if i.file else None,
                "basis": i.basis} for i in sorted(items, key=lambda i: (-i.high_hours, i.label))[:10]]
    dt = scan.dual_target or {}
    two = [k["kernel"] for k in dt.get("kernels_with_variants", []) if k.get("two_variants")]
    per_kernel = float(p["economics.tuned_variant_hours_per_year"])
    dual_toolchain = {
        "dual_target": bool(dt.get("dual_target")),
        "switches": [s["name"] for s in dt.get("switches", []) if s.get("how") != "platform" and s.get("side") == "hip"],
        "hip_options": [s["name"] for s in dt.get("switches", []) if s.get("side") == "hip-option"],
        "shims": [s["file"] for s in dt.get("shims", [])],
        "kernels_with_two_variants": two,
        "hip_only_lines": (dt.get("lines") or {}).get("hip_only", 0),
        "cuda_only_lines": (dt.get("lines") or {}).get("cuda_only", 0),
        "findings_dropped": dt.get("findings_dropped", 0), "findings_noted": dt.get("findings_noted", 0),
        "variant_hours_per_year": len(two) * per_kernel,
        "basis": (f"{len(two)} kernel(s) the source keeps with one body per vendor × {per_kernel:g} h/year "
                  "(economics.tuned_variant_hours_per_year), counted in the yearly upkeep with the kernels the "
                  "rules and the profiles say need a tuned variant"),
        "builds_for_amd": bool(dt.get("builds_for_amd")),
        "amd_build_evidence": list(dt.get("amd_build_evidence") or []),
        "cuda_only_files": list((dt.get("build_selection") or {}).get("cuda_only_files") or []),
    } if dt else {}
    headline = ""
    if dt.get("amd_headline"):
        headline = (f"{dt['amd_headline']}. One-time: {low_h:,.0f}–{high_h:,.0f} h of HIP-build gaps; upkeep "
                    f"{upkeep.hours_per_year:,.0f} h/year")
    return CostEstimate(items=items, by_category=by_category, low_hours=low_h, high_hours=high_h,
                        one_time_low_usd=one_low, one_time_high_usd=one_high, upkeep=upkeep,
                        lockin_usd_per_year=lockin, net_usd_per_year=net, break_even_years_low=be_low,
                        break_even_years_high=be_high, break_even=sentence, cumulative=cumulative,
                        parameters=list(params.values()), notes=notes,
                        lockin_known=not (params["economics.fleet_spend_per_year"].source == "default" and lockin == 0),
                        drivers=drivers, dual_toolchain=dual_toolchain, headline=headline, review=review)


def _confidence(f: Any) -> str:
    c = getattr(f, "confidence", None)
    return str(getattr(c, "value", c) or "")


def _cuda_only_lines(scan: ScanResult) -> dict[str, list[tuple[int, int]]]:
    """Per file, the line ranges only the CUDA build compiles (scan's dual-target inventory)."""
    out: dict[str, list[tuple[int, int]]] = {}
    for f in (scan.dual_target or {}).get("files", []):
        for b in f.get("branches", []):
            if b.get("side") == "cuda-only":
                out.setdefault(f["file"], []).append((int(b["lines"][0]), int(b["lines"][1])))
    return out


def _not_hip_files(scan: ScanResult) -> set[str]:
    """Files the HIP build never compiles (build selection: CUDA build only, or neither build), when the tree has a
    HIP build; empty otherwise."""
    dt = scan.dual_target or {}
    sel = dt.get("build_selection") or {}
    if not dt.get("builds_for_amd") or not sel.get("hip_build"):
        return set()
    return {f["file"] for f in sel.get("files", []) if "hip" not in f.get("builds", [])}


def _build_items(build_check: dict[str, Any] | None, items: list[CostItem], notes: list[str],
                 finding_lines: set[tuple[str, int]], p: dict[str, Any]) -> None:
    cls = build_check.get("classification") if isinstance(build_check, dict) else None
    if cls is None:
        cls = classify_build_check(build_check)
    if not cls:
        return
    low, high = float(p["cost_model.build_error_hours_low"]), float(p["cost_model.build_error_hours_high"])
    summary = build_check.get("summary") if isinstance(build_check, dict) else None
    checked = total = None
    if isinstance(summary, dict) and summary.get("units_total"):
        checked, total = int(summary.get("units_checked") or 0), int(summary["units_total"])
    partial = f"; from the {checked} of {total} units the build check reached" if checked is not None and \
        total is not None and checked < total else ""
    if partial:
        notes.append(f"build check coverage: {summary['coverage']}: build-error hours come from the checked units "  # type: ignore[index]
                     f"only; the other {total - checked} unit(s) are unchecked, their compile errors not estimated")  # type: ignore[operator]
    seen: set[tuple[Any, Any, Any]] = set()
    covered = 0
    for e in cls["port_errors"]:
        key = (e.get("file"), e.get("line"), e.get("message"))
        if key in seen:
            continue  # the same error on another arch is one fix
        seen.add(key)
        if e.get("rule_codes") or (e.get("file"), e.get("line")) in finding_lines:
            covered += 1
            continue
        items.append(CostItem(kind="build-error", category="build errors", label=str(e.get("message") or "?"),
                              low_hours=low, high_hours=high, file=e.get("file"), line=e.get("line"),
                              basis=f"hipcc error no finding covers ({e.get('arch')}): [{low:g}, {high:g}] h{partial}"))
    if covered:
        notes.append(f"{covered} port compile error(s) are at lines with findings: costed by those findings")
    env = cls["diagnostics"]["environment"] + cls["diagnostics"]["consequence"]
    if env:
        notes.append(f"{env} build-check error(s) are library headers not installed on the checking machine, or sit "
                     "in the installed toolchain's own headers (environment gap): not costed as port defects; the "
                     "compiles they stopped are unchecked")


def parse_set(config: Config, assignments: list[str]) -> None:
    """Apply ``--set section.key=value`` flags (value parsed as TOML, else taken as a string)."""
    for item in assignments:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"--set {item!r}: expected KEY=VALUE (e.g. economics.hourly_rate=120)")
        section, _, name = key.rpartition(".")
        if section not in CONFIG_SCHEMA or name not in CONFIG_SCHEMA[section]:
            known = ", ".join(f"{s}.{k}" for s in ("economics", "cost_model", "objectives") for k in CONFIG_SCHEMA.get(s, {}))
            raise InputError(f"--set {key}: unknown key (known: {known})")
        try:
            value = tomllib.loads(f"v = {raw.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw.strip()
        if isinstance(value, float) and math.isnan(value):
            raise InputError(f"--set {key}: not a number")
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"--set {key}={raw.strip()}: must be a finite number")
        config.override(key, value)
