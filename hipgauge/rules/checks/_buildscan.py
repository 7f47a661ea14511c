"""Lexical scan of comment-blanked build-file lines (CMake, Make, setup.py)."""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from hipgauge.model import Confidence
from hipgauge.rules.hit import LineHit


#: an AMD target list in a build file: a gfx name, CMake's HIP_ARCHITECTURES / AMDGPU_TARGETS, hipcc's
#: --offload-arch, PyTorch's PYTORCH_ROCM_ARCH
AMD_TARGETS = re.compile(r"\bgfx\d{3,4}[a-z]?\b|\bHIP_ARCHITECTURES\b|\bAMDGPU_TARGETS\b|--offload-arch\b|"
                         r"\bPYTORCH_ROCM_ARCH\b")


def scan(lines: Iterable[str], pattern: re.Pattern[str], confidence: Confidence | None = None, detail: str = "`{0}`") -> Iterator[LineHit]:
    for i, line in enumerate(lines, 1):
        for m in pattern.finditer(line):
            yield LineHit(i, m.start() + 1, confidence, detail.format(m.group(0)))
