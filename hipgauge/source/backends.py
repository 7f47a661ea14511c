"""Code no CUDA or HIP compiler sees: other backends of a multi-backend tree (CPU SIMD and inline asm, SYCL,
OpenCL, Metal, Vulkan, CANN…; ``hipgauge/data/backends.toml``), and HIP-native files (the port itself).

``backend_of(path, data, kind)`` names the backend of a C/C++ file that carries no CUDA/HIP marker and sits in a
backend's folder (``src/ggml-cpu/arch/riscv/``) or includes its headers (``<sycl/sycl.hpp>``); a ``.cu``/``.cuh``
file never belongs to another backend. ``hip_native(path, data, kind)`` says whether a file is HIP code: it
includes a HIP header and no CUDA header, or lives in a ``rocm``/``hip`` folder and calls HIP's API.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from hipgauge.knowledge.backends import other_backends

#: a CUDA or HIP compiler is meant to see a file with one of these (``cuda_or_hip``)
_CUDA_WORDS = (b"__global__", b"__device__", b"__shared__", b"<<<")
_CUDA_INCLUDE = re.compile(
    rb"^[ \t]*#[ \t]*include[ \t]*[<\"][^>\"\n]*(?:cuda|cublas|cudnn|curand|cusparse|cusolver|cufft|nccl|nvrtc|nvtx|"
    rb"thrust/|cub/|cutlass|cute/|hip/|hipblas|hipcub|rocblas|rocprim|rccl|\.cuh)[^>\"\n]*[>\"]", re.M)
_CUDA_CALL = re.compile(rb"\b(?:cuda|hip)[A-Z]\w*\s*\(")


def cuda_or_hip(data: bytes) -> bool:
    """The file carries a CUDA/HIP marker: a CUDA or HIP header include, ``__global__``/``__device__``/
    ``__shared__``, a ``<<<`` launch or a ``cuda*``/``hip*`` runtime call."""
    if any(w in data for w in _CUDA_WORDS):
        return True
    if (b"cuda" in data or b"hip" in data or b"cub" in data or b"nccl" in data or b"nv" in data
            or b".cuh" in data or b"cute" in data or b"roc" in data or b"thrust" in data):
        return _CUDA_INCLUDE.search(data) is not None or _CUDA_CALL.search(data) is not None
    return False
_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"\n]+)[>\"]", re.M)
#: HIP's own headers, and the CUDA ones a HIP-native file would not include
_HIP_HEADER = re.compile(rb"^(?:hip/|hipblas|hipblaslt|hipcub|hipfft|hiprand|hipsparse|hipsolver|rocblas|rocprim|"
                         rb"rocwmma|rccl|miopen)", re.I)
_CUDA_HEADER = re.compile(rb"^(?:cuda|cublas|cudnn|curand|cusparse|cusolver|cufft|nccl|nvrtc|nvToolsExt|nvtx3|"
                          rb"cooperative_groups|crt/|thrust/system/cuda|cub/|cutlass|cute/|mma\.h$|sm_\d+)")
_AMD_API = re.compile(rb"\b(?:hip[A-Z]\w*|__builtin_amdgcn_\w+|__hip_\w+|__gfx\d\w*__|__AMDGCN\w*)")
HIP_FOLDERS = ("rocm", "hip", "amd", "quickreduce")
SOURCE_KINDS = ("cuda", "cpp", "header")


def _parts(path: str) -> list[str]:
    return [p.lower() for p in posixpath.dirname(path.replace("\\", "/")).split("/") if p]


def _in_folder(parts: list[str], folder: str) -> bool:
    want = folder.lower().split("/")
    n = len(want)
    return any(parts[i:i + n] == want for i in range(len(parts) - n + 1))


def backend_of(path: str, data: bytes | None, kind: str) -> str | None:
    """The other backend a file belongs to (``backends.toml`` name), or None (CUDA/HIP code, or common code)."""
    if kind == "cuda" or path.endswith((".cu", ".cuh")):
        return None
    parts = _parts(path)
    if kind not in SOURCE_KINDS:  # a build file: by its folder only
        return next((b.name for b in other_backends() for f in b.folders if _in_folder(parts, f)), None)
    if data is None:
        return None
    found = next((b.name for b in other_backends() if any(_in_folder(parts, f) for f in b.folders)), None)
    if found is None:
        includes = [m.group(1).decode("latin-1").strip() for m in _INCLUDE.finditer(data)]
        found = next((b.name for b in other_backends()
                      if any(inc == h or inc.endswith("/" + h) for inc in includes for h in b.headers)), None)
    if found is None or cuda_or_hip(data):
        return None
    return found


def hip_native(path: str, data: bytes | None, kind: str, shared: Callable[[int], bool] | None = None) -> bool:
    """The file is HIP code (the port, not something to port): it includes a HIP header and no CUDA header, or sits
    in a ``rocm``/``hip`` folder and uses AMD's own API (``__builtin_amdgcn_*``, ``__hip_bfloat16``, ``hip*``,
    ``__gfx942__``) — whatever CUDA headers it includes: vLLM's csrc/rocm is written with CUDA spellings and hipified
    at build time. ``shared(line)``: whether both builds compile a line; an include under a vendor guard
    (``#ifdef GGML_USE_HIP`` / ``#include <hip/…>``) does not count."""
    if data is None or kind not in SOURCE_KINDS:
        return False
    if any(p in HIP_FOLDERS for p in _parts(path)) and (_AMD_API.search(data) is not None):
        return True
    heads = [m.group(1).strip() for m in _INCLUDE.finditer(data)
             if shared is None or shared(data.count(b"\n", 0, m.start()) + 1)]
    hip_h = any(_HIP_HEADER.match(h) for h in heads)
    cuda_h = any(_CUDA_HEADER.match(h) for h in heads)
    if cuda_h:
        return False
    return hip_h
