"""Hardware counters read and joined onto the kernel records (Profile.counters), and the per-launch figures
derived from them (profiles/counter_formulas.py), checked against the files parsed independently here with the
csv module and against hand computations."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import polars as pl
import pytest

from hipgauge.knowledge.arch_limits import known_parts
from hipgauge.model import COUNTER_RECORD_SCHEMA
from hipgauge.profiles.counters import kernel_figures, overview, part_limits
from hipgauge.profiles.load import load_profile
from hipgauge.toolchain.occupancy import load_arch_limits

DATA = Path(__file__).resolve().parent / "data" / "counters"
REPO = Path(__file__).resolve().parents[1]


def _csv_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    """An ncu/rocprof CSV without the ==PROF== lines: (header, rows)."""
    lines = [ln for ln in path.read_text().splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    return rows[0], rows[1:]


def _f(cell: str) -> float:
    return float(cell.replace(",", ""))


def _counter(profile, row: int, name: str) -> float | None:
    df = profile.counters.filter((pl.col("row") == row) & (pl.col("counter") == name))
    return None if df.height == 0 else df["value"][0]


# ------------------------------------------------------------------------------------------ Nsight Compute
def test_ncu_raw_page_counters_equal_the_file():
    path = DATA / "ncu" / "trio_raw.csv"
    header, rows = _csv_rows(path)
    units = rows[0]
    launches = rows[1:]
    prof = load_profile(path)
    assert dict(prof.counters.schema) == {k: getattr(pl, v) for k, v in COUNTER_RECORD_SCHEMA.items()}
    ids = prof.kernels["correlation"].to_list()
    figs = kernel_figures(prof)
    col = {h: i for i, h in enumerate(header)}
    assert units[col["dram__bytes_read.sum"]] == "Mbyte" and units[col["dram__bytes_write.sum"]] == "Kbyte"
    for f in launches:
        row = ids.index(int(f[col["ID"]]))
        occ = _f(f[col["sm__warps_active.avg.pct_of_peak_sustained_active"]])
        dram = _f(f[col["dram__throughput.avg.pct_of_peak_sustained_elapsed"]])
        assert _counter(prof, row, "sm__warps_active.avg.pct_of_peak_sustained_active") == occ
        assert figs[row].values["achieved_occupancy_pct"] == occ
        assert figs[row].values["dram_throughput_pct_of_peak"] == dram
        assert figs[row].values["l2_hit_pct"] == _f(f[col["lts__t_sector_hit_rate.pct"]])
        # SI prefixes: Mbyte = 1e6 bytes, Kbyte = 1e3 bytes; duration in µs
        nbytes = _f(f[col["dram__bytes_read.sum"]]) * 1e6 + _f(f[col["dram__bytes_write.sum"]]) * 1e3
        dur_ns = _f(f[col["gpu__time_duration.sum"]]) * 1e3
        assert figs[row].values["dram_gbps"] == pytest.approx(nbytes / dur_ns)
    # occupancy limiter: the smallest of the launch__occupancy_limit_* block counts (gemm: registers = 2)
    gemm = ids.index(1)
    assert figs[gemm].limiter == "registers"
    assert figs[ids.index(0)].limiter == "registers, warps"
    assert prof.counter_source["joined_by"] == "launch id"


def test_ncu_details_page_real_b200(real_dir: Path):
    """The real details page (B200, cuBLASLt): human metric names become the metrics they display."""
    path = real_dir / "ncu/superbenchmark_cublaslt_B200/cublaslt_ncu.log"
    header, rows = _csv_rows(path)
    col = {h: i for i, h in enumerate(header)}
    want: dict[int, dict[str, float]] = {}
    for f in rows:
        if len(f) <= col["Metric Value"] or not f[col["Metric Name"]]:
            continue
        if f[col["Metric Name"]] in ("Achieved Occupancy", "DRAM Throughput", "Block Limit Registers",
                                     "Compute (SM) Throughput"):
            want.setdefault(int(f[col["ID"]]), {})[f[col["Metric Name"]]] = _f(f[col["Metric Value"]])
    prof = load_profile(path)
    figs = kernel_figures(prof)
    ids = prof.kernels["correlation"].to_list()
    assert want and len(figs) == len(ids)
    for launch, metrics in want.items():
        row = ids.index(launch)
        assert figs[row].values["achieved_occupancy_pct"] == metrics["Achieved Occupancy"]
        assert figs[row].values["dram_throughput_pct_of_peak"] == metrics["DRAM Throughput"]
        assert figs[row].extra["sm_throughput_pct"] == metrics["Compute (SM) Throughput"]
        assert _counter(prof, row, "launch__occupancy_limit_registers") == metrics["Block Limit Registers"]
        # no MemoryWorkloadAnalysis section in this capture: L2 hit rate absent, and the output says what to collect
        assert "l2_hit_pct" not in figs[row].values
        assert figs[row].missing["l2_hit_pct"] == ["lts__t_sector_hit_rate.pct"]


@pytest.mark.parametrize("rel", ["h200:resnet50_ncu_raw.csv", "example:captures/detector_ncu_raw.csv"])
def test_real_h200_raw_pages_occupancy_per_launch(rel: str, request: pytest.FixtureRequest):
    where, name = rel.split(":")
    path = (request.getfixturevalue("h200_dir") if where == "h200" else REPO / "examples" / "detector") / name
    header, rows = _csv_rows(path)
    col = {h: i for i, h in enumerate(header)}
    prof = load_profile(path)
    figs = kernel_figures(prof)
    ids = prof.kernels["correlation"].to_list()
    launches = [f for f in rows if f[col["ID"]].strip()]
    assert len(figs) == len(launches) == prof.kernels.height
    for f in launches:
        row = ids.index(int(f[col["ID"]]))
        assert figs[row].values["achieved_occupancy_pct"] == _f(f[col["sm__warps_active.avg.pct_of_peak_sustained_active"]])
        assert "dram_throughput_pct_of_peak" not in figs[row].values  # not collected in these captures
    ov = overview(prof, figs, part_limits(prof))
    assert "dram__throughput.avg.pct_of_peak_sustained_elapsed" in ov["collect"]


# ------------------------------------------------------------------------------------------ AMD
def test_rocprofv3_mi300x_counters_by_the_stated_formulas():
    """gfx942: 128-byte reads counted by TCC_BUBBLE; GRBM_GUI_ACTIVE summed over 8 XCDs; peak from [[parts]]."""
    prof = load_profile(DATA / "rocprofv3_mi300x")
    assert prof.source_format == "rocprofv3-csv" and prof.counters is not None
    part = part_limits(prof)
    assert (part.arch, part.units, part.max_waves_per_cu, part.num_xcd, part.peak_dram_gbps) == ("gfx942", 304, 32, 8, 5300.0)
    figs = kernel_figures(prof, part)
    names = prof.kernels["raw_name"].to_list()
    durs = prof.kernels["duration_ns"].to_list()
    vec = [i for i, n in enumerate(names) if n.startswith("void vec_add")]
    gemm = names.index("gemm_tile_kernel(float const*, float const*, float*, int, int, int)")
    # hand computation, vec_add: W = 4 × 15,000,000 / (96,000 / 8) = 5,000 waves of 304 × 32 = 9,728 slots
    assert figs[vec[0]].values["achieved_occupancy_pct"] == pytest.approx(100 * 5000 / 9728)
    read = 128 * 80000 + 64 * (100000 - 80000 - 4000) + 32 * 4000  # 11,392,000 bytes
    write = 64 * 60000 + 32 * (70000 - 60000)  # 4,160,000 bytes
    assert durs[vec[0]] == 4000 and durs[vec[1]] == 4200
    assert figs[vec[0]].values["dram_gbps"] == pytest.approx((read + write) / 4000)  # 3,888 GB/s
    assert figs[vec[0]].values["dram_throughput_pct_of_peak"] == pytest.approx(100 * 3888 / 5300)
    assert figs[vec[1]].values["dram_gbps"] == pytest.approx((read + write) / 4200)
    assert figs[vec[0]].values["l2_hit_pct"] == pytest.approx(10.0)
    # gemm: W = 4 × 20,000,000 / (800,000 / 8) = 800; bytes 128×10,000 + 64×20,000 + 64×16,384 over 80 µs
    assert figs[gemm].values["achieved_occupancy_pct"] == pytest.approx(100 * 800 / 9728)
    assert figs[gemm].values["dram_gbps"] == pytest.approx((128 * 10000 + 64 * 20000 + 64 * 16384) / 80000)
    assert figs[gemm].values["l2_hit_pct"] == pytest.approx(90.0)
    assert "TCC_BUBBLE" in figs[gemm].basis["dram_gbps"] and figs[gemm].basis["dram_gbps"].startswith("estimated")


def test_rocprofv3_counter_collection_given_on_its_own():
    prof = load_profile(DATA / "rocprofv3_mi300x" / "RUN_counter_collection.csv")
    assert prof.source_format == "rocprofv3-counters" and prof.kernels.height == 3
    assert prof.device == "AMD Instinct MI300X"
    assert any("serialized" in w for w in prof.warnings)
    figs = kernel_figures(prof)
    assert sorted(round(f.values["achieved_occupancy_pct"], 4) for f in figs.values()) == \
        sorted([round(100 * 5000 / 9728, 4)] * 2 + [round(100 * 800 / 9728, 4)])


def test_rocprof_compute_mi200_hand_computation(real_dir: Path):
    """Dispatch 0 of the real MI200 vcopy workload, computed here from the numbers in pmc_perf.csv and sysinfo.csv."""
    folder = real_dir / "rocprof_compute/vcopy_MI200"
    pmc = list(csv.DictReader((folder / "pmc_perf.csv").open()))
    r0 = pmc[0]
    # per-channel TCC_HIT[i] come from another replay pass than TCC_HIT_sum: close, not equal; the file's own
    # _sum is the one used (the reader only sums the channels when the file has no _sum)
    channels = sum(float(r0[f"TCC_HIT[{i}]"]) for i in range(32) if f"TCC_HIT[{i}]" in r0)
    assert channels != float(r0["TCC_HIT_sum"]) and abs(channels / float(r0["TCC_HIT_sum"]) - 1) < 0.01
    sysinfo = next(csv.DictReader((folder / "sysinfo.csv").open()))
    hbm, cus, waves = float(sysinfo["hbm_bw"]), int(sysinfo["cu_per_gpu"]), int(sysinfo["max_waves_per_cu"])
    assert (hbm, cus, waves) == (1638.4, 104, 32)
    dur = 1411551767656192 - 1411551767635712  # End_Timestamp - Start_Timestamp of dispatch 0: 20,480 ns
    nbytes = 32 * 0 + 64 * (131086 - 0) + 64 * 131072 + 32 * (131072 - 131072)  # TCC_EA_* sums of dispatch 0
    gbps = nbytes / dur  # 819.24 GB/s
    occ = 100 * (4 * 10620646 / 29465) / (104 * 32)  # SQ_WAVE_CYCLES, GRBM_GUI_ACTIVE (1 XCD)
    l2 = 100 * 72935 / (72935 + 131081)
    prof = load_profile(folder)
    assert prof.counter_source["hbm_bw"] == "1638.4"
    row = prof.kernels["correlation"].to_list().index(0)
    f = kernel_figures(prof)[row]
    assert prof.kernels["duration_ns"][row] == dur
    assert f.values["dram_gbps"] == pytest.approx(gbps)
    assert f.values["dram_throughput_pct_of_peak"] == pytest.approx(100 * gbps / hbm)
    assert f.values["achieved_occupancy_pct"] == pytest.approx(occ)
    assert f.values["l2_hit_pct"] == pytest.approx(l2)
    assert "sysinfo.csv hbm_bw" in f.basis["dram_throughput_pct_of_peak"]
    assert _counter(prof, row, "TCC_HIT_sum") == float(r0["TCC_HIT_sum"]) == 72935


def test_rocprof_compute_mi300x_without_counters_says_what_to_collect(real_dir: Path):
    prof = load_profile(real_dir / "rocprof_compute/vcopy_MI300X_A1")
    assert prof.counters is None  # the sample has timestamps and sysinfo, no pmc_perf.csv
    part = part_limits(prof)
    assert part.peak_dram_gbps == 5324.8 and part.num_xcd == 8 and part.arch == "gfx942"
    ov = overview(prof, kernel_figures(prof, part), part)
    for name in ("TCC_BUBBLE", "TCC_EA0_RDREQ", "SQ_WAVE_CYCLES", "GRBM_GUI_ACTIVE", "TCC_HIT"):
        assert name in ov["collect"]


@pytest.mark.parametrize("rel,column_set", [("rocprofv3/rocm-systems_docs_data", "2025"),
                                            ("rocprofv3/rocm-systems_docs_data/counter_collection.csv", "2025"),
                                            ("rocprofv3/rocprofiler-sdk_docs_data_2024/counter_collection.csv", "2024"),
                                            ("rocprofv3/rocprofiler-sdk_docs_data_2024", "2024")])
def test_real_rocprofv3_counter_collection_both_column_sets(real_dir: Path, rel: str, column_set: str):
    path = real_dir / rel
    counter_file = (path if path.is_file() else path / "counter_collection.csv")
    rows = list(csv.DictReader(counter_file.open()))
    assert ("Start_Timestamp" in rows[0]) == (column_set == "2025")
    prof = load_profile(path)
    assert prof.counters is not None
    waves = prof.counters.filter(pl.col("counter") == "SQ_WAVES")
    assert waves.height == len(rows)  # every counter row found its kernel record
    assert waves["value"].to_list() == [float(r["Counter_Value"]) for r in rows] or \
        sorted(waves["value"].to_list()) == sorted(float(r["Counter_Value"]) for r in rows)
    names = prof.kernels["key"].to_list()
    for row, in waves.select("row").iter_rows():
        assert names[row] in {"addition_kernel", "subtract_kernel", "multiply_kernel", "divide_kernel"}
    ov = overview(prof, kernel_figures(prof), part_limits(prof))
    assert ov["launches_with_counters"] == len(rows)
    assert "SQ_WAVE_CYCLES" in ov["collect"] and "TCC_HIT" in ov["collect"]  # only SQ_WAVES was collected


def test_rocprof_v1_pmc_per_instance_counters_and_unknown_part():
    path = DATA / "rocprof_v1_pmc" / "results.csv"
    rows = list(csv.DictReader(path.open()))
    prof = load_profile(path)
    figs = kernel_figures(prof)
    for r in rows:
        row = prof.kernels["correlation"].to_list().index(int(r["Index"]))
        hit = float(r["TCC_HIT[0]"]) + float(r["TCC_HIT[1]"])
        miss = float(r["TCC_MISS[0]"]) + float(r["TCC_MISS[1]"])
        assert _counter(prof, row, "TCC_HIT_sum") == hit
        assert figs[row].values["l2_hit_pct"] == pytest.approx(100 * hit / (hit + miss))
        rd, rd32 = float(r["TCC_EA_RDREQ_sum"]), float(r["TCC_EA_RDREQ_32B_sum"])
        wr, wr64 = float(r["TCC_EA_WRREQ_sum"]), float(r["TCC_EA_WRREQ_64B_sum"])
        nbytes = 32 * rd32 + 64 * (rd - rd32) + 64 * wr64 + 32 * (wr - wr64)
        assert figs[row].values["dram_gbps"] == pytest.approx(nbytes / float(r["DurationNs"]))
        # a v1 results.csv names no device: no CU count, no peak bandwidth → those figures are absent
        assert "achieved_occupancy_pct" not in figs[row].values
        assert "dram_throughput_pct_of_peak" not in figs[row].values
    ov = overview(prof, figs, part_limits(prof))
    assert ov["collect"].startswith("supply the part's")


def test_rocprofv3_json_counter_records_summed_over_dimensions():
    path = DATA / "rocprofv3_json" / "app_results.json"
    doc = json.loads(path.read_text())
    rec = doc["rocprofiler-sdk-tool"][0]["callback_records"]["counter_collection"][0]["records"]
    by_id: dict[int, float] = {}
    for r in rec:
        by_id[r["counter_id"]["handle"]] = by_id.get(r["counter_id"]["handle"], 0.0) + r["value"]
    prof = load_profile(path)
    assert prof.source_format == "rocprofv3-json"
    assert _counter(prof, 0, "SQ_WAVE_CYCLES") == by_id[100] == 2080000.0
    f = kernel_figures(prof)[0]
    # W = 4 × 2,080,000 / 26,000 = 320 waves on 104 CUs × 32 (the agent record); L2 4,000 / 20,000
    assert f.values["achieved_occupancy_pct"] == pytest.approx(100 * 320 / (104 * 32))
    assert f.values["l2_hit_pct"] == pytest.approx(20.0)
    assert f.missing["dram_gbps"] == ["TCC_EA_RDREQ", "TCC_EA_RDREQ_32B", "TCC_EA_WRREQ", "TCC_EA_WRREQ_64B"]


def test_a_broken_counter_file_is_a_warning_not_a_failure(tmp_path: Path):
    src = DATA / "rocprofv3_mi300x"
    for name in ("RUN_kernel_trace.csv", "RUN_agent_info.csv"):
        (tmp_path / name).write_text((src / name).read_text())
    (tmp_path / "RUN_counter_collection.csv").write_text('"Counter_Name","Counter_Value"\n"SQ_WAVES",1,2,3,"x"\n'
                                                         '"SQ_WAVES","1;2"\n')
    prof = load_profile(tmp_path / "RUN_kernel_trace.csv")
    assert prof.kernels.height == 3
    assert prof.counters is None
    assert any("counters not read" in w for w in prof.warnings)


# ------------------------------------------------------------------------------------------ data
def test_parts_have_dated_public_sources_and_stay_out_of_the_arch_tables():
    parts = known_parts()
    names = {p["name"] for p in parts}
    for want in ("AMD Instinct MI300X", "AMD Instinct MI250X (one GCD)", "AMD Instinct MI210", "NVIDIA H100 SXM",
                 "NVIDIA H200", "NVIDIA A100 80GB SXM"):
        assert want in names
    for p in parts:
        assert p["source"].startswith("https://") and "2026-" in p["source"], p["name"]
        assert p["peak_dram_gbps"] > 0 and p["vendor"] in ("nvidia", "amd")
    assert "parts" not in load_arch_limits()  # build-check's occupancy tables are arches only


# ------------------------------------------------------------------------------------------ H200 captures
H200_COUNTERS = Path(__file__).resolve().parent / "data" / "h200" / "counters"


def _h200(name: str) -> Path:
    path = H200_COUNTERS / name
    if not path.exists():
        pytest.skip(f"{path} is not here")
    return path


@pytest.mark.parametrize("stem", ["resnet50", "detector"])
def test_h200_raw_page_figures_equal_the_file(stem: str):
    """The coordinator's H200 captures (ncu raw page): every launch's achieved occupancy, DRAM % of peak, L2 hit rate
    and theoretical occupancy are the file's values; DRAM GB/s is its bytes over its duration."""
    path = _h200(f"{stem}_ncu_raw.csv")
    header, rows = _csv_rows(path)
    col = {h: i for i, h in enumerate(header)}
    units = rows[0]
    prof = load_profile(path)
    figs = kernel_figures(prof)
    ids = prof.kernels["correlation"].to_list()
    launches = [f for f in rows if f[col["ID"]].strip()]
    assert len(launches) == len(figs) == prof.kernels.height > 0
    scale = {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}
    tscale = {"ns": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "nsecond": 1.0}
    for f in launches:
        row = ids.index(int(f[col["ID"]]))
        v = figs[row].values
        assert v["achieved_occupancy_pct"] == _f(f[col["sm__warps_active.avg.pct_of_peak_sustained_active"]])
        assert v["dram_throughput_pct_of_peak"] == _f(f[col["dram__throughput.avg.pct_of_peak_sustained_elapsed"]])
        assert v["l2_hit_pct"] == _f(f[col["lts__t_sector_hit_rate.pct"]])
        assert figs[row].extra["theoretical_occupancy_pct"] == _f(f[col["sm__maximum_warps_per_active_cycle_pct"]])
        rd = _f(f[col["dram__bytes_read.sum"]]) * scale[units[col["dram__bytes_read.sum"]]]
        wr = _f(f[col["dram__bytes_write.sum"]]) * scale[units[col["dram__bytes_write.sum"]]]
        dur = _f(f[col["gpu__time_duration.sum"]]) * tscale[units[col["gpu__time_duration.sum"]]]
        assert v["dram_gbps"] == pytest.approx((rd + wr) / dur)
    ov = overview(prof, figs, part_limits(prof))
    assert ov["collect"] is None  # the capture has every counter the four figures need


