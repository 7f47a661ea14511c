"""Blank the code a compile error sits in, so the next compiler pass can reach the rest of the file.

Clang stops before code generation when the front end reports an error, so one wmma kernel would hide an
inline-asm error (found only by the assembler) and the resource usage of every other kernel in the file. A
blanked region keeps its newlines (and columns are spaces), so line N is still line N of the CUDA source.
Only ever applied to copies in build-check's temporary folder.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from hipgauge.source.parse import function_name, parse_bytes

_CONTAINERS = {"translation_unit", "declaration_list", "linkage_specification", "preproc_if", "preproc_ifdef",
               "preproc_else", "preproc_elif", "field_declaration_list"}


@dataclass
class Blanked:
    name: str  # function name, or the first words of the blanked declaration
    kind: str  # "body" | "declaration" | "include"
    line: int  # first line of the region (1-based)
    body_line: int | None = None  # line of the body's "{" (hipcc reports kernels there)


def _blank(buf: bytearray, start: int, end: int) -> None:
    for i in range(start, end):
        if buf[i] not in (10, 13):
            buf[i] = 32


def _function_at(root: Node, row: int) -> Node | None:
    best = None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.start_point[0] > row or node.end_point[0] < row:
            continue
        if node.type == "function_definition":
            best = node
        stack.extend(node.children)
    return best


def _declaration_at(root: Node, row: int) -> Node | None:
    node = root
    while True:
        nxt = None
        for ch in node.children:
            if ch.start_point[0] <= row <= ch.end_point[0]:
                nxt = ch
                break
        if nxt is None:
            return None
        if nxt.type in _CONTAINERS or nxt.type == "namespace_definition":
            node = nxt if nxt.type != "namespace_definition" else (nxt.child_by_field_name("body") or nxt)
            if node is nxt and nxt.type == "namespace_definition":
                return nxt
            continue
        return nxt


def blank_error_regions(data: bytes, error_lines: set[int]) -> tuple[bytes, list[Blanked]]:
    """Copy of ``data`` with the function bodies / declarations / includes holding ``error_lines`` blanked."""
    pf = parse_bytes(data, "<isolate>", "cuda")
    if pf.tree is None:  # a CUDA file always parses; kept for the type checker
        return data, []
    root = pf.tree.root_node
    buf = bytearray(data)
    done: list[tuple[int, int]] = []
    out: list[Blanked] = []
    lines = data.split(b"\n")
    for line in sorted(error_lines):
        row = line - 1
        if row < 0 or row >= len(lines):
            continue
        text = lines[row].lstrip()
        if text.startswith(b"#include") or text.startswith(b"# include"):
            start = sum(len(x) + 1 for x in lines[:row])
            if any(s <= start < e for s, e in done):
                continue
            _blank(buf, start, start + len(lines[row]))
            done.append((start, start + len(lines[row])))
            out.append(Blanked(lines[row].decode("utf-8", "replace").strip(), "include", line))
            continue
        fn = _function_at(root, row)
        if fn is not None:
            body = fn.child_by_field_name("body")
            name = function_name(fn, pf)
            if body is not None and body.start_point[0] <= row and body.type == "compound_statement":
                start, end = body.start_byte + 1, body.end_byte - 1
                kind = "body"
            else:
                start, end = fn.start_byte, fn.end_byte
                kind = "declaration"
            if any(s <= start < e or start <= s < end for s, e in done):
                continue
            _blank(buf, start, end)
            done.append((start, end))
            out.append(Blanked(name, kind, fn.start_point[0] + 1,
                               body.start_point[0] + 1 if body is not None else None))
            continue
        decl = _declaration_at(root, row)
        if decl is None or decl.type in ("comment",):
            continue
        start, end = decl.start_byte, decl.end_byte
        if any(s <= start < e or start <= s < end for s, e in done):
            continue
        _blank(buf, start, end)
        done.append((start, end))
        words = data[start:end].decode("utf-8", "replace").split()
        out.append(Blanked(" ".join(words[:4]), "declaration", decl.start_point[0] + 1))
    return bytes(buf), out
