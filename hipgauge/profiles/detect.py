"""Which profile format a file is, from its content (the extension is only a tie-breaker).

``detect_format(path) -> str | None``: the registered format (``readers/registry.py``) whose ``sniff``
scores the file's head highest (a format of any role: the latency CSV too), or None.
``find_in_directory(path)``: the profile file inside a tool's output folder.
"""

from __future__ import annotations

from pathlib import Path

from .readers.registry import PROFILE, Head, formats, header_fields

__all__ = ["detect_format", "find_in_directory", "header_fields"]

#: the catch-all picks in a folder, after every format's own file names
_GENERIC_PICKS = (("*.json.gz", 900), ("*.json", 910), ("*.csv", 920))


def detect_format(path: Path) -> str | None:
    head = Head.of(Path(path))
    if not head.bytes:
        return None
    best: tuple[float, str] | None = None
    for fmt in formats().values():
        score = fmt.sniff(head)
        if score is None or score is False:
            continue
        value = float(score)
        if value > 0 and (best is None or value > best[0]):
            best = (value, fmt.name)
    return best[1] if best else None


def _picks() -> list[str]:
    """Glob patterns of the files to read in a tool's output folder, most specific first."""
    ranked = [(rank, pattern) for fmt in formats().values() if fmt.role == PROFILE for pattern, rank in fmt.files]
    ranked += [(rank, pattern) for pattern, rank in _GENERIC_PICKS]
    seen: list[str] = []
    for _, pattern in sorted(ranked, key=lambda rp: rp[0]):
        if pattern not in seen:
            seen.append(pattern)
    return seen


def find_in_directory(path: Path) -> Path | None:
    """The profile file a tool's output folder holds, or None. Searches up to 3 levels down."""
    path = Path(path)
    known = formats()
    for pattern in _picks():
        for depth in range(3):
            prefix = "*/" * depth
            hits = sorted(p for p in path.glob(prefix + pattern) if p.is_file())
            hits = [p for p in hits if (f := detect_format(p)) is not None and known[f].role == PROFILE]
            if hits:
                return hits[0]
    return None
