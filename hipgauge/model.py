"""The nouns every stage shares.

Data flows one way: readers build these, analyses transform them, renderers print them.
Nothing here knows a file format or an output format. Every record is a frozen-ish dataclass
with ``to_dict()`` for the JSON documents; tables of many profile records are polars frames
whose columns are fixed by ``KERNEL_RECORD_SCHEMA`` below.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

# --------------------------------------------------------------------------------------------
# Shared vocabulary
# --------------------------------------------------------------------------------------------


class Severity(str, Enum):
    """How bad a port risk is, worst first (order matters for sorting and SARIF levels)."""

    BLOCKER = "blocker"  # will not compile, link or launch on ROCm
    WRONG_RESULTS = "wrong-results"  # compiles, can silently compute wrong output or hang
    SLOW = "slow"  # correct, leaves significant performance behind
    INFO = "info"  # worth a note

    @property
    def rank(self) -> int:
        return [Severity.BLOCKER, Severity.WRONG_RESULTS, Severity.SLOW, Severity.INFO].index(self)


class Confidence(str, Enum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Provenance(str, Enum):
    """Where a number came from. Every figure the tool prints carries one."""

    MEASURED = "measured"  # read from a profile, a compiler, or the source tree
    ESTIMATED = "estimated"  # computed by a stated model
    ASSUMED = "assumed"  # given by the user (config, --assume, flags)
    DEFAULT = "default"  # a documented default the user did not override
    UNKNOWN = "unknown"


def _clean(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


class Record:
    """Mixin: JSON-ready dict of a dataclass, enums as their values."""

    def to_dict(self) -> dict[str, Any]:
        return _clean(asdict(self))  # type: ignore[call-overload]


# --------------------------------------------------------------------------------------------
# Source side (scan, rules, translate)
# --------------------------------------------------------------------------------------------


@dataclass
class SkippedFile(Record):
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
    name: str
    file: str
    line: int
    end_line: int
    qualifiers: list[str] = field(default_factory=list)  # "__device__", "__host__", "__forceinline__"


@dataclass
class LaunchSite(Record):
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


# --------------------------------------------------------------------------------------------
# Profile side (compare, project)
# --------------------------------------------------------------------------------------------

#: The normalized table every profile reader produces (a polars DataFrame with these columns,
#: in this order, with these dtypes given as polars type names). Times are integer nanoseconds.
KERNEL_RECORD_SCHEMA: dict[str, str] = {
    "vendor": "String",  # "nvidia" | "amd" | "unknown"
    "device": "String",  # GPU name where the file says it, else null
    "source_format": "String",  # "kineto", "nsys-csv", "nsys-sqlite", "ncu-csv", "rocprof-v1", "rocprofv3-csv", …
    "raw_name": "String",  # the kernel name exactly as the file has it
    "name": "String",  # demangled
    "key": "String",  # normalized for matching (see kernel_names.py)
    "operator": "String",  # launching cpu_op (PyTorch) or null
    "range": "String",  # enclosing NVTX/roctx range or null
    "iteration": "Int64",  # ProfilerStep#N / iteration index, null when unknown
    "start_ns": "Int64",
    "duration_ns": "Int64",
    "grid": "String",  # "x,y,z" or null
    "block": "String",  # "x,y,z" or null
    "stream": "Int64",
    "registers": "Int64",  # per thread (NVIDIA) or arch VGPRs (AMD), null when absent
    "shared_mem_bytes": "Int64",  # static + dynamic shared memory / LDS per block, null when absent
    "correlation": "Int64",
}

#: Columns a reader adds after the schema's when its file has them (absent otherwise; analyses read them
#: when present): the launching operator call (Kineto: one id per call) and the call's signature (operator,
#: input dims, input types, concrete inputs; see profiles/signatures.py), and the same for the outermost
#: enclosing operator (the ``range``).
OPTIONAL_KERNEL_COLUMNS: dict[str, str] = {
    "operator_id": "Int64",
    "operator_signature": "String",
    "range_signature": "String",
}


#: The optional counters table beside the kernel table (``Profile.counters``): one row per kernel record and
#: counter, long format. ``row`` is the 0-based row of ``Profile.kernels`` the counter belongs to (joined by
#: the profiler's launch / dispatch id, else by name and order). ``counter`` is the name as the profiler writes
#: it (``sm__warps_active.avg.pct_of_peak_sustained_active``, ``TCC_HIT_sum``); ``value`` is in ``unit``, the
#: profiler's own unit normalized to a base unit (``%``, ``byte``, ``byte/second``, ``ns``, or empty for a count).
COUNTER_RECORD_SCHEMA: dict[str, str] = {
    "row": "Int64",
    "counter": "String",
    "value": "Float64",
    "unit": "String",
}


@dataclass
class KernelRecord(Record):
    """One kernel execution; the row type of ``KERNEL_RECORD_SCHEMA`` when a single one is needed."""

    vendor: str
    raw_name: str
    name: str
    key: str
    duration_ns: int
    start_ns: int | None = None
    source_format: str = ""
    device: str | None = None
    operator: str | None = None
    range: str | None = None
    iteration: int | None = None
    grid: str | None = None
    block: str | None = None
    stream: int | None = None
    registers: int | None = None
    shared_mem_bytes: int | None = None
    correlation: int | None = None


@dataclass
class Profile:
    """One profile of one workload on one device.

    ``kernels`` is a polars DataFrame with ``KERNEL_RECORD_SCHEMA``. ``iterations`` lists
    per-iteration (index, start_ns, end_ns) windows where the file marks them (ProfilerStep#N,
    NVTX/roctx ranges). ``latency_ms`` holds per-iteration end-to-end latencies from a
    ``iteration,latency_ms`` CSV when the user gave one. ``attachments`` holds extra tables a reader
    found beside the kernels, by name (e.g. ``"timeline"``, ``"counters"``); empty when it found none.
    """

    path: str
    source_format: str
    vendor: str
    kernels: Any  # polars.DataFrame
    device: str | None = None
    iterations: list[tuple[int, int, int]] = field(default_factory=list)
    latency_ms: list[float] | None = None
    latency_source: str | None = None  # the CSV path the latencies came from
    metadata: dict[str, str] = field(default_factory=dict)  # toolchain versions: cuda, rocm, driver, torch, gpu, arch
    warnings: list[str] = field(default_factory=list)
    attachments: dict[str, Any] = field(default_factory=dict)

    @property
    def counters(self) -> Any:
        """The hardware-counters table (a polars DataFrame with ``COUNTER_RECORD_SCHEMA``) joined onto ``kernels``,
        kept as ``attachments["counters"]``; None when the file holds no counters (profiles/readers/counters.py)."""
        return self.attachments.get("counters")

    @property
    def counter_source(self) -> dict[str, str]:
        """Where the counters came from and the part's limits the files state (``attachments["counter_source"]``)."""
        return self.attachments.get("counter_source") or {}


