"""Read a source file and parse it with tree-sitter's CUDA grammar; node helpers every stage shares.

Offsets: tree-sitter works on bytes, so every position here is a byte offset into ``ParsedFile.data``
and text is sliced from the bytes and decoded (``node_text``). Lines are 1-based and counted on ``\\n``
exactly as tree-sitter counts rows.

Grammar notes (tree-sitter-cuda 0.21): ``__global__``, ``__device__``, ``__host__``, ``__forceinline__``
and ``__noinline__`` are anonymous tokens that are direct children of ``function_definition`` (or of a
``declaration`` for a prototype); ``__shared__``/``__constant__`` are ``type_qualifier`` nodes;
``__launch_bounds__(…)`` is a ``launch_bounds`` child; a triple-chevron launch is a ``call_expression``
with a ``kernel_call_syntax`` child holding the configuration expressions.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate
from typing import Any

import tree_sitter_cuda
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from hipgauge.model import SkippedFile
from hipgauge.source.walk import SourceEntry

LANGUAGE = Language(tree_sitter_cuda.language())
BUILD_KINDS = {"cmake", "make", "setup.py"}
FUNCTION_QUALIFIERS = ("__global__", "__device__", "__host__", "__forceinline__", "__noinline__")
_parser: Parser | None = None


def parse_source(data: bytes) -> Tree:
    """Parse CUDA/C++ bytes (one Parser per process)."""
    global _parser
    if _parser is None:
        _parser = Parser(LANGUAGE)
    return _parser.parse(data)


@lru_cache(maxsize=256)
def compile_query(source: str) -> Query:
    """A compiled tree-sitter query (cached by its text)."""
    return Query(LANGUAGE, source)


#: a query that only names node types (``(preproc_include) @include``): what ``captures`` can answer by a walk
_TYPE_PATTERN = re.compile(r"\(\s*([a-z_][a-z0-9_]*)\s*\)\s*@([A-Za-z_][\w.]*)")
#: subtrees up to this many bytes are searched by walking them in Python; larger ones by a compiled query.
#: Compiling a tree-sitter query costs 15-25 ms in each process, whatever it holds (the grammar is analysed),
#: which is most of a small translate's own work; a walk costs about half a microsecond a node.
WALK_MAX_BYTES = 32 * 1024


@lru_cache(maxsize=256)
def _type_captures(query: str) -> tuple[tuple[str, str], ...] | None:
    """``((node type, capture name), …)`` when ``query`` is only node-type patterns, else None."""
    pairs = _TYPE_PATTERN.findall(query)
    return tuple(pairs) if pairs and not _TYPE_PATTERN.sub("", query).strip() else None


def _walk(node: Node, wanted: dict[str, list[str]]) -> dict[str, list[Node]]:
    """The named nodes of ``node``'s subtree (itself included) whose type is in ``wanted``, pre-order."""
    found: dict[str, list[Node]] = {}
    cursor = node.walk()
    while True:
        current = cursor.node
        if current is not None and current.is_named:
            names = wanted.get(current.type)
            if names is not None:
                for name in names:
                    found.setdefault(name, []).append(current)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent() or cursor.node == node:
                return found


def captures(node: Node, query: str | Query) -> dict[str, list[Node]]:
    """Captures of ``query`` under ``node``: capture name → nodes in document order. A query of node types
    over a small subtree is answered by a walk (``WALK_MAX_BYTES``), with the same result."""
    simple = _type_captures(query) if isinstance(query, str) else None
    if simple is not None and node.end_byte - node.start_byte <= WALK_MAX_BYTES:
        wanted: dict[str, list[str]] = {}
        for kind, name in simple:
            wanted.setdefault(kind, []).append(name)
        found = _walk(node, wanted)
    else:
        q = compile_query(query) if isinstance(query, str) else query
        found = QueryCursor(q).captures(node)
    for nodes in found.values():  # nested nodes that start together (``a.b().c()``): the outer one first
        nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
    return found


_UNPARSED: Any = object()


