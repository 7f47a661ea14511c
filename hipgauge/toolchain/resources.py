"""Per-kernel resource usage as a compiler reported it, and compiler diagnostics.

``KernelResources`` holds what ``nvcc -Xptxas -v`` or hipcc's ``-Rpass-analysis=kernel-resource-usage``
printed for one kernel on one arch; ``evidence`` keeps the compiler's own lines the numbers were read from,
so every figure can be traced back to the compiler output.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hipgauge.model import Record


@dataclass
class KernelResources(Record):
    vendor: str  # "nvidia" | "amd"
    arch: str
    mangled: str
    name: str  # demangled
    registers: int | None = None  # NVIDIA: 32-bit registers per thread
    vgprs: int | None = None  # AMD: ArchVGPRs per lane
    agprs: int | None = None  # AMD: AccVGPRs per lane
    sgprs: int | None = None  # AMD: scalar registers per wave
    shared_bytes: int | None = None  # NVIDIA static smem / AMD LDS bytes per block
    constant_bytes: dict[str, int] = field(default_factory=dict)  # NVIDIA cmem[bank] -> bytes
    stack_frame_bytes: int | None = None  # NVIDIA stack frame; AMD ScratchSize bytes per lane
    spill_stores_bytes: int | None = None  # NVIDIA
    spill_loads_bytes: int | None = None  # NVIDIA
    sgpr_spills: int | None = None  # AMD
    vgpr_spills: int | None = None  # AMD
    barriers: int | None = None  # NVIDIA named barriers used
    compiler_occupancy: float | None = None  # AMD: the compiler's own waves/SIMD estimate
    file: str | None = None  # AMD remarks carry the kernel's source location
    line: int | None = None
    evidence: list[str] = field(default_factory=list)  # the compiler lines these numbers came from
    provenance: str = "measured"

    @property
    def spills(self) -> bool:
        return bool(self.spill_stores_bytes or self.spill_loads_bytes or self.sgpr_spills or self.vgpr_spills)


@dataclass
class Diagnostic(Record):
    """One compiler message with a location (error, warning or note)."""

    file: str | None
    line: int | None
    column: int | None
    severity: str  # "error" | "fatal error" | "warning" | "note"
    message: str
    raw: str = ""
