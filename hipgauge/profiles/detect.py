"""Which profile format a file is, from its content (the extension is only a tie-breaker).

``detect_format(path) -> str | None`` returns one of ``load.FORMATS`` or ``"latency-csv"``, or None.
``find_in_directory(path)`` picks the profile inside a tool's output folder.
"""

from __future__ import annotations

import csv
import re
import sqlite3
from pathlib import Path

from .readers.files import head_bytes

SQLITE_MAGIC = b"SQLite format 3\x00"


def _sqlite_format(path: Path) -> str | None:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        rows = con.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')").fetchall()
    except sqlite3.Error:
        return None
    finally:
        con.close()
    names = {r[0] for r in rows}
    lower = {n.lower() for n in names}
    if "CUPTI_ACTIVITY_KIND_KERNEL" in names or "StringIds" in names and any(n.startswith("CUPTI_") for n in names):
        return "nsys-sqlite"
    if any(n.startswith("rocpd_") for n in lower):
        return "rocpd"
    if "ops" in lower:
        return "rocprof-v1-db"
    return None


def header_fields(line: str) -> list[str]:
    try:
        return [f.strip() for f in next(csv.reader([line]))]
    except (csv.Error, StopIteration):
        return []


def _csv_format(text: str) -> str | None:
    for line in text.splitlines()[:200]:
        s = line.strip()
        if not s or s.startswith("==") or "," not in s:
            continue
        fields = header_fields(s)
        f = set(fields)
        low = {x.lower() for x in fields}
        if {"iteration", "latency_ms"} <= low:
            return "latency-csv"
        if "Counter_Name" in f and "Counter_Value" in f:
            return "rocprofv3-counters"  # rocprofv3 counter collection: one row per dispatch and counter
        if "KernelName" in f and "DurationNs" in f:
            return "rocprof-v1"
        if {"Name", "Calls", "TotalDurationNs"} <= f:
            return "rocprof-stats"
        if "Kernel_Name" in f and ("Kind" in f or "Kernel_Id" in f):
            return "rocprofv3-csv"
        if "Kernel_Name" in f and "Start_Timestamp" in f:
            return "rocprof-compute"
        if "Kernel Name" in f and ("ID" in f or "Process ID" in f):
            return "ncu-csv"
        if ("Total Time (ns)" in f or "Total Time" in f) and "Instances" in f and "Name" in f:
            return "nsys-csv"
        if any(x.startswith("Time(%)") or x.startswith("Time (%)") for x in fields) and "Instances" in f:
            return "nsys-csv"
        if "Start (ns)" in f and "Duration (ns)" in f and "Name" in f:
            return "nsys-csv"
        if "Start" in f and "Duration" in f and "CorrId" in f:
            return "nsys-csv"
    return None


def detect_format(path: Path) -> str | None:
    path = Path(path)
    head = head_bytes(path, 1 << 20)
    if not head:
        return None
    if head.startswith(SQLITE_MAGIC):
        return _sqlite_format(path)
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped[:1] in (b"{", b"["):
        if b"rocprofiler-sdk-tool" in head:
            return "rocprofv3-json"
        if b'"BeginNs"' in head or b'"DataFlow"' in head or re.search(rb'"pid"\s*:\s*"GPU', head):
            return "rocprof-v1-json"
        if b"traceEvents" in head or b'"ph"' in head:
            return "kineto"
        if len(head) >= (1 << 20) and stripped[:1] == b"{":
            return "kineto"  # a JSON object whose first MiB is all metadata: let the trace reader judge it
        return None
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = head.decode("latin-1")
    return _csv_format(text)


#: In a tool's output folder, the file to read, most specific first (glob patterns).
_DIRECTORY_PICKS = (
    "timestamps.csv",  # rocprof-compute workload (…/workloads/NAME/<SoC>/)
    "*kernel_trace.csv",  # rocprofv3 CSV output
    "*_results.db",  # rocpd
    "*results.json",  # rocprofv3 JSON
    "results.csv",  # rocprof v1
    "*.pt.trace.json.gz",  # PyTorch TensorBoard handler
    "*.pt.trace.json",
    "*cuda_gpu_trace*.csv",
    "*.sqlite",
    "*kernel_stats.csv",
    "*cuda_gpu_kern_sum*.csv",
    "*gpukernsum*.csv",
    "results.stats.csv",
    "*.json.gz",
    "*.json",
    "*.csv",
)


def find_in_directory(path: Path) -> Path | None:
    """The profile file a tool's output folder holds, or None. Searches up to 3 levels down."""
    path = Path(path)
    for pattern in _DIRECTORY_PICKS:
        for depth in range(3):
            prefix = "*/" * depth
            hits = sorted(p for p in path.glob(prefix + pattern) if p.is_file())
            hits = [p for p in hits if detect_format(p) not in (None, "latency-csv")]
            if hits:
                return hits[0]
    return None
