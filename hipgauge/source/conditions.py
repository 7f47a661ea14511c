"""Which build sees each line: the CUDA build (nvcc) and the HIP build (hipcc for AMD), from the preprocessor
conditions around it.

Only what tells the two builds apart is evaluated: the HIP platform names (``__HIP_PLATFORM_AMD__``,
``__HIPCC__``, ``__HIP__``, ``USE_ROCM``…), the project's own vendor switches (``GGML_USE_HIP``, ``BNB_HIP``:
found by ``hipgauge.source.dualtarget`` or given with ``-D``), ``#define``s the file makes under them and, with an
``include`` hook, what the project headers it includes define (``hipgauge.source.includes``). Every
other name (``__CUDA_ARCH__``, ``__CUDACC__``, ``NDEBUG``…) is *unknown*: a branch it decides may be seen by
either build, so rules about those guards (HG703, HG704) keep their say. Three-valued throughout: a condition is
true, false or unknown per build, and a line is *seen*, *not seen* or *maybe seen* by each build.

``visibility(data, defines)`` gives per line one of ``BOTH`` (shared, or undecided), ``CUDA_ONLY``, ``HIP_ONLY``
or ``NEITHER``, and the line of the directive that decided it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from hipgauge.knowledge.amd_targets import amd_pass_macros

NEITHER, CUDA_ONLY, HIP_ONLY, BOTH = 0, 1, 2, 3
LABEL = {NEITHER: "neither", CUDA_ONLY: "cuda-only", HIP_ONLY: "hip-only", BOTH: "both"}
BUILDS = ("cuda", "hip")

#: value of a name defined with no value or a value not worth knowing (``HIP_VERSION``): defined, value unknown
SOME = "?"

#: name -> (value in the CUDA build, value in the HIP build); None = not defined there, SOME = defined, value unknown
PLATFORM_NAMES: dict[str, tuple[str | None, str | None]] = {
    "__HIP_PLATFORM_AMD__": (None, "1"),
    "__HIP_PLATFORM_HCC__": (None, "1"),  # the pre-ROCm-5 spelling
    "__HIPCC__": (None, "1"),
    "__HIP__": (None, "1"),
    "__HIP_PLATFORM_NVIDIA__": (None, None),  # HIP on NVIDIA: neither build assessed here
    "__HIP_PLATFORM_NVCC__": (None, None),
    "USE_ROCM": (None, "1"),  # PyTorch extensions built for ROCm
    "HIP_VERSION": (None, SOME),
    "HIP_VERSION_MAJOR": (None, SOME),
    "ROCM_VERSION": (None, SOME),
    "TORCH_HIP_VERSION": (None, SOME),
}
#: names only the HIP build may define but whose value there depends on the pass (device or host) and its AMD
#: target: every gfx target's and family's macro (``__gfx950__``, ``__GFX12__``: ``hipgauge/data/amd_targets.toml``)
#: and the per-pass ones
HIP_PASS_NAMES = tuple(sorted({*amd_pass_macros(), "__HIP_ARCH_GFX90A__"}))


@dataclass(frozen=True)
class Defines:
    """What each build defines: name -> value (``SOME``: defined, value unknown); ``undefined``: names a build
    certainly leaves undefined. A name in neither is unknown in that build."""

    cuda: Mapping[str, str] = field(default_factory=dict)
    hip: Mapping[str, str] = field(default_factory=dict)
    cuda_undefined: frozenset[str] = frozenset()
    hip_undefined: frozenset[str] = frozenset()

    @classmethod
    def standard(cls, switches: Mapping[str, str] = {}, hip_options: tuple[str, ...] = (),
                 user: tuple[str, ...] = ()) -> Defines:
        """The platform names, the project's ``switches`` (name -> "hip": defined only in the HIP build;
        "cuda": only in the CUDA build), ``hip_options`` (names that only mean something in the HIP build: not
        defined in the CUDA one, unknown in the HIP one) and ``user`` definitions (``-D``: ``NAME[=V]`` in both
        builds, ``hip:NAME[=V]`` (and undefined in the CUDA build unless a ``cuda:`` item says otherwise), ``cuda:NAME[=V]``,
        ``!NAME``/``hip:!NAME`` undefined)."""
        cuda: dict[str, str] = {}
        hip: dict[str, str] = {}
        cu_undef: set[str] = set()
        hip_undef: set[str] = set()

        def put(build: str, name: str, value: str | None) -> None:
            vals, undef = (cuda, cu_undef) if build == "cuda" else (hip, hip_undef)
            if value is None:
                undef.add(name)
                vals.pop(name, None)
            else:
                vals[name] = value
                undef.discard(name)

        for name, (cv, hv) in PLATFORM_NAMES.items():
            put("cuda", name, cv)
            put("hip", name, hv)
        for name in HIP_PASS_NAMES:
            put("cuda", name, None)
        for name in hip_options:
            put("cuda", name, None)
        for name, side in switches.items():
            other = "cuda" if side == "hip" else "hip"
            put(side, name, "1")
            put(other, name, None)
        parsed = [parse_define(item) for item in user]
        for side, name, value in parsed:  # hip:NAME alone: a switch, so the CUDA build leaves it undefined
            if side != "both" and value is not None:
                put("cuda" if side == "hip" else "hip", name, None)
        for side, name, value in parsed:
            for build in (BUILDS if side == "both" else (side,)):
                put(build, name, value)
        return cls(cuda, hip, frozenset(cu_undef), frozenset(hip_undef))

    @cached_property
    def decided(self) -> tuple[bytes, ...]:
        """Every name some build decides (defined or undefined), as bytes: a file holding none of them (and no
        ``#if 0``) is seen by both builds on every line."""
        names = set(self.cuda) | set(self.hip) | self.cuda_undefined | self.hip_undefined
        return tuple(sorted(n.encode() for n in names))

    def with_undefined(self, cuda: Iterable[str] = (), hip: Iterable[str] = ()) -> Defines:
        """These, plus names each build leaves undefined (a name given a value here keeps it)."""
        cu = frozenset(n for n in cuda if n not in self.cuda)
        hi = frozenset(n for n in hip if n not in self.hip)
        if not cu and not hi:
            return self
        return Defines(self.cuda, self.hip, self.cuda_undefined | cu, self.hip_undefined | hi)

    def for_build(self, build: str) -> tuple[dict[str, str], set[str]]:
        if build == "cuda":
            return dict(self.cuda), set(self.cuda_undefined)
        return dict(self.hip), set(self.hip_undefined)


_DEFINE_ITEM = re.compile(r"^(?:(hip|cuda):)?(!)?([A-Za-z_]\w*)(?:=(.*))?$")


def parse_define(item: str) -> tuple[str, str, str | None]:
    """``hip:NAME=1`` → ("hip", "NAME", "1"); ``NAME`` → ("both", "NAME", "1"); ``cuda:!NAME`` → ("cuda", "NAME",
    None). Raises ValueError with a one-line reason."""
    m = _DEFINE_ITEM.match(item.strip())
    if m is None:
        raise ValueError(f"-D {item!r}: expected NAME[=VALUE], hip:NAME[=VALUE], cuda:NAME[=VALUE] or [hip:|cuda:]!NAME")
    side = m.group(1) or "both"
    if m.group(2):
        return side, m.group(3), None
    value = m.group(4)
    return side, m.group(3), ("1" if value is None or value.strip() == "" else value.strip())


# ---------------------------------------------------------------------------------------------------------------
# Directives
# ---------------------------------------------------------------------------------------------------------------

DIRECTIVE_RE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif|define|undef)\b"
                          rb"((?:[^\n]*\\\r?\n)*[^\n]*)", re.MULTILINE)
