"""The parse phase of the Kineto reader: trace events → compact per-family columns (``KinetoEvents``).

**Parser: msgspec, with a typed schema.** Each chunk of the ``traceEvents`` array (``chrome_json`` cuts
it at event boundaries) is decoded by ``msgspec.json`` straight into ``TraceEvent`` structs that declare
only the fields this reader uses. Everything else in an event (``Input Strides``, ``Ev Idx``, ``cbid``,
``queued``…) is skipped by the C decoder without building a Python object, and the three signature
fields (``Input Dims``, ``Input type``, ``Concrete Inputs``) are kept as ``msgspec.Raw`` byte slices:
they are parsed once per *distinct* signature, not once per op. On a 64 MB chunk of an H200 trace this
decodes at about 320 MB/s where orjson, which must build a dict for every event and every nested
list, managed about 30 MB/s; ``benchmarks/bench_ingest.py`` measures the whole reader. The schema types
``ts``/``dur`` as numbers and ``External id``/``correlation`` as integers, so malformed events fail the
fast path; a chunk that fails is decoded event by event and only the bad events are skipped and counted
(``BadEvent``, with the field and value named).

**Flow events are not read by the first pass.** The struct of an event is chosen by its ``ph`` (a tagged
union; Kineto writes ``ph`` first): flow events (``s``/``t``/``f``, a quarter of a PyTorch trace) decode to
an empty struct, their fields skipped in C. Only the kernel-side ends are ever used, as the fallback link of
a GPU event without ``correlation``; when the first pass finds such an event, ``parse_events`` runs a
second, flows-only pass (``decode_flows``: flow ends read, everything else skipped).

**Parallel parts.** An uncompressed trace larger than ``PARALLEL_MIN_BYTES`` is cut into byte ranges at
event boundaries (``split_points``: a ``}`` ``,`` ``{`` sequence whose following megabyte parses as
events), one per CPU (``HIPGAUGE_INGEST_WORKERS`` overrides; at most ``MAX_PARTS``). This process reads
the first range while a ``python -m`` child per other range reads its own and sends its columns back
pickled; ``merge`` renumbers the interned names, threads, shapes and signatures of later parts into the
first part's tables. A thread of this process receives each child's columns while it reads its own range
(the child sends them one column at a time, letting each go once sent). A part that fails for any reason
(a false boundary, a malformed file) makes the whole file be read again in one sequential pass, so errors
are reported exactly as without parts. A gzip stream cannot be split: it is read in one pass.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import numpy as np

from hipgauge.errors import InputError
from hipgauge.profiles.signatures import encode as encode_signature

from .chrome_json import ChromeTrace
from .files import check_records, is_gzip, max_bytes_limit
from .ranges import iteration_of

OP_CATS = frozenset({"cpu_op", "Operator", "operator"})
ANNOT_CATS = frozenset({"user_annotation"})
GPU_ANNOT_CATS = frozenset({"gpu_user_annotation"})
RUNTIME_CATS = frozenset({"cuda_runtime", "cuda_driver", "Runtime", "Driver"})
KERNEL_CATS = frozenset({"kernel", "Kernel"})
MEMCPY_CATS = frozenset({"gpu_memcpy", "Memcpy"})
MEMSET_CATS = frozenset({"gpu_memset", "Memset"})
FLOW_CATS = frozenset({"ac2g", "async_cpu_to_gpu"})

KIND_OP, KIND_ANNOT, KIND_STEP = 0, 1, 2
G_KERNEL, G_MEMCPY, G_MEMSET = 0, 1, 2
STEP_PREFIX = "ProfilerStep#"

#: files at least this large (uncompressed) are read in parallel parts
PARALLEL_MIN_BYTES = 256 * 1024**2
MAX_PARTS = 4
#: bytes after a candidate split point that must parse as whole events for it to be taken
_SPLIT_PROBE_BYTES = 1024**2
_SPLIT_WINDOW_BYTES = 16 * 1024**2
#: how much larger (in parts) the first range is than the others (their process start and result transfer)
_FIRST_PART_EXTRA = 0.05

_UNSET = msgspec.UNSET
_NO_RAW = msgspec.Raw()


class EventArgs(msgspec.Struct, gc=False):
    """The ``args`` of an event: only what the reader uses (msgspec skips the other keys)."""

    external_id: int | msgspec.UnsetType = msgspec.field(name="External id", default=_UNSET)
    correlation: int | None | msgspec.UnsetType = _UNSET
    device: Any = _UNSET
    stream: Any = _UNSET
    grid: msgspec.Raw = _NO_RAW
    block: msgspec.Raw = _NO_RAW
    registers: Any = msgspec.field(name="registers per thread", default=-1)
    shared_memory: Any = msgspec.field(name="shared memory", default=-1)
    input_dims: msgspec.Raw = msgspec.field(name="Input Dims", default=_NO_RAW)
    input_type: msgspec.Raw = msgspec.field(name="Input type", default=_NO_RAW)
    concrete_inputs: msgspec.Raw = msgspec.field(name="Concrete Inputs", default=_NO_RAW)


class TraceEvent(msgspec.Struct, gc=False):
    """One Chrome trace event, as far as the Kineto reader looks at it (the untagged form: an event whose
    ``ph`` is missing, not a string or not a Chrome phase; ``decode_chunk`` tries the tagged forms first)."""

    ph: Any = None
    cat: str | None = None
    name: str = ""
    pid: int | float | str | None = None
    tid: int | float | str | None = None
    ts: float | msgspec.UnsetType = _UNSET
    dur: float | msgspec.UnsetType = _UNSET
    id: Any = None
    args: EventArgs | None = None


class _Phased(msgspec.Struct, gc=False, tag_field="ph"):
    """The fields of ``TraceEvent`` for an event whose ``ph`` selects its class (a tagged union: the C decoder
    reads ``ph``, the first key Kineto writes, and picks the class before it reads the rest)."""

    cat: str | None = None
    name: str = ""
    pid: int | float | str | None = None
    tid: int | float | str | None = None
    ts: float | msgspec.UnsetType = _UNSET
    dur: float | msgspec.UnsetType = _UNSET
    id: Any = None
    args: EventArgs | None = None


class _Skipped(msgspec.Struct, gc=False, tag_field="ph"):
    """An event the reader does not look at in this pass: its fields are skipped in C, no object is built
    for them. ``cat`` None puts it in no family."""

    cat: ClassVar[None] = None


class FlowEnd(msgspec.Struct, gc=False, tag_field="ph", tag="f"):
    """The kernel-side end of a flow (``ph`` "f"), as the flows pass (``parse_flows``) reads it."""

    ph: ClassVar[str] = "f"
    cat: str | None = None
    name: str = ""
    pid: int | float | str | None = None
    tid: int | float | str | None = None
    ts: float | msgspec.UnsetType = _UNSET
    id: Any = None


#: every event phase of the Chrome trace format (an event with another ``ph`` is decoded untagged)
CHROME_PHASES = ("X", "B", "E", "i", "I", "C", "b", "n", "e", "S", "T", "p", "F", "s", "t", "f",
                 "P", "O", "N", "D", "M", "V", "v", "R", "c", "(", ")")
#: flow phases (start, step, end): the first pass never reads them; ``parse_flows`` reads the ends if needed
FLOW_PHASES = frozenset({"s", "t", "f"})


def _phase_class(base: type, ph: str) -> type:
    return type(f"{base.__name__.strip('_')}{ord(ph)}", (base,), {"__annotations__": {"ph": ClassVar[str]}, "ph": ph},
                tag=ph)


def _union(classes: list[type]) -> Any:
    out: Any = classes[0]
    for c in classes[1:]:
        out = out | c
    return out


#: the first pass: every phase but the flows as ``_Phased`` classes, the flows skipped
_EVENT_CLASSES = {ph: _phase_class(_Skipped if ph in FLOW_PHASES else _Phased, ph) for ph in CHROME_PHASES}
_EVENT_TYPES = _union(list(_EVENT_CLASSES.values()))
#: a chunk of only these classes needs no ``ph`` test
_X_OR_SKIPPED = frozenset({_EVENT_CLASSES["X"], *(_EVENT_CLASSES[ph] for ph in FLOW_PHASES)})
#: the flows pass: flow ends read, every other phase skipped
_FLOW_TYPES = _union([FlowEnd] + [_phase_class(_Skipped, ph) for ph in CHROME_PHASES if ph != "f"])
_NOT_READ = _Skipped()


class BadEvent:
    """An event that did not fit the schema (or lacks a field its family needs), kept to be counted."""

    __slots__ = ("cat", "index", "why")

    def __init__(self, index: int, why: str):
        self.cat = "\0bad"
        self.index = index
        self.why = why


class _Phase(msgspec.Struct, gc=False):
    ph: Any = None


_EVENTS = msgspec.json.Decoder(list[_EVENT_TYPES])  # type: ignore[valid-type]
_ONE_EVENT = msgspec.json.Decoder(_EVENT_TYPES)
_FLOWS = msgspec.json.Decoder(list[_FLOW_TYPES])  # type: ignore[valid-type]
_ONE_FLOW = msgspec.json.Decoder(_FLOW_TYPES)
_UNTAGGED = msgspec.json.Decoder(TraceEvent)
_PHASE = msgspec.json.Decoder(_Phase)
_RAW_ITEMS = msgspec.json.Decoder(list[msgspec.Raw])
_ANY = msgspec.json.Decoder()


def _whole_or_items(buf: bytes | memoryview, decoder: Any) -> tuple[list[Any], list[msgspec.Raw] | None]:
    """The chunk decoded whole by ``decoder`` (the fast path), or, when one event does not fit it, the chunk's
    events as raw items to decode one by one; ``ValueError`` when the bytes are not JSON."""
    try:
        return decoder.decode(buf), None
    except msgspec.ValidationError:
        pass
    except msgspec.DecodeError as exc:
        raise ValueError(str(exc)) from None
    try:
        return [], _RAW_ITEMS.decode(buf)
    except msgspec.DecodeError as exc:
        raise ValueError(str(exc)) from None


def decode_chunk(buf: bytes | memoryview) -> list[Any]:
    """``[event, …]`` bytes → event structs: a ``_Phased`` class per Chrome phase, flow events skipped, an
    untagged ``TraceEvent`` where ``ph`` is not a Chrome phase, a ``BadEvent`` where one does not fit;
    ``ValueError`` when the bytes are not JSON (``ChromeTrace`` then tries another cut)."""
    events, items = _whole_or_items(buf, _EVENTS)
    if items is None:
        return events
    out: list[Any] = []
    for i, raw in enumerate(items):
        try:
            out.append(_ONE_EVENT.decode(raw))
            continue
        except msgspec.ValidationError:
            pass
        try:  # no Chrome phase in ph, or a field that does not fit: the untagged form says which
            out.append(_UNTAGGED.decode(raw))
        except msgspec.ValidationError as exc:
            out.append(BadEvent(i, _why(raw, exc)))
    return out


def decode_flows(buf: bytes | memoryview) -> list[Any]:
    """As ``decode_chunk`` for the flows pass: ``FlowEnd`` structs, everything else skipped; a ``BadEvent``
    only for a flow end that does not fit (the first pass counted every other bad event)."""
    events, items = _whole_or_items(buf, _FLOWS)
    if items is None:
        return events
    out: list[Any] = []
    for i, raw in enumerate(items):
        try:
            out.append(_ONE_FLOW.decode(raw))
            continue
        except msgspec.ValidationError:
            pass
        try:
            is_flow_end = _PHASE.decode(raw).ph == "f"
        except msgspec.ValidationError:
            is_flow_end = False
        if not is_flow_end:  # another event the first pass has read (and counted if it was bad)
            out.append(_NOT_READ)
            continue
        try:  # FlowEnd's fields are TraceEvent's, so this fails too and names the field
            _UNTAGGED.decode(raw)
            out.append(_NOT_READ)
        except msgspec.ValidationError as exc:
            out.append(BadEvent(i, _why(raw, exc)))
    return out


def _why(raw: msgspec.Raw, exc: msgspec.ValidationError) -> str:
    """`` 'name': field "dur" is true, not a number`` from a schema error (the event's name, the field, its value)."""
    try:
        doc = _ANY.decode(raw)
    except msgspec.DecodeError:
        doc = None
    if not isinstance(doc, dict):
        return f": not an object ({type(doc).__name__})"
    name = doc.get("name")
    shown = f" {str(name)[:80]!r}" if name else ""
    message = str(exc)
    path = message.rsplit("at `$", 1)[1].rstrip("`") if "at `$" in message else ""
    keys = [k for k in path.replace("[", ".").replace("]", "").split(".") if k]
    value: Any = doc
    for k in keys:
        value = value.get(k) if isinstance(value, dict) else None
    fld = keys[-1] if keys else "?"
    shown_value = msgspec.json.encode(value).decode()[:40] if value is not None else "null"
    wanted = "a number" if "float" in message else "an integer" if "int" in message else message.split(" - ")[0].lower()
    return f"{shown}: field \"{fld}\" is {shown_value}, not {wanted}"


def _shown(e: TraceEvent) -> str:
    return f" {e.name[:80]!r}" if e.name else ""


def _missing(e: TraceEvent, fld: str) -> str:
    return f"{_shown(e)}: field \"{fld}\" is missing"


def _flow_id_problem(e: TraceEvent) -> str | None:
    if e.id is None or type(e.id) is int:
        return None
    return f"{_shown(e)}: field \"id\" is {msgspec.json.encode(e.id).decode()[:40]}, not an integer"


def _gpu_correlation_problem(e: TraceEvent) -> str | None:
    """A GPU event's correlation may be absent (-1) but not null."""
    if e.args is not None and e.args.correlation is None:
        return f"{_shown(e)}: field \"correlation\" is null, not an integer"
    return None


# ---------------------------------------------------------------- the columns of one part
@dataclass
class KinetoEvents:
    """The trace as compact columns, one dict of arrays per event family (keys are frame column names)."""

    ops: dict[str, array]  # CPU ranges: cpu_op / user_annotation / ProfilerStep
    runtime: dict[str, array]  # runtime / driver calls
    gpu: dict[str, array]  # kernels, memcpy, memset
    flows: dict[str, array]  # kernel-side ends of ac2g flows (fallback kernel ↔ runtime link)
    gpu_steps: list[tuple[int, float, float]]  # gpu_user_annotation ProfilerStep#N: (N, ts µs, dur µs)
    names: list[str]
    threads: list[tuple[Any, Any]]  # (pid, tid) by thread id
    shapes: list[bytes]  # launch grid/block JSON text, by shape id
    signatures: list[str]  # operator call signatures (profiles.signatures.encode), by sig id
    runtime_names: set[str]
    header: dict[str, Any]
    seen: int = 0
    bad: int = 0
    first_bad: int | None = None
    first_why: str = ""
    warnings: list[str] = field(default_factory=list)


class _Interner(dict):
    """value → dense id, in first-seen order."""

    def ids(self, values: list[Any]) -> list[int]:
        try:
            return list(map(self.__getitem__, values))  # the usual case: every value seen before
        except KeyError:
            pass
        for v in values:  # new values, in first-seen order
            if v not in self:
                self[v] = len(self)
        return [self[v] for v in values]


def _column(arr: array, values: list[Any]) -> bool:
    """Append ``values`` to ``arr``; False (and ``arr`` unchanged) when one is not of the array's type."""
    n = len(arr)
    try:
        arr.fromlist(values)
    except (TypeError, OverflowError):
        del arr[n:]
        return False
    return True


class _Builder:
    """Accumulates the families' columns chunk by chunk: one pass splits a chunk into families, then each
    column is one list comprehension over a family's structs and one ``array.extend``. An event that
    lacks a field its family needs is found when its column does not fit the array (``_column`` returns
    False) and only then are the events of that family checked one by one."""

    def __init__(self) -> None:
        self.names, self.threads, self.shapes = _Interner(), _Interner(), _Interner()
        self._shape_of: dict[bytes, int] = {b"": -1, b"null": -1}  # launch shape JSON → id (-1: none)
        self.sig_cache: dict[tuple[str, int, int, int], list[int]] = {}  # key → entry numbers (``_signatures``)
        # entry 0 stands for "no previous op": its dims (a NUL byte) are never an event's raw JSON
        self.sig_entries: list[tuple[str, msgspec.Raw, msgspec.Raw, msgspec.Raw, int]] = [
            ("", msgspec.Raw(b"\0"), msgspec.Raw(b"\0"), msgspec.Raw(b"\0"), -1)]
        self.sig_after: list[int] = [0]
        self._sig_prev = 0
        self.sig_ix: dict[str, int] = {}
        self.ops: dict[str, array[Any]] = {"thread": array("i"), "ts": array("d"), "dur": array("d"), "ext": array("q"),
                    "name_id": array("i"), "kind": array("b"), "sig": array("i")}
        self.runtime: dict[str, array[Any]] = {"r_thread": array("i"), "r_ts": array("d"), "corr": array("q"), "r_ext": array("q"),
                        "r_dur": array("d"), "r_name": array("i")}
        self.gpu: dict[str, array[Any]] = {"gkind": array("b"), "name_id": array("i"), "g_thread": array("i"), "dev": array("q"),
                    "stream": array("q"), "start_ns": array("d"), "duration_ns": array("d"), "ext": array("q"),
                    "corr": array("q"), "grid_id": array("q"), "block_id": array("q"), "registers": array("q"),
                    "shared_mem_bytes": array("q")}
        self.flows: dict[str, array[Any]] = {"g_thread": array("i"), "start_ns": array("d"), "fid": array("q")}
        self.gpu_steps: list[tuple[int, float, float]] = []
        self.runtime_names: set[str] = set()
        self.seen = 0
        self.bad = 0
        self.first_bad: int | None = None
        self.first_why = ""
        self._chunk: list[Any] = []

    # -- helpers
    def _bad(self, e: Any, why: str) -> None:
        index = e.index if isinstance(e, BadEvent) else next(i for i, x in enumerate(self._chunk) if x is e)
        self.bad += 1
        if self.first_bad is None or self.seen + index < self.first_bad:
            self.first_bad, self.first_why = self.seen + index, why

    def _valid(self, fam: list[TraceEvent], need_dur: bool = False, check: Any = None) -> list[TraceEvent]:
        """The events of ``fam`` with a ``ts`` (and ``dur`` when needed) and passing ``check`` (a function
        returning why an event is bad, or None); the others are counted bad. Called only after a column
        did not fit, so its cost does not matter."""
        keep = []
        for e in fam:
            why = None
            if e.ts is _UNSET:
                why = _missing(e, "ts")
            elif need_dur and e.dur is _UNSET:
                why = _missing(e, "dur")
            elif check is not None:
                why = check(e)
            if why is None:
                keep.append(e)
            else:
                self._bad(e, why)
        return keep

    def _ts_column(self, arr: array[Any], fam: list[TraceEvent]) -> list[TraceEvent]:
        """Append the events' ``ts`` to ``arr`` and return the events it holds: all of them, or, when one lacks
        its ``ts``, only the valid ones (the others counted bad)."""
        if _column(arr, [e.ts for e in fam]):
            return fam
        fam = self._valid(fam)
        arr.fromlist([e.ts for e in fam])
        return fam

    def _thread_ids(self, fam: list[TraceEvent]) -> list[int]:
        pids = [e.pid for e in fam]
        tids = [e.tid for e in fam]
        n = len(fam)
        if pids.count(pids[0]) == n and tids.count(tids[0]) == n:  # one thread (the usual case for a family)
            return self.threads.ids([(pids[0], tids[0])]) * n
        return self.threads.ids(list(zip(pids, tids, strict=True)))

    def _signatures(self, fam: list[TraceEvent]) -> list[int]:
        """Interned call-signature ids of cpu_ops (-1 without ``Input Dims``).

        An op is first checked against the op that followed the previous op's signature last time (a model
        runs the same ops in the same order every iteration, so that guess is right for nearly every op of a
        long trace): the name and the three raw fields compared, with no key built. Otherwise the ops are
        grouped by (name, lengths of the three raw fields) and compared to the few signatures seen with that
        key (comparing ``Raw`` slices is cheaper than copying them out); the canonical text is made once per
        distinct (name, dims, types, concrete inputs)."""
        out = []
        cache = self.sig_cache
        entries = self.sig_entries  # (name, dims, types, concrete inputs, sig id) by entry number
        after = self.sig_after  # entry number → the entry that followed it last time (0: none yet)
        prev = self._sig_prev  # 0: no previous op (entry 0 matches no op)
        for e in fam:
            a = e.args
            if a is None:
                out.append(-1)
                prev = 0
                continue
            d = a.input_dims
            g = after[prev]
            gn, gd, gt, gc, sid = entries[g]
            if gd == d and gn == e.name and gt == a.input_type and gc == a.concrete_inputs:
                out.append(sid)
                prev = g
                continue
            t, c = a.input_type, a.concrete_inputs
            key = (e.name, len(d), len(t), len(c))
            found = -1
            seen = cache.get(key)
            if seen is not None:
                for n in seen:
                    _, sd, st, sc, _ = entries[n]
                    if sd == d and st == t and sc == c:
                        found = n
                        break
            if found < 0:
                found = self._new_signature(key, d, t, c)
            after[prev] = found
            prev = found
            out.append(entries[found][4])
        self._sig_prev = prev
        return out

    def _new_signature(self, key: tuple[str, int, int, int], d: msgspec.Raw, t: msgspec.Raw, c: msgspec.Raw) -> int:
        """A new entry (its number) for ``key`` and these raw fields, with its signature id."""
        i = self._signature_id((key[0], bytes(d), bytes(t), bytes(c)))
        n = len(self.sig_entries)
        # copies that own their bytes: a cached slice must not keep the chunk buffer alive
        self.sig_entries.append((key[0], msgspec.Raw(bytes(d)), msgspec.Raw(bytes(t)), msgspec.Raw(bytes(c)), i))
        self.sig_after.append(-1)
        self.sig_cache.setdefault(key, []).append(n)
        return n

    def _signature_id(self, key: tuple[str, bytes, bytes, bytes]) -> int:
        name, d, t, c = key
        if not d or d == b"null":
            return -1
        try:
            text = encode_signature(name, _ANY.decode(d), _ANY.decode(t) if t else None, _ANY.decode(c) if c else None)
        except (msgspec.DecodeError, TypeError, ValueError):
            return -1
        return self.sig_ix.setdefault(text, len(self.sig_ix))

    def _shape_ids(self, raws: list[msgspec.Raw]) -> list[int]:
        keys = list(map(bytes, raws))
        out: list[Any] = list(map(self._shape_of.get, keys))
        if None not in out:  # the usual case: every shape seen before
            return out
        for n, k in enumerate(keys):
            if out[n] is None:
                i = self._shape_of.get(k)
                if i is None:
                    i = self._shape_of[k] = self.shapes[k] = len(self.shapes)
                out[n] = i
        return out

    # -- one chunk
    def add(self, events: list[Any]) -> None:
        self._chunk = events
        fams: tuple[list[Any], ...] = ([], [], [], [], [], [], [])
        route = {cat: fams[k].append for cat, k in _FAMILY.items()}.get  # category → its family's append
        for e in events:
            append = route(e.cat)
            if append is not None:
                append(e)
        ops, annots, runtime, _flows, gpu, gpu_annots, bad = fams
        for b in bad:
            self._bad(b, b.why)
        if not set(map(type, events)) <= _X_OR_SKIPPED:  # some events are not complete ("X") ones
            ops = [e for e in ops if e.ph == "X"]
            annots = [e for e in annots if e.ph == "X"]
            gpu = [e for e in gpu if e.ph is None or e.ph == "X"]
        self._add_ranges(ops, is_op=True)
        self._add_ranges(annots, is_op=False)
        self._add_runtime(runtime)  # flows: read by the flows pass (``parse_flows``) when they are needed
        self._add_gpu(gpu)
        for e in gpu_annots:
            if e.name.startswith(STEP_PREFIX) and (n := step_number(e.name)) is not None:
                if e.ts is _UNSET:
                    self._bad(e, _missing(e, "ts"))
                else:
                    self.gpu_steps.append((n, float(e.ts), 0.0 if e.dur is _UNSET else float(e.dur)))
        self.seen += len(events)
        self._chunk = []

    def _add_ranges(self, fam: list[TraceEvent], is_op: bool) -> None:
        if not fam:
            return
        o = self.ops
        fam = self._ts_column(o["ts"], fam)
        durs = [e.dur for e in fam]
        if not _column(o["dur"], durs):
            o["dur"].fromlist([0.0 if d is _UNSET else d for d in durs])
        o["thread"].fromlist(self._thread_ids(fam))
        o["ext"].fromlist([-1 if (a := e.args) is None or (x := a.external_id) is _UNSET else x
                         for e in fam])
        o["name_id"].fromlist(self.names.ids([e.name for e in fam]))
        if is_op:
            o["kind"].frombytes(bytes(len(fam)))  # KIND_OP == 0
            o["sig"].fromlist(self._signatures(fam))
        else:
            o["kind"].fromlist([KIND_STEP if e.name.startswith(STEP_PREFIX) or iteration_of(e.name) is not None
                              else KIND_ANNOT for e in fam])
            o["sig"].fromlist([-1] * len(fam))

    def _add_runtime(self, fam: list[TraceEvent]) -> None:
        fam = [e for e in fam if (a := e.args) is not None and type(c := a.correlation) is int and c >= 0]
        if not fam:
            return
        r = self.runtime
        fam = self._ts_column(r["r_ts"], fam)
        r["r_thread"].fromlist(self._thread_ids(fam))
        args = [e.args or _NO_ARGS for e in fam]  # every one has args (its correlation was checked)
        r["corr"].fromlist([a.correlation for a in args])
        r["r_ext"].fromlist([-1 if (x := a.external_id) is _UNSET else x for a in args])
        r["r_dur"].fromlist([0.0 if e.dur is _UNSET else e.dur for e in fam])
        names = [e.name for e in fam]
        r["r_name"].fromlist(self.names.ids(names))
        if len(self.runtime_names) < 64:
            for n in names[:256]:
                if len(self.runtime_names) < 64:
                    self.runtime_names.add(n)

    def add_flows(self, events: list[Any]) -> None:
        """One chunk of the flows pass (``decode_flows``): the kernel-side ends of ``FLOW_CATS`` flows."""
        self._chunk = events
        fam = []
        for e in events:
            if e.cat in FLOW_CATS:
                fam.append(e)
            elif type(e) is BadEvent:
                self._bad(e, e.why)
        self._add_flows(fam)
        self.seen += len(events)
        self._chunk = []

    def _add_flows(self, fam: list[Any]) -> None:
        if not fam:
            return
        f = self.flows
        ids = [-1 if e.id is None else e.id for e in fam]
        if not _column(f["start_ns"], [e.ts for e in fam]) or not _column(f["fid"], ids):
            del f["start_ns"][len(f["g_thread"]):]
            fam = self._valid(fam, check=_flow_id_problem)
            f["start_ns"].fromlist([e.ts for e in fam])
            f["fid"].fromlist([-1 if e.id is None else e.id for e in fam])
        f["g_thread"].fromlist(self._thread_ids(fam))

    def _add_gpu(self, fam: list[TraceEvent]) -> None:
        if not fam:
            return
        g = self.gpu
        args = [e.args or _NO_ARGS for e in fam]
        corr = [-1 if (c := a.correlation) is _UNSET else c for a in args]
        if not _column(g["start_ns"], [e.ts for e in fam]) or not _column(g["duration_ns"], [e.dur for e in fam]) \
                or not _column(g["corr"], corr):
            n = len(g["gkind"])
            for col in ("start_ns", "duration_ns", "corr"):
                del g[col][n:]
            fam = self._valid(fam, need_dur=True, check=_gpu_correlation_problem)
            args = [e.args or _NO_ARGS for e in fam]
            corr = [-1 if (c := a.correlation) is _UNSET else c for a in args]
            g["start_ns"].fromlist([e.ts for e in fam])
            g["duration_ns"].fromlist([e.dur for e in fam])
            g["corr"].fromlist(corr)
            if not fam:
                return
        g["gkind"].fromlist([G_KERNEL if e.cat in KERNEL_CATS else G_MEMCPY if e.cat in MEMCPY_CATS else G_MEMSET
                           for e in fam])
        g["name_id"].fromlist(self.names.ids([e.name for e in fam]))
        g["g_thread"].fromlist(self._thread_ids(fam))
        g["dev"].fromlist([d if type(d := (e.pid if a.device is _UNSET else a.device)) is int else -1
                         for e, a in zip(fam, args, strict=True)])
        g["stream"].fromlist([s if type(s := (e.tid if a.stream is _UNSET else a.stream)) is int else -1
                            for e, a in zip(fam, args, strict=True)])
        g["ext"].fromlist([-1 if (x := a.external_id) is _UNSET else x for a in args])
        g["grid_id"].fromlist(self._shape_ids([a.grid for a in args]))
        g["block_id"].fromlist(self._shape_ids([a.block for a in args]))
        g["registers"].fromlist([r if type(r := a.registers) is int else -1 for a in args])
        g["shared_mem_bytes"].fromlist([s if type(s := a.shared_memory) is int else -1 for a in args])

    def result(self, header: dict[str, Any]) -> KinetoEvents:
        self.ops["top"] = top_candidates(self.ops)
        return KinetoEvents(
            ops=self.ops, runtime=self.runtime, gpu=self.gpu, flows=self.flows, gpu_steps=self.gpu_steps,
            names=list(self.names), threads=list(self.threads), shapes=list(self.shapes),
            signatures=list(self.sig_ix), runtime_names=self.runtime_names, header=header,
            seen=self.seen, bad=self.bad, first_bad=self.first_bad, first_why=self.first_why)


#: µs: end times within this of the running maximum stay candidates (``top_candidates``): far more than the 1 ns
#: the µs → ns rounding of ``kineto._frames`` can move an end or start
_TOP_MARGIN_US = 0.01
_MAX_US = 9e15  # as kineto._MAX_US: larger ts/dur values are dropped as insane


def top_candidates(ops: dict[str, array]) -> array:
    """Per op row, 1 when it may be an outermost CPU range of its thread (``kineto._attribute``'s tops) or may
    raise the running maximum of range ends that decides them; 0 when it cannot.

    ``_attribute`` sorts the ranges of each thread by start (longest first on ties) and keeps a range when it
    starts at or after every earlier range's end. A range whose end is not above the running maximum of the
    ends before it can neither be kept nor move that maximum, so leaving it out of the sort changes nothing;
    in a trace whose ranges nest, that is every inner range. Each parallel part computes this on its own ops,
    in the part's process (a range can only gain earlier ranges from other parts, so a part's 0 stays right),
    and the main process sorts only the candidates. The test is made in µs with ``_TOP_MARGIN_US`` to spare, so
    the ns rounding cannot turn a 0 into a range that matters; rows with a negative duration, insane values or
    of ProfilerSteps are left 1 (``_attribute`` and ``_frames`` decide those)."""
    n = len(ops["ts"])
    out = array("b", b"\x01" * n)
    if n < 2:
        return out
    ts = np.frombuffer(ops["ts"], dtype=np.float64)
    dur = np.frombuffer(ops["dur"], dtype=np.float64)
    kind = np.frombuffer(ops["kind"], dtype=np.int8)
    thread = np.frombuffer(ops["thread"], dtype=np.int32)
    with np.errstate(invalid="ignore", over="ignore"):
        sane = np.isfinite(ts) & np.isfinite(dur) & (np.abs(ts) < _MAX_US) & (np.abs(dur) < _MAX_US)
        rows = np.flatnonzero(sane & (kind != KIND_STEP))
        if len(rows) < 2:
            return out
        end = ts[rows] + dur[rows]
        order = np.lexsort((-end, ts[rows], thread[rows]))
        e = end[order]
        th = thread[rows][order]
        before = np.empty(len(e))  # the running maximum of the ends before each row, within its thread
        starts = [0, *(np.flatnonzero(np.diff(th)) + 1).tolist(), len(e)]
        for a, b in zip(starts[:-1], starts[1:], strict=False):
            before[a] = -np.inf
            if b - a > 1:
                before[a + 1:b] = np.maximum.accumulate(e[a:b - 1])
        drop = (e < before - _TOP_MARGIN_US) & (dur[rows][order] >= 0)
    mask = np.frombuffer(out, dtype=np.int8)
    mask[rows[order[drop]]] = 0
    return out


_NO_ARGS = EventArgs()
#: event category → family slot in ``_Builder.add`` (ops, annotations, runtime, flows, GPU, GPU steps, bad)
_FAMILY: dict[str | None, int] = {
    **dict.fromkeys(OP_CATS, 0), **dict.fromkeys(ANNOT_CATS, 1), **dict.fromkeys(RUNTIME_CATS, 2),
    **dict.fromkeys(FLOW_CATS, 3), **dict.fromkeys(KERNEL_CATS | MEMCPY_CATS | MEMSET_CATS, 4),
    **dict.fromkeys(GPU_ANNOT_CATS, 5), "\0bad": 6,
}


def step_number(name: str) -> int | None:
    try:
        return int(name[len(STEP_PREFIX):])
    except ValueError:
        return None


# ---------------------------------------------------------------- one part, and the whole file
def parse_part(path: Path, max_bytes: int | None = None, chunk_bytes: int | None = None,
               start: int = 0, stop: int | None = None, flows: bool = False) -> KinetoEvents:
    """The events of bytes ``[start, stop)`` of the file (the whole file by default) as columns; with
    ``flows``, only the flow ends (the flows pass)."""
    trace = ChromeTrace(path, max_bytes=max_bytes, decode=decode_flows if flows else decode_chunk, start=start,
                        stop=stop, **({"chunk_bytes": chunk_bytes} if chunk_bytes else {}))
    b = _Builder()
    add = b.add_flows if flows else b.add
    for events in trace.events():
        add(events)
    return b.result(trace.header)


def parts_wanted() -> int:
    env = os.environ.get("HIPGAUGE_INGEST_WORKERS")
    if env:
        try:
            return max(1, min(int(env), 64))
        except ValueError:
            raise InputError(f"HIPGAUGE_INGEST_WORKERS={env!r} is not a whole number") from None
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_PARTS))


