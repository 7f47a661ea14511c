"""``hipgauge rules`` lists the port-risk catalogue; ``hipgauge explain HGnnn`` prints one rule's docs."""

from __future__ import annotations

import typer

from hipgauge.cli.app import app, emit_json, out
from hipgauge.errors import InputError


def _rules():
    from hipgauge.rules.engine import all_rules

    return all_rules()


@app.command("rules")
def rules_command(
    category: str = typer.Option(None, "--category", "-c", help="only this category (warp, tensor-core, asm, occupancy, memory, library, build, api)"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """List the port-risk rules: code, severity, category, title, effort per finding."""
    from hipgauge.knowledge.provenance import provenance_of
    from hipgauge.rules.spec import CATEGORIES

    rules = _rules()
    if category is not None:
        if category not in CATEGORIES:
            raise InputError(f"unknown category {category!r}; choose one of {', '.join(CATEGORIES)}", "--category")
        rules = [r for r in rules if r.category == category]
    if json_out:
        emit_json({"schema": "hipgauge.rules/1", "effort_source": "estimated (rules.toml, per finding)",
                   "rules": [{"code": r.code, "severity": r.severity.value, "category": r.category,
                              "title": r.title, "message": r.message,
                              "effort_hours": {"low": r.effort_low, "high": r.effort_high, "midpoint": r.effort_hours}}
                             for r in rules],
                   # when and from what the catalogue's shared facts were read (each rule's own sources: explain)
                   "knowledge": [provenance_of("rules.toml").to_dict()]})
        return
    from rich.table import Table

    table = Table(title=f"hipgauge rules ({len(rules)})", show_lines=False)
    for col in ("code", "severity", "category", "title", "effort h (est.)"):
        table.add_column(col, no_wrap=col != "title")
    for r in rules:
        table.add_row(r.code, r.severity.value, r.category, r.title, f"{r.effort_low:g}–{r.effort_high:g}")
    out.print(table)


@app.command("explain")
def explain_command(
    code: str = typer.Argument(..., help="a rule code, e.g. HG101"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Explain one rule: what it flags, why it matters on AMD, an example, the fix, effort and sources."""
    from hipgauge.knowledge.provenance import provenance_of
    from hipgauge.rules.registry import by_code

    rule = by_code().get(code.strip().upper())
    if rule is None:
        raise InputError(f"unknown rule code {code!r} (see `hipgauge rules`)")
    catalogue = provenance_of("rules.toml")
    if json_out:
        emit_json({"schema": "hipgauge.rule/1", **rule.to_dict(), "knowledge": [catalogue.to_dict()]})
        return
    d = rule.doc
    what, why, example, use = (_unwrap(x) for x in (d.what, d.why, d.example, d.use_instead))
    sections = [
        f"{rule.code}: {rule.title}",
        f"severity: {rule.severity.value} · category: {rule.category} · "
        f"effort: {rule.effort_low:g}–{rule.effort_high:g} h per finding (estimated)",
        "", "What it does", what, "", "Why is this bad?", why, "", "Example", example,
        "", "Use instead", use, "", "Fix", rule.fix, "", "Sources",
        *[f"  - {s}" for s in rule.sources],
        "", f"Catalogue facts as of {catalogue.as_of or 'an undeclared date'} ({catalogue.name}).",
    ]
    out.print("\n".join(sections), markup=False, highlight=False, soft_wrap=True)


def _unwrap(section: str) -> str:
    """Join hard-wrapped prose lines into paragraphs; keep fenced code blocks as written."""
    out_lines: list[str] = []
    para: list[str] = []
    fenced = False
    for line in section.splitlines():
        if line.startswith("```"):
            if para:
                out_lines.append(" ".join(para))
                para = []
            fenced = not fenced
            out_lines.append(line)
        elif fenced:
            out_lines.append(line)
        elif not line.strip():
            if para:
                out_lines.append(" ".join(para))
                para = []
            out_lines.append("")
        else:
            para.append(line.strip())
    if para:
        out_lines.append(" ".join(para))
    return "\n".join(out_lines)
