"""The office's shared budget ledger and audit log on PostgreSQL (issue 26).

The same guarantees as the app home's SQLite ledger (ledger.py), across machines. A charge is
one SERIALIZABLE transaction that takes the dataset's advisory lock, reads every charge and
every audit entry, checks them against each other (crosscheck.py) and commits the new row only
within the cap; a serialization failure is retried from the start. A charge whose COMMIT was
cut off (the server stopped, the network cut) is looked up again: it either is in the ledger
(the release goes on) or is not (refused, nothing charged), never both. The noise is drawn
only after the commit returned (publish.py).

The audit log is the table ``planner_audit``: the same hash-chained entries as the file
(audit.py), appended under one advisory lock, refused UPDATE, DELETE and TRUNCATE by
triggers, and verified link by link on every read. A file's identity is a keyed digest under
the office secret (office_config.py), never its plain SHA-256. Schema upgrades run only
through ``ledger migrate`` (ledger_schema.py).
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..dp.accounting import Total, within
from ..dp.measure import Measurement, measurement_to_dict
from ..planfile.compiled import CompiledPlan
from ..support.errors import InputError
from .audit import AuditError, ChainProblem, audit_entry, utc_now, utc_now_private, verify_chain
from .crosscheck import CAP_EVENT, Row, cap_problems, row_problems
from .ledger import (
    BudgetExceeded,
    Cap,
    LedgerDisagrees,
    LedgerError,
    LedgerState,
    ReleaseRecord,
    lifetime_total,
    over_cap,
    stored_cap,
    stored_record,
)
from .ledger_schema import SCHEMA_VERSION, schema_version
from .office_config import OfficeLedger, OfficeSecretMissing, file_identity
from .programme import Admit, ProgrammeRefused

if TYPE_CHECKING:
    import psycopg

FAULT_ENV = "PLANNER_APP_FAULT_PAUSE"  # test hook: pause inside the charge (see _checkpoint)
GO_ENV = "PLANNER_APP_FAULT_GO"
AUDIT_LOCK = 26_0001  # pg_advisory_xact_lock key of the audit log's tail
RETRIES = 60  # serialization failures retried (16 processes on one dataset: a few each)
LOOKUP_SECONDS = 20.0  # how long a cut-off COMMIT is looked up again


def _checkpoint(stage: str) -> None:
    """The network-cut test pauses a charge between its INSERT and its COMMIT: with
    PLANNER_APP_FAULT_PAUSE=<stage> it writes ``<GO>.paused`` and waits for the file
    PLANNER_APP_FAULT_GO names (the test stops the server meanwhile)."""
    if os.environ.get(FAULT_ENV) != stage:
        return
    go = os.environ.get(GO_ENV, "")
    Path(go + ".paused").write_text(stage, encoding="utf-8")
    end = time.monotonic() + 600
    while time.monotonic() < end and not os.path.exists(go):
        time.sleep(0.05)


class LedgerUnreachable(LedgerError):
    """The shared ledger cannot be reached (exit 4, nothing released)."""


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else exc.__class__.__name__


class SharedLedger:
    """The office's ledger named by the installed policy; the same methods as ``Ledger``."""

    shared = True

    def __init__(self, config: OfficeLedger) -> None:
        self.config = config
        self.where = f"the office's shared ledger at {config.where}"

    # -- connection -------------------------------------------------------------------------

    def unreachable(self, exc: BaseException, what: str = "released") -> LedgerUnreachable:
        return LedgerUnreachable(f"{self.where} cannot be reached ({_one_line(exc)}); nothing was "
                           f"{what}")

    def connect(self, check_schema: bool = True) -> psycopg.Connection[Any]:
        try:
            import psycopg
        except ImportError:
            raise LedgerError("the policy names the office's shared ledger, but PostgreSQL "
                              "support is not installed: pip install 'planner-app[office]'; "
                              "nothing was released") from None
        try:
            conninfo = psycopg.conninfo.make_conninfo(self.config.url,
                                                      **self.config.connect_kwargs())
            con = psycopg.connect(conninfo, autocommit=True)
        except psycopg.Error as exc:
            raise self.unreachable(exc) from None
        if check_schema:
            try:
                version = schema_version(con)
            except psycopg.Error as exc:
                con.close()
                raise self.unreachable(exc) from None
            if version != SCHEMA_VERSION:
                con.close()
                raise LedgerError(
                    f"{self.where} has schema version {version or 'none'}, this planner-app "
                    f"uses {SCHEMA_VERSION}: "
                    + ("upgrade planner-app" if version > SCHEMA_VERSION else
                       "the privacy officer runs planner-app ledger migrate")
                    + "; nothing was released")
        return con

    @contextmanager
    def _session(self) -> Iterator[psycopg.Connection[Any]]:
        import psycopg

        con = self.connect()
        try:
            yield con
        except psycopg.Error as exc:
            raise self.unreachable(exc) from None
        finally:
            con.close()

    def file_id(self, file_sha256: str) -> str:
        try:
            return file_identity(self.config.secret(), file_sha256)
        except OfficeSecretMissing as exc:
            raise LedgerError(str(exc)) from None

    # -- reads ------------------------------------------------------------------------------

    def _damaged(self, what: str) -> LedgerError:
        return LedgerError(f"{self.where} holds a damaged {what}; restore it from a backup; "
                           "nothing was released")

    def _cap(self, con: psycopg.Connection[Any], name: str) -> Cap:
        row = con.execute("SELECT cap_epsilon, cap_delta FROM planner_datasets WHERE name = %s",
                          (name,)).fetchone()
        try:
            return stored_cap(row)
        except ValueError:
            raise self._damaged(f"cap for dataset {name!r}") from None

    def _records(self, con: psycopg.Connection[Any], name: str) -> list[ReleaseRecord]:
        rows = con.execute(
            "SELECT id, dataset, time, file_name, file_id, plan_sha256, epsilon, delta, rho,"
            " accountant, status, bundle_sha256, measurements FROM planner_releases"
            " WHERE dataset = %s ORDER BY time, id", (name,)).fetchall()
        out = []
        for row in rows:
            try:
                out.append(stored_record(row))
            except ValueError:
                raise self._damaged(f"release record ({str(row[0])[:40]!r})") from None
        return out

    def _state(self, con: psycopg.Connection[Any], name: str) -> LedgerState:
        cap = self._cap(con, name)
        records = self._records(con, name)
        try:
            spent = lifetime_total(records, [], None, cap.delta)
        except (TypeError, ValueError, KeyError, AttributeError, ZeroDivisionError):
            raise self._damaged(f"release record of dataset {name!r}") from None
        return LedgerState(name, cap, spent, records)

    def state(self, name: str) -> LedgerState:
        with self._session() as con:
            return self._state(con, name)

    state_without_creating = state  # reading the shared ledger creates nothing

    def release(self, release_id: str) -> ReleaseRecord | None:
        with self._session() as con:
            row = con.execute("SELECT dataset FROM planner_releases WHERE id = %s",
                              (release_id,)).fetchone()
            records = [] if row is None else self._records(con, str(row[0]))
        return next((r for r in records if r.id == release_id), None)

    def datasets(self) -> list[str]:
        with self._session() as con:
            rows = con.execute("SELECT name FROM planner_datasets UNION SELECT dataset FROM "
                               "planner_releases ORDER BY 1").fetchall()
        return [str(r[0]) for r in rows]

    def datasets_with_file(self, file_sha256: str) -> list[str]:
        digest = self.file_id(file_sha256)
        with self._session() as con:
            rows = con.execute("SELECT DISTINCT dataset FROM planner_releases WHERE "
                               "file_id = %s ORDER BY 1", (digest,)).fetchall()
        return [str(r[0]) for r in rows]

    def releases_charged(self) -> int:
        with self._session() as con:
            row = con.execute("SELECT value FROM planner_counters WHERE name = "
                              "'releases_charged'").fetchone()
        return int(row[0]) if row else 0

    def audit_problems(self, audit_entries: Sequence[dict[str, Any]] | None = None
                       ) -> list[str]:
        with self._session() as con:
            return self._audit_problems(con, audit_entries)

    def _audit_problems(self, con: psycopg.Connection[Any],
                        audit_entries: Sequence[dict[str, Any]] | None) -> list[str]:
        entries = read_audit(con, self.where) if audit_entries is None else audit_entries
        rows = [Row(*r) for r in con.execute(
            "SELECT id, dataset, epsilon, delta, rho, accountant, plan_sha256, file_name,"
            " measurements, audit_seq, audit_hash FROM planner_releases").fetchall()]
        counted = con.execute("SELECT value FROM planner_counters WHERE name = "
                              "'releases_charged'").fetchone()
        caps = {str(n): (e, d) for n, e, d in con.execute(
            "SELECT name, cap_epsilon, cap_delta FROM planner_datasets").fetchall()}
        return row_problems(rows, None if counted is None else int(counted[0]), entries) + \
            cap_problems(caps, entries)

    # -- writes -----------------------------------------------------------------------------

    def _serializable(self, work: Callable[[psycopg.Connection[Any]], Any],
                      what: str = "released") -> Any:
        """``work`` in one SERIALIZABLE transaction, retried from the start on a
        serialization failure or a deadlock."""
        import psycopg
        from psycopg import errors

        con = self.connect()
        try:
            for attempt in range(RETRIES):
                try:
                    con.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
                    result = work(con)
                    con.execute("COMMIT")
                    return result
                except (errors.SerializationFailure, errors.DeadlockDetected):
                    _rollback(con)
                    time.sleep(random.uniform(0, 0.02 * (attempt + 1)))
                except (BudgetExceeded, LedgerError, InputError, AuditError, ProgrammeRefused):
                    _rollback(con)
                    raise
            raise LedgerError(f"{self.where} is too busy (the charge was retried {RETRIES} "
                              f"times); try again; nothing was {what}")
        except psycopg.Error as exc:
            raise self.unreachable(exc, what) from None
        finally:
            con.close()

    def set_cap(self, name: str, epsilon: float, delta: float) -> LedgerState:
        from .ledger import Ledger

        Ledger.check_cap(name, epsilon, delta)
        epsilon, delta = float(epsilon), float(delta)

        def work(con: psycopg.Connection[Any]) -> LedgerState:
            con.execute(
                "INSERT INTO planner_datasets(name, cap_epsilon, cap_delta, updated) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT (name) DO UPDATE SET "
                "cap_epsilon = excluded.cap_epsilon, cap_delta = excluded.cap_delta, "
                "updated = excluded.updated", (name, epsilon, delta, utc_now()))
            append_entries(con, [(CAP_EVENT, {"dataset": name, "epsilon": epsilon,
                                              "delta": delta})], None, self.where)
            return self._state(con, name)

        state: LedgerState = self._serializable(work, "set")
        return state

    def charge(self, *, release_id: str, dataset: str, file_name: str, file_sha256: str,
               plan_sha256: str, compiled: CompiledPlan | None = None,
               total: Total | None = None, measurements: Sequence[Measurement] | None = None,
               audit_entry: dict[str, Any] | None = None,
               cap_limit: Callable[[Cap], Cap] | None = None,
               admit: Admit | None = None) -> LedgerState:
        """As ``Ledger.charge``, in the office's database."""
        if compiled is not None:
            total, measurements = compiled.total, compiled.all_measurements
            dicts = compiled.measurement_dicts
        elif total is None or measurements is None:
            raise TypeError("charge() needs compiled, or total and measurements")
        else:
            dicts = [measurement_to_dict(m) for m in measurements]
        assert total is not None and measurements is not None
        stored = json.dumps(dicts)
        digest = self.file_id(file_sha256)  # the secret is there before anything is charged
        charged_total: Total = total
        charged_measurements: Sequence[Measurement] = measurements

        def work(con: psycopg.Connection[Any]) -> LedgerState:
            # one charge per dataset at a time; SERIALIZABLE guards the rest
            con.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 26))", (dataset,))
            entries = read_audit(con, self.where)
            disagree = self._audit_problems(con, entries)
            if disagree:
                raise LedgerDisagrees(disagree[0])
            cap = self._cap(con, dataset)
            if cap_limit is not None:
                cap = cap_limit(cap)
            records = self._records(con, dataset)
            if admit is not None:  # cal26: a programme's release in its place, under the lock
                admit(records, entries)
            after = lifetime_total(records, charged_measurements, charged_total, cap.delta)
            if not within(after, cap.epsilon, cap.delta):
                raise over_cap(dataset, cap, records, after)
            con.execute(
                "INSERT INTO planner_releases(id, dataset, time, file_name, file_id,"
                " plan_sha256, epsilon, delta, rho, accountant, status, bundle_sha256,"
                " measurements, audit_seq, audit_hash)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, 'charged', NULL, %s, %s, %s)",
                (release_id, dataset, utc_now_private(), file_name, digest, plan_sha256,
                 charged_total.epsilon, charged_total.delta, charged_total.rho,
                 charged_total.accountant, stored,
                 None if audit_entry is None else audit_entry["seq"],
                 None if audit_entry is None else audit_entry["hash"]))
            con.execute("INSERT INTO planner_counters(name, value) VALUES "
                        "('releases_charged', 1) ON CONFLICT (name) DO UPDATE SET "
                        "value = planner_counters.value + 1")
            _checkpoint("charge-before-commit")
            # the state this charge decided on, in its own snapshot (the ledger's own cap, as
            # Ledger.charge returns it): a charge committed meanwhile elsewhere is not in it
            return self._state(con, dataset)

        try:
            state: LedgerState = self._serializable(work)
            return state
        except LedgerUnreachable:
            # the COMMIT may have been cut off after the server wrote it: look it up
            if self._charged_after_cut(release_id) is False:
                raise
        return self.state(dataset)

    def _charged_after_cut(self, release_id: str) -> bool | None:
        """Whether a charge whose transaction was cut off is in the ledger (None: cannot
        tell: then raise so that nothing is released; ``ledger show`` tells later)."""
        end = time.monotonic() + LOOKUP_SECONDS
        while True:
            try:
                with self._session() as con:
                    row = con.execute("SELECT 1 FROM planner_releases WHERE id = %s",
                                      (release_id,)).fetchone()
                    return row is not None
            except LedgerUnreachable:
                if time.monotonic() > end:
                    raise LedgerError(f"{self.where} was cut off while charging release "
                                      f"{release_id}; whether it was charged cannot be told "
                                      "until it is back (planner-app ledger show); nothing "
                                      "was released") from None
                time.sleep(0.5)

    def complete(self, release_id: str, bundle_sha256: str) -> None:
        with self._session() as con:
            con.execute("UPDATE planner_releases SET status = 'completed', bundle_sha256 = %s "
                        "WHERE id = %s", (bundle_sha256, release_id))


