"""The plan's aggregates as SQL: one engine-neutral description, run by DuckDB or by Spark.

The runners (``SqlRunner``; ``DuckDBRunner``, ``SparkRunner``) and their contract:
sql_runner.py; engines.py, the composition root, names them.

What SqlEngine computes (docs/engine.md has the privacy argument):

- Bounding: with a person unit, each person keeps the ``max_rows`` rows whose key
  ``sql_keys.salted_key(salt, __row)`` (12 hex digits of ``sha256(salt_text || __row)``) is
  smallest, ties by ``__row``
  (``row_number() OVER (PARTITION BY id ORDER BY key, __row)``). The salt is 32 secret
  bytes drawn from the release's random source and never written anywhere; the tests' pandas
  oracle (tests/oracle/pandas_engine.py) given the same salt keeps exactly the same rows.
- Cells: how a cell's value matches a declared category, group key, where-value or yes/no
  value follows ``model.canonical_key``: the engine fetches the column's distinct values,
  maps them in Python, and joins the mapping (registered as a small table). Numbers follow
  ``cells.cell_number``: text of plain decimal notation is cast by the engine (correctly
  rounded in both), any other text (spaces, ``inf``, ``true``) is mapped in Python.
- One scan of the file makes the bounded table of derived columns (codes and numbers only);
  each statistic is then one GROUP BY over it returning integer counts and DECIMAL(38,0)
  sums; quantiles are counts per grid step, never sorted rows.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..kinds.params import answer_reader_of, answers_of
from ..kinds.registry import kind_of
from ..kinds.results import Aggregate, AggregateFacts
from ..kinds.shared_data import (
    BinCounts,
    CategoryCounts,
    GridStepCounts,
    GridSums,
    KeyCounts,
    Marginals,
    RowCounts,
    YesNoAnswers,
)
from ..kinds.shared_dp import cell_count, cell_labels
from ..model import (
    Plan,
    Query,
    canonical_key,
    canonical_keys,
)
from ..support.errors import InputError
from .cells import cell_number
from .cells_sql import (
    NUMBER_CLASSES,
    finite_sql,
    missing_sql,
    not_plain_sql,
    plain_number_sql,
    type_class,
)
from .facts import VALUE_ROWS, plan_columns, values_sql, values_table
from .fit import NEITHER, NUMERIC_SHARE, fit_rule, nested_problem
from .source import TableSource, engine_problem, ident, memory_problem
from .sql_aggregates import (
    MISSING,
    UNDECLARED,
    bin_case,
    cell_counts,
    double_literal,
    grid_aggregate,
    row_counts,
    yes_no_answers,
)
from .sql_keys import key_counts, salted_key
from .sql_runner import ROW, DuckDBRunner, SqlRunner

if TYPE_CHECKING:
    import duckdb


#: The texts pandas' CSV reader reads as bools (a column of only these is a bool column).
_PANDAS_BOOL_TEXTS = frozenset({"True", "TRUE", "true", "False", "FALSE", "false"})


def new_salt() -> bytes:
    """32 secret bytes for the bounding key (never written anywhere)."""
    import secrets

    return secrets.token_bytes(32)


def salt_from(source: Any) -> bytes:
    """32 bytes from a release's RandomSource (a seeded source makes them reproducible)."""
    words = source.words(4)
    return b"".join(int(w).to_bytes(8, "little") for w in words)


@dataclass
class _Derived:
    """The derived columns of the bounded table, the joins they need, and their names."""

    exprs: dict[str, str] = field(default_factory=dict)  # name -> SQL over r and joins
    joins: dict[str, list[str]] = field(default_factory=dict)  # name -> the joins it reads
    keys: dict[tuple[Any, ...], str] = field(default_factory=dict)


