"""Nsight Compute counters: the raw page (``--page raw --csv``: one row per launch, metrics as columns, a
units row) and the details page (``--page details --csv``: one row per launch and metric, sections such as
SpeedOfLight, Occupancy, MemoryWorkloadAnalysis, LaunchStats).

The details page names its metrics for people (``Achieved Occupancy``, ``DRAM Throughput``); they are stored
under the metric each one displays (``sm__warps_active.avg.pct_of_peak_sustained_active``,
``dram__throughput.avg.pct_of_peak_sustained_elapsed``) so that both pages give one table. Metrics given with
``--metrics`` appear under their own names on both pages. Values are normalized to base units: ncu scales
with SI prefixes (``16.896 Kbyte`` is 16,896 bytes; ``Gbyte/second`` is 10⁹ bytes per second), times to ns.
Launches are keyed by ncu's ``ID``, which the kernel reader stores as ``correlation``.
"""

from __future__ import annotations

import re
from pathlib import Path

from hipgauge.errors import InputError

from .counters_table import CounterSample
from .table import TIME_UNITS, Table, number, read_table

#: details-page metric names (and, where a name is shared, its unit kind) → the metric it displays
DETAILS_NAMES: dict[str, str] = {
    "Achieved Occupancy": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "Achieved Active Warps Per SM": "sm__warps_active.avg.per_cycle_active",
    "Theoretical Occupancy": "sm__maximum_warps_per_active_cycle_pct",
    "Theoretical Active Warps per SM": "sm__maximum_warps_avg_per_active_cycle",
    "DRAM Throughput": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "Memory Throughput %": "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "Memory Throughput byte/second": "dram__bytes.sum.per_second",
    "Compute (SM) Throughput": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "L2 Hit Rate": "lts__t_sector_hit_rate.pct",
    "L1/TEX Hit Rate": "l1tex__t_sector_hit_rate.pct",
    "L2 Cache Throughput": "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "Duration": "gpu__time_duration.sum",
    "Elapsed Cycles": "gpc__cycles_elapsed.max",
    "SM Frequency": "gpc__cycles_elapsed.avg.per_second",
    "DRAM Frequency": "dram__cycles_elapsed.avg.per_second",
    "Block Limit Registers": "launch__occupancy_limit_registers",
    "Block Limit Shared Mem": "launch__occupancy_limit_shared_mem",
    "Block Limit Warps": "launch__occupancy_limit_warps",
    "Block Limit SM": "launch__occupancy_limit_blocks",
    "Block Limit Barriers": "launch__occupancy_limit_barriers",
    "Registers Per Thread": "launch__registers_per_thread",
    "Static Shared Memory Per Block": "launch__shared_mem_per_block_static",
    "Dynamic Shared Memory Per Block": "launch__shared_mem_per_block_dynamic",
    "Driver Shared Memory Per Block": "launch__shared_mem_per_block_driver",
    "Shared Memory Configuration Size": "launch__shared_mem_config_size",
    "Block Size": "launch__block_size",
    "Grid Size": "launch__grid_size",
    "Waves Per SM": "launch__waves_per_multiprocessor",
    "# SMs": "device__attribute_multiprocessor_count",
}

_SI = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
_BYTES_RE = re.compile(r"^(?P<p>[kmgt]?)byte(?P<rest>(/.*)?)$", re.IGNORECASE)
_SKIP_PREFIXES = ("device__attribute_", "c2clink__", "nvlink__", "profiler__", "numa__", "pmsampling:")


def normalize_unit(value: float, unit: str) -> tuple[float, str]:
    """``(value, unit)`` in base units: bytes (SI prefixes), ns, ``%``; other units unchanged."""
    u = unit.strip()
    low = u.lower()
    if low in ("", "%"):
        return value, u
    m = _BYTES_RE.match(low)
    if m:
        rest = m.group("rest") or ""
        scale = _SI[m.group("p").lower()]
        if rest in ("/s", "/second", "/sec"):
            rest = "/second"
        elif rest.startswith("/") and rest[1:] in TIME_UNITS:  # byte/usecond and the like
            return value * scale * 1e9 / TIME_UNITS[rest[1:]], "byte/second"
        return value * scale, "byte" + rest
    if low in TIME_UNITS:
        return value * TIME_UNITS[low], "ns"
    if low in ("hz", "khz", "mhz", "ghz"):
        return value * _SI[low[0]] if low != "hz" else value, "hz"
    return value, u


