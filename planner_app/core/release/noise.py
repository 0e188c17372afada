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

from collections.abc import Mapping, Sequence

from ..dp.accuracy import DEFAULT_CONFIDENCE
from ..dp.measure import Measurement
from ..dp.mechanisms import RandomSource, SystemRandomSource
from ..kinds import kind_of
from ..kinds.results import Aggregate, AggregateEngine, QueryRelease
from ..kinds.shared_dp import measurements_for
from ..kinds.shared_release import (  # noqa: F401  (re-exported: verify, tests, bench)
    RR_STEP,
    NoiseDraw,
    randomized_response_estimate,
    rr_answer_file,
    snap,
    snap_down,
    snap_up,
)
from ..model import Plan
from . import synthetic_aim


def privatize(plan: Plan, aggregates: dict[str, Aggregate], *,
              source: RandomSource | None = None, confidence: float = DEFAULT_CONFIDENCE,
              clamp_counts: bool = False,
              measurements: Mapping[str, Sequence[Measurement]] | None = None
              ) -> list[QueryRelease]:
    """Draw the noise, once, for every query. ``source`` defaults to the OS CSPRNG.
    ``measurements``: each query's, as the check built them (a compiled plan's)."""
    src = source if source is not None else SystemRandomSource()
    draw = NoiseDraw(src, confidence, clamp_counts, synthetic_aim.measure_table)
    out = []
    for query in plan.queries:
        ms = measurements_for(query, plan) if measurements is None \
            else list(measurements[query.id])
        out.append(kind_of(query).release(query, aggregates[query.id], ms, draw))
    return out


def release_with_engine(plan: Plan, engine: AggregateEngine, *,
                        source: RandomSource | None = None,
                        confidence: float = DEFAULT_CONFIDENCE,
                        clamp_counts: bool = False) -> list[QueryRelease]:
    aggregates = {q.id: engine.aggregate(q) for q in plan.queries}
    return privatize(plan, aggregates, source=source, confidence=confidence,
                     clamp_counts=clamp_counts)
