"""What a statistic's release will look like, as plain data for a chart: the marks (bars or a
point on a number line), their intervals, the axis and the words that say what is drawn.

Two sources, never the table:
- before release, ``preview_for`` places each mark at an illustrative value built from public
  parameters (the declared bounds, the stated approximate row count, or 100 rows for scale)
  and gives it the planned ± of accuracy.py, the same Accuracy the statistic pane's text shows;
- after release, ``release_chart`` draws the released values and intervals of release.json.

The GUI and the report only draw a ``Chart`` (charts.py); what to draw is decided here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..dp.accuracy import (
    DEFAULT_CONFIDENCE,
    Accuracy,
    format_number_short,
    quantile_name,
    shown_half_width,
    shown_unit,
)
from ..kinds import KINDS, kind_of
from ..kinds.params import quantile_level
from ..kinds.shared_dp import accuracy_for, cell_labels
from ..model import Plan, Query
from ..support.numbers import shown_point
from ..support.words import AIM_ROUND_MARK, confidence_percent

MAX_PREVIEW_CELLS = 24  # bars drawn in one chart; the rest have the same ± (a note says so)
ILLUSTRATIVE_ROWS = 100  # rows per cell for scale when the plan states no row count


@dataclass(frozen=True)
class Mark:
    """One bar or point: where it is drawn and its interval (None: no interval to draw)."""

    label: str
    centre: float
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Chart:
    """A chart's content in the unit a person reads (shares in %, quantiles in percentiles)."""

    shape: str  # "bars" (a histogram or group-by) or "line" (one value on a number line)
    marks: tuple[Mark, ...]
    value_label: str  # the value axis
    span: tuple[float, float] | None  # the values the statistic can take (shaded), if bounded
    limits: tuple[float, float]  # the value axis, showing every mark, interval and the span
    caption: str  # what the marks and the intervals are
    more: str = ""  # a note when only the first cells are drawn
    half_width: float | None = None  # the planned ± in the shown unit (previews only)
    point_label: str = ""  # written above a number line's point
    #: bars in groups: (group label, first mark, last mark), the label written under the
    #: group's own labels (a synthetic table's columns: "North" under "region")
    groups: tuple[tuple[str, int, int], ...] = ()

    def structure(self) -> tuple[Any, ...]:
        """What stays the same when only ε changes (a view can then move its artists)."""
        return (self.shape, tuple(m.label for m in self.marks), self.value_label, self.span,
                self.groups)


# ----------------------------------------------------------------------------- before release


def cell_names(query: Query) -> list[str]:
    """The declared cells in release order, named as the report names them."""
    return [" / ".join(str(p) for p in cell if p is not None) or "all"
            for cell in cell_labels(query)]


def illustrative_rows(query: Query, plan: Plan, cells: int) -> tuple[float, bool]:
    """Rows per cell to draw with (public: the stated row count split evenly), and whether
    it was stated (False: ILLUSTRATIVE_ROWS, for scale)."""
    if query.expected_count is not None:
        per_group = float(query.expected_count)
        return kind_of(query).illustrative_per_cell(query, per_group), True
    if plan.dataset.expected_rows is not None:
        return plan.dataset.expected_rows / max(cells, 1), True
    return float(ILLUSTRATIVE_ROWS), False


def _value_words(query: Query, unit: str) -> str:
    column = query.column or "value"
    if unit == "count":
        return "people or rows"
    if unit == "share":
        return f"share of yes in {column} (%)"
    if unit == "percentile":
        return "percentile of the data"
    if unit == "rank":
        return f"rows from the true {quantile_name(quantile_level(query) or 0.5)}"
    return kind_of(query).value_words(column)


def _centre_and_span(query: Query, unit: str, rows: float
                     ) -> tuple[float, tuple[float, float] | None, tuple[float, float], str]:
    """Where a mark is drawn, the values it can take (None: unbounded), the range a number
    line shows around it, and the words for where it is."""
    if unit == "share":
        return 50.0, (0.0, 100.0), (0.0, 100.0), "at 50%"
    if unit == "percentile":
        level = quantile_level(query)
        q = 100 * (level if level is not None else 0.5)
        return q, (0.0, 100.0), (0.0, 100.0), f"at the {quantile_name(level or 0.5)}"
    if unit == "rank":
        return 0.0, None, (0.0, 0.0), f"at the true {quantile_name(quantile_level(query) or 0.5)}"
    return kind_of(query).illustration(query, rows)


