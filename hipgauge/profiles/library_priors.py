"""Before any AMD profile: the library-backed hot operators of a baseline profile, each with what is known about the
ROCm library path that will serve it (``hipgauge/data/library_priors.toml``), per ROCm release.

A row is one launching operator call signature (operator, input dims, dtypes) whose kernels are vendor-library
kernels (``profiles.libraries``: cuDNN, cuBLAS/cuBLASLt, CUTLASS, FlashAttention, NCCL …), with its share of the
baseline's kernel time, the library and family that served it, the shape, dtype and layout read from the trace,
and the prior. Everything here is labelled *prior, not measured*; after a candidate profile, the measured rows of
``compare`` (``profiles.library_advice``) replace it.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from typing import Any

import polars as pl

from hipgauge.datafiles import load_data_toml
from hipgauge.profiles.grouping import classify
from hipgauge.profiles.libraries import classify_kernel
from hipgauge.profiles.signatures import decode, short_type

LABEL = "prior, not measured"
_HALF = {"fp16", "bf16"}


@lru_cache(maxsize=1)
def load_priors() -> dict[str, Any]:
    return load_data_toml("library_priors.toml")


def _layout(names: list[str], group: str) -> str | None:
    """NCHW / NHWC from the baseline's kernel names (a cuDNN nchwToNhwc helper says the input was NCHW)."""
    if group != "convolution":
        return None
    low = [n.lower() for n in names]
    if any("nchwtonhwc" in n or "nchw2nhwc" in n for n in low):
        return "NCHW"
    mains = [n for n, orig in zip(low, names) if not classify_kernel(orig).layout]
    if any("nhwc" in n for n in mains):
        return "NHWC"
    if any("nchw" in n for n in mains):
        return "NCHW"
    return None


def _conv_facts(dims: list[Any]) -> dict[str, Any]:
    """spatial rank, groups, depthwise/grouped from a convolution's input and weight dims (logical NCHW order in
    PyTorch's record_shapes whatever the memory format)."""
    tensors = [d for d in dims if isinstance(d, (list, tuple)) and d]
    if len(tensors) < 2 or len(tensors[0]) < 3 or len(tensors[1]) != len(tensors[0]):
        return {}
    x, w = tensors[0], tensors[1]
    facts: dict[str, Any] = {"spatial": len(x) - 2}
    try:
        c_in, per_group = int(x[1]), int(w[1])
    except (TypeError, ValueError):
        return facts
    if per_group > 0 and c_in % per_group == 0:
        groups = c_in // per_group
        facts["groups"] = groups
        facts["depthwise"] = groups > 1 and groups == c_in
        facts["grouped"] = groups > 1 and groups != c_in
    return facts


def _matches(case: dict[str, Any], facts: dict[str, Any]) -> bool:
    for key in ("group", "library", "spatial", "depthwise", "grouped", "layout", "half"):
        if key in case and facts.get(key) != case[key]:
            return False
    return True


def prior_for(facts: dict[str, Any]) -> dict[str, Any] | None:
    """The first case whose conditions hold: ``{case, expectation, rocm, why, sources, releases: [...]}``."""
    for case in load_priors().get("case", []):
        if _matches(case, facts):
            releases = [dict(r) for r in case.get("release", [])]
            first = releases[0] if releases else {}
            return {"case": case["id"], "expectation": first.get("expectation", "unknown"),
                    "releases": "; ".join(f"{r['rocm']}: {r['expectation']}" for r in releases),
                    "why": first.get("why", ""), "sources": list(first.get("sources", [])), "per_release": releases}
    return None


def library_priors(kernels: pl.DataFrame) -> dict[str, Any] | None:
    """The baseline's library-backed hot operators with their priors; None for a table with no kernels."""
    if kernels is None or kernels.height == 0:
        return None
    spec = load_priors()
    names = [n or r or "" for n, r in zip(kernels["name"].to_list(), kernels["raw_name"].to_list())]
    durs = [int(d or 0) for d in kernels["duration_ns"].to_list()]
    ops = kernels["operator"].to_list() if "operator" in kernels.columns else [None] * kernels.height
    sigs = kernels["operator_signature"].to_list() if "operator_signature" in kernels.columns else [None] * kernels.height
    total = sum(durs)
    groups: dict[tuple[Any, Any], list[int]] = defaultdict(list)
    for i, n in enumerate(names):
        if classify_kernel(n).is_library:
            groups[(ops[i], sigs[i])].append(i)
    rows = []
    for (op, sig_text), idx in groups.items():
        t: dict[str, int] = defaultdict(int)
        for i in idx:
            t[names[i]] += durs[i]
        ranked = sorted(t.items(), key=lambda kv: (-kv[1], kv[0]))
        main = [n for n, _ in ranked if classify_kernel(n).path != "helper"] or [ranked[0][0]]
        cls = classify_kernel(main[0])
        group = classify(main[0], op)
        sig = decode(sig_text)
        dims = [list(d) if isinstance(d, tuple) else d for d in sig.input_dims] if sig else []
        tensors = [(d, ty) for d, ty in zip(dims, sig.input_types) if isinstance(d, list) and d] if sig else []
        dtypes = []
        for _, ty in tensors:
            s = short_type(ty)
            if s and s not in dtypes:
                dtypes.append(s)
        facts: dict[str, Any] = {"group": group, "library": cls.library, "layout": _layout(list(t), group),
                                 "half": bool(dtypes) and dtypes[0] in _HALF if dtypes else None}
        if group == "convolution":
            facts |= _conv_facts(dims)
        ns = sum(t.values())
        rows.append({
            "operator": op or "(no operator)", "shape": "×".join("[" + ",".join(str(x) for x in d) + "]" for d, _ in tensors)
            or None, "dtype": "/".join(dtypes) or None, "layout": facts["layout"], "group": group,
            "library": cls.library, "family": cls.family, "kernel": main[0], "ns": ns,
            "share": (ns / total) if total else 0.0,
            "conv": {k: facts[k] for k in ("spatial", "groups", "depthwise", "grouped") if k in facts} or None,
            "prior": prior_for(facts), "label": LABEL,
        })
    rows.sort(key=lambda r: (-r["ns"], r["operator"]))
    hot = [r for r in rows if r["share"] >= float(spec.get("min_share", 0.005))]
    listed = int(spec.get("listed", 15))
    weak = sum(r["share"] for r in hot if (r["prior"] or {}).get("expectation") in ("weak", "none"))
    partial = sum(r["share"] for r in hot if (r["prior"] or {}).get("expectation") == "partial")
    return {
        "label": LABEL,
        "basis": ("prior, not measured: the baseline's library-backed operators (measured kernel time, shapes, dtypes "
                  "and layouts from its trace) with what hipgauge/data/library_priors.toml records about the ROCm "
                  "library path for each, per ROCm release; a candidate profile replaces these with measured rows"),
        "library_share": sum(r["share"] for r in rows),
        "weak_share": weak, "partial_share": partial,
        "rows": hot[:listed], "rows_more": max(0, len(hot) - listed),
    }
