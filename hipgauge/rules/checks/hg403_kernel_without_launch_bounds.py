"""HG403: a register-heavy kernel launched with small blocks but declaring no launch bounds.

What it does
------------
Flags a `__global__` function (written so, or declared through a qualifier macro such as
`#define KERNEL __global__` that the scanned tree defines) with neither `__launch_bounds__` (written
or brought by a macro) nor `__attribute__((amdgpu_flat_work_group_size(...)))` when, in the same file, every launch of it
whose block size folds to a constant uses at most 256 threads, and its body looks register-heavy.
The register heuristic (stated, not measured): local (non-`__shared__`) arrays of at least 32
32-bit words in total, or at least 16 words when the kernel also has `#pragma unroll` loops.
Confidence is medium with 64 words or more, low below that.

Why is this bad?
----------------
Without launch bounds the AMD compiler must assume a block of up to 1024 threads. On CDNA2/CDNA3 a
1024-thread block is 16 wavefronts, 4 per SIMD, which caps the kernel at 128 VGPRs per lane: a
kernel that holds a large tile in registers spills, although it is only ever launched with 128 or
256 threads and could have had up to 512 VGPRs. nvcc's register allocation did not have this
constraint in the same form, so the slowdown appears only after the port.

Example
-------
```cuda
__global__ void tile_kernel(const float* a, float* c) {
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = a[i * 8 + j];
    c[threadIdx.x] = acc[threadIdx.x % 8][0];
}

void run(const float* a, float* c) { tile_kernel<<<64, 128>>>(a, c); }
```

Use instead
-----------
```cuda
__global__ void __launch_bounds__(128) tile_kernel(const float* a, float* c) {
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = a[i * 8 + j];
    c[threadIdx.x] = acc[threadIdx.x % 8][0];
}

void run(const float* a, float* c) { tile_kernel<<<64, 128>>>(a, c); }
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import words
from hipgauge.rules.checks._launches import block_threads, launches_of
from hipgauge.rules.hit import LOW, MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import TYPE_BYTES, declared_type, descendants, qualifiers
from hipgauge.source.parse import function_name

CODE = "HG403"
RULE = RuleMeta(
    title="Kernels without launch bounds",
    category="occupancy",
    severity="slow",
    message="register-heavy kernel with small blocks declares no launch bounds",
    fix="Declare __launch_bounds__(maxThreadsActuallyUsed) on the kernel (or amdgpu_flat_work_group_size).",
    effort=(0.25, 1),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#max-threads-per-block",
        "https://github.com/llvm/llvm-project/blob/main/llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp",
    ),
)
NODE = "function_definition"
ANCHOR = words("__global__")
REQUIRES = (b"<<<", b"LaunchKernel", b"LaunchCooperativeKernel")
KERNELS = True  # with an inventory: every kernel it found, those declared through qualifier macros included

_BOUNDS = (b"__launch_bounds__", b"amdgpu_flat_work_group_size", b"__maxnreg__")
_HEAVY_WORDS, _HEAVY_WORDS_UNROLLED, _MEDIUM_WORDS = 32, 16, 64
_MAX_SMALL_BLOCK = 256


def _local_array_words(fn, ctx) -> int:
    """32-bit words of the local (register/scratch) arrays declared in ``fn``'s body, where sizes fold."""
    body = fn.child_by_field_name("body")
    if body is None:
        return 0
    total = 0
    for decl in descendants(body, "declaration"):
        head = decl.text[:120]
        if b"__shared__" in head or b"static" in head or b"__constant__" in head:
            continue
        size = TYPE_BYTES.get(declared_type(decl), 4)
        for d in decl.children_by_field_name("declarator"):
            node, elems = d, 1
            if node.type == "init_declarator":
                node = node.child_by_field_name("declarator")
            if node is None or node.type != "array_declarator":
                continue
            while node is not None and node.type == "array_declarator":
                n = node.child_by_field_name("size")
                v = ctx.fold(n) if n is not None else None
                if v is None or v <= 0:
                    elems = 0
                    break
                elems *= v
                node = node.child_by_field_name("declarator")
            total += elems * size // 4
    return total


def _declared_with_bounds(ctx, name: str) -> bool:
    """A separate declaration of ``name`` in the file carries the bounds (prototype with __launch_bounds__)."""
    rx = re.compile(rb"(?:__launch_bounds__|amdgpu_flat_work_group_size)\s*\([^;{]{0,200}?\b" + re.escape(name.encode()) + rb"\s*\(")
    return rx.search(ctx.data) is not None


def check(fn, ctx):
    kernel = ctx.kernel_record(fn)  # the inventory's kernel: its bounds are recovered through macros too
    if kernel is None and "__global__" not in qualifiers(fn):
        return []
    if kernel is not None and kernel.launch_bounds:
        return []
    head = fn.text[: (fn.child_by_field_name("body").start_byte - fn.start_byte) if fn.child_by_field_name("body") else None]
    if any(b in head for b in _BOUNDS):
        return []
    name = kernel.name if kernel is not None else function_name(fn)
    sizes = [block_threads(ctx, launch.block) for launch in launches_of(ctx, name)]
    known = [s for s in sizes if s is not None]
    if not known or max(known) > _MAX_SMALL_BLOCK:
        return []
    words_ = _local_array_words(fn, ctx)
    unrolled = b"#pragma unroll" in fn.text or b"_Pragma(\"unroll" in fn.text
    if words_ < (_HEAVY_WORDS_UNROLLED if unrolled else _HEAVY_WORDS):
        return []
    if _declared_with_bounds(ctx, name):
        return []
    decl = fn.child_by_field_name("declarator")
    confidence = MEDIUM if words_ >= _MEDIUM_WORDS else LOW
    detail = (f"`{name}` launched with at most {max(known)} threads per block; {words_} words of local arrays"
              + (" and unrolled loops" if unrolled else "") + " (register-pressure heuristic)")
    return [Hit(decl if decl is not None else fn, confidence, detail)]
