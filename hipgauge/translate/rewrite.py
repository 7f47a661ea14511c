"""Token-accurate CUDA → HIP rewriting of one parsed file, and of a whole tree into a new folder.

Names are rewritten where the tree-sitter tree has an identifier, type, qualified name, ``#include`` path or
macro body token, so comments and string literals are never touched. Every edit keeps the line structure
(line N of the output is line N of the input). The mapping is ``knowledge/mapping.py``'s; what it cannot
convert stays as written and is listed with file:line. Build files go to ``buildfiles.py``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from hipgauge.knowledge.mapping import Mapping, MappingEntry, load_mapping
from hipgauge.model import ApiCall
from hipgauge.source.parse import captures
from hipgauge.translate.buildfiles import translate_build_file
from hipgauge.translate.candidates import Candidates, find_candidates, occurrences
from hipgauge.translate.edits import EditList
from hipgauge.translate.result import TranslatedFile, TranslateOptions, finish_file
from hipgauge.translate.safe_rewrites import (
    SYNCWARP,
    WARP_MASK,
    SafeRewrite,
    load_safe_rewrites,
)

__all__ = ["BUILD_KINDS", "LAUNCH_STYLES", "FileRewriter", "TranslateOptions", "TranslatedFile", "finish_file",
           "split_args", "translate_file", "untouched_file"]

BUILD_KINDS = {"cmake", "make", "setup.py"}
_CXX_KEYWORDS = frozenset({"using", "return", "typename", "case", "new", "delete", "throw", "else", "do", "sizeof",
                           "co_return", "co_yield", "co_await", "friend", "static", "const", "constexpr", "inline"})
LAUNCH_STYLES = ("chevron", "hipLaunchKernelGGL")


# ---------------------------------------------------------------------------------------------------------
# Source files
# ---------------------------------------------------------------------------------------------------------

_QUERY = """
(identifier) @id
(type_identifier) @id
(namespace_identifier) @ns
(qualified_identifier) @qual
(preproc_arg) @macro
(preproc_include) @include
(call_expression) @call
(kernel_call_syntax) @launch
(gnu_asm_expression) @asm
(preproc_def) @def
(preproc_function_def) @def
(function_declarator) @fdecl
(init_declarator) @init
"""

_LEX = re.compile(
    r"""(?P<skip>//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')"""
    r"""|(?P<id>(?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)""",
    re.S,
)


@lru_cache(maxsize=1)
def _cached_lookup() -> Any:
    mapping = load_mapping()

    @lru_cache(maxsize=200_000)
    def lookup(name: str) -> MappingEntry | None:
        return mapping.lookup(name)

    return lookup


class _LocalNames:
    """The tree's local names plus the ones this file adds (the tree-wide set is not copied per file)."""

    __slots__ = ("base", "extra")

    def __init__(self, base: frozenset[str]):
        self.base = base
        self.extra: set[str] = set()

    def __contains__(self, name: object) -> bool:
        return name in self.extra or name in self.base

    def add(self, name: str) -> None:
        self.extra.add(name)


