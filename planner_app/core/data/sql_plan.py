"""The plan's aggregates as SQL: one engine-neutral description, run by DuckDB or by Spark.

Contract for a runner (``SqlRunner``; ``DuckDBRunner`` here, ``SparkRunner`` in spark_engine.py;
engines.py, the composition root, names them):

- Every SQL text ``SqlEngine`` hands a runner is in DuckDB's dialect and uses only constructs
  that ``sqlglot.transpile(sql, read="duckdb", write="spark")`` turns into valid Spark SQL
  (DECIMAL(38,0) sums, CASE, LEAST/GREATEST, FLOOR, TRY_CAST, regexp_matches -> RLIKE,
  sha256 -> SHA2(..., 256), row_number() OVER (...) with QUALIFY, LEFT JOINs on small tables).
  A Spark runner transpiles each text and runs it; it never writes SQL of its own.
- ``open(source, columns)`` makes the view ``src``: the named columns under their header names,
  plus ``__row`` (BIGINT), the 0-based position of the data row in the file (the header is not
  a row). CSV cells are text (VARCHAR/string), the texts in ``source.PANDAS_NA_TEXTS`` are NULL;
  Parquet columns keep their types. Rows are never reordered or dropped.
- ``column_types()`` gives each ``src`` column's type as a DuckDB type name (VARCHAR, BIGINT,
  INTEGER, DOUBLE, FLOAT, BOOLEAN, DECIMAL(p,s), ...; a nested column's name holds ``[]``,
  ``STRUCT`` or ``MAP``).
- ``register(name, frame)`` makes a small pandas frame (a value mapping) a table ``name``.
- ``materialize(name, sql)`` computes ``sql`` once into a table ``name`` that later queries
  read (DuckDB: a temporary table, spilling to disk; Spark: a cached temporary view).
- ``query(sql)`` returns the (small) result as a pandas frame; DECIMAL columns may come back as
  ``decimal.Decimal`` or int (the engine converts them with ``int``).
- ``close()`` frees everything. Any error reading the table is raised as it is; the engine
  turns it into a one-line ``InputError`` (``source.engine_problem``).

What SqlEngine computes (docs/engine.md has the privacy argument):

- Bounding: with a person unit, each person keeps the ``max_rows`` rows whose key
  ``substr(sha256(salt_hex || ':' || __row), 1, 12)`` is smallest, ties by ``__row``
  (``row_number() OVER (PARTITION BY id ORDER BY key, __row)``). The salt is 32 secret
  bytes drawn from the release's random source and never written anywhere; ``PandasEngine``
  given the same salt keeps exactly the same rows.
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

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from ..dp.sensitivity import cell_count
from ..kinds.registry import kind_of
from ..kinds.results import Aggregate, AggregateFacts
from ..kinds.shared_data import (
    BinCounts,
    CategoryCounts,
    GridStepCounts,
    GridSums,
    Marginals,
    RowCounts,
    YesNoAnswers,
)
from ..model import (
    Plan,
    Query,
    answer_reader,
    canonical_key,
    canonical_keys,
)
from ..support.errors import InputError
from .aggregate import (
    KEY_HEX_CHARS,
    MISSING,
    UNDECLARED,
    cell_labels,
)
from .cells import cell_number
from .cells_sql import (
    NUMBER_CLASSES,
    finite_sql,
    missing_sql,
    not_plain_sql,
    plain_number_sql,
    type_class,
)
from .facts import plan_columns
from .fit import ABSENT, NEITHER, NUMERIC_SHARE, fit_rule, nested_problem
from .source import TableSource, engine_problem, ident, literal, memory_problem

if TYPE_CHECKING:
    import duckdb

ROW = "__row"  # the row's 0-based position in the file, a column of ``src``
KEY_CHARS = KEY_HEX_CHARS  # the bounding key: this many hex digits of the row's sha256

#: The texts pandas' CSV reader reads as bools (a column of only these is a bool column).
_PANDAS_BOOL_TEXTS = frozenset({"True", "TRUE", "true", "False", "FALSE", "false"})


class SqlRunner(Protocol):
    """Runs the engine's SQL (DuckDB dialect) on one engine. See the module docstring."""

    def open(self, source: TableSource, columns: Sequence[str]) -> None: ...

    def column_types(self) -> dict[str, str]: ...

    def register(self, name: str, frame: pd.DataFrame) -> None: ...

    def materialize(self, name: str, sql: str) -> None: ...

    def query(self, sql: str) -> pd.DataFrame: ...

    def close(self) -> None: ...


