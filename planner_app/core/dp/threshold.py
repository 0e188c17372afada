"""Thresholded partition selection: which keys of a column a release may publish.

A discovery of keys (kinds/discover_keys.py) counts, for every key present in the column, the
people who hold it (each person counts once in at most ``m`` keys), adds discrete Laplace noise
of scale ``s`` (the exact sampler of mechanisms.py) to each count and publishes the keys whose
noised count is at least an integer threshold ``τ``.

Privacy, for neighbouring tables D and D' = D plus one person (add-remove):

* the keys present in both: their counts differ by at most 1 in at most ``m`` keys, so the
  vector of noised counts is (L1/s)-DP with L1 = m (replace-one: 2m, the person's keys may all
  move) -- the discrete Laplace mechanism;
* the keys present in D' only: at most ``m`` of them, each with a true count of exactly 1. The
  output differs only if one of them clears the threshold, which happens with probability
  ``δ(τ) = 1 - (1 - P[1 + Z ≥ τ])^m``, ``Z`` discrete Laplace of scale ``s``.

So the release is (ε, δ(τ))-DP with ε = L1/s. (The other direction, D' to D, needs no more
δ: a mechanism's output that holds no key of D' only has a probability under D' of at least
(1 - δ(τ)) times the common keys' part.) Under replace-one both tables may hold keys the other
does not -- the person's old keys and their new ones, at most ``m`` each -- and the δ is the
sum of both sides' chances, ``2 δ(τ)`` (``sides``). For the discrete Laplace, P(Z = z) is
proportional to q^|z| with q = exp(-1/s), and P[Z ≥ j] = q^j / (1 + q) for j ≥ 1; the
threshold is the smallest integer τ ≥ 2 with δ(τ) ≤ the declared δ, and δ(τ) itself is stated
(it is at most the declared δ, which is what the ledger charges).

This is the calibration of OpenDP's ``make_laplace_threshold`` (its privacy map
``NoiseThresholdPrivacyMap`` for ``ZExpFamily<1>`` over ``L01InfDistance``: ε from the L1
distance, δ from the discrete Laplace tail beyond ``threshold - d_∞`` over the ``d_0``
keys a person may hold) and of Google's ``LaplacePartitionSelection``
(cc/algorithms/partition-selection.h, which PipelineDP's partition selection calls through
PyDP): a per-key δ of ``1 - (1 - δ)^(1/m)`` for ``m`` partitions contributed. Here the tail is
the discrete one, computed exactly for the integer threshold rather than bounded.

**The Gaussian variant** (mechanism ``gaussian_threshold``, issue 25) is the same selection with
discrete Gaussian noise of variance σ² (the exact sampler of mechanisms.py). Its declared δ is
split in two halves, as Google's ``GaussianPartitionSelection`` (partition-selection.h: its
``threshold_delta = delta / 2``, ``noise_delta = delta - threshold_delta``; PipelineDP's
Gaussian partition selection calls it through PyDP) splits it:

* ``δ_noise``: σ² is calibrated so that the vector of the common keys' noised counts (L2
  sensitivity √m, at most m cells moved by 1; 2m under replace-one) is (ε, δ_noise)-DP -- the
  discrete Gaussian of measure.py, the exact curve of its shifts where it can be certified;
* ``δ_threshold``: the threshold τ is the smallest with ``sides · (1 - (1 - P[1 + Z ≥ τ])^m)``
  at most ``δ - δ_noise``, where P[Z ≥ j] ≤ P[N(0, σ²) ≥ j - 1] (Canonne, Kamath, Steinke 2020,
  *The Discrete Gaussian for Differential Privacy*, Proposition 25) -- the bound OpenDP's
  ``make_gaussian_threshold`` uses (its ``NoiseThresholdPrivacyMap`` for ``ZExpFamily<2>`` over
  ``L02InfDistance``: ρ from the L2 distance, δ = 1 - (1 - P[Z > τ - d_∞])^{d_0} through
  ``conservative_discrete_gaussian_tail_to_alpha``).

Composition: let p ≤ δ_threshold be the chance that one of the person's keys nobody else holds
is published, and A the event that none is. For any set S of outputs, with G the common keys'
noised counts and H = sup_S (P[G(D') ∈ S] - e^ε P[G(D) ∈ S]) ≤ δ_noise,
``P_D'[S] - e^ε P_D[S] ≤ (1 - p) H + p`` and, the other way, writing x, y for the two
probabilities of G, ``x - e^ε (1 - p) y = (1 - p)(x - e^ε y) + p x ≤ (1 - p) H + p``. So the
release is (ε, δ_noise + δ_threshold)-DP, within the declared δ; and the bound
``p + (1 - p) H`` is exactly the hockey-stick divergence of the Gaussian composed with a (0, p)
pair: the accountants compose the discovery as two measurements, the Gaussian (ε, δ_noise, σ²)
and a ``threshold`` measurement (0, δ_threshold) -- basic adds them, PLD composes their privacy
loss distributions, zCDP adds ρ and the δ (approximate zCDP, as OpenDP states it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

#: the largest threshold searched (a threshold beyond it means a δ far below 1e-300, or a
#: scale beyond 1e16, an ε no release would use)
MAX_THRESHOLD = 1 << 62


def _log_q(scale: Fraction) -> float:
    """log q = -1/s, computed directly (log(exp(-1/s)) loses digits when s is large)."""
    return -1 / float(scale)


def key_tail(scale: Fraction, threshold: int) -> float:
    """P[1 + Z ≥ threshold] for Z discrete Laplace of ``scale`` (a key held by one person
    clearing the threshold), rounded up."""
    j = threshold - 1
    log_q = _log_q(scale)
    if j <= 0:
        return 1.0 if j < 0 else 1 / (1 + math.exp(log_q))
    # q^j / (1 + q) in logs; the relative slack covers the float error of exp and log
    return min(1.0, math.exp(j * log_q - math.log1p(math.exp(log_q))) * (1 + 1e-9))


def selection_delta(scale: Fraction, threshold: int, max_keys: int, sides: int = 1
                    ) -> float:
    """δ(τ): the chance that any of a person's ``max_keys`` keys nobody else holds is
    published, rounded up; ``sides`` = 2 under replace-one (the old keys' and the new ones')."""
    return _union(key_tail(scale, threshold), max_keys, sides)


def gaussian_key_tail(sigma_sq: Fraction, threshold: int) -> float:
    """An upper bound of P[1 + Z ≥ threshold] for Z discrete Gaussian of variance ``sigma_sq``:
    P[Z ≥ j] ≤ P[N(0, σ²) ≥ j - 1] (CKS 2020, Proposition 25), rounded up."""
    j = threshold - 1
    if j <= 0:
        return 1.0
    sigma = math.sqrt(float(sigma_sq))
    return min(1.0, 0.5 * math.erfc((j - 1) / (sigma * math.sqrt(2))) * (1 + 1e-9))


def gaussian_selection_delta(sigma_sq: Fraction, threshold: int, max_keys: int,
                             sides: int = 1) -> float:
    """δ_threshold(τ) of the Gaussian variant: the chance that any of a person's ``max_keys``
    keys nobody else holds is published (over ``sides``), rounded up."""
    return _union(gaussian_key_tail(sigma_sq, threshold), max_keys, sides)


def _union(p: float, max_keys: int, sides: int) -> float:
    """sides · (1 - (1 - p)^m), accurately for small p, rounded up."""
    if p >= 1.0:
        return 1.0
    return min(1.0, sides * -math.expm1(max_keys * math.log1p(-p)) * (1 + 1e-9))


def gaussian_threshold_for(sigma_sq: Fraction, max_keys: int, delta: float,
                           sides: int = 1) -> int:
    """The smallest integer τ ≥ 2 whose Gaussian δ_threshold(τ) is at most ``delta``."""
    return _threshold(lambda tau: gaussian_selection_delta(sigma_sq, tau, max_keys, sides)
                      <= delta, delta)


def _gaussian_at_least(sigma_sq: Fraction, j: int) -> float:
    """P[Z ≥ j] for Z discrete Gaussian, approximately (the owner's preview, never a privacy
    claim): the normal with a continuity correction."""
    sigma = math.sqrt(float(sigma_sq))
    return 0.5 * math.erfc((j - 0.5) / (sigma * math.sqrt(2)))


def _first(low: int, high: int, holds: Callable[[int], bool]) -> int:
    """The smallest n in [low, high] for which ``holds`` (monotone: false, then true) is
    true, by bisection: O(log(high - low)) evaluations, never a step at a time (``high``
    when none before it holds)."""
    while low < high:
        mid = (low + high) // 2
        if holds(mid):
            high = mid
        else:
            low = mid + 1
    return low


def threshold_for(scale: Fraction, max_keys: int, delta: float, sides: int = 1) -> int:
    """The smallest integer threshold τ ≥ 2 whose δ(τ) (over ``sides``) is at most
    ``delta`` (> 0): δ(τ) falls as τ grows, so a doubling search for a τ that reaches it,
    then bisection (the same τ as a search one step at a time, in ~2 log2 τ evaluations)."""
    return _threshold(lambda tau: selection_delta(scale, tau, max_keys, sides) <= delta, delta)


def _threshold(reaches: Callable[[int], bool], delta: float) -> int:
    """The smallest τ ≥ 2 that ``reaches`` (monotone) the δ: doubling, then bisection."""
    if not delta > 0:
        raise ValueError("a thresholded selection needs a delta above 0")
    high = 2
    while not reaches(high):
        high *= 2
        if high > MAX_THRESHOLD:
            raise ValueError("no threshold reaches this delta")
    return _first(max(2, high // 2), high, reaches)


@dataclass(frozen=True)
class GaussianNoise:
    """The preview's noise when it is the discrete Gaussian of variance ``sigma_sq`` (a bare
    Fraction is the discrete Laplace's scale)."""

    sigma_sq: Fraction


