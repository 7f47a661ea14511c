"""Trees that already build for both vendors: their switches, shims, vendor-specific kernel variants, and
same-shape generated files.

One pass over the tree before the per-file scan (``tree_dual``) finds

* the vendor **switches**: the HIP platform names (``hipgauge.source.conditions.PLATFORM_NAMES``) where they are
  tested, and the project's own: a name like ``GGML_USE_HIP`` / ``BNB_HIP`` / ``USE_ROCM`` tested in a
  condition or defined by a build file, a name ``#define``d only where the HIP build sees it, and names tested
  together with a HIP name (``defined(GGML_USE_HIP) && defined(GGML_HIP_ROCWMMA_FATTN)``: a HIP-only option,
  undefined in the CUDA build); ``-D`` / ``[tool.hipgauge] defines`` add or override;
* the project **shims**: headers that map CUDA names to HIP (``#define cudaStream_t hipStream_t``,
  ``#define __shfl_xor_sync(m, v, l, w) __shfl_xor(v, l, w)``), polyfill CUDA intrinsics (``__vsub4``) or define
  one neutral name per vendor (``#ifdef BNB_HIP #define bnb_stream_t hipStream_t #else … cudaStream_t``);
* **generated families**: small files of the same shape (template instantiation files), for the cost model;
* **other backends**: files no CUDA or HIP compiler sees (``hipgauge.source.backends``: CPU asm, SYCL, OpenCL…);
* the preprocessor **across files** (``hipgauge.source.includes``): what the project's headers define per build,
  which build reaches each header, names a build never defines.

Then, per file (``FileView``): which build sees each line; findings in code only the HIP build compiles are the
port itself and are dropped; findings in code only the CUDA build compiles, where the HIP build has its own
path, become info-level "CUDA-only branch" notes with no hours; a shim's own definitions are not findings, nor is
anything in another backend's file or a HIP-native file.
"""

from __future__ import annotations

import os
import posixpath
import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from hipgauge.source.conditions import (
    BOTH,
    CUDA_ONLY,
    HIP_ONLY,
    LABEL,
    NEITHER,
    PLATFORM_NAMES,
    Defines,
    Visibility,
    directives,
    parse_define,
    visibility,
)
from hipgauge.knowledge.amd_targets import amd_family_words
from hipgauge.knowledge.backends import other_backends
from hipgauge.knowledge.mapping import load_mapping
from hipgauge.knowledge.torch_hipify import SOURCE as TORCH_HIPIFY
from hipgauge.knowledge.torch_hipify import torch_hipify_names
from hipgauge.model import Confidence, Severity
from hipgauge.source.backends import backend_of, hip_native
from hipgauge.source.includes import TreeMacros, tree_macros
from hipgauge.source.pybranches import cmake_vendor_lines, vendor_lines
from hipgauge.source.walk import SELECTION_KINDS, kernel_builder_tomls, read_text_bytes

#: a project's vendor switch, by its name
SWITCH_NAME_RE = re.compile(r"^(?:[A-Z][A-Z0-9]*_)*(?:USE_|WITH_|ENABLE_|BUILD_)?(?:HIP|ROCM)$")
#: a name that only means something for AMD (a HIP-only option when tested with a HIP name)
AMD_WORD_RE = re.compile(r"(?:^|_)(?:HIP|ROCM|AMD|WAVE64|ROCWMMA|HIPBLASLT|"
                         + "|".join(re.escape(w) + r"\w*" for w in amd_family_words()) + r")(?:_|$)")
#: names the CUDA build never defines when nvcc compiles (the HIP platform names)
HIP_PLATFORM = frozenset(n for n, (c, h) in PLATFORM_NAMES.items() if h is not None)
_BUILD_DEFINE = re.compile(r"(?:-D\s*|compile_definitions\s*\([^)]*?\b|define_macros[^\n]*?[\"'])([A-Z][A-Z0-9_]*)")
_HIPISH = re.compile(rb"\b(?:hip(?:[A-Z_]|blas|cub|rand|fft|sparse|solver|rtc|Lt)\w*|__hip_\w+|HIP\w*|roc\w+|"
                     rb"__shfl(?:_up|_down|_xor)?\b|__ballot\b|__any\b|__all\b|__builtin_amdgcn\w*|__lane_id\b|__ockl\w*|amd_\w+)")
_CUDAISH = re.compile(rb"\b(?:cuda[A-Z_]\w*|CU[A-Z_]\w*|cu[A-Z]\w*|cublas\w*|CUBLAS\w*|nv\w+|__nv\w+|cuda::|cub::|"
                      rb"__\w+_sync\b|__ldg\b|__activemask\b|__syncwarp\b)")
#: ``namespace cub = hipcub;``: every ``cub::`` name maps
_NS_ALIAS = re.compile(rb"^[ \t]*namespace[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*([A-Za-z_][\w:]*)[ \t]*;", re.M)
_CUDA_NAME = re.compile(r"^(?:cuda[A-Z_]\w*|CUDA_\w+|CU[A-Z_]\w*|cu[A-Z]\w*|cublas\w*|CUBLAS\w*|curand\w*|cusparse\w*|"
                        r"cufft\w*|cudnn\w*|nvrtc\w*|__shfl\w*_sync|__ballot_sync|__any_sync|__all_sync|"
                        r"__match\w*_sync|__reduce\w*_sync|__syncwarp|__activemask|__v\w+\d|__dp4a|__dp2a\w*|"
                        r"__nv_\w+|nv_bfloat16\w*|__half\w*|__h\w+)$")
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^)\n]*\))?((?:[^\n]*\\\r?\n)*[^\n]*)", re.MULTILINE)
_POLYFILL = re.compile(rb"__device__[\w\s:*&<>,]*?\b(__v\w+\d\w*|__dp4a|__dp2a\w*|__shfl\w*|__ballot\w*|__hmax\w*|"
                       rb"__hmin\w*|__activemask|__syncwarp|__nanosleep|__popc\w*|__byte_perm|__funnelshift\w*)"
                       rb"\s*\([^;{]*\)\s*\{")
_USING = re.compile(rb"^[ \t]*using[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*([^;\n]+);", re.M)
_TYPEDEF = re.compile(rb"^[ \t]*typedef[ \t]+([^;{}\n]+?)[ \t]+([A-Za-z_]\w*)[ \t]*;", re.M)
SHIM_MIN_MAPPINGS = 3
#: rules a shim answers for the names it maps: the name has no HIP counterpart / its mask is 32 bits
SHIM_COVERED_CODES = frozenset({"HG103", "HG104", "HG207", "HG209", "HG305", "HG706"})
SHIM_COVERED_CATEGORIES = frozenset({"api", "library"})
#: library rules about behaviour a mapped name keeps: cuRAND's streams differ from rocRAND's (HG607), a CUB warp
#: primitive's implicit width (HG608), library calls captured in a graph (HG614). A shim translates names, not these
SHIM_KEPT_CODES = frozenset({"HG607", "HG608", "HG614"})
#: rules about a preprocessor guard the HIP build would silently get wrong (``__CUDA_ARCH__``, ``__CUDACC__``):
#: moot on a condition the HIP build decides (a vendor switch, or a shim's ``#define __CUDA_ARCH__``)
GUARD_CODES = frozenset({"HG703", "HG704"})
#: names only NVIDIA's toolkit defines (nvcc, the CUDA runtime headers): hipcc never does, so in a tree that
#: already builds for AMD its HIP build takes the other branch of a guard on them (the fallback it ships with),
#: unless a project header defines them for it (``hipgauge.source.includes`` sees that)
NVIDIA_TOOLKIT_NAMES = ("__CUDACC__", "__NVCC__", "__CUDA_ARCH__", "__CUDA_VERSION__", "__CUDACC_VER_MAJOR__",
                        "__CUDACC_VER_MINOR__", "CUDART_VERSION", "CUDA_VERSION", "__CUDACC_RTC__")
