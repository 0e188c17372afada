"""The same plan on Apache Spark: a SQL runner that gives the engine's SQL a Spark session.

The aggregates are described once, as SQL in DuckDB's dialect over a view named ``src``
(``sql_plan.py``); ``SparkRunner`` creates that view in Spark with the same reading rules as
``source.TableSource`` gives DuckDB, and runs each statement after SQLGlot has transpiled it
from DuckDB's dialect to Spark's (``to_spark``: the one place where the dialects' differences
are fixed). Only the integer aggregates come back to this process (the driver); the noise is
drawn afterwards by the core's exact samplers, as for every engine.

The session (spark_session.py) starts on first use (it takes seconds: a JVM) and is reused
by every later release in the same process. ``local[*]`` by default;
``PLANNER_APP_SPARK_MASTER`` (or the command line's ``--spark-master``) names another master,
e.g. ``spark://host:7077`` or ``yarn``. The file must then be readable at the same path by
the cluster's executors.

Everything read here is private: the true aggregates stay in this process.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..model import Plan
from ..support.errors import InputError
from .source import PANDAS_NA_TEXTS, TableSource
from .spark_session import require_pyspark, session
from .sql_plan import SqlEngine
from .sql_runner import ROW

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: Encodings as Spark's CSV reader names them (the in-place encodings of source.py).
SPARK_ENCODINGS = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8", "latin-1": "ISO-8859-1",
                   "utf-16": "UTF-16"}


# ----------------------------------------------------------------------------- the dialect


def to_spark(sql: str) -> str:
    """One DuckDB statement as Spark SQL: SQLGlot's transpiler, then the fixes below for
    what it leaves wrong for Spark (the one place they live; docs/engine.md lists them).

    - ``HUGEINT``/``INT128`` (exact 128-bit sums): Spark has no such type; ``DECIMAL(38, 0)``
      holds the same integers exactly (and with ANSI mode an overflow is an error).
    - ``UBIGINT``/``UINTEGER``…: Spark has no unsigned types; the next wider signed type.
    - ``ROUND_EVEN(x, n)`` (pandas' ``np.rint``, half to even): Spark's ``BROUND``.
    - ``ISFINITE(x)``: Spark has none; ``NOT ISNAN(x) AND ABS(x) <> 'Infinity'``.
    - ``REGEXP_FULL_MATCH(x, p)``: ``x RLIKE '^(?:p)\\z'``.
    - A regular expression ending in ``$``: Java's ``$`` also matches before a final line
      break (a cell ``"12\\n"``), RE2's (DuckDB's) only at the very end: ``\\z``.
    """
    import sqlglot
    from sqlglot import exp

    def fix(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.DataType):
            t = node.this
            if t in (exp.DataType.Type.INT128, exp.DataType.Type.UINT128):
                return exp.DataType.build("DECIMAL(38, 0)")
            if t == exp.DataType.Type.UBIGINT:
                return exp.DataType.build("DECIMAL(20, 0)")
            if t == exp.DataType.Type.UINT:
                return exp.DataType.build("BIGINT")
            if t in (exp.DataType.Type.USMALLINT,):
                return exp.DataType.build("INT")
            if t in (exp.DataType.Type.UTINYINT,):
                return exp.DataType.build("SMALLINT")
            return node
        if isinstance(node, exp.Anonymous):
            name = str(node.this).upper()
            args = node.expressions
            if name == "ROUND_EVEN":
                return exp.Anonymous(this="BROUND", expressions=args)
            if name == "ISFINITE" and len(args) == 1:
                x = args[0]
                not_nan = exp.not_(exp.Anonymous(this="ISNAN", expressions=[x.copy()]))
                not_inf = exp.NEQ(this=exp.Abs(this=x.copy()),
                                  expression=exp.cast(exp.Literal.string("Infinity"), "DOUBLE"))
                finite: exp.Expression = exp.paren(exp.and_(not_nan, not_inf))
                return finite
        if isinstance(node, exp.RegexpFullMatch):
            pattern = node.expression
            if isinstance(pattern, exp.Literal) and pattern.is_string:
                anchored = exp.Literal.string(f"^(?:{pattern.this})\\z")
                return exp.RegexpLike(this=node.this.copy(), expression=anchored)
        if isinstance(node, exp.RegexpLike):
            pattern = node.expression
            if isinstance(pattern, exp.Literal) and pattern.is_string \
                    and pattern.this.endswith("$") and not pattern.this.endswith("\\$"):
                # Java's $ also matches before a final line break, RE2's only at the end
                end = exp.Literal.string(pattern.this[:-1] + "\\z")
                return exp.RegexpLike(this=node.this.copy(), expression=end)
        return node

    tree = sqlglot.parse_one(sql, read="duckdb")
    return tree.transform(fix).sql(dialect="spark")


# ----------------------------------------------------------------------------- the runner


def _quote(name: str) -> str:
    """A column name as a Spark SQL identifier (backticks, doubled inside)."""
    return "`" + name.replace("`", "``") + "`"


def _sql_text(text: str) -> str:
    """A text as a Spark SQL string literal (backslashes and quotes escaped)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


