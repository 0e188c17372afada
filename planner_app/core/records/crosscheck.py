"""Where the budget ledger and the audit log disagree (issue 10 §8, issue 22 part 6).

The ledger decides what a dataset may still spend; the audit log is a hash chain that records
every charge and every cap as it was made. Each is checked against the other, field by field:

- rows: a release the audit log records as charged must be a ledger row, and the ledger's
  rows as many as it ever charged (rows deleted, or the ledger replaced by an older copy);
- each row's ``release requested`` entry (linked by its sequence number and hash) must still
  be in the log, unchanged, and say what the row says: the release id, the dataset, ε, δ, the
  accountant, the plan, the file's name and (entries written since this check exists) the
  SHA-256 of the measurements; its ``release charged`` entry the same, and ρ;
- each dataset's cap must be what its latest ``ledger cap set`` entry set, and a cap the log
  never recorded is one too many (a cap row deleted falls back to the default cap).

Pure functions: ``Ledger.audit_problems`` and ``Ledger.charge`` (under its lock) call them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

CAP_EVENT = "ledger cap set"
REQUESTED = "release requested"
CHARGED = "release charged"
#: the release wizard's refusal when they disagree: its title and what to do
DISAGREE_TITLE = "The budget ledger and the audit log disagree"
DISAGREE_ADVICE = ("Someone or something changed one of these two files in the app's folder "
                   "(a past release or a cap), so the budget left cannot be trusted until both "
                   "are restored.")
#: `ledger show` first, when they disagree: the figures it shows are the ledger's
UNTRUSTED_FIGURES = ("THE LEDGER AND THE AUDIT LOG DISAGREE: the figures below are the "
                     "ledger's and cannot be trusted (see the error below).")


@dataclass(frozen=True)
class Row:
    """What a ledger row charged, as the ledger holds it."""

    id: str
    dataset: str
    epsilon: Any
    delta: Any
    rho: Any
    accountant: Any
    plan_sha256: Any
    file_name: Any
    measurements: Any  # the stored JSON text
    audit_seq: Any
    audit_hash: Any


def measurements_digest(measurements: Any) -> str:
    """The SHA-256 of a charge's measurements (the public parameters release.json also
    holds): a list of measurement dicts, or the JSON text the ledger stores."""
    if isinstance(measurements, str):
        try:
            measurements = json.loads(measurements)
        except ValueError:
            return "unreadable"
    text = json.dumps(measurements, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _number_words(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    return repr(value) if isinstance(value, str) else str(value)


def _disagree(release_id: str, what: str, ledger: Any, audit: Any) -> str:
    return (f"the budget ledger and the audit log disagree about release {release_id}: "
            f"{what} {_number_words(ledger)} in the ledger, {_number_words(audit)} in the "
            "audit log")


_FIELDS = (("dataset", "dataset", "dataset"), ("epsilon", "epsilon", "ε"),
           ("delta", "delta", "δ"), ("accountant", "accountant", "accountant"),
           ("plan_sha256", "plan_sha256", "plan"), ("file_name", "file_name", "file name"))


def _row_against(row: Row, params: dict[str, Any], rho: bool) -> str | None:
    """The first field where a row and one of its audit entries disagree."""
    if params.get("release_id") != row.id:
        return _disagree(row.id, "release id", row.id, params.get("release_id"))
    for attr, key, words in _FIELDS + ((("rho", "rho", "ρ"),) if rho else ()):
        if key in params and params[key] != getattr(row, attr):
            return _disagree(row.id, words, getattr(row, attr), params[key])
    if "measurements_sha256" in params and \
            params["measurements_sha256"] != measurements_digest(row.measurements):
        return (f"the budget ledger and the audit log disagree about release {row.id}: its "
                "measurements in the ledger are not those the audit log recorded")
    return None


def row_problems(rows: Sequence[Row], counted: int | None,
                 entries: Sequence[dict[str, Any]]) -> list[str]:
    """Rows deleted, a ledger replaced by an older copy, an audit entry lost, and every
    field of a charge that is not what the audit log recorded. Each names the release."""
    problems = []
    ids = {r.id for r in rows}
    if counted is not None and counted > len(rows):
        problems.append(f"the budget ledger has {len(rows)} release record(s) but "
                        f"{counted} were charged: rows were deleted")
    good = [e for e in entries if isinstance(e, dict) and isinstance(e.get("params"), dict)]
    by_seq = {e.get("seq"): e for e in good}
    requested: dict[Any, dict[str, Any]] = {}
    charged: dict[Any, dict[str, Any]] = {}
    for e in good:
        rid = e["params"].get("release_id")
        if e.get("event") == REQUESTED:
            requested.setdefault(rid, e)
        elif e.get("event") == CHARGED:
            charged.setdefault(rid, e)
            if rid not in ids:
                problems.append(f"the audit log records release {rid} as charged but the "
                                "budget ledger has no such row: rows were deleted")
    recorded = [e["params"].get("ledger_releases_charged") for e in good]
    recorded_max = max((n for n in recorded if isinstance(n, int)), default=0)
    if counted is not None and recorded_max > counted:
        problems.append(f"the audit log records {recorded_max} charged releases but the "
                        f"budget ledger only {counted}: the ledger was replaced by an older "
                        "copy")
    for row in rows:
        if row.audit_seq is not None:
            linked = by_seq.get(row.audit_seq)
            if linked is None or linked.get("hash") != row.audit_hash:
                problems.append(f"the audit log lost the entry of release {row.id} (line "
                                f"{row.audit_seq}): it was truncated, deleted or replaced")
                continue
        else:  # charged before version 2 of the ledger, or its link removed
            linked = requested.get(row.id)
        for entry, rho in ((linked, False), (charged.get(row.id), True)):
            problem = None if entry is None else _row_against(row, entry["params"], rho)
            if problem:
                problems.append(problem)
                break
    return problems


def cap_problems(caps: dict[str, tuple[Any, Any]],
                 entries: Sequence[dict[str, Any]]) -> list[str]:
    """Each dataset's cap in the ledger against the latest ``ledger cap set`` entry."""
    latest: dict[Any, dict[str, Any]] = {}
    for e in entries:
        if isinstance(e, dict) and e.get("event") == CAP_EVENT and \
                isinstance(e.get("params"), dict):
            latest[e["params"].get("dataset")] = e["params"]
    problems = []
    for name in sorted(set(latest) | set(caps), key=str):
        params = latest.get(name)
        if params is None:
            problems.append(f"the budget ledger holds a cap for dataset {name!r} (ε = "
                            f"{_number_words(caps[name][0])}) that the audit log never "
                            "recorded; set it again with planner-app ledger set-cap to record "
                            "it")
        elif name not in caps:
            problems.append(f"the budget ledger and the audit log disagree about the cap of "
                            f"dataset {name!r}: none in the ledger (the default would apply), "
                            f"ε = {_number_words(params.get('epsilon'))} in the audit log")
        elif (params.get("epsilon"), params.get("delta")) != caps[name]:
            problems.append(f"the budget ledger and the audit log disagree about the cap of "
                            f"dataset {name!r}: ε = {_number_words(caps[name][0])}, δ = "
                            f"{_number_words(caps[name][1])} in the ledger, ε = "
                            f"{_number_words(params.get('epsilon'))}, δ = "
                            f"{_number_words(params.get('delta'))} in the audit log")
    return problems