#: version macros only NVIDIA's library headers define: hipBLAS, MIOpen, hipSPARSE, hipFFT, hipRAND and hipSOLVER
#: define their own (HIPIFY lists CUBLAS_VER_MAJOR → HIPBLAS_VER_MAJOR as unsupported, CUDNN_VERSION → HIPDNN_VERSION;
#: ROCm/HIPIFY src/CUDA2HIP_*_API_types.cpp, read 2026-12-06), so a guard on them is the CUDA build's (ROCm apex
#: mlp_cuda.cu: ``#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11000`` around all its cuBLASLt code). Not NCCL's
#: (RCCL's rccl.h defines NCCL_MAJOR and NCCL_VERSION_CODE) nor THRUST_VERSION (rocThrust defines it).
NVIDIA_LIBRARY_VERSION_NAMES = ("CUBLAS_VERSION", "CUBLAS_VER_MAJOR", "CUBLAS_VER_MINOR", "CUBLAS_VER_PATCH",
                                "CUDNN_VERSION", "CUDNN_MAJOR", "CUDNN_MINOR", "CUSPARSE_VERSION",
                                "CUSPARSE_VER_MAJOR", "CUFFT_VERSION", "CUFFT_VER_MAJOR", "CURAND_VERSION",
                                "CURAND_VER_MAJOR", "CUSOLVER_VERSION", "CUSOLVER_VER_MAJOR")
#: CUTLASS's and CuTe's architecture macros (``CUTLASS_ARCH_MMA_SM90_SUPPORTED``, ``CUTLASS_ARCH_MMA_SM100A_ENABLED``,
#: ``CUTE_ARCH_TMA_SM90_ENABLED``…): cutlass/arch/config.h defines every one of them only under
#: ``__CUDACC_VER_MAJOR__`` (nvcc's), and cute/arch/config.hpp only from those (NVIDIA/cutlass, read 2026-12-06), so
#: a HIP build never has them: FBGEMM's Blackwell attention sits whole under ``#if
#: defined(CUTLASS_ARCH_MMA_SM100_SUPPORTED)`` in files its HIP build compiles. A pattern, not a list: each CUTLASS
#: release adds architectures. The names are taken from the tree's own sources.
NVIDIA_ARCH_MACRO = re.compile(rb"\b(?:CUTLASS_ARCH_\w+_(?:SUPPORTED|ENABLED)|CUTE_ARCH_\w+_ENABLED)\b")
#: a project switch named for NVIDIA or for a library only NVIDIA ships (RAPIDS cuVS and RAFT, NVSHMEM, TensorRT:
#: no ROCm build of any, read 2026-12-06): faiss's ``#if defined USE_NVIDIA_CUVS``, which its CMake sets under
#: ``if(FAISS_ENABLE_CUVS)``. Undefined in the HIP build of a tree that ships for AMD, unless a file it reads defines
#: it (the cross-file macros see that)
NVIDIA_ONLY_SWITCH = re.compile(rb"\b(?:(?:USE|WITH|ENABLE|HAVE|HAS)_NVIDIA_\w+|"
                                rb"(?:USE|WITH|ENABLE|HAVE|HAS)_\w*(?:CUVS|RAFT|NVSHMEM|TENSORRT))\b")
#: rules whose finding is about a warp-width *definition* (``#define WARP_SIZE 32``): in a tree whose HIP build
#: compiles it, the project's logical warp width, kept on purpose by a port that ships
_WIDTH_DEFINITION = re.compile(r"(?:defined as|initialised to) 32")
GENERATED_MAX_BYTES = 6 * 1024
GENERATED_MIN_COPIES = 3
GENERATED_MAX_DIFF = 0.25  # share of tokens that may differ between copies


@dataclass(frozen=True)
class Switch:
    """A macro the tree switches between its CUDA and HIP code with, where it is tested and how often."""

    name: str
    side: str  # "hip": defined only in the HIP build; "hip-option": undefined in the CUDA build, unknown in HIP
    how: str  # platform | name | build | defined-under-hip | with-hip-names | config
    where: tuple[str, ...] = ()  # "file:line", first few
    uses: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "side": self.side, "how": self.how, "where": list(self.where), "uses": self.uses}


@dataclass(frozen=True)
class Shim:
    """A project header that maps CUDA names to HIP ones for the HIP build."""

    file: str
    mappings: tuple[tuple[str, str], ...]  # (CUDA or neutral name, what it becomes under HIP)
    polyfills: tuple[str, ...] = ()
    #: CUDA libraries whose HIP counterpart the shim includes for the HIP build (``<rccl/rccl.h>``: nccl)
    libraries: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "mappings": len(self.mappings), "polyfills": list(self.polyfills),
                "examples": [f"{a} → {b}" for a, b in self.mappings[:5]], "libraries": list(self.libraries)}


@dataclass(frozen=True)
class Family:
    """Same-shape small files (generated template instantiations): one piece of work with a count."""

    id: str  # a glob-like label: the first file's path with the differing name parts as *
    files: tuple[str, ...]
    #: the project header every copy includes (the template they instantiate, ``launch_template.h``), when one
    template: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "copies": len(self.files), "template": self.template, "files": list(self.files[:10]),
                "files_all": list(self.files)}


