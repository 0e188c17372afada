"""The statistic kind ``discover_bounds``: a lower and an upper bound for a numeric column,
found privately as two quantiles (the 1st and 99th percentile by default, public parameters)
by the exponential mechanism on a wide public grid -- the quantile kind's exact sampler
(dp/mechanisms.exponential_quantile), not a second one.

Cost: ε, pure, split evenly over the two quantiles (each an ε/2 exponential mechanism on the
rank, sensitivity k rows a person). The two released grid points are sorted (post-processing),
so the lower bound is never above the upper one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from ..dp.accuracy import Accuracy, quantile_work_refusal
from ..dp.measure import Measurement
from ..dp.sensitivity import Component, rank_component
from ..model import Plan, PrivacyUnit, Query
from ..model.grid import QUANTILE_GRID_BITS
from ..model.reader import FieldReader
from ..model.rules import quantile_problem
from ..support.numbers import shown
from ..support.words import (
    BOUNDS_AT_THE_EDGE,
    BOUNDS_ROWS_HOW_CLI,
    BOUNDS_ROWS_STATED_CLI,
    BOUNDS_ROWS_STATED_OWNER,
    BOUNDS_ROWS_UNKNOWN,
    BOUNDS_SMALL_TABLE,
    BOUNDS_SMALL_TABLE_HELPS,
    BOUNDS_SMALL_TABLE_MORE,
    BOUNDS_SMALL_TABLE_ONLY_PUBLIC,
    BOUNDS_SMALL_TABLE_QUANTILES,
    confidence_percent,
    format_number,
)
from .base import StatisticKind
from .params import BoundedParams, bounds_of, params_of
from .results import Aggregate, QueryRelease, ReleasedValue
from .shared_data import AggregateDescription, GridStepCounts
from .shared_form import BOUNDS, COLUMN, MISSING, QUANTILES, WHERE
from .shared_plan import Stage, bounds_to_dict
from .shared_release import NoiseDraw, bounded_missing_words, grid_point_problem

#: the default quantiles of the lower and the upper bound (1st and 99th percentile)
DEFAULT_QUANTILES = (0.01, 0.99)
#: the cells of its two released values, in order
BOUND_CELLS = ("lower", "upper")


@dataclass(frozen=True)
class FoundBoundsParams(BoundedParams):
    """A discovery of bounds: the wide public grid (lower, upper, grid_step) the bounds are
    chosen on, and the quantile levels of the two bounds."""

    quantiles: tuple[float, float] = DEFAULT_QUANTILES


def params(query: Query) -> FoundBoundsParams:
    return params_of(query, FoundBoundsParams)


#: the fewest grid steps between a discovery of bounds' lower and upper (fixdisc)
MIN_GRID_POINTS = 8


class DiscoverBounds(StatisticKind):
    name = "discover_bounds"
    params_type = FoundBoundsParams
    own_keys = ("lower", "upper", "grid_step", "quantiles")
    title = "Bounds found privately"
    words = "discovery of bounds"
    mechanisms = ("exponential",)
    not_taken = frozenset({"group_by"})
    bounded = True
    discovers_cells = True
    is_discovery = True
    discovers = "bounds"

    # --- plan fields -------------------------------------------------------------------------

    def read_own(self, r: FieldReader, stage: Stage, got: dict[str, Any]) -> None:
        super().read_own(r, stage, got)
        if stage == "trailing":
            got["quantiles"] = self._read_quantiles(r)
            self._require_grid_points(r, got)

    @staticmethod
    def _require_grid_points(r: FieldReader, got: dict[str, Any]) -> None:
        """A grid of fewer than MIN_GRID_POINTS steps between lower and upper finds no range
        (a step wider than the range publishes lower twice): refused at plan read, before any
        charge (fixdisc)."""
        step, low, high = got.get("grid_step"), got.get("lower"), got.get("upper")
        if step is None or low is None or high is None:
            return
        if (high - low) / step < MIN_GRID_POINTS:
            r.fail("grid_step", f"is {shown(step)}, which leaves fewer than {MIN_GRID_POINTS} "
                                f"steps between lower and upper ({shown(high - low)} wide): the "
                                "bounds found could only be a few grid points; use a grid_step "
                                "of at most 1/1000 of the range")

    @staticmethod
    def _read_quantiles(r: FieldReader) -> tuple[float, float]:
        raw = r.obj.get("quantiles", list(DEFAULT_QUANTILES))
        if not isinstance(raw, list) or len(raw) != 2 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw):
            r.fail("quantiles", "must be two numbers, the levels of the lower and the upper "
                                "bound (e.g. [0.01, 0.99])")
        for i, v in enumerate(raw):
            problem = quantile_problem(float(v))
            if problem:
                r.fail(f"quantiles[{i}]", problem)
        if not raw[0] < raw[1]:
            r.fail("quantiles", "the lower bound's level must be below the upper bound's")
        return float(raw[0]), float(raw[1])

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        out = bounds_to_dict(query)
        out["quantiles"] = list(params(query).quantiles)
        return out

    # --- DP ----------------------------------------------------------------------------------

    grid_bits = QUANTILE_GRID_BITS
    accuracy_unit = "rank"

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        one = rank_component(query, unit, relation, 1, bounds_of(query) or (0.0, 0.0))
        return [one, one]

    def sampler_refusal(self, query: Query, rows: int | None) -> str | None:
        return quantile_work_refusal(self.grid(query).points, rows)

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        m = measurements[0]
        points = self.grid(query).points
        # each bound, at its half of ε: its rank error at the confidence's square root, so
        # both hold together at the confidence
        each = math.sqrt(confidence)
        ranks = ((2 * m.component.l1 / m.epsilon)
                 * (math.log(points) + math.log(1 / (1 - each))) + 1)
        lo, hi = params(query).quantiles
        note = (f"rank error of each bound (quantiles {format_number(lo)} and "
                f"{format_number(hi)}), both together with "
                f"{confidence_percent(confidence)} confidence")
        return Accuracy(confidence, ranks, "rank", note)

    # --- data --------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        p = params(query)
        assert query.column is not None and p.lower is not None and p.upper is not None
        return GridStepCounts(query.column, float(p.lower), float(p.upper), self.grid(query))

    # --- planning and release ----------------------------------------------------------------
    gives_interval = False

    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        from ..dp.mechanisms import exponential_quantile  # the sampler (numpy), at release

        grid = self.grid(query)
        points = []
        for m, level in zip(ms, params(query).quantiles, strict=True):
            if aggregate.step_counts is not None:
                point = exponential_quantile(draw.source, None, grid.lo, grid.hi, level,
                                             m.epsilon, m.component.l1,
                                             aggregate.step_counts[0])
            else:
                assert aggregate.sorted_values is not None
                point = exponential_quantile(draw.source, aggregate.sorted_values[0], grid.lo,
                                             grid.hi, level, m.epsilon, m.component.l1)
            points.append(point)
        points.sort()  # post-processing: the lower bound first
        return QueryRelease(query.id, [
            ReleasedValue(query.id, query.title, None, cell, float(p * grid.step), None, None,
                          draw.confidence, "exponential", "a grid point; see the rank error")
            for cell, p in zip(BOUND_CELLS, points, strict=True)])

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        p = params(query)
        assert p.lower is not None and p.upper is not None
        return grid_point_problem(value, p.lower, p.upper, self.grid(query).step)

    def discovered_rows_problem(self, query: Query, plan: Plan,
                                rows: list[tuple[str, float | None]],
                                ends: list[tuple[float | None, float | None]] | None = None,
                                confidence: float | None = None) -> str | None:
        if tuple(c for c, _ in rows) != BOUND_CELLS:
            return "must hold the rows lower then upper"
        values = [v for _, v in rows]
        if any(v is None for v in values):
            return "a bound has no value"
        for v in values:
            assert v is not None
            problem = self.released_value_problem(query, v, None, None, None)
            if problem:
                return problem
        if not (values[0] or 0) <= (values[1] or 0):
            return "the lower bound is above the upper bound"
        return None

    def missing_words(self, query: Query) -> list[str]:
        return bounded_missing_words(query)

    def public_parameters(self, query: Query) -> list[tuple[str, str]]:
        p = params(query)
        lo, hi = p.quantiles
        return [("Column", query.column or ""),
                ("Searched between", f"{format_number(p.lower or 0)} and "
                                     f"{format_number(p.upper or 0)}"),
                ("Quantiles", f"{format_number(lo)} and {format_number(hi)}"),
                ("Noise", "exponential mechanism, ε split over the two bounds")]

    def check_lines(self, query: Query, plan: Plan, accuracy: dict[str, Any]) -> list[str]:
        lines = [str(accuracy.get("note", ""))]
        ranks = accuracy.get("half_width")
        if plan.dataset.expected_rows is None and isinstance(ranks, (int, float)):
            needed = rows_needed(query, float(ranks))
            lines.append(BOUNDS_AT_THE_EDGE if math.isinf(needed) else
                         BOUNDS_ROWS_UNKNOWN.format(rows=format_number(math.ceil(needed)),
                                                    how=BOUNDS_ROWS_HOW_CLI))
        return lines

    def plan_warnings(self, query: Query, plan: Plan, accuracy: Accuracy) -> list[str]:
        warning = small_table_warning(query, plan, accuracy)
        return [warning] if warning else []

    reads_row_count = True

    def owner_row_notes(self, query: Query, plan: Plan, accuracy: Accuracy, rows: int
                        ) -> list[str]:
        """walk25c: the small-table warning on the table's own rows, for the owner only,
        when the plan's public figure does not give it already (none stated, or one too
        large)."""
        if small_table_warning(query, plan, accuracy) is not None:
            return []
        own = replace(plan, dataset=replace(plan.dataset, expected_rows=max(rows, 1)))
        note = small_table_warning(query, own, accuracy, stated=BOUNDS_ROWS_STATED_OWNER,
                                   counted="this table's ")
        return [note] if note else []

    def report_meaning(self, record_query: dict[str, Any], query: Query | None,
                       confidence: float) -> str:
        return ("The two values are grid points chosen by the exponential mechanism near the "
                "stated quantiles of the column: a range for later statistics, not a "
                "statistic to read on its own. " + str(record_query["accuracy"].get("note", ""))
                + ".")

    def describe(self, column: str | None, kind_name: str, imputed: bool = False,
                 id_column: str | None = None, max_rows: int = 1, people: bool = False) -> str:
        return f"Bounds of {column} found privately"

    # --- the app's form ----------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return frozenset({COLUMN, MISSING, WHERE, BOUNDS, QUANTILES})

    # gui25: what the app's list of statistics says instead of a ±: what it publishes
    def accuracy_cell(self, query: Query, plan: Plan, acc: Accuracy) -> str:
        return "lower and upper bound"


# disc25c: the exponential mechanism's rank error against the quantile's own rank ----------

def rows_needed(query: Query, ranks: float) -> float:
    """The fewest rows on which each bound's quantile lies further from the table's edge
    than the rank error ``ranks``: a quantile q is q·n rows from the bottom, 1 - q from the
    top."""
    lo, hi = params(query).quantiles
    room = min(lo, 1 - hi)
    return ranks / room if room > 0 else math.inf  # walk25c: no row lies beyond 0 or 1


def small_table_warning(query: Query, plan: Plan, accuracy: Accuracy,
                        stated: str = BOUNDS_ROWS_STATED_CLI, counted: str = "") -> str | None:
    """The warning when the plan's public row count (``dataset.expected_rows``) is so small
    that a bound's rank error exceeds its quantile's distance from the table's edge: the
    mechanism then picks grid points outside the data about as readily as inside it (an
    outsider's bmi on 442 rows at ε = 1: 0.2 to 70 against a true 18 to 42). None when the
    row count is not stated (nothing is said from the data) or the quantiles are far enough
    in."""
    rows = plan.dataset.expected_rows
    ranks = accuracy.half_width
    if rows is None or ranks is None:
        return None
    lo, hi = params(query).quantiles
    rooms = [(lo * rows, "lower bound", "bottom", lo), ((1 - hi) * rows, "upper bound", "top",
                                                        hi)]
    short = [r for r in rooms if ranks > r[0]]
    if not short:
        return None
    room, which, edge, level = min(short)
    quantile = f"{format_number(level)} quantile's"
    if len(short) == 2 and math.isclose(rooms[0][0], rooms[1][0]):
        which, edge = "bounds", "bottom and top"
        quantile = f"{format_number(lo)} and {format_number(hi)} quantiles'"
    # the rank error is (ranks - 1) / ε' · ε + 1 at ε': the ε that brings it within the room;
    # it is at least 1 rank at any ε, so within a room of 1 row or less no ε helps (walk25c)
    more = ("" if room <= 1 else BOUNDS_SMALL_TABLE_MORE.format(
        epsilon=format_number(_up((ranks - 1) * query.epsilon / (room - 1)))))
    need = ranks / rows
    quantiles = (BOUNDS_SMALL_TABLE_QUANTILES.format(need=format_number(_up(need)))
                 if need < 0.5 else "")
    helps = (BOUNDS_SMALL_TABLE_HELPS.format(more=more, quantiles=quantiles)
             if more or quantiles else BOUNDS_SMALL_TABLE_ONLY_PUBLIC)
    return BOUNDS_SMALL_TABLE.format(
        rows=counted + format_number(rows) + (" row" if rows == 1 else " rows"),
        stated=stated, which=which,
        ranks=format_number(round(ranks, 1)),
        confidence=confidence_percent(accuracy.confidence), level=quantile,
        edge=edge, room=format_number(round(room, 1)), helps=helps[:1].upper() + helps[1:])


def _up(x: float) -> float:
    """``x`` rounded up at two significant digits (a suggestion that is enough, never less)."""
    scale = 10.0 ** (1 - math.floor(math.log10(x)))
    return math.ceil(x * scale - 1e-9) / scale