_COMMENT_RE = re.compile(r"/\*.*?(?:\*/|$)|//.*", re.DOTALL)


@dataclass(frozen=True)
class Directive:
    """One directive of a file that ``directives`` yields (a conditional, ``#define`` or ``#undef``)."""

    line: int  # 1-based line of the '#'
    last_line: int  # with continuation lines
    kind: str
    text: str  # the rest of the directive, comments removed, continuations joined


def directives(data: bytes) -> Iterator[Directive]:
    """The conditional directives, ``#define`` and ``#undef`` of a file, in order (comment-blind: a directive
    inside a block comment is rare and costs only a wrong guess about one branch)."""
    if b"#" not in data:
        return
    line = 1
    pos = 0
    for m in DIRECTIVE_RE.finditer(data):
        line += data.count(b"\n", pos, m.start())
        pos = m.start()
        body = m.group(2).decode("latin-1").replace("\\\r\n", " ").replace("\\\n", " ")
        text = _COMMENT_RE.sub(" ", body).strip()
        yield Directive(line, line + m.group(0).count(b"\n"), m.group(1).decode("ascii"), text)


# ---------------------------------------------------------------------------------------------------------------
# Conditions: a small three-valued C preprocessor expression evaluator
# ---------------------------------------------------------------------------------------------------------------

