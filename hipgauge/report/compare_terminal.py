"""Terminal views of the ``hipgauge.compare/1`` and ``hipgauge.project/1`` documents, and the number formats they print (ns inside, formatted here)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from hipgauge.kernel_names import display_name
from hipgauge.profiles.kernel_work import abbreviate
from hipgauge.report import counter_parity as cp
from hipgauge.report import figures
from hipgauge.report import library_text as lt
from hipgauge.report.parity_text import (
    coverage_line,
    outlier_lines,
    outliers_heading,
    row_mark,
    signature_words,
)

NAME_WIDTH = 60


def shorten(text: str, width: int = NAME_WIDTH) -> str:
    """Long kernel names shortened with an ellipsis in the middle (both ends say the most)."""
    text = " ".join((text or "").split())
    if len(text) <= width:
        return text
    keep = width - 1
    head = (keep + 1) // 2
    tail = keep - head
    return text[:head] + "…" + text[len(text) - tail:]


def _kernel_label(name: str, width: int) -> str:
    """A kernel name that fits ``width``: the informative key when it fits, else an abbreviation that drops
    namespaces and lambda noise and keeps the distinguishing template arguments."""
    shown = display_name(name)
    if len(shown) <= width and "<" not in shown:
        label = abbreviate(name, width)
        return label if len(label) <= width else shown
    return abbreviate(name, width)


def _projection_lines(proj: dict[str, Any], model: str, base_label: str, cand_label: str | None,
                      notes: bool = True) -> list[str]:
    p = proj["percentile"]
    lines = []
    src = proj["source"]
    lines.append(f"{base_label}: {figures.latency(proj['baseline_ms'])}")
    if cand_label is not None:
        lines.append(f"{cand_label}: {figures.latency(proj['projected_ms'])}  ({src})")
    interval = proj.get("interval")
    if interval:
        lo, hi = interval["interval_ms"]
        lines.append(f"interval: {figures.latency(lo)} – {figures.latency(hi)} ({interval['how']})")
        if interval.get("prediction_interval_ms"):
            plo, phi = interval["prediction_interval_ms"]
            lines.append(f"a measurement of the candidate (as many iterations, same host) would fall in "
                         f"{figures.latency(plo)} – {figures.latency(phi)}: its own sampling added")
    if proj.get("target_ms") is not None:
        lines.append(f"target: {proj['target_ms']:g} ms at P{p:g} → {proj['verdict']}")
    lines.append(f"how: {model}")
    if not proj.get("enough_iterations"):
        lines.append(f"caveat: fewer than the iterations P{p:g} needs; the figure is what the data supports")
    if notes and proj.get("note"):
        lines.append(f"note: {proj['note']}")
    return lines


def render_compare(out: Console, doc: dict[str, Any], top: int) -> None:
    b, c = doc["baseline"], doc["candidate"]
    unit = "per iteration" if doc["per_iteration"] else "whole profile"
    out.print(f"[bold]compare[/bold]  baseline {b['path']} ({b['vendor']}, {b.get('device') or 'device n/a'}, "
              f"{b['source_format']})  vs  candidate {c['path']} ({c['vendor']}, {c.get('device') or 'device n/a'}, "
              f"{c['source_format']})", markup=True, highlight=False)
    outliers = outlier_lines(doc)
    if outliers:
        out.print(outliers_heading(doc), highlight=False, markup=False)
        for line in outliers:
            out.print(f"  • {line}", highlight=False, markup=False)
    out.print(f"kernel times: measured, {unit}; ratio = candidate ÷ baseline; share = of baseline kernel time; "
              f"of |Δ| = signed share of the absolute change (Σ|Δ| of the rows + all unmatched time); "
              f"sorted by |Δ|", highlight=False, markup=False)
    for n in doc["notes"]:
        out.print(f"note: {n}", highlight=False, markup=False)

    rows = doc["rows"]
    counters = cp.has_counters(rows)
    width = max(out.width, 40)
    wide = width >= 200  # side-by-side name columns only when each can still show a useful part of a kernel name
    medium = width >= 120
    fixed = (10 if medium else 5) + 9 + 9 + 5 + 10 + (5 + 6 if medium else 0) + (34 if wide else 0)
    ncols = 6 + (2 if medium else 0) + (2 if wide else 0)
    name_w = max(16, min(70, (width - fixed - 3 * ncols) // (2 if wide else 1) - 6))
    if width < 100:
        _rows_as_list(out, rows, top, width, counters)
    else:
        _rows_as_table(out, rows, top, width, medium, wide, name_w, counters)
    if counters or doc.get("counters"):
        _counter_lines(out, doc, rows, top)
    if doc.get("libraries"):
        render_library_section(out, doc["libraries"], top)
    _operators_and_rest(out, doc, top, width, medium, unit)


def render_library_section(out: Console, section: dict[str, Any], top: int) -> None:
    """Which library, family and tile served each hot library row on each side, the layout-conversion time around
    it, and the diagnosis with advice (outliers first, marked ◆)."""
    out.print(f"[bold]{lt.HEADING}[/bold] (hot library rows, outliers first ◆)", markup=True, highlight=False)
    out.print("  " + lt.coverage_line(section), highlight=False, markup=False)
    for label, ratio, base, cand in lt.row_lines(section)[:top]:
        out.print(f"  {shorten(label, 90)}  {ratio}", highlight=False, markup=False)
        out.print(f"    baseline:  {base}", highlight=False, markup=False)
        out.print(f"    candidate: {cand}", highlight=False, markup=False)
    if lt.more_rows_line(section):
        out.print("  " + lt.more_rows_line(section), highlight=False, markup=False)
    advice = lt.advice_lines(section)
    if advice:
        out.print("  diagnosis and advice (measured → advised; the advice is a suggestion to measure):",
                  highlight=False, markup=False)
        for line in advice:
            out.print(f"  • {line}", highlight=False, markup=False)


def _rows_as_list(out: Console, rows: list[dict[str, Any]], top: int, width: int, counters: bool = False) -> None:
    """Narrow terminals (pipes, CI logs): one block per row, the names on lines of their own at full width,
    every column kept."""
    out.print(f"per kernel ({len(rows)} matched units; narrow layout: ratio, baseline → candidate, Δ, share, of |Δ|)",
              highlight=False, markup=False)
    w = max(20, width - 6)
    flagged = 0
    for n, r in enumerate(rows[:top], 1):
        mark = row_mark(r)
        flagged += bool(mark)
        out.print(f"{n:>2}. {figures.ratio(r['ratio'])}{mark}  {figures.duration(r['baseline_ns'])} → {figures.duration(r['candidate_ns'])}  "
                  f"Δ {figures.duration(r['delta_ns'], signed=True)}  share {figures.pct(r['share'])}  of |Δ| {figures.pct(r['contribution'])}  "
                  f"[{r['match']}]", highlight=False, markup=False)
        bn = _kernel_label(r["baseline_names"][0], w) if r["baseline_names"] else shorten(r["label"], w)
        cn = _kernel_label(r["candidate_names"][0], w) if r["candidate_names"] else ""
        out.print(f"    {bn}", highlight=False, markup=False)
        if cn and cn != bn:
            out.print(f"    → {cn}", highlight=False, markup=False)
        sig = signature_words(r)
        if sig:
            out.print(f"    {shorten(sig, w)}", highlight=False, markup=False)
        if counters:
            out.print(f"    occupancy {cp.occupancy_cell(r.get('counters'))}  DRAM % peak {cp.dram_cell(r.get('counters'))}",
                      highlight=False, markup=False)
    if flagged:
        out.print("! the ratio is not like for like (mixed signatures, different call counts, or an extreme ratio "
                  "with lopsided kernel counts): see the warnings", highlight=False, markup=False)
    if len(rows) > top:
        out.print(f"… and {len(rows) - top} more matched units (--top N, or --json for all)", highlight=False, markup=False)


def _rows_as_table(out: Console, rows: list[dict[str, Any]], top: int, width: int, medium: bool, wide: bool,
                   name_w: int, counters: bool = False) -> None:
    t = Table(title=f"per kernel ({len(rows)} matched units)", show_edge=False, pad_edge=False, title_justify="left")
    cols: list[tuple[str, str, int]] = [("match", "left", 10 if medium else 5)]
    short_level = {"normalized": "norm.", "operator": "op", "user-map": "map"}
    cols += [("baseline kernel(s)", "left", 0), ("candidate kernel(s)", "left", 0), ("operator", "left", 0)] if wide \
        else [("kernel: base → cand", "left", 0)]
    cols += [("baseline", "right", 9), ("candidate", "right", 9), ("ratio", "right", 5), ("Δ", "right", 10)]
    if medium:
        cols += [("share", "right", 5), ("of |Δ|", "right", 6)]
    hidden = [] if medium else ["share", "of |Δ|"]
    if counters:  # the trio: time ratio beside achieved occupancy and DRAM % of peak, baseline → candidate
        cols += [("occupancy", "right", 0), ("DRAM % peak", "right", 0)]
    for col, j, mw in cols:
        t.add_column(col, justify=j, no_wrap=True, min_width=mw or None)  # type: ignore[arg-type]
    flagged = 0
    for r in rows[:top]:
        bn = _kernel_label(r["baseline_names"][0], name_w) if r["baseline_names"] else shorten(r["label"], name_w)
        cn = _kernel_label(r["candidate_names"][0], name_w) if r["candidate_names"] else ""
        if len(r["baseline_names"]) > 1:
            bn += f" (+{len(r['baseline_names']) - 1})"
        if len(r["candidate_names"]) > 1:
            cn += f" (+{len(r['candidate_names']) - 1})"
        op = r.get("operator") or ""
        sig = signature_words(r)
        if wide:
            names = [bn, cn, shorten(sig or op, 32)]
        else:
            extra = sig or (f"op {op}" if op and r["match"] == "operator" else "")
            names = [f"{bn}\n→ {cn}" + (f"\n  ({shorten(extra, name_w - 4)})" if extra else "")]
        mark = row_mark(r)
        flagged += bool(mark)
        cells = [r["match"] if medium else short_level.get(r["match"], r["match"]), *names, figures.duration(r["baseline_ns"]),
                 figures.duration(r["candidate_ns"]), figures.ratio(r["ratio"]) + mark, figures.duration(r["delta_ns"], signed=True)]
        if medium:
            cells += [figures.pct(r["share"]), figures.pct(r["contribution"])]
        if counters:
            cells += [cp.occupancy_cell(r.get("counters")), cp.dram_cell(r.get("counters"))]
        t.add_row(*cells)
    out.print(t)
    if flagged:
        out.print("! the ratio is not like for like (mixed signatures, different call counts, or an extreme ratio "
                  "with lopsided kernel counts): see the warnings", highlight=False, markup=False)
    if hidden:
        out.print(f"columns hidden at {width} characters: {', '.join(hidden)} (widen the terminal, or --json)",
                  highlight=False, markup=False)
    if len(rows) > top:
        out.print(f"… and {len(rows) - top} more matched units (--top N, or --json for all)", highlight=False, markup=False)


def _operators_and_rest(out: Console, doc: dict[str, Any], top: int, width: int, medium: bool, unit: str) -> None:
    ops = doc["operators"]
    if ops and not (len(ops) == 1 and ops[0]["operator"] == "(no operator)"):
        t = Table(title=f"per operator ({len(ops)})", show_edge=False, pad_edge=False, title_justify="left")
        ocols = [("operator", "left", 0), ("group", "left", 0), ("baseline", "right", 9), ("candidate", "right", 9),
                 ("ratio", "right", 5), ("Δ", "right", 10)]
        calls_known = all(o.get("baseline_calls") is not None or not o["baseline_count"] for o in ops) and \
            all(o.get("candidate_calls") is not None or not o["candidate_count"] for o in ops)
        if medium:
            ocols += [("share", "right", 5), ("calls b/c" if calls_known else "launches b/c", "right", 0)]
        else:
            out.print(f"columns hidden at {width} characters in the operator table: share, "
                      f"{'calls' if calls_known else 'launches'} b/c (widen the terminal, or --json)", highlight=False, markup=False)
        for col, j, mw in ocols:
            t.add_column(col, justify=j, no_wrap=True, min_width=mw or None)  # type: ignore[arg-type]
        op_w = max(16, min(60, width - (95 if medium else 70)))
        for o in ops[:top]:
            cells = [shorten(o.get("label") or o["operator"], op_w), o["group"], figures.duration(o["baseline_ns"]), figures.duration(o["candidate_ns"]),
                     figures.ratio(o["ratio"]) if o["candidate_ns"] else "—", figures.duration(o["delta_ns"], signed=True)]
            if medium:
                if calls_known:
                    cells += [figures.pct(o["share"]), f"{o.get('baseline_calls') or 0}/{o.get('candidate_calls') or 0}"]
                else:
                    cells += [figures.pct(o["share"]), f"{o['baseline_count']}/{o['candidate_count']}"]
            t.add_row(*cells)
        out.print(t)
        if len(ops) > top:
            out.print(f"… and {len(ops) - top} more operators", highlight=False, markup=False)

    for side, key in (("baseline", "unmatched_baseline"), ("candidate", "unmatched_candidate")):
        items = doc[key]
        total = doc["totals"][f"{side}_unmatched_ns"]
        if not items:
            out.print(f"unmatched {side} kernels: none", highlight=False, markup=False)
            continue
        t = Table(title=f"unmatched {side} kernels ({len(items)}, {figures.duration(total)})", show_edge=False,
                  pad_edge=False, title_justify="left")
        for col, j, mw in (("kernel", "left", 0), ("operator", "left", 0), ("time", "right", 9), ("share", "right", 5),
                           ("count", "right", 0)):
            t.add_column(col, justify=j, no_wrap=True, min_width=mw or None)  # type: ignore[arg-type]
        for u in items[:top]:
            t.add_row(_kernel_label(u["label"], max(20, width - 70)), shorten(u.get("operator") or "", 20), figures.duration(u["ns"]),
                      figures.pct(u["share"]), str(u["count"]))
        out.print(t)
        if len(items) > top:
            out.print(f"… and {len(items) - top} more unmatched {side} kernels", highlight=False, markup=False)

    out.print(coverage_line(doc), highlight=False, markup=False)
    tot = doc["totals"]
    out.print(f"kernel time ({unit}, measured): baseline {figures.duration(tot['baseline_ns'])}, candidate "
              f"{figures.duration(tot['candidate_ns'])}, Δ {figures.duration(tot['delta_ns'], signed=True)} ({figures.ratio(tot['ratio'])})",
              highlight=False, markup=False)
    proj = doc["projection"]
    out.print(f"[bold]end-to-end latency at P{proj['percentile']:g}[/bold]", markup=True, highlight=False)
    for line in _projection_lines(proj, proj["model"], "baseline", "candidate", notes=False):
        out.print("  " + line, highlight=False, markup=False)
    for side in ("baseline", "candidate"):
        lat = doc["latency"][side]
        note = lat["note"]
        if not note:
            continue
        shown = proj["baseline_ms"] if side == "baseline" else proj["projected_ms"]
        if lat.get("value_ms") is not None and shown is not None and abs(lat["value_ms"] - shown) > 1e-9:
            # projecting: the printed figure is not this side's own measurement; say which value the note is about
            out.print(f"  {side}'s own trace (not the figure above, {figures.latency(lat['value_ms'])}): {note}", highlight=False, markup=False)
        else:
            out.print(f"  {side} latency: {note}", highlight=False, markup=False)
    render_replay(out, doc.get("replay"))


def render_replay(out: Console, rep: dict[str, Any] | None) -> None:
    """Per-iteration replay figures, the launch-bound note and the model check."""
    if not rep:
        return
    r = rep.get("replay")
    if r:
        out.print(f"  replay ({r['strategy']}; estimated): per iteration, replayed time and GPU idle waiting on the "
                  f"host", highlight=False)
        for it in r["iterations"][:12]:
            if "candidate_replayed_ms" in it:
                out.print(f"    iteration {it['iteration']}: baseline {figures.latency(it.get('baseline_replayed_ms'))} "
                          f"(idle {figures.latency(it.get('baseline_gpu_idle_on_host_ms'))}) → candidate "
                          f"{figures.latency(it['candidate_replayed_ms'])} (idle "
                          f"{figures.latency(it['candidate_gpu_idle_on_host_ms'])}, "
                          f"{figures.pct(it['candidate_gpu_idle_share'])})", highlight=False)
            else:
                out.print(f"    iteration {it['iteration']}: {figures.latency(it['replayed_ms'])} (GPU idle on host "
                          f"{figures.latency(it['gpu_idle_on_host_ms'])}, {figures.pct(it['gpu_idle_share'])})",
                          highlight=False)
        if len(r["iterations"]) > 12:
            out.print(f"    … and {len(r['iterations']) - 12} more iterations (--json for all)", highlight=False)
        if r.get("launch_bound"):
            out.print(f"  {r['launch_bound']}", highlight=False)
    mc = rep.get("model_check")
    if mc:
        out.print(f"  {mc['line']} ({mc['model']})", highlight=False)


def render_project(out: Console, doc: dict[str, Any]) -> None:
    proj = doc["projection"]
    lat = doc["latency"]
    p = proj["percentile"]
    out.print(f"[bold]project[/bold]  {doc['profile']}  target {proj['target_ms']:g} ms at P{p:g}",
              markup=True, highlight=False)
    out.print(f"baseline latency: {figures.latency(lat['value_ms'])} ({lat['statistic']}, {lat['source']}, from {lat['method']}, "
              f"{lat['iterations']} iterations); kernel time per iteration {figures.latency(doc['kernel_ms_per_iteration'])} "
              f"(measured)", highlight=False, markup=False)
    for n in doc["notes"]:
        out.print(f"note: {n}", highlight=False, markup=False)
    how = doc.get("slack_method") or "linear: 1 + (T − L) / t_group"
    t = Table(title=f"slack per kernel group (max slowdown: {how}; estimated, all else equal)",
              show_edge=False, pad_edge=False, title_justify="left")
    cols = [("group", "left"), ("share", "right"), ("time/iter", "right"), ("max slowdown", "right")]
    has_assume = bool(doc["assume"])
    if has_assume:
        cols.append(("assumed", "right"))
    cols.append(("top kernel", "left"))
    for col, j in cols:
        t.add_column(col, justify=j)  # type: ignore[arg-type]
    for g in doc["groups"]:
        mr = g["max_ratio"]
        slack = "target already missed" if (mr is None and lat["value_ms"] is not None
                                             and lat["value_ms"] > proj["target_ms"]) else figures.ratio(mr)
        row = [g["name"], figures.pct(g["share"]), figures.latency(g["time_ms"]), slack]
        if has_assume:
            row.append(figures.ratio(g["assumed_ratio"]) if g["assumed_ratio"] is not None else "")
        row.append(shorten(g["kernels"][0] if g["kernels"] else "", 50))
        t.add_row(*row)
    out.print(t)
    what_if = has_assume or bool((doc.get("replay") or {}).get("launch_overhead_us"))
    label = "projected (what-if)" if what_if else "baseline (no --assume)"
    out.print(f"[bold]end-to-end latency at P{p:g}[/bold]", markup=True, highlight=False)
    for line in _projection_lines(proj, proj["model"], "baseline", label if what_if else None):
        out.print("  " + line, highlight=False, markup=False)
    render_replay(out, {"replay": doc.get("replay")} if doc.get("replay") else None)
    render_library_priors(out, doc.get("library_priors"))


def render_library_priors(out: Console, priors: dict[str, Any] | None) -> None:
    """Before any AMD profile: the baseline's library-backed hot operators with their priors, labelled as such."""
    lines = lt.prior_lines(priors or {})
    if not lines:
        return
    out.print(f"[bold]{lt.PRIOR_HEADING}[/bold]", markup=True, highlight=False)
    out.print(f"  {(priors or {}).get('basis', '')}", highlight=False, markup=False)
    for line in lines:
        out.print(f"  • {line}", highlight=False, markup=False)


def _counter_lines(out: Console, doc: dict[str, Any], rows: list[dict[str, Any]], top: int) -> None:
    """Where each side's counters came from, and the one-line diagnosis of each hot kernel (report/counter_parity.py)."""
    for line in cp.side_notes(doc.get("counters")):
        out.print(f"counters: {line}", highlight=False, markup=False)
    hot = [h for h in (cp.trio(r) for r in cp.hot_rows(rows, top)) if h["diagnosis"]]
    if hot:
        out.print(f"[bold]why (hot kernels; rules: {doc['counters']['rules']})[/bold]", markup=True, highlight=False)
        for h in hot:
            out.print(f"  {shorten(display_name(h['label'] or ''), 40)} {figures.ratio(h['ratio'])}: {h['diagnosis']}",
                      highlight=False, markup=False)
