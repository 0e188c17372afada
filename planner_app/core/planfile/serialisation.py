"""The plan file's JSON text: read it (size-limited, strict JSON: no NaN, no repeated key),
write it back in a canonical form, and its SHA-256 digest for approvals."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..kinds.registry import kind_of
from ..model.plan import FORMAT, MAX_PLAN_BYTES, Plan, Query
from ..support.errors import InputError
from ..support.files import atomic_write_text, input_file_size
from ..support.json_keys import refusing_duplicate_keys
from .relations import consistency_to_dict
from .validation import plan_from_dict


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in a plan")


_no_duplicate_keys = refusing_duplicate_keys()


def parse_plan_text(text: str, source: str = "plan", *, draft: bool = False) -> Plan:
    """Parse and validate plan JSON text (``draft``: see ``plan_from_dict``)."""
    try:
        obj = json.loads(text, parse_constant=_reject_constant,
                         object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"line {exc.lineno} column {exc.colno}",
                         f"invalid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise InputError(source, None, f"invalid JSON: {str(exc)[:200]}") from None
    return plan_from_dict(obj, source, draft=draft)


def load_plan(path: str | os.PathLike[str], *, draft: bool = False) -> Plan:
    """Read a plan file; every problem becomes an InputError naming the file. ``draft``: the
    app opening a plan to edit (see ``plan_from_dict``)."""
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
    return parse_plan_text(text, source, draft=draft)



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
    if plan.consistency is not None:  # issue 27; absent from every plan without relations
        out["consistency"] = consistency_to_dict(plan.consistency)
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
