"""Validating a decoded plan document: every field read with a message that names it.

``plan_from_dict`` turns the JSON object of a plan into the dataclasses of plan.py, or raises
an InputError naming the first problem (file, field path, what is wrong). Each part of a plan
and each field of a statistic has its own reader below, in the order they are checked.
"""

from __future__ import annotations

import re
from typing import Any

from ..kinds.base import StatisticKind
from ..kinds.registry import KINDS, kind_of
from ..kinds.shared_plan import not_used
from ..model.plan import (
    _ID_RE,
    ACCOUNTANTS,
    FORMAT,
    FORMAT_PROGRAMME,
    FORMATS,
    MAX_QUERIES,
    OPS,
    RELATIONS,
    Budget,
    Condition,
    Dataset,
    GroupBy,
    Missing,
    Plan,
    PrivacyUnit,
    Query,
)
from ..model.reader import (
    FieldReader,
    as_number,
    json_type,
    name_problem,
    text_problem,
    visible_text,
)
from ..model.rules import (
    delta_problem,
    epsilon_problem,
    expected_count_problem,
    expected_rows_problem,
    max_rows_problem,
    read_justification,
)
from ..support.errors import InputError
from .programme import read_programme
from .relations import read_consistency


def _read_condition(source: str, obj: Any, path: str) -> Condition:
    r = FieldReader(source, obj, path, ("column", "op", "value"))
    column = r.text("column")
    op = r.choice("op", OPS)
    if "value" not in r.obj:
        r.fail("value", "is required")
    value = r.obj["value"]
    if op == "in":
        r.scalars("value", "values")
        value = tuple(value)
    elif op in ("<", "<=", ">", ">="):
        value = as_number(value, lambda p: r.fail("value", f"{p} (operator {op} compares numbers)"))
    else:
        if isinstance(value, (dict, list)) or value is None:
            r.fail("value", f"must be a string or number, not {json_type(value)}")
        if isinstance(value, str) and text_problem(value):
            r.fail("value", text_problem(value) or "")
    assert column is not None
    return Condition(column=column, op=op, value=value)


#: the fields every statistic has (a synthetic table reads its own way: kinds/synthetic.py)
COMMON_FIELDS = (
    "id", "label", "kind", "column", "group_by", "where", "missing", "mechanism", "epsilon",
    "delta", "expected_count", "justification",
)


def query_fields() -> tuple[str, ...]:
    """The fields a statistic may have: those every statistic has, and every kind's own
    (``own_keys``; a field of another kind is refused as "not used by kind ...")."""
    return COMMON_FIELDS + tuple(dict.fromkeys(
        k for kind in KINDS.values() for k in kind.own_keys if k not in COMMON_FIELDS))


def _read_query(source: str, obj: Any, path: str) -> Query:
    """One statistic, its fields read (and checked) in a fixed order: the kind reads its own
    at each stage between the fields every statistic has."""
    allowed = query_fields()
    r = FieldReader(source, obj, path, allowed)
    qid = _read_id(r)
    name = r.choice("kind", tuple(KINDS))
    assert name is not None
    kind = KINDS[name]
    label = r.text("label", required=False, default="") or ""
    # another kind's own field, refused after the kind's own readers (their messages first)
    foreign = [k for k in allowed if k not in COMMON_FIELDS and k not in kind.own_keys]
    whole = kind.read_query(r, qid, label)
    if whole is not None:
        not_used(r, name, *foreign)
        return whole
    _refuse_discovery_names(r)
    got: dict[str, Any] = {}
    kind.read_own(r, "opening", got)
    mechanisms = kind.mechanisms
    mechanism = r.choice("mechanism", mechanisms, default=mechanisms[0])
    column = r.text("column", required=kind.needs_column)
    kind.read_own(r, "leading", got)
    group_by = _read_group_by(r, kind)
    where = _read_where(r, kind)
    kind.read_own(r, "answers", got)
    missing = _read_missing(r, kind, got)
    epsilon = _read_epsilon(r)
    delta = _read_delta(r, mechanism, kind.needs_delta)
    kind.read_own(r, "tuning", got)
    expected_count = r.number("expected_count", required=False)
    if expected_count is not None and expected_count_problem(expected_count):
        r.fail("expected_count", expected_count_problem(expected_count) or "")
    justification = read_justification(r)
    kind.read_own(r, "trailing", got)
    not_used(r, name, *foreign)
    return Query(
        id=qid, kind=name, epsilon=epsilon, label=label, column=column, group_by=group_by,
        where=where, missing=missing, mechanism=mechanism, delta=delta,
        expected_count=expected_count, justification=justification,
        params=kind.params_from(got),
    )


