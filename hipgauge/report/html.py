"""Render the assessment dict as one self-contained HTML file (inline CSS and SVG; no script, no network).

Jinja2 with autoescape on: every value from a trace or a source file is escaped by the template; the
charts (report/charts.py) escape their own text and come in as ``Markup``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from hipgauge.report import charts


def _pct(x: Any, digits: int = 1) -> str:
    return "—" if x is None else f"{100 * float(x):.{digits}f}%"


def _num(x: Any, digits: int = 2) -> str:
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, (int, float)):
        return f"{x:,.{digits}f}" if isinstance(x, float) else f"{x:,}"
    return str(x)


def _usd(x: Any) -> str:
    return "—" if x is None else f"{float(x):,.0f} USD"


def _value(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:,.4g}"
    if isinstance(x, list):
        return ", ".join(_value(v) for v in x) if all(not isinstance(v, list) for v in x) else str(x)
    return "—" if x is None else str(x)


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
    env.filters.update(pct=_pct, num=_num, usd=_usd, value=_value, short=charts.short_name)
    env.globals.update(parity_chart=charts.parity_chart, slack_chart=charts.slack_chart,
                       hours_chart=charts.hours_chart, lean_badge=charts.lean_badge,
                       scalar_columns=_scalar_columns)
    return env


def render_html(doc: dict[str, Any]) -> str:
    """The report page for one assessment document."""
    findings = (doc.get("scan") or {}).get("findings", [])
    by_file: dict[str, list[dict[str, Any]]] = {}
    for f in findings:
        by_file.setdefault(f["file"], []).append(f)
    bc = doc.get("build_check")
    bc_tables: list[tuple[str, list[dict[str, Any]]]] = []
    if isinstance(bc, dict):
        for key, value in bc.items():
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                bc_tables.append((key, value))
    return _env().get_template("report.html.j2").render(doc=doc, by_file=by_file, bc_tables=bc_tables)
