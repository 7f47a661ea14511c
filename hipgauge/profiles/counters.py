"""Counter parity: the hardware-counter figures of each matched kernel on both sides, and why it got slower.

For each profile with a counters table (``Profile.counters``, attached by ``readers/counters.py``) every launch
gets the figures of ``counter_formulas`` (achieved occupancy, DRAM % of peak, DRAM GB/s, L2 hit rate), using
the part's limits (``part_limits``). A parity row's figure per side is the **duration-weighted mean** over the
row's launches that have it: Σ(figureᵢ × durationᵢ) / Σ durationᵢ. ``theoretical_occupancy_pct`` is ncu's own
(``sm__maximum_warps_per_active_cycle_pct``) when collected, else build-check's estimate when it ran
(``add_theoretical``). Each row gets at most one diagnosis line from the rule table
``hipgauge/data/counter_diagnosis.toml`` (first matching rule). Nothing here reads a file format.
"""

from __future__ import annotations

import ast
import json
import operator
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

import polars as pl

from hipgauge.datafiles import load_data_toml
from hipgauge.errors import InputError
from hipgauge.kernel_names import base_name
from hipgauge.knowledge.arch_limits import arch_limits, find_part
from hipgauge.model import Profile

from . import counter_formulas as cf

RULES_FILE = "hipgauge/data/counter_diagnosis.toml"
RECIPES = "docs/profiles.md (section 'Counters: capture recipes')"
SIDE_KEYS = cf.FIGURES + ("theoretical_occupancy_pct",)


# --------------------------------------------------------------------------------------------- part limits
def _num(v: Any) -> float | None:
    try:
        return float(v) if v not in (None, "") else None
    except (TypeError, ValueError):
        return None


def part_limits(profile: Profile) -> cf.PartLimits:
    """The device's limits: what the counter files state (rocprof-compute ``sysinfo.csv``, the rocprofv3 JSON agent),
    else the ``arch_limits.toml`` [[parts]] entry matching the device name."""
    src = profile.counter_source or {}
    meta = profile.metadata or {}
    name = src.get("gpu_model") or profile.device or meta.get("device_name") or meta.get("gpu_model")
    part = find_part(name, profile.vendor) or find_part(profile.device, profile.vendor)
    arch = src.get("gpu_arch") or meta.get("arch") or (part or {}).get("arch")
    lim = cf.PartLimits(name=name or (part or {}).get("name"), arch=arch)
    units = _num(src.get("cu_per_gpu"))
    if units:
        lim.units, lim.units_source = int(units), f"{_src_name(src)} cu_per_gpu"
    elif part and part.get("units"):
        lim.units, lim.units_source = int(part["units"]), f"arch_limits.toml [[parts]] {part['name']}"
    waves = _num(src.get("max_waves_per_cu"))
    if waves:
        lim.max_waves_per_cu = int(waves)
    elif part and part.get("max_waves_per_cu"):
        lim.max_waves_per_cu = int(part["max_waves_per_cu"])
    elif arch:
        al = arch_limits(arch) or {}
        if al.get("max_waves_per_cu"):
            lim.max_waves_per_cu = int(al["max_waves_per_cu"])
    xcd = _num(src.get("num_xcd"))
    lim.num_xcd = int(xcd) if xcd else 1
    hbm = _num(src.get("hbm_bw"))
    if hbm:
        lim.peak_dram_gbps, lim.peak_source = hbm, f"{_src_name(src)} hbm_bw"
    elif part:
        lim.peak_dram_gbps = float(part["peak_dram_gbps"])
        lim.peak_source = f"arch_limits.toml [[parts]] {part['name']}: {part['source']}"
    return lim


def _src_name(src: dict[str, str]) -> str:
    return src.get("limits_file") or src.get("file") or "the counter file"


# --------------------------------------------------------------------------------------------- per launch
def kernel_figures(profile: Profile, part: cf.PartLimits | None = None) -> dict[int, cf.Figures]:
    """row of ``profile.kernels`` → its figures, for the rows that have counters."""
    df = profile.counters
    if df is None or not isinstance(df, pl.DataFrame) or df.height == 0:
        return {}
    part = part or part_limits(profile)
    per_row: dict[int, dict[str, float]] = defaultdict(dict)
    for row, name, value in zip(df["row"].to_list(), df["counter"].to_list(), df["value"].to_list()):
        if row is not None and value is not None:
            per_row[int(row)][name] = float(value)
    durations = profile.kernels["duration_ns"].to_list()
    out = {}
    for row, c in per_row.items():
        dur = durations[row] if 0 <= row < len(durations) else None
        out[row] = cf.figures(profile.vendor, c, float(dur) if dur else None, part)
    return out