class SparkRunner:
    """Runs the engine's SQL (DuckDB dialect) on Spark: ``sql_runner.SqlRunner``.

    ``open`` makes the view ``src`` with the columns named under their header names, read as
    ``TableSource.connect`` reads them for DuckDB: a CSV file with every column as text, the
    header's names exactly, pandas' missing texts (``PANDAS_NA_TEXTS``, quoted or not) as
    NULL, the same delimiter, encoding and quote rules (``"`` quotes, doubled inside; a quoted
    cell may span lines); a Parquet file with its own types; a frame as DuckDB sees it. And
    ``__row``, the row's 0-based position in the file (the bounding key hashes it)."""

    def __init__(self, master: str | None = None) -> None:
        require_pyspark()
        self._master = master
        self._spark: SparkSession | None = None
        self._source: TableSource | None = None
        self._cached: list[DataFrame] = []

    @property
    def spark(self) -> SparkSession:
        """This runner's session: the process's Spark session (started on first use), with
        temporary views of its own."""
        if self._spark is None:
            self._spark = session(self._master).newSession()
        return self._spark

    @property
    def source(self) -> TableSource:
        assert self._source is not None, "open() the runner first"
        return self._source

    # -- the SqlRunner interface -----------------------------------------------------------

    def open(self, source: TableSource, columns: Sequence[str] | None = None) -> None:
        """The view ``src`` over the table: the named columns (every one when None), and
        ``__row``."""
        self._source = source
        wanted = list(source.columns) if columns is None else list(dict.fromkeys(columns))
        missing = [c for c in wanted if c not in source.columns]
        if missing:
            raise InputError(source.name, f"column {missing[0]!r}", "is not in the table")
        try:
            self._read(wanted).createOrReplaceTempView("src")
        except InputError:
            raise
        except Exception as exc:
            raise spark_problem(source, exc) from None

    def column_types(self) -> dict[str, str]:
        """Each column of ``src`` with its type as DuckDB names it."""
        return {f.name: duckdb_type(f.dataType)
                for f in self.spark.table("src").schema.fields}

    def register(self, name: str, frame: pd.DataFrame) -> None:
        """A small frame (a value mapping) as a view the SQL can join with."""
        import duckdb

        with duckdb.connect() as con:
            con.register("f", frame)
            self._from_duckdb(con.sql("SELECT * FROM f")).createOrReplaceTempView(name)

    def materialize(self, name: str, sql: str) -> None:
        """``sql`` computed once (on first use) and kept (memory, then disk) as ``name``."""
        frame = self._sql(sql).persist()
        self._cached.append(frame)
        frame.createOrReplaceTempView(name)

    def query(self, sql: str) -> pd.DataFrame:
        """The rows of one DuckDB-dialect statement, run on Spark, as pandas. Exact integer
        results (``DECIMAL(p, 0)``) come back as int64 or Python ints, never as floats."""
        try:
            result = self._sql(sql)
            rows = result.collect()
        except InputError:
            raise
        except Exception as exc:
            raise spark_problem(self.source, exc) from None
        names = result.columns
        data: dict[str, list[Any]] = {n: [] for n in names}
        for row in rows:
            for n, v in zip(names, row, strict=True):
                data[n].append(_plain(v))
        frame: pd.DataFrame = pd.DataFrame({n: _column(data[n]) for n in names},
                                           columns=names)
        return frame

    def close(self) -> None:
        """Free the cached tables and drop the views (the session stays for the next
        release in this process)."""
        for frame in self._cached:
            frame.unpersist()
        self._cached.clear()
        if self._spark is not None:
            for view in self._spark.catalog.listTables():
                if view.isTemporary:
                    self._spark.catalog.dropTempView(view.name)

    def _sql(self, sql: str) -> DataFrame:
        try:
            return self.spark.sql(to_spark(sql))
        except Exception as exc:
            raise spark_problem(self.source, exc) from None

    # -- reading the table -----------------------------------------------------------------

    def _read(self, wanted: list[str]) -> DataFrame:
        s = self.source
        if s.format == "csv":
            # A CSV file with a quoted cell across lines is parsed by one task (_read_csv),
            # and the engine scans ``src`` several times (the fit checks, each column's
            # distinct values, the bounding): parsed once, spread over the cores and kept
            # (memory, then disk) for the release's later scans.
            rows = self._with_row(self._read_csv(), wanted)
            spread = rows.repartition(self.spark.sparkContext.defaultParallelism).persist()
            self._cached.append(spread)
            return spread
        if s.format == "parquet":
            assert s.path is not None
            frame = self.spark.read.parquet(hadoop_literal(str(s.path)))
            try:  # Spark 3.5+: the row's position in its Parquet file, read with the rows
                positioned = frame.select("*", frame["_metadata.row_index"].alias(ROW))
                return positioned.select(*[_quote(c) for c in wanted], ROW)
            except Exception:  # pragma: no cover (an older Spark)
                return self._with_row(frame, wanted)
        assert s.frame is not None
        return self._frame_view(s.frame, wanted)

    def _read_csv(self) -> DataFrame:
        from pyspark.sql.types import StringType, StructField, StructType

        s = self.source
        assert s.path is not None and s.delimiter is not None
        # Every header name given as the schema (the header line itself is skipped), so a
        # name is never changed by Spark's own header handling.
        schema = StructType([StructField(c, StringType(), True) for c in s.columns])
        reader = (self.spark.read.schema(schema)
                  .option("header", "true").option("enforceSchema", "true")
                  .option("sep", s.delimiter).option("quote", '"').option("escape", '"')
                  .option("mode", "FAILFAST")
                  .option("encoding", SPARK_ENCODINGS.get(s.encoding or "utf-8", "UTF-8"))
                  .option("ignoreLeadingWhiteSpace", "false")
                  .option("ignoreTrailingWhiteSpace", "false")
                  .option("nullValue", "").option("emptyValue", "")
                  .option("maxCharsPerColumn", "-1")
                  .option("unescapedQuoteHandling", "RAISE_ERROR"))
        # multiLine (a quoted cell may span lines) makes Spark parse the file in one task;
        # a file none of whose lines holds an odd number of quotes has no such cell, so it
        # is read line by line, in parallel splits, with the same cells
        spans_lines = self._check_quotes()
        reader = reader.option("multiLine", "true" if spans_lines else "false")
        frame = reader.csv(hadoop_literal(str(s.path)))
        # Spark's nullValue takes one text; the others become NULL here.
        nulls = ", ".join(_sql_text(t) for t in PANDAS_NA_TEXTS)
        return frame.selectExpr(*[f"CASE WHEN {_quote(c)} IN ({nulls}) THEN NULL "
                                  f"ELSE {_quote(c)} END AS {_quote(c)}" for c in s.columns])

    def _check_quotes(self) -> bool:
        """Refuse a quoted cell that is never closed, as DuckDB and pandas do: Spark's CSV
        reader would take the rest of the file as that cell. Every well-formed file has an
        even number of quote characters (a quote inside a quoted cell is doubled); the count
        is one parallel pass over the file's lines. True when some quoted cell may span
        lines: a line with an odd number of quotes (with none, every line starts and ends
        outside quotes, so each line is whole rows)."""
        assert self.source.path is not None
        lines = self.spark.read.text(hadoop_literal(str(self.source.path)))
        row = lines.selectExpr(
            "length(value) - length(replace(value, '\"', '')) AS q").selectExpr(
            "sum(q) AS q", "max(q % 2) AS odd").first()
        quotes = 0 if row is None or row["q"] is None else int(row["q"])
        if quotes % 2:
            raise InputError(self.source.name, None, "a quoted cell is never closed")
        return row is not None and row["odd"] is not None and int(row["odd"]) == 1

    def _with_row(self, frame: DataFrame, wanted: list[str]) -> DataFrame:
        """The wanted columns and ``__row``, the position in file order: Spark numbers the
        rows of each partition (``monotonically_increasing_id``: the partition in the high
        bits, the row within it in the low 33); the partitions' sizes give their offsets.
        A CSV file read with ``multiLine`` is one partition, and needs no second pass; one
        read line by line is split, and the partitions' sizes are counted first."""
        from pyspark.sql import functions as F

        numbered = frame.withColumn("_mid", F.monotonically_increasing_id())
        if frame.rdd.getNumPartitions() == 1:
            offsets = "_mid"
        else:  # a CSV file read in splits (an old Spark's Parquet too)
            part = F.shiftright(F.col("_mid"), 33)
            sizes = numbered.groupBy(part.alias("p")).count().collect()
            start, at = 0, {}
            for row in sorted(sizes, key=lambda r: int(r["p"])):
                at[int(row["p"])] = start
                start += int(row["count"])
            case = " ".join(f"WHEN {p} THEN {o}" for p, o in at.items())
            offsets = (f"(CASE shiftright(_mid, 33) {case} END) + "
                       f"(_mid & {(1 << 33) - 1})")
        return numbered.selectExpr(*[_quote(c) for c in wanted],
                                   f"CAST({offsets} AS BIGINT) AS {ROW}")

    def _frame_view(self, frame: pd.DataFrame, wanted: list[str]) -> DataFrame:
        """A frame with the types DuckDB gives it (DuckDB reads the frame, Arrow carries it
        to Spark), so both engines see the same cells."""
        import duckdb
        import numpy as np

        rows = frame[wanted].copy() if wanted else pd.DataFrame(index=frame.index)
        rows.columns = [str(c) for c in rows.columns]
        rows[ROW] = np.arange(len(rows), dtype=np.int64)
        with duckdb.connect() as con:
            con.register("src_frame", rows)
            return self._from_duckdb(con.sql("SELECT * FROM src_frame"))

    def _from_duckdb(self, relation: Any) -> DataFrame:
        """A DuckDB relation's rows as a Spark frame, through Arrow (pyspark 4 takes an Arrow
        table; 3.5 a pandas frame made from it)."""
        import pyspark

        fetch = getattr(relation, "to_arrow_table", None) or relation.arrow
        arrow = fetch()
        if int(pyspark.__version__.split(".")[0]) >= 4:
            return self.spark.createDataFrame(arrow)
        return self.spark.createDataFrame(arrow.to_pandas())  # pragma: no cover


