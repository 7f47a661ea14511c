"""SARIF 2.1.0 for GitHub code scanning: one run, hipgauge as the tool, rules with help, results with regions.

Levels: blocker and wrong-results → "error", slow → "warning", info → "note". ``precision`` follows
the finding's confidence. Locations are relative, '/'-separated URIs under ``%SRCROOT%``.
``partialFingerprints`` hash code + file + snippet so a finding keeps its identity when lines move.

Caps (GitHub code scanning takes at most 25,000 results per run and shows the first 5,000 by severity):
at most ``MAX_PER_RULE_FILE`` results of one rule in one file, ``MAX_PER_RULE`` of one rule and
``MAX_RESULTS`` in all, kept in severity then file/line order. What was left out is stated in the run's
``properties.truncated`` and in a warning notification of its invocation, and ``write_sarif`` returns the
same sentence for the command to print as a warning.
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
MAX_RESULTS = 25_000  # GitHub code scanning: results per run
MAX_PER_RULE = 5_000  # the results GitHub shows per run; one noisy rule must not hide the others
MAX_PER_RULE_FILE = 500  # one generated file must not fill a rule's share
_SEVERITY_ORDER = {Severity.BLOCKER: 0, Severity.WRONG_RESULTS: 1, Severity.SLOW: 2, Severity.INFO: 3}


def cap_findings(findings: list[Finding], max_results: int = MAX_RESULTS, per_rule: int = MAX_PER_RULE,
                 per_rule_file: int = MAX_PER_RULE_FILE) -> tuple[list[Finding], dict[str, Any] | None]:
    """(the findings kept, in their order; the summary of what was left out, or None when nothing was)."""
    order = sorted(range(len(findings)), key=lambda i: (_SEVERITY_ORDER.get(Severity(findings[i].severity), 9),
                                                        findings[i].file, findings[i].line, i))
    by_rule: dict[str, int] = {}
    by_rule_file: dict[tuple[str, str], int] = {}
    keep: set[int] = set()
    dropped: dict[str, int] = {}
    for i in order:
        f = findings[i]
        if len(keep) >= max_results or by_rule.get(f.code, 0) >= per_rule or \
                by_rule_file.get((f.code, f.file), 0) >= per_rule_file:
            dropped[f.code] = dropped.get(f.code, 0) + 1
            continue
        keep.add(i)
        by_rule[f.code] = by_rule.get(f.code, 0) + 1
        by_rule_file[(f.code, f.file)] = by_rule_file.get((f.code, f.file), 0) + 1
    if not dropped:
        return findings, None
    total = len(findings)
    worst = ", ".join(f"{code} {n}" for code, n in sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0]))[:5])
    summary = {
        "kept": len(keep), "total": total, "left_out_by_rule": dict(sorted(dropped.items())),
        "limits": {"results": max_results, "per_rule": per_rule, "per_rule_and_file": per_rule_file},
        "text": (f"SARIF capped: {len(keep)} of {total} findings written (at most {per_rule_file} per rule and file, "
                 f"{per_rule} per rule, {max_results} in all, for GitHub code scanning); left out: {worst}; "
                 "hipgauge scan --json lists them all"),
    }
    return [findings[i] for i in sorted(keep)], summary


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
    findings, truncated = cap_findings(list(findings))
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
    if truncated is not None:
        run.setdefault("properties", {})["truncated"] = {k: v for k, v in truncated.items() if k != "text"}
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [
            {"level": "warning", "message": {"text": truncated["text"]}}]}]
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def write_sarif(findings: Iterable[Finding], path: Path | str, rules: list[Any] | None = None) -> str | None:
    """Write the SARIF file; returns the one-line note when findings were capped (else None)."""
    doc = sarif_document(findings, rules)
    Path(path).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    notes = [n["message"]["text"] for inv in doc["runs"][0].get("invocations", [])
             for n in inv.get("toolExecutionNotifications", [])]
    return notes[0] if notes else None
