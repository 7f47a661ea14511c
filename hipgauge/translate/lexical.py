"""Translate one source file without a syntax tree: a lexical fast path with the tree's answers.

One compiled regular expression walks the bytes once and finds what a name can never be renamed in or must be
read differently: comments, string/char literals (raw strings and ``u8``/``L``/``u``/``U`` prefixes included),
preprocessor directive heads, ``<<<`` launches and ``asm`` keywords. The candidate names come from the
pre-check (``candidates.py``: tokens the mapping knows, C-speed set intersection), so Python only looks at those
occurrences, at comments/strings (skipped in bulk) and at directive lines. Around each occurrence the context the
tree gave is read back from the neighbouring tokens:

* after ``.`` / ``->`` it is a member (never renamed); after ``namespace`` a namespace name;
* ``a::b<T>::c`` chains are assembled segment by segment (template arguments matched lexically) and resolved
  exactly as ``rewrite.FileRewriter._qualified`` does; the last segment (or a template segment) is an
  identifier the tree would rename on its own when the chain is not a mapped name;
* ``#define`` / ``#undef`` / ``#pragma`` … bodies are the tree's ``preproc_arg`` text and go through the same
  macro-body code; ``#include`` paths, warp-sync calls (argument lists matched with comments and strings
  skipped) and launches are recorded with the same positions.

A name in a declarator position is an ``identifier`` to the tree at file or namespace level and in function or
statement bodies (``float acos(float)``, ``T j1 = i1;``), so it is read as one there (the enclosing brace and
the tokens before it say which); a name after ``>::`` is taken from the chain assembled from its head.

Whatever the tokens cannot decide the way the tree would — a name in a declarator position elsewhere (a class
member, a label) or of unknown status, a ``/*`` inside a directive, a comment inside a warp-sync call, a mask named
by a constant, template brackets that do not close, trigraphs, non-ASCII or ``$`` identifiers, a
``hipLaunchKernelGGL`` launch rewrite — makes ``lexical_translate`` return None, and the caller uses the tree
path for that file. The two paths give byte-identical output trees and identical references, statistics and
safe-rewrite lists (``tests/test_translate_lexical.py``; ``benchmarks/bench_translate.py`` checks CCCL).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import Any

from hipgauge.knowledge.mapping import Mapping
from hipgauge.translate.candidates import Candidates, occurrences
from hipgauge.translate.rewrite import (
    FileRewriter,
    TranslatedFile,
    TranslateOptions,
    split_args,
)

# every branch starts with a literal byte, so the engine skips ahead at C speed (no groups: they cost 7x)
_MASTER = re.compile(
    rb"""//(?:[^\\\n]|\\+[^\\\n]|\\+\r?\n)*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'"""
    rb"""|\#[ \t]*\w*|<<<|R"[^ ()\\\t\n]{0,16}\(""",
    re.S,
)
_PREFIXES = frozenset({b"u8", b"u", b"U", b"L"})
_LINE_END = re.compile(rb"(?<!\\)\n|(?<!\\)\r\n")
_TRIGRAPH = re.compile(rb"\?\?[=/'()!<>\-]")
_INCLUDE_PATH = re.compile(rb"""[ \t]*(<(?:[^>\n\\]|\\>|\\)*>|"(?:\\.|[^"\\\n])*")""")
_DEFINE_HEAD = re.compile(rb"[ \t]+([A-Za-z_]\w*)(\([^)\n]*\))?")
_WS = b" \t\r\n\f\v"
_WORD = bytes(1 if (chr(b).isascii() and (chr(b).isalnum() or chr(b) == "_")) else 0 for b in range(256))