def weighted(figs: Iterable[tuple[cf.Figures, float]], key: str, extra: bool = False) -> float | None:
    """Duration-weighted mean of one figure over launches that have it (plain mean when no launch has a time)."""
    num = den = 0.0
    plain: list[float] = []
    for f, dur in figs:
        v = (f.extra if extra else f.values).get(key)
        if v is None:
            continue
        plain.append(v)
        if dur and dur > 0:
            num += v * dur
            den += dur
    if den > 0:
        return num / den
    return sum(plain) / len(plain) if plain else None


def side_figures(figs: dict[int, cf.Figures], rows: list[int], durations: list[int | None]) -> dict[str, Any]:
    have = [(figs[r], float(durations[r] or 0)) for r in rows if r in figs]
    out: dict[str, Any] = {k: weighted(have, k) for k in cf.FIGURES}
    out["theoretical_occupancy_pct"] = weighted(have, "theoretical_occupancy_pct", extra=True)
    if out["theoretical_occupancy_pct"] is not None:
        out["theoretical_source"] = "measured: ncu sm__maximum_warps_per_active_cycle_pct (ncu's occupancy calculator)"
    out["sm_throughput_pct"] = weighted(have, "sm_throughput_pct", extra=True)
    out["launches"] = len(rows)
    out["launches_with_counters"] = len(have)
    limiters: dict[str, float] = defaultdict(float)
    for f, dur in have:
        if f.limiter:
            limiters[f.limiter] += dur or 1.0
    out["limiter"] = max(limiters, key=lambda k: limiters[k]) if limiters else None
    return out


def overview(profile: Profile, figs: dict[int, cf.Figures], part: cf.PartLimits) -> dict[str, Any]:
    """What one side's counters are and are not: source, part limits, how each figure was obtained, and what to
    collect for the figures no launch has."""
    basis: dict[str, Counter[str]] = defaultdict(Counter)
    missing: dict[str, set[str]] = defaultdict(set)
    present: set[str] = set()
    for f in figs.values():
        for k, b in f.basis.items():
            basis[k][b] += 1
        present.update(f.values)
        for k, names in f.missing.items():
            missing[k].update(names)
    vendor = profile.vendor if profile.vendor in ("nvidia", "amd") else "amd"
    if not figs:
        need = {k: list(v) for k, v in cf.NEEDED[vendor].items()}
        if vendor == "amd" and part.arch and part.arch.split(":")[0] in cf.ARCHS_128B_READS:
            need.update({k: list(v) for k, v in cf.NEEDED["amd-gfx942"].items()})
    else:
        need = {k: sorted(v) for k, v in missing.items() if k not in present}
    return {
        "source": dict(profile.counter_source) or None,
        "vendor": profile.vendor,
        "launches": profile.kernels.height,
        "launches_with_counters": len(figs),
        "part": {"name": part.name, "arch": part.arch, "units": part.units, "units_source": part.units_source,
                 "max_waves_per_cu": part.max_waves_per_cu, "num_xcd": part.num_xcd,
                 "peak_dram_gbps": part.peak_dram_gbps, "peak_source": part.peak_source},
        "basis": {k: c.most_common(1)[0][0] for k, c in basis.items()},
        "missing": need,
        "collect": _collect_line(need),
    }


def _collect_line(need: dict[str, list[str]]) -> str | None:
    """``collect A, B; supply the part's …: see docs`` for the figures no launch has; None when none is absent."""
    names = sorted({n for v in need.values() for n in v})
    if not names:
        return None
    counters = [n for n in names if not n.startswith("the part's")]
    limits = [n for n in names if n.startswith("the part's")]
    parts = ([f"collect {', '.join(counters)}"] if counters else []) + ([f"supply {'; '.join(limits)}"] if limits else [])
    return "; ".join(parts) + f": see {RECIPES}"


