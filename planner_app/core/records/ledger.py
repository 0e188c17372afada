"""The persistent per-dataset privacy budget ledger (SQLite in the app home).

Each dataset (the plan's dataset name) has a lifetime cap; each release records what it
spends. ``charge`` runs in one ``BEGIN IMMEDIATE`` transaction that reads everything spent so
far, composes it with the new release and commits the charge only when the total stays within
the cap: two processes releasing at once cannot both pass. The release draws its noise only
after this commit, so a crash can waste budget but never release without charging.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..dp.accounting import Total, within
from ..dp.measure import Measurement, measurement_from_dict, measurement_to_dict
from ..model import delta_problem
from ..planfile.compiled import CompiledPlan
from ..support.errors import InputError, PlannerError
from ..support.home import AUDIT_NAME
from ..support.private import create_private_file, private_folder, tighten
from .audit import AuditLog, utc_now, utc_now_private
from .crosscheck import CAP_EVENT, Row, cap_problems, row_problems
from .ledger_state import (
    DEFAULT_CAP,
    DEFAULT_CAP_DELTA,
    DEFAULT_CAP_EPSILON,
    Cap,
    LedgerState,
    ReleaseRecord,
    lifetime_after,
    lifetime_total,
)
from .programme import Admit, ProgrammeRefused

__all__ = ["DEFAULT_CAP", "DEFAULT_CAP_DELTA", "DEFAULT_CAP_EPSILON", "BudgetExceeded", "Cap",
           "Ledger", "LedgerDisagrees", "LedgerError", "LedgerState", "ReleaseRecord",
           "lifetime_after", "lifetime_total"]  # the first five from ledger_state.py, re-exported

SCHEMA_VERSION = 2  # 2: each release names its audit entry; a count of releases ever charged
BUSY_TIMEOUT_S = 15.0
POLICY_CAP = " (set by the organisation's policy)"


class LedgerError(PlannerError):
    """The ledger cannot be read or written; nothing was released."""


class LedgerDisagrees(LedgerError):
    """The ledger and the audit log disagree (crosscheck.py): nothing is charged."""

    def __init__(self, problem: str, what: str = "charged or written") -> None:
        super().__init__(f"{problem}; restore the ledger and the audit log from a backup "
                         f"(planner-app ledger show lists what disagrees); nothing was {what}")


class BudgetExceeded(PlannerError):
    """A release would take a dataset beyond its lifetime cap (or a plan beyond its budget)."""


class Ledger:
    """The ledger at ``path``; its audit log is the one beside it (the app home's), unless
    ``audit_path`` says otherwise: caps are recorded there, and charges checked against it."""

    def __init__(self, path: Path, audit_path: Path | None = None) -> None:
        self.path = path
        self.audit_path = audit_path if audit_path is not None else path.with_name(AUDIT_NAME)

    # -- connection -------------------------------------------------------------------------

    def _fail(self, exc: BaseException) -> LedgerError:
        text = str(exc).lower()
        where = f"the budget ledger {self.path}"
        if "readonly" in text or "read-only" in text:
            return LedgerError(f"{where} is read-only; nothing was released")
        if "locked" in text or "busy" in text:
            return LedgerError(f"{where} is locked by another process; try again; nothing was "
                               "released")
        if "not a database" in text or "malformed" in text or "corrupt" in text:
            return LedgerError(f"{where} is damaged (not a valid database); restore it from a "
                               "backup; nothing was released")
        if "unable to open" in text:
            return LedgerError(f"{where} cannot be opened; nothing was released")
        return LedgerError(f"{where} cannot be used ({exc.__class__.__name__}); nothing was "
                           "released")

    def _connect(self) -> sqlite3.Connection:
        try:
            private_folder(self.path.parent)
            create_private_file(self.path)  # 0600 whatever the umask; journals copy its mode
            con = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            con.execute("PRAGMA synchronous = FULL")
            for suffix in ("", "-journal", "-wal", "-shm"):  # an older home's, made 0644
                tighten(self.path.with_name(self.path.name + suffix))
            version = con.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                self._create(con)
            elif version < SCHEMA_VERSION:
                self._migrate(con)
            elif version > SCHEMA_VERSION:
                raise LedgerError(f"the budget ledger {self.path} was written by a newer "
                                  "planner-app; upgrade before releasing")
            return con
        except LedgerError:
            raise
        except (sqlite3.Error, OSError) as exc:
            raise self._fail(exc) from None

    def _create(self, con: sqlite3.Connection) -> None:
        con.execute("BEGIN IMMEDIATE")
        try:
            if con.execute("PRAGMA user_version").fetchone()[0] == 0:
                con.execute("""CREATE TABLE IF NOT EXISTS datasets (
                    name TEXT PRIMARY KEY, cap_epsilon REAL, cap_delta REAL, updated TEXT)""")
                con.execute("""CREATE TABLE IF NOT EXISTS releases (
                    id TEXT PRIMARY KEY, dataset TEXT NOT NULL, time TEXT NOT NULL,
                    file_name TEXT NOT NULL, file_sha256 TEXT NOT NULL,
                    plan_sha256 TEXT NOT NULL, epsilon REAL NOT NULL, delta REAL NOT NULL,
                    rho REAL, accountant TEXT NOT NULL, status TEXT NOT NULL,
                    bundle_sha256 TEXT, measurements TEXT NOT NULL)""")
                con.execute("CREATE INDEX IF NOT EXISTS releases_by_dataset "
                            "ON releases(dataset, time)")
                con.execute("PRAGMA user_version = 1")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        self._migrate(con)

    @staticmethod
    def _migrate(con: sqlite3.Connection) -> None:
        """Version 1 -> 2: audit references on each release and a count of releases ever
        charged (a deleted row leaves the count above the rows)."""
        con.execute("BEGIN IMMEDIATE")
        try:
            if con.execute("PRAGMA user_version").fetchone()[0] == 1:
                con.execute("ALTER TABLE releases ADD COLUMN audit_seq INTEGER")
                con.execute("ALTER TABLE releases ADD COLUMN audit_hash TEXT")
                con.execute("CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, "
                            "value INTEGER NOT NULL)")
                con.execute("INSERT OR IGNORE INTO counters(name, value) "
                            "SELECT 'releases_charged', COUNT(*) FROM releases")
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    # -- reads ------------------------------------------------------------------------------

    def _damaged(self, what: str) -> LedgerError:
        return LedgerError(f"the budget ledger {self.path} holds a damaged {what}; restore it "
                           "from a backup; nothing was released")

    def _cap(self, con: sqlite3.Connection, name: str) -> Cap:
        row = con.execute("SELECT cap_epsilon, cap_delta FROM datasets WHERE name = ?",
                          (name,)).fetchone()
        try:
            return stored_cap(row)
        except ValueError:
            raise self._damaged(f"cap for dataset {name!r}") from None

    def _records(self, con: sqlite3.Connection, name: str) -> list[ReleaseRecord]:
        rows = con.execute(
            "SELECT id, dataset, time, file_name, file_sha256, plan_sha256, epsilon, delta, rho,"
            " accountant, status, bundle_sha256, measurements FROM releases WHERE dataset = ?"
            " ORDER BY time, id", (name,)).fetchall()
        out = []
        for row in rows:
            try:
                out.append(stored_record(row))
            except ValueError:
                raise self._damaged(f"release record ({str(row[0])[:40]!r})") from None
        return out

    def _state(self, con: sqlite3.Connection, name: str) -> LedgerState:
        cap = self._cap(con, name)
        records = self._records(con, name)
        try:
            spent = lifetime_total(records, [], None, cap.delta)
        except (TypeError, ValueError, KeyError, AttributeError, ZeroDivisionError):
            raise self._damaged(f"release record of dataset {name!r}") from None
        return LedgerState(name, cap, spent, records)

    # -- agreement with the audit log -------------------------------------------------------

    def audit_problems(self, audit_entries: Sequence[dict[str, Any]] | None = None
                       ) -> list[str]:
        """Where the ledger and the audit log (``audit_entries``, else the log beside the
        ledger) disagree, each naming the release or dataset: see crosscheck.py."""
        con = self._connect()
        try:
            return self._audit_problems(con, audit_entries)
        finally:
            con.close()

    def _audit_problems(self, con: sqlite3.Connection,
                        audit_entries: Sequence[dict[str, Any]] | None) -> list[str]:
        entries = AuditLog(self.audit_path).read() if audit_entries is None else audit_entries
        try:
            rows = [Row(*r) for r in con.execute(
                "SELECT id, dataset, epsilon, delta, rho, accountant, plan_sha256, file_name,"
                " measurements, audit_seq, audit_hash FROM releases").fetchall()]
            counted = con.execute("SELECT value FROM counters WHERE name = "
                                  "'releases_charged'").fetchone()
            caps = {str(n): (e, d) for n, e, d in con.execute(
                "SELECT name, cap_epsilon, cap_delta FROM datasets").fetchall()}
        except sqlite3.Error as exc:
            raise self._fail(exc) from None
        number = counted[0] if counted is not None and isinstance(counted[0], int) else None
        return row_problems(rows, number, entries) + cap_problems(caps, entries)

    def state(self, name: str) -> LedgerState:
        con = self._connect()
        try:
            return self._state(con, name)
        except sqlite3.Error as exc:
            raise self._fail(exc) from None
        finally:
            con.close()

    def release(self, release_id: str) -> ReleaseRecord | None:
        """The ledger's record of one release (any dataset), or None."""
        con = self._connect()
        try:
            row = con.execute("SELECT dataset FROM releases WHERE id = ?",
                              (release_id,)).fetchone()
            records = [] if row is None else self._records(con, str(row[0]))
        except sqlite3.Error as exc:
            raise self._fail(exc) from None
        finally:
            con.close()
        return next((r for r in records if r.id == release_id), None)

    def state_without_creating(self, name: str) -> LedgerState:
        """The state for reading only: a ledger that does not exist yet has spent nothing, and
        reading it does not create it (``check`` writes nothing)."""
        if not self.path.exists():
            return LedgerState(name, DEFAULT_CAP, lifetime_total([], [], None, DEFAULT_CAP.delta),
                               [])
        return self.state(name)

    def datasets(self) -> list[str]:
        con = self._connect()
        try:
            rows = con.execute("SELECT name FROM datasets UNION SELECT dataset FROM releases "
                               "ORDER BY 1").fetchall()
            return [r[0] for r in rows]
        except sqlite3.Error as exc:
            raise self._fail(exc) from None
        finally:
            con.close()

    shared = False  # the app home's own ledger (ledger_pg.SharedLedger: the office's)
    where = "this computer's ledger"

    def file_id(self, file_sha256: str) -> str:
        """How this ledger records a file: its SHA-256 (private to the app home)."""
        return file_sha256

    def datasets_with_file(self, file_sha256: str) -> list[str]:
        con = self._connect()
        try:
            rows = con.execute("SELECT DISTINCT dataset FROM releases WHERE file_sha256 = ?",
                               (file_sha256,)).fetchall()
            return [r[0] for r in rows]
        except sqlite3.Error as exc:
            raise self._fail(exc) from None
        finally:
            con.close()

    # -- writes -----------------------------------------------------------------------------

    def set_cap(self, name: str, epsilon: float, delta: float) -> LedgerState:
        self.check_cap(name, epsilon, delta)
        epsilon, delta = float(epsilon), float(delta)
        con = self._connect()
        try:
            con.execute("BEGIN IMMEDIATE")
            con.execute("INSERT INTO datasets(name, cap_epsilon, cap_delta, updated) "
                        "VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
                        "cap_epsilon = excluded.cap_epsilon, cap_delta = excluded.cap_delta, "
                        "updated = excluded.updated", (name, epsilon, delta, utc_now()))
            # recorded before the commit, under the ledger's lock: a cap the audit log does
            # not hold is refused by every release (crosscheck.py); if the log cannot be
            # written, the cap is not set (AuditError, exit 4)
            AuditLog(self.audit_path).append(CAP_EVENT, {"dataset": name, "epsilon": epsilon,
                                                         "delta": delta})
            con.execute("COMMIT")
            return self._state(con, name)
        except sqlite3.Error as exc:
            _rollback(con)
            raise self._fail(exc) from None
        except BaseException:
            _rollback(con)
            raise
        finally:
            con.close()

    @staticmethod
    def check_cap(name: str, epsilon: float, delta: float) -> None:
        """InputError for a cap no ledger may hold."""
        if not name.strip():  # plans refuse a blank dataset name: no cap can ever apply to it
            raise InputError("argument", "NAME", "the dataset name must not be blank")
        if not (isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon > 0):
            raise InputError("argument", "--epsilon", "the cap's ε must be a number above 0")
        problem = delta_problem(delta)
        if problem:
            raise InputError("argument", "--delta", f"the cap's δ {problem}")

    def charge(self, *, release_id: str, dataset: str, file_name: str, file_sha256: str,
               plan_sha256: str, compiled: CompiledPlan | None = None,
               total: Total | None = None, measurements: Sequence[Measurement] | None = None,
               audit_entry: dict[str, Any] | None = None,
               cap_limit: Callable[[Cap], Cap] | None = None,
               admit: Admit | None = None) -> LedgerState:
        """Charge a release, or raise BudgetExceeded with nothing charged. Returns the state
        after the charge, whose ``spent`` is the lifetime total this charge composed (once).
        What is charged: ``compiled``'s total and measurements (the check's), or ``total``
        and ``measurements``. ``cap_limit`` lowers the dataset's cap (the policy's cap) for
        this decision, under the same lock; ``admit`` (a programme's place, programme.py)
        may refuse it there, from the dataset's records and the audit log."""
        if compiled is not None:
            total, measurements = compiled.total, compiled.all_measurements
            dicts = compiled.measurement_dicts
        elif total is None or measurements is None:
            raise TypeError("charge() needs compiled, or total and measurements")
        else:
            dicts = [measurement_to_dict(m) for m in measurements]
        stored = json.dumps(dicts)
        con = self._connect()
        try:
            con.execute("BEGIN IMMEDIATE")  # one writer at a time decides
            # every charge and cap as the audit log recorded it, under the lock: an edited
            # row or cap never lets a release through (crosscheck.py)
            entries = AuditLog(self.audit_path).read()
            disagree = self._audit_problems(con, entries)
            if disagree:
                raise LedgerDisagrees(disagree[0])
            own = cap = self._cap(con, dataset)
            if cap_limit is not None:
                cap = cap_limit(cap)
            records = self._records(con, dataset)
            if admit is not None:  # cal26: a programme's release in its place, under the lock
                admit(records, entries)
            after = lifetime_total(records, measurements, total, cap.delta)
            if not within(after, cap.epsilon, cap.delta):  # the rule of readiness.py
                con.execute("ROLLBACK")
                raise over_cap(dataset, cap, records, after)
            rho = total.rho
            now = utc_now_private()
            con.execute(
                "INSERT INTO releases(id, dataset, time, file_name, file_sha256, plan_sha256,"
                " epsilon, delta, rho, accountant, status, bundle_sha256, measurements,"
                " audit_seq, audit_hash)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'charged', NULL, ?, ?, ?)",
                (release_id, dataset, now, file_name, file_sha256, plan_sha256,
                 total.epsilon, total.delta, rho, total.accountant, stored,
                 None if audit_entry is None else audit_entry["seq"],
                 None if audit_entry is None else audit_entry["hash"]))
            con.execute("INSERT INTO counters(name, value) VALUES ('releases_charged', 1) "
                        "ON CONFLICT(name) DO UPDATE SET value = value + 1")
            con.execute("COMMIT")
            row = ReleaseRecord(
                id=release_id, dataset=dataset, time=now, file_name=file_name,
                file_sha256=file_sha256, plan_sha256=plan_sha256,
                epsilon=number(total.epsilon), delta=number(total.delta),
                rho=None if rho is None else number(rho), accountant=total.accountant,
                status="charged", bundle_sha256=None, measurements=json.loads(stored))
            if cap != own or (records and (records[-1].time, records[-1].id) > (now, release_id)):
                # the state holds the ledger's own cap (the policy's is applied by the
                # caller), the rows in their own order (a clock set back): read it back
                return self._state(con, dataset)
            # what _state would read back, with the total composed above (the same records
            # in the same order, the same measurements, the same cap), not composed again
            return LedgerState(dataset, own, after, [*records, row])
        except (BudgetExceeded, LedgerError, ProgrammeRefused):
            _rollback(con)
            raise
        except sqlite3.Error as exc:
            _rollback(con)
            raise self._fail(exc) from None
        finally:
            con.close()

    def policy_record(self) -> tuple[str, int, str, str] | None:
        """What was recorded when the policy was installed (records/policy.py): the signer's
        whole public key line, the policy's version, the signed file's SHA-256 and the
        signer's name; None when no policy was installed."""
        con = self._connect()
        try:
            if con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = "
                           "'policy'").fetchone() is None:
                return None
            row = con.execute("SELECT key, version, sha256, signer FROM policy "
                              "WHERE id = 1").fetchone()
            if row is None:
                return None
            return str(row[0]), int(row[1]), str(row[2]), str(row[3])
        except (sqlite3.Error, TypeError, ValueError) as exc:
            raise self._fail(exc) from None
        finally:
            con.close()

    def record_policy(self, key_line: str, version: int, sha256: str, signer: str) -> None:
        """Record the installed policy (the signer's whole key, not only its id): deleting
        the policy's files then does not switch it off, a replacement must be signed by this
        key with a greater version, and an older signed file copied in place is refused."""
        con = self._connect()
        try:
            con.execute("BEGIN IMMEDIATE")
            con.execute("CREATE TABLE IF NOT EXISTS policy (id INTEGER PRIMARY KEY CHECK "
                        "(id = 1), key TEXT NOT NULL, version INTEGER NOT NULL, sha256 TEXT "
                        "NOT NULL, signer TEXT NOT NULL)")
            con.execute("INSERT INTO policy(id, key, version, sha256, signer) "
                        "VALUES (1, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                        "key = excluded.key, version = excluded.version, "
                        "sha256 = excluded.sha256, signer = excluded.signer",
                        (key_line, version, sha256, signer))
            con.execute("COMMIT")
        except sqlite3.Error as exc:
            _rollback(con)
            raise self._fail(exc) from None
        finally:
            con.close()

    def releases_charged(self) -> int:
        """How many releases this ledger has ever charged (all datasets)."""
        con = self._connect()
        try:
            row = con.execute("SELECT value FROM counters WHERE name = 'releases_charged'"
                              ).fetchone()
            return int(row[0]) if row else 0
        except (sqlite3.Error, TypeError, ValueError) as exc:
            raise self._fail(exc) from None
        finally:
            con.close()

    def complete(self, release_id: str, bundle_sha256: str) -> None:
        con = self._connect()
        try:
            con.execute("BEGIN IMMEDIATE")
            con.execute("UPDATE releases SET status = 'completed', bundle_sha256 = ? "
                        "WHERE id = ?", (bundle_sha256, release_id))
            con.execute("COMMIT")
        except sqlite3.Error as exc:
            _rollback(con)
            raise self._fail(exc) from None
        finally:
            con.close()


