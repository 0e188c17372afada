"""The statistic kind ``randomized_response``: the share of yes answers, each answer noised on
its own (the local model)."""

from __future__ import annotations

from typing import Any

from ..dp.measure import Measurement
from ..model import Plan, Query
from ..support.words import confidence_percent
from .base import StatisticKind
from .results import Aggregate, QueryRelease
from .shared_release import (
    NoiseDraw,
    ValueRows,
    named,
    plan_value,
    randomized_response_estimate,
    row_count_lines,
    rr_answer_file,
    rr_file_sentence,
)


class RandomizedResponse(StatisticKind):
    name = "randomized_response"
    title = "Randomized response"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------
    publishes_answers = True
    shown_in_percent = True

    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        answers_m = named(ms, "answers")
        count_m = named(ms, "count")
        assert aggregate.answers is not None and answers_m.truth is not None
        rows = ValueRows(query, aggregate, draw.confidence)
        published = rr_answer_file(draw.source, aggregate.answers, answers_m.truth, count_m)
        n = int(published.size)
        if n == 0:
            rows.add(0, None, None, None, "randomized_response", "no answers were published")
            return QueryRelease(query.id, rows.values, published)
        p, low, high = randomized_response_estimate(int(published.sum()), n, answers_m.truth,
                                                    draw.confidence, count_m)
        how = ("is public under replace-one (every row answers)" if count_m.mechanism == "none"
               else "was noised; the interval includes its error")
        rows.add(0, p, low, high, "randomized_response",
                 f"debiased share of yes from the published answers; their number {how}")
        return QueryRelease(query.id, rows.values, published)

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        return None  # verify recomputes it from its answer file (publishes_answers)

    def missing_words(self, query: Query) -> list[str]:
        assert query.column is not None
        if query.missing.policy == "impute":
            return [f"an empty {query.column} cell, or one that is neither a yes nor a no "
                    f"value, is read as {plan_value(query.missing.value)}"]
        return [f"a row whose {query.column} is empty or neither a yes nor a no value is "
                "left out (it gives no answer)"]

    def released_value_words(self, column: str) -> str:
        return f"share of yes in {column} (%)"

    def released_span(self, lower: float | None, upper: float | None
                      ) -> tuple[float, float] | None:
        return 0.0, 100.0

    def check_lines(self, query: Query, plan: Plan, accuracy: dict[str, Any]) -> list[str]:
        return row_count_lines(accuracy)


    def report_meaning(self, record_query: dict[str, Any], query: Query | None,
                       confidence: float) -> str:
        return (f"Each answer was randomized on its own; the share is corrected for the "
                f"randomization and the interval holds it with {confidence_percent(confidence)} "
                "confidence. " + rr_file_sentence(record_query))

    # --- the app's form ------------------------------------------------------------------------
