"""From a query's share of ε (and δ) to calibrated noise for each of its components.

A ``Measurement`` is one noisy component: its sensitivity (from sensitivity.py), its share of
the query's ε/δ, and the exact rational noise parameter the sampler uses. Scales are rounded
*up* to a rational, so the ε actually spent never exceeds the ε the plan states.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

from ..model import MIN_DELTA, Plan, Query, delta_problem  # noqa: F401 (re-exported)
from ..support.errors import InputError
from .gaussian import (
    delta_upper,
    multi_cell_sigma_sq_for,
    patterns_delta_upper,
    shift_patterns,
    sigma_sq_for,
)
from .sampler_params import MAX_QUANTILE_SCALE, quantile_proposal_scale, truth_probability
from .sensitivity import Component

MAX_SCALE_BITS = 48


@dataclass(frozen=True)
class Measurement:
    query_id: str
    component: Component
    # laplace | gaussian | exponential | randomized_response | zcdp | none | threshold (a
    # Gaussian discovery of keys' threshold: (0, δ), no noise of its own)
    mechanism: str
    epsilon: float  # ε charged for this measurement (pure part for gaussian: its (ε, δ))
    delta: float
    scale: Fraction | None = None  # discrete Laplace scale, in steps
    sigma_sq: Fraction | None = None  # discrete Gaussian sigma^2, in steps^2
    truth: Fraction | None = None  # randomized response: probability of a truthful answer

    @property
    def rho(self) -> float:
        """zCDP parameter of this measurement."""
        if self.mechanism in ("none", "threshold"):  # a threshold's δ is added, not a ρ
            return 0.0
        if self.mechanism in ("gaussian", "zcdp"):  # zcdp: a ρ written as a Gaussian's σ²
            assert self.sigma_sq is not None
            return self.component.l2_sq / (2 * float(self.sigma_sq))
        if self.mechanism == "exponential":
            return self.epsilon**2 / 8  # bounded-range: Cesar & Rogers 2021
        if self.mechanism == "randomized_response":
            k = self.component.l1  # rows per person, each randomized with epsilon/k
            return k * (self.epsilon / k) ** 2 / 2
        return self.epsilon**2 / 2

    @property
    def scale_value(self) -> float | None:
        """Laplace scale in value units."""
        return None if self.scale is None else float(self.scale) * self.component.step

    @property
    def sigma_value(self) -> float | None:
        return None if self.sigma_sq is None else math.sqrt(self.sigma_sq) * self.component.step


def exact_epsilon(epsilon: float) -> Fraction:
    """ε as the decimal the user wrote (0.3 is 3/10, not the binary float near it)."""
    return Fraction(repr(float(epsilon)))


def round_up_fraction(x: Fraction, bits: int = 32) -> Fraction:
    """x itself when small enough for the samplers, else the smallest multiple of 2^-b at or
    above x, with b chosen so the numerator stays within MAX_SCALE_BITS - 8 bits."""
    limit = 1 << (MAX_SCALE_BITS - 8)
    if x.numerator < limit and x.denominator < limit:
        return x
    whole_bits = math.ceil(x).bit_length()
    b = max(0, min(bits, MAX_SCALE_BITS - 8 - whole_bits))
    d = 1 << b
    return Fraction(math.ceil(x * d), d)


def laplace_scale(l1: int, epsilon: float) -> Fraction:
    """Discrete Laplace scale for integer sensitivity ``l1`` at ``epsilon`` (rounded up)."""
    scale = round_up_fraction(Fraction(l1) / exact_epsilon(epsilon))
    if scale.numerator >= 1 << MAX_SCALE_BITS:
        raise InputError("plan", None, "the noise scale is too large: raise epsilon or narrow "
                                       "the bounds")
    return scale


def laplace_epsilon(l1: int, scale: Fraction) -> float:
    return float(Fraction(l1) / scale)


# ----------------------------------------------------------------------------- zCDP conversion


def epsilon_from_rho(rho: float, delta: float) -> float:
    """(ε, δ) from ρ-zCDP: min over α > 1 of
    αρ + log((α-1)/α) - (log δ + log α)/(α-1)
    (Canonne, Kamath, Steinke 2020, Corollary 13). Any α gives a valid bound, so an
    approximate minimiser is still sound. Fails closed: whatever it cannot compute (NaN
    arithmetic, a δ out of range) is ``inf``, never a small number."""
    if not (math.isfinite(rho) and math.isfinite(delta)) or delta >= 1:
        return math.inf
    if rho <= 0:
        return 0.0
    if delta <= 0:
        return math.inf
    log_inv_delta = -math.log(delta)  # exact for denormals, where 1/δ overflows

    def eps_at(alpha: float) -> float:
        return (alpha * rho + math.log((alpha - 1) / alpha)
                + (log_inv_delta - math.log(alpha)) / (alpha - 1))

    # eps_at is convex in log(alpha - 1): a coarse log grid, then golden section
    lo, hi = math.log(1e-9), math.log(10 * (1 + log_inv_delta / max(rho, 1e-12)))
    points = 48
    grid = [lo + (hi - lo) * i / points for i in range(points + 1)]
    values = [eps_at(1 + math.exp(x)) for x in grid]
    i = min(range(points + 1), key=values.__getitem__)
    a, b = grid[max(0, i - 1)], grid[min(points, i + 1)]
    golden = 0.6180339887498949
    for _ in range(60):
        c, d = b - golden * (b - a), a + golden * (b - a)
        if eps_at(1 + math.exp(c)) < eps_at(1 + math.exp(d)):
            b = d
        else:
            a = c
    best = min(values[i], eps_at(1 + math.exp((a + b) / 2)))
    result = min(best, rho + 2 * math.sqrt(rho * log_inv_delta))
    if math.isnan(result):  # max(0.0, nan) would be 0.0: fail closed instead
        return math.inf
    return max(0.0, result)


def rho_for(epsilon: float, delta: float) -> float:
    """Largest ρ (to a relative 1e-12) whose conversion gives at most ε at δ."""
    problem = delta_problem(delta)
    if problem or delta <= 0 or not math.isfinite(epsilon) or epsilon <= 0:
        return 0.0  # no ρ converts to this (ε, δ); callers refuse ρ = 0
    lo, hi = 0.0, max(epsilon, 1.0)
    while epsilon_from_rho(hi, delta) <= epsilon:
        hi *= 2
        if hi > 1e300:  # cannot happen for a valid δ: ε grows without bound in ρ
            return 0.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if epsilon_from_rho(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-10 * hi:
            break
    return lo


@functools.lru_cache(maxsize=4096)
def gaussian_sigma_sq(l2_sq: int, epsilon: float, delta: float) -> Fraction:
    """σ² (in steps²) so the discrete Gaussian is ρ-zCDP with ρ converting to (ε, δ)."""
    rho = rho_for(epsilon, delta)
    if rho <= 0:
        raise InputError("plan", None, "epsilon and delta are too small for a gaussian mechanism")
    sigma_sq = round_up_fraction(Fraction(l2_sq) / (2 * Fraction(rho)))
    if sigma_sq.numerator >= 1 << (2 * MAX_SCALE_BITS):
        raise InputError("plan", None, "the noise is too large: raise epsilon or narrow the bounds")
    return sigma_sq


@functools.lru_cache(maxsize=4096)
def exact_gaussian_sigma_sq(sensitivity: int, epsilon: float, delta: float) -> Fraction:
    """σ² (in steps²) for ONE cell of integer sensitivity, from the discrete Gaussian's exact
    (ε, δ) curve (gaussian.py): about 5-9% less noise than going through zCDP. Falls back to
    the zCDP σ² where the curve cannot be certified; never above it."""
    via_zcdp = gaussian_sigma_sq(sensitivity * sensitivity, epsilon, delta)
    found = sigma_sq_for(sensitivity, epsilon, delta, float(via_zcdp))
    if found is None:
        return via_zcdp
    sigma_sq = round_up_fraction(Fraction(found))
    # certify the rational the sampler will use (less noise, pessimistically)
    if sigma_sq >= via_zcdp or delta_upper(math.nextafter(float(sigma_sq), 0.0), sensitivity,
                                           epsilon) > delta:
        return via_zcdp
    return sigma_sq


@functools.lru_cache(maxsize=1024)
def multi_cell_gaussian_sigma_sq(l1: int, l2_sq: int, cells: int, epsilon: float,
                                 delta: float) -> Fraction:
    """σ² (in steps²) for cells one person can touch several of: from the exact curve of
    every maximal shift (gaussian.py) where they can be enumerated, else through zCDP
    (exact for independent discrete Gaussians, whose Rényi divergences add up). Never above
    the zCDP σ²."""
    via_zcdp = gaussian_sigma_sq(l2_sq, epsilon, delta)
    patterns = shift_patterns(l1, l2_sq, cells)
    if patterns is None:
        return via_zcdp
    found = multi_cell_sigma_sq_for(patterns, epsilon, delta, float(via_zcdp))
    if found is None:
        return via_zcdp
    sigma_sq = round_up_fraction(Fraction(found))
    if sigma_sq >= via_zcdp or patterns_delta_upper(
            math.nextafter(float(sigma_sq), 0.0), patterns, epsilon, delta) > delta:
        return via_zcdp
    return sigma_sq


# ----------------------------------------------------------------------------- measurements


# Randomized response: the share of ε spent on the noised number of answers (the length of
# the published answer file); the answers themselves get the rest. The count's error enters
# the share divided by the number of answers, the answers' error only by its square root, so
# most of ε goes to the answers.
RR_COUNT_SHARE = 0.1
# The largest discrete Laplace scale (in answers) for that count: beyond it the answer file
# would be padded with millions of fair coins, and the share would be noise anyway.
RR_MAX_COUNT_SCALE = 100_000


Share = tuple[Component, float, float]  # a component, its ε, its δ


def even_shares(query: Query, parts: list[Component]) -> list[Share]:
    """Even split of the query's ε and δ over the components that need noise."""
    noisy = [c for c in parts if c.l1 > 0]
    n = max(1, len(noisy))
    return [(c, query.epsilon / n if c.l1 > 0 else 0.0, query.delta / n if c.l1 > 0 else 0.0)
            for c in parts]


