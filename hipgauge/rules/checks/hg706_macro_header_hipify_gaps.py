"""HG706: CUDA code hidden from hipify in macros or in headers and C++ files.

What it does
------------
Flags, in `#define` bodies, CUDA names assembled by token pasting (`cuda##Name`, `CUBLAS_##x`,
`cublas##T##gemm`) and kernel launches (`<<<` inside the macro), and `#include` of a CUDA runtime
header (`cuda_runtime.h`, `cuda.h`, …) from a `.h`/`.hpp`/`.cpp`/`.cc` file when the HIPIFY mapping has no HIP
counterpart for it (low confidence). A header hipify maps (`cuda_runtime.h` → `hip/hip_runtime.h`) is
no gap: hipify rewrites it in any file it is given.

Why is this bad?
----------------
hipify-perl rewrites the text patterns it sees in the files it is given. A name that only exists
after the preprocessor pastes it together is never seen, a launch written inside a macro is easy to
leave half-converted, and headers and `.cpp` files that include CUDA headers are often left out of
the hipify run, so they still include `cuda_runtime.h` and fail to build (or, with `cuda.h`, see
an empty header on the HIP-Clang path).

Example
-------
```cuda
#define CUDA_CALL(fn, ...) cuda##fn(__VA_ARGS__)
#define LAUNCH(k, n, ...) k<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)

void copy(float* d, const float* h, size_t n) {
    CUDA_CALL(Memcpy, d, h, n * sizeof(float), cudaMemcpyHostToDevice);
}
```

Use instead
-----------
```cuda
#define CHECK(call) do { if ((call) != cudaSuccess) abort(); } while (0)

void copy(float* d, const float* h, size_t n) {
    CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
}
```
"""

from __future__ import annotations

import re

from hipgauge.knowledge.mapping import load_mapping
from hipgauge.rules.checks._common import any_of, include
from hipgauge.rules.hit import LOW, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.source import macros as mac

CODE = "HG706"
RULE = RuleMeta(
    title="Header/macro patterns hipify misses",
    category="build",
    severity="blocker",
    message="CUDA code that hipify may not rewrite",
    fix="Run hipify-clang with a compilation database over every file that includes CUDA headers; spell CUDA names "
        "out in macros; review macro-generated launches by hand.",
    effort=(0.5, 2),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html#hip-headers",
        "https://oneapi-src.github.io/SYCLomatic/dev_guide/reference/diagnostics-reference.html",
    ),
)
NODE = None
_FRAGMENTS = ("cuda", "cu", "cublas", "cublasLt", "cudnn", "cufft", "curand", "cusparse", "cusolver", "cusolverDn",
              "cusolverSp", "nccl", "nvrtc", "CUDA", "CU", "CUBLAS", "CUDNN", "CUFFT", "CURAND", "CUSPARSE", "CUSOLVER",
              "NCCL")
# ``cuda##`` is word-led: tried only where one of the fragment words occurs (a bare ``##`` anchor would parse
# every file with a token-pasting macro)
ANCHOR = any_of(rb"\b(?:" + "|".join(f + "_|" + f for f in _FRAGMENTS).encode() + rb")\s*##", rb"<<<",
                include(r"cuda\.h", r"cuda_runtime\.h", r"cuda_runtime_api\.h", r"device_launch_parameters\.h",
                        r"driver_types\.h"))

_NOT_CU_SOURCE = (".h", ".hpp", ".hh", ".hxx", ".cpp", ".cc", ".cxx", ".c", ".inl", ".ipp")


def check(node, ctx):
    """``#include`` of a CUDA runtime header in a file hipify runs often leave out."""
    display = str(getattr(ctx.pf, "display", "")).lower()
    if not display.endswith(_NOT_CU_SOURCE):
        return []
    if node.type not in ("preproc_include", "system_lib_string", "string_literal", "string_content") \
            and not node.text.startswith(b"#"):
        return []
    if _hipify_translates(node):
        return []  # hipify (and hipgauge translate) rewrite this header wherever it is: no gap
    return [Hit(node, LOW, "CUDA header included from a non-.cu file: hipify it too (hipify-clang with a "
                           "compilation database), and compile it with the HIP include path")]


def _hipify_translates(node) -> bool:
    """Whether the header the ``#include`` names has a HIP counterpart in the HIPIFY mapping."""
    m = re.search(rb"[<\"]([^>\"]+)[>\"]", node.text or b"")
    if m is None:
        return False
    entry = load_mapping().lookup_header(m.group(1).decode("utf-8", "replace"))
    return entry is not None and bool(entry.hip_name) and entry.has_counterpart


def check_macro(body, at, end, macro, ctx):
    token = body[at:end]
    if token == b"<<<":
        lex = mac.chevron_launch_at(body, at)
        kernel = lex.kernel if lex is not None and lex.kernel else "a kernel"
        if lex is not None and kernel in (macro.params or "").strip("()").replace(" ", "").split(","):
            kernel = f"the kernel argument `{kernel}`"
        else:
            kernel = f"`{kernel}`"
        return [(at, f"{kernel} launched with <<<...>>> inside the macro")]
    fragment = token.rstrip(b"#").strip().decode("latin-1")
    return [(at, f"`{fragment}##…` pastes a CUDA name together")]
