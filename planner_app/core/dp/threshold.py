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
from collections.abc import Callable
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
    p = key_tail(scale, threshold)
    if p >= 1.0:
        return 1.0
    # 1 - (1 - p)^m, accurately for small p: -expm1(m * log1p(-p))
    return min(1.0, sides * -math.expm1(max_keys * math.log1p(-p)) * (1 + 1e-9))


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
    if not delta > 0:
        raise ValueError("a thresholded selection needs a delta above 0")

    def reaches(tau: int) -> bool:
        return selection_delta(scale, tau, max_keys, sides) <= delta

    high = 2
    while not reaches(high):
        high *= 2
        if high > MAX_THRESHOLD:
            raise ValueError("no threshold reaches this delta")
    return _first(max(2, high // 2), high, reaches)


def keep_probability(scale: Fraction, threshold: int, people: int) -> float:
    """The chance that a key held by ``people`` people clears the threshold: P[n + Z ≥ τ]
    (public parameters only: what a threshold tends to keep, for the owner's preview)."""
    log_q = _log_q(scale)
    log1p_q = math.log1p(math.exp(log_q))
    j = threshold - people
    if j >= 1:
        return math.exp(j * log_q - log1p_q)
    return 1.0 - math.exp((1 - j) * log_q - log1p_q)


def found_at(scale: Fraction, threshold: int, confidence: float, start: int | None = None
             ) -> int:
    """The fewest people (from ``start``, default τ - 1) a key needs to be found with
    ``confidence``: the preview's last size and the size check's sentence states, one
    computation for both."""
    start = max(1, threshold - 1) if start is None else start
    high = start
    while keep_probability(scale, threshold, high) < confidence:
        high = start + 2 * (high - start) + 1
    return _first(start, high, lambda n: keep_probability(scale, threshold, n) >= confidence)


def keep_preview(scale: Fraction, threshold: int, confidence: float = 0.95
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
