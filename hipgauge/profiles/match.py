"""Match kernels of two profiles of the same workload, across vendors, in labelled levels.

Library kernels never keep their names across vendors (cuDNN ``sm90_xmma_fprop_*`` vs MIOpen
``igemm_*``, cuBLAS/cutlass vs hipBLASLt ``Cijk_*``, ``flash_fwd_kernel`` vs ``attn_fwd``), while
the operators that launched them do. So kernels are paired level by level, each level taking only
what the levels before it left:

1. ``exact``: same demangled name, first within the same operator call (same signature, same order
   within the iteration), then anywhere within the same signature;
2. ``normalized``: same normalized key (return type, argument list, ``[clone .kd]``, template noise
   stripped by the reader; dtypes and functors kept), the same way;
3. ``user-map``: a ``--map`` TOML file of glob → glob rules (first rule first);
4. ``operator``: the kernels still unmatched are aggregated per operator *instance* (the cpu_op that
   launched them, or the enclosing NVTX/roctx range when there is no operator), and instances are
   paired by operator name and occurrence order (the i-th ``aten::addmm`` of an iteration with the
   i-th of every iteration on the other side; the i-th overall when iterations are unknown). Instances
   left without a partner fall back to their parent operator (``aten::linear`` when one side calls
   ``aten::addmm`` and the other ``aten::mm``), then to all calls of the same name together, then
   to calls whose operators fall in the same group (``aten::cudnn_convolution`` with
   ``aten::miopen_convolution``: both convolution, see ``kernel_groups.toml``) by occurrence order;
5. ``unmatched``: whatever is left, on either side, is listed; never dropped.

The frames are ``KERNEL_RECORD_SCHEMA`` tables. Optional columns improve matching when a reader
provides them: ``operator_id`` (Int64, one id per operator call, e.g. Kineto's External id),
``operator_stack`` (String, the enclosing operators outermost first joined by `` > ``) and the call
signatures ``operator_signature`` / ``range_signature`` (``profiles.signatures``). Without the ids an
operator call is a run of consecutive launches under the same operator name, and the enclosing
``range`` (when it differs from the operator) serves as the parent.

Signatures: when both profiles carry them, every level keys on the launching call's signature
(operator, input dims, input types, concrete inputs) and the call's order among the calls of that
signature within its iteration; kernels launched by calls of different signatures never share a unit.
Only the last fallback (all remaining calls of one operator name, or one kernel group, together)
may merge signatures, and its unit says how many (``MatchUnit.mixed``).

This module knows nothing of file formats.
"""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import polars as pl

from hipgauge.errors import InputError
from hipgauge.model import MatchLevel
from hipgauge.profiles.grouping import group_of_operator
from hipgauge.profiles.kernel_work import work_key
from hipgauge.profiles.signatures import decode, encode
from hipgauge.tomlfile import read_toml_file

STACK_SEPARATOR = " > "
RANGE_PREFIX = "range:"


# --------------------------------------------------------------------------------------------
# User map file
# --------------------------------------------------------------------------------------------


@dataclass
class MapRule:
    baseline: str  # glob over the baseline kernel's name or key
    candidate: str  # glob over the candidate kernel's name or key
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            self.label = f"{self.baseline} ↔ {self.candidate}"


@dataclass
class UserMap:
    rules: list[MapRule] = field(default_factory=list)
    path: str | None = None


def _rule_from(item: Any, path: Path, where: str) -> MapRule:
    if not isinstance(item, dict):
        raise InputError("each [[map]] entry must be a table with 'baseline' and 'candidate' globs", path, where)
    b, c = item.get("baseline"), item.get("candidate")
    if not isinstance(b, str) or not isinstance(c, str) or not b.strip() or not c.strip():
        raise InputError("a [[map]] entry needs non-empty string 'baseline' and 'candidate' globs", path, where)
    label = item.get("label", "")
    if not isinstance(label, str):
        raise InputError("'label' must be a string", path, where)
    return MapRule(b.strip(), c.strip(), label)


