"""Which budget ledger and audit log an app home charges: its own (SQLite and a file in the
home, the default) or the office's shared ledger its installed policy names (ledger_pg.py).
Every release, resume, check and view asks here; nothing else decides it (issue 26)."""

from __future__ import annotations

from ..support.errors import PlannerError
from ..support.home import AppHome
from .audit import AuditLog
from .ledger import Ledger
from .ledger_pg import SharedAudit, SharedLedger
from .office_config import OfficeLedger
from .policy import Policy, load_policy, policy_or_error

AnyLedger = Ledger | SharedLedger
AnyAudit = AuditLog | SharedAudit


def office_of(home: AppHome) -> OfficeLedger | None:
    """The shared ledger the installed policy names (None: the home's own). A policy that
    cannot be trusted raises PolicyError: nothing is charged anywhere until it is mended."""
    policy = load_policy(home)
    return None if policy is None else policy.ledger


def ledger_for(home: AppHome, for_reading: bool = False) -> AnyLedger:
    """The ledger to charge (PolicyError when the policy cannot be trusted). ``for_reading``:
    the ledger whose figures a check shows; under a policy that cannot be trusted, the home's
    own (the check then fails on the policy, and nothing is charged anywhere)."""
    if for_reading:
        policy = policy_or_error(home)
        office = policy.ledger if isinstance(policy, Policy) else None
    else:
        office = office_of(home)
    return Ledger(home.ledger_path) if office is None else SharedLedger(office)


def audit_for(home: AppHome, ledger: AnyLedger | None = None) -> AnyAudit:
    """The audit log that goes with ``ledger`` (the home's file beside its own ledger)."""
    ledger = ledger if ledger is not None else ledger_for(home)
    return SharedAudit(ledger) if isinstance(ledger, SharedLedger) else AuditLog(
        home.audit_path)


def has_ledger(home: AppHome) -> bool:
    """Whether there is a ledger to read (reading the home's own never creates it)."""
    return isinstance(ledger_for(home, True), SharedLedger) or home.ledger_path.exists()


def charged_to_words(policy: Policy | PlannerError | None) -> str:
    """Which ledger a release under the installed ``policy`` (policy_or_error's answer) is
    charged to, in words, wherever the lifetime budget is shown ("Charged to this computer's
    ledger …" / "… the office's shared ledger at db.example/planner …")."""
    office = policy.ledger if isinstance(policy, Policy) else None
    if office is None:
        return f"Charged to {Ledger.where} (this app home only)."
    return f"Charged to {SharedLedger(office).where}, shared by every app home of the office."


def charged_to_short(policy: Policy | PlannerError | None) -> str:
    """The same in a few words, for the always-visible meter ("Ledger: this computer's.")."""
    office = policy.ledger if isinstance(policy, Policy) else None
    return "Ledger: this computer's." if office is None else \
        f"Ledger: the office's ({office.where})."
