"""dp-accounting as the independent answer of the PLD tests (issue 24).

The product carries the PLD code it needs (planner_app/core/dp/pld_pmf.py, pld_mechanisms.py,
pld_ops.py) and no longer imports dp-accounting; the tests do. Here: the measurement's PLD as
the accountant built it with dp-accounting's constructors and operations before (the code of
accounting.py at the start of branch pld24), and conversions between our PMFs and
dp-accounting's objects, so each test can compose or ask ε of the same PMF both ways.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from dp_accounting.pld import common, pld_pmf
from dp_accounting.pld import privacy_loss_distribution as dpl

from planner_app.core.dp import accounting, laplace_pld
from planner_app.core.dp.gaussian import shift_patterns
from planner_app.core.dp.measure import Measurement
from planner_app.core.dp.pld_pmf import DensePmf, Pmf, SparsePmf


def theirs(pmf: Pmf) -> dpl.PrivacyLossDistribution:
    """Our PMF as dp-accounting's (symmetric, pessimistic) PLD holding the same numbers."""
    if isinstance(pmf, SparsePmf):
        inner = pld_pmf.SparsePLDPmf(dict(pmf.loss_probs), pmf.discretization,
                                     pmf.infinity_mass, True)
    else:
        inner = pld_pmf.DensePLDPmf(pmf.discretization, pmf.lower_loss, pmf.probs.copy(),
                                    pmf.infinity_mass, True)
    return dpl.PrivacyLossDistribution(inner)


def ours(value: dpl.PrivacyLossDistribution | pld_pmf.PLDPmf) -> Pmf:
    """dp-accounting's PLD (its remove PMF) or PMF as ours, holding the same numbers."""
    pmf = value._pmf_remove if isinstance(value, dpl.PrivacyLossDistribution) else value
    if isinstance(pmf, pld_pmf.SparsePLDPmf):
        return SparsePmf(dict(pmf._loss_probs), pmf._discretization, pmf._infinity_mass)
    return DensePmf(pmf._discretization, pmf._lower_loss, np.array(pmf._probs, copy=True),
                    pmf._infinity_mass)


def assert_same(mine: Pmf, value: dpl.PrivacyLossDistribution | pld_pmf.PLDPmf) -> None:
    """The same PMF to the bit: the same kind (sparse or dense), the same losses with the same
    masses (a sparse one's in the same order: the order its later sums run in), the same
    mass at +∞."""
    pmf = value._pmf_remove if isinstance(value, dpl.PrivacyLossDistribution) else value
    if isinstance(mine, SparsePmf):
        assert isinstance(pmf, pld_pmf.SparsePLDPmf), type(pmf)
        assert list(mine.loss_probs.items()) == list(pmf._loss_probs.items())
    else:
        assert isinstance(pmf, pld_pmf.DensePLDPmf), type(pmf)
        assert mine.lower_loss == pmf._lower_loss
        assert mine.probs.dtype == np.float64 and mine.probs.shape == np.shape(pmf._probs)
        assert np.array_equal(mine.probs, pmf._probs)
    assert mine.infinity_mass == pmf._infinity_mass
    assert mine.discretization == pmf._discretization


# -- the accountant's PLDs, built by dp-accounting (accounting.py before issue 24) -------------


def pld_of(m: Measurement, older_grid: bool = False) -> dpl.PrivacyLossDistribution:
    """``accounting._pld_of`` as it was, with dp-accounting's constructors (a discrete
    Laplace's PLD is ours in closed form: dp-accounting's own enumerates every output)."""
    d = laplace_pld.PLD_DISCRETISATION
    if accounting.thresholded(m) or accounting.threshold_only(m):
        return dpl.from_privacy_parameters(
            common.DifferentialPrivacyParameters(m.epsilon, m.delta),
            value_discretization_interval=d)
    if m.mechanism == "laplace" and m.component.single_cell:
        assert m.scale is not None
        if older_grid:
            return theirs(laplace_pld.discrete_laplace_pld_before_exact_grid(
                m.scale, m.component.l1, d))
        return theirs(laplace_pld.discrete_laplace_pld(m.scale, m.component.l1, d))
    if m.mechanism == "gaussian":
        assert m.sigma_sq is not None
        sigma = math.sqrt(float(m.sigma_sq))
        if older_grid or Fraction(sigma) ** 2 > m.sigma_sq:
            sigma = math.nextafter(sigma, 0.0)
        if m.component.single_cell:
            return dpl.from_discrete_gaussian_mechanism(
                sigma, sensitivity=m.component.l1, value_discretization_interval=d)
        patterns = shift_patterns(m.component.l1, m.component.l2_sq, m.component.cells)
        assert patterns is not None
        return max_pld([shift_pld(sigma, pattern, d) for pattern in patterns], d)
    if m.mechanism == "randomized_response":
        assert m.truth is not None
        noise = math.nextafter(float(1 - m.truth), 0.0)
        one = dpl.from_randomized_response(noise, 2, value_discretization_interval=d)
        return one.self_compose(m.component.l1) if m.component.l1 > 1 else one
    return dpl.from_privacy_parameters(
        common.DifferentialPrivacyParameters(m.epsilon, 0.0), value_discretization_interval=d)


def shift_pld(sigma: float, pattern: tuple[int, ...], d: float) -> dpl.PrivacyLossDistribution:
    """``accounting._shift_pld`` as it was."""
    total = None
    for part in sorted(set(pattern)):
        one = dpl.from_discrete_gaussian_mechanism(sigma, sensitivity=part,
                                                   value_discretization_interval=d)
        times = pattern.count(part)
        piece = one.self_compose(times) if times > 1 else one
        total = piece if total is None else total.compose(piece)
    assert total is not None
    return total


def max_pld(plds: list[dpl.PrivacyLossDistribution], d: float) -> dpl.PrivacyLossDistribution:
    """``accounting._max_pld`` as it was: dp-accounting's connect-the-dots on the largest of
    the PLDs' δ(ε) on the grid (computed by the accountant's own ``_deltas_on_grid``)."""
    if len(plds) == 1:
        return plds[0]
    pmfs = [p._pmf_remove.to_dense_pmf() for p in plds]
    lower = min(pm._lower_loss for pm in pmfs)
    upper = max(pm._lower_loss + pm.size - 1 for pm in pmfs)
    grid = np.arange(lower, upper + 1)
    deltas = np.max([accounting._deltas_on_grid(ours(pm), grid, d)  # type: ignore[arg-type]
                     for pm in pmfs], axis=0)
    deltas = np.minimum(1.0, np.maximum(0.0, deltas * (1 + 1e-9) + 1e-15))
    return dpl.PrivacyLossDistribution(
        pld_pmf.create_pmf_pessimistic_connect_dots(d, grid, deltas))
