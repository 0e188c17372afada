"""A plan checked as a release from one app home would be checked: the home's settings (the
confidence shown, whether approval is required), its trusted keys, its installed policy and
its ledger. One composition for every front end: ``planner-app check``, the Python API
(planner_app.api) and the notebooks it writes."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..data.engine_names import DEFAULT_ENGINE
from ..data.tables import Table
from ..model import Plan
from ..planning.check import CheckReport, check_plan
from ..planning.settings import load_settings
from ..records.books import audit_for, ledger_for
from ..records.keys import PublicKey, SecretKey
from ..records.ledger import LedgerError, LedgerState
from ..records.policy import approval_rule, policy_or_error, trust_note
from ..records.programme import ProgrammeRelease, programme_releases
from ..records.review import approval_keys
from ..support.errors import InputError, PlannerError
from ..support.home import AppHome
from ..support.progress import Progress
from .publish import PublishResult, file_datasets, known_datasets, publish


@contextlib.contextmanager
def naming_plan_file(name: str) -> Iterator[None]:
    """Core checks name a plan problem with the source "plan": say which file (``name``) it
    is, as the command line and the API both do."""
    try:
        yield
    except InputError as exc:
        if exc.source != "plan":
            raise
        raise InputError(name, exc.where, exc.problem) from None


def home_confidence(home: AppHome, confidence: float | None = None) -> float:
    """``confidence`` when given, else the home's setting "Confidence of the ± shown" (the one
    the desktop app shows and releases at), so every front end agrees."""
    if confidence is not None:
        return float(confidence)
    return load_settings(home.settings_path).confidence


def approval_required(home: AppHome, require_approval: bool = False,
                      trust_given: bool = False) -> bool:
    """Approval is required when asked for, when keys to check it against are named, or when
    the home's setting "Require approval before release" is on (the wizard reads it too)."""
    return bool(require_approval) or bool(trust_given) or \
        load_settings(home.settings_path).require_approval


def approval_trust(home: AppHome,
                   trust_files: Sequence[str | os.PathLike[str]] = ()) -> list[PublicKey]:
    """The keys a required approval must be signed by (review.approval_keys)."""
    return approval_keys(home, trust_files)


def ledger_state_or_error(home: AppHome, dataset: str) -> LedgerState | PlannerError:
    """The dataset's ledger state for the lifetime rule, or the error reading it (shown as a
    failed rule, not raised: a check shows what a release would refuse)."""
    try:  # the home's own ledger or the office's shared one (books.py)
        return ledger_for(home, for_reading=True).state_without_creating(dataset)
    except PlannerError as exc:
        return exc


def programme_history(home: AppHome, plan: Plan) -> list[ProgrammeRelease] | None:
    """The programme releases of the plan's dataset in the books this home charges, for the
    schedule rule (one release per date); None for a plan with no programme, or when the
    books cannot be read (the lifetime rule says so)."""
    if plan.programme is None:
        return None
    try:
        ledger = ledger_for(home, for_reading=True)
        records = ledger.state_without_creating(plan.dataset.name).releases
        return programme_releases(records, audit_for(home, ledger).read()) if records else []
    except PlannerError:
        return None


def check_in_home(plan: Plan, table: Table | None, home: AppHome, *,
                  confidence: float | None = None, require_approval: bool = False,
                  trust_files: Sequence[str | os.PathLike[str]] = (),
                  engine: str = DEFAULT_ENGINE, progress: Progress = None,
                  discoveries: Sequence[Path | str] = ()) -> CheckReport:
    """``check_plan`` with the release rules of ``home``: its lifetime budget, its installed
    policy (which may require approval by its officers), the approval setting and keys, and
    the other datasets released from the same file. Reads the home; writes nothing.
    ``discoveries``: the bundles of the lists and bounds the plan says it found privately
    (discovery.require_discoveries: refused, InputError, when missing or different)."""
    from .discovery import require_discoveries

    require_discoveries(plan, discoveries, "plan", home)
    policy = policy_or_error(home)  # the installed policy's rules, as release applies them
    try:
        same_file = file_datasets(home, table) if table is not None and policy else None
        known = known_datasets(home) if policy else None
    except LedgerError:  # the office's ledger unreachable: its rule says so (not ready)
        same_file = known = None
    require, trusted = approval_rule(
        policy, approval_required(home, require_approval, bool(trust_files)),
        approval_trust(home, trust_files))
    return check_plan(plan, table, confidence=home_confidence(home, confidence),
                      ledger=ledger_state_or_error(home, plan.dataset.name),
                      programme_history=programme_history(home, plan),
                      require_approval=require, trusted=trusted, policy=policy,
                      file_datasets=same_file,
                      known_datasets=known,
                      trust_ignored=trust_note(bool(trust_files)),
                      engine_name=engine, progress=progress)


def release_in_home(plan: Plan, table: Table, out: Path, home: AppHome, *,
                    confidence: float | None = None, clamp_counts: bool = False,
                    overwrite: bool = False, require_approval: bool = False,
                    trust_files: Sequence[str | os.PathLike[str]] = (),
                    inputs: Sequence[Path] = (), sign_with: SecretKey | None = None,
                    engine: str = DEFAULT_ENGINE, progress: Progress = None,
                    discoveries: Sequence[Path | str] = ()) -> PublishResult:
    """``publish`` with the rules of ``home`` (its confidence setting, whether approval is
    required and by whose keys): what ``planner-app release`` and the API's ``release`` run.
    The ledger is charged inside ``publish``, after every check that needs no noise; the
    discovery bundles the plan names (``discoveries``) are checked before it."""
    from .discovery import require_discoveries

    require_discoveries(plan, discoveries, "plan", home)
    return publish(plan, table, Path(out), home, confidence=home_confidence(home, confidence),
                   clamp_counts=clamp_counts, overwrite=overwrite,
                   require_approval=approval_required(home, require_approval,
                                                      bool(trust_files)),
                   inputs=list(inputs), sign_with=sign_with,
                   trusted=approval_trust(home, trust_files),
                   trust_ignored=trust_note(bool(trust_files)), engine=engine,
                   progress=progress)
