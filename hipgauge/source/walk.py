"""Find the source and build files of a tree.

Honours ``.gitignore`` files (at every level, git's own matching via pathspec) and ``exclude`` globs
(gitignore syntax, matched against the path relative to the scanned root). Follows symlinks to folders
once (a folder reached twice, e.g. through a symlink loop, is not entered again) and only inside the
tree: a link (to a file or a folder) whose target lies outside the scanned root is skipped, never read.
A file reached twice (named on the command line and inside a folder also given) is listed once, by its
real path. A symlink that cannot be resolved is reported as skipped. Never raises for a bad file: it lands in the skipped list.

Extensionless headers (``cuda/std/atomic``, libc++-style) are walked as headers when they sit below an
include-like folder (``include``, ``inc``…) and their first bytes start like C/C++ (``//``, ``/*``,
``#pragma``, ``#ifndef``, ``#include``…); scripts, LICENSE files and the like are not. Python files
(kind ``python``, for CUDA C++ in their string literals) are walked only when asked (``python=True``).
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hipgauge.model import SkippedFile

if TYPE_CHECKING:
    import pathspec

CUDA_SUFFIXES = {".cu", ".cuh"}
CPP_SUFFIXES = {".cpp", ".cc", ".cxx", ".c++"}
HEADER_SUFFIXES = {".h", ".hpp", ".hh", ".hxx", ".inl"}
MAKE_NAMES = {"Makefile", "makefile", "GNUmakefile"}
PYTHON_SUFFIXES = {".py"}
#: folders (anywhere above a file) whose extensionless files may be headers
INCLUDE_DIRS = {"include", "includes", "inc"}
#: how an extensionless header starts (after blanks): a comment or a preprocessor line
_HEADER_STARTS = (b"//", b"/*", b"#pragma", b"#ifndef", b"#if", b"#include", b"#define", b"# ")
_SNIFF_BYTES = 512
SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "node_modules", ".tox", ".mypy_cache", ".pytest_cache"}


@dataclass(frozen=True)
class SourceEntry:
    """One file the walk found, with its kind and size."""

    path: Path  # absolute
    display: str  # relative to the scanned root, '/'-separated
    kind: str  # cuda, cpp, header, cmake, make, setup.py, python
    size: int = 0


#: the build scripts ``hipgauge.source.build_selection`` reads (CMake files and setup.py)
SELECTION_KINDS = ("cmake", "setup.py")


def read_text_bytes(entry: SourceEntry, max_bytes: int) -> bytes | None:
    """Up to ``max_bytes + 1`` bytes of a walked file, for the tree-wide pre-passes; None when it cannot be read or
    looks binary (a NUL in its first 8 KiB): the scan itself reports those files."""
    try:
        with open(entry.path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError:
        return None
    return None if b"\x00" in data[:8192] else data


def kind_of(name: str) -> str | None:
    """The kind of a file from its name, or None when hipgauge does not read it."""
    suffix = os.path.splitext(name)[1].lower()
    if suffix in CUDA_SUFFIXES:
        return "cuda"
    if suffix in CPP_SUFFIXES:
        return "cpp"
    if suffix in HEADER_SUFFIXES:
        return "header"
    if name == "CMakeLists.txt" or suffix == ".cmake":
        return "cmake"
    if name in MAKE_NAMES or suffix == ".mk":
        return "make"
    if name == "setup.py":
        return "setup.py"
    if suffix in PYTHON_SUFFIXES:
        return "python"
    return None


def looks_like_header(path: Path | str) -> bool:
    """True when a file's first bytes start like C/C++ (a comment or a preprocessor line), not a ``#!`` script
    or text. Unreadable files are not headers."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        return False
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    head = head.lstrip(b" \t\r\n")
    if b"\x00" in head or not head.startswith(_HEADER_STARTS):
        return False
    if head.startswith(b"# "):  # ``# include``/``# define`` (spaced directives); not a ``# comment`` of a script
        word = head[1:].lstrip(b" \t").split(None, 1)
        return bool(word) and word[0] in (b"include", b"define", b"ifndef", b"if", b"pragma")
    return True