@dataclass(frozen=True)
class TreeDual:
    """The tree as its CUDA and HIP builds see it: switches, shims, generated families, macros, builds, backends."""

    switches: tuple[Switch, ...] = ()
    shims: tuple[Shim, ...] = ()
    families: tuple[Family, ...] = ()
    user: tuple[str, ...] = ()  # -D / config defines as given
    #: the preprocessor per build across files (``hipgauge.source.includes``): what headers define, which build
    #: reaches each header, names a build never defines; None: each file on its own
    macros: TreeMacros | None = None
    #: which build compiles each file, from the build scripts (``build_selection.BuildSelection``), when read
    builds: Any = None
    #: file -> the other backend it belongs to (``hipgauge.source.backends``: CPU asm, SYCL, OpenCL…)
    backends: dict[str, str] = field(default_factory=dict)
    #: CUDA names a file that is no shim maps for the HIP build alone (exllamav2's compat.cuh: two
    #: ``#define __shfl_xor_sync(mask, var, laneMask) __shfl_xor(var, laneMask)`` under ``#if defined(USE_ROCM)``):
    #: they count as the shims' names do, but the file's own findings stay
    hip_mappings: tuple[Shim, ...] = ()
    #: the tree's names of CUTLASS/CuTe architecture macros (``NVIDIA_ARCH_MACRO``) and of switches named for NVIDIA
    #: or an NVIDIA-only library (``NVIDIA_ONLY_SWITCH``): the HIP build never defines them
    nvidia_arch_names: tuple[str, ...] = ()

    def defines(self) -> Defines:
        """What each build defines, from the switches, the user's items and the names a build never defines
        (worked out once per tree)."""
        cached = self.__dict__.get("_defines")
        if cached is None:
            script_cuda, script_hip = _script_defines(self.builds)
            sw = {s.name: "hip" for s in self.switches if s.side == "hip" and s.name not in PLATFORM_NAMES}
            if self.ships_for_amd:  # GKO_COMPILING_HIP, added by Ginkgo's HIP build scripts alone: a HIP switch
                for n in script_hip:
                    sw.setdefault(n, "hip")
            opts = tuple(s.name for s in self.switches if s.side == "hip-option")
            cached = Defines.standard(sw, opts, self.user)
            if self.ships_for_amd:
                # and the names only the CUDA build's scripts define (CTranslate2's add_definitions(
                # -DCT2_WITH_FLASH_ATTN) in its WITH_CUDA block): the HIP build's scripts never do
                cached = cached.with_undefined(hip=[n for n in (*NVIDIA_TOOLKIT_NAMES, *NVIDIA_LIBRARY_VERSION_NAMES,
                                                                *self.nvidia_arch_names, *script_cuda)
                                                    if n not in cached.hip])
            siblings = self.sibling_switches()
            if siblings:  # GGML_USE_MUSA next to GGML_USE_HIP: another backend's build, neither of the two assessed
                cached = cached.with_undefined(cuda=siblings, hip=siblings)
            if self.macros is not None:
                cached = self.macros.defines(cached)
            object.__setattr__(self, "_defines", cached)  # a memo on a frozen record, not state
        return cached

    def view(self, file: str, data: bytes) -> Visibility:
        """Which build sees each line of ``file``: its own conditions, what the project headers it includes
        define, and which builds reach it at all."""
        if self.macros is None:
            return visibility(data, self.defines())
        return self.macros.view(file, data, self.defines())

    @property
    def ships_for_amd(self) -> bool:
        """The tree already has a HIP build: a project vendor switch for HIP, a shim, or a HIP build in its build
        scripts (the evidence ``build_selection.builds_for_amd`` states)."""
        return bool(self.shims or any(s.side == "hip" and s.how != "platform" for s in self.switches)
                    or (self.builds is not None and getattr(self.builds, "has_hip_build", False)))

    def sibling_switches(self) -> list[str]:
        """Another backend's switch shaped like the project's HIP switch (``GGML_USE_MUSA`` beside ``GGML_USE_HIP``,
        the backends of ``hipgauge/data/backends.toml``): the CUDA and HIP builds leave it undefined."""
        out: list[str] = []
        given = {parse_define(u)[1] for u in self.user}
        for s in self.switches:
            m = re.match(r"^(\w*_)HIP$", s.name)
            if s.side != "hip" or s.how == "platform" or m is None:
                continue
            out += [m.group(1) + b.name.upper() for b in other_backends() if m.group(1) + b.name.upper() not in given]
        return out

    @property
    def shim_files(self) -> frozenset[str]:
        return frozenset(s.file for s in self.shims)

    def shim_names(self) -> dict[str, tuple[str, str]]:
        """CUDA name -> (HIP text, shim file) over all shims."""
        out: dict[str, tuple[str, str]] = {}
        for s in (*self.shims, *self.hip_mappings):
            for a, b in s.mappings:
                out.setdefault(a, (b, s.file))
            for p in s.polyfills:
                out.setdefault(p, (f"polyfill in {s.file}", s.file))
        return out

    def shim_libraries(self) -> frozenset[str]:
        """CUDA libraries a shim brings the HIP counterpart of (``#include <rccl/rccl.h>``: nccl)."""
        return frozenset(lib for s in self.shims for lib in s.libraries)

    def family_of(self) -> dict[str, str]:
        return {f: fam.id for fam in self.families for f in fam.files}


# ---------------------------------------------------------------------------------------------------------------
# The tree pass
# ---------------------------------------------------------------------------------------------------------------

#: a torch.utils.cpp_extension.CUDAExtension build (setup.py, or a module it imports): a ROCm torch hipifies it
_TORCH_EXTENSION = re.compile(rb"\bCUDAExtension\b")
SOURCE_KINDS = ("cuda", "cpp", "header")
BUILD_KINDS = ("cmake", "make", "setup.py")


