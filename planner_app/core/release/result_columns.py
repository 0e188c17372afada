"""release.json's results, kept column-wise (``planner-app/release@2``, issue 24): one entry
per statistic, in the plan's order, holding its cells as parallel arrays instead of one
object per cell (a 10^6-cell histogram was 230 MB of JSON and a dict per cell in memory).

An entry::

    {"query_id": "codes", "cells": 3,
     "same": {"label": "Codes", "group": null, "confidence": 0.95, "mechanism": "laplace",
              "note": ""},
     "columns": {"cell": ["a", "b", "c"], "value": [5, 2, 9], "low": [3, 0, 7],
                 "high": [7, 4, 11]}}

Every column of results.csv but ``query_id`` (``RESULT_COLUMNS``) is in exactly one of
``same`` (one value for every cell) or ``columns`` (an array of ``cells`` values, the cells
in release order: the plan's declared cells). results.csv is unchanged: one row per cell,
made from these columns without a dict per cell. Records of ``planner-app/release@1`` keep
one object per cell; ``tables_of`` reads both.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from ..kinds.results import QueryRelease, ReleasedValues
from .bundle import (
    CONSISTENT_FORMAT,
    RELEASE_FORMAT,
    RELEASE_FORMATS,
    RESULT_COLUMNS,
    _safe_cells,
    json_bytes,
    json_bytes_made,
)
from .consistent import CONSISTENT_COLUMNS, consistent_columns

ROW_FORMAT = RELEASE_FORMATS[0]  # results: one object per cell
COLUMN_FORMAT = RELEASE_FORMAT  # results: one entry of arrays per statistic
COLUMNS = RESULT_COLUMNS[1:]  # each entry's columns (query_id is the entry's own)
ALWAYS_ARRAYS = ("cell", "value", "low", "high")  # written as arrays even when all alike


class ResultTable:
    """One statistic's released cells as columns: ``column(name)`` is a list of ``n`` values;
    ``rows(indices)`` makes the row objects of some cells only (a report's 50)."""

    def __init__(self, query_id: str, n: int, same: dict[str, Any],
                 columns: dict[str, list[Any]]) -> None:
        self.query_id, self.n, self.same, self.columns = query_id, n, same, columns

    def column(self, name: str) -> list[Any]:
        if name == "query_id":
            return [self.query_id] * self.n
        return self.columns[name] if name in self.columns else [self.same[name]] * self.n

    def rows(self, indices: Iterable[int] | None = None) -> list[dict[str, Any]]:
        picked = range(self.n) if indices is None else indices
        cols = {c: self.column(c) for c in COLUMNS}
        return [{"query_id": self.query_id, **{c: cols[c][i] for c in COLUMNS}}
                for i in picked]

    def __len__(self) -> int:
        return self.n

    def entry(self) -> dict[str, Any]:
        """Its release.json entry."""
        return {"query_id": self.query_id, "cells": self.n, "same": self.same,
                "columns": self.columns}


def _split(columns: dict[str, Any], n: int) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """Columns given as one value (a str or float for every cell) or a list: those alike in
    every cell go to ``same`` (but the cells and their numbers stay arrays)."""
    same: dict[str, Any] = {}
    arrays: dict[str, list[Any]] = {}
    for name in COLUMNS:
        v = columns[name]
        if not isinstance(v, list):
            if name in ALWAYS_ARRAYS:
                arrays[name] = [v] * n
            else:
                same[name] = v
        elif name not in ALWAYS_ARRAYS and n and _alike(v):
            same[name] = v[0]
        else:
            arrays[name] = v
    return same, arrays


def _alike(values: list[Any]) -> bool:
    first = values[0]
    return all(type(x) is type(first) and x == first for x in values)


def table_of(release: QueryRelease) -> ResultTable:
    """A statistic's released values as a table, straight from its columns when it keeps them
    (``ReleasedValues``: a histogram's 10^6 cells make no object per cell here)."""
    values = release.values
    if isinstance(values, ReleasedValues):
        _, label, cells, value, low, high, confidence, mechanism, note = values.columns()
        n = len(cells)
        columns: dict[str, Any] = {
            "label": label, "group": [c[0] for c in cells], "cell": [c[1] for c in cells],
            "value": value, "low": low, "high": high, "confidence": confidence,
            "mechanism": mechanism, "note": note}
    else:
        n = len(values)
        columns = {c: [getattr(v, c) for v in values] for c in COLUMNS}
    same, arrays = _split(columns, n)
    return ResultTable(release.query_id, n, same, arrays)


def result_entries(releases: Sequence[QueryRelease]) -> list[dict[str, Any]]:
    """release.json's ``results``: one entry of columns per statistic, in the plan's order."""
    return [table_of(r).entry() for r in releases]


def is_column_record(record: dict[str, Any]) -> bool:
    return record.get("format") in (COLUMN_FORMAT, CONSISTENT_FORMAT)  # @3: @2 + consistency


def tables_of(record: dict[str, Any]) -> dict[str, ResultTable]:
    """Each statistic's released cells, by its id, from a record of either format (a checked
    record: verify_release's shape check has passed, or it was made by this version)."""
    if is_column_record(record):
        return {e["query_id"]: ResultTable(e["query_id"], e["cells"], e["same"], e["columns"])
                for e in record["results"]}
    by_query: dict[str, list[dict[str, Any]]] = {}
    for r in record["results"]:
        by_query.setdefault(r.get("query_id"), []).append(r)
    return {q: ResultTable(q, len(rows), {}, {c: [r.get(c) for r in rows] for c in COLUMNS})
            for q, rows in by_query.items()}


def result_rows(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Every released cell as one object (release@1's form), in the record's order: for
    small readers (a resumed release's few statistics, tests); large ones use ``tables_of``."""
    if not is_column_record(record):
        return list(record["results"])
    return [row for t in tables_of(record).values() for row in t.rows()]


def cell_count(record: dict[str, Any]) -> int:
    """How many cells the record's results hold (rows of results.csv)."""
    if is_column_record(record):
        return sum(int(e["cells"]) for e in record["results"])
    return len(record["results"])


def results_csv_of(record: dict[str, Any]) -> bytes:
    """results.csv made from the record's results, the same bytes for both formats: a header,
    then one row per cell, each column written in one pass (no object per cell)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    consistent = consistent_columns(record)  # issue 27: three more columns, when made
    writer.writerow(RESULT_COLUMNS + (CONSISTENT_COLUMNS if consistent is not None else ()))
    for t in tables_of(record).values():
        columns = [_safe_cells(t.column(c)) for c in RESULT_COLUMNS]
        if consistent is not None:
            mine = consistent.get(t.query_id)
            columns += [_safe_cells(mine[c]) if mine is not None else [""] * t.n
                        for c in CONSISTENT_COLUMNS]
        writer.writerows(zip(*columns, strict=True))
    return out.getvalue().encode("utf-8")


# ----------------------------------------------------------------------------- writing


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def results_json(entries: list[dict[str, Any]]) -> bytes:
    """release@2's ``results`` as json_bytes would write it, but each array on one line (an
    indented array puts every value on a line of its own: 10^6 lines of a few digits)."""
    if not entries:
        return b"[]\n"
    parts = []
    for e in entries:
        columns = ",\n".join(f"      {_compact(k)}: {_compact(v)}"
                             for k, v in e["columns"].items())
        parts.append("  {\n"
                     f"    \"query_id\": {_compact(e['query_id'])},\n"
                     f"    \"cells\": {int(e['cells'])},\n"
                     f"    \"same\": {_compact(e['same'])},\n"
                     + ("    \"columns\": {\n" + columns + "\n    }\n" if columns
                        else "    \"columns\": {}\n")
                     + "  }")
    return ("[\n" + ",\n".join(parts) + "\n]\n").encode("utf-8")


def record_bytes(record: dict[str, Any], plan_json: bytes | None = None) -> bytes:
    """release.json's bytes: ``json_bytes(record)`` for a release@1 record; for release@2 the
    same layout with the results' arrays each on one line. ``plan_json``: plan.json as
    already written (the record's plan, the same bytes)."""
    made: dict[str, bytes] = {} if plan_json is None else {"plan": plan_json}
    if is_column_record(record):
        made["results"] = results_json(record["results"])
    return json_bytes_made(record, made) if made else json_bytes(record)


def finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def entries_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with a release@2 record's ``results`` before anything reads them (one
    line naming the entry and the column), None when its shape is sound."""
    results = record["results"]
    if not isinstance(results, list) or not all(isinstance(e, dict) for e in results):
        return "results must be a list of objects, one per statistic"
    ids = [q.get("id") for q in record["queries"]]
    got = [e.get("query_id") for e in results]
    if got != ids:
        return ("results must hold one entry per statistic, in the order of queries "
                f"({', '.join(map(str, ids[:5]))}{'…' if len(ids) > 5 else ''})")
    for i, e in enumerate(results):
        where = f"results[{i}] ({e['query_id']})"
        if set(e) != {"query_id", "cells", "same", "columns"}:
            return f"{where} must hold exactly query_id, cells, same and columns"
        n, same, columns = e["cells"], e["same"], e["columns"]
        if type(n) is not int or n < 0:
            return f"{where}.cells must be a whole number from 0"
        if not isinstance(same, dict) or not isinstance(columns, dict):
            return f"{where}.same and .columns must be objects"
        both = set(same) & set(columns)
        if both:
            return f"{where}: {sorted(both)[0]!r} is in both same and columns"
        if set(same) | set(columns) != set(COLUMNS):
            missing = [c for c in COLUMNS if c not in same and c not in columns]
            extra = sorted(set(same) | set(columns) - set(COLUMNS))
            return (f"{where} lacks the column {missing[0]!r}" if missing
                    else f"{where} has an unknown column {extra[0]!r}")
        for name, values in columns.items():
            if not isinstance(values, list):
                return f"{where}.columns.{name} must be an array"
            if len(values) != n:
                return (f"{where}.columns.{name} has {len(values):,} values, not its "
                        f"{n:,} cells")
        for name, values in ((c, columns[c]) for c in ("value", "low", "high")
                             if c in columns):
            if not all(v is None or finite(v) for v in values):
                return f"{where}.columns.{name} must hold numbers (or null)"
    return None


def labels_problem(table: ResultTable, declared: Sequence[tuple[Any, ...]]) -> str | None:
    """The table's group and cell columns are the plan's declared cells, in order."""
    groups, cells = table.column("group"), table.column("cell")
    for i, (g, c, want) in enumerate(zip(groups, cells, declared, strict=False)):
        if (g, c) != tuple(want):
            return (f"results of {table.query_id!r}: cell {i + 1} is labelled "
                    f"{_compact([g, c])[:80]}, but the plan declares "
                    f"{_compact(list(want))[:80]} there")
    return None

