"""Which build compiles each file: the tree's build scripts read as the CUDA build and as the HIP build.

A tree that already ships on AMD says in its build which files each vendor's build compiles: CMake per-vendor
source lists (``if(BUILD_CUDA) … list(APPEND SRC_FILES gemm_4bit_sm80.cu) … elseif(BUILD_HIP) …``), a backend
folder whose CMakeLists.txt enables HIP and globs the CUDA backend's sources (ggml's ``ggml-hip``), setup.py
branches (``if torch.version.hip:`` / ``IS_ROCM``). ``build_selection`` reads them twice, once as each build, and
gives per translation unit the builds that compile it (``BuildSelection.builds_for``); headers take the builds of
the units that include them (project ``#include "…"`` followed through the tree).

The CMake reading is a small evaluator, not CMake: ``if/elseif/else/endif`` with three-valued conditions, ``set``,
``list(APPEND|PREPEND|REMOVE_ITEM|FILTER)``, ``file(GLOB|GLOB_RECURSE)``, ``add_subdirectory``, targets
(``add_library``, ``add_executable``, ``target_sources``, ``cuda_add_library``… and the project's own functions
that call them), ``set_source_files_properties(… LANGUAGE HIP)``, ``add_compile_definitions`` /
``add_definitions`` / ``target_compile_definitions``. Only vendor names are decided: ``BUILD_CUDA``,
``GGML_CUDA``, ``USE_ROCM``… (one name per vendor), ``X STREQUAL "cuda"`` / ``"hip"`` (and the same variable
compared with another backend's name: false in both builds), ``CUDAToolkit_FOUND`` in the CUDA build. Every
other condition is *unknown*: what it adds, the build *may* compile (kept, marked ``maybe``, never guessed
away). A file whose build script is not read (no CMake target, no setup.py source names it) has no build
information: ``builds_for`` gives None and the scan treats it as it always has.
"""

from __future__ import annotations

import ast
import os
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from hipgauge.model import Severity
from hipgauge.source.conditions import (BOTH, CUDA_ONLY, HIP_ONLY, MAYBE, NEITHER, NO, YES, Visibility, branch_done,
                                        branch_visibility, line_class)
from hipgauge.source.pybranches import branch_sides, names_hip
from hipgauge.source.pyinline import is_test_module
from hipgauge.source.setup_eval import Resolve, builder_sources, setup_sources
from hipgauge.source.walk import SELECTION_KINDS, kernel_builder_tomls, read_text_bytes
from hipgauge.tomlfile import toml_module

CUDA, HIP = "cuda", "hip"
BUILDS = (CUDA, HIP)

#: a vendor switch: one name per vendor (``GGML_CUDA``, ``BUILD_HIP``, ``USE_ROCM``, ``LLAMA_HIPBLAS``)
_CUDA_SWITCH = re.compile(r"^(?:[A-Za-z][A-Za-z0-9]*_)*(?:USE_|WITH_|ENABLE_|BUILD_)?CUDA$")
_HIP_SWITCH = re.compile(r"^(?:[A-Za-z][A-Za-z0-9]*_)*(?:USE_|WITH_|ENABLE_|BUILD_)?(?:HIP|ROCM|HIPBLAS)$")
#: names only a build of that vendor sets; the other build may set them too (a CUDA toolkit on a ROCm machine)
_CUDA_FOUND = frozenset({"CUDAToolkit_FOUND", "CUDA_FOUND", "CMAKE_CUDA_COMPILER", "CUDA_TOOLKIT_ROOT_DIR"})
_HIP_FOUND = frozenset({"hip_FOUND", "HIP_FOUND", "CMAKE_HIP_COMPILER", "ROCM_FOUND"})
#: another backend's switch (``GGML_SYCL``, ``GGML_MUSA``, ``BUILD_XPU``): off in the CUDA build and in the HIP
#: build as read here (each is a build of its own; a tree that builds one together with CUDA is read as two builds)
_OTHER_BACKEND = re.compile(r"^(?:[A-Za-z][A-Za-z0-9]*_)*(?:USE_|WITH_|ENABLE_|BUILD_)?(?:MUSA|SYCL|METAL|VULKAN|"
                            r"OPENCL|CANN|KOMPUTE|WEBGPU|XPU|MPS|OPENVINO|HEXAGON|ZDNN|VIRTGPU|ET|MLU)$")
#: op-builder folders of other accelerators (DeepSpeed's ``op_builder/xpu/``, ``op_builder/npu/``…): builds of their own
_OTHER_BACKEND_DIRS = frozenset({"cpu", "xpu", "hpu", "npu", "mlu", "sdaa", "supa", "musa", "sycl", "cann", "mps"})
_CUDA_WORDS = frozenset({"cuda"})
_HIP_WORDS = frozenset({"hip", "rocm"})
_TRUE = frozenset({"1", "ON", "YES", "TRUE", "Y"})
_FALSE = frozenset({"0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND", ""})
_UNARY = frozenset({"EXISTS", "COMMAND", "DEFINED", "POLICY", "TARGET", "TEST", "IS_DIRECTORY", "IS_SYMLINK",
                    "IS_ABSOLUTE", "IS_READABLE", "IS_WRITABLE", "IS_EXECUTABLE"})
_BINARY = frozenset({"STREQUAL", "STRLESS", "STRGREATER", "STRLESS_EQUAL", "STRGREATER_EQUAL", "EQUAL", "LESS",
                     "GREATER", "LESS_EQUAL", "GREATER_EQUAL", "VERSION_EQUAL", "VERSION_LESS", "VERSION_GREATER",
                     "VERSION_LESS_EQUAL", "VERSION_GREATER_EQUAL", "MATCHES", "IN_LIST", "IS_NEWER_THAN",
                     "PATH_EQUAL"})
#: CMake commands that make a target of the sources they are given
TARGET_COMMANDS = frozenset({"add_library", "add_executable", "target_sources", "cuda_add_library",
                             "cuda_add_executable", "hip_add_library", "hip_add_executable", "pybind11_add_module",
                             "python_add_library", "nanobind_add_module", "torch_add_library"})
#: commands read here, or known to name no sources to compile (the rest that name sources are "unknown")
_KNOWN = frozenset({"set", "list", "get_hipified_list", "file", "string", "add_subdirectory", "include", "message", "install",
                    "set_source_files_properties", "set_property", "set_target_properties", "source_group",
                    "configure_file", "target_include_directories", "target_link_libraries", "add_custom_command",
                    "add_custom_target", "add_test", "get_filename_component", "target_compile_options",
                    "target_compile_features", "add_dependencies", "option", "cmake_minimum_required",
                    "project", "enable_language", "find_package", "return", "unset", "math", "cmake_parse_arguments",
                    "include_directories", "link_directories", "target_link_options", "execute_process",
                    "get_target_property", "set_directory_properties", "get_property", "separate_arguments"})
_DEFINE_COMMANDS = frozenset({"add_compile_definitions", "add_definitions", "target_compile_definitions"})
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".hip", ".h", ".hpp", ".hh", ".inl")
TU_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".hip")
_HEADER_SUFFIXES = tuple(x for x in SOURCE_SUFFIXES if x not in TU_SUFFIXES)
_FOREACH_MAX = 256  # items a foreach is unrolled for; a longer loop is read once, as maybe
_UNKNOWN = "//unknown"  # an argument hipgauge could not expand, in a function's ARGV
_TREE = "//tree"  # the tree root in expanded paths (``${CMAKE_CURRENT_SOURCE_DIR}``, GLOB results)
_VAR = re.compile(r"\$\{([A-Za-z0-9_.+-]+)\}")
_NESTED_VAR = re.compile(r"(?<=\$\{)[A-Za-z0-9_.+-]*\$\{([A-Za-z0-9_.+-]+)\}")
#: ``#include "x.h"``, and ``#include <fmha/utils.h>`` (a path under an include directory: followed when it names a
#: tree file, by its path suffix; ``<vector>`` and other single names are never tree files here)
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+/[^>\n]+)>)', re.M)


@dataclass(frozen=True)
class UnitBuilds:
    """One file as the builds see it: ``builds`` the builds that compile it (or, for a header, compile a unit that
    includes it); ``maybe`` the builds that compile it only under a condition hipgauge does not decide;
    ``where`` the build-script lines (or including units) that say so."""

    path: str
    builds: frozenset[str]
    maybe: frozenset[str] = frozenset()
    where: tuple[str, ...] = ()
    via: str = "build"  # build: named by a build script; include: included by such a unit

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.path, "builds": sorted(self.builds), "maybe": sorted(self.maybe),
                "where": list(self.where[:5]), "via": self.via}


@dataclass(frozen=True)
class BuildSelection:
    """The tree's source selection per build (see the module docstring)."""

    units: tuple[UnitBuilds, ...] = ()
    #: build-script lines that show a HIP build exists (``elseif(BUILD_HIP)``, ``enable_language(HIP)``, …)
    hip_build: tuple[str, ...] = ()
    cuda_build: tuple[str, ...] = ()
    #: constructs not understood, as "file:line what": their effect on the selection is unknown
    unknown: tuple[str, ...] = ()
    #: per build, compile definitions added where only that build reads them (``add_compile_definitions(BUILD_HIP)``)
    defines: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: per build script, which build reads each line (CUDA_ONLY / HIP_ONLY / NEITHER / BOTH per line)
    lines: tuple[tuple[str, tuple[int, ...]], ...] = ()
    scripts: tuple[str, ...] = ()  # the build scripts read

    def _index(self) -> dict[str, UnitBuilds]:
        cached = self.__dict__.get("_by_path")
        if cached is None:
            cached = {u.path: u for u in self.units}
            object.__setattr__(self, "_by_path", cached)  # a memo on a frozen record, not state
        return cached

    def unit(self, path: str) -> UnitBuilds | None:
        return self._index().get(path)

    def builds_for(self, path: str) -> frozenset[str] | None:
        """The builds that compile ``path`` (a tree path as the scan shows it); None when no build script read
        says anything about it (the caller keeps its own view)."""
        u = self._index().get(path)
        return None if u is None else u.builds

    @property
    def has_hip_build(self) -> bool:
        return bool(self.hip_build)

    def script_visibility(self, path: str) -> Visibility | None:
        """Which build reads each line of a build script, as ``conditions.Visibility``; None when not read."""
        for p, where in self.lines:
            if p == path:
                return Visibility(list(where), [0] * len(where), 1)
        return None

    def to_dict(self) -> dict[str, Any]:
        counts: dict[str, int] = defaultdict(int)
        for u in self.units:
            counts["+".join(sorted(u.builds)) or "none"] += 1
        return {
            "source": "measured: the build scripts read as the CUDA build and as the HIP build "
                      "(hipgauge.source.build_selection); conditions on other names are unknown ('maybe')",
            "scripts": list(self.scripts),
            "hip_build": list(self.hip_build[:10]),
            "cuda_build": list(self.cuda_build[:10]),
            "files_by_builds": dict(sorted(counts.items())),
            "cuda_only_files": sorted(u.path for u in self.units if u.builds == frozenset({CUDA})),
            "unknown": list(self.unknown[:20]),
            "unknown_left_out": max(len(self.unknown) - 20, 0),
            "defines": {b: list(d) for b, d in self.defines},
            "files": [u.to_dict() for u in self.units],
        }