def _limits(marks: tuple[Mark, ...], span: tuple[float, float] | None,
            bars: bool) -> tuple[float, float]:
    """The value axis: every mark and interval, the span (or the extent around a point), and
    0 under bars."""
    points = [v for m in marks for v in (m.centre, m.low, m.high)
              if v is not None and math.isfinite(v)]
    if span is not None:
        points += list(span)
    if bars:
        points.append(0.0)
    low, high = min(points, default=0.0), max(points, default=1.0)
    if high <= low:
        high = low + 1.0
    pad = 0.06 * (high - low)
    return (low if bars and low == 0 else low - pad), high + pad


def preview_for(query: Query, plan: Plan, accuracy: Accuracy | None = None,
                confidence: float | None = None, limit: int = MAX_PREVIEW_CELLS,
                consistent: Sequence[float] | None = None) -> Chart:
    """The release's look before it exists, from the plan alone.

    ``accuracy`` is the one the caller shows in words (the statistic pane passes its own), so
    text and picture share one number; without it, accuracy_for at ``confidence``.
    ``consistent``: each cell's planned ± of its consistent values, when those are the
    headline values (release/consistent.headline_preview): the error bars draw them."""
    if accuracy is None:
        accuracy = accuracy_for(query, plan, confidence or DEFAULT_CONFIDENCE)
    names = cell_names(query)
    unit = shown_unit(accuracy)
    rows, stated = illustrative_rows(query, plan, len(names))
    centre, span, extent, where = _centre_and_span(query, unit, rows)
    hw = shown_half_width(accuracy)
    finite = hw is not None and math.isfinite(hw)
    clip = span if unit in ("share", "percentile") else None

    def interval() -> tuple[float | None, float | None]:
        if not finite:
            return None, None
        assert hw is not None
        low, high = centre - hw, centre + hw
        if clip is not None:
            low, high = max(low, clip[0]), min(high, clip[1])
        return low, high

    bars = len(names) > 1 or kind_of(query).always_bars
    marks = tuple(Mark(name, centre, *interval()) for name in names[:limit])
    if consistent is not None and finite and len(consistent) == len(names):
        return _consistent_preview(query, unit, marks, consistent[:limit],
                                   (span, span if bars else extent), bars,
                                   confidence_percent(accuracy.confidence), len(names), limit,
                                   drawn_words(query, plan, len(names), where, bars, stated))
    more = (f"The first {limit} of {len(names):,} cells are drawn; every cell has the same ±."
            if len(names) > limit else "")
    pct = confidence_percent(accuracy.confidence)
    plus = ("no interval yet: " + accuracy.note if hw is None else
            "the ± is unbounded" if not finite else
            f"the {'error bar' if bars else 'line'} is the planned ± "
            f"{format_number_short(hw)} at {pct}")
    drawn = drawn_words(query, plan, len(names), where, bars, stated)
    caption = (f"Illustration from the plan, not your data: {drawn}; {plus}"
               + (" (the same for every cell)." if bars and finite else ".")
               + (" Shaded: the values it can take." if span is not None and not bars else ""))
    return Chart("bars" if bars else "line", marks, _value_words(query, unit), span,
                 _limits(marks, span if bars else extent, bars), caption, more,
                 hw if finite else None,
                 (f"± {format_number_short(hw)}" + (f" at {pct} on every bar" if bars else ""))
                 if hw is not None and finite else "")


def drawn_words(query: Query, plan: Plan, cells: int, where: str, bars: bool,
                stated: bool) -> str:
    """Where the preview draws its bars or point, in words."""
    if kind_of(query).illustrated_by_rows:
        scale = (" (the plan's approximate row count, split evenly)" if stated else
                 f" ({ILLUSTRATIVE_ROWS} rows per cell for scale: the plan states no row count)")
        return f"{'each bar' if bars else 'the point'} is drawn {where}{scale}"
    return f"{'each bar' if bars else 'the point'} is drawn {where}"


def _consistent_preview(query: Query, unit: str, raw: tuple[Mark, ...],
                        halves: Sequence[float],
                        spans: tuple[tuple[float, float] | None, tuple[float, float] | None],
                        bars: bool,
                        pct: str, cells: int, limit: int, drawn: str) -> Chart:
    """The preview of a statistic whose headline values are its consistent values: each
    error bar is its cell's planned ± of the consistent value (walk2627: it was the raw ±)."""
    marks = tuple(Mark(m.label, m.centre, m.centre - h, m.centre + h)
                  for m, h in zip(raw, halves, strict=False))
    most = max(halves)
    same = max(halves) - min(halves) <= 1e-9 * max(1.0, most)
    each = f"± {format_number_short(most)}" if same else \
        f"up to ± {format_number_short(most)}"
    more = (f"The first {limit} of {cells:,} cells are drawn." if cells > limit else "")
    caption = (f"Illustration from the plan, not your data: {drawn}; the "
               f"{'error bar' if bars else 'line'} is the planned {each} at {pct} of the "
               "consistent values, the headline values.")
    return Chart("bars" if bars else "line", marks, _value_words(query, unit), spans[0],
                 _limits(marks, spans[1], bars), caption, more, most,
                 f"{each} at {pct}" + (" on every bar" if bars else "")
                 + " (consistent values)")


