"""setup.py run in the head, once per build: which tree sources each build hands to its extensions.

A setup.py rarely names its sources as plain strings. xformers globs them
(``source_cuda = glob.glob(os.path.join(extensions_dir, "**", "*.cu"), recursive=True)``), takes the HIP sources
out (``list(set(sources) - set(source_hip))``) and adds the CUDA ones only in its CUDA branch
(``sources += source_cuda``), then calls ``extension(name, sorted(sources), …)``. ``setup_sources`` follows that:
every variable holds, per file, the builds in which the file is in it; an assignment under a vendor branch
(``pybranches.branch_sides``) changes the variable only in that branch's build, ``+=`` / ``append`` / ``extend``
add, ``remove`` and set difference take away. What an extension call receives (``sources=`` or the second
positional argument of ``CUDAExtension`` / ``CppExtension`` / ``Extension`` / ``load`` / a name bound to one of them)
is what each build compiles.

Understood: string constants, ``__file__``, ``os.path.curdir``, ``os.path.join/dirname/abspath/realpath``, ``pathlib.Path`` with
``/``, ``.parent``, ``.resolve()``, ``.glob``/``.rglob``, ``glob.glob``, list literals, ``+``, ``set(a) - set(b)``,
``list``/``sorted``/``set``/``str``, and comprehensions that join or ``.replace`` each element or keep those
(not) ``in`` another list. Anything else is
unknown and adds nothing: a file no extension call is seen to receive keeps no build information from here.
Function bodies run where they are defined, in one namespace (setup.py's ``get_extensions()`` idiom).
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from hipgauge.source.conditions import CUDA_ONLY, HIP_ONLY
from hipgauge.source.pybranches import branch_sides, names_hip, test_sides

CUDA, HIP = "cuda", "hip"
ALL = frozenset({CUDA, HIP})
_SIDE = {HIP_ONLY: frozenset({HIP}), CUDA_ONLY: frozenset({CUDA})}
_EXTENSION_CALL = re.compile(r"(?:\w*Extension|extension|load)$")
_MAX_STEPS = 20000  # statements and expressions evaluated; a setup.py past this is left to the string reading


class _Tree(str):
    """A path relative to the tree root (from ``__file__``), not to the script's folder."""


Files = dict[str, frozenset[str]]  # tree path -> the builds in which it is in the value
Resolve = Callable[[str], "str | None"]  # a path through symlinked folders -> the tree path the walk listed


@dataclass
class SetupSources:
    """What a setup.py's extension calls receive, per file: the builds that compile it, and the line of the call."""

    builds: dict[str, frozenset[str]] = field(default_factory=dict)
    where: dict[str, int] = field(default_factory=dict)
    has_hip: bool = False
    #: a source list hipgauge could not follow whole (an unknown operand, a path that is no tree file): the build
    #: may compile files this does not name
    lossy: list[int] = field(default_factory=list)
    #: the builds in which some extension call runs (``{"cuda"}``: every call sits in the CUDA build's branch)
    call_sides: frozenset[str] = frozenset()


