"""Issue #12's defects, each on a small fixture written here (and the real pairs where they show):
unmatched share per iteration, calls vs launches, bounded contributions, the mis-pair guard, work keys that
keep functor and dtype, case-sensitive kernel groups, GPU-only Kineto traces, the 80-column terminal,
outliers first, the honest coverage line and the projecting-mode latency line."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from hipgauge.model import KERNEL_RECORD_SCHEMA, Profile
from hipgauge.profiles.grouping import classify
from hipgauge.profiles.kernel_work import abbreviate, work_key
from hipgauge.profiles.load import load_profile
from hipgauge.profiles.parity import compare_profiles
from hipgauge.profiles.signatures import describe, encode

US = 1000
FILL = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
        "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)")
MUL = ("void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
       "c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, "
       "at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
       "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul>)")
MUL8 = MUL.replace("kernel<4,", "kernel<8,")


def _frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    schema = {k: getattr(pl, v) for k, v in KERNEL_RECORD_SCHEMA.items()}
    base = pl.DataFrame([{k: r.get(k) for k in KERNEL_RECORD_SCHEMA} for r in rows], schema=schema)
    extra = {"operator_id": pl.Int64, "operator_signature": pl.String, "range_signature": pl.String}
    return base.with_columns([pl.Series(c, [r.get(c) for r in rows], dtype=t) for c, t in extra.items()])


def signed_profile(calls: list[tuple[str, str, list, list, int, int]], iterations: int, vendor: str = "nvidia",
                   extra: list[tuple[str, int]] | None = None) -> Profile:
    """``calls`` per iteration: (kernel name, operator, input dims, input types, duration ns, kernels per call);
    ``extra``: kernels with no operator (name, ns), once per iteration."""
    rows: list[dict[str, Any]] = []
    windows = []
    t, cid = 0, 0
    for it in range(iterations):
        start = t
        for name, op, dims, types, dur, n in calls:
            cid += 1
            for _ in range(n):
                rows.append({"vendor": vendor, "source_format": "test", "raw_name": name, "name": name,
                             "key": None, "operator": op, "iteration": it, "start_ns": t, "duration_ns": dur,
                             "correlation": len(rows), "operator_id": cid,
                             "operator_signature": encode(op, dims, types, [])})
                t += dur
        for name, dur in extra or []:
            rows.append({"vendor": vendor, "source_format": "test", "raw_name": name, "name": name, "key": name,
                         "iteration": it, "start_ns": t, "duration_ns": dur, "correlation": len(rows)})
            t += dur
        windows.append((it, start, t))
        t += 1000
    df = _frame(rows)
    from hipgauge.kernel_names import normalize_key

    df = df.with_columns(pl.col("raw_name").map_elements(normalize_key, return_dtype=pl.String).alias("key"))
    return Profile(path=f"{vendor}.trace", source_format="test", vendor=vendor, kernels=df, iterations=windows)


def test_work_key_keeps_functor_and_dtype_but_not_vector_width():
    assert work_key(FILL) != work_key(MUL)
    assert work_key(MUL) == work_key(MUL8)
    assert "MulFunctor<float>" in work_key(MUL) and "BFloat16" in work_key(MUL)
    assert "FillFunctor<float>" in work_key(FILL)


def test_abbreviation_drops_namespaces_keeps_the_distinguishing_argument():
    a = abbreviate(FILL, 60)
    assert a == "vectorized_elementwise_kernel<FillFunctor<float>>"
    assert "at::" not in abbreviate(MUL, 40) and len(abbreviate(MUL, 40)) <= 40
    assert "…e_kernel" not in abbreviate(MUL, 40)  # never the bare "at::nativ…e_kernel"


def test_normalized_level_never_collapses_different_functors_or_signatures():
    # baseline: a fill and a mul of different shapes; candidate: the same, other vector width
    b = signed_profile([(FILL, "aten::fill_", [[16, 64]], ["float"], 10 * US, 1),
                        (MUL, "aten::mul", [[16, 559, 1024], [16, 559, 1024]], ["c10::BFloat16"] * 2, 50 * US, 1)], 2)
    c = signed_profile([(FILL.replace("<4,", "<8,"), "aten::fill_", [[16, 64]], ["float"], 20 * US, 1),
                        (MUL8, "aten::mul", [[16, 559, 1024], [16, 559, 1024]], ["c10::BFloat16"] * 2, 40 * US, 1)],
                       2, vendor="amd")
    res = compare_profiles(b, c)
    assert len(res.rows) == 2
    by_op = {r.signature["operator"]: r for r in res.rows}
    assert by_op["aten::fill_"].ratio == pytest.approx(2.0)
    assert by_op["aten::mul"].ratio == pytest.approx(0.8)
    assert all(r.level.value == "normalized" and not r.flags for r in res.rows)


def test_call_counts_that_differ_are_split_not_averaged():
    sig = ([[8, 8]], ["float"])
    b = signed_profile([("k_a", "aten::add", *sig, 10 * US, 1)] * 3, 1)
    c = signed_profile([("k_a", "aten::add", *sig, 10 * US, 1)], 1, vendor="amd")
    res = compare_profiles(b, c)
    assert len(res.rows) == 1 and res.rows[0].baseline_calls == res.rows[0].candidate_calls == 1
    assert res.rows[0].ratio == pytest.approx(1.0)
    assert res.unmatched_baseline[0].count == 2  # the two extra calls, listed, not folded into a 3× ratio


def test_guard_flags_a_row_whose_calls_per_signature_differ():
    from hipgauge.model import MatchLevel, ParityRow
    from hipgauge.profiles.outliers import guard

    s = {"signature": "aten::add [8,8] fp32", "calls": 3}
    row = ParityRow(level=MatchLevel.OPERATOR, label="aten::add", baseline_names=["k"], candidate_names=["k"],
                    baseline_ns=30.0, candidate_ns=10.0, baseline_count=3, candidate_count=1, share=1.0,
                    signature={"operator": "aten::add"}, signature_scope="operator", signature_match="full",
                    baseline_signatures=[s], candidate_signatures=[dict(s, calls=1)])
    assert any("call counts differ" in f for f in guard(row))


def test_extreme_ratio_with_lopsided_counts_is_flagged():
    sig = ([[725, 64]], ["c10::BFloat16"])
    b = signed_profile([("transpose_k", "aten::copy_", *sig, 10 * US, 20)], 1)
    c = signed_profile([("transpose_k", "aten::copy_", *sig, 300, 1)], 1, vendor="amd")
    res = compare_profiles(b, c)
    assert res.rows[0].flags and "lopsided" in " ".join(res.rows[0].flags)


def test_unmatched_share_is_per_iteration_and_contributions_are_bounded():
    b = signed_profile([("k", "aten::add", [[4]], ["float"], 90 * US, 1)], 10, extra=[("nv_only", 10 * US)])
    c = signed_profile([("k", "aten::add", [[4]], ["float"], 91 * US, 1)], 10, vendor="amd")
    res = compare_profiles(b, c)
    u = res.unmatched_baseline[0]
    assert u.ns == pytest.approx(10 * US) and u.share == pytest.approx(0.1)  # was 10× (multiplied by iterations)
    assert sum(r.share for r in res.rows) + sum(x.share for x in res.unmatched_baseline) == pytest.approx(1.0)
    d = res.to_dict()
    # net delta −9 µs, absolute change 1 + 10 µs: shares bounded by ±1
    assert d["rows"][0]["contribution"] == pytest.approx(1 / 11)


def test_operator_calls_not_launches():
    b = signed_profile([("k1", "aten::conv", [[1]], ["float"], 10, 3)], 2)  # 3 kernels per call
    c = signed_profile([("k1", "aten::conv", [[1]], ["float"], 10, 3)], 2, vendor="amd")
    op = compare_profiles(b, c).operators[0]
    assert op.baseline_count == 6 and op.baseline_calls == 1


def test_kernel_groups_operator_first_then_case_sensitive():
    assert classify("bmm_MxE4m3_Fp32_t128x64_bN_128") == "gemm"  # "*_bn_*" must not catch "_bN_"
    assert classify("cudnn::bn_fw_tr_1C11_kernel_NCHW") == "normalization"
    assert classify("Cijk_Alik_Bljk_HHS_BH_MT64") == "gemm"
    assert classify("bmm_MxE4m3_Fp32_t128x64_bN_128", "aten::layer_norm") == "normalization"


def test_describe_signature():
    s = encode("aten::bmm", [[12, 577, 64], [12, 64, 577]], ["c10::BFloat16", "c10::BFloat16"], [])
    assert describe(s) == "aten::bmm [12,577,64]×[12,64,577] bf16"


def _gpu_only_trace(path: Path) -> None:
    ev = []
    for i in range(4):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 100 + i * 10,
                   "dur": 2, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": FILL, "pid": 0, "tid": 7, "ts": 105 + i * 10, "dur": 3,
                   "args": {"correlation": i + 1, "device": 0, "stream": 7}})
    path.write_text(json.dumps({"traceEvents": ev, "deviceProperties": [{"id": 0, "name": "NVIDIA H100"}]}))


def test_gpu_only_kineto_trace_is_read(tmp_path: Path):
    p = tmp_path / "gpu_only.pt.trace.json"
    _gpu_only_trace(p)
    prof = load_profile(p)
    assert prof.kernels.height == 4 and prof.kernels["duration_ns"].sum() == 12_000
    assert compare_profiles(prof, prof).coverage["baseline_time_matched"] == pytest.approx(1.0)


def _run(*args: str, columns: int = 80) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hipgauge", *args], capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": str(columns), "PATH": "/usr/bin:/bin"}, check=False)


def test_terminal_leads_with_outliers_and_keeps_columns_at_80(real_dir: Path):
    d = real_dir / "pytorch_kineto" / "tracelens_pairs"
    name = "gaunernst_bert-small-uncased__1016001.json.gz"
    r = _run("compare", str(d / "h100" / name), str(d / "mi300" / name))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    first = out.index("outliers first")
    assert first < out.index("per kernel") and first < out.index("per operator")
    assert "aten::_flash_attention_forward [1,141,8,64]" in out.replace("\n", "")
    assert "at::nativ…e_kernel" not in out
    assert "vectorized_elementwise_kernel<GeluCUDAKernelImpl" in out
    assert "of |Δ|" in out and "columns hidden at 80 characters in the operator table" in out
    assert "100% of the baseline's in-iteration kernel time matched" in out.replace("\n", " ")


def test_coverage_line_says_what_was_left_out_before_the_first_step(tmp_path: Path):
    # one ProfilerStep; two kernels before it
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 200, "dur": 100,
           "args": {}}]
    for i, ts in enumerate((10, 20, 210, 220)):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts,
                   "dur": 2, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": FILL, "pid": 0, "tid": 7, "ts": ts + 3, "dur": 1000 if ts < 100 else 500,
                   "args": {"correlation": i + 1, "device": 0, "stream": 7}})
    p = tmp_path / "one_step.json"
    p.write_text(json.dumps({"traceEvents": ev, "deviceProperties": [{"id": 0, "name": "NVIDIA H100"}]}))
    r = _run("compare", str(p), str(p), "--json")
    cov = json.loads(r.stdout)["coverage"]
    assert cov["baseline_excluded_ns"] == 2_000_000 and cov["baseline_excluded_before_ns"] == 2_000_000
    r = _run("compare", str(p), str(p), columns=200)
    assert "100% of the baseline's in-iteration kernel time matched" in r.stdout
    assert "(33.3% of the file's: 2.0 ms before the first step left out)" in r.stdout


def test_projecting_mode_candidate_latency_line_names_its_value(real_dir: Path, tmp_path: Path):
    d = real_dir / "pytorch_kineto" / "tracelens_pairs"
    name = "gaunernst_bert-small-uncased__1016001.json.gz"
    lat = tmp_path / "lat.csv"
    lat.write_text("iteration,latency_ms\n" + "".join(f"{i},{4.0 + i / 100}\n" for i in range(20)))
    r = _run("compare", str(d / "h100" / name), str(d / "mi300" / name), "--latency-csv", str(lat), columns=200)
    assert r.returncode == 0, r.stderr
    assert "candidate latency:" not in r.stdout  # that note is about the candidate's own trace, not the projection
    assert "candidate's own trace (not the figure above" in r.stdout


def test_gzip_fixture_helpers_leave_nothing(tmp_path: Path):
    # the independent reader in test_compare_signatures reads gzip JSON: make sure plain gzip round-trips here
    p = tmp_path / "x.json.gz"
    with gzip.open(p, "wt") as f:
        json.dump({"traceEvents": []}, f)
    with gzip.open(p, "rt") as f:
        assert json.load(f) == {"traceEvents": []}
