"""The plan file: what a privacy officer reviews and what a release executes.

A plan is JSON with ``"format": "planner-app/plan@1"``. This module turns it into frozen
dataclasses, validates every field with a message that names the field, and writes it back.
Plans come from other people, so nothing in them is ever evaluated as code: conditions are
data (column, operator, value), never expression strings.
"""

from __future__ import annotations

import json
import math
import os
import re
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, NoReturn

import numpy as np

from .errors import InputError
from .files import atomic_write_text, input_file_size

FORMAT = "planner-app/plan@1"
KINDS = ("count", "sum", "mean", "variance", "histogram", "quantile", "randomized_response")
OPS = ("==", "!=", "<", "<=", ">", ">=", "in")
RELATIONS = ("add-remove", "replace-one")
ACCOUNTANTS = ("basic", "zcdp", "pld")
MECHANISMS_BY_KIND: dict[str, tuple[str, ...]] = {
    "count": ("laplace", "gaussian"),
    "sum": ("laplace", "gaussian"),
    "mean": ("laplace", "gaussian"),
    "variance": ("laplace", "gaussian"),
    "histogram": ("laplace", "gaussian"),
    "quantile": ("exponential",),
    "randomized_response": ("randomized_response",),
}
NEEDS_COLUMN = ("sum", "mean", "variance", "histogram", "quantile", "randomized_response")
NEEDS_BOUNDS = ("sum", "mean", "variance", "quantile")
YES_NO_KINDS = ("randomized_response",)  # kinds that read cells as yes or no

MAX_PLAN_BYTES = 50 * 1024 * 1024
MAX_QUERIES = 10_000
MAX_LIST = 1_000_000
MAX_ABS_BOUND = 1e15
MAX_EPSILON = 1000.0
MAX_TEXT = 2_000
MAX_EXPECTED_ROWS = 2_000_000_000  # the app's row-count field holds up to this
# The smallest δ above 0 that the tool accepts. Below it the accountants' arithmetic leaves
# the range where it is exact (1/δ overflows near 5.6e-309; δ itself is denormal below
# 2.2e-308), and no meaningful release needs it: a smaller δ is refused, never rounded.
MIN_DELTA = 1e-100
_ID_RE = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # fullmatch: "$" would allow a final newline

Scalar = str | int | float | bool


@dataclass(frozen=True)
class Condition:
    """One filter condition: rows where ``column op value`` holds are kept."""

    column: str
    op: str
    value: Any


@dataclass(frozen=True)
class GroupBy:
    """Group the statistic by a column over a declared, public list of keys."""

    column: str
    keys: tuple[Scalar, ...]


@dataclass(frozen=True)
class Missing:
    """What to do with missing or unreadable cells: drop the row, or impute a value."""

    policy: str = "drop"
    value: Scalar | None = None


@dataclass(frozen=True)
class Query:
    """One statistic to publish, with its public parameters and its share of ε (and δ)."""

    id: str
    kind: str
    epsilon: float
    label: str = ""
    column: str | None = None
    lower: float | None = None
    upper: float | None = None
    categories: tuple[Scalar, ...] | None = None
    bins: tuple[float, ...] | None = None
    quantile: float | None = None
    group_by: GroupBy | None = None
    where: tuple[Condition, ...] = ()
    missing: Missing = field(default_factory=Missing)
    mechanism: str = "laplace"
    delta: float = 0.0
    grid_step: float | None = None
    expected_count: float | None = None
    justification: Mapping[str, str] | None = None
    yes: tuple[Scalar, ...] | None = None  # cell values that mean yes (randomized response)
    no: tuple[Scalar, ...] | None = None  # cell values that mean no

    @property
    def title(self) -> str:
        return self.label or self.id

    @property
    def is_filtered(self) -> bool:
        """True when a row of a person may contribute nothing (filter or dropped cell)."""
        return bool(self.where) or self.missing.policy == "drop" and self.column is not None