_TOKEN_RE = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%()!<>?:&|^~,]))")


class _Unparsable(Exception):
    pass


def evaluate(expr: str, values: Mapping[str, str], undefined: set[str] | frozenset[str], depth: int = 0,
             expanding: frozenset[str] = frozenset()) -> int | None:
    """The value of a ``#if`` expression in one build: an int, or None when it depends on what is unknown. A name
    whose value is an expression of other names (``#define CC_CDNA3 (CC_OFFSET_AMD + 0x942)``) is evaluated too."""
    try:
        tokens = _tokenize(expr)
        parser = _Parser(tokens, values, undefined, depth, expanding)
        value = parser.ternary()
        if parser.i != len(tokens):
            return None
        return value
    except (_Unparsable, RecursionError, ZeroDivisionError, OverflowError):
        return None


@lru_cache(maxsize=4096)
def _tokenize(expr: str) -> tuple[tuple[str, str], ...]:
    """The tokens of a condition (memoised: a tree's headers repeat their conditions; CCCL evaluates 1,900
    distinct ones 51,000 times)."""
    out: list[tuple[str, str]] = []
    pos = 0
    expr = expr.rstrip()
    while pos < len(expr):
        m = _TOKEN_RE.match(expr, pos)
        if m is None or m.end() == pos:
            raise _Unparsable(expr)
        pos = m.end()
        if m.group(1) is not None:
            out.append(("num", str(int(m.group(1), 0))))
        elif m.group(2) is not None:
            out.append(("id", m.group(2)))
        else:
            out.append(("op", m.group(3)))
    return tuple(out)


