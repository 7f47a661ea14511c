"""Build scripts (setup.py, CMakeLists.txt) seen as the two builds see them, and setup.py's prose.

* ``vendor_lines``: lines under ``if torch.version.hip:`` / ``if IS_ROCM:`` (HIP build only) and under its
  ``else:`` (CUDA build only), the same classes as ``hipgauge.source.conditions`` gives C preprocessor branches;
  ``cmake_vendor_lines`` the same for CMake's ``if (GGML_HIP)`` / ``else()``;
* ``prose_spans``: docstrings and message strings (help texts, prints, exceptions), which name flags without
  passing them: the build rules must not read them as build settings.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from hipgauge.source.conditions import BOTH, CUDA_ONLY, HIP_ONLY, Visibility

#: a HIP test: ``torch.version.hip``, ``IS_ROCM``, ``self.is_rocm_pytorch()``, ``HIP_BUILD``, ``use_hip``: the word
#: hip or rocm between underscores, dots or the ends of a name
_VENDOR_TEST = re.compile(r"(?i)(?<![a-z0-9])(?:rocm|hip)(?![a-z0-9])")
#: ``torch.version.cuda``: None on a ROCm build of torch, so a test of it is a vendor test the other way round
_CUDA_TEST = re.compile(r"\b(?:\w*\.)?version\.cuda\b")
#: a test that names the CUDA build without deciding it alone
_CUDA_NAMED = re.compile(r"\bversion\.cuda\b|\bCUDA_HOME\b")
#: statements that leave the block: after ``if <vendor test>: return`` the rest of it runs in the other build only
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_MESSAGE_NAME = re.compile(r"(?i)(?:help|msg|message|doc|description|usage|error|warning|note|text)$")
_MESSAGE_CALLS = frozenset({"print", "warn", "warning", "info", "debug", "error", "exception", "RuntimeError",
                            "ValueError", "OSError", "EnvironmentError", "Exception", "SystemExit", "format"})


def _parse(text: str) -> ast.AST | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def names_hip(test: str) -> bool:
    """Whether a test's text names the HIP build (``torch.version.hip``, ``IS_ROCM``, ``is_rocm_pytorch()``)."""
    return _VENDOR_TEST.search(test) is not None


def test_sides(text: str, test: ast.expr) -> tuple[int | None, int | None]:
    """The builds that take an ``if``'s body and its ``else`` (HIP_ONLY, CUDA_ONLY or None: both may).
    ``torch.version.hip`` / ``IS_ROCM`` / ``self.is_rocm_pytorch()`` → (HIP, CUDA); ``torch.version.cuda`` the
    other way round (None on a ROCm torch); ``not`` and ``is None`` swap them; ``A and <vendor>`` decides only
    the body (``isinstance(self, CUDAOpBuilder) and not self.is_rocm_pytorch()``: the CUDA build's), and
    ``A or <vendor>`` only the ``else``. A name the script sets once from such a test is that test (torchao:
    ``use_cuda = torch.version.cuda and CUDA_HOME is not None`` … ``if use_cuda: sources += cuda_sources``)."""
    return _test_sides(text, test, _aliases(text))


#: expressions that are tests (an ``IfExp`` or a dict naming ``rocm_args`` is a value, not a test)
_TEST_NODES = (ast.BoolOp, ast.UnaryOp, ast.Compare, ast.Attribute, ast.Name, ast.Call)