@pytest.mark.parametrize("stem", ["resnet50", "detector"])
def test_h200_details_page_gives_the_raw_page_figures(stem: str):
    """The details page of the same ncu report (human metric names, sections) reads to the same figures."""
    raw, det = load_profile(_h200(f"{stem}_ncu_raw.csv")), load_profile(_h200(f"{stem}_ncu_details.csv.gz"))
    fr, fd = kernel_figures(raw), kernel_figures(det)
    rid, did = raw.kernels["correlation"].to_list(), det.kernels["correlation"].to_list()
    assert sorted(rid) == sorted(did)
    for launch in rid:
        a, b = fr[rid.index(launch)], fd[did.index(launch)]
        for k in ("achieved_occupancy_pct", "dram_throughput_pct_of_peak", "l2_hit_pct"):
            assert b.values[k] == pytest.approx(a.values[k], abs=0.006), (launch, k)  # details: 2 decimals
        assert b.values["dram_gbps"] == pytest.approx(a.values["dram_gbps"], rel=0.01)  # details rounds bytes
        # the details page's Occupancy section adds Block Limit Barriers, which the raw page did not collect
        assert set((a.limiter or "").split(", ")) <= set((b.limiter or "").split(", "))


def test_real_rocprofv3_json_without_counter_records(real_dir: Path):
    """The real MI350X JSON (kernel trace only): no counters, no counter warning, and the part's limits from its agents
    are not needed; the side overview lists what to collect for gfx950 (128-byte reads)."""
    prof = load_profile(real_dir / "rocprofv3/tracelens/908_results.json.gz")
    assert prof.counters is None
    assert not any("counter" in w for w in prof.warnings)
    part = part_limits(prof)
    assert part.arch == "gfx950" and part.peak_dram_gbps == 8000.0
    ov = overview(prof, kernel_figures(prof, part), part)
    assert "TCC_BUBBLE" in ov["collect"] and "SQ_WAVE_CYCLES" in ov["collect"]


