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
from hipgauge.rules.syntax import text

CODE = "HG503"
NODE = None
ANCHOR = words("texture", "surface", r"tex[123]D\w*", "tex1Dfetch", r"surf[123]D\w*", r"cudaBind(?:Texture|Surface)\w*", "cudaCreateTextureObject", "cudaCreateSurfaceObject", "cudaTextureObject_t", "cudaSurfaceObject_t")


def check(node, ctx):
    s = text(node)
    if s in ("texture", "surface") and (parent_of(node) is None or parent_of(node).type != "template_type"):
        return []
    return usage(node, ctx, HIGH, f"`{s}`")
