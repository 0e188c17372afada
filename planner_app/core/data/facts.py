"""What the data shows about the columns a plan names, as engine (DuckDB) queries.

Every rule here is the per-cell rule of ``model.values`` and ``cells.numeric_values`` written
as SQL (cells_sql.py, shared with the release engine) over the view ``src`` of a
``TableSource`` (a file in place or a registered frame), so a 100-million-row file is never
held in memory:

- a cell's *number* (``cells.cell_number``): a number, a bool (1/0), or text that spells a number
  (ASCII decimal or exponent notation, ``inf``; no ``_``) or ``true``/``false`` after trimming
  white space; a non-finite number counts as missing;
- a cell's *key* (``canonical_key``): a number (text that spells one is the number) or a text
  (trimmed; ``true``/``false`` in lower case), so declared categories, keys and yes/no lists
  match cells as ``model.values`` specifies.

Only the columns the plan names are read, in one query per question. Everything computed here
is private: it is shown to the owner and never exported.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..kinds.registry import kind_of
from ..kinds.shared_data import (
    BinCounts,
    CategoryCounts,
    GridStepCounts,
    GridSums,
    RowCounts,
    YesNoAnswers,
)
from ..model import Condition, Plan, Query, canonical_key
from ..support.errors import Cancelled
from .cells import detect_type
from .cells_sql import (
    ABSENT,
    NEITHER,
    Declared,
    cell_key,
    double_sql,
    is_nested,
    reads_as_text,
    yes_no_code,
)
from .facts_reader import Cancel, Progress, Reader, count_sql
from .repeats import MAX_CANDIDATES, Repeats, id_name, may_be_id, repeat_counts
from .source import TableSource, ident

if TYPE_CHECKING:
    import duckdb

PRESENT_LIMIT = 10_001  # distinct keys kept for "the declared list equals the values present"



# ----------------------------------------------------------------------------- column facts


@dataclass(frozen=True)
class ColumnFacts:
    """What the data shows about one column. For the owner's warnings only: never exported.
    ``present`` (the keys of the values present, first 10,001 distinct) is read from the
    engine when first asked for."""

    minimum: float | None
    maximum: float | None
    numeric_share: float
    loader: Callable[[], frozenset[str]] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def present(self) -> frozenset[str]:
        return self.loader() if self.loader is not None else frozenset()


def present_keys(source: TableSource, column: str, limit: int = PRESENT_LIMIT,
                 con: duckdb.DuckDBPyConnection | None = None) -> frozenset[str]:
    """The keys of (up to ``limit``) distinct values present in a column (read through
    ``con``, a connection whose view ``src`` holds the column, when given)."""
    with Reader(source, [column], con) as r:
        c = r.cell(column)
        # through a connection (a table already read): the keys of each distinct value
        cells = r.src if con is None else r.over(_values_of(column, con), [column])
        rows = r.run(f"SELECT DISTINCT {c.key_num}, {c.key_txt} FROM {cells} "
                     f"WHERE NOT {c.missing} LIMIT {int(limit)}")
    return frozenset(cell_key(n, t) for n, t in rows)


def _present_loader(source: TableSource, column: str,
                    con: duckdb.DuckDBPyConnection | None) -> Callable[[], frozenset[str]]:
    """``present_keys`` read through ``con`` while it is open, else from the file."""

    def load() -> frozenset[str]:
        import duckdb

        if con is not None:
            try:
                return present_keys(source, column, con=con)
            except duckdb.ConnectionException:  # closed since: read the file itself
                pass
        return present_keys(source, column)

    return load


def column_facts(source: TableSource, columns: Sequence[str],
                 con: duckdb.DuckDBPyConnection | None = None) -> dict[str, ColumnFacts]:
    """Minimum, maximum and share of numbers of each named column, in one query. With
    ``con`` (a connection whose view ``src`` holds these columns, such as a release engine's
    over the rows it read: ``SqlEngine.facts_connection``), the query and the values present
    read from there, not from the file again."""
    wanted = [c for c in dict.fromkeys(columns) if c in source.columns]
    if not wanted:
        return {}
    if con is not None:
        return _column_facts_by_value(source, wanted, con)
    with Reader(source, wanted, con) as r:
        parts = ["count(*)"]
        for col in wanted:
            c = r.cell(col)
            parts += [f"min({c.number})", f"max({c.number})", f"count({c.number})"]
        row = r.run(f"SELECT {', '.join(parts)} FROM {r.src}")[0]
    total = int(row[0])
    out = {}
    for i, col in enumerate(wanted):
        lo, hi, good = row[1 + 3 * i: 4 + 3 * i]
        out[col] = ColumnFacts(None if lo is None else float(lo), None if hi is None else float(hi),
                               int(good) / total if total else 0.0,
                               loader=_present_loader(source, col, con))
    return out


VALUE_ROWS = _ROWS = "__planner_rows"  # values_sql's rows column


def values_sql(column: str) -> str:
    """SQL: each distinct value of a column of ``src`` (NULL too, under the column's own
    name) and how many rows hold it (``__planner_rows``)."""
    return f"SELECT {ident(column)}, count(*) AS {_ROWS} FROM src GROUP BY {ident(column)}"


def values_table(column: str) -> str:
    """The name of the table in which a release engine keeps ``values_sql(column)``
    (``SqlEngine`` makes it once per categorical column it codes): the facts below read it
    from the engine's connection instead of grouping every row of the table again."""
    return "planner_values_" + hashlib.sha256(column.encode("utf-8")).hexdigest()[:16]


