"""The privacy officer's commands for the office's shared ledger (issue 26): ``ledger doctor``
(reachable? schema? caps? chain?), ``ledger migrate`` (create or upgrade the schema) and
``ledger import`` (move an app home's SQLite history in once, its audit chain kept)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..support.errors import InputError, PlannerError
from ..support.home import AppHome
from .audit import AuditLog, verify_chain
from .books import office_of
from .ledger import Ledger, LedgerError
from .ledger_pg import SharedLedger, append_entries, read_audit
from .ledger_schema import SCHEMA_VERSION, migrate, schema_version
from .office_config import OfficeLedger
from .office_import import merge_into
from .policy import load_policy

IMPORTED_EVENT = "ledger imported"


@dataclass
class Doctor:
    """What ``ledger doctor`` found: one line each, and whether releases can be charged."""

    lines: list[str] = field(default_factory=list)
    ok: bool = True

    def bad(self, line: str) -> None:
        self.lines.append(f"PROBLEM: {line}")
        self.ok = False


def _office(home: AppHome) -> OfficeLedger:
    office = office_of(home)
    if office is None:
        raise InputError("ledger", None, "this app home's policy names no shared ledger (a "
                                         "policy@2 with a \"ledger\" section; see "
                                         "docs/policy-format.md)")
    return office


def doctor(home: AppHome) -> Doctor:
    """Check the ledger this home charges, without writing anything."""
    found = Doctor()
    office = office_of(home)
    if office is None:
        found.lines.append(f"This app home charges its own ledger ({home.ledger_path}); its "
                           "policy names no shared ledger.")
        return found
    shared = SharedLedger(office)
    found.lines.append(f"Shared ledger: {office.where} (named by the installed policy).")
    try:
        con = shared.connect(check_schema=False)
    except LedgerError as exc:
        found.bad(str(exc))
        return found
    try:
        found.lines.append("Reachable: yes.")
        version = schema_version(con)
        if version != SCHEMA_VERSION:
            found.bad(f"schema version {version or 'none'}, this planner-app uses "
                      f"{SCHEMA_VERSION}: " + ("upgrade planner-app" if version > SCHEMA_VERSION
                                               else "run planner-app ledger migrate"))
            return found
        found.lines.append(f"Schema version: {version} (as this planner-app expects).")
        try:
            shared.config.secret()
            found.lines.append("Office secret: present.")
        except PlannerError as exc:
            found.bad(str(exc).replace("; nothing was released", ""))
        entries = read_audit(con, shared.where, verify=False)
        broken = verify_chain(entries)
        if broken is not None:
            found.bad(f"the audit log is broken at {broken}")
        else:
            found.lines.append(f"Audit log: {len(entries)} entries, the chain intact.")
        problems = shared._audit_problems(con, entries)
        for p in problems:
            found.bad(p)
        for name, eps, dlt in con.execute("SELECT name, cap_epsilon, cap_delta FROM "
                                          "planner_datasets ORDER BY name").fetchall():
            found.lines.append(f"Cap set in the ledger: {name}: ε = {eps:g}, δ = {dlt:g}.")
        policy = load_policy(home)
        if policy is not None:
            for name, cap in sorted(policy.lifetime_caps.items()):
                found.lines.append(f"Cap of the policy: {name}: ε = {cap.epsilon:g}, "
                                   f"δ = {cap.delta:g}.")
            if policy.default_lifetime_cap is not None:
                c = policy.default_lifetime_cap
                found.lines.append(f"Cap of the policy for any other dataset: "
                                   f"ε = {c.epsilon:g}, δ = {c.delta:g}.")
        count = con.execute("SELECT count(*) FROM planner_releases").fetchone()
        found.lines.append(f"Releases charged: {count[0] if count else 0}.")
    except Exception as exc:  # the server went away mid-check: say so, never a traceback
        if isinstance(exc, PlannerError):
            found.bad(str(exc))
        else:
            found.bad(shared.unreachable(exc).args[0])
    finally:
        con.close()
    return found


def migrate_office(home: AppHome) -> tuple[int, int]:
    """Create or upgrade the shared ledger's schema: (version before, after)."""
    import psycopg

    shared = SharedLedger(_office(home))
    con = shared.connect(check_schema=False)
    try:
        before, after = migrate(con)
    except psycopg.Error as exc:
        raise shared.unreachable(exc, "changed") from None
    finally:
        con.close()
    if before > SCHEMA_VERSION:
        raise LedgerError(f"{shared.where} has schema version {before}, newer than this "
                          f"planner-app's {SCHEMA_VERSION}; upgrade planner-app")
    return before, after


