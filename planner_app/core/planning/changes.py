"""What an edit changed, so a view refreshes only what it shows (Anki's ``OpChanges``).

The desktop app's session emits one ``OpChanges`` after every edit, undo, redo, plan load,
table load and settings change. ``plan_changes`` finds what differs between two plans, so an
undo or a redo says exactly what it changed too. Qt-free: any front end can use it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..model import Plan


@dataclass(frozen=True)
class OpChanges:
    statistics: frozenset[str] = frozenset()  # ids added, removed or edited (definition or ε)
    statistic_list: bool = False  # statistics added, removed or reordered
    budget: bool = False  # the release budget (ε, δ, accountant)
    dataset: bool = False  # the dataset's name, public row count or table path
    unit: bool = False  # who one person is, or what is protected: every statistic's noise
    review: bool = False  # the plan's reason for ε or its approvals
    plan_replaced: bool = False  # a new, opened or closed plan: everything
    table: bool = False  # a table was loaded
    column_types: bool = False  # a column's type was overridden
    held: bool = False  # the set of statistics whose ε is held
    settings: bool = False  # confidence or the approval rule: accuracies and the checklist
    ledger: bool = False  # the dataset's lifetime budget was read again
    history: bool = False  # the undo stack, the saved state or the plan's file
    selection: bool = False  # another statistic was selected (a view's state, not the plan's)
    relations: bool = False  # gui27: the plan's relations, their options or headline values

    def __or__(self, other: OpChanges) -> OpChanges:
        values = {}
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            values[f.name] = a | b
        return OpChanges(**values)

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    @property
    def plan(self) -> bool:
        """Anything in the plan changed."""
        return bool(self.statistics) or self.statistic_list or self.budget or self.dataset \
            or self.unit or self.review or self.plan_replaced or self.relations

    @property
    def all_statistics(self) -> bool:
        """Every statistic's numbers may have changed (noise, accuracy or the whole plan)."""
        return self.plan_replaced or self.unit or self.dataset or self.settings

    def touches(self, query_id: str | None) -> bool:
        """This statistic's definition, ε, accuracy or noise may have changed."""
        return self.all_statistics or (query_id is not None and query_id in self.statistics)

    @property
    def totals(self) -> bool:
        """The composed total, the meter and the release rules may have changed."""
        return self.plan or self.table or self.settings or self.ledger

    @classmethod
    def everything(cls) -> OpChanges:
        return cls(statistic_list=True, budget=True, dataset=True, unit=True, review=True,
                   plan_replaced=True, table=True, column_types=True, held=True,
                   settings=True, ledger=True, history=True, selection=True,
                   relations=True)


def plan_changes(before: Plan | None, after: Plan | None) -> OpChanges:
    """What differs between two versions of the plan."""
    if before is after:
        return OpChanges()
    if before is None or after is None:
        return OpChanges(plan_replaced=True, statistic_list=True)
    old = {q.id: q for q in before.queries}
    new = {q.id: q for q in after.queries}
    edited = frozenset(qid for qid in old.keys() | new.keys() if old.get(qid) != new.get(qid))
    return OpChanges(
        statistics=edited,
        statistic_list=list(old) != list(new),
        budget=before.budget != after.budget,
        dataset=before.dataset != after.dataset,
        unit=before.privacy_unit != after.privacy_unit
        or before.neighbouring != after.neighbouring,
        review=before.justification != after.justification
        or before.approvals != after.approvals,
        relations=before.consistency != after.consistency,
    )
