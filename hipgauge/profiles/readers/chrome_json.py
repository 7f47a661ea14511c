"""Stream the ``traceEvents`` of a Chrome trace JSON in bounded memory.

A Chrome trace is one JSON object (or a bare array) whose ``traceEvents`` array holds every event.
Parsing a multi-gigabyte trace whole costs several times its size in Python objects, so this
module reads the (decompressed) bytes in chunks, cuts each chunk at an event boundary and parses
the chunk with orjson. A cut is a ``}`` ``,`` ``{`` sequence; when one falls inside a string or a
nested object the chunk does not parse as ``[chunk]`` and an earlier cut is tried, so a successful
parse always ends on a real event boundary. Memory stays near a few chunks whatever the file size.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from hipgauge.errors import InputError

from .files import LimitedReader, check_records, max_bytes_limit

CHUNK_BYTES = 4 * 1024 * 1024
#: bytes held while looking for the next event boundary: one event (or unstructured data) larger than this is refused
MAX_PENDING_BYTES = 256 * 1024 * 1024
_WS = b" \t\r\n"
_EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')


class ChromeTrace:
    """``header`` (every top-level key except traceEvents, complete once ``events()`` is exhausted)
    and ``events()``, an iterator of lists of event dicts."""

    def __init__(self, path: Path, max_bytes: int | None = None, chunk_bytes: int = CHUNK_BYTES):
        self.path = Path(path)
        self.chunk_bytes = chunk_bytes
        self.header: dict[str, Any] = {}
        self.records = 0  # events parsed so far (for error messages)
        self._reader = LimitedReader(self.path, max_bytes_limit(max_bytes))

    # -- reading --------------------------------------------------------------------------------
    def _fill(self, data: bytes, want: int) -> tuple[bytes, bool]:
        parts = [data]
        size = len(data)
        while size < want:
            piece = self._reader.read(self.chunk_bytes)
            if not piece:
                return b"".join(parts), True
            parts.append(piece)
            size += len(piece)
        return b"".join(parts), False

    def _fail(self, what: str) -> InputError:
        return InputError(f"{what} (after trace event #{self.records})", self.path)

    def events(self) -> Iterator[list[dict[str, Any]]]:
        try:
            yield from self._events()
        finally:
            self._reader.close()

    def _events(self) -> Iterator[list[dict[str, Any]]]:
        data, eof = self._fill(b"", self.chunk_bytes)
        data = data.lstrip(b"\xef\xbb\xbf" + _WS)
        if not data:
            raise InputError("is empty", self.path)
        if data[:1] == b"[":  # JSON Array Format: the file is the event list
            data = data[1:]
        elif data[:1] == b"{":
            while True:
                m = _EVENTS_KEY.search(data)
                if m or eof:
                    break
                data, eof = self._fill(data, len(data) + self.chunk_bytes)
            if not m:  # no traceEvents at all: parse the object for its header and stop
                try:
                    doc = orjson.loads(data)
                except orjson.JSONDecodeError as exc:
                    raise InputError(f"not valid JSON: {exc}", self.path) from None
                if not isinstance(doc, dict):
                    raise InputError("not a Chrome trace (no traceEvents)", self.path)
                self.header = doc
                return
            head = data[: m.start()].rstrip(_WS)
            head = head[:-1] if head.endswith(b",") else head
            try:
                self.header = orjson.loads(head + b"}") if head != b"{" else {}
            except orjson.JSONDecodeError as exc:
                raise InputError(f"not valid JSON before traceEvents: {exc}", self.path) from None
            data = data[m.end() :]
        else:
            raise InputError("not JSON (does not start with '{' or '[')", self.path)

        while True:
            if not eof:
                data, eof = self._fill(data, self.chunk_bytes)
            if eof:
                yield from self._tail(data)
                return
            cut = self._cut(data)
            if cut is None:  # one event larger than the chunk, or a false boundary: read more
                if len(data) > max(MAX_PENDING_BYTES, 4 * self.chunk_bytes):
                    raise self._fail(f"no event boundary in {len(data):,} bytes: not a trace, or one event too large")
                data, eof = self._fill(data, len(data) + self.chunk_bytes)
                continue
            events, rest_at = cut
            self.records += len(events)
            check_records(self.records, self.path)
            if events:
                yield events
            data = data[rest_at:]

    def _cut(self, data: bytes) -> tuple[list[dict[str, Any]], int] | None:
        pos = len(data)
        for _ in range(16):
            k = data.rfind(b"{", 0, pos)
            if k <= 0:
                return None
            j = k - 1
            while j >= 0 and data[j] in _WS:
                j -= 1
            if j >= 0 and data[j] == 0x2C:  # ','
                j -= 1
                while j >= 0 and data[j] in _WS:
                    j -= 1
                if j >= 0 and data[j] == 0x7D:  # '}'
                    try:
                        events = orjson.loads(b"[" + data[: j + 1] + b"]")
                    except orjson.JSONDecodeError:
                        pos = k
                        continue
                    return events, k
            pos = k
        return None

    def _tail(self, data: bytes) -> Iterator[list[dict[str, Any]]]:
        body = data.rstrip(_WS)
        pos = len(body)
        for _ in range(256):
            end = body.rfind(b"]", 0, pos)
            if end < 0:
                break
            trailer = body[end + 1 :].strip(_WS)
            trailer_doc: dict[str, Any] | None = None
            if trailer in (b"", b"}"):
                trailer_doc = {}
            elif trailer.startswith(b","):
                try:
                    parsed = orjson.loads(b"{" + trailer[1:])
                    trailer_doc = parsed if isinstance(parsed, dict) else None
                except orjson.JSONDecodeError:
                    trailer_doc = None
            if trailer_doc is not None:
                chunk = body[:end].rstrip(_WS)
                if chunk.endswith(b","):  # a trailing comma, as some writers leave
                    chunk = chunk[:-1]
                try:
                    events = orjson.loads(b"[" + chunk + b"]") if chunk else []
                except orjson.JSONDecodeError:
                    events = None
                if events is not None:
                    self.header.update(trailer_doc)
                    self.records += len(events)
                    check_records(self.records, self.path)
                    if events:
                        yield events
                    return
            pos = end
        raise self._fail("JSON ends before the traceEvents array is closed: truncated or not a trace")
