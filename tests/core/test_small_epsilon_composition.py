"""Many small ε compose as tightly as dp-accounting's PLD, and the PLD stays an upper bound.

A discrete Laplace PLD rounds each privacy loss up to the grid (1e-4). Computed in floats, a
loss of 0.01 is 100.00000000000001 grid steps, and a bump of 1e-9 before ``ceil`` put every
such loss one step up: 1,000 counts at ε = 0.01 composed to 1.4654 at δ = 1e-6 against
dp-accounting's 1.3654 (+7%). The losses are now rounded exactly, in rationals.

The independent answer is dp-accounting's own PLDs (``from_discrete_laplace_mechanism``,
``from_discrete_gaussian_mechanism``) composed with its own ``compose`` / ``self_compose``.
Ours composes the same PLDs in another order (a tree), which moves ε by about 1e-10
relative in floating point either way; so ours must not be below dp-accounting's by more than
``FLOAT_ORDER`` and not above it by more than ``MARGIN`` (1e-6: the same grid gives the same
total up to float error; the old rounding was 7% above).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from dp_accounting.pld import privacy_loss_distribution as dpl

from planner_app.core.dp import accounting, laplace_pld
from planner_app.core.dp.measure import Measurement, laplace_scale
from planner_app.core.dp.sensitivity import Component

D = laplace_pld.PLD_DISCRETISATION
FLOAT_ORDER = 1e-9  # relative: composing the same PLDs in another order
MARGIN = 1e-6  # relative: how far above dp-accounting our total may be


def _laplace(qid: str, eps: float, l1: int = 1) -> Measurement:
    comp = Component("count", 1.0, l1, l1 * l1, 1, True, "test")
    return Measurement(qid, comp, "laplace", eps, 0.0, scale=laplace_scale(l1, eps))


def _gaussian(qid: str, sigma: int, l1: int = 1) -> Measurement:
    comp = Component("count", 1.0, l1, l1 * l1, 1, True, "test")
    return Measurement(qid, comp, "gaussian", 0.5, 1e-7, sigma_sq=Fraction(sigma * sigma))


def _reference(measurements: list[Measurement], delta: float) -> float:
    """dp-accounting alone: its PLD of each measurement, composed with its own operations."""
    groups: dict[tuple[object, ...], int] = {}
    for m in measurements:
        key = (m.mechanism, m.component.l1, m.scale, m.sigma_sq)
        groups[key] = groups.get(key, 0) + 1
    total = None
    for (mechanism, l1, scale, sigma_sq), times in groups.items():
        if mechanism == "laplace":
            one = dpl.from_discrete_laplace_mechanism(float(1 / scale), sensitivity=l1,
                                                      value_discretization_interval=D)
        else:
            one = dpl.from_discrete_gaussian_mechanism(float(sigma_sq) ** 0.5, sensitivity=l1,
                                                       value_discretization_interval=D)
        part = one.self_compose(times) if times > 1 else one
        total = part if total is None else total.compose(part)
    assert total is not None
    return float(total.get_epsilon_for_delta(delta))


def _close_above(ours: float, reference: float) -> None:
    assert reference * (1 - FLOAT_ORDER) <= ours <= reference * (1 + MARGIN), (ours, reference)


@pytest.mark.parametrize("delta", [1e-6, 1e-5])
def test_a_thousand_counts_at_epsilon_one_hundredth(delta: float) -> None:
    ms = [_laplace(f"q{i}", 0.01) for i in range(1000)]
    ours = accounting.pld(ms, delta).epsilon
    reference = _reference(ms, delta)
    assert reference == pytest.approx(1.3654 if delta == 1e-6 else 1.1977, abs=1e-4)
    _close_above(ours, reference)


def test_a_mix_of_small_epsilons_sensitivities_and_gaussians() -> None:
    eps = [0.01, 0.02, 0.005, 0.03, 0.013, 0.1]
    ms = [_laplace(f"l{i}", eps[i % len(eps)], 1 + i % 3) for i in range(300)]
    ms += [_gaussian(f"g{i}", 40 + 10 * (i % 3), 1 + i % 2) for i in range(30)]
    for delta in (1e-6, 1e-8):
        _close_above(accounting.pld(ms, delta).epsilon, _reference(ms, delta))


@pytest.mark.parametrize(("eps", "l1"), [(0.01, 1), (0.01, 5), (0.02, 4), (0.003, 3),
                                         (0.3, 7), (1.0, 2)])
def test_each_loss_is_rounded_up_to_the_grid_exactly(eps: float, l1: int) -> None:
    """Each loss a(Δ - 2o) (and ±aΔ) goes to the first grid point at or above it, computed in
    rationals here; dp-accounting's float ``ceil`` lands on the same point or, where float
    error pushes it (-0.3 is -2999.9999999999995 steps), one step above."""
    scale = laplace_scale(l1, eps)
    ours = laplace_pld.discrete_laplace_pld(scale, l1)
    theirs = dpl.from_discrete_laplace_mechanism(float(1 / scale), sensitivity=l1,
                                                 value_discretization_interval=D)._pmf_remove
    grid = Fraction(1, 10_000)
    exact = sorted({math.ceil(Fraction(c) / scale / grid) for c in range(-l1, l1 + 1, 2)})
    support = sorted(ours.lower_loss + i for i, p in enumerate(ours.probs) if p > 0)
    assert support == exact
    for mine, dp_accountings in zip(support, sorted(theirs._loss_probs), strict=True):
        assert dp_accountings in (mine, mine + 1)


def test_a_loss_truly_above_a_grid_point_still_rounds_up() -> None:
    """1/scale = 0.01 + 1e-13: within any float tolerance of 100 steps, but above it."""
    exact = laplace_pld.discrete_laplace_pld(Fraction(100), 1)
    above = laplace_pld.discrete_laplace_pld(Fraction(10**15, 10**13 + 10), 1)
    assert float(1 / Fraction(10**15, 10**13 + 10)) / D == pytest.approx(100, rel=1e-10)
    assert exact.lower_loss + exact.size - 1 == 100
    assert above.lower_loss + above.size - 1 == 101
    assert above.lower_loss == -100  # -0.01 - 1e-13 rounds up to -0.01


def test_outputs_grouped_by_loss_bucket_land_where_each_output_would(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Past DIRECT_LAPLACE_OUTPUTS the outputs between the extremes are grouped by the grid
    point their loss rounds up to: the same PMF as output by output (here forced at Δ = 400)."""
    scale = laplace_scale(400, 0.05)
    direct = laplace_pld.discrete_laplace_pld(scale, 400)
    monkeypatch.setattr(laplace_pld, "DIRECT_LAPLACE_OUTPUTS", 10)
    grouped = laplace_pld.discrete_laplace_pld(scale, 400)
    assert grouped.lower_loss == direct.lower_loss
    assert grouped.probs == pytest.approx(direct.probs, rel=1e-9, abs=1e-18)