# ---------------------------------------------------------------------------------------------------------------
# CMake: commands
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Arg:
    """One argument of a CMake command, as written (quoted or not)."""

    text: str
    quoted: bool = False


@dataclass(frozen=True)
class Command:
    """One CMake command: its name, arguments and line."""

    name: str  # lower case
    args: tuple[Arg, ...]
    line: int
    end_line: int


def cmake_commands(text: str) -> list[Command]:
    """The commands of a CMake script in order (comments dropped, arguments split as CMake does, bracket and quoted
    arguments kept whole; parentheses inside arguments become their own arguments, as ``if()`` needs them)."""
    out: list[Command] = []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if c in " \t\r":
            i += 1
            continue
        if c == "#":
            i, line = _skip_comment(text, i, line)
            continue
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[ \t]*\(").match(text, i)
        if m is None:  # not a command: skip the line
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        name, start = m.group(0).split("(")[0].strip().lower(), line
        i = m.end()
        args: list[Arg] = []
        depth = 0
        while i < n:
            c = text[i]
            if c == "\n":
                line += 1
                i += 1
            elif c in " \t\r":
                i += 1
            elif c == "#":
                i, line = _skip_comment(text, i, line)
            elif c == "(":
                depth += 1
                args.append(Arg("("))
                i += 1
            elif c == ")":
                i += 1
                if depth == 0:
                    break
                depth -= 1
                args.append(Arg(")"))
            elif c == '"':
                j = i + 1
                buf: list[str] = []
                while j < n and text[j] != '"':
                    if text[j] == "\\" and j + 1 < n:
                        if text[j + 1] == "\n":
                            line += 1
                        buf.append(text[j:j + 2] if text[j + 1] not in '"\\' else text[j + 1])
                        j += 2
                        continue
                    if text[j] == "\n":
                        line += 1
                    buf.append(text[j])
                    j += 1
                args.append(Arg("".join(buf), True))
                i = j + 1
            elif c == "[" and re.match(r"\[=*\[", text[i:i + 10]):
                eq = re.match(r"\[(=*)\[", text[i:i + 10])
                assert eq is not None
                close = "]" + eq.group(1) + "]"
                j = text.find(close, i)
                j = n if j < 0 else j
                body = text[i + len(eq.group(0)):j]
                line += body.count("\n")
                args.append(Arg(body, True))
                i = j + len(close)
            else:
                j = i
                while j < n and text[j] not in ' \t\r\n()#"':
                    j += 2 if text[j] == "\\" else 1
                args.append(Arg(text[i:j]))
                i = j
        out.append(Command(name, tuple(args), start, line))
    return out


def _skip_comment(text: str, i: int, line: int) -> tuple[int, int]:
    m = re.match(r"#\[(=*)\[", text[i:i + 10])
    if m:
        close = "]" + m.group(1) + "]"
        j = text.find(close, i)
        j = len(text) if j < 0 else j + len(close)
    else:
        j = text.find("\n", i)
        j = len(text) if j < 0 else j
    return j, line + text.count("\n", i, j)


# ---------------------------------------------------------------------------------------------------------------
# CMake: one build's reading
# ---------------------------------------------------------------------------------------------------------------

Item = tuple[str, bool]  # (value, sure)


@dataclass
class _Function:
    """A project ``function()`` / ``macro()``: its parameters, its body, the script defining it."""

    params: tuple[str, ...]
    body: list[Command]
    script: str


@dataclass
class _Frame:
    """An open ``if`` (or loop) block of one build's reading."""

    kind: str  # if | loop
    parent: int  # the activity around the block
    done: int | None  # a previous branch certainly taken (1), certainly not (0), maybe (None)
    sets: list[set[str]]  # per branch: the sources it compiles
    acts: list[int] = field(default_factory=list)  # per branch: its activity
    complete: bool = False  # it has an else(): one branch is always taken
    taken: bool = False  # the branch being read is certainly taken whenever the block is reached
    fatal: bool = False  # that branch stops the build (``message(FATAL_ERROR …)``): nothing after the block is read


@dataclass
class _Run:
    """One build's reading of the tree's CMake scripts."""

    build: str
    files: frozenset[str]
    selectors: dict[str, dict[str, str]]  # variable -> build -> its value there
    root: str
    vars: dict[str, list[Item] | None] = field(default_factory=dict)  # None: unknown value
    compiled: dict[str, int] = field(default_factory=dict)  # path -> YES / MAYBE
    where: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    subdirs: dict[str, int] = field(default_factory=dict)  # folder -> activity its add_subdirectory had
    #: folders an add_subdirectory names, wherever it stands (read by this build or not)
    named_subdirs: set[str] = field(default_factory=set)
    defines: set[str] = field(default_factory=set)
    unknown: list[str] = field(default_factory=list)
    line_act: dict[str, list[int]] = field(default_factory=dict)  # script -> activity per line
    bodies: dict[str, _Function] = field(default_factory=dict)  # the project's functions and macros
    frames: list[_Frame] = field(default_factory=list)
    included: dict[str, list[Command]] = field(default_factory=dict)  # the tree's *.cmake scripts, for include()
    lost_subdirs: bool = False  # an add_subdirectory hipgauge could not name
    lost_sources: bool = False  # a target's sources hipgauge could not all name
    #: variables the tree sets once, to a vendor's name, and never otherwise (``_vendor_constants``)
    constants: dict[str, str] = field(default_factory=dict)
    #: "script:line" of the target commands whose source list this build could not evaluate
    lost_at: set[str] = field(default_factory=set)
    #: project name -> its folder (``project(FBGEMM …)``: ``${FBGEMM_SOURCE_DIR}``)
    projects: dict[str, str] = field(default_factory=dict)
    #: the folders of the included scripts being read, innermost last (``CMAKE_CURRENT_LIST_DIR`` in them)
    list_dirs: list[str] = field(default_factory=list)
    #: per function call being read: what its ``set(… PARENT_SCOPE)`` give the caller
    parent_sets: list[dict[str, list[Item] | None]] = field(default_factory=list)

    # -- values -------------------------------------------------------------------------------------------------

    def expand(self, arg: Arg, folder: str) -> list[Item] | None:
        """An argument's items after ``${}`` expansion; None when it names a value hipgauge does not know."""
        text = arg.text
        nested = _NESTED_VAR.search(text)
        if nested is not None:
            # ${${PREFIX}_sources}: the inner name's value makes the outer name; a prefix set in two branches
            # hipgauge cannot decide gives two names, whose values are both possible (not sure)
            inner = self.value(nested.group(1), folder)
            if inner is None:
                return None
            alternatives = [x for x, _s in inner if ";" not in x] if len(inner) <= 4 else []
            if not alternatives:
                return None
            out: list[Item] = []
            for alt in alternatives:
                got = self.expand(Arg(text[:nested.start(1) - 2] + alt + text[nested.end(1) + 1:], arg.quoted), folder)
                if got is None:
                    return None
                out += got if len(alternatives) == 1 and all(s for _x, s in inner) else [(x, False) for x, _s in got]
            return out
        m = _VAR.fullmatch(text)
        if m and not arg.quoted:
            return self.value(m.group(1), folder)
        sure = True
        unknown = False

        def sub(mm: re.Match[str]) -> str:
            nonlocal sure, unknown
            v = self.value(mm.group(1), folder)
            if v is None:
                unknown = True
                return mm.group(0)
            sure = sure and all(s for _x, s in v)
            return ";".join(x for x, _s in v)

        for _depth in range(4):  # ${${PREFIX}_sources}: the inner name first, then the one it makes
            text = _VAR.sub(sub, text)
            if unknown or "${" not in text:
                break
        if unknown:
            return None
        if arg.quoted:
            return [(text, sure)]
        return [(p, sure) for p in text.split(";") if p != ""]

    def value(self, name: str, folder: str) -> list[Item] | None:
        if name == "CMAKE_CURRENT_LIST_DIR" and self.list_dirs:  # in an included script: that script's folder
            return [(_join(_TREE, self.list_dirs[-1]), True)]
        if name in ("CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR"):
            return [(_join(_TREE, folder), True)]
        if name.endswith("_SOURCE_DIR") and name[:-len("_SOURCE_DIR")] in self.projects:
            return [(_join(_TREE, self.projects[name[:-len("_SOURCE_DIR")]]), True)]
        if name.endswith("_SOURCE_DIR") and name not in ("CMAKE_SOURCE_DIR", "PROJECT_SOURCE_DIR") \
                and self.vars.get(name):  # set(FBGEMM_SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}): as set
            return self.vars[name]
        if name in ("CMAKE_SOURCE_DIR", "PROJECT_SOURCE_DIR") or name.endswith("_SOURCE_DIR"):
            return [(_join(_TREE, self.root), True)] if name in ("CMAKE_SOURCE_DIR", "PROJECT_SOURCE_DIR") else None
        if name in self.selectors and self.build in self.selectors[name]:
            return [(self.selectors[name][self.build], True)]  # COMPUTE_BACKEND in the CUDA build: "cuda"
        if name in self.vars:
            return self.vars[name]
        return None

    def args(self, cmd: Command, folder: str, start: int = 0) -> tuple[list[Item], bool]:
        """All items of ``cmd.args[start:]``; the flag says some argument could not be expanded."""
        out: list[Item] = []
        lost = False
        for a in cmd.args[start:]:
            v = self.expand(a, folder)
            if v is None:
                lost = True
                continue
            out.extend(v)
        return out, lost

    # -- conditions ---------------------------------------------------------------------------------------------

    def vendor_of(self, name: str) -> int | None:
        """1 / 0 for a vendor name in this build, None for any other name."""
        if _CUDA_SWITCH.match(name):
            return 1 if self.build == CUDA else 0
        if _HIP_SWITCH.match(name):
            return 1 if self.build == HIP else 0
        if _OTHER_BACKEND.match(name):
            return 0
        if name in _CUDA_FOUND:
            return 1 if self.build == CUDA else None
        if name in _HIP_FOUND:
            return 1 if self.build == HIP else None
        return None

    def atom(self, arg: Arg, folder: str) -> int | None:
        text = arg.text
        m = _VAR.fullmatch(text)
        if m and not arg.quoted:  # if(${X}): X's value, then read as a name (``if(${backend_id})`` → GGML_HIP)
            v = self.value(m.group(1), folder)
            if v is not None and len(v) == 1 and v[0][1] and re.fullmatch(r"[A-Za-z_][\w.+-]*", v[0][0]):
                return self.atom(Arg(v[0][0]), folder)
        name = m.group(1) if m else text
        if arg.quoted and not m:
            return None if _VAR.search(text) else (0 if text.upper() in _FALSE or text.endswith("-NOTFOUND") else None)
        if text.upper() in _TRUE or re.fullmatch(r"[1-9]\d*(?:\.\d+)?", text):
            return 1
        if text.upper() in _FALSE:
            return 0
        vendor = self.vendor_of(name)
        if vendor is not None:
            return vendor
        items = self.vars.get(name)
        if items is not None and items and all(s for _x, s in items):
            val = ";".join(x for x, _s in items)
            return 0 if val.upper() in _FALSE or val.endswith("-NOTFOUND") else 1
        if items is not None and not items and name in self.vars:
            return 0
        return None

    def compare(self, left: Arg, op: str, right: Arg, folder: str) -> int | None:
        if op != "STREQUAL":
            return None
        for var, lit in ((left, right), (right, left)):
            m = _VAR.fullmatch(var.text)
            name = m.group(1) if m else var.text
            word = None
            if (m or not var.quoted) and name in self.selectors and lit.quoted or (m and not lit.quoted):
                word = lit.text.strip().lower()
            elif not var.quoted and name in self.selectors and not lit.quoted and not _VAR.search(lit.text):
                # a bare name on the right is a variable when one is set: FBGEMM_BUILD_VARIANT STREQUAL
                # BUILD_VARIANT_ROCM, with set(BUILD_VARIANT_ROCM "rocm"); else a vendor's name is the word itself
                # (GPU_LANG STREQUAL CUDA); another bare name that no script sets stays unknown
                v = self.value(lit.text, folder)
                if v and len(v) == 1 and v[0][1]:
                    word = v[0][0].strip().lower()
                elif lit.text in self.constants:  # set where this build may not pass: its only value all the same
                    word = self.constants[lit.text].lower()
                elif lit.text.strip().lower() in (_CUDA_WORDS | _HIP_WORDS):
                    word = lit.text.strip().lower()
            if word is not None:
                if word in _CUDA_WORDS:
                    return 1 if self.build == CUDA else 0
                if word in _HIP_WORDS:
                    return 1 if self.build == HIP else 0
                if name in self.selectors and word and not _VAR.search(word):
                    return 0  # another backend's name: neither the CUDA nor the HIP build
        return None

    def condition(self, args: tuple[Arg, ...], folder: str) -> int | None:
        toks = list(args)
        pos = 0

        def peek() -> str | None:
            return None if pos >= len(toks) or toks[pos].quoted else toks[pos].text.upper()

        def or_expr() -> int | None:
            nonlocal pos
            v = and_expr()
            while peek() == "OR":
                pos += 1
                w = and_expr()
                v = 1 if (v == 1 or w == 1) else (None if (v is None or w is None) else 0)
            return v

        def and_expr() -> int | None:
            nonlocal pos
            v = not_expr()
            while peek() == "AND":
                pos += 1
                w = not_expr()
                v = 0 if (v == 0 or w == 0) else (None if (v is None or w is None) else 1)
            return v

        def not_expr() -> int | None:
            nonlocal pos
            if peek() == "NOT":
                pos += 1
                v = not_expr()
                return None if v is None else 1 - v
            return primary()

        def primary() -> int | None:
            nonlocal pos
            if pos >= len(toks):
                return None
            t = toks[pos]
            if not t.quoted and t.text == "(":
                pos += 1
                v = or_expr()
                if pos < len(toks) and toks[pos].text == ")":
                    pos += 1
                return v
            if not t.quoted and t.text.upper() in _UNARY:
                pos += 2
                if t.text.upper() == "DEFINED" and pos - 1 < len(toks):
                    name = toks[pos - 1].text
                    v = self.vendor_of(name)
                    return v if v is not None else (1 if self.vars.get(name) else None)
                return None
            if pos + 2 < len(toks) + 0 and not toks[pos + 1].quoted and toks[pos + 1].text.upper() in _BINARY:
                left, op, right = t, toks[pos + 1].text.upper(), toks[pos + 2]
                pos += 3
                return self.compare(left, op, right, folder)
            pos += 1
            return self.atom(t, folder)

        try:
            v = or_expr()
        except IndexError:
            return None
        return v if pos >= len(toks) else None

    # -- files --------------------------------------------------------------------------------------------------

    def resolve(self, item: str, folder: str) -> str | None:
        """A tree path for a source item (relative to the script's folder, or under ``//tree``)."""
        if not item.lower().endswith(SOURCE_SUFFIXES) or "$" in item or "<" in item:
            return None
        if item.startswith(_TREE):
            p = posixpath.normpath(item[len(_TREE):].lstrip("/"))
        elif item.startswith("/"):
            return None
        else:
            p = posixpath.normpath(posixpath.join(folder, item))
        if p not in self.files and p.endswith(".hip") and p[:-4] + ".cu" in self.files:
            return p[:-4] + ".cu"  # the hipified copy of a tree .cu the build's hipify step writes (faiss's hipify.sh)
        return p if p in self.files else None

    def glob(self, patterns: list[Item], folder: str, recurse: bool, relative: str | None) -> list[Item]:
        out: list[Item] = []
        for pat, sure in patterns:
            base = pat[len(_TREE):].lstrip("/") if pat.startswith(_TREE) else posixpath.join(folder, pat)
            base = posixpath.normpath(base)
            rx = re.compile(_glob_regex(base, recurse))
            for f in sorted(self.files):
                if rx.fullmatch(f):
                    out.append((posixpath.relpath(f, relative) if relative is not None else _join(_TREE, f), sure))
        return out

    def compile_items(self, items: list[Item], folder: str, act: int, where: str) -> None:
        items = [(part, sure) for item, sure in items for part in item.split(";") if part]  # "${SRCS}": a list
        for item, sure in items:
            p = self.resolve(item, folder)
            if p is None:
                continue
            a = YES if (act == YES and sure) else MAYBE
            if sure and self.frames:
                self.frames[-1].sets[-1].add(p)
            if a > self.compiled.get(p, NO):
                self.compiled[p] = a
            if len(self.where[p]) < 3 and where not in self.where[p]:
                self.where[p].append(where)

    # -- the script ---------------------------------------------------------------------------------------------

    def run(self, script: str, text: str, base: int) -> None:
        cmds = cmake_commands(text)
        n_lines = text.count("\n") + 1
        acts = [-1] * n_lines
        self.exec(cmds, posixpath.dirname(script), script, base, acts)
        last = base
        for i, a in enumerate(acts):  # blank and comment lines: the block they sit in
            if a < 0:
                acts[i] = last
            else:
                last = a
        self.line_act[script] = acts

    def exec(self, cmds: list[Command], folder: str, script: str, base: int, acts: list[int] | None,
             depth: int = 0) -> None:
        """Run ``cmds`` with activity ``base`` (YES / MAYBE); ``acts``: per line of ``script``, filled in."""
        stack: list[_Frame] = []
        act = base
        body: list[Command] = []
        nest = 0  # inside a function/macro definition: collected, not run where defined
        defining: Command | None = None

        def mark(cmd: Command, a: int) -> None:
            if acts is not None:
                for ln in range(cmd.line, min(cmd.end_line, len(acts)) + 1):
                    acts[ln - 1] = a

        i = 0
        while i < len(cmds):
            cmd = cmds[i]
            i += 1
            name = cmd.name
            if defining is not None:
                if name in ("function", "macro"):
                    nest += 1
                elif name in ("endfunction", "endmacro"):
                    if nest == 0:
                        if defining.args:
                            self.bodies[defining.args[0].text.lower()] = _Function(
                                tuple(a.text for a in defining.args[1:]), list(body), script)
                        defining, body = None, []
                        continue
                    nest -= 1
                body.append(cmd)
                continue
            mark(cmd, act)
            if name in ("function", "macro"):
                defining = cmd
                continue
            if name == "if":
                cond = self.condition(cmd.args, folder)
                cur = branch_visibility(act, 0, cond)
                stack.append(_Frame("if", act, branch_done(0, cond), [set()], [cur], taken=bool(cond)))
                self.frames.append(stack[-1])
                act = cur
                continue
            if name in ("elseif", "else") and stack and stack[-1].kind == "if":
                fr = stack[-1]
                cond = self.condition(cmd.args, folder) if name == "elseif" else 1
                fr.taken = fr.done == 0 and bool(cond)
                act = branch_visibility(fr.parent, fr.done, cond)
                fr.done = branch_done(fr.done, cond)
                fr.sets.append(set())
                fr.acts.append(act)
                fr.complete = name == "else"
                parent = fr.parent
                mark(cmd, parent)
                continue
            if name in ("endif", "endforeach", "endwhile") and stack:
                fr = stack.pop()
                if self.frames and self.frames[-1] is fr:
                    self.frames.pop()
                act = NO if fr.fatal else fr.parent
                if fr.kind == "if" and fr.complete and act != NO:
                    # every branch compiles these: the build does, whichever branch it takes
                    live = [st for st, a in zip(fr.sets, fr.acts) if a != NO] or [set()]
                    for p in set.intersection(*live):
                        self.compiled[p] = max(self.compiled.get(p, NO), act)
                        if self.frames:
                            self.frames[-1].sets[-1].add(p)
                mark(cmd, act)
                continue
            if name == "foreach" and act != NO and depth < 8:
                end = _block_end(cmds, i - 1, "foreach", "endforeach")
                items = self.foreach_items(cmd.args, folder) if end is not None else None
                if end is not None and items is not None:
                    # a loop over a list hipgauge knows (glob patterns passed to a helper): its body once per item,
                    # with the loop variable set; an item that may not be in the list reads the body as maybe
                    var = cmd.args[0].text
                    for item, sure in items:
                        self.vars[var] = [(item, sure)]
                        self.exec(cmds[i:end], folder, script, act if sure else min(act, MAYBE), acts, depth + 1)
                    mark(cmds[end], act)
                    i = end + 1
                    continue
            if name in ("foreach", "while"):
                cur = min(act, MAYBE)
                stack.append(_Frame("loop", act, None, [set()]))
                self.frames.append(stack[-1])
                if name == "foreach" and cmd.args:
                    self.vars[cmd.args[0].text] = None
                act = cur
                continue
            if name == "add_subdirectory" and cmd.args:
                sub = self.subdir_of(cmd.args[0], folder)
                if sub is not None:
                    self.named_subdirs.add(sub)
            if act == NO:
                continue
            if name == "message" and cmd.args and cmd.args[0].text == "FATAL_ERROR" and stack \
                    and stack[-1].kind == "if" and stack[-1].taken and not defining:
                # this build stops here whenever it reaches the block (``if(NOT VARIANT STREQUAL CUDA)
                # message(FATAL_ERROR …)`` in the HIP build): what follows, to the end of the enclosing block, is
                # never read by it
                stack[-1].fatal = True
                act = NO
                continue
            fn = self.bodies.get(name)
            if fn is not None and depth < 8:
                self.call(cmd, fn, folder, script, act, depth)
                continue
            if name == "include" and cmd.args and depth < 8:
                inc = self.expand(cmd.args[0], folder) or []
                # one script however the value was spelt (``${CMAKEMODULES}`` set as ../cmake/modules in one folder
                # and ../../../cmake/modules in another)
                targets = {posixpath.normpath(_shown(raw) if raw.startswith(_TREE) else posixpath.join(folder, raw))
                           for raw, _s in inc}
                if len(targets) == 1:
                    target, sure_inc = targets.pop(), all(s for _r, s in inc)
                    if target in self.included:  # a script of the tree: read in place
                        self.list_dirs.append(posixpath.dirname(target))  # its CMAKE_CURRENT_LIST_DIR
                        try:
                            self.exec(self.included[target], folder, target, min(act, YES if sure_inc else MAYBE),
                                      None, depth + 1)
                        finally:
                            self.list_dirs.pop()
                        continue
            if name == "cmake_parse_arguments" and len(cmd.args) >= 4:
                self.parse_arguments(cmd, folder)
                continue
            self.command(cmd, folder, act, script)
        for fr in stack:  # blocks left open (a malformed script): closed here
            if fr in self.frames:
                self.frames.remove(fr)

    def var_name(self, arg: Arg, folder: str) -> str:
        """The variable a command sets: ``set(${args_PREFIX}_sources …)`` sets ``mylib_sources`` when the prefix is
        known; a name hipgauge cannot expand, or one of two a prefix set in undecided branches makes, stays as
        written (a variable no one reads: reading it is unknown, which is what it is)."""
        if "${" not in arg.text:
            return arg.text
        v = self.expand(arg, folder)
        return v[0][0] if v is not None and len(v) == 1 else arg.text

    def foreach_items(self, args: tuple[Arg, ...], folder: str) -> list[Item] | None:
        """The items ``foreach(VAR …)`` walks: ``IN LISTS a b``, ``IN ITEMS x y`` or plain items; None for RANGE,
        ZIP_LISTS, an unknown list, or more than ``_FOREACH_MAX`` items (the loop is then read once, as maybe)."""
        if len(args) < 2:
            return []
        rest = args[1:]
        words = [a.text.upper() if not a.quoted else "" for a in rest]
        if words[0] in ("RANGE", "ZIP_LISTS"):
            return None
        out: list[Item] = []
        if words[0] == "IN":
            mode = None
            for a, w in zip(rest[1:], words[1:]):
                if w in ("LISTS", "ITEMS"):
                    mode = w
                    continue
                if mode == "LISTS":
                    v = self.value(a.text, folder) if a.text in self.vars or a.text in self.selectors else []
                    if v is None:
                        return None
                    out += [(part, sure) for x, sure in v for part in x.split(";") if part]
                elif mode == "ITEMS":
                    v = self.expand(a, folder)
                    if v is None:
                        return None
                    out += v
                else:
                    return None
        else:
            for a in rest:
                v = self.expand(a, folder)
                if v is None:
                    return None
                out += v
        return out if len(out) <= _FOREACH_MAX else None

    def subdir_of(self, arg: Arg, folder: str) -> str | None:
        """The tree folder ``add_subdirectory(arg)`` names, or None when it cannot be named."""
        v = self.expand(arg, folder)
        if not v or len(v) != 1:
            return None
        item = v[0][0]
        sub = item[len(_TREE):].lstrip("/") if item.startswith(_TREE) else posixpath.join(folder, item)
        return posixpath.normpath(sub)

    def parse_arguments(self, cmd: Command, folder: str) -> None:
        """``cmake_parse_arguments(PREFIX options one_value multi_value args…)``: ``PREFIX_KEY`` variables."""
        a = cmd.args
        argv = a[0].text == "PARSE_ARGV" and len(a) >= 6
        at = 2 if argv else 0  # cmake_parse_arguments(PARSE_ARGV N PREFIX …): the function's ARGV from N
        prefix = a[at].text
        kinds: dict[str, str] = {}
        for i, kind in ((at + 1, "option"), (at + 2, "one"), (at + 3, "multi")):
            v = self.expand(a[i], folder) or []
            for x, _s in v:
                for part in x.split(";"):
                    kinds[part] = kind
        if argv:
            all_args = self.vars.get("ARGV")
            first = int(a[1].text) if a[1].text.isdigit() else 0
            items, lost = (all_args or [])[first:], all_args is None
        else:
            items, lost = self.args(cmd, folder, 4)
        values: dict[str, list[Item]] = {}
        current: str | None = None
        for x, sure in items:
            if x in kinds:
                current = x
                values[x] = [("TRUE", sure)] if kinds[x] == "option" else []
                if kinds[x] == "option":
                    current = None
                continue
            if current is not None:
                values[current].append((x, sure))
                if kinds[current] == "one":
                    current = None
        for key, kind in kinds.items():
            name = f"{prefix}_{key}"
            if lost:
                self.vars[name] = None
            elif key in values:
                self.vars[name] = values[key]
            else:
                self.vars[name] = [("FALSE", True)] if kind == "option" else []

    def call(self, cmd: Command, fn: _Function, folder: str, script: str, act: int,
             depth: int) -> None:
        """A project function or macro: its body run in a scope of its own, its parameters bound."""
        params, body = fn.params, fn.body
        # an argument hipgauge cannot expand stands as one unknown item: the others keep their places
        values: list[list[Item]] = [self.expand(a, folder) or [(_UNKNOWN, False)] for a in cmd.args]
        saved = dict(self.vars)
        for i, p in enumerate(params):
            self.vars[p] = values[i] if i < len(values) else []
        self.vars["ARGN"] = [x for v in values[len(params):] for x in v]
        self.vars["ARGV"] = [x for v in values for x in v]
        self.parent_sets.append({})
        self.exec(body, folder, fn.script, act, None, depth + 1)  # paths: the caller's folder; lines: the definer's
        self.vars = saved
        for var, items in self.parent_sets.pop().items():  # set(… PARENT_SCOPE): the caller's variable
            self.assign(var, items, act)

    def command(self, cmd: Command, folder: str, act: int, script: str) -> None:
        name, at = cmd.name, f"{script}:{cmd.line}"
        a = cmd.args
        if name == "set" and a:
            var = self.var_name(a[0], folder)
            rest = list(a[1:])
            cache = parent = False
            for i, x in enumerate(rest):
                if not x.quoted and x.text in ("CACHE", "PARENT_SCOPE"):
                    rest, cache, parent = rest[:i], x.text == "CACHE", x.text == "PARENT_SCOPE"
                    break
            items, lost = self.args(Command(name, tuple(rest), cmd.line, cmd.end_line), folder)
            if cache:  # a default the user may override: not a sure value
                items = [(x, False) for x, _s in items]
            if parent and self.parent_sets:  # the calling scope's, once the function returns (not this one's)
                self.parent_sets[-1][var] = None if lost else [(x, s and act == YES) for x, s in items]
            else:
                self.assign(var, None if lost else items, act)
        elif name == "project" and a:
            self.projects[a[0].text] = folder  # ${NAME_SOURCE_DIR}: this folder
        elif name == "get_hipified_list" and len(a) >= 2:
            # hipify_torch's get_hipified_list([SUFFIX] INPUT OUTPUT): the hipified copies of the input files, the
            # file itself where hipify renames nothing (ROCm/hipify_torch README): the HIP build compiles those files
            self.assign(self.var_name(a[-1], folder), self.expand(a[-2], folder), act)
        elif name == "list" and len(a) >= 2:
            sub, var = a[0].text.upper(), self.var_name(a[1], folder)
            items, lost = self.args(cmd, folder, 2)
            old = self.vars.get(var, [])
            if sub in ("APPEND", "PREPEND"):
                if old is None or (lost and act == YES):
                    self.vars[var] = None
                    return
                new = [(x, s and act == YES) for x, s in items]
                if lost:  # maybe appended, and not all of it known (a generated placeholder): one unknown item
                    new.append((_UNKNOWN, False))
                self.vars[var] = old + new if sub == "APPEND" else new + old
            elif sub == "REMOVE_ITEM" and old is not None:
                drop = {x for x, _s in items}
                self.vars[var] = [(x, s) for x, s in old if x not in drop] if act == YES and not lost else \
                    [(x, s and x not in drop) for x, s in old]
            elif sub == "FILTER" and old is not None and len(a) >= 5:
                keep_match = a[2].text.upper() == "INCLUDE"
                try:
                    rx = re.compile(a[4].text)
                except re.error:
                    self.vars[var] = None
                    return
                self.vars[var] = [(x, s) if bool(rx.search(x)) == keep_match else (x, False)
                                  for x, s in old if act != YES or bool(rx.search(x)) == keep_match]
            elif sub == "TRANSFORM" and old is not None and len(a) >= 5 and a[2].text.upper() == "REPLACE" \
                    and not any(x.text.upper() in ("AT", "FOR", "REGEX", "OUTPUT_VARIABLE") for x in a[5:]):
                # list(TRANSFORM SRCS REPLACE cu$ hip): faiss's ROCm build renames its sources to the hipified copies
                try:
                    rx = re.compile(a[3].text)
                except re.error:
                    self.vars[var] = None
                    return
                repl = re.sub(r"\\(\d)", r"\\g<\1>", a[4].text)
                self.vars[var] = [(rx.sub(repl, x), s) for x, s in old]
            elif sub in ("LENGTH", "GET", "FIND", "JOIN", "SUBLIST") and len(a) >= 3:
                self.vars[a[-1].text] = None
            elif sub not in ("REMOVE_DUPLICATES", "SORT", "REVERSE"):
                self.vars[var] = None
        elif name == "file" and len(a) >= 3 and a[0].text.upper() in ("GLOB", "GLOB_RECURSE"):
            var = self.var_name(a[1], folder)
            rest = list(a[2:])
            relative: str | None = None
            pats: list[Arg] = []
            i = 0
            while i < len(rest):
                word = rest[i].text.upper() if not rest[i].quoted else ""
                if word in ("LIST_DIRECTORIES", "RELATIVE"):
                    if word == "RELATIVE" and i + 1 < len(rest):
                        v = self.expand(rest[i + 1], folder)
                        relative = v[0][0][len(_TREE):].lstrip("/") if v and v[0][0].startswith(_TREE) else None
                    i += 2
                    continue
                if word in ("CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS"):
                    i += 1
                    continue
                pats.append(rest[i])
                i += 1
            items, lost = self.args(Command(name, tuple(pats), cmd.line, cmd.end_line), folder)
            if lost:
                self.vars[var] = None
                self.unknown.append(f"{at} file({a[0].text} {var} …): a pattern names a value hipgauge does not know")
                return
            found = self.glob(items, folder, a[0].text.upper() == "GLOB_RECURSE", relative)
            self.assign(var, found, act)
        elif name == "file" and len(a) >= 2:
            idx = {"READ": 2, "STRINGS": 2, "RELATIVE_PATH": 1, "TO_CMAKE_PATH": 2, "REAL_PATH": 2}.get(a[0].text.upper())
            if idx is not None and idx < len(a):
                self.vars[a[idx].text] = None
        elif name == "add_subdirectory" and a:
            v = self.expand(a[0], folder)
            sub_dir = self.subdir_of(a[0], folder)
            if v and sub_dir is not None:
                a_sub = YES if (act == YES and v[0][1]) else MAYBE
                self.subdirs[sub_dir] = max(self.subdirs.get(sub_dir, NO), a_sub)
            else:
                self.lost_subdirs = True
                self.unknown.append(f"{at} add_subdirectory({a[0].text}): a folder hipgauge cannot name")
        elif name in TARGET_COMMANDS:
            items, lost = self.args(cmd, folder, 1)
            self.compile_items(items, folder, act, at)
            if lost or any(x == _UNKNOWN for x, _s in items):
                self.lost_sources = True
                if lost:
                    self.lost_at.add(at)
                self.unknown.append(f"{at} {name}(…): a source list hipgauge cannot evaluate")
        elif name == "string" and len(a) >= 3 and a[0].text.upper() in ("TOUPPER", "TOLOWER"):
            v = self.expand(a[1], folder)
            up = a[0].text.upper() == "TOUPPER"
            self.vars[a[2].text] = None if v is None else [(x.upper() if up else x.lower(), s) for x, s in v]
        elif name == "string" and len(a) >= 2 and a[0].text.upper() == "APPEND":
            old, (more, lost) = self.vars.get(a[1].text, []), self.args(cmd, folder, 2)
            self.vars[a[1].text] = None if old is None or lost else [
                ("".join(x for x, _s in old) + "".join(x for x, _s in more), all(s for _x, s in old + more))]
        elif name == "string" and len(a) >= 3:
            out_at = {"REGEX": 3, "REPLACE": 3, "SUBSTRING": 4, "STRIP": 2, "LENGTH": 2, "FIND": 3, "CONCAT": 1,
                      "JOIN": 2}.get(a[0].text.upper())
            if out_at is not None and out_at < len(a):
                self.vars[a[out_at].text] = None
        elif name in _DEFINE_COMMANDS:
            items, _lost = self.args(cmd, folder, 1 if name == "target_compile_definitions" else 0)
            for item, _s in items:
                dname = item[2:] if item.startswith("-D") else item
                if re.match(r"[A-Za-z_]\w*", dname) and dname.upper() not in ("PUBLIC", "PRIVATE", "INTERFACE"):
                    self.defines.add(dname)
        elif name == "include" and a:
            self.unknown.append(f"{at} include({a[0].text}): not read (what it adds to the build is unknown)")
        elif name not in _KNOWN:
            items, _lost = self.args(cmd, folder, 0)
            named = [x for x, _s in items if self.resolve(x, folder)]
            if named:
                self.lost_sources = True
                self.unknown.append(f"{at} {name}({_shown(named[0])} …): names sources, but what it does with them is "
                                    "not known (not a CMake command hipgauge reads, nor defined in the tree)")

    def assign(self, var: str, items: list[Item] | None, act: int) -> None:
        if items is None:
            self.vars[var] = None
        elif act == YES:
            self.vars[var] = items
        else:
            old = self.vars.get(var) or []
            if len(old) == 1 and len(items) == 1 and old[0][0].startswith(_TREE) and items[0][0].startswith(_TREE) \
                    and posixpath.normpath(old[0][0]) == posixpath.normpath(items[0][0]):
                self.vars[var] = [(posixpath.normpath(items[0][0]), False)]  # one folder, however it was spelt
                return
            self.vars[var] = [(x, False) for x, _s in old] + [(x, False) for x, _s in items]


def _block_end(cmds: list[Command], start: int, opener: str, closer: str) -> int | None:
    """The index of the command closing the block ``cmds[start]`` opens (nested blocks skipped), or None."""
    depth = 0
    for j in range(start + 1, len(cmds)):
        if cmds[j].name == opener:
            depth += 1
        elif cmds[j].name == closer:
            if depth == 0:
                return j
            depth -= 1
    return None


def _is_below(folder: str, parent: str) -> bool:
    return folder != parent and (parent in ("", ".") or folder.startswith(parent + "/"))


def _shown(item: str) -> str:
    return item[len(_TREE):].lstrip("/") if item.startswith(_TREE) else item


def _join(a: str, b: str) -> str:
    return a if b in ("", ".") else f"{a}/{b}"


def _glob_regex(pattern: str, recurse: bool) -> str:
    out = []
    for c in pattern:
        if c == "*":
            out.append(".*" if recurse else "[^/]*")
        elif c == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(c))
    return "".join(out)