class SharedAudit:
    """The office's audit log (the table ``planner_audit``); the methods of ``AuditLog``."""

    def __init__(self, ledger: SharedLedger) -> None:
        self.ledger = ledger
        self.path = ledger.config.where  # for messages only

    def read(self) -> list[dict[str, Any]]:
        try:
            with self.ledger._session() as con:
                return read_audit(con, self.ledger.where, verify=False)
        except LedgerError as exc:
            raise AuditError(str(exc)) from None

    def verify(self) -> ChainProblem | None:
        return verify_chain(self.read())

    def require_intact(self) -> SharedAudit:
        broken = self.verify()
        if broken is not None:
            raise AuditError(f"the audit log of {self.ledger.where} is broken at {broken}; "
                             "nothing was released or written")
        return self

    def append(self, event: str, params: dict[str, Any],
               time: str | None = None) -> dict[str, Any]:
        import psycopg

        try:
            con = self.ledger.connect()
        except LedgerError as exc:
            raise AuditError(str(exc)) from None
        try:
            with con.transaction():
                return append_entries(con, [(event, params)], time, self.ledger.where)[-1]
        except psycopg.Error as exc:
            raise AuditError(f"the audit log of {self.ledger.where} cannot be written "
                             f"({_one_line(exc)}); nothing was released") from None
        finally:
            con.close()