@dataclass(frozen=True)
class PrivacyUnit:
    """What one person is: a row, or an id with at most ``max_rows`` rows."""

    kind: str = "row"
    id_column: str | None = None
    max_rows: int = 1

    @property
    def rows_per_unit(self) -> int:
        return self.max_rows if self.kind == "person" else 1


@dataclass(frozen=True)
class Budget:
    epsilon: float
    delta: float = 0.0
    accountant: str | None = None


@dataclass(frozen=True)
class Dataset:
    name: str
    path: str | None = None
    expected_rows: int | None = None


@dataclass(frozen=True)
class Plan:
    dataset: Dataset
    privacy_unit: PrivacyUnit
    budget: Budget
    queries: tuple[Query, ...]
    neighbouring: str = "add-remove"
    justification: str | None = None
    approvals: tuple[Mapping[str, Any], ...] = ()

    def query(self, query_id: str) -> Query:
        for q in self.queries:
            if q.id == query_id:
                return q
        raise KeyError(query_id)

    def with_queries(self, queries: Iterable[Query]) -> Plan:
        return replace(self, queries=tuple(queries))


# ----------------------------------------------------------------------------- validation


class _Reader:
    """Reads one JSON object, naming the field in every error."""

    def __init__(self, source: str, obj: Any, path: str, allowed: Iterable[str]) -> None:
        self.source = source
        self.path = path
        if not isinstance(obj, dict):
            self.fail(None, f"must be a JSON object, not {_json_type(obj)}")
        unknown = [k for k in obj if k not in allowed]
        if unknown:
            self.fail(unknown[0], "unknown field (check its spelling)")
        self.obj: dict[str, Any] = obj

    def where(self, key: str | None) -> str:
        if key is None:
            return self.path or "plan"
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str | None, problem: str) -> NoReturn:
        raise InputError(self.source, self.where(key), problem)

    def has(self, key: str) -> bool:
        return key in self.obj and self.obj[key] is not None

    def text(self, key: str, required: bool = True, default: str | None = None) -> str | None:
        if not self.has(key):
            if required:
                self.fail(key, "is required")
            return default
        value = self.obj[key]
        if not isinstance(value, str):
            self.fail(key, f"must be a string, not {_json_type(value)}")
        problem = _text_problem(value)
        if problem:
            self.fail(key, problem)
        return value

    def choice(self, key: str, choices: Iterable[str], default: str | None = None) -> str:
        choices = tuple(choices)
        value = self.text(key, required=default is None, default=default)
        assert value is not None
        if value not in choices:
            self.fail(key, f"'{value}' is not one of: {', '.join(choices)}")
        return value

    def number(self, key: str, required: bool = True, default: float | None = None) -> float | None:
        if not self.has(key):
            if required:
                self.fail(key, "is required")
            return default
        return _as_number(self.obj[key], lambda p: self.fail(key, p))

    def integer(self, key: str, required: bool = True, default: int | None = None) -> int | None:
        if not self.has(key):
            if required:
                self.fail(key, "is required")
            return default
        value = self.obj[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(key, f"must be a whole number, not {_json_type(value)}")
        if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
            self.fail(key, "must be a whole number")
        if abs(value) > 2**53:
            self.fail(key, f"is a {len(str(abs(int(value))))}-digit number, too large to be "
                           "a count of rows")
        return int(value)

    def scalars(self, key: str, what: str) -> tuple[Scalar, ...]:
        value = self.obj[key]
        if not isinstance(value, list):
            self.fail(key, f"must be a list of {what}, not {_json_type(value)}")
        if not value:
            self.fail(key, f"must not be empty: declare the public list of {what}")
        if len(value) > MAX_LIST:
            self.fail(key, f"has {len(value)} entries; at most {MAX_LIST:,} are allowed")
        seen: set[str] = set()
        for i, item in enumerate(value):
            if isinstance(item, (dict, list)) or item is None:
                self.fail(f"{key}[{i}]", f"must be a string or number, not {_json_type(item)}")
            if isinstance(item, float) and not math.isfinite(item):
                self.fail(f"{key}[{i}]", "must be a finite number")
            if isinstance(item, str):
                problem = _text_problem(item)
                if problem:
                    self.fail(f"{key}[{i}]", problem)
            canon = canonical_key(item)
            if canon in seen:
                self.fail(f"{key}[{i}]", f"repeats an earlier entry ({canon!r})")
            seen.add(canon)
        return tuple(value)


def delta_problem(delta: float) -> str | None:
    """Why ``delta`` cannot be used as a δ (one phrase), or None: δ is 0 or in
    [MIN_DELTA, 1)."""
    if not isinstance(delta, (int, float)) or not math.isfinite(delta):
        return "must be a finite number"
    if not 0 <= delta < 1:
        return f"must lie in [0, 1), not {delta:g}"
    if 0 < delta < MIN_DELTA:
        return (f"{delta:g} is too small for any accountant to handle: use 0 (no δ) or at "
                f"least {MIN_DELTA:g}")
    return None



def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _as_number(value: Any, fail: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(f"must be a number, not {_json_type(value)}")
    try:
        number = float(value)
    except OverflowError:  # a JSON integer of hundreds of digits
        fail(f"is a {len(str(abs(value)))}-digit number, too large for any computation")
    if not math.isfinite(number):
        fail("must be a finite number")
    return number


_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)}