# ---------------------------------------------------------------------------------------------------------------
# The tree
# ---------------------------------------------------------------------------------------------------------------

_ENABLE = re.compile(r"(?i)^\s*(enable_language|find_package|project)\s*\(([^)]*)\)", re.M)


def _is_project_root(cmds: list[Command]) -> bool:
    """The script starts a project of its own: ``cmake_minimum_required`` and ``project()`` outside any block."""
    names = {c.name for c in cmds[:200]}
    return "cmake_minimum_required" in names and "project" in names


def _script_vendor(cmds: list[Command]) -> set[str]:
    """The vendors a script enables outside any ``if()``: ``enable_language(HIP)``, ``find_package(hip)``,
    ``project(… HIP)``; ``enable_language(CUDA)``, ``find_package(CUDAToolkit)``… (ggml's backend folders)."""
    depth = 0
    out: set[str] = set()
    for c in cmds:
        if c.name in ("if", "foreach", "while", "function", "macro"):
            depth += 1
        elif c.name in ("endif", "endforeach", "endwhile", "endfunction", "endmacro"):
            depth = max(depth - 1, 0)
        elif depth == 0 and c.name in ("enable_language", "find_package", "project") and c.args:
            words = [a.text for a in c.args] if c.name != "find_package" else [c.args[0].text]
            for w in words:
                if w in ("HIP", "hip") or (c.name == "find_package" and w in ("hipblas", "rocblas")):
                    out.add(HIP)
                elif w in ("CUDA", "CUDAToolkit"):
                    out.add(CUDA)
    return out


