"""Theoretical occupancy from static resources, one calculator per vendor, limits from ``arch_limits.toml``.

NVIDIA follows ``cuda_occupancy.h`` (registers allocated per warp in 256-register units over 4 sub-partitions,
shared memory in 128-byte units plus the per-block reservation, default carveout = the largest). AMD follows
the MI300X optimisation guide / LLVM (VGPRs per SIMD in granules of 8, AGPRs added to the aligned ArchVGPR
count, SGPR limit, LDS per CU in 512-byte granules, workgroup-per-CU limits). The formulas are written out in
``../shared/knowledge/risk-catalogue.md`` ("Occupancy models"); the numbers here are estimates of that model,
never measurements.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from hipgauge.knowledge.arch_limits import arch_limits, known_archs, load_arch_limits
from hipgauge.model import Record

__all__ = ["DEFAULT_BLOCK_SIZE", "Occupancy", "amd_occupancy", "arch_limits", "known_archs", "load_arch_limits",
           "nvidia_occupancy"]

#: block size used when the launch site gives no constant
DEFAULT_BLOCK_SIZE = 256


@dataclass
class Occupancy(Record):
    arch: str
    block_size: int
    block_size_source: str  # "launch site" | "assumed default"
    blocks_per_unit: int  # resident blocks per SM (NVIDIA) / workgroups per CU (AMD)
    active: float  # warps per SM (NVIDIA) / waves per SIMD (AMD)
    max_active: int
    occupancy: float  # active / max_active, 0..1
    limiter: str  # what bounds it: warps, registers, sgprs, shared memory, lds, blocks, block too large
    unit: str  # "warps/SM" | "waves/SIMD"
    provenance: str = "estimated"
    model: str = ""
    limits: dict[str, int] = field(default_factory=dict)  # each limit's block count
    #: share of the lanes of the block's warps/waves that hold a thread (a 32-thread block on wave64: 0.5).
    #: Occupancy counts resident waves; a half-empty wave still takes a whole wave slot.
    lane_utilization: float = 1.0


def _roundup(x: int, unit: int) -> int:
    return ((x + unit - 1) // unit) * unit if unit > 0 else x


def _pick(limits: dict[str, int]) -> tuple[int, str]:
    order = list(limits)
    best = min(limits.values())
    return best, next(k for k in order if limits[k] == best)


def nvidia_occupancy(arch: str, block_size: int, registers: int, static_smem: int, dynamic_smem: int = 0,
                     block_size_source: str = "launch site") -> Occupancy | None:
    lim = arch_limits(arch)
    if lim is None or lim["vendor"] != "nvidia":
        return None
    ws = lim["warp_size"]
    max_warps = lim["max_warps_per_sm"]
    model = "cuda_occupancy.h model (arch_limits.toml)"
    if block_size <= 0 or block_size > lim["max_threads_per_block"]:
        return Occupancy(arch, block_size, block_size_source, 0, 0, max_warps, 0.0, "block too large", "warps/SM",
                         model=model)
    w = math.ceil(block_size / ws)
    limits: dict[str, int] = {"warps": max_warps // w, "blocks": lim["max_blocks_per_sm"]}
    r = max(registers, 1)
    if r > lim["max_registers_per_thread"]:
        limits["registers"] = 0
    else:
        regs_warp = _roundup(r * ws, lim["register_alloc_unit"])
        sub = lim["register_sub_partitions"]
        if regs_warp * _roundup(w, sub) > lim["registers_per_block"]:
            limits["registers"] = 0
        else:
            warps_per_sub = (lim["registers_per_sm"] // sub) // regs_warp
            limits["registers"] = (warps_per_sub * sub) // w
    smem_block = _roundup(static_smem + dynamic_smem + lim["shared_reserved_per_block"], lim["shared_alloc_unit"])
    carveout = max(lim["shared_carveouts_kb"]) * 1024
    if static_smem + dynamic_smem > lim["shared_max_per_block"]:
        limits["shared memory"] = 0
    else:
        limits["shared memory"] = carveout // smem_block
    blocks, limiter = _pick(limits)
    active = blocks * w
    return Occupancy(arch, block_size, block_size_source, blocks, float(active), max_warps, active / max_warps,
                     limiter, "warps/SM", model=model, limits=limits, lane_utilization=block_size / (w * ws))


def amd_occupancy(arch: str, block_size: int, vgprs: int, agprs: int, sgprs: int, lds_bytes: int,
                  block_size_source: str = "launch site") -> Occupancy | None:
    lim = arch_limits(arch)
    if lim is None or lim["vendor"] != "amd":
        return None
    wave = lim["wave_size"]
    simds = lim["simds_per_cu"]
    max_waves = lim["max_waves_per_simd"]
    model = "MI300X guide / LLVM AMDGPU model (arch_limits.toml)"
    if block_size <= 0 or block_size > lim["max_threads_per_block"]:
        return Occupancy(arch, block_size, block_size_source, 0, 0, max_waves, 0.0, "block too large", "waves/SIMD",
                         model=model)
    w = math.ceil(block_size / wave)
    v = _roundup(vgprs, lim["agpr_arch_align"]) + agprs if agprs > 0 else vgprs
    v = max(v, 1)
    w_vgpr = min(max_waves, lim["vgprs_per_simd"] // _roundup(v, lim["vgpr_alloc_granule"]))
    w_sgpr = max_waves if sgprs <= lim["sgpr_full_occupancy_limit"] else lim["sgpr_reduced_waves"]
    limits: dict[str, int] = {}
    limits["waves"] = (max_waves * simds) // w
    limits["vgprs"] = (w_vgpr * simds) // w
    if w_sgpr < max_waves:
        limits["sgprs"] = (w_sgpr * simds) // w
    limits["lds"] = lim["lds_per_cu"] // _roundup(lds_bytes, lim["lds_alloc_granule"]) if lds_bytes > 0 else 10**6
    if lds_bytes > lim["lds_per_cu"]:
        limits["lds"] = 0
    limits["workgroups"] = lim["max_workgroups_per_cu"] if w == 1 else min(
        lim["max_waves_per_cu"] // w, lim["max_multiwave_workgroups_per_cu"])
    wgs, limiter = _pick(limits)
    waves_per_simd = wgs * w / simds
    return Occupancy(arch, block_size, block_size_source, wgs, waves_per_simd, max_waves,
                     min(1.0, waves_per_simd / max_waves), limiter, "waves/SIMD", model=model,
                     limits={k: val for k, val in limits.items() if val < 10**6},
                     lane_utilization=block_size / (w * wave))
