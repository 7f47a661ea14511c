"""Terminal view of a ``hipgauge.scan/1`` document (the ``hipgauge scan`` screen): findings, kernels, launch sites, library mix.

Drawn on a rich console or a ``report.plaintext.PlainConsole`` (``cli.console.draw`` picks): tables come from
``plaintext.table(out, …)``, so plain output never imports rich."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hipgauge.report.plaintext import escape, table

if TYPE_CHECKING:
    from rich.console import Console

_SEVERITY_ORDER = {"blocker": 0, "wrong-results": 1, "slow": 2, "info": 3}


_SEVERITY_STYLE = {"blocker": "bold red", "wrong-results": "red", "slow": "yellow", "info": "dim"}


def render_findings(out: Console, findings: list[dict[str, Any]], limit: int) -> None:
    """The to-do list: worst first, then by file and line; each with its rule code and enclosing kernel."""
    if limit <= 0 or not findings:
        return
    ordered = sorted(findings, key=lambda f: (_SEVERITY_ORDER.get(f["severity"], 9), f["file"], f["line"], f["code"]))
    t = table(out, title="Findings (worst first; `hipgauge explain CODE` for why and how to fix)", title_justify="left")
    for col in ("code", "severity", "where", "in", "message"):
        t.add_column(col, overflow="fold")
    for f in ordered[:limit]:
        sev = f["severity"]
        t.add_row(f["code"], f"[{_SEVERITY_STYLE.get(sev, '')}]{sev}[/]", f"{f['file']}:{f['line']}",
                  f.get("kernel") or "-", f["message"])
    if len(ordered) > limit:
        t.caption = f"… and {len(ordered) - limit} more (--max-findings N, or all of them with --json / --sarif)"
    out.print(t)


def render_summary(out: Console, doc: dict[str, Any], limit: int = 15, max_findings: int = 25) -> None:
    """The terminal view of a ``hipgauge.scan/1`` document."""
    s = doc["summary"]
    out.print(f"[bold]hipgauge scan[/bold] {doc['root']}")
    amd = (doc.get("dual_target") or {}).get("amd_headline")
    if amd:
        out.print(f"[bold green]{escape(amd)}[/bold green] [dim](measured; --json: dual_target.builds_for_amd)[/dim]")
    if s.get("caveat"):
        out.print(f"[bold yellow]⚠ {escape(s['caveat'])}[/bold yellow]")
    out.print(f"{s['files']} files, {s['lines']} lines scanned; {s['skipped']} skipped  "
              f"[dim](measured from the source tree)[/dim]")
    out.print(f"kernels {s['kernels']} · device functions {s['device_functions']} · launch sites "
              f"{s['launch_sites']} · CUDA API references {s['api_calls']}")

    if doc["kernels"]:
        t = table(out, title="Kernels", title_justify="left")
        for col in ("kernel", "where", "launch bounds", "static smem (B)", "launched"):
            t.add_column(col, overflow="fold")
        launched: dict[str, int] = {}
        for site in doc["launch_sites"]:
            if site["kernel"]:
                short = site["kernel"].split("::")[-1]
                launched[short] = launched.get(short, 0) + 1
        for k in doc["kernels"][:limit]:
            smem = k["static_smem_bytes"]
            t.add_row(k["qualified_name"] or k["name"], f"{k['file']}:{k['line']}", ", ".join(k["launch_bounds"]) or "-",
                      "?" if smem is None else str(smem), str(launched.get(k["name"], 0)))
        if len(doc["kernels"]) > limit:
            t.caption = f"… and {len(doc['kernels']) - limit} more (see --json)"
        out.print(t)

    if doc["launch_sites"]:
        t = table(out, title="Launch sites", title_justify="left")
        for col in ("kernel", "where", "via", "grid", "block", "smem", "stream"):
            t.add_column(col, overflow="fold")
        for site in doc["launch_sites"][:limit]:
            where = f"{site['file']}:{site['line']}" + (" (macro)" if site["in_macro"] else "")
            t.add_row(site["kernel"] or "?", where, site["via"], site["grid"] or "-", site["block"] or "-",
                      site["shared_mem"] or "-", site["stream"] or "-")
        if len(doc["launch_sites"]) > limit:
            t.caption = f"… and {len(doc['launch_sites']) - limit} more (see --json)"
        out.print(t)

    if s["library_mix"]:
        t = table(out, title="Library mix (references; mapped = HIP counterpart in the HIPIFY tables)", title_justify="left")
        for col, just in (("library", "left"), ("references", "right"), ("mapped", "right"), ("unmapped", "right"),
                          ("unmapped names (most frequent)", "left")):
            t.add_column(col, justify=just)
        unmapped_names: dict[str, dict[str, int]] = {}
        for c in doc["api_calls"]:
            if c["status"] not in ("mapped", "deprecated"):
                d = unmapped_names.setdefault(c["library"], {})
                d[c["cuda_name"]] = d.get(c["cuda_name"], 0) + 1
        for lib, row in s["library_mix"].items():
            top = sorted(unmapped_names.get(lib, {}).items(), key=lambda kv: (-kv[1], kv[0]))[:3]
            t.add_row(lib, str(row["mapped"] + row["unmapped"]), str(row["mapped"]), str(row["unmapped"]),
                      ", ".join(n for n, _ in top))
        out.print(t)

    if s["findings"]:
        sev = ", ".join(f"{k} {v}" for k, v in s["findings_by_severity"].items() if v)
        cat = ", ".join(f"{k} {v}" for k, v in s["findings_by_category"].items())
        out.print(f"[bold]Findings[/bold] {s['findings']}: {sev}")
        out.print(f"  by category: {cat}")
        render_findings(out, doc["findings"], max_findings)
    else:
        out.print("[bold]Findings[/bold] none")

    if s["hottest_files"]:
        t = table(out, title="Hottest files (severity-weighted findings + unmapped references)", title_justify="left")
        for col in ("file", "score", "findings", "unmapped refs", "kernels"):
            t.add_column(col, overflow="fold")
        for row in s["hottest_files"][:10]:
            t.add_row(row["file"], str(row["score"]), str(row["findings"]), str(row["unmapped_refs"]), str(row["kernels"]))
        if len(s["hottest_files"]) > 10:
            t.caption = f"… and {len(s['hottest_files']) - 10} more (see --json)"
        out.print(t)

    if doc["skipped"]:
        t = table(out, title="Skipped files", title_justify="left")
        t.add_column("file", overflow="fold")
        t.add_column("why", overflow="fold")
        for sk in doc["skipped"][:50]:
            t.add_row(sk["path"], sk["reason"])
        if len(doc["skipped"]) > 50:
            t.caption = f"… and {len(doc['skipped']) - 50} more (see --json)"
        out.print(t)

    dt = doc.get("dual_target") or {}
    if dt.get("dual_target"):
        project = [sw["name"] for sw in dt["switches"] if sw["how"] != "platform" and sw["side"] == "hip"]
        variants = [k["kernel"] for k in dt["kernels_with_variants"] if k["two_variants"]]
        out.print(f"[bold]Dual-target[/bold]: switches {escape(', '.join(project) or '-')}; shims "
                  f"{escape(', '.join(sh['file'] for sh in dt['shims']) or '-')}; {len(variants)} kernel(s) with a body "
                  f"per vendor; {dt['lines']['hip_only']} HIP-only and {dt['lines']['cuda_only']} CUDA-only lines; "
                  f"findings there: {dt['findings_dropped']} dropped, {dt['findings_noted']} CUDA-only notes "
                  "[dim](measured; --json: dual_target)[/dim]")
    other = (dt.get("other_backends") or {}).get("backends") or []
    if other or (dt.get("hip_native") or {}).get("files"):
        names = ", ".join(f"{b['backend']} {b['files']}" for b in other) or "-"
        out.print(f"Not CUDA code (no CUDA rules, no hours): other backends {escape(names)}; "
                  f"HIP-native files {len((dt.get('hip_native') or {}).get('files') or [])} "
                  "[dim](--json: dual_target.other_backends, dual_target.hip_native)[/dim]")
    sel = dt.get("build_selection") or {}
    if sel.get("files_by_builds"):
        counts = ", ".join(f"{k} {v}" for k, v in sel["files_by_builds"].items())
        out.print(f"[bold]Build selection[/bold] ({escape(', '.join(sel.get('scripts', [])[:3]))}"
                  + (f" and {len(sel['scripts']) - 3} more" if len(sel.get("scripts", [])) > 3 else "")
                  + f"): files per build: {escape(counts)}; {len(sel.get('unknown', [])) + sel.get('unknown_left_out', 0)}"
                  " construct(s) not read [dim](measured; --json: dual_target.build_selection)[/dim]")

    share = s["translation_share"]
    if share is None:
        out.print(f"Translation share: n/a ({s['translation_share_source']})")
    else:
        out.print(f"Translation share: [bold]{share * 100:.1f}%[/bold] "
                  f"[dim]({s['translation_share_source']})[/dim]")
