"""The names PyTorch's own hipify translates where HIPIFY's tables do not (data: ``hipgauge/data/torch_hipify.toml``):
a CUDAExtension build on a ROCm torch is hipified with PyTorch's table."""

from __future__ import annotations

from functools import lru_cache

from hipgauge.datafiles import load_data_toml

#: what a tree's findings cite for these names
SOURCE = "PyTorch's hipify (a ROCm torch hipifies CUDAExtension builds)"


@lru_cache(maxsize=1)
def torch_hipify_names() -> tuple[tuple[str, str], ...]:
    """(CUDA name, HIP name) pairs of ``torch_hipify.toml``, in file order."""
    doc = load_data_toml("torch_hipify.toml")
    return tuple((str(k), str(v)) for k, v in (doc.get("names") or {}).items())
