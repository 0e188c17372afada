"""The quantile sampler on fine grids (issue 24): its arrays are as long as the rows, never as
the grid, and it draws exactly what it drew before from the same random bits."""

from __future__ import annotations

import random
import tracemalloc
from decimal import Decimal, localcontext

import numpy as np
import pytest

import planner_app.core.dp.mechanisms as mech
from planner_app.core.dp.mechanisms import SeededRandomSource, exponential_quantile

# --- the sampler's run layout before issue 24, kept here as the reference ------------------

def old_step_counts(steps: np.ndarray, counts: np.ndarray, lo: int, hi: int) -> np.ndarray:
    out = np.zeros(hi - lo + 1, dtype=np.int64)  # as long as the grid
    np.add.at(out, np.clip(np.asarray(steps, dtype=np.int64), lo, hi) - lo,
              np.asarray(counts, dtype=np.int64))
    return out


def old_engine_values(steps: np.ndarray, counts: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """What the engine path spelled out before: np.repeat(np.arange(lo, hi + 1), counts)."""
    return np.repeat(np.arange(lo, hi + 1, dtype=np.int64), old_step_counts(steps, counts,
                                                                            lo, hi))


def old_runs(steps: np.ndarray, counts: np.ndarray, lo: int, hi: int, quantile: float
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The old engine path's runs: per grid point when the grid is no larger than the rows,
    else from the values spelled out through the grid-sized counts."""
    grid_counts = old_step_counts(steps, counts, lo, hi)
    n = int(grid_counts.sum())
    points = hi - lo + 1
    if mech.quantile_work(points, n) == points:
        at_or_below = np.cumsum(grid_counts)
        return (2 * at_or_below - grid_counts, np.arange(lo, hi + 1, dtype=np.int64),
                np.ones(points, dtype=np.int64), 2 * int(round(quantile * n)))
    return mech._quantile_runs(old_engine_values(steps, counts, lo, hi), lo, hi, quantile)


def engine_form(values: list[int]) -> tuple[np.ndarray, np.ndarray]:
    steps, counts = np.unique(np.asarray(values, dtype=np.int64), return_counts=True)
    return steps, counts.astype(np.int64)


def small_cases(seed: int, how_many: int) -> list[tuple[list[int], int, int, float]]:
    rng = random.Random(seed)
    out = []
    for _ in range(how_many):
        lo = rng.randint(-40, 10)
        hi = lo + rng.choice([0, 1, 3, 10, 60, 300])
        n = rng.choice([0, 1, 2, 5, 30, 400])
        values = sorted(rng.randint(lo - 3, hi + 3) for _ in range(n))  # some outside: clipped
        out.append((values, lo, hi, rng.choice([0.0, 0.1, 0.5, 0.9, 1.0])))
    return out


@pytest.mark.parametrize("case", range(4))
def test_the_runs_are_the_old_ones_on_small_grids(case: int) -> None:
    for values, lo, hi, q in small_cases(case, 50):
        steps, counts = engine_form(values)
        new = mech._quantile_runs(None, lo, hi, q, mech._merged_steps(steps, counts, lo, hi))
        old = old_runs(steps, counts, lo, hi, q)
        for a, b in zip(new[:3], old[:3], strict=True):
            assert a.tolist() == b.tolist()
        assert new[3] == old[3]


def test_the_released_point_is_the_old_one_from_the_same_bits() -> None:
    """Both input forms, against the old engine path (its values spelled out through the
    grid), with the same seeded source: the same point, and the same bits left over."""
    for i, (values, lo, hi, q) in enumerate(small_cases(7, 120)):
        steps, counts = engine_form(values)
        old_values = old_engine_values(steps, counts, lo, hi)
        for eps in (0.05, 1.0, 8.0):
            old_source, new_source, sorted_source = (SeededRandomSource(i) for _ in range(3))
            old = exponential_quantile(old_source, old_values, lo, hi, q, eps, 1)
            new = exponential_quantile(new_source, None, lo, hi, q, eps, 1, (steps, counts))
            from_sorted = exponential_quantile(sorted_source, np.asarray(values), lo, hi, q,
                                               eps, 1)
            assert new == old == from_sorted
            assert new_source.words(1)[0] == old_source.words(1)[0]


class ScriptedSource(SeededRandomSource):
    """A seeded source whose first word is the given U, and whose bounded integers are the
    bound minus one (the last point of a run), recorded."""

    def __init__(self, u: int) -> None:
        super().__init__(0)
        self.first: int | None = u
        self.bounds: list[int] = []

    def words(self, n: int) -> np.ndarray:
        if self.first is not None and n == 1:
            u, self.first = self.first, None
            return np.array([u], dtype=np.uint64)
        return super().words(n)

    def randbelow(self, n: int) -> int:
        self.bounds.append(n)
        return n - 1


def exact_intervals(values: list[int], lo: int, hi: int, q: float, eps: float
                    ) -> list[tuple[int, int, Decimal]]:
    """The grid [lo, hi] cut where the utility changes (at each distinct value and just after
    it), each piece (first, last, probability) from the mechanism's definition, in 60-digit
    decimals: P(x) proportional to exp(-eps |(#{v < x} + #{v <= x}) / 2 - m| / 2)."""
    cuts = sorted({lo, hi + 1} | {v for v in values} | {v + 1 for v in values})
    cuts = [c for c in cuts if lo <= c <= hi + 1]
    m = round(q * len(values))
    with localcontext() as ctx:
        ctx.prec = 60
        pieces = []
        for a, b in zip(cuts[:-1], cuts[1:], strict=True):
            key = sum(v < a for v in values) + sum(v <= a for v in values)
            weight = (b - a) * (-Decimal(eps) * abs(Decimal(key) / 2 - m) / 2).exp()
            pieces.append((a, b - 1, weight))
        total = sum(w for _, _, w in pieces)
        return [(a, b, w / total) for a, b, w in pieces]


def test_a_2_to_the_40_grid_is_exact_and_needs_no_grid_sized_memory() -> None:
    lo, hi = 0, 2**40  # 2^40 + 1 grid points
    values = [3, 3, 1_000_000, 2**39, 2**39 + 5, 2**40 - 1]
    steps, counts = engine_form(values)
    eps = 0.5
    pieces = exact_intervals(values, lo, hi, 0.5, eps)
    assert len(pieces) == 11  # 5 distinct values: a gap and a point each, one gap more
    below = Decimal(0)
    for first, last, p in pieces:
        # U at the middle of this piece's share of [0, 1): the sampler must land in it,
        # on its last point (the scripted source's bounded integer)
        u = int((below + p / 2) * 2**64)
        below += p
        if p < Decimal(2) ** -50:
            continue  # too thin a piece to aim a 64-bit U at
        for form in ("engine", "sorted"):
            source = ScriptedSource(u)
            tracemalloc.start()
            try:
                if form == "engine":
                    got = exponential_quantile(source, None, lo, hi, 0.5, eps, 1,
                                               (steps, counts))
                else:
                    got = exponential_quantile(source, np.asarray(values), lo, hi, 0.5, eps,
                                               1)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert got == last, (form, first, last)
            assert source.bounds == [last - first + 1]
            assert peak < 200_000  # bytes: a grid-sized array would be 8 TB
