"""Target-aware translation: what the ROCm release the user builds with offers (data: ``rocm_releases.toml``).

The name mapping and the safe rewrites give one HIP text for every release; this pass adjusts that text, after
either rewrite path, to the target release:

* ``*_sync`` warp calls and ``__syncwarp(mask)`` the safe rewrites left (a mask in a variable, a partial mask):
  a release without the builtins gets the unmasked intrinsic / a wave barrier, each with an assumption that
  every lane of the wavefront the mask names takes part; a release with them gets the mask widened to 64 bits.
* ``cuda_bf16.h``: the first HIP header of ``[header_fallback]`` the release ships, with the bf16 names and
  conversion calls read the way that header spells them.
* ``HIP_SYMBOL(…)`` around the symbol argument of ``hipMemcpyToSymbol`` & co. when it names a ``__device__`` /
  ``__constant__`` variable of the tree (``safe_rewrites.toml [hip_symbol]``).

Every edit keeps the line structure. The target release comes from ``--rocm-version``, else the installed
hipcc's HIP version (read from its ``hip_version.h``, else ``hipconfig --version``), else the newest release in
the data.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from hipgauge.errors import InputError
from hipgauge.knowledge.rocm_releases import DATA_FILE, RocmTarget, load_releases, parse_version
from hipgauge.translate.rewrite import split_args as _split_args
from hipgauge.translate.safe_rewrites import HIP_SYMBOL, SYNCWARP, WARP_MASK, load_safe_rewrites

def _hip_version_header(hipcc: str) -> tuple[int, int] | None:
    """HIP_VERSION_MAJOR/MINOR from the ``hip_version.h`` beside the hipcc found (no process started)."""
    real = Path(os.path.realpath(hipcc))
    for root in (real.parent.parent, Path(hipcc).parent.parent):
        header = root / "include" / "hip" / "hip_version.h"
        try:
            text = header.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        major = re.search(r"#\s*define\s+HIP_VERSION_MAJOR\s+(\d+)", text)
        minor = re.search(r"#\s*define\s+HIP_VERSION_MINOR\s+(\d+)", text)
        if major and minor:
            return int(major.group(1)), int(minor.group(1))
    return None


def on_path(name: str) -> str | None:
    """``shutil.which(name)`` for a command name: the first executable file ``name`` in the folders of ``PATH``
    (shutil is not imported for it: with bz2, lzma and zlib it is ~3 ms of a small translate's start-up)."""
    for folder in os.get_exec_path():
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


@lru_cache(maxsize=1)
def installed_rocm_version() -> tuple[tuple[int, int], str] | None:
    """(version, where it was read) of the installed hipcc, or None when there is none."""
    hipcc = os.environ.get("HIPGAUGE_HIPCC") or on_path("hipcc")
    if not hipcc:
        for cand in ("/opt/rocm/bin/hipcc", "/usr/bin/hipcc"):
            if os.access(cand, os.X_OK):
                hipcc = cand
                break
    if not hipcc:
        return None
    found = _hip_version_header(hipcc)
    if found is not None:
        return found, f"installed hipcc ({hipcc}, hip_version.h)"
    import subprocess  # noqa: PLC0415 - only when hip_version.h is not found (start-up time of a small translate)

    for tool, args in ((os.path.join(os.path.dirname(hipcc), "hipconfig"), ["--version"]), (hipcc, ["--version"])):
        try:
            proc = subprocess.run([tool, *args], capture_output=True, text=True, timeout=30,
                                  env={**os.environ, "HIP_PLATFORM": "amd"})
        except (OSError, subprocess.TimeoutExpired):
            continue
        text = proc.stdout + proc.stderr
        m = re.search(r"HIP version:\s*(\S+)", text) or re.search(r"^\s*(\d+\.\d+\.\S*)", text, re.M)
        v = parse_version(m.group(1)) if m else None
        if v is not None:
            return v, f"installed hipcc ({tool} --version)"
    return None


def resolve_target(requested: str | None) -> RocmTarget:
    """The release to translate for: ``requested`` (``--rocm-version``; InputError when malformed), else the
    installed hipcc's, else the newest in the data."""
    data = load_releases()
    if requested:
        v = parse_version(requested)
        if v is None:
            raise InputError(f"--rocm-version must look like 6.2 (MAJOR.MINOR); got {requested!r}")
        return RocmTarget(f"{v[0]}.{v[1]}", data.release_for(v), "--rocm-version")
    found = installed_rocm_version()
    if found is not None:
        v, where = found
        return RocmTarget(f"{v[0]}.{v[1]}", data.release_for(v), where)
    n = data.newest
    return RocmTarget(f"{n.version[0]}.{n.version[1]}", n, f"newest release in hipgauge/data/{DATA_FILE} (no hipcc found)")


# ---------------------------------------------------------------------------------------------------------
# The text pass
# ---------------------------------------------------------------------------------------------------------

_SKIP = re.compile(r"""//(?:[^\\\n]|\\.)*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""", re.S)
_WIDE = re.compile(r"^(?:0[xX][0-9a-fA-F]*[uU]?[lL]{2}|0[xX][0-9a-fA-F]*[lL]{2}[uU]|0[xX][0-9a-fA-F]{9,}[uUlL]*|"
                   r"~0[uU]?[lL]{2}|__activemask\(\)|__ballot\(.*\)|.*\b(?:uint64_t|unsigned\s+long\s+long)\b.*)$", re.S)


#: a file with none of these substrings is left as it is without a look at its tokens (substring tests: C speed)
_WORTH = ("_sync(", "_sync (", "__syncwarp", "bf16", "bfloat16", "Symbol")


@dataclass
class TargetEdit:
    """One edit made for the target ROCm release."""

    line: int
    rule: str  # warp-mask-dropped | syncwarp-mask | mask-widened | bf16-header | bf16 | hip-symbol
    cuda_name: str  # the reference this converts (as the rewrite recorded it)
    hip_name: str
    before: str
    after: str
    assumption: str = ""


@dataclass
class TargetResult:
    """A text after the target release's edits, with the edits."""

    text: str
    edits: list[TargetEdit] = field(default_factory=list)


class _Text:
    def __init__(self, text: str):
        self.text = text
        self.skip_starts: list[int] = []
        self.skip_ends: list[int] = []
        for m in _SKIP.finditer(text):
            self.skip_starts.append(m.start())
            self.skip_ends.append(m.end())
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self.repl: list[tuple[int, int, str]] = []

    def in_skip(self, pos: int) -> bool:
        i = bisect_right(self.skip_starts, pos) - 1
        return i >= 0 and pos < self.skip_ends[i]

    def line_of(self, pos: int) -> int:
        return bisect_right(self.line_starts, pos)

    def member_or_def(self, start: int) -> bool:
        before = self.text[max(0, start - 64):start].rstrip()
        return before.endswith((".", "->", "::")) or bool(re.search(r"#\s*define\s*$", before))

    def replace(self, start: int, end: int, new: str) -> bool:
        for s, e, _ in self.repl:
            if start < e and s < end:
                return False
        self.repl.append((start, end, new))
        return True

    def result(self) -> str:
        out = self.text
        for s, e, new in sorted(self.repl, reverse=True):
            out = out[:s] + new + out[e:]
        return out


def apply_target(text: str, target: RocmTarget, safe: frozenset[str], device_symbols: frozenset[str] = frozenset(),
                 local_names: Any = frozenset()) -> TargetResult:
    """Adjust one translated file's text to ``target`` (see the module docstring). ``safe``: the safe rewrites
    turned on (``warp-mask``, ``syncwarp``, ``hip-symbol``); ``local_names``: names the project defines itself
    (its own ``__shfl_sync`` shim is never touched)."""
    if not any(k in text for k in _WORTH):
        return TargetResult(text)
    t = _Text(text)
    sr = load_safe_rewrites()
    edits: list[TargetEdit] = []
    if WARP_MASK in safe or SYNCWARP in safe:
        _warp(t, target, sr, safe, local_names, edits, _split_args)
    _bf16(t, target, edits, _split_args)
    if HIP_SYMBOL in safe and device_symbols | _file_symbols(t):
        _symbols(t, sr.hip_symbol, device_symbols | _file_symbols(t), edits, _split_args)
    return TargetResult(t.result(), sorted(edits, key=lambda e: e.line))


def _names_pattern(names: Any) -> re.Pattern[str]:
    # longest first; equal lengths by text, so the pattern is the same in every run (regex_cache.py keeps it)
    return re.compile(r"\b(" + "|".join(sorted((re.escape(n) for n in names), key=lambda n: (-len(n), n))) + r")\b")


def _call_sites(t: _Text, names: Any, split_args: Any, blanks: str = " \t", skip: Any = ()
                ) -> Iterator[tuple[re.Match[str], list[tuple[int, int]], int]]:
    """Each call ``name(…)`` of one of ``names`` outside skipped text, member access and definitions (and not of a
    name in ``skip``): the match, its argument spans and the offset of its closing parenthesis. ``blanks``: what
    may stand between the name and its ``(``."""
    text = t.text
    for m in _names_pattern(names).finditer(text):
        if t.in_skip(m.start()) or t.member_or_def(m.start()) or m.group(1) in skip:
            continue
        j = m.end()
        while j < len(text) and text[j] in blanks:
            j += 1
        if j >= len(text) or text[j] != "(":
            continue
        parsed = split_args(text, j)
        if parsed is not None:
            yield m, parsed[0], parsed[1]


def _warp(t: _Text, target: RocmTarget, sr: Any, safe: frozenset[str], local_names: Any,
          edits: list[TargetEdit], split_args: Any) -> None:
    text = t.text
    names = set(sr.warp_sync) | {sr.syncwarp_cuda}
    rel = target.release
    why = {"none": f"ROCm {target.version} has no *_sync warp builtins",
           "opt-in": f"ROCm {target.version} declares the *_sync warp builtins only with {rel.warp_sync_macro} "
                     "defined (and has no __syncwarp)",
           "default": ""}[rel.warp_sync]
    for m, spans, close in _call_sites(t, names, split_args, skip=local_names):
        name, start = m.group(1), m.start()
        line = t.line_of(start)
        before = text[start:close + 1]
        if name == sr.syncwarp_cuda:
            if SYNCWARP not in safe or not spans:
                continue
            mask = text[spans[0][0]:spans[0][1]]
            if target.warp_sync_builtins:
                if _WIDE.match(mask) or not t.replace(spans[0][0], spans[0][1], f"static_cast<unsigned long long>({mask})"):
                    continue
                after = f"{name}(static_cast<unsigned long long>({mask}))"
                edits.append(TargetEdit(line, "mask-widened", name, name, before, after, _widened(mask, target)))
            else:
                after = f"{sr.syncwarp_hip}()"
                if not t.replace(start, close + 1, after):
                    continue
                edits.append(TargetEdit(
                    line, "syncwarp-mask", name, sr.syncwarp_hip, before, after,
                    f"mask `{mask}` dropped ({why}): a wave barrier assumes every lane of the 64-lane wavefront "
                    "reaches this __syncwarp together (full participation); lanes outside the mask are no longer "
                    "exempt"))
            continue
        if WARP_MASK not in safe or len(spans) < 2:
            continue
        mask = text[spans[0][0]:spans[0][1]]
        hip = sr.warp_sync[name]
        if target.warp_sync_builtins:
            if _WIDE.match(mask) or not t.replace(spans[0][0], spans[0][1], f"static_cast<unsigned long long>({mask})"):
                continue
            after = text[start:spans[0][0]] + f"static_cast<unsigned long long>({mask})" + text[spans[0][1]:close + 1]
            edits.append(TargetEdit(line, "mask-widened", name, name, before, after, _widened(mask, target)))
        else:
            if not t.replace(start, spans[1][0], f"{hip}("):
                continue
            after = f"{hip}(" + text[spans[1][0]:close + 1]
            edits.append(TargetEdit(
                line, "warp-mask-dropped", name, hip, before, after,
                f"mask `{mask}` dropped ({why}): {hip} assumes every lane of the 64-lane wavefront that the mask "
                "names executes this call together (full participation); lanes outside a partial mask now take "
                "part" + (" and set bits in the result" if name == "__ballot_sync" else "")))


def _widened(mask: str, target: RocmTarget) -> str:
    return (f"mask `{mask}` widened to 64 bits (ROCm {target.version}'s *_sync builtins static_assert a 64-bit mask): "
            "a 32-bit mask names lanes 0-31 only, so on a 64-lane wavefront every participating lane must be in it; "
            "keep masks from __ballot_sync/__activemask in 64-bit variables")


def _bf16(t: _Text, target: RocmTarget, edits: list[TargetEdit], split_args: Any) -> None:
    data = load_releases()
    text = t.text
    if "bf16" not in text and "bfloat16" not in text:
        return
    chosen = target.header_for("cuda_bf16.h")
    if chosen is None:
        return
    for other in data.header_fallback.get("cuda_bf16.h", ()):
        if other == chosen:
            continue
        for m in re.finditer(r"#[ \t]*include[ \t]*([<\"])" + re.escape(other) + r"[>\"]", text):
            if t.in_skip(m.start()):
                continue
            s = m.start(1) + 1
            if t.replace(s, s + len(other), chosen):
                edits.append(TargetEdit(t.line_of(m.start()), "bf16-header", "cuda_bf16.h", chosen, other, chosen,
                                        f"ROCm {target.version} has no {other}; {chosen} is its bf16 header"))
    names, calls = data.bf16.get(chosen, ({}, {}))
    if names:
        for m in _names_pattern(names).finditer(text):
            if t.in_skip(m.start()) or t.member_or_def(m.start()):
                continue
            new = names[m.group(1)]
            if new != m.group(1) and t.replace(m.start(), m.end(), new):
                edits.append(TargetEdit(t.line_of(m.start()), "bf16", m.group(1), new, m.group(1), new))
    if calls:
        for m, spans, close in _call_sites(t, calls, split_args):
            args = [text[a:b] for a, b in spans]
            try:
                new = calls[m.group(1)].format(*args)
            except IndexError:
                continue
            if "\n" in text[m.start():close + 1]:
                continue  # a call over several lines would join them; leave it as written
            if t.replace(m.start(), close + 1, new):
                edits.append(TargetEdit(t.line_of(m.start()), "bf16", m.group(1), new.split("(")[0],
                                        text[m.start():close + 1], new))


_DEVICE_VAR = re.compile(r"\b__(?:constant|device|managed)__\b([^;{}()]*?)\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?:=|;)")


def device_symbols_in(text: str) -> set[str]:
    """Names of ``__device__`` / ``__constant__`` / ``__managed__`` variables declared in ``text`` (lexical)."""
    found: set[str] = set()
    if "__" not in text:
        return found
    for m in _DEVICE_VAR.finditer(text):
        found.add(m.group(2))
    return found


def _file_symbols(t: _Text) -> frozenset[str]:
    return frozenset(n for n in device_symbols_in(t.text))


def _symbols(t: _Text, functions: dict[str, int], symbols: frozenset[str], edits: list[TargetEdit],
             split_args: Any) -> None:
    text = t.text
    for m, spans, _close in _call_sites(t, functions, split_args, blanks=" \t\n\\"):
        index = functions[m.group(1)]
        if index >= len(spans):
            continue
        a, b = spans[index]
        arg = text[a:b]
        if not re.fullmatch(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*", arg) or arg.startswith("HIP_SYMBOL"):
            continue
        if arg.split("::")[-1] not in symbols:
            continue
        new = f"HIP_SYMBOL({arg})"
        if t.replace(a, b, new):
            edits.append(TargetEdit(t.line_of(a), "hip-symbol", m.group(1), m.group(1), arg, new))
