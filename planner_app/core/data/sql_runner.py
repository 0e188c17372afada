"""The runners of the engine's SQL: ``SqlRunner`` (the contract), ``DuckDBRunner`` (the
embedded engine); ``SparkRunner`` is in spark_engine.py. engines.py names them.

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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np
import pandas as pd

from .frame_cells import sql_frame
from .source import TableSource, ident, literal

if TYPE_CHECKING:
    import duckdb

ROW = "__row"  # the row's 0-based position in the file, a column of ``src``


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
            frame, self._nested = sql_frame(source.frame, wanted)
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


def frame_source(name: str, frame: pd.DataFrame) -> TableSource:
    """A source over a frame held in memory (an Excel sheet, a table already loaded)."""
    return TableSource(name=name, format="frame", columns=tuple(str(c) for c in frame.columns),
                       frame=frame)
