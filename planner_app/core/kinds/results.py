"""The shapes a statistic's kind works on and hands on: the true integer aggregates an engine
computes for it (``Aggregate``; they never leave the process, and ``AggregateFacts`` is shown
to the owner only) and the released values made from them after the noise
(``ReleasedValue``, kept column-wise as ``ReleasedValues``; ``QueryRelease`` per statistic).

They live here, below the data engines and the release, so that a kind can compute and
return them; the data engines and release/noise.py use them from here.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import repeat
from typing import TYPE_CHECKING, Any, Protocol, overload

from ..model import Query

if TYPE_CHECKING:  # numpy is loaded by the engines and samplers that fill these shapes
    import numpy as np


@dataclass
class AggregateFacts:
    """Owner-only facts about one query's aggregation (shown on screen, never exported)."""

    rows_considered: int = 0
    missing_dropped: int = 0
    missing_imputed: int = 0
    outside_declared: int = 0
    not_yes_no: int = 0  # present cells in neither the yes nor the no values (yes/no kinds)


@dataclass
class Aggregate:
    """True integer aggregates of one query, one entry per declared cell (each part int64,
    or Python ints in an object array where a sum passes 2^63: ``exact_integers``)."""

    query_id: str
    cells: list[tuple[Any, ...]]
    parts: dict[str, np.ndarray] = field(default_factory=dict)
    sorted_values: list[np.ndarray] | None = None
    # quantiles from an engine: per cell, the distinct grid steps (ascending) and their counts
    step_counts: list[tuple[np.ndarray, np.ndarray]] | None = None
    answers: np.ndarray | None = None
    facts: AggregateFacts = field(default_factory=AggregateFacts)


#: the largest magnitude an int64 part holds; a part beyond it is an object array of Python ints
_INT64_MAX = (1 << 63) - 1


def exact_integers(values: Sequence[int]) -> np.ndarray:
    """Exact integers as an array: int64 while every value fits, else Python ints (an object
    array) -- a sum of 300M rows, or of squares on a fine grid, may pass 2^63 (issue 24)."""
    import numpy as np

    if all(-_INT64_MAX <= v <= _INT64_MAX for v in values):
        return np.array(values, dtype=np.int64)
    out = np.empty(len(values), dtype=object)
    out[:] = [int(v) for v in values]
    return out


def exact_sums(cells: np.ndarray, weights: Sequence[int] | np.ndarray, n: int,
               bound: int) -> np.ndarray:
    """The sum of ``weights`` per cell 0..n-1, exactly: in int64 when ``bound`` (a bound on
    every cell's sum of absolute weights, from public parameters) is below 2^63, else in
    Python ints (``exact_integers``)."""
    import numpy as np

    if bound <= _INT64_MAX:
        out = np.zeros(n, dtype=np.int64)
        np.add.at(out, np.asarray(cells, dtype=np.int64), np.asarray(weights, dtype=np.int64))
        return out
    totals = [0] * n
    for c, w in zip(np.asarray(cells).tolist(), np.asarray(weights, dtype=object).tolist(),
                    strict=True):
        totals[c] += int(w)
    return exact_integers(totals)


class AggregateEngine(Protocol):
    def aggregate(self, query: Query) -> Aggregate: ...


@dataclass(frozen=True)
class ReleasedValue:
    """One released number with its interval. Contains only noised values and public
    parameters."""

    query_id: str
    label: str
    group: Any
    cell: Any
    value: float | int | None
    low: float | int | None
    high: float | int | None
    confidence: float
    mechanism: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "label": self.label, "group": self.group,
                "cell": self.cell, "value": self.value, "low": self.low, "high": self.high,
                "confidence": self.confidence, "mechanism": self.mechanism, "note": self.note}


@contextmanager
def _no_gc() -> Iterator[None]:
    """No cyclic garbage collection while making 10^5-10^6 objects that hold no cycles (the
    collector would walk them all, again and again, for nothing: half the time)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class ReleasedValues(Sequence[ReleasedValue]):
    """The released values of one statistic, kept column-wise: the cells, the values, the
    interval ends and the notes as lists (one note may stand for every cell). The
    ``ReleasedValue`` rows are made on first use, all at once, so a dry run that throws its
    values away never makes them."""

    def __init__(self, query_id: str, label: str, cells: list[tuple[Any, ...]],
                 value: list[Any], low: list[Any], high: list[Any], confidence: float,
                 mechanism: str, note: str | list[str]) -> None:
        self._columns = (query_id, label, cells, value, low, high, confidence, mechanism, note)
        self._rows: list[ReleasedValue] | None = None

    def rows(self) -> list[ReleasedValue]:
        if self._rows is None:
            qid, label, cells, value, low, high, confidence, mechanism, note = self._columns
            n = len(cells)
            notes = repeat(note, n) if isinstance(note, str) else note
            with _no_gc():
                self._rows = list(map(
                    ReleasedValue, repeat(qid, n), repeat(label, n),
                    [c[0] for c in cells], [c[1] for c in cells], value, low, high,
                    repeat(confidence, n), repeat(mechanism, n), notes))
        return self._rows

    def columns(self) -> tuple[str, str, list[tuple[Any, ...]], list[Any], list[Any],
                               list[Any], float, str, str | list[str]]:
        """(query id, label, cells, values, lows, highs, confidence, mechanism, note or
        notes): what the record's column-wise results are written from."""
        return self._columns

    def __len__(self) -> int:
        return len(self._columns[2])

    @overload
    def __getitem__(self, i: int) -> ReleasedValue: ...

    @overload
    def __getitem__(self, i: slice) -> list[ReleasedValue]: ...

    def __getitem__(self, i: int | slice) -> ReleasedValue | list[ReleasedValue]:
        return self.rows()[i]

    def __iter__(self) -> Iterator[ReleasedValue]:
        return iter(self.rows())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (ReleasedValues, list)):
            return self.rows() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ReleasedValues({self.rows()!r})"


@dataclass
class QueryRelease:
    query_id: str
    values: Sequence[ReleasedValue]
    # randomized response: the published answer file (noised length, see rr_answer_file)
    noised_answers: np.ndarray | None = None
    # synthetic table: its noised marginals, selected pairs, rows and seed (synthetic.py)
    synthetic: dict[str, Any] | None = None

