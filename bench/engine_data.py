"""The seeded census/survey-like tables and plans of bench/bench_engine.py.

The table (one row per person and survey wave), written with DuckDB's COPY straight to CSV or
Parquet, so a 100M-row file never passes through Python:

- person_id: integer; each person has 1 to 5 rows (every block of 15 rows holds five
  persons with 1, 2, 3, 4 and 5 rows, their ids rotated per block), 3 rows a person on average
- wave: 2021 + the row's position within its person (2021 to 2025)
- age: 16 to 95, the person's age in 2021 plus the wave's offset, capped at 95; 1% empty,
  0.1% the text "unknown"
- region: North, South, East or West (the person's); 0.5% empty, 0.2% "Abroad" (not declared)
- income: log-normal (median about 30,000), 2 decimals; 2% empty, 0.2% the text "refused"
- hours_per_week: 0 to 80; 0.5% empty
- satisfaction: 1 to 10; 3% empty
- smoker: yes / no (the person's, 22% yes); 1% empty, 0.5% "prefer not to say"
- employment: employed, unemployed, student or retired

Every value is a function of (seed, row or person number, column) through DuckDB's ``hash``,
so the same seed gives the same file on any machine and any number of threads (for one DuckDB
version). In the Parquet file the number columns are typed (BIGINT / DOUBLE), so a text cell
there is empty instead; the CSV keeps the texts.

The code table of the large-histogram benchmark has one column ``code``, an integer drawn
uniformly from 0 to k - 1 (k declared categories), plus 0.1% empty cells.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SEED = 20261122
REGIONS = ["North", "South", "East", "West"]
AGE_BINS = [16, 25, 35, 45, 55, 65, 75, 100]
MAX_ROWS = 3  # the privacy unit's bound: persons with 4 or 5 rows lose rows to it


def _u(key: str, column: str, seed: int) -> str:
    """SQL for a uniform number in [0, 1) from (seed, key, column)."""
    return f"((hash({key}, {seed}, '{column}') % 1000000007) / 1000000007.0)"


def survey_sql(rows: int, seed: int = SEED, typed: bool = False) -> str:
    """The SELECT producing the survey table (typed=True: number columns typed, for Parquet)."""
    u = lambda column, key="i": _u(key, column, seed)  # noqa: E731
    p = lambda column: _u("person_id", column, seed)  # noqa: E731
    # five persons a block of 15 rows with 1..5 rows each; the block's rotation of the sizes
    # is drawn, so the persons with many rows are not always last
    size_at = ("CASE WHEN r < 1 THEN 0 WHEN r < 3 THEN 1 WHEN r < 6 THEN 2 "
               "WHEN r < 10 THEN 3 ELSE 4 END")
    start_at = "[0, 1, 3, 6, 10][slot + 1]"
    text = "VARCHAR"
    age_raw = f"LEAST(95, 16 + CAST(floor({p('age')} * 75) AS BIGINT) + (wave - 2021))"
    income_raw = (f"round(exp(10.3 + 0.7 * sqrt(-2 * ln(1 - {u('inc1')})) "
                  f"* cos(2 * pi() * {u('inc2')})), 2)")
    if typed:
        age = f"CASE WHEN {u('age_m')} < 0.011 THEN NULL ELSE {age_raw} END"
        income = f"CASE WHEN {u('inc_m')} < 0.022 THEN NULL ELSE {income_raw} END"
    else:
        age = (f"CASE WHEN {u('age_m')} < 0.01 THEN NULL WHEN {u('age_m')} < 0.011 "
               f"THEN 'unknown' ELSE CAST({age_raw} AS {text}) END")
        income = (f"CASE WHEN {u('inc_m')} < 0.02 THEN NULL WHEN {u('inc_m')} < 0.022 "
                  f"THEN 'refused' ELSE CAST({income_raw} AS {text}) END")
    regions = "[" + ", ".join(f"'{r}'" for r in REGIONS) + "]"
    return f"""
WITH b AS (
    SELECT i, i // 15 AS block, i % 15 AS r FROM range({rows}) t(i)
), s AS (
    SELECT i, block, r, {size_at} AS slot FROM b
), p AS (
    SELECT i, block * 5 + ((slot + CAST(hash(block, {seed}, 'rot') % 5 AS BIGINT)) % 5)
               AS person_id,
           2021 + (r - {start_at}) AS wave
    FROM s
)
SELECT
    person_id,
    wave,
    {age} AS age,
    CASE WHEN {p('reg_m')} < 0.005 THEN NULL WHEN {p('reg_m')} < 0.007 THEN 'Abroad'
         ELSE {regions}[1 + CAST(floor({p('region')} * 4) AS BIGINT)] END AS region,
    {income} AS income,
    CASE WHEN {u('hrs_m')} < 0.005 THEN NULL
         ELSE CAST(floor({u('hours')} * 81) AS BIGINT) END AS hours_per_week,
    CASE WHEN {u('sat_m')} < 0.03 THEN NULL
         ELSE 1 + CAST(floor({u('sat')} * 10) AS BIGINT) END AS satisfaction,
    CASE WHEN {p('smk_m')} < 0.01 THEN NULL WHEN {p('smk_m')} < 0.015
         THEN 'prefer not to say' WHEN {p('smoker')} < 0.22 THEN 'yes' ELSE 'no' END AS smoker,
    ['employed', 'employed', 'employed', 'unemployed', 'student', 'retired']
        [1 + CAST(floor({u('emp')} * 6) AS BIGINT)] AS employment
FROM p

