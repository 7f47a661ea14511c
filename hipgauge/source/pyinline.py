"""CUDA C++ carried in Python string literals: extracted with its positions, as a CUDA file on the .py's lines.

Python projects compile CUDA at run time from strings: ``torch.utils.cpp_extension.load_inline(cuda_sources=…)``,
CuPy ``RawKernel(code, name)`` / ``RawModule(code=…)``, PyCUDA ``SourceModule(source)``, NVRTC through
cuda-python, PyTorch's jiterator. Numba and Triton kernels are Python and are not read here.

What is read: the string literals passed to those APIs (directly, through a name assigned in the same
file, a list/tuple of them, ``+`` concatenation, ``.format``/``%`` templates, ``.encode()``), and any other
string literal that holds ``__global__`` (docstrings aside). How it keeps file:line exact: the fragments are
laid over a copy of the .py bytes where everything else is blanked to spaces (newlines kept), so every
byte of CUDA keeps its line and column; that buffer is parsed and analysed as one CUDA file whose
display name is the .py file. Lexical changes never move a byte: string prefixes and quotes become
spaces; in non-raw strings the escapes ``\\\\ \\" \\' \\n \\t \\r`` become a space and the character (or two
spaces); in f-strings and ``.format`` templates ``{{``/``}}`` become one brace and a space, and
replacement fields ``{…}`` become spaces.

Cost: a .py file is opened and searched for the byte markers below (C-speed); only a file holding one is
parsed with ``ast``. A syntax error is a reason to skip the file, never a traceback.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field

#: byte markers: a .py file holding none of them is not read further
MARKERS = (b"__global__", b"load_inline", b"RawKernel", b"RawModule", b"SourceModule", b"nvrtcCreateProgram",
           b"_create_jit_fn", b"_create_multi_output_jit_fn", b"ElementwiseKernel", b"ReductionKernel",
           b"compile_with_cache", b"cpp_extension", b"CUDAExtension")
#: markers of build settings in a .py (nvcc flags for a JIT or setuptools build): build rules read the file
BUILD_MARKERS = (b"cpp_extension", b"CUDAExtension", b"extra_cuda_cflags", b"TORCH_CUDA_ARCH_LIST", b"nvcc")

#: the APIs whose arguments carry CUDA C++ source: callee name (last attribute) → (positional indexes, keywords).
#: From the APIs' own signatures: torch.utils.cpp_extension.load_inline(name, cpp_sources, cuda_sources, …);
#: cupy.RawKernel(code, name, …); cupy.RawModule(code=…, path=…); cupy.ElementwiseKernel/ReductionKernel(…,
#: preamble=…) (the preamble is whole C++; the operation strings are statement fragments and are left out);
#: cupy.cuda.compile_with_cache(source, …); pycuda.compiler.SourceModule(source, …) and DynamicSourceModule;
#: cuda-python nvrtc.nvrtcCreateProgram(src, name, …); torch.cuda.jiterator._create_jit_fn(code_string, …).
SOURCE_ARGS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "load_inline": ((1, 2), ("cpp_sources", "cuda_sources")),
    "RawKernel": ((0,), ("code",)),
    "RawModule": ((0,), ("code",)),
    "ElementwiseKernel": ((), ("preamble",)),
    "ReductionKernel": ((), ("preamble",)),
    "compile_with_cache": ((0,), ("source",)),
    "SourceModule": ((0,), ("source",)),
    "DynamicSourceModule": ((0,), ("source",)),
    "nvrtcCreateProgram": ((0,), ("src",)),
    "_create_jit_fn": ((0,), ("code_string",)),
    "_create_multi_output_jit_fn": ((0,), ("code_string",)),
}
_RESOLVE_DEPTH = 8
_ESCAPES = {ord("\\"): b" \\", ord('"'): b' "', ord("'"): b" '", ord("n"): b"  ", ord("t"): b"  ", ord("r"): b"  "}


@dataclass
class PythonSource:
    """What the .py file yields: the CUDA buffer (same length and lines as the file), the number of lines the
    fragments cover, the file with the fragments blanked (for build rules), and notes on what was not read."""

    cuda: bytes
    fragments: int
    fragment_lines: int
    build_text: bytes
    notes: list[str] = field(default_factory=list)


class PythonSyntaxError(ValueError):
    """The .py file is not valid Python (the message names the line)."""


def has_markers(data: bytes) -> bool:
    return any(m in data for m in MARKERS)


#: a pytest module (``test_op_builder.py``, ``builder_test.py``, ``conftest.py``): it tests a build, it builds nothing
_TEST_MODULE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test|conftest)\.py$")


def wants_build_rules(data: bytes, name: str = "") -> bool:
    """Whether the build rules read this .py: it sets nvcc flags or builds a torch extension, and is not a test
    module (DeepSpeed's tests/unit/ops/test_op_builder.py asserts on ``-gencode`` strings it never passes)."""
    return not is_test_module(name) and any(m in data for m in BUILD_MARKERS)


def is_test_module(name: str) -> bool:
    """A pytest module by its name (``tests/unit/ops/test_op_builder.py``, ``conftest.py``)."""
    return _TEST_MODULE.search(name) is not None


def decode_python(data: bytes) -> str:
    """The text of a .py file in its declared encoding (PEP 263; UTF-8 by default)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise PythonSyntaxError(f"cannot decode the Python source ({exc.__class__.__name__})") from None
    return text[1:] if text.startswith("\ufeff") else text


def extract(data: bytes) -> PythonSource:
    """The CUDA fragments of a .py file laid over a blank copy of it. Raises ``PythonSyntaxError``."""
    text = decode_python(data)
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise PythonSyntaxError(f"Python syntax error at line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise PythonSyntaxError(f"Python source not parsed ({exc.__class__.__name__})") from None
    src = text.encode("utf-8")
    finder = _Finder(tree)
    starts = [0]
    for b in src.split(b"\n")[:-1]:
        starts.append(starts[-1] + len(b) + 1)
    spans: dict[tuple[int, int], str] = {}  # (start, end) byte span of a literal expression → its style
    for node, style in finder.literals:
        span = _span(node, starts, len(src))
        if span is not None and span not in spans:
            spans[span] = style
    cuda = bytearray(_blank(src))
    build = bytearray(src)
    lines: set[int] = set()
    count = 0
    for (start, end), style in sorted(spans.items()):
        pieces = _pieces(src, start, end)
        for p_start, p_end, raw, is_f in pieces:
            content = _content(src[p_start:p_end], raw, is_f or style == "format")
            cuda[p_start:p_end] = content
            build[p_start:p_end] = _blank(src[p_start:p_end])
            first = src.count(b"\n", 0, p_start)
            lines.update(range(first, first + src.count(b"\n", p_start, p_end) + 1))
        count += 1 if pieces else 0
    return PythonSource(bytes(cuda), count, len(lines), bytes(build), finder.notes)


def _blank(data: bytes) -> bytes:
    """Every byte but newlines as a space."""
    return bytes(b if b == 10 else 32 for b in data)


def _span(node: ast.expr, starts: list[int], size: int) -> tuple[int, int] | None:
    if node.end_lineno is None or node.end_col_offset is None:
        return None
    if not (0 < node.lineno <= len(starts) and 0 < node.end_lineno <= len(starts)):
        return None
    start, end = starts[node.lineno - 1] + node.col_offset, starts[node.end_lineno - 1] + node.end_col_offset
    return (start, end) if 0 <= start < end <= size else None


_PREFIX = frozenset(b"rRbBuUfF")


def _pieces(src: bytes, start: int, end: int) -> list[tuple[int, int, bool, bool]]:
    """The string literals in ``src[start:end]`` (one literal, or several implicitly concatenated):
    ``(start, end, raw, f-string)`` of each, quotes included."""
    out: list[tuple[int, int, bool, bool]] = []
    i = start
    while i < end:
        c = src[i]
        if c in b" \t\r\n\f\\":
            i += 1
            continue
        if c == ord("#"):
            nl = src.find(b"\n", i, end)
            i = end if nl < 0 else nl
            continue
        j = i
        while j < end and src[j] in _PREFIX:
            j += 1
        if j >= end or src[j] not in b"'\"":
            break  # not a literal (something this reader does not follow): stop here
        prefix = src[i:j].lower()
        quote = src[j:j + 3] if src[j:j + 3] in (b"'''", b'"""') else src[j:j + 1]
        raw = b"r" in prefix
        k = j + len(quote)
        while k < end:
            if src[k] == 92:  # backslash: the next byte never closes the literal
                k += 2
                continue
            if src[k:k + len(quote)] == quote:
                break
            k += 1
        k = min(k + len(quote), end)
        out.append((i, k, raw, b"f" in prefix))
        i = k
    return out


def _content(lit: bytes, raw: bool, template: bool) -> bytes:
    """One literal with its prefix and quotes blanked and its escapes/template syntax neutralised, same length."""
    j = 0
    while j < len(lit) and lit[j] in _PREFIX:
        j += 1
    q = 3 if lit[j:j + 3] in (b"'''", b'"""') else 1
    body_start, body_end = j + q, max(j + q, len(lit) - q)
    out = bytearray(b" " * body_start)
    body = lit[body_start:body_end]
    out += body if raw else _unescape(body)
    out += b" " * (len(lit) - body_end)
    if template:
        out[body_start:body_end] = _untemplate(bytes(out[body_start:body_end]))
    return bytes(out)


def _unescape(body: bytes) -> bytes:
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == 92 and i + 1 < n:
            nxt = body[i + 1]
            if nxt == 10:  # line continuation: keep the newline (the line structure is what maps back)
                out += b" \n"
            else:
                out += _ESCAPES.get(nxt, body[i:i + 2])
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out)


