"""HG503: texture/surface references and texture objects.

What it does
------------
Flags `texture<...>`/`surface<...>` references, `tex1D/2D/3D*`, `tex1Dfetch`, `surf*D*`,
`cudaBindTexture*` and `cudaCreateTextureObject`/`cudaCreateSurfaceObject`.

Why is this bad?
----------------
Texture references are gone from CUDA 12 and deprecated in HIP; on MI300 (gfx94x) HIP defines
`__HIP_NO_IMAGE_SUPPORT` and every texture fetch is a compile error (Blender Cycles hit this).

Example
-------
```cuda
__global__ void k(cudaTextureObject_t t, float* out) {
    out[threadIdx.x] = tex2D<float>(t, threadIdx.x, 0);
}
```

Use instead
-----------
```cuda
__global__ void k(const float* img, int pitch, float* out) {
    out[threadIdx.x] = img[threadIdx.x];
}
```
"""

from __future__ import annotations

from hipgauge.rules.syntax import parent as parent_of

from hipgauge.rules.checks._common import usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text

CODE = "HG503"
RULE = RuleMeta(
    title="Texture/surface references and objects",
    category="memory",
    severity="blocker",
    message="texture/surface use: MI300 has no image support",
    fix="Replace fetches with global loads plus manual interpolation/clamping; guard with __HIP_NO_IMAGE_SUPPORT.",
    effort=(2, 8),
    sources=(
        "https://github.com/ROCm/legacy-rocm-build/issues/3420",
        "https://github.com/ROCm/rocm-systems/blob/develop/projects/clr/hipamd/include/hip/amd_detail/amd_device_functions.h",
    ),
)
NODE = None
ANCHOR = words("texture", "surface", r"tex[123]D\w*", "tex1Dfetch", r"surf[123]D\w*", r"cudaBind(?:Texture|Surface)\w*", "cudaCreateTextureObject", "cudaCreateSurfaceObject", "cudaTextureObject_t", "cudaSurfaceObject_t")


def check(node, ctx):
    s = text(node)
    if s in ("texture", "surface") and (parent_of(node) is None or parent_of(node).type != "template_type"):
        return []
    return usage(node, ctx, HIGH, f"`{s}`")
