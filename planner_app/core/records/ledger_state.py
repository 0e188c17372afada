"""What the ledger holds and how a dataset's lifetime spending composes: the caps, the
release records, a dataset's state (ledger.py reads and writes them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..dp.accounting import FIT_TOLERANCE, Total, valid_totals
from ..dp.measure import Measurement, measurement_from_dict

DEFAULT_CAP_EPSILON = 10.0
DEFAULT_CAP_DELTA = 1e-5


@dataclass(frozen=True)
class Cap:
    epsilon: float
    delta: float
    is_default: bool = False
    by_policy: bool = False  # lowered to the organisation's policy's cap (records/policy.py)

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self.delta, "default": self.is_default}


DEFAULT_CAP = Cap(DEFAULT_CAP_EPSILON, DEFAULT_CAP_DELTA, True)


@dataclass(frozen=True)
class ReleaseRecord:
    id: str
    dataset: str
    time: str
    file_name: str
    file_sha256: str
    plan_sha256: str
    epsilon: float
    delta: float
    rho: float | None
    accountant: str
    status: str  # charged | completed
    bundle_sha256: str | None
    measurements: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "time": self.time, "file_name": self.file_name,
                "file_sha256": self.file_sha256, "plan_sha256": self.plan_sha256,
                "epsilon": self.epsilon, "delta": self.delta, "rho": self.rho,
                "accountant": self.accountant, "status": self.status,
                "bundle_sha256": self.bundle_sha256}


@dataclass(frozen=True)
class LedgerState:
    dataset: str
    cap: Cap
    spent: Total
    releases: list[ReleaseRecord]

    @property
    def remaining_epsilon(self) -> float:
        return max(0.0, self.cap.epsilon - self.spent.epsilon)

    @property
    def remaining_delta(self) -> float:
        return max(0.0, self.cap.delta - self.spent.delta)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "cap": self.cap.to_dict(),
            "spent": self.spent.to_dict(),
            "remaining": {"epsilon": self.remaining_epsilon, "delta": self.remaining_delta},
            "releases": [r.to_dict() for r in self.releases],
        }


def lifetime_total(records: Sequence[ReleaseRecord], extra: Sequence[Measurement],
                   extra_total: Total | None, delta_cap: float) -> Total:
    """What a dataset has spent: the smallest ε of the valid totals whose δ is within the
    cap's (the smallest of all when none is). The valid totals: the releases' own (ε, δ)
    added up (basic composition), and all their measurements composed together at the same
    total δ (at most the cap's) by each accountant that can compose them all
    (``accounting.valid_totals``: a history with AIM's rounds is never composed by PLD, one
    with a discovery of keys never by zCDP, one with both by adding each measurement's own
    (ε, δ) up). Which accountant a plan names plays no part: it is the plan's alone."""
    if not records and not extra:
        return Total(0.0, 0.0, "basic")
    # one exactly rounded sum over every release, the new one among them: the charge's total
    # is then the very number the ledger reads back once the new row is in it
    new = [extra_total] if extra_total is not None else []
    eps = math.fsum([*(r.epsilon for r in records), *(t.epsilon for t in new)])
    dlt = math.fsum([*(r.delta for r in records), *(t.delta for t in new)])
    candidates = [Total(eps, dlt, "basic")]
    measurements = [measurement_from_dict(m) for r in records for m in r.measurements]
    measurements += list(extra)
    target = min(dlt, delta_cap)
    if target > 0:
        candidates += valid_totals(measurements, target)
    # a total over the cap's δ is valid but cannot fit the cap: one within it goes first
    return min(candidates, key=lambda t: (t.delta > delta_cap * (1 + FIT_TOLERANCE),
                                          t.epsilon, t.accountant != "basic"))


def lifetime_after(state: LedgerState, measurements: Sequence[Measurement],
                   total: Total) -> Total:
    """What the dataset would have spent after a release of ``measurements`` (composed to
    ``total``): the same composition the charge uses, for the checklist, `check` and the
    meter. ``within(lifetime_after(...), cap.epsilon, cap.delta)`` is the charge's test."""
    return lifetime_total(state.releases, measurements, total, state.cap.delta)
