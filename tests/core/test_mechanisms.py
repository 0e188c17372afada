"""Samplers: each law is checked at its scale with a chi-square test, and the same test
rejects a sampler whose scale is 30% off. Seeded bits make the tests repeatable; the release
path's default source is the OS CSPRNG."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from planner_app.core.dp import mechanisms as mech
from planner_app.core.dp.mechanisms import (
    SeededRandomSource,
    SystemRandomSource,
    bernoulli_exp,
    discrete_gaussian,
    discrete_laplace,
    discrete_laplace_scalar,
    exponential_quantile,
    randomized_response,
    truth_probability,
    uniform_below,
)

N = 200_000


def laplace_pmf(scale: float, xs: np.ndarray) -> np.ndarray:
    q = math.exp(-1 / scale)
    return (1 - q) / (1 + q) * np.exp(-np.abs(xs) / scale)


def gaussian_pmf(sigma: float, xs: np.ndarray) -> np.ndarray:
    support = np.arange(-int(40 * sigma) - 40, int(40 * sigma) + 41)
    total = np.exp(-(support**2) / (2 * sigma**2)).sum()
    return np.exp(-(xs.astype(float) ** 2) / (2 * sigma**2)) / total


def chi_square_p(samples: np.ndarray, pmf) -> float:  # type: ignore[no-untyped-def]
    """p-value of a chi-square goodness-of-fit test, pooling cells with fewer than 5
    expected counts into the two tails."""
    n = samples.size
    lo, hi = int(samples.min()), int(samples.max())
    xs = np.arange(lo, hi + 1)
    expected = pmf(xs) * n
    keep = expected >= 5
    xs_kept = xs[keep]
    observed = np.array([(samples == x).sum() for x in xs_kept], dtype=float)
    exp_kept = expected[keep]
    tail_obs = n - observed.sum()
    tail_exp = n - exp_kept.sum()
    obs = np.append(observed, tail_obs)
    exp = np.append(exp_kept, tail_exp)
    if tail_exp < 5:
        obs, exp = observed, exp_kept * observed.sum() / exp_kept.sum()
    return float(stats.chisquare(obs, exp).pvalue)


@pytest.mark.parametrize("scale", [Fraction(1, 2), Fraction(3), Fraction(10), Fraction(77, 7)])
def test_discrete_laplace_has_the_right_law(scale: Fraction) -> None:
    samples = discrete_laplace(SeededRandomSource(1), scale, N)
    assert samples.dtype == np.int64 and samples.size == N
    assert chi_square_p(samples, lambda xs: laplace_pmf(float(scale), xs)) > 1e-4
    # the same test rejects the law at a scale 30% off
    assert chi_square_p(samples, lambda xs: laplace_pmf(float(scale) * 1.3, xs)) < 1e-6
    assert chi_square_p(samples, lambda xs: laplace_pmf(float(scale) / 1.3, xs)) < 1e-6


def test_a_mis_scaled_sampler_is_caught() -> None:
    """The test above is not vacuous: a sampler at 70% of the scale fails it."""
    samples = discrete_laplace(SeededRandomSource(2), Fraction(7), N)
    assert chi_square_p(samples, lambda xs: laplace_pmf(10.0, xs)) < 1e-6


def two_sample_p(a: np.ndarray, b: np.ndarray) -> float:
    """p-value of a chi-square test that two integer samples come from one law (cells with
    fewer than 10 draws in both samples together pooled into the two tails)."""
    lo, hi = int(min(a.min(), b.min())), int(max(a.max(), b.max()))
    counts = np.array([np.bincount(x - lo, minlength=hi - lo + 1) for x in (a, b)])
    keep = np.flatnonzero(counts.sum(axis=0) >= 10)
    first, last = int(keep[0]), int(keep[-1])
    inner = counts[:, first:last + 1]
    table = np.column_stack([counts[:, :first].sum(axis=1), inner,
                             counts[:, last + 1:].sum(axis=1)])
    table = table[:, table.sum(axis=0) > 0]
    return float(stats.chi2_contingency(table).pvalue)


def test_scalar_and_vector_laplace_agree() -> None:
    """The scalar sampler (one Python integer at a time) and the vectorised one draw the same
    law: each fits the discrete Laplace pmf, and the two samples fit each other."""
    scale = Fraction(5, 2)
    src = SeededRandomSource(3)
    scalar = np.array([discrete_laplace_scalar(src, scale) for _ in range(40_000)])
    vector = discrete_laplace(SeededRandomSource(13), scale, 40_000)
    assert chi_square_p(scalar, lambda xs: laplace_pmf(2.5, xs)) > 1e-4
    assert chi_square_p(vector, lambda xs: laplace_pmf(2.5, xs)) > 1e-4
    assert two_sample_p(scalar, vector) > 1e-4
    # the comparison has power: the vector path at a scale 30% off is told apart
    off = discrete_laplace(SeededRandomSource(14), scale * Fraction(13, 10), 40_000)
    assert two_sample_p(scalar, off) < 1e-6


@pytest.mark.parametrize("sigma_sq", [Fraction(1, 4), Fraction(4), Fraction(2500, 9)])
def test_discrete_gaussian_has_the_right_law(sigma_sq: Fraction) -> None:
    sigma = math.sqrt(sigma_sq)
    samples = discrete_gaussian(SeededRandomSource(4), sigma_sq, 60_000)
    assert chi_square_p(samples, lambda xs: gaussian_pmf(sigma, xs)) > 1e-4
    assert chi_square_p(samples, lambda xs: gaussian_pmf(sigma * 1.3, xs)) < 1e-6
    assert chi_square_p(samples, lambda xs: gaussian_pmf(sigma / 1.3, xs)) < 1e-6


@pytest.mark.parametrize("bound", [1, 3, 7, 10, 2**32 + 5, 2**40 + 3])
def test_uniform_below_is_uniform(bound: int) -> None:
    values = uniform_below(SeededRandomSource(5), bound, 60_000)
    assert values.max() < bound
    if bound == 1:
        assert not values.any()
    elif bound <= 10:
        counts = np.bincount(values.astype(np.int64), minlength=bound)
        assert stats.chisquare(counts).pvalue > 1e-4
    else:  # top and bottom halves are equally likely
        top = (values >= bound // 2).mean()
        assert abs(top - 0.5) < 0.01


@pytest.mark.parametrize("num,den", [(0, 1), (1, 3), (1, 1), (5, 2), (7, 3)])
def test_bernoulli_exp(num: int, den: int) -> None:
    src = SeededRandomSource(6)
    hits = sum(bernoulli_exp(src, num, den) for _ in range(40_000))
    p = math.exp(-num / den)
    assert abs(hits / 40_000 - p) < 5 * math.sqrt(p * (1 - p) / 40_000) + 1e-9


def test_randomized_response_probabilities() -> None:
    t = Fraction(1, 2)
    src = SeededRandomSource(7)
    yes = randomized_response(src, np.ones(100_000, dtype=bool), t).mean()
    no = randomized_response(src, np.zeros(100_000, dtype=bool), t).mean()
    assert abs(yes - 0.75) < 0.01 and abs(no - 0.25) < 0.01


def test_truth_probability_never_exceeds_epsilon() -> None:
    for eps in (0.01, 0.5, math.log(3), 2.0, 8.0):
        t = truth_probability(eps)
        assert math.log((1 + t) / (1 - t)) <= eps
        assert eps - math.log((1 + t) / (1 - t)) < 1e-6
    assert abs(float(truth_probability(math.log(3))) - 0.5) < 1e-8


def exact_em_probabilities(values: list[int], lo: int, hi: int, q: float, eps: float) -> dict:
    """The exponential mechanism's law by direct computation over every grid point."""
    n = len(values)
    m = round(q * n)
    weights = {}
    for x in range(lo, hi + 1):
        lt = sum(v < x for v in values)
        le = sum(v <= x for v in values)
        utility = -abs((lt + le) / 2 - m)
        weights[x] = math.exp(eps * utility / 2)
    total = sum(weights.values())
    return {x: w / total for x, w in weights.items()}