class MatchLevel(str, Enum):
    """How a parity row was matched across vendors, most to least exact."""

    EXACT = "exact"
    NORMALIZED = "normalized"
    USER_MAP = "user-map"
    OPERATOR = "operator"
    UNMATCHED = "unmatched"


class TimedOnBothSides:
    """Mixin for a unit timed in both profiles (``baseline_ns``, ``candidate_ns``): its ratio and delta."""

    baseline_ns: int
    candidate_ns: int

    @property
    def ratio(self) -> float | None:
        return None if self.baseline_ns <= 0 else self.candidate_ns / self.baseline_ns

    @property
    def delta_ns(self) -> int:
        return self.candidate_ns - self.baseline_ns


@dataclass
class ParityRow(TimedOnBothSides, Record):
    """One matched unit (kernel, or operator when kernels could not be paired) across two profiles."""

    level: MatchLevel
    label: str  # what the row shows (kernel key or operator name)
    baseline_names: list[str]
    candidate_names: list[str]
    baseline_ns: int  # total over the profile (per iteration when iterations are known, rounded: see per_iteration)
    candidate_ns: int
    baseline_count: int
    candidate_count: int
    share: float  # of baseline GPU kernel time, 0..1
    operator: str | None = None
    per_iteration: bool = False
    # the operator call signature the row was paired on (operator, input_dims, input_types, concrete_inputs),
    # "operator" (the launching call) or "parent" (an enclosing call) scope; > 1 when the row merges signatures
    signature: dict[str, Any] | None = None
    signature_scope: str | None = None
    mixed_signatures: int = 0
    signature_match: str | None = None  # "full" (operator, dims, types, scalars) or "dims" (operator and dims; types differ)
    baseline_signatures: list[dict[str, Any]] = field(default_factory=list)  # per launching-call signature
    candidate_signatures: list[dict[str, Any]] = field(default_factory=list)
    baseline_calls: int | None = None  # operator calls (not kernel launches) per iteration; None when unknown
    candidate_calls: int | None = None
    flags: list[str] = field(default_factory=list)  # why the ratio is not a plain like-for-like ratio
    #: per-side hardware-counter figures (``{"baseline": {...}, "candidate": {...}, "diagnosis": ...}``) when
    #: either profile carries counters (profiles/counters.py); None otherwise
    counters: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["ratio"] = self.ratio
        d["delta_ns"] = self.delta_ns
        d["match"] = self.level.value
        return d


@dataclass
class Projection(Record):
    """End-to-end latency at a percentile, and whether it meets the target."""

    percentile: float
    baseline_ms: float | None
    projected_ms: float | None
    target_ms: float | None
    source: Provenance  # how projected_ms was obtained
    iterations: int = 0
    enough_iterations: bool = False
    note: str = ""  # e.g. "only 5 iterations: P99 needs ≥100; reporting the maximum"

    @property
    def meets_target(self) -> bool | None:
        if self.target_ms is None or self.projected_ms is None:
            return None
        return self.projected_ms <= self.target_ms

    def to_dict(self) -> dict[str, Any]:
        return super().to_dict() | {"meets_target": self.meets_target}

    def target_margin(self) -> str:
        """``meets the T ms target (M ms to spare)`` or ``misses the T ms target by M ms``; needs a target and
        a projection."""
        assert self.target_ms is not None and self.projected_ms is not None
        margin = self.target_ms - self.projected_ms
        if margin >= 0:
            return f"meets the {self.target_ms:g} ms target ({margin:.3f} ms to spare)"
        return f"misses the {self.target_ms:g} ms target by {-margin:.3f} ms"


@dataclass
class GroupSlack(Record):
    """For ``project``: how much slower one kernel group may get before the target slips."""

    name: str
    share: float  # of the baseline per-iteration kernel time
    time_ms: float  # per-iteration time of the group in the baseline
    max_ratio: float | None  # 1 + (T - L) / t_group; None when the target is already missed
    kernels: list[str] = field(default_factory=list)
    assumed_ratio: float | None = None  # from --assume