class FileRewriter:
    def __init__(self, pf: Any, mapping: Mapping, options: TranslateOptions):
        self.pf = pf
        self.data: bytes = pf.data
        self.mapping = mapping
        self.options = options
        self.lookup = _cached_lookup() if mapping is load_mapping() else mapping.lookup
        self.safe = load_safe_rewrites()
        self.edits = EditList()
        self.refs: list[ApiCall] = []
        self.converted_flags: list[bool] = []
        self.rewrites: list[SafeRewrite] = []
        self.consumed: set[int] = set()  # start bytes of identifier nodes already handled
        self.full_mask_names: set[str] = set()
        self.local_names = _LocalNames(options.known_local_names)
        self.construct_lines: set[int] = set()

    # -- helpers -------------------------------------------------------------------------------------------
    def text(self, node: Any) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", errors="replace")

    def record(self, name: str, entry: MappingEntry | None, line: int, column: int, converted: bool,
               kind: str | None = None, in_macro: bool = False, hip_name: str | None = None,
               status: str | None = None, library: str | None = None) -> None:
        self.refs.append(ApiCall(
            file=self.pf.display, line=line, cuda_name=name,
            library=library or (entry.library if entry else "device"),
            hip_name=hip_name if hip_name is not None else (entry.hip_name if entry else None),
            status=status or (entry.status if entry else "unsupported"),
            kind=kind or (entry.kind if entry else "function"), in_macro=in_macro, column=column))
        self.converted_flags.append(converted)

    def replace(self, start: int, end: int, new: str) -> bool:
        return self.edits.replace(start, end, new, self.data)

    def replace_chain(self, qname: str, entry: MappingEntry, names: list[str], plain: list[bool],
                      spans: list[tuple[int, int]], k: int) -> bool:
        """Rewrite the qualified name ``qname`` (the first ``k`` segments of a chain, byte ``spans`` each) to the
        entry's HIP name: only the head where the HIP name keeps the rest (``cub::WarpReduce`` →
        ``hipcub::WarpReduce``), the whole chain where every segment is plain text; False where neither works
        (a template segment in a chain the HIP name renames) or the name has no counterpart."""
        hip = entry.hip_name
        if not hip or not entry.has_counterpart:
            return False
        if hip == qname:
            return True
        rest = "::".join(names[1:k])
        if rest and hip.endswith("::" + rest) and plain[0]:
            return self.replace(spans[0][0], spans[0][1], hip[: -len(rest) - 2])
        if all(plain[:k]):
            return self.replace(spans[0][0], spans[k - 1][1], hip)
        return False

    # -- passes --------------------------------------------------------------------------------------------
    def run(self, cands: Candidates | None = None) -> None:
        """Visit the tree. With the pre-check's candidates, only their occurrences are resolved to nodes
        (``_run_candidates``); the result is the same as visiting every identifier (``_run_full``)."""
        if cands is None:
            cands = find_candidates(self.data, self.mapping)
        if cands.exact_only:
            self._run_candidates(cands)
        else:
            self._run_full()

    def _run_candidates(self, cands: Candidates) -> None:
        root = self.pf.tree.root_node
        data = self.data
        unknown = any((e := self.lookup(t.decode())) is not None and e.status == "unknown" for t in cands.ids)
        patterns = ["(preproc_include) @include"]
        if cands.warp or unknown:
            patterns += ["(preproc_def) @def", "(preproc_function_def) @def", "(function_declarator) @fdecl"]
        if cands.warp:
            patterns.append("(init_declarator) @init")
        if cands.launch:
            patterns.append("(kernel_call_syntax) @launch")
        if cands.asm:
            patterns.append("(gnu_asm_expression) @asm")
        found = captures(root, "\n".join(patterns))
        calls: dict[int, Any] = {}
        quals: dict[tuple[int, int], Any] = {}
        ids: dict[int, Any] = {}
        macros: dict[int, Any] = {}
        for tok in sorted(cands.ids | cands.quals | cands.warp):
            is_id, is_qual, is_warp = tok in cands.ids, tok in cands.quals, tok in cands.warp
            n = len(tok)
            for start in occurrences(data, tok):
                node = root.descendant_for_byte_range(start, start + n)
                if node is None:
                    continue
                ntype = node.type
                if ntype == "preproc_arg":
                    macros[node.start_byte] = node
                    continue
                if node.start_byte != start or node.end_byte != start + n:
                    continue
                if is_warp and ntype == "identifier":
                    parent = node.parent
                    if parent is not None and parent.type == "call_expression" and \
                            parent.child_by_field_name("function") == node:
                        calls[start] = parent
                if is_qual:
                    q = _outermost_qualified(node)
                    if q is not None:
                        quals[(q.start_byte, q.end_byte)] = q
                if is_id and ntype in ("identifier", "type_identifier"):
                    ids[start] = node
        self._collect_declarations(found)
        for key in sorted(calls):
            self._call(calls[key])
        for node in found.get("launch", []):
            self._launch(node)
        self._record_asm(found.get("asm", []))
        for span in sorted(quals):
            self._qualified(quals[span])
        for key in sorted(ids):
            if key not in self.consumed:
                self._identifier(ids[key])
        for key in sorted(macros):
            self._macro_body(macros[key])

    def _run_full(self) -> None:
        root = self.pf.tree.root_node
        found = captures(root, _QUERY)
        self._collect_declarations(found)
        for node in found.get("call", []):
            self._call(node)
        for node in found.get("launch", []):
            self._launch(node)
        self._record_asm(found.get("asm", []))
        for node in found.get("qual", []):
            parent = node.parent
            if parent is None or parent.type != "qualified_identifier":
                self._qualified(node)
        for node in found.get("id", []):
            if node.start_byte not in self.consumed:
                self._identifier(node)
        for node in found.get("macro", []):
            self._macro_body(node)

    def _collect_declarations(self, found: dict[str, list[Any]]) -> None:
        """Names this file defines or declares (never renamed), full-mask constants, and its #includes."""
        for node in found.get("def", []):
            self._collect_definition(node)
        for node in found.get("fdecl", []):
            decl = node.child_by_field_name("declarator")
            if decl is not None and decl.type == "identifier":
                self.local_names.add(self.text(decl))
        for node in found.get("init", []):
            self._collect_constant(node)
        for node in found.get("include", []):
            self._include(node)

    def _record_asm(self, nodes: list[Any]) -> None:
        for node in nodes:
            self.record("asm", None, node.start_point[0] + 1, node.start_point[1], False, kind="asm",
                        status="unsupported", library="device")

    def _collect_definition(self, node: Any) -> None:
        name = node.child_by_field_name("name")
        if name is None:
            return
        ident = self.text(name)
        self.local_names.add(ident)
        value = node.child_by_field_name("value")
        if value is not None and node.type == "preproc_def" and self.safe.is_full_mask(self.text(value)):
            self.full_mask_names.add(ident)

    def _collect_constant(self, node: Any) -> None:
        decl = node.child_by_field_name("declarator")
        value = node.child_by_field_name("value")
        if decl is None or value is None or decl.type != "identifier":
            return
        parent = node.parent
        if parent is None or parent.type != "declaration":
            return
        head = self.data[parent.start_byte:decl.start_byte].decode("utf-8", errors="replace")
        if re.search(r"\b(const|constexpr)\b", head) and self.safe.is_full_mask(self.text(value)):
            self.full_mask_names.add(self.text(decl))

    def _include(self, node: Any) -> None:
        path = node.child_by_field_name("path")
        if path is None:
            return
        if path.type == "system_lib_string":
            start, end = path.start_byte + 1, path.end_byte - 1
        elif path.type == "string_literal":
            start, end = path.start_byte + 1, path.end_byte - 1
        else:
            return
        header = self.data[start:end].decode("utf-8", errors="replace")
        entry = self.mapping.lookup_header(header)
        if entry is None:
            return
        line = path.start_point[0] + 1
        ok = bool(entry.hip_name) and entry.has_counterpart
        if ok and entry.hip_name and entry.hip_name != header:
            ok = self.replace(start, end, entry.hip_name)
        self.record(header, entry, line, path.start_point[1] + 1, ok, kind="header")

    def _call(self, node: Any) -> None:
        fn = node.child_by_field_name("function")
        if fn is None or fn.type != "identifier":
            return
        name = self.text(fn)
        safe = self.safe
        if name in safe.warp_sync:
            self._warp_sync_call(node, fn, name)
        elif name == safe.syncwarp_cuda:
            self._syncwarp_call(node, fn, name)

    def _args(self, node: Any) -> list[Any]:
        args = node.child_by_field_name("arguments")
        if args is None:
            return []
        return [c for c in args.named_children if c.type != "comment"]

    def _warp_sync_call(self, node: Any, fn: Any, name: str) -> None:
        self.consumed.add(fn.start_byte)
        entry = self.lookup(name)
        line, col = fn.start_point[0] + 1, fn.start_point[1]
        args = self._args(node)
        hip = self.safe.warp_sync[name]
        if (WARP_MASK in self.options.safe_rewrites and len(args) >= 2
                and self.safe.is_full_mask(self.text(args[0]), self.full_mask_names)):
            before = self.text(node).split("\n")[0]
            if self.replace(fn.start_byte, fn.end_byte, hip) and self.replace(args[0].start_byte, args[1].start_byte, ""):
                self.record(name, entry, line, col, True, kind="function", hip_name=hip, status="mapped",
                            library="device")
                after = before.replace(name, hip, 1)
                mask_text = self.text(args[0])
                after = re.sub(re.escape(mask_text) + r"\s*,\s*", "", after, count=1)
                self.rewrites.append(SafeRewrite(self.pf.display, line, WARP_MASK, before.strip(), after.strip()))
                return
        self.record(name, entry, line, col, False, kind="function", status="unsupported", library="device",
                    hip_name=None)

    def _syncwarp_call(self, node: Any, fn: Any, name: str) -> None:
        self.consumed.add(fn.start_byte)
        line, col = fn.start_point[0] + 1, fn.start_point[1]
        args = self._args(node)
        hip = self.safe.syncwarp_hip
        if SYNCWARP in self.options.safe_rewrites and (
                not args or (len(args) == 1 and self.safe.is_full_mask(self.text(args[0]), self.full_mask_names))):
            arglist = node.child_by_field_name("arguments")
            before = self.text(node)
            if self.replace(fn.start_byte, arglist.end_byte, f"{hip}()"):
                self.record(name, None, line, col, True, kind="function", hip_name=hip, status="mapped",
                            library="device")
                self.rewrites.append(SafeRewrite(self.pf.display, line, SYNCWARP, before.strip(), f"{hip}()"))
                return
        self.record(name, None, line, col, False, kind="function", status="unsupported", library="device",
                    hip_name=None)

    def _launch(self, node: Any) -> None:
        line = node.start_point[0] + 1
        if self.options.launch_style == "hipLaunchKernelGGL" and self._launch_ggl(node):
            self.record("<<<>>>", None, line, node.start_point[1], True, kind="launch", hip_name="hipLaunchKernelGGL",
                        status="mapped", library="runtime")
            return
        self.record("<<<>>>", None, line, node.start_point[1], True, kind="launch", hip_name="<<<>>>",
                    status="mapped", library="runtime")

    def _launch_ggl(self, launch: Any) -> bool:
        call = launch.parent
        if call is None or call.type != "call_expression":
            return False
        fn = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        if fn is None or args is None:
            return False
        config = [c for c in launch.named_children if c.type != "comment"]
        if not 2 <= len(config) <= 4:
            return False
        kname = self.text(fn)
        if fn.type == "template_function" or "<" in kname:
            kname = f"HIP_KERNEL_NAME({kname})"
        parts = [self.text(c) for c in config]
        grid, block = parts[0], parts[1]
        shmem = parts[2] if len(parts) > 2 else "0"
        stream = parts[3] if len(parts) > 3 else "0"
        head = f"hipLaunchKernelGGL({kname}, dim3({grid}), dim3({block}), {shmem}, {stream}"
        call_args = [c for c in args.named_children if c.type != "comment"]
        # head replaces fn + <<<…>>>; "(" of the argument list becomes ", " (or nothing without arguments)
        if not self.replace(fn.start_byte, launch.end_byte, head):
            return False
        open_paren = args.start_byte
        if not self.replace(open_paren, open_paren + 1, ", " if call_args else ""):
            return False
        return True

    def _qualified(self, node: Any) -> None:
        segs: list[Any] = []
        cur = node
        while cur is not None and cur.type == "qualified_identifier":
            scope = cur.child_by_field_name("scope")
            if scope is not None:
                segs.append(scope)
            cur = cur.child_by_field_name("name")
        if cur is not None:
            segs.append(cur)
        names: list[str] = []
        plain: list[bool] = []
        for s in segs:
            if s.type in ("template_type", "template_function"):  # the name without its template arguments
                inner = s.child_by_field_name("name")
                names.append(self.text(inner) if inner is not None else self.text(s))
                plain.append(False)
            elif s.type in ("namespace_identifier", "identifier", "type_identifier"):
                names.append(self.text(s))
                plain.append(True)
            else:
                names.append(self.text(s))
                plain.append(False)
        start = node.start_byte
        while names and names[0] in _CXX_KEYWORDS and len(names) > 1:
            # tree-sitter reads ``using ::a::b`` after an unknown macro line as a chain headed by "using"
            start = self.data.find(b"::", segs[0].end_byte)
            segs, names, plain = segs[1:], names[1:], plain[1:]
        for k in range(len(names), 1, -1):
            qname = "::".join(names[:k])
            entry = self.lookup(qname)
            if entry is None:
                continue
            for s in segs[:k]:
                self.consumed.add(s.start_byte)
                if s.type in ("template_type", "template_function"):
                    inner = s.child_by_field_name("name")
                    if inner is not None:
                        self.consumed.add(inner.start_byte)
            if start == node.start_byte:
                line, col = node.start_point[0] + 1, node.start_point[1]
            else:
                line, col = self.pf.line_at(start), self.pf.column_at(start)
            ok = self.replace_chain(qname, entry, names, plain, [(s.start_byte, s.end_byte) for s in segs], k)
            self.record(qname, entry, line, col, ok)
            return

    def _identifier(self, node: Any) -> None:
        name = self.text(node)
        entry = self.lookup(name)
        if entry is None:
            return
        if entry.status == "unknown" and name in self.local_names:
            return
        parent = node.parent
        if parent is not None and parent.type in ("preproc_def", "preproc_function_def") and \
                parent.child_by_field_name("name") == node:
            return  # the name being defined: a user macro that happens to look like a CUDA name
        line, col = node.start_point[0] + 1, node.start_point[1]
        ok = bool(entry.hip_name) and entry.has_counterpart
        if ok and entry.hip_name and entry.hip_name != name:
            ok = self.replace(node.start_byte, node.end_byte, entry.hip_name)
        self.record(name, entry, line, col, ok)

    def _macro_body(self, node: Any) -> None:
        base = node.start_byte
        body = self.data[node.start_byte:node.end_byte]
        text = body.decode("utf-8", errors="replace")
        if not text.isascii():
            return  # byte offsets below assume one byte per character
        for m in _LEX.finditer(text):
            if m.group("id") is None:
                continue
            raw = m.group("id")
            start = m.start("id")
            before = text[:start].rstrip()
            if before.endswith(".") or before.endswith("->"):
                continue
            name = re.sub(r"\s+", "", raw).lstrip(":")
            offset = base + start
            line = self.pf.line_at(offset)
            if name in self.safe.warp_sync or name == self.safe.syncwarp_cuda:
                if self._macro_sync(text, m.end("id"), name, offset, raw, line):
                    continue
            entry = self.lookup(name)
            if entry is None and "::" in name:
                continue
            if entry is None or (entry.status == "unknown" and name in self.local_names):
                continue
            ok = bool(entry.hip_name) and entry.has_counterpart
            if ok and entry.hip_name and entry.hip_name != name:
                if "::" in name:
                    first = name.split("::")[0]
                    rest = name[len(first) + 2:]
                    if entry.hip_name.endswith("::" + rest):
                        lead = raw.index(first)
                        ok = self.replace(offset + lead, offset + lead + len(first), entry.hip_name[: -len(rest) - 2])
                    else:
                        ok = False
                else:
                    ok = self.replace(offset, offset + len(raw), entry.hip_name)
            self.record(name, entry, line, self.pf.column_at(offset), ok, in_macro=True)

    def _macro_sync(self, text: str, after: int, name: str, offset: int, raw: str, line: int) -> bool:
        j = after
        while j < len(text) and text[j] in " \t\\\n":
            j += 1
        if j >= len(text) or text[j] != "(":
            return False
        args = split_args(text, j)
        if args is None:
            return False
        spans, close = args
        base = offset - (after - len(raw))  # offset of text[0]
        col = self.pf.column_at(offset)
        if name in self.safe.warp_sync:
            hip = self.safe.warp_sync[name]
            if (WARP_MASK in self.options.safe_rewrites and len(spans) >= 2
                    and self.safe.is_full_mask(text[spans[0][0]:spans[0][1]], self.full_mask_names)):
                if self.replace(offset, offset + len(raw), hip) and self.replace(base + spans[0][0], base + spans[1][0], ""):
                    self.record(name, None, line, col, True, kind="function", hip_name=hip, status="mapped",
                                library="device", in_macro=True)
                    self.rewrites.append(SafeRewrite(self.pf.display, line, WARP_MASK, text[after - len(raw):close + 1],
                                                     hip + "(" + text[spans[1][0]:close + 1]))
                    return True
        else:
            hip = self.safe.syncwarp_hip
            inner = text[j + 1:close].strip()
            if SYNCWARP in self.options.safe_rewrites and (not inner or self.safe.is_full_mask(inner, self.full_mask_names)):
                if self.replace(offset, base + close + 1, f"{hip}()"):
                    self.record(name, None, line, col, True, kind="function", hip_name=hip, status="mapped",
                                library="device", in_macro=True)
                    self.rewrites.append(SafeRewrite(self.pf.display, line, SYNCWARP, text[after - len(raw):close + 1],
                                                     f"{hip}()"))
                    return True
        self.record(name, None, line, col, False, kind="function", status="unsupported", library="device",
                    hip_name=None, in_macro=True)
        return True

    # -- result --------------------------------------------------------------------------------------------
    def result(self) -> TranslatedFile:
        out = self.edits.apply(self.data)
        text = out.decode("utf-8", errors="replace") if self.pf.encoding == "utf-8" else out.decode(self.pf.encoding)
        return finish_file(self.pf, text, out, self.refs, self.converted_flags, self.rewrites)


