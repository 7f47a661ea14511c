"""Per-signature parity details of a comparison: which calls a row holds, whether its ratio is like for
like (the mis-pair guard), and the outliers a performance engineer should read first.

An *outlier* is an operator call signature (operator, input dims, input types) whose candidate time
exceeds what the rest of the workload predicts by the most: ``excess = candidate − baseline × R``, ``R``
the matched candidate ÷ baseline kernel time of every *other* signature (leave one out, so that a call
holding most of the time is still measured against the rest; parity when there is no rest). Rows are grouped per signature (per operator and
shape, not per kernel name); a row with no signature (a profile recorded without shapes) stands alone.

Knows nothing of file formats: it reads the kernel tables' ``operator_signature`` / ``operator_id``
columns and the ``ParityRow`` list.
"""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from hipgauge.datafiles import load_data_toml
from hipgauge.model import ParityRow
from hipgauge.profiles.grouping import classify
from hipgauge.profiles.signatures import decode, describe, encode

#: a row is only an outlier when its candidate time over expectation is at least this share of the candidate's time
MIN_EXCESS_SHARE = 0.01
#: and its ratio exceeds the overall ratio by this factor
MIN_RATIO_OVER_OVERALL = 1.25
#: the mis-pair guard: a ratio beyond these bounds with kernel counts this lopsided is no like-for-like ratio
EXTREME_RATIO = 8.0
LOPSIDED_COUNTS = 3.0
TOP_OUTLIERS = 5


def signature_lists(idx: list[int], sigs: list[str | None], op_ids: list[Any], durs: list[int],
                    div: int) -> tuple[list[dict[str, Any]], int | None]:
    """Per launching-call signature of the kernels ``idx``: operator, input dims and types, concrete
    inputs, calls and kernels per iteration (÷ ``div``) and time; and the row's calls per iteration
    (None when the profile does not identify calls)."""
    by: dict[str | None, dict[str, Any]] = {}
    calls_known = True
    all_calls: set[Any] = set()
    for i in idx:
        s = sigs[i]
        e = by.setdefault(s, {"ns": 0, "kernels": 0, "calls": set()})
        e["ns"] += durs[i]
        e["kernels"] += 1
        if op_ids[i] is None:
            calls_known = False
        else:
            e["calls"].add(op_ids[i])
            all_calls.add(op_ids[i])
    out = []
    for s, e in by.items():
        sig = decode(s)
        d: dict[str, Any] = sig.to_dict() if sig else {"operator": None, "input_dims": None, "input_types": None,
                                                       "concrete_inputs": None}
        d.update(signature=describe(s) if s else None, calls=(len(e["calls"]) / div) if calls_known else None,
                 kernels=e["kernels"] / div, ns=round(e["ns"] / div))
        out.append(d)
    out.sort(key=lambda d: (-d["ns"], d["signature"] or ""))
    return out, (round(len(all_calls) / div) if calls_known and idx else None)


def guard(row: ParityRow) -> list[str]:
    """Why a row's ratio is not a like-for-like ratio (empty when it is)."""
    flags: list[str] = []
    if row.mixed_signatures > 1:
        flags.append(f"mixed signatures: the row merges calls of {row.mixed_signatures} different signatures")
    bsig = {d["signature"]: d for d in row.baseline_signatures if d.get("signature")}
    csig = {d["signature"]: d for d in row.candidate_signatures if d.get("signature")}
    if row.signature_scope == "operator" and row.signature_match == "full" and bsig and csig:
        for s in sorted(set(bsig) | set(csig)):
            bc = bsig.get(s, {}).get("calls")
            cc = csig.get(s, {}).get("calls")
            if bc is not None and cc is not None and abs(bc - cc) > 1e-9:
                flags.append(f"call counts differ for {s}: {bc:g} baseline vs {cc:g} candidate per iteration")
    elif (row.signature_scope in (None, "operator") and row.baseline_calls is not None
          and row.candidate_calls is not None and row.baseline_calls != row.candidate_calls):
        flags.append(f"call counts differ: {row.baseline_calls} baseline vs {row.candidate_calls} candidate")
    r = row.ratio
    bk, ck = row.baseline_count, row.candidate_count
    if r is not None and (r >= EXTREME_RATIO or r <= 1 / EXTREME_RATIO) and bk and ck:
        lop = max(bk, ck) / min(bk, ck)
        if lop >= LOPSIDED_COUNTS:
            flags.append(f"extreme ratio {r:.2f}× with lopsided kernel counts ({bk} baseline vs {ck} candidate): "
                         "likely different work paired")
    return flags


