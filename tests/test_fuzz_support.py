"""Shared pieces of the fuzz suite (no tests here): seed inputs, mutators, invariant checks.

The invariant every fuzz test checks: a reader either returns its result (possibly with warnings) or
raises ``hipgauge.errors.InputError`` — never any other exception. ``scripts/fuzz.py`` imports this
module too, for the longer runs.

Seeds are real profiler files from ``../shared/fixtures`` (skipped cleanly when absent) and this
repository's own small fixtures; mutations are applied to the decompressed content and the result
is written back plain or gzip-compressed.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import random
import sqlite3
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[1]
SHARED_FIXTURES = REPO.parent / "shared" / "fixtures"
REAL = SHARED_FIXTURES / "real"
H200 = SHARED_FIXTURES / "h200"
DATA = Path(__file__).resolve().parent / "data"
BADINPUT = DATA / "badinput"

#: seeds: (path relative to the shared fixtures, format). Small files only (fuzzing re-reads them).
SHARED_SEEDS: tuple[tuple[str, str], ...] = (
    ("real/hta/trace_compare/base/base.json.gz", "kineto"),
    ("real/hta/trace_compare/test/test.json.gz", "kineto"),
    ("real/pytorch_kineto/triton_example/triton_example.json.gz", "kineto"),
    ("real/pytorch_kineto/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", "kineto"),
    ("real/nsys/phobos-lang_RTX2080S_excerpt/lmhead_profile_cuda_gpu_trace.head.csv", "nsys-csv"),
    ("real/ncu/superbenchmark_cublaslt_B200/cublaslt_ncu.log", "ncu-csv"),
    ("real/rocprofv3/rocm-systems_docs_data/kernel_trace.csv", "rocprofv3-csv"),
    ("real/rocprofv3/rocm-systems_docs_data/kernel_trace_truncated.csv", "rocprofv3-csv"),
    ("real/rocprofv3/rocprofiler-sdk_docs_data_2024/kernel_trace.csv", "rocprofv3-csv"),
    ("real/rocprof_compute/vcopy_MI200/timestamps.csv", "rocprof-compute"),
    ("real/rocprof_compute/vcopy_MI300X_A1/timestamps.csv", "rocprof-compute"),
)

#: seeds kept in this repository (tests/data/badinput/seeds), always present.
LOCAL_SEEDS: tuple[tuple[str, str], ...] = (
    ("seeds/kineto_small.json", "kineto"),
    ("seeds/nsys_gpu_trace.csv", "nsys-csv"),
    ("seeds/nsys_kern_sum.csv", "nsys-csv"),
    ("seeds/ncu_details.csv", "ncu-csv"),
    ("seeds/rocprof_v1_results.csv", "rocprof-v1"),
    ("seeds/rocprof_v1_results.json", "rocprof-v1-json"),
    ("seeds/rocprof_stats.csv", "rocprof-stats"),
    ("seeds/rocprofv3_results.json", "rocprofv3-json"),
)

CUDA_SEED_DIRS = (REPO / "examples" / "detector" / "src", REPO / "examples" / "detector" / "include",
                  DATA / "badinput" / "cuda")


def have_shared() -> bool:
    return REAL.is_dir()


@lru_cache(maxsize=None)
def seed_bytes(path: str) -> bytes:
    """Decompressed content of a seed (absolute path)."""
    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        return gzip.decompress(raw)
    return raw


def profile_seeds(include_shared: bool = True) -> list[tuple[Path, str]]:
    seeds = [(BADINPUT / rel, fmt) for rel, fmt in LOCAL_SEEDS if (BADINPUT / rel).is_file()]
    if include_shared and have_shared():
        seeds += [(SHARED_FIXTURES / rel, fmt) for rel, fmt in SHARED_SEEDS if (SHARED_FIXTURES / rel).is_file()]
    return seeds


def cuda_seeds() -> list[Path]:
    found: list[Path] = []
    for d in CUDA_SEED_DIRS:
        if d.is_dir():
            found += sorted(p for p in d.rglob("*") if p.suffix in (".cu", ".cuh", ".h", ".cpp") and p.is_file())
    return found


# ------------------------------------------------------------------------------------------ values
#: values that break naive readers: wrong types, huge/negative/non-finite numbers, odd strings.
WEIRD_SCALARS = (None, True, False, 0, -1, -(2**63), 2**63, 2**70, -(2**70), 1e308, -1e308, 0.5, -0.0,
                 "", " ", "0", "-5", "1e999", "NaN", "nan", "inf", "1,5", "1.234,5", "\x00", "ÿ", "<script>",
                 "ProfilerStep#", "ProfilerStep#x", "ProfilerStep#99999999999999999999", [], {}, [1, 2], {"x": 1})


def weird_values() -> st.SearchStrategy[Any]:
    leaf = st.one_of(
        st.sampled_from(WEIRD_SCALARS),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=12),
    )
    return st.recursive(leaf, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                        max_leaves=6)


# ------------------------------------------------------------------------------------------ mutators
def mutate_bytes(data: bytes, rnd: random.Random, n_ops: int) -> bytes:
    """Truncate, flip, delete, insert, duplicate: byte-level damage."""
    buf = bytearray(data)
    for _ in range(n_ops):
        op = rnd.randrange(6)
        n = len(buf)
        if op == 0 and n:  # truncate
            del buf[rnd.randrange(n):]
        elif op == 1 and n:  # flip bits
            for _ in range(rnd.randint(1, 8)):
                i = rnd.randrange(n)
                buf[i] ^= 1 << rnd.randrange(8)
        elif op == 2 and n:  # delete a range
            i = rnd.randrange(n)
            del buf[i:i + rnd.randint(1, 64)]
        elif op == 3:  # insert random or structural bytes
            i = rnd.randint(0, n)
            ins = rnd.choice([bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 16))), b",", b"}", b"{", b"]",
                              b"[", b'"', b"\n", b"\r\n", b"\x00", b"\xff\xfe", b";", b"\t", b"-", b"e999"])
            buf[i:i] = ins
        elif op == 4 and n:  # duplicate a range
            i = rnd.randrange(n)
            j = min(n, i + rnd.randint(1, 256))
            buf[i:i] = buf[i:j]
        elif op == 5 and n:  # overwrite a byte with a structural one
            buf[rnd.randrange(n)] = rnd.choice(b',;"{}[]\n:0-')
    return bytes(buf)


def mutate_lines(data: bytes, rnd: random.Random, n_ops: int) -> bytes:
    """CSV/line damage: shuffle, delete, duplicate (the header too), other delimiters, decimal commas, odd cells."""
    lines = data.split(b"\n")
    for _ in range(n_ops):
        op = rnd.randrange(8)
        n = len(lines)
        if op == 0:
            rnd.shuffle(lines)
        elif op == 1 and n > 1:
            del lines[rnd.randrange(n)]
        elif op == 2 and n:
            i = rnd.randrange(min(n, 3))  # often the header
            lines.insert(rnd.randint(0, n), lines[i])
        elif op == 3 and n:
            i = rnd.randrange(n)
            lines[i] = lines[i].replace(b",", rnd.choice([b";", b"\t", b"|", b", "]))
        elif op == 4 and n:  # decimal comma in numbers
            i = rnd.randrange(n)
            lines[i] = lines[i].replace(b".", b",")
        elif op == 5 and n:  # replace one cell
            i = rnd.randrange(n)
            cells = lines[i].split(b",")
            j = rnd.randrange(len(cells))
            cells[j] = rnd.choice([b"", b"-1", b"-99999999999", b"99999999999999999999999999", b"1e400", b"nan",
                                   b"inf", b'"1,5"', b"1.5.5", b"\xff\xfe", b'"', b"<script>", b"0x10", b"1e18"])
            lines[i] = b",".join(cells)
        elif op == 6 and n:  # drop or add a column
            i = rnd.randrange(n)
            cells = lines[i].split(b",")
            if rnd.random() < 0.5 and len(cells) > 1:
                del cells[rnd.randrange(len(cells))]
            else:
                cells.insert(rnd.randint(0, len(cells)), b"extra")
            lines[i] = b",".join(cells)
        elif op == 7 and n:  # swap start/end style columns: clock skew
            i = rnd.randrange(n)
            cells = lines[i].split(b",")
            if len(cells) > 2:
                a, b = rnd.sample(range(len(cells)), 2)
                cells[a], cells[b] = cells[b], cells[a]
            lines[i] = b",".join(cells)
    return b"\n".join(lines)


def _dicts(node: Any, out: list[dict]) -> None:
    if isinstance(node, dict):
        out.append(node)
        for v in node.values():
            _dicts(v, out)
    elif isinstance(node, list):
        for v in node:
            _dicts(v, out)


def mutate_json(doc: Any, rnd: random.Random, n_ops: int, values: list[Any]) -> Any:
    """Structural JSON damage: delete keys, change value types, swap ts/dur signs, drop or duplicate events."""
    dicts: list[dict] = []
    _dicts(doc, dicts)
    lists: list[list] = []

    def collect_lists(node: Any) -> None:
        if isinstance(node, list):
            lists.append(node)
            for v in node:
                collect_lists(v)
        elif isinstance(node, dict):
            for v in node.values():
                collect_lists(v)

    collect_lists(doc)
    for _ in range(n_ops):
        op = rnd.randrange(6)
        if op in (0, 1, 2) and dicts:
            d = rnd.choice(dicts)
            if not d:
                continue
            key = rnd.choice(list(d))
            if op == 0:
                del d[key]
            elif op == 1:
                d[key] = rnd.choice(values) if values else None
            else:  # numbers: negative, overflowing, end < start
                v = d[key]
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    d[key] = rnd.choice([-v, -1, 2**64, v * 1e12, 0])
                else:
                    d[key] = rnd.choice(values) if values else None
        elif op == 3 and lists:
            lst = rnd.choice(lists)
            if lst:
                del lst[rnd.randrange(len(lst))]
        elif op == 4 and lists:
            lst = rnd.choice(lists)
            if lst:
                lst.insert(rnd.randrange(len(lst) + 1), rnd.choice(values) if values else None)
        elif op == 5 and dicts:
            d = rnd.choice(dicts)
            d[rnd.choice(["ts", "dur", "cat", "ph", "args", "name", "pid", "tid", "traceEvents", "correlation",
                          "External id", "BeginNs", "EndNs", "kernel_dispatch"])] = rnd.choice(values) if values else None
    return doc


def json_text(doc: Any) -> bytes:
    """Serialise with Python's json (big ints, NaN/Infinity tokens as they come: fuzz wants them)."""
    return json.dumps(doc, allow_nan=True).encode("utf-8")


