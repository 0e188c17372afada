"""A Gaussian histogram or group-by where one person touches several cells gets a PLD
(issue 10, §3): its total is tighter than zCDP and never below the exact value.

Independent answers: every real shift enumerated by placing a person's rows in cells, and
the exact δ(ε) of the two-cell discrete Gaussian summed over the plane."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from planner_app.core.dp import accounting
from planner_app.core.dp.measure import Measurement
from planner_app.core.dp.sensitivity import Component
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.planfile import plan_from_dict
from tests.conftest import plan_dict


def real_shifts(k: int, cells: int, relation: str) -> set[tuple[int, ...]]:
    """Every change one person (up to k rows, each counted in one cell or none) makes to
    a vector of cell counts."""
    placements = [c for n in range(k + 1)
                  for c in itertools.combinations_with_replacement(range(cells), n)]

    def vec(rows: tuple[int, ...]) -> np.ndarray:
        v = np.zeros(cells, dtype=int)
        for r in rows:
            v[r] += 1
        return v

    if relation == "add-remove":
        vs = [vec(p) for p in placements]
    else:
        vs = [vec(a) - vec(b) for a in placements for b in placements]
    return {tuple(sorted((abs(int(x)) for x in v if x), reverse=True)) for v in vs}


@pytest.mark.parametrize(("k", "cells", "relation"), [
    (1, 4, "replace-one"), (2, 4, "add-remove"), (2, 5, "replace-one"), (3, 4, "add-remove"),
    (3, 3, "replace-one")])
def test_every_real_shift_is_covered_by_a_pattern(k: int, cells: int, relation: str) -> None:
    plan = plan_from_dict(plan_dict(
        privacy_unit={"kind": "person", "id_column": "id", "max_rows": k},
        neighbouring=relation, budget={"epsilon": 1, "delta": 1e-6},
        queries=[{"id": "h", "kind": "histogram", "column": "x", "mechanism": "gaussian",
                  "categories": [str(i) for i in range(cells)], "epsilon": 1,
                  "delta": 1e-6}]))
    (m,) = measurements_for(plan.queries[0], plan)
    patterns = accounting.shift_patterns(m.component.l1, m.component.l2_sq, m.component.cells)
    assert patterns is not None
    for shift in real_shifts(k, cells, relation):
        assert any(len(p) >= len(shift) and all(a >= b for a, b in zip(p, shift, strict=False))
                   for p in patterns), shift


def two_cell_delta(sigma_sq: float, shift: tuple[int, int], epsilon: float) -> float:
    """Exact δ(ε) of independent N_Z(0, σ²) on two cells against the shifted pair."""
    b = int(40 * math.sqrt(sigma_sq)) + 5
    y = np.arange(-b, b + 1, dtype=float)
    p = np.exp(-y * y / (2 * sigma_sq))
    p /= p.sum()

    def shifted(s: int) -> np.ndarray:
        return np.exp(-(y - s) ** 2 / (2 * sigma_sq)) / np.exp(-y * y / (2 * sigma_sq)).sum()

    a = np.outer(p, p)
    c = np.outer(shifted(shift[0]), shifted(shift[1]))
    return float(np.maximum(0.0, a - math.exp(epsilon) * c).sum())


def exact_epsilon(sigma_sq: float, shifts: list[tuple[int, int]], delta: float) -> float:
    lo, hi = 0.0, 20.0
    for _ in range(50):
        mid = (lo + hi) / 2
        if max(two_cell_delta(sigma_sq, s, mid) for s in shifts) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def gaussian_histogram(l1: int, l2_sq: int, cells: int, sigma_sq: float) -> Measurement:
    comp = Component("cells", 1.0, l1, l2_sq, cells, False, "")
    from fractions import Fraction

    return Measurement("h", comp, "gaussian", 1.0, 1e-6, sigma_sq=Fraction(sigma_sq))


@pytest.mark.parametrize(("l1", "l2_sq", "shifts"), [
    (2, 2, [(1, 1)]),  # replace-one, one row per person
    (2, 4, [(2, 0), (1, 1)]),  # add-remove, two rows per person
])
def test_the_pld_total_is_at_or_above_the_exact_value_and_close(
        l1: int, l2_sq: int, shifts: list[tuple[int, int]]) -> None:
    for sigma_sq, count in ((12.25, 1), (30.0, 3)):
        ms = [gaussian_histogram(l1, l2_sq, 2, sigma_sq) for _ in range(count)]
        total = accounting.pld(ms, 1e-6).epsilon
        if count == 1:
            exact = exact_epsilon(sigma_sq, shifts, 1e-6)
            assert exact <= total <= exact * 1.01 + 1e-3
        # composed: still tighter than zCDP
        assert total <= accounting.zcdp(ms, 1e-6).epsilon


def test_a_gaussian_histogram_plan_gets_a_pld_total() -> None:
    """Before: 'pld cannot account for a gaussian histogram'; the default fell to zCDP."""
    queries = [{"id": f"h{i}", "kind": "histogram", "column": "x", "mechanism": "gaussian",
                "categories": ["a", "b", "c"], "epsilon": 0.3, "delta": 1e-7}
               for i in range(10)]
    plan = plan_from_dict(plan_dict(neighbouring="replace-one", queries=queries,
                                    budget={"epsilon": 10, "delta": 1e-6}))
    ms = [m for q in plan.queries for m in measurements_for(q, plan)]
    assert not ms[0].component.single_cell
    tight = accounting.compose(ms, 1e-6, "pld")
    z = accounting.zcdp(ms, 1e-6)
    assert tight.epsilon < 0.95 * z.epsilon
    assert accounting.compose(ms, 1e-6).accountant == "pld"
    # the composition of ten two-cell shifts (1, 1) is twenty one-cell shifts of 1
    from dp_accounting.pld import privacy_loss_distribution as pld

    sigma = math.sqrt(float(ms[0].sigma_sq))  # type: ignore[arg-type]
    ref = pld.from_discrete_gaussian_mechanism(
        sigma, sensitivity=1, value_discretization_interval=1e-4).self_compose(20)
    assert tight.epsilon == pytest.approx(ref.get_epsilon_for_delta(1e-6), rel=1e-3)


@pytest.mark.parametrize(("relation", "k", "shifts"), [
    ("replace-one", 1, [(1, 1)]), ("add-remove", 2, [(2, 0), (1, 1)])])
def test_sigma_of_a_gaussian_histogram_meets_its_exact_curve(
        relation: str, k: int, shifts: list[tuple[int, int]]) -> None:
    """Before: σ through zCDP at Δ₂, 5.72 for replace-one at ε = 1, δ = 1e-5."""
    unit = {"kind": "row"} if k == 1 else {"kind": "person", "id_column": "id", "max_rows": k}
    plan = plan_from_dict(plan_dict(
        privacy_unit=unit, neighbouring=relation, budget={"epsilon": 1, "delta": 1e-5},
        queries=[{"id": "h", "kind": "histogram", "column": "x", "mechanism": "gaussian",
                  "categories": ["a", "b"], "epsilon": 1, "delta": 1e-5}]))
    (m,) = measurements_for(plan.queries[0], plan)
    sigma_sq = float(m.sigma_sq)  # type: ignore[arg-type]
    assert max(two_cell_delta(sigma_sq, s, 1.0) for s in shifts) <= 1e-5
    assert max(two_cell_delta(sigma_sq * 0.998, s, 1.0) for s in shifts) > 1e-5
    zcdp_sigma = 4.0451303583555935 * math.sqrt(m.component.l2_sq)  # ρ = Δ₂²/2σ² at (1, 1e-5)
    assert math.sqrt(sigma_sq) < 0.95 * zcdp_sigma
