"""Bare pandas computing a plan's true aggregates (no privacy): the second reference of
bench/bench_engine.py, run as a whole process.

    python bench/engine_ref_pandas.py PLAN.json TABLE.csv|.parquet

What an analyst with pandas would write: read the plan's columns (read_csv / read_parquet),
keep at most k rows per person (shuffle, then groupby().cumcount() < k), text in number
columns made empty (to_numeric(errors="coerce")), then per statistic a mask, a clip and a
sum / mean / var / median / value_counts / groupby. Prints the aggregates as one JSON line.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np
import pandas as pd
from engine_ref_duckdb import used_columns


def number(df: pd.DataFrame, column: str, cache: dict[str, pd.Series]) -> pd.Series:
    if column not in cache:
        cache[column] = pd.to_numeric(df[column], errors="coerce")
    return cache[column]


def text(df: pd.DataFrame, column: str, cache: dict[str, pd.Series]) -> pd.Series:
    key = "text:" + column
    if key not in cache:
        s = df[column]
        cache[key] = s if s.dtype == object or str(s.dtype) == "str" else s.astype("string")
    return cache[key]


def mask_of(df: pd.DataFrame, q: dict[str, Any], cache: dict[str, pd.Series]) -> pd.Series:
    mask = pd.Series(True, index=df.index)
    for c in q.get("where", []):
        op, value = c["op"], c["value"]
        if op in ("<", "<=", ">", ">=") or isinstance(value, (int, float)):
            x = number(df, c["column"], cache)
            mask &= {"<": x < value, "<=": x <= value, ">": x > value, ">=": x >= value,
                     "==": x == value, "!=": x != value}[op]
        elif op == "in":
            mask &= text(df, c["column"], cache).isin([str(v) for v in value])
        else:
            hit = text(df, c["column"], cache) == value
            mask &= hit if op == "==" else ~hit
    return mask


def aggregate(df: pd.DataFrame, q: dict[str, Any], cache: dict[str, pd.Series]) -> Any:
    mask = mask_of(df, q, cache)
    group = q.get("group_by")
    if group:
        g = text(df, group["column"], cache)
        mask &= g.isin([str(k) for k in group["keys"]])
    kind = q["kind"]
    if kind == "randomized_response":
        s = text(df, q["column"], cache)[mask]
        return [int(s.isin(q.get("yes", ["yes"])).sum()), int(s.isin(q.get("no", ["no"])).sum())]
    if kind == "count":
        if group:
            return g[mask].value_counts().to_dict()
        return int(mask.sum())
    if kind == "histogram" and "categories" in q:
        s = df[q["column"]][mask]
        return int(s.value_counts().size)
    if kind == "histogram":
        x = number(df, q["column"], cache)[mask]
        return pd.cut(x, q["bins"], right=False).value_counts(sort=False).tolist()
    x = number(df, q["column"], cache)
    impute = (q.get("missing") or {}).get("impute")
    x = x.fillna(impute) if impute is not None else x
    x = x[mask].dropna().clip(q["lower"], q["upper"])
    if kind == "quantile":
        return float(x.quantile(q.get("quantile", 0.5)))
    by = g[x.index] if group else None
    if kind == "sum":
        return x.groupby(by).sum().to_dict() if group else float(x.sum())
    if kind == "mean":
        return x.groupby(by).agg(["count", "mean"]).to_dict() if group else [len(x), x.mean()]
    return [len(x), float(x.mean()), float(x.var(ddof=0))]


def main(plan_path: str, table: str) -> None:
    plan = json.loads(open(plan_path).read())
    cols = used_columns(plan)
    df = (pd.read_parquet(table, columns=cols) if table.endswith(".parquet")
          else pd.read_csv(table, usecols=cols))
    unit = plan["privacy_unit"]
    if unit["kind"] == "person":
        df = df.iloc[np.random.default_rng().permutation(len(df))]
        df = df[df.groupby(unit["id_column"], sort=False).cumcount() < unit["max_rows"]]
    cache: dict[str, pd.Series] = {}
    out = {q["id"]: aggregate(df, q, cache) for q in plan["queries"]}
    print(json.dumps(out, default=str)[:2000])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