def _held(column: str, con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the connection holds the engine's table of ``values_sql(column)``."""
    held = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?",
                       [values_table(column)]).fetchone()
    return held is not None and bool(held[0])


def _values_of(column: str, con: duckdb.DuckDBPyConnection) -> str:
    """The values of ``values_sql``: the engine's table when the connection holds it, else
    the query itself (a subquery)."""
    return values_table(column) if _held(column, con) else f"({values_sql(column)})"


def _column_facts_by_value(source: TableSource, wanted: Sequence[str],
                           con: duckdb.DuckDBPyConnection) -> dict[str, ColumnFacts]:
    """``column_facts`` over a table already read (an engine's): a column whose distinct
    values the engine holds, or whose cells are text, one query per column with the cell
    rules applied to each distinct value once and weighed by its rows, not to every row (the
    rules read a value alone, so minimum, maximum and numbers counted are the same). A
    typed number column the engine did not group (an income: nearly every value distinct)
    is read row by row instead, all such columns in one scan: grouping 10^8 distinct values
    to read three numbers cost more than the release's aggregates (issue 24)."""
    with Reader(source, wanted, con) as r:
        total = int(r.run("SELECT count(*) FROM src")[0][0])
        out = {}
        scanned = [c for c in wanted if not reads_as_text(r.types[c]) and not _held(c, con)]
        if scanned:
            parts = []
            for col in scanned:
                c = r.cell(col)
                parts += [f"min({c.number})", f"max({c.number})", f"count({c.number})"]
            row = r.run(f"SELECT {', '.join(parts)} FROM {r.over('src', scanned)}")[0]
            for i, col in enumerate(scanned):
                lo, hi, good = row[3 * i: 3 * i + 3]
                out[col] = ColumnFacts(None if lo is None else float(lo),
                                       None if hi is None else float(hi),
                                       int(good) / total if total else 0.0,
                                       loader=_present_loader(source, col, con))
        for col in wanted:
            if col in out:
                continue
            c = r.cell(col)
            lo, hi, good = r.run(
                f"SELECT min({c.number}), max({c.number}), COALESCE(sum(CASE WHEN {c.number} "
                f"IS NOT NULL THEN {_ROWS} END), 0) FROM {r.over(_values_of(col, con), [col])}")[0]
            out[col] = ColumnFacts(None if lo is None else float(lo),
                                   None if hi is None else float(hi),
                                   int(good) / total if total else 0.0,
                                   loader=_present_loader(source, col, con))
    return {col: out[col] for col in wanted}


@dataclass(frozen=True)
class ColumnInfo:
    """What the owner sees about a column. Stays on the owner's screen; never exported.
    From the engine's pass over a table (``table_facts``) it also carries the column's
    facts and its filled and numeric cells, so later checks need not read the file again."""

    name: str
    detected_type: str  # number | yes/no | text
    missing: int
    facts: ColumnFacts | None = None
    filled_numbers: tuple[int, int] | None = None  # (filled cells, those spelling a number)
    repeats: Repeats | None = None  # how its values repeat, when it may be a person's id


TYPE_SAMPLE = 10_000


def _part_of(progress: Callable[[float, str], None], start: float,
             end: float) -> Callable[[float, str], None]:
    """``progress`` for one step of several: its 0..1 mapped onto start..end."""
    return lambda fraction, message: progress(start + (end - start) * fraction, message)


