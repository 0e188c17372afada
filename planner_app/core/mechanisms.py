"""Exact samplers: discrete Laplace, discrete Gaussian, randomized response, quantiles.

All randomness comes from a ``RandomSource``: uniformly random 64-bit words and uniform
integers below a bound. The release path uses ``SystemRandomSource`` (the OS CSPRNG through
``secrets``); tests may inject ``SeededRandomSource``. There is no floating-point arithmetic
in any sampler: every probability is a ratio of integers, following Canonne, Kamath and
Steinke (2020), "The Discrete Gaussian for Differential Privacy", Algorithms 1-3.

The discrete Laplace sampler is vectorised: each step of Algorithm 2 runs on numpy integer
arrays of all pending samples at once, with exact rejection sampling of uniform integers from
random words, so it draws millions of exact samples per second.
"""

from __future__ import annotations

import math
import random
import secrets
from fractions import Fraction
from typing import Protocol

import numpy as np

U64 = np.uint64


class RandomSource(Protocol):
    """Uniform random bits. Implementations must be uniform and independent."""

    def words(self, n: int) -> np.ndarray:
        """``n`` independent uniform 64-bit words (dtype uint64)."""

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n) for any positive Python int ``n``."""


class SystemRandomSource:
    """The operating system's CSPRNG, through ``secrets``. The only source a release uses."""

    def words(self, n: int) -> np.ndarray:
        return np.frombuffer(secrets.token_bytes(8 * n), dtype=U64)

    def randbelow(self, n: int) -> int:
        return secrets.randbelow(n)