def tree_dual(entries: Iterable[Any], user: Iterable[str] = (), max_bytes: int = 8 * 1024 * 1024,
              known_cuda: Container[str] | None = None, builds: Any = None) -> TreeDual:
    """Switches, shims and generated families of the walked ``entries`` (``SourceEntry``); ``user``: ``-D`` items
    (validated: ValueError with a one-line reason). ``known_cuda``: the CUDA names of the HIPIFY mapping (any
    container: ``Mapping.entries`` itself, not a copy of its 9,000 names). ``builds``: the build scripts' selection
    (``build_selection``), when known: a HIP build shown only there makes the tree ship for AMD for the cross-file
    macros too."""
    user = tuple(user)
    for item in user:
        parse_define(item)
    where: dict[str, list[str]] = defaultdict(list)
    uses: Counter[str] = Counter()
    how: dict[str, str] = {}
    options: set[str] = set()
    keep: list[tuple[str, bytes]] = []  # files that may hold a shim or a define under a HIP guard
    small: list[tuple[str, bytes]] = []
    sources: dict[str, bytes] = {}  # every C/C++/CUDA file with a directive: the preprocessor across files
    passed: set[str] = set()  # names a build file defines (-DNAME, add_compile_definitions)
    backends: dict[str, str] = {}
    arch_names: set[str] = set()  # CUTLASS/CuTe architecture macros the sources name
    torch_build: str | None = None  # where the tree builds a torch CUDAExtension: a ROCm torch hipifies it
    for e in entries:
        if e.kind == "python" and torch_build is None and e.size <= max_bytes:  # DeepSpeed's op_builder/builder.py
            data = read_text_bytes(e, max_bytes)
            if data is not None and _TORCH_EXTENSION.search(data):
                torch_build = e.display
            continue
        if e.size > max_bytes or (e.kind not in SOURCE_KINDS and e.kind not in BUILD_KINDS):
            continue
        data = read_text_bytes(e, max_bytes)
        if data is None:
            continue
        if e.kind == "setup.py" and torch_build is None and _TORCH_EXTENSION.search(data):
            torch_build = e.display
        backend = backend_of(e.display, data, e.kind)
        if backend is not None:
            backends[e.display] = backend
            continue  # no CUDA or HIP compiler sees it: no switches, shims or families from it
        if e.kind in BUILD_KINDS:
            _build_switches(data, e.display, where, how)
            passed.update(m.group(1) for m in _BUILD_DEFINE.finditer(data.decode("latin-1")))
            continue
        if e.kind in ("cuda", "cpp") and len(data) <= GENERATED_MAX_BYTES:
            small.append((e.display, data))
        if b"#" in data:
            sources[e.display] = data
            if b"CUTLASS_ARCH_" in data or b"CUTE_ARCH_" in data:
                arch_names.update(m.group(0).decode() for m in NVIDIA_ARCH_MACRO.finditer(data))
            if b"NVIDIA_" in data or b"CUVS" in data or b"RAFT" in data or b"NVSHMEM" in data or b"TENSORRT" in data:
                arch_names.update(m.group(0).decode() for m in NVIDIA_ONLY_SWITCH.finditer(data))
        if b"#" not in data or not (b"HIP" in data or b"ROCM" in data or b"hip" in data):
            continue
        for d in directives(data):
            if d.kind not in ("if", "ifdef", "ifndef", "elif"):
                continue
            names = re.findall(r"[A-Za-z_]\w*", d.text)
            hip_here = [n for n in names if n in HIP_PLATFORM or SWITCH_NAME_RE.match(n)]
            for n in hip_here:
                uses[n] += 1
                if len(where[n]) < 5:
                    where[n].append(f"{e.display}:{d.line}")
                how.setdefault(n, "platform" if n in PLATFORM_NAMES else "name")
            if hip_here and "||" not in d.text:
                for m in re.finditer(r"(!\s*)?defined\s*\(?\s*([A-Za-z_]\w*)", d.text):
                    n = m.group(2)
                    if not m.group(1) and n not in hip_here and AMD_WORD_RE.search(n) and n not in PLATFORM_NAMES:
                        options.add(n)
                        uses[n] += 1
                        if len(where[n]) < 5:
                            where[n].append(f"{e.display}:{d.line}")
        if (b"define" in data or b"using" in data) and _HIPISH.search(data):
            keep.append((e.display, data))
    switches = {n: Switch(n, "hip", how[n], tuple(where[n]), uses[n]) for n in how}
    for n in options - set(switches):
        switches[n] = Switch(n, "hip-option", "with-hip-names", tuple(where[n]), uses[n])
    # names #define'd only where the HIP build sees them (#ifdef __HIPCC__ / #define BNB_HIP) are switches too, and
    # names defined only for some AMD targets (#ifdef __gfx942__ / #define CDNA3) HIP-only options; one such name can
    # decide where the next is defined (#if defined(CDNA3) || defined(CDNA2) / #define CDNA): a few rounds
    views: list[tuple[str, bytes, Visibility]] = []
    for _round in range(4):
        defs = TreeDual(tuple(switches.values()), user=user).defines()
        views = [(f, data, visibility(data, defs)) for f, data in keep]
        found = _defined_under_hip(views)
        new = {n: sw for n, sw in found.items() if n not in switches}
        if not new:
            break
        for n, sw in new.items():
            switches[n] = replace(sw, uses=uses.get(n, 0))
    kept = {f for f, _data in keep}
    for n in _defined_elsewhere({n for n, sw in switches.items() if sw.how.startswith("defined-under-")},
                                [(f, data) for f, data in sources.items() if f not in kept],
                                TreeDual(tuple(switches.values()), user=user).defines()):
        del switches[n]  # FP8_AVAILABLE: the HIP shim defines it, and so does the CUDA header: both builds
    final = TreeDual(tuple(sorted(switches.values(), key=lambda s: s.name)), user=user,
                     nvidia_arch_names=tuple(sorted(arch_names)), builds=builds)
    shims = tuple(s for s in (_shim(f, data, vis, known_cuda) for f, data, vis in views) if s is not None)
    shim_files = {s.file for s in shims}
    lone = (_hip_only_mappings(f, data, vis, known_cuda) for f, data, vis in views if f not in shim_files)
    hip_mappings = tuple(m for m in lone if m is not None)
    if torch_build is not None:
        hip_mappings += (Shim(f"{TORCH_HIPIFY}: {torch_build} builds a CUDAExtension", torch_hipify_names()),)
    try:
        macros: TreeMacros | None = tree_macros(sources, final.defines(), passed, builds)[0]
    except RecursionError:  # an include chain deeper than Python's stack: each file on its own, as before
        macros = None
    return replace(final, shims=shims, families=tuple(generated_families(small)), macros=macros, backends=backends,
                   hip_mappings=hip_mappings)


