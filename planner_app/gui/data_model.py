"""The session's data model: the open table, its columns and the answers about it
(owner-only, never published): how the plan and each statistic fit it, what a column holds.

Small tables answer at once. A full scan of a large one takes tens of seconds, so its
questions run on a worker: ``ask_*`` returns None while the answer is computed (the views
show "checking…") and the answer arrives as an ``Answered`` member (typed, one per kind of
question) through the ``answered`` callback the session turns into ``dataAnswered``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..core.data.repeats import Repeats, id_like_columns
from ..core.kinds import kind_of
from ..core.model import Plan, Query
from ..core.support.errors import Cancelled, InputError
from .memo import Memo, MemoMap
from .workers import Worker, WorkerSlot

if TYPE_CHECKING:  # the table's types: pandas is imported when a table is opened
    from ..core.data.facts import YesNoTally
    from ..core.data.source import TableSource
    from ..core.data.tables import ColumnInfo, Table


class Answered(str, Enum):
    """Which question a worker has answered (``Session.dataAnswered``). A ``str`` enum, so a
    view written against the old strings ("fit", "query", ...) reads it unchanged."""

    FIT = "fit"  # the whole plan against the table (fit_problems / ask_fit_problems)
    QUERY = "query"  # one statistic's checks (ask_query_checks)
    VALUES = "values"  # a column's distinct values (ask_column_values)
    FILE = "file"  # the datasets the ledger released this exact file as (file_datasets)


@dataclass(frozen=True)
class QueryChecks:
    """One statistic against the open table (owner-only, never exported)."""

    problems: list[InputError]
    tally: YesNoTally | None
    notes: list[str]  # its public parameters look read off the data


_SUPERSEDED = object()


def _fit_key(query: Query) -> Query:
    """What a statistic's fit depends on (not the label, ε or reasons): a form's keystrokes
    and a slider's moves do not read the column again."""
    return replace(query, label="", epsilon=1.0, justification=None, expected_count=None)