class _Parser:
    def __init__(self, tokens: tuple[tuple[str, str], ...], values: Mapping[str, str], undefined: set[str] | frozenset[str],
                 depth: int = 0, expanding: frozenset[str] = frozenset()):
        self.depth = depth
        self.expanding = expanding
        self.t = tokens
        self.i = 0
        self.values = values
        self.undefined = undefined

    def peek(self) -> str | None:
        return self.t[self.i][1] if self.i < len(self.t) else None

    def take(self, op: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.t) or (op is not None and self.t[self.i][1] != op):
            raise _Unparsable(op or "end")
        tok = self.t[self.i]
        self.i += 1
        return tok

    def ternary(self) -> int | None:
        cond = self.lor()
        if self.peek() != "?":
            return cond
        self.take("?")
        a = self.ternary()
        self.take(":")
        b = self.ternary()
        if cond is None:
            return a if a == b else None
        return a if cond else b

    def lor(self) -> int | None:
        v = self.land()
        while self.peek() == "||":
            self.take()
            w = self.land()
            v = 1 if (v or w) else (None if v is None or w is None else 0)
        return v

    def land(self) -> int | None:
        v = self.binary(0)
        while self.peek() == "&&":
            self.take()
            w = self.binary(0)
            if v == 0 or w == 0:
                v = 0
            elif v is None or w is None:
                v = None
            else:
                v = 1
        return v

    _LEVELS: tuple[tuple[str, ...], ...] = (("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="),
                                             ("<<", ">>"), ("+", "-"), ("*", "/", "%"))

    def binary(self, level: int) -> int | None:
        if level == len(self._LEVELS):
            return self.unary()
        v = self.binary(level + 1)
        while self.peek() in self._LEVELS[level]:
            op = self.take()[1]
            w = self.binary(level + 1)
            v = None if v is None or w is None else _apply(op, v, w)
        return v

    def unary(self) -> int | None:
        op = self.peek()
        if op in ("!", "-", "+", "~"):
            self.take()
            v = self.unary()
            if v is None:
                return None
            return {"!": int(not v), "-": -v, "+": v, "~": ~v}[op]
        return self.primary()

    def primary(self) -> int | None:
        kind, tok = self.take()
        if kind == "num":
            return int(tok)
        if tok == "(":
            v = self.ternary()
            self.take(")")
            return v
        if kind != "id":
            raise _Unparsable(tok)
        if tok == "defined":
            paren = self.peek() == "("
            if paren:
                self.take("(")
            kind, name = self.take()
            if kind != "id":
                raise _Unparsable(name)
            if paren:
                self.take(")")
            if name in self.values:
                return 1
            return 0 if name in self.undefined else None
        if self.peek() == "(":  # a function-like macro or __has_include(...): unknown
            depth = 0
            while self.i < len(self.t):
                t = self.take()[1]
                if t == "(":
                    depth += 1
                elif t == ")":
                    depth -= 1
                    if depth == 0:
                        break
            return None
        if tok in ("true", "false"):
            return int(tok == "true")
        if tok in self.values:
            val = self.values[tok]
            if val == SOME:
                return None
            m = re.fullmatch(r"\s*\(?\s*(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?\s*", val)
            if m:
                return int(m.group(1), 0)
            if self.depth >= 8 or tok in self.expanding:  # a value made of other macros: evaluated, a few levels
                return None
            return evaluate(val, self.values, self.undefined, self.depth + 1, self.expanding | {tok})
        return 0 if tok in self.undefined else None


def _apply(op: str, a: int, b: int) -> int | None:
    if op in ("/", "%") and b == 0:
        return None
    return {
        "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b, "==": lambda: int(a == b),
        "!=": lambda: int(a != b), "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b),
        ">=": lambda: int(a >= b), "<<": lambda: a << min(b, 64), ">>": lambda: a >> min(b, 64), "+": lambda: a + b,
        "-": lambda: a - b, "*": lambda: a * b, "/": lambda: int(a / b), "%": lambda: a % b,
    }[op]()


# ---------------------------------------------------------------------------------------------------------------
# Lines
# ---------------------------------------------------------------------------------------------------------------

YES, MAYBE, NO = 2, 1, 0
_IF_ZERO = re.compile(rb"#[ \t]*(?:el)?if[ \t]+(?:0|false)\b")


