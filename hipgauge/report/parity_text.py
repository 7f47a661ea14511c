"""Sentences of the ``hipgauge.compare/1`` document shared by the terminal, Markdown and HTML views: the
outliers that open parity, the honest coverage line, and what a row's flags and signatures say."""

from __future__ import annotations

from typing import Any


def _ms(ns: float | None) -> str:
    if ns is None:
        return "—"
    return f"{ns / 1e6:.1f} ms" if abs(ns) >= 1e5 else f"{ns / 1e6:.3f} ms"


def _pct(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{100 * x:.0f}%" if x >= 0.995 or x == 0 else f"{100 * x:.1f}%"


def outlier_lines(doc: dict[str, Any], limit: int = 5) -> list[str]:
    """One sentence per outlier, worst first (empty when none)."""
    return [o["text"] for o in (doc.get("outliers") or [])[:limit]]


def outliers_heading(doc: dict[str, Any]) -> str:
    r = doc.get("overall_ratio")
    overall = f"; overall {r:.2f}×" if r is not None else ""
    return ("outliers first: the operator calls (operator, input dims, dtypes) costing the most candidate time over "
            f"what the rest of the workload's ratio predicts (measured{overall}; the hint is a suggestion to measure)")


def _excluded_words(cov: dict[str, Any], side: str) -> str:
    ex = cov.get(f"{side}_excluded_ns") or 0
    if not ex:
        return ""
    before = cov.get(f"{side}_excluded_before_ns") or 0
    after = cov.get(f"{side}_excluded_after_ns") or 0
    parts = []
    if before:
        parts.append(f"{_ms(before)} before the first step")
    if after:
        parts.append(f"{_ms(after)} after or between steps")
    share = cov.get(f"{side}_in_iteration_share_of_file")
    return f" ({_pct(share)} of the file's: {' and '.join(parts)} left out)"


def coverage_line(doc: dict[str, Any]) -> str:
    """``coverage: 100% of in-iteration kernel time matched on the baseline (…) (70% of the file's: 13.7 ms
    before the first step left out); 98% on the candidate``."""
    cov = doc["coverage"]
    basis = cov.get("basis") or "kernel time"
    levels = ", ".join(f"{k} {_pct(v)}" for k, v in cov["baseline_by_level"].items() if v)
    return (f"coverage: {_pct(cov['baseline_time_matched'])} of the baseline's {basis} matched"
            + (f" ({levels})" if levels else "") + _excluded_words(cov, "baseline")
            + f"; {_pct(cov['candidate_time_matched'])} of the candidate's" + _excluded_words(cov, "candidate"))


def row_mark(row: dict[str, Any]) -> str:
    """``!`` for a row whose ratio is not like for like (mixed signatures, call counts differ, …)."""
    return "!" if row.get("flags") else ""


def signature_words(row: dict[str, Any]) -> str:
    """What the row was paired on, in words: the baseline's call signature(s), and the candidate's when they differ."""
    bs = [s["signature"] for s in row.get("baseline_signatures") or [] if s.get("signature")]
    cs = [s["signature"] for s in row.get("candidate_signatures") or [] if s.get("signature")]
    if row.get("mixed_signatures"):
        return f"mixed signatures: {row['mixed_signatures']}"
    if not bs and not cs:
        return ""
    text = bs[0] if bs else ""
    if len(bs) > 1:
        text += f" (+{len(bs) - 1} inner)"
    if cs and (not bs or cs[0] != bs[0]):
        text += (" → " if text else "") + cs[0]
    return text
