"""The PLD code carried from dp-accounting computes dp-accounting's numbers to the last bit.

Issue 24: the product no longer imports dp-accounting (whose import pulls in scipy.signal and
scipy.stats, about 0.65 CPU s of every process composing a PLD); its constructors, PMFs and
operations live in planner_app/core/dp (pld_pmf.py, pld_mechanisms.py, pld_ops.py). The
independent answer is dp-accounting itself, installed for the tests: every PMF (sparse or
dense, its losses, masses and mass at +∞) and every ε for δ is compared with ``==`` over a
broad grid of parameters, composed and self-composed, and the accountant's PLD of each kind
of measurement (both grids) against the one it built with dp-accounting before. The CI runs
a share of each grid (every kind of PMF); ``python -m pytest -m slow tests/core/
test_pld_carried.py`` runs the rest.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from dp_accounting.pld import common
from dp_accounting.pld import privacy_loss_distribution as dpl

from planner_app.core.dp import accounting, laplace_pld, pld_mechanisms, pld_ops
from planner_app.core.dp.measure import Measurement, laplace_scale
from planner_app.core.dp.pld_pmf import DensePmf, Pmf, SparsePmf, self_compose
from planner_app.core.dp.sensitivity import Component
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.planfile.serialisation import load_plan
from planner_app.core.support.resources import demo_plan_path
from tests.core import pld_reference as ref

D = laplace_pld.PLD_DISCRETISATION
DELTAS = (0.5, 1e-3, 1e-6, 1e-12, 1e-300, 0.0)


def _same_epsilons(mine: Pmf, theirs: dpl.PrivacyLossDistribution) -> None:
    for delta in DELTAS:
        assert pld_ops.epsilon_for_delta(mine, delta) == theirs.get_epsilon_for_delta(delta)


# σ from below one step (a few outputs, a sparse PMF of far-apart losses) to the largest the
# accountant takes (MAX_PLD_SIGMA_STEPS: a sparse PMF of a few close losses), through dense
SIGMAS = (0.2, 0.45, 1.0, 1.7, 3.0, 7.3, 25.0, 55.5, 140.0, 600.0, 1000.0, 2718.28, 9000.0)
# the CI's share of them (each kind of PMF); the rest run with ``-m slow``, on demand
CI_SIGMAS = (0.2, 7.3, 9000.0)


def _in_ci(values: tuple[object, ...], ci: tuple[object, ...]) -> list[object]:
    return [v if v in ci else pytest.param(v, marks=pytest.mark.slow) for v in values]


@pytest.mark.parametrize("sigma", _in_ci(SIGMAS, CI_SIGMAS))
def test_the_discrete_gaussian_is_dp_accountings(sigma: float) -> None:
    kinds = set()
    for sensitivity in (1, 2, 3, 5, 8):
        if 2 * math.ceil(11.6 * sigma) < sensitivity:
            continue
        for s in (sigma, math.nextafter(sigma, 0.0)):  # the accountant's σ a float step down
            mine = pld_mechanisms.discrete_gaussian(s, sensitivity, D)
            theirs = dpl.from_discrete_gaussian_mechanism(
                s, sensitivity=sensitivity, value_discretization_interval=D)
            ref.assert_same(mine, theirs)
            _same_epsilons(mine, theirs)
            kinds.add(type(mine))
            if s == sigma and sensitivity == 2 and sigma >= 1:
                for times in (2, 7):
                    composed = self_compose(mine, times)
                    ref.assert_same(composed, theirs.self_compose(times))
                    _same_epsilons(composed, theirs.self_compose(times))
    assert kinds


def test_the_grid_of_sigmas_has_sparse_and_dense_gaussians() -> None:
    kinds = {type(pld_mechanisms.discrete_gaussian(s, 1, D)) for s in SIGMAS}
    assert kinds == {SparsePmf, DensePmf}


def test_the_largest_sigma_the_accountant_takes_is_dp_accountings() -> None:
    sigma = float(accounting.MAX_PLD_SIGMA_STEPS)
    for sensitivity in (1, 7):
        mine = pld_mechanisms.discrete_gaussian(sigma, sensitivity, D)
        theirs = dpl.from_discrete_gaussian_mechanism(sigma, sensitivity=sensitivity,
                                                      value_discretization_interval=D)
        ref.assert_same(mine, theirs)
        _same_epsilons(mine, theirs)


def test_random_gaussians_are_dp_accountings() -> None:
    """σ log-uniform from 0.2 to 20,000 steps (or a square root a float step down, as the
    accountant takes it), sensitivities 1 to 10: a ceil on the edge of a grid point, or a
    bucket's run of outputs summed in another order, would show as a difference here."""
    rng = random.Random(24)
    for _ in range(60):
        sigma = math.exp(rng.uniform(math.log(0.2), math.log(20_000)))
        if rng.random() < 0.3:
            sigma = math.nextafter(math.sqrt(rng.randrange(1, 10**6)), 0.0)
        sensitivity = rng.randrange(1, 11)
        if 2 * math.ceil(11.6 * sigma) < sensitivity:
            continue
        mine = pld_mechanisms.discrete_gaussian(sigma, sensitivity, D)
        theirs = dpl.from_discrete_gaussian_mechanism(sigma, sensitivity=sensitivity,
                                                      value_discretization_interval=D)
        ref.assert_same(mine, theirs)
        for delta in (1e-5, 1e-7, 1e-10):
            assert pld_ops.epsilon_for_delta(mine, delta) == theirs.get_epsilon_for_delta(delta)