@dataclass
class ParsedFile:
    """One read file. The syntax tree is built on first use (``tree``): a file whose bytes hold nothing any
    stage looks for is never parsed. ``lines`` is split on first use too (``line_count`` needs no split)."""

    display: str
    kind: str
    data: bytes
    text: str
    _lines: list[str] | None
    _tree: Tree | None
    decode_note: str | None = None
    encoding: str = "utf-8"
    path: str = ""
    _line_starts: list[int] | None = field(default=None, repr=False)
    _tokens: Any = field(default=None, repr=False, compare=False)

    @property
    def tree(self) -> Tree | None:
        if self._tree is _UNPARSED:
            tree = parse_source(self.data)
            limit = max_tree_depth()
            if len(self.data) > limit and tree_depth(tree, limit) > limit:
                # tree-sitter queries lose nodes and slow down quadratically past 65535 levels: do not analyse
                raise RecursionError(f"syntax tree deeper than {limit} levels (limit: HIPGAUGE_MAX_TREE_DEPTH)")
            self._tree = tree
        return self._tree

    @property
    def parsed(self) -> bool:
        """True once the tree exists (or the file has none, being a build file)."""
        return self._tree is not _UNPARSED

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    @property
    def line_count(self) -> int:
        """``len(lines)`` without splitting."""
        if self._lines is not None:
            return len(self._lines)
        text = self.text
        return text.count("\n") + (0 if not text or text.endswith("\n") else 1)

    @property
    def root(self) -> Node | None:
        return self.tree.root_node if self.tree is not None else None

    @property
    def line_starts(self) -> list[int]:
        """Byte offset where each line starts (index 0 = line 1)."""
        if self._line_starts is None:
            starts = list(accumulate(map((1).__add__, map(len, self.data.split(b"\n"))), initial=0))
            starts.pop()
            self._line_starts = starts
        return self._line_starts

    def line_at(self, offset: int) -> int:
        """1-based line of a byte offset."""
        return bisect_right(self.line_starts, offset)

    def column_at(self, offset: int) -> int:
        """0-based byte column of a byte offset."""
        return offset - self.line_starts[self.line_at(offset) - 1]

    def slice(self, start: int, end: int) -> str:
        return self.data[start:end].decode(self.encoding, errors="replace")


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


def looks_binary(data: bytes) -> bool:
    """NUL bytes or a high share of control bytes in the first 8 KiB."""
    head = data[:8192]
    if b"\x00" in head:
        return True
    if not head:
        return False
    control = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return control / len(head) > 0.10


def decode(data: bytes) -> tuple[str, str, str | None]:
    """(text, encoding, note): UTF-8 when it decodes, else latin-1 with a note."""
    try:
        return data.decode("utf-8"), "utf-8", None
    except UnicodeDecodeError as exc:
        return data.decode("latin-1"), "latin-1", f"not UTF-8 (byte {exc.start}); decoded as latin-1"