def duckdb_type(t: Any) -> str:
    """A Spark column type under DuckDB's name for it (what ``sql_plan`` reads)."""
    from pyspark.sql import types as T

    simple = {T.StringType: "VARCHAR", T.LongType: "BIGINT", T.IntegerType: "INTEGER",
              T.ShortType: "SMALLINT", T.ByteType: "TINYINT", T.DoubleType: "DOUBLE",
              T.FloatType: "FLOAT", T.BooleanType: "BOOLEAN", T.DateType: "DATE",
              T.TimestampType: "TIMESTAMP WITH TIME ZONE", T.BinaryType: "BLOB"}
    for cls, name in simple.items():
        if isinstance(t, cls):
            return name
    if isinstance(t, T.DecimalType):
        return f"DECIMAL({t.precision},{t.scale})"
    if isinstance(t, T.ArrayType):
        return duckdb_type(t.elementType) + "[]"
    if isinstance(t, T.StructType):
        return "STRUCT(...)"
    if isinstance(t, T.MapType):
        return "MAP(...)"
    return str(t.simpleString()).upper()


def _plain(value: Any) -> Any:
    """A Spark value as the engine expects it: a whole ``Decimal`` as an exact int."""
    from decimal import Decimal

    if isinstance(value, Decimal) and value == value.to_integral_value():
        return int(value)
    return value


