"""Formats with no real public sample: small fixtures written by the documented columns
(tests/data/profiles/, or SQLite databases built here from the documented tables), plus bad input."""

from __future__ import annotations

import gzip
import shutil
import sqlite3
from pathlib import Path

import pytest

from hipgauge.errors import InputError
from hipgauge.model import KERNEL_RECORD_SCHEMA
from hipgauge.profiles.detect import detect_format
from hipgauge.profiles.load import FORMATS, load_profile
from hipgauge.kernel_names import demangle, normalize_key

from conftest import DATA

D = DATA / "profiles"


def _schema_ok(prof) -> None:
    k = prof.kernels
    assert dict(zip(k.columns, map(str, k.dtypes))) == KERNEL_RECORD_SCHEMA


# ------------------------------------------------------------------ normalize
@pytest.mark.parametrize("name, key", [
    ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
     "at::native::vectorized_elementwise_kernel"),
    ("softmax_kernel(float*, int) [clone .kd]", "softmax_kernel"),
    ("__amd_rocclr_copyBuffer.kd", "__amd_rocclr_copyBuffer"),
    ("_Z14softmax_kernelPfi.kd", "softmax_kernel"),
    ("void at::native::(anonymous namespace)::CatArrayBatchedCopy<int, 4>(int*, int)", "at::native::CatArrayBatchedCopy"),
    ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_nn_align4::Params)",
     "cutlass_80_tensorop_s1688gemm_64x64_nn_align4"),
    ("void foo::bar<int>::operator()(int) const", "foo::bar::operator()"),
    ("Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1", "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1"),
    ("triton_poi_fused_add_0", "triton_poi_fused_add_0"),
])
def test_normalize_key(name: str, key: str) -> None:
    assert normalize_key(name) == key


def test_demangle() -> None:
    assert demangle("_Z14softmax_kernelPfi") == "softmax_kernel(float*, int)"
    assert demangle("_Z14softmax_kernelPfi.kd") == "softmax_kernel(float*, int)"
    assert demangle("attn_fwd") == "attn_fwd"
    assert demangle("_Znot_really_mangled!") == "_Znot_really_mangled!"


# ------------------------------------------------------------------ nsys
def test_nsys_kern_sum_aggregate_expands_with_exact_totals() -> None:
    prof = load_profile(D / "nsys_cuda_gpu_kern_sum.csv")
    _schema_ok(prof)
    k = prof.kernels
    assert k.height == 5 and k["duration_ns"].sum() == 1_000_001 + 666_666
    conv = k.filter(k["key"] == "conv_fwd")["duration_ns"].to_list()
    assert sorted(conv) == [333333, 333334, 333334]
    assert k["start_ns"].null_count() == 5
    assert any(w.startswith("aggregate") for w in prof.warnings)


def test_nsys_gpukernsum_2021_grid_block() -> None:
    prof = load_profile(D / "nsys_gpukernsum_2021.csv")
    k = prof.kernels
    assert k.height == 4 and k["duration_ns"].sum() == 4000
    assert set(k["grid"]) == {"128,1,1", "1,1,1"} and k.filter(k["key"] == "reduce")["block"][0] == "32,1,1"


def _nsys_db(path: Path) -> None:
    # tables and columns as documented for `nsys export --type sqlite` (no real export is public)
    con = sqlite3.connect(path)
    con.executescript("""
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
      greenContextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
      shortName INTEGER, mangledName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER,
      blockZ INTEGER, registersPerThread INTEGER, staticSharedMemory INTEGER, dynamicSharedMemory INTEGER, graphNodeId INTEGER);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER,
      nameId INTEGER, returnValue INTEGER);
    CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER,
      color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, jsonTextId INTEGER);
    CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, computeMajor INTEGER, computeMinor INTEGER);
    INSERT INTO StringIds VALUES (1, 'void gemm<float>(float*, int)'), (2, 'gemm'), (3, '_Z4gemmIfEvPfi'),
      (4, 'relu_kernel(float*)'), (5, 'cudaLaunchKernel'), (6, 'decoder');
    INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', 9, 0);
    """)
    pid = 4242 * 0x1000000
    tid = pid + 4242
    kernels = [  # start, end, corr, name id
        (10_000, 12_000, 1, 1), (13_000, 13_500, 2, 4), (20_000, 22_500, 3, 1), (23_000, 23_400, 4, 4),
    ]
    for s, e, corr, nid in kernels:
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,NULL,7,?,?,?,2,3,64,1,1,128,1,1,72,1024,2048,NULL)",
                    (s, e, corr, pid, nid))
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,5,0)", (s - 5000, s - 4000, tid, corr))
    # NVTX: two iterations (push/pop), a nested 'decoder' range by textId in the first
    con.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) VALUES (?,?,?,?,?,?)", [
        (4_000, 14_000, 59, "iteration 0", tid, None), (4_500, 6_000, 59, None, tid, 6),
        (14_500, 24_000, 59, "iteration 1", tid, None), (0, 0, 34, "a mark", tid, None),
    ])
    con.commit()
    con.close()


