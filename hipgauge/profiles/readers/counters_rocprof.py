"""AMD hardware counters: rocprofv3 ``counter_collection.csv`` (long: one row per dispatch and counter, both the
2024 and the 2025 column sets) and its JSON (``callback_records.counter_collection``), rocprof v1
``results.csv`` made with ``--pmc`` (one column per counter), and rocprof-compute workload folders
(``pmc_perf.csv``, one column per counter or per counter instance, with ``sysinfo.csv`` for the part).

Counters are stored raw, as the profiler names them; the figures derived from them (occupancy, HBM bytes,
% of peak, L2 hit rate) are computed in ``profiles/counters.py``. ``sysinfo.csv`` (and the rocprofv3 JSON
agent record) give the part's limits: ``cu_per_gpu``, ``max_waves_per_cu``, ``num_xcd``, ``hbm_bw`` (GB/s),
``gpu_arch``, ``gpu_model``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from hipgauge.errors import InputError

from .counters_table import CounterSample
from .files import read_bytes
from .table import Table, number, read_table

#: rocprof v1 results.csv columns that describe the dispatch (every other column is a counter)
V1_BASE = frozenset({"Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr", "lds",
                     "scr", "arch_vgpr", "accum_vgpr", "vgpr", "sgpr", "wave_size", "sig", "obj", "DispatchNs",
                     "BeginNs", "EndNs", "CompleteNs", "DurationNs"})
#: rocprof-compute pmc_perf.csv / timestamps.csv columns that describe the dispatch
COMPUTE_BASE = frozenset({"Dispatch_ID", "Kernel_Name", "GPU_ID", "Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup",
                          "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR", "wave_size", "Wave_Size", "obj",
                          "sig", "Start_Timestamp", "End_Timestamp", "DispatchNs", "CompleteNs", "queue-id",
                          "queue-index", "Queue_ID", "pid", "tid", "PID", "TID", "Correlation_ID", "Node", "Kernel_ID",
                          "Process_ID", "Thread_ID", "Agent_Id", "Queue_Id"})
_SUFFIXED = re.compile(r"^(wave_size|obj|sig)_\d+$")
#: sysinfo.csv columns kept as the part's limits
SYSINFO_KEYS = ("gpu_model", "gpu_arch", "cu_per_gpu", "max_waves_per_cu", "simd_per_cu", "wave_size", "num_xcd",
                "hbm_bw", "max_sclk", "total_l2_chan")


def _i(v: float | None) -> int | None:
    return None if v is None else round(v)


def _wide(t: Table, base: frozenset[str], id_cols: tuple[str, ...], name_cols: tuple[str, ...]) -> list[CounterSample]:
    """Counters of a one-row-per-dispatch table: every numeric column that is not a dispatch attribute."""
    ci_id = t.col(*id_cols)
    ci_name = t.col(*name_cols)
    counters = [i for i, h in enumerate(t.header) if h not in base and not _SUFFIXED.match(h)]
    out: list[CounterSample] = []
    for n, (_line, f) in enumerate(t.rows):
        launch = _i(number(f[ci_id])) if ci_id is not None else None
        name = f[ci_name] if ci_name is not None else None
        for i in counters:
            try:
                v = number(f[i])
            except InputError:
                continue
            if v is not None:
                out.append(CounterSample(launch, name, t.header[i], v, seq=n))
    return out


# --------------------------------------------------------------------------- rocprof v1 results.csv --pmc
def v1_counters(path: Path, max_bytes: int | None = None) -> list[CounterSample]:
    t = read_table(path, lambda f: "KernelName" in f, max_bytes, what="rocprof results.csv")
    return _wide(t, V1_BASE, ("Index",), ("KernelName",))


# --------------------------------------------------------------------------- rocprof-compute
def compute_counters(path: Path, max_bytes: int | None = None) -> list[CounterSample]:
    t = read_table(path, lambda f: "Kernel_Name" in f and "Dispatch_ID" in f, max_bytes, what="rocprof-compute pmc_perf.csv")
    return _wide(t, COMPUTE_BASE, ("Dispatch_ID",), ("Kernel_Name",))


def read_sysinfo(path: Path) -> dict[str, str]:
    t = read_table(path, lambda f: "gpu_model" in f or "gpu_arch" in f, what="sysinfo.csv")
    if not t.rows:
        return {}
    _, f = t.rows[0]
    out = {}
    for key in SYSINFO_KEYS:
        i = t.col(key)
        if i is not None and f[i].strip() and f[i].strip().upper() not in ("NA", "N/A"):
            out[key] = f[i].strip()
    return out


# --------------------------------------------------------------------------- rocprofv3 counter_collection.csv
def _v3_header(f: list[str]) -> bool:
    return "Counter_Name" in f and "Counter_Value" in f


def read_v3_counter_table(path: Path, max_bytes: int | None = None) -> Table:
    return read_table(path, _v3_header, max_bytes, what="rocprofv3 counter_collection.csv")


def v3_counters(t: Table) -> list[CounterSample]:
    ci_corr, ci_disp = t.col("Correlation_Id"), t.col("Dispatch_Id")
    ci_name, ci_cn, ci_cv = t.col("Kernel_Name"), t.col("Counter_Name"), t.col("Counter_Value")
    assert ci_cn is not None and ci_cv is not None
    ci_id = ci_corr if ci_corr is not None else ci_disp
    out: list[CounterSample] = []
    for line, f in t.rows:
        v = number(f[ci_cv], t.path, line, "Counter_Value")
        if v is None:
            continue
        out.append(CounterSample(_i(number(f[ci_id])) if ci_id is not None else None,
                                 f[ci_name] if ci_name is not None else None, f[ci_cn].strip(), v))
    return out


def v3_dispatches(t: Table) -> list[dict[str, Any]]:
    """One record per dispatch of a counter_collection.csv, in file order (the kernel rows when the file is read
    as a profile): name, start/end when the 2025 column set has them, resources, ids."""
    seen: dict[Any, dict[str, Any]] = {}
    c = t.col

    def num(f: list[str], line: int, *names: str) -> float | None:
        i = c(*names)
        return None if i is None else number(f[i], t.path, line, t.header[i])

    for line, f in t.rows:
        disp = _i(num(f, line, "Dispatch_Id"))
        corr = _i(num(f, line, "Correlation_Id"))
        key = (disp, corr) if disp is not None or corr is not None else (line,)
        if key in seen:
            continue
        ci_name = c("Kernel_Name")
        start, end = num(f, line, "Start_Timestamp"), num(f, line, "End_Timestamp")
        seen[key] = {
            "raw_name": f[ci_name] if ci_name is not None else "",
            "start_ns": _i(start), "duration_ns": _i(end - start) if start is not None and end is not None else None,
            "stream": _i(num(f, line, "Queue_Id")), "registers": _i(num(f, line, "VGPR_Count", "Arch_VGPR_Count")),
            "shared_mem_bytes": _i(num(f, line, "LDS_Block_Size", "Lds_Block_Size")),
            "correlation": corr if corr is not None else disp,
        }
    return list(seen.values())


# --------------------------------------------------------------------------- rocprofv3 JSON
_HAS_COUNTER_RECORDS = re.compile(rb'"counter_collection"\s*:\s*\[\s*\{')


def v3_json_counters(path: Path, max_bytes: int | None = None) -> tuple[list[CounterSample], dict[str, str]]:
    """``callback_records.counter_collection`` of every ``rocprofiler-sdk-tool`` entry: per dispatch, the
    records of each counter summed over their dimension instances; keyed by ``correlation_id.internal``."""
    data = read_bytes(path, max_bytes)
    if not _HAS_COUNTER_RECORDS.search(data):
        return [], {}
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc}", path) from None
    out: list[CounterSample] = []
    part: dict[str, str] = {}
    for tool in doc.get("rocprofiler-sdk-tool") or []:
        if not isinstance(tool, dict):
            continue
        names: dict[Any, str] = {}
        for cdef in tool.get("counters") or []:
            cid = cdef.get("id")
            cid = cid.get("handle") if isinstance(cid, dict) else cid
            if cdef.get("name"):
                names[cid] = str(cdef["name"])
        agents = {}
        for a in tool.get("agents") or []:
            aid = a.get("id")
            agents[aid.get("handle") if isinstance(aid, dict) else aid] = a
        syms = {s.get("kernel_id"): s for s in tool.get("kernel_symbols") or [] if isinstance(s, dict)}
        for rec in (tool.get("callback_records") or {}).get("counter_collection") or []:
            dd = rec.get("dispatch_data") or {}
            info = dd.get("dispatch_info") or {}
            corr = dd.get("correlation_id") or {}
            launch = corr.get("internal") if isinstance(corr, dict) else corr
            if launch is None:
                launch = info.get("dispatch_id")
            sym = syms.get(info.get("kernel_id"), {})
            kname = sym.get("kernel_name") or sym.get("formatted_kernel_name")
            sums: dict[str, float] = {}
            for r in rec.get("records") or []:
                cid = r.get("counter_id")
                cid = cid.get("handle") if isinstance(cid, dict) else cid
                name = names.get(cid, f"counter#{cid}")
                try:
                    sums[name] = sums.get(name, 0.0) + float(r.get("value"))
                except (TypeError, ValueError):
                    continue
            for name, v in sums.items():
                out.append(CounterSample(int(launch) if launch is not None else None, kname, name, v))
            if not part:
                agent = agents.get((info.get("agent_id") or {}).get("handle"), {})
                part = _agent_limits(agent)
    return out, part


def _agent_limits(agent: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, src in (("gpu_model", "product_name"), ("gpu_arch", "name"), ("cu_per_gpu", "cu_count"),
                     ("max_waves_per_cu", "max_waves_per_cu"), ("simd_per_cu", "simd_per_cu"),
                     ("wave_size", "wave_front_size"), ("num_xcd", "num_xcc")):
        v = agent.get(src)
        if v not in (None, "", 0):
            out[key] = str(v)
    return out


def read_agent_info(path: Path) -> dict[str, str]:
    """The GPU agent's limits from a rocprofv3 ``agent_info.csv`` (the first GPU row)."""
    t = read_table(path, lambda f: "Agent_Type" in f, what="rocprofv3 agent_info.csv")
    for _line, f in t.rows:
        i = t.col("Agent_Type")
        if i is None or f[i].strip().upper() != "GPU":
            continue
        row = {h.lower(): f[j].strip() for j, h in enumerate(t.header)}
        return _agent_limits(row)
    return {}


def sibling(path: Path, names: tuple[str, ...], strip: tuple[str, ...]) -> Path | None:
    """``RUN_<name>`` beside ``RUN_<one of strip>`` (rocprofv3's ``-o RUN`` prefix), else ``<name>`` in the folder."""
    for marker in strip:
        if path.name.endswith(marker):
            prefix = path.name[: -len(marker)]
            for n in names:
                cand = path.with_name(prefix + n)
                if cand.exists() and cand != path:
                    return cand
    for n in names:
        cand = path.with_name(n)
        if cand.exists() and cand != path:
            return cand
    return None
