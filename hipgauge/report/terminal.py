"""Render the assessment, decision and cost dicts on a terminal (rich).

Values from traces and sources are always passed as ``rich.text.Text`` (never as markup strings), so a
kernel named ``[bold]x`` prints as it is.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from hipgauge.report.figures import num, pct, slack_sure_ratio, usd

_LEAN_STYLE = {"port": "bold green", "stay": "bold red", "neutral": "dim"}


def print_decision(console: Console, dec: dict[str, Any]) -> None:
    if dec.get("headline"):
        console.print(Text(dec["headline"] + ".", style="bold green"))
    t = Table(title=Text("Rubric (triage)"), show_lines=True)
    for col in ("signal", "lean", "source", "evidence"):
        t.add_column(col, overflow="fold")
    for s in dec["signals"]:
        ev = Text(s["summary"])
        for e in s["evidence"][:6]:
            ev.append("\n• " + e)
        if len(s["evidence"]) > 6:
            ev.append(f"\n… {len(s['evidence']) - 6} more")
        t.add_row(Text(s["title"]), Text(s["lean"], style=_LEAN_STYLE.get(s["lean"], "")), Text(s["source"]), ev)
    console.print(t)
    console.print(Text(f"Kernel evidence weighted by {dec['weighting']}."))
    console.print(Text("Triage: " + dec["triage"]["summary"] + ".", style="bold"))
    console.print(Text("Measurement: " + dec["triage"]["measurement"] + "."))
    console.print(Text(dec["triage"]["statement"], style="italic"))


def print_cost(console: Console, cost: dict[str, Any]) -> None:
    if cost.get("headline"):
        console.print(Text(cost["headline"] + ".", style="bold green"))
    t = Table(title=Text("Hours to close the gap (estimated)"))
    t.add_column("category")
    t.add_column("items", justify="right")
    t.add_column("low h", justify="right")
    t.add_column("high h", justify="right")
    for c in cost["by_category"]:
        t.add_row(Text(c["category"]), str(c["count"]), f"{c['low_hours']:.1f}", f"{c['high_hours']:.1f}")
    t.add_row(Text("total", style="bold"), str(len(cost["items"])), f"{cost['low_hours']:.1f}", f"{cost['high_hours']:.1f}")
    console.print(t)
    up = cost["upkeep"]
    console.print(Text(f"One-time: {usd(cost['one_time_low_usd'])} – {usd(cost['one_time_high_usd'])}"))
    console.print(Text(f"Yearly upkeep: {up['hours_per_year']:.0f} h = {usd(up['usd_per_year'])} "
                       f"({up['validation_hours']:.0f} h validation, {len(up['dual_variant_kernels'])} kernels × two tuned variants)"))
    console.print(Text(f"Avoided lock-in: {usd(cost['lockin_usd_per_year'])}/year; net {usd(cost['net_usd_per_year'])}/year"))
    console.print(Text(f"Break-even: {cost['break_even']}", style="bold"))
    for n in cost["notes"]:
        console.print(Text("note: " + n, style="yellow"))
    if cost.get("drivers"):
        d = Table(title=Text("Top cost drivers (one row per distinct piece of work)"))
        for col in ("item", "occurrences", "low h", "high h", "basis"):
            d.add_column(col, overflow="fold")
        for row in cost["drivers"][:5]:
            d.add_row(Text(row["label"][:70]), str(row["count"]), f"{row['low_hours']:.1f}", f"{row['high_hours']:.1f}",
                      Text(row["basis"]))
        if len(cost["items"]) > 5:
            d.caption = f"the 5 largest of {len(cost['items'])} cost items (all of them: --json, items)"
        console.print(d)
    p = Table(title=Text("Parameters"))
    for col in ("parameter", "value", "source", "from"):
        p.add_column(col, overflow="fold")
    for prm in cost["parameters"]:
        p.add_row(Text(prm["name"]), Text(str(prm["value"])), Text(prm["source"]), Text(prm["origin"]))
    console.print(p)


def print_assessment(console: Console, doc: dict[str, Any], folder: str | None = None) -> None:
    h = doc["headline"]
    if (h.get("amd") or {}).get("sentence"):
        console.print(Text(h["amd"]["sentence"] + ".", style="bold green"))
    if h.get("caveat"):
        console.print(Text("⚠ " + h["caveat"], style="bold yellow"))
    t = Table(title=Text("hipgauge assessment"), show_header=True)
    t.add_column("measure")
    t.add_column("value", overflow="fold")
    t.add_column("source")
    t.add_row("1 translation share", pct(h["translation_share"]["value"]), h["translation_share"]["source"])
    hp = h["parity"]
    if hp["kind"] == "compare":
        val = f"projected {num(hp['projected_ms'])} ms vs target {num(hp['target_ms'])} ms; {hp.get('slower_than_threshold')} slow rows"
    source = str(hp["source"])
    if hp["kind"] == "project":
        # no candidate yet: the baseline latency is measured, the slack is the projection model's estimate
        val = f"not measured (no AMD profile); baseline {num(hp['baseline_ms'])} ms vs target {num(hp['target_ms'])} ms"
        if hp.get("tightest_group"):
            val += f"; {hp['tightest_group']['name']} may be ≤ {num(hp['tightest_group']['max_ratio'], 2)}× slower" + slack_sure_ratio(hp["tightest_group"])
            source = f"{source} baseline; estimated slack"
    elif hp["kind"] != "compare":
        val = "not measured (no profile)"
    t.add_row("2 per-kernel parity", Text(val), source)
    hh = h["hours_to_close"]
    t.add_row("3 hours to close", ("—" if hh["low"] is None else f"{hh['low']:,.0f}–{hh['high']:,.0f} h")
              + ("" if doc.get("parity") else " (kernel tuning not included: no candidate measured)"), hh["source"])
    hn = h["lockin_minus_upkeep"]
    value = usd(hn["value"]) if hn.get("lockin_known", True) else f"unknown − {usd(hn['upkeep_usd_per_year'])} upkeep"
    t.add_row("4 lock-in − upkeep", Text(f"{value}/year; {hn.get('break_even') or ''}"), hn["source"])
    console.print(t)
    if doc.get("decision"):
        tr = doc["decision"]["triage"]
        console.print(Text("Triage: " + tr["summary"] + ". Measurement: " + tr["measurement"] + "."))
        console.print(Text(tr["statement"], style="italic"))
    cls = (doc.get("build_check") or {}).get("classification") if isinstance(doc.get("build_check"), dict) else None
    if cls:
        console.print(Text("Build check: " + cls["summary"]))
    for w in doc.get("workloads") or []:
        groups = [g for g in (w.get("slack") or {}).get("groups", []) if g.get("max_ratio") is not None]
        p = (w.get("slack") or {}).get("projection") or {}
        line = f"Separate workload, {w['name']}: P{p.get('percentile', 99):g} {num(p.get('baseline_ms'))} ms vs {num(w.get('target_ms'))} ms target"
        if groups:
            g = groups[0]  # the largest group
            line += f"; {g['name']} ({pct(g['share'])} of kernel time) may be ≤ {num(g['max_ratio'], 2)}× slower" + slack_sure_ratio(g)
        console.print(Text(line))
    for s in doc["stages"]:
        if s["status"] != "ok":
            console.print(Text(f"{s['name']}: {s['status']}" + (f" ({s['reason']})" if s.get("reason") else ""), style="dim"))
    if folder:
        console.print(Text(f"Report: {folder}/index.html (also report.md, assessment.json, findings.sarif)", style="bold"), soft_wrap=True)