def over_cap(dataset: str, cap: Cap, records: list[ReleaseRecord], after: Total
             ) -> BudgetExceeded:
    """The refusal of a charge that would take ``dataset`` to ``after``, beyond ``cap``
    (either ledger's)."""
    before = lifetime_total(records, [], None, cap.delta)
    left = LedgerState(dataset, cap, before, records)
    return BudgetExceeded(
        f"dataset {dataset!r} has ε = {left.remaining_epsilon:.4g} "
        f"(δ = {left.remaining_delta:.3g}) left of its lifetime cap ε = "
        f"{cap.epsilon:g}, δ = {cap.delta:g}"
        f"{' (the default)' if cap.is_default else ''}"
        f"{POLICY_CAP if cap.by_policy else ''}"
        f"; this release would bring the total to ε = {after.epsilon:.4g}, "
        f"δ = {after.delta:.3g}. Nothing was charged or written.")


def stored_cap(row: Sequence[Any] | None) -> Cap:
    """A dataset's cap as a ledger stores it (ε, δ), or the default cap when none is stored;
    ValueError when the stored one is not a positive ε and a valid δ (a damaged ledger). The
    one rule for the home's SQLite ledger and the office's shared one."""
    if row is None:
        return DEFAULT_CAP
    try:
        cap = Cap(number(row[0]), number(row[1]))
    except TypeError:
        raise ValueError("not numbers") from None
    if cap.epsilon <= 0 or delta_problem(cap.delta):
        raise ValueError("out of range")
    return cap


