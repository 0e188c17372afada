"""release.json's ``consistency`` (issue 27): the consistent values of the statistics in the
plan's relations, made from their raw noised values and public parameters only.

publish.py makes it after the noise (and, in the rehearsal, from placeholder values before
the charge); verify makes it again from the record's raw values and the plan and compares
the bytes. results.csv carries the same numbers in three more columns.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..dp.accuracy import Accuracy
from ..dp.consistent import CellNoise, consistent_values, linear_sd
from ..dp.measure import Measurement
from ..kinds.results import Aggregate, QueryRelease, ReleasedValues
from ..model import Plan, Query
from ..model.plan import HEADLINES
from ..planfile.relations import cell_tree, relation_data_problem
from ..planfile.serialisation import plan_to_dict
from ..planfile.validation import plan_from_dict
from ..planning.preview import Chart, preview_for, release_chart
from ..support.errors import InputError

#: results.csv's columns after RESULT_COLUMNS when the release has consistent values
CONSISTENT_COLUMNS = ("consistent", "consistent_low", "consistent_high")
ESTIMATE_WORDS = ("weighted least squares under the plan's relations (each value weighted "
                  "by 1 / the variance of its noise, from public parameters)")


def cell_noise(query_id: str, ms: Sequence[Measurement]) -> CellNoise:
    """The noise law of a count's or a histogram's cells, from its measurement."""
    m = ms[0]
    if m.mechanism == "laplace" and m.scale is not None:
        return CellNoise("laplace", float(m.scale), float(m.component.step))
    if m.mechanism == "gaussian" and m.sigma_sq is not None:
        return CellNoise("gaussian", float(m.sigma_sq), float(m.component.step))
    raise InputError("plan", f"queries[{query_id}]",
                     f"is released with mechanism {m.mechanism} (without noise: public under "
                     "replace-one), so it cannot be weighed against noised values in the "
                     "consistency relations; remove it from them")


def consistency_problem(plan: Plan, measurements: Mapping[str, Sequence[Measurement]]) -> \
        None:
    """Raise InputError when the relations' statistics cannot be made consistent (a count
    released without noise): checked with the plan, before anything is charged."""
    if plan.consistency is None:
        return
    for qid in cell_tree(plan).query_ids:
        cell_noise(qid, measurements[qid])


def consistency_record(plan: Plan, measurements: Mapping[str, Sequence[Measurement]],
                       raw: Mapping[str, Sequence[Any]], confidence: float) -> dict[str, Any]:
    """The record's ``consistency`` from each related statistic's raw noised values (release
    order); {} for a plan without relations."""
    c = plan.consistency
    if c is None:
        return {}
    tree = cell_tree(plan)
    noise = [cell_noise(qid, measurements[qid]) for qid in tree.query_ids
             for _ in tree.cells_of(qid)]
    y = [float(v) for qid in tree.query_ids for v in raw[qid]]
    made = consistent_values(y, noise, tree.parent, non_negative=c.non_negative,
                             integer=c.integer, confidence=confidence)
    queries = []
    for qid in tree.query_ids:
        cells = tree.cells_of(qid)
        bias = max(made.empty_cell_bias[i] for i in cells)
        queries.append({"query_id": qid,
                        "value": [made.values[i] for i in cells],
                        "low": [made.low[i] for i in cells],
                        "high": [made.high[i] for i in cells],
                        "empty_cell_bias": bias})
    return {"consistency": {
        "relations": len(c.relations),
        "estimate": ESTIMATE_WORDS
        + ("; non-negative (non-negative least squares)" if c.non_negative else "")
        + ("; whole numbers by controlled rounding that keeps every relation exactly"
           if c.integer else ""),
        "non_negative": c.non_negative, "integer": c.integer, "headline": c.headline,
        "intervals": made.method, "confidence": confidence,
        "privacy_cost": "none: computed from the noised values and the plan only",
        "queries": queries}}


def placeholder_raw(plan: Plan) -> dict[str, list[int]]:
    """Stand-in raw values for the rehearsal before the charge (no data)."""
    tree = cell_tree(plan)
    return {qid: [0] * len(tree.cells_of(qid)) for qid in tree.query_ids}


def consistency_shape_problem(section: Any) -> str | None:
    """What is wrong with a record's ``consistency`` before anything reads it (a crafted
    record must be named by verify, never crash it); None when it has the shape written."""
    if not isinstance(section, dict):
        return "consistency must be an object"
    types = {"relations": int, "estimate": str, "non_negative": bool, "integer": bool,
             "headline": str, "intervals": str, "privacy_cost": str, "queries": list}
    for key, kind in types.items():
        if not isinstance(section.get(key), kind) or isinstance(section.get(key), bool) \
                and kind is not bool:
            return f"consistency.{key} is missing or not {kind.__name__}"
    if section["headline"] not in HEADLINES:
        return f"consistency.headline must be one of {', '.join(HEADLINES)}"
    for i, q in enumerate(section["queries"]):
        if not isinstance(q, dict) or not isinstance(q.get("query_id"), str):
            return f"consistency.queries[{i}] must be an object with a text query_id"
        arrays = [q.get(k) for k in ("value", "low", "high")]
        if not all(isinstance(a, list) and all(_number(x) for x in a) for a in arrays) \
                or len({len(a) for a in arrays if isinstance(a, list)}) != 1:
            return (f"consistency.queries[{i}]: value, low and high must be lists of "
                    "numbers of one length")
        if not _number(q.get("empty_cell_bias")):
            return f"consistency.queries[{i}].empty_cell_bias must be a number"
    return None


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def consistent_columns(record: Mapping[str, Any]) -> dict[str, dict[str, list[Any]]] | None:
    """Each related statistic's consistent value, low and high by its id (None: a release
    without relations)."""
    c = record.get("consistency")
    if not isinstance(c, dict):
        return None
    return {q["query_id"]: {"consistent": q["value"], "consistent_low": q["low"],
                            "consistent_high": q["high"]} for q in c["queries"]}


def consistency_bytes(section: Any) -> bytes:
    """The canonical bytes verify compares (sorted keys, no spaces)."""
    return json.dumps(section, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def raw_values_of(tables: Mapping[str, Any], plan: Plan) -> dict[str, list[Any]]:
    """The related statistics' raw noised values from the record's result tables."""
    tree = cell_tree(plan)
    return {qid: list(tables[qid].column("value")) for qid in tree.query_ids}


def raw_values_of_releases(releases: Sequence[QueryRelease]) -> dict[str, list[Any]]:
    """Each statistic's raw noised values (release order) from its released values."""
    out: dict[str, list[Any]] = {}
    for r in releases:
        values = r.values
        out[r.query_id] = list(values.columns()[3]) if isinstance(values, ReleasedValues) \
            else [v.value for v in values]
    return out