class DuckDBRunner:
    """The embedded columnar engine: reads CSV and Parquet in place, spills to disk."""

    def __init__(self) -> None:
        self.con: duckdb.DuckDBPyConnection | None = None
        self._source: TableSource | None = None
        self._nested: set[str] = set()
        self._spill: str | None = None

    def open(self, source: TableSource, columns: Sequence[str]) -> None:
        wanted = list(dict.fromkeys(columns))
        self._source = source
        if source.format == "parquet":
            con = self._settings(source.connect([]))
            select = ", ".join([ident(c) for c in wanted] + [f"file_row_number AS {ROW}"])
            scan = source.scan_sql()[:-1] + ", file_row_number = true)"
            con.execute("DROP VIEW src")
            con.execute(f"CREATE VIEW src AS SELECT {select} FROM {scan}")
            con.execute("SET preserve_insertion_order = false")  # positions: file_row_number
        elif source.format == "csv":
            # a table in file order (insertion order is kept), so rowid is the row's position
            con = self._settings(source.connect(wanted))
            con.execute("CREATE TEMP TABLE src_rows AS SELECT * FROM src")
            con.execute("DROP VIEW src")
            cols = ", ".join([ident(c) for c in wanted] + [f"rowid AS {ROW}"])
            con.execute(f"CREATE VIEW src AS SELECT {cols} FROM src_rows")
            # from here on no result needs the file's order (positions are in __row): DuckDB
            # may reorder, which keeps big materializations within its memory
            con.execute("SET preserve_insertion_order = false")
        else:
            assert source.frame is not None
            con = self._settings(source.connect([]))
            by_name = {str(c): c for c in source.frame.columns}
            frame = pd.DataFrame({c: self._frame_column(c, source.frame[by_name[c]])
                                  for c in wanted},
                                 index=pd.RangeIndex(len(source.frame)))
            frame[ROW] = np.arange(len(frame), dtype=np.int64)
            con.register("src_frame_rows", frame)
            con.execute("DROP VIEW src")
            con.execute("CREATE VIEW src AS SELECT * FROM src_frame_rows")
        self.con = con

    def _settings(self, con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
        """No progress bar (never on the command line's output); spills (private: derived
        cells) go to a folder only this user can read, removed when the engine closes."""
        import tempfile

        con.execute("SET enable_progress_bar = false")
        self._spill = tempfile.mkdtemp(prefix="planner-app-engine-")
        con.execute(f"SET temp_directory = {literal(self._spill)}")
        return con

    def _frame_column(self, name: str, column: pd.Series) -> Any:
        """A frame's column as DuckDB reads it: numbers and bools keep their type; any other
        column becomes text, each cell its ``str`` (the text canonical_key and cell_number
        read it as, so nothing changes how a cell matches or reads as a number)."""
        dtype = column.dtype
        if (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)) \
                and not isinstance(dtype, pd.CategoricalDtype):
            return column.to_numpy() if dtype.kind in "biuf" else column
        present = column.dropna()
        if len(present) and isinstance(present.iloc[0], (list, tuple, dict, set, np.ndarray)):
            self._nested.add(name)
            return np.full(len(column), None, dtype=object)
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        texts = np.array([str(u) for u in uniques] + [None], dtype=object)
        return texts[codes]

    def column_types(self) -> dict[str, str]:
        assert self.con is not None
        rows = self.con.execute("DESCRIBE SELECT * FROM src").fetchall()
        return {str(r[0]): "VARCHAR[]" if str(r[0]) in self._nested else str(r[1])
                for r in rows}

    def register(self, name: str, frame: pd.DataFrame) -> None:
        assert self.con is not None
        self.con.register(name, frame)

    def materialize(self, name: str, sql: str) -> None:
        assert self.con is not None
        self.con.execute(f"CREATE TEMP TABLE {name} AS {sql}")

    def query(self, sql: str) -> pd.DataFrame:
        assert self.con is not None
        out: pd.DataFrame = self.con.execute(sql).df()
        return out

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None
        if self._spill is not None:
            import shutil

            shutil.rmtree(self._spill, ignore_errors=True)
            self._spill = None