@dataclass
class Visibility:
    """Per line (index ``line - 1``): ``where`` one of BOTH / CUDA_ONLY / HIP_ONLY / NEITHER, ``guard`` the line of
    the conditional directive that opened the branch deciding it (0 when none)."""

    where: list[int]
    guard: list[int]
    conditionals: int = 0  # conditional directives read
    #: lines (index ``line - 1``) whose class rests on a build that only *may* compile them (``#ifdef __gfx942__``
    #: inside the HIP build: some AMD targets only); empty when none
    maybe: set[int] = field(default_factory=set)
    #: the macros each build has at the end of the file, and the names the file (or a header it includes) defined
    #: or undefined there: ``exports`` is made of them when asked
    final: tuple[tuple[dict[str, str], set[str]], ...] = ()
    touched: tuple[set[str], ...] = ()
    #: ``(line, "define" | "undef" | "include", name or include text, cuda seen, hip seen)`` (YES / MAYBE / NO)
    sites: list[tuple[int, str, str, int, int]] = field(default_factory=list)
    #: lines of ``#if``/``#elif`` conditions the HIP build decides (true or false): by a vendor switch, or by what
    #: a project shim defines for it (``#define __CUDA_ARCH__ 1300``): the HIP build's branch there is chosen by
    #: the project, not a silent fallback
    hip_decided: set[int] = field(default_factory=set)

    @property
    def exports(self) -> Exports:
        """What including the file does, per build (cuda, hip): for each name it (or a header it includes) defines
        or undefines, its value at the end, ``None`` (undefined) or ``UNKNOWN``."""
        return self.exported()

    def exported(self, names: frozenset[str] | None = None) -> Exports:
        """``exports``, of ``names`` only (all when None: ``includes.tree_macros`` keeps the names a condition
        reads)."""
        if not self.final:
            return (NO_EXPORTS, NO_EXPORTS)
        touched = self.touched if names is None else (self.touched[0] & names, self.touched[1] & names)
        return (BuildExports.of(self.final[0], touched[0]), BuildExports.of(self.final[1], touched[1]))

    def surely(self, line: int) -> bool:
        """The line's class is certain (no build only *may* compile it)."""
        return line - 1 not in self.maybe

    def at(self, line: int) -> int:
        return self.where[line - 1] if 0 < line <= len(self.where) else BOTH

    def guard_of(self, line: int) -> int:
        return self.guard[line - 1] if 0 < line <= len(self.guard) else 0

    def counts(self) -> dict[str, int]:
        out = {"cuda_only": 0, "hip_only": 0, "neither": 0}
        for w in self.where:
            if w == CUDA_ONLY:
                out["cuda_only"] += 1
            elif w == HIP_ONLY:
                out["hip_only"] += 1
            elif w == NEITHER:
                out["neither"] += 1
        return out

    @property
    def exclusive(self) -> bool:
        return any(w != BOTH for w in self.where)


@dataclass
class _Frame:
    """One open ``#if`` block while the directives are walked: its visibility and its branches so far."""

    parent: tuple[int, int]  # (cuda, hip) visibility of the enclosing region
    done: list[int | None]  # per build: a previous branch certainly taken (1), certainly not (0), maybe (None)
    current: tuple[int, int]
    line: int
    decided: bool  # this branch's visibility differs between the builds because of this frame


def branch_visibility(parent: int, done: int | None, cond: int | None) -> int:
    """Whether a build reads a branch (YES, MAYBE, NO): the enclosing region's ``parent``, whether an earlier branch
    of the same if-chain was taken (``done``: 1, 0, None) and this branch's condition (``cond``: nonzero, 0, None)."""
    if parent == NO or done == 1 or cond == 0:
        return NO
    if cond is None or done is None or parent == MAYBE:
        return MAYBE
    return YES


def branch_done(done: int | None, cond: int | None) -> int | None:
    """Whether some branch of an if-chain has been taken (1, 0, None) after one more with condition ``cond``."""
    if done == 1:
        return 1
    if cond is not None and cond != 0:
        return 1
    if cond == 0:
        return done
    return None


def line_class(cuda: int, hip: int) -> int:
    """The class of a line (NEITHER, CUDA_ONLY, HIP_ONLY, BOTH) from whether each build reads it (YES, MAYBE, NO)."""
    if cuda == NO and hip == NO:
        return NEITHER
    if hip == NO:
        return CUDA_ONLY
    if cuda == NO:
        return HIP_ONLY
    return BOTH


#: what including a header does in one build: name -> value (``SOME``: defined, value unknown), ``None``:
#: undefined, ``UNKNOWN``: may or may not be defined afterwards
UNKNOWN = "\x00unknown"


