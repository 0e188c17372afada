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
from typing import ClassVar

from ..model import Query
from .shared_data import AggregateDescription


class StatisticKind(ABC):
    """One kind of statistic. Subclasses are stateless singletons (``registry.KINDS``)."""

    #: the kind's name in the plan file (``"kind": name``)
    name: ClassVar[str]
    #: its name in the app's words ("Count", "Sum", ...)
    title: ClassVar[str]

    # --- plan fields: read, validate and write the kind's own fields ---------------------

    # --- DP: sensitivity components, measurements, accuracy and its words -----------------

    # --- data: the engine's aggregate, the cells it reads --------------------------------

    @abstractmethod
    def aggregate_of(self, query: Query) -> AggregateDescription:
        """What the engines compute for this statistic (shared_data.py's vocabulary): the
        parts, the column and how it is read, the inner cells, the bounding of a number."""

    # --- planning and release: preview, readiness, post-processing, verify, report words --

    # --- the app's form: fields, mechanisms, labels ----------------------------------------