def parse_user_map(data: dict[str, Any], path: Path) -> UserMap:
    """Rules from the parsed TOML: ``[[map]]`` entries, or a ``[map]`` table of glob = glob."""
    rules: list[MapRule] = []
    unknown = [k for k in data if k != "map"]
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r} (expected [[map]] entries or a [map] table)", path)
    m = data.get("map")
    if m is None:
        raise InputError("no 'map' entries: write [[map]] baseline = \"glob\" candidate = \"glob\"", path)
    if isinstance(m, list):
        for i, item in enumerate(m):
            rules.append(_rule_from(item, path, f"map[{i}]"))
    elif isinstance(m, dict):
        for b, c in m.items():
            if isinstance(c, dict):  # [map.name] baseline=… candidate=…
                rules.append(_rule_from(c, path, f"map.{b}"))
            elif isinstance(c, str) and c.strip() and b.strip():
                rules.append(MapRule(b.strip(), c.strip()))
            else:
                raise InputError(f"map entry {b!r} must map a glob to a glob string", path, f"map.{b}")
    else:
        raise InputError("'map' must be an array of tables or a table of glob = glob", path)
    return UserMap(rules, str(path))


def load_user_map(path: str | Path) -> UserMap:
    """Read a ``--map`` TOML file; InputError naming the file on anything wrong with it."""
    p = Path(path)
    return parse_user_map(read_toml_file(p, "map file not found", "cannot read map file"), p)


def _glob_match(pattern: str, *values: str | None) -> bool:
    pat = pattern.lower()
    return any(v is not None and fnmatch.fnmatchcase(v.lower(), pat) for v in values)


# --------------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------------


@dataclass
class MatchUnit:
    """One matched unit: a set of baseline kernels paired with a set of candidate kernels."""

    level: MatchLevel
    label: str
    operator: str | None = None
    baseline: list[int] = field(default_factory=list)  # row positions in the baseline frame
    candidate: list[int] = field(default_factory=list)
    calls: int = 0  # operator calls paired (operator level)
    signature: str | None = None  # the call signature the unit was paired on (None: unknown or mixed)
    scope: str | None = None  # "operator" (the launching call) or "parent" (an enclosing call)
    mixed: int = 0  # > 1: the unit merges calls of that many different signatures
    relaxed: bool = False  # paired on operator and input dims only (the dtypes or scalars differ: fp16 ↔ bf16)


@dataclass
class MatchResult:
    units: list[MatchUnit]
    baseline_unit: list[int]  # per baseline row: index into units, -1 when unmatched
    candidate_unit: list[int]

    def unmatched_baseline(self) -> list[int]:
        return [i for i, u in enumerate(self.baseline_unit) if u < 0]

    def unmatched_candidate(self) -> list[int]:
        return [i for i, u in enumerate(self.candidate_unit) if u < 0]


@dataclass
class _Side:
    names: list[str]
    keys: list[str]
    raw: list[str]
    ops: list[str | None]  # operator, else "range:<range>", else None
    stacks: list[list[str]]  # enclosing operators outermost first, ending with ops[i]
    instance: list[Any]  # operator-call identity per row
    order: list[int]  # row positions in launch order
    unit: list[int]
    iters: list[Any] = field(default_factory=list)  # iteration per row (None when unknown)
    sigs: list[str | None] = field(default_factory=list)  # launching call's signature per row
    rsigs: list[str | None] = field(default_factory=list)  # outermost enclosing call's signature per row
    occ: list[int] = field(default_factory=list)  # the call's order among same-signature calls of its iteration
    occ_relaxed: list[int] = field(default_factory=list)  # the same among calls of the same operator and input dims
    full: list[str | None] = field(default_factory=list)  # the full signatures (``sigs`` may be relaxed)

    def sig_at(self, i: int, depth: int) -> str | None:
        """The signature of row ``i``'s call at a stack depth (0: the launching call; the outermost
        call when the stack is [range, operator]); None when unknown."""
        if depth == 0:
            return self.sigs[i]
        st = self.stacks[i]
        return self.rsigs[i] if depth == len(st) - 1 else None