def test_nsys_sqlite_written_db(tmp_path: Path) -> None:
    db = tmp_path / "report.sqlite"
    _nsys_db(db)
    assert detect_format(db) == "nsys-sqlite"
    prof = load_profile(db)
    _schema_ok(prof)
    k = prof.kernels
    assert k["duration_ns"].to_list() == [2000, 500, 2500, 400]
    assert k["name"][0] == "void gemm<float>(float*, int)" and k["key"][0] == "gemm"
    assert k["range"].to_list() == ["decoder", "iteration 0", "iteration 1", "iteration 1"]
    assert k["iteration"].to_list() == [0, 0, 1, 1]
    assert prof.iterations == [(0, 10_000, 13_500), (1, 20_000, 23_400)]
    assert k["shared_mem_bytes"][0] == 3072 and k["registers"][0] == 72 and k["grid"][0] == "64,1,1"
    assert prof.device == "NVIDIA H100 80GB HBM3" and prof.metadata["arch"] == "sm_90"


# ------------------------------------------------------------------ ncu
def test_ncu_units_and_thousands_separators() -> None:
    prof = load_profile(D / "ncu_details_units.csv")
    k = prof.kernels
    assert k["duration_ns"].to_list() == [1_234_500, 2_500_000, 900]
    assert k["registers"][0] == 40 and k["shared_mem_bytes"][0] == 2048
    assert k["grid"][0] == "1024,1,1"
    assert any("non-table" in w for w in prof.warnings)


def test_ncu_decimal_comma_is_an_error(tmp_path: Path) -> None:
    p = tmp_path / "ncu.csv"
    text = (D / "ncu_details_units.csv").read_text().replace('"1,234.50"', '"1234,5"')
    p.write_text(text)
    with pytest.raises(InputError, match="decimal comma") as exc:
        load_profile(p)
    assert ":4:" in str(exc.value)  # names the line


# ------------------------------------------------------------------ rocprof v1
def test_rocprof_v1_results_csv() -> None:
    prof = load_profile(D / "rocprof_v1_results.csv")
    _schema_ok(prof)
    k = prof.kernels
    assert prof.source_format == "rocprof-v1" and prof.vendor == "amd"
    assert k["duration_ns"].to_list() == [1000, 500, 1100]
    assert k["key"].to_list() == ["softmax_kernel", "__amd_rocclr_copyBuffer", "softmax_kernel"]
    assert k["registers"][0] == 16 and k["shared_mem_bytes"][0] == 1024


def test_rocprof_v1_stats_and_v3_kernel_stats() -> None:
    v1 = load_profile(D / "rocprof_v1_results.stats.csv")
    assert v1.kernels.height == 3 and v1.kernels["duration_ns"].sum() == 2600
    v3 = load_profile(D / "run_kernel_stats.csv")
    assert v3.kernels.height == 4 and v3.kernels["duration_ns"].sum() == 142_858
    assert any(w.startswith("aggregate") for w in v3.warnings)


def test_rocprof_v1_json_uses_exact_ns_args() -> None:
    p = D / "rocprof_v1_results.json"
    assert detect_format(p) == "rocprof-v1-json"
    k = load_profile(p).kernels
    assert k["start_ns"].to_list() == [1100, 3050] and k["duration_ns"].to_list() == [1000, 500]


def test_rocprof_v1_results_db(tmp_path: Path) -> None:
    db = tmp_path / "results.db"
    con = sqlite3.connect(db)
    con.execute('CREATE TABLE OPS ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER, "Name" TEXT, '
                '"pid" INTEGER, "tid" INTEGER, "roctx-range" TEXT, "stream-id" INTEGER, "Index" INTEGER, "DurationNs" INTEGER)')
    con.executemany("INSERT INTO OPS VALUES (?,?,0,0,?,1,1,?,0,?,?)", [
        (100, 400, "k1(int) [clone .kd]", "layer1", 0, 300), (500, 550, "k2.kd", "", 1, 50)])
    con.execute("CREATE TABLE HIP (x INTEGER)")
    con.commit()
    con.close()
    assert detect_format(db) == "rocprof-v1-db"
    k = load_profile(db).kernels
    assert k["duration_ns"].to_list() == [300, 50] and k["range"].to_list() == ["layer1", None]
    assert k["key"].to_list() == ["k1", "k2"]