class _Run:
    def __init__(self, script: str, text: str, files: frozenset[str], resolve: Resolve | None = None,
                 folder: str | None = None):
        self.folder = posixpath.dirname(script) if folder is None else folder
        self.script = script
        self.text = text
        self.files = files
        self.resolve = resolve
        self.env: dict[str, object] = {}
        self.out = SetupSources()
        self.steps = 0
        self.returns = False  # a builder's ``sources()``: what it returns is what the build compiles

    def known(self, p: str) -> str | None:
        """The tree file a path names (through a symlinked folder: ``contrib/csrc -> apex/contrib/csrc``)."""
        if p in self.files:
            return p
        q = self.resolve(p) if self.resolve is not None else None
        return q if q in self.files else None

    # -- values ---------------------------------------------------------------------------------------------------
    def tree_path(self, s: str) -> str:
        p = s if isinstance(s, _Tree) else posixpath.join(self.folder, s)
        p = posixpath.normpath(p)
        return "" if p == "." else p

    def file_set(self, value: object) -> Files | None:
        """A value as files: a dict already, a path string naming a tree file, a list of either."""
        if isinstance(value, dict):
            return value
        if isinstance(value, str):
            p = self.known(self.tree_path(value))
            return {p: ALL} if p is not None else {}
        if isinstance(value, list):
            out: Files = {}
            for v in value:
                out = _union(out, self.file_set(v) or {})
            return out
        return None

    def glob(self, pattern: str, recursive: bool) -> Files:
        rx = re.compile(_glob_regex(self.tree_path(pattern), recursive))
        return {p: ALL for p in sorted(self.files) if rx.fullmatch(p)}

    def value(self, node: ast.expr | None) -> object:
        self.steps += 1
        if node is None or self.steps > _MAX_STEPS:
            return None
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.Name):
            return _Tree(self.script) if node.id == "__file__" else self.env.get(node.id)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.BinOp):
            left, right = self.value(node.left), self.value(node.right)
            if isinstance(node.op, ast.Div) and isinstance(left, str) and isinstance(right, str):
                return _join(left, right)
            if isinstance(node.op, ast.Add) and isinstance(left, str) and isinstance(right, str):
                return _Tree(left + right) if isinstance(left, _Tree) else left + right
            if isinstance(node.op, (ast.Add, ast.BitOr, ast.Sub)):
                a, b = self.file_set(left), self.file_set(right)
                if a is None or b is None:
                    return None
                if isinstance(node.op, ast.Sub):
                    return {p: s - b.get(p, frozenset()) for p, s in a.items() if s - b.get(p, frozenset())}
                return _union(a, b)
            return None
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.JoinedStr):
            parts: list[str] = []
            for v in node.values:
                got = v.value if isinstance(v, ast.Constant) else (
                    self.value(v.value) if isinstance(v, ast.FormattedValue) and v.conversion == -1
                    and v.format_spec is None else None)
                if not isinstance(got, str):
                    return None
                parts.append(got)
            return "".join(parts)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            return self.env.get(node.attr)  # a class constant (``SRC_DIR = "csrc/adam"``)
        if isinstance(node, ast.Attribute) and node.attr == "curdir":
            return "."  # ``os.path.curdir``: setup.py runs in its own folder
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            base = self.value(node.value)
            return _like(base, posixpath.dirname(base)) if isinstance(base, str) else None
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and len(node.generators) == 1:
            return self.comprehension(node)
        return None

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp) -> object:
        gen = node.generators[0]
        source = self.file_set(self.value(gen.iter))
        if not source or not isinstance(gen.target, ast.Name):
            return None
        for cond in gen.ifs:  # ``[s for s in sources if s not in excluded]``: a difference (``in``: an intersection)
            if not (isinstance(cond, ast.Compare) and len(cond.ops) == 1 and isinstance(cond.ops[0], (ast.In, ast.NotIn))
                    and isinstance(cond.left, ast.Name) and cond.left.id == gen.target.id
                    and isinstance(node.elt, ast.Name) and node.elt.id == gen.target.id):
                return None
            other = self.file_set(self.value(cond.comparators[0]))
            if other is None:
                return None
            if isinstance(cond.ops[0], ast.NotIn):
                source = {p: b - other.get(p, frozenset()) for p, b in source.items() if b - other.get(p, frozenset())}
            else:
                source = {p: b & other[p] for p, b in source.items() if p in other and b & other[p]}
        out: Files = {}
        saved = self.env.get(gen.target.id)
        for p, b in source.items():
            self.env[gen.target.id] = _Tree(p)
            v = self.value(node.elt)
            if isinstance(v, str) and (q := self.known(self.tree_path(v))) is not None:
                out = _union(out, {q: b})
        self.env[gen.target.id] = saved
        return out

    def call(self, node: ast.Call) -> object:
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        args = node.args
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if name == "join" and isinstance(f, ast.Attribute):
            parts = [self.value(a) for a in args]
            if parts and all(isinstance(p, str) for p in parts):
                out = parts[0]
                for p in parts[1:]:
                    out = _join(out, p)  # type: ignore[arg-type]
                return out
            return None
        if name in ("abspath", "realpath", "normpath", "Path", "PurePath", "str", "fspath") and args:
            base = self.value(args[0])
            return base if isinstance(base, str) else None
        if name in ("resolve", "absolute") and isinstance(f, ast.Attribute) and not args:
            base = self.value(f.value)
            return base if isinstance(base, str) else None
        if name == "dirname" and args:
            base = self.value(args[0])
            return _like(base, posixpath.dirname(base)) if isinstance(base, str) else None
        if name in ("glob", "iglob", "rglob") and (args or "pathname" in kw):
            pattern = self.value(args[-1] if args else kw["pathname"])
            if isinstance(f, ast.Attribute) and name in ("glob", "rglob") and isinstance(self.value(f.value), str) \
                    and not (isinstance(f.value, ast.Name) and f.value.id == "glob"):
                base = self.value(f.value)
                if not isinstance(pattern, str) or not isinstance(base, str):
                    return None
                pat = _join(base, ("**/" if name == "rglob" else "") + pattern)
                return self.glob(pat, True)
            rec = kw.get("recursive")
            recursive = isinstance(rec, ast.Constant) and rec.value is True
            return self.glob(pattern, recursive) if isinstance(pattern, str) else None
        if name in ("list", "sorted", "set", "tuple", "frozenset") and len(args) == 1:
            return self.file_set(self.value(args[0]))
        if name == "replace" and isinstance(f, ast.Attribute) and len(args) == 2:
            base, a, b = self.value(f.value), self.value(args[0]), self.value(args[1])
            if isinstance(base, str) and isinstance(a, str) and isinstance(b, str):
                return _like(base, base.replace(a, b))
            return None
        return None

    # -- statements -----------------------------------------------------------------------------------------------
    def run(self, body: list[ast.stmt], sides: frozenset[str], certain: bool) -> None:
        for stmt in body:
            if self.steps > _MAX_STEPS:
                return
            self.steps += 1
            self.statement(stmt, sides, certain)
            for call, narrow in _calls(self.text, stmt):
                if sides & narrow:
                    self.extension_call(call, sides & narrow)
            if isinstance(stmt, ast.If) and not stmt.orelse and stmt.body \
                    and isinstance(stmt.body[-1], (ast.Return, ast.Raise)):
                rest = branch_sides(self.text, stmt)[1]  # ``if <hip>: return …``: the rest is the other build's
                if rest is not None:
                    sides = sides & _SIDE[rest]
                    if not sides:
                        return

    def statement(self, stmt: ast.stmt, sides: frozenset[str], certain: bool) -> None:
        if isinstance(stmt, ast.Return) and self.returns and stmt.value is not None:
            self.received(self.value(stmt.value), sides, stmt.lineno)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            self.assign(stmt.targets[0].id, self.value(stmt.value), sides, certain)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            self.assign(stmt.target.id, self.value(stmt.value), sides, certain)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and isinstance(stmt.op, ast.Add):
            self.add(stmt.target.id, self.value(stmt.value), sides)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Attribute) and isinstance(stmt.value.func.value, ast.Name):
            target, method, args = stmt.value.func.value.id, stmt.value.func.attr, stmt.value.args
            if method in ("append", "extend", "add", "update") and len(args) == 1:
                v = self.value(args[0])
                self.add(target, [v] if method in ("append", "add") else v, sides)
            elif method in ("remove", "discard") and len(args) == 1 and certain:
                gone = self.file_set(self.value(args[0])) or {}
                cur = self.env.get(target)
                if isinstance(cur, dict):
                    self.env[target] = {p: s - sides if p in gone else s for p, s in cur.items()
                                        if (s - sides if p in gone else s)}
        elif isinstance(stmt, ast.If):
            body_side, else_side = branch_sides(self.text, stmt)
            for block, side in ((stmt.body, body_side), (stmt.orelse, else_side)):
                if side is None:
                    self.run(block, sides, False)
                elif sides & _SIDE[side]:
                    self.run(block, sides & _SIDE[side], certain)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.run(stmt.body, sides, certain)  # run where defined: ``get_extensions()`` is called once
        elif isinstance(stmt, (ast.For, ast.While, ast.With, ast.AsyncWith, ast.AsyncFor)):
            self.run(stmt.body, sides, False)
        elif isinstance(stmt, ast.Try):
            self.run(stmt.body, sides, False)
            for h in stmt.handlers:
                self.run(h.body, sides, False)
            self.run(stmt.orelse, sides, False)
            self.run(stmt.finalbody, sides, certain)

    def assign(self, name: str, value: object, sides: frozenset[str], certain: bool) -> None:
        """``name = value`` in the builds ``sides``; outside them (or when the branch may not run) the old value
        stays beside the new one."""
        new = self.file_set(value) if isinstance(value, (dict, list)) else None
        old = self.env.get(name)
        if new is None or not isinstance(old, dict) and old is not None:
            if sides == ALL and certain or old is None:
                self.env[name] = value
            return
        new = {p: s & sides for p, s in new.items() if s & sides}
        if isinstance(old, dict):
            keep = {p: (s if not certain else s - sides) for p, s in old.items()}
            self.env[name] = _union({p: s for p, s in keep.items() if s}, new)
        else:
            self.env[name] = new

    def add(self, name: str, value: object, sides: frozenset[str]) -> None:
        new = self.file_set(value)
        old = self.env.get(name)
        if new is None or not isinstance(old, dict) and old is not None:
            return
        new = {p: s & sides for p, s in new.items() if s & sides}
        self.env[name] = _union(old if isinstance(old, dict) else {}, new)

    def extension_call(self, call: ast.Call, sides: frozenset[str]) -> None:
        f = call.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if not _EXTENSION_CALL.search(name):
            return
        if name.lower().endswith("extension") or any(k.arg == "sources" for k in call.keywords):
            self.out.call_sides |= sides  # not ``json.load(f)``
        arg = next((k.value for k in call.keywords if k.arg == "sources"), None)
        if arg is None and len(call.args) >= 2:
            arg = call.args[1]
        if arg is not None:
            self.received(self.value(arg), sides, call.lineno)

    def received(self, value: object, sides: frozenset[str], line: int) -> None:
        """Files an extension call (or a builder's ``sources()``) receives in the builds ``sides``."""
        got = self.file_set(value)
        if got is None or isinstance(value, list) and any(self.file_set(v) in (None, {}) for v in value):
            self.out.lossy.append(line)
        got = {p: s & sides for p, s in (got or {}).items() if s & sides}
        self.out.builds = _union(self.out.builds, got)
        for p in got:
            self.out.where.setdefault(p, line)