@lru_cache(maxsize=16)
def _aliases(text: str) -> dict[str, tuple[int | None, int | None]]:
    """Names assigned exactly once in the script, from a test that decides a side, in source order (an alias may
    use an earlier one)."""
    tree = _parse(text) if ("hip" in text.lower() or "rocm" in text.lower() or "version.cuda" in text) else None
    if tree is None:
        return {}
    counts: dict[str, int] = {}
    single: list[tuple[int, str, ast.expr]] = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)) else []
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    counts[n.id] = counts.get(n.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            single.append((node.lineno, node.targets[0].id, node.value))
    out: dict[str, tuple[int | None, int | None]] = {}
    for _, name, value in sorted(single, key=lambda x: x[0]):
        if counts.get(name) == 1 and isinstance(value, _TEST_NODES):
            sides = _test_sides(text, value, out)
            if sides != (None, None):
                out[name] = sides
    for _ in range(4):  # a flag set under another flag's branch (``if use_cutlass: cutlass_90a_sources = […]``)
        flags = _set_true_by_cuda(text, tree, out) - set(out)
        if not flags:
            break
        out.update(dict.fromkeys(sorted(flags), (CUDA_ONLY, None)))
    return out


def _set_true_by_cuda(text: str, tree: ast.AST, aliases: dict[str, tuple[int | None, int | None]]) -> set[str]:
    """Names set only in the CUDA build's branches and False (or None) everywhere else (torchao:
    ``use_cutlass = False`` … ``if use_cuda and not IS_WINDOWS: use_cutlass = True``, ``cutlass_90a_sources = None``
    … ``= [...]``): False or None in the HIP build, so ``if use_cutlass:`` and ``if cutlass_90a_sources is not
    None`` are the CUDA build's (their ``else`` either build's: the CUDA build may leave them so)."""
    in_cuda: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            body, orelse = _test_sides(text, node.test, aliases)
            for block, side in ((node.body, body), (node.orelse, orelse)):
                if side == CUDA_ONLY:
                    in_cuda.update(id(n) for stmt in block for n in ast.walk(stmt))
    true_in_cuda: set[str] = set()
    other: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
            other.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
        if not isinstance(node, ast.Assign):
            continue
        names = [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        falsy = isinstance(node.value, ast.Constant) and node.value.value in (False, None)
        if not falsy and id(node) in in_cuda and all(isinstance(t, ast.Name) for t in node.targets):
            true_in_cuda.update(names)
        elif not falsy:
            other.update(names)
    return true_in_cuda - other


def _test_sides(text: str, test: ast.expr, aliases: dict[str, tuple[int | None, int | None]]
                ) -> tuple[int | None, int | None]:
    if isinstance(test, ast.Name) and test.id in aliases and not _VENDOR_TEST.search(test.id):
        return aliases[test.id]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        body, orelse = _test_sides(text, test.operand, aliases)
        return orelse, body
    if isinstance(test, ast.BoolOp):
        sides = [_test_sides(text, v, aliases) for v in test.values]
        if isinstance(test.op, ast.And):
            return next((b for b, _ in sides if b is not None), None), None
        return None, next((e for _, e in sides if e is not None), None)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None and isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
        body, orelse = _test_sides(text, test.left, aliases)
        return (orelse, body) if isinstance(test.ops[0], (ast.Is, ast.Eq)) else (body, orelse)
    if isinstance(test, ast.Name) and test.id in _set_true_by_hip(text):
        return None, CUDA_ONLY  # true in the HIP build; the CUDA build may set it too
    src = ast.get_source_segment(text, test) or ""
    if _VENDOR_TEST.search(src):
        return HIP_ONLY, CUDA_ONLY
    if _CUDA_TEST.search(src):
        return CUDA_ONLY, HIP_ONLY
    return None, None


@lru_cache(maxsize=16)
def _set_true_by_hip(text: str) -> frozenset[str]:
    """Names a HIP branch sets to True (flash-attention's hopper/setup.py: ``if USE_TRITON_ROCM:
    SKIP_CUDA_BUILD = True``): true in the HIP build, so ``if not SKIP_CUDA_BUILD:`` is the CUDA build's."""
    tree = _parse(text) if _VENDOR_TEST.search(text) else None
    if tree is None:
        return frozenset()
    out: set[str] = set()
    for node in ast.walk(tree):
        # a plain HIP test (``if USE_TRITON_ROCM:``, ``if torch.version.hip:``), no negation or ``is None``
        if not isinstance(node, ast.If) or not isinstance(node.test, ast.Name | ast.Attribute | ast.Call) \
                or not _VENDOR_TEST.search(ast.get_source_segment(text, node.test) or ""):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and stmt.value.value is True:
                out.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    return frozenset(out)


def branch_sides(text: str, node: ast.If) -> tuple[int | None, int | None]:
    """``test_sides`` of an ``if``, and one more reading of an ``if``/``elif`` chain: a first branch whose test
    names CUDA (``torch.version.cuda is not None``, ``CUDA_HOME``) but is not decided by it (``(… and
    torch.version.cuda is not None) or FORCE_CUDA``), followed by ``elif <HIP test>``, is the CUDA build's
    (xformers' setup.py)."""
    body, orelse = test_sides(text, node.test)
    if body is None and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) \
            and _CUDA_NAMED.search(ast.get_source_segment(text, node.test) or "") \
            and test_sides(text, node.orelse[0].test)[0] == HIP_ONLY:
        body = CUDA_ONLY
    return body, orelse


def _mark(where: list[int], guard: list[int], stmts: list[ast.stmt], side: int, at: int) -> None:
    for stmt in stmts:
        last = getattr(stmt, "end_lineno", stmt.lineno) or stmt.lineno
        for line in range(stmt.lineno, last + 1):
            if where[line - 1] == BOTH:
                where[line - 1] = side
                guard[line - 1] = at


def vendor_lines(text: str) -> Visibility:
    """Which build runs each line: under ``if torch.version.hip:`` / its ``else:``, and after an early exit
    (``if not torch.version.cuda: return``: the rest of that block runs in the CUDA build only)."""
    n = text.count("\n") + 1
    where = [BOTH] * n
    guard = [0] * n
    low = text.lower()
    tree = _parse(text) if ("hip" in low or "rocm" in low or "version.cuda" in low) else None
    if tree is None:
        return Visibility(where, guard)
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            body, orelse = branch_sides(text, node)
            if body is not None:
                _mark(where, guard, node.body, body, node.lineno)
            if orelse is not None:
                _mark(where, guard, node.orelse, orelse, node.lineno)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for i, stmt in enumerate(block):
                if (isinstance(stmt, ast.If) and not stmt.orelse and stmt.body
                        and isinstance(stmt.body[-1], _EXITS) and (rest := test_sides(text, stmt.test)[1]) is not None):
                    _mark(where, guard, block[i + 1:], rest, stmt.lineno)
                    break
    _one_side_functions(tree, where, guard)
    return Visibility(where, guard, 1)


def _one_side_functions(tree: ast.AST, where: list[int], guard: list[int]) -> None:
    """A module-level function every call of which sits in one build's lines runs in that build only (torchao's
    ``get_cutlass_build_flags()``, called under ``if use_cutlass:``): its body takes that side, until nothing
    changes (a helper called only from such a function)."""
    functions = {f.name: f for f in getattr(tree, "body", []) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if not functions:
        return
    calls: dict[str, list[int]] = {}
    called: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions:
            calls.setdefault(node.func.id, []).append(node.lineno)
            called.add(id(node.func))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in functions and id(node) not in called:
            calls.setdefault(node.id, []).append(-1)  # passed as a value: where it runs is unknown
    for _ in range(4):
        changed = False
        for name, fn in functions.items():
            lines = calls.get(name, [])
            if not lines or -1 in lines or where[fn.lineno - 1] != BOTH:
                continue
            sides = {where[ln - 1] for ln in lines}
            if len(sides) == 1 and (side := sides.pop()) in (CUDA_ONLY, HIP_ONLY):
                _mark(where, guard, [fn], side, lines[0])
                changed = True
        if not changed:
            break


def prose_spans(text: str) -> list[tuple[int, int, int, int]]:
    """(line, col, end_line, end_col) of docstrings and message strings (1-based lines, 0-based char columns)."""
    tree = _parse(text)
    if tree is None:
        return []
    spans: list[tuple[int, int, int, int]] = []

    def add(node: ast.AST) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) or isinstance(node, ast.JoinedStr):
            spans.append((node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset or 0))

    for node in ast.walk(tree):
        if isinstance(node, ast.Expr):
            add(node.value)  # a docstring or a bare string
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            name = t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else ""
            if _MESSAGE_NAME.search(name):
                add(node.value)
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in _MESSAGE_CALLS:
                for a in node.args:
                    add(a)
            for kw in node.keywords:
                if kw.arg and _MESSAGE_NAME.search(kw.arg):
                    add(kw.value)
    return spans


def blank_prose(lines: list[str]) -> list[str]:
    """``lines`` with docstrings and message strings replaced by spaces (columns kept)."""
    text = "\n".join(lines)
    spans = prose_spans(text)
    if not spans:
        return lines
    out = list(lines)
    for line, col, end_line, end_col in spans:
        for ln in range(line, end_line + 1):
            if not 0 < ln <= len(out):
                continue
            s = out[ln - 1]
            a = col if ln == line else 0
            b = end_col if ln == end_line else len(s)
            # ast columns are UTF-8 byte offsets: map them back to characters
            raw = s.encode("utf-8")
            a_c = len(raw[:a].decode("utf-8", "replace"))
            b_c = len(raw[:b].decode("utf-8", "replace"))
            out[ln - 1] = s[:a_c] + " " * (b_c - a_c) + s[b_c:]
    return out


_CMAKE_CMD = re.compile(r"^\s*(if|elseif|else|endif)\s*\((.*)\)?\s*(?:#.*)?$", re.IGNORECASE)
_CMAKE_VENDOR = re.compile(r"(?i)\b\w*(?:HIP|ROCM)\w*\b")


def cmake_vendor_lines(text: str) -> Visibility:
    """CMake's ``if (GGML_HIP)`` / ``else()`` the same way: the HIP branch HIP-only, the others CUDA-only (a
    condition with ``NOT`` swaps them). Nested blocks inherit; conditions that name no vendor decide nothing."""
    lines = text.split("\n")
    where = [BOTH] * len(lines)
    guard = [0] * len(lines)
    if not _CMAKE_VENDOR.search(text):
        return Visibility(where, guard)
    stack: list[tuple[int, int, bool, int]] = []  # (state before, if-line, vendor block, hip branch taken side)
    state, state_guard = BOTH, 0
    for i, line in enumerate(lines, 1):
        m = _CMAKE_CMD.match(line)
        if m is None:
            if state != BOTH:
                where[i - 1], guard[i - 1] = state, state_guard
            continue
        cmd, cond = m.group(1).lower(), m.group(2) or ""
        if cmd == "if":
            vendor = bool(_CMAKE_VENDOR.search(cond)) and state == BOTH
            hip_first = 0 if re.search(r"(?i)\bNOT\b", cond) else 1
            stack.append((state, i, vendor, hip_first))
            if vendor:
                state, state_guard = (HIP_ONLY if hip_first else CUDA_ONLY), i
        elif cmd in ("elseif", "else") and stack:
            _before, at, vendor, first = stack[-1]
            if vendor:
                state, state_guard = (CUDA_ONLY if first else HIP_ONLY), at
        elif cmd == "endif" and stack:
            before, _at, _vendor, _h = stack.pop()
            state = before
            state_guard = next((s[1] for s in reversed(stack) if s[2]), 0)
    return Visibility(where, guard, 1)
