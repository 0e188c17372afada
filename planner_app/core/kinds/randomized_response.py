"""The statistic kind ``randomized_response``: the share of yes answers, each answer noised on
its own (the local model)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..dp.accuracy import (
    CENTRAL_HINT_POINTS,
    NEEDS_ROWS,
    Accuracy,
    expected_count,
    rows_basis,
    rr_half_width,
    shown_half_width,
)
from ..dp.measure import (
    RR_COUNT_SHARE,
    RR_MAX_COUNT_SCALE,
    Measurement,
    Share,
    even_shares,
    rr_too_small,
)
from ..dp.sensitivity import Component, describe_rows, unit_text
from ..model import Plan, PrivacyUnit, Query
from ..model.plan import Scalar
from ..model.reader import FieldReader
from ..model.values import canonical_key, declared_answer, yes_no
from ..support.words import CENTRAL_SHARE_ACCURACY, confidence_percent
from .base import StatisticKind
from .params import YesNoParams, params_of
from .results import Aggregate, QueryRelease
from .shared_data import AggregateDescription, YesNoAnswers
from .shared_form import SHARE_HINT, YES_NO, rows_fields
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


def params(query: Query) -> YesNoParams:
    """The statistic's own fields, typed (shared_plan.YesNoParams)."""
    return params_of(query, YesNoParams)


class RandomizedResponse(StatisticKind):
    name = "randomized_response"
    params_type = YesNoParams
    own_keys = ("yes", "no")
    title = "Yes/no share"
    words = "share of yes (randomized response)"
    mechanisms = ("randomized_response",)
    asks_expected_count = True
    # local: each answer is noised on its own, so its one share has no cells to group or
    # filter (a share by group is the mean of a 0/1 column)
    not_taken = frozenset({"group_by", "where"})
    reads_answers = True

    # --- plan fields -----------------------------------------------------------------------

    def read_yes_no(self, r: FieldReader) -> tuple[tuple[Scalar, ...] | None,
                                                   tuple[Scalar, ...] | None]:
        """The declared yes and no values: both or neither, disjoint."""
        if not (r.has("yes") or r.has("no")):
            return None, None
        for key, other in (("yes", "no"), ("no", "yes")):
            if not r.has(key):
                r.fail(key, f"is required with {other!r}: declare which cell values mean yes "
                            "and which mean no")
        yes_values = r.scalars("yes", "values that mean yes")
        no_values = r.scalars("no", "values that mean no")
        yes_keys = {canonical_key(v) for v in yes_values}
        for i, v in enumerate(no_values):
            if canonical_key(v) in yes_keys:
                r.fail(f"no[{i}]", f"{canonical_key(v)!r} is also declared as a yes value")
        return yes_values, no_values

    def read_impute(self, r: FieldReader, value: Scalar, got: Mapping[str, Any]) -> Scalar:
        """One of the declared yes or no values, else a yes/no word."""
        yes, no = got["yes"], got["no"]
        if yes is not None:
            if declared_answer(yes, no, value) is None:
                r.fail("missing.impute", "must be one of the declared yes or no values")
        elif yes_no(value) is None:
            r.fail("missing.impute", "must be a yes/no value (yes, no, true, false, 1, 0)")
        return value

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        p = params(query)
        if p.yes is None:
            return {}
        return {"yes": list(p.yes), "no": list(p.no or ())}

    # --- DP ----------------------------------------------------------------------------------

    accuracy_unit = "share"
    accuracy_needs_rows = True

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        # the number of answers is the length of the published answer file: a count with its
        # own sensitivity (none under replace-one when every row answers, after imputation)
        count = self.row_component("count", 1, 1, 1.0, query, unit, relation,
                                   f"number of answers of {query.column} (the length of the "
                                   f"published answer file){describe_rows(query)}")
        derivation = (f"each answer of {query.column} is randomized on its own (local model); "
                      f"{unit_text(unit)}, so a person's answers share the ε")
        k = unit.rows_per_unit
        return [count, Component(name="answers", step=1.0, l1=k, l2_sq=k * k, cells=1,
                                 single_cell=True, derivation=derivation)]

    def shares(self, query: Query, parts: list[Component]) -> list[Share]:
        """RR_COUNT_SHARE of ε to the noised number of answers, the rest to the answers."""
        if len([c for c in parts if c.l1 > 0]) != 2:
            return even_shares(query, parts)
        count_eps = query.epsilon * RR_COUNT_SHARE
        return [(c, count_eps if c.name == "count" else query.epsilon - count_eps, 0.0)
                for c in parts]

    def refusal(self, query: Query, measurements: list[Measurement]) -> str | None:
        """The chance of a truthful answer rounds to 0 (the share would divide by 0), or the
        noised number of answers needs a scale above RR_MAX_COUNT_SCALE."""
        rows = max((m.component.l1 for m in measurements if m.component.name == "answers"),
                   default=1)  # k: each person's answers
        for m in measurements:
            if m.mechanism == "randomized_response" and (m.truth is None or m.truth <= 0):
                return rr_too_small(query, "the chance of a truthful answer rounds to 0", rows)
            if m.component.name == "count" and m.scale is not None \
                    and m.scale > RR_MAX_COUNT_SCALE:
                return rr_too_small(query, "its noised number of answers would need a noise "
                                           f"scale above {RR_MAX_COUNT_SCALE:,} answers", rows)
        return None

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        n = expected_count(query, plan)
        m = next(m for m in measurements if m.component.name == "answers")
        count = next((m for m in measurements if m.component.name == "count"), None)
        assert m.truth is not None
        refused = self.refusal(query, measurements)
        if refused is not None:
            return Accuracy(confidence, math.inf, "share", refused)
        if n is None:
            return Accuracy(confidence, None, "share", NEEDS_ROWS)
        hw = rr_half_width(n, m.truth, count, confidence)
        what = ("" if count is None or count.mechanism == "none"
                else ", with the error of the noised number of answers,")
        return Accuracy(confidence, hw, "share",
                        f"Hoeffding bound{what} for {rows_basis(query, plan, n, 'answers')}")

    def possible_range(self, query: Query,
                       acc: Accuracy | dict[str, Any]) -> tuple[float, str] | None:
        return 1.0, "0 to 100%"

    def central_share_hint(self, query: Query, acc: Accuracy | dict[str, Any]) -> str | None:
        """When its ± is wider than CENTRAL_HINT_POINTS points: the central share (a Mean of
        a 1/0 column) costs far less."""
        hw = shown_half_width(acc)
        return CENTRAL_SHARE_ACCURACY if hw is not None and hw > CENTRAL_HINT_POINTS else None

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        assert query.column is not None
        return YesNoAnswers(query.column)

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
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.not_taken, self.asks_expected_count) | {YES_NO, SHARE_HINT}
