"""Empirical privacy audit of a synthetic table's measurement step (as test_privacy_audit.py
does for every other kind): the real path (engine marginals, exact Gaussian noise, exact
exponential selection) run many times on two neighbouring tables, with a Clopper-Pearson
lower bound on ε from threshold events on what is released.

Two audits:
* the selection sampler alone on the worst neighbouring scores (every score moved by the
  sensitivity, in opposite directions): the bound must stay within the round's ε, see a good
  part of it, and catch a sampler that uses twice the ε;
* the whole measurement on neighbouring tables (one person added), looking at the pair chosen
  first and at a noised one-way cell: the bound must stay within what the measurements claim.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data.synthetic_marginals import SyntheticEngine, expanded_plan
from planner_app.core.dp import synthetic as dp_synthetic
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.noise import privatize
from tests.audit.test_privacy_audit import RUNS, epsilon_lower_bound
from tests.conftest import plan_dict
from tests.oracle.pandas_engine import PandasEngine

SELECT_EPSILON = 1.0


def _selections(scores: list[int], runs: int, seed: int, epsilon: float) -> np.ndarray:
    source = SeededRandomSource(seed)
    return np.array([dp_synthetic.exponential_select(source, scores, epsilon, 1)
                     for _ in range(runs)], dtype=float)


# neighbouring scores: each moves by at most the sensitivity (1), the worst way round
D_SCORES = [0, 1, 1]
D_PRIME_SCORES = [1, 0, 0]


def test_the_selection_stays_within_its_epsilon_and_the_audit_sees_it() -> None:
    a = _selections(D_SCORES, RUNS, 3, SELECT_EPSILON)
    b = _selections(D_PRIME_SCORES, RUNS, 4, SELECT_EPSILON)
    lower = epsilon_lower_bound(a, b, 0.0)
    assert lower <= SELECT_EPSILON, f"measured ε >= {lower:.3f} > {SELECT_EPSILON}"
    assert lower > 0.25 * SELECT_EPSILON, f"the audit saw only {lower:.3f}"


def test_the_audit_catches_a_selection_with_twice_the_epsilon() -> None:
    a = _selections(D_SCORES, RUNS, 3, 2 * SELECT_EPSILON)
    b = _selections(D_PRIME_SCORES, RUNS, 4, 2 * SELECT_EPSILON)
    assert epsilon_lower_bound(a, b, 0.0) > SELECT_EPSILON


def _table(extra: int) -> pd.DataFrame:
    """Three yes/no columns: a and b agree on most rows (the pair to choose), c is noise;
    ``extra`` more rows of a person who breaks the pattern."""
    rows = [("y", "y", "y"), ("y", "y", "n"), ("n", "n", "y"), ("n", "n", "n"),
            ("y", "n", "y"), ("n", "y", "n")] * 2
    rows += [("y", "n", "n")] * extra
    return pd.DataFrame(rows, columns=["a", "b", "c"])


QUERY = {"id": "q", "kind": "synthetic", "epsilon": 8.0, "delta": 1e-3,
         "columns": [{"column": c, "categories": ["y", "n"]} for c in "abc"]}


def _releases(table: pd.DataFrame, runs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    plan = plan_from_dict(plan_dict(queries=[QUERY], budget={"epsilon": 10, "delta": 1e-2}))
    engine = SyntheticEngine(PandasEngine(expanded_plan(plan), table, SeededRandomSource(seed)))
    aggregate = engine.aggregate(plan.queries[0])
    source = SeededRandomSource(seed + 1)
    first = np.empty(runs)
    cell = np.empty(runs)
    for i in range(runs):
        payload = privatize(plan, {"q": aggregate}, source=source)[0].synthetic
        assert payload is not None
        first[i] = ["abc".index(c) for c in payload["selected"][0]][0] * 3 + \
            ["abc".index(c) for c in payload["selected"][0]][1]
        cell[i] = payload["marginals"][0]["values"][0]
    return first, cell


def test_the_measurement_stays_within_what_it_claims_on_neighbouring_tables() -> None:
    plan = plan_from_dict(plan_dict(queries=[QUERY], budget={"epsilon": 10, "delta": 1e-2}))
    ms = measurements_for(plan.queries[0], plan)
    claimed = math.fsum(m.epsilon for m in ms)  # basic composition: an upper bound
    delta = QUERY["delta"]
    runs = max(1000, RUNS // 4)
    first_a, cell_a = _releases(_table(0), runs, 11)
    first_b, cell_b = _releases(_table(1), runs, 29)
    for a, b in ((first_a, first_b), (cell_a, cell_b)):
        lower = epsilon_lower_bound(a, b, delta)
        assert lower <= claimed, f"measured ε >= {lower:.3f} > claimed {claimed:.3f}"
    # the selection reacts to the data at all (the audit is not looking at a constant)
    assert len(set(first_a.tolist())) > 1


@pytest.mark.slow
def test_long_selection_audit() -> None:
    a = _selections(D_SCORES, 10 * RUNS, 3, SELECT_EPSILON)
    b = _selections(D_PRIME_SCORES, 10 * RUNS, 4, SELECT_EPSILON)
    assert epsilon_lower_bound(a, b, 0.0) <= SELECT_EPSILON


QUERY_2 = {"id": "q", "kind": "synthetic", "epsilon": 8.0, "delta": 1e-3,
           "columns": [{"column": c, "categories": ["y", "n"]} for c in "ab"]}


def test_two_columns_have_no_selection_and_stay_within_what_they_claim() -> None:
    """Two columns: the one pair is taken without a selection (always a × b) and its two-way
    cell, noised at half of ρ, stays within the claimed ε on neighbouring tables."""
    plan = plan_from_dict(plan_dict(queries=[QUERY_2], budget={"epsilon": 10, "delta": 1e-2}))
    ms = measurements_for(plan.queries[0], plan)
    assert all(m.mechanism == "gaussian" for m in ms)
    claimed = math.fsum(m.epsilon for m in ms)
    runs = max(1000, RUNS // 4)
    cells = []
    for extra, seed in ((0, 11), (1, 29)):
        engine = SyntheticEngine(PandasEngine(expanded_plan(plan), _table(extra)[["a", "b"]],
                                              SeededRandomSource(seed)))
        aggregate = engine.aggregate(plan.queries[0])
        source = SeededRandomSource(seed + 1)
        cell = np.empty(runs)
        for i in range(runs):
            payload = privatize(plan, {"q": aggregate}, source=source)[0].synthetic
            assert payload is not None and payload["selected"] == [["a", "b"]]
            cell[i] = payload["marginals"][2]["values"][1]  # a = y, b = n: the person's cell
        cells.append(cell)
    lower = epsilon_lower_bound(cells[0], cells[1], QUERY_2["delta"])
    assert lower <= claimed, f"measured ε >= {lower:.3f} > claimed {claimed:.3f}"