def _text_problem(value: str) -> str | None:
    """Reject text that could hide what a reviewer reads (bidi overrides, control chars)."""
    if len(value) > MAX_TEXT:
        return f"is {len(value)} characters long; at most {MAX_TEXT} are allowed"
    for ch in value:
        if ch in _BIDI:
            return f"contains the invisible direction control U+{ord(ch):04X}"
        cat = unicodedata.category(ch)
        if cat == "Cc" and ch not in "\t\n":
            return f"contains the control character U+{ord(ch):04X}"
        if cat == "Cs":
            return "contains an unpaired surrogate"
    return None


def _number_key(value: Any) -> str:
    """The key of a number: through the (correctly rounded) float, so an integer cell, a
    float cell and the text of either give one key whatever type the column was read as."""
    try:
        x = float(value)
    except OverflowError:  # an integer beyond the float range
        x = math.inf if value > 0 else -math.inf
    if math.isfinite(x) and x == int(x) and abs(x) < 2**63:
        return str(int(x))
    return repr(x)


def text_number(text: str) -> float | None:
    """The number a cell's text spells (ASCII decimal or exponent notation, ``inf``), or None.
    A function of the text alone: the same whatever else its column holds."""
    if not text.isascii() or "_" in text:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def canonical_key(value: Any) -> str:
    """The text form used to match declared categories and keys with table cells.

    It depends on the cell alone, never on the type a table reader inferred for its whole
    column (one added text cell turns a column of numbers into text): ``1``, ``1.0``, ``"1"``,
    ``"1.0"`` and ``"01"`` all match (text that spells a number is the number);
    ``True`` and ``"true"``/``"True"``/``"TRUE"`` match; other text is compared after trimming
    spaces. Numbers match through their float value (integers beyond 2**53 may share a key).
    """
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return _number_key(value)
    text = str(value).strip()
    low = text.lower()
    if low in ("true", "false"):
        return low
    number = text_number(text)
    return text if number is None else _number_key(number)


def _is_power_of_two(x: float) -> bool:
    if x <= 0 or not math.isfinite(x):
        return False
    mantissa, _ = math.frexp(x)
    return mantissa == 0.5


