"""Plain-text output without rich: a console and a table that the terminal views (``scan_terminal``,
``translate_terminal``) draw on when the output goes to a file, a pipe or a pre-commit hook, or when it is small
enough to need no wrapping. Importing rich costs about 40 ms, more than a small scan's own work.

The views are written once, against rich's API: ``out.print(text_with_markup)`` and ``table(out, ...)`` with
``add_column`` / ``add_row`` / ``caption``. ``PlainConsole`` takes the same calls. Markup (``[bold]…[/bold]``,
``[dim]``, ``[/]``; rich's syntax, escapes included) is dropped, or shown as ANSI colours when ``color`` is on.
A ``PlainTable`` is columns padded to their widest cell, a header and a rule of dashes, never folded or cut.
"""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

#: rich's markup tags (``rich.markup.RE_TAGS``): ``[style]``, ``[/style]``, ``[/]``, led by a lower-case letter,
#: ``#``, ``/`` or ``@``; an odd number of backslashes before the ``[`` escapes it
_TAGS = re.compile(r"((\\*)\[([a-z#/@][^[]*?)])")
_ESCAPE = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")

#: ANSI SGR codes of the styles the views use
_SGR = {"bold": "1", "dim": "2", "italic": "3", "underline": "4", "red": "31", "green": "32", "yellow": "33",
        "blue": "34", "magenta": "35", "cyan": "36", "white": "37"}


def escape(text: str) -> str:
    """Text with every ``[`` that would start a tag escaped (``rich.markup.escape``: the same result)."""

    def backslashes(m: re.Match[str]) -> str:
        return f"{m.group(1)}{m.group(1)}\\{m.group(2)}"

    text = _ESCAPE.sub(backslashes, text)
    if text.endswith("\\") and not text.endswith("\\\\"):
        return text + "\\"
    return text


def _sgr(styles: list[str]) -> str:
    codes = [_SGR[w] for s in styles for w in s.split() if w in _SGR]
    return "\x1b[0m" + (f"\x1b[{';'.join(codes)}m" if codes else "")


def render_markup(text: str, color: bool = False) -> str:
    """``text`` with rich's markup resolved: tags dropped (or ANSI colours with ``color``), escapes undone."""
    if "[" not in text:
        return text
    parts: list[str] = []
    stack: list[str] = []
    position = 0
    for m in _TAGS.finditer(text):
        full, escapes, tag = m.groups()
        start, end = m.span()
        parts.append(text[position:start])
        position = end
        if escapes:
            pairs, escaped = divmod(len(escapes), 2)
            parts.append("\\" * pairs)
            if escaped:
                parts.append(full[len(escapes):])
                continue
        if tag.startswith("/"):
            name = tag[1:].strip()
            if name and name in stack:
                del stack[len(stack) - 1 - stack[::-1].index(name)]
            elif stack:
                stack.pop()
        else:
            stack.append(tag.strip())
        if color:
            parts.append(_sgr(stack))
    parts.append(text[position:])
    if color and stack:
        parts.append("\x1b[0m")
    return "".join(parts)


class PlainTable:
    """A table as rich's ``Table`` is built (``add_column``, ``add_row``, ``title``, ``caption``), drawn as padded
    columns. Cells are markup, as in rich."""

    def __init__(self, *headers: str, title: str | None = None, caption: str | None = None, **_style: Any):
        self.title = title
        self.caption = caption
        self.columns: list[tuple[str, str]] = [(h, "left") for h in headers]
        self.rows: list[list[str]] = []

    def add_column(self, header: str = "", justify: str = "left", **_style: Any) -> None:
        self.columns.append((header, justify))

    def add_row(self, *cells: Any) -> None:
        self.rows.append(["" if c is None else str(c) for c in cells])

    def lines(self, color: bool = False) -> list[str]:
        header = [h for h, _ in self.columns]
        body = [[render_markup(c, color=False) for c in row] for row in self.rows]
        shown = [[render_markup(c, color=color) for c in row] for row in self.rows] if color else body
        widths = [max([len(header[i])] + [len(r[i]) for r in body if i < len(r)]) for i in range(len(header))]

        def line(cells: list[str], plain: list[str]) -> str:
            out = []
            for i, (cell, raw) in enumerate(zip(cells, plain)):
                pad = " " * (widths[i] - len(raw))
                out.append(pad + cell if self.columns[i][1] == "right" else cell + pad)
            return "  ".join(out).rstrip()

        result = [render_markup(self.title, color=color)] if self.title else []
        result.append(line(header, header))
        result.append("  ".join("-" * w for w in widths))
        result.extend(line(row, raw) for row, raw in zip(shown, body))
        if self.caption:
            result.append(render_markup(self.caption, color=color))
        return result


class PlainConsole:
    """The part of ``rich.console.Console`` the terminal views use, writing plain lines to ``file`` (looked up at
    each print when None: ``sys.stdout``, or ``sys.stderr`` with ``stderr``)."""

    def __init__(self, file: TextIO | None = None, stderr: bool = False, color: bool = False):
        self._file = file
        self._stderr = stderr
        self.color = color

    @property
    def file(self) -> TextIO:
        return self._file or (sys.stderr if self._stderr else sys.stdout)

    @property
    def is_terminal(self) -> bool:
        isatty = getattr(self.file, "isatty", None)
        return bool(isatty and isatty())

    def print(self, *objects: Any, sep: str = " ", end: str = "\n", markup: bool | None = None,
              style: str | None = None, **_ignored: Any) -> None:
        texts: list[str] = []
        for obj in objects:
            if isinstance(obj, PlainTable):
                texts.append("\n".join(obj.lines(self.color)))
            elif markup is False:
                texts.append(str(obj))
            else:
                texts.append(render_markup(str(obj), self.color))
        text = sep.join(texts)
        if style and self.color:
            text = f"{_sgr([style])}{text}\x1b[0m"
        self.file.write(text + end)

    def widest(self, *objects: Any) -> int:
        """The widest line ``print(*objects)`` would write (markup dropped)."""
        width = 0
        for obj in objects:
            lines = obj.lines() if isinstance(obj, PlainTable) else render_markup(str(obj)).splitlines()
            width = max([width, *(len(x) for x in lines)])
        return width


def table(out: Any, *headers: str, **kwargs: Any) -> Any:
    """A table for ``out``: a ``PlainTable`` on a ``PlainConsole``, else a ``rich.table.Table``."""
    if isinstance(out, PlainConsole):
        return PlainTable(*headers, **kwargs)
    from rich.table import Table  # noqa: PLC0415 - rich only when the console is rich's

    return Table(*headers, **kwargs)
