"""Which files of a scan were not analysed, said once in words for the headline of every output.

A file that could not be analysed (binary, too large, unreadable, an internal error…) is left out of every
figure; the caveat names it so no reader takes the figures for the whole tree (issue 15: never skip silently).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: how many file names the one-line caveat spells out before "and N more"
NAMED = 3


def not_analysed(skipped: Iterable[Any]) -> dict[str, Any]:
    """``{"count", "files": [{"path", "reason"}], "caveat": str | None}`` for a scan's skipped files (records or
    their dicts)."""
    rows = []
    for s in skipped:
        path = s.get("path") if isinstance(s, dict) else getattr(s, "path", "?")
        reason = s.get("reason") if isinstance(s, dict) else getattr(s, "reason", "")
        rows.append({"path": str(path), "reason": str(reason or "")})
    return {"count": len(rows), "files": rows, "caveat": caveat(rows)}


def caveat(rows: list[dict[str, str]]) -> str | None:
    """``2 files not analysed: a.cu (binary), b.cu (too large) — figures exclude them``; None when none."""
    if not rows:
        return None
    named = ", ".join(f"{r['path']} ({_short(r['reason'])})" if r["reason"] else r["path"] for r in rows[:NAMED])
    more = f" and {len(rows) - NAMED} more" if len(rows) > NAMED else ""
    noun = "file" if len(rows) == 1 else "files"
    return f"{len(rows)} {noun} not analysed: {named}{more} — figures exclude them"


def _short(reason: str) -> str:
    reason = " ".join(reason.split())
    return reason if len(reason) <= 60 else reason[:57] + "…"