# ------------------------------------------------------------------ rocprofv3 + rocpd
def test_rocprofv3_csv_with_markers_and_api_trace() -> None:
    prof = load_profile(D / "rocprofv3_markers_kernel_trace.csv")
    k = prof.kernels
    assert k["range"].to_list() == ["attention", "iteration 0", "iteration 1"]
    assert k["iteration"].to_list() == [0, 0, 1]
    assert k["grid"].to_list() == ["4,1,1", "16,2,1", "4,1,1"] and k["block"][1] == "64,2,1"
    assert prof.iterations == [(0, 2000, 3000), (1, 5000, 5700)]


def _rocpd_db(path: Path) -> None:
    # the rocpd tables (schema 3, uuid suffix left empty) and the `kernels` view reduced to the
    # columns hipgauge reads, following rocpd_tables.sql / rocpd_views.sql as documented
    con = sqlite3.connect(path)
    con.executescript("""
    CREATE TABLE rocpd_string (id INTEGER PRIMARY KEY, guid TEXT, string TEXT);
    CREATE TABLE rocpd_info_agent (id INTEGER PRIMARY KEY, guid TEXT, type TEXT, absolute_index INTEGER, name TEXT, product_name TEXT);
    CREATE TABLE rocpd_info_kernel_symbol (id INTEGER PRIMARY KEY, guid TEXT, kernel_name TEXT, display_name TEXT,
      sgpr_count INTEGER, arch_vgpr_count INTEGER, accum_vgpr_count INTEGER);
    CREATE TABLE rocpd_event (id INTEGER PRIMARY KEY, guid TEXT, category_id INTEGER, correlation_id INTEGER);
    CREATE TABLE rocpd_kernel_dispatch (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, tid INTEGER,
      agent_id INTEGER, kernel_id INTEGER, dispatch_id INTEGER, queue_id INTEGER, stream_id INTEGER, start INTEGER, end INTEGER,
      private_segment_size INTEGER, group_segment_size INTEGER, workgroup_size_x INTEGER, workgroup_size_y INTEGER,
      workgroup_size_z INTEGER, grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER, region_name_id INTEGER,
      event_id INTEGER);
    CREATE VIEW kernels AS SELECT K.id, K.guid, R.string AS region, S.display_name AS name, K.kernel_id,
      A.absolute_index AS agent_abs_index, K.stream_id, K.queue_id, K.start, K.end, (K.end - K.start) AS duration,
      K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z, K.workgroup_size_x AS workgroup_x,
      K.workgroup_size_y AS workgroup_y, K.workgroup_size_z AS workgroup_z, K.group_segment_size AS lds_size,
      E.correlation_id AS corr_id
      FROM rocpd_kernel_dispatch K
      INNER JOIN rocpd_info_agent A ON A.id = K.agent_id AND A.guid = K.guid
      INNER JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid
      INNER JOIN rocpd_string R ON R.id = K.region_name_id AND R.guid = K.guid
      INNER JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid;
    INSERT INTO rocpd_string VALUES (1, 'g', 'Cijk_Alik_Bljk_MT64x64'), (2, 'g', 'decode_step');
    INSERT INTO rocpd_info_agent VALUES (1, 'g', 'CPU', 0, 'EPYC', 'AMD EPYC'), (2, 'g', 'GPU', 2, 'gfx942', 'AMD Instinct MI300X');
    INSERT INTO rocpd_info_kernel_symbol VALUES (5, 'g', 'Cijk_Alik_Bljk_MT64x64.kd', 'Cijk_Alik_Bljk_MT64x64', 40, 128, 0);
    INSERT INTO rocpd_event VALUES (1, 'g', 0, 11), (2, 'g', 0, 12);
    INSERT INTO rocpd_kernel_dispatch VALUES (1, 'g', 0, 1, 1, 2, 5, 1, 1, 0, 1000, 1900, 0, 8192, 256, 1, 1, 65536, 1, 1, 1, 1);
    INSERT INTO rocpd_kernel_dispatch VALUES (2, 'g', 0, 1, 1, 2, 5, 2, 1, 0, 2000, 2800, 0, 8192, 256, 1, 1, 65536, 1, 1, 2, 2);
    """)
    con.commit()
    con.close()


