"""Lexical helpers for what tree-sitter does not see: macro bodies, and text outside a clean parse.

Everything works on bytes with byte offsets (the same offsets tree-sitter uses).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

#: a #define with its continuation lines; group 1 name, group 2 parameter list, group 3 body
MACRO_RE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^)\n]*\))?((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)
#: comments, string and character literals (to blank out before a lexical search)
COMMENT_OR_STRING_RE = re.compile(
    rb"//(?:[^\n\\]|\\.)*|/\*.*?(?:\*/|\Z)|\"(?:\\.|[^\"\\\n])*\"?|'(?:\\.|[^'\\\n]){1,8}'", re.S)
INCLUDE_RE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"\n]+)[>\"]", re.M)
_INCLUDE_AT_HASH = re.compile(rb"#[ \t]*include[ \t]*([<\"])([^>\"\n]+)[>\"]")  # literal first byte: fast search
CONST_RE = re.compile(
    rb"\b(?:constexpr|const)[ \t]+(?:static[ \t]+)?(?:(?:unsigned|signed|long|short|int|size_t|std::size_t|"
    rb"u?int(?:8|16|32|64)_t|auto)[ \t]+)+([A-Za-z_]\w*)[ \t]*=[ \t]*([^;{}\n]+);")
IDENT_RE = re.compile(rb"[A-Za-z_]\w*")
SIZEOF_RE = re.compile(r"\bsizeof\s*\(\s*([A-Za-z_][\w:\s]*?)\s*\)")
INT_SUFFIX_RE = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)(?:[uU][lL]{0,2}|[lL]{1,2}[uU]?)\b")

#: bytes of builtin and CUDA vector types (for static shared memory sizes)
TYPE_SIZES: dict[str, int] = {
    "char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1, "char2": 2, "uchar2": 2,
    "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "half": 2, "__half": 2, "__nv_bfloat16": 2,
    "nv_bfloat16": 2, "__half_raw": 2, "char4": 4, "uchar4": 4, "short2": 4, "ushort2": 4,
    "int": 4, "unsigned": 4, "unsigned int": 4, "signed int": 4, "float": 4, "int32_t": 4, "uint32_t": 4,
    "half2": 4, "__half2": 4, "__nv_bfloat162": 4, "nv_bfloat162": 4,
    "long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8, "int64_t": 8, "uint64_t": 8,
    "size_t": 8, "std::size_t": 8, "double": 8, "float2": 8, "int2": 8, "uint2": 8, "short4": 8, "ushort4": 8,
    "float3": 12, "int3": 12, "uint3": 12, "float4": 16, "int4": 16, "uint4": 16, "double2": 16,
    "long2": 16, "longlong2": 16, "ulonglong2": 16, "double4": 32,
}


@dataclass(frozen=True)
class Macro:
    """One ``#define``: name, parameters and where its body lies."""

    name: str
    params: str | None  # "(a, b)" for a function-like macro
    start: int  # byte offset of the '#'
    end: int
    body_start: int


_MACRO_AT_HASH = re.compile(MACRO_RE.pattern.replace(rb"^[ \t]*#", rb"#", 1))  # literal first byte: fast search


def find_macros(data: bytes) -> list[Macro]:
    """The matches of ``MACRO_RE`` (``start`` is the line start, as there), found from the ``#`` bytes."""
    if b"define" not in data:
        return []
    out: list[Macro] = []
    search = _MACRO_AT_HASH.search
    m = search(data)
    while m is not None:
        start = m.start()
        line_start = data.rfind(b"\n", 0, start) + 1
        if line_start == start or not data[line_start:start].strip(b" \t"):
            out.append(Macro(m.group(1).decode("ascii"), m.group(2).decode("latin-1") if m.group(2) else None,
                             line_start, m.end(), m.start(3)))
            m = search(data, m.end())
        else:  # not at a line start: what it spans may still hold a real #define
            m = search(data, start + 1)
    return out


def find_includes(data: bytes) -> list[re.Match[bytes]]:
    """The matches of ``INCLUDE_RE`` (an ``#include`` with only blanks before it on its line), found from the
    ``#`` bytes (groups 1 and 2 are the same; ``start()`` is the ``#``, not the line start)."""
    if b"include" not in data:
        return []
    out = []
    for m in _INCLUDE_AT_HASH.finditer(data):
        start = m.start()
        line_start = data.rfind(b"\n", 0, start) + 1
        if line_start == start or not data[line_start:start].strip(b" \t"):
            out.append(m)
    return out


def blank_comments_and_strings(data: bytes) -> bytes:
    """Same length; comments and string/char literals replaced by spaces (newlines kept)."""
    def repl(m: re.Match[bytes]) -> bytes:
        return re.sub(rb"[^\n]", b" ", m.group(0))
    return COMMENT_OR_STRING_RE.sub(repl, data)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside (), [], {} and <> that look like template brackets."""
    parts: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur).strip()
    if last or parts:
        parts.append(last)
    return parts


def strip_template_args(text: str) -> str:
    """``ns::k<float, 4>`` → ``ns::k``."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip()


