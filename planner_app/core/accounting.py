"""Composition: what a whole release (or a dataset's lifetime of releases) costs.

* basic: ε and δ add up. Always valid.
* parallel: the disjoint cells of a histogram or group-by are one measurement whose
  sensitivity already covers every cell a person can touch (sensitivity.py), so cells cost
  the maximum, not the sum.
* zcdp: ρ adds up (pure ε gives ε²/2, the exponential mechanism ε²/8, a discrete Gaussian
  Δ₂²/2σ²), then converted to (ε, δ) at the budget's δ. Needs δ > 0.
* pld: privacy loss distributions composed with Google's dp-accounting (pessimistic
  discretisation, so the result is an upper bound). Needs δ > 0; a multi-cell Gaussian
  measurement has no exact PLD here, so such plans use zcdp or basic.

The default is the tightest valid accountant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from .errors import InputError
from .measure import Measurement, epsilon_from_rho

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


def basic(measurements: Sequence[Measurement]) -> Total:
    eps = math.fsum(m.epsilon for m in measurements)
    delta = math.fsum(m.delta for m in measurements)
    return Total(eps, min(delta, 1.0), "basic")


def zcdp(measurements: Sequence[Measurement], delta: float) -> Total:
    rho = math.fsum(m.rho for m in measurements)
    return Total(epsilon_from_rho(rho, delta), delta, "zcdp", rho)


def pld_supported(measurements: Iterable[Measurement]) -> bool:
    return all(not (m.mechanism == "gaussian" and not m.component.single_cell)
               for m in measurements)


def _pld_of(m: Measurement):  # type: ignore[no-untyped-def]
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    d = PLD_DISCRETISATION
    if m.mechanism == "laplace" and m.component.single_cell:
        assert m.scale is not None
        parameter = math.nextafter(float(1 / m.scale), math.inf)  # pessimistic: less noise
        return pld.from_discrete_laplace_mechanism(
            parameter, sensitivity=m.component.l1, value_discretization_interval=d)
    if m.mechanism == "gaussian":
        assert m.sigma_sq is not None
        sigma = math.nextafter(math.sqrt(float(m.sigma_sq)), 0.0)
        return pld.from_discrete_gaussian_mechanism(
            sigma, sensitivity=m.component.l1, value_discretization_interval=d)
    if m.mechanism == "randomized_response":
        assert m.truth is not None
        noise = math.nextafter(float(1 - m.truth), 0.0)
        one = pld.from_randomized_response(noise, 2, value_discretization_interval=d)
        return one.self_compose(m.component.l1) if m.component.l1 > 1 else one
    # pure ε: the worst pair of any ε-DP mechanism dominates it
    return pld.from_privacy_parameters(
        common.DifferentialPrivacyParameters(m.epsilon, 0.0), value_discretization_interval=d)


def _pld_key(m: Measurement) -> tuple:
    return (m.mechanism, m.component.single_cell, m.component.l1, m.scale, m.sigma_sq, m.truth,
            m.epsilon if m.mechanism in ("exponential",) or not m.component.single_cell else None)


def pld(measurements: Sequence[Measurement], delta: float) -> Total:
    """Tight (ε, δ) at ``delta`` from composed privacy loss distributions."""
    noisy = [m for m in measurements if m.mechanism != "none"]
    if not noisy:
        return Total(0.0, delta, "pld")
    groups: dict[tuple, list[Measurement]] = {}
    for m in noisy:
        groups.setdefault(_pld_key(m), []).append(m)
    total = None
    for members in groups.values():
        one = _pld_of(members[0])
        part = one.self_compose(len(members)) if len(members) > 1 else one
        total = part if total is None else total.compose(part)
    assert total is not None
    eps = float(total.get_epsilon_for_delta(delta))
    return Total(max(eps, 0.0), delta, "pld")


def compose(measurements: Sequence[Measurement], delta: float,
            accountant: str | None = None) -> Total:
    """The composed total with the named accountant, or the tightest valid one."""
    if accountant == "basic":
        return basic(measurements)
    if accountant in ("zcdp", "pld") and delta <= 0:
        raise InputError("plan", "budget.accountant",
                         f"{accountant} gives (ε, δ) and needs budget.delta above 0")
    if accountant == "zcdp":
        return zcdp(measurements, delta)
    if accountant == "pld":
        if not pld_supported(measurements):
            raise InputError("plan", "budget.accountant",
                             "pld cannot account for a gaussian histogram or group-by here; "
                             "use zcdp")
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
