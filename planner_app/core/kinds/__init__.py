"""The statistic kinds: one module per kind (count.py, sum.py, ... synthetic.py), each one
class implementing the ``StatisticKind`` protocol of base.py, listed once in registry.py.

Adding a kind touches its module, the registry, the plan schema and the docs (CHANGELOG.md
names the files). The package sits on the DP mathematics (``core/dp``) and the plan's
vocabulary (``core/model``); everything above it (plan files, data engines, planning,
release, the app) calls a kind through the registry.
"""

from .base import StatisticKind
from .registry import KINDS, kind_of, title_of

__all__ = ["KINDS", "StatisticKind", "kind_of", "title_of"]
