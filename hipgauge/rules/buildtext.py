"""Build files (CMake, Make, setup.py) are read lexically, line by line, with comments blanked out."""

from __future__ import annotations

from hipgauge.source.pybranches import blank_prose


def strip_comments(lines: list[str], kind: str) -> list[str]:
    """The lines with ``#`` comments replaced by spaces (columns keep their positions).

    A ``#`` inside a quoted string is not a comment (setup.py and CMake both quote flags); in a
    Makefile a ``\\#`` is a literal hash.
    """
    if kind == "setup.py":  # docstrings and message strings name flags without passing them
        lines = blank_prose(lines)
    out: list[str] = []
    for line in lines:
        quote = ""
        cut = len(line)
        i = 0
        while i < len(line):
            ch = line[i]
            if quote:
                if ch == "\\":
                    i += 2
                    continue
                if ch == quote:
                    quote = ""
            elif ch == "\\" and kind == "make":
                i += 2
                continue
            elif ch in ("'", '"') and kind != "make":
                quote = ch
            elif ch == "#":
                cut = i
                break
            i += 1
        out.append(line[:cut] + " " * (len(line) - cut))
    return out