def require_valid_relations(plan: Plan) -> None:
    """Raise InputError naming the field when the plan's relations no longer fit its
    statistics: a plan edited in the app after it was read (a statistic renamed, removed,
    regrouped) is read again from its document, as a saved file would be."""
    if plan.consistency is not None:
        plan_from_dict(plan_to_dict(plan), "plan")


def require_relations_hold(plan: Plan, measurements: Mapping[str, Sequence[Measurement]],
                            aggregates: Mapping[str, Aggregate], clamp_counts: bool) -> None:
    """Issue 27, before the charge: a plan with relations is not clamped (its non-negative
    consistent values replace clamping), each related statistic is noised, and every
    relation holds on the table's exact counts (a message for the owner, naming no number)."""
    if plan.consistency is None:
        return
    if clamp_counts:
        raise InputError("argument", "--clamp-counts",
                         "is not used with a plan that declares consistency relations: its "
                         'consistent values are kept non-negative instead ("non_negative": '
                         "true in the plan's consistency)")
    consistency_problem(plan, measurements)
    exact = {qid: aggregates[qid].parts[measurements[qid][0].component.name].tolist()
             for qid in cell_tree(plan).query_ids}
    problem = relation_data_problem(plan, exact)
    if problem is not None:
        raise InputError("plan", *problem)


# ----------------------------------------------------------------------------- the report

#: the report lists at most this many consistent cells of each statistic (results.csv and
#: release.json hold them all)
REPORT_CELLS = 12


def _cell_names(record: Mapping[str, Any], query_id: str) -> list[str]:
    """Each cell's name as the report shows it (group, category), from the record."""
    for e in record.get("results", []):
        if isinstance(e, dict) and e.get("query_id") == query_id and "columns" in e:
            n = int(e["cells"])
            groups = e["columns"].get("group", [e["same"].get("group")] * n)
            cells = e["columns"].get("cell", [e["same"].get("cell")] * n)
            return [", ".join(str(x) for x in (g, c) if x is not None) or "all"
                    for g, c in zip(groups, cells, strict=True)]
    return []


