"""A plan's relations between statistics (issue 27): read and checked when the plan is read,
written back, and laid out as a tree of cells for the consistent values.

A relation says that the cells of one statistic (``parts``: a count with a group-by, or a
histogram) add up to the cells of another (``total``: a count). It is accepted only when
the plan alone makes both count the same rows -- the same kind of count (rows), the same
``where`` filter, the same rule for missing cells -- and when every part cell has exactly one
total cell. Whether the table then has no row outside the declared keys or categories (a row
the total counts but no part does) is a fact of the data: the release checks it on the exact
counts before anything is charged (``relation_data_problem``).

The relations must form a forest: a statistic is the parts of at most one relation and the
total of at most one, with no cycle. Every cell then has at most one parent, the sum of its
children, which is what the consistent values' non-negative solver and controlled rounding
rely on (core/dp/consistent.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..kinds.registry import kind_of
from ..kinds.shared_dp import cell_labels
from ..model.plan import HEADLINES, Consistency, Plan, Query, Relation, Scalar
from ..model.reader import FieldReader, json_type
from ..model.values import canonical_key
from ..support.errors import InputError

if TYPE_CHECKING:
    import numpy as np

#: at most this many cells in all the statistics of a plan's relations: the solver works on
#: dense matrices (a census-like hierarchy of a few hundred areas is far below it)
MAX_CONSISTENT_CELLS = 1_000
MAX_RELATIONS = 100
CONSISTENCY_FIELDS = ("relations", "non_negative", "integer", "headline")
RELATION_FIELDS = ("total", "parts", "within")


def read_consistency(r: FieldReader, queries: Sequence[Query]) -> Consistency | None:
    """The plan's ``consistency`` (None when absent), every relation checked against the
    statistics."""
    if not r.has("consistency"):
        return None
    c = FieldReader(r.source, r.obj["consistency"], "consistency", CONSISTENCY_FIELDS)
    raw = c.obj.get("relations")
    if not isinstance(raw, list) or not raw:
        c.fail("relations", "must be a non-empty list of {total, parts} relations")
    if len(raw) > MAX_RELATIONS:
        c.fail("relations", f"has {len(raw)} relations; at most {MAX_RELATIONS} are allowed")
    by_id = {q.id: q for q in queries}
    relations = tuple(_read_relation(c, obj, i, by_id) for i, obj in enumerate(raw))
    _check_forest(c, relations)
    cells = sum(len(cell_labels(by_id[qid])) for qid in related_ids(relations))
    if cells > MAX_CONSISTENT_CELLS:
        c.fail("relations", f"join statistics with {cells:,} cells; consistent values are "
                            f"made for at most {MAX_CONSISTENT_CELLS:,} cells")
    flags = {}
    for key in ("non_negative", "integer"):
        value = c.obj.get(key, False)
        if not isinstance(value, bool):
            c.fail(key, f"must be true or false, not {json_type(value)}")
        flags[key] = value
    headline = c.choice("headline", HEADLINES, default="raw")
    sums = [by_id[qid] for qid in related_ids(relations) if kind_of(by_id[qid]).adds_up_as == "sum"]
    if sums and flags["integer"]:
        c.fail("integer", f"is for counts: {sums[0].id!r} is a sum (its consistent values "
                          "are given to 3 decimals)")
    below = [q for q in sums if float(getattr(q.params, "lower", 0.0)) < 0]
    if below and flags["non_negative"]:
        c.fail("non_negative", f"{below[0].id!r} sums values down to "
                               f"{getattr(below[0].params, 'lower', 0)}: a sum with a "
                               "negative lower bound may be below 0")
    return Consistency(relations=relations, non_negative=flags["non_negative"],
                       integer=flags["integer"], headline=headline)


def related_ids(relations: Sequence[Relation]) -> list[str]:
    """The statistics in the relations, each once, in the order first named."""
    return list(dict.fromkeys(x for rel in relations for x in (rel.total, rel.parts)))


def _read_relation(c: FieldReader, obj: Any, i: int, by_id: Mapping[str, Query]) -> Relation:
    rr = FieldReader(c.source, obj, f"consistency.relations[{i}]", RELATION_FIELDS)
    names: dict[str, Query] = {}
    for key in ("total", "parts"):
        qid = rr.text(key)
        assert qid is not None
        if qid not in by_id:
            rr.fail(key, f"names no statistic of this plan ({qid!r})")
        names[key] = by_id[qid]
    total, parts = names["total"], names["parts"]
    if total.id == parts.id:
        rr.fail("parts", "is the total itself: a statistic cannot add up to itself")
    total_as, parts_kind = kind_of(total).adds_up_as, kind_of(parts)
    if not total_as or kind_of(total).cells_without_group_by:
        rr.fail("total", f"{total.id!r} is a {total.kind}: a total must be a count or a sum "
                         "(means and other kinds do not add up)")
    if parts_kind.adds_up_as != total_as:
        rr.fail("parts", f"{parts.id!r} is a {parts.kind}: the parts of a {total.kind} must "
                         + ("be a count with a group_by or a histogram" if total_as == "count"
                            else "be a sum with a group_by"))
    if not parts_kind.cells_without_group_by and parts.group_by is None:
        rr.fail("parts", f"{parts.id!r} is a {parts.kind} without a group_by: it has one "
                         "cell, not parts")
    if total_as == "sum" and (parts.column != total.column or parts.params != total.params
                                or parts.missing != total.missing):
        rr.fail("parts", f"{parts.id!r} and {total.id!r} must sum the same column with the "
                         "same bounds, grid step and missing rule to add up")
    for q, key in ((total, "total"), (parts, "parts")):
        if getattr(q.params, "of", "rows") != "rows":
            rr.fail(key, f"{q.id!r} counts people: a person with rows in several cells "
                         "counts once in each, so its cells do not add up to a count of "
                         "people (count rows instead)")
    if _where_key(total) != _where_key(parts):
        rr.fail("parts", f"{parts.id!r} and {total.id!r} have different where filters: "
                         "they count different rows, so one cannot add up to the other")
    if _present(total) != _present(parts):
        rr.fail("parts", f"{parts.id!r} {_present_words(parts)}, but {total.id!r} "
                         f"{_present_words(total)}: they count different rows (the same "
                         "column and missing rule are needed)")
    within = _read_within(rr, total, parts)
    return Relation(total=total.id, parts=parts.id, within=within)


def _where_key(q: Query) -> list[tuple[str, str, str]]:
    def value_key(c: Any) -> str:
        if isinstance(c, tuple):
            return "|".join(sorted(canonical_key(v) for v in c))
        return canonical_key(c)
    return sorted((c.column, c.op, value_key(c.value)) for c in q.where)


def _present(q: Query) -> str | None:
    """The column whose empty cells leave a row out of this count (None: every row
    counts). A histogram reads its column; a count reads its column when it has one."""
    if q.column is None or q.missing.policy == "impute":
        return None
    return q.column


def _present_words(q: Query) -> str:
    column = _present(q)
    return "counts every row" if column is None else f"counts rows where {column} is present"


def _read_within(rr: FieldReader, total: Query, parts: Query) -> \
        tuple[tuple[Scalar, tuple[Scalar, ...]], ...]:
    """``within``: the parts' group keys within each of the total's group keys."""
    if total.group_by is None:
        if rr.has("within"):
            rr.fail("within", f"is only used when the total has a group_by ({total.id!r} "
                              "has one cell: every part adds up to it)")
        return ()
    if parts.group_by is None:
        rr.fail("parts", f"{parts.id!r} has no group_by, but {total.id!r} is grouped by "
                         f"{total.group_by.column}: each group needs its own parts")
    total_keys = {canonical_key(k): k for k in total.group_by.keys}
    part_keys = {canonical_key(k): k for k in parts.group_by.keys}
    if not rr.has("within"):
        if parts.group_by.column != total.group_by.column or set(part_keys) != set(total_keys):
            rr.fail("within", f"is required: {parts.id!r} is grouped by "
                              f"{parts.group_by.column}, {total.id!r} by "
                              f"{total.group_by.column} with other keys; give "
                              '{"<total key>": [<parts keys within it>], ...}')
        return ()
    if parts.group_by.column == total.group_by.column:
        rr.fail("within", f"is not used when both group by {total.group_by.column} (each "
                          "group's cells add up to its total)")
    raw = rr.obj["within"]
    if not isinstance(raw, dict):
        rr.fail("within", f"must be an object of the total's keys, not {json_type(raw)}")
    seen: dict[str, str] = {}  # part key -> the total key it is within
    out: list[tuple[Scalar, tuple[Scalar, ...]]] = []
    given = {canonical_key(k): k for k in raw}
    for key_text, key in total_keys.items():
        if key_text not in given:
            rr.fail("within", f"has no entry for {total.id!r}'s key {key!r}")
        members = raw[given[key_text]]
        where = rr.where(f"within.{given[key_text]}")
        if not isinstance(members, list) or not members:
            raise InputError(rr.source, where, "must be a non-empty list of the parts' keys")
        chosen: list[Scalar] = []
        for m in members:
            if isinstance(m, (dict, list)) or m is None or canonical_key(m) not in part_keys:
                raise InputError(rr.source, where, f"{m!r} is not a group key of "
                                                   f"{parts.id!r}")
            if canonical_key(m) in seen:
                raise InputError(rr.source, where, f"{m!r} is also within "
                                                   f"{seen[canonical_key(m)]!r}: a part lies "
                                                   "within one total key")
            seen[canonical_key(m)] = str(key)
            chosen.append(part_keys[canonical_key(m)])
        out.append((key, tuple(chosen)))
    extra = [k for k in given if k not in total_keys]
    if extra:
        rr.fail("within", f"{given[extra[0]]!r} is not a group key of {total.id!r}")
    missing = [k for t, k in part_keys.items() if t not in seen]
    if missing:
        rr.fail("within", f"{parts.id!r}'s key {missing[0]!r} is within no key of "
                          f"{total.id!r}")
    return tuple(out)


def _check_forest(c: FieldReader, relations: Sequence[Relation]) -> None:
    """Each statistic the parts of one relation at most and the total of one at most, and
    no cycle: every cell has at most one parent."""
    as_parts: dict[str, int] = {}
    as_total: dict[str, int] = {}
    for i, rel in enumerate(relations):
        where = f"relations[{i}]"
        if rel.parts in as_parts:
            c.fail(f"{where}.parts", f"{rel.parts!r} is already the parts of relations"
                                     f"[{as_parts[rel.parts]}]: a statistic adds up to one "
                                     "total only")
        if rel.total in as_total:
            c.fail(f"{where}.total", f"{rel.total!r} is already the total of relations"
                                     f"[{as_total[rel.total]}]: a total has one set of parts "
                                     "(declare the other breakdown under one of its parts)")
        as_parts[rel.parts] = as_total[rel.total] = i
    parent = {rel.parts: rel.total for rel in relations}
    for start in parent:
        seen, at = {start}, parent[start]
        while at in parent:
            if at in seen:
                c.fail(f"relations[{as_parts[start]}]", f"{start!r} adds up to itself "
                                                        "through other relations (a cycle)")
            seen.add(at)
            at = parent[at]


def relation_lines(plan: Plan) -> list[str]:
    """What `check` says of the plan's relations (none: no lines)."""
    c = plan.consistency
    if c is None:
        return []
    parts = [f"the cells of {rel.parts!r} add up to "
             + (f"{rel.total!r}'s key they lie within" if rel.within else repr(rel.total))
             for rel in c.relations]
    made = ", ".join(w for w, on in (("non-negative", c.non_negative),
                                     ("whole numbers", c.integer)) if on) or "linear"
    return [f"Consistent values ({made}; post-processing, no privacy cost): "
            + "; ".join(parts) + f". Headline values: {c.headline}."]