"""


def codes_sql(rows: int, k: int, seed: int = SEED) -> str:
    return (f"SELECT CASE WHEN {_u('i', 'code_m', seed)} < 0.001 THEN NULL ELSE "
            f"CAST(hash(i, {seed}, 'code') % {k} AS BIGINT) END AS code "
            f"FROM range({rows}) t(i)")


def write_table(sql: str, path: Path, memory_limit: str = "3GB") -> Path:
    """COPY the SELECT to ``path`` (CSV or Parquet by its suffix), atomically."""
    import duckdb

    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute(f"SET temp_directory = '{path.parent / 'duckdb-tmp'}'")
    options = "(FORMAT parquet, ROW_GROUP_SIZE 1000000)" if path.suffix == ".parquet" else \
        "(FORMAT csv, HEADER true)"
    con.execute(f"COPY ({sql}) TO '{part}' {options}")
    con.close()
    part.replace(path)
    return path


def survey_table(folder: Path, rows: int, fmt: str) -> Path:
    path = folder / f"survey-{rows}.{fmt}"
    if not path.exists():
        write_table(survey_sql(rows, typed=fmt == "parquet"), path)
    return path


def codes_table(folder: Path, rows: int, k: int, fmt: str = "csv") -> Path:
    path = folder / f"codes-{rows}-{k}.{fmt}"
    if not path.exists():
        write_table(codes_sql(rows, k), path)
    return path


# -- plans --------------------------------------------------------------------------------

WHY_BOUNDS = "the synthetic survey's public form design"


def _query(kind: str, n: int, epsilon: float) -> dict[str, Any]:
    """The n-th statistic of the 12 kinds (ids made unique by n)."""
    regions = {"column": "region", "keys": REGIONS}
    why_keys = {"keys": "the four official statistical regions"}
    q: dict[str, Any]
    if kind == "count":
        q = {"kind": "count"}
    elif kind == "count_where":
        q = {"kind": "count", "where": [{"column": "age", "op": ">=", "value": 18}]}
    elif kind == "sum":
        q = {"kind": "sum", "column": "income", "lower": 0, "upper": 200000,
             "where": [{"column": "wave", "op": "==", "value": 2025}],
             "justification": {"bounds": WHY_BOUNDS}}
    elif kind == "mean":
        q = {"kind": "mean", "column": "hours_per_week", "lower": 0, "upper": 80,
             "justification": {"bounds": WHY_BOUNDS}}
    elif kind == "variance":
        q = {"kind": "variance", "column": "age", "lower": 16, "upper": 100,
             "justification": {"bounds": WHY_BOUNDS}}
    elif kind == "histogram_categories":
        q = {"kind": "histogram", "column": "region", "categories": REGIONS,
             "justification": {"categories": "the four official statistical regions"}}
    elif kind == "histogram_bins":
        q = {"kind": "histogram", "column": "age", "bins": AGE_BINS,
             "justification": {"bounds": WHY_BOUNDS}}
    elif kind == "quantile":
        q = {"kind": "quantile", "column": "income", "lower": 0, "upper": 200000,
             "quantile": 0.5, "justification": {"bounds": WHY_BOUNDS}}
    elif kind == "group_mean":
        q = {"kind": "mean", "column": "satisfaction", "lower": 1, "upper": 10,
             "group_by": regions, "missing": {"impute": 5},
             "justification": {"bounds": WHY_BOUNDS, **why_keys}}
    elif kind == "group_sum":
        q = {"kind": "sum", "column": "hours_per_week", "lower": 0, "upper": 80,
             "group_by": regions, "justification": {"bounds": WHY_BOUNDS, **why_keys}}
    elif kind == "randomized_response":
        q = {"kind": "randomized_response", "column": "smoker", "yes": ["yes"], "no": ["no"],
             "justification": {"values": "the questionnaire's answers are yes and no"}}
    elif kind == "count_gaussian":
        q = {"kind": "count", "where": [{"column": "employment", "op": "==",
                                         "value": "employed"}],
             "mechanism": "gaussian", "delta": 1e-9}
    else:
        raise ValueError(kind)
    return {"id": f"{kind}_{n}", **q, "epsilon": epsilon}


KINDS = ["count", "count_where", "sum", "mean", "variance", "histogram_categories",
         "histogram_bins", "quantile", "group_mean", "group_sum", "randomized_response",
         "count_gaussian"]


def survey_plan(rows: int, statistics: int = 12, total_epsilon: float = 6.0) -> dict[str, Any]:
    """``statistics`` statistics cycling through the 12 kinds, ε shared equally."""
    each = round(total_epsilon / statistics, 6)
    return {
        "format": "planner-app/plan@1",
        "dataset": {"name": f"bench-survey-{statistics}", "expected_rows": rows},
        "privacy_unit": {"kind": "person", "id_column": "person_id", "max_rows": MAX_ROWS},
        "neighbouring": "add-remove",
        "budget": {"epsilon": total_epsilon * 1.01, "delta": 1e-6},
        "justification": "Benchmark: a synthetic survey.",
        "queries": [_query(KINDS[n % len(KINDS)], n, each) for n in range(statistics)],
    }


def codes_plan(rows: int, k: int) -> dict[str, Any]:
    return {
        "format": "planner-app/plan@1",
        "dataset": {"name": f"bench-codes-{k}", "expected_rows": rows},
        # the code column repeats (k values over many rows): the people rule asks for the
        # owner's recorded decision that the rows are different people
        "privacy_unit": {"kind": "row", "rows_are_people": {
            "reason": "one row per respondent; the code repeats, people do not"}},
        "budget": {"epsilon": 1.0, "delta": 1e-6},
        "justification": "Benchmark: a synthetic code table.",
        "queries": [{"id": "codes", "kind": "histogram", "column": "code",
                     "categories": list(range(k)), "epsilon": 1.0,
                     "justification": {"categories": "the published code list"}}],
    }


def write_plan(plan: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(plan))
    return path