def parse_events(path: Path, max_bytes: int | None = None, chunk_bytes: int | None = None,
                 parts: int | None = None) -> KinetoEvents:
    """The whole trace as columns: in parallel byte ranges when it is at least ``PARALLEL_MIN_BYTES`` and
    uncompressed, else in one pass. The result does not depend on how the file was split (``merge``).

    Flow events (a quarter of a Kineto trace) are skipped by the first pass: their kernel-side ends are only
    the fallback link of GPU events without a ``correlation``, so a second pass reads them (and only them)
    when the first found such an event. No real trace in the shared fixtures needs it."""
    ev = _read(path, max_bytes, chunk_bytes, parts, flows=False)
    if len(ev.gpu["corr"]) and bool((np.frombuffer(ev.gpu["corr"], dtype=np.int64) < 0).any()):
        attach_flows(ev, _read(path, max_bytes, chunk_bytes, parts, flows=True))
    return _finish(ev)


def attach_flows(ev: KinetoEvents, fl: KinetoEvents) -> None:
    """Put the flows pass's columns (and its bad flow events) into the first pass's ``ev``."""
    first_bad, first_why = fl.first_bad, fl.first_why
    fl.first_bad, fl.seen, fl.header = None, 0, {}
    merge([ev, fl])  # renumbers the flows' threads into ev's table; counts its bad events
    if first_bad is not None and (ev.first_bad is None or first_bad < ev.first_bad):
        ev.first_bad, ev.first_why = first_bad, first_why
    ev.warnings.extend(fl.warnings)


