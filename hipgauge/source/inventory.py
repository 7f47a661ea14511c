"""The inventory of one parsed file: kernels, device functions, launch sites and CUDA API references.

How it stays fast on large trees: nothing walks the whole syntax tree in Python. Anchors are found in the
bytes (``__global__``, ``__device__``, ``<<<``, names from the mapping, ``#include``) from the file's
identifiers, tokenized once and shared with the rules (``hipgauge.source.tokens``), with set operations and
C-speed substring search; each anchor is resolved to its syntax node with ``descendant_for_byte_range``,
and a file with no anchor is never parsed.
Macro bodies are raw text to tree-sitter, so anchors inside a ``#define`` are read lexically there
(with comments and strings blanked) and marked ``in_macro``. Names inside comments and string literals
never count.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from dataclasses import dataclass, field

from tree_sitter import Node

from hipgauge.model import ApiCall, DeviceFunction, Kernel, LaunchSite
from hipgauge.source import defined as tree_defs
from hipgauge.source import macros as mac
from hipgauge.source.defined import QualifierMacro
from hipgauge.source.parse import (BUILD_KINDS, FUNCTION_QUALIFIERS, ParsedFile, enclosing_function, end_line_of,
                                   function_name, line_of, node_text, scope_names)
from hipgauge.source.tokens import file_tokens
from hipgauge.knowledge.mapping import Mapping, MappingEntry, load_mapping

_QUALIFIER_BYTES = tuple((q, q.encode()) for q in FUNCTION_QUALIFIERS)
_IDENT_RE = re.compile(rb"[A-Za-z_]\w*")
_BOUNDS_RE = re.compile(rb"\b__launch_bounds__\s*\(")
CUMODULE_RE = re.compile(rb"cuModuleGetFunction\s*\(\s*&\s*([A-Za-z_]\w*)\s*,[^,]*,\s*\"([^\"]+)\"")

#: API calls that launch a kernel: name → (index of the kernel/function argument, grid, block, smem, stream)
LAUNCH_APIS: dict[str, tuple[int, int | None, int | None, int | None, int | None]] = {
    "cudaLaunchKernel": (0, 1, 2, 4, 5),
    "cudaLaunchCooperativeKernel": (0, 1, 2, 4, 5),
    "cudaLaunchKernelEx": (1, None, None, None, None),
    "cudaLaunchCooperativeKernelMultiDevice": (0, None, None, None, None),
    "cuLaunchKernel": (0, 1, 4, 7, 8),
    "cuLaunchCooperativeKernel": (0, 1, 4, 7, 8),
    "cuLaunchKernelEx": (1, None, None, None, None),
}
CU_GRID = {"cuLaunchKernel", "cuLaunchCooperativeKernel"}  # grid/block given as three scalars each

SKIP_NODE_TYPES = frozenset({"comment", "string_literal", "string_content", "raw_string_literal", "raw_string_content",
                             "char_literal", "character", "escape_sequence", "system_lib_string", "concatenated_string"})
MACRO_NODE_TYPES = frozenset({"preproc_def", "preproc_function_def"})
CAST_WORDS = frozenset({"void", "const", "volatile", "reinterpret_cast", "static_cast", "const_cast", "char", "auto",
                        "CUfunction", "struct"})


@dataclass
class FileInventory:
    """What one file holds: kernels, device functions, launch sites, API references."""

    kernels: list[Kernel] = field(default_factory=list)
    device_functions: list[DeviceFunction] = field(default_factory=list)
    launch_sites: list[LaunchSite] = field(default_factory=list)
    api_calls: list[ApiCall] = field(default_factory=list)
    #: (start_byte, end_byte, name) of every __global__/__device__ function body, sorted; for "which kernel is this in"
    device_ranges: list[tuple[int, int, str, bool]] = field(default_factory=list)  # (start, end, name, is_kernel)
    macros: list[mac.Macro] = field(default_factory=list)
    includes: list[tuple[int, str]] = field(default_factory=list)  # (line, header as written)
    #: names this file defines (macros, functions) that are not exact names of the mapping: not API uses
    own_names: set[str] = field(default_factory=set)

    def kernel_at(self, offset: int) -> str | None:
        """Name of the innermost __global__/__device__ function containing a byte offset."""
        best = None
        for start, end, name, _k in self.device_ranges:
            if start > offset:
                break
            if offset < end:
                best = name
        return best


class _ScanIndex:
    """Per-mapping lookup aids (built once, kept on the mapping): every exact name as bytes, the classification of
    identifiers by the prefix rules (memoised per process: files of one tree share most identifiers), and a regex
    for namespace-qualified names (``cub::``, ``nvcuda::wmma::``) tried only where its first word occurs."""

    def __init__(self, mapping: Mapping):
        self.mapping = mapping
        self.names = mapping.plain_names()
        self.prefixed: dict[bytes, MappingEntry] = {}  # identifiers a prefix rule classifies
        self.prefixed_names: set[bytes] = set()  # its keys, as a set (set operations on dict views iterate the dict)
        self.unprefixed: set[bytes] = set()  # identifiers no rule classifies
        simple = [re.escape(r.prefix.encode()) + (rb"[A-Z0-9]" if r.strict else rb".")
                  for r in mapping.prefixes if not r.prefix.endswith("::")]
        self.prefix_re = re.compile(rb"^(?:" + rb"|".join(simple) + rb")\w*$", re.M) if simple else None
        qualified = [rule.prefix for rule in mapping.prefixes if rule.prefix.endswith("::")]
        self.qual_firsts = frozenset(q.split("::", 1)[0].encode() for q in qualified)
        self.qual_re = (re.compile(rb"(?<![\w:])(?:" + rb"|".join(re.escape(q.encode()) for q in qualified)
                                   + rb")[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*") if qualified else None)

    def exact_and_prefixed(self, tokens: frozenset[bytes]) -> dict[bytes, MappingEntry]:
        """Identifiers of a file the mapping classifies: exact names, then prefix rules."""
        entries = self.mapping.entries
        hits = {tok: entries[tok.decode("ascii")] for tok in tokens & self.names}
        rest = tokens - self.names
        if len(self.unprefixed) > 1_000_000:
            self.unprefixed.clear()
        new = rest - self.unprefixed - self.prefixed_names
        if len(new) > 8 and self.prefix_re is not None:  # one C-level pass rejects what no prefix rule starts
            matched = self.prefix_re.findall(b"\n".join(new))
            self.unprefixed.update(new.difference(matched))
            new = new.intersection(matched)
        for tok in new:
            entry = self.mapping.lookup(tok.decode("ascii"))
            if entry is None:
                self.unprefixed.add(tok)
            else:
                self.prefixed[tok] = entry
                self.prefixed_names.add(tok)
        for tok in rest & self.prefixed_names:
            hits[tok] = self.prefixed[tok]
        return hits


def _index(mapping: Mapping) -> _ScanIndex:
    cached = getattr(mapping, "_scan_index", None)
    if cached is None:
        cached = _ScanIndex(mapping)
        mapping._scan_index = cached  # type: ignore[attr-defined]
    return cached


def inventory_file(pf: ParsedFile, mapping: Mapping | None = None,
                   tree_defined: frozenset[str] = frozenset(),
                   qualifier_macros: tuple[QualifierMacro, ...] = ()) -> "FileInventory":
    """Kernels, device functions, launch sites and API references of one parsed file.

    ``tree_defined``: names the scanned tree defines (``hipgauge.source.defined``); a name a prefix rule
    would classify (``CUDA_CHECK`` by ``CUDA_*``) is not a CUDA reference when it is among them.
    ``qualifier_macros``: macros the tree defines that stand for function qualifiers (``#define KERNEL
    __global__`` in some header); those this file defines are found here in any case."""
    mapping = mapping or load_mapping()
    inv = FileInventory()
    if pf.kind in BUILD_KINDS or (getattr(pf, "parsed", True) and pf.tree is None):
        return inv
    builder = _Builder(pf, mapping, inv, tree_defined, _by_name(tuple(qualifier_macros)))
    builder.run()
    inv.own_names = {n for n in builder.defined if n not in mapping.entries}
    return inv


@lru_cache(maxsize=8)
def _by_name(macros: tuple[QualifierMacro, ...]) -> tuple[dict[bytes, QualifierMacro], frozenset[bytes]]:
    """The tree's qualifier macros by name (bytes), and the set of names (built once per tree and process)."""
    table = {m.name.encode(): m for m in macros}
    return table, frozenset(table)