def split_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" not in text:
        return lines
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def read_entry(entry: SourceEntry) -> bytes | SkippedFile:
    """The bytes of one walked file, or a ``SkippedFile`` saying in one line why it could not be read."""
    try:
        with open(entry.path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        reason = "symlink loop" if exc.errno == 40 else f"unreadable: {exc.strerror or exc.__class__.__name__}"
        return SkippedFile(entry.display, reason)


def load_file(entry: SourceEntry) -> ParsedFile | SkippedFile:
    """Read and parse one file; a file that cannot be read or is binary comes back as ``SkippedFile``."""
    data = read_entry(entry)
    if isinstance(data, SkippedFile):
        return data
    if looks_binary(data):
        return SkippedFile(entry.display, "binary")
    return parse_bytes(data, entry.display, entry.kind, path=str(entry.path))


#: deepest syntax tree analysed (generated code nested deeper than this is skipped); HIPGAUGE_MAX_TREE_DEPTH
DEFAULT_MAX_TREE_DEPTH = 10_000


def max_tree_depth() -> int:
    try:
        return int(os.environ.get("HIPGAUGE_MAX_TREE_DEPTH", DEFAULT_MAX_TREE_DEPTH))
    except ValueError:
        return DEFAULT_MAX_TREE_DEPTH


def tree_depth(tree: Tree, limit: int) -> int:
    """Depth of the syntax tree, counting stops once past ``limit`` (a cursor walk, no recursion).

    Only subtrees that could reach past ``limit`` are entered: each level of nesting takes at least a
    byte of its own, give or take a short chain of same-span nodes, so a subtree spanning ``s`` bytes at
    depth ``d`` cannot go below ``d + 4*s + 64``. Ordinary files are decided after a few dozen nodes; the
    result is exact whenever it exceeds ``limit``."""
    cursor = tree.walk()
    depth = deepest = 0
    while True:
        node = cursor.node
        assert node is not None  # a cursor always stands on a node
        if depth + 4 * (node.end_byte - node.start_byte) + 64 > limit and cursor.goto_first_child():
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return deepest
            depth -= 1


def parse_bytes(data: bytes, display: str = "<memory>", kind: str = "cuda", path: str = "") -> ParsedFile:
    """A ``ParsedFile`` from bytes (used by load_file and by tests)."""
    text, encoding, note = decode(data)
    tree = None if kind in BUILD_KINDS else _UNPARSED
    return ParsedFile(display, kind, data, text, None, tree, note, encoding, path)


# ---------------------------------------------------------------------------------------------
# Node helpers
# ---------------------------------------------------------------------------------------------


def node_text(node: Node, pf: ParsedFile) -> str:
    return pf.data[node.start_byte:node.end_byte].decode(pf.encoding, errors="replace")


def line_of(node: Node) -> int:
    return node.start_point[0] + 1


def end_line_of(node: Node) -> int:
    return node.end_point[0] + 1


def enclosing_function(node: Node) -> Node | None:
    """The innermost ``function_definition`` around ``node`` (not counting ``node`` itself)."""
    cur = node.parent
    while cur is not None:
        if cur.type == "function_definition":
            return cur
        cur = cur.parent
    return None


def _declarator_name(decl: Node | None) -> Node | None:
    while decl is not None:
        t = decl.type
        if t in ("function_declarator", "pointer_declarator", "reference_declarator", "parenthesized_declarator",
                 "init_declarator", "array_declarator", "attributed_declarator"):
            inner = decl.child_by_field_name("declarator")
            if inner is None:
                named = [c for c in decl.named_children if c.type not in ("type_qualifier", "ms_pointer_modifier")]
                inner = named[0] if named else None
            decl = inner
            continue
        return decl
    return None


def function_name_node(fn: Node) -> Node | None:
    """The node naming a function definition or declaration (identifier, qualified_identifier, …)."""
    return _declarator_name(fn.child_by_field_name("declarator"))


ANONYMOUS = "<anonymous>"


def function_name(fn: Node, pf: ParsedFile | None = None) -> str:
    """The name of a function as written, without template arguments (``Foo::bar``, ``operator()``);
    ``ANONYMOUS`` when it has none. Without ``pf`` the node's own text (UTF-8) is read."""
    name = function_name_node(fn)
    if name is None:
        return ANONYMOUS
    if name.type == "template_function":
        inner = name.child_by_field_name("name")
        name = inner if inner is not None else name
    text = node_text(name, pf) if pf is not None else (name.text or b"").decode("utf-8", "replace")
    if any(ch.isspace() for ch in text):  # a misparse around an unknown macro (`_CCCL_HOST doit`): keep the last word
        words = text.split()
        text = words[-1] if words else text
    return text


def qualifiers(fn: Node, pf: ParsedFile) -> list[str]:
    """CUDA execution-space and inlining qualifiers written before a function's name."""
    body = fn.child_by_field_name("body") or fn.child_by_field_name("declarator")
    end = body.start_byte if body is not None else fn.end_byte
    head = pf.data[fn.start_byte:end]
    return [q for q in FUNCTION_QUALIFIERS if q.encode() in head]


def is_kernel(fn: Node, pf: Any) -> bool:
    """True when the function carries ``__global__``."""
    for child in fn.children:
        if child.type == "__global__":
            return True
        if child.type in ("function_declarator", "compound_statement"):
            break
    return "__global__" in qualifiers(fn, pf)


def in_device_code(node: Node, pf: ParsedFile) -> bool:
    """True when ``node`` sits in a ``__global__`` or ``__device__`` function (lambdas marked
    ``__device__`` count too)."""
    cur = node.parent if node.type == "function_definition" else node
    while cur is not None:
        if cur.type == "function_definition":
            q = qualifiers(cur, pf)
            if "__global__" in q or "__device__" in q:
                return True
        elif cur.type == "lambda_expression":
            if b"__device__" in pf.data[cur.start_byte:cur.start_byte + 200].split(b"{", 1)[0]:
                return True
        cur = cur.parent
    return False


def scope_names(node: Node, pf: ParsedFile) -> list[str]:
    """Names of the namespaces and classes around ``node``, outermost first."""
    names: list[str] = []
    cur = node.parent
    while cur is not None:
        if cur.type in ("namespace_definition", "class_specifier", "struct_specifier", "union_specifier"):
            name = cur.child_by_field_name("name")
            names.append(node_text(name, pf) if name is not None else "(anonymous)")
        cur = cur.parent
    names.reverse()
    return names
