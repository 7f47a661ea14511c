"""Run rules on a snippet: used by the rule tests and by ``hipgauge explain --check``-style demos.

``snippet_file(code, kind)`` builds a ParsedFile-like object. It uses the project's
``hipgauge.source.parse`` when present and falls back to a direct tree-sitter-cuda parse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from hipgauge.rules.spec import BUILD_KINDS

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


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_cuda

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


def parse_bytes(data: bytes) -> Any:
    try:
        from hipgauge.source.parse import parse_source  # the project's parser, when it exists
    except ImportError:
        return _parser().parse(data)
    return parse_source(data)


def snippet_file(code: str, kind: str = "cuda", display: str | None = None) -> SnippetFile:
    data = code.encode("utf-8")
    tree = None if kind in BUILD_KINDS else parse_bytes(data)
    return SnippetFile(display or DISPLAY.get(kind, "example"), kind, data, code, code.split("\n"), tree)