def calibrate(query: Query, plan: Plan, shares: list[Share]) -> list[Measurement]:
    """The measurements of components at their shares of ε and δ, by the query's mechanism
    (InputError without a field when no sampler can draw a noise parameter: the caller,
    ``kinds.shared_dp.measurements_for``, names the statistic's epsilon)."""
    out = []
    for comp, eps, delta in shares:
        if comp.l1 == 0:
            out.append(Measurement(query.id, comp, "none", 0.0, 0.0))
            continue
        if not eps > 0:  # a subnormal ε split between parts rounds to 0: no noise scale
            raise InputError("plan", None, f"ε = {query.epsilon:g} is too small for this "
                                           "statistic to say anything (its share of ε for "
                                           f"the {comp.name} rounds to 0); raise ε")
        if query.mechanism == "laplace":
            scale = laplace_scale(comp.l1, eps)
            out.append(Measurement(query.id, comp, "laplace", laplace_epsilon(comp.l1, scale),
                                   0.0, scale=scale))
        elif query.mechanism == "gaussian":
            if Fraction(comp.l1) / exact_epsilon(eps) >= 1 << MAX_SCALE_BITS:
                floor = comp.l1 / 2.0**MAX_SCALE_BITS * query.epsilon / eps  # this share's
                raise InputError("plan", None, gaussian_too_small(query.epsilon, floor))
            # the exact curve: of one cell, or of the maximal shifts over several cells
            sigma_sq = (exact_gaussian_sigma_sq(comp.l1, eps, delta) if comp.single_cell
                        else multi_cell_gaussian_sigma_sq(comp.l1, comp.l2_sq, comp.cells, eps,
                                                          delta))
            out.append(Measurement(query.id, comp, "gaussian", eps, delta, sigma_sq=sigma_sq))
        elif query.mechanism == "exponential":
            try:  # refused here, before any charge, not in the sampler after it
                quantile_proposal_scale(eps, comp.l1)
            except ValueError:
                raise InputError("plan", None, f"ε = {eps:g} is too small for the quantile "
                                               "sampler: raise it to at least "
                                               f"{4 * comp.l1 / MAX_QUANTILE_SCALE:.2g}") \
                    from None
            out.append(Measurement(query.id, comp, "exponential", eps, 0.0))
        elif query.mechanism == "randomized_response" and comp.name == "count":
            if eps <= 0 or Fraction(comp.l1) / exact_epsilon(eps) >= 1 << 40:
                # far below what rr_refusal allows, and no sampler scale exists
                raise InputError("plan", f"queries[{query.id}].epsilon", rr_too_small(
                    query, "its noised number of answers would need a noise scale above "
                           f"{RR_MAX_COUNT_SCALE:,} answers", plan.privacy_unit.rows_per_unit))
            scale = laplace_scale(comp.l1, eps)
            out.append(Measurement(query.id, comp, "laplace", laplace_epsilon(comp.l1, scale),
                                   0.0, scale=scale))
        elif query.mechanism == "randomized_response":
            k = comp.l1
            truth = truth_probability(eps / k)  # 0 when it underflows: see rr_refusal
            row_eps = math.log((1 + truth) / (1 - truth))
            out.append(Measurement(query.id, comp, "randomized_response", k * row_eps, 0.0,
                                   truth=truth))
        else:  # pragma: no cover - validated in plan.py
            raise InputError("plan", f"queries[{query.id}].mechanism", "unknown mechanism")
    return out


