"""Render the assessment dict as one self-contained HTML file (inline CSS and SVG; no script, no network).

Jinja2 with autoescape on: every value from a trace or a source file is escaped by the template; the
charts (report/charts.py) escape their own text and come in as ``Markup``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from hipgauge.report import library_text as lt
from hipgauge.report import charts, counter_parity
from hipgauge.report.parity_text import signature_words
from hipgauge.report.figures import MISSING, ms_of_ns, num, pct, usd


def _num(x: Any, digits: int = 2) -> str:
    return num(x, digits, group_ints=True)


def _value(x: Any) -> str:
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        if x.is_integer() and abs(x) >= 1000:
            return f"{x:,.0f}"
        return f"{x:,.4g}" if abs(x) < 1000 else f"{x:,.1f}"
    if isinstance(x, int):
        return f"{x:,}" if abs(x) >= 10000 else str(x)
    if isinstance(x, list):
        return ", ".join(_value(v) for v in x) if all(not isinstance(v, list) for v in x) else str(x)
    return MISSING if x is None else str(x)


def _scalar_columns(rows: list[dict[str, Any]], limit: int = 10) -> list[str]:
    cols: list[str] = []
    for r in rows[:200]:
        for k, v in r.items():
            if k not in cols and (v is None or isinstance(v, (str, int, float, bool))):
                cols.append(k)
    return cols[:limit]


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("hipgauge.report", "templates"),
        autoescape=True,
        undefined=jinja2.ChainableUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(pct=pct, num=_num, usd=usd, ms=ms_of_ns, value=_value, short=charts.short_name,
                       occupancy_cell=counter_parity.occupancy_cell, dram_cell=counter_parity.dram_cell,
                       signature_words=signature_words, library_basis=lt.basis_line,
                       library_coverage=lt.coverage_line, library_rows=lt.row_lines, library_advice=lt.advice_lines,
                       library_priors=lt.prior_lines)
    env.globals.update(parity_chart=charts.parity_chart, slack_chart=charts.slack_chart,
                       hours_chart=charts.hours_chart, lean_badge=charts.lean_badge, trend_chart=charts.trend_chart,
                       scalar_columns=_scalar_columns)
    return env


def _build_view(bc: Any) -> dict[str, Any] | None:
    """The build-check document arranged for the page: per-arch rows, kernel resource rows."""
    if not isinstance(bc, dict) or not isinstance(bc.get("compiles"), list):
        return None
    cls = bc.get("classification") or {}
    by_arch = cls.get("by_arch") or {}
    arches: list[dict[str, Any]] = []
    summary = bc.get("summary") or {}
    for vendor in ("amd", "nvidia"):
        for arch, row in (summary.get(vendor) or {}).items():
            c = by_arch.get(arch, {})
            units = [u for u in bc["compiles"] if u.get("arch") == arch]
            blocked = [u.get("file") for u in units if not u.get("ok")
                       and not any(e.get("arch") == arch and e.get("unit") == u.get("file") for e in cls.get("port_errors", []))]
            arches.append({"arch": arch, "vendor": vendor, "compiled": row.get("compiled", 0), "failed": row.get("failed", 0),
                           "port": c.get("port", 0), "environment": c.get("environment", 0) + c.get("consequence", 0),
                           "toolchain": c.get("toolchain", 0), "blocked": blocked, "units": len(units)})
    arch_names = [a["arch"] for a in arches]
    kernels = []
    for k in bc.get("kernels") or []:
        if not isinstance(k, dict):
            continue
        cells: dict[str, dict[str, Any] | None] = {}
        for arch in arch_names:
            res = (k.get("resources") or {}).get(arch)
            occ = (k.get("occupancy") or {}).get(arch)
            if not res:
                cells[arch] = None
                continue
            regs = res.get("vgprs") if res.get("vgprs") is not None else res.get("registers")
            spills = (res.get("spill_stores_bytes") or 0) + (res.get("spill_loads_bytes") or 0) + (res.get("vgpr_spills") or 0) + (res.get("sgpr_spills") or 0)
            cells[arch] = {"regs": regs, "reg_kind": "VGPR" if res.get("vgprs") is not None else "reg",
                           "shared": res.get("shared_bytes"), "spills": spills,
                           "occupancy": (occ or {}).get("occupancy"), "limiter": (occ or {}).get("limiter"),
                           "unit": (occ or {}).get("unit")}
        kernels.append({"kernel": k.get("kernel"), "file": k.get("file"), "line": k.get("line"),
                        "block_size": k.get("block_size"), "block_size_source": k.get("block_size_source"),
                        "cells": cells, "flags": list(k.get("flags") or [])})
    return {"arches": arches, "kernels": kernels, "arch_names": arch_names, "classification": cls,
            "toolchains": bc.get("toolchains") or {}}


def render_html(doc: dict[str, Any]) -> str:
    """The report page for one assessment document."""
    scan = doc.get("scan") or {}
    findings = scan.get("findings", [])
    by_file: dict[str, list[dict[str, Any]]] = {f["file"]: [] for f in scan.get("findings_by_file", [])}  # most first
    for f in findings:
        by_file.setdefault(f["file"], []).append(f)
    by_file = {k: v for k, v in by_file.items() if v}
    return _env().get_template("report.html.j2").render(doc=doc, by_file=by_file, bview=_build_view(doc.get("build_check")))