def _refuse_discovery_names(r: FieldReader) -> None:
    """A value still naming a discovery ("discovered:ID", issue 25) is refused with what to
    run, rather than as a list or number of the wrong type."""
    g = r.obj.get("group_by")
    for field, value in (("categories", r.obj.get("categories")), ("lower", r.obj.get("lower")),
                         ("upper", r.obj.get("upper")),
                         ("group_by.keys", g.get("keys") if isinstance(g, dict) else None)):
        if isinstance(value, str) and value.startswith("discovered:"):
            r.fail(field, f"names a discovery ({value}): write what it found into the plan "
                          "first, with planner-app plan apply-discovery PLAN --bundle "
                          "DISCOVERY.zip")


ID_RULE = "must be 1-64 letters, digits, '_', '.' or '-' (A-Z, a-z, 0-9)"


def _read_id(r: FieldReader) -> str:
    """The statistic's id; from here on its errors name it (queries[<id>].field)."""
    raw = r.obj.get("id")
    if isinstance(raw, str) and len(raw) > 64:  # the id's own rule, not the length of any text
        r.fail("id", f"{ID_RULE}, not {len(raw):,} characters")
    qid = r.text("id")
    assert qid is not None
    if not _ID_RE.fullmatch(qid):
        r.fail("id", ID_RULE)
    r.path = f"queries[{qid}]"
    return qid


def _read_group_by(r: FieldReader, kind: StatisticKind) -> GroupBy | None:
    """The group-by column and its declared, public list of keys."""
    if not r.has("group_by"):
        return None
    if not kind.takes("group_by"):
        r.fail("group_by", f"{kind.name} takes no group_by")
    g = FieldReader(r.source, r.obj["group_by"], r.where("group_by"), ("column", "keys"))
    gcol = g.text("column")
    if not g.has("keys"):
        g.fail("keys", "is required: declare the public list of group keys")
    keys = g.scalars("keys", "group keys")
    assert gcol is not None
    return GroupBy(column=gcol, keys=keys)


def _read_where(r: FieldReader, kind: StatisticKind) -> tuple[Condition, ...]:
    if not r.has("where"):
        return ()
    if not kind.takes("where"):
        r.fail("where", f"{kind.name} takes no where conditions")
    raw_where = r.obj["where"]
    if not isinstance(raw_where, list):
        r.fail("where", "must be a list of {column, op, value} conditions")
    return tuple(
        _read_condition(r.source, c, r.where(f"where[{i}]")) for i, c in enumerate(raw_where)
    )


def _read_missing(r: FieldReader, kind: StatisticKind, got: dict[str, Any]) -> Missing:
    """Drop the rows with a missing cell, or impute a value the statistic can read."""
    if not r.has("missing"):
        return Missing()
    raw_missing = r.obj["missing"]
    if raw_missing == "drop":
        return Missing()
    if not (isinstance(raw_missing, dict) and set(raw_missing) == {"impute"}):
        r.fail("missing", 'must be "drop" or {"impute": value}')
    value = raw_missing["impute"]
    if isinstance(value, (dict, list)) or value is None:
        r.fail("missing.impute", "must be a string or number")
    value = kind.read_impute(r, value, got)
    return Missing(policy="impute", value=value)


def _read_epsilon(r: FieldReader) -> float:
    epsilon = r.number("epsilon")
    assert epsilon is not None
    problem = epsilon_problem(epsilon)
    if problem:
        r.fail("epsilon", problem)
    return epsilon


def _read_delta(r: FieldReader, mechanism: str, needs_delta: bool = False) -> float:
    """The statistic's δ: above 0 for the gaussian mechanism, 0 for every other."""
    delta = r.number("delta", required=False, default=0.0)
    assert delta is not None
    problem = delta_problem(delta)
    if problem:
        r.fail("delta", problem)
    if needs_delta and delta <= 0:
        r.fail("delta", f"the {mechanism} mechanism needs a delta above 0 (the chance that a "
                        "key only one person holds is published)")
    if needs_delta:
        return delta
    if mechanism == "gaussian" and delta <= 0:
        r.fail("delta", "the gaussian mechanism needs a delta above 0")
    if mechanism != "gaussian" and delta != 0:
        r.fail("delta", f"is only used by the gaussian mechanism, not {mechanism}")
    return delta


PLAN_FIELDS = ("format", "dataset", "privacy_unit", "neighbouring", "budget", "queries",
               "justification", "approvals", "consistency",
               "programme")  # cal26


