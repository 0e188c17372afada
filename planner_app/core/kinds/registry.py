"""The one list of statistic kinds. Everything that depends on a statistic's kind asks this
registry for it (``kind_of(query)``, ``KINDS[name]``) and calls the kind: no code outside
``core/kinds`` tests a kind's name (``tests/core/test_kinds_registry.py`` searches for it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from .base import StatisticKind
from .count import Count
from .histogram import Histogram
from .mean import Mean
from .quantile import Quantile
from .randomized_response import RandomizedResponse
from .standard_deviation import StandardDeviation
from .sum import Sum
from .synthetic import Synthetic
from .variance import Variance


class _HasKind(Protocol):
    @property
    def kind(self) -> str: ...


#: every kind, by its name in the plan file, in the order the app offers them
KINDS: Mapping[str, StatisticKind] = {
    k.name: k for k in (Count(), Sum(), Mean(), Variance(), StandardDeviation(), Histogram(),
                        Quantile(), RandomizedResponse(), Synthetic())
}


def title_of(name: str) -> str:
    """A kind's name as the app lists it, from its name in a file (a name this version does
    not know, e.g. in a record made by a newer one, is shown as written)."""
    kind = KINDS.get(name)
    return kind.title if kind is not None else name


def kind_of(query: _HasKind) -> StatisticKind:
    """The kind of a statistic (a ``Query``, or anything with a ``kind`` name). The plan's
    reader refuses an unknown name, so a KeyError here is a bug, never a user's input."""
    return KINDS[query.kind]