# --------------------------------------------------------------------------------------------- parity rows
def attach_to_rows(pairs: Iterable[tuple[Any, list[int], list[int]]], base: Profile, cand: Profile,
                   base_rows: list[int], cand_rows: list[int]) -> dict[str, Any]:
    """Fill ``row.counters`` of each parity row. ``pairs``: (ParityRow, baseline view indices, candidate view
    indices); ``base_rows``/``cand_rows`` map view indices to rows of each profile's kernel table. Returns the
    comparison's ``counters`` section (per side: source, part, basis, what to collect; the rule table)."""
    bpart, cpart = part_limits(base), part_limits(cand)
    bfig, cfig = kernel_figures(base, bpart), kernel_figures(cand, cpart)
    bdur = base.kernels["duration_ns"].to_list()
    cdur = cand.kernels["duration_ns"].to_list()
    for row, bidx, cidx in pairs:
        b = side_figures(bfig, [base_rows[i] for i in bidx], bdur)
        c = side_figures(cfig, [cand_rows[i] for i in cidx], cdur)
        row.counters = {"baseline": b, "candidate": c, "diagnosis": None, "rule": None}
        row.counters["diagnosis"], row.counters["rule"] = diagnose(row.counters, row.ratio, bpart, cpart)
    return {"baseline": overview(base, bfig, bpart), "candidate": overview(cand, cfig, cpart),
            "weighting": "per side: duration-weighted mean over the row's launches that have the figure",
            "rules": RULES_FILE}


# --------------------------------------------------------------------------------------------- diagnosis
@lru_cache(maxsize=1)
def rules() -> tuple[dict[str, Any], ...]:
    return tuple(load_data_toml("counter_diagnosis.toml").get("rule", []))


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_CMPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
         ast.Eq: operator.eq, ast.NotEq: operator.ne}


class _Absent(Exception):
    """A rule names a figure this row lacks."""


def _eval(node: ast.AST, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.Expression):
        return _eval(node.body, env)
    if isinstance(node, ast.BoolOp):
        vals = (_eval(v, env) for v in node.values)
        return all(vals) if isinstance(node.op, ast.And) else any(vals)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, comp in zip(node.ops, node.comparators):
            right = _eval(comp, env)
            if not _CMPS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, env)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _eval(node.operand, env)
    if isinstance(node, ast.Name):
        v = env.get(node.id)
        if v is None:
            raise _Absent(node.id)
        return v
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    raise ValueError(f"{RULES_FILE}: unsupported expression {ast.dump(node)[:80]}")


@lru_cache(maxsize=64)
def _parse(expr: str) -> ast.Expression:
    return ast.parse(expr, mode="eval")


_LIMITER_WORDS = {"registers": "VGPRs", "sgprs": "SGPRs", "lds": "LDS", "shared memory": "shared memory",
                  "warps": "wave slots", "blocks": "workgroup slots", "waves": "wave slots"}


def diagnose(counters: dict[str, Any], ratio: float | None, bpart: cf.PartLimits,
             cpart: cf.PartLimits) -> tuple[str | None, str | None]:
    """(message, rule id) of the first rule of ``counter_diagnosis.toml`` that holds for this row."""
    b, c = counters.get("baseline") or {}, counters.get("candidate") or {}
    env: dict[str, Any] = {
        "ratio": ratio, "b_occ": b.get("achieved_occupancy_pct"), "c_occ": c.get("achieved_occupancy_pct"),
        "b_theo": b.get("theoretical_occupancy_pct"), "c_theo": c.get("theoretical_occupancy_pct"),
        "b_dram": b.get("dram_throughput_pct_of_peak"), "c_dram": c.get("dram_throughput_pct_of_peak"),
        "b_gbps": b.get("dram_gbps"), "c_gbps": c.get("dram_gbps"), "b_l2": b.get("l2_hit_pct"),
        "c_l2": c.get("l2_hit_pct"), "b_peak": bpart.peak_dram_gbps, "c_peak": cpart.peak_dram_gbps,
        "bw_ratio": (bpart.peak_dram_gbps / cpart.peak_dram_gbps) if bpart.peak_dram_gbps and cpart.peak_dram_gbps else None,
        "b_arch": b.get("theoretical_arch") or bpart.arch,
        "c_arch": c.get("theoretical_arch") or cpart.arch, "b_part": bpart.name, "c_part": cpart.name,
        "b_limiter": _LIMITER_WORDS.get(b.get("limiter") or "", b.get("limiter")),
        "c_limiter": _LIMITER_WORDS.get(c.get("limiter") or "", c.get("limiter")),
    }
    for rule in rules():
        try:
            if not _eval(_parse(rule["when"]), env):
                continue
            return rule["message"].format(**{k: v for k, v in env.items() if v is not None}), rule.get("id")
        except (_Absent, KeyError, ZeroDivisionError):
            continue
    return None, None