def consistency_to_dict(consistency: Consistency) -> dict[str, Any]:
    """The plan file's ``consistency``."""
    relations = []
    for rel in consistency.relations:
        d: dict[str, Any] = {"total": rel.total, "parts": rel.parts}
        if rel.within:
            d["within"] = {str(k): list(members) for k, members in rel.within}
        relations.append(d)
    return {"relations": relations, "non_negative": consistency.non_negative,
            "integer": consistency.integer, "headline": consistency.headline}


# ----------------------------------------------------------------------------- the tree


@dataclass(frozen=True)
class CellTree:
    """Every cell of the statistics in relations, statistic by statistic (plan order), each
    statistic's cells in release order; ``parent[i]``: the index of the cell that cell i
    adds up to, or -1."""

    query_ids: tuple[str, ...]
    starts: tuple[int, ...]  # the first cell of each statistic; a last entry: the cell count
    parent: np.ndarray

    def cells_of(self, query_id: str) -> range:
        i = self.query_ids.index(query_id)
        return range(self.starts[i], self.starts[i + 1])

    @property
    def size(self) -> int:
        return self.starts[-1]


def cell_tree(plan: Plan) -> CellTree:
    """The plan's relations as a tree of cells (the plan has relations)."""
    import numpy as np  # the cells' parents: numpy once a plan has relations

    assert plan.consistency is not None
    relations = plan.consistency.relations
    wanted = set(related_ids(relations))
    queries = [q for q in plan.queries if q.id in wanted]
    starts = [0]
    for q in queries:
        starts.append(starts[-1] + len(cell_labels(q)))
    tree = CellTree(tuple(q.id for q in queries), tuple(starts),
                    np.full(starts[-1], -1, dtype=np.int64))
    for rel in relations:
        total, parts = plan.query(rel.total), plan.query(rel.parts)
        t0 = tree.cells_of(total.id).start
        total_index = {canonical_key(k): i for i, k in
                       enumerate(total.group_by.keys)} if total.group_by else {}
        inside = {canonical_key(m): canonical_key(k) for k, members in rel.within
                  for m in members}
        for j, (group, _cell) in zip(tree.cells_of(parts.id), cell_labels(parts), strict=True):
            if total.group_by is None:
                tree.parent[j] = t0
            else:
                key = canonical_key(group)
                tree.parent[j] = t0 + total_index[inside.get(key, key)]
    return tree


