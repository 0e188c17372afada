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
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction

import numpy as np

from .sampler_params import MAX_QUANTILE_SCALE as MAX_QUANTILE_SCALE  # re-exported
from .sampler_params import RandomSource as RandomSource
from .sampler_params import quantile_proposal_scale as quantile_proposal_scale
from .sampler_params import truth_probability as truth_probability

U64 = np.uint64


class SystemRandomSource:
    """The operating system's CSPRNG, through ``secrets``. The only source a release uses."""

    def words(self, n: int) -> np.ndarray:
        return np.frombuffer(secrets.token_bytes(8 * n), dtype=U64)

    def randbelow(self, n: int) -> int:
        return secrets.randbelow(n)


# randbytes takes at most 2**31 - 1 bits at once: the seeded source reads in chunks of whole
# 32-bit words, so the stream is the same as one call's
_SEEDED_CHUNK_WORDS = 1 << 22


class SeededRandomSource:
    """Reproducible bits for tests only (Python's Mersenne Twister, never numpy)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def words(self, n: int) -> np.ndarray:
        if n <= _SEEDED_CHUNK_WORDS:
            return np.frombuffer(self._rng.randbytes(8 * n), dtype=U64)
        return np.concatenate([
            np.frombuffer(self._rng.randbytes(8 * min(_SEEDED_CHUNK_WORDS, n - i)), dtype=U64)
            for i in range(0, n, _SEEDED_CHUNK_WORDS)])

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
    if isinstance(bound, (int, np.integer)):
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


def uniform_permutation(source: RandomSource, n: int) -> np.ndarray:
    """An exactly uniform random permutation of range(n): the order of n random 64-bit keys,
    drawn again until all are distinct (then every order is equally likely, by symmetry)."""
    while True:
        keys = source.words(n)
        # distinct keys have one order, whichever sort finds it: the unstable (faster) sort
        # returns what a stable one would; with a tie the keys are drawn again anyway
        order = np.argsort(keys)
        ranked = keys[order]
        if n < 2 or not bool(np.any(ranked[1:] == ranked[:-1])):
            return order


def randomized_answer_file(source: RandomSource, answers: np.ndarray, truth: Fraction,
                           length: int) -> np.ndarray:
    """The published answer file of randomized response, ``length`` answers long.

    Each real answer is randomized on its own (``randomized_response``). When ``length`` is
    below the number of answers, the file holds a uniformly random subset of them; when it is
    above, the rest are fair coins (what a missing answer, a dropped row or an absent person
    looks like). The file is shuffled uniformly, so only how many answers and how many yes
    it holds carry information. ``length`` must itself be public or noised (release.py)."""
    n = int(answers.size)
    noised = randomized_response(source, answers, truth)
    if length <= n:  # the first ``length`` of a uniform order: a uniform subset, shuffled
        picked: np.ndarray = noised[uniform_permutation(source, n)[:max(0, length)]]
        return picked
    # every answer and the coins, shuffled: one permutation (issue 24: a second one, drawn to
    # pick "all n" first, cost a sort of n 64-bit keys, about 2 CPU s at 8M answers)
    coins = (source.words(length - n) & U64(1)).astype(bool)
    padded: np.ndarray = np.concatenate([noised, coins])[uniform_permutation(source, length)]
    return padded


# ----------------------------------------------------------------------------- quantiles


# The sampler's work is an array of this many runs (quantile_work below); a plan whose quantile
# could need more is refused before the ledger is charged.
MAX_QUANTILE_WORK = 1 << 22
# Every cumulative weight computed in float64 is within this fraction of the total (weights:
# relative error below 2^-42; blocked sums: below 2^-40). Checked in the tests.
_FLOAT_SLACK = 2.0**-37
_BLOCK = 1024


def quantile_work(grid_points: int, rows: int | None) -> int:
    """How many runs the quantile sampler handles, from the grid size and a bound on the row
    count only (never the data's values): one per grid point when the grid is no larger than
    the rows, else two per row and one more."""
    if rows is None or grid_points <= rows:
        return grid_points
    return 2 * rows + 1


def _merged_steps(steps: np.ndarray, counts: np.ndarray, lo: int, hi: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ascending steps in [lo, hi] with their row counts (> 0), from an engine's
    ascending steps and counts: arrays as long as the steps given, never the grid."""
    s = np.clip(np.asarray(steps, dtype=np.int64), lo, hi)  # clamped already; kept ascending
    c = np.asarray(counts, dtype=np.int64)
    if s.size == 0:
        return s, c
    first = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
    s, c = s[first], np.add.reduceat(c, first)
    return s[c > 0], c[c > 0]


def _quantile_runs(values: np.ndarray | None, lo: int, hi: int, quantile: float,
                   step_counts: tuple[np.ndarray, np.ndarray] | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Runs of grid points with the same rank key K = #{v < x} + #{v <= x}, as (keys, starts,
    sizes, 2m), in arrays whose shape and work depend on the grid size and the row count only.

    A grid no larger than the rows: every grid point is a run of its own (binary searches
    over the rows). Otherwise each sorted row i owns two runs, the gap of grid points just
    below it and its own point, both empty unless it is the first row with its value, plus the
    gap above the last row.

    ``step_counts`` (distinct ascending steps and their rows) may stand for the sorted values:
    the runs are the same; the rows per grid point are spelled out only when the grid is no
    larger than the rows, the values only when it is larger, so nothing is as long as a grid
    larger than the rows (a 2^40-point grid with 300 rows needs arrays of 601 runs)."""
    n = int(step_counts[1].sum()) if step_counts is not None else \
        int(values.size) if values is not None else 0
    m2 = 2 * int(round(quantile * n))
    points = hi - lo + 1
    # counting and running minima, not binary searches: numpy's searchsorted on sorted keys
    # starts from the previous answer, so its time would depend on the values
    if quantile_work(points, n) == points:
        if step_counts is None:
            assert values is not None
            counts = np.bincount(values - lo, minlength=points).astype(np.int64)
        else:  # the grid is no larger than the rows here
            counts = np.zeros(points, dtype=np.int64)
            counts[step_counts[0] - lo] = step_counts[1]
        at_or_below = np.cumsum(counts)
        keys = 2 * at_or_below - counts
        return keys, np.arange(lo, hi + 1, dtype=np.int64), np.ones(points, dtype=np.int64), m2
    if values is None:  # the sorted values, as many as the rows (fewer than the points)
        assert step_counts is not None
        values = np.repeat(*step_counts)
    index = np.arange(n, dtype=np.int64)
    first = np.ones(n, dtype=bool)
    np.not_equal(values[1:], values[:-1], out=first[1:])
    last = np.ones(n, dtype=bool)
    np.not_equal(values[:-1], values[1:], out=last[:-1])
    previous = np.concatenate([[lo - 1], values[:-1]])
    # rows at or below row i's value: one past the last row with the same value
    at_or_below = np.minimum.accumulate(np.where(last, index + 1, n)[::-1])[::-1]
    keys = np.empty(2 * n + 1, dtype=np.int64)
    starts = np.empty(2 * n + 1, dtype=np.int64)
    sizes = np.empty(2 * n + 1, dtype=np.int64)
    keys[0:2 * n:2] = 2 * index  # rows strictly below a first row: its index
    starts[0:2 * n:2] = previous + 1
    sizes[0:2 * n:2] = np.where(first, values - previous - 1, 0)
    keys[1:2 * n:2] = index + at_or_below
    starts[1:2 * n:2] = values
    sizes[1:2 * n:2] = first
    keys[2 * n] = 2 * n
    starts[2 * n] = values[-1] + 1 if n else lo
    sizes[2 * n] = hi - values[-1] if n else points
    return keys, starts, sizes, m2


def exponential_quantile(
    source: RandomSource,
    sorted_steps: np.ndarray | None,
    lo: int,
    hi: int,
    quantile: float,
    epsilon: float,
    sensitivity: int,
    step_counts: tuple[np.ndarray, np.ndarray] | None = None,
) -> int:
    """Exponential mechanism over the grid points [lo, hi] for the ``quantile`` of the data.

    Utility of a grid point x: -|(#{v < x} + #{v <= x})/2 - m| with m = round(q*n); it moves
    by at most 1 per row. The output has probability proportional to exp(-eps*|u|/(2*Delta)).

    Exact inversion with a work that depends on the grid size and the row count only: the grid
    points group into runs with the same key K, laid out in arrays whose shape depends on the
    grid size and the row count only (``_quantile_runs``). A uniform U is compared with the
    cumulative weights size_r * exp(-a |K_r - 2m|), a = eps / (4 Delta), computed in float64
    with a proven error
    bound; only when U falls within that bound of a boundary (probability below 2^-36 per run)
    is the comparison redone in exact-enough decimal arithmetic with more bits of the same U.
    The output is therefore exactly the mechanism's law, and the running time no longer depends
    on where the data's values lie (the rejection sampler it replaces could run for minutes on
    concentrated data on a fine grid). Returns a grid point in steps.

    An engine that counts rows per grid step instead of sorting them passes ``step_counts``
    (distinct steps and their row counts) and ``sorted_steps=None``: the same law exactly.
    """
    if step_counts is not None:
        keys, starts, sizes, m2 = _quantile_runs(None, lo, hi, quantile,
                                                 _merged_steps(*step_counts, lo, hi))
    else:
        values = np.clip(np.asarray(sorted_steps, dtype=np.int64), lo, hi)  # clamped already
        keys, starts, sizes, m2 = _quantile_runs(values, lo, hi, quantile)
    width = keys.size
    a = float(epsilon) / (4 * sensitivity)
    dist = np.abs(keys - m2)
    # subtract the nearest live run's distance in integers, so that a * dist stays below
    # about 800 wherever a weight is not negligible (its float error stays below 2^-42)
    d_min = int(np.where(sizes > 0, dist, np.iinfo(np.int64).max).min())
    with np.errstate(divide="ignore"):
        log_w = np.log(sizes.astype(np.float64)) - a * (dist - d_min).astype(np.float64)
    log_w -= log_w.max()  # the largest weight is 1, so the total is at least 1
    # weights below e^-700 are raised to it (never a subnormal, whose arithmetic is slow and
    # would time the data): 2^22 runs add at most 2^22 * e^-700 < 2^-900 of the total to the
    # float error bound; empty runs stay exactly 0
    weights = np.where(sizes > 0, np.exp(np.maximum(log_w, -700.0)), 0.0)
    cdf = _blocked_cumsum(weights)
    total = float(cdf[-1])
    u = int(source.words(1)[0])
    u_float = u / 2.0**64
    r = int(np.searchsorted(cdf, u_float * total, side="right"))
    r = min(r, width - 1)
    lower = float(cdf[r - 1]) / total if r > 0 else 0.0
    upper = float(cdf[r]) / total
    if lower + _FLOAT_SLACK < u_float and u_float + 2.0**-52 < upper - _FLOAT_SLACK \
            and sizes[r] > 0:
        run = r
    else:  # within the float error of a boundary: decide exactly with the same U
        run = _quantile_run_exact(source, u, keys, sizes, m2, epsilon, sensitivity)
    return int(starts[run]) + source.randbelow(int(sizes[run]))


def _blocked_cumsum(weights: np.ndarray) -> np.ndarray:
    """Cumulative sums with error below 2^-40 of the total: running sums inside blocks of
    1,024, plus running sums of the (pairwise) block totals."""
    n = weights.size
    pad = (-n) % _BLOCK
    blocks = np.concatenate([weights, np.zeros(pad)]).reshape(-1, _BLOCK)
    inside = np.cumsum(blocks, axis=1)
    offsets = np.concatenate([[0.0], np.cumsum(blocks.sum(axis=1))[:-1]])
    sums: np.ndarray = (inside + offsets[:, None]).reshape(-1)[:n]
    return sums


def _quantile_run_exact(source: RandomSource, u: int, keys: np.ndarray, sizes: np.ndarray,
                        m2: int, epsilon: float, sensitivity: int) -> int:
    """The run holding U, decided with rigorous decimal bounds on every cumulative weight and
    as many further random bits of U as it takes (rarely reached; slow but exact)."""
    live = np.flatnonzero(sizes > 0)
    dist = [int(x) for x in np.abs(keys[live] - m2)]
    size = [int(x) for x in sizes[live]]
    u_bits, bits = u, 64
    digits = 40
    a = Fraction(epsilon) / (4 * sensitivity)
    while True:
        ctx = Context(prec=digits, Emin=-999_999_999, Emax=999_999_999)
        lo_ctx = Context(prec=digits, rounding=ROUND_FLOOR, Emin=-999_999_999,
                         Emax=999_999_999)
        hi_ctx = Context(prec=digits, rounding=ROUND_CEILING, Emin=-999_999_999,
                         Emax=999_999_999)
        d_min = min(dist)
        # each weight size * exp(-a (dist - d_min)) to a relative error below `rel`
        rel = Decimal(10) ** (3 - digits) * (1 + int(a * (max(dist) - d_min)) + 1)
        a_dec = ctx.divide(Decimal(a.numerator), Decimal(a.denominator))
        w_lo, w_hi = [], []
        for dd, ss in zip(dist, size, strict=True):
            w = ctx.multiply(Decimal(ss), ctx.exp(ctx.minus(ctx.multiply(a_dec, dd - d_min))))
            w_lo.append(lo_ctx.multiply(w, 1 - rel))
            # below the decimal range: the weight is under 10^-999,999,990, say so (a * dist
            # stays below 1.1e9 within MAX_QUANTILE_WORK, so exp never gets near that range)
            w_hi.append(hi_ctx.multiply(w, 1 + rel) if w else Decimal("1e-999999990"))
        c_lo, c_hi = [], []
        s_lo, s_hi = Decimal(0), Decimal(0)
        for wl, wh in zip(w_lo, w_hi, strict=True):
            s_lo, s_hi = lo_ctx.add(s_lo, wl), hi_ctx.add(s_hi, wh)
            c_lo.append(s_lo)
            c_hi.append(s_hi)
        u_lo = Fraction(u_bits, 1 << bits)  # U lies in [u_lo, u_hi), compared exactly
        u_hi = Fraction(u_bits + 1, 1 << bits)
        # U in run j for sure when C_hi[j-1]/Z_lo <= U_lo and U_hi <= C_lo[j]/Z_hi
        z_lo, z_hi = s_lo, s_hi
        for j in range(len(live)):
            below = Fraction(hi_ctx.divide(c_hi[j - 1], z_lo)) if j > 0 else Fraction(0)
            above = Fraction(lo_ctx.divide(c_lo[j], z_hi))
            if below <= u_lo and u_hi <= above:
                return int(live[j])
        u_bits = (u_bits << 64) | int(source.words(1)[0])
        bits += 64
        digits += 30


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