Noise = Fraction | GaussianNoise


def keep_probability(scale: Noise, threshold: int, people: int) -> float:
    """The chance that a key held by ``people`` people clears the threshold: P[n + Z ≥ τ]
    (public parameters only: what a threshold tends to keep, for the owner's preview)."""
    if isinstance(scale, GaussianNoise):
        return _gaussian_at_least(scale.sigma_sq, threshold - people)
    log_q = _log_q(scale)
    log1p_q = math.log1p(math.exp(log_q))
    j = threshold - people
    if j >= 1:
        return math.exp(j * log_q - log1p_q)
    return 1.0 - math.exp((1 - j) * log_q - log1p_q)


def found_at(scale: Noise, threshold: int, confidence: float, start: int | None = None
             ) -> int:
    """The fewest people (from ``start``, default τ - 1) a key needs to be found with
    ``confidence``: the preview's last size and the size check's sentence states, one
    computation for both."""
    start = max(1, threshold - 1) if start is None else start
    high = start
    while keep_probability(scale, threshold, high) < confidence:
        high = start + 2 * (high - start) + 1
    return _first(start, high, lambda n: keep_probability(scale, threshold, n) >= confidence)


def keep_preview(scale: Noise, threshold: int, confidence: float = 0.95
                 ) -> list[tuple[int, float]]:
    """(people, chance of being found) at three key sizes around the threshold: the largest
    size below it found at most 10% of the time, the first found with ``confidence``, and the
    one midway; each by bisection, so a scale of 1e12 costs no more than one of 1."""
    def chance(n: int) -> float:
        return keep_probability(scale, threshold, n)

    top = max(1, threshold - 1)
    # the largest n <= top with a chance <= 0.1 (else 1): chance rises with n
    low = 1 if chance(1) > 0.1 else _first(1, top, lambda n: chance(n + 1) > 0.1
                                           if n < top else True)
    high = found_at(scale, threshold, confidence, start=low)
    middle = low + (high - low + 1) // 2
    return sorted({(n, chance(n)) for n in (low, middle, high)})
