"""The quantile sampler: exact, data-independent work, never hangs on a fine grid."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np
import pytest
from scipy import stats

import planner_app.core.dp.mechanisms as mech
from planner_app.core.dp.mechanisms import SeededRandomSource, exponential_quantile


def direct_law(values: np.ndarray, lo: int, hi: int, q: float, eps: float) -> np.ndarray:
    """P(x) for every grid point x in [lo, hi], computed point by point (no runs)."""
    values = np.sort(values)
    n = values.size
    m = round(q * n)
    xs = np.arange(lo, hi + 1)
    lt = np.searchsorted(values, xs, side="left")
    le = np.searchsorted(values, xs, side="right")
    log_w = -eps * np.abs((lt + le) / 2 - m) / 2
    w = np.exp(log_w - log_w.max())
    return w / w.sum()


def chi_square(draws: np.ndarray, lo: int, law: np.ndarray, cells: np.ndarray | None = None
               ) -> float:
    """p-value over cells (grid points, or the given cell of each grid point), pooling cells
    with fewer than 5 expected draws into one."""
    if cells is not None:
        law = np.bincount(cells, weights=law)
        draws = cells[draws - lo] + lo
    expected = law * draws.size
    big = np.flatnonzero(expected >= 5)
    counts = np.bincount(draws - lo, minlength=law.size)
    obs = list(counts[big])
    exp = list(expected[big])
    rest = draws.size - expected[big].sum()
    if rest > 1e-9:
        obs.append(draws.size - counts[big].sum())
        exp.append(rest)
    else:
        assert counts[big].sum() == draws.size
    exp = list(np.array(exp) * draws.size / sum(exp))
    return float(stats.chisquare(obs, exp).pvalue)


class CountingSource(SeededRandomSource):
    """The seeded source, counting the uniform words and bounded integers it hands out: the
    sampler's work is counted, not timed (issue 23)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.words_drawn = 0
        self.integers_drawn = 0

    def words(self, n: int) -> np.ndarray:
        self.words_drawn += n
        return super().words(n)

    def randbelow(self, n: int) -> int:
        self.integers_drawn += 1
        return super().randbelow(n)


