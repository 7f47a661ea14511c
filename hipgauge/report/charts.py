"""Inline SVG charts for the HTML report, drawn server-side from the assessment dict.

Every string that came from a trace or a source file goes through ``escape`` before it reaches the
SVG text; the functions return ``Markup`` so the (autoescaping) template inserts them as they are.
Long kernel names are shortened on the chart and kept whole in a ``<title>`` (shown on hover).
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

from hipgauge.kernel_names import short_name
from hipgauge.report import figures

BAR_H = 18
GAP = 6
LABEL_W = 300
CHART_W = 900
PORT_C, STAY_C, OK_C, BAD_C, MUTED_C = "#2e7d32", "#c62828", "#2e7d32", "#c62828", "#9e9e9e"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _num(x: float) -> str:
    return f"{x:.1f}"


def _text(x: float, y: float, content: str, anchor: str = "start", cls: str = "") -> str:
    c = f' class="{cls}"' if cls else ""
    return f'<text x="{_num(x)}" y="{_num(y)}" text-anchor="{anchor}"{c}>{escape(content)}</text>'


def display_labels(rows: list[dict[str, Any]], limit: int = 44) -> list[str]:
    """Short row labels; rows that share a label (several kernels matched under one operator) get the part of
    their first baseline kernel name that differs from the others' after it, so no two bars read the same."""
    groups: dict[str, list[str]] = {}
    for r in rows:
        groups.setdefault(r["label"], []).append((r.get("baseline_names") or [""])[0])
    out = []
    for r in rows:
        names = groups[r["label"]]
        if len(names) < 2:
            out.append(short_name(r["label"], limit))
            continue
        name = (r.get("baseline_names") or [""])[0]
        others = [n for n in names if n != name] or [name]
        start = min(_common_prefix(name, o) for o in others)
        head = short_name(r["label"], limit // 2)
        room = max(10, limit - len(head) - 3)
        part = name[max(0, start - 6): max(0, start - 6) + room - 2]
        out.append(f"{head} · …{part}…")
    return out


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def parity_chart(rows: list[dict[str, Any]], threshold: float, limit: int = 40) -> Markup:
    """Horizontal bars of candidate/baseline ratio per kernel, sorted, with lines at 1.0 and the threshold."""
    rows = [r for r in rows if r.get("ratio") is not None]
    if not rows:
        return Markup('<p class="muted">No matched rows with a ratio.</p>')
    shown = sorted(rows, key=lambda r: -r["share"])[:limit]
    shown.sort(key=lambda r: -r["ratio"])
    labels = display_labels(shown)
    max_r = max(max(r["ratio"] for r in shown), threshold, 1.0) * 1.08
    plot_w = CHART_W - LABEL_W - 90
    height = len(shown) * (BAR_H + GAP) + 40
    sx = lambda r: LABEL_W + plot_w * r / max_r  # noqa: E731 - the chart scale, one expression
    parts = [f'<svg class="chart" role="img" viewBox="0 0 {CHART_W} {height}" width="{CHART_W}" height="{height}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>Per-kernel ratio candidate/baseline</title>']
    for i, r in enumerate(shown):
        y = 10 + i * (BAR_H + GAP)
        ratio = float(r["ratio"])
        color = BAD_C if ratio > threshold else OK_C
        full = " / ".join(r.get("baseline_names") or []) or r["label"]
        tip = f"{full}\nratio {figures.ratio(ratio, 3)} · {figures.pct(r['share'])} of baseline time · match: {r.get('match')}"
        parts.append(f'<g><title>{escape(tip)}</title>')
        parts.append(_text(LABEL_W - 6, y + BAR_H - 4, labels[i], "end", "lbl"))
        parts.append(f'<rect x="{LABEL_W}" y="{y}" width="{_num(sx(ratio) - LABEL_W)}" height="{BAR_H}" fill="{color}" opacity="0.8"/>')
        parts.append(_text(sx(ratio) + 4, y + BAR_H - 4, figures.ratio(ratio), "start", "val"))
        parts.append("</g>")
    bottom = height - 24
    for value, label, dash in ((1.0, "1.0× (parity)", ""), (threshold, f"{threshold:g}× threshold", ' stroke-dasharray="5,4"')):
        x = sx(value)
        parts.append(f'<line x1="{_num(x)}" y1="4" x2="{_num(x)}" y2="{bottom}" stroke="#333"{dash}/>')
        parts.append(_text(x, bottom + 14 + (10 if dash else 0), label, "middle", "axis"))
    parts.append("</svg>")
    note = "" if len(rows) <= limit else f'<p class="muted">Showing the {limit} rows with the largest baseline share of {len(rows)}.</p>'
    return Markup("".join(parts) + note)


def slack_chart(groups: list[dict[str, Any]], limit: int = 30) -> Markup:
    """Per kernel group: the largest slowdown it may take before the target slips (bar), what-ifs marked."""
    groups = groups[:limit]
    if not groups:
        return Markup('<p class="muted">No kernel groups.</p>')
    finite = [g["max_ratio"] for g in groups if g.get("max_ratio") is not None]
    assumed = [g["assumed_ratio"] for g in groups if g.get("assumed_ratio")]
    max_r = min(max([2.0, *finite, *assumed]), 10.0) * 1.08
    plot_w = CHART_W - LABEL_W - 150
    height = len(groups) * (BAR_H + GAP) + 44
    sx = lambda r: LABEL_W + plot_w * min(r, max_r) / max_r  # noqa: E731 - the chart scale, one expression
    parts = [f'<svg class="chart" role="img" viewBox="0 0 {CHART_W} {height}" width="{CHART_W}" height="{height}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>Slack per kernel group</title>']
    for i, g in enumerate(groups):
        y = 10 + i * (BAR_H + GAP)
        mr = g.get("max_ratio")
        tip = (f"{g['name']}\n{figures.pct(g['share'])} of kernel time, {figures.latency(g['time_ms'])} per iteration\n"
               + (f"may be at most {figures.ratio(mr, 3)} slower" if mr is not None else "target already missed at the baseline")
               + ("\nkernels: " + ", ".join(g.get("kernels", [])[:8]) if g.get("kernels") else ""))
        parts.append(f"<g><title>{escape(tip)}</title>")
        parts.append(_text(LABEL_W - 6, y + BAR_H - 4, short_name(g["name"]), "end", "lbl"))
        if mr is None:
            parts.append(_text(LABEL_W + 4, y + BAR_H - 4, "target missed at baseline", "start", "bad"))
        else:
            parts.append(f'<rect x="{LABEL_W}" y="{y}" width="{_num(sx(mr) - LABEL_W)}" height="{BAR_H}" fill="#1565c0" opacity="0.75"/>')
            parts.append(_text(sx(mr) + 4, y + BAR_H - 4, f"≤ {figures.ratio(mr)}" + (" (off scale)" if mr > max_r else ""), "start", "val"))
        a = g.get("assumed_ratio")
        if a:
            color = BAD_C if (mr is None or a > mr) else OK_C
            parts.append(f'<line x1="{_num(sx(a))}" y1="{y - 2}" x2="{_num(sx(a))}" y2="{y + BAR_H + 2}" stroke="{color}" stroke-width="3"/>')
        parts.append("</g>")
    bottom = height - 26
    x1 = sx(1.0)
    parts.append(f'<line x1="{_num(x1)}" y1="4" x2="{_num(x1)}" y2="{bottom}" stroke="#333"/>')
    parts.append(_text(x1, bottom + 14, "1.0×", "middle", "axis"))
    parts.append(_text(LABEL_W + plot_w, bottom + 14, figures.ratio(max_r), "end", "axis"))
    parts.append("</svg>")
    return Markup("".join(parts))


def lean_badge(lean: str) -> Markup:
    color = {"port": PORT_C, "stay": STAY_C}.get(lean, MUTED_C)
    return Markup(f'<span class="badge" style="background:{color}">{escape(lean)}</span>')


def hours_chart(categories: list[dict[str, Any]]) -> Markup:
    """Low–high hour ranges per cost category."""
    if not categories:
        return Markup('<p class="muted">Nothing to cost.</p>')
    max_h = max(c["high_hours"] for c in categories) or 1.0
    plot_w = CHART_W - LABEL_W - 150
    height = len(categories) * (BAR_H + GAP) + 20
    parts = [f'<svg class="chart" role="img" viewBox="0 0 {CHART_W} {height}" width="{CHART_W}" height="{height}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>Hours by category</title>']
    for i, c in enumerate(categories):
        y = 10 + i * (BAR_H + GAP)
        x_lo = LABEL_W + plot_w * c["low_hours"] / max_h
        x_hi = LABEL_W + plot_w * c["high_hours"] / max_h
        parts.append(f"<g><title>{escape(c['category'])}: {c['count']} items, {c['low_hours']:.0f}–{c['high_hours']:.0f} h</title>")
        parts.append(_text(LABEL_W - 6, y + BAR_H - 4, short_name(c["category"], 40), "end", "lbl"))
        parts.append(f'<rect x="{LABEL_W}" y="{y + 4}" width="{_num(x_lo - LABEL_W)}" height="{BAR_H - 8}" fill="#6a1b9a"/>')
        parts.append(f'<rect x="{_num(x_lo)}" y="{y + 4}" width="{_num(max(x_hi - x_lo, 1))}" height="{BAR_H - 8}" fill="#6a1b9a" opacity="0.35"/>')
        parts.append(_text(x_hi + 4, y + BAR_H - 4, f"{c['low_hours']:.0f}–{c['high_hours']:.0f} h", "start", "val"))
        parts.append("</g>")
    parts.append("</svg>")
    return Markup("".join(parts))


def trend_chart(kernel: dict[str, Any], threshold: float | None = None, width: int = 560, height: int = 210) -> Markup:
    """One kernel's candidate/baseline ratio across stored assessments: a line with a dot per assessment,
    the parity line, and under each step the toolchain change that came with it (full text on hover)."""
    points = [p for p in kernel.get("points", [])]
    if not points:
        return Markup('<p class="muted">No stored points.</p>')
    ratios = [float(p["ratio"]) for p in points if p.get("ratio") is not None]
    lo = min([1.0, *ratios]) * 0.95
    hi = max([1.0, *(ratios or [1.0]), *([threshold] if threshold else [])]) * 1.05
    left, right, top, bottom = 56, 20, 16, 74
    plot_w, plot_h = width - left - right, height - top - bottom
    n = len(points)
    sx = lambda i: left + (plot_w * (i + 0.5) / n)  # noqa: E731 - the chart scale, one expression
    sy = lambda r: top + plot_h * (1 - (r - lo) / (hi - lo if hi > lo else 1.0))  # noqa: E731 - the chart scale, one expression
    label = str(kernel.get("label", ""))
    parts = [f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>{escape(label)}: ratio per stored assessment</title>']
    parts.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#e0e0e0"/>')
    for value, text, dash in ((1.0, "1.0×", ""), *(((threshold, f"{threshold:g}×", ' stroke-dasharray="5,4"'),) if threshold else ())):
        y = sy(value)
        parts.append(f'<line x1="{left}" y1="{_num(y)}" x2="{left + plot_w}" y2="{_num(y)}" stroke="#616161"{dash}/>')
        parts.append(_text(left - 4, y + 4, text, "end", "axis"))
    marks = [1.0, *([threshold] if threshold else [])]
    for value in (lo, hi):
        if all(abs(sy(value) - sy(m)) > 12 for m in marks):
            parts.append(_text(left - 4, sy(value) + 4, figures.ratio(value), "end", "axis"))
    path = [(sx(i), sy(float(p["ratio"]))) for i, p in enumerate(points) if p.get("ratio") is not None]
    if len(path) > 1:
        d = " ".join(f"{'M' if i == 0 else 'L'}{_num(x)},{_num(y)}" for i, (x, y) in enumerate(path))
        parts.append(f'<path d="{d}" fill="none" stroke="#1565c0" stroke-width="2"/>')
    for i, p in enumerate(points):
        x = sx(i)
        when = str(p.get("recorded_at") or "")[:10]
        ident = f"#{p.get('assessment_id')}" if p.get("assessment_id") is not None else ""
        changes = list(p.get("changes") or [])
        ratio = p.get("ratio")
        step = p.get("step")
        tip = (f"assessment {ident} {when}" + (f" commit {str(p.get('commit'))[:10]}" if p.get("commit") else "")
               + (f"\nratio {figures.ratio(ratio, 3)}" if ratio is not None else "\nno ratio")
               + (f" ({figures.ratio(step, 3)} the previous)" if step else "")
               + ("\ntoolchain: " + "; ".join(changes) if changes else ("\nfirst stored point" if i == 0 else "\nno toolchain change recorded")))
        parts.append(f"<g><title>{escape(tip)}</title>")
        if ratio is not None:
            color = BAD_C if threshold and ratio > threshold else "#1565c0"
            parts.append(f'<circle cx="{_num(x)}" cy="{_num(sy(float(ratio)))}" r="4.5" fill="{color}"/>')
            parts.append(_text(x, sy(float(ratio)) - 8, figures.ratio(ratio), "middle", "val"))
        parts.append(_text(x, top + plot_h + 14, f"{ident} {when}".strip(), "middle", "axis"))
        if i == 0:
            change = "first point"
        else:
            change = changes[0] if changes else "no toolchain change"
            if len(changes) > 1:
                change += f" +{len(changes) - 1}"
        parts.append(_text(x, top + plot_h + 30, _clip(change, max(12, int(plot_w / n / 6.2))), "middle", "chg"))
        if step and i:
            parts.append(_text(x, top + plot_h + 45, f"step {figures.ratio(step)}", "middle", "bad" if step > 1.0 else "ok"))
        parts.append("</g>")
    parts.append("</svg>")
    return Markup("".join(parts))