def test_rocpd_written_db(tmp_path: Path) -> None:
    db = tmp_path / "host" / "123_results.db"
    db.parent.mkdir()
    _rocpd_db(db)
    assert detect_format(db) == "rocpd"
    prof = load_profile(tmp_path)  # a rocprofv3 output folder: picks *_results.db
    _schema_ok(prof)
    k = prof.kernels
    assert prof.source_format == "rocpd" and prof.device == "AMD Instinct MI300X"
    assert k["duration_ns"].to_list() == [900, 800] and k["range"].to_list() == [None, "decode_step"]
    assert k["grid"][0] == "256,1,1" and k["registers"][0] == 128 and k["correlation"].to_list() == [11, 12]


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("content, message", [
    ("", "empty"),
    ("Name;Calls;TotalDurationNs\nk;1;2,5\n", "unrecognised"),
    ("hello world\nthis is not a profile\n", "unrecognised"),
    ('"Kind","Agent_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"\n'
     '"KERNEL_DISPATCH",1,"k",1,2000,1000\n"KERNEL_DISPATCH",1,"k",2,3000,3500\n', None),
    ('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"k",2,-5,1,1\n', "negative"),
])
def test_bad_csv_inputs(tmp_path: Path, content: str, message: str | None) -> None:
    p = tmp_path / "run_kernel_stats.csv" if "Calls" in content else tmp_path / "in.csv"
    p.write_text(content)
    if message is None:  # end < start: a warning, and the rest is read
        prof = load_profile(p)
        assert prof.kernels.height == 1 and any("end < start" in w for w in prof.warnings)
        return
    with pytest.raises(InputError) as exc:
        load_profile(p)
    assert message in str(exc.value) and str(p) in str(exc.value)


def test_semicolon_csv_forced_format_explains(tmp_path: Path) -> None:
    p = tmp_path / "stats.csv"
    p.write_text("Name;Calls;TotalDurationNs\nk;1;2,5\n")
    with pytest.raises(InputError, match="semicolon"):
        load_profile(p, fmt="rocprof-stats")


def test_unknown_format_name_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_profile(tmp_path / "nope.json")
    (tmp_path / "a.csv").write_text("x")
    with pytest.raises(InputError, match="unknown profile format"):
        load_profile(tmp_path / "a.csv", fmt="perfetto")
    with pytest.raises(InputError, match="no profile file found"):
        load_profile(tmp_path)


def test_directory_input_does_not_modify_the_tree(tmp_path: Path) -> None:
    tree = tmp_path / "run"
    shutil.copytree(D, tree)
    before = sorted((p.name, p.stat().st_mtime_ns) for p in tree.iterdir())
    prof = load_profile(tree)  # picks the kernel trace
    assert prof.source_format == "rocprofv3-csv"
    assert sorted((p.name, p.stat().st_mtime_ns) for p in tree.iterdir()) == before


def test_every_format_has_a_reader() -> None:
    from hipgauge.profiles.load import reader_for

    for fmt in FORMATS:
        assert callable(reader_for(fmt))


def test_truncated_gzip_csv(tmp_path: Path) -> None:
    p = tmp_path / "results.csv.gz"
    data = gzip.compress((D / "rocprof_v1_results.csv").read_bytes() * 50)
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="truncated"):
        load_profile(p, fmt="rocprof-v1")


# ------------------------------------------------------------------ latency CSV
@pytest.mark.parametrize("content, message", [
    ("iteration,latency_ms\n0,4.5\n1,4,7\n", "decimal comma"),
    ("iteration,latency_ms\n0,abc\n", "not a number"),
    ("iteration,latency_ms\n0,-1\n", "non-negative"),
    ("iter;lat\n0;4,5\n", "header"),
    ("iteration,latency_ms\n", "no latency rows"),
])
def test_latency_csv_bad_rows(tmp_path: Path, content: str, message: str) -> None:
    from hipgauge.profiles.readers.latency import read_latency

    p = tmp_path / "lat.csv"
    p.write_text(content)
    with pytest.raises(InputError, match=message) as exc:
        read_latency(p)
    assert str(p) in str(exc.value)


def test_latency_csv_orders_by_iteration(tmp_path: Path) -> None:
    from hipgauge.profiles.readers.latency import read_latency

    p = tmp_path / "lat.csv"
    p.write_text("\ufeffiteration,latency_ms\n2,3.0\n0,1.0\n1,2.0\n\n")
    assert read_latency(p) == [1.0, 2.0, 3.0]
