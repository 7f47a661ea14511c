"""The source-side records (scan, rules, translate): skipped files, kernels, launch sites, API references,
findings, per-file statistics and the scan result. ``hipgauge scan`` and ``hipgauge translate`` load this module
and ``hipgauge.model.vocabulary``, never the profile side (``hipgauge.model.profile``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hipgauge.model.vocabulary import Confidence, Record, Severity

# --------------------------------------------------------------------------------------------
# Source side (scan, rules, translate)
# --------------------------------------------------------------------------------------------


@dataclass
class SkippedFile(Record):
    """A file not analysed, and why."""

    path: str
    reason: str  # one line: "binary", "not UTF-8 (decoded as latin-1)", "unreadable: …", "too large"


@dataclass
class Kernel(Record):
    """A ``__global__`` function definition."""

    name: str
    file: str
    line: int
    end_line: int
    template_params: list[str] = field(default_factory=list)
    launch_bounds: list[str] = field(default_factory=list)  # the __launch_bounds__ arguments as written
    static_smem_bytes: int | None = None  # sum of static __shared__ arrays where the sizes fold to constants
    qualified_name: str | None = None  # with enclosing namespaces/classes


@dataclass
class DeviceFunction(Record):
    """A ``__device__`` (or ``__host__ __device__``) function definition."""

    name: str
    file: str
    line: int
    end_line: int
    qualifiers: list[str] = field(default_factory=list)  # "__device__", "__host__", "__forceinline__"


@dataclass
class LaunchSite(Record):
    """A kernel launch: ``<<<…>>>`` or a launch API call."""

    file: str
    line: int
    kernel: str | None  # the kernel it launches, when it can be named
    via: str  # "chevron", "cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cuLaunchKernel", …
    grid: str | None = None
    block: str | None = None
    shared_mem: str | None = None
    stream: str | None = None
    in_macro: bool = False
    caller: str | None = None  # the enclosing function


@dataclass
class ApiCall(Record):
    """A reference to a CUDA API (function, type, enum, macro or header) and its HIP counterpart."""

    file: str
    line: int
    cuda_name: str
    library: str  # runtime, driver, device, cublas, cublaslt, cudnn, cufft, cusparse, curand, cusolver, nccl, cub, thrust, cutlass, nvtx, nvrtc, tensorrt, complex, other
    hip_name: str | None
    status: str  # "mapped", "unsupported" (HIP has none), "deprecated", "unknown" (not in the tables)
    kind: str = "function"  # function, type, enum, macro, header
    in_macro: bool = False
    column: int = 0


@dataclass
class Finding(Record):
    """A port risk at one place in the source, from one rule."""

    code: str  # HGnnn, stable, never reused
    severity: Severity
    category: str  # warp, tensor-core, asm, occupancy, memory, library, build, api
    confidence: Confidence
    file: str
    line: int
    message: str
    kernel: str | None = None  # the enclosing kernel (or function, when not in a kernel)
    column: int = 0
    end_line: int | None = None
    fix: str = ""
    effort_hours: float = 0.0
    snippet: str = ""  # the source line(s), raw (renderers escape)
    #: "cuda-only" when only the CUDA build compiles the line and the HIP build has its own path (a zero-hour note)
    branch: str | None = None
    #: the builds that compile the line ("cuda", "hip"), from the build scripts and the preprocessor; None when
    #: the tree's build scripts say nothing about the file (``hipgauge.source.build_selection``)
    builds: list[str] | None = None


@dataclass
class FileStats(Record):
    """Per-file translation statistics (scan's first cut and translate's full count)."""

    file: str
    lines: int = 0
    cuda_lines: int = 0  # lines holding at least one CUDA reference or construct
    clean_lines: int = 0  # CUDA lines needing no hand edit
    refs_mapped: int = 0
    refs_unmapped: int = 0
    refs_by_kind: dict[str, int] = field(default_factory=dict)
    lines_changed: int = 0

    @property
    def translation_share(self) -> float:
        return 1.0 if self.cuda_lines == 0 else self.clean_lines / self.cuda_lines


@dataclass
class ScanResult(Record):
    """Everything a scan found in a tree."""

    root: str
    files: list[str] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)
    device_functions: list[DeviceFunction] = field(default_factory=list)
    launch_sites: list[LaunchSite] = field(default_factory=list)
    api_calls: list[ApiCall] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    file_stats: list[FileStats] = field(default_factory=list)
    lines_scanned: int = 0
    warnings: list[str] = field(default_factory=list)
    #: switches, shims, kernels with vendor variants, vendor branch lines (``hipgauge.source.dualtarget.inventory``)
    dual_target: dict[str, Any] = field(default_factory=dict)
