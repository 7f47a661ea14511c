"""The assessment history: an embedded DuckDB file (default ``history.duckdb`` in the user's data folder,
``$HIPGAUGE_HOME`` or ``$XDG_DATA_HOME/hipgauge``; never in the scanned tree).

One process writes at a time (``StoreLock`` around every read-write connection); each assessment is
written in one transaction, so a reader sees it whole or not at all, and a run killed mid-write
leaves the file as it was before that run (DuckDB replays or discards its write-ahead log on open).
Opening a file written by an older hipgauge migrates it to the current schema first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Iterator

import duckdb

from hipgauge.errors import InputError
from hipgauge.profiles.load import load_profile
from hipgauge.store.lock import StoreLock
from hipgauge.store.provenance import compiler_versions, git_commit
from hipgauge.store.record import (
    AssessmentRecord,
    BuildCheckEntry,
    ParityEntry,
    dumps_names,
    record_from_document,
    toolchain_from_profiles,
)
from hipgauge.store.schema import LATEST, current_version, migrate
from hipgauge.model import Profile
from hipgauge.store.trend import KernelTrend, build_trends

STORE_DIR = ".hipgauge"
STORE_FILE = "history.duckdb"


#: environment variable naming the folder for hipgauge's own data (the history store); tests set it to a tmp_path
HOME_ENV = "HIPGAUGE_HOME"


def data_home() -> Path:
    """hipgauge's folder for its own data, never inside a scanned tree: ``$HIPGAUGE_HOME`` when set, else
    ``$XDG_DATA_HOME/hipgauge``, else the platform's user data folder (``~/.local/share/hipgauge`` on Linux,
    ``~/Library/Application Support/hipgauge`` on macOS, ``%LOCALAPPDATA%\\hipgauge`` on Windows)."""
    given = os.environ.get(HOME_ENV, "").strip()
    if given:
        return Path(given).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    if xdg and Path(xdg).is_absolute():  # the XDG spec: a relative value is ignored
        return Path(xdg) / "hipgauge"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "hipgauge"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "hipgauge"
    return Path.home() / ".local" / "share" / "hipgauge"


def default_store_path(start: Path | str | None = None) -> Path:
    """The default history store: ``history.duckdb`` in ``data_home()``. It never lies in the scanned tree or
    the working folder (``start`` is accepted for older callers and not used); ``--db`` picks another file."""
    return data_home() / STORE_FILE


def _pattern_matches(pattern: str | None, label: str) -> bool:
    if not pattern:
        return True
    if any(ch in pattern for ch in "*?["):
        return fnmatchcase(label.lower(), pattern.lower())
    return pattern.lower() in label.lower()


class HistoryStore:
    """Assessments over time. ``record`` adds one; ``trend``, ``last`` and ``assessments`` read them."""

    def __init__(self, path: Path | str | None = None, lock_timeout_s: float = 60.0):
        self.path = Path(path) if path is not None else default_store_path()
        self.lock_timeout_s = lock_timeout_s

    # -- connections --------------------------------------------------------------------------

    def _connect(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        # The lock file keeps hipgauge processes apart; the retry covers anything else holding the file
        # (an interactive duckdb shell) for a moment.
        deadline = time.monotonic() + self.lock_timeout_s
        while True:
            try:
                return duckdb.connect(str(self.path), read_only=read_only)
            except duckdb.IOException as exc:
                if "lock" not in str(exc).lower() or time.monotonic() >= deadline:
                    raise InputError(f"cannot open history store: {str(exc).splitlines()[0]}", self.path) from None
                time.sleep(0.1)
            except duckdb.Error as exc:
                raise InputError(f"not a readable hipgauge history store: {str(exc).splitlines()[0]}", self.path) from None

    @contextmanager
    def _writer(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with StoreLock(self.path, exclusive=True, timeout_s=self.lock_timeout_s):
            con = self._connect(read_only=False)
            try:
                migrate(con)
                yield con
            finally:
                con.close()

    @contextmanager
    def _reader(self) -> Iterator[duckdb.DuckDBPyConnection | None]:
        """A read-only connection at the latest schema, or None when there is no store yet."""
        if not self.path.exists():
            yield None
            return
        with StoreLock(self.path, exclusive=False, timeout_s=self.lock_timeout_s):
            con = self._connect(read_only=True)
            try:
                version = current_version(con)
            except duckdb.Error as exc:
                con.close()
                raise InputError(f"not a hipgauge history store: {str(exc).splitlines()[0]}", self.path) from None
            if version >= LATEST:
                try:
                    yield con
                finally:
                    con.close()
                return
            con.close()
        with self._writer():  # an older file: migrate once, then read
            pass
        with StoreLock(self.path, exclusive=False, timeout_s=self.lock_timeout_s):
            con = self._connect(read_only=True)
            try:
                yield con
            finally:
                con.close()

    def schema_version(self) -> int:
        with self._reader() as con:
            return 0 if con is None else current_version(con)

    # -- writing ------------------------------------------------------------------------------

    def record(self, assessment: dict[str, Any] | AssessmentRecord, meta: dict[str, Any] | None = None) -> int:
        """Store one assessment (a ``hipgauge.assessment/1`` dict or a prepared record); returns its id."""
        rec = assessment if isinstance(assessment, AssessmentRecord) else record_from_document(assessment, meta)
        with self._writer() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                row = con.execute(
                    """INSERT INTO assessments (project, commit, recorded_at, root, translation_share, findings_total,
                           baseline_ms, projected_ms, target_ms, percentile, hipgauge_version, document_schema, triage)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
                    [rec.project, rec.commit, rec.recorded_at, rec.root, rec.translation_share, rec.findings_total,
                     rec.baseline_ms, rec.projected_ms, rec.target_ms, rec.percentile, rec.hipgauge_version,
                     rec.document_schema, rec.triage],
                ).fetchone()
                assert row is not None  # INSERT … RETURNING yields the new row
                new_id = row[0]
                if rec.toolchain:
                    con.executemany("INSERT INTO toolchain VALUES (?, ?, ?)",
                                    [[new_id, k, v] for k, v in sorted(rec.toolchain.items())])
                if rec.parity:
                    con.executemany(
                        """INSERT INTO kernel_parity (assessment_id, label, match, baseline_ns, candidate_ns, ratio, share,
                               baseline_count, candidate_count, per_iteration, operator, candidate_names)
                           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                        [[new_id, p.label, p.match, p.baseline_ns, p.candidate_ns, p.ratio, p.share, p.baseline_count,
                          p.candidate_count, p.per_iteration, p.operator, dumps_names(p.candidate_names)] for p in rec.parity],
                    )
                if rec.findings:
                    con.executemany("INSERT INTO finding_counts VALUES (?, ?, ?, ?)",
                                    [[new_id, code, sev, n] for code, (sev, n) in sorted(rec.findings.items())])
                if rec.build_checks:
                    con.executemany("INSERT INTO build_checks (assessment_id, arch, vendor, units, failed, errors, ok, "
                                    "port_errors, environment_errors) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                    [[new_id, b.arch, b.vendor, b.units, b.failed, b.errors, b.ok, b.port_errors,
                                      b.environment_errors] for b in rec.build_checks])
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        rec.id = int(new_id)
        return rec.id

    # -- reading ------------------------------------------------------------------------------

    def assessments(self, project: str | None = None, with_details: bool = True) -> list[AssessmentRecord]:
        """Every stored assessment, oldest first (by date, then by insertion)."""
        with self._reader() as con:
            if con is None:
                return []
            return _load(con, project, with_details)

    def last(self, project: str | None = None) -> AssessmentRecord | None:
        """The most recent assessment (of ``project`` when given), with its parity rows, or None."""
        with self._reader() as con:
            if con is None:
                return None
            where, args = ("WHERE project = ?", [project]) if project else ("", [])
            row = con.execute(f"SELECT id FROM assessments {where} ORDER BY recorded_at DESC, id DESC LIMIT 1", args).fetchone()
            if row is None:
                return None
            found = _load(con, None, True, only_id=int(row[0]))
            return found[0] if found else None

    def trend(self, kernel_pattern: str | None = None, project: str | None = None) -> list["KernelTrend"]:
        """Per-kernel ratio over the stored assessments (see ``hipgauge.store.trend``)."""
        records = self.assessments(project=project)
        return build_trends(records, lambda label: _pattern_matches(kernel_pattern, label))


def _load(con: duckdb.DuckDBPyConnection, project: str | None, with_details: bool,
          only_id: int | None = None) -> list[AssessmentRecord]:
    clauses: list[str] = []
    args: list[Any] = []
    if project:
        clauses.append("project = ?")
        args.append(project)
    if only_id is not None:
        clauses.append("id = ?")
        args.append(only_id)
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    cols = ("id, project, commit, recorded_at, root, translation_share, baseline_ms, projected_ms, target_ms, "
            "percentile, hipgauge_version, document_schema, triage")
    records: dict[int, AssessmentRecord] = {}
    for row in con.execute(f"SELECT {cols} FROM assessments {where} ORDER BY recorded_at, id", args).fetchall():
        (aid, proj, commit, at, root, share, base_ms, proj_ms, target, pct, version, schema, triage) = row
        records[aid] = AssessmentRecord(project=proj, recorded_at=at, commit=commit, root=root, translation_share=share,
                                        baseline_ms=base_ms, projected_ms=proj_ms, target_ms=target, percentile=pct,
                                        hipgauge_version=version, document_schema=schema, triage=triage, id=aid)
    if not records or not with_details:
        return list(records.values())
    ids = list(records)
    marks = ", ".join("?" for _ in ids)
    for aid, comp, ver in con.execute(f"SELECT assessment_id, component, version FROM toolchain WHERE assessment_id IN ({marks})", ids).fetchall():
        records[aid].toolchain[comp] = ver
    for aid, code, sev, n in con.execute(f"SELECT assessment_id, code, severity, count FROM finding_counts WHERE assessment_id IN ({marks}) ORDER BY code", ids).fetchall():
        records[aid].findings[code] = (sev, n)
    for row in con.execute(
        f"""SELECT assessment_id, label, match, baseline_ns, candidate_ns, ratio, share, baseline_count, candidate_count,
                   per_iteration, operator, candidate_names
            FROM kernel_parity WHERE assessment_id IN ({marks}) ORDER BY assessment_id, share DESC NULLS LAST, label""", ids,
    ).fetchall():
        aid, label, match, base, cand, ratio, share, bcount, ccount, per_it, op, names = row
        try:
            name_list = json.loads(names) if names else []
        except ValueError:
            name_list = []
        records[aid].parity.append(ParityEntry(label, match, base, cand, ratio, share, bcount, ccount, per_it, op, name_list))
    for aid, arch, vendor, units, failed, errors, ok, port, env in con.execute(
        "SELECT assessment_id, arch, vendor, units, failed, errors, ok, port_errors, environment_errors "
        f"FROM build_checks WHERE assessment_id IN ({marks}) ORDER BY arch", ids,
    ).fetchall():
        records[aid].build_checks.append(BuildCheckEntry(arch, vendor, units, failed, errors, ok, port, env))
    return list(records.values())


def record_assessment(doc: dict[str, Any], store_path: Path | str | None = None, *, baseline: Profile | None = None,
                      candidate: Profile | None = None, meta: dict[str, Any] | None = None, probe_compilers: bool = True) -> int:
    """What ``hipgauge assess --store [DB]`` calls: store ``doc`` (a ``hipgauge.assessment/1`` dict); returns its id.

    ``baseline``/``candidate``: the assessment's ``Profile`` objects, whose
    metadata gives the CUDA/HIP/driver versions, GPU names and archs. Without them, the profiles named in
    ``doc["inputs"]`` are read again for their metadata (best effort). Also added: the scanned tree's git
    commit (read only) and the versions of the nvcc/hipcc on PATH when the document names none.
    ``store_path`` None → ``default_store_path()``.
    """
    meta = dict(meta or {})
    rec = record_from_document(doc, meta)
    if baseline is None and candidate is None:
        baseline, candidate = _profiles_named_in(doc)
    for key, value in toolchain_from_profiles(baseline, candidate).items():
        rec.toolchain.setdefault(key, value)
    for key, value in (meta.get("toolchain") or {}).items():
        if value not in (None, ""):
            rec.toolchain[key] = str(value)
    first_root = _first_existing_root(rec.root)
    if rec.commit is None and first_root:
        rec.commit = git_commit(first_root)
    if probe_compilers:
        for tool, version in compiler_versions().items():
            rec.toolchain.setdefault(tool, version)
    if first_root and not meta.get("project") and not doc.get("project"):
        rec.project = _project_from_root(first_root) or rec.project
    store = HistoryStore(store_path)
    return store.record(rec)


def _first_existing_root(root: str | None) -> str | None:
    """The scanned tree (the first one, when the document joins several with ', ')."""
    if not root:
        return None
    if Path(root).exists():
        return root
    for part in root.split(", "):
        if part and Path(part).exists():
            return part
    return None


def _profiles_named_in(doc: dict[str, Any]) -> tuple[Profile | None, Profile | None]:
    """The profiles an assessment names in ``inputs`` (None where absent or unreadable), for their metadata."""
    inputs = doc.get("inputs")
    if not isinstance(inputs, dict):
        inputs = {}
    found: list[Profile | None] = []
    for side in ("baseline", "candidate"):
        path = inputs.get(side)
        profile = None
        if path and Path(path).is_file():
            try:
                profile = load_profile(Path(path))
            except Exception:  # noqa: BLE001 - metadata is best effort: the assessment is stored without it
                profile = None
        found.append(profile)
    return found[0], found[1]


def _project_from_root(root: str) -> str | None:
    """The git top-level folder's name of the scanned tree, else the tree's own folder name."""

    folder = Path(root)
    folder = folder if folder.is_dir() else folder.parent
    try:
        done = subprocess.run(["git", "-C", str(folder), "rev-parse", "--show-toplevel"], capture_output=True,
                              text=True, timeout=10, check=False, env=dict(os.environ, GIT_OPTIONAL_LOCKS="0"))
        if done.returncode == 0 and done.stdout.strip():
            return Path(done.stdout.strip()).name
    except (OSError, subprocess.SubprocessError):
        pass
    return Path(root).resolve().name or None