def gaussian_too_small(epsilon: float, floor: float) -> str:
    """Why a gaussian statistic's ε is refused (``floor``: the smallest ε it may have): at an
    ε where the Laplace mechanism's scale would pass MAX_SCALE_BITS (the one limit of 'too
    small' for every mechanism), the Gaussian's noise no longer depends on ε -- δ alone sets
    it, at a ± far beyond anything the statistic could be -- so the statistic says nothing."""
    return (f"ε = {epsilon:g} is too small for this statistic to say anything: its noise would "
            f"be set by δ alone, far wider than any value it could take; raise ε to at least "
            f"{floor * 1.0001:.2g} (nothing was charged)")


def rr_too_small(query: Query, why: str, rows: int = 1) -> str:
    """Why a randomized-response statistic's ε is refused, ``why`` being the cause."""
    return (f"ε = {query.epsilon:g} is too small for randomized response ({why}); raise ε"
            + (f" (or lower max_rows from {rows})" if rows > 1 else ""))


# ----------------------------------------------------------------------------- records


def measurement_to_dict(m: Measurement) -> dict[str, object]:
    """Public parameters of a measurement (enough to recompose it later, nothing private)."""
    c = m.component
    return {
        "query_id": m.query_id, "name": c.name, "mechanism": m.mechanism,
        "step": c.step, "l1": c.l1, "l2_sq": c.l2_sq, "cells": c.cells,
        "single_cell": c.single_cell, "epsilon": m.epsilon, "delta": m.delta,
        "scale_steps": None if m.scale is None else str(m.scale),
        "sigma_sq_steps": None if m.sigma_sq is None else str(m.sigma_sq),
        "truth": None if m.truth is None else str(m.truth),
        "derivation": c.derivation,
    }


def _json_scalar(d: dict[str, object], key: str) -> int | float | str:
    """A field read back from JSON that float() and int() take; TypeError for any other."""
    value = d[key]
    if not isinstance(value, (int, float, str)):
        raise TypeError(f"{key} must be a number, not {type(value).__name__}")
    return value


def measurement_from_dict(d: dict[str, object]) -> Measurement:
    comp = Component(name=str(d["name"]), step=float(_json_scalar(d, "step")),
                     l1=int(_json_scalar(d, "l1")), l2_sq=int(_json_scalar(d, "l2_sq")),
                     cells=int(_json_scalar(d, "cells")),
                     single_cell=bool(d["single_cell"]), derivation=str(d.get("derivation", "")))

    def frac(key: str) -> Fraction | None:
        v = d.get(key)
        return None if v is None else Fraction(str(v))

    return Measurement(query_id=str(d["query_id"]), component=comp, mechanism=str(d["mechanism"]),
                       epsilon=float(_json_scalar(d, "epsilon")),
                       delta=float(_json_scalar(d, "delta")),
                       scale=frac("scale_steps"), sigma_sq=frac("sigma_sq_steps"),
                       truth=frac("truth"))
