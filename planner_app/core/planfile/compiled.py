"""A compiled plan: what a plan's check computes once and every later stage takes.

``planning.check.check_plan`` builds it: each statistic's measurements and accuracy, the
plan's composed total and its alternatives. The readiness rules, the ledger's charge and the
release record read them from here instead of computing them again (issue 23: a release built
each statistic's measurements three times and serialised its plan six times). The plan's
document and digest are made when first asked, once. Nothing here depends on the data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..dp.accounting import Total
from ..dp.accuracy import Accuracy
from ..dp.measure import Measurement, measurement_to_dict
from ..model import Plan
from .serialisation import document_digest, plan_to_dict


@dataclass(frozen=True, kw_only=True, eq=False)
class CompiledPlan:
    """A plan with everything its release takes that the data does not change: public."""

    plan: Plan
    confidence: float
    measurements: Mapping[str, tuple[Measurement, ...]]  # by statistic id, in plan order
    accuracies: Mapping[str, Accuracy]  # by statistic id
    total: Total  # the plan's statistics composed with its accountant
    alternatives: tuple[Total, ...]  # the same with the other accountants

    @cached_property
    def all_measurements(self) -> list[Measurement]:
        """Every measurement of the plan, statistic by statistic (what the ledger charges)."""
        return [m for q in self.plan.queries for m in self.measurements[q.id]]

    @cached_property
    def measurement_dicts_by_query(self) -> dict[str, list[dict[str, Any]]]:
        """Each statistic's measurements as the record writes them (``measurement_to_dict``)."""
        return {q.id: [measurement_to_dict(m) for m in self.measurements[q.id]]
                for q in self.plan.queries}

    @cached_property
    def measurement_dicts(self) -> list[dict[str, Any]]:
        """``all_measurements`` as the ledger, the audit entry and the record write them."""
        return [d for q in self.plan.queries for d in self.measurement_dicts_by_query[q.id]]

    @cached_property
    def document(self) -> dict[str, Any]:
        """The plan as its file holds it (``plan_to_dict``), made once. Read, never change."""
        return plan_to_dict(self.plan)

    @cached_property
    def digest(self) -> str:
        """The plan's SHA-256 (``plan_digest``), from ``document``."""
        return document_digest(self.document)
