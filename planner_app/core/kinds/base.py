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

import abc
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any, ClassVar

from ..dp.accuracy import Accuracy, format_half_width
from ..dp.measure import Measurement, Share, calibrate, even_shares
from ..dp.sensitivity import (
    Component,
    Grid,
    bounds_grid,
    bounds_text,
    describe_rows,
    groups_of,
    present_text,
    row_component,
)
from ..model import KindParams, Plan, PrivacyUnit, Query
from ..model.grid import DEFAULT_GRID_BITS
from ..model.plan import Scalar
from ..model.reader import FieldReader, as_number
from ..support.words import format_number, statistic_of_words
from .params import BoundedParams, params_of
from .results import Aggregate, QueryRelease
from .shared_data import AggregateDescription
from .shared_form import NOISE_TIP, ONE_STATISTIC, FormWords, MechanismOption, mechanism_options
from .shared_plan import Stage, in_key_order, not_used, read_bounds, read_grid_step
from .shared_release import (
    AT_ZERO,
    Illustration,
    NoiseDraw,
    noise_meaning,
    statistic_parameters,
)

if TYPE_CHECKING:
    from ..dp.accuracy import Accuracy, format_half_width
    from ..model.plan import Query


class StatisticKind(ABC):
    """One kind of statistic. Subclasses are stateless singletons (``registry.KINDS``)."""

    #: the kind's name in the plan file (``"kind": name``)
    name: ClassVar[str]
    #: its name as the app lists it ("Count", "Sum", ... "Yes/no share")
    title: ClassVar[str]
    #: its name inside a sentence of the report ("count", "share of yes (randomized ...)")
    words: ClassVar[str]

    # --- plan fields: read, validate and write the kind's own fields ---------------------
    # (planfile/validation.py reads the fields every statistic has and calls ``read_own`` at
    # each stage between them, the order the messages of a plan's first problem depend on;
    # it then makes the kind's ``params_type`` from what was read)

    #: the type of its own fields in ``Query.params`` (shared_plan.py's families)
    params_type: ClassVar[type[KindParams]] = KindParams
    #: the plan fields of its own that the fields below do not list already (a new kind's:
    #: the plan reader accepts them, and refuses them for every other kind)
    own_keys: ClassVar[tuple[str, ...]] = ()

    #: it clamps a column to declared bounds (lower, upper; a grid_step may be given)
    bounded: ClassVar[bool] = False
    #: the plan-level refusal of the "basic" accountant for it (None: basic composes it)
    basic_accountant_refusal: ClassVar[str | None] = None

    def pld_accountant_refusal(self, query: Query) -> str | None:
        """The plan-level refusal of the "pld" accountant for this statistic (None: PLD
        composes it; AIM's adaptive rounds compose in zCDP only)."""
        return None

    #: its mechanisms, the default first (a synthetic table's is its "method")
    mechanisms: ClassVar[tuple[str, ...]] = ("laplace", "gaussian")
    #: it reads a column
    needs_column: ClassVar[bool] = True
    #: the row-selecting plan fields it does not take (validation refuses them, the form
    #: does not offer them)
    not_taken: ClassVar[frozenset[str]] = frozenset()
    #: its mechanism takes a δ above 0 although it is not the gaussian (a threshold's δ:
    #: discover_keys)
    needs_delta: ClassVar[bool] = False
    #: its released cells are found in the data (a discovery of keys), not declared in the
    #: plan: verify checks them with ``discovered_rows_problem``, not against the plan's cells
    discovers_cells: ClassVar[bool] = False
    #: its released values are the public list or bounds of another statistic of a later plan
    #: (``plan apply-discovery``; release/discovery.py)
    is_discovery: ClassVar[bool] = False
    #: what a discovery finds: "keys" (a list of keys) or "bounds" (a lower and an upper
    #: bound); "" for every other kind
    discovers: ClassVar[str] = ""
    #: what its values add up as in a plan's consistency relations (planfile/relations.py):
    #: "count" (a count, a histogram's cells), "sum" (a sum), "" (they do not add up)
    adds_up_as: ClassVar[str] = ""
    #: its cells are a breakdown even without a group_by (a histogram's categories), so it
    #: can be the parts of a relation but never its total
    cells_without_group_by: ClassVar[bool] = False
    #: its ± before release is computed from a row count, so it reads a statistic's
    #: ``expected_count`` (the form shows that field for it)
    asks_expected_count: ClassVar[bool] = False

    def takes(self, field: str) -> bool:
        """Whether it takes the row-selecting plan field ``field`` (group_by, where)."""
        return field not in self.not_taken

    def read_query(self, r: FieldReader, qid: str, label: str) -> Query | None:
        """The whole statistic, for a kind whose fields share nothing with the others
        (a synthetic table); None: planfile/validation.py reads the common fields and calls
        the readers below."""
        return None

    def read_own(self, r: FieldReader, stage: Stage, got: dict[str, Any]) -> None:
        """Read (and check) its own fields of ``stage`` into ``got``, by the names of its
        ``params_type``'s fields; refuse another kind's. A new kind with a field of its own
        reads it here, at the stage where it should be checked."""
        if stage == "opening":
            not_used(r, self.name, "columns", "rows", "method")
        elif stage == "leading":
            got["lower"], got["upper"] = self.read_bounds(r)
            got["categories"], got["bins"] = self.read_cells(r)
            got["quantile"] = self.read_quantile(r)
        elif stage == "answers":
            got["yes"], got["no"] = self.read_yes_no(r)
        elif stage == "tuning":
            got["grid_step"] = read_grid_step(r, self.name, self.bounded, self.grid_bits, got)
        else:
            got["of"] = self.read_of(r)

    def params_from(self, got: Mapping[str, Any]) -> KindParams:
        """Its ``params_type`` from the fields ``read_own`` read (a field another kind has,
        read as None here, is left out; a value its params cannot hold is a bug)."""
        names = {f.name for f in fields(self.params_type)}
        stray = [k for k, v in got.items() if k not in names and v is not None]
        assert not stray, f"{self.name} read {stray} but its params do not hold them"
        return self.params_type(**{k: v for k, v in got.items() if k in names})

    def read_bounds(self, r: FieldReader) -> tuple[float | None, float | None]:
        """Its declared lower and upper bounds (None, None: it has none)."""
        if not self.bounded:
            not_used(r, self.name, "lower", "upper")
            return None, None
        return read_bounds(r)

    def read_cells(self, r: FieldReader) -> tuple[tuple[Scalar, ...] | None,
                                                  tuple[float, ...] | None]:
        """Its declared categories or bin edges (a histogram), else None, None."""
        not_used(r, self.name, "categories", "bins")
        return None, None

    def read_quantile(self, r: FieldReader) -> float | None:
        """Its quantile level (a quantile), else None."""
        not_used(r, self.name, "quantile")
        return None

    def read_yes_no(self, r: FieldReader) -> tuple[tuple[Scalar, ...] | None,
                                                   tuple[Scalar, ...] | None]:
        """The cell values it reads as yes and as no (randomized response), else None, None."""
        if r.has("yes") or r.has("no"):
            r.fail("yes" if r.has("yes") else "no", f"is not used by kind {self.name}")
        return None, None

    def read_impute(self, r: FieldReader, value: Scalar, got: Mapping[str, Any]) -> Scalar:
        """The value imputed for a missing cell, checked against its fields read before it
        (``got``, as ``read_own`` filled it): a number for a bounded column."""
        if self.bounded:
            return as_number(value, lambda p: r.fail("missing.impute", p))
        return value

    def read_of(self, r: FieldReader) -> str | None:
        """What it counts: "rows", or "people" (a count; None: it counts nothing)."""
        not_used(r, self.name, "of")
        return None

    def unit_problem(self, unit: PrivacyUnit, query: Query) -> tuple[str, str] | None:
        """(field, problem) when it cannot be computed for this privacy unit, else None."""
        return None

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        """Its own fields as the plan file writes them (bounds, categories, ...)."""
        return {}

    def query_to_dict(self, query: Query, common: dict[str, Any]) -> dict[str, Any]:
        """The statistic's plan JSON from the fields every statistic has (``common``) and its
        own, in the plan file's canonical order."""
        return in_key_order({**common, **self.fields_to_dict(query)})

    # --- DP: sensitivity components, measurements, accuracy and its words -----------------
    # (the dispatchers callers use -- components_for, measurements_for, accuracy_for, ... --
    # are in shared_dp.py; the kind-neutral mathematics is in core/dp)

    #: about 2^grid_bits grid points between a bounded column's bounds (model/grid.py)
    grid_bits: ClassVar[int] = DEFAULT_GRID_BITS
    #: a row may fall outside every declared cell (a histogram's categories or bins)
    rows_outside_cells: ClassVar[bool] = False
    #: the unit of its ± (Accuracy.unit) when it cannot be computed yet
    accuracy_unit: ClassVar[str] = "value"
    #: its ± is for a stated public row count (dp.accuracy.rows_basis says which)
    accuracy_needs_rows: ClassVar[bool] = False

    def grid(self, query: Query) -> Grid:
        """The power-of-two grid its bounded column is rounded to (public bounds only)."""
        p = params_of(query, BoundedParams)
        assert p.lower is not None and p.upper is not None
        return bounds_grid(p.lower, p.upper, p.grid_step, self.grid_bits)

    def value_cells(self, query: Query) -> int:
        """How many disjoint cells one group of it releases (a histogram: its categories or
        bins)."""
        return 1

    def cell_count(self, query: Query) -> int:
        """How many disjoint cells it releases (groups times categories or bins)."""
        return self.value_cells(query) * groups_of(query)

    def row_component(self, name: str, a: int, b: int, step: float, query: Query,
                      unit: PrivacyUnit, relation: str, what: str) -> Component:
        """A component whose rows add a value in [a, b] steps to one cell: its cells and
        whether a row may add nothing (filtered, grouped, dropped, outside the cells)."""
        cells = self.cell_count(query) if name in ("cells", "count", "sum", "sumsq") else 1
        can_be_empty = (query.is_filtered or query.group_by is not None
                        or self.rows_outside_cells)
        return row_component(name, a, b, step, unit, relation, what, cells=cells,
                             can_be_empty=can_be_empty)

    def centred_components(self, query: Query, unit: PrivacyUnit,
                           relation: str) -> list[Component]:
        """The count of rows and the sum of a bounded column minus its grid's midpoint: the
        first components of a mean and a variance."""
        grid = self.grid(query)
        extra = describe_rows(query)
        c = grid.centre
        p = params_of(query, BoundedParams)
        centred = (f"sum of {bounds_text(query.column, p.lower, p.upper)}, minus the midpoint "
                   f"{format_number(c * grid.step)}{extra}")
        count = self.row_component("count", 1, 1, 1.0, query, unit, relation,
                                   f"count of rows{present_text(query)}{extra}")
        return [count, self.row_component("sum", grid.lo - c, grid.hi - c, grid.step, query,
                                          unit, relation, centred)]

    @abc.abstractmethod
    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        """Its integer components with their exact sensitivities (dp/sensitivity.py)."""

    def shares(self, query: Query, parts: list[Component]) -> list[Share]:
        """Its ε and δ split over its components (evenly over those that need noise)."""
        return even_shares(query, parts)

    def measurements(self, query: Query, plan: Plan) -> list[Measurement]:
        """Its noisy measurements: each component calibrated at its share, by the query's
        mechanism."""
        parts = self.components(query, plan.privacy_unit, plan.neighbouring)
        return calibrate(query, plan, self.shares(query, parts))

    def refusal(self, query: Query, measurements: list[Measurement]) -> str | None:
        """Why it cannot be released at its ε although its measurements exist (None: it
        can). check_plan refuses such a plan before any charge; its accuracy shows why."""
        return None

    def sampler_refusal(self, query: Query, rows: int | None) -> str | None:
        """Why its sampler would not finish in reasonable time on a table of at most
        ``rows`` rows (None: unknown), from public parameters only; None when it will."""
        return None

    @abc.abstractmethod
    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        """Its ± at ``confidence`` from its measurements (the rows per person are stated)."""

    def possible_range(self, query: Query,
                       acc: Accuracy | dict[str, Any]) -> tuple[float, str] | None:
        """The width of the values it can take, and how to say it (None: unbounded)."""
        return None

    def central_share_hint(self, query: Query, acc: Accuracy | dict[str, Any]) -> str | None:
        """A note beside its ± pointing to a cheaper statistic (None: none)."""
        return None

    # --- data: the engine's aggregate, the cells it reads --------------------------------

    @abstractmethod
    def aggregate_of(self, query: Query) -> AggregateDescription:
        """What the engines compute for this statistic (shared_data.py's vocabulary): the
        parts, the column and how it is read, the inner cells, the bounding of a number."""

    #: it reads its column as yes/no answers (its description's ``reads_answers``)
    reads_answers: ClassVar[bool] = False

    def inner_labels(self, query: Query) -> list[Any]:
        """The labels of one group's cells in release order (a histogram's categories or
        bins; ``[None]``: one cell), asked of a statistic still being edited too."""
        return [None]

    def reads_numbers(self, query: Query) -> bool:
        """It reads its column as numbers (its description's ``reads_numbers``), asked of a
        statistic still being edited too, whose bounds or bins may be missing."""
        return self.bounded

    # --- planning and release: preview, readiness, post-processing, verify, report words --

    #: a synthetic table: released as noised marginals and made-up rows (its own verify,
    #: its facts column by column, its CSV in the bundle, its ε composed in zCDP)
    makes_table: ClassVar[bool] = False
    #: publishes its noised answer file, noised/<id>.csv (randomized response)
    publishes_answers: ClassVar[bool] = False
    #: its released values carry an interval in value units (a quantile's is a rank error);
    #: ask ``interval_given(query)`` where a statistic's own fields may change it
    gives_interval: ClassVar[bool] = True

    def interval_given(self, query: Query) -> bool:
        """Whether this statistic's released values carry an interval (the kind's rule;
        a kind whose fields decide it says so here)."""
        return self.gives_interval
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
        return self.bounded

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

    def discovered_rows_problem(self, query: Query, plan: Plan,
                                rows: list[tuple[str, float | None]],
                                ends: list[tuple[float | None, float | None]] | None = None,
                                confidence: float | None = None) -> str | None:
        """What verify finds wrong with the released (cell, value) rows of a kind whose cells
        are found in the data (``discovers_cells``); None: nothing. ``ends``: each row's
        (low, high) as results.csv holds them, at the release's ``confidence``."""
        return None

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

    def owner_row_notes(self, query: Query, plan: Plan, accuracy: Accuracy, rows: int
                        ) -> list[str]:
        """Notes for the owner only (``check --data``, the release's notes; never published)
        from the table's own row count ``rows`` (walk25c: bounds found on a small table)."""
        return []

    #: whether ``owner_row_notes`` reads the table's row count (counted only when one does)
    reads_row_count = False

    def plan_warnings(self, query: Query, plan: Plan, accuracy: Accuracy) -> list[str]:
        """Warnings ``check`` and the app give about this statistic from the plan's public
        numbers alone (disc25c: bounds found on a table too small for their quantiles)."""
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
    # (the app builds one panel per group of fields: gui/dialogs/kind_panels; shared_form.py
    # names the groups and holds the words the kinds share)

    @abstractmethod
    def form_fields(self) -> frozenset[str]:
        """The groups of fields the statistic form shows for this kind (shared_form names
        them: ``column``, ``bounds``, ``domain``, ...)."""

    def form_mechanisms(self) -> tuple[MechanismOption, ...]:
        """The noise mechanisms the form offers, in the plan's order (MECHANISMS_BY_KIND)."""
        return mechanism_options(self.mechanisms)

    def form_noise_tip(self) -> str:
        """The tooltip of the form's noise list."""
        return NOISE_TIP

    def form_words(self) -> FormWords:
        """The form's words that change with the kind (column label, reasons, declaration)."""
        return ONE_STATISTIC

    def releases_table(self) -> bool:
        """Whether the release is a table of made-up rows (its own preview, accuracy words and
        CSV file in the bundle), not numbers."""
        return False

    def list_name(self, query: Query) -> str:
        """The statistic's kind in the app's list of statistics (a count says which rows)."""
        return self.title

    def pane_heading(self, query: Query, id_column: str | None,
                     rows_per_unit: int) -> tuple[str, str | None]:
        """The statistic pane's heading: words, then the column to show in bold (or None)."""
        name = self.title
        return (f"{name} of ", query.column) if query.column else (name, None)

    def pane_accuracy_note(self, query: Query, acc: Accuracy) -> str:
        """The note under the statistic pane's ± (a quantile says it in percentiles)."""
        return acc.note

    # gui25: the list of statistics' accuracy cell; a discovery says what it publishes
    def accuracy_cell(self, query: Query, plan: Plan, acc: Accuracy) -> str:
        """The app's list of statistics: the ± of ``acc`` in its shown unit."""
        return format_half_width(acc)
