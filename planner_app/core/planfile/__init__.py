"""The plan file as a whole: validation of a decoded document (validation.py), each field
named in its message, and its JSON text (serialisation.py): read size-limited and strict,
written canonically, and its digest. It sits above the statistic kinds (``core/kinds``):
each kind reads and writes its own fields; the vocabulary is ``core/model``.
"""

from .serialisation import (
    load_plan,
    parse_plan_text,
    plan_digest,
    plan_to_dict,
    plan_to_json,
    read_plan_document,
    save_plan,
)
from .validation import PLAN_FIELDS, data_path_problem, plan_from_dict, query_fields

__all__ = [
    "PLAN_FIELDS", "data_path_problem", "load_plan", "parse_plan_text", "query_fields",
    "read_plan_document",
    "plan_digest", "plan_from_dict", "plan_to_dict", "plan_to_json", "save_plan",
]
