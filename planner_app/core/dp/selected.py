"""Intervals for the noised counts a discovery of keys publishes (``publish_counts``): honest
although each count is published only because it reached the threshold.

A key's noised count X = n + Z is published only when X ≥ τ. Among the published keys, X is
biased upward: a key held by fewer than τ people is published only when its noise was large,
so near the threshold a published count is more likely above its true count than below it,
and the usual interval X ± h (the noise's half-width) holds the true count less often than
its confidence says. The interval here is built on the distribution of X *given that it was
published*: for a published x, it is every n for which x is not in either (1 - c)/2 tail of
X | X ≥ τ, that is

* low: the smallest n with P[X ≥ x | X ≥ τ, n] ≥ (1 - c)/2,
* high: the largest n with P[X ≤ x | X ≥ τ, n] ≥ (1 - c)/2.

Both noises are log-concave, so the family n + Z, and its truncation at τ, has a monotone
likelihood ratio in n: the first probability rises with n, the second falls, and the set is
an interval (found by bisection). For every true n, the chance that the published interval
misses n, given that the key was published, is then at most 1 - c: the Neyman construction on
the conditional distribution (selective inference, e.g. Lee, Sun, Sun, Taylor 2016). Far
above τ the condition is almost sure and the interval is close to x ± h; near τ it reaches
down (for the discrete Laplace, whose tail is memoryless, often to 0: a count that just
cleared the threshold says little about how many people below it hold the key).

From public parameters and the published count only (post-processing). The discrete
Laplace's tail is exact; the discrete Gaussian's is the normal's with a continuity
correction (an approximation, closest from σ of a few people up).
"""

from __future__ import annotations

import math

from .threshold import GaussianNoise, Noise


def log_tail(noise: Noise, j: int) -> float:
    """log P[Z ≥ j] for the discrete Laplace of scale ``noise`` (or the discrete Gaussian)."""
    if isinstance(noise, GaussianNoise):
        # scipy only here: the kinds are loaded at every start (the app's window, --help)
        from scipy.special import log_ndtr  # type: ignore[import-untyped]

        sigma = math.sqrt(float(noise.sigma_sq))
        return float(log_ndtr(-(j - 0.5) / sigma))
    log_q = -1 / float(noise)
    log_norm = math.log1p(math.exp(log_q))
    if j >= 1:  # q^j / (1 + q)
        return j * log_q - log_norm
    # 1 - P[Z ≥ 1 - j] by symmetry
    return math.log1p(-math.exp((1 - j) * log_q - log_norm))


def _at_least(noise: Noise, threshold: int, x: int, n: int) -> float:
    """P[X ≥ x | X ≥ τ] for X = n + Z."""
    return math.exp(min(0.0, log_tail(noise, x - n) - log_tail(noise, threshold - n)))


def _at_most(noise: Noise, threshold: int, x: int, n: int) -> float:
    """P[X ≤ x | X ≥ τ] for X = n + Z."""
    return 1.0 - _at_least(noise, threshold, x + 1, n)


def selected_interval(noise: Noise, threshold: int, published: int, confidence: float
                      ) -> tuple[int, int]:
    """(low, high): the interval of a count published because it reached ``threshold``,
    holding the true count with ``confidence`` among the published keys (module doc)."""
    tail = (1 - confidence) / 2
    x = published
    # low: g(n) = P[X ≥ x | X ≥ τ] rises with n, and g(x) ≥ P[Z ≥ 0] ≥ 1/2
    lo, hi = 0, max(0, x)
    while lo < hi:
        mid = (lo + hi) // 2
        if _at_least(noise, threshold, x, mid) >= tail:
            hi = mid
        else:
            lo = mid + 1
    low = lo
    # high: h(n) = P[X ≤ x | X ≥ τ] falls with n, and h(x) ≥ 1/2 or so: double, then bisect
    step = 1
    while _at_most(noise, threshold, x, x + step) >= tail:
        step *= 2
    lo, hi = x + step // 2, x + step  # h(lo) ≥ tail > h(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _at_most(noise, threshold, x, mid) >= tail:
            lo = mid
        else:
            hi = mid
    return low, lo