def _read(path: Path, max_bytes: int | None, chunk_bytes: int | None, parts: int | None, flows: bool) -> KinetoEvents:
    """One pass over the file (the first, or with ``flows`` the flows pass), in parallel parts when it pays."""
    n = parts_wanted() if parts is None else parts
    min_parallel_bytes = PARALLEL_MIN_BYTES
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    if n <= 1 or size < min_parallel_bytes or size > max_bytes_limit(max_bytes) or is_gzip(path):
        return parse_part(path, max_bytes, chunk_bytes, flows=flows)
    cuts = split_points(path, size, n)
    if not cuts:
        return parse_part(path, max_bytes, chunk_bytes, flows=flows)
    bounds: list[int | None] = [0, *cuts, None]
    children: list[subprocess.Popen] = []
    failure: Exception | None = None
    collectors: list[_Collector] = []
    try:
        for i in range(1, len(bounds) - 1):
            children.append(_spawn(path, max_bytes, chunk_bytes, cuts[i - 1], bounds[i + 1], flows))
            collectors.append(_Collector(children[-1]))
        first = parse_part(path, max_bytes, chunk_bytes, 0, cuts[0], flows=flows)
        rest = [c.result() for c in collectors]
    except (InputError, _PartFailed, OSError) as exc:  # OSError: no child could be started
        failure = exc
    finally:  # on any way out (an error, ^C) no child is left running
        for c in children:
            if c.poll() is None:
                c.kill()
            c.wait()
        for t in collectors:
            t.join()
    if failure is not None:
        ev = parse_part(path, max_bytes, chunk_bytes, flows=flows)  # the one-pass read reports a malformed file exactly
        if not isinstance(failure, InputError):
            ev.warnings.append(f"reading in {len(bounds) - 1} parallel parts failed ({failure}); read in one pass instead")
        return ev
    merged = merge([first, *rest])
    check_records(merged.seen, path)
    return merged


