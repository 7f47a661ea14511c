"""Backends that are not CUDA or HIP (data: ``hipgauge/data/backends.toml``): the folders they live in and the
headers they include, so that CPU SIMD/asm, SYCL, OpenCL, Metal, Vulkan… code gets no CUDA rule findings."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from hipgauge.datafiles import load_data_toml


@dataclass(frozen=True)
class Backend:
    """One backend of ``backends.toml`` (neither CUDA nor HIP): its name, title, folders and headers."""

    name: str
    title: str
    folders: tuple[str, ...]
    headers: tuple[str, ...]


@lru_cache(maxsize=1)
def other_backends() -> tuple[Backend, ...]:
    """The backends of ``backends.toml``, in file order (folder matches are tried in this order)."""
    doc = load_data_toml("backends.toml")
    return tuple(Backend(b["name"], b["title"], tuple(b.get("folders", [])), tuple(b.get("headers", [])))
                 for b in doc.get("backend", []))