def test_a_self_composition_dp_accounting_cannot_cut_is_all_but_certain_here() -> None:
    """Almost all the mass at +∞ (σ = 0.48 steps, Δ = 10): dp-accounting's tail cut leaves
    no mass to keep and raises IndexError (a plan at ε = 200 reached it: "internal error").
    Ours keeps the last loss with the cut mass moved up to it: pessimistic, and the same PMF
    as dp-accounting's wherever dp-accounting does not raise (every other test here);
    tests/core/test_pld_certain_loss.py checks what it gives."""
    theirs = dpl.from_discrete_gaussian_mechanism(0.4833794473663866, sensitivity=10,
                                                  value_discretization_interval=D)
    with pytest.raises(IndexError):
        theirs.self_compose(4)
    mine = self_compose(pld_mechanisms.discrete_gaussian(0.4833794473663866, 10, D), 4)
    assert math.isinf(pld_ops.epsilon_for_delta(mine, 1e-6))


def test_a_gaussian_whose_truncation_is_below_half_its_sensitivity_is_refused_alike() -> None:
    with pytest.raises(ValueError):
        dpl.from_discrete_gaussian_mechanism(0.1, sensitivity=5)
    with pytest.raises(ValueError):
        pld_mechanisms.discrete_gaussian(0.1, 5, D)


@pytest.mark.parametrize("epsilon", _in_ci((0.0, 1e-4, 0.01, 0.0371, 0.3, 1.0, 2.5, 7.0),
                                           (0.0, 0.01)))
def test_the_privacy_parameters_pld_is_dp_accountings(epsilon: float) -> None:
    for delta in (0.0, 1e-12, 1e-9, 1e-6, 5e-5, 0.01):
        mine = pld_mechanisms.privacy_parameters(epsilon, delta, D)
        theirs = dpl.from_privacy_parameters(
            common.DifferentialPrivacyParameters(epsilon, delta),
            value_discretization_interval=D)
        ref.assert_same(mine, theirs)
        _same_epsilons(mine, theirs)
        # sparse while 2^times <= 1000, then dense (1,000 times: only the short ones)
        for times in (2, 9, 40) + ((1000,) if epsilon <= 0.01 else ()):
            composed = self_compose(mine, times)
            ref.assert_same(composed, theirs.self_compose(times))
            _same_epsilons(composed, theirs.self_compose(times))