def bare_header_kind(name: str, in_include_dir: bool, path: Path | str) -> str | None:
    """``header`` for an extensionless file below an include-like folder that starts like C/C++, else None."""
    if not in_include_dir or "." in name or name in MAKE_NAMES:
        return None
    return "header" if looks_like_header(path) else None


def _in_include_dir(folder: Path) -> bool:
    return any(part in INCLUDE_DIRS for part in folder.absolute().parts)


def _spec(lines: list[str]) -> pathspec.PathSpec | None:
    lines = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        return None
    import pathspec  # noqa: PLC0415 - only when there are patterns (.gitignore, --exclude): a small translate starts faster

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception:  # noqa: BLE001 - a malformed pattern never stops a scan
        return None


def _read_gitignore(folder: Path) -> pathspec.PathSpec | None:
    try:
        text = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return _spec(text.splitlines())


class _Walker:
    def __init__(self, exclude: list[str], max_file_bytes: int, python: bool = False):
        self.exclude = _spec(list(exclude))
        self.max_file_bytes = max_file_bytes
        self.python = python
        self.entries: list[SourceEntry] = []
        self.skipped: list[SkippedFile] = []
        self.seen_dirs: set[tuple[int, int]] = set()
        self.seen_files: set[str] = set()
        self.seen_real: set[str] = set()  # real paths already listed: a file and its folder both given count once
        self.root_real: str | None = None  # the real path of the tree being walked: links never lead out of it

    def outside(self, real: str) -> bool:
        """Whether the real path ``real`` lies outside the tree being walked."""
        root = self.root_real
        return root is not None and real != root and not real.startswith(root.rstrip(os.sep) + os.sep)

    def excluded(self, rel: str, is_dir: bool) -> bool:
        if self.exclude is None:
            return False
        return self.exclude.match_file(rel + "/" if is_dir else rel)

    def kind(self, name: str) -> str | None:
        """``kind_of`` for this walk (Python files only when asked)."""
        kind = kind_of(name)
        return None if kind == "python" and not self.python else kind

    def add_file(self, path: Path, display: str, st: os.stat_result | None = None, kind: str | None = None,
                 real: str | None = None) -> None:
        kind = kind or self.kind(path.name)
        if kind is None:
            return
        if display in self.seen_files:
            return
        self.seen_files.add(display)
        real = real or os.path.realpath(path)
        if real in self.seen_real:
            return  # the same file reached again (named on its own and inside a folder also given)
        self.seen_real.add(real)
        try:
            st = st or path.stat()
        except OSError as exc:
            reason = "symlink loop" if exc.errno == 40 else f"unreadable: {exc.strerror or exc.__class__.__name__}"
            self.skipped.append(SkippedFile(display, reason))
            return
        if not stat.S_ISREG(st.st_mode):
            self.skipped.append(SkippedFile(display, "not a regular file"))
            return
        if st.st_size > self.max_file_bytes:
            self.skipped.append(SkippedFile(display, f"too large ({st.st_size} bytes > max_file_bytes {self.max_file_bytes})"))
            return
        if not os.access(path, os.R_OK):
            self.skipped.append(SkippedFile(display, "unreadable: permission denied"))
            return
        self.entries.append(SourceEntry(path.absolute(), display, kind, st.st_size))

    def walk_dir(self, folder: Path, prefix: str, ignores: list[tuple[str, pathspec.PathSpec]],
                 include_dir: bool | None = None) -> None:
        try:
            st = folder.stat()
        except OSError as exc:
            reason = "symlink loop" if exc.errno == 40 else f"unreadable folder: {exc.strerror or exc.__class__.__name__}"
            self.skipped.append(SkippedFile(prefix or folder.name, reason))
            return
        key = (st.st_dev, st.st_ino)
        if key in self.seen_dirs:
            return  # reached again (symlink loop or a second link to the same folder)
        self.seen_dirs.add(key)
        if include_dir is None:
            include_dir = _in_include_dir(folder)
        else:
            include_dir = include_dir or folder.name in INCLUDE_DIRS
        spec = _read_gitignore(folder)
        if spec is not None:
            ignores = [*ignores, (prefix, spec)]
        real_folder = os.path.realpath(folder)
        try:
            with os.scandir(folder) as it:
                items = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            self.skipped.append(SkippedFile(prefix or str(folder), f"unreadable folder: {exc.strerror or exc.__class__.__name__}"))
            return
        for item in items:
            rel = f"{prefix}/{item.name}" if prefix else item.name
            try:
                is_dir = item.is_dir()  # follows symlinks
            except OSError:
                is_dir = False
            if is_dir and item.name in SKIP_DIRS:
                continue
            if self.excluded(rel, is_dir) or _ignored(rel, is_dir, ignores):
                continue
            path = Path(item.path)
            link = item.is_symlink()
            real = os.path.realpath(path) if link else os.path.join(real_folder, item.name)
            if link and self.outside(real) and (is_dir or self.kind(item.name) is not None):
                self.skipped.append(SkippedFile(rel, "symlink pointing outside the tree (not followed)"))
                continue
            if is_dir:
                self.walk_dir(path, rel, ignores, include_dir)
                continue
            kind = self.kind(item.name)
            if kind is None:
                kind = bare_header_kind(item.name, include_dir, path)
                if kind is None:
                    continue
            if link:
                try:
                    path.resolve(strict=True)
                except (OSError, RuntimeError):
                    self.skipped.append(SkippedFile(rel, "symlink loop or dangling symlink"))
                    continue
            self.add_file(path, rel, kind=kind, real=real)


