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
from typing import TYPE_CHECKING, ClassVar

from ..support.words import KIND_NAMES
from .shared_form import NOISE_TIP, ONE_STATISTIC, FormWords, MechanismOption, mechanism_options

if TYPE_CHECKING:
    from ..dp.accuracy import Accuracy
    from ..model.plan import Query


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

    # --- the app's form: fields, mechanisms, labels ----------------------------------------
    # (the app builds one panel per group of fields: gui/dialogs/kind_panels; shared_form.py
    # names the groups and holds the words the kinds share)

    @abstractmethod
    def form_fields(self) -> frozenset[str]:
        """The groups of fields the statistic form shows for this kind (shared_form names
        them: ``column``, ``bounds``, ``domain``, ...)."""

    def form_mechanisms(self) -> tuple[MechanismOption, ...]:
        """The noise mechanisms the form offers, in the plan's order (MECHANISMS_BY_KIND)."""
        return mechanism_options(self.name)

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
        return KIND_NAMES.get(self.name, self.name)

    def pane_heading(self, query: Query, id_column: str | None,
                     rows_per_unit: int) -> tuple[str, str | None]:
        """The statistic pane's heading: words, then the column to show in bold (or None)."""
        name = KIND_NAMES.get(self.name, self.name)
        return (f"{name} of ", query.column) if query.column else (name, None)

    def pane_accuracy_note(self, query: Query, acc: Accuracy) -> str:
        """The note under the statistic pane's ± (a quantile says it in percentiles)."""
        return acc.note
