"""What one cell means, read in Python over a pandas column: its number (``cell_number``,
``numeric_values``) and the type a column's cells suggest (``detect_type``). The rules are
``model.values``'s; facts.py and sql_plan.py say the same in SQL (tests/engine/test_facts.py
and tests/core/test_cell_reading.py hold them together).

Below tables.py (which re-exports these) and facts.py, which both read cells this way.
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pandas as pd

from ..model import text_number, yes_no


def cell_number(value: object) -> float:
    """One cell as a number (NaN when it is not one), from the cell alone: a number, a bool
    (1/0), or text that spells a number or true/false, whatever type its column was read as."""
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating, Decimal)):
        try:
            return float(value)
        except (OverflowError, ValueError):  # a huge integer, a signalling Decimal NaN
            return math.nan
    if not isinstance(value, str):
        return math.nan
    text = value.strip()
    low = text.lower()
    if low in ("true", "false"):
        return 1.0 if low == "true" else 0.0
    number = text_number(text)
    return math.nan if number is None else number


def numeric_values(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Float values and a mask of cells that are missing or not numbers. Each cell is read by
    itself, so a text cell elsewhere in the column never changes how a number reads."""
    numeric = pd.api.types.is_numeric_dtype(series) \
        and not isinstance(series.dtype, pd.CategoricalDtype)
    if pd.api.types.is_bool_dtype(series) or numeric:
        arr = series.to_numpy(dtype="float64", na_value=np.nan)
    else:
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
        table = np.array([cell_number(u) for u in uniques] + [math.nan], dtype="float64")
        arr = table[codes]  # code -1 (missing) picks the trailing NaN
    bad = ~np.isfinite(arr)
    return arr, bad


def detect_type(series: pd.Series) -> str:
    present = series.dropna()
    if present.empty:
        return "text"
    sample = present.iloc[:10_000]
    if all(yes_no(v) is not None for v in sample.unique()[:50]) and sample.nunique() <= 2:
        return "yes/no"
    _, bad = numeric_values(sample)
    if (~bad).mean() >= 0.95:
        return "number"
    return "text"