# --------------------------------------------------------------------------------------------- build-check
def _theoretical(kernels: list[dict[str, Any]], names: list[str], vendor: str,
                 prefer: str | None) -> tuple[float, str, str | None] | None:
    """(theoretical occupancy %, arch, limiter) of the build-check kernel named like one of ``names``."""
    wanted = {base_name(n) for n in names if n}
    for k in kernels:
        if base_name(str(k.get("kernel") or "")) not in wanted:
            continue
        occ = {a: o for a, o in (k.get("occupancy") or {}).items()
               if isinstance(o, dict) and (arch_limits(a) or {}).get("vendor") == vendor}
        if not occ:
            continue
        order = [prefer, *_STAND_INS.get(prefer or "", ()), "gfx942", "gfx940", "sm_90"]
        arch = next((a for a in order if a and a in occ), min(occ))
        o = occ[arch]
        if o.get("occupancy") is None:
            continue
        return 100.0 * float(o["occupancy"]), str(arch), o.get("limiter")
    return None


def read_build_check(path: Path) -> dict[str, Any]:
    """A ``hipgauge build-check --json`` document (``hipgauge.build-check/1``); InputError naming the file otherwise."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("build-check document not found", path) from None
    except (OSError, UnicodeError, ValueError) as exc:
        raise InputError(f"not a build-check JSON document: {str(exc).splitlines()[0][:120]}", path) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("kernels"), list):
        raise InputError("not a build-check JSON document (no 'kernels' list; make it with hipgauge build-check --json)",
                         path)
    return doc


#: targets that stand in for one another in build-check (arch_limits.toml: gfx940 stands in for gfx942 where
#: the installed hipcc does not know gfx942; their limits are the same)
_STAND_INS: dict[str, tuple[str, ...]] = {"gfx942": ("gfx940", "gfx941"), "gfx940": ("gfx942",), "gfx941": ("gfx942",)}


def add_theoretical(comparison: Any, build_check: dict[str, Any] | None) -> int:
    """Put build-check's theoretical occupancy (estimated) beside the achieved figures of each parity row whose
    kernel build-check found, and re-diagnose those rows. Returns how many sides got one."""
    kernels = (build_check or {}).get("kernels") or []
    if not kernels or comparison is None:
        return 0
    section = getattr(comparison, "counters", None) or {}
    parts = {s: (section.get(s) or {}).get("part") or {} for s in ("baseline", "candidate")}
    vendors = {"baseline": getattr(comparison.baseline, "vendor", "nvidia"),
               "candidate": getattr(comparison.candidate, "vendor", "amd")}
    added = 0
    for row in comparison.rows:
        got = {}
        for side, names in (("baseline", row.baseline_names), ("candidate", row.candidate_names)):
            t = _theoretical(kernels, list(names), vendors[side], parts[side].get("arch"))
            if t:
                got[side] = t
        if not got:
            continue
        if row.counters is None:
            row.counters = {"baseline": {k: None for k in SIDE_KEYS}, "candidate": {k: None for k in SIDE_KEYS},
                            "diagnosis": None, "rule": None}
        for side, (pct, arch, limiter) in got.items():
            d = row.counters[side]
            if d.get("theoretical_occupancy_pct") is not None:
                continue  # ncu's own figure for the launches wins over the static estimate
            d["theoretical_occupancy_pct"] = pct
            d["theoretical_arch"] = arch
            d["theoretical_source"] = "estimated: build-check (compiler resources, arch_limits.toml occupancy model)"
            if limiter:
                d["limiter"] = limiter
            added += 1
        bp = cf.PartLimits(arch=parts["baseline"].get("arch"), peak_dram_gbps=parts["baseline"].get("peak_dram_gbps"),
                           name=parts["baseline"].get("name"))
        cp = cf.PartLimits(arch=parts["candidate"].get("arch"), peak_dram_gbps=parts["candidate"].get("peak_dram_gbps"),
                           name=parts["candidate"].get("name"))
        row.counters["diagnosis"], row.counters["rule"] = diagnose(row.counters, row.ratio, bp, cp)
    return added
