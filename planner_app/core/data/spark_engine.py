"""The same plan on Apache Spark: a SQL runner that gives the engine's SQL a Spark session.

The aggregates are described once, as SQL in DuckDB's dialect over a view named ``src``
(``sql_plan.py``); ``SparkRunner`` creates that view in Spark with the same reading rules as
``source.TableSource`` gives DuckDB, and runs each statement after SQLGlot has transpiled it
from DuckDB's dialect to Spark's (``to_spark``: the one place where the dialects' differences
are fixed). Only the integer aggregates come back to this process (the driver); the noise is
drawn afterwards by the core's exact samplers, as for every engine.

The session starts on first use (it takes seconds: a JVM) and is reused by every later
release in the same process. ``local[*]`` by default; ``PLANNER_APP_SPARK_MASTER`` (or the
command line's ``--spark-master``) names another master, e.g. ``spark://host:7077`` or
``yarn``. The file must then be readable at the same path by the cluster's executors.

Everything read here is private: the true aggregates stay in this process.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..support.errors import InputError
from .source import PANDAS_NA_TEXTS, TableSource

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: The one-line answer when pyspark (or sqlglot) is not installed.
MISSING_PYSPARK = "the Spark engine needs pyspark: pip install 'planner-app[spark]'"

#: The master when neither the caller nor the environment names one.
DEFAULT_MASTER = "local[*]"

#: The driver's heap in local mode (where the driver also runs the executors).
DEFAULT_DRIVER_MEMORY = os.environ.get("PLANNER_APP_SPARK_MEMORY", "2g")

#: Encodings as Spark's CSV reader names them (the in-place encodings of source.py).
SPARK_ENCODINGS = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8", "latin-1": "ISO-8859-1",
                   "utf-16": "UTF-16"}

_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""

_lock = threading.Lock()
_session: SparkSession | None = None
_session_master: str | None = None


def require_pyspark() -> None:
    """Raise the one-line ``InputError`` when the ``spark`` extra is not installed."""
    try:
        import pyspark  # noqa: F401
        import sqlglot  # noqa: F401
    except ImportError:
        raise InputError("--engine spark", None, MISSING_PYSPARK) from None


def spark_master(master: str | None = None) -> str:
    """The master to use: the caller's, else ``PLANNER_APP_SPARK_MASTER``, else local."""
    return master or os.environ.get("PLANNER_APP_SPARK_MASTER") or DEFAULT_MASTER


def _is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[")


def session(master: str | None = None) -> SparkSession:
    """The process's Spark session, started on first use (quiet logs, no web UI) and
    reused. A different master than the running session's is refused: a process talks to
    one cluster."""
    global _session, _session_master
    require_pyspark()
    wanted = spark_master(master)
    with _lock:
        if _session is not None:
            if wanted != _session_master:
                raise InputError("--spark-master", None,
                                 f"this process already runs Spark on {_session_master}; "
                                 f"start a new one for {wanted}")
            return _session
        _session = _start(wanted)
        _session_master = wanted
        return _session


def _start(master: str) -> SparkSession:
    # pyspark warns on first use that it "does not yet fully support pandas >= 3"; the
    # runner hands it only Arrow tables and reads back plain rows
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas",
                            category=FutureWarning)
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway
    from pyspark.sql import SparkSession

    folder = tempfile.mkdtemp(prefix="planner-app-spark-")
    log4j = os.path.join(folder, "log4j2.properties")
    with open(log4j, "w", encoding="utf-8") as fh:
        fh.write(_LOG4J)
    java_options = f"-Dlog4j2.configurationFile=file:{log4j}"
    conf = (SparkConf().setMaster(master).setAppName("planner-app")
            .set("spark.ui.enabled", "false")
            .set("spark.ui.showConsoleProgress", "false")
            .set("spark.sql.session.timeZone", "UTC")
            .set("spark.sql.ansi.enabled", "true")  # an overflow is an error, never a wrap
            .set("spark.sql.execution.arrow.pyspark.enabled", "true")
            .set("spark.driver.extraJavaOptions", java_options)
            .set("spark.executor.extraJavaOptions", java_options)
            .set("spark.local.dir", folder))
    if _is_local(master):
        cores = os.cpu_count() or 2
        conf.set("spark.sql.shuffle.partitions", str(max(2, 2 * cores)))
        conf.set("spark.driver.memory", DEFAULT_DRIVER_MEMORY)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # The JVM's own start-up lines ("Using incubator modules", the native-hadoop warning)
    # go to a log file in the session's folder, not to the owner's terminal.
    log = open(os.path.join(folder, "spark.log"), "ab")  # noqa: SIM115 (lives with the JVM)
    try:
        gateway = launch_gateway(  # type: ignore[no-untyped-call]
            conf, popen_kwargs={"stdout": log, "stderr": log})
        context = SparkContext(conf=conf, gateway=gateway)
    except Exception as exc:
        raise InputError("--engine spark", None,
                         f"Spark did not start on {master} ({type(exc).__name__}; is Java 17 "
                         f"installed? see {log.name})") from None
    context.setLogLevel("ERROR")
    # pyspark logs every failed statement (with its JVM stack) to stderr as JSON; the
    # runner turns the exception into one line instead
    try:
        from pyspark.logger import PySparkLogger  # pyspark 4
    except ImportError:  # pragma: no cover (pyspark 3.5 has no such logging)
        pass
    else:
        for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
            PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)
    return SparkSession(context)