def consistency_paragraphs(record: Mapping[str, Any]) -> list[str]:
    """The report's section on consistent values (none: no section), from release.json."""
    c = record.get("consistency")
    if not isinstance(c, dict):
        return []
    ids = [str(q["query_id"]) for q in c["queries"]]
    out = [f"These statistics are also published as consistent values: {', '.join(ids)}. "
           "Each was noised on its own, so the raw noised values need not add up; the "
           "consistent values are the closest values (weighting each by how little noise it "
           "has) that add up exactly as the plan's relations say: a total is the sum of its "
           "parts at every level. They are computed from the noised values alone and cost no "
           "privacy; both are in results.csv (columns value and consistent) and release.json."]
    out.append("The headline values are the consistent ones." if c["headline"] == "consistent"
               else "The headline values are the raw noised ones; the consistent values are "
                    "given beside them.")
    if c["non_negative"]:
        biases = "; ".join(f"{q['query_id']} about +{q['empty_cell_bias']:g}"
                           for q in c["queries"])
        out.append("No consistent value is below 0. This biases small cells upward: at the "
                   "planned ε a cell whose true count is 0 comes out on average at "
                   f"{biases}. The bias fades once a cell's true count passes about twice "
                   "its interval's half-width. Since the parts still add up to their total, "
                   "what lifts the empty cells is mostly taken from their larger siblings, "
                   "which come out a little low.")
    if c["integer"]:
        out.append("They are whole numbers: each is its value rounded down or up so that "
                   "every relation still holds exactly.")
    out.append(f"Their intervals: {c['intervals']}.")
    for q in c["queries"]:
        names = _cell_names(record, str(q["query_id"]))
        shown = [f"{name} {v} [{lo}, {hi}]" for name, v, lo, hi in
                 zip(names, q["value"], q["low"], q["high"], strict=False)][:REPORT_CELLS]
        more = len(q["value"]) - len(shown)
        out.append(f"{q['query_id']}, consistent: " + "; ".join(shown)
                   + (f"; and {more:,} more (results.csv)" if more > 0 else "") + ".")
    return out


def consistent_cell_texts(section: Mapping[str, Any] | None) -> \
        dict[str, list[tuple[str, str]]]:
    """For the app's results: each related statistic's cells as (consistent value, its
    interval) texts, release order ({} without relations)."""
    if not section:
        return {}

    def text(v: Any) -> str:
        return f"{v:,}" if isinstance(v, int) else f"{v:,.3f}".rstrip("0").rstrip(".")

    return {str(q["query_id"]): [(text(v), f"{text(lo)} to {text(hi)}") for v, lo, hi in
                                 zip(q["value"], q["low"], q["high"], strict=True)]
            for q in section["queries"]}


def consistent_summary(section: Mapping[str, Any] | None) -> str:
    """One sentence for the app's results: what the consistent values are, and which are the
    headline ("" without relations)."""
    if not section:
        return ""
    head = ("the consistent ones" if section["headline"] == "consistent"
            else "the raw noised ones")
    return ("Consistent values (post-processing, no privacy cost) add up exactly as the "
            f"plan's relations say{' and are never below 0' if section['non_negative'] else ''}"
            f"; the headline values are {head}.")


def results_headline_words(record: Mapping[str, Any]) -> str:
    """For a table of results (the API's DataFrame, the bundle notebook): which columns hold
    the headline values, and what the others are."""
    c = record.get("consistency")
    if not isinstance(c, dict):
        return ("Every value is a raw noised value: value, with its interval from low to "
                "high.")
    both = ("The consistent values (consistent, from consistent_low to consistent_high) add "
            "up exactly as the plan's relations say; value, low and high are the raw noised "
            "values (empty consistent columns: a statistic in no relation).")
    if c.get("headline") == "consistent":
        return "The headline values are the consistent ones. " + both
    return "The headline values are the raw noised ones. " + both


def headline_rows(record: Mapping[str, Any], query_id: str, rows: list[dict[str, Any]],
                  indices: Sequence[int]) -> list[dict[str, Any]]:
    """The report's rows of a statistic (cells ``indices``) with the plan's headline values:
    when they are the consistent ones, each row shows its consistent value and interval and
    its note the raw noised value; otherwise the rows as they are."""
    c = record.get("consistency")
    if not isinstance(c, dict) or c.get("headline") != "consistent":
        return rows
    q = next((x for x in c["queries"] if x.get("query_id") == query_id), None)
    if q is None:
        return rows
    out = []
    for row, i in zip(rows, indices, strict=True):
        raw = f"consistent value; raw noised value {row['value']} [{row['low']}, {row['high']}]"
        out.append({**row, "value": q["value"][i], "low": q["low"][i], "high": q["high"][i],
                    "note": raw + (f"; {row['note']}" if row.get("note") else "")})
    return out


def headline_chart(query: Mapping[str, Any], rows: list[dict[str, Any]],
                   bounds: tuple[float, float] | None,
                   section: Mapping[str, Any] | None) -> Chart | None:
    """The chart of a released statistic (``rows``: its cells, release order) drawing the
    plan's headline values: its consistent values when the plan made them the headline,
    else the raw noised ones; the caption says which, when the statistic has both. None
    when no cell has a value to draw."""
    qid = str(query["id"])
    both = bool(section) and any(q.get("query_id") == qid
                                 for q in (section or {}).get("queries", []))
    shown = headline_rows({"consistency": section} if section else {}, qid, rows,
                          range(len(rows)))
    kept = [r for r in shown if r.get("value") is not None]
    if not kept:
        return None
    chart = release_chart(dict(query), kept, bounds)
    if not both:
        return chart
    assert section is not None
    drawn = (HEADLINE_DRAWN_CONSISTENT if section.get("headline") == "consistent"
             else HEADLINE_DRAWN_RAW)
    return replace(chart, caption=f"{chart.caption} {drawn}")