@dataclass(frozen=True)
class BuildExports(Mapping[str, "str | None"]):
    """What including a header does to one build's macros: name -> value, ``None`` (undefined) or ``UNKNOWN``,
    held by outcome. Applying it to an includer (``_apply_exports``) is then a few dict and set operations, each a
    loop in C, not a Python step per name: a CCCL header carries ~650 names per build through each of 9,000
    include lines."""

    valued: dict[str, str] = field(default_factory=dict)
    undefined: frozenset[str] = frozenset()
    unknown: frozenset[str] = frozenset()

    @classmethod
    def of(cls, build_vals: tuple[dict[str, str], set[str]], names: set[str]) -> BuildExports:
        """The status of ``names`` in one build's macros (``_status``, by sets)."""
        values, undef = build_vals
        valued_names = values.keys() & names
        valued = {n: values[n] for n in valued_names}
        rest = names - valued_names
        undefined = frozenset(rest & undef)
        unknown = rest - undefined
        if UNKNOWN in valued.values():  # only a value spelt like the marker: read as the marker, as _status is
            unknown |= {n for n, v in valued.items() if v == UNKNOWN}
            valued = {n: v for n, v in valued.items() if v != UNKNOWN}
        return cls(valued, undefined, frozenset(unknown))

    def __getitem__(self, name: str) -> str | None:
        if name in self.valued:
            return self.valued[name]
        if name in self.undefined:
            return None
        if name in self.unknown:
            return UNKNOWN
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return name in self.valued or name in self.undefined or name in self.unknown

    def __iter__(self) -> Iterator[str]:
        yield from self.valued
        yield from self.undefined
        yield from self.unknown

    def __len__(self) -> int:
        return len(self.valued) + len(self.undefined) + len(self.unknown)


NO_EXPORTS = BuildExports()
Exports = tuple[BuildExports, BuildExports]
#: resolves the text of an ``#include`` (``"common.cuh"``, ``<vendors/hip.h>``) to what including it does, or None
IncludeHook = Callable[[str], "Exports | None"]
_INCLUDE_RE = re.compile(r'^(?:"([^"]+)"|<([^>]+)>)')


def include_guard(data: bytes) -> str | None:
    """The include-guard name of a header (``#ifndef X_H`` / ``#define X_H`` as its first two directives)."""
    it = directives(data)
    first = next(it, None)
    second = next(it, None)
    if first is None or second is None or second.kind != "define":
        return None
    if first.kind == "ifndef":
        name = first.text.split()[0] if first.text.split() else ""
    elif first.kind == "if":
        m = re.fullmatch(r"!\s*defined\s*\(?\s*([A-Za-z_]\w*)\s*\)?", first.text)
        name = m.group(1) if m else ""
    else:
        return None
    return name if name and second.text.split()[:1] == [name] else None


