"""What every statistic kind implements: the ``StatisticKind`` protocol.

A statistic's kind (``"count"``, ``"sum"``, ...) is a string in the plan file; everything that
depends on it lives in that kind's module of this package, as one class that implements this
protocol, and ``registry.KINDS`` is the one place that lists the kinds. Code outside
``core/kinds`` never tests a kind's name: it asks the registry for the kind
(``kind_of(query)``) and calls it. An abstract method a kind leaves out makes mypy refuse the
registry (it instantiates each kind), not a user's release.

The protocol has one section per concern, in the order of a statistic's life: its plan fields,
its DP mathematics, the engine's aggregate, planning and release, the app's form. Each section
lists its methods; a kind's module follows the same sections.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from ..dp.measure import Measurement
from ..model import Plan, Query
from ..model.plan import NEEDS_BOUNDS
from ..support.words import statistic_of_words
from .results import Aggregate, QueryRelease
from .shared_release import (
    AT_ZERO,
    Illustration,
    NoiseDraw,
    noise_meaning,
    statistic_parameters,
)


class StatisticKind(ABC):
    """One kind of statistic. Subclasses are stateless singletons (``registry.KINDS``)."""

    #: the kind's name in the plan file (``"kind": name``)
    name: ClassVar[str]
    #: its name in the app's words ("Count", "Sum", ...)
    title: ClassVar[str]

    # --- plan fields: read, validate and write the kind's own fields ---------------------

    # --- DP: sensitivity components, measurements, accuracy and its words -----------------

    # --- data: the engine's aggregate, the cells it reads --------------------------------

    # --- planning and release: preview, readiness, post-processing, verify, report words --

    #: a synthetic table: released as noised marginals and made-up rows (its own verify,
    #: its facts column by column, its CSV in the bundle, its ε composed in zCDP)
    makes_table: ClassVar[bool] = False
    #: publishes its noised answer file, noised/<id>.csv (randomized response)
    publishes_answers: ClassVar[bool] = False
    #: its released values carry an interval in value units (a quantile's is a rank error)
    gives_interval: ClassVar[bool] = True
    #: its public parameters name δ even when it is 0 (a synthetic table's δ is its own)
    always_shows_delta: ClassVar[bool] = False
    #: drawn as bars even with one cell (a histogram's cells)
    always_bars: ClassVar[bool] = False
    #: its illustration before release is scaled by the plan's rows (the caption says so)
    illustrated_by_rows: ClassVar[bool] = False
    #: on a number line, drawn from 0 so that the size of its interval shows
    line_from_zero: ClassVar[bool] = False
    #: its released values are shares, shown in %
    shown_in_percent: ClassVar[bool] = False

    @property
    def asks_bounds_reason(self) -> bool:
        """Its bounds are public parameters that need a reason (readiness's ``reasons``)."""
        return self.name in NEEDS_BOUNDS

    @abstractmethod
    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        """Draw the statistic's noise, once, and post-process it into released values
        (release/noise.py; the ledger was charged before)."""

    @abstractmethod
    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        """What verify finds wrong with one released row of results.csv (None: nothing);
        ``half``: the stated accuracy's half-width."""

    @abstractmethod
    def missing_words(self, query: Query) -> list[str]:
        """The kind's clauses of the missing-values sentence (planning/parameters.py)."""

    def public_parameters(self, query: Query) -> list[tuple[str, str]]:
        """(name, value) of its public parameters between its kind and its ε."""
        return statistic_parameters(query)

    def illustrative_per_cell(self, query: Query, per_group: float) -> float:
        """Rows per drawn cell from a stated row count per group (preview)."""
        return per_group

    def illustration(self, query: Query, rows: float) -> Illustration:
        """Where a preview draws a value in the statistic's own unit, from public parameters
        and ``rows`` rows a cell (planning/preview.py)."""
        return AT_ZERO

    def value_words(self, column: str) -> str:
        """The value axis of a preview in the statistic's own unit."""
        return f"{self.name} of {column}"

    def released_value_words(self, column: str) -> str:
        """The value axis of the chart of its released values."""
        return self.value_words(column)

    def released_span(self, lower: float | None, upper: float | None
                      ) -> tuple[float, float] | None:
        """The values a released value can take, shaded in its chart (None: unbounded)."""
        return None

    def check_lines(self, query: Query, plan: Plan, accuracy: dict[str, Any]) -> list[str]:
        """Lines ``planner-app check`` adds under the statistic (its accuracy in words)."""
        return []

    def report_meaning(self, record_query: dict[str, Any], query: Query | None,
                       confidence: float) -> str:
        """What a released value of this statistic means, in the report (``record_query``:
        its entry in release.json; ``query``: the plan's, when the record's plan reads)."""
        return noise_meaning(record_query["accuracy"], confidence)

    def describe(self, column: str | None, kind_name: str, imputed: bool = False,
                 id_column: str | None = None, max_rows: int = 1, people: bool = False) -> str:
        """What the statistic is, in a few words ("Mean of hours"; support/words.py)."""
        return statistic_of_words(column, kind_name)

    # --- the app's form: fields, mechanisms, labels ----------------------------------------
