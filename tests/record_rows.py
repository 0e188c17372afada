"""Tests that read or forge a record's released cells one row at a time, whatever its format:
release@2 keeps them column-wise (planner_app/core/release/result_columns.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner_app.core.release.result_columns import COLUMNS, is_column_record, result_rows

__all__ = ["edit_rows", "result_rows"]


def edit_rows(record: dict[str, Any], change: Callable[[list[dict[str, Any]]], Any]) -> None:
    """Apply ``change`` to the record's cells as row objects, then write them back in the
    record's own format (release@2: every column an array)."""
    rows = result_rows(record)
    change(rows)
    if not is_column_record(record):
        record["results"] = rows
        return
    by_query: dict[Any, list[dict[str, Any]]] = {q["id"]: [] for q in record["queries"]}
    for r in rows:
        by_query.setdefault(r["query_id"], []).append(r)
    record["results"] = [{"query_id": q, "cells": len(rs), "same": {},
                          "columns": {c: [r[c] for r in rs] for c in COLUMNS}}
                         for q, rs in by_query.items()]
