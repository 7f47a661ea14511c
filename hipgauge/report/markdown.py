"""Render the assessment dict as Markdown (report.md).

Every value from a trace or a source file goes through ``md()`` (``&``, ``<``, ``>`` become entities; only
the characters that would start markup are backslash-escaped; newlines flattened); code excerpts go in a fence
longer than any backtick run inside them, so nothing in a kernel name or a source line can become markup.
"""

from __future__ import annotations

import re
from typing import Any

from hipgauge.report import counter_parity
from hipgauge.report import library_text as lt
from hipgauge.report.figures import ms_of_ns, num, pct, slack_sure_ratio, usd
from hipgauge.report.parity_text import signature_words

#: always special inline (CommonMark + GFM): escapes, code spans, emphasis, links/images, table cells, math
_MD_ALWAYS = re.compile(r"([\\`*\[\]|$])")
#: ``_`` starts or ends emphasis only at a word boundary (``my_kernel`` is plain text; ``__global__`` is not)
_MD_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
#: ``~~`` is GFM strikethrough
_MD_TILDES = re.compile(r"~(?=~)|(?<=~)~")
#: at the start of a line these open a heading, a list item or a quote (a marker followed by a blank or the end)
_MD_LINE_START = re.compile(r"^(?:(\d{1,9})([.)])|([#+\-])|(>))(?=\s|$)|^(>)")


def md(value: Any) -> str:
    """Escape one inline value for Markdown (table-cell safe), and only what Markdown needs: ``(``, ``+``,
    ``_`` inside a word and the like stay as they are, so report.md reads well as plain text too."""
    if value is None:
        return "—"
    text = str(value)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_ALWAYS.sub(r"\\\1", text)
    text = _MD_UNDERSCORE.sub(r"\\_", text)
    text = _MD_TILDES.sub(r"\\~", text)
    text = re.sub(r"[\r\n]+", " ", text)
    match = _MD_LINE_START.match(text)
    if match:
        digits = match.group(1)
        text = f"{digits}\\{text[len(digits):]}" if digits else "\\" + text  # "1\. x"; "\# x", "\- x", "\> x"
    return text


#: the fence language of a snippet, by the kind of file it comes from
_FENCE_LANG = {"cmake": "cmake", "make": "makefile", "python": "python", "setup.py": "python"}


def fence_lang(file: str) -> str:
    """``cmake`` for CMakeLists.txt/*.cmake, ``makefile``, ``python``; ``cuda`` for the rest (C/C++/CUDA)."""
    name = str(file).replace("\\", "/").rsplit("/", 1)[-1]
    lower = name.lower()
    if name == "CMakeLists.txt" or lower.endswith(".cmake"):
        return "cmake"
    if name in ("Makefile", "makefile", "GNUmakefile") or lower.endswith(".mk"):
        return "makefile"
    if lower.endswith(".py"):
        return "python"
    return "cuda"