def _collect_functions(script: str, cmds: list[Command], bodies: dict[str, _Function]) -> None:
    """The project's functions and macros (name → parameters, body), wherever they are defined."""
    nest = 0
    head: Command | None = None
    body: list[Command] = []
    for c in cmds:
        if head is None:
            if c.name in ("function", "macro") and c.args:
                head, body, nest = c, [], 0
            continue
        if c.name in ("function", "macro"):
            nest += 1
        elif c.name in ("endfunction", "endmacro"):
            if nest == 0:
                bodies.setdefault(head.args[0].text.lower(), _Function(tuple(a.text for a in head.args[1:]), body,
                                                                       script))
                head = None
                continue
            nest -= 1
        body.append(c)


def _vendor_constants(cmds_by_script: dict[str, list[Command]]) -> dict[str, str]:
    """Variables a script sets once to a vendor's name and never to anything else (FBGEMM's
    ``set(BUILD_VARIANT_ROCM "rocm")``): a comparison with the variable is a comparison with that name."""
    seen: dict[str, set[str]] = {}
    for cmds in cmds_by_script.values():
        for c in cmds:
            if c.name == "set" and len(c.args) >= 1:
                values = seen.setdefault(c.args[0].text, set())
                values.add(c.args[1].text.strip() if len(c.args) == 2 else "\0")  # a list or a cache entry: other
    return {name: next(iter(v)) for name, v in seen.items()
            if len(v) == 1 and next(iter(v)).lower() in (_CUDA_WORDS | _HIP_WORDS)}