class SqlEngine:
    """``AggregateEngine`` over SQL: the plan's aggregates computed by a ``SqlRunner``."""

    def __init__(self, plan: Plan, source: TableSource, runner: SqlRunner, salt: bytes,
                 table_name: str | None = None, *, shown: Plan | None = None) -> None:
        self.plan = plan
        self.shown = shown or plan  # the plan as written: the fit's messages name its fields
        self.source = source
        self.runner = runner
        self.table_name = table_name or source.name
        self._salt = salt
        self._done: dict[str, tuple[Query, Aggregate]] = {}
        # one answer per distinct GROUP BY: statistics that ask the same aggregate (counts
        # over the same rows, sums of the same column) share one query (10,000 statistics
        # ran 16,666 queries; the bounded table does not change while the engine is open)
        self._grouped_done: dict[str, pd.DataFrame] = {}
        self._maps = 0
        self._d = _Derived()
        self._odd_cache: dict[str, pd.DataFrame] = {}
        self._index_cache: dict[tuple[str, int], tuple[Sequence[Any], str]] = {}
        self._numeric_cache: dict[str, bool] = {}
        self._values_made: set[str] = set()
        self._weight: str | None = None  # b's column of rows per row of b, if any
        self._key_lists: dict[str, list[str]] = {}
        self.n_rows = 0
        self.rows_dropped_by_bound = 0
        try:
            self._start()
        except InputError:
            runner.close()
            raise
        except Exception as exc:  # the engine could not read the table
            runner.close()
            if _is_engine_error(exc):
                raise engine_problem(source, exc) from None
            raise

    # -- setting up ------------------------------------------------------------------------

    def _start(self) -> None:
        wanted = dict.fromkeys(plan_columns(self.plan) + plan_columns(self.shown))
        present = [c for c in wanted if c in self.source.columns]
        self.runner.open(self.source, present)
        self.types = {c: type_class(t) for c, t in self.runner.column_types().items()}
        total = self.runner.query("SELECT count(*) AS n FROM src")
        self.n_rows = int(total["n"].iloc[0])
        if self.n_rows == 0:
            raise InputError(self.table_name, None, "has a header but no rows")
        self._check_flat_columns()
        problems = self._fit_problems()
        if problems:
            first = problems[0]
            more = len(problems) - 1
            raise InputError(first.source, first.where, first.problem + (
                f" (and {more} more problem{'s' if more > 1 else ''} with this table)"
                if more else ""))
        for q in self.plan.queries:
            self._derive(q)
        self._bound()

    def _check_flat_columns(self) -> None:
        problem = nested_problem(self.shown, lambda c: self.types.get(c) == "nested",
                                 self.table_name)
        if problem is not None:
            raise problem

    # -- cells read as numbers and as codes ---------------------------------------------------

    def _col(self, column: str) -> str:
        return f"r.{ident(column)}"

    def _is_missing(self, column: str) -> str:
        return missing_sql(self._col(column), self.types.get(column, "other"))

    def _signless(self, c: str, column: str) -> str:
        """A float cell with -0.0 read as 0.0 (``-0.0 + 0.0`` is ``0.0``): GROUP BY merges the
        two zeros, so the distinct value and the join key must not keep the sign."""
        return f"({c} + 0.0)" if self.types.get(column) == "float" else c

    def _new_map(self, frame: pd.DataFrame) -> str:
        name = f"m{self._maps}"
        self._maps += 1
        self.runner.register(name, frame)
        return name

    def _distinct(self, column: str, extra: str = "", limit: int | None = None
                  ) -> pd.DataFrame:
        """The column's distinct filled values: ``t`` the value as the join compares it,
        ``v`` the value itself, ``n`` how many cells hold it."""
        c = self._signless(ident(column), column)
        key = c if self.types.get(column) == "text" else f"CAST({c} AS VARCHAR)"
        # every value of the column: from its value counts, grouped once per column and kept
        # (the check's facts read them too: facts.values_table), not from every row again;
        # a filtered question (``extra``, a few odd values) groups only the rows it keeps
        rows = f"CAST(sum({VALUE_ROWS}) AS BIGINT)" if not extra else "count(*)"
        over = self._values(column) if not extra else "src"
        return self.runner.query(f"SELECT {key} AS t, {c} AS v, {rows} AS n FROM {over} "
                                 f"WHERE {c} IS NOT NULL {extra} GROUP BY {c}"
                                 + (f" LIMIT {int(limit)}" if limit is not None else ""))

    def _values(self, column: str) -> str:
        """The table of the column's distinct values and their rows (``facts.values_sql``),
        made on first use."""
        name = values_table(column)
        if name not in self._values_made:
            self.runner.materialize(name, values_sql(column))
            self._values_made.add(name)
        return name

    def _odd(self, column: str) -> pd.DataFrame:
        """A text column's distinct filled values that are not in plain number notation."""
        if column not in self._odd_cache:
            self._odd_cache[column] = self._distinct(
                column, f"AND {not_plain_sql(ident(column))}")
        return self._odd_cache[column]

    def number(self, column: str) -> str:
        """Name of the derived column holding the cell's finite number (NULL otherwise)."""
        key = ("num", column)
        if key in self._d.keys:
            return self._d.keys[key]
        c = self._col(column)
        cls = self.types.get(column)
        if cls == "text":
            # plain notation is cast by the engine; every other text is in the mapping (its
            # number, or NULL), so no row is matched against a pattern in the big scan
            odd = self._odd(column)
            expr, joins = plain_number_sql(c), []
            if len(odd):
                nums = [cell_number(v) for v in odd["v"]]
                m = self._new_map(pd.DataFrame({
                    "t": [str(t) for t in odd["t"]],
                    "x": np.array([x if math.isfinite(x) else np.nan for x in nums],
                                  dtype=np.float64)}))
                joins = [f"LEFT JOIN {m} ON {c} = {m}.t"]
                expr = f"CASE WHEN {m}.t IS NULL THEN {expr} ELSE {m}.x END"
        elif cls in NUMBER_CLASSES:
            expr, joins = f"CAST({c} AS DOUBLE)", []
        else:
            expr, joins = "CAST(NULL AS DOUBLE)", []
        v = f"({expr})"
        name = f"n{len(self._d.exprs)}"
        self._d.exprs[name] = finite_sql(v)
        self._d.joins[name] = joins
        self._d.keys[key] = name
        return name

    def coded(self, column: str, code: Callable[[Any], int], tag: Any,
              codes_of: Callable[[list[Any]], Sequence[int] | np.ndarray] | None = None
              ) -> str:
        """Name of the derived column holding ``code(value)`` of each cell (ABSENT/MISSING,
        -2, for an empty cell), mapped in Python over the column's distinct values
        (``codes_of`` maps them all at once, for lists of 10^6 categories)."""
        key = ("code", column, tag)
        if key in self._d.keys:
            return self._d.keys[key]
        values = self._distinct(column)
        codes: list[int] = []
        if codes_of is not None:
            missing = pd.isna(values["v"]).to_numpy(dtype=bool)
            filled = values["v"][~missing].tolist()  # numpy scalars become Python's
            if values["v"].dtype == object:
                filled = [v.item() if isinstance(v, np.generic) else v for v in filled]
            out = np.full(len(missing), MISSING, dtype=np.int64)
            out[~missing] = np.asarray(codes_of(filled), dtype=np.int64)
        else:
            for v in values["v"]:
                if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
                    codes.append(MISSING)
                else:
                    codes.append(code(v.item() if isinstance(v, np.generic) else v))
            out = np.array(codes, dtype=np.int64)
        c = self._col(column)
        name = f"c{len(self._d.exprs)}"
        if len(values):
            # ``t`` is text already (VARCHAR, _distinct): handed over as DuckDB gave it
            m = self._new_map(pd.DataFrame({"t": values["t"], "k": out}))
            on = c if self.types.get(column) == "text" else \
                f"CAST({self._signless(c, column)} AS VARCHAR)"
            self._d.joins[name] = [f"LEFT JOIN {m} ON {on} = {m}.t"]
            self._d.exprs[name] = f"COALESCE({m}.k, {MISSING})"
        else:
            self._d.exprs[name] = str(MISSING)
            self._d.joins[name] = []
        self._d.keys[key] = name
        return name

    def index_in(self, column: str, declared: Sequence[Any]) -> str:
        """Code = index of the cell's value in ``declared`` (UNDECLARED, MISSING)."""
        seen = self._index_cache.get((column, id(declared)))
        if seen is not None and seen[0] is declared:  # the same list again: no keys to make
            return seen[1]
        name = self._index_in(column, declared)
        self._index_cache[(column, id(declared))] = (declared, name)
        return name

    def _index_in(self, column: str, declared: Sequence[Any]) -> str:
        keys = canonical_keys(declared)
        index = pd.Index(keys, dtype=object)

        @functools.cache
        def lookup() -> dict[str, int]:
            return dict(zip(keys, range(len(keys)), strict=True))

        def codes_of(values: list[Any]) -> Sequence[int] | np.ndarray:
            found = canonical_keys(values)
            if index.is_unique:  # a hash lookup of every value at once (UNDECLARED: -1)
                at = index.get_indexer(pd.Index(found, dtype=object))
                return np.where(at < 0, UNDECLARED, at)
            return [lookup().get(k, UNDECLARED) for k in found]

        return self.coded(column, lambda v: lookup().get(canonical_key(v), UNDECLARED),
                          ("index", tuple(keys)), codes_of)

    def key_code(self, column: str) -> tuple[str, list[str]]:
        """Name of the derived column holding the index of each cell's canonical key among
        the column's distinct keys, sorted by their text (a discovery of keys), and that list
        (never published: the kind publishes only the keys that clear its threshold)."""
        if column not in self._key_lists:
            values = self._distinct(column)
            filled = [v.item() if isinstance(v, np.generic) else v for v in values["v"]
                      if not (v is None or v is pd.NA
                              or (isinstance(v, float) and math.isnan(v)))]
            self._key_lists[column] = sorted(set(canonical_keys(filled)))
        labels = self._key_lists[column]
        lookup = dict(zip(labels, range(len(labels)), strict=True))
        name = self.coded(column, lambda v: lookup.get(canonical_key(v), UNDECLARED),
                          ("keys",),
                          lambda vs: [lookup.get(k, UNDECLARED) for k in canonical_keys(vs)])
        return name, labels

    def answer_code(self, q: Query) -> str:
        read = answer_reader_of(q)
        assert q.column is not None
        declared = answers_of(q)
        yes, no = (declared.yes, declared.no) if declared is not None else (None, None)
        return self.coded(q.column, lambda v: {True: 1, False: 0, None: NEITHER}[read(v)],
                          ("answer", tuple(yes or ()), tuple(no or ()), yes is None))

    def present(self, column: str) -> str:
        key = ("present", column)
        if key not in self._d.keys:
            name = f"p{len(self._d.exprs)}"
            self._d.exprs[name] = f"NOT {self._is_missing(column)}"
            self._d.joins[name] = []
            self._d.keys[key] = name
        return self._d.keys[key]

    def _derive(self, q: Query) -> None:
        """Register every derived column the query will read."""
        for c in q.where:
            if c.op in ("<", "<=", ">", ">="):
                self.number(c.column)
            else:
                self.index_in(c.column, list(c.value) if c.op == "in" else [c.value])
        what = kind_of(q).aggregate_of(q)
        if isinstance(what, YesNoAnswers):
            self.answer_code(q)
            return
        if q.group_by is not None:
            if q.group_by.bins is not None:
                self.number(q.group_by.column)
            else:
                self.index_in(q.group_by.column, q.group_by.keys)
        if isinstance(what, RowCounts):
            if what.present_in is not None:
                self.present(what.present_in)
        elif isinstance(what, CategoryCounts):
            self.index_in(what.column, what.categories)
        elif isinstance(what, KeyCounts):
            self.key_code(what.column)
            self.present(what.column)
        elif isinstance(what, (BinCounts, GridSums, GridStepCounts)):
            self.number(what.column)
        else:
            raise AssertionError(f"{q.id}: {what!r} is not run by a SQL engine")

    # -- fit (the rules of fit.plan_problems, as engine queries) ------------------------------

    def _numeric_column(self, column: str) -> bool:
        cls = self.types.get(column)
        if cls in NUMBER_CLASSES:
            return True
        if cls != "text":
            return False
        if column in self._numeric_cache:
            return self._numeric_cache[column]
        row = self.runner.query(f"SELECT count({ident(column)}) AS filled FROM src")
        filled = int(row["filled"].iloc[0])
        odd = self._odd(column)
        numbers = filled - int(np.asarray(odd["n"], dtype=np.int64).sum())  # plain notation
        if numbers == 0 and len(odd) and all(str(v) in _PANDAS_BOOL_TEXTS for v in odd["v"]):
            numbers = filled  # pandas reads a column of only these texts as bools: numbers
        elif len(odd):
            ok = pd.to_numeric(pd.Series(list(odd["v"]), dtype=object), errors="coerce").notna()
            numbers += int(np.asarray(odd["n"], dtype=np.int64)[ok.to_numpy()].sum())
        self._numeric_cache[column] = filled == 0 or numbers >= NUMERIC_SHARE * filled
        return self._numeric_cache[column]

    def _yes_no_counts(self, q: Query) -> tuple[int, int]:
        """(cells read as neither, cells read as yes or no) over the whole table."""
        assert q.column is not None
        read = answer_reader_of(q)
        values = self._distinct(q.column)
        neither = known = 0
        for v, n in zip(values["v"], values["n"], strict=True):
            if isinstance(v, float) and math.isnan(v):
                continue
            a = read(v.item() if isinstance(v, np.generic) else v)
            if a is None:
                neither += int(n)
            else:
                known += int(n)
        return neither, known

    def _fit_problems(self) -> list[InputError]:
        """fit.fit_rule (the one plan/table rule) over this engine's facts."""
        unit = self.shown.privacy_unit

        def ids_missing(column: str) -> bool:
            # counted in a CASE, not filtered by WHERE: DuckDB 2.0 answers 0 to
            # ``WHERE isnan(x)`` on a Parquet scan (its filter pushdown misses NaN)
            row = self.runner.query(
                f"SELECT COALESCE(sum(CASE WHEN {self._is_missing(column)} THEN 1 "
                "ELSE 0 END), 0) AS n FROM src r")
            return bool(int(row["n"].iloc[0]))

        return fit_rule(self.shown.queries, set(self.source.columns), self.table_name,
                        numeric=self._numeric_column, yes_no=self._yes_no_counts,
                        id_column=str(unit.id_column) if unit.kind == "person" else None,
                        ids_missing=ids_missing)

    # -- bounding: one scan of the file into the bounded table ``b`` --------------------------

    def _bound(self) -> None:
        """The bounded table ``b`` of derived columns: the derivations first (codes and
        numbers, a few bytes a row), then the window that keeps each person's ``max_rows``
        rows with the smallest keys (ties, of probability 2^-48 a pair, by position)."""
        unit = self.plan.privacy_unit
        exprs = ", ".join(f"{e} AS {n}" for n, e in self._d.exprs.items()) or "1 AS _one"
        names = ", ".join(self._d.exprs) or "_one"
        joins = " ".join(dict.fromkeys(j for js in self._d.joins.values() for j in js))
        if unit.kind == "person":
            if any(_counts_people(q) for q in self.plan.queries):
                names += ", __id"  # counts of people count distinct ids
            derived = (f"SELECT {exprs}, r.{ident(str(unit.id_column))} AS __id, "
                       f"r.{ROW} AS {ROW} FROM src r {joins}")
            key = salted_key(self._salt, f"CAST({ROW} AS VARCHAR)")
            sql = (f"SELECT {names} FROM ({derived}) d QUALIFY row_number() OVER (PARTITION BY "
                   f"__id ORDER BY {key}, {ROW}) <= {unit.rows_per_unit}")
        else:
            single = self._single_grouped_column()
            if single is not None:
                # every derived column reads one column whose values are grouped already:
                # derived once per distinct value, each weighed by its rows (a row unit keeps
                # every row): 10^5 rows for a histogram of 10^5 codes, not 10^7
                self._weight = WEIGHT
                self.runner.materialize("b", f"SELECT {exprs}, {VALUE_ROWS} AS {WEIGHT} "
                                             f"FROM {single} r {joins}")
                return
            sql = f"SELECT {exprs} FROM src r {joins}"
        self.runner.materialize("b", sql)
        kept = self.runner.query("SELECT count(*) AS n FROM b")
        self.rows_dropped_by_bound = self.n_rows - int(kept["n"].iloc[0])

    def _single_grouped_column(self) -> str | None:
        """The value-counts table (``_values``) of the one column every derived column reads,
        when the engine made it; else None."""
        columns = {key[1] for key in self._d.keys}
        if len(columns) != 1:
            return None
        name = values_table(str(next(iter(columns))))
        return name if name in self._values_made else None

    # -- the owner's column facts (the whole table, before bounding) --------------------------

    def column_facts(self, column: str, limit: int = 10_001
                     ) -> tuple[float | None, float | None, frozenset[str], float]:
        """(minimum, maximum, canonical keys of up to ``limit`` distinct values present, share
        of cells that are numbers) of one column, over the whole table: what the check's
        data-aware warnings compare with the plan. Owner-only, never exported."""
        name = self.number(column)
        joins = " ".join(self._d.joins[name])
        row = self.runner.query(
            f"SELECT min(x) AS lo, max(x) AS hi, count(x) AS good, count(*) AS n FROM "
            f"(SELECT {self._d.exprs[name]} AS x FROM src r {joins}) t")
        lo, hi = row["lo"].iloc[0], row["hi"].iloc[0]
        good, n = int(row["good"].iloc[0]), int(row["n"].iloc[0])
        values = self._distinct(column, limit=limit)
        present = frozenset(canonical_key(v.item() if isinstance(v, np.generic) else v)
                            for v in values["v"]
                            if not (isinstance(v, float) and math.isnan(v)))
        return (None if good == 0 else float(lo), None if good == 0 else float(hi), present,
                good / n if n else 0.0)

    def facts_connection(self) -> duckdb.DuckDBPyConnection | None:
        """The engine's DuckDB connection, whose view ``src`` holds the plan's columns of the
        file it read (for a CSV, the rows it already parsed into its own table), so the
        check's column facts need not read the file again; None for other engines, frames,
        or once closed."""
        runner = self.runner
        if isinstance(runner, DuckDBRunner) and runner.con is not None \
                and self.source.format in ("csv", "parquet"):
            return runner.con
        return None

    # -- the interface ----------------------------------------------------------------------

    def aggregate(self, query: Query) -> Aggregate:
        hit = self._done.get(query.id)
        if hit is not None and hit[0] == query:
            return hit[1]
        try:
            agg = self._aggregate(query)
        except InputError:
            raise
        except Exception as exc:
            if _is_engine_error(exc):
                raise engine_problem(self.source, exc) from None
            raise
        self._done[query.id] = (query, agg)
        return agg

    def close(self) -> None:
        self.runner.close()

    def _where_sql(self, q: Query) -> str:
        parts = []
        for c in q.where:
            if c.op in ("<", "<=", ">", ">="):
                n = self.number(c.column)
                parts.append(f"COALESCE({n} {c.op} {double_literal(float(c.value))}, FALSE)")
            else:
                k = self.index_in(c.column, list(c.value) if c.op == "in" else [c.value])
                parts.append(f"{k} = {UNDECLARED}" if c.op == "!=" else f"{k} >= 0")
        return " AND ".join(parts) if parts else "TRUE"

    def grouped(self, keys: dict[str, str], sums: dict[str, str], where: str
                 ) -> pd.DataFrame:
        """One GROUP BY over ``b``: integer keys, row counts ``n`` and exact sums as text.

        The sums add 128-bit integers (DECIMAL(38, 0): DuckDB's HUGEINT, Spark's decimal;
        an overflow is an error, never a wrap) and come back as their decimal digits: DuckDB
        hands a DECIMAL to pandas as a float64, exact only below 2^53."""
        w = self._weight  # b's rows weighed by how many rows of the table each stands for
        rows = "count(*)" if w is None else f"CAST(COALESCE(sum({w}), 0) AS BIGINT)"
        times = "" if w is None else f" * CAST({w} AS DECIMAL(38,0))"
        cols = [f"{e} AS {n}" for n, e in keys.items()] + [f"{rows} AS n"]
        cols += [f"CAST(CAST(sum(CAST({e} AS DECIMAL(38,0)){times}) AS DECIMAL(38,0)) AS "
                 f"VARCHAR) AS {n}" for n, e in sums.items()]
        sql = f"SELECT {', '.join(cols)} FROM b WHERE {where}"
        if keys:
            sql += " GROUP BY ALL"
        hit = self._grouped_done.get(sql)
        if hit is not None:
            return hit
        out = self.runner.query(sql)
        if len(out):  # a constant key may give one row of nothing (its sums NULL)
            out = out[np.asarray(out["n"], dtype=np.int64) > 0]
        self._grouped_done[sql] = out
        return out

    def _aggregate(self, q: Query) -> Aggregate:
        facts = AggregateFacts()
        cells = cell_labels(q)
        n_cells = cell_count(q)
        agg = Aggregate(query_id=q.id, cells=cells, facts=facts)
        where = self._where_sql(q)

        what = kind_of(q).aggregate_of(q)

        if isinstance(what, YesNoAnswers):
            return yes_no_answers(self, q, agg, where)
        if isinstance(what, Marginals):
            raise AssertionError(f"{q.id}: marginals are computed as histograms "
                                 "(synthetic_marginals.SyntheticEngine)")

        keys: dict[str, str] = {}
        keys["g"] = self.index_in(q.group_by.column, q.group_by.keys) \
            if q.group_by is not None and q.group_by.bins is None else "0"
        if q.group_by is not None and q.group_by.bins is not None:  # synthetic pairs
            keys["g"] = bin_case(self.number(q.group_by.column),
                                  [float(e) for e in q.group_by.bins])

        if isinstance(what, KeyCounts):
            code, labels = self.key_code(what.column)
            return key_counts(self.runner, q, what, agg, code, labels,
                              self.present(what.column), where, self._salt,
                              self.plan.privacy_unit.kind == "person", self._weight)
        if isinstance(what, RowCounts):
            return row_counts(self, q, what, agg, keys, where, n_cells)
        if isinstance(what, (CategoryCounts, BinCounts)):
            return cell_counts(self, q, what, agg, keys, where, n_cells)
        return grid_aggregate(self, q, what, agg, keys, where, n_cells)