def _finish(ev: KinetoEvents) -> KinetoEvents:
    if ev.bad:
        ev.warnings.append(f"{ev.bad} trace event(s) with missing or malformed fields were skipped "
                           f"(first: event #{ev.first_bad}{ev.first_why})")
    return ev


class _PartFailed(Exception):
    """A child reading one byte range did not return its columns."""


def _spawn(path: Path, max_bytes: int | None, chunk_bytes: int | None, start: int, stop: int | None,
           flows: bool = False) -> subprocess.Popen:
    """A ``python -m`` child reading one byte range (a plain process, not multiprocessing: nothing of the
    caller's ``__main__`` is re-run in it)."""
    package_root = str(Path(__file__).resolve().parents[3])
    env = dict(os.environ)
    env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    # glibc: big column buffers stay mapped, so a column sent and let go is returned to the system at once
    env.setdefault("MALLOC_MMAP_THRESHOLD_", str(4 * 1024**2))
    cmd = [sys.executable, "-m", __name__, str(path), str(start), "" if stop is None else str(stop),
           "" if max_bytes is None else str(max_bytes), "" if chunk_bytes is None else str(chunk_bytes),
           "flows" if flows else ""]
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:  # Linux: the pipe takes 1 MiB per wake-up of the reader, not 64 KiB
        import fcntl  # noqa: PLC0415 - not on every platform

        fcntl.fcntl(child.stdout.fileno(), fcntl.F_SETPIPE_SZ, 1024**2)  # type: ignore[union-attr]
    except (ImportError, AttributeError, OSError):
        pass
    return child


