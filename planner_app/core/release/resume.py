"""Completing an unfinished release: a release whose ledger charge and noise happened but
whose bundle was not written (a full disk, a removed folder, a bug in the report, a kill).

``resume_release`` writes the bundle from the noised record that publish saved right after
the noise (pending.py), with no new noise and no second charge, and refuses a release that the
ledger does not hold as charged. The CLI's ``release --resume`` and the release wizard call it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..kinds.results import QueryRelease, ReleasedValue
from ..planfile import plan_from_dict
from ..planning.check import check_plan
from ..records.books import audit_for, has_ledger, ledger_for
from ..records.keys import KeyStore, Passphrase, SecretKey
from ..records.ledger import LedgerDisagrees, LedgerError
from ..support.errors import InputError, PlannerError
from ..support.files import OutputLock, check_output, existing_kind
from ..support.home import AppHome
from .bundle import RECORD, bundle_json, read_bundle, sha256_file
from .pending import list_pending, load_pending, pending_path, remove_pending
from .publish import Progress, PublishResult, complete_release, finish_release
from .result_columns import result_rows
from .signing import recorded_signer
from .verify_release import verify_bundle


def resume_release(home: AppHome, release_id: str | None = None, *, out: Path | None = None,
                   overwrite: bool = False, progress: Progress = None,
                   sign_with: SecretKey | None = None,
                   passphrase: Passphrase | None = None,
                   unsigned: bool = False,
                   discoveries: Sequence[Path | str] = ()) -> PublishResult:
    """Complete an unfinished release from its saved record, without drawing new noise and
    without a second charge. ``release_id`` may be left out when there is exactly one;
    ``out`` writes the bundle somewhere other than first asked.

    A signed release is signed again with the same key: ``sign_with`` (already loaded), or the
    key of the recorded name loaded from the app home (``passphrase(name)`` asked when it is
    protected). A missing key or a wrong passphrase fails here, before anything is written.
    ``unsigned`` completes a signed release without its signature (its key was lost): the
    saved record's ``signed_by`` is dropped before the bundle is written, and the audit log
    says so; still no new noise and no new charge.

    ``discoveries``: the discovery bundles of the lists and bounds the plan says it found
    privately. The first attempt checked them before its charge (discovery.
    require_discoveries); the bundle written here publishes the same plan, so the same rule
    is applied again before anything is written (core25): refused, one line, the release
    left resumable, when one is missing, differs or is not needed."""
    def step(fraction: float, message: str) -> None:
        if progress is not None:
            progress(fraction, message)

    if release_id is None:
        waiting = list_pending(home)
        if not waiting:
            raise InputError("argument", None, "there is no unfinished release to complete")
        if len(waiting) > 1:
            raise InputError("argument", None, f"{len(waiting)} releases are unfinished; say "
                             "which: --resume " + " or ".join(w.release_id for w in waiting))
        release_id = waiting[0].release_id
    pending_path(home, release_id)  # a release id, or InputError
    if has_ledger(home):  # never a second completion (a new bundle, new entries)
        books = ledger_for(home)
        audit_log = audit_for(home, books).require_intact()
        entries = audit_log.read()
        disagree = books.audit_problems(entries)
        if disagree:
            raise LedgerDisagrees(disagree[0], "written")
        charged = books.release(release_id)
        if charged is not None and charged.status == "completed":
            raise _already_complete(home, release_id, charged.bundle_sha256, entries)
    doc = load_pending(home, release_id)
    record = doc["record"]
    dropped = None
    if unsigned:
        if sign_with is not None:
            raise InputError("argument", "--unsigned", "give either --unsigned or --sign-with, "
                             "not both")
        dropped = record.get("signed_by")
        record = {k: v for k, v in record.items() if k != "signed_by"}
        doc = {**doc, "record": record}
    else:
        sign_with = _signing_key(home, record, sign_with, passphrase)
    plan = plan_from_dict(record["plan"], "the saved record")
    from .discovery import require_discoveries

    require_discoveries(plan, discoveries, "the saved record", home)
    target = Path(out) if out is not None else Path(doc["out"])
    overwrite = overwrite or bool(doc.get("overwrite"))
    ledger = ledger_for(home)
    audit = audit_for(home, ledger).require_intact()
    row = next((r for r in ledger.state(doc["dataset"]).releases if r.id == release_id), None)
    if row is None:  # never publish what the ledger does not hold as charged
        raise LedgerError(f"the budget ledger has no charge for release {release_id}; it "
                          "cannot be completed")
    if dropped is not None:
        audit.append("release completed unsigned", {
            "release_id": release_id, "dataset": doc["dataset"],
            "key": dropped.get("name") if isinstance(dropped, dict) else None,
            "fingerprint": dropped.get("fingerprint") if isinstance(dropped, dict) else None})
    step(0.1, "Checking where the bundle goes")
    with OutputLock(target):
        done = _already_written(target, release_id)
        if done is not None:
            finish_release(home, ledger, audit, release_id, target, done)
            bundle_sha = done
        else:
            check_output(target, overwrite, keep=[home.data_dir, home.config_dir])
            bundle_sha = complete_release(home, doc, plan, target, overwrite, step,
                                          resumed=True, sign_with=sign_with)
    step(1.0, "Released")
    report = check_plan(plan, confidence=float(record["confidence"]))
    state = ledger.state(doc["dataset"])
    return PublishResult(release_id, target, bundle_sha, state, report,
                         _releases_from(record, doc), [], record.get("signed_by"))


class AlreadyComplete(PlannerError):
    """``release --resume`` of a release whose bundle was already written: nothing to do
    (the CLI exits 0); nothing is written and no audit entry added."""

    def __init__(self, release_id: str, bundle: str, bundle_sha256: str | None) -> None:
        self.release_id, self.bundle = release_id, bundle
        super().__init__(f"release {release_id} is already complete: its bundle is {bundle}"
                         f"{f' (SHA-256 {bundle_sha256})' if bundle_sha256 else ''}; "
                         "nothing was written")


def _already_complete(home: AppHome, release_id: str, bundle_sha256: str | None,
                      entries: list[dict[str, Any]]) -> AlreadyComplete:
    """Where the completed release's bundle was written (its 'bundle written' entry, else
    its saved record), and the saved record it left, if a kill left one, removed."""
    where = None
    for e in entries:
        params = e.get("params") if isinstance(e, dict) else None
        if e.get("event") == "bundle written" and isinstance(params, dict) and \
                params.get("release_id") == release_id:
            where = params.get("bundle_path") or params.get("bundle_name")
    if where is None:
        try:
            where = load_pending(home, release_id).get("out")
        except PlannerError:
            pass
    remove_pending(home, release_id)
    return AlreadyComplete(release_id, str(where or "not recorded"), bundle_sha256)


def pending_signer(home: AppHome, release_id: str) -> str | None:
    """The name of the key an unfinished release is signed with (None: unsigned), so that a
    front end can ask its passphrase before resuming."""
    return recorded_signer(load_pending(home, release_id)["record"])


def _signing_key(home: AppHome, record: dict[str, Any], given: SecretKey | None,
                 passphrase: Passphrase | None) -> SecretKey | None:
    name = recorded_signer(record)
    if name is None:
        if given is not None:
            raise InputError("argument", "--sign-with", "this release was not signed when it "
                             "was charged; it is completed unsigned (its record cannot change)")
        return None
    try:
        key = given if given is not None else KeyStore(home).secret(name, passphrase,
                                                                    "--resume")
    except InputError as exc:
        raise InputError(exc.source, exc.where, f"{exc.problem}; if the key is lost, complete "
                         "the release without a signature: planner-app release --resume "
                         f"{record.get('release_id', 'ID')} --unsigned") from None
    if key.public.fingerprint != record["signed_by"].get("fingerprint"):
        raise InputError("argument", "--sign-with", f"this release is signed by key {name} "
                         f"({record['signed_by'].get('fingerprint')}), not by "
                         f"{key.name} ({key.public.fingerprint}); the same key must sign it")
    return key


def _already_written(out: Path, release_id: str) -> str | None:
    """The bundle's SHA-256 when ``out`` already holds this very release, complete and valid
    (the failure came after the rename)."""
    if existing_kind(out) != "file":
        return None
    try:
        record = bundle_json(read_bundle(out)[RECORD])
        if record.get("release_id") != release_id or not verify_bundle(out).valid:
            return None
    except (PlannerError, KeyError, ValueError):
        return None
    return sha256_file(out)


def _releases_from(record: dict[str, Any], doc: dict[str, Any]) -> list[QueryRelease]:
    by_query: dict[str, list[ReleasedValue]] = {}
    for row in result_rows(record):  # a resumed release's values, as it returns them
        by_query.setdefault(row["query_id"], []).append(ReleasedValue(**row))
    noised = doc.get("noised") or {}
    tables = record.get("synthetic") or {}
    return [QueryRelease(q["id"], by_query.get(q["id"], []),
                         np.array(noised[q["id"]], dtype=bool) if q["id"] in noised else None,
                         tables.get(q["id"]))
            for q in record["queries"]]