def _read_condition(source: str, obj: Any, path: str) -> Condition:
    r = _Reader(source, obj, path, ("column", "op", "value"))
    column = r.text("column")
    op = r.choice("op", OPS)
    if "value" not in r.obj:
        r.fail("value", "is required")
    value = r.obj["value"]
    if op == "in":
        r.scalars("value", "values")
        value = tuple(value)
    elif op in ("<", "<=", ">", ">="):
        value = _as_number(value,
                           lambda p: r.fail("value", f"{p} (operator {op} compares numbers)"))
    else:
        if isinstance(value, (dict, list)) or value is None:
            r.fail("value", f"must be a string or number, not {_json_type(value)}")
        if isinstance(value, str) and _text_problem(value):
            r.fail("value", _text_problem(value) or "")
    assert column is not None
    return Condition(column=column, op=op, value=value)


QUERY_FIELDS = (
    "id", "label", "kind", "column", "lower", "upper", "categories", "bins", "quantile",
    "group_by", "where", "missing", "mechanism", "epsilon", "delta", "grid_step",
    "expected_count", "justification", "yes", "no",
)


def _read_query(source: str, obj: Any, path: str) -> Query:
    r = _Reader(source, obj, path, QUERY_FIELDS)
    qid = r.text("id")
    assert qid is not None
    if not _ID_RE.fullmatch(qid):
        r.fail("id", "must be 1-64 letters, digits, '_', '.' or '-'")
    r.path = f"queries[{qid}]"
    kind = r.choice("kind", KINDS)
    label = r.text("label", required=False, default="") or ""
    mechanisms = MECHANISMS_BY_KIND[kind]
    mechanism = r.choice("mechanism", mechanisms, default=mechanisms[0])

    column = r.text("column", required=kind in NEEDS_COLUMN)

    lower = upper = None
    if kind in NEEDS_BOUNDS:
        lower = r.number("lower")
        upper = r.number("upper")
    else:
        for key in ("lower", "upper"):
            if r.has(key):
                r.fail(key, f"is not used by kind {kind}")
    if lower is not None and upper is not None:
        if abs(lower) > MAX_ABS_BOUND or abs(upper) > MAX_ABS_BOUND:
            r.fail("upper", f"bounds must lie within ±{MAX_ABS_BOUND:g}")
        if not lower < upper:
            r.fail("lower", f"lower ({lower:g}) must be below upper ({upper:g})")

    categories = bins = None
    if kind == "histogram":
        if r.has("categories") == r.has("bins"):
            r.fail(None, "a histogram needs exactly one of categories (a public list) or bins")
        if r.has("categories"):
            categories = r.scalars("categories", "categories")
        else:
            raw = r.obj["bins"]
            if not isinstance(raw, list) or len(raw) < 2:
                r.fail("bins", "must be a list of at least two bin edges")
            if len(raw) > MAX_LIST:
                r.fail("bins", f"has {len(raw)} edges; at most {MAX_LIST:,} are allowed")
            edges = [_as_number(v, lambda p, i=i: r.fail(f"bins[{i}]", p))
                     for i, v in enumerate(raw)]
            for i in range(1, len(edges)):
                if not edges[i] > edges[i - 1]:
                    r.fail(f"bins[{i}]", "bin edges must increase strictly")
            bins = tuple(edges)
    else:
        for key in ("categories", "bins"):
            if r.has(key):
                r.fail(key, f"is not used by kind {kind}")

    quantile = None
    if kind == "quantile":
        quantile = r.number("quantile")
        assert quantile is not None
        if not 0.0 <= quantile <= 1.0:
            r.fail("quantile", f"must lie in [0, 1], not {quantile:g}")
    elif r.has("quantile"):
        r.fail("quantile", f"is not used by kind {kind}")

    group_by = None
    if r.has("group_by"):
        if kind == "randomized_response":
            r.fail("group_by", "randomized_response takes no group_by")
        g = _Reader(source, r.obj["group_by"], r.where("group_by"), ("column", "keys"))
        gcol = g.text("column")
        if not g.has("keys"):
            g.fail("keys", "is required: declare the public list of group keys")
        keys = g.scalars("keys", "group keys")
        assert gcol is not None
        group_by = GroupBy(column=gcol, keys=keys)

    where: tuple[Condition, ...] = ()
    if r.has("where"):
        if kind == "randomized_response":
            r.fail("where", "randomized_response takes no where conditions")
        raw_where = r.obj["where"]
        if not isinstance(raw_where, list):
            r.fail("where", "must be a list of {column, op, value} conditions")
        where = tuple(
            _read_condition(source, c, r.where(f"where[{i}]")) for i, c in enumerate(raw_where)
        )

    yes_values, no_values = _read_yes_no(r, kind)

    missing = Missing()
    if r.has("missing"):
        raw_missing = r.obj["missing"]
        if raw_missing == "drop":
            missing = Missing()
        elif isinstance(raw_missing, dict) and set(raw_missing) == {"impute"}:
            value = raw_missing["impute"]
            if isinstance(value, (dict, list)) or value is None:
                r.fail("missing.impute", "must be a string or number")
            if kind in NEEDS_BOUNDS or (kind == "histogram" and bins is not None):
                value = _as_number(value, lambda p: r.fail("missing.impute", p))
            if kind == "histogram" and categories is not None:
                if canonical_key(value) not in {canonical_key(c) for c in categories}:
                    r.fail("missing.impute", "must be one of the declared categories")
            if kind == "randomized_response" and yes_values is not None:
                if _declared_answer(yes_values, no_values, value) is None:
                    r.fail("missing.impute", "must be one of the declared yes or no values")
            elif kind == "randomized_response" and yes_no(value) is None:
                r.fail("missing.impute", "must be a yes/no value (yes, no, true, false, 1, 0)")
            missing = Missing(policy="impute", value=value)
        else:
            r.fail("missing", 'must be "drop" or {"impute": value}')

    epsilon = r.number("epsilon")
    assert epsilon is not None
    if not 0 < epsilon <= MAX_EPSILON:
        r.fail("epsilon", f"must be above 0 and at most {MAX_EPSILON:g}, not {epsilon:g}")
    delta = r.number("delta", required=False, default=0.0)
    assert delta is not None
    problem = delta_problem(delta)
    if problem:
        r.fail("delta", problem)
    if mechanism == "gaussian" and delta <= 0:
        r.fail("delta", "the gaussian mechanism needs a delta above 0")
    if mechanism != "gaussian" and delta != 0:
        r.fail("delta", f"is only used by the gaussian mechanism, not {mechanism}")

    grid_step = r.number("grid_step", required=False)
    if grid_step is not None:
        if kind not in NEEDS_BOUNDS:
            r.fail("grid_step", f"is not used by kind {kind}")
        if not _is_power_of_two(grid_step) or not 2.0**-40 <= grid_step <= 2.0**40:
            r.fail("grid_step", "must be a power of two (for example 0.25, 1 or 1024)")
        if lower is not None and upper is not None and (upper - lower) / grid_step > 2**40:
            r.fail("grid_step", "is too fine for these bounds (more than 2^40 steps)")
    if kind in NEEDS_BOUNDS and lower is not None and upper is not None and lower < upper:
        from .sensitivity import grid_problem  # sensitivity imports this module

        grid_error = grid_problem(kind, lower, upper, grid_step)
        if grid_error is not None:
            r.fail(*grid_error)

    expected_count = r.number("expected_count", required=False)
    if expected_count is not None and expected_count <= 0:
        r.fail("expected_count", "must be above 0")

    justification = None
    if r.has("justification"):
        j = _Reader(source, r.obj["justification"], r.where("justification"),
                    ("bounds", "categories", "epsilon", "keys", "values"))
        justification = {k: j.text(k) or "" for k in j.obj}

    return Query(
        id=qid, kind=kind, epsilon=epsilon, label=label, column=column, lower=lower,
        upper=upper, categories=categories, bins=bins, quantile=quantile, group_by=group_by,
        where=where, missing=missing, mechanism=mechanism, delta=delta, grid_step=grid_step,
        expected_count=expected_count, justification=justification, yes=yes_values,
        no=no_values,
    )


