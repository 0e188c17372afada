"""Accuracy, composition and risk against the project's reference values and independent
computations."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner_app.core.dp import accounting
from planner_app.core.dp.accuracy import (
    discrete_gaussian_half_width,
    discrete_laplace_half_width,
    discrete_laplace_tail,
)
from planner_app.core.dp.measure import (
    Measurement,
    epsilon_from_rho,
    gaussian_sigma_sq,
    laplace_scale,
    rho_for,
)
from planner_app.core.dp.mechanisms import SeededRandomSource, discrete_gaussian, discrete_laplace
from planner_app.core.dp.risk import explain, out_of_100, posterior_max, posterior_min
from planner_app.core.dp.sensitivity import Component
from planner_app.core.kinds.shared_dp import accuracy_for, epsilon_for_half_width
from planner_app.core.planfile import plan_from_dict
from tests.conftest import plan_dict


def unit_component(l1: int = 1) -> Component:
    return Component("count", 1.0, l1, l1 * l1, 1, True, "test")


def laplace_measurement(eps: float, l1: int = 1) -> Measurement:
    return Measurement("q", unit_component(l1), "laplace", eps, 0.0,
                       scale=laplace_scale(l1, eps))


# ----------------------------------------------------------------------------- accuracy


def test_discrete_laplace_accuracy_reference(reference_values: dict[str, Any]) -> None:
    for row in reference_values["discrete_laplace_accuracy"]["values"]:
        k = discrete_laplace_half_width(row["scale"], row["confidence"])
        assert k == row["integer_half_width"]
        # and k is the smallest such integer
        assert discrete_laplace_tail(row["scale"], k) <= 1 - row["confidence"]
        assert discrete_laplace_tail(row["scale"], k - 1) > 1 - row["confidence"]


@pytest.mark.parametrize("scale", [Fraction(1), Fraction(4), Fraction(25, 2)])
def test_laplace_half_width_covers_95_percent(scale: Fraction) -> None:
    noise = discrete_laplace(SeededRandomSource(11), scale, 200_000)
    k = discrete_laplace_half_width(float(scale))
    inside = (np.abs(noise) <= k).mean()
    assert inside >= 0.95 - 0.003
    assert (np.abs(noise) <= k - 1).mean() < 0.95 + 0.003  # and it is the smallest


@pytest.mark.parametrize("sigma_sq", [Fraction(9, 4), Fraction(100)])
def test_gaussian_half_width_covers_95_percent(sigma_sq: Fraction) -> None:
    noise = discrete_gaussian(SeededRandomSource(12), sigma_sq, 100_000)
    k = discrete_gaussian_half_width(float(sigma_sq))
    assert (np.abs(noise) <= k).mean() >= 0.95 - 0.004
    assert (np.abs(noise) <= k - 1).mean() < 0.95 + 0.004


def test_inverse_accuracy_round_trips() -> None:
    plan = plan_from_dict(plan_dict(queries=[
        {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 100, "epsilon": 1}]))
    query = plan.queries[0]
    for target in (50.0, 300.0, 2000.0):
        eps = epsilon_for_half_width(query, plan, target)
        assert eps is not None
        from dataclasses import replace

        hw = accuracy_for(replace(query, epsilon=eps), plan).half_width
        assert hw is not None and hw <= target
        smaller = accuracy_for(replace(query, epsilon=eps * 0.98), plan).half_width
        assert smaller is not None and smaller > target * 0.97


def test_mean_accuracy_needs_a_public_row_count() -> None:
    mean = {"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 10, "epsilon": 1}
    plan = plan_from_dict(plan_dict(queries=[mean]))
    assert accuracy_for(plan.queries[0], plan).half_width is None
    plan = plan_from_dict(plan_dict(queries=[mean], dataset={"name": "t", "expected_rows": 1000}))
    hw = accuracy_for(plan.queries[0], plan).half_width
    assert hw is not None and 0 < hw < 0.2


# ----------------------------------------------------------------------------- composition


def test_discrete_laplace_composition_reference(reference_values: dict[str, Any]) -> None:
    for row in reference_values["composition_discrete_laplace"]["values"]:
        ms = [laplace_measurement(row["epsilon_each"]) for _ in range(row["count"])]
        total = accounting.pld(ms, row["delta"])
        # the reference is dp-accounting's value rounded to 4 decimals (100 × 0.1: 4.774568 is
        # stored as 4.7746): not below it by more than that rounding
        assert row["pld_epsilon"] - 5e-5 <= total.epsilon <= row["pld_epsilon"] * 1.01
        assert accounting.basic(ms).epsilon == pytest.approx(row["basic_epsilon"])
        # pure ε measurements compose to pure ε-DP, unless an accountant is named (finding 7)
        assert accounting.compose(ms, row["delta"]) == accounting.basic(ms)
        assert accounting.compose(ms, row["delta"], "pld").epsilon == total.epsilon


def test_gaussian_composition_reference(reference_values: dict[str, Any]) -> None:
    for row in reference_values["composition"]:
        if not row["mechanism"].startswith("gaussian"):
            continue
        comp = unit_component(1)
        sigma_sq = Fraction(row["sigma"]) ** 2
        ms = [Measurement("q", comp, "gaussian", 1.0, 0.0, sigma_sq=sigma_sq)
              for _ in range(row["count"])]
        z = accounting.zcdp(ms, row["delta"])
        assert z.rho == pytest.approx(row["rho_total"])
        assert z.epsilon <= row["zcdp_simple_conversion_epsilon"] + 1e-9
        assert z.epsilon == pytest.approx(row["rdp_epsilon"], abs=2e-3)
        assert z.epsilon >= row["pld_epsilon"]
        p = accounting.pld(ms, row["delta"])
        # the discrete Gaussian composes almost exactly like the continuous one
        assert row["pld_epsilon"] * 0.995 <= p.epsilon <= row["pld_epsilon"] * 1.01


@settings(max_examples=40, deadline=None)
@given(eps=st.lists(st.floats(0.05, 2.0), min_size=1, max_size=12),
       delta=st.sampled_from([1e-8, 1e-6, 1e-4]))
def test_accountants_order(eps: list[float], delta: float) -> None:
    ms = [laplace_measurement(e) for e in eps]
    b = accounting.basic(ms)
    assert b.epsilon == pytest.approx(sum(m.epsilon for m in ms))
    assert b.epsilon <= sum(eps) + 1e-12  # rounding the scale up never spends more
    p = accounting.pld(ms, delta)
    assert p.epsilon <= b.epsilon * (1 + 1e-3) + 1e-3
    z = accounting.zcdp(ms, delta)
    rho = sum(e * e / 2 for e in (m.epsilon for m in ms))
    assert z.epsilon <= rho + 2 * math.sqrt(rho * math.log(1 / delta)) + 1e-9
    # pure ε measurements: the release is pure ε-DP at their sum, whatever the budget's δ
    assert accounting.compose(ms, delta) == b


def test_pure_plans_use_basic_and_tight_accountants_need_delta() -> None:
    ms = [laplace_measurement(0.1) for _ in range(50)]
    assert accounting.compose(ms, 0.0).accountant == "basic"
    from planner_app.core.support.errors import InputError

    with pytest.raises(InputError, match="needs budget.delta"):
        accounting.compose(ms, 0.0, "pld")


def test_rho_and_sigma_calibration_are_consistent() -> None:
    rho = rho_for(1.0, 1e-6)
    assert epsilon_from_rho(rho, 1e-6) <= 1.0
    assert epsilon_from_rho(rho * 1.001, 1e-6) > 1.0
    sigma_sq = gaussian_sigma_sq(1, 1.0, 1e-6)
    assert 1 / (2 * float(sigma_sq)) <= rho


def test_group_privacy() -> None:
    assert accounting.group_privacy(0.5, 0.0, 4) == (2.0, 0.0)
    eps, delta = accounting.group_privacy(1.0, 1e-6, 2)
    assert eps == 2.0 and delta == pytest.approx(2 * math.e * 1e-6)


# ----------------------------------------------------------------------------- risk


def test_posterior_reference(reference_values: dict[str, Any]) -> None:
    for row in reference_values["posterior_bounds"]:
        assert posterior_max(row["prior"], row["epsilon"]) == pytest.approx(
            row["posterior_max"], abs=1e-6)
        assert posterior_min(row["prior"], row["epsilon"]) == pytest.approx(
            row["posterior_min"], abs=1e-6)


def test_the_sentence_at_ln3() -> None:
    risk = explain(math.log(3))
    assert risk.sentence == ("An attacker who was 50% sure that a person is in the data can be "
                             "at most 75% sure after this release.")
    assert risk.posterior_max == pytest.approx(0.75)
    assert "at most 75 of them" in risk.frequency_sentence


def test_rounding_never_understates_the_risk() -> None:
    risk = explain(0.1)  # 52.4979...%
    assert "at most 52.5% sure" in risk.sentence
    assert out_of_100(0.1) == 53
    assert out_of_100(1.0, 1e-6) == math.ceil(100 * (math.e + 1e-6) / (1 + math.e))


def test_randomized_response_reference(reference_values: dict[str, Any]) -> None:
    rr = reference_values["randomized_response"]["truth_coin_then_fair_coin"]
    from planner_app.core.dp.mechanisms import truth_probability

    t = float(truth_probability(rr["epsilon"]))
    assert (1 + t) / 2 == pytest.approx(rr["p_yes_given_yes"], abs=1e-6)
    assert (1 - t) / 2 == pytest.approx(rr["p_yes_given_no"], abs=1e-6)