_KEYWORDS = frozenset(b"""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch
template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
wchar_t while xor xor_eq __device__ __host__ __global__ __forceinline__ __noinline__ __shared__ __constant__
__managed__ __restrict__ __inline__ __volatile__ __asm__ __asm __attribute__ __declspec""".split())
# keywords after which a candidate is used (an expression or a type follows), never declared
_USE_AFTER = frozenset(b"""return case else do throw new delete sizeof alignof co_return co_yield co_await not and
or typeid struct class union enum typename using typedef""".split())
# specifiers after which a candidate is a type when a name or a declarator sign follows it
_SPECIFIERS = frozenset(b"""const volatile static extern inline constexpr consteval constinit virtual explicit
friend mutable register thread_local unsigned signed long short __device__ __host__ __global__ __forceinline__
__noinline__ __shared__ __constant__ __managed__ __inline__ template""".split())
_DECL_NEXT = frozenset(b"=;,([){:")
_BRACKETS = re.compile(rb"[()\[\]{}]")
# keywords that end a function head before its body's ``{`` (``f() const {``), besides ``)``
_BODY_AFTER = frozenset(b"const noexcept override mutable volatile".split())
# words before a declarator that may be part of its type (``float acos(``): names and these keywords
_TYPE_WORDS = frozenset(b"""auto bool char char8_t char16_t char32_t double float int long short signed unsigned void
wchar_t const volatile static extern inline constexpr __device__ __host__ __forceinline__ __noinline__
__inline__""".split())
_ASM_QUALIFIERS = frozenset({b"volatile", b"__volatile__", b"__volatile", b"inline", b"goto"})


class Unsure(Exception):
    """The tokens cannot tell what the tree would: use the tree path for this file."""


class _Span:
    """The part of a tree-sitter node ``FileRewriter`` reads (offsets, start point, children by field)."""

    __slots__ = ("start_byte", "end_byte", "start_point", "type", "fields", "named_children")

    def __init__(self, start: int, end: int, point: tuple[int, int] = (0, 0), type_: str = "span",
                 fields: dict[str, Any] | None = None, children: list[Any] | None = None):
        self.start_byte, self.end_byte, self.start_point, self.type = start, end, point, type_
        self.fields = fields or {}
        self.named_children = children or []

    def child_by_field_name(self, name: str) -> Any:
        return self.fields.get(name)


