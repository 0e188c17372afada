"""Empirical privacy audit of the discovery kinds (issue 25), as test_privacy_audit.py audits
the others: many releases on two neighbouring tables, a Clopper-Pearson lower bound on ε from
threshold events, which must stay within the claim; planted errors (a threshold lowered, half
the noise) must be caught.

The neighbours are the worst cases of each discovery:
- a person with a key nobody else has: it may be published with probability at most δ (the
  threshold's), so its empirical rate's lower bound must stay below δ;
- one more person with a common key: the noised count moves by 1 (ε);
- a person over ``max_keys`` keys: one of their keys counts, the others are dropped;
- a person at the range's edge: the released upper bound moves by the exponential mechanism's
  ε only.

The aggregates come from the real engine (DuckDB over the frame, its secret-salted bounding),
the noise from the release path (privatize), run many times on one aggregate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data.engines import open_engine
from planner_app.core.data.tables import Table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds import discover_keys
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.noise import privatize
from tests.audit.test_privacy_audit import ALPHA, RUNS, clopper_pearson, epsilon_lower_bound
from tests.conftest import plan_dict

pytestmark = pytest.mark.audit

DELTA = 1e-4
KEYS = {"id": "q", "kind": "discover_keys", "mechanism": "laplace_threshold", "column": "x",
        "epsilon": 1.0, "delta": DELTA, "publish_counts": True}
BOUNDS = {"id": "q", "kind": "discover_bounds", "column": "x", "lower": 0, "upper": 15,
          "grid_step": 1, "quantiles": [0.1, 0.9], "epsilon": 2.0,
          "justification": {"bounds": "a 0-15 scale"}}
PERSON_K3 = {"kind": "person", "id_column": "pid", "max_rows": 3}


def people(rows: list[tuple[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame({"pid": [p for p, _ in rows], "x": [v for _, v in rows]})


def many(key: str, n: int, start: int = 0) -> list[tuple[str, Any]]:
    return [(f"p{start + i}", key) for i in range(n)]


def plan_of(query: dict[str, Any], unit: dict[str, Any] | None = None) -> Any:
    return plan_from_dict(plan_dict(queries=[query], privacy_unit=unit or {"kind": "row"},
                                    budget={"epsilon": 10, "delta": 1e-2}))


def outcomes(query: dict[str, Any], table: pd.DataFrame, project: Callable[[Any], float],
             runs: int, seed: int, unit: dict[str, Any] | None = None) -> np.ndarray:
    plan = plan_of(query, unit)
    engine = open_engine("duckdb", plan, Table(table, name="t.csv"), SeededRandomSource(seed))
    try:
        aggregate = engine.aggregate(plan.queries[0])
    finally:
        engine.close()
    source = SeededRandomSource(seed + 1)
    return np.array([project(privatize(plan, {"q": aggregate}, source=source)[0])
                     for _ in range(runs)], dtype=float)


def count_of(key: str) -> Callable[[Any], float]:
    """The published noised count of ``key``, -1 when it is not published."""
    def project(release: Any) -> float:
        for v in release.values:
            if v.cell == key:
                return float(v.value)
        return -1.0
    return project


def published(key: str) -> Callable[[Any], float]:
    return lambda release: float(any(v.cell == key for v in release.values))


def total_of(keys: tuple[str, ...]) -> Callable[[Any], float]:
    return lambda release: float(sum(v.value for v in release.values if v.cell in keys))


def claimed_epsilon(query: dict[str, Any], unit: dict[str, Any] | None = None) -> float:
    plan = plan_of(query, unit)
    return sum(m.epsilon for m in measurements_for(plan.queries[0], plan))


def rate_lower_bound(hits: np.ndarray) -> float:
    """A Clopper-Pearson lower bound on the probability of an event seen ``hits`` times."""
    return clopper_pearson(int(hits.sum()), len(hits), ALPHA)[0]


# --- a person with a key nobody else has ---------------------------------------------------------

LONELY_D = people(many("a", 40))
LONELY_D2 = people(many("a", 40) + [("new", "z")])


def test_a_key_only_one_person_has_is_published_at_most_with_the_threshold_delta() -> None:
    hits = outcomes(KEYS, LONELY_D2, published("z"), RUNS, seed=3)
    assert rate_lower_bound(hits) <= DELTA
    never = outcomes(KEYS, LONELY_D, published("z"), 200, seed=5)
    assert not never.any()  # absent from the data: never published


def test_the_audit_catches_a_lowered_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discover_keys, "threshold_for", lambda *args: 2)
    hits = outcomes(KEYS, LONELY_D2, published("z"), 1000, seed=3)
    assert rate_lower_bound(hits) > 100 * DELTA, "a lowered threshold was not caught"


# --- one more person with a common key: the count's ε ---------------------------------------------

COMMON_D = people(many("a", 20))
COMMON_D2 = people(many("a", 21))


def _common_bound() -> float:
    a = outcomes(KEYS, COMMON_D, count_of("a"), RUNS, seed=11)
    b = outcomes(KEYS, COMMON_D2, count_of("a"), RUNS, seed=29)
    return epsilon_lower_bound(a, b, DELTA)


def test_one_more_person_moves_the_keys_release_within_its_epsilon() -> None:
    lower, claimed = _common_bound(), claimed_epsilon(KEYS)
    assert lower <= claimed, f"measured ε >= {lower:.3f} > claimed {claimed:.3f}"
    assert lower > 0.25 * claimed, f"the audit saw only {lower:.3f}"  # not blind


def test_the_audit_catches_half_the_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    from fractions import Fraction

    real = discover_keys.laplace_scale
    monkeypatch.setattr(discover_keys, "laplace_scale",
                        lambda l1, eps: real(l1, eps) / Fraction(2))
    lower = _common_bound()
    assert lower > KEYS["epsilon"], f"half the noise not detected (ε_low = {lower:.3f})"


# --- a person over max_keys keys ------------------------------------------------------------------

OVER_D = people(many("a", 20) + many("b", 20, 100) + many("c", 20, 200))
OVER_D2 = people(many("a", 20) + many("b", 20, 100) + many("c", 20, 200)
                 + [("new", "a"), ("new", "b"), ("new", "c")])
OVER_LONELY_D2 = people(many("a", 20) + [("new", "a"), ("new", "y"), ("new", "z")])


def test_a_person_over_max_keys_counts_in_one_key_within_epsilon() -> None:
    query = {**KEYS, "max_keys": 1}
    project = total_of(("a", "b", "c"))
    a = outcomes(query, OVER_D, project, RUNS, seed=13, unit=PERSON_K3)
    b = outcomes(query, OVER_D2, project, RUNS, seed=31, unit=PERSON_K3)
    lower, claimed = epsilon_lower_bound(a, b, DELTA), claimed_epsilon(query, PERSON_K3)
    assert claimed == pytest.approx(1.0, rel=1e-6)  # one key a person: sensitivity 1
    assert lower <= claimed, f"measured ε >= {lower:.3f} > claimed {claimed:.3f}"


def test_the_extra_keys_of_a_person_over_max_keys_are_dropped() -> None:
    """With max_keys = 1, the person's keys nobody else holds (y, z) are counted at most once
    together: each is published at most with δ."""
    query = {**KEYS, "max_keys": 1}
    hits = outcomes(query, OVER_LONELY_D2, lambda r: float(any(v.cell in ("y", "z")
                                                               for v in r.values)),
                    RUNS, seed=7, unit=PERSON_K3)
    assert rate_lower_bound(hits) <= DELTA


# --- a person at the range's edge ----------------------------------------------------------------

EDGE_D = people([(f"p{i}", v) for i, v in enumerate([3, 4, 5, 5, 6, 7, 8, 9, 10, 11])])
EDGE_D2 = people([(f"p{i}", v) for i, v in enumerate([3, 4, 5, 5, 6, 7, 8, 9, 10, 11])]
                 + [("edge", 15)])


def test_a_person_at_the_range_edge_moves_the_bounds_within_epsilon() -> None:
    runs = max(1500, RUNS // 3)
    upper = lambda r: float(r.values[1].value)  # noqa: E731
    a = outcomes(BOUNDS, EDGE_D, upper, runs, seed=17)
    b = outcomes(BOUNDS, EDGE_D2, upper, runs, seed=37)
    lower, claimed = epsilon_lower_bound(a, b, 0.0), claimed_epsilon(BOUNDS)
    assert lower <= claimed, f"measured ε >= {lower:.3f} > claimed {claimed:.3f}"


# --- the Gaussian variant (gaussian_threshold) --------------------------------------------------
# core25: the same neighbours with discrete Gaussian noise; its claim is (ε, δ) with half the δ
# the noise's and half the threshold's (dp/threshold.py).

GDELTA = 1e-3  # the largest a discovery may declare: the Gaussian's ε then shows most
GAUSS = {**KEYS, "mechanism": "gaussian_threshold", "epsilon": 3.0, "delta": GDELTA}


def test_gaussian_a_key_only_one_person_has_is_published_at_most_with_its_delta() -> None:
    hits = outcomes(GAUSS, LONELY_D2, published("z"), RUNS, seed=43)
    assert rate_lower_bound(hits) <= GDELTA / 2  # the threshold's half of δ
    never = outcomes(GAUSS, LONELY_D, published("z"), 200, seed=45)
    assert not never.any()


def test_gaussian_the_audit_catches_a_lowered_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discover_keys, "gaussian_threshold_for", lambda *args: 2)
    hits = outcomes(GAUSS, LONELY_D2, published("z"), 1000, seed=43)
    assert rate_lower_bound(hits) > 100 * GDELTA, "a lowered threshold was not caught"


def _gauss_common_bound(runs: int = RUNS) -> float:
    a = outcomes(GAUSS, COMMON_D, count_of("a"), runs, seed=53)
    b = outcomes(GAUSS, COMMON_D2, count_of("a"), runs, seed=59)
    return epsilon_lower_bound(a, b, GDELTA)


def test_gaussian_one_more_person_moves_the_keys_release_within_its_epsilon() -> None:
    lower, claimed = _gauss_common_bound(), claimed_epsilon(GAUSS)
    assert claimed == pytest.approx(GAUSS["epsilon"])  # the threshold adds δ, not ε
    assert lower <= claimed, f"measured ε >= {lower:.3f} > claimed {claimed:.3f}"
    assert lower > 0.25 * claimed, f"the audit saw only {lower:.3f}"  # not blind


def test_gaussian_the_audit_catches_half_the_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    """σ halved (σ² a quarter): the count's shift of one person is seen beyond the claim."""
    from fractions import Fraction

    real = discover_keys.exact_gaussian_sigma_sq
    monkeypatch.setattr(discover_keys, "exact_gaussian_sigma_sq",
                        lambda *args: real(*args) / Fraction(4))
    lower = _gauss_common_bound(3 * RUNS)  # the Gaussian's far tail needs more runs
    assert lower > GAUSS["epsilon"], f"half the noise not detected (ε_low = {lower:.3f})"


def test_gaussian_a_person_over_max_keys_counts_in_one_key_within_epsilon() -> None:
    query = {**GAUSS, "max_keys": 1}
    project = total_of(("a", "b", "c"))
    a = outcomes(query, OVER_D, project, RUNS, seed=61, unit=PERSON_K3)
    b = outcomes(query, OVER_D2, project, RUNS, seed=67, unit=PERSON_K3)
    lower, claimed = epsilon_lower_bound(a, b, GDELTA), claimed_epsilon(query, PERSON_K3)
    assert lower <= claimed, f"measured ε >= {lower:.3f} > claimed {claimed:.3f}"
    hits = outcomes(query, OVER_LONELY_D2, lambda r: float(any(v.cell in ("y", "z")
                                                               for v in r.values)),
                    RUNS, seed=71, unit=PERSON_K3)
    assert rate_lower_bound(hits) <= GDELTA / 2