def read_audit(con: psycopg.Connection[Any], where: str, verify: bool = True
               ) -> list[dict[str, Any]]:
    """Every entry, in order; with ``verify``, LedgerError at the first broken link."""
    entries = []
    for seq, text in con.execute("SELECT seq, entry FROM planner_audit ORDER BY seq"):
        try:
            entry = json.loads(text)
        except ValueError:
            raise LedgerError(f"the audit log of {where}: entry {seq} is not JSON (damaged)"
                              ) from None
        entries.append(entry)
    if verify:
        broken = verify_chain(entries)
        if broken is not None:
            raise LedgerError(f"the audit log of {where} is broken at {broken}; nothing was "
                              "released")
    return entries


def append_entries(con: psycopg.Connection[Any], items: list[tuple[str, dict[str, Any]]],
                   time: str | None, where: str) -> list[dict[str, Any]]:
    """Append entries to the chain, inside the caller's transaction, under the tail's lock."""
    con.execute("SELECT pg_advisory_xact_lock(%s)", (AUDIT_LOCK,))
    tail = con.execute("SELECT seq, hash FROM planner_audit ORDER BY seq DESC LIMIT 1"
                       ).fetchone()
    seq, prev = (1, None) if tail is None else (int(tail[0]) + 1, str(tail[1]))
    out = []
    for event, params in items:
        entry = audit_entry(seq, prev, event, params, time)
        con.execute("INSERT INTO planner_audit(seq, hash, prev, entry) VALUES (%s, %s, %s, %s)",
                    (seq, entry["hash"], entry["prev"],
                     json.dumps(entry, sort_keys=True, allow_nan=False)))
        out.append(entry)
        seq, prev = seq + 1, entry["hash"]
    return out


def _rollback(con: psycopg.Connection[Any]) -> None:
    try:
        con.execute("ROLLBACK")
    except Exception:  # the connection is gone: nothing to roll back
        pass
