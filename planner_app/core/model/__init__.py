"""The plan file: its vocabulary and dataclasses (plan.py), how declared values meet cells
(values.py), the grid of bounded columns (grid.py), reading one JSON object field by field
(reader.py), validation of a decoded document (validation.py) and the JSON text
(serialisation.py).

This package's namespace is the plan API the rest of the app imports (``from ..model import
Plan, load_plan``); the modules above are its parts.
"""

from .plan import (
                   ACCOUNTANTS,
                   COUNT_OF,
                   FORMAT,
                   KINDS,
                   MAX_ABS_BOUND,
                   MAX_EPSILON,
                   MAX_EXPECTED_ROWS,
                   MAX_LIST,
                   MAX_PLAN_BYTES,
                   MAX_QUERIES,
                   MAX_TEXT,
                   MECHANISMS_BY_KIND,
                   MIN_DELTA,
                   NEEDS_BOUNDS,
                   NEEDS_COLUMN,
                   NOT_TAKEN,
                   OPS,
                   RELATIONS,
                   YES_NO_KINDS,
                   Budget,
                   Condition,
                   Dataset,
                   GroupBy,
                   Missing,
                   Plan,
                   PrivacyUnit,
                   Query,
                   Scalar,
                   SynthColumn,
                   kind_takes,
)
from .serialisation import (
                   load_plan,
                   parse_plan_text,
                   plan_digest,
                   plan_to_dict,
                   plan_to_json,
                   save_plan,
)
from .validation import (
    EXPECTED_COUNT_KINDS,
    MAX_ROWS_PER_PERSON,
    PLAN_FIELDS,
    QUERY_FIELDS,
    delta_problem,
    epsilon_problem,
    expected_count_problem,
    expected_rows_problem,
    max_rows_problem,
    plan_from_dict,
    quantile_problem,
)
from .values import (
    FIXED_YES_NO,
    answer_reader,
    canonical_key,
    canonical_keys,
    text_number,
    yes_no,
)

__all__ = [
    "ACCOUNTANTS", "FIXED_YES_NO", "FORMAT", "KINDS", "MAX_ABS_BOUND", "MAX_EPSILON",
    "MAX_EXPECTED_ROWS", "MAX_LIST", "MAX_PLAN_BYTES", "MAX_QUERIES", "MAX_TEXT",
    "MECHANISMS_BY_KIND", "MIN_DELTA", "NEEDS_BOUNDS", "NEEDS_COLUMN", "OPS", "PLAN_FIELDS",
    "QUERY_FIELDS", "RELATIONS", "YES_NO_KINDS", "Budget", "Condition", "Dataset", "GroupBy",
    "Missing", "Plan", "PrivacyUnit", "Query", "Scalar", "SynthColumn", "answer_reader",
    "canonical_key", "canonical_keys",
    "delta_problem", "epsilon_problem", "expected_rows_problem", "EXPECTED_COUNT_KINDS",
    "expected_count_problem", "max_rows_problem",
    "quantile_problem", "MAX_ROWS_PER_PERSON", "load_plan", "parse_plan_text", "plan_digest",
    "plan_from_dict",
    "plan_to_dict", "plan_to_json", "save_plan", "text_number", "yes_no", "NOT_TAKEN",
    "COUNT_OF", "kind_takes",
]