@pytest.mark.parametrize("truth", _in_ci(
    (Fraction(51, 100), Fraction(3, 5), Fraction(3, 4), Fraction(9, 10), Fraction(99, 100),
     Fraction(999, 1000)), (Fraction(99, 100),)))
def test_randomized_response_and_its_self_compositions_are_dp_accountings(
        truth: Fraction) -> None:
    noise = math.nextafter(float(1 - truth), 0.0)  # as the accountant takes it
    mine = pld_mechanisms.randomized_response(noise, D)
    theirs = dpl.from_randomized_response(noise, 2, value_discretization_interval=D)
    ref.assert_same(mine, theirs)
    _same_epsilons(mine, theirs)
    for rows in (2, 3, 5, 9, 10, 12, 40):
        ref.assert_same(self_compose(mine, rows), theirs.self_compose(rows))
        _same_epsilons(self_compose(mine, rows), theirs.self_compose(rows))


def _mixed() -> list[dpl.PrivacyLossDistribution]:
    """dp-accounting PLDs of every shape the accountant composes: small and large sparse
    ones, dense ones short and long, with and without a mass at +∞."""
    return [
        dpl.from_privacy_parameters(common.DifferentialPrivacyParameters(0.3, 0.0),
                                    value_discretization_interval=D),
        dpl.from_privacy_parameters(common.DifferentialPrivacyParameters(1.0, 1e-7),
                                    value_discretization_interval=D),
        dpl.from_randomized_response(0.4, 2, value_discretization_interval=D),
        dpl.from_randomized_response(0.4, 2, value_discretization_interval=D).self_compose(4),
        dpl.from_discrete_gaussian_mechanism(1.0, value_discretization_interval=D),
        dpl.from_discrete_gaussian_mechanism(12.0, sensitivity=2,
                                             value_discretization_interval=D),
        dpl.from_discrete_gaussian_mechanism(3000.0, value_discretization_interval=D),
        ref.theirs(laplace_pld.discrete_laplace_pld(laplace_scale(1, 0.2), 1)),
        ref.theirs(laplace_pld.discrete_laplace_pld(laplace_scale(6, 0.5), 6)),
    ]


def test_every_pair_composes_as_dp_accounting_composes_it() -> None:
    plds = _mixed()
    kinds = set()
    for a, b in itertools.product(plds, repeat=2):
        mine = pld_ops.compose(ref.ours(a), ref.ours(b))
        ref.assert_same(mine, a.compose(b))
        _same_epsilons(mine, a.compose(b))
        kinds.add(type(mine))
    assert kinds == {SparsePmf, DensePmf}


def test_chains_and_self_compositions_of_compositions_are_dp_accountings() -> None:
    plds = _mixed()
    mine: Pmf = ref.ours(plds[0])
    theirs = plds[0]
    for other in plds[1:] + plds[::-1]:
        mine = pld_ops.compose(mine, ref.ours(other))
        theirs = theirs.compose(other)
        ref.assert_same(mine, theirs)
    _same_epsilons(mine, theirs)
    for times in (2, 3):
        ref.assert_same(self_compose(mine, times), theirs.self_compose(times))
        _same_epsilons(self_compose(mine, times), theirs.self_compose(times))


def test_a_dense_pmf_composed_once_with_itself_is_cut_as_dp_accounting_cuts_it() -> None:
    theirs = dpl.from_discrete_gaussian_mechanism(55.5, value_discretization_interval=D)
    mine = ref.ours(theirs)
    assert isinstance(mine, DensePmf)
    ref.assert_same(self_compose(mine, 1), theirs.self_compose(1))


# -- the accountant's PLD of each kind of measurement, today's grid and the older one ----------

ONE = Component("count", 1.0, 1, 1, 1, True, "")


def _cells(l1: int, l2_sq: int, cells: int) -> Component:
    return Component("cells", 1.0, l1, l2_sq, cells, False, "")


