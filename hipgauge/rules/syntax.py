"""What detectors need from the syntax tree: a per-file context and small node helpers.

Detectors receive tree-sitter nodes of the CUDA grammar. These helpers answer the questions every
detector asks (which function am I in, is it device code, what constant does this fold to, what
type was this name declared with) without each rule walking the tree on its own.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from functools import cached_property
from typing import Any, Iterable, Iterator

from hipgauge.rules.macrobody import MacroBodies
from hipgauge.source.parse import function_name

NOT_CODE = frozenset({"comment", "preproc_arg", "string_literal", "string_content", "raw_string_literal", "char_literal",
                      "system_lib_string", "escape_sequence", "concatenated_string"})
FUNCTION = "function_definition"

TYPE_BYTES = {
    "char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1,
    "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "half": 2, "__half": 2,
    "__nv_bfloat16": 2, "nv_bfloat16": 2, "half2": 4, "__half2": 4, "__nv_bfloat162": 4,
    "int": 4, "unsigned": 4, "unsigned int": 4, "float": 4, "int32_t": 4, "uint32_t": 4,
    "long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8, "double": 8,
    "int64_t": 8, "uint64_t": 8, "size_t": 8, "float2": 8, "int2": 8, "uint2": 8,
    "float3": 12, "int3": 12, "float4": 16, "int4": 16, "uint4": 16, "double2": 16, "double4": 32,
}
THIRTY_TWO_BIT_TYPES = frozenset({"int", "unsigned", "unsigned int", "int32_t", "uint32_t", "signed",
                                  "signed int", "long", "unsigned long", "short", "unsigned short"})
# NB: "long" is 64-bit on Linux/LP64 — listed for Windows ports; detectors that care check "long long".
THIRTY_TWO_BIT_TYPES = THIRTY_TWO_BIT_TYPES - {"long", "unsigned long"}

_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n\\]+)$", re.M)
_CONSTEXPR = re.compile(rb"\b(?:constexpr|const)\s+(?:static\s+)?(?:unsigned\s+)?\w+\s+([A-Za-z_]\w*)\s*=\s*([^;{}\n]+);")
_INT_SUFFIX = re.compile(r"(?<=[0-9a-fA-F])(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)\b")
_SIZEOF = re.compile(r"sizeof\s*\(\s*([A-Za-z_][\w ]*?)\s*\)")


def text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def line_of(node: Any) -> int:
    return node.start_point[0] + 1


#: Parents of the nodes on the path from the root to the token being checked. tree-sitter computes
#: ``Node.parent`` by descending from the root (linear in the root's child count), which is quadratic
#: on large files; the engine records the path once per anchor (``set_path``) and lookups use it.
_PARENTS: dict[int, Any] = {}


def set_path(path: list[Any]) -> None:
    _PARENTS.clear()
    for up, down in zip(path, path[1:]):
        _PARENTS[down.id] = up


def path_to(root: Any, start: int, end: int) -> list[Any]:
    """Nodes from ``root`` down to the smallest node covering ``[start, end)`` (one cursor descent)."""
    cursor = root.walk()
    path = [root]
    while cursor.goto_first_child_for_byte(start) is not None:
        node = cursor.node
        if node.start_byte > start or node.end_byte < end:
            break
        path.append(node)
    return path


def parent(node: Any) -> Any | None:
    p = _PARENTS.get(node.id)
    return p if p is not None else node.parent


def ancestor(node: Any, types: str | Iterable[str], limit: int = 64) -> Any | None:
    """The nearest ancestor-or-self of one of ``types`` (at most ``limit`` levels up)."""
    wanted = {types} if isinstance(types, str) else set(types)
    while node is not None and limit >= 0:
        if node.type in wanted:
            return node
        node = parent(node)
        limit -= 1
    return None


def in_code(node: Any) -> bool:
    """False when the node lies in a comment or a string/char literal."""
    while node is not None:
        if node.type in NOT_CODE:
            return False
        if node.type in ("expression_statement", "declaration", FUNCTION, "compound_statement"):
            return True
        node = parent(node)
    return True


def descendants(node: Any, types: str | Iterable[str]) -> Iterator[Any]:
    """Every descendant of ``node`` (itself included) whose type is in ``types`` (preorder)."""
    wanted = {types} if isinstance(types, str) else set(types)
    cursor = node.walk()
    reached_root = False
    while not reached_root:
        n = cursor.node
        if n.type in wanted:
            yield n
        if cursor.goto_first_child():
            continue
        if cursor.goto_next_sibling():
            continue
        while True:
            if not cursor.goto_parent() or cursor.node == node:
                reached_root = True
                break
            if cursor.goto_next_sibling():
                break


def call_name(call: Any) -> str:
    """``foo`` for ``foo(...)``, ``ns::foo`` for ``ns::foo(...)``, ``foo`` for ``foo<T>(...)``."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    if fn.type == "template_function":
        fn = fn.child_by_field_name("name") or fn
    return text(fn)