def _script_defines(builds: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The macro names only the CUDA build's scripts define and only the HIP build's (``BuildSelection.defines``:
    items as the scripts wrote them, ``NAME``, ``NAME=value`` or ``A;B`` lists); a name both define is neither's."""
    raw = dict(getattr(builds, "defines", ()) or ())
    sides = []
    for b in ("cuda", "hip"):
        names = {item.split("=", 1)[0].strip().removeprefix("-D") for entry in raw.get(b, ()) for item in entry.split(";")}
        sides.append({n for n in names if re.fullmatch(r"[A-Za-z_]\w*", n)})
    both = sides[0] & sides[1]
    return tuple(sorted(sides[0] - both)), tuple(sorted(sides[1] - both))


def _defined_elsewhere(names: set[str], files: list[tuple[str, bytes]], defines: Defines) -> set[str]:
    """Of ``names``, those some of ``files`` defines where the HIP build is not alone in looking."""
    if not names:
        return set()
    pattern = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(" + b"|".join(re.escape(n.encode()) for n in sorted(names))
                         + rb")\b", re.M)
    out: set[str] = set()
    for _f, data in files:
        hits = list(pattern.finditer(data))
        if not hits:
            continue
        vis = visibility(data, defines)
        for m in hits:
            if vis.at(data.count(b"\n", 0, m.start()) + 1) not in (HIP_ONLY, NEITHER):
                out.add(m.group(1).decode("latin-1"))
    return out


def _defined_under_hip(views: list[tuple[str, bytes, Visibility]]) -> dict[str, Switch]:
    """Flag-like names (``#define X`` / ``#define X 1``) every definition of which only the HIP build compiles:
    a switch when the HIP build surely compiles it, a HIP-only option when only some AMD targets do."""
    under_hip: dict[str, str] = {}
    arch_only: dict[str, str] = {}
    elsewhere: set[str] = set()
    for f, data, vis in views:
        for dm in _DEFINE.finditer(data):
            if dm.group(2):
                continue
            line = data.count(b"\n", 0, dm.start()) + 1
            name = dm.group(1).decode("latin-1")
            if vis.at(line) == HIP_ONLY and re.fullmatch(rb"\s*(?:1|true)?\s*(?://.*|/\*.*)?", dm.group(3) or b""):
                if vis.surely(line):
                    under_hip.setdefault(name, f"{f}:{line}")
                else:
                    arch_only.setdefault(name, f"{f}:{line}")
            elif vis.at(line) != HIP_ONLY:
                elsewhere.add(name)
    out = {n: Switch(n, "hip", "defined-under-hip", (at,)) for n, at in under_hip.items() if n not in elsewhere}
    for n, at in arch_only.items():
        if n not in elsewhere and n not in out:
            out[n] = Switch(n, "hip-option", "defined-under-amd-target", (at,))
    return out


def _build_switches(data: bytes, display: str, where: dict[str, list[str]], how: dict[str, str]) -> None:
    text = data.decode("latin-1")
    for m in _BUILD_DEFINE.finditer(text):
        n = m.group(1)
        if SWITCH_NAME_RE.match(n):
            how.setdefault(n, "build")
            if len(where[n]) < 5:
                where[n].append(f"{display}:{text.count(chr(10), 0, m.start()) + 1}")


def _shim(display: str, data: bytes, vis: Visibility, known_cuda: Any) -> Shim | None:
    mappings: list[tuple[str, str]] = []
    stubs: list[tuple[str, bytes]] = []  # CUDA names defined for HIP as something not HIP's (a no-op, a constant)
    by_side: dict[str, dict[int, bytes]] = defaultdict(dict)
    n_defines = 0
    for name, body, where in _defines(data, vis):
        n_defines += 1
        if where in (HIP_ONLY, CUDA_ONLY):
            by_side[name][where] = body
        if where == CUDA_ONLY:
            continue
        if _is_cuda_name(name, known_cuda):
            if _HIPISH.search(body):
                mappings.append((name, _short(body)))
            else:
                stubs.append((name, body))
    aliases = [(m.start(), m.group(1), m.group(2).strip()) for m in _USING.finditer(data)]
    aliases += [(m.start(), m.group(2), m.group(1).strip()) for m in _TYPEDEF.finditer(data)]
    for start, alias, target in aliases:  # using bnb_stream_t = hipStream_t; / … = cudaStream_t;
        where = vis.at(data.count(b"\n", 0, start) + 1)
        name = alias.decode("latin-1")
        if where in (HIP_ONLY, CUDA_ONLY):
            by_side[name][where] = target
        # typedef __hip_bfloat162 nv_bfloat162; / using nv_bfloat16 = __hip_bfloat16;: a mapping, not a CUDA use
        if (where != CUDA_ONLY and _is_cuda_name(name, known_cuda)
                and _HIPISH.search(target) and all(a != name for a, _b in mappings)):
            mappings.append((name, _short(target)))
    for m in _NS_ALIAS.finditer(data):  # namespace cub = hipcub; (vLLM's cub_helpers.h)
        if vis.at(data.count(b"\n", 0, m.start()) + 1) != CUDA_ONLY and _HIPISH.search(m.group(2)):
            mappings.append((m.group(1).decode("latin-1") + "::", _short(m.group(2)) + "::"))
    for name, sides in by_side.items():  # one neutral name per vendor (bitsandbytes' compat.cuh, vLLM's cuda_compat.h)
        if (HIP_ONLY in sides and CUDA_ONLY in sides and sides[HIP_ONLY].strip()
                and sides[HIP_ONLY].strip() != sides[CUDA_ONLY].strip()
                and (_HIPISH.search(sides[HIP_ONLY]) or _CUDAISH.search(sides[CUDA_ONLY]))
                and all(a != name for a, _b in mappings)):
            mappings.append((name, _short(sides[HIP_ONLY])))
    polyfills = sorted({m.group(1).decode("latin-1") for m in _POLYFILL.finditer(data)})
    count = len(mappings) + len(polyfills)
    if count < SHIM_MIN_MAPPINGS:
        return None
    if b"__global__" in data and len(mappings) * 2 < max(n_defines, 1):
        return None  # a kernel file with a few mappings of its own, not a shim
    for name, body in stubs:  # in a shim, a CUDA name made a no-op or a constant for HIP is handled too
        if all(a != name for a, _b in mappings):
            mappings.append((name, _short(body) or "(nothing)"))
    return Shim(display, tuple(mappings), tuple(polyfills), _hip_libraries(data, vis))


def _hip_only_mappings(display: str, data: bytes, vis: Visibility, known_cuda: Any) -> Shim | None:
    """The CUDA names a file that is no shim ``#define``s where only the HIP build compiles (a HIP-only guard): to a
    HIP name, or to something the project chose instead (``#define __stwb(dst, src) *dst = src``); None without any.
    Fewer than a shim's ``SHIM_MIN_MAPPINGS``, or in a kernel file: the names are handled, the file is not a shim."""
    mappings: list[tuple[str, str]] = []
    for name, body, where in _defines(data, vis):
        if where == HIP_ONLY and _is_cuda_name(name, known_cuda) and all(a != name for a, _b in mappings):
            mappings.append((name, _short(body) or "(nothing)"))
    return Shim(display, tuple(mappings)) if mappings else None


def _defines(data: bytes, vis: Visibility) -> Iterator[tuple[str, bytes, int]]:
    """(name, body with its line continuations joined, which build compiles it) of each ``#define`` in ``data``."""
    for m in _DEFINE.finditer(data):
        body = (m.group(3) or b"").replace(b"\\\n", b" ").strip()
        yield m.group(1).decode("latin-1"), body, vis.at(data.count(b"\n", 0, m.start()) + 1)


def _is_cuda_name(name: str, known_cuda: Any) -> bool:
    """A name of the CUDA API: in the HIPIFY mapping's CUDA names, or shaped like one."""
    return (known_cuda is not None and name in known_cuda) or _CUDA_NAME.match(name) is not None


_INCLUDE_ANY = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"\n]+)[>\"]", re.M)


def _hip_libraries(data: bytes, vis: Visibility) -> tuple[str, ...]:
    """CUDA libraries whose HIP headers ``data`` includes where the HIP build sees it (the HIPIFY header map read
    backwards: ``rccl/rccl.h`` → nccl, ``hipblas/hipblas.h`` → cublas)."""
    back = _hip_header_libraries()
    out = set()
    for m in _INCLUDE_ANY.finditer(data):
        lib = back.get(m.group(1).decode("latin-1").strip())
        if lib and vis.at(data.count(b"\n", 0, m.start()) + 1) in (BOTH, HIP_ONLY):
            out.add(lib)
    return tuple(sorted(out))


def _library_of(name: str) -> str | None:
    entry = load_mapping().lookup(name)
    return entry.library if entry is not None and entry.status == "mapped" else None


def _hip_header_libraries() -> dict[str, str]:
    return {e.hip_name: e.library for e in load_mapping().headers.values()
            if e.hip_name and e.library not in ("", "runtime", "cuda", "driver", "device", "complex")}


def _short(body: bytes) -> str:
    s = " ".join(body.decode("latin-1").split())
    return s if len(s) <= 80 else s[:77] + "…"


# ---------------------------------------------------------------------------------------------------------------
# Generated families
# ---------------------------------------------------------------------------------------------------------------

_TOK = re.compile(rb"[A-Za-z_]\w*|\d+|\S")
_COMMENTS = re.compile(rb"//[^\n]*|/\*.*?\*/", re.DOTALL)


def generated_families(files: list[tuple[str, bytes]]) -> list[Family]:
    """Groups of at least ``GENERATED_MIN_COPIES`` small files whose token sequences have the same length and
    differ in at most ``GENERATED_MAX_DIFF`` of their tokens (``flash_fwd_hdim128_fp16_sm80.cu`` and its 30
    siblings)."""
    groups: dict[int, list[tuple[str, list[bytes]]]] = defaultdict(list)
    includes = {name: _project_includes(name, data) for name, data in files}
    for name, data in files:
        toks = _TOK.findall(_COMMENTS.sub(b" ", data))
        if 4 <= len(toks) <= 2000 and (b"template" in data or b"#include" in data):
            groups[len(toks)].append((name, toks))
    out: list[Family] = []
    for _n, members in sorted(groups.items()):
        if len(members) < GENERATED_MIN_COPIES:
            continue
        clusters: list[tuple[list[bytes], list[str]]] = []
        for name, toks in sorted(members):
            limit = GENERATED_MAX_DIFF * len(toks)
            for rep, names in clusters:
                if sum(a != b for a, b in zip(rep, toks)) <= limit:
                    names.append(name)
                    break
            else:
                clusters.append((toks, [name]))
        for _rep, names in clusters:
            if len(names) >= GENERATED_MIN_COPIES:
                common = set.intersection(*(includes[n] for n in names))
                out.append(Family(_family_id(names), tuple(names), min(common) if len(common) == 1 else None))
    return sorted(out, key=lambda f: f.id)