@dataclass
class Outlier:
    signature: str  # described: "aten::bmm [12,577,64]×[12,64,577] bf16"
    operator: str | None
    input_dims: list[Any] | None
    input_types: list[str] | None
    baseline_ns: float
    candidate_ns: float
    excess_ns: float  # candidate time over baseline × the rest's ratio
    expected_ratio: float  # the rest of the workload's candidate ÷ baseline ratio
    candidate_share: float  # of the candidate's analysed kernel time
    group: str
    calls: int | None
    baseline_kernels: list[str] = field(default_factory=list)
    candidate_kernels: list[str] = field(default_factory=list)
    flagged: bool = False
    hint: str = ""
    text: str = ""

    @property
    def ratio(self) -> float | None:
        return None if self.baseline_ns <= 0 else self.candidate_ns / self.baseline_ns

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["ratio"] = self.ratio
        return d


@lru_cache(maxsize=1)
def _hints() -> list[dict[str, str]]:
    return [dict(h) for h in load_data_toml("outlier_hints.toml").get("hint", [])]


def hint_for(group: str, vendor: str) -> str:
    for h in _hints():
        if fnmatch.fnmatchcase(group, h.get("group", "*")) and fnmatch.fnmatchcase(vendor, h.get("vendor", "*")):
            return h.get("text", "")
    return ""


def _times(r: float) -> str:
    if 0.995 <= r < 1.005:
        return "at parity (1.00×)"
    if r >= 1:
        return f"{r:.2f}× slower" if r < 2 else f"{r:.1f}× slower" if r < 10 else f"{r:.0f}× slower"
    return f"{1 / r:.2f}× faster"


def find_outliers(rows: list[ParityRow], candidate_total_ns: float, candidate_label: str, candidate_vendor: str,
                  top: int = TOP_OUTLIERS) -> tuple[list[Outlier], float | None]:
    """The signatures costing the most candidate time over the overall ratio, worst first; and that ratio."""
    mb = sum(r.baseline_ns for r in rows)
    mc = sum(r.candidate_ns for r in rows)
    if mb <= 0 or candidate_total_ns <= 0:
        return [], None
    overall = mc / mb
    agg: dict[Any, dict[str, Any]] = defaultdict(lambda: {"b": 0.0, "c": 0.0, "rows": []})
    for r in rows:
        if r.mixed_signatures > 1:
            key: Any = ("row", id(r))
        elif r.signature:
            key = ("sig", describe_dict(r.signature))
        else:
            key = ("row", id(r))
        a = agg[key]
        a["b"] += r.baseline_ns
        a["c"] += r.candidate_ns
        a["rows"].append(r)
    out: list[Outlier] = []
    for key, a in agg.items():
        b, c = a["b"], a["c"]
        rest = (mc - c) / (mb - b) if mb - b > 0 and mc - c > 0 else 1.0
        excess = c - b * rest
        if b <= 0 or excess < MIN_EXCESS_SHARE * candidate_total_ns or c / b < rest * MIN_RATIO_OVER_OVERALL:
            continue
        first: ParityRow = max(a["rows"], key=lambda r: r.candidate_ns)
        sig = first.signature if key[0] == "sig" else None
        label = key[1] if key[0] == "sig" else first.label
        if first.signature_match == "dims" and first.baseline_signatures and first.candidate_signatures:
            # paired on operator and dims: say which dtypes each side ran
            bt = first.baseline_signatures[0].get("signature") or label
            ct = (first.candidate_signatures[0].get("signature") or "").split(" ")[-1]
            label = f"{bt} → {ct}" if ct else bt
        bnames = [n for r in a["rows"] for n in r.baseline_names]
        cnames = [n for r in a["rows"] for n in r.candidate_names]
        group = classify(cnames[0] if cnames else (bnames[0] if bnames else ""), first.operator)
        o = Outlier(signature=label, operator=(sig or {}).get("operator") or first.operator,
                    input_dims=(sig or {}).get("input_dims"), input_types=(sig or {}).get("input_types"),
                    baseline_ns=b, candidate_ns=c, excess_ns=excess, expected_ratio=rest,
                    candidate_share=c / candidate_total_ns,
                    group=group, calls=first.candidate_calls, baseline_kernels=bnames[:3], candidate_kernels=cnames[:3],
                    flagged=any(r.flags for r in a["rows"]), hint=hint_for(group, candidate_vendor))
        ratio = o.ratio or 0.0
        o.text = (f"{label}: {_times(ratio)} on {candidate_label} ({100 * o.candidate_share:.1f}% of its kernel time, "
                  f"+{excess / 1e6:.3f} ms over the rest of the workload's {rest:.2f}×)"
                  + (" [ratio flagged: see warnings]" if o.flagged else "") + (f" — {o.hint}" if o.hint else ""))
        out.append(o)
    out.sort(key=lambda o: (-o.excess_ns, o.signature))
    return out[:top], overall


def describe_dict(sig: dict[str, Any]) -> str:
    """``describe`` for a signature given as ``Signature.to_dict()``."""
    return describe(encode(sig.get("operator") or "", sig.get("input_dims") or [], sig.get("input_types") or [],
                           sig.get("concrete_inputs") or []))
