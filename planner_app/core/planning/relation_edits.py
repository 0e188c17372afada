"""Editing a plan's relations and headline values (issue 27), for the app's relations editor.

The choices come from the kinds (``adds_up_as``, ``cells_without_group_by``); whether a
relation is accepted is decided by the plan reader's one rule (planfile/relations.py), so
the app refuses exactly what a plan file would, with the same one-line message naming the
field. Each edit returns a new Plan; the session applies it as one undoable command. The
relations and the headline are part of the plan's digest, so an approval of the plan no
longer holds once they change (the officer approves what is published first). Qt-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..kinds.registry import kind_of
from ..model import Plan, Query
from ..model.plan import HEADLINES, Consistency, Relation, Scalar
from ..model.reader import FieldReader
from ..model.values import canonical_key
from ..planfile.relations import consistency_to_dict, read_consistency
from ..support.errors import InputError

#: what each headline choice is called on screen (HEADLINES' order)
HEADLINE_WORDS = {"raw": "the raw noised values",
                  "consistent": "the consistent values (they add up)"}


def can_be_total(q: Query) -> bool:
    """A count or a sum: a statistic whose cells other statistics' cells may add up to."""
    kind = kind_of(q)
    return bool(kind.adds_up_as) and not kind.cells_without_group_by


def total_choices(plan: Plan) -> list[Query]:
    """The statistics that can be a relation's total, in plan order."""
    return [q for q in plan.queries if can_be_total(q)]


def parts_choices(plan: Plan, total_id: str) -> list[Query]:
    """The statistics whose cells may add up to ``total_id``'s: the same kind of total (a
    count's parts are counts with a group_by or histograms; a sum's, sums with a group_by).
    The reader still decides (the same rows counted, the same column and bounds)."""
    total = plan.query(total_id)
    wanted = kind_of(total).adds_up_as
    return [q for q in plan.queries if q.id != total.id and kind_of(q).adds_up_as == wanted
            and (kind_of(q).cells_without_group_by or q.group_by is not None)]


def needs_within(plan: Plan, total_id: str, parts_id: str) -> bool:
    """True when the parts' group keys must each be placed within one of the total's keys
    (a two-level hierarchy: both grouped, by other columns or other keys)."""
    total, parts = plan.query(total_id), plan.query(parts_id)
    if total.group_by is None or parts.group_by is None:
        return False
    return parts.group_by.column != total.group_by.column or \
        {canonical_key(k) for k in parts.group_by.keys} != \
        {canonical_key(k) for k in total.group_by.keys}


def relation_sentence(plan: Plan, relation: Relation) -> str:
    """One relation in plain words, with the statistics' titles."""
    parts, total = plan.query(relation.parts), plan.query(relation.total)
    head = f"The cells of {parts.title} add up to {total.title}"
    if relation.within and total.group_by is not None and parts.group_by is not None:
        return (f"{head}: each {parts.group_by.column} to the {total.group_by.column} it "
                "lies within")
    if total.group_by is not None:
        return f"{head}, group by group"
    return head


def _consistency(plan: Plan) -> Consistency:
    return plan.consistency or Consistency(relations=())


def set_consistency(plan: Plan, relations: Sequence[Relation], *,
                    non_negative: bool | None = None, integer: bool | None = None,
                    headline: str | None = None) -> Plan:
    """The plan with these relations and options (None: keep the plan's), read by the plan
    file's own rule: InputError naming the field (``consistency.relations[1].parts``, ...)
    when the plan would refuse them. No relation left: no consistency section."""
    old = _consistency(plan)
    if not relations:
        return plan if plan.consistency is None else replace(plan, consistency=None)
    wanted = Consistency(relations=tuple(relations),
                         non_negative=old.non_negative if non_negative is None else non_negative,
                         integer=old.integer if integer is None else integer,
                         headline=old.headline if headline is None else headline)
    reader = FieldReader("plan", {"consistency": consistency_to_dict(wanted)}, "",
                         ("consistency",))
    read = read_consistency(reader, plan.queries)
    return plan if read == plan.consistency else replace(plan, consistency=read)


def add_relation(plan: Plan, total_id: str, parts_id: str,
                 within: Sequence[tuple[Scalar, Sequence[Scalar]]] = ()) -> Plan:
    """The plan with one more relation: the cells of ``parts_id`` add up to ``total_id``'s
    (``within``: for a two-level hierarchy, each total key with the parts' keys in it)."""
    relations = _consistency(plan).relations
    if needs_within(plan, total_id, parts_id) and not within:
        raise InputError("plan", f"consistency.relations[{len(relations)}].within",
                         f"place each key of {parts_id!r} within one key of {total_id!r} "
                         "(none is placed yet)")
    relation = Relation(total=total_id, parts=parts_id,
                        within=tuple((k, tuple(m)) for k, m in within))
    return set_consistency(plan, [*relations, relation])


def remove_relation(plan: Plan, index: int) -> Plan:
    """The plan without its relation ``index`` (the last one gone: no consistency)."""
    relations = list(_consistency(plan).relations)
    del relations[index]
    return set_consistency(plan, relations)


def set_options(plan: Plan, *, non_negative: bool | None = None, integer: bool | None = None,
                headline: str | None = None) -> Plan:
    """The plan's consistent values made non-negative, whole, or its headline values chosen
    (``HEADLINES``); a plan without relations has none to set."""
    if headline is not None and headline not in HEADLINES:
        raise ValueError(f"unknown headline {headline!r}")
    if plan.consistency is None:
        return plan
    return set_consistency(plan, plan.consistency.relations, non_negative=non_negative,
                           integer=integer, headline=headline)
