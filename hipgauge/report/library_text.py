"""Sentences of the "library fast path" section (``libraries`` of a ``hipgauge.compare/1`` document, and the
``library_priors`` of a baseline-only assessment) shared by the terminal, Markdown and HTML views."""

from __future__ import annotations

from typing import Any

from hipgauge.kernel_names import short_name

HEADING = "library fast path"


def _time(ns: float | None) -> str:
    if ns is None:
        return "—"
    return f"{ns / 1e3:.1f} µs" if abs(ns) < 1e6 else f"{ns / 1e6:.3f} ms"


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.0f}%" if x >= 0.995 or x == 0 else f"{100 * x:.1f}%"


def side_words(lib: dict[str, Any] | None) -> str:
    """``MIOpen implicit-GEMM (tuned; tile 64x64x16; wt16x16x4); layout conversion 16.2 µs (35% of its calls)``."""
    if not lib:
        return "—"
    details = [lib.get("path") or "?"]
    if lib.get("tile"):
        details.append(f"tile {lib['tile']}")
    if lib.get("instruction"):
        details.append(str(lib["instruction"]))
    if lib.get("kernel_arch"):
        arch = str(lib["kernel_arch"])
        if lib.get("older_arch"):
            arch += f" kernel on {lib.get('device_arch')}: older architecture"
        details.append(arch)
    text = f"{lib.get('library')} {lib.get('family')} ({'; '.join(details)})"
    if lib.get("layout_conversion_ns"):
        text += (f"; layout conversion {_time(lib['layout_conversion_ns'])} "
                 f"({_pct(lib.get('layout_conversion_share'))} of its calls' kernel time)")
    return text


def basis_line(section: dict[str, Any]) -> str:
    return f"{HEADING}: {section.get('basis', '')}"


def coverage_line(section: dict[str, Any]) -> str:
    """``classified: baseline 100% of kernel time (cuBLAS/cuBLASLt 61%, …); candidate 100% (…)`` and the unknown names."""
    cov = section.get("coverage") or {}
    parts = []
    for side in ("baseline", "candidate"):
        c = cov.get(side) or {}
        total = c.get("kernel_ns") or 0
        libs = ", ".join(f"{k} {_pct(v / total)}" for k, v in list((c.get("by_library") or {}).items())[:4]) if total else ""
        arch = f", device {c['device_arch']}" if c.get("device_arch") else ""
        parts.append(f"{side} {_pct(c.get('classified_share'))} of kernel time classified{arch}"
                      + (f" ({libs})" if libs else ""))
    text = "kernels by library (measured): " + "; ".join(parts)
    unknown = [u for side in ("baseline", "candidate") for u in (cov.get(side) or {}).get("unknown") or []]
    more = sum((cov.get(side) or {}).get("unknown_more") or 0 for side in ("baseline", "candidate"))
    if unknown:
        text += "; unclassified: " + ", ".join(f"{short_name(u['name'], 40)} ({_pct(u['share'])})" for u in unknown[:6])
        rest = len(unknown) - 6 + more
        if rest > 0:
            text += f" and {rest} more"
    return text


def row_lines(section: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(row, ratio, baseline words, candidate words) per hot library row, outliers first."""
    out = []
    for r in section.get("rows") or []:
        label = r.get("signature") or r["label"]
        ratio = f"{r['ratio']:.2f}×" if r.get("ratio") is not None else "—"
        out.append(((("◆ " if r.get("outlier") else "") + label), ratio, side_words(r.get("baseline")),
                    side_words(r.get("candidate"))))
    return out


def advice_lines(section: dict[str, Any]) -> list[str]:
    """One sentence per advice line: ``row — measured: …; advised: …``, outliers first, then the count left out."""
    out = []
    for a in section.get("advice") or []:
        label = a.get("signature") or a["label"]
        out.append(f"{'◆ ' if a.get('outlier') else ''}{label} — measured: {a['measured']}; advised: {a['advised']}")
    if section.get("advice_more"):
        out.append(f"{section['advice_more']} more advice lines in --json (libraries.advice)")
    return out


def more_rows_line(section: dict[str, Any]) -> str:
    n = section.get("rows_more") or 0
    return f"{n} more hot library rows in --json (libraries.rows)" if n else ""


# --------------------------------------------------------------------------------------------
# Priors (before any AMD profile)
# --------------------------------------------------------------------------------------------

PRIOR_HEADING = "library fast path (prior, not measured)"


def prior_lines(priors: dict[str, Any]) -> list[str]:
    """One sentence per library-backed hot operator of a baseline-only run, with its per-ROCm-release prior."""
    out = []
    for p in priors.get("rows") or []:
        words = [p.get("operator") or "?"]
        if p.get("shape"):
            words.append(p["shape"])
        if p.get("dtype"):
            words.append(p["dtype"])
        if p.get("layout"):
            words.append(p["layout"])
        prior = p.get("prior") or {}
        out.append(f"{' '.join(words)}: {_pct(p.get('share'))} of baseline kernel time on {p.get('library')} "
                   f"{p.get('family')} — prior ({prior.get('expectation', 'unknown')}; "
                   f"{prior.get('releases') or 'any ROCm release'}): {prior.get('why', 'no prior for this case')} "
                   "[prior, not measured]")
    if priors.get("rows_more"):
        out.append(f"{priors['rows_more']} more library operators in --json (library_priors.rows)")
    return out