def _col(df: pl.DataFrame, name: str) -> list[Any]:
    return df[name].to_list() if name in df.columns else [None] * df.height


def _side(df: pl.DataFrame) -> _Side:
    n = df.height
    names = [x or "" for x in _col(df, "name")]
    raw = [x or "" for x in _col(df, "raw_name")]
    names = [nm or r for nm, r in zip(names, raw)]
    # the normalized key with the template arguments that change the work (functor, dtype) kept
    keys = [(work_key(r or nm) if (r or nm) else None) or k or nm for k, nm, r in zip(_col(df, "key"), names, raw)]
    operators = _col(df, "operator")
    ranges = _col(df, "range")
    ops: list[str | None] = []
    for o, r in zip(operators, ranges):
        if o:
            ops.append(o)
        elif r:
            ops.append(RANGE_PREFIX + r)
        else:
            ops.append(None)
    raw_stacks = _col(df, "operator_stack")
    stacks: list[list[str]] = []
    for op, st, rng in zip(ops, raw_stacks, ranges):
        if op is None:
            stacks.append([])
            continue
        parts = [s.strip() for s in st.split(STACK_SEPARATOR) if s.strip()] if st else []
        if not parts and rng and not op.startswith(RANGE_PREFIX) and rng != op:
            parts = [rng]  # the enclosing range (a reader's outermost op, e.g. aten::linear) as the parent
        if not parts or parts[-1] != op:
            parts = [p for p in parts if p != op] + [op]
        stacks.append(parts)
    # launch order: correlation when every kernel has one, else start time, else row order
    corr = _col(df, "correlation")
    start = _col(df, "start_ns")
    if n and all(c is not None for c in corr):
        order = sorted(range(n), key=lambda i: (corr[i], i))
    elif n and all(s is not None for s in start):
        order = sorted(range(n), key=lambda i: (start[i], i))
    else:
        order = list(range(n))
    # operator-call identity
    op_ids = _col(df, "operator_id")
    iters = _col(df, "iteration")
    instance: list[Any] = [None] * n
    run = 0
    prev: tuple[Any, Any] | None = None
    for i in order:
        if ops[i] is None:
            prev = None
            continue
        if op_ids[i] is not None:
            instance[i] = ("id", op_ids[i], ops[i])
            prev = None
            continue
        cur = (ops[i], iters[i])
        if cur != prev:
            run += 1
            prev = cur
        instance[i] = ("run", run)
    sigs = _col(df, "operator_signature")
    rsigs = _col(df, "range_signature")
    # order of each call among the calls of the same signature (or operator) in its iteration
    occ = _occurrence(order, instance, [x or o for x, o in zip(sigs, ops)], iters)
    occ_r = _occurrence(order, instance, [_relaxed(x) or o for x, o in zip(sigs, ops)], iters)
    return _Side(names, keys, raw, ops, stacks, instance, order, [-1] * n, list(iters), list(sigs), list(rsigs), occ, occ_r,
                 list(sigs))


def _occurrence(order: list[int], instance: list[Any], keys: list[Any], iters: list[Any]) -> list[int]:
    """Per row: its call's order among the calls of the same key in the same iteration."""
    occ = [0] * len(order)
    seen_calls: dict[Any, int] = {}
    counters: dict[Any, int] = defaultdict(int)
    for i in order:
        inst = instance[i]
        if inst is None:
            continue
        if inst not in seen_calls:
            k = (keys[i], iters[i])
            seen_calls[inst] = counters[k]
            counters[k] += 1
        occ[i] = seen_calls[inst]
    return occ


@lru_cache(maxsize=65536)
def _relaxed(sig: str | None) -> str | None:
    """A signature without its tensor inputs' types (operator, input dims, scalar inputs and their values)."""
    d = decode(sig)
    if d is None:
        return None
    dims = [_thaw(x) for x in d.input_dims]
    types = ["*" if isinstance(x, list) and x else t for x, t in zip(dims, d.input_types)]
    return encode(d.operator, dims, types, [_thaw(x) for x in d.concrete_inputs])


def _thaw(x: Any) -> Any:
    return [_thaw(v) for v in x] if isinstance(x, tuple) else x


