"""Noise: turn true aggregates into released values, once, from the OS CSPRNG.

``privatize`` takes the integer aggregates of aggregate.py and the calibrated measurements of
measure.py and returns ``ReleasedValue`` rows. Everything after the noise is post-processing
(means from noisy sums and counts, clamping a mean into its bounds, debiasing randomized
response), which costs no privacy. Non-integer results are snapped to the query's
power-of-two grid, so released numbers carry no floating-point artefacts.

The release command (charging the ledger first, then calling this) lives with the ledger
and bundle code; this module never writes anything.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..dp.accuracy import DEFAULT_CONFIDENCE, measurement_half_width, rr_half_width
from ..dp.intervals import mean_interval, mean_parts, variance_interval
from ..dp.measure import Measurement, measurements_for
from ..dp.mechanisms import (
    RandomSource,
    SystemRandomSource,
    discrete_gaussian,
    discrete_laplace,
    exponential_quantile,
    randomized_answer_file,
)
from ..dp.sensitivity import grid_for
from ..kinds.results import (
    Aggregate,
    AggregateEngine,
    QueryRelease,
    ReleasedValue,
    ReleasedValues,
)
from ..model import Plan, Query


def _noise(m: Measurement, size: int, source: RandomSource) -> np.ndarray:
    if m.mechanism == "none":
        return np.zeros(size, dtype=np.int64)
    if m.mechanism == "laplace":
        assert m.scale is not None
        return discrete_laplace(source, m.scale, size)
    if m.mechanism == "gaussian":
        assert m.sigma_sq is not None
        return discrete_gaussian(source, m.sigma_sq, size)
    raise ValueError(m.mechanism)


RR_STEP = 2.0**-20


def randomized_response_estimate(yes: int, n: int, truth: Fraction, confidence: float,
                                 count: Measurement | None = None) -> tuple[float, float, float]:
    """The debiased share of yes p = (A - (1-t)/2)/t from a published answer file of ``n``
    answers with ``yes`` of them yes, kept in [0, 1], with its interval (Hoeffding plus the
    noised count's error, rr_half_width); on a 2^-20 grid, the interval rounded outwards.
    A post-processing of the published file and public parameters only."""
    share_yes = Fraction(yes, n)
    p_hat = float((share_yes - (1 - truth) / 2) / truth)
    hw = rr_half_width(n, truth, count, confidence)
    low = math.floor(max(0.0, p_hat - hw) / RR_STEP) * RR_STEP
    high = math.ceil(min(1.0, p_hat + hw) / RR_STEP) * RR_STEP
    return snap(min(1.0, max(0.0, p_hat)), RR_STEP), float(low), float(high)


def snap(value: float, step: float) -> float:
    """Round to the nearest multiple of a power-of-two step (exact in binary floating point)."""
    return float(round(value / step) * step)


def _named(ms: list[Measurement], name: str) -> Measurement:
    return next(m for m in ms if m.component.name == name)


def rr_answer_file(source: RandomSource, answers: np.ndarray, truth: Fraction,
                   count: Measurement) -> np.ndarray:
    """Randomized response's published answer file: its length is the number of answers
    plus the count measurement's noise (exact only where the relation makes the number of
    answers public), never below 0; see mechanisms.randomized_answer_file and the privacy
    argument in docs/engine.md."""
    length = max(0, int(answers.size) + int(_noise(count, 1, source)[0]))
    return randomized_answer_file(source, answers, truth, length)


def snap_down(value: float, step: float) -> float:
    """The largest multiple of a power-of-two step at or below ``value``."""
    return float(math.floor(value / step) * step)


def snap_up(value: float, step: float) -> float:
    """The smallest multiple of a power-of-two step at or above ``value``."""
    return float(math.ceil(value / step) * step)


def _noisy_parts(aggregate: Aggregate, ms: list[Measurement],
                 source: RandomSource) -> dict[str, np.ndarray]:
    out = {}
    for m in ms:
        true = aggregate.parts[m.component.name]
        out[m.component.name] = true + _noise(m, true.size, source)
    return out


# the column-wise forms below compute in int64 and float64 what the per-cell loops compute
# in Python ints and floats: the same numbers while every noisy value and interval end stays
# below 2^52 in magnitude (int64 exact, every int exactly a float64); beyond, the loops run
_EXACT = 1 << 52


def _fits(noisy: np.ndarray, hw: Any) -> bool:
    return (type(hw) is int and noisy.dtype.kind in "iu" and abs(hw) < _EXACT
            and (noisy.size == 0 or int(np.abs(noisy).max()) < _EXACT - abs(hw)))


def _count_columns(noisy: np.ndarray, hw: Any, mechanism: str, clamp_counts: bool
                   ) -> tuple[list[int], list[int], list[int], str | list[str]] | None:
    """A count's or histogram's values, interval ends and notes for every cell at once: the
    per-cell loop of ``_release_query`` column-wise (None: out of ``_fits``' range)."""
    if not _fits(noisy, hw):
        return None
    v = noisy.astype(np.int64)
    note: str | list[str] = "released without noise: public under replace-one" \
        if mechanism == "none" else ""
    if clamp_counts:
        negative = v < 0
        if negative.any():
            v = np.where(negative, 0, v)
            note = np.where(negative, "clamped at 0 (post-processing)", note).tolist()
    return v.tolist(), (v - hw).tolist(), (v + hw).tolist(), note


def _sum_columns(noisy: np.ndarray, hw: Any, step: Any
                 ) -> tuple[list[float], list[float], list[float]] | None:
    """A sum's values and interval ends for every cell at once, as float(v * step) and
    float((v -/+ hw) * step) per cell (None: out of ``_fits``' range)."""
    if not _fits(noisy, hw):
        return None
    v = noisy.astype(np.int64)
    if type(step) is int and abs(step) < 1 << 10:  # int products, exact in int64
        return ((v * step).astype(np.float64).tolist(),
                ((v - hw) * step).astype(np.float64).tolist(),
                ((v + hw) * step).astype(np.float64).tolist())
    if type(step) is not float:
        return None
    return ((v.astype(np.float64) * step).tolist(),
            ((v - hw).astype(np.float64) * step).tolist(),
            ((v + hw).astype(np.float64) * step).tolist())


def _release_query(query: Query, plan: Plan, aggregate: Aggregate, ms: list[Measurement],
                   source: RandomSource, confidence: float,
                   clamp_counts: bool) -> QueryRelease:
    label = query.title
    values: list[ReleasedValue] = []

    def add(i: int, value: Any, low: Any, high: Any, mechanism: str, note: str = "") -> None:
        group, cell = aggregate.cells[i]
        values.append(ReleasedValue(query.id, label, group, cell, value, low, high, confidence,
                                    mechanism, note))

    if query.kind == "randomized_response":
        answers_m = _named(ms, "answers")
        count_m = _named(ms, "count")
        assert aggregate.answers is not None and answers_m.truth is not None
        published = rr_answer_file(source, aggregate.answers, answers_m.truth, count_m)
        n = int(published.size)
        if n == 0:
            add(0, None, None, None, "randomized_response", "no answers were published")
            return QueryRelease(query.id, values, published)
        p, low, high = randomized_response_estimate(int(published.sum()), n, answers_m.truth,
                                                    confidence, count_m)
        how = ("is public under replace-one (every row answers)" if count_m.mechanism == "none"
               else "was noised; the interval includes its error")
        add(0, p, low, high, "randomized_response",
            f"debiased share of yes from the published answers; their number {how}")
        return QueryRelease(query.id, values, published)

    if query.kind == "synthetic":
        from .synthetic import measure_synthetic

        cells, payload = measure_synthetic(query, aggregate, ms, source, confidence,
                                           clamp_counts)
        for marginal, cell, v, hw, note in cells:
            values.append(ReleasedValue(query.id, label, marginal, cell, v, v - hw, v + hw,
                                        confidence, "gaussian", note))
        return QueryRelease(query.id, values, synthetic=payload)

    if query.kind == "quantile":
        m = ms[0]
        grid = grid_for(query)
        assert query.quantile is not None
        per_cell: list[tuple[np.ndarray | None, tuple[np.ndarray, np.ndarray] | None]]
        if aggregate.step_counts is not None:  # an engine's counts per grid step
            per_cell = [(None, sc) for sc in aggregate.step_counts]
        else:
            assert aggregate.sorted_values is not None
            per_cell = [(sv, None) for sv in aggregate.sorted_values]
        for i, (sorted_steps, step_counts) in enumerate(per_cell):
            point = exponential_quantile(source, sorted_steps, grid.lo, grid.hi,
                                         query.quantile, m.epsilon, m.component.l1,
                                         step_counts)
            add(i, float(point * grid.step), None, None, "exponential",
                "interval not given in value units: see the rank accuracy")
        return QueryRelease(query.id, values)

    noisy = _noisy_parts(aggregate, ms, source)
    hws = {m.component.name: measurement_half_width(m, confidence) for m in ms}

    if query.kind in ("count", "histogram"):
        name = "count" if query.kind == "count" else "cells"
        m = ms[0]
        hw = hws[name]
        columns = _count_columns(noisy[name], hw, m.mechanism, clamp_counts)
        if columns is not None:
            return QueryRelease(query.id, ReleasedValues(query.id, label, aggregate.cells,
                                                         *columns[:3], confidence,
                                                         m.mechanism, columns[3]))
        for i, v in enumerate(noisy[name].tolist()):
            note = "released without noise: public under replace-one" \
                if m.mechanism == "none" else ""
            if clamp_counts and v < 0:
                v, note = 0, "clamped at 0 (post-processing)"
            add(i, int(v), int(v - hw), int(v + hw), m.mechanism, note)
        return QueryRelease(query.id, values)

    if query.kind == "sum":
        m = ms[0]
        step = m.component.step
        hw = hws["sum"]
        sums = _sum_columns(noisy["sum"], hw, step)
        if sums is not None:
            return QueryRelease(query.id, ReleasedValues(query.id, label, aggregate.cells,
                                                         *sums, confidence, m.mechanism, ""))
        for i, v in enumerate(noisy["sum"].tolist()):
            add(i, float(v * step), float((v - hw) * step), float((v + hw) * step), m.mechanism)
        return QueryRelease(query.id, values)

    # mean and variance: post-processing of noisy (centred) sums and a noisy count; the
    # intervals come from the exact pivot of intervals.py
    grid = grid_for(query)
    assert query.lower is not None and query.upper is not None
    centre = grid.centre * grid.step
    radius = grid.radius * grid.step
    alpha = 1 - confidence
    parts = mean_parts(query, ms)
    mechanism = next(m.mechanism for m in ms if m.mechanism != "none")
    for i in range(len(aggregate.cells)):
        n_noisy = float(noisy["count"][i])
        n_pos = max(n_noisy, 1.0)  # a divisor: the noisy count, at least 1
        s1 = float(noisy["sum"][i]) * grid.step
        mean_c = min(radius, max(-radius, s1 / n_pos))
        note = "" if n_noisy >= 1 else "the noisy count is below 1: the estimate is unreliable"
        if query.kind == "mean":
            value = snap(min(query.upper, max(query.lower, centre + mean_c)), grid.step)
            a, b = mean_interval(parts, float(noisy["sum"][i]), n_noisy, alpha)
            low = min(value, max(query.lower, snap_down(centre + a, grid.step)))
            high = max(value, min(query.upper, snap_up(centre + b, grid.step)))
            add(i, value, low, high, mechanism,
                note or "kept within the declared bounds (post-processing)")
            continue
        sq_step = grid.step * grid.step
        s2 = float(noisy["sumsq"][i]) * sq_step
        var = min(radius * radius, max(0.0, s2 / n_pos - mean_c * mean_c))
        value = snap(var, sq_step)
        a, b = variance_interval(parts, float(noisy["sum"][i]), float(noisy["sumsq"][i]),
                                 n_noisy, alpha)
        low = min(value, max(0.0, snap_down(a, sq_step)))
        high = max(value, min(snap(radius * radius, sq_step), snap_up(b, sq_step)))
        add(i, value, low, high, mechanism,
            note or "kept within [0, ((upper-lower)/2)^2] (post-processing)")
    return QueryRelease(query.id, values)


def privatize(plan: Plan, aggregates: dict[str, Aggregate], *,
              source: RandomSource | None = None, confidence: float = DEFAULT_CONFIDENCE,
              clamp_counts: bool = False,
              measurements: Mapping[str, Sequence[Measurement]] | None = None
              ) -> list[QueryRelease]:
    """Draw the noise, once, for every query. ``source`` defaults to the OS CSPRNG.
    ``measurements``: each query's, as the check built them (a compiled plan's)."""
    src = source if source is not None else SystemRandomSource()
    out = []
    for query in plan.queries:
        ms = measurements_for(query, plan) if measurements is None \
            else list(measurements[query.id])
        out.append(_release_query(query, plan, aggregates[query.id], ms, src, confidence,
                                  clamp_counts))
    return out


def release_with_engine(plan: Plan, engine: AggregateEngine, *,
                        source: RandomSource | None = None,
                        confidence: float = DEFAULT_CONFIDENCE,
                        clamp_counts: bool = False) -> list[QueryRelease]:
    aggregates = {q.id: engine.aggregate(q) for q in plan.queries}
    return privatize(plan, aggregates, source=source, confidence=confidence,
                     clamp_counts=clamp_counts)