def _read_yes_no(r: _Reader, kind: str) -> tuple[tuple[Scalar, ...] | None,
                                                   tuple[Scalar, ...] | None]:
    """The declared yes and no values: both or neither, disjoint, only where yes/no is read."""
    if not (r.has("yes") or r.has("no")):
        return None, None
    if kind not in YES_NO_KINDS:
        r.fail("yes" if r.has("yes") else "no", f"is not used by kind {kind}")
    for key, other in (("yes", "no"), ("no", "yes")):
        if not r.has(key):
            r.fail(key, f"is required with {other!r}: declare which cell values mean yes "
                        "and which mean no")
    yes_values = r.scalars("yes", "values that mean yes")
    no_values = r.scalars("no", "values that mean no")
    yes_keys = {canonical_key(v) for v in yes_values}
    for i, v in enumerate(no_values):
        if canonical_key(v) in yes_keys:
            r.fail(f"no[{i}]", f"{canonical_key(v)!r} is also declared as a yes value")
    return yes_values, no_values


PLAN_FIELDS = ("format", "dataset", "privacy_unit", "neighbouring", "budget", "queries",
               "justification", "approvals")


def plan_from_dict(obj: Any, source: str = "plan") -> Plan:
    """Validate a decoded plan document; raise InputError naming the first problem."""
    if not isinstance(obj, dict):
        raise InputError(source, None, f"a plan must be a JSON object, not {_json_type(obj)}")
    if "format" not in obj:
        raise InputError(source, "format", f'is required ("format": "{FORMAT}")')
    if obj["format"] != FORMAT:
        raise InputError(source, "format",
                         f"unknown format version {obj['format']!r} (this version reads {FORMAT})")
    r = _Reader(source, obj, "", PLAN_FIELDS)

    if not r.has("dataset"):
        r.fail("dataset", "is required")
    d = _Reader(source, obj["dataset"], "dataset", ("name", "path", "expected_rows"))
    name = d.text("name")
    assert name is not None
    if not name.strip():
        d.fail("name", "must not be blank")
    expected_rows = d.integer("expected_rows", required=False)
    if expected_rows is not None and not 1 <= expected_rows <= MAX_EXPECTED_ROWS:
        d.fail("expected_rows", f"must be between 1 and {MAX_EXPECTED_ROWS:,}")
    path = d.text("path", required=False)
    if path and (path.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:[\\/]", path)):
        d.fail("path", "must be a file name or a relative path: a plan is shared with "
                       "reviewers and released, and an absolute path would reveal where the "
                       "private data lives")
    dataset = Dataset(name=name, path=path, expected_rows=expected_rows)

    if not r.has("privacy_unit"):
        r.fail("privacy_unit", 'is required ({"kind": "row"} or {"kind": "person", ...})')
    u = _Reader(source, obj["privacy_unit"], "privacy_unit", ("kind", "id_column", "max_rows"))
    unit_kind = u.choice("kind", ("row", "person"))
    if unit_kind == "person":
        id_column = u.text("id_column")
        max_rows = u.integer("max_rows")
        assert max_rows is not None
        if not 1 <= max_rows <= 1_000_000:
            u.fail("max_rows", f"must be between 1 and 1,000,000, not {max_rows}")
        unit = PrivacyUnit(kind="person", id_column=id_column, max_rows=max_rows)
    else:
        for key in ("id_column", "max_rows"):
            if u.has(key):
                u.fail(key, 'is only used with "kind": "person"')
        unit = PrivacyUnit()

    neighbouring = r.choice("neighbouring", RELATIONS, default="add-remove")

    if not r.has("budget"):
        r.fail("budget", 'is required ({"epsilon": ..., "delta": ...})')
    b = _Reader(source, obj["budget"], "budget", ("epsilon", "delta", "accountant"))
    b_eps = b.number("epsilon")
    assert b_eps is not None
    if not 0 < b_eps <= MAX_EPSILON:
        b.fail("epsilon", f"must be above 0 and at most {MAX_EPSILON:g}, not {b_eps:g}")
    b_delta = b.number("delta", required=False, default=0.0)
    assert b_delta is not None
    problem = delta_problem(b_delta)
    if problem:
        b.fail("delta", problem)
    accountant = b.choice("accountant", ACCOUNTANTS, default="") if b.has("accountant") else None
    budget = Budget(epsilon=b_eps, delta=b_delta, accountant=accountant)

    raw_queries = obj.get("queries")
    if not isinstance(raw_queries, list) or not raw_queries:
        r.fail("queries", "must be a non-empty list of statistics")
    assert isinstance(raw_queries, list)
    if len(raw_queries) > MAX_QUERIES:
        r.fail("queries", f"has {len(raw_queries)} statistics; at most {MAX_QUERIES:,} are allowed")
    queries = []
    seen: set[str] = set()
    for i, q in enumerate(raw_queries):
        query = _read_query(source, q, f"queries[{i}]")
        if query.id in seen:
            raise InputError(source, f"queries[{i}].id", f"duplicate id {query.id!r}")
        seen.add(query.id)
        queries.append(query)

    approvals = obj.get("approvals") or []
    if not isinstance(approvals, list):
        r.fail("approvals", "must be a list of review decisions")
    for i, a in enumerate(approvals):
        ar = _Reader(source, a, f"approvals[{i}]",
                     ("reviewer", "decision", "comment", "plan_sha256", "time"))
        ar.text("reviewer")
        ar.choice("decision", ("approved", "rejected"))
        ar.text("comment", required=False)
        ar.text("time")
        digest = ar.text("plan_sha256")
        if not re.fullmatch(r"[0-9a-f]{64}", digest or ""):
            ar.fail("plan_sha256", "must be a SHA-256 in hex")

    return Plan(
        dataset=dataset, privacy_unit=unit, budget=budget, queries=tuple(queries),
        neighbouring=neighbouring, justification=r.text("justification", required=False),
        approvals=tuple(approvals),
    )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in a plan")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def parse_plan_text(text: str, source: str = "plan") -> Plan:
    """Parse and validate plan JSON text."""
    try:
        obj = json.loads(text, parse_constant=_reject_constant,
                         object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"line {exc.lineno} column {exc.colno}",
                         f"invalid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise InputError(source, None, f"invalid JSON: {str(exc)[:200]}") from None
    return plan_from_dict(obj, source)


def load_plan(path: str | os.PathLike[str]) -> Plan:
    """Read a plan file; every problem becomes an InputError naming the file."""
    p = Path(path)
    source = p.name
    size = input_file_size(p, "plan file")  # a FIFO or device would hang the read
    try:
        if size > MAX_PLAN_BYTES:
            raise InputError(source, None, f"is {size:,} bytes; a plan file may be at most "
                                           f"{MAX_PLAN_BYTES:,} bytes")
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError(source, None, "no such file") from None
    except IsADirectoryError:
        raise InputError(source, None, "is a folder, not a plan file") from None
    except OSError as exc:
        raise InputError(source, None, f"cannot be read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(source, f"byte {exc.start}", "is not UTF-8 text") from None
    return parse_plan_text(text, source)


# ----------------------------------------------------------------------------- writing


def _query_to_dict(q: Query) -> dict[str, Any]:
    out: dict[str, Any] = {"id": q.id, "label": q.label or q.id, "kind": q.kind}
    if q.column is not None:
        out["column"] = q.column
    if q.lower is not None:
        out["lower"] = q.lower
        out["upper"] = q.upper
    if q.categories is not None:
        out["categories"] = list(q.categories)
    if q.bins is not None:
        out["bins"] = list(q.bins)
    if q.quantile is not None:
        out["quantile"] = q.quantile
    if q.group_by is not None:
        out["group_by"] = {"column": q.group_by.column, "keys": list(q.group_by.keys)}
    if q.where:
        out["where"] = [
            {"column": c.column, "op": c.op, "value": list(c.value) if c.op == "in" else c.value}
            for c in q.where
        ]
    out["missing"] = "drop" if q.missing.policy == "drop" else {"impute": q.missing.value}
    out["mechanism"] = q.mechanism
    out["epsilon"] = q.epsilon
    if q.delta:
        out["delta"] = q.delta
    if q.grid_step is not None:
        out["grid_step"] = q.grid_step
    if q.expected_count is not None:
        out["expected_count"] = q.expected_count
    if q.justification:
        out["justification"] = dict(q.justification)
    if q.yes is not None:
        out["yes"] = list(q.yes)
        out["no"] = list(q.no or ())
    return out


def plan_to_dict(plan: Plan) -> dict[str, Any]:
    dataset: dict[str, Any] = {"name": plan.dataset.name}
    if plan.dataset.path is not None:
        dataset["path"] = plan.dataset.path
    if plan.dataset.expected_rows is not None:
        dataset["expected_rows"] = plan.dataset.expected_rows
    unit: dict[str, Any] = {"kind": plan.privacy_unit.kind}
    if plan.privacy_unit.kind == "person":
        unit["id_column"] = plan.privacy_unit.id_column
        unit["max_rows"] = plan.privacy_unit.max_rows
    budget: dict[str, Any] = {"epsilon": plan.budget.epsilon, "delta": plan.budget.delta}
    if plan.budget.accountant:
        budget["accountant"] = plan.budget.accountant
    out: dict[str, Any] = {
        "format": FORMAT,
        "dataset": dataset,
        "privacy_unit": unit,
        "neighbouring": plan.neighbouring,
        "budget": budget,
        "queries": [_query_to_dict(q) for q in plan.queries],
    }
    if plan.justification:
        out["justification"] = plan.justification
    if plan.approvals:
        out["approvals"] = [dict(a) for a in plan.approvals]
    return out


def plan_to_json(plan: Plan) -> str:
    return json.dumps(plan_to_dict(plan), indent=2, ensure_ascii=False) + "\n"


def plan_digest(plan: Plan) -> str:
    """SHA-256 of the plan's canonical JSON, approvals left out (they are about the plan)."""
    import hashlib

    doc = plan_to_dict(plan)
    doc.pop("approvals", None)
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def save_plan(plan: Plan, path: str | os.PathLike[str]) -> None:
    atomic_write_text(path, plan_to_json(plan))


# ----------------------------------------------------------------------------- yes/no values

# The fixed vocabulary, read only when a query declares no "yes"/"no" lists. Single letters
# (y/n, t/f) are not in it: "F" is as likely to mean female as false.
_YES = {"yes", "true", "1"}
_NO = {"no", "false", "0"}
FIXED_YES_NO = "yes/no, true/false or 1/0"


def yes_no(value: Any) -> bool | None:
    """The fixed, public vocabulary of yes/no answers (any case)."""
    key = canonical_key(value).lower()
    if key in _YES:
        return True
    if key in _NO:
        return False
    return None


def _declared_answer(yes: Iterable[Scalar], no: Iterable[Scalar] | None,
                     value: Any) -> bool | None:
    key = canonical_key(value)
    if key in {canonical_key(v) for v in yes}:
        return True
    if key in {canonical_key(v) for v in no or ()}:
        return False
    return None


def answer_reader(query: Query) -> Callable[[Any], bool | None]:
    """How a query reads a cell as yes (True), no (False) or neither (None): its declared
    lists when it has them (exact text, as categories match), else the fixed vocabulary."""
    if query.yes is None:
        return yes_no
    yes_keys = {canonical_key(v) for v in query.yes}
    no_keys = {canonical_key(v) for v in query.no or ()}

    def read(value: Any) -> bool | None:
        key = canonical_key(value)
        return True if key in yes_keys else False if key in no_keys else None

    return read