def _vendor_word(arg: Arg, constants: dict[str, str]) -> str | None:
    """The vendor name ``arg`` spells in a STREQUAL: a literal, or a variable set only to one (``${X}`` or bare)."""
    text = arg.text.strip()
    if text.lower() in (_CUDA_WORDS | _HIP_WORDS):
        return text
    m = _VAR.fullmatch(text)
    name = m.group(1) if m else (text if not arg.quoted else None)
    return constants.get(name) if name else None


def _selectors(cmds_by_script: dict[str, list[Command]]) -> dict[str, dict[str, str]]:
    """Variables some script compares with a vendor's name (``COMPUTE_BACKEND STREQUAL "hip"``, or with a variable
    set only to one: ``FBGEMM_BUILD_VARIANT STREQUAL BUILD_VARIANT_ROCM``), with the value each build gives them
    (the name as the script spells it: ``VLLM_GPU_LANG`` is ``CUDA`` in the CUDA build)."""
    constants = _vendor_constants(cmds_by_script)
    out: dict[str, dict[str, str]] = {}
    for cmds in cmds_by_script.values():
        for c in cmds:
            if c.name not in ("if", "elseif"):
                continue
            a = c.args
            for i in range(len(a) - 2):
                word = _vendor_word(a[i + 2], constants)
                if a[i + 1].text.upper() == "STREQUAL" and word is not None and a[i].text not in constants:
                    m = _VAR.fullmatch(a[i].text)
                    values = out.setdefault(m.group(1) if m else a[i].text, {})
                    values.setdefault(CUDA if word.lower() in _CUDA_WORDS else HIP, word)
    return out


