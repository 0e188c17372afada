"""Privacy audit of AIM's selection (issue 25), as test_synthetic_audit.py audits MST's:

* the exact exponential mechanism at a rational ε on the worst neighbouring scores (every
  score moved by the sensitivity, in opposite directions): the Clopper-Pearson lower bound on
  ε stays within the round's ε, sees a good part of it, and catches three times the ε;
* the scores themselves on neighbouring tables (one person with k rows added, against a
  model fitted to released values only): each candidate's score moves by at most
  w·Δ₁·2^10, the sensitivity the selection is run with; a sensitivity without the
  workload's weight (the planted error) is exceeded.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data.synthetic_marginals import SyntheticEngine, expanded_plan
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.dp.synthetic import SCORE_UNITS
from planner_app.core.dp.synthetic_aim import candidates, exponential_select_exact, workload
from planner_app.core.kinds.params import synth_columns_of
from planner_app.core.planfile import plan_from_dict
from tests.audit.test_privacy_audit import RUNS, epsilon_lower_bound
from tests.conftest import plan_dict
from tests.oracle.pandas_engine import PandasEngine

EPSILON = Fraction(1)
D_SCORES = [0, 3, 3]  # sensitivity 3: each moves by 3, the worst way round
D_PRIME_SCORES = [3, 0, 0]


def _selections(scores: list[int], seed: int, epsilon: Fraction) -> np.ndarray:
    source = SeededRandomSource(seed)
    return np.array([exponential_select_exact(source, scores, epsilon, 3)
                     for _ in range(RUNS)], dtype=float)


def test_aims_selection_stays_within_its_epsilon_and_the_audit_sees_it() -> None:
    lower = epsilon_lower_bound(_selections(D_SCORES, 3, EPSILON),
                                _selections(D_PRIME_SCORES, 4, EPSILON), 0.0)
    assert lower <= float(EPSILON), f"measured ε >= {lower:.3f} > {EPSILON}"
    assert lower > 0.25 * float(EPSILON), f"the audit saw only {lower:.3f}"


def test_the_audit_catches_a_selection_with_three_times_the_epsilon() -> None:
    """(At twice the ε this design's true loss, 1.31, sits too near the bound's reach at
    these runs to be caught every time; at three times it is 1.93.)"""
    assert epsilon_lower_bound(_selections(D_SCORES, 3, 3 * EPSILON),
                               _selections(D_PRIME_SCORES, 4, 3 * EPSILON), 0.0) > EPSILON


def _table(extra: int) -> pd.DataFrame:
    """a and b agree on most rows, c is noise; ``extra`` rows of one more person (id p)
    that break every pattern."""
    rows = [("y", "y", "y"), ("y", "y", "n"), ("n", "n", "y"), ("n", "n", "n"),
            ("y", "n", "y"), ("n", "y", "n")] * 5
    frame = pd.DataFrame(rows, columns=["a", "b", "c"])
    frame["pid"] = [str(i) for i in range(len(frame))]
    more = pd.DataFrame([("y", "n", "n", "p")] * extra, columns=["a", "b", "c", "pid"])
    return pd.concat([frame, more], ignore_index=True)


def test_scores_move_by_at_most_the_selection_sensitivity_on_neighbouring_tables() -> None:
    mbi = pytest.importorskip("mbi")
    from planner_app.core.release.synthetic_aim import candidate_scores

    k = 2
    query = {"id": "q", "kind": "synthetic", "method": "aim", "epsilon": 2.0, "delta": 1e-6,
             "columns": [{"column": c, "categories": ["y", "n"]} for c in "abc"],
             "triples": [["a", "b", "c"]]}
    plan = plan_from_dict(plan_dict(
        queries=[query], budget={"epsilon": 4, "delta": 1e-5, "accountant": "zcdp"},
        privacy_unit={"kind": "person", "id_column": "pid", "max_rows": k}))
    q = plan.queries[0]
    cols = list(synth_columns_of(q))
    names = [c.column for c in cols]
    weights = candidates(3, workload(cols, None, (("a", "b", "c"),)))
    allowed = list(weights)
    # a model fitted to made-up released counts (it never sees either table)
    domain = mbi.Domain(names, [2, 2, 2])
    model = mbi.estimation.MirrorDescent().estimate(
        domain, [mbi.LinearMeasurement(np.array([17.0, 14.0]), ("a",), 3.0),
                 mbi.LinearMeasurement(np.array([9.0, 6.0, 5.0, 11.0]), ("a", "b"), 3.0)],
        known_total=31.0, iters=200)
    scores = []
    for extra in (0, k):
        engine = SyntheticEngine(PandasEngine(expanded_plan(plan), _table(extra),
                                              SeededRandomSource(1)))
        aggregate = engine.aggregate(q)
        scores.append(candidate_scores(aggregate, model, allowed, weights, Fraction(9), names))
    moved = [abs(a - b) for a, b in zip(*scores, strict=True)]
    sensitivity = max(weights.values()) * k * SCORE_UNITS  # as measure_aim runs it
    assert max(moved) <= sensitivity
    for cl, m in zip(allowed, moved, strict=True):
        assert m <= weights[cl] * k * SCORE_UNITS, cl
    # the planted error: a sensitivity without the workload's weight is exceeded
    assert max(moved) > k * SCORE_UNITS
