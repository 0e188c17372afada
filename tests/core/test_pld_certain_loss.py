"""A discrete Gaussian whose noise cannot hide a person's shift (a plan at a huge ε, which
the rules allow up to 1,000): the PLD accountant takes its loss as certain (all at +∞)
instead of failing. Before, `planner-app check` of two Gaussian counts at ε = 200 with at
most 3 rows a person answered "internal error (IndexError)" (dp-accounting's tail cut
keeps no mass and raises), and at ε = 1,000 with 8 rows "internal error (ValueError)"
(dp-accounting refuses a σ under about a twentieth of the shift)."""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from planner_app.core.dp import accounting, pld_mechanisms, pld_ops
from planner_app.core.dp.laplace_pld import PLD_DISCRETISATION
from planner_app.core.dp.pld_pmf import self_compose, to_dense
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.planfile.serialisation import load_plan
from planner_app.core.support.resources import demo_plan_path

D = PLD_DISCRETISATION


def _plan(tmp: Path, query_id: str, epsilon: float, max_rows: int) -> Path:
    """The demo plan reduced to two copies of one statistic, made Gaussian at ``epsilon``."""
    demo: dict[str, Any] = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    q = next(q for q in demo["queries"] if q["id"] == query_id)
    q = {**q, "mechanism": "gaussian", "epsilon": epsilon, "delta": 5e-7}
    demo["queries"] = [q, {**q, "id": q["id"] + "_again"}]
    demo["budget"] = {"epsilon": min(2 * epsilon, 1000.0), "delta": 1e-6}
    demo["privacy_unit"] = {**demo["privacy_unit"], "max_rows": max_rows}
    path = tmp / f"{query_id}-{epsilon:g}-{max_rows}.json"
    path.write_text(json.dumps(demo), encoding="utf-8")
    return path


#: IndexError (the tail cut), the same on a histogram's cells, ValueError (the constructor)
CASES = [("employed", 200.0, 3), ("region_counts", 200.0, 3), ("employed", 1000.0, 8)]


@pytest.mark.parametrize("query_id, epsilon, max_rows", CASES)
def test_the_total_is_the_tightest_of_the_others(tmp_path: Path, query_id: str,
                                                 epsilon: float, max_rows: int) -> None:
    plan = load_plan(_plan(tmp_path, query_id, epsilon, max_rows))
    ms = [m for q in plan.queries for m in measurements_for(q, plan)]
    delta = plan.budget.delta
    assert accountant_pld_is_certain(ms, delta)
    total = accounting.compose(ms, delta)
    # the independent answer: the two statements' (ε, δ) added up (basic composition), and
    # zCDP's; the PLD's total is +∞, so the tightest is the smaller of these
    stated = sum(m.epsilon for m in ms), sum(m.delta for m in ms)
    others = [accounting.basic(ms), accounting.zcdp(ms, delta)]
    assert math.isclose(accounting.basic(ms).epsilon, stated[0])
    assert total.accountant != "pld"
    assert total.epsilon == min(t.epsilon for t in others if t.delta <= delta)
    assert math.isfinite(total.epsilon)


def accountant_pld_is_certain(ms: list[Any], delta: float) -> bool:
    return math.isinf(accounting.pld(ms, delta).epsilon)


@pytest.mark.parametrize("query_id, epsilon, max_rows", CASES)
def test_check_says_what_fits_instead_of_internal_error(tmp_path: Path, query_id: str,
                                                        epsilon: float, max_rows: int) -> None:
    import planner_app.cli as cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            cli.main(["check", str(_plan(tmp_path, query_id, epsilon, max_rows))])
        except SystemExit:
            pass
    text = out.getvalue()
    assert "internal error" not in text
    assert "Composed total: ε = " in text


def test_a_shift_beyond_twice_the_truncation_is_a_certain_loss() -> None:
    # σ = 0.25: noise truncated at ±⌈2.9⌉ = ±3, a shift of 8 leaves the supports apart
    assert pld_mechanisms.distinguishable(0.25, 8)
    assert not pld_mechanisms.distinguishable(0.25, 6)
    with pytest.raises(ValueError):  # the carried constructor refuses, as dp-accounting
        pld_mechanisms.discrete_gaussian(0.25, 8, D)
    certain = pld_mechanisms.certain_loss(D)
    for delta in (0.0, 1e-9, 0.5):
        assert math.isinf(pld_ops.epsilon_for_delta(certain, delta))
    # composing with it keeps every mass at +∞, whatever the other PLD
    other = pld_mechanisms.discrete_gaussian(3.0, 2, D)
    both = pld_ops.compose(other, certain)
    assert to_dense(both).infinity_mass == 1.0
    assert math.isinf(pld_ops.epsilon_for_delta(self_compose(certain, 3), 1e-6))


def test_a_self_composition_whose_finite_mass_is_all_cut_is_pessimistic() -> None:
    """σ = 0.48 steps, Δ = 10: one PLD's finite mass is about 1e-15, four of them compose to
    less than the tail cut keeps (dp-accounting raises IndexError there: test_pld_carried).
    The composed PLD keeps at least the mass at +∞ that four independent ones have together
    (1 - (1 - p)^4), so no ε it gives is below the truth."""
    one = pld_mechanisms.discrete_gaussian(0.4833794473663866, 10, D)
    composed = to_dense(self_compose(one, 4))
    p = one.infinity_mass
    assert composed.infinity_mass >= 1 - (1 - p) ** 4
    assert float(np.sum(composed.probs)) + composed.infinity_mass == pytest.approx(1.0)
    assert math.isinf(pld_ops.epsilon_for_delta(composed, 1e-6))
