"""The rehearsal's parts that need no report: the dry run of the noise on a stand-in source,
the placeholder values the report is rehearsed with, and the answer files' size rule.
``publish.rehearse`` runs them before the charge, so that what could fail after it fails
while nothing is spent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..dp.measure import Measurement
from ..dp.mechanisms import SeededRandomSource
from ..kinds import kind_of
from ..kinds.results import QueryRelease, ReleasedValues
from ..kinds.shared_dp import cell_labels
from ..model import Plan
from ..support.errors import InputError, PlannerError
from .noise import privatize
from .synthetic import dry_run_payload, placeholder_payload, synthetic_csv
from .verify_synthetic import payload_problems


def placeholder_releases(plan: Plan, confidence: float) -> list[QueryRelease]:
    """Every declared cell with a wide made-up number: the report and the bundle are built
    from these before the charge, so a report that cannot be written fails then."""
    wide = -888_888_888_888.125
    note = "a note as long as the longest a release writes beside a released value (words)"
    out = []
    for q in plan.queries:  # column-wise, as the noise makes them: no object per cell
        cells = cell_labels(q)
        n = len(cells)
        ends = [wide if kind_of(q).interval_given(q) else None] * n
        values = ReleasedValues(q.id, q.title, cells, [wide] * n, ends, ends, confidence,
                                "laplace", note)
        out.append(QueryRelease(q.id, values, synthetic=placeholder_payload(q)
                                if kind_of(q).makes_table else None))
    return out


DRY_RUN_ANSWERS = 1024  # randomized response's stand-in answers in the dry run, at most


def _dry_run_stand_in(aggregate: Any) -> Any:
    """For the dry run: randomized response's aggregate with at most DRY_RUN_ANSWERS answers
    (all no) in place of the real ones, every other aggregate as it is.

    Why the dry run loses no check by it: the answer file's work (randomize each answer, a
    uniform subset, the fair coins, the shuffle) grows with the number of answers, but no step
    of it can fail because of that number or the answers' values once their type converts to
    yes/no (a bool or integer array, kept here; any other type runs in full): the count's noise
    and the length use the measurement only, the samplers and the permutation work on any size,
    and the estimate and its interval (randomized_response_estimate, rr_half_width) are closed
    formulas good for every positive number of published answers, with an empty file its own
    branch. So a failure the real answer file could meet, the stand-in meets too, and the work
    before the charge no longer scales with the rows. Memory is the one need that grows with
    the answers (about 40 bytes an answer at the peak: the sort keys, their order, the
    gathered file); the full-size dry run touched it once but could not promise it for the
    real run either. The stand-in's values are thrown away with the rest of the dry run; what
    is published comes from the real answers only."""
    answers = getattr(aggregate, "answers", None)
    if answers is None or answers.dtype.kind not in "biu" or answers.size <= DRY_RUN_ANSWERS:
        return aggregate
    return replace(aggregate, answers=np.zeros(DRY_RUN_ANSWERS, dtype=answers.dtype))


def dry_run(plan: Plan, aggregates: dict[str, Any], confidence: float,
            clamp_counts: bool,
            measurements: Mapping[str, Sequence[Measurement]] | None = None) -> None:
    """Run the whole noise and post-processing step once with a stand-in source before the
    charge, and throw its output away: a statistic whose intervals, sampler or answer file
    cannot be computed for this plan and table then fails while nothing is spent, instead of
    after the charge with nothing to resume. Its values never leave this function.
    Randomized response runs on a small stand-in answer file (``_dry_run_stand_in``).
    ``measurements``: each statistic's, as the check built them (else built here)."""
    aggregates = {qid: _dry_run_stand_in(a) for qid, a in aggregates.items()}
    try:
        stand_in = privatize(plan, aggregates, source=SeededRandomSource(0),
                             confidence=confidence, clamp_counts=clamp_counts,
                             measurements=measurements)
        for r in stand_in:  # the synthesis (mbi) too: it runs after the charge. The payload
            if r.synthetic is None:  # as drawn is checked as verify checks it; the synthesis
                continue  # runs on the likeliest pairs (JAX's compilation is then reused)
            q = plan.query(r.query_id)
            found = payload_problems(plan, q, r.synthetic, clamp_counts)
            if found if isinstance(found, list) else found[0]:  # a defect: refuse now, while
                raise InputError(  # nothing is charged (not quoting it: the stand-in's counts
                    "plan", None,  # are the true ones plus a fixed seed's noise)
                    f"this plan's release cannot be computed (its synthetic table {q.id!r} "
                    "fails the checks verify makes); nothing was charged")
            synthetic_csv(q, dry_run_payload(q, aggregates[q.id], r.synthetic,
                                             SeededRandomSource(1), clamp_counts))
    except PlannerError:
        raise
    except Exception as exc:  # a defect: refuse now, while nothing is charged
        raise InputError("plan", None, f"this plan's release cannot be computed "
                                       f"({type(exc).__name__}); nothing was charged") from None


def require_verifiable(plan: Plan, aggregates: dict[str, Any]) -> None:
    """Refuse, before the charge, a randomized-response answer file larger than verify reads
    (bundle.MAX_MEMBER_BYTES): the bundle would be written and charged, then refused by every
    recipient's verify. Its length is the answers plus the count's noise, so the bound leaves
    room for that noise (4 bytes an answer: "yes" or "no" and a line end). A refusal on the
    owner's screen only; nothing of it is published."""
    from . import bundle as bundle_format

    for q in plan.queries:
        answers = getattr(aggregates.get(q.id), "answers", None)
        if answers is None:
            continue
        size = 4 * (int(answers.size) + (1 << 20)) + 64
        if size > bundle_format.MAX_MEMBER_BYTES:
            most = bundle_format.MAX_MEMBER_BYTES // 4 - (1 << 20)
            raise InputError("plan", f"query {q.id}",
                             f"randomized response's answer file would be larger than a "
                             f"bundle may hold (about {max(most, 0):,} answers); release it "
                             "on a sample of the table or as a yes/no count; nothing was "
                             "charged")