# ------------------------------------------------------------------------------------------ files
class Scratch:
    """A private temporary folder for one fuzz test (hypothesis cannot use function fixtures)."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="hipgauge-fuzz-"))
        self.n = 0

    def write(self, data: bytes, name: str = "input", compress: bool = False) -> Path:
        self.n += 1
        sub = self.dir / str(self.n)
        sub.mkdir()
        path = sub / (name + (".gz" if compress else ""))
        path.write_bytes(gzip.compress(data, compresslevel=1) if compress else data)
        return path


def profile_outcome(path: Path, fmt: str | None) -> str:
    """'ok' or 'input-error'; any other exception propagates (the fuzz failure)."""
    from hipgauge.errors import InputError
    from hipgauge.profiles.load import load_profile

    try:
        prof = load_profile(path, fmt=fmt)
    except InputError as exc:
        msg = str(exc)
        assert "\n" not in msg.strip(), f"multi-line InputError: {msg!r}"
        return "input-error"
    assert prof.kernels is not None
    prof.kernels.height  # noqa: B018 - the frame must be materialised
    return "ok"


def write_sqlite_seed(path: Path, kind: str, rows: list[tuple]) -> None:
    """A minimal nsys / rocpd / rocprof v1 SQLite database with the given kernel rows."""
    con = sqlite3.connect(path)
    try:
        if kind == "nsys-sqlite":
            con.execute("CREATE TABLE StringIds (id INTEGER, value TEXT)")
            con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, "
                        "globalPid, registersPerThread, staticSharedMemory, dynamicSharedMemory, gridX, gridY, gridZ, "
                        "blockX, blockY, blockZ, demangledName)")
            con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (correlationId, globalTid, start)")
            con.execute("CREATE TABLE NVTX_EVENTS (globalTid, start, end, text, textId, eventType)")
            for i, (name, start, end) in enumerate(rows):
                con.execute("INSERT INTO StringIds VALUES (?, ?)", (i, name))
                con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                            (start, end, 0, 7, i, 1 << 24, 32, 0, 0, 1, 1, 1, 128, 1, 1, i))
                con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?)", (i, (1 << 24) + 1, start))
            con.execute("INSERT INTO NVTX_EVENTS VALUES (?,?,?,?,?,?)", ((1 << 24) + 1, 0, 10**12, "ProfilerStep#1", None, 59))
        elif kind == "rocpd":
            con.execute("CREATE TABLE rocpd_info_agent (absolute_index, product_name, type)")
            con.execute("CREATE TABLE kernels (name, region, start, end, stream_id, queue_id, grid_x, grid_y, grid_z, "
                        "workgroup_x, workgroup_y, workgroup_z, lds_size, corr_id, agent_abs_index)")
            con.execute("INSERT INTO rocpd_info_agent VALUES (0, 'MI300X', 'GPU')")
            for i, (name, start, end) in enumerate(rows):
                con.execute("INSERT INTO kernels VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                            (name, name, start, end, 0, 0, 256, 1, 1, 64, 1, 1, 0, i, 0))
        else:  # rocprof-v1-db
            con.execute('CREATE TABLE OPS ("Name", "BeginNs", "EndNs", "DurationNs", "queue-id", "Index")')
            for i, (name, start, end) in enumerate(rows):
                con.execute("INSERT INTO OPS VALUES (?,?,?,?,?,?)", (name, start, end, None if end is None or start is None
                                                                      else _diff(end, start), 0, i))
        con.commit()
    finally:
        con.close()


def _diff(a: Any, b: Any) -> Any:
    """``a - b`` as the exporter would store it: None where it is not a number or not an int64 (SQLite's range)."""
    try:
        d = a - b
    except TypeError:
        return None
    if isinstance(d, int) and not -(1 << 63) <= d < (1 << 63):
        return None
    return d


# ------------------------------------------------------------------------------------------ TOML
def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}" for k, x in v.items()) + "}"
    return json.dumps(str(v))