class _Collector(threading.Thread):
    """Reads one child's columns (``_collect``) while this process reads its own part: the transfer through
    the pipe and the unpickling (mostly copies that release the GIL or are short) overlap the parse instead
    of following it, and a child that finished first exits and frees its memory at once."""

    def __init__(self, child: subprocess.Popen):
        super().__init__(name="hipgauge-ingest-part", daemon=True)
        self._child = child
        self._out: KinetoEvents | None = None
        self._error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self._out = _collect(self._child)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller by result()
            self._error = exc

    def result(self) -> KinetoEvents:
        self.join()
        if self._error is not None:
            raise self._error
        assert self._out is not None
        return self._out


_FAMILIES = ("ops", "runtime", "gpu", "flows")


def _send(ev: KinetoEvents, out: Any) -> None:
    """Pickle ``ev`` to ``out`` as the child sends it: the tables first, then one column at a time, each let go
    once written, so the child shrinks while this process's copy grows (``_receive`` reads it)."""
    columns = [(fam, getattr(ev, fam)) for fam in _FAMILIES]
    for fam in _FAMILIES:
        setattr(ev, fam, {})
    pickle.dump(ev, out, protocol=pickle.HIGHEST_PROTOCOL)
    for fam, cols in columns:
        for name in list(cols):
            pickle.dump((fam, name, cols.pop(name)), out, protocol=pickle.HIGHEST_PROTOCOL)
    pickle.dump(None, out)


