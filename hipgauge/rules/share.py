"""Translation share, first cut: how much of a file's CUDA-relevant code needs no hand edit.

* CUDA-relevant line: a line holding a CUDA API reference (from the inventory's ``api_calls``), a
  finding, or a CUDA construct (kernel/device qualifiers, ``<<<``, built-in index variables,
  ``__syncthreads``, warp intrinsics, ``asm``). Comment-only lines never count.
* Clean line: a CUDA-relevant line with no unmapped reference (status other than "mapped") and no
  blocker or wrong-results finding.

``translation_share = clean / cuda`` (1.0 for a file with no CUDA-relevant line). This is measured
from the source (provenance: measured); ``translate`` later refines it with the real rewrite.
"""

from __future__ import annotations

import re
from typing import Any

from hipgauge.model import FileStats, Finding, Severity
from hipgauge.source.tokens import FileTokens, file_tokens

_CONSTRUCT = re.compile(
    r"(?=[_<tbgwacC])(?:__global__|__device__|__shared__|__constant__|__managed__|__launch_bounds__|<<<"
    r"|\b(?:threadIdx|blockIdx|blockDim|gridDim|warpSize|asm)\b|__syncthreads|__syncwarp|__shfl\w*|__ballot\w*"
    r"|__activemask|\bcuda[A-Z]\w*|\bcu[A-Z][a-z]\w*|\bCU[A-Z_]+\b)")
_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)
_SEVERE = {Severity.BLOCKER, Severity.WRONG_RESULTS}


#: the same constructs split in two: literals found anywhere (C-speed substring search), and those that start at
#: a word boundary, each within one identifier (classified over the file's identifiers)
_CONSTRUCT_LITERALS = (b"__global__", b"__device__", b"__shared__", b"__constant__", b"__managed__",
                       b"__launch_bounds__", b"<<<", b"__syncthreads", b"__syncwarp", b"__shfl", b"__ballot",
                       b"__activemask")
_CONSTRUCT_WORD = re.compile(
    rb"\b(?:threadIdx|blockIdx|blockDim|gridDim|warpSize|asm)\b|\bcuda[A-Z]\w*|\bcu[A-Z][a-z]\w*|\bCU[A-Z_]+\b")
_COMMENT_OR_STRING_BYTES = re.compile(_COMMENT_OR_STRING.pattern.encode(), re.S)
_NOT_NEWLINE = re.compile(r"[^\n]")
#: identifiers that hold / do not hold a construct (memo per process: the files of one tree share most identifiers)
_CONSTRUCT_WORDS: set[bytes] = set()
_OTHER_WORDS: set[bytes] = set()

def _blank(m: re.Match[str]) -> str:
    return _NOT_NEWLINE.sub(" ", m.group(0))


def _construct_lines(text: str, data: bytes | None = None, tokens: Any = None) -> set[int]:
    """1-based lines holding a CUDA construct outside comments and string literals.

    ASCII files (nearly all): the literal constructs (``__global__``, ``<<<``, ``__shfl``…) are found by
    substring search; the others start at a word boundary within one identifier, so the file's identifiers
    (tokenized once, shared with the inventory and the rules) are classified and their occurrences located;
    positions inside comments/strings are dropped. No regex pass over the text. Other
    files: the text with comments/strings blanked is searched (Unicode word boundaries as in ``str``).
    """
    if data is None:
        data = text.encode("utf-8")
    if not data.isascii():
        return _construct_lines_unicode(text)
    if tokens is None:
        tokens = FileTokens(data)
    if len(_OTHER_WORDS) > 500_000:
        _OTHER_WORDS.clear()
    for tok in tokens.idents - _CONSTRUCT_WORDS - _OTHER_WORDS:
        (_CONSTRUCT_WORDS if _CONSTRUCT_WORD.search(tok) else _OTHER_WORDS).add(tok)
    words = tokens.idents & _CONSTRUCT_WORDS
    cands = [p for p, _w in tokens.occurrences(words)] if words else []
    for lit in _CONSTRUCT_LITERALS:
        pos = data.find(lit)
        while pos >= 0:
            cands.append(pos)
            pos = data.find(lit, pos + len(lit))
    cands.sort()
    if not cands:
        return set()
    out: set[int] = set()
    spans = _COMMENT_OR_STRING_BYTES.finditer(data)
    span_start, span_end = -1, -1
    line, prev = 1, 0
    for pos in cands:
        while span_end <= pos:
            m = next(spans, None)
            if m is None:
                span_start = span_end = len(data) + 1
                break
            span_start, span_end = m.span()
        if span_start <= pos < span_end:
            continue  # in a comment or a string literal
        line += data.count(b"\n", prev, pos)
        prev = pos
        out.add(line)
    return out


def _construct_lines_unicode(text: str) -> set[int]:
    code = _COMMENT_OR_STRING.sub(_blank, text)
    out: set[int] = set()
    line, prev = 1, 0
    for m in _CONSTRUCT.finditer(code):
        pos = m.start()
        line += code.count("\n", prev, pos)
        prev = pos
        out.add(line)
    return out


def file_stats(pf: Any, api_calls: list[Any] | None, findings: list[Finding]) -> FileStats:
    count = getattr(pf, "line_count", None)
    stats = FileStats(file=getattr(pf, "display", "?"),
                      lines=count if isinstance(count, int) else len(getattr(pf, "lines", None) or []))
    relevant: set[int] = set()
    dirty: set[int] = set()
    by_kind: dict[str, int] = {}
    for call in api_calls or []:
        relevant.add(call.line)
        by_kind[call.kind] = by_kind.get(call.kind, 0) + 1
        if call.status == "mapped":
            stats.refs_mapped += 1
        else:
            stats.refs_unmapped += 1
            dirty.add(call.line)
    for f in findings:
        relevant.add(f.line)
        if Severity(f.severity) in _SEVERE:
            dirty.add(f.line)
    if getattr(pf, "kind", "cuda") in ("cuda", "cpp", "header"):
        text = getattr(pf, "text", None)
        if text is None:
            text = "\n".join(getattr(pf, "lines", None) or [])
        data = getattr(pf, "data", None)
        tokens = None
        if data is not None:
            tokens = file_tokens(pf)
        relevant |= _construct_lines(text, data, tokens)
    stats.refs_by_kind = dict(sorted(by_kind.items()))
    stats.cuda_lines = len(relevant)
    stats.clean_lines = len(relevant - dirty)
    return stats


def overall_share(stats: list[FileStats]) -> float:
    """Clean CUDA-relevant lines over all CUDA-relevant lines, across files (1.0 when there are none)."""
    cuda = sum(s.cuda_lines for s in stats)
    clean = sum(s.clean_lines for s in stats)
    return 1.0 if cuda == 0 else clean / cuda