@dataclass(frozen=True)
class LexicalLaunch:
    """A ``<<<…>>>`` launch found lexically (inside a macro body)."""

    start: int  # offset of the kernel name
    chevron: int  # offset of '<<<'
    kernel: str | None
    config: list[str]


def chevron_launch_at(data: bytes, pos: int, limit: int | None = None) -> LexicalLaunch | None:
    """Read a ``name<T><<<a, b, c, d>>>`` launch lexically around the ``<<<`` at ``pos``."""
    limit = len(data) if limit is None else limit
    close = data.find(b">>>", pos + 3, limit)
    if close < 0:
        return None
    config = split_top_level(data[pos + 3:close].decode("latin-1").replace("\\\n", " "))
    # walk back over template arguments and the (possibly qualified) name
    i = pos
    while i > 0 and data[i - 1:i] in b" \t":
        i -= 1
    if i > 0 and data[i - 1:i] == b">":
        depth = 0
        j = i - 1
        while j >= 0:
            c = data[j:j + 1]
            if c == b">":
                depth += 1
            elif c == b"<":
                depth -= 1
                if depth == 0:
                    break
            j -= 1
        i = max(j, 0)
    end = i
    while i > 0 and (chr(data[i - 1]).isalnum() or data[i - 1:i] in (b"_", b":")):
        i -= 1
    name = data[i:end].decode("latin-1").strip(":") or None
    return LexicalLaunch(i, pos, name, config)


def call_args_at(data: bytes, pos: int, limit: int | None = None) -> list[str] | None:
    """The top-level arguments of the call whose '(' is the first one at or after ``pos``."""
    limit = len(data) if limit is None else limit
    open_ = data.find(b"(", pos, min(limit, pos + 200))
    if open_ < 0:
        return None
    depth = 0
    for j in range(open_, min(limit, open_ + 20000)):
        c = data[j]
        if c == 40:  # (
            depth += 1
        elif c == 41:  # )
            depth -= 1
            if depth == 0:
                return split_top_level(data[open_ + 1:j].decode("latin-1").replace("\\\n", " "))
    return None


# ---------------------------------------------------------------------------------------------
# Constant folding (array sizes of static shared memory)
# ---------------------------------------------------------------------------------------------

_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv,
            ast.Mod, ast.LShift, ast.RShift, ast.USub, ast.UAdd, ast.BitOr, ast.BitAnd, ast.BitXor, ast.Invert)


def fold_int(expr: str, constants: dict[str, str], depth: int = 0) -> int | None:
    """The integer value of a C constant expression, or None when it does not fold.

    Names resolve through ``constants`` (``#define``/``constexpr`` values as text), ``sizeof`` of builtin
    and CUDA vector types through ``TYPE_SIZES``.
    """
    if depth > 8:
        return None
    text = expr.strip()
    if not text or len(text) > 300:
        return None

    def sizeof(m: re.Match[str]) -> str:
        size = TYPE_SIZES.get(" ".join(m.group(1).split()))
        return str(size) if size is not None else "__unknown__"

    text = SIZEOF_RE.sub(sizeof, text)
    text = INT_SUFFIX_RE.sub(lambda m: m.group(1), text)
    text = re.sub(r"\((?:unsigned|int|size_t|std::size_t|long|unsigned int)\)", "", text)
    text = re.sub(r"\b(?:static_cast|int|unsigned|size_t)\s*<[^<>]*>", "", text)
    out: list[str] = []
    pos = 0
    for m in re.finditer(r"[A-Za-z_][\w:]*", text):
        name = m.group(0)
        if name.startswith("0x") or name.startswith("0X"):
            continue
        value = constants.get(name)
        if value is None:
            return None
        sub = fold_int(value, constants, depth + 1)
        if sub is None:
            return None
        out.append(text[pos:m.start()])
        out.append(f"({sub})")
        pos = m.end()
    out.append(text[pos:])
    text = "".join(out).replace("/", "//").replace("////", "//")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return None
    if not all(isinstance(n, _ALLOWED) for n in ast.walk(tree)):
        return None
    try:
        value = eval(compile(tree, "<fold>", "eval"), {"__builtins__": {}}, {})  # noqa: S307 - whitelisted AST
    except (ArithmeticError, ValueError, TypeError, OverflowError):
        return None
    if not isinstance(value, int) or isinstance(value, bool) or abs(value) > 1 << 40:
        return None
    return value


def file_constants(data: bytes, macros: list[Macro]) -> dict[str, str]:
    """Integer-looking constants of a file: object-like ``#define``s and ``const``/``constexpr`` integers."""
    consts: dict[str, str] = {}
    for mac in macros:
        if mac.params is None:
            raw = COMMENT_OR_STRING_RE.sub(b" ", data[mac.body_start:mac.end])  # bytes regex, bytes replacement
            body = raw.decode("latin-1").replace("\\\n", " ").replace("\\\r\n", " ").strip()
            if body and len(body) < 120:
                consts.setdefault(mac.name, body)
    if b"const" in data:
        for m in CONST_RE.finditer(data):
            consts.setdefault(m.group(1).decode("ascii"), m.group(2).decode("latin-1"))
    return consts
