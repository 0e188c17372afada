"""Compare the SQL engines' aggregates with the pandas path's, on the same seeded bounding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from planner_app.core.data.sql_plan import SqlEngine
from planner_app.core.data.sql_runner import DuckDBRunner
from planner_app.core.data.tables import load_table, open_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds.results import Aggregate
from planner_app.core.model import Plan
from planner_app.core.planfile import plan_from_dict
from planner_app.core.support.errors import InputError
from tests.conftest import plan_dict
from tests.oracle.pandas_engine import PandasEngine

SALT = bytes(range(32))


def plan_of(queries: list[dict[str, Any]], **extra: Any) -> Plan:
    return plan_from_dict(plan_dict(queries=queries, **extra))


def quantile_buckets(agg: Aggregate) -> list[dict[int, int]]:
    """Rows per grid step per cell, from either form of a quantile aggregate."""
    if agg.step_counts is not None:
        return [{int(s): int(n) for s, n in zip(steps, counts, strict=True) if n}
                for steps, counts in agg.step_counts]
    assert agg.sorted_values is not None
    out = []
    for values in agg.sorted_values:
        steps, counts = np.unique(values, return_counts=True)
        out.append({int(s): int(n) for s, n in zip(steps, counts, strict=True)})
    return out


def summary(agg: Aggregate) -> dict[str, Any]:
    return {
        "cells": agg.cells,
        "parts": {k: [int(x) for x in v] for k, v in sorted(agg.parts.items())},
        "answers": None if agg.answers is None else sorted(bool(a) for a in agg.answers),
        "quantile": None if agg.sorted_values is None and agg.step_counts is None
        else quantile_buckets(agg),
        "facts": vars(agg.facts),
    }


def both(plan: Plan, path: Path, salt: bytes = SALT) -> tuple[Any, Any]:
    """Every query's summary from the pandas engine (loaded table) and from DuckDB (in place),
    or the refusal each gives (both must refuse alike)."""
    loaded = load_table(path)
    try:
        pandas = PandasEngine(plan, loaded.frame, SeededRandomSource(0), loaded.name,
                              salt=salt)
    except InputError as exc:
        opened = open_table(path)
        assert opened.source is not None
        try:
            SqlEngine(plan, opened.source, DuckDBRunner(), salt, opened.name).close()
        except InputError as other:
            return str(exc), str(other)
        return str(exc), "no refusal"
    opened = open_table(path)
    assert opened.source is not None
    sql = SqlEngine(plan, opened.source, DuckDBRunner(), salt, opened.name)
    try:
        left = {q.id: summary(pandas.aggregate(q)) for q in plan.queries}
        right = {q.id: summary(sql.aggregate(q)) for q in plan.queries}
        assert pandas.rows_dropped_by_bound == sql.rows_dropped_by_bound
    finally:
        sql.close()
    return left, right


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    frame.to_csv(path, index=False)
    return path