def call_args(call: Any) -> list[Any]:
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [c for c in args.named_children if c.type != "comment"]


def call_text_args(src: str, open_at: int, limit: int = 2000) -> list[str]:
    """The top-level arguments, stripped, of the call written in ``src`` whose ``(`` is at ``open_at``: for calls
    the syntax tree does not hold whole (inside a macro, or text cut from the file); at most ``limit`` characters
    are read."""
    depth, out, cur = 0, [], ""
    for ch in src[open_at + 1:open_at + 1 + limit]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    out.append(cur.strip())
    return out


def launch_config(call: Any) -> list[Any]:
    """The ``<<<grid, block, shmem, stream>>>`` arguments of a kernel launch (no comments); ``[]`` for a plain call."""
    launch = call.child_by_field_name("config") or next((c for c in call.children if c.type == "kernel_call_syntax"),
                                                          None)
    if launch is None:
        return []
    return [c for c in launch.named_children if c.type != "comment"]


def qualifiers(fn: Any) -> frozenset[str]:
    return frozenset(c.type for c in fn.children if c.type in ("__global__", "__device__", "__host__"))


def declared_type(decl: Any) -> str:
    """The type text of a declaration / parameter_declaration / field_declaration (``unsigned int``)."""
    t = decl.child_by_field_name("type")
    return " ".join(text(t).split()) if t is not None else ""