def _is_header(f: list[str]) -> bool:
    return "Kernel Name" in f and ("ID" in f or "Process ID" in f)


def _min_fields(header: list[str]) -> int:
    return header.index("Metric Value") + 1 if "Metric Value" in header else len(header)


def _launch_id(cell: str) -> int | None:
    s = cell.strip()
    return int(s) if s.isdigit() else None


def read_ncu_counters(path: str | Path, max_bytes: int | None = None) -> tuple[list[CounterSample], dict[str, str]]:
    """Every numeric metric of every launch in an ncu CSV (raw or details page), and what the file says
    of the device (``device_name``, ``arch``)."""
    path = Path(path)
    t = read_table(path, _is_header, max_bytes, what="Nsight Compute CSV", min_fields=_min_fields)
    if t.col("Metric Name") is not None and t.col("Metric Value") is not None:
        return _details(t), {"page": "details"}
    return _raw(t)


def _details(t: Table) -> list[CounterSample]:
    ci_id, ci_name, ci_pid = t.col("ID"), t.col("Kernel Name"), t.col("Process ID")
    ci_metric, ci_unit, ci_value = t.col("Metric Name"), t.col("Metric Unit"), t.col("Metric Value")
    assert ci_name is not None and ci_metric is not None and ci_value is not None
    out: list[CounterSample] = []
    # a launch is an (ID, process) pair: IDs restart in each profiled process
    seqs: dict[tuple[str, str], int] = {}
    for _line, f in t.rows:
        key = (f[ci_id] if ci_id is not None else "", f[ci_pid] if ci_pid is not None else "")
        seqs.setdefault(key, len(seqs))
    ids_unique = len({k[0] for k in seqs}) == len(seqs)
    for _line, f in t.rows:
        metric = f[ci_metric].strip()
        if not metric:
            continue  # a rule row (Rule Name / Description), not a metric
        try:
            v = number(f[ci_value])
        except InputError:
            continue  # a text value ("PolicySpread", "all")
        if v is None:
            continue
        unit = f[ci_unit].strip() if ci_unit is not None else ""
        value, base = normalize_unit(v, unit)
        if "__" in metric:
            counter = metric
        else:
            kind = "%" if base == "%" else base
            counter = DETAILS_NAMES.get(f"{metric} {kind}") or DETAILS_NAMES.get(metric) or metric
        key = (f[ci_id] if ci_id is not None else "", f[ci_pid] if ci_pid is not None else "")
        launch = _launch_id(key[0]) if ci_id is not None and ids_unique else None
        out.append(CounterSample(launch, f[ci_name], counter, value, base, seq=seqs[key]))
    return out


def _raw(t: Table) -> tuple[list[CounterSample], dict[str, str]]:
    ci_id, ci_name = t.col("ID"), t.col("Kernel Name")
    assert ci_name is not None
    metrics = [i for i, h in enumerate(t.header) if "__" in h and not h.startswith(_SKIP_PREFIXES)]
    meta: dict[str, str] = {"page": "raw"}
    ci_dev = t.col("device__attribute_display_name")
    units = [""] * len(t.header)
    out: list[CounterSample] = []
    for n, (_line, f) in enumerate(t.rows):
        if ci_id is not None and f[ci_id].strip() == "" and f[ci_name].strip() == "":
            units = f
            continue
        if ci_dev is not None and f[ci_dev].strip():
            meta.setdefault("device_name", f[ci_dev].strip())
        launch = _launch_id(f[ci_id]) if ci_id is not None else None
        for i in metrics:
            try:
                v = number(f[i])
            except InputError:
                continue
            if v is None:
                continue
            value, base = normalize_unit(v, units[i])
            out.append(CounterSample(launch, f[ci_name], t.header[i], value, base, seq=n))
    return out, meta