def build_selection(entries: Iterable[Any], max_bytes: int = 8 * 1024 * 1024) -> BuildSelection | None:
    """The source selection of the walked ``entries`` (``SourceEntry``): None when the tree has no build script
    this reads (CMakeLists.txt / *.cmake / setup.py). Never raises for a script it cannot follow: the selection is
    then empty, with the reason in ``unknown`` (re-raised under ``HIPGAUGE_DEBUG``)."""
    try:
        return _selection(list(entries), max_bytes)
    except (RecursionError, MemoryError, Exception) as exc:  # an aid: the scan goes on without it
        if os.environ.get("HIPGAUGE_DEBUG", "") not in ("", "0"):
            raise
        return BuildSelection(unknown=(f"build scripts not read ({exc.__class__.__name__}: {exc})"[:200],))


def _selection(entries: list[Any], max_bytes: int) -> BuildSelection | None:
    files = frozenset(e.display for e in entries)
    scripts: dict[str, str] = {}
    setup: dict[str, str] = {}
    builders: dict[str, str] = {}
    for e in entries:
        if e.kind in SELECTION_KINDS and e.size <= max_bytes:
            data = read_text_bytes(e, max_bytes)
            if data is None:
                continue
            (scripts if e.kind == "cmake" else setup)[e.display] = data.decode("utf-8", "replace")
        elif e.kind == "python" and e.size <= max_bytes and not is_test_module(e.display):
            data = read_text_bytes(e, max_bytes)
            if data is not None and b"def sources(" in data and b"class " in data \
                    and not _OTHER_BACKEND_DIRS & set(e.display.lower().split("/")[:-1]):
                builders[e.display] = data.decode("utf-8", "replace")  # an op builder (DeepSpeed, ROCm apex)
    kernel_builds = _kernel_builder_files(entries, max_bytes)
    if not scripts and not setup and not builders and not kernel_builds:
        return None
    helpers = _setup_helpers(entries, setup, max_bytes)
    cmds = {p: cmake_commands(t) for p, t in scripts.items()}
    bodies: dict[str, _Function] = {}
    for p in sorted(cmds):
        _collect_functions(p, cmds[p], bodies)
    selectors = _selectors(cmds)
    constants = _vendor_constants(cmds)
    lists = sorted((p for p in scripts if posixpath.basename(p) == "CMakeLists.txt"), key=lambda p: (p.count("/"), p))
    root = posixpath.dirname(lists[0]) if lists else ""
    modules = {p: cs for p, cs in cmds.items() if not p.endswith("CMakeLists.txt")}
    runs = {b: _Run(b, files, selectors, root, bodies=dict(bodies), included=modules, constants=constants)
            for b in BUILDS}
    hip_ev: list[str] = []
    cuda_ev: list[str] = []
    for script in lists:
        vendors = _script_vendor(cmds[script])
        for b, run in runs.items():
            base = YES
            folder = posixpath.dirname(script)
            if folder in run.subdirs:
                base = run.subdirs[folder]
            elif folder in run.named_subdirs:
                base = NO  # its add_subdirectory stands where this build never reads (hstu after a FATAL_ERROR)
            elif _is_project_root(cmds[script]):
                base = YES  # a project of its own (FBGEMM's fbgemm_gpu/, configured by its setup.py): a root
            elif any(_is_below(folder, posixpath.dirname(s)) for s in lists if s != script):
                base = MAYBE if run.lost_subdirs else NO  # under a read script that never adds it
            if vendors and b not in vendors:
                base = NO
            run.run(script, scripts[script], base)
        if vendors == {HIP}:
            hip_ev.append(f"{script}: enables HIP")
        elif vendors == {CUDA}:
            cuda_ev.append(f"{script}: enables CUDA")
    units: dict[str, dict[str, Any]] = {}
    for b, run in runs.items():
        for p, a in run.compiled.items():
            u = units.setdefault(p, {"builds": set(), "maybe": set(), "where": []})
            u["builds"].add(b)
            if a == MAYBE:
                u["maybe"].add(b)
            for w in run.where.get(p, []):
                if w not in u["where"]:
                    u["where"].append(w)
    for u in units.values():
        # a target command that named the file in one build and whose source list the other build lost: that
        # build may compile it too (its list renamed or filtered in a way hipgauge could not follow)
        for b, run in runs.items():
            if b not in u["builds"] and any(w in run.lost_at for w in u["where"]):
                u["builds"].add(b)
                u["maybe"].add(b)
    # the lines only one build reads: where a HIP build shows itself (elseif(BUILD_HIP) / a hip-only script)
    lines: list[tuple[str, tuple[int, ...]]] = []
    for script in lists:
        ca, ha = runs[CUDA].line_act.get(script), runs[HIP].line_act.get(script)
        if ca is None or ha is None:
            continue
        where = tuple(line_class(c, h) for c, h in zip(ca, ha))
        lines.append((script, where))
        for side, ev, label in ((HIP_ONLY, hip_ev, "HIP"), (CUDA_ONLY, cuda_ev, "CUDA")):
            block = _longest(where, side)
            if block is not None and not any(e.startswith(script + ":") for e in ev):
                ev.append(f"{script}:{block[0]}-{block[1]}: a block only the {label} build reads")
    resolve = _resolver(entries, files)
    lossy: list[str] = []
    cuda_scripts = [script for script, text in sorted(setup.items())
                    if _setup_sources(script, text, files, units, hip_ev, resolve, lossy)]
    helper_hip = bool(hip_ev) or any(names_hip(t) for t in helpers.values())
    for script, text in sorted(helpers.items()):  # the modules a setup.py imports its extension's sources from
        _setup_sources(script, text, files, units, hip_ev, resolve, lossy, helper=helper_hip)
    for script, text in sorted(builders.items()):
        got = builder_sources(script, text, files, resolve)
        if got is None:
            continue
        lossy += [f"{script}:{n}" for n in got.lossy]
        if got.has_hip and not any(e.startswith(script) for e in hip_ev):
            hip_ev.append(f"{script}: an op builder with a ROCm branch")
        for p, got_b in got.builds.items():
            _add_unit(units, p, got_b, f"{script}:{got.where[p]}")
    for script, text in sorted(kernel_builds.items()):
        _kernel_builder_sources(script, text, files, units, hip_ev, cuda_ev)
    if any(HIP in u["builds"] for u in units.values()) and not hip_ev:
        hip_ev.append("a build script names sources for the HIP build")
    if not hip_ev:  # no HIP build: the builds are the CUDA build's, whatever a script's vendor words
        for u in units.values():
            u["maybe"].discard(HIP)
    else:  # a setup.py that builds for CUDA alone beside the HIP build: its flags and arch lists are the CUDA build's
        lines += [(script, (CUDA_ONLY,) * (setup[script].count("\n") + 1)) for script in cuda_scripts]
    defines = tuple((b, tuple(sorted(runs[b].defines - runs[o].defines))) for b, o in ((CUDA, HIP), (HIP, CUDA)))
    mentions = _mentions(cmds, files)
    unit_list = [UnitBuilds(p, frozenset(u["builds"]), frozenset(u["maybe"]),
                            tuple(dict.fromkeys([*([f"named at {mentions[p]}"] if p in mentions else []),
                                                 *u["where"]])))
                 for p, u in sorted(units.items())]
    named_only: list[UnitBuilds] = []
    if not any(r.lost_sources for r in runs.values()):  # else a named file may be in a list hipgauge lost
        named_only = _named_only(mentions, set(units))
    unentered = _unentered(entries, lists, runs, set(units) | {u.path for u in unit_list + named_only})
    if any(u.path.endswith(_HEADER_SUFFIXES) for u in named_only + unentered):
        # a header a compiled unit includes takes the builds of its includers: not "named but compiled by neither"
        # (faiss's FAISS_GPU_HEADERS, an install list), nor the builds of a folder no build enters (FBGEMM's
        # vendored CUTLASS example folder, whose headers gen_ai's sources include)
        included = {u.path for u in _headers(entries, {u.path: u for u in unit_list}, max_bytes)}
        named_only = [u for u in named_only if u.path not in included]
        unentered = [u for u in unentered if u.path not in included]
    unit_list += named_only + unentered
    if builders and not scripts and not lossy and units:  # every op builder's sources() followed whole
        unit_list += _named_by_no_builder(entries, {u.path for u in unit_list})
    unit_list += _headers(entries, {u.path: u for u in unit_list}, max_bytes)
    unknown = tuple(dict.fromkeys([*runs[CUDA].unknown, *runs[HIP].unknown]))
    return BuildSelection(units=tuple(sorted(unit_list, key=lambda u: u.path)), hip_build=tuple(hip_ev),
                          cuda_build=tuple(cuda_ev), unknown=unknown, defines=defines, lines=tuple(lines),
                          scripts=tuple(sorted([*scripts, *setup])))


def _mentions(cmds: dict[str, list[Command]], files: frozenset[str]) -> dict[str, str]:
    """Where a build script first names each tree source literally ("CMakeLists.txt:244")."""
    out: dict[str, str] = {}
    for script, cs in sorted(cmds.items()):
        folder = posixpath.dirname(script)
        for c in cs:
            for a in c.args:
                t = a.text
                if "$" in t or not t.lower().endswith(SOURCE_SUFFIXES):
                    continue
                p = posixpath.normpath(posixpath.join(folder, t))
                if p in files:
                    out.setdefault(p, f"{script}:{c.line}")
    return out