class DataModel:
    """The table and its cached answers; every cache is emptied when the table changes."""

    def __init__(self, answered: Callable[[Answered], None], message: Callable[[str], None],
                 async_rows: Callable[[], int]) -> None:
        self._answered = answered
        self._async_rows = async_rows  # tables of at least this many rows ask on a worker
        self._message = message
        self.table: Table | None = None
        self.table_path: Path | None = None
        self.columns: tuple[ColumnInfo, ...] = ()
        self._column_types: dict[str, str] = {}
        self._source: Memo[TableSource] = Memo()
        self._fit: Memo[list[InputError]] = Memo()  # key: (plan, table)
        # by _fit_key(query): problems and tally; notes; by column: facts, values
        self._query_fit: MemoMap[Query, tuple[list[InputError], YesNoTally | None]] = \
            MemoMap()
        #: the warnings of copied_from_data, by the statistic's fit and its lists found privately
        self._notes: MemoMap[tuple[Query, frozenset[str]], list[str]] = MemoMap()
        self._facts: MemoMap[str, Any] = MemoMap(limit=100_000)
        self._values: MemoMap[tuple[str, int], list[str]] = MemoMap()
        self._asking: dict[Any, Worker] = {}  # questions under way, by what they ask
        self._slots: dict[Answered, WorkerSlot] = {}  # a newer question supersedes

    # -- the table ----------------------------------------------------------------------------

    def set_table(self, table: Table | None, path: Path | None,
                  columns: list[ColumnInfo] | tuple[ColumnInfo, ...]) -> None:
        self.table, self.table_path, self.columns = table, path, tuple(columns)
        self._column_types = {c.name: c.detected_type for c in columns}
        for cache in (self._query_fit, self._notes, self._facts, self._values):
            cache.clear()
        self._fit.clear()
        self._source.clear()

    @property
    def column_types(self) -> Mapping[str, str]:
        return MappingProxyType(self._column_types)

    def set_column_type(self, name: str, kind: str) -> bool:
        """True when it changed."""
        if self._column_types.get(name) == kind:
            return False
        self._column_types[name] = kind
        return True

    @property
    def repeating(self) -> list[Repeats]:
        return id_like_columns(c.repeats for c in self.columns) if self.table else []

    def asks_on_worker(self) -> bool:
        table = self.table
        return table is not None and table.n_rows >= self._async_rows()

    def counted(self) -> dict[str, tuple[int, int]]:
        """Each column's filled and numeric cells, counted in the pass that opened the table
        (so a statistic's fit does not read the file again)."""
        return {c.name: c.filled_numbers for c in self.columns if c.filled_numbers is not None}

    def table_source(self) -> TableSource:
        from ..core.data.tables import source_of

        table = self.table
        assert table is not None
        return self._source.get((table,), lambda: source_of(table))

    # -- answers at once ----------------------------------------------------------------------

    def fit_problems(self, plan: Plan | None) -> list[InputError]:
        from ..core.data.relations_fit import table_problems

        table = self.table
        if plan is None or table is None:
            return []
        return self._fit.get((plan, table), lambda: table_problems(
            plan, self.table_source(), table.name, self.counted()))

    def query_fit(self, query: Query) -> tuple[list[InputError], YesNoTally | None]:
        if self.table is None:
            return [], None
        source, name, counted = self.table_source(), self.table.name, self.counted()
        return self._query_fit.get(_fit_key(query), (),
                                   lambda: _query_fit(query, source, name, counted))

    def column_facts(self, column: str) -> Any:
        from ..core.planning.check import column_facts

        if self.table is None or column not in self.table.columns:
            return None

        def read() -> Any:
            known = self._read_facts(column)
            return known if known is not None else column_facts(self.table_source(), column)

        return self._facts.get(column, (), read)

    def _read_facts(self, column: str) -> Any:
        """What the pass that opened the table found about ``column`` (or None)."""
        cached = self._facts.peek(column)
        if cached is not None:
            return cached
        return next((c.facts for c in self.columns if c.name == column), None)

    def column_values(self, column: str, limit: int = 50) -> list[str] | None:
        from ..core.data.facts import distinct_values

        if self.table is None or column not in self.table.columns:
            return None
        return distinct_values(self.table_source(), column, limit)

    # -- answers from a worker ----------------------------------------------------------------

    def ask(self, what: Answered, key: Any, work: Callable[[], Any],
            store: Callable[[Any], None]) -> None:
        """Run ``work()`` (core calls only) on a worker unless the same question is under way;
        a newer question of the same kind supersedes an older one. ``store(answer)`` runs on
        this thread while the same table is open, then the answer is announced."""
        table = self.table
        key = (id(table), key)  # a question about another table is another question
        running = self._asking.get(key)
        if running is not None and not running.is_cancelled():
            return  # asked once: its answer is on the way

        def fn(progress: Any, cancel: Callable[[], bool]) -> Any:
            from ..core.data.facts_reader import cancelling

            if cancel():  # superseded while it waited for a thread
                return _SUPERSEDED
            with cancelling(cancel):  # superseded while it reads: DuckDB is interrupted
                return work()

        worker = Worker(fn)

        def done(answer: Any) -> None:
            if self._asking.get(key) is worker:
                del self._asking[key]
            if answer is _SUPERSEDED or self.table is not table:
                return
            store(answer)
            self._answered(what)

        def failed(exc: object) -> None:
            if self._asking.get(key) is worker:
                del self._asking[key]
            if self.table is not table or isinstance(exc, Cancelled):
                return  # superseded: a newer question is on its way
            # a one-line message that never quotes a cell (the engine's reading of its error)
            from ..core.data.source import engine_problem

            problem = exc if isinstance(exc, InputError) else \
                engine_problem(self.table_source(), exc) if isinstance(exc, Exception) else \
                InputError("table", None, "could not be read")
            store(problem)
            self._answered(what)

        worker.signals.finished.connect(done)
        worker.signals.failed.connect(failed)
        self._asking[key] = worker
        self._slots.setdefault(what, WorkerSlot()).start(worker)

    def ask_fit_problems(self, plan: Plan | None) -> list[InputError] | None:
        from ..core.data.relations_fit import table_problems

        table = self.table
        if plan is None or table is None:
            return []
        if self._fit.has((plan, table)):
            return self._fit.peek((plan, table))
        if not self.asks_on_worker():
            return self.fit_problems(plan)
        source, counted, name = self.table_source(), self.counted(), table.name

        def store(answer: Any) -> None:
            self._fit.put((plan, table), [answer] if isinstance(answer, InputError) else answer)

        self.ask(Answered.FIT, ("fit", id(plan), id(table)),
                 lambda: table_problems(plan, source, name, counted), store)
        return None

    def ask_query_checks(self, query: Query) -> QueryChecks | None:
        from ..core.planning.check import copied_from_data, declared_columns, found_privately

        table = self.table
        if table is None:
            return QueryChecks([], None, [])
        key = _fit_key(query)
        notes_key = (key, found_privately(query))  # walk25: a list found privately is no copy
        fit, notes = self._query_fit.peek(key), self._notes.peek(notes_key)
        if fit is not None and notes is not None:
            return QueryChecks(fit[0], fit[1], notes)
        if not self.asks_on_worker():
            problems, tally = self.query_fit(query)
            notes = copied_from_data(query, self.column_facts)
            self._notes.put(notes_key, notes)
            return QueryChecks(problems, tally, notes)
        known = {c: self._read_facts(c) for c in declared_columns(query) if c in table.columns}
        source, counted, name = self.table_source(), self.counted(), table.name

        def work() -> tuple[Any, ...]:
            from ..core.data.facts import column_facts

            facts = dict(known)
            unread = [c for c, f in facts.items() if f is None]
            if unread:
                facts.update(column_facts(source, unread))
            problems, tally = _query_fit(query, source, name, counted)
            notes = copied_from_data(query, facts.get)  # reads the values present here
            return problems, tally, notes, facts

        def store(answer: Any) -> None:
            if isinstance(answer, InputError):
                answer = ([answer], None, [], {})
            problems, tally, notes, facts = answer
            for c, f in facts.items():
                self._facts.put(c, f)
            self._query_fit.put(key, (problems, tally))
            self._notes.put(notes_key, notes)

        self.ask(Answered.QUERY, ("query", notes_key), work, store)
        return None

    def ask_column_values(self, column: str, limit: int = 50) -> list[str] | None:
        from ..core.data.facts import distinct_values

        table = self.table
        if table is None or column not in table.columns:
            return []
        hit = self._values.peek((column, limit))
        if hit is not None:
            return hit
        if not self.asks_on_worker():
            values = self.column_values(column, limit) or []
            self._values.put((column, limit), values)
            return values
        source = self.table_source()

        def store(answer: Any) -> None:
            if isinstance(answer, InputError):
                self._message(str(answer))
                return
            self._values.put((column, limit), answer)

        self.ask(Answered.VALUES, ("values", column, limit),
                 lambda: distinct_values(source, column, limit), store)
        return None


def _query_fit(query: Query, source: TableSource, name: str,
               counted: dict[str, tuple[int, int]]
               ) -> tuple[list[InputError], YesNoTally | None]:
    """One statistic's problems against the table and, for a yes/no statistic that fits,
    how its column reads (core calls only: it runs on a worker too)."""
    from ..core.data.facts import yes_no_tally
    from ..core.data.fit import query_problems

    problems = query_problems(query, source, name, counted)
    tally = None
    if not problems and kind_of(query).reads_answers \
            and query.column is not None:
        tally = yes_no_tally(source, query)
    return problems, tally