def _receive(stream: Any) -> KinetoEvents:
    ev = pickle.load(stream)
    if not isinstance(ev, KinetoEvents):
        raise ValueError(f"not columns: {type(ev).__name__}")
    while (item := pickle.load(stream)) is not None:
        fam, name, column = item
        getattr(ev, fam)[name] = column
    return ev


def _collect(child: subprocess.Popen) -> KinetoEvents:
    """The child's columns, unpickled straight from its pipe (no copy of the whole pickle is held)."""
    assert child.stdout is not None and child.stderr is not None
    ev: KinetoEvents | Exception
    try:
        ev = _receive(child.stdout)
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError, TypeError) as exc:
        ev = exc
    err = child.stderr.read()
    child.wait()
    if child.returncode != 0:
        raise _PartFailed(err.decode(errors="replace").strip()[-300:] or f"exit status {child.returncode}")
    if not isinstance(ev, KinetoEvents):
        raise _PartFailed(f"unreadable result: {ev}")
    return ev


def split_points(path: Path, size: int, parts: int) -> list[int]:
    """Byte offsets (each the ``{`` of an event) cutting the file into about ``parts`` equal ranges; an
    offset is taken only where the megabyte after it decodes as whole events. Empty when none is found."""
    cuts: list[int] = []
    with open(path, "rb") as fh:
        key = -1
        for at in range(0, 64 * 1024**2, 1024**2):  # the key sits after the header: look a megabyte at a time
            head = fh.read(1024**2 + 16)
            found = head.find(b'"traceEvents"')
            if found >= 0:
                key = at + found
                break
            if len(head) <= 16:
                break
            fh.seek(at + 1024**2)
        if key < 0:
            return []
        for k in range(1, parts):
            # the first part is read here while the others start a process and send their columns back:
            # it takes a little more than its share
            share = (k + _FIRST_PART_EXTRA) / (parts + _FIRST_PART_EXTRA)
            at = max(int(size * share), key + 1, (cuts[-1] + 1) if cuts else 0)
            fh.seek(at)
            window = fh.read(_SPLIT_WINDOW_BYTES)
            cut = _first_boundary(window)
            if cut is None:
                return []
            cuts.append(at + cut)
    return sorted(set(cuts))


