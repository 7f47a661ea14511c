"""CUDA → HIP translation of build files: CMake and Makefiles (facts in ``data/build_mapping.toml``).

Rewrites keep every line where it was; what CMake needs in addition (``find_package`` of the HIP libraries,
``LANGUAGE HIP`` on ``.cu`` sources) is appended after the last line, under a comment, so line N of the output
is still line N of the input. Comments and quoted strings are left alone, except the value of an
``*_ARCHITECTURES`` setting, which becomes the AMD target list. setup.py is copied unchanged (PyTorch's
``cpp_extension`` hipifies CUDAExtension builds itself on ROCm).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from hipgauge.datafiles import load_data_toml
from hipgauge.model import ApiCall
from hipgauge.translate.result import TranslatedFile, TranslateOptions, finish_file


@dataclass(frozen=True)
class BuildMapping:
    """``build_mapping.toml``: CMake and Makefile words and flags with their HIP counterparts."""

    cmake_targets: dict[str, tuple[str, str]]
    cmake_words: dict[str, str]
    cmake_unconverted: dict[str, str]
    make_flags: dict[str, str]
    make_unconverted: dict[str, str]


@lru_cache(maxsize=1)
def load_build_mapping() -> BuildMapping:
    doc = load_data_toml("build_mapping.toml")  # kept between runs: no TOML parser at start-up
    return BuildMapping(
        cmake_targets={k: (v[0], v[1]) for k, v in doc["cmake_targets"].items()},
        cmake_words=dict(doc["cmake_words"]),
        cmake_unconverted=dict(doc["cmake_unconverted"]),
        make_flags=dict(doc["make_flags"]),
        make_unconverted=dict(doc["make_unconverted"]),
    )


def _split_comment(line: str, marker: str = "#") -> tuple[str, str]:
    """(code, comment) split at the first ``#`` outside double quotes."""
    in_q = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and in_q:
            i += 2
            continue
        if ch == '"':
            in_q = not in_q
        elif ch == marker and not in_q:
            return line[:i], line[i:]
        i += 1
    return line, ""


class _Recorder:
    def __init__(self, display: str):
        self.display = display
        self.refs: list[ApiCall] = []
        self.flags: list[bool] = []
        self.notes: list[str] = []

    def ok(self, line: int, cuda: str, hip: str) -> None:
        self.refs.append(ApiCall(self.display, line, cuda, "build", hip, "mapped", kind="build"))
        self.flags.append(True)

    def bad(self, line: int, cuda: str, why: str) -> None:
        self.refs.append(ApiCall(self.display, line, cuda, "build", None, "unsupported", kind="build"))
        self.flags.append(False)
        self.notes.append(f"{self.display}:{line}: {cuda} left as is ({why})")


_ARCH_VALUE = re.compile(
    r'(?P<q>"?)(?P<v>(?:\d{2,3}[a-z]?(?:-(?:real|virtual))?)(?:\s*;\s*\d{2,3}[a-z]?(?:-(?:real|virtual))?)*'
    r'|native|all|all-major)(?P=q)')


def translate_cmake(lines: list[str], rec: _Recorder, options: TranslateOptions) -> tuple[list[str], list[str]]:
    bm = load_build_mapping()
    out: list[str] = []
    packages: list[str] = []
    cu_sources: list[str] = []
    in_project = False
    amd_list = ";".join(options.amd_arch)
    word_re = re.compile(r"\b(" + "|".join(sorted(map(re.escape, bm.cmake_words), key=len, reverse=True)) + r")\b")
    bad_re = re.compile(r"\b(" + "|".join(sorted(map(re.escape, bm.cmake_unconverted), key=len, reverse=True)) + r")\b")
    target_re = re.compile(r"\bCUDA::\w+")
    for n, line in enumerate(lines, start=1):
        code, comment = _split_comment(line)
        new = code
        if re.search(r"\bproject\s*\(", new, re.I):
            in_project = True
        if in_project:
            if re.search(r"\bCUDA\b", new):
                new = re.sub(r"\bCUDA\b", "HIP", new)
                rec.ok(n, "project(LANGUAGES CUDA)", "project(LANGUAGES HIP)")
            if ")" in code:
                in_project = False
        m = re.search(r"\b(enable_language|check_language)\s*\(\s*CUDA\b", new, re.I)
        if m:
            new = new[:m.start()] + re.sub(r"\bCUDA\b", "HIP", new[m.start():], count=1)
            rec.ok(n, f"{m.group(1)}(CUDA)", f"{m.group(1)}(HIP)")
        m = re.search(r"\bfind_package\s*\(\s*CUDAToolkit\b", new, re.I)
        if m:
            new = new[:m.start()] + re.sub(r"\bCUDAToolkit\b", "hip", new[m.start():], count=1)
            rec.ok(n, "find_package(CUDAToolkit)", "find_package(hip)")
        elif re.search(r"\bfind_package\s*\(\s*CUDA\b", new, re.I):
            rec.bad(n, "find_package(CUDA)", "HG701: the deprecated FindCUDA module; use enable_language(HIP)")
        arch_kw = re.search(r"\b(CMAKE_CUDA_ARCHITECTURES|CUDA_ARCHITECTURES)\b", new)
        if arch_kw:
            tail = new[arch_kw.end():]
            vm = _ARCH_VALUE.search(tail)
            if vm:
                new = new[:arch_kw.end()] + tail[:vm.start()] + f'"{amd_list}"' + tail[vm.end():]
                rec.ok(n, f"{arch_kw.group(1)} {vm.group(0)}", f"{amd_list}")
            elif "${" in tail:
                rec.bad(n, arch_kw.group(1) + " value", "HG702: architecture list from a variable; set AMD targets")
        for t in target_re.findall(new):
            hit = bm.cmake_targets.get(t)
            if hit:
                pkg, hip_target = hit
                if pkg != "hip" and pkg not in packages:
                    packages.append(pkg)
                rec.ok(n, t, hip_target)
            else:
                rec.bad(n, t, "HG706: no HIP library target known")
        new = target_re.sub(lambda mm: bm.cmake_targets.get(mm.group(0), (None, mm.group(0)))[1], new)
        for w in word_re.findall(new):
            rec.ok(n, w, bm.cmake_words[w])
        new = word_re.sub(lambda mm: bm.cmake_words[mm.group(1)], new)
        for w in bad_re.findall(new):
            rec.bad(n, w, bm.cmake_unconverted[w])
        g = re.search(r"\bfile\s*\(\s*GLOB(?:_RECURSE)?\s+(\w+)[^)]*\.cu\b", new, re.I)
        if g:
            var = "${" + g.group(1) + "}"
            if var not in cu_sources:
                cu_sources.append(var)
        else:
            for src in re.findall(r'[^\s"();]+\.cu\b', new):
                if "*" not in src and src not in cu_sources:
                    cu_sources.append(src)
        out.append(new + comment)
    extra: list[str] = []
    if packages or cu_sources:
        extra.append("# hipgauge translate: added for HIP (no CUDA source line)")
        for pkg in packages:
            extra.append(f"find_package({pkg} REQUIRED)")
        if cu_sources:
            extra.append(f"set_source_files_properties({' '.join(cu_sources)} PROPERTIES LANGUAGE HIP)")
    return out, extra


