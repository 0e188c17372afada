"""The plan file's JSON text: read it (size-limited, strict JSON: no NaN, no repeated key),
write it back in a canonical form, and its SHA-256 digest for approvals."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..kinds.registry import kind_of
from ..model.plan import FORMAT, FORMAT_PROGRAMME, MAX_PLAN_BYTES, Plan, Query
from ..support.errors import InputError
from ..support.files import atomic_write_text, input_file_size, text_of
from ..support.json_keys import refusing_duplicate_keys
from .programme import programme_to_dict
from .relations import consistency_to_dict
from .validation import plan_from_dict


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in a plan")


_no_duplicate_keys = refusing_duplicate_keys()


# the most digits a whole number in a plan may have: Python's own limit for int(text)
# (sys.get_int_max_str_digits()); no plan field needs a thousandth of it
MAX_INT_DIGITS = 4300


class _LongNumber:
    """A whole number too long to read, held in place so its field can be named."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _plan_int(text: str) -> Any:
    digits = len(text.lstrip("-"))
    return _LongNumber(digits) if digits > MAX_INT_DIGITS else int(text)


def _item_name(item: Any, index: int) -> str | int:
    """A list item as the plan's errors name it: a statistic by its id, else its index."""
    return item["id"] if isinstance(item, dict) and isinstance(item.get("id"), str) else index


def _long_number_at(obj: Any, path: str = "") -> tuple[str, int] | None:
    """Where the first too-long number is (a field path as the plan's errors name it:
    ``queries[ID].max_keys``), and its digits; None when there is none."""
    if isinstance(obj, _LongNumber):
        return path or "plan", obj.digits
    if isinstance(obj, dict):
        items: list[tuple[str, Any]] = [(f"{path}.{k}" if path else str(k), v)
                                        for k, v in obj.items()]
    elif isinstance(obj, list):
        items = [(f"{path}[{_item_name(v, i)}]", v) for i, v in enumerate(obj)]
    else:
        return None
    for where, value in items:
        found = _long_number_at(value, where)
        if found is not None:
            return found
    return None


def plan_document(text: str, source: str = "plan") -> Any:
    """A plan's JSON text as its document, strictly (no NaN, no repeated key, no number
    too long to read: each an InputError naming the file and where)."""
    try:
        obj = json.loads(text, parse_constant=_reject_constant, parse_int=_plan_int,
                         object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"line {exc.lineno} column {exc.colno}",
                         f"invalid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise InputError(source, None, f"invalid JSON: {str(exc)[:200]}") from None
    found = _long_number_at(obj)
    if found is not None:
        where, digits = found
        raise InputError(source, where, f"is a {digits:,}-digit number, too long to read "
                                        "and too large for any plan field")
    return obj


def parse_plan_text(text: str, source: str = "plan", *, draft: bool = False) -> Plan:
    """Parse and validate plan JSON text (``draft``: see ``plan_from_dict``)."""
    return plan_from_dict(plan_document(text, source), source, draft=draft)


def read_plan_document(path: str | os.PathLike[str]) -> Any:
    """A plan file's JSON document, as written: every problem reading it (no such file, a
    bundle given in its place, not UTF-8, not strict JSON) an InputError naming the file."""
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
    return plan_document(text_of(raw, source, "plan file"), source)


def load_plan(path: str | os.PathLike[str], *, draft: bool = False) -> Plan:
    """Read a plan file; every problem becomes an InputError naming the file. ``draft``: the
    app opening a plan to edit (see ``plan_from_dict``)."""
    return plan_from_dict(read_plan_document(path), Path(path).name, draft=draft)



def _query_to_dict(q: Query) -> dict[str, Any]:
    """A statistic's plan JSON: the fields every statistic has, and its kind's own."""
    common: dict[str, Any] = {"id": q.id, "label": q.label or q.id, "kind": q.kind}
    if q.column is not None:
        common["column"] = q.column
    if q.group_by is not None:
        common["group_by"] = {"column": q.group_by.column, "keys": list(q.group_by.keys)}
    if q.where:
        common["where"] = [
            {"column": c.column, "op": c.op, "value": list(c.value) if c.op == "in" else c.value}
            for c in q.where
        ]
    common["missing"] = "drop" if q.missing.policy == "drop" else {"impute": q.missing.value}
    common["mechanism"] = q.mechanism
    common["epsilon"] = q.epsilon
    if q.delta:
        common["delta"] = q.delta
    if q.expected_count is not None:
        common["expected_count"] = q.expected_count
    if q.justification:
        common["justification"] = dict(q.justification)
    return kind_of(q).query_to_dict(q, common)


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
    elif plan.privacy_unit.rows_reason:
        unit["rows_are_people"] = {"reason": plan.privacy_unit.rows_reason}
    budget: dict[str, Any] = {"epsilon": plan.budget.epsilon, "delta": plan.budget.delta}
    if plan.budget.accountant:
        budget["accountant"] = plan.budget.accountant
    out: dict[str, Any] = {
        "format": FORMAT if plan.programme is None else FORMAT_PROGRAMME,  # cal26
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
    if plan.consistency is not None:  # issue 27; absent from every plan without relations
        out["consistency"] = consistency_to_dict(plan.consistency)
    if plan.programme is not None:  # cal26; absent from every plan not on a schedule
        out["programme"] = programme_to_dict(plan.programme)
    return out


def plan_to_json(plan: Plan) -> str:
    return json.dumps(plan_to_dict(plan), indent=2, ensure_ascii=False) + "\n"


def plan_digest(plan: Plan) -> str:
    """SHA-256 of the plan's canonical JSON, approvals left out (they are about the plan)."""
    return document_digest(plan_to_dict(plan))


def document_digest(doc: dict[str, Any]) -> str:
    """``plan_digest`` of the plan whose ``plan_to_dict`` is ``doc`` (not changed): for a
    caller that holds the document already (compiled.CompiledPlan)."""
    doc = {k: v for k, v in doc.items() if k != "approvals"}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def save_plan(plan: Plan, path: str | os.PathLike[str]) -> None:
    atomic_write_text(path, plan_to_json(plan))