_NO_MACROS: tuple[dict[bytes, QualifierMacro], frozenset[bytes]] = ({}, frozenset())


def _body_end(data: bytes, body: Node) -> int:
    """Where a function body ends: the grammar's end, or, when the grammar recovered from an error inside it
    (a macro call whose argument holds a block: Ginkgo's ``GKO_PRECONDITIONER_JACOBI_RESOLVE_PRECISION(…, { … });``,
    after which the grammar ran the kernel on over the host functions that follow), the brace that closes it."""
    if not body.has_error:
        return body.end_byte
    text = mac.blank_comments_and_strings(data[body.start_byte:body.end_byte])
    depth = 0
    for i, c in enumerate(text):
        if c == 123:  # {
            depth += 1
        elif c == 125:  # }
            depth -= 1
            if depth == 0:
                return body.start_byte + i + 1
    return body.end_byte


class _Builder:
    def __init__(self, pf: ParsedFile, mapping: Mapping, inv: FileInventory,
                 tree_defined: frozenset[str] = frozenset(),
                 tree_macros: tuple[dict[bytes, QualifierMacro], frozenset[bytes]] = _NO_MACROS):
        self.pf = pf
        self.tree_macros = tree_macros
        self.tree_defined = tree_defined
        self.data = pf.data
        self.mapping = mapping
        self.inv = inv
        self.defined: set[str] = set()  # names this file defines (never reported as API uses)
        self._blanked: dict[int, bytes] = {}
        self._constants: dict[str, str] | None = None

    # -- driver ----------------------------------------------------------------------------------
    def run(self) -> None:
        inv, data = self.inv, self.data
        inv.macros = mac.find_macros(data)
        self.macro_starts = [m.start for m in inv.macros]
        self.defined.update(m.name for m in inv.macros)
        # macros that stand for qualifiers (#define KERNEL __global__): the tree's, and this file's own
        table, names = self.tree_macros
        used = file_tokens(self.pf).idents & names if names else frozenset()
        self.qual_macros: dict[bytes, QualifierMacro] = {n: table[n] for n in used}
        local_needed = not names or self.pf.kind not in tree_defs.SOURCE_KINDS  # else the tree's pre-pass read them
        if local_needed and inv.macros and (b"__global__" in data or b"__device__" in data or used):
            local = tree_defs.qualifier_macros(b for b in tree_defs.macro_bodies(data) if tree_defs._may_qualify(b))
            for name, qm in local.items():
                key = name.encode()
                have = self.qual_macros.get(key)
                if have is None or not set(qm.qualifiers) <= set(have.qualifiers):
                    self.qual_macros[key] = qm if have is None else _union(have, qm)
        self.qual_words = {n for n, q in self.qual_macros.items()
                           if "__global__" in q.qualifiers or "__device__" in q.qualifiers}
        if b"__global__" in data or b"__device__" in data or self.qual_words:
            self.functions()
        if b"#" in data and b"include" in data:
            self.headers()
        self.api_references()
        if b"<<<" in data:
            self.chevrons()
        inv.kernels.sort(key=lambda k: (k.line, k.name))
        inv.device_functions.sort(key=lambda d: (d.line, d.name))
        inv.launch_sites.sort(key=lambda s: (s.line, s.kernel or ""))
        inv.api_calls.sort(key=lambda a: (a.line, a.column, a.cuda_name))

    # -- helpers ---------------------------------------------------------------------------------
    @property
    def root(self) -> Node:
        """The syntax tree's root (the file is parsed on first use)."""
        root = self.__dict__.get("_root")
        if root is None:
            root = self._root = self.pf.tree.root_node  # type: ignore[union-attr]
        return root

    def macro_at(self, offset: int) -> mac.Macro | None:
        i = bisect_right(self.macro_starts, offset) - 1
        if i >= 0 and offset < self.inv.macros[i].end:
            return self.inv.macros[i]
        return None

    def blanked_macro(self, m: mac.Macro) -> bytes:
        cached = self._blanked.get(m.start)
        if cached is None:
            cached = mac.blank_comments_and_strings(self.data[m.start:m.end])
            self._blanked[m.start] = cached
        return cached

    def in_macro_code(self, m: mac.Macro, start: int, token: bytes) -> bool:
        """True when the token at ``start`` inside macro ``m`` is code (not in a comment or string)."""
        off = start - m.start
        return self.blanked_macro(m)[off:off + len(token)] == token

    def caller_of(self, node: Node) -> str | None:
        fn = enclosing_function(node)
        return function_name(fn, self.pf) if fn is not None else None

    @property
    def constants(self) -> dict[str, str]:
        if self._constants is None:
            self._constants = mac.file_constants(self.data, self.inv.macros)
        return self._constants

    # -- kernels and device functions ------------------------------------------------------------
    def functions(self) -> None:
        seen: set[int] = set()
        pf = self.pf
        words = {b"__global__", b"__device__", *self.qual_words}
        for start, word in file_tokens(pf).occurrences(words):
            end = start + len(word)
            node = self.root.descendant_for_byte_range(start, end)
            if node is None or node.type in SKIP_NODE_TYPES or node.type == "preproc_arg":
                continue
            fn: Node | None = node
            for _ in range(4):
                if fn is None or fn.type in ("function_definition", "declaration", "field_declaration",
                                             "translation_unit", "compound_statement", "expression_statement"):
                    break
                fn = fn.parent
            head_start = fn.start_byte if fn is not None else 0
            if fn is not None and fn.type == "expression_statement" and word in self.qual_words:
                # ``KERNEL_WITH_BOUNDS(256) void k(…) {…}``: the grammar reads the macro call as a statement of
                # its own, followed by the function definition it qualifies
                after = fn.next_named_sibling
                if after is not None and after.type == "function_definition" and not self.data[
                        fn.end_byte:after.start_byte].strip():
                    fn = after
            if fn is None or fn.type != "function_definition" or fn.id in seen:
                continue
            body = fn.child_by_field_name("body")
            if body is None or start >= body.start_byte:
                continue
            seen.add(fn.id)
            head_start = min(head_start, fn.start_byte)
            head = self.data[head_start:body.start_byte]
            if b"/" in head:  # a misparsed head can span comments (``//! __global__ void Example()``)
                head = mac.blank_comments_and_strings(head)
            quals = [q for q, qb in _QUALIFIER_BYTES if qb in head]
            head_macros: list[tuple[int, QualifierMacro]] = []
            if self.qual_macros:
                for m in _IDENT_RE.finditer(head):
                    qm = self.qual_macros.get(m.group(0))
                    if qm is not None:
                        head_macros.append((head_start + m.end(), qm))
                if head_macros:
                    expansion = {q for _, qm in head_macros for q in qm.qualifiers}
                    quals = [q for q in FUNCTION_QUALIFIERS if q in quals or q in expansion]
            if "__global__" not in quals and "__device__" not in quals:
                continue
            name = function_name(fn, pf)
            self.defined.add(name)
            is_kernel = "__global__" in quals
            self.inv.device_ranges.append((fn.start_byte, _body_end(self.data, body), name, is_kernel))
            if is_kernel:
                self.inv.kernels.append(self.kernel(fn, name, head_macros))
            else:
                self.inv.device_functions.append(DeviceFunction(
                    name=name, file=pf.display, line=line_of(fn), end_line=end_line_of(fn),
                    qualifiers=[q for q in quals if q != "__global__"]))
        self.inv.device_ranges.sort()
        self.device_starts = [r[0] for r in self.inv.device_ranges]

    def kernel(self, fn: Node, name: str, head_macros: list[tuple[int, QualifierMacro]] = ()) -> Kernel:  # type: ignore[assignment]
        pf = self.pf
        template_params: list[str] = []
        parent = fn.parent
        if parent is not None and parent.type == "template_declaration":
            params = parent.child_by_field_name("parameters")
            if params is not None:
                template_params = [node_text(c, pf) for c in params.named_children if c.type != "comment"]
        bounds: list[str] = []
        for child in fn.children:
            if child.type == "launch_bounds":
                bounds = [node_text(c, pf) for c in child.named_children if c.type != "comment"]
                break
            if child.type == "compound_statement":
                break
        if not bounds:
            bounds = self.lexical_bounds(fn, head_macros)
        scopes = scope_names(fn, pf)
        qualified = "::".join([*scopes, name]) if scopes else name
        return Kernel(name=name, file=pf.display, line=line_of(fn), end_line=end_line_of(fn),
                      template_params=template_params, launch_bounds=bounds,
                      static_smem_bytes=self.static_smem(fn), qualified_name=qualified)

    def lexical_bounds(self, fn: Node, head_macros: list[tuple[int, QualifierMacro]]) -> list[str]:
        """``__launch_bounds__`` arguments the grammar did not see: written in a head it misparsed (after an unknown
        macro), or brought by a qualifier macro (a function-like one's parameters replaced by the call's arguments)."""
        body = fn.child_by_field_name("body")
        end = body.start_byte if body is not None else fn.end_byte
        head = self.data[fn.start_byte:end]
        if b"__launch_bounds__" in head:
            m = _BOUNDS_RE.search(head)
            if m is not None:
                args = mac.call_args_at(self.data, fn.start_byte + m.end() - 1, end)
                if args:
                    return [" ".join(a.split()) for a in args]
        for after, qm in head_macros:
            if not qm.launch_bounds:
                continue
            if not qm.params:
                return list(qm.launch_bounds)
            args = mac.call_args_at(self.data, after, end) if self.data[after:end].lstrip()[:1] == b"(" else None
            values = dict(zip(qm.params, args or ()))
            return [_substitute(b, values) for b in qm.launch_bounds]
        return []

    def static_smem(self, fn: Node) -> int | None:
        body = fn.child_by_field_name("body")
        if body is None:
            return 0
        total = 0
        seen: set[int] = set()
        lo, hi = body.start_byte, body.end_byte
        for start in file_tokens(self.pf).positions(b"__shared__"):
            if start < lo or start + 10 > hi:
                continue
            node = self.root.descendant_for_byte_range(start, start + 10)
            decl = node
            while decl is not None and decl.type not in ("declaration", "compound_statement"):
                decl = decl.parent
            if node is None or node.type in SKIP_NODE_TYPES or decl is None or decl.type != "declaration":
                continue
            if decl.id in seen:
                continue
            seen.add(decl.id)
            head = node_text(decl, self.pf)
            if re.search(r"\bextern\b", head):
                continue  # dynamic shared memory: sized at launch
            size = self.declaration_bytes(decl)
            if size is None:
                return None
            total += size
        return total

    def declaration_bytes(self, decl: Node) -> int | None:
        type_node = decl.child_by_field_name("type")
        if type_node is None:
            return None
        type_name = " ".join(node_text(type_node, self.pf).split())
        elem = mac.TYPE_SIZES.get(type_name)
        if elem is None:
            return None
        total = 0
        for d in decl.children_by_field_name("declarator"):
            count = 1
            cur: Node | None = d
            if d.type == "init_declarator":
                cur = d.child_by_field_name("declarator") or d
            while cur is not None and cur.type == "array_declarator":
                size = cur.child_by_field_name("size")
                if size is None:
                    return None
                value = mac.fold_int(node_text(size, self.pf), self.constants)
                if value is None or value < 0:
                    return None
                count *= value
                cur = cur.child_by_field_name("declarator")
            total += count * elem
        return total

    def in_device(self, offset: int) -> bool:
        starts = getattr(self, "device_starts", None)
        if not starts:
            return False
        i = bisect_right(starts, offset) - 1
        for j in (i, i - 1):  # function definitions do not nest (a local class's method is the exception)
            if j >= 0 and self.inv.device_ranges[j][0] <= offset < self.inv.device_ranges[j][1]:
                return True
        return False

    # -- headers ---------------------------------------------------------------------------------
    def headers(self) -> None:
        pf = self.pf
        for m in mac.find_includes(self.data):
            header = m.group(2).decode("latin-1").strip()
            line = pf.line_at(m.start())
            self.inv.includes.append((line, header))
            entry = self.mapping.lookup_header(header)
            if entry is None:
                continue
            self.inv.api_calls.append(ApiCall(
                file=pf.display, line=line, cuda_name=header, library=entry.library, hip_name=entry.hip_name,
                status=entry.status, kind="header", in_macro=False, column=m.start(2) - pf.line_starts[line - 1]))

    # -- API references --------------------------------------------------------------------------
    def api_references(self) -> None:
        data = self.data
        mapping = self.mapping
        index = _index(mapping)
        tokens = file_tokens(self.pf)
        hits = index.exact_and_prefixed(tokens.idents)
        covered: list[tuple[int, int]] = []
        qual_re = index.qual_re
        firsts = tokens.idents & index.qual_firsts
        if qual_re is not None and firsts and b"::" in data:
            for start, _first in tokens.occurrences(firsts):
                m = qual_re.match(data, start)
                if m is None:
                    continue
                name = m.group(0).decode("ascii")
                entry = mapping.lookup(name)
                if entry is None:
                    continue
                if name in self.tree_defined and name not in mapping.entries:
                    covered.append((m.start(), m.end()))  # the project's own (its namespace cuda { … }): no CUDA use
                    continue
                if self.reference(name, entry, m.start(), m.end()):
                    covered.append((m.start(), m.end()))
        for tok in list(hits):
            name = tok.decode("ascii")
            if name in self.defined or (name in self.tree_defined and tok not in index.names):
                del hits[tok]  # defined here, or a prefix-rule match the tree defines (CUDA_CHECK)
        if not hits:
            return
        cov_starts = [c[0] for c in covered]
        for start, tok in tokens.occurrences(hits):
            end = start + len(tok)
            if covered:
                i = bisect_right(cov_starts, start) - 1
                if i >= 0 and start < covered[i][1]:
                    continue
            if start >= 2 and data[start - 2:start] == b"::" and start >= 3 and (chr(data[start - 3]).isalnum() or data[start - 3] == 95):
                continue  # qualified by some other namespace (std::min, my::cudaThing)
            if (start >= 1 and data[start - 1] == 46) or data[start - 2:start] == b"->":
                continue  # a member (obj.name, ptr->name)
            self.reference(tok.decode("ascii"), hits[tok], start, end)

    def reference(self, name: str, entry: MappingEntry, start: int, end: int) -> bool:
        """Record one reference at [start, end) unless it is in a comment/string or is a definition."""
        pf = self.pf
        in_macro = False
        macro = self.macro_at(start) if self.inv.macros else None
        if macro is not None:
            if start < macro.body_start:
                return False  # the macro's own name or a parameter
            if not self.in_macro_code(macro, start, self.data[start:end]):
                return False
            in_macro = True
        else:
            node = self.root.descendant_for_byte_range(start, end)
            if node is None:
                return False
            t = node.type
            if t in SKIP_NODE_TYPES:
                return False
            parent = node.parent
            if parent is not None:
                pt = parent.type
                if pt in SKIP_NODE_TYPES:
                    return False
                if pt == "function_declarator" and parent.child_by_field_name("declarator") == node:
                    self.defined.add(name)
                    return False  # the file defines a function of this name
                if t == "field_identifier":
                    return False
        if entry.library == "device" and not name.startswith("__") and not name.startswith("atomic"):
            # math functions (sqrtf, max, …) are device API only in device code
            if not self.in_device(start):
                return False
        line = pf.line_at(start)
        self.inv.api_calls.append(ApiCall(
            file=pf.display, line=line, cuda_name=name, library=entry.library, hip_name=entry.hip_name,
            status=entry.status, kind=entry.kind if entry.kind != "header" else "function", in_macro=in_macro,
            column=start - pf.line_starts[line - 1]))
        if name in LAUNCH_APIS:
            self.api_launch(name, start, end, in_macro)
        return True

    # -- launches --------------------------------------------------------------------------------
    def api_launch(self, name: str, start: int, end: int, in_macro: bool) -> None:
        pf = self.pf
        args: list[str] | None = None
        caller = None
        if not in_macro:
            node = self.root.descendant_for_byte_range(start, end)
            call = node.parent if node is not None else None
            if call is not None and call.type == "call_expression":
                arg_node = call.child_by_field_name("arguments")
                if arg_node is not None:
                    args = [node_text(c, pf) for c in arg_node.named_children if c.type != "comment"]
            if node is not None:
                caller = self.caller_of(node)
        if args is None:
            args = mac.call_args_at(self.data, end) or []
        k_i, g_i, b_i, s_i, st_i = LAUNCH_APIS[name]

        def arg(i: int | None) -> str | None:
            return args[i] if i is not None and i < len(args) else None

        kernel = _kernel_from_arg(arg(k_i))
        grid, block = arg(g_i), arg(b_i)
        if name in CU_GRID and len(args) >= 7:
            grid = f"dim3({', '.join(args[1:4])})"
            block = f"dim3({', '.join(args[4:7])})"
            kernel = self.cu_function_name(kernel)
        self.inv.launch_sites.append(LaunchSite(
            file=pf.display, line=pf.line_at(start), kernel=kernel, via=name, grid=grid, block=block,
            shared_mem=arg(s_i), stream=arg(st_i), in_macro=in_macro, caller=caller))

    def cu_function_name(self, var: str | None) -> str | None:
        """For ``cuLaunchKernel(f, …)``: the kernel name ``f`` was loaded by (``cuModuleGetFunction``)."""
        if var is None:
            return None
        for m in CUMODULE_RE.finditer(self.data):
            if m.group(1).decode("latin-1") == var:
                return m.group(2).decode("latin-1")
        return var

    def chevrons(self) -> None:
        data = self.data
        pos = data.find(b"<<<")
        while pos >= 0:
            self.chevron(pos)
            pos = data.find(b"<<<", pos + 3)

    def chevron(self, pos: int) -> None:
        pf = self.pf
        macro = self.macro_at(pos) if self.inv.macros else None
        if macro is not None:
            if not self.in_macro_code(macro, pos, b"<<<"):
                return
            lex = mac.chevron_launch_at(self.blanked_macro(macro), pos - macro.start)
            if lex is not None:
                self.add_lexical_launch(lex, pos, in_macro=True, caller=None)
            return
        node = self.root.descendant_for_byte_range(pos, pos + 3)
        if node is None or node.type in SKIP_NODE_TYPES or (node.parent is not None and node.parent.type in SKIP_NODE_TYPES):
            return
        ks: Node | None = node
        for _ in range(3):
            if ks is None or ks.type == "kernel_call_syntax":
                break
            ks = ks.parent
        if ks is not None and ks.type == "kernel_call_syntax" and ks.parent is not None and ks.parent.type == "call_expression":
            call = ks.parent
            fnode = call.child_by_field_name("function")
            kernel = mac.strip_template_args(node_text(fnode, pf)) if fnode is not None else None
            config: list[str | None] = [node_text(c, pf) for c in ks.named_children if c.type != "comment"]
            config += [None] * (4 - len(config))
            self.inv.launch_sites.append(LaunchSite(
                file=pf.display, line=pf.line_at(pos), kernel=kernel or None, via="chevron", grid=config[0],
                block=config[1], shared_mem=config[2], stream=config[3], in_macro=False, caller=self.caller_of(call)))
            return
        # a launch the parser did not recognise (e.g. inside a parse error): read it lexically
        if True:
            lex = mac.chevron_launch_at(self.data, pos)
            if lex is not None:
                self.add_lexical_launch(lex, pos, in_macro=False, caller=self.caller_of(node))

    def add_lexical_launch(self, lex: mac.LexicalLaunch, pos: int, in_macro: bool, caller: str | None) -> None:
        cfg = lex.config + [None] * (4 - len(lex.config))
        self.inv.launch_sites.append(LaunchSite(
            file=self.pf.display, line=self.pf.line_at(pos), kernel=lex.kernel, via="chevron", grid=cfg[0],
            block=cfg[1], shared_mem=cfg[2], stream=cfg[3], in_macro=in_macro, caller=caller))


def _union(a: QualifierMacro, b: QualifierMacro) -> QualifierMacro:
    quals = set(a.qualifiers) | set(b.qualifiers)
    return QualifierMacro(a.name, tuple(q for q in tree_defs.QUALIFIER_WORDS if q in quals), a.params or b.params,
                          a.launch_bounds or b.launch_bounds)


def _substitute(text: str, values: dict[str, str]) -> str:
    """A macro body's text with its parameters replaced by the call's arguments."""
    if not values:
        return text
    return re.sub(r"[A-Za-z_]\w*", lambda m: values.get(m.group(0), m.group(0)), text)


def _kernel_from_arg(text: str | None) -> str | None:
    """The kernel named by a launch API's function argument: ``(void*)k``, ``reinterpret_cast<void*>(&k<T>)`` → ``k``."""
    if not text:
        return None
    text = re.sub(r"\b(?:reinterpret_cast|static_cast|const_cast)\s*<[^()]*?>", "", text)
    text = mac.strip_template_args(text)
    for m in re.finditer(r"[A-Za-z_][\w]*(?:::[A-Za-z_]\w*)*", text):
        if m.group(0) not in CAST_WORDS:
            return m.group(0)
    return None