def stored_record(row: Sequence[Any]) -> ReleaseRecord:
    """A release record as a ledger stores it: (id, dataset, time, file name, file id, plan
    hash, ε, δ, ρ, accountant, status, bundle hash, measurements as JSON); ValueError when a
    cell is damaged. The one rule for the home's SQLite ledger and the office's shared one."""
    try:
        measurements = json.loads(row[12])
        if not isinstance(measurements, list):
            raise ValueError
        for m in measurements:  # each must read back as a measurement
            measurement_from_dict(m)
        return ReleaseRecord(
            id=row[0], dataset=row[1], time=row[2], file_name=row[3], file_sha256=row[4],
            plan_sha256=row[5], epsilon=number(row[6]), delta=number(row[7]),
            rho=None if row[8] is None else number(row[8]), accountant=row[9],
            status=row[10], bundle_sha256=row[11], measurements=measurements)
    except (TypeError, ValueError, KeyError, AttributeError, ZeroDivisionError):
        raise ValueError("a damaged release record") from None


def number(value: Any) -> float:
    """A finite, non-negative number from a ledger cell (text such as 'abc' is damage)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(value)
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise ValueError(value)
    return number


def _rollback(con: sqlite3.Connection) -> None:
    try:
        con.execute("ROLLBACK")
    except sqlite3.Error:
        pass