def plan_from_dict(obj: Any, source: str = "plan", *, draft: bool = False) -> Plan:
    """Validate a decoded plan document; raise InputError naming the first problem.
    ``draft``: the app's plan being edited, which may hold a person unit whose rows per person
    are not stated yet (``"max_rows": null``; the release rule ``rows`` refuses it); a plan
    read to check, release, review or verify never may."""
    if not isinstance(obj, dict):
        raise InputError(source, None, f"a plan must be a JSON object, not {json_type(obj)}")
    if "format" not in obj:
        raise InputError(source, "format", f'is required ("format": "{FORMAT}")')
    if obj["format"] not in FORMATS:
        raise InputError(source, "format",
                         f"unknown format version {obj['format']!r} (this version reads "
                         f"{' and '.join(FORMATS)})")
    r = FieldReader(source, obj, "", PLAN_FIELDS)
    # cal26: a programme is written as plan@2, whose readers know what it means
    if r.has("programme") and obj["format"] != FORMAT_PROGRAMME:
        r.fail("programme", f'needs "format": "{FORMAT_PROGRAMME}" (a plan released on a '
                            "schedule)")
    dataset = _read_dataset(r)
    unit = _read_unit(r, draft)
    neighbouring = r.choice("neighbouring", RELATIONS, default="add-remove")
    budget = _read_budget(r)
    queries = _read_queries(r)
    approvals = _read_approvals(r)
    if budget.accountant == "basic":
        refusal = next((kind_of(q).basic_accountant_refusal for q in queries
                        if kind_of(q).basic_accountant_refusal is not None), None)
        if refusal is not None:
            r.fail("budget.accountant", refusal)
    if budget.accountant == "pld":  # aim25: adaptive rounds compose in zCDP only
        refusal = next((kind_of(q).pld_accountant_refusal(q) for q in queries
                        if kind_of(q).pld_accountant_refusal(q) is not None), None)
        if refusal is not None:
            r.fail("budget.accountant", refusal)
    for q in queries:
        problem = kind_of(q).unit_problem(unit, q)
        if problem is not None:
            r.fail(*problem)
    consistency = read_consistency(r, queries)  # issue 27: relations between statistics
    return Plan(
        dataset=dataset, privacy_unit=unit, budget=budget, queries=queries,
        neighbouring=neighbouring, justification=r.text("justification", required=False),
        approvals=approvals, consistency=consistency,
        programme=read_programme(r),  # cal26
    )


def _read_dataset(r: FieldReader) -> Dataset:
    if not r.has("dataset"):
        r.fail("dataset", "is required")
    d = FieldReader(r.source, r.obj["dataset"], "dataset", ("name", "path", "expected_rows"))
    name = d.text("name")
    assert name is not None
    if not visible_text(name):
        d.fail("name", "must not be blank")
    problem = name_problem(name)
    if problem:
        d.fail("name", problem)
    expected_rows = d.integer("expected_rows", required=False)
    if expected_rows is not None and expected_rows_problem(expected_rows):
        d.fail("expected_rows", expected_rows_problem(expected_rows) or "")
    path = d.text("path", required=False)
    problem = data_path_problem(path or "")
    if problem:
        d.fail("path", problem)
    return Dataset(name=name, path=path, expected_rows=expected_rows)


def data_path_problem(path: str) -> str | None:
    """The one rule for dataset.path: a file name or a path inside the plan's folder. A plan
    is shared with reviewers and released, so an absolute path, a home folder or a path that
    climbs out with '..' would reveal where the private data lives."""
    if path.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", path):
        return ("must be a file name or a relative path: a plan is shared with reviewers and "
                "released, and an absolute path would reveal where the private data lives")
    if ".." in re.split(r"[\\/]", path):
        return ("must be a file name or a path inside the plan's folder: '..' climbs out of it "
                "and, like an absolute path, would reveal where the private data lives (a plan "
                "is shared with reviewers and released)")
    return None


def _read_unit(r: FieldReader, draft: bool = False) -> PrivacyUnit:
    if not r.has("privacy_unit"):
        r.fail("privacy_unit", 'is required ({"kind": "row"} or {"kind": "person", ...})')
    u = FieldReader(r.source, r.obj["privacy_unit"], "privacy_unit",
                ("kind", "id_column", "max_rows", "rows_are_people"))
    unit_kind = u.choice("kind", ("row", "person"))
    if unit_kind != "person":
        for key in ("id_column", "max_rows"):
            if u.has(key):
                u.fail(key, 'is only used with "kind": "person"')
        return PrivacyUnit(rows_reason=_rows_reason(u))
    if u.has("rows_are_people"):
        u.fail("rows_are_people", 'is only used with "kind": "row"')
    id_column = u.text("id_column")
    max_rows = u.integer("max_rows", required=False)
    if max_rows is None and draft:
        return PrivacyUnit(kind="person", id_column=id_column, max_rows=None)
    problem = max_rows_problem(max_rows)
    if problem:
        u.fail("max_rows", problem)
    return PrivacyUnit(kind="person", id_column=id_column, max_rows=max_rows)