def test_exponential_quantile_matches_the_exact_law() -> None:
    values = [2, 3, 3, 7, 9, 9, 9, 12]
    probs = exact_em_probabilities(values, 0, 15, 0.5, 1.0)
    src = SeededRandomSource(8)
    draws = np.array([exponential_quantile(src, np.array(sorted(values)), 0, 15, 0.5, 1.0, 1)
                      for _ in range(6_000)])
    xs = np.arange(0, 16)
    observed = np.array([(draws == x).sum() for x in xs])
    expected = np.array([probs[x] for x in xs]) * draws.size
    assert stats.chisquare(observed, expected).pvalue > 1e-4
    # and a mechanism at a different ε is told apart
    wrong = exact_em_probabilities(values, 0, 15, 0.5, 1.3)
    expected_wrong = np.array([wrong[x] for x in xs]) * draws.size
    assert stats.chisquare(observed, expected_wrong).pvalue < 1e-6


def test_exponential_quantile_finds_the_median_of_many_values() -> None:
    values = np.sort(SeededRandomSource(9).words(5000).astype(np.float64) % 100_000).astype(
        np.int64)
    out = [exponential_quantile(SeededRandomSource(s), values, 0, 100_000, 0.5, 1.0, 1)
           for s in range(20)]
    rank = np.searchsorted(values, out) / values.size
    assert np.all(np.abs(rank - 0.5) < 0.02)


def test_release_default_source_is_the_os_csprng(monkeypatch: pytest.MonkeyPatch) -> None:
    """Noise without an injected source draws from secrets (the OS CSPRNG)."""
    from planner_app.core.kinds.results import Aggregate
    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.release.noise import privatize
    from tests.conftest import plan_dict

    calls = []
    real = mech.secrets.token_bytes

    def spy(n: int) -> bytes:
        calls.append(n)
        return real(n)

    monkeypatch.setattr(mech.secrets, "token_bytes", spy)
    plan = plan_from_dict(plan_dict())
    agg = Aggregate("n", [(None, None)], parts={"count": np.array([100])})
    privatize(plan, {"n": agg})
    assert calls, "the release drew no bytes from secrets"
    assert isinstance(SystemRandomSource().words(2), np.ndarray)


def test_exponential_quantile_is_fast_on_heavy_duplicates(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """A million integer ages: rank keys near the target are far apart; the sampler works on
    one run per grid point (121 here, not a million rows) and draws one word and one position
    per answer (it used to spin for seconds to minutes; bench/results.md has the figures).
    Work is counted, not timed (issue 23)."""
    from tests.core.test_quantile_sampler import CountingSource, runs_sized

    ages = np.sort(np.asarray(SeededRandomSource(10).words(1_000_000) % 80, dtype=np.int64) + 16)
    sizes = runs_sized(monkeypatch)
    out, sources = [], []
    for s in range(5):
        sources.append(CountingSource(s))
        out.append(exponential_quantile(sources[-1], ages, 0, 120, 0.5, 1.0, 1))
    assert all(abs(o - int(np.median(ages))) <= 1 for o in out)
    assert sizes == [121] * 5
    assert all(src.words_drawn <= 10 and src.integers_drawn == 1 for src in sources)