def relation_data_problem(plan: Plan, exact: Mapping[str, Sequence[int]]) -> \
        tuple[str, str] | None:
    """(field, problem) when a relation does not hold on the table's exact counts
    (``exact``: each related statistic's true cells, release order): a row the total counts
    but no part does (outside the declared keys or categories, or an empty group cell).
    For the owner only, before the charge; the numbers are not named."""
    problems = relation_data_problems(plan, exact)
    return problems[0] if problems else None


def relation_data_problems(plan: Plan, exact: Mapping[str, Sequence[int]]) -> \
        list[tuple[str, str]]:
    """(field, problem) of every relation that does not hold on the table's exact counts, in
    plan order (``relation_data_problem``'s rule; `check --data` and the app list them all)."""
    if plan.consistency is None:
        return []
    tree = cell_tree(plan)
    values = [int(v) for qid in tree.query_ids for v in exact[qid]]
    sums = [0] * tree.size
    for j, p in enumerate(tree.parent.tolist()):
        if p >= 0:
            sums[p] += values[j]
    has_parts = set(tree.parent.tolist())
    out = []
    for i, rel in enumerate(plan.consistency.relations):
        if any(j in has_parts and sums[j] != values[j] for j in tree.cells_of(rel.total)):
            out.append((f"consistency.relations[{i}]",
                        f"in this table the cells of {rel.parts!r} do not add up to "
                        f"{rel.total!r}: some row counted by {rel.total!r} is in no cell of "
                        f"{rel.parts!r} (a value outside its declared categories or keys, "
                        "an empty cell, or a part outside the total's key it is declared "
                        "within), so consistent values under this relation would be biased. "
                        "A relation must hold in the data: declare every value, or remove "
                        "the relation"))
    return out
