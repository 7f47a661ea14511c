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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from hipgauge.errors import InputError

from .files import LimitedReader, check_records, max_bytes_limit

CHUNK_BYTES = 256 * 1024  # small enough that a chunk's decoded events stay in cache while they are processed
#: bytes held while looking for the next event boundary: one event (or unstructured data) larger than this is refused
MAX_PENDING_BYTES = 256 * 1024 * 1024
_WS = b" \t\r\n"
_EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')


class ChromeTrace:
    """``header`` (every top-level key except traceEvents, complete once ``events()`` is exhausted)
    and ``events()``, an iterator of lists of events.

    ``decode`` turns ``[event, …]`` bytes into a list (orjson dicts by default; the Kineto reader passes
    its typed msgspec decoder) and raises ``ValueError`` when the bytes are not JSON. ``start``/``stop``
    read one byte range of an uncompressed file: ``start`` must be the ``{`` of an event and ``stop``
    the ``{`` of a later one (or None: to the end), as ``kineto_events.split_points`` finds them."""

    def __init__(self, path: Path, max_bytes: int | None = None, chunk_bytes: int = CHUNK_BYTES,
                 decode: Callable[[bytes | memoryview], list[Any]] = orjson.loads, start: int = 0, stop: int | None = None):
        self.path = Path(path)
        self.chunk_bytes = chunk_bytes
        self.header: dict[str, Any] = {}
        self.records = 0  # events parsed so far (for error messages)
        self._decode = decode
        self._reader = LimitedReader(self.path, max_bytes_limit(max_bytes))
        self._start = start
        self._left: int | None = None
        if start or stop is not None:
            if self._reader.compressed:
                raise InputError("a byte range of a gzip stream cannot be read", self.path)
            self._reader.seek_raw(start)
            self._left = None if stop is None else stop - start

    # -- reading --------------------------------------------------------------------------------
    def _fill(self, data: bytes, want: int) -> tuple[bytes, bool]:
        parts = [data] if data else []
        size = len(data)
        eof = False
        while size < want:
            ask = self.chunk_bytes if self._left is None else min(self.chunk_bytes, self._left)
            piece = self._reader.read(ask) if ask > 0 else b""
            if self._left is not None:
                self._left -= len(piece)
            if not piece:
                eof = True
                break
            parts.append(piece)
            size += len(piece)
        return (parts[0] if len(parts) == 1 else b"".join(parts)), eof  # one piece: no copy

    def _fail(self, what: str) -> InputError:
        return InputError(f"{what} (after trace event #{self.records})", self.path)

    def events(self) -> Iterator[list[Any]]:
        try:
            yield from self._events()
        finally:
            self._reader.close()

    def _events(self) -> Iterator[list[Any]]:
        data, eof = self._fill(b"", self.chunk_bytes)
        data = data.lstrip(b"\xef\xbb\xbf" + _WS)
        if not data:
            raise InputError("is empty", self.path)
        if self._start:  # a later byte range: it starts at an event
            pass
        elif data[:1] == b"[":  # JSON Array Format: the file is the event list
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

        # The pending bytes live in one bytearray that starts with "[": a chunk is decoded in place by
        # writing "]" after its last event (and restoring the byte), so no chunk is copied to be framed.
        # A decoder may keep views into it (msgspec's Raw): each list handed out is emptied before the
        # buffer changes, which releases them.
        buf = bytearray(b"[")
        buf += data
        del data
        while True:
            while not eof and len(buf) - 1 < self.chunk_bytes:
                piece, eof = self._fill(b"", self.chunk_bytes - (len(buf) - 1))
                buf += piece
            if eof:
                rest = bytes(buf[1:])
                yield from (self._tail(rest) if self._left is None else self._range_tail(rest))
                return
            cut = self._cut(buf)
            if cut is None:  # one event larger than the chunk, or a false boundary: read more
                if len(buf) > max(MAX_PENDING_BYTES, 4 * self.chunk_bytes):
                    raise self._fail(f"no event boundary in {len(buf):,} bytes: not a trace, or one event too large")
                piece, eof = self._fill(b"", self.chunk_bytes)
                buf += piece
                continue
            events, rest_at = cut
            self.records += len(events)
            check_records(self.records, self.path)
            if events:
                yield events
                events.clear()
            try:
                del buf[1:rest_at]
            except BufferError:  # a caller kept an event that holds a view of the buffer: start a new one
                buf = bytearray(b"[") + buf[rest_at:]

    def _cut(self, buf: bytearray) -> tuple[list[Any], int] | None:
        """(events, start of the rest) for the last event boundary in ``buf`` (``buf[0]`` is "[") whose
        prefix decodes; None when none does among the last 16 candidates."""
        pos = len(buf)
        for _ in range(16):
            k = buf.rfind(b"{", 1, pos)
            if k <= 1:
                return None
            j = k - 1
            while j >= 1 and buf[j] in _WS:
                j -= 1
            if j >= 1 and buf[j] == 0x2C:  # ','
                j -= 1
                while j >= 1 and buf[j] in _WS:
                    j -= 1
                if j >= 1 and buf[j] == 0x7D:  # '}'
                    saved = buf[j + 1]
                    buf[j + 1] = 0x5D  # ']'
                    try:
                        events = self._decode(memoryview(buf)[: j + 2])
                    except ValueError:
                        pos = k
                        continue
                    finally:
                        buf[j + 1] = saved
                    return events, k
            pos = k
        return None

    def _tail(self, data: bytes) -> Iterator[list[Any]]:
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
                    events = self._decode(b"[" + chunk + b"]") if chunk else []
                except ValueError:
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

    def _range_tail(self, data: bytes) -> Iterator[list[Any]]:
        """The end of a byte range that stops before the next range's first event: ``…}, `` ."""
        body = data.rstrip(_WS)
        if body.endswith(b","):
            body = body[:-1]
        try:
            events = self._decode(b"[" + body + b"]") if body else []
        except ValueError:
            raise self._fail("a byte range does not end at an event boundary") from None
        self.records += len(events)
        check_records(self.records, self.path)
        if events:
            yield events