#: the column of ``b`` holding how many rows of the table each of its rows stands for, when
#: ``b`` holds one row per distinct value (``SqlEngine._bound``)
WEIGHT = "__planner_w"


def _counts_people(q: Query) -> bool:
    """The statistic counts distinct people (the bounded table keeps the id for it)."""
    what = kind_of(q).aggregate_of(q)
    return isinstance(what, KeyCounts) or isinstance(what, RowCounts) and what.people


#: DuckDB errors that are the SQL's own fault (a defect: raised as they are, never blamed on
#: the file)
_DEFECTS = ("BinderException", "ParserException", "CatalogException", "InternalException",
            "NotImplementedException", "SyntaxException", "ProgrammingError")


def _is_engine_error(exc: Exception) -> bool:
    """True for an error reading the table (a malformed line, a damaged file); raises the
    engine running out of memory as a one-line InputError."""
    mod = type(exc).__module__ or ""
    name = type(exc).__name__
    if not mod.startswith(("duckdb", "_duckdb", "pyspark", "py4j")):
        return False
    if name == "OutOfMemoryException":
        # before the charge: bad input as the memory check of release/memory.py (exit 2),
        # never exit 1, which says "charged but not written"
        raise InputError("", None, memory_problem()) from exc
    return name not in _DEFECTS
