"""Terminal views of ``hipgauge history`` (per-kernel ratio trends) and ``hipgauge gate`` (the CI gate)."""

from __future__ import annotations

from typing import Any, Callable

from rich.console import Console, JustifyMethod
from rich.table import Table

from hipgauge.report import figures


def render_history(out: Console, store_path: str, count: int, trends: list[Any]) -> None:
    """The trend of each kernel across the ``count`` stored assessments of ``store_path``."""
    out.print(f"history: {store_path} — {count} assessment(s); ratio = candidate ÷ baseline kernel time (measured)")
    for trend in trends:
        last = trend.points[-1]
        drift = "" if trend.change is None else f", {trend.change:.3f}× since first"
        out.print(f"\n[bold]{trend.label}[/bold]  ({trend.project}; {figures.pct(last.share)} of baseline time{drift})",
                  markup=True, highlight=False)
        table = Table(show_edge=False, pad_edge=False)
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("date", "left"), ("commit", "left"), ("ratio", "right"), ("step", "right"), ("candidate", "right"),
            ("toolchain change", "left"))
        for col, justify in columns:
            table.add_column(col, justify=justify)
        for p in trend.points:
            step = "" if p.step is None else f"{(p.step - 1) * 100:+.1f}%"
            change = "; ".join(p.changes) if p.changes else ("" if p.step is None else "(no toolchain change)")
            date = p.recorded_at.strftime("%Y-%m-%d %H:%M") if hasattr(p.recorded_at, "strftime") else str(p.recorded_at)
            table.add_row(date, (p.commit or "")[:10], figures.ratio(p.ratio, 3), step, figures.duration(p.candidate_ns), change)
        out.print(table)



def render_gate(out: Console, result: Any, warn: Callable[[str], None]) -> None:
    """The terminal view of a gate result; its notes go to ``warn`` (the error stream) where they fall."""
    limit = 1 + result.max_regression
    out.print(f"gate ({result.mode}): hot = ≥{100 * result.hot_share:g}% of baseline time; "
              f"allowed ratio ≤ {limit:.3f}×; times: {result.basis}")
    if result.against:
        out.print(f"against: {result.against}")
    shown = [k for k in result.kernels if k.hot or k.regressed]
    table = Table(show_edge=False, pad_edge=False)
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("kernel", "left"), ("match", "left"), ("share", "right"), ("baseline", "right"), ("candidate", "right"),
        ("ratio", "right"), ("", "left"))
    for col, justify in columns:
        table.add_column(col, justify=justify)
    for k in shown[:25]:
        table.add_row(k.label[:70], k.match or "", figures.pct(k.share), figures.duration(k.baseline_ns), figures.duration(k.candidate_ns),
                      figures.ratio(k.ratio, 3), "REGRESSED" if k.regressed else "ok")
    if shown:
        out.print(table)
    if len(shown) > 25:
        out.print(f"… {len(shown) - 25} more hot kernels (see --json)")
    cold = len(result.kernels) - len(shown)
    if cold:
        out.print(f"{cold} kernel(s) below the hot share not gated")
    if result.target_ms is not None:
        value = figures.latency(result.projected_ms)
        out.print(f"P{result.percentile:g} latency: {value} vs target {result.target_ms:g} ms"
                  + (f" — {result.latency_source}" if result.latency_source else ""))
    for note in result.notes:
        warn(note)
    out.print("gate: PASS" if result.passed else f"gate: FAIL ({len(result.failures)} reason(s))")
