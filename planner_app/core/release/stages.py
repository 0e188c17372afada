"""What each stage of a release hands the next (publish.py), in keyword-only groups.

``prepare`` checks everything that can fail without the noise and hands on a ``Prepared``:
the request, the check (its report and compiled plan), the true aggregates (memory only),
the trust (approval, policy, signing key), the books (audit log and ledger as read before
the charge) and the ``Rehearsal`` (the dry run and the report's preflight). The charge and
the noise take these as they are: nothing the check computed is computed again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..data.tables import Table
from ..dp.mechanisms import RandomSource
from ..model import Plan
from ..planfile.compiled import CompiledPlan
from ..planning.check import CheckReport
from ..records.books import AnyAudit, AnyLedger
from ..records.keys import SecretKey
from ..records.ledger import LedgerState
from ..records.policy import Policy
from ..records.review import ApprovalStatus
from ..support.home import AppHome
from .report_layout import ReportLayout

Progress = Callable[[float, str], None] | None


@dataclass(frozen=True, kw_only=True)
class Request:
    """What was asked: the plan on the table, where the bundle goes, how values are shown."""

    plan: Plan
    table: Table
    out: Path
    home: AppHome
    confidence: float
    clamp_counts: bool
    overwrite: bool
    progress: Progress = None


@dataclass(frozen=True, kw_only=True)
class Checked:
    """The check's results: the owner's report, the compiled plan (public) and the report's
    public part as the record takes it (``public_check``)."""

    report: CheckReport
    compiled: CompiledPlan
    public: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Trust:
    """Who approved, the organisation's policy, the key that signs."""

    status: ApprovalStatus
    policy: Policy | None = None  # the installed policy: its cap lowers the ledger's
    sign_with: SecretKey | None = None  # loaded (passphrase asked) before the charge


@dataclass(frozen=True, kw_only=True)
class Books:
    """The audit log and the ledger, and the dataset's state as read before the charge."""

    audit: AnyAudit
    ledger: AnyLedger
    prior: LedgerState


@dataclass(frozen=True, kw_only=True)
class Rehearsal:
    """What the rehearsal before the charge proved and made: the whole noise step ran on a
    stand-in source (dry run), the report and the bundle's files were built from placeholder
    values, the room they need was found. ``plan_json``: the bundle's plan.json, which the
    noise does not change, made here rather than after the charge. ``layout``: the report's
    scratch document and the heights of its text blocks, which the real build reuses
    (report_layout.py)."""

    bundle_bytes: int
    plan_json: bytes
    layout: ReportLayout | None = None


@dataclass(kw_only=True)
class Prepared:
    """Everything checked before the charge: what ``charge_and_release`` needs after it."""

    request: Request
    checked: Checked
    aggregates: dict[str, Any]  # true values: memory only, dropped after the noise
    trust: Trust
    books: Books
    rng: RandomSource
    notes: list[str] = field(default_factory=list)
    rehearsal: Rehearsal | None = None
    programme_date: str | None = None  # cal26: the scheduled date this release belongs to


def public_check(report: CheckReport) -> dict[str, Any]:
    """The parts of the check report a release record takes (public parameters only: never
    the owner's warnings or facts)."""
    data = report.to_dict()
    return {k: data[k] for k in ("plan", "queries", "total", "alternatives", "fits_budget",
                                 "risk")}
