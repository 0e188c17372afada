# Copyright 2020, 2022 Google LLC.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#
# Modified for planner_app: carried from dp-accounting 0.6.0
# (dp_accounting/pld/privacy_loss_distribution.py and privacy_loss_mechanism.py), only the
# three constructors this product calls, with their defaults (pessimistic estimate, no
# sub-sampling, the privacy-buckets discretisation); the discrete Gaussian's loop over its
# outputs done with numpy in the loop's order; type hints added.
"""The PLDs of the mechanisms the accountant composes, as dp-accounting builds them:
``from_discrete_gaussian_mechanism``, ``from_privacy_parameters`` and
``from_randomized_response`` (two buckets), the same PMFs to the last bit
(tests/core/test_pld_carried.py), without importing dp-accounting (issue 24). The discrete
Laplace's is laplace_pld.py's, in closed form."""

from __future__ import annotations

import math

import numpy as np

from .pld_pmf import Pmf, create_pmf


def _run_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The sum of each run ``values[starts[i]:starts[i + 1]]`` (the last to the end), added
    left to right as dp-accounting's loop adds each output's mass to its loss's bucket
    (``0 + v0 + v1 + …``: numpy's cumulative sum adds in sequence; ``sum`` would pair them).
    Few long runs (a large σ) one run at a time; many short ones a position at a time."""
    ends = np.append(starts[1:], len(values))
    lengths = ends - starts
    longest = int(lengths.max())
    if len(starts) <= longest:
        return np.array([np.cumsum(values[s:e])[-1]
                         for s, e in zip(starts.tolist(), ends.tolist(), strict=True)])
    sums: np.ndarray = values[starts].copy()
    for k in range(1, longest):
        live = np.flatnonzero(lengths > k)
        sums[live] += values[starts[live] + k]
    return sums


def distinguishable(sigma: float, sensitivity: int) -> bool:
    """Whether the discrete Gaussian's PLD (truncated at ±⌈11.6σ⌉) tells two neighbours
    apart with certainty: a shift beyond twice the truncation leaves the two supports apart.
    dp-accounting refuses to build it (``discrete_gaussian``); the accountant takes the PLD
    all at +∞ instead (``certain_loss``), pessimistic and true of the truncated model."""
    return 2 * math.ceil(11.6 * sigma) < sensitivity


def certain_loss(discretization: float) -> Pmf:
    """The PLD of a release that reveals the difference: all its mass at +∞ (no ε holds
    for any δ below 1). A loss of 0 with mass 0 stands in the dict so that composing and
    cutting the tails work on it as on any other."""
    return create_pmf({0: 0.0}, discretization, 1.0)


def discrete_gaussian(sigma: float, sensitivity: int, discretization: float) -> Pmf:
    """``from_discrete_gaussian_mechanism(sigma, sensitivity, value_discretization_interval=
    discretization)``: the noise N_Z(0, σ²) truncated at ±⌈11.6σ⌉ (at most 1e-30 of its mass
    beyond), the mass below the support's shifted edge at +∞, and each output's privacy loss
    Δ(-Δ/2 - x)/σ² rounded up to the grid."""
    if sigma <= 0:
        raise ValueError(f"Sigma is not a positive real number: {sigma}")
    truncation_bound = math.ceil(11.6 * sigma)
    if distinguishable(sigma, sensitivity):
        raise ValueError(f"Truncation bound ({truncation_bound}) is smaller than 0.5 * "
                         f"sensitivity (0.5 * {sensitivity})")
    # DiscreteGaussianPrivacyLoss.__init__: the noise's log CDF, normalised
    offset = -truncation_bound - 1
    indices = np.arange(-truncation_bound, truncation_bound + 1)
    log_pmf = np.append(-np.inf, -0.5 * indices**2 / (sigma**2))
    log_cdf = np.logaddexp.accumulate(log_pmf)
    log_cdf -= log_cdf[-1]
    cdf = np.exp(log_cdf)

    def mu_upper_cdf(x: np.ndarray) -> np.ndarray:
        """The CDF of the noise shifted left by Δ (the REMOVE adjacency's mu_upper)."""
        clipped = np.clip(np.add(x, sensitivity), -truncation_bound - 1, truncation_bound)
        result: np.ndarray = cdf[np.floor(clipped).astype("int") - offset]
        return result

    # privacy_loss_tail: the loss is +∞ below -T, -∞ (never reached) above T - Δ
    lower_x, upper_x = -truncation_bound, truncation_bound - sensitivity
    infinity_mass = mu_upper_cdf(np.array([lower_x - 1]))[0]
    xs = np.arange(lower_x - 1, upper_x + 1)
    cdf_values = mu_upper_cdf(xs)
    probability_mass = cdf_values[1:] - cdf_values[:-1]
    losses = sensitivity * (-0.5 * sensitivity - xs[1:]) / (sigma**2)
    rounded = np.ceil(losses / discretization)  # math.ceil(loss / d): the same division
    # losses fall as x rises: each bucket's outputs are one run, the buckets in the dict's
    # order of first appearance (largest loss first)
    starts = np.flatnonzero(np.append(True, rounded[1:] != rounded[:-1]))
    sums = _run_sums(probability_mass, starts)
    keys = rounded[starts].astype(np.int64).tolist()
    return create_pmf(dict(zip(keys, sums.tolist(), strict=True)), discretization,
                      float(infinity_mass))


def privacy_parameters(epsilon: float, delta: float, discretization: float) -> Pmf:
    """``from_privacy_parameters(DifferentialPrivacyParameters(epsilon, delta))``: the worst
    pair of any (ε, δ)-DP mechanism: +∞ with δ, ε with (1 - δ)/(1 + e^-ε), -ε with the rest."""
    if epsilon < 0:
        raise ValueError(f"epsilon should be positive: {epsilon}")
    if delta < 0 or delta > 1:
        raise ValueError(f"delta should be between 0 and 1: {delta}")
    loss_probs: dict[int, float] = {}
    loss_probs[math.ceil(epsilon / discretization)] = (1 - delta) / (1 + math.exp(-epsilon))
    down = math.ceil(-epsilon / discretization)
    loss_probs[down] = loss_probs.get(down, 0) + (1 - delta) / (1 + math.exp(epsilon))
    return create_pmf(loss_probs, discretization, delta)


def randomized_response(noise_parameter: float, discretization: float) -> Pmf:
    """``from_randomized_response(noise_parameter, 2)`` (the REPLACE_ONE relation): with
    probability ``noise_parameter`` a bucket drawn uniformly of two, else the true one
    (``from_two_probability_mass_functions``, symmetric)."""
    if noise_parameter <= 0 or noise_parameter >= 1:
        raise ValueError(f"Noise parameter must be strictly between 0 and 1: "
                         f"Found {noise_parameter}")
    num_buckets = 2
    log_pmf_upper = {
        0: math.log(1 - noise_parameter * (num_buckets - 1) / num_buckets),
        1: math.log(noise_parameter / num_buckets),
    }
    log_pmf_lower = {0: log_pmf_upper[1], 1: log_pmf_upper[0]}
    # _create_rounded_probability_mass_function: no outcome is missing from either side
    # (both logs are finite), so nothing goes to +∞
    pmf: dict[float, float] = {}
    for outcome, log_prob_lower in log_pmf_lower.items():
        privacy_loss_value = log_pmf_upper[outcome] - log_prob_lower
        pmf[privacy_loss_value] = (pmf.get(privacy_loss_value, 0)
                                   + math.exp(log_pmf_upper[outcome]))
    rounded: dict[int, float] = {}
    for value, mass in pmf.items():
        key = math.ceil(value / discretization)
        rounded[key] = rounded.get(key, 0) + mass
    return create_pmf(rounded, discretization, 0.0)
