"""The plan file: its vocabulary and dataclasses (plan.py), how declared values meet cells
(values.py), the grid of bounded columns (grid.py), reading one JSON object field by field
(reader.py) and the rules of single fields (rules.py). Reading and writing a whole plan file
is the package above the statistic kinds, ``core/planfile``: each kind reads its own fields.

This package's namespace is the plan API the rest of the app imports (``from ..model import
Plan, Query``); the modules above are its parts.
"""

from .plan import (
                   ACCOUNTANTS,
                   FORMAT,
                   MAX_ABS_BOUND,
                   MAX_EPSILON,
                   MAX_EXPECTED_ROWS,
                   MAX_LIST,
                   MAX_PLAN_BYTES,
                   MAX_QUERIES,
                   MAX_TEXT,
                   MIN_DELTA,
                   OPS,
                   RELATIONS,
                   Budget,
                   Condition,
                   Dataset,
                   GroupBy,
                   KindParams,
                   Missing,
                   Plan,
                   PrivacyUnit,
                   Query,
                   Scalar,
                   SynthColumn,
)
from .rules import (
    MAX_ROWS_PER_PERSON,
    delta_problem,
    epsilon_problem,
    expected_count_problem,
    expected_rows_problem,
    max_rows_problem,
    quantile_problem,
    read_justification,
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
    "ACCOUNTANTS", "FIXED_YES_NO", "FORMAT",
    "MAX_ABS_BOUND", "MAX_EPSILON", "MAX_EXPECTED_ROWS", "MAX_LIST", "MAX_PLAN_BYTES",
    "MAX_QUERIES", "MAX_ROWS_PER_PERSON", "MAX_TEXT", "MIN_DELTA",
    "OPS", "RELATIONS", "Budget",
    "Condition", "Dataset", "GroupBy", "KindParams", "Missing", "Plan", "PrivacyUnit", "Query",
    "Scalar",
    "SynthColumn", "answer_reader", "canonical_key", "canonical_keys", "delta_problem",
    "epsilon_problem", "expected_count_problem", "expected_rows_problem",
    "max_rows_problem", "quantile_problem", "read_justification", "text_number", "yes_no",
]
