"""SARIF 2.1.0 for GitHub code scanning: one run, hipgauge as the tool, rules with help, results with regions.

Levels: blocker and wrong-results → "error", slow → "warning", info → "note". ``precision`` follows
the finding's confidence. Locations are relative, '/'-separated URIs under ``%SRCROOT%``.
``partialFingerprints`` hash code + file + snippet so a finding keeps its identity when lines move.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePosixPath
from typing import Any, Iterable
from urllib.parse import quote

from hipgauge.model import Confidence, Finding, Severity
from hipgauge import __version__
from hipgauge.rules.engine import all_rules

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/hipgauge/hipgauge"
LEVEL = {Severity.BLOCKER: "error", Severity.WRONG_RESULTS: "error", Severity.SLOW: "warning", Severity.INFO: "note"}
PRECISION = {Confidence.HIGH: "high", Confidence.MEDIUM: "medium", Confidence.LOW: "low"}


def _rule_descriptor(rule: Any) -> dict[str, Any]:
    doc = rule.doc
    text = (f"{doc.what}\n\nWhy is this bad?\n{doc.why}\n\nFix: {rule.fix}\n"
            f"Effort: {rule.effort_low:g}-{rule.effort_high:g} h per finding (estimated).\n"
            f"Sources: {'; '.join(rule.sources)}")
    markdown = (f"**{rule.code}: {rule.title}**\n\n### What it does\n{doc.what}\n\n### Why is this bad?\n{doc.why}\n\n"
                f"### Example\n{doc.example}\n\n### Use instead\n{doc.use_instead}\n\n"
                f"**Fix:** {rule.fix}\n\n**Effort:** {rule.effort_low:g}-{rule.effort_high:g} h per finding (estimated)\n\n"
                "**Sources:**\n" + "\n".join(f"- {s}" for s in rule.sources))
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": text, "markdown": markdown},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {
            "tags": ["portability", "hip", rule.category, rule.severity.value],
            "precision": "high",
            "problem.severity": {"error": "error", "warning": "warning", "note": "recommendation"}[LEVEL[rule.severity]],
        },
    }


def _uri(path: str) -> str:
    p = path.replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    # a URI reference (RFC 3986): spaces, '<', '|', '`', '#', '%'… in file names are percent-encoded
    return quote(str(PurePosixPath(p.lstrip("/"))), safe="/") if p else "unknown"


def _fingerprint(f: Finding) -> str:
    key = f"{f.code}\0{_uri(f.file)}\0{f.kernel or ''}\0{' '.join(f.snippet.split())}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def sarif_document(findings: Iterable[Finding], rules: list[Any] | None = None) -> dict[str, Any]:
    findings = list(findings)
    rules = list(rules) if rules is not None else all_rules()
    known = {r.code for r in rules}
    used = sorted({f.code for f in findings})
    descriptors = rules
    missing = [c for c in used if c not in known]
    index = {r.code: i for i, r in enumerate(descriptors)}
    results = []
    for f in findings:
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": LEVEL[Severity(f.severity)],
            "message": {"text": f.message + (f" [in {f.kernel}]" if f.kernel else "")},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(f.file), "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": max(1, f.line), "startColumn": max(1, f.column or 1),
                           **({"snippet": {"text": f.snippet}} if f.snippet else {})},
            }}],
            "partialFingerprints": {"hipgaugeFinding/v1": _fingerprint(f)},
            "properties": {"severity": Severity(f.severity).value, "confidence": Confidence(f.confidence).value,
                           "category": f.category, "kernel": f.kernel, "effort_hours": f.effort_hours,
                           "effort_source": "estimated"},
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        results.append(result)
    driver: dict[str, Any] = {
        "name": "hipgauge",
        "informationUri": INFORMATION_URI,
        "version": __version__,
        "semanticVersion": __version__,
        "rules": [_rule_descriptor(r) for r in descriptors],
    }
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "results": results,
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the scanned source root"}}},
    }
    if missing:
        run["properties"] = {"unknown_rules": missing}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def write_sarif(findings: Iterable[Finding], path: Path | str, rules: list[Any] | None = None) -> None:
    Path(path).write_text(json.dumps(sarif_document(findings, rules), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