def visibility(data: bytes, defines: Defines | None = None, *, entry: tuple[int, int] = (YES, YES),
               include: IncludeHook | None = None) -> Visibility:
    """Which build sees each line of ``data`` (see the module docstring).

    ``entry``: whether each build compiles the file at all (``YES``; ``MAYBE``/``NO`` for a header only some
    includes reach, ``hipgauge.source.includes``). ``include``: what an ``#include`` does to the macros of each
    build (a project header's own definitions, applied where each build sees the include line); without it,
    includes are not followed."""
    defines = defines or Defines.standard()
    n_lines = data.count(b"\n") + 1
    where = [BOTH] * n_lines
    guard = [0] * n_lines
    entry = (min(entry[0], YES), min(entry[1], YES))
    base = line_class(*entry)
    if base != BOTH:
        where = [base] * n_lines
    trivial = (b"#" not in data or (not re.search(rb"#[ \t]*(?:if|define|undef)", data)
                                    and not (include is not None and b"include" in data)))
    if trivial or (include is None and base == BOTH and not re.search(rb"#[ \t]*(?:if|define|undef)", data)):
        return Visibility(where, guard, maybe=set(range(n_lines)) if MAYBE in entry and base != BOTH else set())
    if (include is None and base == BOTH and not any(n in data for n in defines.decided)
            and not _IF_ZERO.search(data) and not re.search(rb"#[ \t]*(?:define|undef)", data)):
        return Visibility(where, guard)  # nothing here tells the builds apart
    vals = {b: defines.for_build(b) for b in BUILDS}
    guard_name = include_guard(data)
    if guard_name is not None:
        for b in BUILDS:
            if guard_name not in vals[b][0]:
                vals[b][1].add(guard_name)
    touched: tuple[set[str], set[str]] = (set(), set())
    stack: list[_Frame] = []
    state: tuple[int, int] = entry
    state_guard = 0
    prev_line = 1
    conditionals = 0
    maybe: set[int] = set()
    decided: set[int] = set()
    applied: set[tuple[int, tuple[int, int]]] = set()
    sites: list[tuple[int, str, str, int, int]] = []

    def fill(upto: int) -> None:
        """Lines ``prev_line`` .. ``upto - 1`` get the current state."""
        w = line_class(*state)
        if w != BOTH:
            unsure = MAYBE in state
            for i in range(prev_line - 1, min(upto - 1, n_lines)):
                where[i] = w
                guard[i] = state_guard
                if unsure:
                    maybe.add(i)

    for d in _directives_and_includes(data, include is not None):
        fill(d.line)
        prev_line = d.last_line + 1
        if d.kind == "include":
            sites.append((d.line, "include", d.text, state[0], state[1]))
            if include is not None and (state[0] != NO or state[1] != NO):
                m = _INCLUDE_RE.match(d.text)
                got = include(m.group(1) or m.group(2)) if m else None
                if got is not None and (id(got), state) not in applied:  # a header included again adds nothing
                    applied.add((id(got), state))
                    for i, b in enumerate(BUILDS):
                        _apply_exports(vals[b], got[i], state[i], touched[i])
            _fill_directive(where, guard, d, state, state_guard)
            continue
        if d.kind in ("define", "undef"):
            m = re.match(r"([A-Za-z_]\w*)(\()?\s*(.*)", d.text)
            if m:
                name = m.group(1)
                sites.append((d.line, d.kind, name, state[0], state[1]))
                value = None if d.kind == "undef" else (SOME if m.group(2) else (m.group(3).strip() or SOME))
                for i, b in enumerate(BUILDS):
                    if state[i] != NO:
                        touched[i].add(name)
                    _set(vals[b], name, value, state[i])
                if d.kind == "define" and YES in state and NO in state:
                    # defined only where one build looks (#ifdef __HIPCC__ / #define BNB_HIP): a vendor switch, so
                    # the other build leaves it undefined unless something else said otherwise
                    other = BUILDS[state.index(NO)]
                    values, undef = vals[other]
                    if name not in values:
                        undef.add(name)
            _fill_directive(where, guard, d, state, state_guard)
            if MAYBE in state and line_class(*state) != BOTH:
                maybe.update(range(d.line - 1, min(d.last_line, n_lines)))
            continue
        conditionals += 1
        if d.kind in ("if", "ifdef", "ifndef"):
            conds = [_cond(d, *vals[b]) for b in BUILDS]
            if conds[1] is not None and state[1] != NO:
                decided.update(range(d.line, d.last_line + 1))
            cur = (branch_visibility(state[0], 0, conds[0]), branch_visibility(state[1], 0, conds[1]))
            frame = _Frame(parent=state, done=[branch_done(0, c) for c in conds], current=cur, line=d.line,
                           decided=line_class(*cur) != line_class(*state))
            _fill_directive(where, guard, d, state, state_guard)
            stack.append(frame)
        elif d.kind in ("elif", "elifdef", "elifndef", "else"):
            if not stack:
                continue  # unbalanced: ignore
            frame = stack[-1]
            conds = [1, 1] if d.kind == "else" else [_cond(d, *vals[b]) for b in BUILDS]
            if d.kind != "else" and conds[1] is not None and frame.parent[1] != NO:
                decided.update(range(d.line, d.last_line + 1))
            cur = (branch_visibility(frame.parent[0], frame.done[0], conds[0]), branch_visibility(frame.parent[1], frame.done[1], conds[1]))
            frame.done = [branch_done(frame.done[i], conds[i]) for i in range(2)]
            frame.current = cur
            frame.line = d.line
            frame.decided = line_class(*cur) != line_class(*frame.parent)
            _fill_directive(where, guard, d, frame.parent, _outer_guard(stack[:-1]))
        else:  # endif
            if not stack:
                continue
            frame = stack.pop()
            _fill_directive(where, guard, d, frame.parent, _outer_guard(stack))
        state = stack[-1].current if stack else entry
        state_guard = _outer_guard(stack)
    fill(n_lines + 1)
    return Visibility(where, guard, conditionals, maybe, final=(vals["cuda"], vals["hip"]), touched=touched,
                      sites=sites, hip_decided=decided)