def import_home(home: AppHome) -> dict[str, Any]:
    """Copy this home's own ledger and audit log into the shared ledger, then add a "ledger
    imported" entry. Into an empty one entry for entry (the same chain, the same hashes);
    into one that holds history (cal26) appended to the office's chain, each entry naming
    where it stood in the home's (office_import.py). A home imported before is refused."""
    import psycopg

    shared = SharedLedger(_office(home))
    if not home.ledger_path.exists():
        raise InputError("ledger", None, f"this app home has no ledger of its own to import "
                                         f"({home.ledger_path} does not exist)")
    audit = AuditLog(home.audit_path).require_intact()
    entries = audit.read()
    local = Ledger(home.ledger_path)
    problems = local.audit_problems(entries)
    if problems:
        raise LedgerError(f"this app home's ledger and audit log disagree ({problems[0]}); "
                          "nothing was imported")
    rows = [r for d in local.datasets() for r in local.state(d).releases]
    caps = [(d, local.state(d).cap) for d in local.datasets()]
    refs = _audit_refs(home)
    counted = local.releases_charged()
    secret = shared.config.secret()
    from .office_config import file_identity

    con = shared.connect()
    try:
        with con.transaction():
            con.execute("LOCK TABLE planner_audit, planner_releases, planner_datasets IN "
                        "EXCLUSIVE MODE")
            held = con.execute("SELECT (SELECT count(*) FROM planner_audit) + (SELECT count(*) "
                               "FROM planner_releases) + (SELECT count(*) FROM "
                               "planner_datasets)").fetchone()
            if held and held[0]:
                # cal26: the office's chain goes on; the home's entries are appended to it
                # (office_import.py), or refused when they are there already
                merge_into(con, shared.where, entries, rows, caps, counted,
                           lambda sha: file_identity(secret, sha))
                _finish_import(con, shared, entries, rows, merged=True)
                return {"entries": len(entries), "releases": len(rows), "caps": len(caps),
                        "shared_ledger": shared.config.where, "merged": True}
            for e in entries:
                con.execute("INSERT INTO planner_audit(seq, hash, prev, entry) VALUES "
                            "(%s, %s, %s, %s)", (int(e["seq"]), e["hash"], e["prev"],
                                                 json.dumps(e, sort_keys=True)))
            for name, cap in caps:
                if not cap.is_default:
                    con.execute("INSERT INTO planner_datasets(name, cap_epsilon, cap_delta, "
                                "updated) VALUES (%s, %s, %s, NULL)",
                                (name, cap.epsilon, cap.delta))
            for r in rows:
                seq, digest = refs.get(r.id, (None, None))
                con.execute(
                    "INSERT INTO planner_releases(id, dataset, time, file_name, file_id,"
                    " plan_sha256, epsilon, delta, rho, accountant, status, bundle_sha256,"
                    " measurements, audit_seq, audit_hash) VALUES (%s, %s, %s, %s, %s, %s,"
                    " %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (r.id, r.dataset, r.time, r.file_name,
                     file_identity(secret, r.file_sha256), r.plan_sha256, r.epsilon, r.delta,
                     r.rho, r.accountant, r.status, r.bundle_sha256,
                     json.dumps(r.measurements), seq, digest))
            con.execute("INSERT INTO planner_counters(name, value) VALUES "
                        "('releases_charged', %s)", (counted,))
            _finish_import(con, shared, entries, rows, merged=False)
    except psycopg.Error as exc:
        raise shared.unreachable(exc, "imported") from None
    finally:
        con.close()
    return {"entries": len(entries), "releases": len(rows), "caps": len(caps),
            "shared_ledger": shared.config.where, "merged": False}


def _finish_import(con: Any, shared: SharedLedger, entries: list[dict[str, Any]],
                   rows: list[Any], merged: bool) -> None:
    """The "ledger imported" entry, then the whole history checked inside the transaction:
    never leave an import the next charge would refuse."""
    last = entries[-1]["hash"] if entries else None
    first = entries[0]["hash"] if entries else None
    append_entries(con, [(IMPORTED_EVENT, {"entries": len(entries), "releases": len(rows),
                                           "chain_head": last, "chain_first": first,
                                           "appended": merged})], None, shared.where)
    problems = shared._audit_problems(con, None)
    if problems:
        raise LedgerError(f"the imported history does not check ({problems[0]}); "
                          "nothing was imported")


def _audit_refs(home: AppHome) -> dict[str, tuple[int | None, str | None]]:
    """Each release's audit reference as the home's own ledger holds it."""
    import sqlite3

    con = sqlite3.connect(home.ledger_path)
    try:
        return {str(i): (s, h) for i, s, h in con.execute(
            "SELECT id, audit_seq, audit_hash FROM releases").fetchall()}
    finally:
        con.close()
