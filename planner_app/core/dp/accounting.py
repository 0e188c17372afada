"""Composition: what a whole release (or a dataset's lifetime of releases) costs.

* basic: ε and δ add up. Always valid.
* parallel: the disjoint cells of a histogram or group-by are one measurement whose
  sensitivity already covers every cell a person can touch (sensitivity.py), so cells cost
  the maximum, not the sum.
* zcdp: ρ adds up (pure ε gives ε²/2, the exponential mechanism ε²/8, a discrete Gaussian
  Δ₂²/2σ²), then converted to (ε, δ) at the budget's δ. Needs δ > 0.
* pld: privacy loss distributions composed with Google's dp-accounting (pessimistic
  discretisation, so the result is an upper bound). Needs δ > 0. A Gaussian over cells one
  person can touch several of is accounted by its maximal shifts (``shift_patterns``).

The default is the tightest valid accountant.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from ..support.errors import InputError
from .gaussian import shift_patterns
from .measure import Measurement, epsilon_from_rho

if TYPE_CHECKING:  # dp-accounting has no type information: these names are Any to mypy
    from dp_accounting.pld.pld_pmf import DensePLDPmf
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

PLD_DISCRETISATION = 1e-4


@dataclass(frozen=True)
class Total:
    epsilon: float
    delta: float
    accountant: str
    rho: float | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"epsilon": self.epsilon, "delta": self.delta,
                                  "accountant": self.accountant}
        if self.rho is not None:
            out["rho"] = self.rho
        return out


FIT_TOLERANCE = 1e-9  # relative: totals are computed in floating point


def within(total: Total, epsilon: float, delta: float) -> bool:
    """Whether ``total`` fits a budget or cap of (``epsilon``, ``delta``): the one comparison
    every caller uses (check, the ledger's charge, the wizard, the meter, the goal solver).
    Fails closed: a NaN total never fits."""
    return (total.epsilon <= epsilon * (1 + FIT_TOLERANCE)
            and total.delta <= delta * (1 + FIT_TOLERANCE))


def basic(measurements: Sequence[Measurement]) -> Total:
    eps = math.fsum(m.epsilon for m in measurements)
    delta = math.fsum(m.delta for m in measurements)
    return Total(eps, min(delta, 1.0), "basic")


def zcdp(measurements: Sequence[Measurement], delta: float) -> Total:
    rho = math.fsum(m.rho for m in measurements)
    return Total(epsilon_from_rho(rho, delta), delta, "zcdp", rho)


MAX_PLD_SIGMA_STEPS = 20_000
DIRECT_LAPLACE_OUTPUTS = 20_000


def _pld_ok(m: Measurement) -> bool:
    if m.mechanism != "gaussian":
        return True
    assert m.sigma_sq is not None
    if float(m.sigma_sq) > MAX_PLD_SIGMA_STEPS**2:
        return False
    return m.component.single_cell or shift_patterns(m.component.l1, m.component.l2_sq,
                                                     m.component.cells) is not None


def pld_supported(measurements: Iterable[Measurement]) -> bool:
    """A PLD here exists for every measurement but a Gaussian with a very large σ in grid
    steps, or over several cells with a sensitivity too large to enumerate its shifts; such
    plans use zcdp."""
    return all(_pld_ok(m) for m in measurements)


def discrete_laplace_pld(scale: Fraction, sensitivity: int,
                         d: float = PLD_DISCRETISATION) -> PrivacyLossDistribution:
    """Pessimistic PLD of the discrete Laplace mechanism (P(x) ∝ exp(-|x|/scale)) for an
    integer sensitivity, in closed form.

    dp-accounting's own constructor enumerates every output, which is too slow for sums
    measured in fine grid steps (sensitivities of 10^5 steps and more). The privacy loss at
    output o (noise centred at 0 against centred at Δ) is +aΔ for o <= 0, -aΔ for o >= Δ and
    a(Δ - 2o) between, with a = 1/scale; every loss is rounded up to the grid d, so the result
    is an upper bound like dp-accounting's pessimistic estimate.
    """
    from dp_accounting.pld import pld_pmf
    from dp_accounting.pld import privacy_loss_distribution as pld

    a = math.nextafter(float(1 / scale), math.inf)  # pessimistic: less noise
    q = math.exp(-a)
    big = a * sensitivity
    bump = 1e-9
    js = [np.array([math.ceil(big / d + bump), math.ceil(-big / d + bump)], dtype=np.int64)]
    masses = [np.array([1 / (1 + q), math.exp(-a * sensitivity) / (1 + q)])]
    if sensitivity > 1:
        if sensitivity - 1 <= DIRECT_LAPLACE_OUTPUTS:
            o = np.arange(1, sensitivity, dtype=np.float64)
            js.append(np.ceil((big - 2 * a * o) / d + bump).astype(np.int64))
            masses.append((1 - q) / (1 + q) * np.exp(-a * o))
        else:
            # group outputs by loss bucket; one extra bucket up covers float error at edges
            j_hi = math.ceil(big / d + bump)
            j_lo = math.ceil(-big / d + bump)
            buckets = np.arange(j_lo, j_hi + 1, dtype=np.float64)
            start = np.clip(np.ceil((big - buckets * d) / (2 * a)), 1, sensitivity - 1)
            end = np.clip(np.ceil((big - (buckets - 1) * d) / (2 * a)) - 1, 1, sensitivity - 1)
            ok = end >= start
            js.append(buckets[ok].astype(np.int64) + 1)
            masses.append((np.exp(-a * start[ok]) - np.exp(-a * (end[ok] + 1))) / (1 + q))
    all_js = np.concatenate(js)
    all_masses = np.concatenate(masses)
    lower = int(all_js.min())
    probs = np.zeros(int(all_js.max()) - lower + 1)
    np.add.at(probs, all_js - lower, all_masses)
    pmf = pld_pmf.DensePLDPmf(d, lower, probs, 0.0, True)
    return pld.PrivacyLossDistribution(pmf)


def _pld_of(m: Measurement) -> PrivacyLossDistribution:
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    d = PLD_DISCRETISATION
    if m.mechanism == "laplace" and m.component.single_cell:
        assert m.scale is not None
        return discrete_laplace_pld(m.scale, m.component.l1, d)
    if m.mechanism == "gaussian":
        assert m.sigma_sq is not None
        sigma = math.nextafter(math.sqrt(float(m.sigma_sq)), 0.0)
        if m.component.single_cell:
            return pld.from_discrete_gaussian_mechanism(
                sigma, sensitivity=m.component.l1, value_discretization_interval=d)
        patterns = shift_patterns(m.component.l1, m.component.l2_sq, m.component.cells)
        assert patterns is not None
        return _max_pld([_shift_pld(sigma, pattern, d) for pattern in patterns], d)
    if m.mechanism == "randomized_response":
        assert m.truth is not None
        noise = math.nextafter(float(1 - m.truth), 0.0)
        one = pld.from_randomized_response(noise, 2, value_discretization_interval=d)
        return one.self_compose(m.component.l1) if m.component.l1 > 1 else one
    # pure ε: the worst pair of any ε-DP mechanism dominates it
    return pld.from_privacy_parameters(
        common.DifferentialPrivacyParameters(m.epsilon, 0.0), value_discretization_interval=d)


def _shift_pld(sigma: float, pattern: tuple[int, ...], d: float) -> PrivacyLossDistribution:
    """PLD of independent discrete Gaussians on cells shifted by ``pattern``: the
    composition of the one-dimensional PLDs."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    total: PrivacyLossDistribution | None = None
    for part in sorted(set(pattern)):
        one = pld.from_discrete_gaussian_mechanism(sigma, sensitivity=part,
                                                   value_discretization_interval=d)
        times = pattern.count(part)
        piece = one.self_compose(times) if times > 1 else one
        total = piece if total is None else total.compose(piece)
    assert total is not None  # a shift pattern has at least one shifted cell
    return total


def _max_pld(plds: list[PrivacyLossDistribution], d: float) -> PrivacyLossDistribution:
    """One PLD that dominates each of ``plds`` (all symmetric): pessimistic connect-the-dots
    (Doroshenko et al. 2022) on the largest of their δ(ε) at every loss on the grid. The
    largest of hockey-stick curves is again convex in e^ε, so a pair with that curve exists
    and the connect-the-dots PLD dominates it."""
    if len(plds) == 1:
        return plds[0]
    from dp_accounting.pld import pld_pmf
    from dp_accounting.pld import privacy_loss_distribution as pld

    pmfs = [p._pmf_remove.to_dense_pmf() for p in plds]  # noqa: SLF001 - symmetric PLDs
    lower = min(pm._lower_loss for pm in pmfs)  # noqa: SLF001
    upper = max(pm._lower_loss + pm.size - 1 for pm in pmfs)  # noqa: SLF001
    grid = np.arange(lower, upper + 1)
    deltas = np.max([_deltas_on_grid(pm, grid, d) for pm in pmfs], axis=0)
    deltas = np.minimum(1.0, np.maximum(0.0, deltas * (1 + 1e-9) + 1e-15))  # float error
    return pld.PrivacyLossDistribution(
        pld_pmf.create_pmf_pessimistic_connect_dots(d, grid, deltas))


def _deltas_on_grid(pm: DensePLDPmf, grid: np.ndarray, d: float) -> np.ndarray:
    """δ(ε) of a dense PLD pmf at every ε = g·d, in one pass: δ(ε) = ∞-mass +
    Σ_{L > ε} p_L (1 - e^(ε - L)), from reverse cumulative sums."""
    lower, probs = pm._lower_loss, np.asarray(pm._probs)  # noqa: SLF001
    losses = (lower + np.arange(probs.size)) * d
    tail_p = np.append(np.cumsum(probs[::-1])[::-1], 0.0)
    tail_q = np.append(np.cumsum((probs * np.exp(-losses))[::-1])[::-1], 0.0)
    first = np.clip(grid - lower + 1, 0, probs.size)  # the first loss above g·d
    deltas: np.ndarray = pm._infinity_mass + np.maximum(  # noqa: SLF001
        0.0, tail_p[first] - np.exp(grid * d) * tail_q[first])
    return deltas


_Key = tuple[object, ...]


def _pld_key(m: Measurement) -> _Key:
    return (m.mechanism, m.component.single_cell, m.component.l1,
            m.component.l2_sq if m.mechanism == "gaussian" else None,
            m.component.cells if m.mechanism == "gaussian" and not m.component.single_cell
            else None, m.scale, m.sigma_sq, m.truth,
            m.epsilon if m.mechanism in ("exponential",) or not m.component.single_cell else None)


_PLD_CACHE: dict[_Key, PrivacyLossDistribution] = {}
_PREFIX_CACHE: dict[_Key, PrivacyLossDistribution] = {}
_LAST_ORDER: list[tuple[_Key, int]] = []
_PLD_CACHE_SIZE = 512


def _cached_pld(key: _Key, m: Measurement, times: int) -> PrivacyLossDistribution:
    """The PLD of ``times`` copies of a measurement; PLDs are immutable, so cache them (an
    editor recomposes the same measurements at every step of a slider)."""
    full = (key, times, PLD_DISCRETISATION)
    hit = _PLD_CACHE.get(full)
    if hit is None:
        one = _pld_of(m)
        hit = one.self_compose(times) if times > 1 else one
        if len(_PLD_CACHE) >= _PLD_CACHE_SIZE:
            _PLD_CACHE.pop(next(iter(_PLD_CACHE)))
        _PLD_CACHE[full] = hit
    return hit


def pld(measurements: Sequence[Measurement], delta: float) -> Total:
    """Tight (ε, δ) at ``delta`` from composed privacy loss distributions."""
    noisy = [m for m in measurements if m.mechanism != "none"]
    if not noisy:
        return Total(0.0, delta, "pld")
    groups: dict[_Key, list[Measurement]] = {}
    for m in noisy:
        groups.setdefault(_pld_key(m), []).append(m)
    items = [(key, len(members)) for key, members in groups.items()]
    first = {key: members[0] for key, members in groups.items()}
    # unchanged measurements first, in the order of the last call: an editor changes one
    # measurement at a time, so composed prefixes come from the cache and a step costs one
    # convolution
    seen = {item: i for i, item in enumerate(_LAST_ORDER)}
    items.sort(key=lambda item: (seen.get(item, len(seen)), repr(item)))
    _LAST_ORDER[:] = items
    total: PrivacyLossDistribution | None = None
    prefix: tuple[tuple[_Key, int], ...] = ()
    for key, times in items:
        prefix += ((key, times),)
        hit = _PREFIX_CACHE.get((prefix, PLD_DISCRETISATION))
        if hit is None:
            part = _cached_pld(key, first[key], times)
            hit = part if total is None else total.compose(part)
            if len(_PREFIX_CACHE) >= _PLD_CACHE_SIZE:
                _PREFIX_CACHE.pop(next(iter(_PREFIX_CACHE)))
            _PREFIX_CACHE[(prefix, PLD_DISCRETISATION)] = hit
        total = hit
    assert total is not None
    eps = float(total.get_epsilon_for_delta(delta))
    if math.isnan(eps):  # fail closed: an accountant that cannot compute is never 0
        eps = math.inf
    return Total(max(eps, 0.0), delta, "pld")


def accountant_delta_problem(accountant: str | None, delta: float) -> str | None:
    """Why this accountant cannot compose within this δ (zCDP and PLD give (ε, δ) with δ
    above 0), or None."""
    if accountant in ("zcdp", "pld") and delta <= 0:
        return f"{accountant} gives (ε, δ) and needs budget.delta above 0"
    return None


def compose(measurements: Sequence[Measurement], delta: float,
            accountant: str | None = None) -> Total:
    """The composed total with the named accountant, or the tightest valid one."""
    if accountant == "basic":
        return basic(measurements)
    problem = accountant_delta_problem(accountant, delta)
    if problem:
        raise InputError("plan", "budget.accountant", problem)
    if accountant == "zcdp":
        return zcdp(measurements, delta)
    if accountant == "pld":
        if not pld_supported(measurements):
            raise InputError("plan", "budget.accountant",
                             "pld cannot account for a gaussian statistic with this large a "
                             "noise or sensitivity in grid steps; use zcdp")
        return pld(measurements, delta)
    candidates = [basic(measurements)]
    if delta > 0:
        b = candidates[0]
        if b.delta > delta:  # basic needs more δ than the budget allows
            candidates = []
        candidates.append(zcdp(measurements, delta))
        if pld_supported(measurements):
            candidates.append(pld(measurements, delta))
    return min(candidates, key=lambda t: (t.epsilon, t.accountant != "basic"))


def group_privacy(epsilon: float, delta: float, group_size: int) -> tuple[float, float]:
    """(ε, δ) for a group of g people: g·ε and g·e^((g-1)ε)·δ."""
    g = group_size
    eps = g * epsilon
    dlt = min(1.0, g * math.exp((g - 1) * epsilon) * delta) if delta else 0.0
    return eps, dlt