def _ignored(rel: str, is_dir: bool, ignores: list[tuple[str, pathspec.PathSpec]]) -> bool:
    for base, spec in ignores:
        sub = rel[len(base) + 1:] if base else rel
        if spec.match_file(sub + "/" if is_dir else sub):
            return True
    return False


def walk_tree(paths: list[Path], exclude: list[str], max_file_bytes: int,
              python: bool = False) -> tuple[list[SourceEntry], list[SkippedFile]]:
    """Every readable source/build file under ``paths`` (sorted by display path) and the files skipped, with why.

    ``python``: also list ``.py`` files (kind ``python``; the scan reads CUDA C++ from their string literals)."""
    walker = _Walker(exclude, max_file_bytes, python)
    roots = [Path(p) for p in paths]
    several = len(roots) > 1
    for root in roots:
        label = root.name or str(root)
        prefix = label if several else ""
        try:
            is_dir = root.is_dir()
            exists = is_dir or root.exists() or root.is_symlink()
        except OSError:
            is_dir, exists = False, True
        if not exists:
            walker.skipped.append(SkippedFile(str(root), "not found"))
        elif is_dir:
            walker.root_real = os.path.realpath(root)
            walker.walk_dir(root, prefix, [])
            walker.root_real = None
        elif walker.kind(root.name) is not None:
            walker.add_file(root, root.name)
        elif "." not in root.name and root.name not in MAKE_NAMES and looks_like_header(root):
            walker.add_file(root, root.name, kind="header")  # named on its own: no include-like folder needed
        elif "." not in root.name:
            walker.skipped.append(SkippedFile(str(root), "no file extension and does not start like C/C++ "
                                                         "(a comment or #include/#pragma/#ifndef line)"))
        else:
            walker.skipped.append(SkippedFile(str(root), "not a source or build file hipgauge reads"))
    walker.entries.sort(key=lambda e: e.display)
    walker.skipped.sort(key=lambda s: s.path)
    return walker.entries, walker.skipped


def kernel_builder_tomls(entries: Iterable[SourceEntry]) -> dict[str, str]:
    """Hugging Face kernel-builder ``build.toml`` files in a folder of a walked file or above it, up to the folder
    walked (the walk lists sources, not TOML; one stat per folder): display path -> path on disk."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    for e in entries:
        folder, disk = posixpath.dirname(e.display), os.path.dirname(str(e.path))
        while folder not in seen:
            seen.add(folder)
            cand = os.path.join(disk, "build.toml")
            if os.path.isfile(cand):
                out[posixpath.join(folder, "build.toml")] = cand
            if not folder:
                break
            folder, disk = posixpath.dirname(folder), os.path.dirname(disk)
    return out