def _outermost_qualified(node: Any) -> Any:
    """The outermost ``qualified_identifier`` a name token belongs to (through ``template_type``), or None."""
    cur, found = node, None
    while True:
        parent = cur.parent
        if parent is None:
            return found
        ptype = parent.type
        if ptype == "qualified_identifier":
            found = parent
        elif ptype != "template_type" or found is not None:
            return found
        cur = parent


def split_args(text: str, open_index: int) -> tuple[list[tuple[int, int]], int] | None:
    """Argument spans of a call whose "(" is at ``open_index``: ([(start, end)…], index of ")")."""
    depth = 0
    spans: list[tuple[int, int]] = []
    start = open_index + 1
    i = open_index
    in_str: str | None = None
    while i < len(text):
        ch = text[i]
        if in_str:
            if ch == "\\":
                i += 2
                continue
            if ch == in_str:
                in_str = None
        elif ch in "\"'":
            in_str = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                if text[start:i].strip():
                    spans.append(_trim(text, start, i))
                return spans, i
        elif ch == "," and depth == 1:
            spans.append(_trim(text, start, i))
            start = i + 1
        i += 1
    return None


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t\\\n":
        start += 1
    while end > start and text[end - 1] in " \t\\\n":
        end -= 1
    return start, end


def translate_file(pf: Any, mapping: Mapping | None = None, options: TranslateOptions | None = None,
                   candidates: Candidates | None = None) -> TranslatedFile:
    """Translate one ``ParsedFile`` (source or build file); never raises on odd input."""
    mapping = mapping or load_mapping()
    options = options or TranslateOptions()
    if pf.kind in BUILD_KINDS or pf.tree is None:
        return translate_build_file(pf, options)
    rw = FileRewriter(pf, mapping, options)
    rw.run(candidates)
    return rw.result()


def untouched_file(pf: Any) -> TranslatedFile:
    """The result for a source file the pre-check found nothing in: copied as is, no CUDA lines.
    (What ``translate_file`` returns for it too, without parsing.)"""
    return finish_file(pf, pf.text, pf.data, [], [], [])