def spark_engine(plan: Plan, source: TableSource, salt: bytes,
                 table_name: str | None = None, master: str | None = None) -> SqlEngine:
    """The plan's aggregates computed by Spark (the engine ``--engine spark`` names through
    ``engines.open_engine``; ``master`` as ``session``)."""
    return SqlEngine(plan, source, SparkRunner(master), salt, table_name)


def _column(values: list[Any]) -> pd.Series[Any]:
    """Integers as int64 when they fit, else as exact Python ints (never a float or an
    unsigned wrap); other values as pandas infers them."""
    dtype: str | None = None
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        dtype = "int64" if all(-2**63 <= v < 2**63 for v in values) else "object"
    series: pd.Series[Any] = pd.Series(values, dtype=dtype)
    return series


def hadoop_literal(path: str) -> str:
    """A path Spark reads as exactly that file: Hadoop expands ``* ? [ ] { } \\`` in a path
    (``t[z].csv`` would read ``tz.csv``), so each is escaped with a backslash."""
    return "".join("\\" + c if c in "\\*?[]{}" else c for c in path)


def spark_problem(source: TableSource, exc: Exception) -> InputError:
    """A one-line message for an error Spark raised while reading the table (a malformed
    row, a damaged Parquet file, an overflow), naming the file. Never quotes a cell, and
    never reads one: the record Spark quotes in its message is cut out before the message
    is classified (a cell saying "out of memory" must not choose the message)."""
    import re

    text = re.sub(r"(Malformed CSV record:|detected in record parsing:|content parsed:)"
                  r".*?(?=\n\tat |\nParse Mode:|\Z)", r"\1", str(exc), flags=re.S)
    low = text.lower()
    if "outofmemory" in low or "out of memory" in low:
        return InputError(source.name, None, "Spark ran out of memory computing the aggregates "
                                             "(give it more: PLANNER_APP_SPARK_MEMORY=8g, or "
                                             "use a cluster)")
    if source.format == "parquet" and ("parquet" in low or "corrupt" in low):
        return InputError(source.name, None, "is not a readable Parquet file")
    if "unescaped quote" in low:
        return InputError(source.name, None, "has a quote inside a quoted cell that is not "
                                             'doubled ("")')
    if "malformed" in low or "failfast" in low:
        return InputError(source.name, None,
                          "has a row Spark cannot read (a field count differing from the "
                          "header's, or a quote never closed)")
    if "overflow" in low or "arithmetic" in low:
        return InputError(source.name, None,
                          "a sum is beyond the exact integer range; choose a coarser grid_step")
    if "filenotfound" in low or "path does not exist" in low:
        return InputError(source.name, None, "cannot be read by Spark at this path")
    # Spark's own message may quote a cell: only its error condition is named
    condition = getattr(exc, "getCondition", None) or getattr(exc, "getErrorClass", None)
    name = (condition() if callable(condition) else None) or type(exc).__name__
    return InputError(source.name, None, f"Spark could not compute the aggregates ({name})")