def _measurements() -> list[Measurement]:
    out = []
    for sigma_sq in (Fraction(4), Fraction(49, 4), Fraction(1037, 3), Fraction(7_000_003)):
        for l1 in (1, 2, 5):
            comp = Component("sum", 1.0, l1, l1 * l1, 1, True, "")
            out.append(Measurement("g", comp, "gaussian", 0.5, 1e-7, sigma_sq=sigma_sq))
    for (l1, l2_sq, cells), sigma_sq in itertools.product(
            ((2, 2, 2), (2, 4, 2), (3, 5, 3), (3, 9, 4), (4, 8, 4)),
            (Fraction(12), Fraction(400))):
        out.append(Measurement("h", _cells(l1, l2_sq, cells), "gaussian", 1.0, 1e-6,
                               sigma_sq=sigma_sq))
    for truth in (Fraction(3, 4), Fraction(9, 10), Fraction(997, 1000)):
        for rows in (1, 3, 11):
            comp = Component("answers", 1.0, rows, rows, 1, True, "")
            out.append(Measurement("r", comp, "randomized_response", 1.0, 0.0, truth=truth))
    for eps in (0.01, 0.1, 1.3):
        out.append(Measurement("l", ONE, "laplace", eps, 0.0, scale=laplace_scale(1, eps)))
        out.append(Measurement("k", ONE, "laplace", eps, 1e-8, scale=laplace_scale(1, eps)))
        out.append(Measurement("e", ONE, "exponential", eps, 0.0))
        out.append(Measurement("t", ONE, "threshold", 0.0, eps * 1e-6))
        out.append(Measurement("c", _cells(2, 2, 3), "laplace", eps, 0.0,
                               scale=laplace_scale(2, eps)))
    return out


@pytest.mark.parametrize("older_grid", [False, True])
def test_each_measurements_pld_is_the_one_built_with_dp_accounting(older_grid: bool) -> None:
    multi = 0
    for m in _measurements():
        mine = accounting._pld_of(m, older_grid)
        theirs = ref.pld_of(m, older_grid)
        ref.assert_same(mine, theirs)
        _same_epsilons(mine, theirs)
        multi += m.mechanism == "gaussian" and not m.component.single_cell
    assert multi == 10  # every multi-cell Gaussian went through _max_pld


def _demo_measurements(n: int) -> tuple[list[Measurement], float]:
    demo = load_plan(demo_plan_path())
    queries = [demo.queries[i % len(demo.queries)] for i in range(n)]
    from dataclasses import replace

    queries = [replace(q, id=f"s{i}", epsilon=round(0.01 + 0.013 * i, 4))
               for i, q in enumerate(queries)]
    plan = demo.with_queries(queries)
    return [m for q in plan.queries for m in measurements_for(q, plan)], plan.budget.delta


def _reference_chain(ms: list[Measurement], delta: float, older_grid: bool) -> float:
    """``accounting.pld_as_chain`` as it was: dp-accounting's PLDs and operations."""
    groups: dict[object, list[Measurement]] = {}
    for m in ms:
        if m.mechanism != "none":
            groups.setdefault(accounting._pld_key(m), []).append(m)
    total = None
    for key, times in sorted(((k, len(v)) for k, v in groups.items()), key=repr):
        one = ref.pld_of(groups[key][0], older_grid)
        part = one.self_compose(times) if times > 1 else one
        total = part if total is None else total.compose(part)
    assert total is not None
    return max(float(total.get_epsilon_for_delta(delta)), 0.0)


@pytest.mark.parametrize("older_grid", [False, True])
def test_a_plans_total_is_the_one_composed_with_dp_accounting(older_grid: bool) -> None:
    ms, delta = _demo_measurements(24)
    assert any(m.mechanism == "gaussian" for m in ms)
    for d in (delta, 1e-9):
        assert (accounting.pld_as_chain(ms, d, older_grid).epsilon
                == _reference_chain(ms, d, older_grid))