def table_facts(source: TableSource, progress: Progress = None,
                cancel: Cancel = None) -> tuple[int, list[ColumnInfo]]:
    """The number of rows and each column's type (from a sample of its first filled cells,
    ``cells.detect_type``) and missing cells, in one pass over the file."""
    with Reader(source, source.columns) as r:
        detected: dict[str, str] = {}
        for col in source.columns:  # the type from a sample of the first filled cells
            if cancel is not None and cancel():
                raise Cancelled(f"reading {source.name}")
            if is_nested(r.types[col]):
                detected[col] = "text"
                continue
            sample = r.run(f"SELECT {ident(col)} FROM src WHERE {ident(col)} IS NOT NULL "
                           f"LIMIT {TYPE_SAMPLE}")
            detected[col] = detect_type(pd.Series([v for (v,) in sample], dtype=object))
        # one pass: rows, missing cells, and for columns of numbers what the checks need
        numeric = [c for c in source.columns if detected[c] == "number"]
        parts = ["count(*)"]
        for col in source.columns:
            parts.append(f"count(*) - count({ident(col)})" if is_nested(r.types[col])
                         else count_sql(r.cell(col).missing))
        for col in numeric:
            c = r.cell(col)
            parts += [f"min({c.number})", f"max({c.number})", f"count({c.number})",
                      count_sql(f"NOT {c.missing} AND {c.is_number}")]
        # ... and how many distinct values (approximately) and cells with a fraction: which
        # columns may be a person's id (repeats.py), counted exactly after this pass
        ids = [c for c in source.columns
               if not is_nested(r.types[c]) and detected[c] in ("text", "number")]
        for col in ids:
            parts.append(f"approx_count_distinct({ident(col)})")
            n = r.cell(col).number if col in numeric else ""
            parts.append(count_sql(f"{n} IS NOT NULL AND {n} <> trunc({n})") if n else "0")
        # one bar for both passes, never going back: the reading pass fills 90% of it, the
        # exact count of the likely ids the rest
        reading = None if progress is None else _part_of(progress, 0.0, 0.9)
        counts: tuple[Any, ...] = r.run(f"SELECT {', '.join(parts)} FROM {r.src}", reading,
                                        cancel, f"Reading {source.name}")[0]
        rows = int(counts[0])
        missing_of = {col: int(counts[1 + i]) for i, col in enumerate(source.columns)}
        first = 1 + len(source.columns) + 4 * len(numeric)
        distinct = {col: (int(counts[first + 2 * i]), int(counts[first + 2 * i + 1]))
                    for i, col in enumerate(ids)}
        candidates = sorted(
            (c for c in ids if may_be_id(c, detected[c], distinct[c][0], rows - missing_of[c],
                                         distinct[c][1])),
            key=lambda c: (not id_name(c), -distinct[c][0]))[:MAX_CANDIDATES]
        repeats = repeat_counts(r, candidates, cancel,
                                None if progress is None else _part_of(progress, 0.9, 1.0))
        out = []
        at = 1 + len(source.columns)
        for i, col in enumerate(source.columns):
            missing = int(counts[1 + i])
            if col not in numeric:
                out.append(ColumnInfo(col, detected[col], missing, repeats=repeats.get(col)))
                continue
            lo, hi, good, numbers = counts[at:at + 4]
            at += 4
            seen = ColumnFacts(None if lo is None else float(lo),
                               None if hi is None else float(hi),
                               int(good) / rows if rows else 0.0,
                               loader=partial(present_keys, source, col))
            out.append(ColumnInfo(col, "number", missing, seen, (rows - missing, int(numbers)),
                                  repeats.get(col)))
    source._rows = rows  # count_rows() answers from here from now on
    return rows, out



# ----------------------------------------------------------------------------- owner's view


@dataclass(frozen=True)
class YesNoTally:
    """How a yes/no statistic reads its column. Owner-only: shown, never exported."""

    yes: int
    no: int
    neither: int
    empty: int


def yes_no_tally(source: TableSource, query: Query) -> YesNoTally:
    assert query.column is not None
    with Reader(source, [query.column]) as r:
        code = yes_no_code(query, r.cell(query.column), r.con, "tally")
        counts = ", ".join(count_sql(f"{code} = {v}") for v in (1, 0, NEITHER, ABSENT))
        row = r.run(f"SELECT {counts} FROM {r.src}")[0]
    return YesNoTally(*(int(v) for v in row))


