"""Write the small synthetic profiles the compare/project tests use (run: python make_fixtures.py).

They are PyTorch-profiler (Kineto) Chrome traces written by hand after the layout of the real traces
in ../shared/fixtures/real/pytorch_kineto/tracelens_pairs (cpu_op → cuda_runtime → kernel linked by
External id and correlation, ProfilerStep#N on the CPU and GPU sides). They model the DESIGN.md worked
example: a detector whose two convolutions take 12 ms of a 20 ms P99 target per iteration (60%).

- det_base.json: NVIDIA (cuDNN sm90_xmma_fprop convolutions, a cuBLAS GEMM, two elementwise kernels)
- det_cand.json: AMD, the same model after the port (MIOpen igemm convolutions at 1.4×, a hipBLASLt
  Cijk_ GEMM, the same elementwise kernels by name)
- det_base_latency_ms.csv: 120 end-to-end latencies around 17.5 ms (P99 ≈ 18 ms)
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
ITERATIONS = 10
T0 = 1_700_000_000_000.0  # µs

NV = [  # (stack outermost first, kernel name, duration µs)
    (["aten::conv2d", "aten::convolution", "aten::_convolution", "aten::cudnn_convolution"],
     "sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_execute_kernel__5x_cudnn", 6000.0),
    (["aten::relu_", "aten::clamp_min_"],
     "void at::native::vectorized_elementwise_kernel<8, at::native::(anonymous namespace)::clamp_min_scalar_kernel_impl(at::TensorIteratorBase&, c10::Scalar)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() const::{lambda(c10::Half)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::clamp_min_scalar_kernel_impl(at::TensorIteratorBase&, c10::Scalar)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() const::{lambda(c10::Half)#1}, std::array<char*, 2ul>)", 1000.0),
    (["aten::conv2d", "aten::convolution", "aten::_convolution", "aten::cudnn_convolution"],
     "sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_warpgroupsize1x1x1_execute_kernel__5x_cudnn", 6000.0),
    (["aten::relu_", "aten::clamp_min_"],
     "void at::native::vectorized_elementwise_kernel<8, at::native::(anonymous namespace)::clamp_min_scalar_kernel_impl(at::TensorIteratorBase&, c10::Scalar)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() const::{lambda(c10::Half)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::clamp_min_scalar_kernel_impl(at::TensorIteratorBase&, c10::Scalar)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() const::{lambda(c10::Half)#1}, std::array<char*, 2ul>)", 1000.0),
    (["aten::linear", "aten::addmm"],
     "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", 2000.0),
]

AMD = [
    (["aten::conv2d", "aten::convolution", "aten::_convolution", "aten::miopen_convolution"],
     "igemm_fwd_gtcx3_nhwc_fp16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x4x1_1x4x1x64_tb1x8x4x1_1x4x1x64", 8400.0),
    NV[1],
    (["aten::conv2d", "aten::convolution", "aten::_convolution", "aten::miopen_convolution"],
     "igemm_fwd_gtcx3_nhwc_fp16_bx0_ex1_bt64x64x32_wt16x16x16_ws1x1_wr2x2_ta1x4x4x1_1x8x1x32_tb1x4x4x1_1x8x1x32", 8400.0),
    NV[3],
    (["aten::linear", "aten::addmm"],
     "Cijk_Alik_Bljk_HHS_BH_MT64x64x32_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASAE01_ASCE01_ASEM1", 2000.0),
]


def trace(kernels, vendor: str) -> dict:
    ev: list[dict] = []
    ext = 1
    corr = 1000
    launch = "cudaLaunchKernel" if vendor == "nvidia" else "hipExtModuleLaunchKernel"
    tid_gpu = 7 if vendor == "nvidia" else 0
    for it in range(ITERATIONS):
        start = T0 + it * 25_000.0
        gpu = start + 200.0
        end_gpu = gpu
        cpu_events: list[dict] = []
        for stack, name, dur in kernels:
            cpu = gpu - 150.0
            for depth, op in enumerate(stack):
                cpu_events.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 100, "tid": 100,
                                   "ts": round(cpu + depth, 3), "dur": round(60.0 - 2 * depth, 3),
                                   "args": {"External id": ext + depth}})
            inner = ext + len(stack) - 1
            ext += len(stack)
            cpu_events.append({"ph": "X", "cat": "cuda_runtime", "name": launch, "pid": 100, "tid": 100,
                               "ts": round(cpu + 20.0, 3), "dur": 10.0,
                               "args": {"External id": inner, "correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": tid_gpu, "ts": round(gpu, 3),
                       "dur": dur, "args": {"External id": inner, "device": 0, "stream": tid_gpu,
                                            "correlation": corr, "grid": [128, 1, 1], "block": [256, 1, 1]}})
            corr += 1
            end_gpu = gpu + dur
            gpu = end_gpu + 300.0  # launch gap between kernels
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{it}", "pid": 100, "tid": 100,
                   "ts": round(start, 3), "dur": round(end_gpu - start, 3), "args": {"External id": ext}})
        ext += 1
        ev.extend(cpu_events)
        ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{it}", "pid": 0, "tid": tid_gpu,
                   "ts": round(start + 200.0, 3), "dur": round(end_gpu - start - 200.0, 3), "args": {}})
    ev.sort(key=lambda e: e["ts"])
    doc: dict = {"schemaVersion": 1, "traceEvents": ev, "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000}
    if vendor == "nvidia":
        doc["deviceProperties"] = [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0,
                                    "warpSize": 32, "numSms": 132}]
        doc["cuda_runtime_version"] = 12040
    else:
        doc["deviceProperties"] = [{"id": 0, "name": "AMD Instinct MI300X", "computeMajor": 9, "computeMinor": 4,
                                    "warpSize": 64}]
        doc["hip_runtime_version"] = 60242134
    return doc


def main() -> None:
    (HERE / "det_base.json").write_text(json.dumps(trace(NV, "nvidia"), indent=0), encoding="utf-8")
    (HERE / "det_cand.json").write_text(json.dumps(trace(AMD, "amd"), indent=0), encoding="utf-8")
    rng = random.Random(20261129)
    lines = ["iteration,latency_ms"]
    for i in range(120):
        lines.append(f"{i},{17.2 + rng.random() * 0.6:.4f}")
    (HERE / "det_base_latency_ms.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
