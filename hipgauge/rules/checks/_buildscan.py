"""Lexical scan of comment-blanked build-file lines (CMake, Make, setup.py)."""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from hipgauge.model import Confidence
from hipgauge.rules.hit import LineHit


def scan(lines: Iterable[str], pattern: re.Pattern[str], confidence: Confidence | None = None, detail: str = "`{0}`") -> Iterator[LineHit]:
    for i, line in enumerate(lines, 1):
        for m in pattern.finditer(line):
            yield LineHit(i, m.start() + 1, confidence, detail.format(m.group(0)))
