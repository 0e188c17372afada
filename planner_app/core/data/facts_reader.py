"""Running the owner's fact queries on DuckDB: one connection over the columns a set of
questions names (``Reader``, whose cells read by the rules of cells_sql.py), each query
interruptible and reporting progress (``run``, ``cancelling``). facts.py and fit.py ask
their questions through it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ..support.errors import Cancelled
from .cells_sql import (
    Cell,
    cell,
    is_nested,
    number_cast_sql,
    reads_as_text,
    text_expressions,
    text_number_sql,
)
from .source import TableSource, engine_problem

if TYPE_CHECKING:
    import duckdb

Progress = Callable[[float, str], None] | None
Cancel = Callable[[], bool] | None


_CANCEL: ContextVar[Cancel] = ContextVar("planner_cancel", default=None)


@contextmanager
def cancelling(cancel: Cancel) -> Iterator[None]:
    """Every query run inside (on this thread) is interrupted when ``cancel()`` turns true,
    raising ``Cancelled``: the app's worker stops a question a newer one superseded without
    every function here taking a ``cancel`` argument."""
    token = _CANCEL.set(cancel)
    try:
        yield
    finally:
        _CANCEL.reset(token)


def run(con: duckdb.DuckDBPyConnection, sql: str, source: TableSource | None = None,
        progress: Progress = None, cancel: Cancel = None, message: str = "Reading",
        params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
    """Run one query to the end; while it runs, report DuckDB's progress and interrupt it
    when ``cancel()`` turns true (then raise ``Cancelled``). A reading error becomes a
    one-line ``InputError`` naming the file."""
    import duckdb

    if cancel is None:
        cancel = _CANCEL.get()
    done = threading.Event()
    cancelled = threading.Event()

    def watch() -> None:
        while not done.wait(0.1):
            if cancel is not None and cancel():
                cancelled.set()
                con.interrupt()
                return
            if progress is not None:
                fraction = con.query_progress()
                if fraction >= 0:
                    progress(min(fraction / 100.0, 1.0), message)

    watcher = None
    if progress is not None or cancel is not None:
        watcher = threading.Thread(target=watch, daemon=True, name="engine-progress")
        watcher.start()
    try:
        rows: list[tuple[Any, ...]] = con.execute(sql, params).fetchall()
        return rows
    except (duckdb.InterruptException, RuntimeError) as exc:
        if cancelled.is_set() or (cancel is not None and cancel()):
            raise Cancelled(message) from None
        if source is not None and isinstance(exc, duckdb.Error):
            raise engine_problem(source, exc) from None
        raise
    except duckdb.Error as exc:
        if cancelled.is_set():
            raise Cancelled(message) from None
        if source is not None:
            raise engine_problem(source, exc) from None
        raise
    finally:
        done.set()
        if watcher is not None:
            watcher.join()


def column_types(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Each column of ``src`` and its DuckDB type."""
    return {str(r[0]): str(r[1]) for r in con.execute("DESCRIBE SELECT * FROM src").fetchall()}


def count_sql(condition: str) -> str:
    """SQL: the number of rows where ``condition`` holds."""
    return f"count(*) FILTER (WHERE {condition})"


class Reader:
    """One connection over the columns a set of questions names, with their types."""

    def __init__(self, source: TableSource, columns: Iterable[str | None],
                 con: duckdb.DuckDBPyConnection | None = None) -> None:
        wanted = [c for c in dict.fromkeys(columns) if c is not None and c in source.columns]
        self.source = source
        self.own = con is None
        self.con = source.connect(wanted) if con is None else con
        if self.own:  # a connection lent (an engine's) keeps its owner's settings
            # progress for query_progress() (the app's bar), never printed on the terminal
            self.con.execute("SET enable_progress_bar = true")
            self.con.execute("SET enable_progress_bar_print = false")
        self.types = column_types(self.con)
        self._cells: dict[str, Cell] = {}

    def cell(self, column: str) -> Cell:
        if column not in self._cells:
            kind = self.types[column]
            prepared = None
            if reads_as_text(kind) and not is_nested(kind):
                i = list(self.types).index(column)
                prepared = (f"__planner_t{i}", f"__planner_n{i}")
            self._cells[column] = cell(column, kind, prepared)
        return self._cells[column]

    @property
    def src(self) -> str:
        """The view ``src`` with each text column's trimmed text and number computed once
        per cell (the cell rules refer to them many times), for the columns whose ``cell``
        was asked for before."""
        return self.over("src")

    def over(self, base: str, columns: Iterable[str] | None = None) -> str:
        """``src`` as above over another relation ``base`` of some of its columns (such as
        a column's distinct values): the prepared cells of ``columns`` (default: every
        column whose ``cell`` was asked for)."""
        wanted = set(self._cells if columns is None else columns)
        inner = ["*"]
        outer = ["*"]
        for i, (column, kind) in enumerate(self.types.items()):
            # only the columns whose cells were asked for (DuckDB computes what it is given)
            if column in wanted and column in self._cells and reads_as_text(kind) \
                    and not is_nested(kind):
                t, _ = text_expressions(column, kind)
                inner.append(f"{t} AS __planner_t{i}")
                inner.append(f"{number_cast_sql(t)} AS __planner_c{i}")
                outer.append(f"{text_number_sql(f'__planner_t{i}', f'__planner_c{i}')} "
                             f"AS __planner_n{i}")
        return f"(SELECT {', '.join(outer)} FROM (SELECT {', '.join(inner)} FROM {base})) AS cells"

    def run(self, sql: str, progress: Progress = None, cancel: Cancel = None,
            message: str = "Reading") -> list[tuple[Any, ...]]:
        return run(self.con, sql, self.source, progress, cancel, message)

    def close(self) -> None:
        if self.own:
            self.con.close()

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