def _calls(text: str, stmt: ast.stmt) -> list[tuple[ast.Call, frozenset[str]]]:
    """The calls of a simple statement (not of the blocks a compound statement holds: those run on their own), each
    with the builds that make it: ``CUDAExtension(…) if torch.version.hip else None`` is the HIP build's call."""
    if isinstance(stmt, (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef,
                         ast.ClassDef, ast.AsyncFor, ast.AsyncWith)):
        return []
    out: list[tuple[ast.Call, frozenset[str]]] = []
    todo: list[tuple[ast.AST, frozenset[str]]] = [(stmt, ALL)]
    while todo:
        node, sides = todo.pop()
        if isinstance(node, ast.IfExp):
            body, orelse = test_sides(text, node.test)
            todo += [(node.test, sides), (node.body, sides & _SIDE[body] if body is not None else sides),
                     (node.orelse, sides & _SIDE[orelse] if orelse is not None else sides)]
            continue
        if isinstance(node, ast.Call):
            out.append((node, sides))
        todo += [(child, sides) for child in ast.iter_child_nodes(node)]
    out.sort(key=lambda c: (c[0].lineno, c[0].col_offset))
    return out


def _glob_regex(pattern: str, recursive: bool) -> str:
    """Python's glob: ``*`` within one folder, ``**/`` any number of folders (zero included) when recursive."""
    out = []
    i = 0
    while i < len(pattern):
        if recursive and pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        c = pattern[i]
        out.append("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c))
        i += 1
    return "".join(out)


def _join(a: str, b: str) -> str:
    return _like(a, posixpath.join(a, b)) if not b.startswith("/") else b


def _like(base: str, s: str) -> str:
    return _Tree(s) if isinstance(base, _Tree) else s


def _union(a: Files, b: Files) -> Files:
    out = dict(a)
    for p, s in b.items():
        out[p] = out.get(p, frozenset()) | s
    return out


def setup_sources(script: str, text: str, files: frozenset[str], resolve: Resolve | None = None,
                  tree: ast.Module | None = None) -> SetupSources | None:
    """Per tree file, the builds whose extension calls receive it (None: not Python, or nothing received). In a
    script with no HIP branch the builds are the CUDA build's only. ``tree``: the script already parsed."""
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    run = _Run(script, text, files, resolve)
    try:
        run.run(tree.body, ALL, True)
    except RecursionError:
        return None
    if not run.out.builds and not run.out.lossy and not run.out.call_sides:
        return None
    run.out.has_hip = any(isinstance(n, (ast.If, ast.IfExp)) and names_hip(ast.get_source_segment(text, n.test) or "")
                          for n in ast.walk(tree))
    if not run.out.has_hip:
        run.out.builds = {p: frozenset({CUDA}) for p in run.out.builds}
    return run.out


def _excludes_hip(text: str, method: ast.FunctionDef) -> bool:
    """``is_compatible`` answers False in the HIP build: ``if self.is_rocm_pytorch(): … return False``."""
    for node in ast.walk(method):
        if isinstance(node, ast.If) and branch_sides(text, node)[0] == HIP_ONLY and any(
                isinstance(r, ast.Return) and isinstance(r.value, ast.Constant) and r.value.value is False
                for r in ast.walk(ast.Module(body=node.body, type_ignores=[]))):
            return True
    return False


def builder_sources(script: str, text: str, files: frozenset[str], resolve: Resolve | None = None
                    ) -> SetupSources | None:
    """An op-builder module (DeepSpeed's and ROCm apex's ``op_builder/*.py``): each class with a ``sources()``
    method builds what that method returns, paths relative to the folder above ``op_builder/``
    (``apex_src_path`` / ``deepspeed_src_path``), under its ``if self.is_rocm_pytorch():`` branches; a class whose
    ``is_compatible()`` returns False in the HIP build is the CUDA build's alone."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out = SetupSources(has_hip=names_hip(text))
    package = posixpath.dirname(posixpath.dirname(script))
    constants: list[ast.stmt] = [s for s in tree.body if isinstance(s, (ast.Assign, ast.AnnAssign))]
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        methods = {m.name: m for m in cls.body if isinstance(m, ast.FunctionDef)}
        if "sources" not in methods:
            continue
        sides = frozenset({CUDA}) if "is_compatible" in methods and _excludes_hip(text, methods["is_compatible"]) \
            else ALL
        run = _Run(script, text, files, resolve, folder=package)
        try:
            run.run(constants + [s for s in cls.body if isinstance(s, (ast.Assign, ast.AnnAssign))], ALL, True)
            run.returns = True
            run.run(methods["sources"].body, sides, True)
        except RecursionError:
            continue
        out.builds = _union(out.builds, run.out.builds)
        for p, line in run.out.where.items():
            out.where.setdefault(p, line)
        out.lossy += run.out.lossy
    return out if out.builds or out.lossy else None