def new_salt() -> bytes:
    """32 secret bytes for the bounding key (never written anywhere)."""
    import secrets

    return secrets.token_bytes(32)


def salt_from(source: Any) -> bytes:
    """32 bytes from a release's RandomSource (a seeded source makes them reproducible)."""
    words = source.words(4)
    return b"".join(int(w).to_bytes(8, "little") for w in words)


def _double(x: float) -> str:
    """An exact double literal."""
    return f"CAST({literal(repr(float(x)))} AS DOUBLE)"


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
        present = [c for c in plan_columns(self.plan) if c in self.source.columns]
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
        return self.runner.query(f"SELECT {key} AS t, {c} AS v, count(*) AS n FROM src "
                                 f"WHERE {c} IS NOT NULL {extra} GROUP BY {c}"
                                 + (f" LIMIT {int(limit)}" if limit is not None else ""))

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
              codes_of: Callable[[list[Any]], list[int]] | None = None) -> str:
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
            codes = out.tolist()
        for v in values["v"] if codes_of is None else ():
            if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
                codes.append(MISSING)
            else:
                codes.append(code(v.item() if isinstance(v, np.generic) else v))
        c = self._col(column)
        name = f"c{len(self._d.exprs)}"
        if len(values):
            m = self._new_map(pd.DataFrame({"t": [str(t) for t in values["t"]],
                                            "k": np.array(codes, dtype=np.int64)}))
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
        lookup = dict(zip(keys, range(len(keys)), strict=True))
        return self.coded(column, lambda v: lookup.get(canonical_key(v), UNDECLARED),
                          ("index", tuple(keys)),
                          lambda vs: [lookup.get(k, UNDECLARED) for k in canonical_keys(vs)])

    def answer_code(self, q: Query) -> str:
        read = answer_reader(q)
        assert q.column is not None
        return self.coded(q.column, lambda v: {True: 1, False: 0, None: NEITHER}[read(v)],
                          ("answer", tuple(q.yes or ()), tuple(q.no or ()), q.yes is None))

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
        read = answer_reader(q)
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
            salt = literal(self._salt.hex() + ":")
            key = f"substr(sha256(concat({salt}, CAST({ROW} AS VARCHAR))), 1, {KEY_CHARS})"
            sql = (f"SELECT {names} FROM ({derived}) d QUALIFY row_number() OVER (PARTITION BY "
                   f"__id ORDER BY {key}, {ROW}) <= {unit.rows_per_unit}")
        else:
            sql = f"SELECT {exprs} FROM src r {joins}"
        self.runner.materialize("b", sql)
        kept = self.runner.query("SELECT count(*) AS n FROM b")
        self.rows_dropped_by_bound = self.n_rows - int(kept["n"].iloc[0])

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
                parts.append(f"COALESCE({n} {c.op} {_double(float(c.value))}, FALSE)")
            else:
                k = self.index_in(c.column, list(c.value) if c.op == "in" else [c.value])
                parts.append(f"{k} = {UNDECLARED}" if c.op == "!=" else f"{k} >= 0")
        return " AND ".join(parts) if parts else "TRUE"

    def _grouped(self, keys: dict[str, str], sums: dict[str, str], where: str
                 ) -> pd.DataFrame:
        """One GROUP BY over ``b``: integer keys, row counts ``n`` and DECIMAL sums."""
        cols = [f"{e} AS {n}" for n, e in keys.items()] + ["count(*) AS n"]
        cols += [f"CAST(sum(CAST({e} AS DECIMAL(38,0))) AS DECIMAL(38,0)) AS {n}"
                 for n, e in sums.items()]
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
            code = self.answer_code(q)
            considered = self._grouped({}, {}, where)
            facts.rows_considered = int(considered["n"].sum()) if len(considered) else 0
            t = self._grouped({"a": code}, {}, "TRUE")
            counts = {int(a): int(n) for a, n in zip(t["a"], t["n"], strict=True)}
            yes, no = counts.get(1, 0), counts.get(0, 0)
            unknown = counts.get(NEITHER, 0) + counts.get(ABSENT, 0)
            facts.not_yes_no = counts.get(NEITHER, 0)
            if q.missing.policy == "impute":
                facts.missing_imputed = unknown
                fill = bool(answer_reader(q)(q.missing.value))
                yes, no = (yes + unknown, no) if fill else (yes, no + unknown)
            else:
                facts.missing_dropped = unknown
            agg.answers = np.concatenate([np.ones(yes, dtype=bool), np.zeros(no, dtype=bool)])
            return agg
        if isinstance(what, Marginals):
            raise AssertionError(f"{q.id}: marginals are computed as histograms "
                                 "(synthetic_marginals.SyntheticEngine)")

        keys: dict[str, str] = {}
        keys["g"] = self.index_in(q.group_by.column, q.group_by.keys) \
            if q.group_by is not None and q.group_by.bins is None else "0"
        if q.group_by is not None and q.group_by.bins is not None:  # synthetic pairs
            keys["g"] = _bin_case(self.number(q.group_by.column),
                                  [float(e) for e in q.group_by.bins])

        if isinstance(what, RowCounts):
            return self._row_counts(q, what, agg, keys, where, n_cells)
        if isinstance(what, (CategoryCounts, BinCounts)):
            return self._cell_counts(q, what, agg, keys, where, n_cells)
        return self._grid(q, what, agg, keys, where, n_cells)

    def _row_counts(self, q: Query, what: RowCounts, agg: Aggregate, keys: dict[str, str],
                    where: str, n_cells: int) -> Aggregate:
        facts = agg.facts
        present = what.present_in
        keys["p"] = f"CASE WHEN {self.present(present)} THEN 1 ELSE 0 END" \
            if present is not None else "1"
        t = self._grouped(keys, {}, where)
        g, p, n = (np.asarray(t[c], dtype=np.int64) for c in ("g", "p", "n"))
        facts.rows_considered = int(n.sum())
        facts.outside_declared = int(n[g < 0].sum())
        inside = g >= 0
        if q.missing.policy == "drop":
            facts.missing_dropped = int(n[inside & (p == 0)].sum())
            use = inside & (p == 1)
        else:
            facts.missing_imputed = int(n[inside & (p == 0)].sum())
            use = inside
        agg.parts["count"] = _exact_bincount(g[use], n[use], n_cells)
        if what.people:  # each person once a cell: any of their kept rows in it
            kept = where if present is None or q.missing.policy != "drop" \
                else f"({where}) AND {self.present(present)}"
            t = self.runner.query(
                f"SELECT {keys['g']} AS g, count(DISTINCT __id) AS n FROM b "
                f"WHERE {kept} GROUP BY ALL")
            g, n = (np.asarray(t[c], dtype=np.int64) for c in ("g", "n"))
            agg.parts["count"] = _exact_bincount(g[g >= 0], n[g >= 0], n_cells)
        return agg

    def _cell_counts(self, q: Query, what: CategoryCounts | BinCounts, agg: Aggregate,
                     keys: dict[str, str], where: str, n_cells: int) -> Aggregate:
        facts = agg.facts
        impute = q.missing.policy == "impute"
        if isinstance(what, CategoryCounts):
            inner_n = len(what.categories)
            code = self.index_in(what.column, what.categories)
            if impute:
                declared = canonical_keys(what.categories)
                lookup = dict(zip(declared, range(len(declared)), strict=True))
                fill_code = lookup.get(canonical_key(q.missing.value), UNDECLARED)
                keys["i"] = f"CASE WHEN {code} = {MISSING} THEN {fill_code} ELSE {code} END"
            else:
                keys["i"] = code
            imputed_sql = "0"
        else:
            edges = [float(e) for e in what.edges]
            inner_n = len(edges) - 1
            v = self.number(what.column)
            if impute:
                assert q.missing.value is not None
                v = f"COALESCE({v}, {_double(float(q.missing.value))})"
            # grouped by the number itself and binned here: a SQL expression over the
            # edges grows with them (200,001 edges took 3.9 GB in the engine's planner)
            keys["i"] = v
            imputed_sql = f"CASE WHEN {self.number(what.column)} IS NULL THEN 1 ELSE 0 END"
        keys["m"] = imputed_sql
        t = self._grouped(keys, {}, where)
        if isinstance(what, BinCounts):
            t = t.assign(i=bin_of(np.asarray(t["i"], dtype=np.float64),
                                  np.asarray(edges, dtype=np.float64)))
        g, i, m, n = (np.asarray(t[c], dtype=np.int64) for c in ("g", "i", "m", "n"))
        facts.rows_considered = int(n.sum())
        facts.outside_declared = int(n[g < 0].sum())
        inside = g >= 0
        if not impute:  # (imputed cells are counted after the filling, as none: pandas path)
            facts.missing_dropped = int(n[inside & (i == MISSING)].sum())
        facts.outside_declared += int(n[inside & (i == UNDECLARED)].sum())
        use = inside & (i >= 0)
        agg.parts["cells"] = _exact_bincount(g[use] * inner_n + i[use], n[use], n_cells)
        return agg

    def _grid(self, q: Query, what: GridSums | GridStepCounts, agg: Aggregate,
              keys: dict[str, str], where: str, n_cells: int) -> Aggregate:
        """A bounded number's aggregate: the cell's number on the grid, in steps."""
        facts = agg.facts
        v = self.number(what.column)
        impute = q.missing.policy == "impute"
        keys["m"] = f"CASE WHEN {v} IS NULL THEN 1 ELSE 0 END"
        value = v
        if impute:
            assert q.missing.value is not None
            value = f"COALESCE({v}, {_double(float(q.missing.value))})"
        grid = what.grid
        step = _grid_step_sql(value, what.lower, what.upper, float(grid.step),
                              grid.lo, grid.hi)
        inside_sql = f"{keys['g']} >= 0" + ("" if impute else f" AND {v} IS NOT NULL")
        # facts: rows per group and missing flag
        t = self._grouped(dict(keys), {}, where)
        g, m, n = (np.asarray(t[c], dtype=np.int64) for c in ("g", "m", "n"))
        facts.rows_considered = int(n.sum())
        facts.outside_declared = int(n[g < 0].sum())
        missing_here = int(n[(g >= 0) & (m == 1)].sum())
        if impute:
            facts.missing_imputed = missing_here
        else:
            facts.missing_dropped = missing_here
        rows = int(n[g >= 0].sum()) - (0 if impute else missing_here)
        cell_where = f"({where}) AND {inside_sql}"

        if isinstance(what, GridStepCounts):
            t = self._grouped({"g": keys["g"], "s": step}, {}, cell_where)
            g, s, n = (np.asarray(t[c], dtype=np.int64) for c in ("g", "s", "n"))
            agg.step_counts = []
            for cell in range(n_cells):
                here = g == cell
                order = np.argsort(s[here], kind="stable")
                agg.step_counts.append((s[here][order], n[here][order]))
            return agg

        biggest = max(abs(grid.lo), abs(grid.hi)) + grid.radius
        if biggest * biggest * max(1, rows) >= 2**62:
            raise InputError("plan", f"queries[{q.id}].grid_step",
                             "the grid is too fine for this many rows; choose a coarser "
                             "grid_step")
        centred = f"({step} - {grid.centre})" if what.centred else step
        sums: dict[str, str] = {}
        if "sum" in what.parts:
            sums["s1"] = centred
        if "sumsq" in what.parts:
            sums["s2"] = f"CAST({centred} AS DECIMAL(38,0)) * CAST({centred} AS DECIMAL(38,0))"
        t = self._grouped({"g": keys["g"]}, sums, cell_where)
        gg = np.asarray(t["g"], dtype=np.int64)
        if "count" in what.parts:
            agg.parts["count"] = _exact_bincount(gg, np.asarray(t["n"], dtype=np.int64),
                                                 n_cells)
        if "sum" in what.parts:
            agg.parts["sum"] = _exact_bincount(gg, _ints(t["s1"]), n_cells)
        if "sumsq" in what.parts:
            agg.parts["sumsq"] = _exact_bincount(gg, _ints(t["s2"]), n_cells)
        return agg