_NVCC = re.compile(r"(?<![\w.-])(?:[^\s=:]*/)?nvcc(?![\w.-])")
_ARCH_FLAG = re.compile(
    r"(?<!\S)(?:-arch(?:=|\s+)(?:sm|compute)_\d+a?"
    r"|--gpu-architecture(?:=|\s+)(?:sm|compute)_\d+a?"
    r"|-code(?:=|\s+)\S+"
    r"|(?:-gencode|--generate-code)(?:=|\s+)\"?arch=compute_\d+a?,code=(?:\[[^\]]*\]|\"[^\"]*\"|[\w,]+)\"?)(?!\S)")
_XCOMPILER = re.compile(r"(?<!\S)-Xcompiler(?:=|\s+)(\S+)")


def translate_makefile(lines: list[str], rec: _Recorder, options: TranslateOptions) -> list[str]:
    bm = load_build_mapping()
    offload = " ".join(f"--offload-arch={a}" for a in options.amd_arch)
    flag_re = re.compile(r"(?<!\S)(" + "|".join(sorted(map(re.escape, bm.make_flags), key=len, reverse=True)) + r")(?!\S)")
    bad_re = re.compile(r"(?<![\w-])(" + "|".join(sorted(map(re.escape, bm.make_unconverted), key=len, reverse=True))
                        + r")(?![\w])")
    out: list[str] = []
    for n, line in enumerate(lines, start=1):
        code, comment = _split_comment(line)
        new = code
        if _NVCC.search(new):
            for m in _NVCC.findall(new):
                rec.ok(n, m, "hipcc")
            new = _NVCC.sub("hipcc", new)
        first = [True]

        def arch_sub(m: re.Match[str], n: int = n, first: list[bool] = first) -> str:
            rec.ok(n, m.group(0), offload if first[0] else "")
            if first[0]:
                first[0] = False
                return offload
            return ""

        new = _ARCH_FLAG.sub(arch_sub, new)
        if not first[0]:
            new = re.sub(r"(\S) {2,}(?=\S)", r"\1 ", new) if new.strip() else new

        def x_sub(m: re.Match[str], n: int = n) -> str:
            rec.ok(n, m.group(0), m.group(1).replace(",", " "))
            return m.group(1).replace(",", " ")

        new = _XCOMPILER.sub(x_sub, new)

        def f_sub(m: re.Match[str], n: int = n) -> str:
            rec.ok(n, m.group(1), bm.make_flags[m.group(1)])
            return bm.make_flags[m.group(1)]

        new = flag_re.sub(f_sub, new)
        for w in bad_re.findall(new):
            rec.bad(n, w, bm.make_unconverted[w])
        out.append(new + comment)
    return out


def translate_build_file(pf: Any, options: TranslateOptions) -> TranslatedFile:
    rec = _Recorder(pf.display)
    lines = pf.text.split("\n")
    if pf.kind == "cmake":
        new_lines, extra = translate_cmake(lines, rec, options)
    elif pf.kind == "make":
        new_lines, extra = translate_makefile(lines, rec, options), []
    else:
        new_lines, extra = lines, []
        rec.notes.append(f"{pf.display}: left unchanged (PyTorch's cpp_extension hipifies CUDAExtension builds on ROCm)")
    text = "\n".join(new_lines)
    if extra:
        if not text.endswith("\n"):
            text += "\n"
        text += "\n".join(extra) + "\n"
    out = text.encode(pf.encoding if getattr(pf, "encoding", "utf-8") else "utf-8", errors="replace")
    result = finish_file(pf, text, out, rec.refs, rec.flags, [], rec.notes)
    if extra:
        result.notes.append(f"{pf.display}: {len(extra)} line(s) appended after line {len(pf.lines)} "
                            "(find_package / LANGUAGE HIP)")
    return result