def test_rocprofv3_counter_passes_in_pass_folders_are_each_joined(tmp_path: Path):
    """A multi-pass rocprofv3 run writes one counter_collection.csv per pass (pass_N/): every pass's counters reach
    their kernel records, giving the figures one file with all counters gives."""
    src = DATA / "rocprofv3_mi300x"
    for name in ("RUN_kernel_trace.csv", "RUN_agent_info.csv"):
        (tmp_path / name).write_text((src / name).read_text())
    lines = (src / "RUN_counter_collection.csv").read_text().splitlines()
    header, rows = lines[0], lines[1:]
    passes = {1: [r for r in rows if '"TCC_EA0_' not in r and '"TCC_BUBBLE"' not in r],
              2: [r for r in rows if '"TCC_EA0_' in r or '"TCC_BUBBLE"' in r]}
    for n, part in passes.items():
        (tmp_path / f"pass_{n}").mkdir()
        (tmp_path / f"pass_{n}" / "RUN_counter_collection.csv").write_text("\n".join([header, *part]) + "\n")
    split, whole = load_profile(tmp_path), load_profile(src)
    assert split.counters.height == whole.counters.height == len(rows)
    fs, fw = kernel_figures(split), kernel_figures(whole)
    assert {r: f.values for r, f in fs.items()} == {r: f.values for r, f in fw.items()}
    assert "pass_1" in split.counter_source["file"] and "pass_2" in split.counter_source["file"]


def test_ncu_details_page_of_two_processes_keeps_launches_apart(tmp_path: Path):
    """ncu restarts launch IDs in each profiled process: (ID, process) is the launch."""
    head = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
            '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')
    rows = []
    for pid, occ, dur in (("100", "61.50", "10.00"), ("200", "33.25", "20.00")):
        for metric, unit, value in (("Duration", "us", dur), ("Achieved Occupancy", "%", occ)):
            rows.append(f'"0","{pid}","app","h","k(int)","1","7","(256, 1, 1)","(64, 1, 1)","0","9.0",'
                        f'"SOL","{metric}","{unit}","{value}"')
    path = tmp_path / "two.csv"
    path.write_text("\n".join([head, *rows]) + "\n")
    prof = load_profile(path)
    assert prof.kernels.height == 2
    figs = kernel_figures(prof)
    by_dur = {prof.kernels["duration_ns"][r]: f.values["achieved_occupancy_pct"] for r, f in figs.items()}
    assert by_dur == {10000: 61.5, 20000: 33.25}
