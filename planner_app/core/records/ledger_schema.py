"""The shared ledger's schema in PostgreSQL: its version, ``ledger migrate`` (create or
upgrade) and the append-only rules. Shared ledger schema 1 (docs/CHANGELOG.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

SCHEMA_VERSION = 1
MIGRATE_LOCK = 26_0002

_SCHEMA_1 = [
    "CREATE TABLE IF NOT EXISTS planner_meta (key text PRIMARY KEY, value text NOT NULL)",
    """CREATE TABLE IF NOT EXISTS planner_datasets (
        name text PRIMARY KEY, cap_epsilon double precision, cap_delta double precision,
        updated text)""",
    """CREATE TABLE IF NOT EXISTS planner_releases (
        id text PRIMARY KEY, dataset text NOT NULL, time text NOT NULL,
        file_name text NOT NULL, file_id text NOT NULL, plan_sha256 text NOT NULL,
        epsilon double precision NOT NULL, delta double precision NOT NULL,
        rho double precision, accountant text NOT NULL, status text NOT NULL,
        bundle_sha256 text, measurements text NOT NULL, audit_seq bigint, audit_hash text)""",
    "CREATE INDEX IF NOT EXISTS planner_releases_by_dataset ON planner_releases(dataset, time)",
    "CREATE INDEX IF NOT EXISTS planner_releases_by_file ON planner_releases(file_id)",
    """CREATE TABLE IF NOT EXISTS planner_counters (
        name text PRIMARY KEY, value bigint NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS planner_audit (
        seq bigint PRIMARY KEY, hash text NOT NULL UNIQUE, prev text NOT NULL,
        entry text NOT NULL)""",
    # append-only: the audit log and the charges are never changed or removed by anyone who
    # can reach the tables through SQL (a release row may only be marked completed)
    """CREATE OR REPLACE FUNCTION planner_refuse_change() RETURNS trigger LANGUAGE plpgsql AS
       $$ BEGIN RAISE EXCEPTION 'planner-app: % on % is refused (append-only)',
                 TG_OP, TG_TABLE_NAME; END $$""",
    """CREATE OR REPLACE FUNCTION planner_release_update() RETURNS trigger LANGUAGE plpgsql AS
       $$ BEGIN
         IF (NEW.id, NEW.dataset, NEW.time, NEW.file_name, NEW.file_id, NEW.plan_sha256,
             NEW.epsilon, NEW.delta, NEW.rho, NEW.accountant, NEW.measurements, NEW.audit_seq,
             NEW.audit_hash) IS DISTINCT FROM
            (OLD.id, OLD.dataset, OLD.time, OLD.file_name, OLD.file_id, OLD.plan_sha256,
             OLD.epsilon, OLD.delta, OLD.rho, OLD.accountant, OLD.measurements, OLD.audit_seq,
             OLD.audit_hash) THEN
           RAISE EXCEPTION 'planner-app: a charge is never changed (only completed)';
         END IF;
         RETURN NEW;
       END $$""",
    "DROP TRIGGER IF EXISTS planner_audit_no_change ON planner_audit",
    """CREATE TRIGGER planner_audit_no_change BEFORE UPDATE OR DELETE ON planner_audit
       FOR EACH ROW EXECUTE FUNCTION planner_refuse_change()""",
    "DROP TRIGGER IF EXISTS planner_audit_no_truncate ON planner_audit",
    """CREATE TRIGGER planner_audit_no_truncate BEFORE TRUNCATE ON planner_audit
       FOR EACH STATEMENT EXECUTE FUNCTION planner_refuse_change()""",
    "DROP TRIGGER IF EXISTS planner_releases_no_delete ON planner_releases",
    """CREATE TRIGGER planner_releases_no_delete BEFORE DELETE ON planner_releases
       FOR EACH ROW EXECUTE FUNCTION planner_refuse_change()""",
    "DROP TRIGGER IF EXISTS planner_releases_no_truncate ON planner_releases",
    """CREATE TRIGGER planner_releases_no_truncate BEFORE TRUNCATE ON planner_releases
       FOR EACH STATEMENT EXECUTE FUNCTION planner_refuse_change()""",
    "DROP TRIGGER IF EXISTS planner_releases_only_complete ON planner_releases",
    """CREATE TRIGGER planner_releases_only_complete BEFORE UPDATE ON planner_releases
       FOR EACH ROW EXECUTE FUNCTION planner_release_update()""",
]


def schema_version(con: psycopg.Connection[Any]) -> int:
    """The schema version the database holds (0: none yet)."""
    row = con.execute("SELECT to_regclass('planner_meta') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    found = con.execute("SELECT value FROM planner_meta WHERE key = 'schema_version'"
                        ).fetchone()
    return int(found[0]) if found else 0


def migrate(con: psycopg.Connection[Any]) -> tuple[int, int]:
    """Create or upgrade the schema in one transaction: (version before, version after)."""
    with con.transaction():
        con.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
        before = schema_version(con)
        if before > SCHEMA_VERSION:
            return before, before  # a newer planner-app's: the caller refuses
        if before < 1:
            for statement in _SCHEMA_1:
                con.execute(statement)  # constant text
            con.execute("INSERT INTO planner_meta(key, value) VALUES ('schema_version', %s) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (str(SCHEMA_VERSION),))
        return before, SCHEMA_VERSION
