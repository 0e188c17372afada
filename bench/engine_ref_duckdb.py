"""DuckDB alone computing a plan's true aggregates (no privacy): the bare reference of
bench/bench_engine.py, run as a whole process.

    python bench/engine_ref_duckdb.py PLAN.json TABLE.csv|.parquet [--same-key]

What an analyst with DuckDB would write: read only the plan's columns from the file in place,
keep at most k rows per person (a window ordered at random: by ``random()`` for a CSV, by a
hash of the row's position for Parquet, which fits in memory at 10^8 rows), into a temporary
table, then one GROUP BY query per statistic (clamped to its bounds, the groups and
categories it names).

``--same-key`` keeps the rows the release keeps: the window is ordered by the release's own
key (``sql_keys.salted_key``: SHA-256 of a secret 32-byte salt and the row's position, its
first 12 hex digits; a fresh salt each run), the positions of a CSV from a table in file
order (DuckDB's CSV reader has none). The plain window keeps another, equally random choice
of rows at a fraction of the cost; the keyed one is the same bounding as the release's.
Text in a number column is empty (TRY_CAST). Prints the aggregates as one JSON line.
"""

from __future__ import annotations

import base64
import json
import secrets
import sys
from typing import Any

import duckdb


def ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def lit(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def num(column: str) -> str:
    return f"TRY_CAST({ident(column)} AS DOUBLE)"


def where_sql(conditions: list[dict[str, Any]]) -> list[str]:
    out = []
    for c in conditions:
        op, value = c["op"], c["value"]
        if op in ("<", "<=", ">", ">="):
            out.append(f"{num(c['column'])} {op} {value!r}")
        elif op == "in":
            out.append(f"CAST({ident(c['column'])} AS VARCHAR) IN "
                       f"({', '.join(lit(str(v)) for v in value)})")
        else:
            sql_op = "=" if op == "==" else "<>"
            if isinstance(value, (int, float)):
                out.append(f"{num(c['column'])} {sql_op} {value!r}")
            else:
                out.append(f"CAST({ident(c['column'])} AS VARCHAR) {sql_op} {lit(value)}")
    return out


def query_sql(q: dict[str, Any]) -> str:
    conds = where_sql(q.get("where", []))
    group = q.get("group_by")
    keys = ""
    if group:
        g = f"CAST({ident(group['column'])} AS VARCHAR)"
        conds.append(f"{g} IN ({', '.join(lit(str(k)) for k in group['keys'])})")
        keys = g
    impute = (q.get("missing") or {}).get("impute")
    kind = q["kind"]
    if kind == "randomized_response":
        c = f"CAST({ident(q['column'])} AS VARCHAR)"
        yes = ", ".join(lit(str(v)) for v in q.get("yes", ["yes"]))
        no = ", ".join(lit(str(v)) for v in q.get("no", ["no"]))
        select = f"count(*) FILTER ({c} IN ({yes})), count(*) FILTER ({c} IN ({no}))"
    elif kind == "count":
        select = "count(*)"
    elif kind == "histogram" and "categories" in q:
        c = f"CAST({ident(q['column'])} AS VARCHAR)"
        conds.append(f"{c} IN (SELECT unnest(?))")
        keys = ", ".join(k for k in (keys, c) if k)
        select = "count(*)"
    elif kind == "histogram":
        edges = q["bins"]
        x = num(q["column"])
        cases = " ".join(f"WHEN {x} < {edges[i + 1]!r} THEN {i}" for i in range(len(edges) - 2))
        b = f"CASE {cases} ELSE {len(edges) - 2} END"
        conds.append(f"{x} BETWEEN {edges[0]!r} AND {edges[-1]!r}")
        keys = ", ".join(k for k in (keys, b) if k)
        select = "count(*)"
    else:
        x = num(q["column"])
        if impute is not None:
            x = f"coalesce({x}, {impute!r})"
        else:
            conds.append(f"{x} IS NOT NULL")
        x = f"least(greatest({x}, {q['lower']!r}), {q['upper']!r})"
        select = {"sum": f"sum({x})", "mean": f"count(*), sum({x})",
                  "variance": f"count(*), sum({x}), var_pop({x})",
                  "quantile": f"quantile_cont({x}, {q.get('quantile', 0.5)!r})"}[kind]
    sql = f"SELECT {keys + ', ' if keys else ''}{select} FROM b"
    if conds:
        sql += " WHERE " + " AND ".join(conds)
    if keys:
        sql += " GROUP BY ALL ORDER BY ALL"
    return sql


def used_columns(plan: dict[str, Any]) -> list[str]:
    unit = plan["privacy_unit"]
    cols = [unit["id_column"]] if unit["kind"] == "person" else []
    for q in plan["queries"]:
        cols += [q[k] for k in ("column",) if q.get(k)]
        cols += [q["group_by"]["column"]] if q.get("group_by") else []
        cols += [c["column"] for c in q.get("where", [])]
    return list(dict.fromkeys(cols))


SEED = 0x5DEECE66D  # the Parquet branch's hash: a fixed order no column of the data follows


def keyed(position: str) -> str:
    """SQL: the release's key of a row (planner_app/core/data/sql_keys.py, written again
    here): the first 12 hex digits of sha256(salt's URL-safe base64 ‖ ':' ‖ position)."""
    salt = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode("ascii").rstrip("=")
    return f"substr(sha256(concat({lit(salt + ':')}, CAST({position} AS VARCHAR))), 1, 12)"


def main(plan_path: str, table: str, same_key: bool = False) -> None:
    plan = json.loads(open(plan_path).read())
    con = duckdb.connect()
    reader = (f"read_parquet({lit(table)})" if table.endswith(".parquet")
              else f"read_csv({lit(table)})")
    cols = ", ".join(ident(c) for c in used_columns(plan)) or "*"
    unit = plan["privacy_unit"]
    if unit["kind"] == "person" and same_key:
        if table.endswith(".parquet"):
            scan, position = reader[:-1] + ", file_row_number = true)", "file_row_number"
        else:
            con.execute(f"CREATE TEMP TABLE rows_in_order AS SELECT {cols} FROM {reader}")
            scan, position = "rows_in_order", "rowid"
        con.execute("SET preserve_insertion_order = false")
        con.execute(f"CREATE TEMP TABLE b AS SELECT {cols} FROM {scan} QUALIFY row_number() "
                    f"OVER (PARTITION BY {ident(unit['id_column'])} ORDER BY "
                    f"{keyed(position)}, {position}) <= {int(unit['max_rows'])}")
    elif unit["kind"] == "person" and table.endswith(".parquet"):
        # the window ordered by a hash of the row's position, in the window itself: the
        # random() column of the CSV branch runs out of memory at 10^8 rows (19.7 GB, and
        # 2 GB with DuckDB's own tuning advice), this one does not (session 9)
        con.execute("SET preserve_insertion_order = false")
        scan = reader[:-1] + ", file_row_number = true)"
        con.execute(f"CREATE TEMP TABLE b AS SELECT {cols} FROM {scan} QUALIFY row_number() "
                    f"OVER (PARTITION BY {ident(unit['id_column'])} ORDER BY "
                    f"hash(xor(file_row_number, {SEED})), file_row_number) "
                    f"<= {int(unit['max_rows'])}")
    elif unit["kind"] == "person":  # DuckDB's CSV reader has no row position to hash
        con.execute(f"CREATE TEMP TABLE b AS SELECT * EXCLUDE (_r) FROM (SELECT {cols}, "
                    f"random() AS _r FROM {reader}) QUALIFY row_number() OVER (PARTITION BY "
                    f"{ident(unit['id_column'])} ORDER BY _r) <= {int(unit['max_rows'])}")
    else:
        con.execute(f"CREATE VIEW b AS SELECT {cols} FROM {reader}")
    out = {}
    for q in plan["queries"]:
        params = ([[str(c) for c in q["categories"]]]
                  if q["kind"] == "histogram" and "categories" in q else [])
        rows = con.execute(query_sql(q), params).fetchall()
        out[q["id"]] = [list(r) for r in rows[:8]] + ([f"… {len(rows)} rows"]
                                                       if len(rows) > 8 else [])
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--same-key" in sys.argv[3:])
