"""The normalized per-launch figures, from each vendor's counters. Every formula the tool uses is here.

NVIDIA (Nsight Compute; the figures are ncu's own metrics, **measured**):

- achieved occupancy % = ``sm__warps_active.avg.pct_of_peak_sustained_active`` (warps resident per SM, averaged
  over the SM's active cycles, as % of its warp slots; 64 on sm_80/sm_90);
- DRAM throughput % of peak = ``dram__throughput.avg.pct_of_peak_sustained_elapsed``;
- DRAM bytes = ``dram__bytes_read.sum + dram__bytes_write.sum`` (or ``dram__bytes.sum``);
  DRAM GB/s = bytes / duration (ns) (or ``dram__bytes.sum.per_second`` / 10⁹);
- when ncu gave bytes but not ``dram__throughput``: % of peak = 100 × GB/s / the part's peak (**estimated**);
- L2 hit % = ``lts__t_sector_hit_rate.pct``; SM throughput % = ``sm__throughput.avg.pct_of_peak_sustained_elapsed``;
- theoretical occupancy % = ``sm__maximum_warps_per_active_cycle_pct`` when collected (ncu's calculator for the
  launch's registers, shared memory and block size); otherwise build-check's estimate where it ran;
- occupancy limiter = the smallest of ``launch__occupancy_limit_{registers,shared_mem,warps,blocks,barriers}``
  (blocks per SM each resource allows).

AMD (rocprof / rocprofv3 / rocprof-compute counters; the figures are **estimated** by these formulas, which
follow rocprof-compute's own analysis configs, ``0200_system-speed-of-light.yaml`` and
``0700_wavefront-launch.yaml`` for gfx90a and gfx942, read 2026-12-02 at
https://github.com/ROCm/rocprofiler-compute/blob/6d22cc88eee16acb08600cfed909d5e72cb3cdd5/src/rocprof_compute_soc/analysis_configs/gfx90a/0200_system-speed-of-light.yaml,
https://github.com/ROCm/rocprofiler-compute/blob/dab30dd8cc0b85eaab2fbb740bc6d34b51af7960/src/rocprof_compute_soc/analysis_configs/gfx942/0200_system-speed-of-light.yaml
and https://github.com/ROCm/rocprofiler-compute/blob/df020ced63b4dd1fd6581858eca1e844f37e5742/src/rocprof_compute_soc/analysis_configs/gfx90a/0700_wavefront-launch.yaml):

- kernel cycles  C = ``GRBM_GUI_ACTIVE`` / num_xcd (GRBM_GUI_ACTIVE sums the XCDs: 8 on MI300X, 1 on MI200);
- waves in flight W = ``SQ_ACCUM_PREV_HIRES`` / C when collected with ``SQ_LEVEL_WAVES`` (the level counter),
  else W = 4 × ``SQ_WAVE_CYCLES`` / C (SQ_WAVE_CYCLES counts wave-resident quad-cycles, summed over all waves:
  rocprof-compute's "Wave Cycles" is 4 × SQ_WAVE_CYCLES; checked here against the gfx90a sample only, where
  it gives 43-56% on a streaming copy, so treat the gfx942 figure as the same model, not a validated one);
- achieved occupancy % = 100 × W / (CUs × max waves per CU) — waves in flight over the GPU's wave slots,
  averaged over the kernel's elapsed cycles (NVIDIA's figure averages over active cycles only, so on a kernel
  that leaves units idle the AMD figure reads lower for the same residency);
- HBM read bytes, gfx90a (64B or 32B requests):
  R = 32 × ``TCC_EA_RDREQ_32B`` + 64 × (``TCC_EA_RDREQ`` − ``TCC_EA_RDREQ_32B``);
- HBM read bytes, gfx942/gfx950 (128B requests are counted by ``TCC_BUBBLE``; counters are ``TCC_EA0_*``):
  R = 128 × ``TCC_BUBBLE`` + 64 × (``TCC_EA0_RDREQ`` − ``TCC_BUBBLE`` − ``TCC_EA0_RDREQ_32B``) + 32 × ``TCC_EA0_RDREQ_32B``;
- HBM write bytes: Wb = 64 × ``TCC_EA_WRREQ_64B`` + 32 × (``TCC_EA_WRREQ`` − ``TCC_EA_WRREQ_64B``) (``TCC_EA0_*`` on gfx942);
- DRAM GB/s = (R + Wb) / duration (ns); % of peak = 100 × GB/s / the part's peak bandwidth (``sysinfo.csv``
  ``hbm_bw`` when the workload folder states it, else ``arch_limits.toml`` [[parts]]);
- L2 hit % = 100 × ``TCC_HIT`` / (``TCC_HIT`` + ``TCC_MISS``).

Each counter is looked up as ``NAME_sum`` (rocprof-compute's sum over instances), then ``NAME`` (rocprofv3 and
rocprof v1 totals), then as the sum of ``NAME[i]`` (per instance). A figure whose counters are missing is
absent, and ``needed`` says which counters to collect.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MEASURED = "measured"
ESTIMATED = "estimated"

#: The four figures compared across vendors, in display order.
FIGURES = ("achieved_occupancy_pct", "dram_throughput_pct_of_peak", "dram_gbps", "l2_hit_pct")

#: arch families whose TCC issues 128-byte reads counted by TCC_BUBBLE (CDNA3 and later)
ARCHS_128B_READS = ("gfx940", "gfx941", "gfx942", "gfx950")

#: counters to collect per figure and vendor (what the capture recipes in docs/profiles.md ask for)
NEEDED: dict[str, dict[str, list[str]]] = {
    "nvidia": {
        "achieved_occupancy_pct": ["sm__warps_active.avg.pct_of_peak_sustained_active"],
        "dram_throughput_pct_of_peak": ["dram__throughput.avg.pct_of_peak_sustained_elapsed"],
        "dram_gbps": ["dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"],
        "l2_hit_pct": ["lts__t_sector_hit_rate.pct"],
    },
    "amd": {
        "achieved_occupancy_pct": ["SQ_WAVE_CYCLES", "GRBM_GUI_ACTIVE"],
        "dram_throughput_pct_of_peak": ["TCC_EA_RDREQ", "TCC_EA_RDREQ_32B", "TCC_EA_WRREQ", "TCC_EA_WRREQ_64B"],
        "dram_gbps": ["TCC_EA_RDREQ", "TCC_EA_RDREQ_32B", "TCC_EA_WRREQ", "TCC_EA_WRREQ_64B"],
        "l2_hit_pct": ["TCC_HIT", "TCC_MISS"],
    },
    "amd-gfx942": {
        "dram_throughput_pct_of_peak": ["TCC_EA0_RDREQ", "TCC_EA0_RDREQ_32B", "TCC_BUBBLE", "TCC_EA0_WRREQ",
                                        "TCC_EA0_WRREQ_64B"],
        "dram_gbps": ["TCC_EA0_RDREQ", "TCC_EA0_RDREQ_32B", "TCC_BUBBLE", "TCC_EA0_WRREQ", "TCC_EA0_WRREQ_64B"],
    },
}

NVIDIA_LIMITERS = {
    "launch__occupancy_limit_registers": "registers",
    "launch__occupancy_limit_shared_mem": "shared memory",
    "launch__occupancy_limit_warps": "warps",
    "launch__occupancy_limit_blocks": "blocks per SM",
    "launch__occupancy_limit_barriers": "barriers",
}


@dataclass
class PartLimits:
    """What a % of peak or an occupancy needs to know of the device."""

    name: str | None = None
    arch: str | None = None
    units: int | None = None  # SMs / CUs
    max_waves_per_cu: int | None = None
    num_xcd: int = 1
    peak_dram_gbps: float | None = None
    peak_source: str | None = None  # where peak_dram_gbps came from
    units_source: str | None = None


@dataclass
class Figures:
    """One launch's figures; ``basis`` says per figure how it was obtained, ``missing`` per absent figure what
    to collect."""

    values: dict[str, float] = field(default_factory=dict)
    basis: dict[str, str] = field(default_factory=dict)
    missing: dict[str, list[str]] = field(default_factory=dict)
    limiter: str | None = None
    extra: dict[str, float] = field(default_factory=dict)  # sm_throughput_pct, dram_bytes, waves_in_flight


def counter(c: dict[str, float], name: str) -> float | None:
    """``NAME_sum``, else ``NAME``, else Σ ``NAME[i]`` (already summed into ``NAME_sum`` by the reader)."""
    for k in (name + "_sum", name):
        if k in c:
            return c[k]
    return None


def _first(c: dict[str, float], *names: str) -> tuple[str, float] | None:
    for n in names:
        if n in c:
            return n, c[n]
    return None


def nvidia(c: dict[str, float], duration_ns: float | None, part: PartLimits) -> Figures:
    f = Figures()
    occ = c.get("sm__warps_active.avg.pct_of_peak_sustained_active")
    if occ is not None:
        f.values["achieved_occupancy_pct"] = occ
        f.basis["achieved_occupancy_pct"] = f"{MEASURED}: ncu sm__warps_active.avg.pct_of_peak_sustained_active"
    rd, wr = c.get("dram__bytes_read.sum"), c.get("dram__bytes_write.sum")
    total = (rd + wr) if rd is not None and wr is not None else c.get("dram__bytes.sum")
    if total is not None:
        f.extra["dram_bytes"] = total
        if duration_ns:
            f.values["dram_gbps"] = total / duration_ns
            f.basis["dram_gbps"] = f"{MEASURED}: ncu (dram__bytes_read.sum + dram__bytes_write.sum) / duration"
    elif "dram__bytes.sum.per_second" in c:
        f.values["dram_gbps"] = c["dram__bytes.sum.per_second"] / 1e9
        f.basis["dram_gbps"] = f"{MEASURED}: ncu dram__bytes.sum.per_second"
    dt = c.get("dram__throughput.avg.pct_of_peak_sustained_elapsed")
    if dt is not None:
        f.values["dram_throughput_pct_of_peak"] = dt
        f.basis["dram_throughput_pct_of_peak"] = f"{MEASURED}: ncu dram__throughput.avg.pct_of_peak_sustained_elapsed"
    elif "dram_gbps" in f.values and part.peak_dram_gbps:
        f.values["dram_throughput_pct_of_peak"] = 100.0 * f.values["dram_gbps"] / part.peak_dram_gbps
        f.basis["dram_throughput_pct_of_peak"] = (f"{ESTIMATED}: 100 × DRAM GB/s / {part.peak_dram_gbps:g} GB/s "
                                                  f"({part.peak_source})")
    l2 = c.get("lts__t_sector_hit_rate.pct")
    if l2 is not None:
        f.values["l2_hit_pct"] = l2
        f.basis["l2_hit_pct"] = f"{MEASURED}: ncu lts__t_sector_hit_rate.pct"
    sm = c.get("sm__throughput.avg.pct_of_peak_sustained_elapsed")
    if sm is not None:
        f.extra["sm_throughput_pct"] = sm
    theo = c.get("sm__maximum_warps_per_active_cycle_pct")
    if theo is not None:  # ncu's own occupancy calculator for this launch's resources
        f.extra["theoretical_occupancy_pct"] = theo
    limits = {label: c[m] for m, label in NVIDIA_LIMITERS.items() if m in c}
    if limits:
        low = min(limits.values())
        f.limiter = ", ".join(sorted(k for k, v in limits.items() if v == low))
    for fig in FIGURES:
        if fig not in f.values:
            f.missing[fig] = [n for n in NEEDED["nvidia"][fig] if n not in c] or list(NEEDED["nvidia"][fig])
    return f


def _is_128b(arch: str | None, c: dict[str, float]) -> bool:
    if any(k.startswith(("TCC_EA0_", "TCC_BUBBLE")) for k in c):
        return True
    return arch is not None and arch.split(":")[0] in ARCHS_128B_READS


def amd(c: dict[str, float], duration_ns: float | None, part: PartLimits) -> Figures:
    f = Figures()
    # achieved occupancy
    grbm = counter(c, "GRBM_GUI_ACTIVE")
    level = counter(c, "SQ_ACCUM_PREV_HIRES") if "SQ_LEVEL_WAVES" in c or "SQ_LEVEL_WAVES_sum" in c else None
    wave_cycles = counter(c, "SQ_WAVE_CYCLES")
    slots = (part.units * part.max_waves_per_cu) if part.units and part.max_waves_per_cu else None
    if grbm and (level is not None or wave_cycles is not None):
        cycles = grbm / max(part.num_xcd, 1)
        if level is not None:
            waves, how = level / cycles, "SQ_ACCUM_PREV_HIRES / (GRBM_GUI_ACTIVE / num_xcd)"
        else:
            waves, how = 4.0 * (wave_cycles or 0.0) / cycles, "4 × SQ_WAVE_CYCLES / (GRBM_GUI_ACTIVE / num_xcd)"
        f.extra["waves_in_flight"] = waves
        if slots:
            f.values["achieved_occupancy_pct"] = 100.0 * waves / slots
            f.basis["achieved_occupancy_pct"] = (f"{ESTIMATED}: 100 × {how} / ({part.units} CUs × "
                                                 f"{part.max_waves_per_cu} waves/CU; {part.units_source})")
        else:
            f.missing["achieved_occupancy_pct"] = [("the part's CU count and waves per CU (sysinfo.csv, or a known "
                                                    "device name in arch_limits.toml [[parts]])")]
    # HBM bytes
    wide = _is_128b(part.arch, c)
    p = "TCC_EA0_" if any(k.startswith("TCC_EA0_") for k in c) else "TCC_EA_"
    rd, rd32 = counter(c, p + "RDREQ"), counter(c, p + "RDREQ_32B")
    wr, wr64 = counter(c, p + "WRREQ"), counter(c, p + "WRREQ_64B")
    bubble = counter(c, "TCC_BUBBLE")
    needed = NEEDED["amd-gfx942"]["dram_gbps"] if wide else NEEDED["amd"]["dram_gbps"]
    have_read = rd is not None and rd32 is not None and (bubble is not None or not wide)
    if have_read and wr is not None and wr64 is not None:
        assert rd is not None and rd32 is not None
        if wide:
            read = 128.0 * (bubble or 0.0) + 64.0 * (rd - (bubble or 0.0) - rd32) + 32.0 * rd32
            rform = f"128×TCC_BUBBLE + 64×({p}RDREQ − TCC_BUBBLE − {p}RDREQ_32B) + 32×{p}RDREQ_32B"
        else:
            read = 32.0 * rd32 + 64.0 * (rd - rd32)
            rform = f"32×{p}RDREQ_32B + 64×({p}RDREQ − {p}RDREQ_32B)"
        write = 64.0 * wr64 + 32.0 * (wr - wr64)
        total = read + write
        f.extra["dram_bytes"] = total
        if duration_ns:
            gbps = total / duration_ns
            f.values["dram_gbps"] = gbps
            f.basis["dram_gbps"] = (f"{ESTIMATED}: ({rform} + 64×{p}WRREQ_64B + 32×({p}WRREQ − {p}WRREQ_64B)) bytes "
                                    f"/ duration")
            if part.peak_dram_gbps:
                f.values["dram_throughput_pct_of_peak"] = 100.0 * gbps / part.peak_dram_gbps
                f.basis["dram_throughput_pct_of_peak"] = (f"{ESTIMATED}: 100 × DRAM GB/s / {part.peak_dram_gbps:g} GB/s "
                                                          f"({part.peak_source})")
            else:
                f.missing["dram_throughput_pct_of_peak"] = [("the part's peak bandwidth (sysinfo.csv hbm_bw, or a known "
                                                             "device name in arch_limits.toml [[parts]])")]
    else:
        f.missing["dram_gbps"] = [n for n in needed if counter(c, n) is None] or list(needed)
        f.missing["dram_throughput_pct_of_peak"] = list(f.missing["dram_gbps"])
    hit, miss = counter(c, "TCC_HIT"), counter(c, "TCC_MISS")
    if hit is not None and miss is not None and hit + miss > 0:
        f.values["l2_hit_pct"] = 100.0 * hit / (hit + miss)
        f.basis["l2_hit_pct"] = f"{ESTIMATED}: 100 × TCC_HIT / (TCC_HIT + TCC_MISS)"
    for fig in FIGURES:
        if fig not in f.values and fig not in f.missing:
            f.missing[fig] = [n for n in NEEDED["amd"][fig] if counter(c, n) is None] or list(NEEDED["amd"][fig])
    return f


def figures(vendor: str, c: dict[str, float], duration_ns: float | None, part: PartLimits) -> Figures:
    return nvidia(c, duration_ns, part) if vendor == "nvidia" else amd(c, duration_ns, part)


def as_dict(f: Figures) -> dict[str, Any]:
    return {"values": dict(f.values), "basis": dict(f.basis), "missing": dict(f.missing), "limiter": f.limiter,
            "extra": dict(f.extra)}
