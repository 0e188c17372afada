"""The DP mathematics of a statistic, whatever its kind: the functions callers use
(``components_for``, ``measurements_for``, ``accuracy_for``, ...). Each asks the statistic's
kind (``registry.kind_of``) for its part -- its components, its measurements, its ± -- and
keeps what is the same for every kind here; the kind-neutral mathematics stays in core/dp.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ..dp.accuracy import (
    DEFAULT_CONFIDENCE,
    NEEDS_PERSON_ROWS,
    Accuracy,
    half_width_from_shown,
    smallest_epsilon,
    useless_words,
)
from ..dp.intervals import MeanParts, mean_parts_on
from ..dp.measure import Measurement
from ..dp.sensitivity import Component, Grid, headline_index
from ..model import Plan, PrivacyUnit, Query
from ..support.errors import InputError
from .registry import kind_of


def grid_for(query: Query) -> Grid:
    """The power-of-two grid a statistic's bounded column is rounded to (public bounds and
    its kind's grid_bits only, never the data)."""
    return kind_of(query).grid(query)


def cell_count(query: Query) -> int:
    """How many disjoint cells a query releases (groups times categories or bins)."""
    return kind_of(query).cell_count(query)


def components_for(query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
    """The integer components of ``query`` with their exact sensitivities."""
    return kind_of(query).components(query, unit, relation)


def sensitivity_for(query: Query, unit: PrivacyUnit, relation: str) -> Component:
    """The headline component of a query."""
    parts = components_for(query, unit, relation)
    return parts[headline_index([p.name for p in parts])]


def measurements_for(query: Query, plan: Plan) -> list[Measurement]:
    """A statistic's noisy measurements at its ε and δ (InputError naming its epsilon when
    no sampler can draw a noise parameter)."""
    try:
        return kind_of(query).measurements(query, plan)
    except InputError as exc:
        if exc.where is not None:
            raise
        # a noise parameter no sampler can draw: name the field to change
        raise InputError(exc.source, f"queries[{query.id}].epsilon", exc.problem) from None


def rr_refusal(query: Query, measurements: list[Measurement]) -> str | None:
    """Why a statistic cannot be released at its ε although its measurements exist (a
    randomized response whose chance of a truthful answer rounds to 0, ...); None when it
    can. The one rule: check_plan refuses such a plan before any charge, and accuracy_for
    shows the reason."""
    return kind_of(query).refusal(query, measurements)


def quantile_refusal(query: Query, rows: int | None) -> str | None:
    """Why a statistic's sampler would not finish in reasonable time on a table of at most
    ``rows`` rows (None: unknown), from public parameters only; None when it will."""
    return kind_of(query).sampler_refusal(query, rows)


def mean_parts(query: Query, ms: list[Measurement]) -> MeanParts:
    """The public pieces of a mean or variance: the laws of its measurements, its grid."""
    return mean_parts_on(grid_for(query), ms)


def accuracy_for(query: Query, plan: Plan, confidence: float = DEFAULT_CONFIDENCE,
                 measurements: list[Measurement] | None = None) -> Accuracy:
    """A statistic's ± at ``confidence`` (from ``measurements``, else its own)."""
    kind = kind_of(query)
    if not plan.privacy_unit.rows_stated:
        return Accuracy(confidence, None, kind.accuracy_unit, NEEDS_PERSON_ROWS)
    ms = measurements if measurements is not None else measurements_for(query, plan)
    return kind.accuracy(query, plan, ms, confidence)


def epsilon_for_half_width(query: Query, plan: Plan, target: float,
                           confidence: float = DEFAULT_CONFIDENCE) -> float | None:
    """Smallest ε (rounded up to 3 significant digits) whose half-width is at most ``target``.

    None when no ε up to 1000 reaches the target (or accuracy needs a row count)."""

    def width(eps: float) -> float:
        q = replace(query, epsilon=eps)
        try:
            hw = accuracy_for(q, plan, confidence).half_width
        except InputError:  # an ε the mechanism refuses (too small): no accuracy at all
            return math.inf
        return math.inf if hw is None else hw

    return smallest_epsilon(width, target)


def epsilon_for_shown_target(query: Query, plan: Plan, shown: float,
                             confidence: float = DEFAULT_CONFIDENCE) -> float | None:
    """The smallest ε whose ± (in the shown unit) is at most ``shown``."""
    acc = accuracy_for(query, plan, confidence)
    return epsilon_for_half_width(query, plan, half_width_from_shown(acc, shown), confidence)


def possible_range(query: Query, acc: Accuracy | dict[str, Any]) -> tuple[float, str] | None:
    """The width of the values a statistic can take, and how to say it (None: unbounded)."""
    return kind_of(query).possible_range(query, acc)


def central_share_hint(query: Query, acc: Accuracy | dict[str, Any]) -> str | None:
    """The note beside a statistic's ± pointing to a cheaper statistic (a randomized
    response's central share), else None."""
    return kind_of(query).central_share_hint(query, acc)


def useless_warning(query: Query, acc: Accuracy | dict[str, Any]) -> str | None:
    """A plain sentence when the ± covers most of what the statistic could be, else None.

    The one rule for `check`, the statistics list, the wizard and the report."""
    return useless_words(possible_range(query, acc), acc)


def cell_labels(query: Query) -> list[tuple[Any, ...]]:
    """Declared cells in release order: (group key, category or bin label) tuples."""
    inner = kind_of(query).inner_labels(query)
    groups: list[Any] = list(query.group_by.keys) if query.group_by is not None else [None]
    return [(g, c) for g in groups for c in inner]