def fence(code: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{code.rstrip()}\n{ticks}"


def _more(total: int, shown: int, what: str) -> list[str]:
    return [f"… and {total - shown} more {what}, all in assessment.json.", ""] if total > shown else []


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out + [""]


def _slack(slack: dict[str, Any], target_from: str) -> list[str]:
    p = slack.get("projection") or {}
    pctl = num(p.get("percentile"), 0)
    span = ""
    if p.get("interval_ms"):
        lo, hi = p["interval_ms"]
        span = f"interval {num(lo)}–{num(hi)} ms, {md(p.get('target_verdict') or '')}; "
    L = [f"Baseline P{pctl} {num(p.get('baseline_ms'))} ms ({md(p.get('source'))}; {p.get('iterations')} iterations; "
         f"{span}slack {num(p.get('slack_ms'))} ms), "
         f"target {num(p.get('target_ms'))} ms (assumed{': ' + md(target_from) if target_from else ''}). "
         f"{md(p.get('note') or '')}", "",
         f"Model (estimated): {md(slack['model'])}. Share and ms/iter: GPU kernel time per iteration (measured); "
         f"\"P{pctl} at r×\": the projected latency when only that group runs r× slower; ✓ / ✗: its whole interval "
         f"(the baseline's sampling and the what-if model's error; whatif[].interval_ms in assessment.json) meets / "
         f"misses the target, ?: the interval straddles it.", ""]
    ratios = [w["ratio"] for w in (slack["groups"][0]["whatif"] if slack["groups"] else [])]
    rows = []
    for g in slack["groups"]:
        cells = [md(g["name"]), pct(g["share"]), num(g["time_ms"], 3),
                 ("> 100×" if g["max_ratio"] > 100 else num(g["max_ratio"], 3) + "×") if g["max_ratio"] is not None
                 else "target missed"]
        for w in g["whatif"]:
            mark = " ?" if (w.get("target_verdict") or "").startswith("cannot tell") else {True: " ✓", False: " ✗", None: ""}[w["meets_target"]]
            cells.append(f"{num(w['projected_ms'])} ms{mark}")
        rows.append(cells)
    return L + _table(["group", "share", "ms/iter", "may be at most", *[f"P{pctl} at {r:g}×" for r in ratios]], rows)


def _history(hist: dict[str, Any]) -> list[str]:
    L = ["## History across toolchain releases", "",
         f"{hist['assessments']} stored assessment(s) of project {md(hist.get('project'))} in {md(hist['store'])}"
         + (f"; this report is #{hist['current_assessment_id']}" if hist.get("current_assessment_id") else "")
         + ". Ratio: candidate ÷ baseline time of the kernel in each stored assessment (measured).", ""]
    if not hist.get("kernels"):
        return L + ["No per-kernel parity stored yet.", ""]
    rows = []
    for k in hist["kernels"]:
        prev = None
        for p in k["points"]:
            change = "first point" if prev is None else ("; ".join(p.get("changes") or []) or "no toolchain change")
            rows.append([md(k["label"]), f"#{p.get('assessment_id')}", md(str(p.get("recorded_at") or "")[:19]),
                         md((p.get("commit") or "")[:10]), num(p.get("ratio"), 3),
                         num(p.get("step"), 3) + "×" if p.get("step") else "—", md(change)])
            prev = p
    L += _table(["kernel", "assessment", "recorded", "commit", "ratio", "step", "toolchain change"], rows)
    return L + _more(hist.get("kernels_total", 0), len(hist["kernels"]), "kernels (hipgauge history)")


def _dual_toolchain(dt: dict[str, Any], up: dict[str, Any]) -> list[str]:
    """The report's "dual-toolchain upkeep" section (scan's dual-target inventory as the cost model uses it)."""
    L = ["### Dual-toolchain upkeep", ""]
    if not dt or not dt.get("dual_target"):
        L += ["The tree does not build for both vendors today (no vendor switch, shim or vendor branch found): the "
              "upkeep below is the validation of two toolchains plus the kernels that will need a tuned variant.", ""]
    else:
        L += [f"The tree already builds for both vendors: switches {md(', '.join(dt['switches']) or '—')}; shims "
              f"{md(', '.join(dt['shims']) or '—')}; {dt['hip_only_lines']} lines only the HIP build compiles and "
              f"{dt['cuda_only_lines']} only the CUDA build compiles (measured). Findings inside them: "
              f"{dt['findings_dropped']} dropped (HIP-only code is the port), {dt['findings_noted']} kept as zero-hour "
              "CUDA-only branch notes.", ""]
        two = dt.get("kernels_with_two_variants") or []
        L += [f"Kernels kept in two vendor variants: {len(two)}" + (f" ({md(', '.join(two))})" if two else "")
              + f" → {num(dt['variant_hours_per_year'], 0)} h/year ({md(dt['basis'])}, estimated).", ""]
    L += [f"Yearly upkeep in all: {up['hours_per_year']:,.0f} h = {up['validation_hours']:,.0f} h validation + "
          f"{up['dual_variant_hours']:,.0f} h for {len(up['dual_variant_kernels'])} kernel(s) in two variants "
          "(estimated).", ""]
    return L


def render_markdown(doc: dict[str, Any]) -> str:
    h = doc["headline"]
    L: list[str] = [f"# hipgauge assessment: {md(doc['inputs'].get('source') or '')}", ""]
    L.append(f"Generated {md(doc['generated_at'])} by hipgauge {md(doc['tool']['version'])}. "
             f"Baseline: {md(doc['inputs'].get('baseline'))}. Candidate: {md(doc['inputs'].get('candidate'))}.")
    if (h.get("amd") or {}).get("sentence"):
        L += ["", f"**{md(h['amd']['sentence'])}.**"]
    if h.get("caveat"):
        L += ["", f"> **Caveat: {md(h['caveat'])}.**"]
    L += ["", "## The three measurements and the fourth number", ""]
    hp = h["parity"]
    if hp["kind"] == "compare":
        parity = (f"projected P{num(hp.get('percentile'), 0)} {num(hp['projected_ms'])} ms vs target "
                  f"{num(hp['target_ms'])} ms (baseline {num(hp['baseline_ms'])} ms); "
                  f"{hp.get('slower_than_threshold')} rows slower than the threshold")
    elif hp["kind"] == "project":
        parity = f"baseline P{num(hp.get('percentile'), 0)} {num(hp['baseline_ms'])} ms vs target {num(hp['target_ms'])} ms"
        if hp.get("tightest_group"):
            parity += (f"; tightest group {md(hp['tightest_group']['name'])} may be at most "
                       f"{num(hp['tightest_group']['max_ratio'], 2)}× slower"
                       + slack_sure_ratio(hp["tightest_group"]))
    else:
        parity = "not measured (no profile given)"
    hh, hn = h["hours_to_close"], h["lockin_minus_upkeep"]
    hours = "—" if hh["low"] is None else f"{hh['low']:,.0f}–{hh['high']:,.0f} h"
    L += _table(["measure", "value", "source"], [
        ["1 · translation share", pct(h["translation_share"]["value"]), h["translation_share"]["source"]],
        ["2 · per-kernel parity", parity, md(hp["source"])],
        ["3 · hours to close the gap", hours + ("" if doc.get("parity") else
                                                 " (kernel tuning not included: no candidate measured)")
         + (f"; build check: {md(hh['build_check_coverage'])}" if hh.get("build_check_coverage") else ""),
         hh["source"]],
        ["4 · lock-in value − upkeep", (f"{usd(hn['value'])}" if hn.get("lockin_known", True) else
                                         f"unknown − {usd(hn['upkeep_usd_per_year'])} upkeep")
         + f"/year; {md(hn.get('break_even') or '')}", hn["source"]],
    ])
    dec = doc.get("decision")
    if dec:
        L += [f"**Triage:** {md(dec['triage']['summary'])}. **Measurement:** {md(dec['triage']['measurement'])}.", "",
              f"> {md(dec['triage']['statement'])}", ""]

    parity_d = doc.get("parity")
    L += ["## Per-kernel parity", ""]
    if parity_d and parity_d.get("outliers"):
        L += [("**Outliers first** — the operator calls (operator, input dims, dtypes) costing the most candidate time "
               "over what the rest of the workload's ratio predicts (measured; hints are suggestions to measure):"), ""]
        L += [f"- {md(o['text'])}" for o in parity_d["outliers"]] + [""]
    if parity_d:
        rows = [[md(r["label"]) + (f" · {md(signature_words(r))}" if signature_words(r) else ""), md(r["match"]),
                 pct(r["share"]), ms_of_ns(r["baseline_ns"]), ms_of_ns(r["candidate_ns"]),
                 (("**" + num(r["ratio"], 3) + "**") if r["ratio"] and r["ratio"] > parity_d["threshold"] else num(r["ratio"], 3))
                 + (" !" if r.get("flags") else "")]
                for r in parity_d["rows"][:100]]
        head = ["kernel / operator", "match", "share", "baseline ms", "candidate ms", "ratio"]
        if counter_parity.has_counters(parity_d["rows"]):  # the trio: occupancy and DRAM beside the ratio
            head += ["achieved occupancy", "DRAM % of peak"]
            for row, r in zip(rows, parity_d["rows"][:100]):
                row += [md(counter_parity.occupancy_cell(r.get("counters"))), md(counter_parity.dram_cell(r.get("counters")))]
        L += _table(head, rows)
        L += _more(len(parity_d["rows"]), 100, "rows")
        if any(r.get("flags") for r in parity_d["rows"][:100]):
            L += [("! the ratio is not like for like (mixed signatures, different call counts, or an extreme ratio with "
                   "lopsided kernel counts): see the warnings."), ""]
        L += _hot_kernels(parity_d)
        L += _library_section(parity_d.get("libraries"))
        pr = parity_d.get("projection")
        if pr:
            verdict = {True: "meets the target", False: "misses the target", None: "no target"}[pr["meets_target"]]
            if pr.get("target_verdict") not in (None, "meets", "misses"):
                verdict = pr["target_verdict"]
            span = (f", interval {num(pr['interval_ms'][0])}–{num(pr['interval_ms'][1])} ms"
                    if pr.get("interval_ms") else "")
            L += [f"End-to-end P{num(pr['percentile'], 0)}: {num(pr['baseline_ms'])} ms → {num(pr['projected_ms'])} ms "
                  f"(target {num(pr['target_ms'])} ms{span}): **{md(verdict)}** ({md(pr['source'])}). "
                  f"{md(pr.get('note') or '')}", ""]
        ops = parity_d.get("operators") or []
        if ops:
            L += ["### Per operator", "", "All kernel time each framework operator launched, independent of kernel matching "
                  f"(measured; ms {md(parity_d['time_basis'])}).", ""]
            L += _table(["operator", "group", "share", "baseline ms", "candidate ms", "kernels (base / cand)", "ratio"],
                        [[md(o.get("label") or o["operator"]), md(o.get("group") or ""), pct(o["share"]),
                          ms_of_ns(o["baseline_ns"]) if o.get("baseline_count") else "not on this side",
                          ms_of_ns(o["candidate_ns"]) if o.get("candidate_count") else "not on this side",
                          f"{num(o.get('baseline_count'))} / {num(o.get('candidate_count'))}",
                          num(o["ratio"], 3) if o.get("ratio") and o.get("candidate_count") else "—"] for o in ops[:30]])
            L += _more(len(ops), 30, "operators")
        L += ["### Unmatched work (never dropped)", ""]
        for side, key in (("baseline only", "unmatched_baseline"), ("candidate only", "unmatched_candidate")):
            items = parity_d[key]
            L += [f"{side.capitalize()} ({len(items)}):", ""]
            L += [f"- {md(u['label'])}" + (f" · {ms_of_ns(u['ns'])} ms" if u.get("ns") is not None else "")
                  + (f" · {pct(u['share'])} of its side" if u.get("share") is not None else "") for u in items[:25]] or ["- none"]
            L += [""] + _more(len(items), 25, "kernels")
    else:
        L += ["No candidate profile: the per-kernel delta is not measured.", ""]
        L += library_priors_section((doc.get("slack") or {}).get("library_priors"))

    slack = doc.get("slack")
    L += ["## Slack per kernel group", ""]
    if slack:
        L += _slack(slack, doc["inputs"].get("target_from") or "")
    else:
        L += ["No baseline profile with a latency target.", ""]

    hist = doc.get("history")
    if hist:
        L += _history(hist)

    for w in doc.get("workloads") or []:
        L += [f"## Other workload: {md(w['name'])}", "", "Separate from the code base above. "
              f"Profile: {md(w['profile'])}" + (f"; latency: {md(w['latency_csv'])}" if w.get("latency_csv") else "") + ".", ""]
        for n in w.get("notes") or []:
            L += [f"> {md(n)}", ""]
        L += _slack(w["slack"], w.get("target_from") or "") if w.get("slack") else ["Not projected.", ""]

    L += ["## Rubric (triage)", ""]
    if dec:
        L += [f"Kernel evidence weighted by {md(dec['weighting'])}.", ""]
        rows = [[md(s["title"]), s["lean"], s["source"], md(s["summary"]) + (" — " + "; ".join(md(e) for e in s["evidence"][:8])
                                                               + (f"; … {len(s['evidence']) - 8} more" if len(s["evidence"]) > 8
                                                                  else "") if s["evidence"] else "")]
                for s in dec["signals"]]
        L += _table(["signal", "lean", "source", "evidence"], rows)

    scan = doc.get("scan")
    L += ["## Findings", ""]
    if scan:
        s = scan["summary"]
        L += [f"{s['files']} files, {s['lines']} lines, {s['kernels']} kernels, {s['findings']} findings.", ""]
        L += _table(["category", "findings", "by severity"],
                    [[md(c["category"]), str(c["count"]), md(", ".join(f"{k} {v}" for k, v in c["by_severity"].items()))]
                     for c in scan["findings_by_category"]])
        if scan.get("findings_by_code"):
            L += _table(["rule", "severity", "findings"],
                        [[md(c["code"]), md(c["severity"]), str(c["count"])
                          + (f" ({c['notes']} zero-hour notes)" if c.get("notes") else "")]
                         for c in scan["findings_by_code"]])
        L += _table(["file", "findings"], [[md(f["file"]), str(f["count"])] for f in scan["findings_by_file"]])
        listed = scan["findings"][:300]
        total = s["findings"]
        if len(listed) < total:
            L += [f"Listed below: the {len(listed)} most severe of the {total} findings ({total - len(listed)} left out: "
                  "all of them are in findings.sarif; the tables above count all).", ""]
        for f in listed:
            L.append(f"- **{md(f['code'])}** {md(f['severity'])} {md(f['file'])}:{f['line']}"
                     + f" — {md(f['message'])}" + (f" Fix: {md(f['fix'])}" if f.get("fix") else ""))
            if f.get("snippet"):
                L += ["", fence(f["snippet"], fence_lang(f["file"])), ""]
        L.append("")

    L += ["## Build check", ""]
    bc = doc.get("build_check")
    if not bc:
        L += ["Not run.", ""]
    elif not isinstance(bc.get("compiles"), list):
        L += [f"{md(bc.get('status', 'not run'))}{': ' + md(bc.get('reason')) if bc.get('reason') else ''}", ""]
    else:
        tools = ", ".join(f"{md(t.get('name') or n)} {md(t.get('version'))}" for n, t in (bc.get("toolchains") or {}).items()
                          if isinstance(t, dict))
        targets = ", ".join(md(a) for a in [*(bc.get("amd_arch") or []), *(bc.get("nvidia_arch") or [])]) or "none"
        L += [f"Compiled on this machine (measured) with {tools or 'no compiler'}; targets checked: {targets}."
              + (f" {md(bc['cache'])}." if bc.get("cache") else ""), ""]
        cls = bc.get("classification") or {}
        if cls:
            env = cls["diagnostics"]["environment"] + cls["diagnostics"]["consequence"]
            L += [("**Environment gap, not a port defect:** " if env else "") + md(cls["summary"])
                  + (" Not counted in the cost or the rubric." if env else ""), ""]
            summary = bc.get("summary") or {}
            rows = []
            for vendor in ("amd", "nvidia"):
                for arch, r in (summary.get(vendor) or {}).items():
                    c = (cls.get("by_arch") or {}).get(arch, {})
                    rows.append([md(arch), vendor, f"{r.get('compiled', 0)} of {r.get('compiled', 0) + r.get('failed', 0)}",
                                 str(c.get("port", 0)), str(c.get("environment", 0) + c.get("consequence", 0))])
            L += _table(["target", "vendor", "units compiled", "port errors", "errors from missing library headers"], rows)
            if cls.get("missing_headers"):
                L += ["Library headers not installed here:", ""] + _table(
                    ["header", "library", "target", "translation units"],
                    [[md(m["header"]), md(m["library"]), md(m["arch"]), md(", ".join(str(u) for u in m["units"]))]
                     for m in cls["missing_headers"]])
            if cls.get("port_errors"):
                L += ["Port errors:", ""] + _table(
                    ["where", "target", "message", "rule"],
                    [[md(f"{e['file']}:{e['line']}"), md(e["arch"]), md(e["message"]), md(", ".join(e["rule_codes"]) or "—")]
                     for e in cls["port_errors"][:50]]) + _more(len(cls["port_errors"]), 50, "port errors")

    cost = doc.get("cost")
    L += ["## Cost", ""]
    if cost:
        up = cost["upkeep"]
        L += [f"One-time: **{cost['low_hours']:,.0f}–{cost['high_hours']:,.0f} hours** ({usd(cost['one_time_low_usd'])} – "
              f"{usd(cost['one_time_high_usd'])}), estimated. Yearly upkeep {up['hours_per_year']:,.0f} h "
              f"({usd(up['usd_per_year'])}); avoided lock-in {usd(cost['lockin_usd_per_year'])}/year. "
              f"Break-even: {md(cost['break_even'])}.", ""]
        L += [f"Note: {md(n)}" for n in cost["notes"]] + [""]
        L += _table(["category", "items", "low h", "high h"],
                    [[md(c["category"]), str(c["count"]), num(c["low_hours"], 1), num(c["high_hours"], 1)] for c in cost["by_category"]])
        if cost.get("drivers"):
            L += ["### Top cost drivers", "",
                  "Each item is one distinct piece of work (a rule's construct in one kernel, a generated family, a "
                  "library kernel family), however many lines repeat it; the basis column is the arithmetic.", ""]
            L += _table(["item", "occurrences", "low h", "high h", "where", "basis"],
                        [[md(d["label"]), str(d["count"]), num(d["low_hours"], 1), num(d["high_hours"], 1),
                          md(d.get("where") or ""), md(d["basis"])] for d in cost["drivers"]])
        L += _dual_toolchain(cost.get("dual_toolchain") or {}, up)
        L += ["### Parameters", ""] + _table(["parameter", "value", "source", "from"],
                                              [[md(p["name"]), md(p["value"]), p["source"], md(p["origin"])] for p in cost["parameters"]])

    L += ["## Stages", ""] + _table(["stage", "status", "detail"],
                                     [[md(s["name"]), md(s["status"]), md(s.get("reason") or "")] for s in doc["stages"]])
    L += ["## Provenance", ""] + _table(["figure", "value", "source", "from"],
                                         [[md(p["figure"]), md(p["value"]), md(p["source"]), md(p["from"])] for p in doc["provenance"]])
    L += _knowledge(doc.get("knowledge") or [])
    return "\n".join(L) + "\n"


def _library_section(section: dict[str, Any] | None) -> list[str]:
    """The library fast path: which library, family and tile served each hot library row on each side, and the
    diagnosis with advice (outliers first, marked ◆)."""
    if not section:
        return []
    L = ["### Library fast path", "", md(lt.basis_line(section)) + ".", "", md(lt.coverage_line(section)) + ".", ""]
    rows = lt.row_lines(section)
    if rows:
        L += _table(["row (◆ outlier)", "ratio", "baseline", "candidate"],
                    [[md(label), md(ratio), md(base), md(cand)] for label, ratio, base, cand in rows])
        if lt.more_rows_line(section):
            L += [md(lt.more_rows_line(section)), ""]
    advice = lt.advice_lines(section)
    if advice:
        L += ["Diagnosis and advice (measured → advised; the advice is a suggestion to measure):", ""]
        L += [f"- {md(line)}" for line in advice] + [""]
    return L


def library_priors_section(priors: dict[str, Any] | None) -> list[str]:
    """Before any AMD profile: the library-backed hot operators of the baseline with their priors (not measured)."""
    if not priors or not priors.get("rows"):
        return []
    L = ["### Library fast path (prior, not measured)", "", md(priors.get("basis") or "") + ".", ""]
    L += [f"- {md(line)}" for line in lt.prior_lines(priors)] + [""]
    return L


def _hot_kernels(parity_d: dict[str, Any]) -> list[str]:
    """The trio per hot kernel: time ratio, achieved occupancy and DRAM throughput, baseline → candidate."""
    hot = parity_d.get("hot_kernels") or []
    notes = parity_d.get("counter_notes") or []
    if not hot and not notes:
        return []
    L = ["### Hot kernels: time, occupancy, memory throughput", "",
         ("Baseline → candidate. Occupancy: achieved (hardware counters), with build-check's theoretical figure when "
          "it ran; DRAM: % of the part's peak bandwidth."), ""]
    if hot:
        L += _table(["kernel", "share", "ratio", "achieved occupancy", "DRAM % of peak", "DRAM GB/s", "L2 hit",
                     "diagnosis"],
                    [[md(h["label"]), pct(h["share"]), num(h["ratio"], 3), md(h["occupancy"]), md(h["dram_pct"]),
                      md(h["dram_gbps"]), md(h["l2_hit"]), md(h["diagnosis"] or "")] for h in hot])
    L += [f"- {md(n)}" for n in notes] + ([""] if notes else [])
    return L


def _knowledge(tables: list[dict[str, Any]]) -> list[str]:
    """The bundled data tables (mappings, rules, arch limits, cost model…) with the date and sources of their facts."""
    if not tables:
        return []
    return ["## Knowledge used", "", "The data tables bundled with this hipgauge, with the date their facts were read "
            "and their public sources.", ""] + _table(
        ["table", "as of", "sources"],
        [[md(t["name"]), md(t.get("as_of") or "not stated"), "<br>".join(_source(s) for s in t.get("sources") or []) or "—"]
         for t in tables])


def _source(text: str) -> str:
    """``https://… (note)`` → an autolink, then the note as text."""
    url, _, note = text.partition(" ")
    return f"<{url}>" + (f" {md(note)}" if note else "")