def _label_mixed(units: list[MatchUnit], b: _Side, c: _Side, signed: bool) -> None:
    """A unit holding calls of more than one full signature on a side says so (``mixed`` and its label):
    possible once signatures are relaxed, and whenever only one profile has signatures (a CUDA-graph
    replay, a trace recorded without shapes) so that they could not key the pairing."""
    for u in units:
        if u.mixed or (signed and u.scope != "operator"):
            continue
        n = max(len({b.full[i] for i in u.baseline}), len({c.full[i] for i in u.candidate}))
        if n > 1:
            u.mixed = n
            u.label += f" (mixed signatures: {n})"


class _Matcher:
    def __init__(self, b: _Side, c: _Side) -> None:
        self.b, self.c = b, c
        # signatures count only when both profiles have them (else nothing would pair across)
        self.signed = any(x is not None for x in b.sigs) and any(x is not None for x in c.sigs)
        self.relaxed = False
        if not self.signed:  # (``full`` keeps them, to say when a unit merges several)
            b.sigs = [None] * len(b.sigs)
            c.sigs = [None] * len(c.sigs)
            b.rsigs = [None] * len(b.rsigs)
            c.rsigs = [None] * len(c.rsigs)
        self.units: list[MatchUnit] = []
        self._unit_by_sig: dict[Any, int] = {}

    def _unit(self, sig: Any, level: MatchLevel, label: str, operator: str | None) -> int:
        sig = (self.relaxed, sig)
        idx = self._unit_by_sig.get(sig)
        if idx is None:
            idx = len(self.units)
            self.units.append(MatchUnit(level, label, operator, relaxed=self.relaxed))
            self._unit_by_sig[sig] = idx
        return idx

    def relax(self) -> None:
        """From here on, a signature is the operator and its input dims only (types and scalars may differ:
        the same model in fp16 and in bf16). Units made now say so (``MatchUnit.relaxed``)."""
        self.relaxed = True
        for side in (self.b, self.c):
            side.sigs = [_relaxed(x) for x in side.sigs]
            side.rsigs = [_relaxed(x) for x in side.rsigs]
            side.occ = side.occ_relaxed

    def _assign(self, uidx: int, bis: Iterable[int], cis: Iterable[int]) -> None:
        u = self.units[uidx]
        for i in bis:
            self.b.unit[i] = uidx
            u.baseline.append(i)
        for i in cis:
            self.c.unit[i] = uidx
            u.candidate.append(i)

    # -- levels 1 and 2: by name or key, first within the same operator, then anywhere ------------

    def by_value(self, level: MatchLevel, attr: str) -> None:
        """Kernels of the same name (key): first within the same call (its signature and its order
        among that signature's calls in the iteration), then anywhere within the same signature. Kernels
        without a signature pair only with each other: within the same operator, then anywhere."""
        for with_call in (True, False):
            groups: list[dict[Any, list[int]]] = []
            for side in (self.b, self.c):
                g: dict[Any, list[int]] = defaultdict(list)
                values = getattr(side, attr)
                for i in side.order:
                    if side.unit[i] >= 0 or not values[i]:
                        continue
                    sig = side.sigs[i]
                    if sig is not None:
                        g[("sig", values[i], sig, side.occ[i]) if with_call else ("sig", values[i], sig)].append(i)
                    elif with_call:
                        if side.ops[i] is None:
                            continue
                        g[("op", values[i], side.ops[i])].append(i)
                    else:
                        g[("any", values[i])].append(i)
                groups.append(g)
            gb, gc = groups
            for k in [k for k in gb if k in gc]:
                value = k[1]
                if k[0] == "sig":
                    sig = k[2]
                    op = self.b.ops[gb[k][0]]
                    uidx = self._unit((level, attr, "sig", value, sig), level, value, op)
                    self.units[uidx].signature, self.units[uidx].scope = sig, "operator"
                else:
                    if k[0] == "op":
                        op = k[2]
                    else:
                        ops = {self.b.ops[i] for i in gb[k]} | {self.c.ops[i] for i in gc[k]}
                        op = next(iter(ops)) if len(ops) == 1 else None
                    uidx = self._unit((level, attr, k), level, value, op)
                self._assign(uidx, gb[k], gc[k])

    # -- level 3: user map ------------------------------------------------------------------------

    def by_user_map(self, user_map: UserMap) -> None:
        for n, rule in enumerate(user_map.rules):
            bis = [i for i in self.b.order if self.b.unit[i] < 0
                   and _glob_match(rule.baseline, self.b.names[i], self.b.keys[i], self.b.raw[i])]
            cis = [i for i in self.c.order if self.c.unit[i] < 0
                   and _glob_match(rule.candidate, self.c.names[i], self.c.keys[i], self.c.raw[i])]
            if not bis or not cis:
                continue
            by_sig_b: dict[Any, list[int]] = defaultdict(list)
            by_sig_c: dict[Any, list[int]] = defaultdict(list)
            for i in bis:
                by_sig_b[self.b.sigs[i]].append(i)
            for i in cis:
                by_sig_c[self.c.sigs[i]].append(i)
            for sig in [k for k in by_sig_b if k in by_sig_c]:
                xb, xc = by_sig_b[sig], by_sig_c[sig]
                ops = {self.b.ops[i] for i in xb} | {self.c.ops[i] for i in xc}
                op = next(iter(ops)) if len(ops) == 1 else None
                uidx = self._unit((MatchLevel.USER_MAP, n, sig), MatchLevel.USER_MAP, rule.label, op)
                if sig is not None:
                    self.units[uidx].signature, self.units[uidx].scope = sig, "operator"
                self._assign(uidx, xb, xc)

    # -- level 4: operators -----------------------------------------------------------------------

    @staticmethod
    def _calls(side: _Side, depth: int, only: set[Any] | None = None) -> list[dict[str, Any]]:
        """Operator calls in launch order at a stack depth (0 innermost, 1 the parent, …).

        A call at depth > 0 is a run of consecutive innermost calls sharing that ancestor name.
        ``only`` limits to innermost calls in that set (those still without a partner)."""
        calls: list[dict[str, Any]] = []
        index: dict[Any, dict[str, Any]] = {}
        prev_key: Any = None
        for i in side.order:
            inst = side.instance[i]
            if inst is None:
                prev_key = None
                continue
            if only is not None and inst not in only:
                prev_key = None
                continue
            st = side.stacks[i]
            if depth >= len(st):
                prev_key = None
                continue
            name = st[len(st) - 1 - depth]
            if depth == 0:
                key = inst
            else:
                key = (name, prev_key[1] if prev_key and prev_key[0] == name else len(calls))
            if key not in index:
                call = {"name": name, "sig": side.sig_at(i, depth), "rows": [], "inst": set(), "iter": side.iters[i]}
                index[key] = call
                calls.append(call)
            index[key]["rows"].append(i)
            index[key]["inst"].add(inst)
            prev_key = key if depth > 0 else None
        return calls

    def _pair_calls(self, cb: list[dict[str, Any]], cc: list[dict[str, Any]], depth: int,
                    paired_b: set[Any], paired_c: set[Any]) -> None:
        by_name_b: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        by_name_c: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        for call in cb:
            by_name_b[(call["name"], call["sig"] if self.signed else None)].append(call)
        for call in cc:
            by_name_c[(call["name"], call["sig"] if self.signed else None)].append(call)
        for (name, sig), lb in by_name_b.items():
            lc = by_name_c.get((name, sig))
            if not lc:
                continue
            ob, oc = _by_occurrence(lb), _by_occurrence(lc)
            for occ in [o for o in ob if o in oc]:
                xs, ys = ob[occ], oc[occ]
                for x in xs:
                    paired_b.update(x["inst"])
                for y in ys:
                    paired_c.update(y["inst"])
                ub = [i for x in xs for i in x["rows"] if self.b.unit[i] < 0]
                uc = [i for y in ys for i in y["rows"] if self.c.unit[i] < 0]
                if not ub or not uc:
                    continue
                key = (MatchLevel.OPERATOR, depth, name, sig,
                       tuple(sorted({self.b.keys[i] for i in ub})), tuple(sorted({self.c.keys[i] for i in uc})))
                uidx = self._unit(key, MatchLevel.OPERATOR, name, name)
                u = self.units[uidx]
                u.calls += len(xs)
                if sig is not None:
                    u.signature, u.scope = sig, "operator" if depth == 0 else "parent"
                self._assign(uidx, ub, uc)

    def by_operator(self) -> None:
        paired_b: set[Any] = set()
        paired_c: set[Any] = set()
        max_depth = max([len(s) for s in self.b.stacks + self.c.stacks] or [0])
        # innermost calls by name and occurrence, then parents for calls still without a partner
        for depth in range(max_depth):
            only_b = None if depth == 0 else self._open(self.b, paired_b)
            only_c = None if depth == 0 else self._open(self.c, paired_c)
            if depth > 0 and (not only_b or not only_c):
                break
            cb = self._calls(self.b, depth, only_b)
            cc = self._calls(self.c, depth, only_c)
            self._pair_calls(cb, cc, depth, paired_b, paired_c)
        # then: all remaining calls of the same name and signature together (any depth, innermost first)
        for depth in range(max_depth):
            ub_by: dict[Any, list[int]] = defaultdict(list)
            uc_by: dict[Any, list[int]] = defaultdict(list)
            for side, acc in ((self.b, ub_by), (self.c, uc_by)):
                for i in side.order:
                    st = side.stacks[i]
                    if side.unit[i] < 0 and depth < len(st):
                        acc[(st[len(st) - 1 - depth], side.sig_at(i, depth) if self.signed else None)].append(i)
            for name, sig in [k for k in ub_by if k in uc_by]:
                uidx = self._unit((MatchLevel.OPERATOR, "all", depth, name, sig), MatchLevel.OPERATOR,
                                  name + " (all calls)", name)
                if sig is not None:
                    self.units[uidx].signature = sig
                    self.units[uidx].scope = "operator" if depth == 0 else "parent"
                self._assign(uidx, ub_by[(name, sig)], uc_by[(name, sig)])

    def by_name_mixed(self) -> None:
        """Last resort with signatures: the remaining kernels of one launching operator name together,
        whatever their calls' signatures; the unit says how many signatures it merges."""
        ub_by: dict[str, list[int]] = defaultdict(list)
        uc_by: dict[str, list[int]] = defaultdict(list)
        for side, acc in ((self.b, ub_by), (self.c, uc_by)):
            for i in side.order:
                op = side.ops[i]
                if side.unit[i] < 0 and op is not None:
                    acc[op].append(i)
        for name in [n for n in ub_by if n in uc_by]:
            sigs = {self.b.full[i] for i in ub_by[name]} | {self.c.full[i] for i in uc_by[name]}
            uidx = self._unit((MatchLevel.OPERATOR, "mixed", name), MatchLevel.OPERATOR,
                              name + (f" (mixed signatures: {len(sigs)})" if len(sigs) > 1 else " (all calls)"), name)
            self.units[uidx].mixed = len(sigs)
            self._assign(uidx, ub_by[name], uc_by[name])
        # and the remaining kernels of one operator group (vendor-named operators: cudnn ↔ miopen)
        gb: dict[str, list[int]] = defaultdict(list)
        gc: dict[str, list[int]] = defaultdict(list)
        for side, acc in ((self.b, gb), (self.c, gc)):
            for i in side.order:
                op = side.ops[i]
                if side.unit[i] < 0 and op is not None and not op.startswith(RANGE_PREFIX):
                    g = group_of_operator(op)
                    if g is not None:
                        acc[g].append(i)
        for g in [x for x in gb if x in gc]:
            sigs = {self.b.full[i] for i in gb[g]} | {self.c.full[i] for i in gc[g]}
            bop, cop = self.b.ops[gb[g][0]] or "", self.c.ops[gc[g][0]] or ""
            label = (bop if bop == cop else f"{bop} ↔ {cop}") + (f" (mixed signatures: {len(sigs)})" if len(sigs) > 1 else "")
            uidx = self._unit((MatchLevel.OPERATOR, "mixed-group", g), MatchLevel.OPERATOR, label, bop)
            self.units[uidx].mixed = len(sigs)
            self._assign(uidx, gb[g], gc[g])

    @staticmethod
    def _open(side: _Side, paired: set[Any]) -> set[Any]:
        return {side.instance[i] for i in side.order
                if side.unit[i] < 0 and side.instance[i] is not None and side.instance[i] not in paired}

    def by_operator_group(self) -> None:
        """Operators that differ by vendor (``aten::cudnn_convolution`` vs ``aten::miopen_convolution``)
        with no common parent known: pair calls whose operators fall in the same kernel group, by
        occurrence order, then all remaining calls of a group together."""

        def open_calls(side: _Side) -> dict[str, list[dict[str, Any]]]:
            calls: dict[Any, dict[str, Any]] = {}
            for i in side.order:
                op = side.ops[i]
                if side.unit[i] >= 0 or op is None or op.startswith(RANGE_PREFIX):
                    continue
                g = group_of_operator(op)
                if g is None:
                    continue
                inst = side.instance[i]
                if inst not in calls:
                    sig = side.sigs[i] if self.signed else None
                    decoded = decode(sig)
                    work = decoded.work if decoded is not None else None
                    calls[inst] = {"group": (g, work), "name": op, "sig": sig, "rows": [], "iter": side.iters[i]}
                calls[inst]["rows"].append(i)
            by_group: dict[Any, list[dict[str, Any]]] = defaultdict(list)
            for call in calls.values():
                by_group[call["group"]].append(call)
            return by_group

        gb, gc = open_calls(self.b), open_calls(self.c)
        for g in [g for g in gb if g in gc]:
            ob, oc = _by_occurrence(gb[g]), _by_occurrence(gc[g])
            for occ in [o for o in ob if o in oc]:
                xs, ys = ob[occ], oc[occ]
                bop, cop = xs[0]["name"], ys[0]["name"]
                label = bop if bop == cop else f"{bop} ↔ {cop}"
                uidx = self._unit((MatchLevel.OPERATOR, "group", g, bop, cop, xs[0]["sig"]), MatchLevel.OPERATOR, label, bop)
                u = self.units[uidx]
                u.calls += len(xs)
                if g[1] is not None:
                    u.signature, u.scope = xs[0]["sig"], "operator"
                self._assign(uidx, [i for x in xs for i in x["rows"]], [i for y in ys for i in y["rows"]])