def distinct_values(source: TableSource, column: str, limit: int = 50) -> list[str]:
    """Up to ``limit`` distinct filled values of a column, as keys, sorted, for the owner to
    sort into yes and no or categories (a suggestion the owner must confirm)."""
    with Reader(source, [column]) as r:
        c = r.cell(column)
        rows = r.run(f"SELECT DISTINCT {c.key_num}, {c.key_txt} FROM {r.src} WHERE NOT {c.missing} "
                     f"AND COALESCE({c.key_txt}, 'x') <> '' LIMIT {int(limit)}")
    return sorted({cell_key(n, t) for n, t in rows})


# ----------------------------------------------------------------------------- dropped cells


@dataclass
class CellFacts:
    """Owner-only counts for one statistic, over the whole table before contributions are
    bounded (as ``aggregate.AggregateFacts``; shown on screen, never exported)."""

    rows_considered: int = 0
    missing_dropped: int = 0
    missing_imputed: int = 0
    outside_declared: int = 0
    not_yes_no: int = 0


def _where(q: Query, r: Reader) -> str:
    parts = ["TRUE"]
    for i, cond in enumerate(q.where):
        parts.append(_condition(cond, r, f"{_safe(q.id)}_w{i}"))
    return " AND ".join(parts)


def _condition(cond: Condition, r: Reader, name: str) -> str:
    c = r.cell(cond.column)
    if cond.op in ("<", "<=", ">", ">="):
        return f"COALESCE({c.number} {cond.op} {double_sql(float(cond.value))}, FALSE)"
    declared = list(cond.value) if cond.op == "in" else [cond.value]
    hit = Declared.of(declared).member(c, r.con, name)
    if cond.op == "!=":
        return f"(NOT {c.missing} AND NOT {hit})"
    return hit


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text)


def plan_columns(plan: Plan) -> list[str]:
    """The columns a plan names (the id column, statistics' columns, groups, conditions)."""
    return list(dict.fromkeys(column for _, column in plan.columns_read()))


def cell_facts(source: TableSource, plan: Plan,
               con: duckdb.DuckDBPyConnection | None = None) -> tuple[int, dict[str, CellFacts]]:
    """The rows beyond the per-person limit and, per statistic, the cells that will be
    dropped, imputed or left out, in one query over the columns the plan names."""
    with Reader(source, plan_columns(plan), con) as r:
        exprs: list[str] = []
        slots: list[tuple[str, str]] = []

        def add(qid: str, what: str, condition: str) -> None:
            exprs.append(count_sql(condition))
            slots.append((qid, what))

        for q in plan.queries:
            if not _fits(q, r):
                continue
            name = _safe(q.id)
            mask = _where(q, r)
            add(q.id, "rows_considered", mask)
            what = kind_of(q).aggregate_of(q)
            if isinstance(what, YesNoAnswers):
                code = yes_no_code(q, r.cell(what.column), r.con, name)
                add(q.id, "not_yes_no", f"{code} = {NEITHER}")
                policy = "missing_imputed" if q.missing.policy == "impute" else "missing_dropped"
                add(q.id, policy, f"{code} < 0")
                continue
            if q.group_by is not None:
                g = r.cell(q.group_by.column)
                g_bins = q.group_by.bins
                in_group = Declared.of(q.group_by.keys).member(g, r.con, f"{name}_g") \
                    if g_bins is None else (f"COALESCE({g.number} >= {double_sql(g_bins[0])}"
                                            f" AND {g.number} <= {double_sql(g_bins[-1])}"
                                            ", FALSE)")
                add(q.id, "outside_declared", f"({mask}) AND NOT ({in_group})")
                mask = f"({mask}) AND ({in_group})"
            drop = q.missing.policy != "impute"
            policy = "missing_dropped" if drop else "missing_imputed"
            if isinstance(what, RowCounts):
                if what.present_in is not None:
                    c = r.cell(what.present_in)
                    add(q.id, policy, f"({mask}) AND {c.missing}")
            elif isinstance(what, CategoryCounts):
                c = r.cell(what.column)
                inside = Declared.of(what.categories).member(c, r.con, f"{name}_c")
                if drop:
                    add(q.id, policy, f"({mask}) AND {c.missing}")
                    add(q.id, "outside_declared", f"({mask}) AND NOT {c.missing} "
                                                  f"AND NOT ({inside})")
                else:  # the pandas engine counted none here; the owner sees how many
                    add(q.id, policy, f"({mask}) AND {c.missing}")
                    fill_in = canonical_key(q.missing.value) in \
                        {canonical_key(v) for v in what.categories}
                    missing_out = "FALSE" if fill_in else c.missing
                    add(q.id, "outside_declared", f"({mask}) AND ({missing_out} OR "
                                                  f"(NOT {c.missing} AND NOT ({inside})))")
            elif isinstance(what, BinCounts):
                c = r.cell(what.column)
                edges = [float(e) for e in what.edges]
                lo, hi = double_sql(edges[0]), double_sql(edges[-1])
                bad = f"({c.number} IS NULL)"
                add(q.id, policy, f"({mask}) AND {bad}")
                outside = f"({c.number} < {lo} OR {c.number} > {hi})"
                if drop:
                    add(q.id, "outside_declared", f"({mask}) AND NOT {bad} AND {outside}")
                else:
                    assert q.missing.value is not None  # validation: impute has a value
                    fill = float(q.missing.value)
                    fill_out = "TRUE" if not edges[0] <= fill <= edges[-1] else "FALSE"
                    add(q.id, "outside_declared", f"({mask}) AND ((NOT {bad} AND {outside}) OR "
                                                  f"({bad} AND {fill_out}))")
            elif isinstance(what, (GridSums, GridStepCounts)):
                c = r.cell(what.column)
                add(q.id, policy, f"({mask}) AND {c.number} IS NULL")
        unit = plan.privacy_unit
        bound = "0"
        if unit.kind == "person" and unit.id_column in r.types:
            bound = (f"(SELECT COALESCE(sum(greatest(n - {unit.rows_per_unit}, 0)), 0) FROM "
                     f"(SELECT count(*) AS n FROM src GROUP BY {ident(str(unit.id_column))}))")
        select = ", ".join([bound, *exprs])
        row = r.run(f"SELECT {select} FROM {r.src}")[0] if exprs else \
            r.run(f"SELECT {bound}")[0]
    out = {q.id: CellFacts() for q in plan.queries}
    for (qid, fact), value in zip(slots, row[1:], strict=True):
        setattr(out[qid], fact, getattr(out[qid], fact) + int(value))
    return int(row[0]), out