class _Lexer(FileRewriter):
    def __init__(self, pf: Any, mapping: Mapping, options: TranslateOptions, cands: Candidates):
        super().__init__(pf, mapping, options)
        self.cands = cands
        self.skip_starts: list[int] = []  # comments, literals, directive text that is not code (sorted)
        self.skip_ends: list[int] = []
        self.comment_starts: list[int] = []
        self.comment_ends: list[int] = []
        self.pp_starts: list[int] = []  # directive lines (head to logical end)
        self.pp_ends: list[int] = []
        self.code_pp: list[tuple[int, int]] = []  # parts of directive lines that are code (#if conditions)
        self.includes: list[tuple[int, int]] = []
        self.macro_bodies: list[tuple[int, int]] = []
        self.launches: list[int] = []
        self.define_values: dict[str, str] = {}
        self._bracket_pos: list[int] | None = None
        self._bracket_top: list[int] = []
        self._after_template: list[int] = []  # candidates after ``>::`` whose chain head is further back

    # -- scanning ------------------------------------------------------------------------------------------
    def point(self, offset: int) -> tuple[int, int]:
        line = self.pf.line_at(offset)
        return line - 1, offset - self.pf.line_starts[line - 1]

    def _skip(self, start: int, end: int) -> None:
        self.skip_starts.append(start)
        self.skip_ends.append(end)

    def scan(self) -> None:
        data = self.data
        if _TRIGRAPH.search(data):
            raise Unsure("trigraph")
        finditer = _MASTER.finditer
        skip_s, skip_e = self.skip_starts.append, self.skip_ends.append
        com_s, com_e = self.comment_starts.append, self.comment_ends.append
        word = _WORD
        pos = 0
        it = finditer(data)
        while True:
            # one iterator over the file; it restarts only where a match ran past a stretch the loop skipped
            for m in it:
                start, end = m.span()
                if start < pos:
                    if end <= pos:
                        continue
                    it = finditer(data, pos)
                    break
                c = data[start]
                if c == 47:  # / comment
                    skip_s(start)
                    skip_e(end)
                    com_s(start)
                    com_e(end)
                elif c == 34 or c == 39:  # " '
                    if start and word[data[start - 1]]:
                        _, w = self.word_before(start - 1)
                        if w not in _PREFIXES:
                            raise Unsure("literal after a name (digit separator?)")
                    skip_s(start)
                    skip_e(end)
                elif c == 60:  # <<<
                    self.launches.append(start)
                elif c == 82:  # R"delim(
                    if start and word[data[start - 1]]:
                        _, w = self.word_before(start - 1)
                        if w + b"R" not in (b"u8R", b"uR", b"UR", b"LR"):
                            raise Unsure("R\" after a name")
                    close = data.find(b")" + data[start + 2:end - 1] + b'"', end)
                    if close < 0:
                        raise Unsure("unterminated raw string")
                    end = close + end - start - 1
                    skip_s(start)
                    skip_e(end)
                else:  # '#'
                    ls = data.rfind(b"\n", 0, start) + 1
                    if ls != start and data[ls:start].strip(b" \t"):
                        raise Unsure("'#' inside a line")
                    end = self._directive(ls, end, m.group()[1:].strip(b" \t"))
                pos = end
            else:
                break
        if self.launches and self.options.launch_style != "chevron":
            raise Unsure("launch rewrite")

    def _logical_end(self, start: int) -> int:
        m = _LINE_END.search(self.data, start)
        return m.start() if m else len(self.data)

    def _directive(self, start: int, head_end: int, name: bytes) -> int:
        """Record one directive line (``start``: its line start); returns where code scanning may resume."""
        data = self.data
        end = self._logical_end(head_end)
        self.pp_starts.append(start)
        self.pp_ends.append(end)
        if name in (b"if", b"elif", b"ifdef", b"ifndef", b"elifdef", b"elifndef", b"else", b"endif", b""):
            self.code_pp.append((head_end, end))
            return head_end  # the condition is code (comments in it are scanned as usual)
        if name == b"include":
            pm = _INCLUDE_PATH.match(data, head_end)
            if pm is None:
                self.code_pp.append((head_end, end))  # a macro include: the name is an identifier
                return head_end
            self.includes.append((pm.start(1), pm.end(1)))
            self._skip(pm.start(1), pm.end(1))
            return pm.end(1)
        # preproc_def / preproc_function_def / preproc_call: the body is preproc_arg text
        body_from = head_end
        if name == b"define":
            dm = _DEFINE_HEAD.match(data, head_end)
            if dm is None:
                raise Unsure("odd #define")
            self._skip(dm.start(1), dm.end(1))  # the name being defined
            if dm.group(2) is not None:
                self.code_pp.append((dm.start(2), dm.end(2)))  # parameters are identifiers
            body_from = dm.end()
        j = body_from
        while j < end and data[j] in b" \t\f\v":
            j += 1
        line = data[start:end]
        if b"/*" in line or line.rstrip().endswith(b"/"):
            raise Unsure("block comment in a directive")
        body_end = end
        if body_end > j and data[body_end - 1] == 13:  # a CR before the newline is not part of the argument
            body_end -= 1
        if j < body_end:
            self._skip(j, end)
            self.macro_bodies.append((j, body_end))
            if name == b"define" and dm is not None and dm.group(2) is None:
                self.define_values[dm.group(1).decode()] = data[j:body_end].decode("utf-8", "replace")
        else:
            self._skip(head_end if name != b"define" else body_from, end)
        return end

    # -- context of one occurrence ------------------------------------------------------------------------
    def in_skip(self, pos: int) -> bool:
        i = bisect_right(self.skip_starts, pos) - 1
        return i >= 0 and pos < self.skip_ends[i]

    def in_code_pp(self, pos: int) -> bool:
        for a, b in self.code_pp:
            if a <= pos < b:
                return True
        return False

    def pp_of(self, pos: int) -> int:
        i = bisect_right(self.pp_starts, pos) - 1
        return i if i >= 0 and pos < self.pp_ends[i] else -1

    def prev(self, pos: int) -> int:
        """Index of the last significant byte before ``pos`` (-1 at the start; -2 across a directive line)."""
        data = self.data
        j = pos - 1
        here = self.pp_of(pos)
        while j >= 0:
            c = data[j]
            if c in _WS:
                j -= 1
                continue
            if c == 92 and j + 1 < len(data) and data[j + 1] in b"\r\n":  # line continuation
                j -= 1
                continue
            i = bisect_right(self.comment_starts, j) - 1
            if i >= 0 and j < self.comment_ends[i]:
                j = self.comment_starts[i] - 1
                continue
            if self.pp_of(j) != here:
                return -2
            return j
        return -1

    def next(self, pos: int) -> int:
        data = self.data
        n = len(data)
        j = pos
        here = self.pp_of(pos)
        while j < n:
            c = data[j]
            if c in _WS or (c == 92 and j + 1 < n and data[j + 1] in b"\r\n"):
                if c == 10 and here >= 0 and j >= self.pp_ends[here]:
                    return -2
                j += 1
                continue
            if c == 47 and j + 1 < n and data[j + 1] in b"/*":
                i = bisect_right(self.comment_starts, j) - 1
                if i >= 0 and self.comment_starts[i] == j:
                    j = self.comment_ends[i]
                    continue
            if here < 0 and self.pp_of(j) >= 0:
                return -2
            return j
        return -1

    def word_before(self, j: int) -> tuple[int, bytes]:
        """The identifier ending at index ``j`` (inclusive): (start, word)."""
        i = j
        while i > 0 and _WORD[self.data[i - 1]]:
            i -= 1
        return i, self.data[i:j + 1]

    def word_at(self, j: int) -> bytes:
        data = self.data
        k = j
        while k < len(data) and _WORD[data[k]]:
            k += 1
        return data[j:k]

    def prev_token(self, pos: int) -> tuple[int, bytes]:
        """(index, token) before ``pos``: an identifier, ``::``, ``->``, ``...`` or one byte; (-1, b'') at a
        boundary (file start, another directive line)."""
        j = self.prev(pos)
        if j < 0:
            return j, b""
        data = self.data
        c = data[j]
        if _WORD[c]:
            i, w = self.word_before(j)
            if w[:1].isdigit():
                return i, b"0"
            return i, w
        two = data[j - 1:j + 1] if j > 0 else b""
        if two in (b"::", b"->", b"&&"):
            if two == b"->" or data[j - 2:j + 1] != b":::":
                return j - 1, two
        if two == b".." and data[j - 2:j + 1] == b"...":
            return j - 2, b"..."
        return j, bytes([c])

    def next_token(self, pos: int) -> tuple[int, bytes]:
        j = self.next(pos)
        if j < 0:
            return j, b""
        data = self.data
        c = data[j]
        if _WORD[c]:
            w = self.word_at(j)
            return j, (b"0" if w[:1].isdigit() else w)
        two = data[j:j + 2]
        if two in (b"::", b"->", b"&&"):
            return j, two
        return j, bytes([c])

    def opener(self, pos: int) -> int:
        """The byte of the innermost unclosed ``(``/``[``/``{`` before ``pos`` (0 at file level)."""
        at = self.opener_at(pos)
        return self.data[at] if at >= 0 else 0

    def opener_at(self, pos: int) -> int:
        """Index of the innermost unclosed ``(``/``[``/``{`` before ``pos`` (-1 at file level). Brackets in
        comments, literals and directive bodies do not count; a closer matches the nearest open bracket of any
        kind (what a backward count would find)."""
        if self._bracket_pos is None:
            data = self.data
            in_skip = self.in_skip
            stack: list[int] = []
            bpos: list[int] = []
            tops: list[int] = []
            for m in _BRACKETS.finditer(data):
                j = m.start()
                if in_skip(j):
                    continue
                if data[j] in b"([{":
                    stack.append(j)
                elif stack:
                    stack.pop()
                bpos.append(j)
                tops.append(stack[-1] if stack else -1)
            self._bracket_pos, self._bracket_top = bpos, tops
        i = bisect_left(self._bracket_pos, pos) - 1
        return self._bracket_top[i] if i >= 0 else -1

    def scope_of(self, pos: int) -> str:
        """``namespace`` (file level or a namespace's braces), ``body`` (the braces after ``)`` — a function
        or statement body) or ``other`` for the code at ``pos``."""
        at = self.opener_at(pos)
        if at < 0:
            return "namespace"
        if self.data[at] != 123:  # {
            return "other"
        j, t = self.prev_token(at)
        if t == b")" or t in _BODY_AFTER:
            return "body"
        while t and (_WORD[t[0]] and t not in _KEYWORDS or t == b"::"):
            j, t = self.prev_token(j)
        return "namespace" if t == b"namespace" else "other"

    def match_angle(self, j: int) -> int:
        """Index just past the ``>`` closing the ``<`` at ``j``; raises Unsure when it does not close."""
        data = self.data
        depth = 0
        stack: list[int] = []
        n = len(data)
        while j < n:
            if self.in_skip(j):
                i = bisect_right(self.skip_starts, j) - 1
                j = self.skip_ends[i]
                continue
            c = data[j]
            if c == 60:  # <
                depth += 1
            elif c == 62:  # >
                if not (j > 0 and data[j - 1] == 45):  # not ->
                    depth -= 1
                    if depth == 0 and not stack:
                        return j + 1
            elif c in b"([{":
                if c == 40 and not stack:
                    raise Unsure("parenthesis in template arguments")  # tree-sitter often reads these as "<"
                stack.append(c)
            elif c in b")]}":
                if not stack:
                    raise Unsure("template brackets")
                stack.pop()
            elif c == 59 or (c == 35 and self.pp_of(j) >= 0):
                raise Unsure("template brackets")
            j += 1
        raise Unsure("template brackets")

    # -- the passes (same order and code as the tree path) ---------------------------------------------------
    def run_lexical(self) -> None:
        self.scan()
        for name, value in self.define_values.items():  # the tree collects #define masks before any call
            if self.safe.is_full_mask(value):
                self.full_mask_names.add(name)
        data = self.data
        cands = self.cands
        warp_names = cands.warp
        toks = sorted(cands.ids | cands.quals | warp_names)
        chains: dict[int, tuple[list[tuple[int, int]], list[str], list[bool], int]] = {}
        ids: dict[int, tuple[int, str]] = {}
        calls: list[tuple[int, int, str]] = []
        asm_at: list[int] = []
        for tok in toks:
            n = len(tok)
            for s in occurrences(data, tok):
                if self.in_skip(s):
                    continue
                e = s + n
                in_pp = self.pp_of(s) >= 0
                if in_pp and not self.in_code_pp(s):
                    continue
                ptok_at, ptok = self.prev_token(s)
                if ptok in (b".", b"->"):
                    continue  # a member: field_identifier in the tree
                ntok_at, ntok = self.next_token(e)
                if ptok == b"::" or ntok == b"::" or (ntok == b"<" and not in_pp and self._template_then_scope(ntok_at)):
                    self._chain(s, e, chains, ids)
                    continue
                if ptok == b"namespace":
                    _, pp = self.prev_token(ptok_at)
                    if pp != b"using":
                        continue  # a namespace being defined
                is_id = tok in cands.ids
                is_warp = tok in warp_names
                if not (is_id or is_warp):
                    continue
                if not in_pp:
                    self._at = s
                    self._check_use(ptok, ntok, tok)
                if is_warp and ntok == b"(":
                    calls.append((s, ntok_at, tok.decode()))
                    continue
                if is_id:
                    ids[s] = (e, tok.decode())
        if self._after_template:
            covered = {a for segs, *_ in chains.values() for a, _ in segs}
            for s in self._after_template:
                if s not in covered:
                    self._after_template_name(s, ids)
        if cands.asm:
            for tok in (b"asm", b"__asm__", b"__asm"):
                for s in occurrences(data, tok):
                    if self.in_skip(s) or self.pp_of(s) >= 0:
                        continue
                    j, t = self.next_token(s + len(tok))
                    while t in _ASM_QUALIFIERS:
                        j, t = self.next_token(j + len(t))
                    if t != b"(":
                        raise Unsure("asm")
                    asm_at.append(s)
        # unknown-status names: the tree skips the file's own functions; every occurrence was checked above
        # (a declarator position is Unsure), so none of them is declared here
        for start, end in self.includes:
            self._include_span(start, end)
        for s, paren, name in sorted(calls):
            self._lex_call(s, paren, name)
        for s in self.launches:
            if self.in_skip(s) or self.pp_of(s) >= 0:
                continue
            line, col = self.point(s)
            self.record("<<<>>>", None, line + 1, col, True, kind="launch", hip_name="<<<>>>", status="mapped",
                        library="runtime")
        for s in sorted(asm_at):
            line, col = self.point(s)
            self.record("asm", None, line + 1, col, False, kind="asm", status="unsupported", library="device")
        for key in sorted(chains):
            self._lex_qualified(*chains[key])
        for s in sorted(ids):
            if s in self.consumed:
                continue
            e, name = ids[s]
            self._lex_identifier(s, e, name)
        for start, end in self.macro_bodies:
            self._macro_body(_Span(start, end))

    def _after_template_name(self, s: int, ids: dict) -> None:
        """A candidate after ``x<…>::`` whose chain no candidate heads: the tree resolves it on its own (an
        ``identifier``/``type_identifier``; a scope segment is not resolved), since no segment of the chain
        can start a mapped qualified name. Unsure when the chain cannot be walked back to its head."""
        j, t = self.prev_token(s)  # ``::``
        while t == b"::":
            j, t = self.prev_token(j)
            if t == b">":
                j = self._angle_back(j)
                j, t = self.prev_token(j)
            if not t or not _WORD[t[0]] or t in _KEYWORDS or t == b"0":
                raise Unsure("template scope before a candidate")
            if t in self.cands.quals:
                raise Unsure("template scope before a candidate")
            j, t = self.prev_token(j)
        tok = self.word_at(s)
        _, nt = self.next_token(s + len(tok))
        if nt != b"::" and tok in self.cands.ids:
            ids[s] = (s + len(tok), tok.decode())

    def _angle_back(self, gt: int) -> int:
        """Index of the ``<`` that the ``>`` at ``gt`` closes, walking back; Unsure when unclear."""
        data = self.data
        depth = 0
        parens = 0
        j = gt
        while j >= 0:
            if self.in_skip(j):
                i = bisect_right(self.skip_starts, j) - 1
                j = self.skip_starts[i] - 1
                continue
            c = data[j]
            if c == 62 and not (j > 0 and data[j - 1] == 45):  # > (not ->)
                if not parens:
                    depth += 1
            elif c == 60:  # <
                if not parens:
                    depth -= 1
                    if depth == 0:
                        return j
            elif c in b")]":
                parens += 1
            elif c in b"([":
                if not parens:
                    raise Unsure("template scope before a candidate")
                parens -= 1
            elif c in b";{}#":
                raise Unsure("template scope before a candidate")
            j -= 1
        raise Unsure("template scope before a candidate")

    def _template_then_scope(self, lt: int) -> bool:
        j = self.match_angle(lt)
        _, t = self.next_token(j)
        return t == b"::"

    def _check_use(self, ptok: bytes, ntok: bytes, tok: bytes) -> None:
        """Unsure unless the occurrence is surely a use (identifier/type), not a declared name or label."""
        if ptok in _USE_AFTER:
            return
        next_is_name = bool(ntok) and _WORD[ntok[0]] and ntok != b"0"
        if ptok == b"," and ntok in (b",", b";", b"=", b"[", b"{", b":") and self.opener(self._at) != 40:
            raise Unsure("declarator list")  # ``float x1, y1;``: in a class body these are members
        if ptok in (b"", b"(", b",", b"=", b";", b"{", b"}", b"[", b"?", b"!", b"~", b"+", b"-", b"/", b"%", b"^",
                    b"|", b"<", b"..."):
            if ntok == b":" and ptok in (b"", b";", b"{", b"}"):
                raise Unsure("label")
            return
        if ptok == b":":
            if ntok in (b"(", b"{"):
                raise Unsure("initializer or conditional")
            return
        if ptok in _SPECIFIERS or ptok in (b"*", b"&", b"&&", b">", b")", b"]") or (ptok and _WORD[ptok[0]]):
            if next_is_name or ntok in (b"::", b"*", b"&", b"&&", b"<", b">", b"...") and ptok not in (b")", b"]"):
                return
            if ptok in (b")", b"]") and ntok not in _DECL_NEXT and ntok != b"":
                return
            if self._declared_name(ptok, ntok, tok):
                return
            raise Unsure(f"declarator position: {tok!r}")
        raise Unsure(f"context {ptok!r} {tok!r} {ntok!r}")

    def _declared_name(self, ptok: bytes, ntok: bytes, tok: bytes) -> bool:
        """A name being declared (``float acos(float)``, ``T j1 = i1;``) where the tree has it as an
        ``identifier`` all the same: at file or namespace level, or in a function or statement body — not in a
        class body (``field_identifier``) and not a label. Names of unknown status stay Unsure (the tree would
        take a function declared here as the file's own)."""
        if ntok in (b":", b"") or tok in self.cands.warp:
            return False
        if not (ptok in (b"*", b"&", b"&&", b">") or (_WORD[ptok[0]] and (ptok not in _KEYWORDS
                                                                         or ptok in _TYPE_WORDS))):
            return False
        entry = self.lookup(tok.decode())
        if entry is None or entry.status == "unknown":
            return False
        if self.opener(self._at) == 40:
            # inside parentheses every reading names it an ``identifier``: an expression (``x * fabs(y)``) or a
            # parameter's declarator (``unsigned exp)``); a known-status name is recorded the same either way
            return True
        return self.scope_of(self._at) in ("namespace", "body")

    # -- chains ---------------------------------------------------------------------------------------------
    def _chain(self, s: int, e: int, chains: dict, ids: dict) -> None:
        """Assemble the ``a::b<…>::c`` chain around the occurrence at ``s`` (once per chain)."""
        # back to the head
        head = s
        while True:
            ptok_at, ptok = self.prev_token(head)
            if ptok != b"::":
                break
            qat, q = self.prev_token(ptok_at)
            if q == b">":
                # ``a::b<T>::name``: the chain from its head (when one is assembled) holds this segment
                self._after_template.append(s)
                return
            if q and _WORD[q[0]] and q != b"0" and q not in _KEYWORDS:
                head = qat
                continue
            if q == b"template":
                raise Unsure("dependent template name")
            head = ptok_at  # a global ``::``
            break
        if head in chains:
            return
        pt_at, pt = self.prev_token(head)
        if pt in (b".", b"->"):
            raise Unsure("member chain")
        if pt == b"namespace":
            _, pp = self.prev_token(pt_at)
            if pp != b"using":
                return  # nested namespace definition: no qualified_identifier
        if pt == b"=":
            _, p2 = self.prev_token(pt_at)
            if p2 and _WORD[p2[0]]:
                p3_at, p3 = self.prev_token(self.prev_token(pt_at)[0])
                if p3 == b"namespace":
                    return  # namespace alias
        # forward: segments
        data = self.data
        segs: list[tuple[int, int]] = []
        plain: list[bool] = []
        truncated = False
        j = head
        if data[j:j + 2] == b"::":
            j = self.next(j + 2)
        while True:
            w = self.word_at(j) if j >= 0 else b""
            if not w or w in _KEYWORDS or w[:1].isdigit():
                if w == b"template":
                    raise Unsure("dependent template name")
                if not segs:
                    return
                break
            seg_end = j + len(w)
            nat, nt = self.next_token(seg_end)
            is_template = False
            if nt == b"<" and self.pp_of(j) < 0:
                try:
                    close = self.match_angle(nat)
                except Unsure as exc:
                    if not str(exc).startswith("parenthesis"):
                        raise
                    # ``a::b<sizeof(T) == 4>``: the tree may read ``<`` as a comparison; either way the chain
                    # ends here, and it only matters when a prefix of it is a mapped name (checked below)
                    segs.append((j, seg_end))
                    plain.append(False)
                    truncated = True
                    break
                is_template = True
                nat, nt = self.next_token(close)
            segs.append((j, seg_end))
            plain.append(not is_template)
            if nt == b"::":
                j = self.next(nat + 2)
                if j < 0:
                    break
                if data[j] == 126:  # ~destructor
                    raise Unsure("destructor")
                continue
            break
        if not segs:
            return
        names = [data[a:b].decode() for a, b in segs]
        if truncated and any(self.lookup("::".join(names[:k])) is not None for k in range(2, len(names) + 1)):
            raise Unsure("parenthesis in template arguments")
        chains[head] = (segs, names, plain, head)
        # segments the tree sees as identifiers (the last one, template ones) go the identifier way too
        for i, (a, b) in enumerate(segs):
            if (i == len(segs) - 1 or not plain[i]) and data[a:b] in self.cands.ids:
                ids[a] = (b, names[i])

    def _lex_qualified(self, segs: list[tuple[int, int]], names: list[str], plain: list[bool], head: int) -> None:
        for k in range(len(names), 1, -1):
            qname = "::".join(names[:k])
            entry = self.lookup(qname)
            if entry is None:
                continue
            for a, _ in segs[:k]:
                self.consumed.add(a)
            line, col = self.point(head)
            ok = self.replace_chain(qname, entry, names, plain, segs, k)
            self.record(qname, entry, line + 1, col, ok)
            return

    # -- single names ----------------------------------------------------------------------------------------
    def _lex_identifier(self, s: int, e: int, name: str) -> None:
        entry = self.lookup(name)
        if entry is None:
            return
        if entry.status == "unknown" and name in self.local_names:
            return
        line, col = self.point(s)
        ok = bool(entry.hip_name) and entry.has_counterpart
        if ok and entry.hip_name and entry.hip_name != name:
            ok = self.replace(s, e, entry.hip_name)
        self.record(name, entry, line + 1, col, ok)

    def _include_span(self, start: int, end: int) -> None:
        header = self.data[start + 1:end - 1].decode("utf-8", errors="replace")
        entry = self.mapping.lookup_header(header)
        if entry is None:
            return
        line, col = self.point(start)
        ok = bool(entry.hip_name) and entry.has_counterpart
        if ok and entry.hip_name and entry.hip_name != header:
            ok = self.replace(start + 1, end - 1, entry.hip_name)
        self.record(header, entry, line + 1, col + 1, ok, kind="header")

    def _lex_call(self, s: int, paren: int, name: str) -> None:
        text = self.data.decode("latin-1")  # byte offsets = character offsets (the file is ASCII)
        split = split_args(text, paren)
        if split is None:
            raise Unsure("unclosed call")
        spans, close = split
        i = bisect_right(self.comment_starts, close) - 1
        if i >= 0 and self.comment_ends[i] > paren:
            raise Unsure("comment in a warp-sync call")
        for a, b in spans:
            if self.in_skip(a) or self.in_skip(b - 1):
                raise Unsure("literal argument")
        args = [_Span(a, b, self.point(a), "expr") for a, b in spans]
        if args and args[0].end_byte and name in self.safe.warp_sync:
            mask = text[args[0].start_byte:args[0].end_byte]
            if (not self.safe.is_full_mask(mask, self.full_mask_names)
                    and re.fullmatch(r"\(*\s*[A-Za-z_]\w*\s*\)*", mask)
                    and re.search(rb"\b" + re.escape(mask.strip("() \t").encode()) + rb"\s*[={]", self.data)):
                raise Unsure("mask named by a constant")
        if name == self.safe.syncwarp_cuda and len(args) == 1:
            mask = text[args[0].start_byte:args[0].end_byte]
            if (not self.safe.is_full_mask(mask, self.full_mask_names)
                    and re.search(rb"\b" + re.escape(mask.strip("() \t").encode()) + rb"\s*[={]", self.data)):
                raise Unsure("mask named by a constant")
        arglist = _Span(paren, close + 1, self.point(paren), "argument_list", children=args)
        fn = _Span(s, s + len(name), self.point(s), "identifier")
        call = _Span(s, close + 1, self.point(s), "call_expression", {"function": fn, "arguments": arglist})
        if name in self.safe.warp_sync:
            self._warp_sync_call(call, fn, name)
        else:
            self._syncwarp_call(call, fn, name)


def lexical_translate(pf: Any, mapping: Mapping, options: TranslateOptions, cands: Candidates) -> TranslatedFile | None:
    """The file translated without a syntax tree, or None when the tree path must decide (see the module doc)."""
    if not cands.exact_only:
        return None
    lx = _Lexer(pf, mapping, options, cands)
    try:
        lx.run_lexical()
    except Unsure:
        return None
    return lx.result()