def _status(build_vals: tuple[dict[str, str], set[str]], name: str) -> str | None:
    values, undef = build_vals
    if name in values:
        return values[name]
    return None if name in undef else UNKNOWN


def _set(build_vals: tuple[dict[str, str], set[str]], name: str, value: str | None, seen: int) -> None:
    """``#define name value`` (``value`` None: ``#undef``) where the build sees it ``seen`` (YES / MAYBE / NO)."""
    values, undef = build_vals
    if seen == NO:
        return
    if seen == YES:
        if value is None:
            values.pop(name, None)
            undef.add(name)
        else:
            values[name] = value
            undef.discard(name)
        return
    if _status(build_vals, name) != value:  # maybe changed: unknown afterwards
        values.pop(name, None)
        undef.discard(name)


def _apply_exports(build_vals: tuple[dict[str, str], set[str]], exports: BuildExports, seen: int,
                   touched: set[str]) -> None:
    """Including a header where the build sees the include ``seen`` (YES / MAYBE / NO): each name it exports takes
    its value (YES), or keeps its value only where that is the same (MAYBE, as ``_set``). Names are distinct across
    ``valued``, ``undefined`` and ``unknown``, so each is one set or dict operation."""
    if seen == NO:
        return
    values, undef = build_vals
    valued, gone, unknown = exports.valued, exports.undefined, exports.unknown
    touched.update(valued)
    touched.update(gone)
    touched.update(unknown)
    for name in values.keys() & unknown:
        del values[name]
    undef.difference_update(unknown)
    if seen == YES:  # the common case: a header every build includes
        values.update(valued)
        undef.difference_update(valued)
        for name in values.keys() & gone:
            del values[name]
        undef.update(gone)
        return
    dropped = values.keys() & gone  # undefined there, undefined here: kept; else unknown afterwards
    dropped.update(n for n, v in valued.items() if values.get(n) != v)
    for name in dropped:
        values.pop(name, None)
    undef.difference_update(dropped)


_INCLUDE_LINE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*((?:\"[^\"\n]+\"|<[^>\n]+>))", re.MULTILINE)


def _directives_and_includes(data: bytes, with_includes: bool) -> Iterator[Directive]:
    if not with_includes or b"include" not in data:
        yield from directives(data)
        return
    incs = []
    for m in _INCLUDE_LINE.finditer(data):
        line = data.count(b"\n", 0, m.start()) + 1
        incs.append(Directive(line, line, "include", m.group(1).decode("latin-1")))
    merged = sorted([*directives(data), *incs], key=lambda d: d.line)
    yield from merged


def _outer_guard(stack: list[_Frame]) -> int:
    for frame in reversed(stack):
        if frame.decided:
            return frame.line
    return 0


def _fill_directive(where: list[int], guard: list[int], d: Directive, state: tuple[int, int], g: int) -> None:
    w = line_class(*state)
    if w != BOTH:
        for i in range(d.line - 1, min(d.last_line, len(where))):
            where[i] = w
            guard[i] = g


def _cond(d: Directive, values: Mapping[str, str], undefined: set[str]) -> int | None:
    text = d.text
    if d.kind in ("ifdef", "elifdef"):
        text = f"defined({text.split()[0]})" if text.split() else "0"
    elif d.kind in ("ifndef", "elifndef"):
        text = f"!defined({text.split()[0]})" if text.split() else "0"
    return evaluate(text, values, undefined)


def condition_names(text: str) -> list[str]:
    """The identifiers a condition tests (``defined`` excluded)."""
    return [n for n in re.findall(r"[A-Za-z_]\w*", text) if n != "defined"]