def _untemplate(body: bytes) -> bytes:
    """``{{``→``{ ``, ``}}``→``} ``, a replacement field ``{…}`` → spaces (newlines kept)."""
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c in b"{}" and i + 1 < n and body[i + 1] == c:
            out += bytes([c]) + b" "
            i += 2
            continue
        if c == ord("{"):
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {123: 1, 125: -1}.get(body[j], 0)
                j += 1
            out += _blank(body[i:j])
            i = j
            continue
        out.append(c)
        i += 1
    return bytes(out)


class _Finder(ast.NodeVisitor):
    """String-literal expressions that carry CUDA: arguments of ``SOURCE_ARGS`` calls (names resolved through
    the file's assignments) and literals holding ``__global__``."""

    def __init__(self, tree: ast.AST):
        self.literals: list[tuple[ast.expr, str]] = []  # (node, "plain" | "format")
        self.notes: list[str] = []
        self.assigned: dict[str, list[ast.expr]] = {}
        docstrings: set[int] = set()  # ids of docstring constants and of the literal parts of f-strings
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                docstrings.update(id(v) for v in node.values)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                body = getattr(node, "body", [])
                if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                    docstrings.add(id(body[0].value))
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name) \
                    and node.value is not None:
                self.assigned.setdefault(node.target.id, []).append(node.value)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                self.call(node)
            elif (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))
                  and id(node) not in docstrings and _holds_global(node.value)):
                self.literals.append((node, "plain"))
            elif isinstance(node, ast.JoinedStr) and any(
                    isinstance(v, ast.Constant) and _holds_global(v.value) for v in node.values):
                self.literals.append((node, "format"))

    def call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        spec = SOURCE_ARGS.get(name or "")
        if spec is None:
            return
        positions, keywords = spec
        args = [node.args[i] for i in positions if i < len(node.args) and not isinstance(node.args[i], ast.Starred)]
        args += [kw.value for kw in node.keywords if kw.arg in keywords]
        for arg in args:
            if not self.collect(arg, "plain", 0):
                self.notes.append(f"line {node.lineno}: the source passed to {name} is not a string literal "
                                  "of this file; not analysed")

    def collect(self, node: ast.expr, style: str, depth: int) -> bool:
        """Add the literals ``node`` stands for; False when some part is not a literal this reader follows."""
        if depth > _RESOLVE_DEPTH:
            return False
        if isinstance(node, ast.Constant):
            if node.value is None:
                return True  # cuda_sources=None
            if isinstance(node.value, (str, bytes)):
                self.literals.append((node, style))
                return True
            return False
        if isinstance(node, ast.JoinedStr):
            self.literals.append((node, "format"))
            return True
        if isinstance(node, (ast.List, ast.Tuple)):
            return all([self.collect(e, style, depth + 1) for e in node.elts])
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return all([self.collect(node.left, style, depth + 1), self.collect(node.right, style, depth + 1)])
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return self.collect(node.left, style, depth + 1)
        if isinstance(node, ast.Call):
            func = node.func
            attr = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if attr == "format" and isinstance(func, ast.Attribute):
                return self.collect(func.value, "format", depth + 1)
            if attr in ("encode", "dedent", "join") and node.args and not (
                    attr == "encode" and isinstance(func, ast.Attribute)
                    and not (isinstance(func.value, ast.Name) and func.value.id in ("str", "bytes"))):
                return self.collect(node.args[0], style, depth + 1)  # str.encode(s), textwrap.dedent(s), "".join(l)
            if attr in ("encode", "strip", "lstrip", "rstrip") and isinstance(func, ast.Attribute):
                return self.collect(func.value, style, depth + 1)  # s.encode()
            return False
        if isinstance(node, ast.Name):
            values = self.assigned.get(node.id)
            if not values:
                return False
            return all([self.collect(v, style, depth + 1) for v in values])
        return False


def _holds_global(value: object) -> bool:
    if isinstance(value, str):
        return "__global__" in value
    if isinstance(value, bytes):
        return b"__global__" in value
    return False