#: what the results chart of a statistic with consistent values draws (the headline's)
HEADLINE_DRAWN_CONSISTENT = ("These are the consistent values (the headline values): they add "
                             "up as the plan's relations say; the raw noised values are in "
                             "the table.")
HEADLINE_DRAWN_RAW = ("These are the raw noised values (the headline values); the consistent "
                      "values, which add up, are in the table.")


def planned_consistent_words(plan: Plan, measurements: Mapping[str, Sequence[Measurement]],
                             query_id: str, raw_half_width: float | None,
                             confidence: float) -> str:
    """Before the release, for the app's preview of a statistic in the plan's relations: the
    planned ± of its consistent values beside the raw ones', and which are the headline
    values ("" for a statistic in no relation). From public parameters only: the linear
    estimate's error is a fixed linear map of the noise, whatever the true values."""
    c = plan.consistency
    if c is None:
        return ""
    try:
        tree = cell_tree(plan)
    except (KeyError, AttributeError):  # relations an edit left stale: the reader names them
        return ""
    if query_id not in tree.query_ids:
        return ""
    if tree.size > PREVIEW_CELLS:
        return (f"Consistent values: their ± is worked out at the release ({tree.size:,} "
                "cells in the plan's relations).")
    half = max(_query_halves(tree, measurements, query_id, confidence))
    raw = "" if raw_half_width is None or not math.isfinite(raw_half_width) else \
        f" (the raw noised values: ± {_short(raw_half_width)})"
    head = ("the consistent values" if c.headline == "consistent"
            else "the raw noised values")
    return (f"Consistent values (they add up as the plan's relations say): about "
            f"± {_short(half)}{raw}"
            + (", never below 0" if c.non_negative else "")
            + f". The headline values are {head}.")


def _query_halves(tree: Any, measurements: Mapping[str, Sequence[Measurement]],
                  query_id: str, confidence: float) -> list[float]:
    """Each cell of ``query_id``: the planned ± of its linear consistent value."""
    variances = tuple(cell_noise(qid, measurements[qid]).variance for qid in tree.query_ids
                      for _ in tree.cells_of(qid))
    halves = _planned_half_widths(variances, tuple(tree.parent.tolist()), confidence)
    return [halves[i] for i in tree.cells_of(query_id)]


def headline_preview(query: Query, plan: Plan, accuracy: Accuracy,
                     measurements: Mapping[str, Sequence[Measurement]],
                     confidence: float) -> Chart:
    """The preview chart of ``query`` (planning/preview.preview_for), its error bars the
    planned ± of the consistent values when they are the plan's headline values and the
    statistic is in its relations (walk2627: the bars were the raw ± then too). The app's
    statistic pane and the API draw it. ``measurements``: of every statistic in the
    relations (or more)."""
    c = plan.consistency
    halves: list[float] | None = None
    if c is not None and c.headline == "consistent":
        try:
            tree = cell_tree(plan)
        except (KeyError, AttributeError):  # relations an edit left stale
            tree = None
        if tree is not None and query.id in tree.query_ids and tree.size <= PREVIEW_CELLS \
                and all(qid in measurements for qid in tree.query_ids):
            halves = _query_halves(tree, measurements, query.id, confidence)
    return preview_for(query, plan, accuracy, consistent=halves)


#: the app's preview states the consistent values' ± for relations of at most this many cells
#: (its linear algebra grows with the cube of the cells; a drag of ε asks again each step)
PREVIEW_CELLS = 300


@functools.lru_cache(maxsize=32)
def _planned_half_widths(variances: tuple[float, ...], parent: tuple[int, ...],
                         confidence: float) -> tuple[float, ...]:
    """Each cell's planned ± of its linear consistent value, as a normal approximation of
    its error (a sum of many noises); the release computes the exact interval."""
    from scipy.special import ndtri  # type: ignore[import-untyped]  # not at every release

    sd = linear_sd(np.asarray(variances), np.asarray(parent, dtype=np.int64))
    z = float(ndtri(0.5 + confidence / 2))
    return tuple(float(v) * z for v in sd)


def _short(x: float) -> str:
    """A planned ± as the pane shows one: 7.3, 9, 1,234."""
    return f"{x:,.1f}".removesuffix(".0") if x < 100 else f"{x:,.0f}"
