"""A frame held in memory as DuckDB reads it: the one conversion the SQL engine
(sql_runner.py) and the owner's facts (source.py) both register, so a frame's cells mean the
same to both (issue 23, one cell reader; ``model.values`` is the specification).

Numbers and bools keep their type; any other column becomes text, each cell its ``str``
(the text ``canonical_key`` and ``cell_number`` read as they read the cell itself); a nested
column (lists, structs) becomes empty cells, reported by name so the engine refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

NESTED_TYPES = (list, tuple, dict, set, np.ndarray)


def sql_column(column: pd.Series) -> tuple[Any, bool]:
    """The column as DuckDB should read it, and whether its cells are nested."""
    dtype = column.dtype
    if (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)) \
            and not isinstance(dtype, pd.CategoricalDtype):
        return (column.to_numpy() if dtype.kind in "biuf" else column), False
    present = column.dropna()
    if len(present) and isinstance(present.iloc[0], NESTED_TYPES):
        return np.full(len(column), None, dtype=object), True
    codes, uniques = factorize_cells(column)
    texts = np.array([str(u) for u in uniques] + [None], dtype=object)
    return texts[codes], False


_BOOL = object()  # marks a bool cell while a column is factorized


def factorize_cells(column: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """``pd.factorize`` (code -1 for an empty cell), except that a bool is never one value
    with a number: pandas takes True and 1 (False and 0) of an object column for one value,
    named by whichever comes first, where ``canonical_key`` reads them apart."""
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    if column.dtype != object or not any(_equals_a_bool(u) for u in uniques):
        return codes, list(uniques)
    keyed = column.map(lambda v: (_BOOL, v) if isinstance(v, (bool, np.bool_)) else v)
    codes, uniques = pd.factorize(keyed, use_na_sentinel=True)
    return codes, [u[1] if isinstance(u, tuple) and len(u) == 2 and u[0] is _BOOL else u
                   for u in uniques]


def _equals_a_bool(value: object) -> bool:
    """True for a value Python finds equal to True or False (1, 0.0, True ...)."""
    try:
        return bool(value == 0 or value == 1)
    except (TypeError, ValueError):
        return False


def sql_frame(frame: pd.DataFrame, columns: Sequence[str], *,
              keep_nested: bool = False) -> tuple[pd.DataFrame, set[str]]:
    """The named columns of ``frame`` (by their names as text) as DuckDB should read them,
    and the names of the nested ones (``keep_nested``: as they are, DuckDB types them as
    lists or structs; else empty)."""
    by_name = {str(c): c for c in frame.columns}
    nested: set[str] = set()
    data = {}
    for name in columns:
        data[name], is_nested = sql_column(frame[by_name[name]])
        if is_nested:
            nested.add(name)
            if keep_nested:
                data[name] = frame[by_name[name]].to_numpy()
    return pd.DataFrame(data, index=pd.RangeIndex(len(frame))), nested
