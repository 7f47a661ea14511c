"""Hand-made profiles for the decide/cost/report/assess tests (polars tables in KERNEL_RECORD_SCHEMA).

Used by the tests through ``load_builder()`` in each test file; nothing here reads a profiler format.
"""

from __future__ import annotations

import polars as pl

from hipgauge.model import KERNEL_RECORD_SCHEMA, Profile
from hipgauge.kernel_names import demangle, normalize_key


def make_profile(kernels: list[tuple[str, float, str | None]], vendor: str = "nvidia", iterations: int = 10,
                 latency_ms: list[float] | None = None, path: str = "hand-made", gap_ms: float = 0.05) -> Profile:
    """``kernels``: (name, duration ms, operator) launched once per iteration, in order."""
    rows: dict[str, list] = {c: [] for c in KERNEL_RECORD_SCHEMA}
    spans = []
    t = 1_000_000
    corr = 1
    for it in range(iterations):
        start = t
        for name, dur_ms, op in kernels:
            dur = int(dur_ms * 1e6)
            for col, val in (("vendor", vendor), ("device", None), ("source_format", "hand"), ("raw_name", name),
                             ("name", demangle(name)), ("key", normalize_key(name)), ("operator", op), ("range", None),
                             ("iteration", it), ("start_ns", t), ("duration_ns", dur), ("grid", None), ("block", None),
                             ("stream", 7), ("registers", None), ("shared_mem_bytes", None), ("correlation", corr)):
                rows[col].append(val)
            corr += 1
            t += dur + int(gap_ms * 1e6)
        spans.append((it, start, t))
        t += 2_000_000
    schema = {c: getattr(pl, dtype) for c, dtype in KERNEL_RECORD_SCHEMA.items()}
    df = pl.DataFrame(rows, schema=schema)
    return Profile(path=path, source_format="hand", vendor=vendor, kernels=df, iterations=spans,
                   latency_ms=latency_ms, latency_source=f"{path}.latency.csv" if latency_ms else None)


#: The DESIGN.md worked example: two cuDNN convolutions hold 12 of ~17.8 ms (P99) against a 20 ms target.
NASTY = "<script>alert(1)</script>\"'`{{ 7*7 }}{% if x %}${x}|*_[]"
BASE_KERNELS = [
    ("sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_cudnn", 6.0, "aten::cudnn_convolution"),
    ("void warp_softmax_kernel<float>(float const*, float*, int)", 3.0, None),
    ("sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_cudnn", 6.0, "aten::cudnn_convolution"),
    ("void at::native::vectorized_elementwise_kernel<8, at::native::clamp_min_scalar_kernel_impl>(int, float)", 1.0, "aten::relu_"),
]


def worked_latencies() -> list[float]:
    return [17.2 + 0.005 * i for i in range(120)]  # P99 ≈ 17.79 ms, 120 iterations


def worked_baseline(extra: list[tuple[str, float, str | None]] | None = None) -> Profile:
    return make_profile(BASE_KERNELS + list(extra or []), latency_ms=worked_latencies(), path="det_base")


def worked_candidate(conv_ratio: float = 1.4, extra: list[tuple[str, float, str | None]] | None = None) -> Profile:
    kernels = [("igemm_fwd_gtcx3_nhwc_fp16_bt128x128x32", 6.0 * conv_ratio, "aten::miopen_convolution"),
               ("void warp_softmax_kernel<float>(float const*, float*, int)", 3.3, None),
               ("igemm_fwd_gtcx3_nhwc_fp16_bt64x64x32", 6.0 * conv_ratio, "aten::miopen_convolution"),
               BASE_KERNELS[3]]
    return make_profile(kernels + list(extra or []), vendor="amd", path="det_cand")
