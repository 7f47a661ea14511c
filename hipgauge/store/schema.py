"""The history store's tables, as ordered migration steps.

Each step brings the database from version ``n - 1`` to ``n`` and is applied in one transaction
together with its row in ``schema_version``, so a database is always at exactly one version. Steps
are only ever appended: a released step is never edited (an older file must migrate the same way).
"""

from __future__ import annotations

from typing import Any

#: (version, what it adds, SQL statements). Append only.
MIGRATIONS: list[tuple[int, str, list[str]]] = [
    (
        1,
        "assessments, toolchain versions, per-kernel parity, findings counts",
        [
            "CREATE SEQUENCE IF NOT EXISTS assessment_ids START 1",
            """CREATE TABLE assessments (
                id BIGINT NOT NULL DEFAULT nextval('assessment_ids'),
                project VARCHAR NOT NULL,
                commit VARCHAR,
                recorded_at TIMESTAMP NOT NULL,
                root VARCHAR,
                translation_share DOUBLE,
                findings_total INTEGER,
                baseline_ms DOUBLE,
                projected_ms DOUBLE,
                target_ms DOUBLE,
                percentile DOUBLE
            )""",
            "CREATE TABLE toolchain (assessment_id BIGINT NOT NULL, component VARCHAR NOT NULL, version VARCHAR)",
            """CREATE TABLE kernel_parity (
                assessment_id BIGINT NOT NULL,
                label VARCHAR NOT NULL,
                match VARCHAR,
                baseline_ns DOUBLE,
                candidate_ns DOUBLE,
                ratio DOUBLE,
                share DOUBLE
            )""",
            "CREATE TABLE finding_counts (assessment_id BIGINT NOT NULL, code VARCHAR NOT NULL, severity VARCHAR, count INTEGER NOT NULL)",
        ],
    ),
    (
        2,
        "build-check results per arch; launch counts, time basis and names per parity row",
        [
            """CREATE TABLE build_checks (
                assessment_id BIGINT NOT NULL,
                arch VARCHAR NOT NULL,
                vendor VARCHAR,
                units INTEGER,
                failed INTEGER,
                errors INTEGER,
                ok BOOLEAN
            )""",
            "ALTER TABLE kernel_parity ADD COLUMN baseline_count BIGINT",
            "ALTER TABLE kernel_parity ADD COLUMN candidate_count BIGINT",
            "ALTER TABLE kernel_parity ADD COLUMN per_iteration BOOLEAN",
            "ALTER TABLE kernel_parity ADD COLUMN operator VARCHAR",
            "ALTER TABLE kernel_parity ADD COLUMN candidate_names VARCHAR",  # JSON list
        ],
    ),
    (
        3,
        "which hipgauge and which document schema wrote each assessment; the triage lean",
        [
            "ALTER TABLE assessments ADD COLUMN hipgauge_version VARCHAR",
            "ALTER TABLE assessments ADD COLUMN document_schema VARCHAR",
            "ALTER TABLE assessments ADD COLUMN triage VARCHAR",
        ],
    ),
    (
        4,
        "build-check errors split into port errors and environment gaps (library headers not installed)",
        [
            "ALTER TABLE build_checks ADD COLUMN port_errors BIGINT",
            "ALTER TABLE build_checks ADD COLUMN environment_errors BIGINT",
        ],
    ),
]

LATEST: int = MIGRATIONS[-1][0]


def current_version(con: Any) -> int:
    """The schema version of an open DuckDB connection (0 for an empty database)."""
    have = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'"
    ).fetchone()[0]
    if not have:
        return 0
    row = con.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def migrate(con: Any, upto: int | None = None) -> list[int]:
    """Apply the missing steps (up to ``upto``, default the latest), each in its own transaction.

    Returns the versions applied. The caller holds the store's write lock.
    """
    target = LATEST if upto is None else upto
    applied: list[int] = []
    if current_version(con) == 0:
        con.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied_at TIMESTAMP NOT NULL, note VARCHAR)")
    for version, note, statements in MIGRATIONS:
        if version > target or version <= current_version(con):
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            for sql in statements:
                con.execute(sql)
            con.execute("INSERT INTO schema_version VALUES (?, now(), ?)", [version, note])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        applied.append(version)
    return applied