def _by_occurrence(calls: list[dict[str, Any]]) -> dict[Any, list[dict[str, Any]]]:
    """Calls keyed by occurrence: the n-th call within its iteration when iterations are known (so
    profiles of different iteration counts line up), else the n-th call overall."""
    seen: dict[Any, int] = defaultdict(int)
    out: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        it = call.get("iter")
        n = seen[it]
        seen[it] += 1
        out[n].append(call)
    return out


def match_kernels(base: pl.DataFrame, cand: pl.DataFrame, user_map: UserMap | None = None) -> MatchResult:
    """Pair the kernels of two ``KERNEL_RECORD_SCHEMA`` frames; every row ends in a unit or unmatched."""
    b, c = _side(base), _side(cand)
    m = _Matcher(b, c)
    m.by_value(MatchLevel.EXACT, "names")
    m.by_value(MatchLevel.NORMALIZED, "keys")
    if user_map is not None and user_map.rules:
        m.by_user_map(user_map)
    m.by_operator()
    if m.signed:
        # the same calls with other dtypes or scalars (fp16 ↔ bf16, TF32 on ↔ off): same operator, same dims
        m.relax()
        m.by_value(MatchLevel.EXACT, "names")
        m.by_value(MatchLevel.NORMALIZED, "keys")
        m.by_operator()
    m.by_operator_group()
    if m.signed:
        m.by_name_mixed()
    _label_mixed(m.units, b, c, m.signed)
    # calls are counted at the operator level; other units count kernels
    return MatchResult(m.units, b.unit, c.unit)