def _named_only(mentions: dict[str, str], compiled: set[str]) -> list[UnitBuilds]:
    """Sources a build script names (``set(XPU_FILES csrc/xpu_ops.cpp)``) that neither build compiles."""
    return [UnitBuilds(p, frozenset(), frozenset(), (f"{at}: named, but neither the CUDA nor the HIP build compiles it",),
                       "build") for p, at in sorted(mentions.items()) if p not in compiled]


def _unentered(entries: list[Any], lists: list[str], runs: dict[str, _Run], named: set[str]) -> list[UnitBuilds]:
    """Sources below a CMakeLists.txt that one build or neither enters (another backend's folder: ``ggml-sycl``;
    a folder added only past a ``FATAL_ERROR`` the HIP build stops at: FBGEMM's ``experimental/hstu``), that no
    script read names for a build: compiled by the builds that enter the folder."""
    entered: dict[str, frozenset[str]] = {}
    for s in lists:
        entered[posixpath.dirname(s)] = frozenset(
            b for b, r in runs.items() if max(r.line_act.get(s, [YES]), default=YES) != NO)
    if all(len(v) == len(runs) for v in entered.values()):
        return []
    out = []
    for e in entries:
        if e.display in named or e.kind not in ("cuda", "cpp", "header"):
            continue
        folder = posixpath.dirname(e.display)
        inside = [c for c in entered if folder == c or _is_below(folder, c)]
        if not inside:
            continue
        deepest = max(inside, key=len)
        builds = entered[deepest]
        if len(builds) == len(runs):
            continue
        who = ("neither the CUDA nor the HIP build enters" if not builds else
               f"only the {'CUDA' if CUDA in builds else 'HIP'} build enters")
        out.append(UnitBuilds(e.display, builds, frozenset(),
                              (f"{_join(deepest, 'CMakeLists.txt').lstrip('/')}: {who} this folder",), "folder"))
    return out


def _named_by_no_builder(entries: list[Any], named: set[str]) -> list[UnitBuilds]:
    """In a tree built through op builders alone (ROCm apex: setup.py builds what ``op_builder/*.py`` name, and
    every ``sources()`` was followed whole), a translation unit none of them names is compiled by neither build
    (a contrib folder with no builder: apex's ``fmha``, ``bottleneck``)."""
    return [UnitBuilds(e.display, frozenset(), frozenset(), ("no op builder and no setup.py source list names it",),
                       "unnamed")
            for e in entries if e.display not in named and e.kind in ("cuda", "cpp")
            and e.display.lower().endswith(TU_SUFFIXES)]


def _longest(where: tuple[int, ...], side: int) -> tuple[int, int] | None:
    """The longest run of lines of one class (1-based first, last), None when none."""
    best: tuple[int, int] | None = None
    start = None
    for i, w in enumerate([*where, -1]):
        if w == side and start is None:
            start = i
        elif w != side and start is not None:
            if best is None or i - start > best[1] - best[0] + 1:
                best = (start + 1, i)
            start = None
    return best


_BUILD_OF = {HIP_ONLY: HIP, CUDA_ONLY: CUDA}


def _add_unit(units: dict[str, dict[str, Any]], path: str, builds: Iterable[str], where: str) -> None:
    """A Python build names ``path`` for ``builds`` at ``where`` (the first three places are kept)."""
    u = units.setdefault(path, {"builds": set(), "maybe": set(), "where": []})
    u["builds"] |= set(builds)
    if len(u["where"]) < 3:
        u["where"].append(where)


def _resolver(entries: list[Any], files: frozenset[str]) -> Resolve | None:
    """Tree paths through symlinked folders (ROCm apex's ``contrib/csrc -> ../apex/contrib/csrc``): the path the
    walk listed for the same real file. None for a scan of several roots."""
    roots = {str(e.path)[: -len(e.display)] for e in entries if str(e.path).endswith(e.display)}
    if len(roots) != 1:
        return None
    root = roots.pop()
    real_root = os.path.realpath(root)
    by_real = {os.path.realpath(os.path.join(root, f)): f for f in files}

    def resolve(p: str) -> str | None:
        real = os.path.realpath(os.path.join(root, p))
        if not real.startswith(real_root):
            return None
        return by_real.get(real)

    return resolve


#: Hugging Face kernel-builder backends (build.toml ``[kernel.NAME] backend = …``) → the build they are
#: (github.com/huggingface/kernel-builder docs/writing-kernels.md, read 2026-12-06): ``metal``, ``cpu``, ``xpu``,
#: ``neuron``… are other backends, compiled by neither build assessed here
_KERNEL_BACKENDS = {"cuda": CUDA, "rocm": HIP}


def _kernel_builder_files(entries: list[Any], max_bytes: int) -> dict[str, str]:
    """``build.toml`` files of Hugging Face's kernel-builder beside the walked sources (``kernel_builder_tomls``),
    display path -> text."""
    out: dict[str, str] = {}
    for display, cand in kernel_builder_tomls(entries).items():
        try:
            if os.path.getsize(cand) > max_bytes:
                continue
            with open(cand, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        if "[kernel." in text and "backend" in text:
            out[display] = text
    return out


def _kernel_builder_sources(script: str, text: str, files: frozenset[str], units: dict[str, dict[str, Any]],
                            hip_ev: list[str], cuda_ev: list[str]) -> None:
    """A kernel-builder ``build.toml``: each ``[kernel.NAME]`` compiles its ``src`` for its ``backend`` (``cuda``:
    the CUDA build, ``rocm``: the HIP build, any other backend: neither); ``[torch] src`` (the bindings) is compiled
    by each of the two builds the kernel has a backend for. kernels-community's activation lists the same .cu
    under ``backend = "cuda"`` and ``backend = "rocm"``; its flash-mla, cuda alone."""
    try:
        doc = toml_module().loads(text)
    except ValueError:
        return
    folder = posixpath.dirname(script)
    kernels = doc.get("kernel") if isinstance(doc.get("kernel"), dict) else {}
    builds_seen: set[str] = set()
    for name, k in kernels.items():
        if not isinstance(k, dict):
            continue
        backend = str(k.get("backend", "")).lower()
        b = _KERNEL_BACKENDS.get(backend)
        if b is not None:
            builds_seen.add(b)
        for src in k.get("src") or []:
            p = posixpath.normpath(posixpath.join(folder, str(src)))
            if p in files:
                _add_unit(units, p, {b} if b else set(), f"{script}: [kernel.{name}] backend = {backend}")
        if b == HIP and not any(e.startswith(script) for e in hip_ev):
            hip_ev.append(f"{script}: [kernel.{name}] backend = \"rocm\"")
        if b == CUDA and not any(e.startswith(script) for e in cuda_ev):
            cuda_ev.append(f"{script}: [kernel.{name}] backend = \"cuda\"")
    torch_part = doc.get("torch") if isinstance(doc.get("torch"), dict) else {}
    for src in torch_part.get("src") or []:
        p = posixpath.normpath(posixpath.join(folder, str(src)))
        if p in files:
            _add_unit(units, p, builds_seen, f"{script}: [torch] src")
    if len(builds_seen) == 1:
        # every kernel of it is one build's (kernels-community's deep-gemm: backend = "cuda" alone): the sources
        # below it that no kernel lists (headers its JIT compiles at run time) are that build's too
        only = next(iter(builds_seen))
        for p in files:
            if p not in units and p.lower().endswith(SOURCE_SUFFIXES) and (not folder or _is_below(p, folder)):
                units[p] = {"builds": {only}, "maybe": set(),
                            "where": [f"{script}: every kernel is backend = \"{'cuda' if only == CUDA else 'rocm'}\""]}


def _setup_helpers(entries: list[Any], setup: dict[str, str], max_bytes: int) -> dict[str, str]:
    """The tree modules a setup.py imports (``from build_tools.pytorch import setup_pytorch_extension``:
    TransformerEngine's, whose ``if not rocm_build(): sources.extend([… / "userbuffers" / "userbuffers.cu"])`` holds
    what its HIP build leaves out), relative to the script's folder or the tree root."""
    py = {e.display: e for e in entries if e.kind == "python" and e.size <= max_bytes}
    out: dict[str, str] = {}
    for script, text in setup.items():
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
        mods |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        folder = posixpath.dirname(script)
        for mod in sorted(mods):
            parts = mod.split(".")
            for base in dict.fromkeys((folder, "")):
                for cand in (posixpath.join(base, *parts) + ".py", posixpath.join(base, *parts, "__init__.py")):
                    e = py.get(cand)
                    if e is None or cand in setup or cand in out or is_test_module(cand):
                        continue
                    data = read_text_bytes(e, max_bytes)
                    if data is not None:
                        out[cand] = data.decode("utf-8", "replace")
    return out


def _path_suffixes(tree: ast.AST) -> dict[int, str]:
    """``id(constant) -> "userbuffers/userbuffers.cu"`` for a source name at the end of a ``pathlib`` join
    (``csrc / "userbuffers" / "userbuffers.cu"``): the string pieces joined, to be matched by path suffix."""
    out: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant) \
                and isinstance(node.right.value, str):
            parts = [node.right.value]
            left = node.left
            while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Div) and isinstance(left.right, ast.Constant) \
                    and isinstance(left.right.value, str):
                parts.insert(0, left.right.value)
                left = left.left
            out[id(node.right)] = "/".join(p.strip("/") for p in parts)
    return out


_NVIDIA_ARCH_FLAG = re.compile(r"\barch=compute_\d+[af]?\b|\bcode=sm_\d+[af]?\b")


def _hip_named_only_in_passing(tree: ast.AST, side: dict[int, str], followed: Any) -> bool:
    """No vendor branch of the script holds a source name or decides an extension call, and an NVIDIA
    architecture flag (``arch=compute_90a,code=sm_90a``) stands outside every vendor branch."""
    if followed is not None and followed.call_sides and set(followed.call_sides) != {CUDA, HIP}:
        return False
    nvidia_flag = False
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        in_branch = side.get(node.lineno)
        if in_branch and node.value.lower().endswith(SOURCE_SUFFIXES):
            return False
        if not in_branch and _NVIDIA_ARCH_FLAG.search(node.value):
            nvidia_flag = True
    return nvidia_flag


