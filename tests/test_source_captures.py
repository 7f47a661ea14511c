"""``source.parse.captures`` answers a query of node types over a small subtree by walking it in Python (a
tree-sitter query costs 15-25 ms to compile in each process): the walk must give exactly the captures the
compiled query gives, on every C/C++/CUDA file of the repository's test data and examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipgauge.source import parse
from hipgauge.translate.rewrite import _QUERY

REPO = Path(__file__).resolve().parent.parent
SOURCES = sorted(p for folder in (REPO / "tests" / "data", REPO / "examples") for p in folder.rglob("*")
                 if p.suffix in (".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp") and p.is_file())
PATTERNS = [
    _QUERY,
    "(preproc_include) @include\n(preproc_def) @def\n(preproc_function_def) @def\n(function_declarator) @fdecl\n"
    "(init_declarator) @init\n(kernel_call_syntax) @launch\n(gnu_asm_expression) @asm",
]


def _shown(found: dict) -> dict:
    return {k: [(n.start_byte, n.end_byte, n.type) for n in v] for k, v in found.items()}


@pytest.mark.parametrize("query", PATTERNS, ids=["rewrite-full", "rewrite-candidates"])
def test_walk_gives_the_query_captures(query: str) -> None:
    assert len(SOURCES) > 20
    wanted: dict[str, list[str]] = {}
    pairs = parse._type_captures(query)
    assert pairs is not None
    for kind, name in pairs:
        wanted.setdefault(kind, []).append(name)
    compiled = parse.compile_query(query)
    for path in SOURCES:
        tree = parse.parse_source(path.read_bytes())
        by_query = parse.captures(tree.root_node, compiled)  # a Query object: always the compiled query
        walked = parse._walk(tree.root_node, wanted)
        for nodes in walked.values():
            nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
        assert _shown(walked) == _shown(by_query), path
        # and a subtree (a function body), as captures() is called on one
        for node in by_query.get("fdecl", [])[:3]:
            body = node.parent
            if body is not None:
                assert _shown(parse.captures(body, query)) == _shown(parse.captures(body, compiled)), path


def test_only_node_type_queries_are_walked() -> None:
    assert parse._type_captures("(identifier) @id (call_expression) @call") == (("identifier", "id"),
                                                                                  ("call_expression", "call"))
    assert parse._type_captures('((identifier) @id (#eq? @id "x"))') is None
    assert parse._type_captures("(call_expression function: (identifier) @f)") is None