# ----------------------------------------------------------------------------- after release


def release_chart(query: dict[str, Any], rows: list[dict[str, Any]],
                  bounds: tuple[float, float] | None = None,
                  limit: int = MAX_PREVIEW_CELLS) -> Chart:
    """The released values of one statistic with their intervals, from release.json's public
    record (``bounds``: the plan's declared lower and upper, when it has them)."""
    kind = KINDS[query["kind"]]
    share = kind.shown_in_percent
    factor = 100.0 if share else 1.0

    def scaled(x: Any) -> float | None:
        return None if not isinstance(x, (int, float)) else float(x) * factor

    synth = kind.makes_table  # its cells are its marginals' (the caption names them)
    groups: tuple[tuple[str, int, int], ...] = ()
    if synth:  # each column's counts, grouped under the column's name (synthetic_groups)
        rows, groups = synthetic_groups(rows, limit)

    def name(r: dict[str, Any]) -> str:
        if synth:
            return re.sub(r",\s+", ",", str(r.get("cell", ""))).replace(" | ", "·") or "all"
        return " / ".join(str(p) for p in (r.get("group"), r.get("cell"))
                          if p is not None) or "all"

    marks = tuple(Mark(name(r), scaled(r.get("value")) or 0.0, scaled(r.get("low")),
                       scaled(r.get("high")))
                  for r in rows[:limit])
    lo, hi = bounds if bounds is not None else (None, None)
    span = kind.released_span(lo, hi)
    label = kind.released_value_words(query.get("column") or "value")
    bars = len(rows) > 1 or kind.always_bars
    conf = rows[0].get("confidence") if rows else None
    pct = (confidence_percent(conf) if isinstance(conf, (int, float))
           else "the stated confidence")
    caption = (f"The released values with their {pct} intervals." if bars else
               f"The released value with its {pct} interval.")
    if not any(m.low is not None for m in marks):
        caption = "The released value; its accuracy is a rank error, in the text."
    if synth:
        drawn = [g[0] for g in groups]
        caption = (f"The noised count of each value of {', '.join(drawn)} (its column's name "
                   f"under its values), with their {pct} intervals; the counts of pairs of "
                   "columns are in the results.")
    more = (f"The first {limit} of these {len(rows):,} "
            f"{'counts' if synth else 'cells'} are drawn."
            if len(rows) > limit else "")
    point = ""
    if not bars and marks:
        m = marks[0]
        unit = "%" if share else ""
        point = shown_point(m.centre, m.low, m.high, unit)
    # a count or a sum on a line that starts at 0 shows how large its interval is
    extent = span if span is not None or bars or not kind.line_from_zero else (0.0, 0.0)
    return Chart("bars" if bars else "line", marks, label, span, _limits(marks, extent, bars),
                 caption, more, None, point, groups)


def synthetic_groups(rows: list[dict[str, Any]], limit: int = MAX_PREVIEW_CELLS
                     ) -> tuple[list[dict[str, Any]], tuple[tuple[str, int, int], ...]]:
    """A synthetic table's rows to draw: the counts of each column's values (its one-way
    marginals; a pair's cells, "North·[16,25)", would not read as bars), column after column
    in the order given; and (column, first, last) of each group among the first ``limit``
    rows (the ones drawn). A value is then always read under its column: "N" of region and
    "N" of smoker apart."""
    order: dict[str, list[dict[str, Any]]] = {}
    pairs: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        group = str(r.get("group") or "")
        if AIM_ROUND_MARK in group:  # measured again in an AIM round: the results table's
            continue
        (pairs if " × " in group else order).setdefault(group, []).append(r)
    order = order or pairs  # only pairs given: draw them, under their pair's name
    drawn = [r for cells in order.values() for r in cells]
    groups, start = [], 0
    for name, cells in order.items():
        end = min(start + len(cells), limit)
        if end > start:
            groups.append((name, start, end - 1))
        start = end
    return drawn, tuple(groups)
