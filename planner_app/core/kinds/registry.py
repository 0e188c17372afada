"""The one list of statistic kinds. Everything that depends on a statistic's kind asks this
registry for it (``kind_of(query)``, ``KINDS[name]``) and calls the kind: no code outside
``core/kinds`` tests a kind's name (``tests/core/test_kinds_registry.py`` searches for it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, Protocol

from ..model.plan import Query
from .base import StatisticKind
from .count import Count
from .discover_bounds import DiscoverBounds
from .discover_keys import DiscoverKeys
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
                        Quantile(), RandomizedResponse(), Synthetic(),
                        DiscoverKeys(), DiscoverBounds())
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


_COMMON = frozenset(f.name for f in fields(Query)) - {"params"}


def make_query(kind: str, **values: Any) -> Query:
    """A statistic of kind ``kind`` from keyword fields, the kind's own among them
    (``make_query("sum", id="s", epsilon=1.0, column="age", lower=0, upper=100)``): the
    fields every statistic has go to the Query, the rest to the kind's ``params_type``. For
    code that builds a statistic without a plan file (a starter plan, the app's drafts, the
    tests); a plan file is read by planfile/validation.py. A field the kind does not have
    may be given as None (a form's empty field) and is left out."""
    names = {f.name for f in fields(KINDS[kind].params_type)}
    own = {k: v for k, v in values.items()
           if k not in _COMMON and (k in names or v is not None)}
    common = {k: v for k, v in values.items() if k in _COMMON}
    return Query(kind=kind, params=KINDS[kind].params_type(**own), **common)