def _project_includes(name: str, data: bytes) -> set[str]:
    """The ``#include "…"`` headers of a file, as tree paths (relative to its folder, normalised)."""
    folder = posixpath.dirname(name)
    return {posixpath.normpath(posixpath.join(folder, m.group(1).decode("latin-1")))
            for m in re.finditer(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', data, re.M)}


def _family_id(names: list[str]) -> str:
    """``a/flash_fwd_hdim64_fp16_sm80.cu`` + siblings → ``a/flash_fwd_hdim*_*_sm80.cu``."""
    parts = [re.split(r"([_./-])", n) for n in names]
    if len({len(p) for p in parts}) != 1:
        head = os.path.commonprefix(names)
        tail = os.path.commonprefix([n[len(head):][::-1] for n in names])[::-1]
        return head + "*" + tail
    return "".join(p[0] if len({q[i] for q in parts}) == 1 else "*" for i, p in enumerate(zip(*parts)))


# ---------------------------------------------------------------------------------------------------------------
# Per file
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class FileView:
    """One file seen through the two builds."""

    file: str
    vis: Visibility
    shim: bool = False
    dropped: int = 0  # findings in code only the HIP build compiles (or neither), or on a shim's definitions
    noted: int = 0  # findings turned into CUDA-only branch notes
    variants: list[dict[str, Any]] = field(default_factory=list)
    #: the other backend the file belongs to (no CUDA or HIP compiler sees it): no CUDA rule findings
    backend: str | None = None
    #: HIP code (includes HIP headers, no CUDA ones): the port itself, no port-risk findings
    hip_native: bool = False
    #: the file's lines (sources only): findings read the statement a line continues
    lines: list[str] | None = field(default=None, repr=False)

    def summary(self) -> dict[str, Any] | None:
        counts = self.vis.counts()
        if not (any(counts.values()) or self.shim or self.dropped or self.noted or self.variants or self.backend
                or self.hip_native):
            return None
        out = {"file": self.file, **counts, "shim": self.shim, "findings_dropped": self.dropped,
               "findings_noted": self.noted, "variants": self.variants, "branches": self.branches()}
        if self.backend is not None:
            out["backend"] = self.backend
        if self.hip_native:
            out["hip_native"] = True
        return out

    def branches(self) -> list[dict[str, Any]]:
        """The file's vendor-exclusive line ranges: ``{side, lines: [first, last], guard}`` (guard: the line of the
        directive that decides it)."""
        out: list[dict[str, Any]] = []
        where, guard = self.vis.where, self.vis.guard
        i = 0
        while i < len(where):
            w = where[i]
            if w == BOTH:
                i += 1
                continue
            j = i
            while j + 1 < len(where) and where[j + 1] == w and guard[j + 1] == guard[i]:
                j += 1
            out.append({"side": LABEL[w], "lines": [i + 1, j + 1], "guard": guard[i]})
            i = j + 1
        return out


def file_view(display: str, data: bytes, tree: TreeDual | None, kind: str = "cuda") -> FileView:
    tree = tree or TreeDual()
    backend = tree.backends.get(display)
    if kind in ("setup.py", "python"):  # a build script, or a module that builds a torch extension at run time
        return FileView(display, vendor_lines(data.decode("utf-8", "replace")), backend=backend)
    if kind == "cmake":
        return FileView(display, cmake_vendor_lines(data.decode("utf-8", "replace")), backend=backend)
    if kind == "make":
        return FileView(display, visibility(b"", None), backend=backend)
    if backend is not None:
        return FileView(display, visibility(b"", None), backend=backend)
    vis = tree.view(display, data)
    if tree.ships_for_amd and b"if" in data:
        runtime_vendor_ifs(data, vis, tree.defines())
    shim = display in tree.shim_files
    native = not shim and hip_native(display, data, kind, lambda line: vis.at(line) == BOTH)
    return FileView(display, vis, shim=shim, hip_native=native,
                    lines=data.decode("utf-8", "replace").splitlines())


def _brace_pairs(blank: bytes) -> dict[int, int]:
    """Each ``{`` offset -> the offset of the ``}`` that closes it (comments and strings blanked): one pass."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in re.finditer(rb"[{}]", blank):
        if m.group() == b"{":
            stack.append(m.start())
        elif stack:
            pairs[stack.pop()] = m.start()
    return pairs


@lru_cache(maxsize=8)
def _runtime_if_pattern(names: tuple[str, ...]) -> re.Pattern[bytes] | None:
    names = tuple(n for n in names if re.fullmatch(r"[A-Za-z_]\w*", n))
    if not names:
        return None
    return re.compile(rb"\bif\s*(?:constexpr\s*)?\(\s*(!\s*)?(" + b"|".join(n.encode() for n in names)
                      + rb")\s*\)\s*\{")


_ELSE_BRACE = re.compile(rb"\s*else\s*\{")


def runtime_vendor_ifs(data: bytes, vis: Visibility, defines: Defines) -> None:
    """C++ ``if (USE_ROCM) { … } else { … }`` on a name only the HIP build defines (ROCm apex's layer norm): a
    statement-level vendor branch; its body is the HIP build's, its ``else`` the CUDA build's (``if (!NAME)`` the
    other way round). Only lines the preprocessor left to both builds are changed."""
    head = _runtime_if_pattern(tuple(sorted(n for n in defines.hip if n in defines.cuda_undefined)))
    if head is None:
        return
    from hipgauge.source.macros import blank_comments_and_strings  # noqa: PLC0415 - only for a file that has one

    blank: bytes | None = None
    pairs: dict[int, int] = {}
    newlines: list[int] = []
    for m in head.finditer(data):
        if blank is None:  # once per file, and only for a file with such an ``if``
            blank = blank_comments_and_strings(data)
            pairs = _brace_pairs(blank)
            newlines = [n.start() for n in re.finditer(rb"\n", data)]
        if blank[m.start():m.end()] != data[m.start():m.end()]:
            continue  # in a comment or a string
        body_end = pairs.get(m.end() - 1)
        if body_end is None:
            continue
        hip_side, cuda_side = (CUDA_ONLY, HIP_ONLY) if m.group(1) else (HIP_ONLY, CUDA_ONLY)
        line = bisect_left(newlines, m.start()) + 1
        spans = [(m.end(), body_end, hip_side)]
        tail = _ELSE_BRACE.match(blank, body_end + 1)
        if tail is not None and (else_end := pairs.get(tail.end() - 1)) is not None:
            spans.append((tail.end(), else_end, cuda_side))
        for a, b, side in spans:
            first, last = bisect_left(newlines, a) + 1, bisect_left(newlines, b) + 1
            eol = newlines[first - 1] if first - 1 < len(newlines) else len(data)
            for ln in range(first + 1 if not data[a:eol].strip() else first, last):
                if 0 < ln <= len(vis.where) and vis.where[ln - 1] == BOTH:
                    vis.where[ln - 1] = side
                    vis.guard[ln - 1] = line


def kernel_variants(view: FileView, kernels: Iterable[Any]) -> None:
    """Kernels whose definition holds code only one build compiles, or that only one build defines."""
    for k in kernels:
        first, last = k.line, max(k.end_line, k.line)
        sides = Counter(view.vis.at(n) for n in range(first, last + 1))
        whole = view.vis.at(first)
        if sides[HIP_ONLY] or sides[CUDA_ONLY] or whole != BOTH:
            view.variants.append({"kernel": k.name, "file": view.file, "line": k.line,
                                  "hip_only_lines": sides[HIP_ONLY], "cuda_only_lines": sides[CUDA_ONLY],
                                  "defined_in": {BOTH: "both", HIP_ONLY: "hip-only", CUDA_ONLY: "cuda-only",
                                                 NEITHER: "neither"}[whole]})


def adjust_api_calls(calls: list[Any], tree: TreeDual | None, view: FileView | None = None) -> list[Any]:
    """References in code only the HIP build compiles (or neither) are no CUDA uses: dropped. References to names
    a project shim maps, and a shim's own, count as translated (status "mapped", the shim's text as HIP)."""
    names = tree.shim_names() if tree is not None and (tree.shims or tree.hip_mappings) else {}
    if view is not None and (view.backend is not None or view.hip_native):
        return []  # not CUDA code: another backend's, or HIP's own
    if view is not None and view.vis.exclusive:
        calls = [c for c in calls if view.vis.at(c.line) not in (HIP_ONLY, NEITHER)]
    if not names and not (view is not None and view.shim):
        return calls
    out = []
    for c in calls:
        if view is not None and view.shim and c.status not in ("mapped", "deprecated"):
            c = replace(c, status="mapped", hip_name=f"(defined by the project shim {view.file})")
        hit = names.get(c.cuda_name) or (names.get(c.cuda_name.split("::")[0] + "::") if "::" in c.cuda_name else None)
        if hit is not None and c.status not in ("mapped", "deprecated"):
            c = replace(c, status="mapped", hip_name=f"{hit[0]} (project shim {hit[1]})")
        out.append(c)
    return out


def apply_to_findings(view: FileView, findings: list[Any], tree: TreeDual | None, lines: list[str] | None = None
                      ) -> list[Any]:
    """Findings as the two builds see them: dropped where only the HIP build (or neither) compiles the line and on
    a shim's own definitions; an info-level, zero-hour "CUDA-only branch" note where only the CUDA build does;
    dropped where a shim maps the name the rule is about."""
    names = tree.shim_names() if tree is not None and (tree.shims or tree.hip_mappings) else {}
    libraries = tree.shim_libraries() if tree is not None and tree.shims else frozenset()
    out = []
    for f in findings:
        if view.shim or view.backend is not None or view.hip_native:
            view.dropped += 1
            continue
        where = view.vis.at(f.line)
        if where in (HIP_ONLY, NEITHER) or (f.code in GUARD_CODES and f.line in view.vis.hip_decided):
            view.dropped += 1
            continue
        ships = tree is not None and tree.ships_for_amd
        if ships and f.code == "HG706" and "<<<" in (f.snippet or ""):
            view.dropped += 1  # a launch in a macro: hipcc compiles <<< >>> as written, this HIP build runs no hipify
            continue
        if names and (f.code in SHIM_COVERED_CODES or f.category in SHIM_COVERED_CATEGORIES) \
                and f.code not in SHIM_KEPT_CODES:
            text = f.snippet or (lines[f.line - 1] if lines and 0 < f.line <= len(lines) else "")
            text = _with_call_head(text, lines or view.lines, f.line)
            if any(n in names for n in re.findall(r"[A-Za-z_]\w*(?:::)?", text)) or any(
                    n in names or (libraries and _library_of(n) in libraries) for n in re.findall(r"[A-Za-z_]\w*", text)):
                view.dropped += 1
                continue
        if ships and where != CUDA_ONLY and f.code == "HG704":
            view.noted += 1
            f = replace(f, severity=Severity.INFO, effort_hours=0.0, branch="hip-fallback",
                        message="HIP build takes the other branch (this tree already builds for AMD and ships that "
                                f"path; no port work unless the AMD build lacks the feature): {f.message}")
        elif ships and where == BOTH and f.confidence != Confidence.LOW and f.effort_hours > 0 \
                and (hip_next := _hip_branch_after(view, f.line)) is not None:
            f = replace(f, confidence=Confidence.LOW,
                        message=f"{f.message} (a HIP-only branch follows at line {hip_next}: the port handles this "
                                "spot; review, not port work)")
        elif ships and where == BOTH and f.code == "HG617" and _library_include_only(view, f.line, _CUTLASS_USE):
            view.noted += 1
            f = replace(f, severity=Severity.INFO, effort_hours=0.0, branch="cuda-only",
                        message="the HIP build compiles only this include: every use of CUTLASS/CuTe in the file is "
                                f"in code it never compiles (no port work): {f.message}")
        elif ships and where == BOTH and f.code == "HG208" and f.confidence != Confidence.LOW \
                and _handles_fnuz(view):
            f = replace(f, confidence=Confidence.LOW,
                        message=f"{f.message} (this file, which the HIP build compiles, already handles AMD's FNUZ "
                                "FP8 encoding: review its conversions and scales, not port work)")
        elif ships and where == BOTH and f.code == "HG101" and _WIDTH_DEFINITION.search(f.message):
            f = replace(f, confidence=Confidence.LOW,
                        message=f"{f.message} (the HIP build of this tree compiles this definition: the project's "
                                "logical warp width, kept by a port that ships; review, not port work)")
        if where == CUDA_ONLY:
            view.noted += 1
            guard = view.vis.guard_of(f.line)
            at = f" at line {guard}" if guard else ""
            f = replace(f, severity=Severity.INFO, effort_hours=0.0, branch="cuda-only",
                        message=f"CUDA-only branch (the HIP build takes its own path{at}; no port work): {f.message}")
        out.append(f)
    return out


_CUTLASS_USE = re.compile(r"\b(?:cutlass|cute)::|\bCUTE_[A-Z]|\bCUTLASS_(?!ARCH_)[A-Z]")
_INCLUDE_LINE = re.compile(r"^\s*#\s*include\b")


_FNUZ = re.compile(r"fnuz", re.I)


def _handles_fnuz(view: FileView) -> bool:
    """A line the HIP build compiles names AMD's FNUZ FP8 formats (``__hip_fp8_e4m3_fnuz``, ``Float8_e4m3fnuz``, a
    conversion "e4m3fn (NV) to e4m3fnuz (AMD)"): FBGEMM's kv_cache.cu and quantize.cu, whose FP8 code both builds
    compile."""
    lines = view.lines or []
    return any(view.vis.at(n) in (BOTH, HIP_ONLY) and _FNUZ.search(text) for n, text in enumerate(lines, 1))


def _library_include_only(view: FileView, line: int, use: re.Pattern[str]) -> bool:
    """``line`` is an ``#include`` and no line the HIP build compiles uses the library (``use``) outside directives:
    FBGEMM's Blackwell attention includes ``<cutlass/arch/config.h>`` for both builds and puts all its CUTLASS code
    under ``#if defined(CUTLASS_ARCH_MMA_SM100_SUPPORTED)``, which only nvcc defines."""
    lines = view.lines
    if not lines or not 0 < line <= len(lines) or not _INCLUDE_LINE.match(lines[line - 1]):
        return False
    for n, text in enumerate(lines, 1):
        if view.vis.at(n) in (BOTH, HIP_ONLY) and not text.lstrip().startswith("#") and use.search(text):
            return False
    return True


def _hip_branch_after(view: FileView, line: int, window: int = 3) -> int | None:
    """The first line of code only the HIP build compiles within ``window`` lines after ``line`` (ggml's
    ``cudaMallocManaged(…);`` followed by ``#if defined(GGML_USE_HIP)`` / the HIP-side advice): the port already
    put its HIP handling at this spot."""
    for n in range(line + 1, line + window + 2):
        if view.vis.at(n) == HIP_ONLY:
            return n
    return None


def _with_call_head(text: str, lines: list[str] | None, line: int) -> str:
    """``text`` (one source line) with the lines before it that open the call it continues (``__shfl_xor_sync(``
    on the line before ``0xFFFFFFFF, v, 2, WARP_SIZE);``): a shim's name is where the call starts."""
    if not lines:
        return text
    out, n = text, line - 1
    while n >= 1 and line - n <= 3 and lines[n - 1].rstrip().endswith(("(", ",")):
        out = lines[n - 1] + " " + out
        n -= 1
    return out


# ---------------------------------------------------------------------------------------------------------------
# The tree's inventory (scan --json: dual_target)
# ---------------------------------------------------------------------------------------------------------------


def inventory(tree: TreeDual | None, files: list[dict[str, Any]]) -> dict[str, Any]:
    """``dual_target`` of ``hipgauge.scan/1``: switches, shims, kernels with a vendor-specific body, line counts."""
    tree = tree or TreeDual()
    totals = {"cuda_only": 0, "hip_only": 0, "neither": 0}
    for f in files:
        for k in totals:
            totals[k] += f.get(k, 0)
    by_name: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in files:
        for v in f.get("variants", []):
            by_name[v["kernel"]].append(v)
    variants = []
    for name, defs in sorted(by_name.items()):
        sides = {d["defined_in"] for d in defs}
        body = any(d["hip_only_lines"] and d["cuda_only_lines"] for d in defs)
        two = ("hip-only" in sides and "cuda-only" in sides) or body
        variants.append({"kernel": name, "two_variants": two, "definitions": defs,
                         "hip_only_lines": sum(d["hip_only_lines"] for d in defs),
                         "cuda_only_lines": sum(d["cuda_only_lines"] for d in defs)})
    project = [s for s in tree.switches if s.how != "platform"]
    dropped_in = {f["file"]: f.get("findings_dropped", 0) for f in files}
    by_backend: dict[str, list[str]] = defaultdict(list)
    for path, name in sorted(tree.backends.items()):
        by_backend[name].append(path)
    titles = {b.name: b.title for b in other_backends()}
    others = [{"backend": name, "title": titles.get(name, name), "files": len(paths),
               "findings_dropped": sum(dropped_in.get(p, 0) for p in paths), "paths": paths}
              for name, paths in sorted(by_backend.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
    native = [f for f in files if f.get("hip_native")]
    return {
        "source": "measured: preprocessor conditions evaluated for the CUDA build (nvcc) and the HIP build (hipcc, "
                  "AMD) across files: HIP platform names, the project's vendor switches and what the project's "
                  "headers define where each build includes them are decided, other names stay unknown "
                  "(hipgauge.source.conditions, hipgauge.source.includes)",
        "dual_target": bool(project or tree.shims or any(totals[k] for k in ("cuda_only", "hip_only"))),
        "switches": [s.to_dict() for s in tree.switches],
        "defines": list(tree.user),
        "shims": [s.to_dict() for s in tree.shims],
        "hip_mappings": [s.to_dict() for s in tree.hip_mappings],
        "kernels_with_variants": variants,
        "lines": {"cuda_only": totals["cuda_only"], "hip_only": totals["hip_only"], "neither": totals["neither"]},
        "findings_dropped": sum(f.get("findings_dropped", 0) for f in files),
        "findings_noted": sum(f.get("findings_noted", 0) for f in files),
        "files": [{k: v for k, v in f.items() if k != "variants"} for f in files if not f.get("backend")],
        "other_backends": {"source": "hipgauge/data/backends.toml: a C/C++ file with no CUDA/HIP marker in a "
                                     "backend's folder or including its headers; no CUDA rules run on it, no hours",
                           "files": sum(o["files"] for o in others), "backends": others},
        "hip_native": {"files": [f["file"] for f in native],
                       "findings_dropped": sum(f.get("findings_dropped", 0) for f in native)},
        "generated_families": [fam.to_dict() for fam in tree.families],
    }


def builds_for_amd(selection: Any, dual_target: dict[str, Any]) -> dict[str, Any]:
    """Whether the tree already builds for AMD, and the evidence: a HIP build in its build scripts, a project vendor
    switch, a shim (``scan --json``: ``dual_target.builds_for_amd`` / ``amd_build_evidence``). ``selection``: the
    tree's ``build_selection.BuildSelection``, or None."""
    evidence: list[str] = []
    if selection is not None:
        evidence += [f"build: {e}" for e in selection.hip_build[:3]]
    for s in sorted(dual_target.get("switches", []), key=lambda s: -int(s.get("uses") or 0)):
        if s.get("how") != "platform" and s.get("side") == "hip":
            evidence.append(f"switch: {s['name']}" + (f" ({s['where'][0]})" if s.get("where") else ""))
            break
    for s in dual_target.get("shims", [])[:1]:
        evidence.append(f"shim: {s['file']}")
    out: dict[str, Any] = {"builds_for_amd": bool(evidence), "amd_build_evidence": evidence}
    if evidence:
        cuda_only = len(selection.to_dict()["cuda_only_files"]) if selection is not None else 0
        out["amd_headline"] = (
            "This tree already builds for AMD (" + "; ".join(evidence[:2]) + "): the one-time hours are the gaps "
            "in the code its HIP build compiles, not a port; keeping both builds green is upkeep"
            + (f"; {cuda_only} file(s) only the CUDA build compiles are not costed" if cuda_only else ""))
    return out


def tree_builds(entries: list[Any], max_bytes: int = 8 * 1024 * 1024) -> Any:
    """``build_selection.build_selection(entries, max_bytes)``: its module (~2.5 ms of imports) is loaded only for a
    tree with a build script it reads (``SELECTION_KINDS``); None otherwise, as it would return."""
    if not any(e.kind in SELECTION_KINDS for e in entries) and not kernel_builder_tomls(entries):
        return None
    from hipgauge.source.build_selection import build_selection  # noqa: PLC0415 - see above

    return build_selection(entries, max_bytes)