def _fits(q: Query, r: Reader) -> bool:
    names = [q.column] if q.column else []
    names += [q.group_by.column] if q.group_by is not None else []
    names += [c.column for c in q.where]
    return all(n in r.types and not is_nested(r.types[n]) for n in names)


# ----------------------------------------------------------------------------- fit


def numeric_columns(r: Reader, columns: Sequence[str], share: float,
                    known: Mapping[str, tuple[int, int]] | None = None) -> dict[str, bool]:
    """Which columns are "a column of numbers": a numeric or bool type, or at least ``share``
    of the filled cells spell a number (an empty column counts). ``known`` gives columns'
    (filled, numeric) cells already counted (``table_facts``), which are not read again."""
    out: dict[str, bool] = {}
    textual = []
    for col in dict.fromkeys(columns):
        c = r.cell(col)
        if c.is_number == "TRUE":
            out[col] = True
        elif known is not None and col in known:
            filled, numbers = known[col]
            out[col] = filled == 0 or numbers >= share * filled
        else:
            textual.append(col)
    if textual:
        parts = []
        for col in textual:
            c = r.cell(col)
            parts += [count_sql(f"NOT {c.missing}"),
                      count_sql(f"NOT {c.missing} AND {c.is_number}")]
        row = r.run(f"SELECT {', '.join(parts)} FROM {r.src}")[0]
        for i, col in enumerate(textual):
            filled, numbers = int(row[2 * i]), int(row[2 * i + 1])
            out[col] = filled == 0 or numbers >= share * filled
    return out


def yes_no_counts(r: Reader, queries: Sequence[Query]) -> dict[str, tuple[int, int]]:
    """Per yes/no statistic: its cells that are neither yes nor no, and those that are."""
    parts = []
    for q in queries:
        assert q.column is not None
        code = yes_no_code(q, r.cell(q.column), r.con, _safe(q.id))
        parts += [count_sql(f"{code} = {NEITHER}"), count_sql(f"{code} IN (0, 1)")]
    if not parts:
        return {}
    row = r.run(f"SELECT {', '.join(parts)} FROM {r.src}")[0]
    return {q.id: (int(row[2 * i]), int(row[2 * i + 1])) for i, q in enumerate(queries)}


def missing_ids(r: Reader, column: str) -> int:
    return int(r.run(f"SELECT {count_sql(r.cell(column).missing)} FROM {r.src}")[0][0])


def yes_no_queries(plan_or_queries: Iterable[Query], columns: Iterable[str]) -> list[Query]:
    have = set(columns)
    return [q for q in plan_or_queries
            if kind_of(q).reads_answers and q.column is not None
            and q.column in have]
