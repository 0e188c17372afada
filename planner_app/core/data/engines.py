"""Which engine computes a release's aggregates: DuckDB by default, pandas, or Spark.

``open_engine`` is the one place the name is turned into an engine, for the release, the
check and the app alike. Every engine bounds contributions with the same secret-salted key,
the salt drawn from the release's random source (docs/engine.md), so a seeded test gets the
same bounded rows from each of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from ..dp.mechanisms import RandomSource
from ..kinds.results import Aggregate
from ..model import Plan, Query
from ..support.errors import InputError
from .engine_names import ENGINES
from .source import TableSource
from .spark_engine import SparkRunner
from .spark_session import require_pyspark
from .sql_plan import SqlEngine, salt_from
from .sql_runner import DuckDBRunner, SqlRunner, frame_source
from .synthetic_marginals import SyntheticEngine, expanded_plan, is_marginals
from .tables import Table

if TYPE_CHECKING:
    import pandas as pd


#: The SQL engines' runners by engine name (the one place they are registered: sql_plan.py
#: knows neither engine by name, spark_engine.py builds on sql_plan.py).
RUNNERS: dict[str, Callable[[], SqlRunner]] = {"duckdb": DuckDBRunner, "spark": SparkRunner}

#: The runner of each engine name: "pandas" loads the table into memory with pandas, then
#: DuckDB runs the engine's SQL over that frame (one implementation of every aggregate).
RUNNER_OF = {"pandas": "duckdb"}

#: The check of each engine that needs an optional extra: it raises the one line naming the
#: engine and the command that installs it (``pip install 'planner-app[spark]'``).
EXTRAS: dict[str, Callable[[], None]] = {"spark": require_pyspark}

#: The hidden column of a frame that numbers its people (``_people_of``).
PERSON_COLUMN = "__person"


class ReleaseEngine(Protocol):
    """An AggregateEngine that also tells the owner what the bounding did."""

    rows_dropped_by_bound: int

    @property
    def n_rows(self) -> int: ...

    def aggregate(self, query: Query) -> Aggregate: ...

    def close(self) -> None: ...


def open_engine(name: str, plan: Plan, table: Table, source: RandomSource, *,
                shown: Plan | None = None) -> ReleaseEngine:
    """The engine ``name`` over ``table`` for ``plan`` (checks the plan fits the table first;
    raises InputError, with nothing charged, when it does not or the file cannot be read).
    ``shown``: the plan as the owner wrote it, when ``plan`` is its expanded form; the fit
    is checked on it, so messages name the owner's fields, each problem once."""
    _require_engine(name)
    if any(is_marginals(q) for q in plan.queries):  # its marginals as histograms
        return SyntheticEngine(open_engine(name, expanded_plan(plan), table, source,
                                           shown=plan))
    salt = salt_from(source)
    if name != "pandas" and table.source is not None:
        src = table.source  # read in place
    else:  # the table loaded with pandas; the engine's SQL runs over the frame in DuckDB
        shown = shown or plan
        plan, frame = _people_of(plan, _ids_as_written(plan, table))
        src = frame_source(table.name, frame)
    try:
        engine: SqlEngine = make_engine(name, plan, src, salt, table.name, shown=shown)
    except InputError as exc:
        # a text file's NUL byte or overlong line, found while it streamed through the hash,
        # is the clearer message (it names the line); else the engine's own
        raise (_stream_problem(table) or exc) from None
    problem = _stream_problem(table)
    if problem is not None:
        engine.close()
        raise problem
    return engine


def _stream_problem(table: Table) -> InputError | None:
    """What the file's streaming pass (hash, NUL and line-length guard) found in a text file
    the engine read in place; waits for it (it ran alongside the engine's scan)."""
    if table.source is None or table.source.format != "csv":
        return None
    try:
        table.sha256  # noqa: B018 - waits for the streamed hash and its guard
    except InputError as exc:
        return exc
    return None


def _ids_as_written(plan: Plan, table: Table) -> pd.DataFrame:
    """The frame, with a CSV file's person ids as the text written in the file: the id is an
    identifier, so ``01`` and ``1`` are two people, as DuckDB and Spark (which read CSV cells
    as text) see them; pandas' own reading would make both the number 1."""
    unit = plan.privacy_unit
    frame = table.frame
    src = table.source
    if unit.kind != "person" or src is None or src.format != "csv" or src.path is None \
            or unit.id_column not in frame.columns:
        return frame
    import pandas as pd

    try:
        ids = pd.read_csv(src.path, sep=src.delimiter, encoding=src.encoding, index_col=False,
                          usecols=[unit.id_column], dtype=str, keep_default_na=True)
    except (OSError, ValueError):  # the file was read once already: never expected
        return frame
    if len(ids) != len(frame):  # the same file read twice: never expected
        return frame
    out: pd.DataFrame = frame.assign(**{str(unit.id_column): ids[unit.id_column].to_numpy()})
    return out


def _people_of(plan: Plan, frame: pd.DataFrame) -> tuple[Plan, pd.DataFrame]:
    """The plan and frame the SQL engine bounds: a text (object) column of person ids gets
    a hidden column beside it, one number per person as pandas tells the ids apart (the
    number 1 and the text "1" in one column, as an Excel sheet can hold them, are two people;
    1 and 1.0 one), and the plan bounds by that column; registered as text both would read
    "1". An empty id stays empty. The owner's column is kept (its cells, its checks)."""
    unit = plan.privacy_unit
    column = unit.id_column
    if unit.kind != "person" or column not in frame.columns or frame[column].dtype != object:
        return plan, frame
    import numpy as np
    import pandas as pd

    try:
        codes, _ = pd.factorize(frame[column], use_na_sentinel=True)
    except TypeError:  # unhashable cells (lists): the engine refuses the column itself
        return plan, frame
    name = PERSON_COLUMN
    while name in frame.columns:
        name += "_"
    people = np.where(codes < 0, np.nan, codes.astype(np.float64))
    out: pd.DataFrame = frame.assign(**{name: people})
    return replace(plan, privacy_unit=replace(unit, id_column=name)), out


def make_engine(name: str, plan: Plan, source: TableSource, salt: bytes,
                table_name: str | None = None, *, shown: Plan | None = None) -> SqlEngine:
    """The SQL engine ``name`` (one of ENGINES; "pandas" runs DuckDB's, over whatever
    ``source`` is given) over ``source``."""
    _require_engine(name)
    runner = RUNNERS[RUNNER_OF.get(name, name)]
    return SqlEngine(plan, source, runner(), salt, table_name, shown=shown)


def _require_engine(name: str) -> None:
    """One line when ``name`` is no engine, or an engine whose optional packages are not
    installed (naming the extra that installs them)."""
    if name not in ENGINES:
        raise InputError("engine", None,
                         f"{name!r} is not an engine: choose one of {', '.join(ENGINES)}")
    if name in EXTRAS:
        EXTRAS[name]()
