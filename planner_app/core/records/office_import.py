"""``ledger import`` into a shared ledger that already holds history (cal26, issue 26).

Two hash chains cannot become one chain with their own hashes: the office's chain goes on,
and each of the home's entries is appended to it with its event and parameters unchanged and
``imported_from`` (its seq, time, user, prev and hash in the home's chain), so that the home's
chain is rebuilt from the office's, link for link (``home_chain``), and every bundle the home
made still verifies against it. The home's charges become ledger rows linked to their
re-appended entries (crosscheck.py checks them as any other), its count of charges is added
to the office's, and a dataset's cap is the lower of the office's and the home's. A home
whose entries are already in the office's chain (imported, verbatim or re-appended) is
refused: its releases are never counted twice."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .audit import GENESIS, entry_hash
from .crosscheck import CAP_EVENT, REQUESTED
from .ledger import LedgerError, stored_cap
from .ledger_state import DEFAULT_CAP, Cap, ReleaseRecord

if TYPE_CHECKING:
    import psycopg

IMPORTED_FROM = "imported_from"


def already_imported(home_entries: Sequence[dict[str, Any]],
                     office_entries: Sequence[dict[str, Any]]) -> int | None:
    """The seq (in the home's chain) of the first home entry already in the office's chain,
    verbatim (an import into an empty ledger) or re-appended; None when none is."""
    held = {e.get("hash") for e in office_entries}
    held |= {e["params"][IMPORTED_FROM].get("hash") for e in office_entries
             if isinstance(e.get("params"), dict)
             and isinstance(e["params"].get(IMPORTED_FROM), dict)}
    return next((int(e["seq"]) for e in home_entries if e.get("hash") in held), None)


def home_chain(office_entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The home chain(s) re-appended into the office's, rebuilt entry for entry (the hash
    of each recomputed from its content: a changed entry shows as a broken link)."""
    out = []
    for e in office_entries:
        params = e.get("params")
        if not isinstance(params, dict) or not isinstance(params.get(IMPORTED_FROM), dict):
            continue
        origin = params[IMPORTED_FROM]
        entry = {"seq": origin.get("seq"), "time": origin.get("time"),
                 "user": origin.get("user"), "event": e.get("event"),
                 "params": {k: v for k, v in params.items() if k != IMPORTED_FROM},
                 "prev": origin.get("prev")}
        entry["hash"] = entry_hash(entry)
        out.append(entry)
    return out


def merge_into(con: psycopg.Connection[Any], where: str, home_entries: list[dict[str, Any]],
               rows: Sequence[ReleaseRecord], caps: Sequence[tuple[str, Cap]], counted: int,
               file_id: Any) -> None:
    """Append the home's history to a shared ledger that holds history, inside the caller's
    transaction (the tables locked). LedgerError, with nothing changed, when it cannot be
    done safely."""
    from .ledger_pg import append_entries, read_audit

    office = read_audit(con, where)
    seen = already_imported(home_entries, office)
    if seen is not None:
        raise LedgerError(f"this home's history is already in {where} (its audit entry "
                          f"{seen} is there): it was imported before, and importing it again "
                          "would count its releases twice; nothing was imported")
    ids = [r.id for r in rows]
    clash = con.execute("SELECT id FROM planner_releases WHERE id = ANY(%s) LIMIT 1",
                        (ids,)).fetchone() if ids else None
    if clash is not None:
        raise LedgerError(f"{where} already holds release {clash[0]} of this home; nothing "
                          "was imported")
    if home_entries and home_entries[0].get("prev") != GENESIS:
        raise LedgerError("this home's audit log does not start at the beginning of its "
                          "chain; nothing was imported")
    items = [(str(e["event"]), {**e["params"], IMPORTED_FROM: {
        k: e.get(k) for k in ("seq", "time", "user", "prev", "hash")}}) for e in home_entries]
    added = append_entries(con, items, None, where)
    by_old = {int(old["seq"]): new for old, new in zip(home_entries, added, strict=True)}
    requested = {e["params"].get("release_id"): int(e["seq"]) for e in home_entries
                 if e.get("event") == REQUESTED}
    for r in rows:
        link = by_old.get(requested.get(r.id, -1))
        con.execute(
            "INSERT INTO planner_releases(id, dataset, time, file_name, file_id,"
            " plan_sha256, epsilon, delta, rho, accountant, status, bundle_sha256,"
            " measurements, audit_seq, audit_hash) VALUES (%s, %s, %s, %s, %s, %s,"
            " %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (r.id, r.dataset, r.time, r.file_name, file_id(r.file_sha256), r.plan_sha256,
             r.epsilon, r.delta, r.rho, r.accountant, r.status, r.bundle_sha256,
             json.dumps(r.measurements), None if link is None else link["seq"],
             None if link is None else link["hash"]))
    con.execute("INSERT INTO planner_counters(name, value) VALUES ('releases_charged', %s) "
                "ON CONFLICT (name) DO UPDATE SET value = planner_counters.value + %s",
                (counted, counted))
    # the re-appended "ledger cap set" entries are now the latest: every dataset whose cap
    # the home set gets the lower of the two caps, recorded again, so that an import never
    # raises the office's cap
    home_caps = {e["params"].get("dataset") for e in home_entries
                 if e.get("event") == CAP_EVENT}
    mine = dict(caps)
    for name in sorted(n for n in home_caps if isinstance(n, str)):
        row = con.execute("SELECT cap_epsilon, cap_delta FROM planner_datasets WHERE name = %s",
                          (name,)).fetchone()
        try:
            office_cap = stored_cap(row)
        except ValueError:
            raise LedgerError(f"{where} holds a damaged cap for dataset {name!r}; nothing was "
                              "imported") from None
        home_cap = mine.get(name, DEFAULT_CAP)
        eps = min(office_cap.epsilon, home_cap.epsilon)
        dlt = min(office_cap.delta, home_cap.delta)
        con.execute("INSERT INTO planner_datasets(name, cap_epsilon, cap_delta, updated) "
                    "VALUES (%s, %s, %s, NULL) ON CONFLICT (name) DO UPDATE SET "
                    "cap_epsilon = excluded.cap_epsilon, cap_delta = excluded.cap_delta",
                    (name, eps, dlt))
        append_entries(con, [(CAP_EVENT, {"dataset": name, "epsilon": eps, "delta": dlt,
                                          "merged_on_import": True})], None, where)
