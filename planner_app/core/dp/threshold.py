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
"""

from __future__ import annotations

import math
from fractions import Fraction

#: the largest threshold searched (a threshold beyond it means a δ far below 1e-300)
MAX_THRESHOLD = 1 << 40


def key_tail(scale: Fraction, threshold: int) -> float:
    """P[1 + Z ≥ threshold] for Z discrete Laplace of ``scale`` (a key held by one person
    clearing the threshold), rounded up."""
    j = threshold - 1
    if j <= 0:
        return 1.0 if j < 0 else 1 / (1 + math.exp(-1 / float(scale))) * 1.0
    q = math.exp(-1 / float(scale))
    # q^j / (1 + q) in logs; the relative slack covers the float error of exp and log
    return min(1.0, math.exp(j * math.log(q) - math.log1p(q)) * (1 + 1e-9))


def selection_delta(scale: Fraction, threshold: int, max_keys: int, sides: int = 1
                    ) -> float:
    """δ(τ): the chance that any of a person's ``max_keys`` keys nobody else holds is
    published, rounded up; ``sides`` = 2 under replace-one (the old keys' and the new ones')."""
    p = key_tail(scale, threshold)
    if p >= 1.0:
        return 1.0
    # 1 - (1 - p)^m, accurately for small p: -expm1(m * log1p(-p))
    return min(1.0, sides * -math.expm1(max_keys * math.log1p(-p)) * (1 + 1e-9))


def threshold_for(scale: Fraction, max_keys: int, delta: float, sides: int = 1) -> int:
    """The smallest integer threshold τ ≥ 2 whose δ(τ) (over ``sides``) is at most
    ``delta`` (> 0)."""
    if not delta > 0:
        raise ValueError("a thresholded selection needs a delta above 0")
    # δ(τ) falls as τ grows: the first j with m q^j / (1 + q) <= δ, then exact steps
    q = math.exp(-1 / float(scale))
    guess = 2 + max(0, int((math.log(delta) - math.log(sides * max_keys)) / math.log(q)) - 2) \
        if q > 0 else 2
    tau = max(2, guess)
    while tau > 2 and selection_delta(scale, tau - 1, max_keys, sides) <= delta:
        tau -= 1
    while selection_delta(scale, tau, max_keys, sides) > delta:
        tau += 1
        if tau > MAX_THRESHOLD:
            raise ValueError("no threshold reaches this delta")
    return tau


def keep_probability(scale: Fraction, threshold: int, people: int) -> float:
    """The chance that a key held by ``people`` people clears the threshold: P[n + Z ≥ τ]
    (public parameters only: what a threshold tends to keep, for the owner's preview)."""
    q = math.exp(-1 / float(scale))
    j = threshold - people
    if j >= 1:
        return math.exp(j * math.log(q) - math.log1p(q))
    return 1.0 - math.exp((1 - j) * math.log(q) - math.log1p(q))


def keep_preview(scale: Fraction, threshold: int, confidence: float = 0.95
                 ) -> list[tuple[int, float]]:
    """(people, chance of being found) at a few key sizes around the threshold: from the
    size found half the time to the one found with ``confidence``."""
    sizes: list[tuple[int, float]] = []
    n = max(1, threshold - 1)
    while keep_probability(scale, threshold, n) > 0.1 and n > 1:
        n -= 1
    while len(sizes) < 40:
        p = keep_probability(scale, threshold, n)
        sizes.append((n, p))
        if p >= confidence:
            break
        n += 1
    picks = sorted({sizes[0], sizes[len(sizes) // 2], sizes[-1]})
    return picks