def _boundaries(data: bytes, begin: int = 0) -> Iterable[int]:
    """Positions of the ``{`` of each ``}`` ``,`` ``{`` sequence (whitespace allowed) from ``begin``."""
    pos = begin
    while True:
        k = data.find(b"{", pos)
        if k < 0:
            return
        j = k - 1
        while j >= 0 and data[j] in b" \t\r\n":
            j -= 1
        if j >= 0 and data[j] == 0x2C:
            j -= 1
            while j >= 0 and data[j] in b" \t\r\n":
                j -= 1
            if j >= 0 and data[j] == 0x7D:
                yield k
        pos = k + 1


def _first_boundary(window: bytes) -> int | None:
    """The first boundary in ``window`` after which at least ``_SPLIT_PROBE_BYTES`` decode as events."""
    for tries, start in enumerate(_boundaries(window)):
        if tries >= 64:
            return None
        end = next((b for b in _boundaries(window, start + _SPLIT_PROBE_BYTES)), None)
        if end is None:
            return None
        body = window[start:end].rstrip(b" \t\r\n")
        if not body.endswith(b","):
            continue
        try:
            _EVENTS.decode(b"[" + body[:-1] + b"]")
        except msgspec.ValidationError:
            return start  # valid JSON events, only some malformed: the boundary is real
        except msgspec.DecodeError:
            continue
        return start
    return None