class Context:
    """Per-file facts shared by all detectors (lazily computed, cached)."""

    def __init__(self, pf: Any, inventory: Any = None):
        self.pf = pf
        self.data: bytes = pf.data if getattr(pf, "data", None) is not None else pf.text.encode("utf-8")
        self.kind: str = getattr(pf, "kind", "cuda")
        self.inventory = inventory
        self._fn: dict[int, Any] = {}

    @cached_property
    def tree(self) -> Any:
        """The file's syntax tree (a ``ParsedFile`` parses on first use)."""
        return getattr(self.pf, "tree", None)

    # ---- functions -------------------------------------------------------------------------
    def function_of(self, node: Any) -> Any | None:
        return ancestor(node, FUNCTION)

    def function_info(self, node: Any) -> tuple[str | None, bool, bool]:
        """``(name, is_kernel, is_device_code)`` of the function enclosing ``node``.

        The qualifiers written on the function decide first; where they do not make it device code, the
        inventory's kernel and device-function spans do (a function declared through a qualifier macro,
        ``#define KERN __global__`` in some header of the tree): its name and kind then come from there."""
        fn = self.function_of(node)
        hit: tuple[str | None, bool, bool] | None
        if fn is None:
            hit = (None, False, False)
        else:
            hit = self._fn.get(fn.id)
            if hit is None:
                q = qualifiers(fn)
                device = "__global__" in q or "__device__" in q
                hit = self._fn[fn.id] = (function_name(fn), "__global__" in q, device)
        name, kernel, device = hit
        if not device and self._device_starts:
            span = self.device_span_at(node.start_byte)
            if span is not None:
                return span[2], span[3], True
        if fn is None:
            return None, False, False
        if not device:
            lam = ancestor(node, "lambda_expression", limit=40)
            if lam is not None and b"__device__" in lam.text[:200]:
                device = True
        return name, kernel, device

    def in_device_code(self, node: Any) -> bool:
        return self.function_info(node)[2]

    @cached_property
    def _device_starts(self) -> list[int]:
        """Start bytes of the inventory's ``device_ranges`` (sorted); empty without an inventory."""
        return [r[0] for r in getattr(self.inventory, "device_ranges", None) or ()]

    def device_span_at(self, offset: int) -> tuple[int, int, str, bool] | None:
        """The innermost kernel or device function of the inventory (``(start, end, name, is_kernel)``) that
        holds byte ``offset``, or None."""
        starts = self._device_starts
        i = bisect_right(starts, offset) - 1
        ranges = self.inventory.device_ranges
        for j in range(i, max(i - 4, -1), -1):  # definitions nest only through local classes and lambdas
            if ranges[j][0] <= offset < ranges[j][1]:
                return ranges[j]
        return None

    def kernel_record(self, fn: Any) -> Any | None:
        """The inventory's ``Kernel`` for the function definition ``fn`` (a kernel the inventory found, written
        ``__global__`` or declared through a qualifier macro), or None (no inventory, or not a kernel)."""
        if not self._device_starts:
            return None
        span = self.device_span_at(fn.start_byte)
        if span is None or not span[3] or span[0] != fn.start_byte:
            return None
        return self._kernels_by_place.get((fn.start_point[0] + 1, span[2]))

    @cached_property
    def _kernels_by_place(self) -> dict[tuple[int, str], Any]:
        """The inventory's kernels by (line, name), the first of each (one lookup per function, not a scan)."""
        index: dict[tuple[int, str], Any] = {}
        for k in getattr(self.inventory, "kernels", None) or ():
            index.setdefault((k.line, k.name), k)
        return index

    # ---- constants -------------------------------------------------------------------------
    @cached_property
    def macros(self) -> dict[str, str]:
        """Object-like macros and ``const``/``constexpr`` scalars defined in this file, as source text."""
        out: dict[str, str] = {}
        for rx in (_DEFINE, _CONSTEXPR):
            for m in rx.finditer(self.data):
                value = m.group(2).decode("utf-8", "replace")
                value = re.sub(r"//.*|/\*.*?\*/", "", value).strip()
                out.setdefault(m.group(1).decode(), value)
        return out

    def fold(self, expr: Any, depth: int = 0) -> int | None:
        """Fold a C integer expression (a node or its text) to an int, resolving this file's macros."""
        src = text(expr) if not isinstance(expr, str) else expr
        if depth > 6 or len(src) > 300:
            return None
        src = _SIZEOF.sub(lambda m: str(TYPE_BYTES.get(" ".join(m.group(1).split()), 4)), src)
        src = _INT_SUFFIX.sub("", src).replace("/", "//").replace("////", "//")
        src = re.sub(r"\(\s*(?:unsigned|int|size_t|long|unsigned int|long long)\s*\)", "", src)
        try:
            tree = ast.parse(src.strip(), mode="eval")
        except SyntaxError:
            return None
        return self._eval(tree.body, depth)

    def _eval(self, n: ast.AST, depth: int) -> int | None:
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            value = self.macros.get(n.id)
            return None if value is None else self.fold(value, depth + 1)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd, ast.Invert)):
            v = self._eval(n.operand, depth)
            if v is None:
                return None
            return -v if isinstance(n.op, ast.USub) else (~v if isinstance(n.op, ast.Invert) else v)
        if isinstance(n, ast.BinOp):
            a, b = self._eval(n.left, depth), self._eval(n.right, depth)
            if a is None or b is None:
                return None
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.FloorDiv: lambda: a // b if b else None, ast.Mod: lambda: a % b if b else None,
                   ast.LShift: lambda: a << b if 0 <= b < 128 else None, ast.RShift: lambda: a >> b if b >= 0 else None,
                   ast.BitAnd: lambda: a & b, ast.BitOr: lambda: a | b, ast.BitXor: lambda: a ^ b}
            f = ops.get(type(n.op))
            return f() if f else None
        return None

    @cached_property
    def macro_bodies(self) -> Any:
        """This file's ``#define`` bodies, for the rules' lexical macro checks (``hipgauge.rules.macrobody``)."""
        return MacroBodies(self.data, self.inventory)

    # ---- names and types -------------------------------------------------------------------
    def type_of(self, name: str, at: Any) -> str | None:
        """The declared type of ``name`` as seen from ``at``: parameters and declarations of the
        enclosing function, then the file's top level. Pointer-ness is marked by a trailing ``*``."""
        fn = self.function_of(at)
        scopes = [fn] if fn is not None else []
        for scope in scopes:
            for decl in descendants(scope, ("parameter_declaration", "declaration")):
                t = self._declares(decl, name)
                if t is not None:
                    return t
        return None

    @staticmethod
    def _declares(decl: Any, name: str) -> str | None:
        base = declared_type(decl)
        if any(c.type == "type_qualifier" and c.text == b"volatile" for c in decl.children):
            base = "volatile " + base
        for d in decl.children_by_field_name("declarator"):
            node, stars = d, ""
            while node is not None and node.type not in ("identifier", "field_identifier"):
                if node.type == "pointer_declarator":
                    stars += "*"
                node = node.child_by_field_name("declarator")
            if node is not None and text(node) == name:
                return base + stars
        return None

    # ---- inventory -------------------------------------------------------------------------
    @cached_property
    def api_by_line(self) -> dict[int, list[Any]]:
        out: dict[int, list[Any]] = {}
        for call in getattr(self.inventory, "api_calls", None) or []:
            out.setdefault(call.line, []).append(call)
        return out

    def api_status(self, name: str, line: int) -> str | None:
        for call in self.api_by_line.get(line, []):
            if call.cuda_name == name:
                return call.status
        return None