def _rows_reason(u: FieldReader) -> str | None:
    """The owner's decision that the rows are different people: {"reason": "…"}, a reason
    of real text (a placeholder is caught by the release rule, as a bound's TODO is)."""
    if not u.has("rows_are_people"):
        return None
    d = FieldReader(u.source, u.obj["rows_are_people"], u.where("rows_are_people"),
                    ("reason",))
    reason = d.text("reason")
    assert reason is not None
    if not reason.strip():
        d.fail("reason", "is empty: say why the rows are different people (for example, "
                         "\"one row per respondent; the repeating column numbers households\")")
    return " ".join(reason.split())


def _read_budget(r: FieldReader) -> Budget:
    if not r.has("budget"):
        r.fail("budget", 'is required ({"epsilon": ..., "delta": ...})')
    b = FieldReader(r.source, r.obj["budget"], "budget", ("epsilon", "delta", "accountant"))
    b_eps = b.number("epsilon")
    assert b_eps is not None
    problem = epsilon_problem(b_eps)
    if problem:
        b.fail("epsilon", problem)
    b_delta = b.number("delta", required=False, default=0.0)
    assert b_delta is not None
    problem = delta_problem(b_delta)
    if problem:
        b.fail("delta", problem)
    accountant = b.choice("accountant", ACCOUNTANTS, default="") if b.has("accountant") else None
    return Budget(epsilon=b_eps, delta=b_delta, accountant=accountant)


def _read_queries(r: FieldReader) -> tuple[Query, ...]:
    raw_queries = r.obj.get("queries")
    if not isinstance(raw_queries, list) or not raw_queries:
        r.fail("queries", "must be a non-empty list of statistics")
    assert isinstance(raw_queries, list)
    if len(raw_queries) > MAX_QUERIES:
        r.fail("queries", f"has {len(raw_queries)} statistics; at most {MAX_QUERIES:,} are allowed")
    queries = []
    seen: dict[str, str] = {}  # id in lower case -> the id
    for i, q in enumerate(raw_queries):
        query = _read_query(r.source, q, f"queries[{i}]")
        earlier = seen.get(query.id.lower())
        if earlier == query.id:
            raise InputError(r.source, f"queries[{i}].id", f"duplicate id {query.id!r}")
        if earlier is not None:  # an id names files in a bundle (noised/<id>.csv)
            raise InputError(r.source, f"queries[{i}].id",
                             f"ids {earlier!r} and {query.id!r} differ only in letter case; "
                             "their files would be one file on a disk that ignores case")
        seen[query.id.lower()] = query.id
        queries.append(query)
    return tuple(queries)


def _read_approvals(r: FieldReader) -> tuple[dict[str, Any], ...]:
    """The review decisions kept in the plan (checked for shape; readiness weighs them)."""
    approvals = r.obj.get("approvals") or []
    if not isinstance(approvals, list):
        r.fail("approvals", "must be a list of review decisions")
    for i, a in enumerate(approvals):
        ar = FieldReader(r.source, a, f"approvals[{i}]",
                     ("reviewer", "decision", "comment", "plan_sha256", "time", "signature",
                      "key_fingerprint", "public_key"))
        ar.text("reviewer")
        ar.choice("decision", ("approved", "rejected"))
        ar.text("comment", required=False)
        ar.text("time")
        digest = ar.text("plan_sha256")
        if not re.fullmatch(r"[0-9a-f]{64}", digest or ""):
            ar.fail("plan_sha256", "must be a SHA-256 in hex")
        # a signed decision (review.py checks the signature against trusted keys)
        signature = ar.text("signature", required=False)
        fingerprint = ar.text("key_fingerprint", required=False)
        if fingerprint is not None and not re.fullmatch(r"[0-9A-F]{1,16}", fingerprint):
            ar.fail("key_fingerprint", "must be a key fingerprint (up to 16 hex digits)")
        ar.text("public_key", required=False)
        for field in ("key_fingerprint", "public_key"):  # a key named by an unsigned entry
            if not signature and a.get(field) is not None:
                ar.fail(field, "is given without a signature: an unsigned decision names "
                               "no key (remove it, or sign the decision with planner-app "
                               "review PLAN --approve --key NAME)")
    return tuple(approvals)
