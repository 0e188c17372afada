"""Which engine computes a release's aggregates: DuckDB by default, pandas, or Spark.

``open_engine`` is the one place the name is turned into an engine, for the release, the
check and the app alike. Every engine bounds contributions with the same secret-salted key,
the salt drawn from the release's random source (docs/engine.md), so a seeded test gets the
same bounded rows from each of them.
"""

from __future__ import annotations

from typing import Protocol

from ..dp.mechanisms import RandomSource
from ..model import Plan, Query
from ..support.errors import InputError
from .aggregate import Aggregate, PandasEngine
from .sql_plan import ENGINES, SqlEngine, frame_source, make_engine, salt_from
from .tables import Table

DEFAULT_ENGINE = "duckdb"


class ReleaseEngine(Protocol):
    """An AggregateEngine that also tells the owner what the bounding did."""

    rows_dropped_by_bound: int

    @property
    def n_rows(self) -> int: ...

    def aggregate(self, query: Query) -> Aggregate: ...

    def close(self) -> None: ...


def open_engine(name: str, plan: Plan, table: Table, source: RandomSource) -> ReleaseEngine:
    """The engine ``name`` over ``table`` for ``plan`` (checks the plan fits the table first;
    raises InputError, with nothing charged, when it does not or the file cannot be read)."""
    if name not in ENGINES:
        raise InputError("engine", None, f"{name!r} is not one of: {', '.join(ENGINES)}")
    salt = salt_from(source)
    if name == "pandas":
        return PandasEngine(plan, table.frame, source, table.name, salt=salt)
    src = table.source if table.source is not None else frame_source(table.name, table.frame)
    try:
        engine: SqlEngine = make_engine(name, plan, src, salt, table.name)
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
