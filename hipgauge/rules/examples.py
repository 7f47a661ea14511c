"""Run rules on a snippet: used by the rule tests and by ``hipgauge explain --check``-style demos.

``snippet_file(code, kind)`` builds a ParsedFile-like object, parsed by ``hipgauge.source.parse``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hipgauge.rules.spec import BUILD_KINDS
from hipgauge.source.parse import parse_source

FENCE_KIND = {"cuda": "cuda", "cpp": "cpp", "c++": "cpp", "cmake": "cmake", "make": "make",
              "makefile": "make", "python": "setup.py", "setup.py": "setup.py"}
DISPLAY = {"cuda": "example.cu", "cpp": "example.cpp", "header": "example.h", "cmake": "CMakeLists.txt",
           "make": "Makefile", "setup.py": "setup.py"}


@dataclass
class SnippetFile:
    display: str
    kind: str
    data: bytes
    text: str
    lines: list[str]
    tree: Any = None
    decode_note: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def parse_bytes(data: bytes) -> Any:
    return parse_source(data)


def snippet_file(code: str, kind: str = "cuda", display: str | None = None) -> SnippetFile:
    data = code.encode("utf-8")
    tree = None if kind in BUILD_KINDS else parse_bytes(data)
    return SnippetFile(display or DISPLAY.get(kind, "example"), kind, data, code, code.split("\n"), tree)