def stop_session() -> None:
    """Stop the process's session (tests; the next use starts a new one)."""
    global _session, _session_master
    with _lock:
        if _session is not None:
            _session.stop()
        _session = None
        _session_master = None


# ----------------------------------------------------------------------------- the dialect


def to_spark(sql: str) -> str:
    """One DuckDB statement as Spark SQL: SQLGlot's transpiler, then the fixes below for
    what it leaves wrong for Spark (the one place they live; docs/engine.md lists them).

    - ``HUGEINT``/``INT128`` (exact 128-bit sums): Spark has no such type; ``DECIMAL(38, 0)``
      holds the same integers exactly (and with ANSI mode an overflow is an error).
    - ``UBIGINT``/``UINTEGER``…: Spark has no unsigned types; the next wider signed type.
    - ``ROUND_EVEN(x, n)`` (pandas' ``np.rint``, half to even): Spark's ``BROUND``.
    - ``ISFINITE(x)``: Spark has none; ``NOT ISNAN(x) AND ABS(x) <> 'Infinity'``.
    - ``REGEXP_FULL_MATCH(x, p)``: ``x RLIKE '^(?:p)$'``.
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
                anchored = exp.Literal.string(f"^(?:{pattern.this})$")
                return exp.RegexpLike(this=node.this.copy(), expression=anchored)
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
    """Runs the engine's SQL (DuckDB dialect) on Spark, over the view ``src``.

    ``src`` has the columns named (or every column) under their header names, read as
    ``TableSource.connect`` reads them for DuckDB: a CSV file with every column as text, the
    header's names exactly, pandas' missing texts (``PANDAS_NA_TEXTS``, quoted or not) as
    NULL, the same delimiter, encoding and quote rules (``"`` quotes, doubled inside; a quoted
    cell may span lines); a Parquet file with its own types; a frame as DuckDB sees it."""

    def __init__(self, source: TableSource, columns: Sequence[str] | None = None,
                 master: str | None = None) -> None:
        self.source = source
        self.spark = session(master).newSession()  # its own temporary views
        wanted = list(source.columns) if columns is None else list(dict.fromkeys(columns))
        missing = [c for c in wanted if c not in source.columns]
        if missing:
            raise InputError(source.name, f"column {missing[0]!r}", "is not in the table")
        self.columns = wanted
        self._read(wanted).createOrReplaceTempView("src")

    # -- reading the table -----------------------------------------------------------------

    def _read(self, wanted: list[str]) -> DataFrame:
        s = self.source
        if s.format == "csv":
            return self._read_csv(wanted)
        if s.format == "parquet":
            assert s.path is not None
            frame = self.spark.read.parquet(str(s.path))
            return frame.select(*[frame[_quote(c)] for c in wanted]) if wanted \
                else frame.selectExpr("1 AS _none")
        assert s.frame is not None
        return self._frame_view(s.frame, wanted)

    def _read_csv(self, wanted: list[str]) -> DataFrame:
        from pyspark.sql.types import StringType, StructField, StructType

        s = self.source
        assert s.path is not None and s.delimiter is not None
        # Every header name given as the schema (the header line itself is skipped), so a
        # name is never changed by Spark's own header handling.
        schema = StructType([StructField(c, StringType(), True) for c in s.columns])
        reader = (self.spark.read.schema(schema)
                  .option("header", "true").option("enforceSchema", "true")
                  .option("sep", s.delimiter).option("quote", '"').option("escape", '"')
                  .option("multiLine", "true").option("mode", "FAILFAST")
                  .option("encoding", SPARK_ENCODINGS.get(s.encoding or "utf-8", "UTF-8"))
                  .option("ignoreLeadingWhiteSpace", "false")
                  .option("ignoreTrailingWhiteSpace", "false")
                  .option("nullValue", "").option("emptyValue", "")
                  .option("maxCharsPerColumn", "-1").option("unescapedQuoteHandling",
                                                             "RAISE_ERROR"))
        frame = reader.csv(str(s.path))
        if not wanted:
            return frame.selectExpr("1 AS _none")
        # Spark's nullValue takes one text; the others become NULL here.
        nulls = ", ".join(_sql_text(t) for t in PANDAS_NA_TEXTS)
        return frame.selectExpr(*[f"CASE WHEN {_quote(c)} IN ({nulls}) THEN NULL "
                                  f"ELSE {_quote(c)} END AS {_quote(c)}" for c in wanted])

    def _frame_view(self, frame: pd.DataFrame, wanted: list[str]) -> DataFrame:
        """A frame with the types DuckDB gives it (DuckDB reads the frame, Arrow carries it
        to Spark), so both engines see the same cells."""
        import duckdb

        with duckdb.connect() as con:
            con.register("src_frame", frame)
            select = ", ".join('"' + c.replace('"', '""') + '"' for c in wanted) \
                if wanted else "1 AS _none"
            return self._from_duckdb(con.sql(f"SELECT {select} FROM src_frame"))

    def _from_duckdb(self, relation: Any) -> DataFrame:
        """A DuckDB relation's rows as a Spark frame, through Arrow (pyspark 4 takes an Arrow
        table; 3.5 a pandas frame made from it)."""
        import pyspark

        fetch = getattr(relation, "to_arrow_table", None) or relation.arrow
        arrow = fetch()
        if int(pyspark.__version__.split(".")[0]) >= 4:
            return self.spark.createDataFrame(arrow)
        return self.spark.createDataFrame(arrow.to_pandas())  # pragma: no cover

    # -- the SqlRunner interface -----------------------------------------------------------

    def register(self, name: str, frame: pd.DataFrame) -> None:
        """A small frame (declared categories, bins) as a view the SQL can join with."""
        import duckdb

        with duckdb.connect() as con:
            con.register("f", frame)
            self._from_duckdb(con.sql("SELECT * FROM f")).createOrReplaceTempView(name)

    def query(self, sql: str) -> pd.DataFrame:
        """The rows of one DuckDB-dialect statement, run on Spark, as pandas. Exact integer
        results (``DECIMAL(p, 0)``) come back as Python ints, never as floats."""
        statement = to_spark(sql)
        try:
            result = self.spark.sql(statement)
            rows = result.collect()
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
        """Drop the views (the session stays for the next release)."""
        for view in self.spark.catalog.listTables():
            if view.isTemporary:
                self.spark.catalog.dropTempView(view.name)


def _plain(value: Any) -> Any:
    """A Spark value as the engine expects it: a whole ``Decimal`` as an exact int."""
    from decimal import Decimal

    if isinstance(value, Decimal) and value == value.to_integral_value():
        return int(value)
    return value


def _column(values: list[Any]) -> pd.Series[Any]:
    """Integers as int64 when they fit, else as exact Python ints (never a float or an
    unsigned wrap); other values as pandas infers them."""
    dtype: str | None = None
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        dtype = "int64" if all(-2**63 <= v < 2**63 for v in values) else "object"
    series: pd.Series[Any] = pd.Series(values, dtype=dtype)
    return series


def spark_problem(source: TableSource, exc: Exception) -> InputError:
    """A one-line message for an error Spark raised while reading the table (a malformed
    row, a damaged Parquet file, an overflow), naming the file. Never quotes a cell."""
    text = str(exc)
    low = text.lower()
    if source.format == "parquet" and ("parquet" in low or "corrupt" in low):
        return InputError(source.name, None, "is not a readable Parquet file")
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
