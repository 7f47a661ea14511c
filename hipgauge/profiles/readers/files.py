"""Opening profile files: transparent gzip, a cap on decompressed size, text with a clear error.

The cap guards against gzip bombs and runaway inputs. It defaults to ``DEFAULT_MAX_BYTES``; the
environment variable ``HIPGAUGE_MAX_PROFILE_BYTES`` or a reader's ``max_bytes`` argument changes it.
"""

from __future__ import annotations

import gzip
import io
import os
import sqlite3
import zlib
from pathlib import Path
from typing import BinaryIO

from hipgauge.errors import InputError

DEFAULT_MAX_BYTES = 16 * 1024**3  # 16 GiB decompressed
#: events / rows one profile may hold (HIPGAUGE_MAX_PROFILE_RECORDS); aggregate rows count once per instance
DEFAULT_MAX_RECORDS = 50_000_000
#: decompressed/compressed size above which a gzip stream is refused as a bomb (HIPGAUGE_MAX_GZIP_RATIO; 0 = off).
#: Real profiler traces compress 10-30×; deflate cannot exceed ~1032×.
DEFAULT_MAX_GZIP_RATIO = 250
GZIP_RATIO_AFTER = 64 * 1024**2  # checked once this much has been decompressed

GZIP_MAGIC = b"\x1f\x8b"


def max_bytes_limit(max_bytes: int | None = None) -> int:
    if max_bytes is not None:
        return int(max_bytes)
    env = os.environ.get("HIPGAUGE_MAX_PROFILE_BYTES")
    if env:
        try:
            return int(env)
        except ValueError:
            raise InputError(f"HIPGAUGE_MAX_PROFILE_BYTES={env!r} is not a whole number of bytes") from None
    return DEFAULT_MAX_BYTES


def _env_limit(name: str, default: int) -> int:
    env = os.environ.get(name)
    if not env:
        return default
    try:
        return int(env)
    except ValueError:
        raise InputError(f"{name}={env!r} is not a whole number") from None


def max_records_limit() -> int:
    return _env_limit("HIPGAUGE_MAX_PROFILE_RECORDS", DEFAULT_MAX_RECORDS)


def check_records(count: int, path: Path | None = None) -> None:
    """InputError when a profile holds more records than the limit."""
    limit = max_records_limit()
    if count > limit:
        raise InputError(f"more than {limit:,} records ({count:,}) (limit: HIPGAUGE_MAX_PROFILE_RECORDS)", path)


def is_gzip(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == GZIP_MAGIC
    except OSError:
        return False


class LimitedReader(io.RawIOBase):
    """Reads a (possibly gzip-compressed) file and raises ``InputError`` past ``limit`` bytes."""

    def __init__(self, path: Path, limit: int):
        self.path = Path(path)
        self.limit = limit
        self.count = 0
        try:
            raw = open(self.path, "rb")
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", self.path) from None
        self.compressed = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        self._fh: BinaryIO = gzip.GzipFile(fileobj=raw, mode="rb") if self.compressed else raw  # type: ignore[assignment]
        self._raw = raw
        self.max_ratio = _env_limit("HIPGAUGE_MAX_GZIP_RATIO", DEFAULT_MAX_GZIP_RATIO) if self.compressed else 0

    def readable(self) -> bool:
        return True

    def seek_raw(self, offset: int) -> None:
        """Start reading an uncompressed file at ``offset`` (the bytes before it count toward the cap)."""
        self._raw.seek(offset)
        self.count = offset

    def read(self, size: int = -1) -> bytes:
        try:
            data = self._fh.read(size)
        except EOFError:
            raise InputError("gzip stream is truncated (ends before its end-of-stream marker)", self.path) from None
        except (gzip.BadGzipFile, zlib.error, OSError) as exc:
            raise InputError(f"cannot decompress: {exc}", self.path) from None
        self.count += len(data)
        if self.count > self.limit:
            raise InputError(
                f"more than {self.limit:,} bytes {'after decompression ' if self.compressed else ''}"
                "(limit: max_bytes / HIPGAUGE_MAX_PROFILE_BYTES)",
                self.path,
            )
        if self.max_ratio > 0 and self.count > GZIP_RATIO_AFTER:
            packed = max(self._raw.tell(), 1)
            if self.count > self.max_ratio * packed:
                raise InputError(
                    f"gzip stream expands more than {self.max_ratio}× ({packed:,} bytes → over {self.count:,}): "
                    "a decompression bomb? (limit: HIPGAUGE_MAX_GZIP_RATIO, 0 = off)", self.path)
        return data

    def close(self) -> None:
        try:
            self._fh.close()
        finally:
            self._raw.close()
        super().close()


def read_bytes(path: Path, max_bytes: int | None = None) -> bytes:
    """The whole (decompressed) content, under the size cap."""
    reader = LimitedReader(Path(path), max_bytes_limit(max_bytes))
    try:
        parts = []
        while True:
            chunk = reader.read(8 * 1024 * 1024)
            if not chunk:
                break
            parts.append(chunk)
        return b"".join(parts)
    finally:
        reader.close()


def read_text(path: Path, max_bytes: int | None = None) -> str:
    """Decoded text (UTF-8 with BOM tolerated; latin-1 as a fallback), under the size cap."""
    data = read_bytes(path, max_bytes)
    if b"\x00" in data[:4096]:
        raise InputError("is a binary file, not a text profile", path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def head_bytes(path: Path, n: int = 65536) -> bytes:
    """The first ``n`` (decompressed) bytes, for sniffing; empty on any error."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
            fh.seek(0)
            if magic == GZIP_MAGIC:
                parts: list[bytes] = []
                got = 0
                with gzip.GzipFile(fileobj=fh, mode="rb") as gz:
                    try:
                        while got < n:
                            piece = gz.read(min(16384, n - got))
                            if not piece:
                                break
                            parts.append(piece)
                            got += len(piece)
                    except (EOFError, OSError, zlib.error):
                        pass  # a truncated stream: sniff what could be read
                return b"".join(parts)
            return fh.read(n)
    except OSError:
        return b""


def open_sqlite(path: Path) -> tuple[sqlite3.Connection, set[str]]:
    """A read-only connection to a SQLite profile and the names of its tables and views; InputError naming the
    file when it is not a readable database."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")}
    except sqlite3.Error as exc:
        raise InputError(f"not a readable SQLite database: {exc}", path) from None
    return con, names


def sqlite_columns(con: sqlite3.Connection, table: str) -> set[str]:
    """The column names of ``table``."""
    return {r[1] for r in con.execute(f'PRAGMA table_info("{table}")')}