def _counts_people(q: Query) -> bool:
    """The statistic counts distinct people (the bounded table keeps the id for it)."""
    what = kind_of(q).aggregate_of(q)
    return isinstance(what, RowCounts) and what.people


def _ints(column: pd.Series) -> np.ndarray:
    return np.array([int(x) for x in column], dtype=np.int64)


def _exact_bincount(cells: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, cells.astype(np.int64), weights.astype(np.int64))
    return out


def bin_of(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin of each number as _bin_case says it in SQL: numpy's searchsorted(edges, v,
    'right') - 1, the last bin closed, UNDECLARED outside, MISSING for NaN (an empty cell)."""
    out = np.searchsorted(edges, values, side="right").astype(np.int64) - 1
    last = len(edges) - 2
    with np.errstate(invalid="ignore"):
        out[values == edges[-1]] = last
        out[(values < edges[0]) | (values > edges[-1])] = UNDECLARED
    out[np.isnan(values)] = MISSING
    return out


def _bin_case(v: str, edges: list[float]) -> str:
    """The bin of ``v`` as numpy's searchsorted(edges, v, 'right') - 1, the last bin closed
    (UNDECLARED outside, MISSING when empty): a balanced CASE tree over the edges."""
    last = len(edges) - 2

    def tree(lo: int, hi: int) -> str:  # bins lo..hi; v in [edges[lo], edges[hi + 1])
        if lo == hi:
            return str(lo)
        mid = (lo + hi + 1) // 2
        return f"CASE WHEN {v} < {_double(edges[mid])} THEN {tree(lo, mid - 1)} " \
               f"ELSE {tree(mid, hi)} END"

    return (f"CASE WHEN {v} IS NULL THEN {MISSING} "
            f"WHEN {v} = {_double(edges[-1])} THEN {last} "
            f"WHEN {v} < {_double(edges[0])} OR {v} >= {_double(edges[-1])} THEN {UNDECLARED} "
            f"ELSE {tree(0, last)} END")


def _grid_step_sql(v: str, lower: float, upper: float, step: float, lo: int, hi: int) -> str:
    """numpy's clip(rint(clip(v, lower, upper) / step), lo, hi) as BIGINT: round half to even
    written out (t - floor(t) is exact in binary floating point)."""
    t = f"(LEAST(GREATEST({v}, {_double(lower)}), {_double(upper)}) / {_double(step)})"
    f = f"FLOOR({t})"
    rounded = (f"({f} + CASE WHEN {t} - {f} > 0.5 THEN 1 WHEN {t} - {f} < 0.5 THEN 0 "
               f"WHEN FLOOR({f} / 2) * 2 = {f} THEN 0 ELSE 1 END)")
    return f"LEAST(GREATEST(CAST({rounded} AS BIGINT), {int(lo)}), {int(hi)})"


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


def frame_source(name: str, frame: pd.DataFrame) -> TableSource:
    """A source over a frame held in memory (an Excel sheet, a table already loaded)."""
    return TableSource(name=name, format="frame", columns=tuple(str(c) for c in frame.columns),
                       frame=frame)
