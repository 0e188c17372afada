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
# Modified for planner_app: carried from dp-accounting 0.6.0 (dp_accounting/pld/pld_pmf.py and
# common.py), only the pessimistic, symmetric PMFs this product builds; the tail cut as numpy
# sums in the loop's order; type hints added.
"""Privacy loss distribution PMFs: dense and sparse, and the operations on them that do not
need a convolution of two arrays (pld_ops.py composes those).

Carried from Google's dp-accounting (``pld_pmf``, ``common``) step for step, so every number
is dp-accounting's to the last bit (tests/core/test_pld_carried.py compares them over a broad
grid), without importing dp-accounting, whose package imports scipy.signal and scipy.stats
(about 0.65 CPU s of every process that composes a PLD; issue 24). Every PLD here is the
pessimistic estimate and symmetric (the add and remove PMFs are one), so a PMF is the PLD.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

MAX_PMF_SPARSE_SIZE = 1000  # dp-accounting's _MAX_PMF_SPARSE_SIZE
_DELTA_DIFF_TOLERANCE = 1e-12
TAIL_MASS_TRUNCATION = 1e-15  # PrivacyLossDistribution.compose's and self_compose's default
_BLOCK = 4096


class DensePmf:
    """Masses on the losses ``(lower_loss + i) * discretization``, and the mass at +∞."""

    __slots__ = ("discretization", "infinity_mass", "lower_loss", "probs")

    def __init__(self, discretization: float, lower_loss: int, probs: np.ndarray,
                 infinity_mass: float) -> None:
        self.discretization = discretization
        self.lower_loss = lower_loss
        self.probs = probs
        self.infinity_mass = infinity_mass

    @property
    def size(self) -> int:
        return len(self.probs)


class SparsePmf:
    """Masses on the losses ``key * discretization`` (a dict, in dp-accounting's insertion
    order: the order its sums run in), and the mass at +∞."""

    __slots__ = ("discretization", "infinity_mass", "loss_probs")

    def __init__(self, loss_probs: dict[int, float], discretization: float,
                 infinity_mass: float) -> None:
        self.loss_probs = loss_probs
        self.discretization = discretization
        self.infinity_mass = infinity_mass

    @property
    def size(self) -> int:
        return len(self.loss_probs)


Pmf = DensePmf | SparsePmf


def _dictionary_to_list(loss_probs: Mapping[int, float]) -> tuple[int, np.ndarray]:
    """``common.dictionary_to_list`` then ``np.array``: the masses from the least key to the
    largest, 0 where a key is missing."""
    keys = np.fromiter(loss_probs.keys(), dtype=np.int64, count=len(loss_probs))
    values = np.fromiter(loss_probs.values(), dtype=np.float64, count=len(loss_probs))
    offset = int(keys.min())
    probs = np.zeros(int(keys.max()) - offset + 1)
    probs[keys - offset] = values
    return offset, probs


def create_pmf(loss_probs: dict[int, float], discretization: float,
               infinity_mass: float) -> Pmf:
    """``pld_pmf.create_pmf``: sparse up to ``MAX_PMF_SPARSE_SIZE`` losses, dense above."""
    if len(loss_probs) <= MAX_PMF_SPARSE_SIZE:
        return SparsePmf(loss_probs, discretization, infinity_mass)
    lower_loss, probs = _dictionary_to_list(loss_probs)
    return DensePmf(discretization, lower_loss, probs, infinity_mass)


def to_dense(pmf: Pmf) -> DensePmf:
    """``to_dense_pmf``."""
    if isinstance(pmf, DensePmf):
        return pmf
    lower_loss, probs = _dictionary_to_list(pmf.loss_probs)
    return DensePmf(pmf.discretization, lower_loss, probs, pmf.infinity_mass)


# -- cutting the tails -----------------------------------------------------------------------


def _prefix_to_truncate(arr: np.ndarray, threshold: float) -> int:
    """The longest prefix whose running sum stays at or below ``threshold`` (the loop in
    dp-accounting's ``_truncate_tails``: ``s += val`` until ``s > threshold``), block by block:
    numpy's cumulative sum adds in sequence, as the loop does."""
    running: Any = 0
    for start in range(0, len(arr), _BLOCK):  # tails are short: sum a block at a time
        sums = np.cumsum(np.concatenate(([running], arr[start:start + _BLOCK])))[1:]
        over = np.flatnonzero(sums > threshold)
        if over.size:
            return start + int(over[0])
        running = sums[-1]
    return len(arr)


def truncate_tails(probs: np.ndarray, tail_mass_truncation: float
                   ) -> tuple[int, np.ndarray, float]:
    """``pld_pmf._truncate_tails`` (pessimistic): the prefix cut goes to the first mass kept,
    the suffix cut to +∞. Returns the prefix's length, the masses kept, the mass to +∞."""
    if tail_mass_truncation == 0:
        return 0, probs, 0
    # where all the finite mass is within the cut (a PLD almost all at +∞: a discrete Gaussian
    # with σ about a twentieth of its shift), dp-accounting keeps nothing and raises; the
    # last loss is kept with the whole prefix's mass moved up to it, which is pessimistic too
    left_idx = min(_prefix_to_truncate(probs, tail_mass_truncation / 2), len(probs) - 1)
    right_idx = len(probs) - _prefix_to_truncate(np.flip(probs), tail_mass_truncation / 2)
    right_idx = max(right_idx, left_idx + 1)
    left_mass = np.sum(probs[:left_idx])
    right_mass = np.sum(probs[right_idx:])
    truncated_probs = probs[left_idx:right_idx]
    truncated_probs[0] += left_mass
    return left_idx, truncated_probs, right_mass


# -- sparse composition ------------------------------------------------------------------------


def compose_sparse(first: SparsePmf, second: SparsePmf,
                   tail_mass_truncation: float = 0) -> SparsePmf:
    """``SparsePLDPmf.compose``: every pair of losses, summed in the dicts' order."""
    convolution: dict[int, float] = {}
    for key1, value1 in first.loss_probs.items():
        for key2, value2 in second.loss_probs.items():
            key = key1 + key2
            convolution[key] = convolution.get(key, 0.0) + value1 * value2
    infinity_mass = (first.infinity_mass + second.infinity_mass
                     - first.infinity_mass * second.infinity_mass)
    sorted_losses = sorted(convolution.keys())
    probs = np.array([convolution[loss] for loss in sorted_losses], dtype=np.float64)
    offset, kept, right_mass = truncate_tails(probs, tail_mass_truncation)
    truncated = dict(zip(sorted_losses[offset:offset + len(kept)], kept.tolist(), strict=True))
    return SparsePmf(truncated, first.discretization, infinity_mass + right_mass)


def _more_than(size: int, times: int, bound: int) -> bool:
    """``size ** times > bound``, without the power's digits when ``times`` is large."""
    if size <= 1:
        return size > bound
    total = 1
    for _ in range(times):
        total *= size
        if total > bound:
            return True
    return False


def self_compose(pmf: Pmf, num_times: int,
                 tail_mass_truncation: float = TAIL_MASS_TRUNCATION) -> Pmf:
    """``PrivacyLossDistribution.self_compose``: a sparse PMF composed with itself while the
    result may stay sparse (the tails cut only at the last), else the dense way (which, as
    dp-accounting's, cuts the tails even once)."""
    if isinstance(pmf, SparsePmf):
        if num_times == 1:
            return pmf
        if _more_than(pmf.size, num_times, MAX_PMF_SPARSE_SIZE):
            return _self_compose_dense(to_dense(pmf), num_times, tail_mass_truncation)
        result = pmf
        for i in range(2, num_times + 1):
            mass_truncation = 0 if i != num_times else tail_mass_truncation
            result = compose_sparse(result, pmf, mass_truncation)
        return result
    return _self_compose_dense(pmf, num_times, tail_mass_truncation)


def _self_compose_dense(pmf: DensePmf, num_times: int,
                        tail_mass_truncation: float) -> DensePmf:
    """``DensePLDPmf.self_compose``: one FFT raised to the power, within Chernoff bounds."""
    lower_loss = pmf.lower_loss * num_times
    truncation_lower_bound, probs = _self_convolve(pmf.probs, num_times, tail_mass_truncation)
    lower_loss += truncation_lower_bound
    # tail_mass_truncation + 1 - (1 - infinity_mass)**num_times, stably
    inf_prob = (tail_mass_truncation
                - math.expm1(num_times * math.log1p(-pmf.infinity_mass)))
    return DensePmf(pmf.discretization, lower_loss, np.array(probs), inf_prob)


def _self_convolve_bounds(input_list: np.ndarray, num_times: int,
                          tail_mass_truncation: float) -> tuple[int, int]:
    """``common.compute_self_convolve_bounds``: where the composed masses outside hold at most
    ``tail_mass_truncation`` (Chernoff bounds at 40 orders)."""
    from scipy import special  # type: ignore[import-untyped]

    upper_bound = (len(input_list) - 1) * num_times
    lower_bound = 0
    if tail_mass_truncation == 0:
        return lower_bound, upper_bound
    orders = np.concatenate((np.arange(-20, 0), np.arange(1, 21))) / len(input_list)
    log_mgfs = [special.logsumexp(np.arange(len(input_list)) * order, b=input_list)
                for order in orders]
    for order, log_mgf_value in zip(orders, log_mgfs, strict=True):
        bound = (num_times * log_mgf_value + math.log(2 / tail_mass_truncation)) / order
        if not math.isfinite(bound):
            continue
        if order > 0:
            upper_bound = min(upper_bound, math.ceil(bound))
        if order < 0:
            lower_bound = max(lower_bound, math.floor(bound))
    return lower_bound, upper_bound


def _self_convolve(input_list: np.ndarray, num_times: int,
                   tail_mass_truncation: float) -> tuple[int, np.ndarray]:
    """``common.self_convolve``."""
    from scipy import fft

    lower, upper = _self_convolve_bounds(input_list, num_times, tail_mass_truncation)
    output_len = upper - lower + 1
    fast_len = fft.next_fast_len(max(output_len, len(input_list)))
    output = np.real(fft.ifft(fft.fft(input_list, fast_len)**num_times))
    # the transform wraps around modulo fast_len: the values in the range of interest
    return lower, np.roll(output, -lower)[:output_len]


# -- ε for δ of a sparse PMF (pld_ops.py has the dense one's) ----------------------------------


def sparse_epsilon_for_delta(pmf: SparsePmf, delta: float) -> float:
    """``SparsePLDPmf.get_epsilon_for_delta`` (``_get_epsilon_for_delta``): the smallest ε
    whose hockey-stick divergence is at most ``delta``; inf when none is finite."""
    infinity_mass = pmf.infinity_mass
    if infinity_mass > delta:
        return math.inf
    keys = sorted(pmf.loss_probs)
    probs = [pmf.loss_probs[key] for key in keys]
    losses = [key * pmf.discretization for key in keys]
    mass_upper: float = infinity_mass
    mass_lower: float = 0
    for loss, prob in zip(losses[::-1], probs[::-1], strict=True):
        if (mass_upper > delta and mass_lower > 0
                and math.log((mass_upper - delta) / mass_lower) >= loss):
            break  # ε is at least this loss
        mass_upper += prob
        mass_lower += math.exp(-loss) * prob
        if mass_upper >= delta and mass_lower == 0:  # exp(-loss) is 0 for a very large loss
            return max(0.0, loss)
    if mass_upper <= mass_lower + delta:
        return 0.0
    return math.log((mass_upper - delta) / mass_lower)


# -- connect the dots --------------------------------------------------------------------------


def connect_dots(discretization: float, rounded_epsilons: np.ndarray,
                 deltas: Sequence[float] | np.ndarray) -> Pmf:
    """``create_pmf_pessimistic_connect_dots`` (Doroshenko et al. 2022, Algorithm 1): the
    pessimistic PMF on the losses ``rounded_epsilons * discretization`` (strictly increasing)
    whose hockey-stick curve passes through ``deltas`` (non-increasing) there."""
    rounded_epsilons = np.asarray(rounded_epsilons, dtype=int)
    deltas = np.asarray(deltas, dtype=float)
    if rounded_epsilons.size != deltas.size or rounded_epsilons.size == 0:
        raise ValueError("connect the dots: as many deltas as losses, and some")
    epsilon_diffs = np.diff(rounded_epsilons) * discretization
    if np.any(epsilon_diffs <= 0):
        raise ValueError("connect the dots: the losses are not strictly increasing")
    if np.any(deltas < 0) or np.any(deltas > 1):
        raise ValueError("connect the dots: the deltas are not between 0 and 1")
    if np.any(np.diff(deltas) > _DELTA_DIFF_TOLERANCE):
        raise ValueError("connect the dots: the deltas are not non-increasing")
    deltas = np.minimum.accumulate(deltas)
    delta_diffs = np.diff(deltas)
    # y_0 = 1 - δ_1, y_i = (δ_{i+1} - δ_i) / (exp(ε_i - ε_{i+1}) - 1)
    scaled_v1 = np.append(1 - deltas[0], delta_diffs / np.expm1(- epsilon_diffs))
    # z_i = (δ_{i+1} - δ_i) / (exp(ε_{i+1} - ε_i) - 1), z_n = 0
    scaled_v2 = np.append(delta_diffs / np.expm1(epsilon_diffs), 0.0)
    probs = np.maximum(0, scaled_v1 + scaled_v2)  # ε_i has y_{i-1} + z_i, never below 0
    return create_pmf(dict(zip(rounded_epsilons.tolist(), probs.tolist(), strict=True)),
                      discretization, float(deltas[-1]))