class SeededRandomSource:
    """Reproducible bits for tests only (Python's Mersenne Twister, never numpy)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def words(self, n: int) -> np.ndarray:
        return np.frombuffer(self._rng.randbytes(8 * n), dtype=U64)

    def randbelow(self, n: int) -> int:
        return self._rng.randrange(n)


# ----------------------------------------------------------------------------- vector helpers


def _smear(x: np.ndarray) -> np.ndarray:
    """Smallest all-ones mask covering each value (bit smearing)."""
    x = x.copy()
    for shift in (1, 2, 4, 8, 16, 32):
        x |= x >> U64(shift)
    return x


def uniform_below(source: RandomSource, bound: int | np.ndarray, size: int) -> np.ndarray:
    """Exact uniform integers in [0, bound) (bound >= 1, below 2^63), by masked rejection.

    ``bound`` may be one integer or one per element. A single bound below 2^32 draws 32-bit
    halves of the source's words, which halves the random bytes needed.
    """
    if np.isscalar(bound):
        b = int(bound)
        if b < 1:
            raise ValueError("bound must be at least 1")
        small = b <= 1 << 32
        dtype = np.uint32 if small else U64
        mask = dtype((1 << (b - 1).bit_length()) - 1)
        limit = dtype(b - 1)
        out = np.empty(size, dtype=dtype)
        todo = np.arange(size)
        while todo.size:
            n = todo.size
            w = source.words((n + 1) // 2).view(np.uint32)[:n] if small else source.words(n)
            w = w & mask
            ok = w <= limit
            out[todo[ok]] = w[ok]
            todo = todo[~ok]
        return out.astype(U64, copy=False)
    bounds = np.asarray(bound, dtype=U64)
    masks = _smear(bounds - U64(1))
    out = np.empty(size, dtype=U64)
    todo = np.arange(size)
    while todo.size:
        w = source.words(todo.size) & masks[todo]
        ok = w < bounds[todo]
        out[todo[ok]] = w[ok]
        todo = todo[~ok]
    return out


def bernoulli_exp_vec(source: RandomSource, num: np.ndarray, den: int) -> np.ndarray:
    """Exact Bernoulli(exp(-num/den)) for each element, with 0 <= num <= den (CKS Alg. 1).

    K counts up while Bernoulli(num/(den*K)) succeeds; the answer is "K is odd". All pending
    elements share K in a round, so each round draws against one bound den*K.
    """
    n = num.size
    result = np.zeros(n, dtype=bool)
    idx = np.arange(n)
    k = 1
    num = num.astype(U64, copy=False)
    while idx.size:
        u = uniform_below(source, den * k, idx.size)
        go_on = u < num[idx]
        result[idx[~go_on]] = k % 2 == 1
        idx = idx[go_on]
        k += 1
    return result


def _geometric_exp_minus_one(source: RandomSource, size: int) -> np.ndarray:
    """Count of successes of Bernoulli(exp(-1)) before the first failure."""
    v = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    ones = np.ones(size, dtype=U64)
    while active.size:
        a = bernoulli_exp_vec(source, ones[: active.size], 1)
        active = active[a]
        v[active] += 1
    return v


def discrete_laplace(source: RandomSource, scale: Fraction, size: int) -> np.ndarray:
    """``size`` exact samples with P(x) proportional to exp(-|x| / scale) (CKS Algorithm 2)."""
    if scale <= 0:
        raise ValueError("scale must be positive")
    t, s = scale.numerator, scale.denominator
    if t >= 1 << 52 or s >= 1 << 52:
        raise ValueError("scale has too many bits for the vectorised sampler")
    out: list[np.ndarray] = []
    need = size
    while need > 0:
        batch = int(need * 1.8) + 32
        u = uniform_below(source, t, batch)
        accept = bernoulli_exp_vec(source, u, t)
        u = u[accept].astype(np.int64)
        v = _geometric_exp_minus_one(source, u.size)
        y = (u + np.int64(t) * v) // np.int64(s)
        b = (source.words(y.size) & U64(1)).astype(bool)
        keep = ~(b & (y == 0))
        z = np.where(b, -y, y)[keep]
        out.append(z[:need])
        need -= min(need, z.size)
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


# ----------------------------------------------------------------------------- scalar (big int)


def bernoulli_exp(source: RandomSource, num: int, den: int) -> bool:
    """Exact Bernoulli(exp(-num/den)) for any num >= 0, den >= 1 (CKS Algorithm 1)."""
    while num > den:
        if not bernoulli_exp(source, 1, 1):
            return False
        num -= den
    k = 1
    while source.randbelow(den * k) < num:
        k += 1
    return k % 2 == 1


def discrete_laplace_scalar(source: RandomSource, scale: Fraction) -> int:
    t, s = scale.numerator, scale.denominator
    while True:
        u = source.randbelow(t)
        if not bernoulli_exp(source, u, t):
            continue
        v = 0
        while bernoulli_exp(source, 1, 1):
            v += 1
        y = (u + t * v) // s
        b = source.randbelow(2)
        if b == 1 and y == 0:
            continue
        return -y if b else y


def discrete_gaussian(source: RandomSource, sigma_sq: Fraction, size: int) -> np.ndarray:
    """Exact samples with P(x) proportional to exp(-x^2 / (2 sigma^2)) (CKS Algorithm 3).

    Candidates come from the vectorised discrete Laplace; the acceptance test uses Python
    integers, since its numerator grows with the square of the sample.
    """
    p, q = sigma_sq.numerator, sigma_sq.denominator
    t = math.isqrt(p // q) + 1
    out = np.empty(size, dtype=object)
    filled = 0
    while filled < size:
        candidates = discrete_laplace(source, Fraction(t), max(16, int((size - filled) * 1.6)))
        for y in candidates.tolist():
            a = abs(y) * q * t - p
            if bernoulli_exp(source, a * a, 2 * p * q * t * t):
                out[filled] = y
                filled += 1
                if filled == size:
                    break
    try:
        return out.astype(np.int64)
    except OverflowError:  # pragma: no cover - astronomically large noise
        return out


# ----------------------------------------------------------------------------- randomized response


def randomized_response(source: RandomSource, answers: np.ndarray, truth: Fraction) -> np.ndarray:
    """Each answer is kept with probability ``truth``, else replaced by a fair coin."""
    n = answers.size
    a, b = truth.numerator, truth.denominator
    keep = uniform_below(source, b, n) < U64(a)
    coin = (source.words(n) & U64(1)).astype(bool)
    return np.where(keep, answers.astype(bool), coin)


def truth_probability(epsilon: float) -> Fraction:
    """Largest t on a 2^-32 grid with ln((1+t)/(1-t)) <= epsilon (t = tanh(epsilon/2))."""
    scale = 1 << 32
    t = Fraction(math.floor(math.tanh(epsilon / 2) * scale) - 1, scale)
    t = max(t, Fraction(0))
    while t > 0 and math.log((1 + t) / (1 - t)) > epsilon:
        t -= Fraction(1, scale)
    return t


# ----------------------------------------------------------------------------- quantiles


def exponential_quantile(
    source: RandomSource,
    sorted_steps: np.ndarray,
    lo: int,
    hi: int,
    quantile: float,
    epsilon: float,
    sensitivity: int,
) -> int:
    """Exponential mechanism over the grid points [lo, hi] for the ``quantile`` of the data.

    Utility of a grid point x: -|(#{v < x} + #{v <= x})/2 - m| with m = round(q*n); it moves
    by at most 1 per row. The output has probability proportional to exp(-eps*|u|/(2*Delta)).
    Exact sampling: grid points group into runs with the same key K = #{v<x} + #{v<=x};
    propose K from a discrete Laplace around 2m (exact, rational scale), accept with
    (points in run)/(largest run). Returns a grid point in steps.
    """
    values = np.asarray(sorted_steps, dtype=np.int64)
    n = int(values.size)
    m = int(round(quantile * n))
    distinct, counts = np.unique(values, return_counts=True) if n else (np.zeros(0, np.int64),
                                                                       np.zeros(0, np.int64))
    cum = np.cumsum(counts)
    below = cum - counts
    # runs in increasing x: [lo, d0-1], {d0}, [d0+1, d1-1], {d1}, ..., [d_last+1, hi]
    keys: list[int] = []
    starts: list[int] = []
    sizes: list[int] = []
    prev_end = lo - 1
    prev_cum = 0
    for d, c_below, c_cum in zip(distinct.tolist(), below.tolist(), cum.tolist()):
        gap = d - prev_end - 1
        if gap > 0:
            keys.append(2 * prev_cum)
            starts.append(prev_end + 1)
            sizes.append(gap)
        keys.append(c_below + c_cum)
        starts.append(d)
        sizes.append(1)
        prev_end = d
        prev_cum = c_cum
    if hi - prev_end > 0:
        keys.append(2 * prev_cum)
        starts.append(prev_end + 1)
        sizes.append(hi - prev_end)
    key_arr = np.asarray(keys, dtype=np.int64)
    size_arr = np.asarray(sizes, dtype=np.int64)
    largest = int(size_arr.max())
    # the target weight of run r: size_r * exp(-a * |K_r - 2m|), a = eps / (4 * Delta)
    dist = np.abs(key_arr - 2 * m)
    right = int(np.searchsorted(key_arr, 2 * m))  # first run with K >= 2m
    left = right - 1
    d_min = int(dist.min())
    # Proposal: a side by a fair coin, then an offset j >= 0 outward from that side's first
    # run with P(j) proportional to exp(-a j). Keys grow by at least 1 per run, so
    # dist_r >= dist_side + j >= d_min + j, and accepting with (size_r / largest) *
    # exp(-a (dist_r - d_min - j)) gives exactly the target.
    scale = quantile_proposal_scale(epsilon, sensitivity)
    a = Fraction(1) / scale
    batch = 256
    while True:
        z = discrete_laplace(source, scale, batch)
        z = z[z >= 0]  # one-sided: P(j) proportional to exp(-a j)
        go_right = (source.words(z.size) & U64(1)).astype(bool)
        runs = np.where(go_right, right + z, left - z)
        ok = (runs >= 0) & (runs < key_arr.size)
        runs, j = runs[ok], z[ok]
        if runs.size:
            excess = dist[runs] - d_min - j
            keep = uniform_below(source, largest, runs.size).astype(np.int64) < size_arr[runs]
            keep &= _bernoulli_exp_many(source, excess, a)
            chosen = np.flatnonzero(keep)
            if chosen.size:
                run = int(runs[chosen[0]])
                return starts[run] + source.randbelow(sizes[run])
        batch = min(batch * 2, 1 << 18)


MAX_QUANTILE_SCALE = 1 << 20  # larger: the proposal leaves the runs almost always (a hang)


def quantile_proposal_scale(epsilon: float, sensitivity: int) -> Fraction:
    """The discrete Laplace scale 4*Delta/eps of the quantile sampler's proposal (rounded up
    to a 2^-20 grid when its bits are many); ValueError when the sampler cannot draw it in
    reasonable time: a proposal lands on one of the (at most 2n+1) runs with a chance of about
    runs/scale, so a scale above MAX_QUANTILE_SCALE could loop for hours."""
    a = Fraction(repr(float(epsilon))) / (4 * sensitivity)
    if a <= 0 or 1 / a > MAX_QUANTILE_SCALE:
        raise ValueError("epsilon is too small for the quantile sampler")
    scale = Fraction(1) / a
    if scale.denominator >= 1 << 32 or scale.numerator >= 1 << 40:
        scale = Fraction(math.ceil(scale * (1 << 20)), 1 << 20)
    if scale.numerator >= 1 << 52 or scale.denominator >= 1 << 52:
        raise ValueError("epsilon is too small for the quantile sampler")
    return scale


def _bernoulli_exp_many(source: RandomSource, x: np.ndarray, a: Fraction) -> np.ndarray:
    """Exact Bernoulli(exp(-a * x)) for non-negative integers x and rational a > 0: one
    Bernoulli(exp(-1)) per whole unit of a*x, then one for the fraction (CKS Algorithm 1)."""
    p, q = a.numerator, a.denominator
    num = x.astype(object) * p  # a*x = num / q, exactly
    whole = np.array([int(n // q) for n in num], dtype=np.int64)
    frac = np.array([int(n % q) for n in num], dtype=U64)
    result = np.ones(x.size, dtype=bool)
    alive = np.flatnonzero(whole > 0)
    remaining = whole.copy()
    while alive.size:  # each round keeps an element with probability exp(-1)
        passed = bernoulli_exp_vec(source, np.ones(alive.size, dtype=U64), 1)
        result[alive[~passed]] = False
        alive = alive[passed]
        remaining[alive] -= 1
        alive = alive[remaining[alive] > 0]
    idx = np.flatnonzero(result)
    if idx.size:
        result[idx] = bernoulli_exp_vec(source, frac[idx], q)
    return result