def runs_sized(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of runs of each call of the sampler's run arrays (its work)."""
    sizes: list[int] = []
    real = mech._quantile_runs

    def counted(*args: object, **kwargs: object) -> tuple[np.ndarray, ...]:
        out = real(*args, **kwargs)  # type: ignore[arg-type]
        sizes.append(int(out[0].size))
        return out

    monkeypatch.setattr(mech, "_quantile_runs", counted)
    return sizes


def test_concentrated_data_on_a_fine_grid_follows_the_law_and_is_quick(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # most rows on one value of a 2^20-point grid, a few spread out: the rejection sampler
    # this replaces accepted about one proposal in a million here
    lo, hi = 0, (1 << 20) - 1
    values = np.array([500_000] * 40 + [10, 200_000, 700_000, 999_999, 500_001], dtype=np.int64)
    eps = 1.0
    law = direct_law(values, lo, hi, 0.5, eps)
    src = CountingSource(11)
    sizes = runs_sized(monkeypatch)
    draws = np.array([exponential_quantile(src, np.sort(values), lo, hi, 0.5, eps, 1)
                      for _ in range(3000)])
    # quick: two runs per row and one more, whatever the grid; one uniform word and one
    # position inside the chosen run per draw (the rejection sampler it replaced drew about
    # a million proposals per draw here)
    assert sizes == [2 * values.size + 1] * 3000
    assert src.words_drawn <= 3000 + 10 and src.integers_drawn == 3000
    # cells: each data value on its own, the rest of the grid in 256 slices
    xs = np.arange(lo, hi + 1)
    cells = xs // 4096
    for i, v in enumerate(np.unique(values)):
        cells[v] = 256 + i
    assert chi_square(draws, lo, law, cells) > 1e-4
    wrong = direct_law(values, lo, hi, 0.5, eps * 1.3)
    assert chi_square(draws, lo, wrong, cells) < 1e-6


def test_a_single_release_on_a_very_fine_grid_finishes(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    # 2^36 grid points, all rows on two values: work for the rows (2,001 runs), not the grid
    values = np.array([1 << 35] * 999 + [(1 << 35) + 1], dtype=np.int64)
    src = CountingSource(3)
    sizes = runs_sized(monkeypatch)
    out = exponential_quantile(src, values, 0, (1 << 36) - 1, 0.5, 1.0, 1)
    assert sizes == [2 * values.size + 1] and src.words_drawn <= 10
    assert abs(out - (1 << 35)) <= 1


@pytest.mark.parametrize("hi", [15, 5])  # runs from the rows, or one per grid point
def test_the_exact_fallback_follows_the_same_law(monkeypatch: pytest.MonkeyPatch,
                                                 hi: int) -> None:
    monkeypatch.setattr(mech, "_FLOAT_SLACK", 2.0)  # every draw takes the decimal path
    values = np.minimum(np.array([2, 3, 3, 7, 9, 9, 9, 12], dtype=np.int64), hi)
    law = direct_law(values, 0, hi, 0.5, 1.0)
    src = SeededRandomSource(12)
    draws = np.array([exponential_quantile(src, values, 0, hi, 0.5, 1.0, 1)
                      for _ in range(1500)])
    assert chi_square(draws, 0, law) > 1e-4
    wrong = direct_law(values, 0, hi, 0.5, 2.0)
    assert chi_square(draws, 0, wrong) < 1e-4


def count_words(monkeypatch: pytest.MonkeyPatch, values: np.ndarray, seed: int) -> list[int]:
    calls: list[int] = []
    src = SeededRandomSource(seed)
    real = src.words

    def spy(n: int) -> np.ndarray:
        calls.append(n)
        return real(n)

    monkeypatch.setattr(src, "words", spy)
    exponential_quantile(src, values, 0, (1 << 16) - 1, 0.5, 1.0, 1)
    return calls


def test_work_does_not_depend_on_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    # neighbouring tables: one row moved from the spread-out values to the crowd
    rng = np.random.default_rng(5)
    spread = np.sort(rng.integers(0, 1 << 16, 500))
    crowd = np.sort(np.append(np.full(499, 30_000), 4))
    for seed in range(20):
        a = count_words(monkeypatch, spread, seed)
        b = count_words(monkeypatch, crowd, seed)
        assert a == b == [1]  # one 64-bit word for U, then the point inside its run


@pytest.mark.parametrize("hi", [4999, 299])  # runs from the rows, or one per grid point
def test_float_cumulative_weights_are_within_the_stated_slack(hi: int) -> None:
    getcontext().prec = 50
    rng = np.random.default_rng(6)
    for trial in range(4):
        values = np.sort(rng.integers(0, hi + 1, 300 + 700 * trial))
        if trial % 2:
            values[: values.size // 2] = hi // 2
            values.sort()
        eps = [0.05, 0.5, 3.0, 20.0][trial]
        keys, _, sizes, m2 = mech._quantile_runs(values, 0, hi, 0.5)
        a = eps / 4
        dist = np.abs(keys - m2)
        d_min = int(dist[sizes > 0].min())
        with np.errstate(divide="ignore"):
            log_w = np.log(sizes.astype(float)) - a * (dist - d_min)
        w = np.exp(log_w - log_w.max())
        cdf = mech._blocked_cumsum(w)
        f_float = cdf / cdf[-1]
        a_dec = Decimal(eps) / 4
        exact = [Decimal(int(s)) * (-(a_dec * int(d - d_min))).exp() if s else Decimal(0)
                 for s, d in zip(sizes, dist, strict=True)]
        total = sum(exact)
        running = Decimal(0)
        worst = 0.0
        for k, x in enumerate(exact):
            running += x
            worst = max(worst, abs(float(running / total) - f_float[k]))
        assert worst < mech._FLOAT_SLACK / 4
        assert math.isfinite(worst)


def test_a_grid_no_larger_than_the_rows_follows_the_law() -> None:
    values = np.sort(np.random.default_rng(7).integers(3, 12, 60))
    law = direct_law(values, 0, 15, 0.3, 0.5)
    src = SeededRandomSource(13)
    draws = np.array([exponential_quantile(src, values, 0, 15, 0.3, 0.5, 1)
                      for _ in range(4000)])
    assert chi_square(draws, 0, law) > 1e-4
    assert chi_square(draws, 0, direct_law(values, 0, 15, 0.3, 0.8)) < 1e-6