def merge(parts: list[KinetoEvents]) -> KinetoEvents:
    """One ``KinetoEvents`` from consecutive parts: ids of names, threads, shapes and signatures are
    renumbered into the first part's tables, columns appended in file order."""
    out = parts[0]
    tables: dict[str, dict[Any, int]] = {
        "names": {v: i for i, v in enumerate(out.names)}, "threads": {v: i for i, v in enumerate(out.threads)},
        "shapes": {v: i for i, v in enumerate(out.shapes)}, "signatures": {v: i for i, v in enumerate(out.signatures)},
    }
    columns: dict[str, list[tuple[str, str]]] = {  # family → (column, table) for the id columns
        "ops": [("thread", "threads"), ("name_id", "names"), ("sig", "signatures")],
        "runtime": [("r_thread", "threads"), ("r_name", "names")],
        "gpu": [("name_id", "names"), ("g_thread", "threads"), ("grid_id", "shapes"), ("block_id", "shapes")],
        "flows": [("g_thread", "threads")],
    }
    for part in parts[1:]:
        remap: dict[str, np.ndarray] = {}
        for table, values in (("names", part.names), ("threads", part.threads), ("shapes", part.shapes),
                              ("signatures", part.signatures)):
            ix = tables[table]
            target: list[Any] = getattr(out, table)
            mapping = np.empty(len(values) + 1, dtype=np.int64)
            for i, v in enumerate(values):
                j = ix.get(v)
                if j is None:
                    j = ix[v] = len(target)
                    target.append(v)
                mapping[i] = j
            mapping[len(values)] = -1  # id -1 (none) stays -1
            remap[table] = mapping
        for fam in ("ops", "runtime", "gpu", "flows"):
            mine: dict[str, array] = getattr(out, fam)
            theirs: dict[str, array] = getattr(part, fam)
            renumbered = dict(columns[fam])
            for col in list(theirs):
                column = theirs.pop(col)  # each part's column is let go once appended
                id_table = renumbered.get(col)
                if id_table is None or not len(column):
                    mine[col].extend(column)
                    continue
                ids = np.frombuffer(column, dtype=np.dtype(column.typecode if column.typecode != "q" else "i8"))
                new = remap[id_table][ids]  # -1 indexes the sentinel slot
                mine[col].frombytes(new.astype(ids.dtype).tobytes())
        out.gpu_steps.extend(part.gpu_steps)
        for name in part.runtime_names:
            if len(out.runtime_names) < 64:
                out.runtime_names.add(name)
        if part.first_bad is not None and out.first_bad is None:
            out.first_bad, out.first_why = out.seen + part.first_bad, part.first_why
        out.bad += part.bad
        out.seen += part.seen
        out.header.update(part.header)  # the last part holds the keys written after traceEvents
    return out


def _child_main(argv: list[str]) -> int:
    """``python -m hipgauge.profiles.readers.kineto_events PATH START STOP MAX_BYTES CHUNK [flows]``: one
    part, pickled to stdout."""
    import gc  # noqa: PLC0415 - child process entry point only

    gc.disable()
    path, start, stop, max_bytes, chunk, *mode = argv
    try:
        ev = parse_part(Path(path), int(max_bytes) if max_bytes else None, int(chunk) if chunk else None,
                        int(start), int(stop) if stop else None, flows=mode == ["flows"])
    except InputError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    _send(ev, sys.stdout.buffer)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    # run through the module's import name, so that what is pickled names hipgauge's class, not __main__'s
    import importlib

    code = importlib.import_module("hipgauge.profiles.readers.kineto_events")._child_main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # the columns are sent: skip freeing them object by object at interpreter exit