def toml_document(doc: dict[str, Any]) -> str:
    top = [f"{json.dumps(k)} = {toml_value(v)}" for k, v in doc.items() if not isinstance(v, dict)]
    tables = []
    for k, v in doc.items():
        if isinstance(v, dict):
            tables.append(f"[{json.dumps(k)}]")
            tables += [f"{json.dumps(str(kk))} = {toml_value(vv)}" for kk, vv in v.items()]
    return "\n".join(top + tables) + "\n"


def run_checked(fn: Callable[[], Any]) -> Any:
    """Call ``fn``; InputError is an accepted outcome (returned), anything else propagates."""
    from hipgauge.errors import InputError

    try:
        return fn()
    except InputError as exc:
        return exc


def env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


_ = io  # (io kept for scripts that import it from here)


def fuzz_settings(examples: int):
    """Bounded settings for the CI suite; ``scripts/fuzz.py`` scales them (HIPGAUGE_FUZZ_SCALE) and turns
    on random seeds (HIPGAUGE_FUZZ_RANDOM=1) for the long runs."""
    from hypothesis import HealthCheck, settings

    scale = max(1, env_int("HIPGAUGE_FUZZ_SCALE", 1))
    return settings(max_examples=examples * scale, deadline=None, suppress_health_check=list(HealthCheck),
                    derandomize=os.environ.get("HIPGAUGE_FUZZ_RANDOM", "") in ("", "0"), database=None)