def _setup_sources(script: str, text: str, files: frozenset[str], units: dict[str, dict[str, Any]],
                   hip_ev: list[str], resolve: Resolve | None = None, lossy: list[str] | None = None,
                   helper: bool = False) -> bool:
    """setup.py: the sources its extension calls receive, each build's (``setup_eval``); then every other string
    naming a tree source (or a glob of them), under the branch it sits in
    (``if torch.version.hip:`` / ``IS_ROCM`` → the HIP build; its ``else`` → the CUDA build; elsewhere both,
    when the script has a HIP branch at all: ``CUDAExtension`` builds with hipcc under ROCm).
    True when the script configures the CUDA build alone: every unit its extension calls receive is the CUDA
    build's, or every extension call of a script that names HIP sits in the CUDA build's branch. ``helper``: the
    script is a module a setup.py imports, in a tree with a HIP build (its strings outside its own vendor branches
    are both builds')."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    cuda_alone = False
    folder = posixpath.dirname(script)
    # the sources its extension calls receive, followed through
    followed = setup_sources(script, text, files, resolve, tree)
    if followed is not None and followed.lossy and lossy is not None:
        lossy += [f"{script}:{n}" for n in followed.lossy]
    if followed is not None:
        for p, got in followed.builds.items():
            _add_unit(units, p, got, f"{script}:{followed.where[p]}")
        # every unit its calls receive is the CUDA build's (csrc/layer_norm/setup.py: no HIP branch, in a tree whose
        # HIP build is another script's): the script configures the CUDA build alone
        cuda_alone = bool(followed.builds) and not followed.lossy \
            and all(b == {CUDA} for b in followed.builds.values())
        if followed.call_sides == {CUDA} and names_hip(text):
            cuda_alone = True
            # every extension call sits in the CUDA build's branch (flash-attention's hopper/setup.py builds nothing
            # when FLASH_ATTENTION_TRITON_AMD_ENABLE): the units below it no other script names are the CUDA build's
            for p in files:
                if p not in units and p.lower().endswith(TU_SUFFIXES) and (not folder or _is_below(p, folder)):
                    units[p] = {"builds": {CUDA}, "maybe": set(),
                                "where": [f"{script}: its extension calls are the CUDA build's alone"]}
    side: dict[int, str] = {}
    has_hip = False
    for node in ast.walk(tree):
        if not isinstance(node, (ast.If, ast.IfExp)):
            continue
        test = ast.get_source_segment(text, node.test) or ""
        if names_hip(test):  # (``if not SKIP_CUDA_BUILD:``, set by a HIP branch, is decided without naming HIP)
            has_hip = True
            if not any(e.startswith(script) for e in hip_ev):
                hip_ev.append(f"{script}:{node.lineno}: a ROCm branch ({test.strip()[:40]})")
        if isinstance(node, ast.IfExp):
            continue  # ``CUDAExtension(…) if torch.version.hip else None``: setup_eval reads the calls in its branches
        sides = branch_sides(text, node)
        for body, vis in ((node.body, sides[0]), (node.orelse, sides[1])):
            b = _BUILD_OF.get(vis) if vis is not None else None
            if b is None:
                continue
            for stmt in body:
                for ln in range(stmt.lineno, (getattr(stmt, "end_lineno", None) or stmt.lineno) + 1):
                    side.setdefault(ln, b)
    if has_hip and not cuda_alone and not helper and _hip_named_only_in_passing(tree, side, followed):
        # the script names HIP, but no vendor branch of it decides a source or an extension call, and it passes
        # NVIDIA architecture flags outside every vendor branch: it builds for CUDA alone (ROCm flash-attention's
        # hopper/setup.py, FA3, whose only IS_HIP_EXTENSION tests pick hipcc's path in a ninja writer copied from
        # torch); its mention of HIP is no HIP build
        cuda_alone, has_hip = True, False
        hip_ev[:] = [e for e in hip_ev if not e.startswith(script + ":")]
        for p in files:
            if p not in units and p.lower().endswith(TU_SUFFIXES) and (not folder or _is_below(p, folder)):
                units[p] = {"builds": {CUDA}, "maybe": set(),
                            "where": [f"{script}: names HIP only in passing, passes NVIDIA architecture flags"]}
        if followed is not None:
            for p in followed.builds:
                units[p] = {"builds": {CUDA}, "maybe": set(), "where": units.get(p, {}).get("where", [])}
    suffixes = _path_suffixes(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        s = node.value
        if not s.lower().endswith(SOURCE_SUFFIXES) or len(s) > 300:
            continue
        pat = posixpath.normpath(posixpath.join(folder, s))
        if any(ch in s for ch in "*?["):
            rx = re.compile(_glob_regex(pat, "**" in s))
            hits = [f for f in sorted(files) if rx.fullmatch(f)]
        else:
            hits = [pat] if pat in files else []
            joined = suffixes.get(id(node))
            if not hits and joined:  # the end of a pathlib join: the one tree file with that path suffix
                ends = [f for f in files if f == joined or f.endswith("/" + joined)]
                hits = ends if len(ends) == 1 else []
        in_branch = side.get(node.lineno)
        # a helper module a setup.py imports serves whichever build calls it: outside its own vendor branches, both
        # builds' when the tree has a HIP build at all (TransformerEngine's build_tools/paddle.py names no ROCm)
        both = has_hip or helper
        builds = {in_branch} if in_branch else ({CUDA, HIP} if both else {CUDA})
        for p in hits:
            if followed is not None and p in followed.builds:
                continue  # what the build does with it is known
            _add_unit(units, p, builds, f"{script}:{node.lineno}")
    return cuda_alone


def _headers(entries: list[Any], units: dict[str, UnitBuilds], max_bytes: int) -> list[UnitBuilds]:
    """Files no build script names that units with known builds include (``#include "…"``, followed through the
    tree): the union of the builds of the units that reach them."""
    if not units:
        return []
    paths = {e.display for e in entries}
    by_base: dict[str, list[str]] = defaultdict(list)
    for p in paths:
        by_base[posixpath.basename(p)].append(p)
    graph: dict[str, list[str]] = {}
    for e in entries:
        if e.kind not in ("cuda", "cpp", "header") or e.size > max_bytes:
            continue
        data = read_text_bytes(e, max_bytes)
        if data is None or b"#" not in data:
            continue
        out = []
        for m in _INCLUDE.finditer(data):
            inc = (m.group(1) or m.group(2)).decode("latin-1")
            p = posixpath.normpath(posixpath.join(posixpath.dirname(e.display), inc))
            if p not in paths:
                cands = [c for c in by_base.get(posixpath.basename(inc), []) if c == inc or c.endswith("/" + inc)]
                if len(cands) > 1:  # the one in a folder above the includer (an include path of its project)
                    here = posixpath.dirname(e.display)
                    above = [c for c in cands if _is_below(here, c[: -len(inc)].rstrip("/"))
                             or here == c[: -len(inc)].rstrip("/")]
                    cands = [max(above, key=len)] if above else cands
                p = cands[0] if len(cands) == 1 else ""
            if p:
                out.append(p)
        graph[e.display] = out
    reach: dict[str, set[str]] = defaultdict(set)
    sure: dict[str, set[str]] = defaultdict(set)
    via: dict[str, str] = {}
    for tu, u in units.items():
        seen = {tu}
        todo = list(graph.get(tu, []))
        while todo:
            h = todo.pop()
            if h in seen:
                continue
            seen.add(h)
            if h not in units:
                reach[h] |= u.builds
                sure[h] |= u.builds - u.maybe
                via.setdefault(h, tu)
            todo.extend(graph.get(h, []))
    found: list[UnitBuilds] = []
    for h, builds in sorted(reach.items()):
        found.append(UnitBuilds(h, frozenset(builds), frozenset(builds - sure[h]), (f"included by {via[h]}",),
                                "include"))
    return found


# ---------------------------------------------------------------------------------------------------------------
# Findings as the builds see them
# ---------------------------------------------------------------------------------------------------------------

_LINE_BUILDS = {BOTH: frozenset(BUILDS), CUDA_ONLY: frozenset({CUDA}), HIP_ONLY: frozenset({HIP}),
                NEITHER: frozenset()}
BUILD_KINDS = ("cmake", "make", "setup.py")


def line_builds(file_builds: frozenset[str] | None, where: int) -> frozenset[str]:
    """The builds that compile one line: the file's builds (all, when unknown) and the line's preprocessor class."""
    base = frozenset(BUILDS) if file_builds is None else file_builds
    return base & _LINE_BUILDS.get(where, frozenset(BUILDS))


def apply_builds(selection: BuildSelection | None, file: str, findings: list[Any], vis: Visibility | None,
                 kind: str = "cuda") -> tuple[list[Any], int, int]:
    """Each finding with the builds that compile its line (``Finding.builds``). When the tree has a HIP build,
    findings the HIP build never compiles are no port work: in sources, zero-hour notes (``branch: "cuda-only"``
    when only the CUDA build compiles them, ``"not-built"`` when neither does); in build scripts (nvcc flags in a
    CUDA-only block), dropped. A source only the HIP build compiles is the port itself (hipcc builds it in a build
    that ships): its findings are dropped, as the lines of a HIP-only branch are. Returns (findings, dropped,
    noted)."""
    if selection is None:
        return findings, 0, 0
    unit = selection.unit(file)
    file_builds = unit.builds if unit is not None else None
    script = kind in BUILD_KINDS
    if file_builds is None and not script:
        return findings, 0, 0
    hip_build = selection.has_hip_build
    out: list[Any] = []
    dropped = noted = 0
    why = ""
    if unit is not None and unit.where:
        why = "; see " + unit.where[0].removeprefix("named at ").split(": named,")[0]
    for f in findings:
        where = vis.at(f.line) if vis is not None else BOTH
        builds = line_builds(file_builds, where)
        f = replace(f, builds=sorted(builds))
        if hip_build and builds == {HIP} and not script:
            dropped += 1  # only the HIP build compiles it (hipcc, in a build that ships): the port itself
            continue
        if not hip_build or HIP in builds:
            out.append(f)
            continue
        if script and f.category == "build":
            dropped += 1  # an nvcc flag in a block only the CUDA build reads: the HIP build has its own
            continue
        if f.branch is None:
            noted += 1
            if CUDA in builds:
                msg = f"CUDA build only (the HIP build does not compile this file{why}; no port work): {f.message}"
                branch = "cuda-only"
            else:
                msg = f"Not compiled by the CUDA or the HIP build ({why[2:] or 'its build scripts'}; no port work): {f.message}"
                branch = "not-built"
            f = replace(f, severity=Severity.INFO, effort_hours=0.0, branch=branch, message=msg)
        out.append(f)
    return out, dropped, noted
