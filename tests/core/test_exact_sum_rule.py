"""The exact-sum rule (model/grid.py, issue 24): from a plan's public numbers alone, every grid
that plan validation accepts keeps its sums inside the engines' 128-bit integers at any row
count up to MAX_TABLE_ROWS; a finer grid is refused when the plan is read."""

from __future__ import annotations

import pytest

from planner_app.core.model.grid import (
    EXACT_SUM_LIMIT,
    MAX_TABLE_ROWS,
    exact_sum_problem,
    grid_problem,
)
from planner_app.core.planfile import plan_from_dict
from planner_app.core.support.errors import InputError
from tests.conftest import plan_dict

SPARK_DECIMAL_38 = 10**38 - 1  # the largest DECIMAL(38, 0); DuckDB's HUGEINT: 2^127 - 1


def test_the_limit_is_the_narrowest_engine_type() -> None:
    assert EXACT_SUM_LIMIT - 1 == SPARK_DECIMAL_38 < 2**127 - 1
    assert MAX_TABLE_ROWS >= 10**14  # far beyond any table an engine here reads


@pytest.mark.parametrize("lower,upper,step", [
    (0, 200_000, None),                  # the income sum, default grid
    (0, 2.0**40, 1.0),                   # the widest grid: 2^40 steps, squares up to 2^78
    (-(2.0**39), 2.0**39, 1.0),          # the same, centred on 0
    (2.0**52 - 2**40, 2.0**52, 1.0),     # bounds 2^52 steps from 0
    (-1e15, 1e15, None),                 # the widest bounds, default grid
])
def test_every_grid_the_plan_accepts_keeps_exact_sums(lower: float, upper: float,
                                                      step: float | None) -> None:
    assert grid_problem(16, lower, upper, step) is None
    s = step if step is not None else 2.0 ** (int(upper - lower).bit_length() - 1 - 16)
    lo, hi = round(lower / s), round(upper / s)
    centre = (lo + hi) // 2
    radius = max(centre - lo, hi - centre)
    # Python's own worst sums over the most rows: inside the narrowest engine type
    assert MAX_TABLE_ROWS * max(abs(lo), abs(hi)) <= SPARK_DECIMAL_38
    assert MAX_TABLE_ROWS * radius * radius <= SPARK_DECIMAL_38


def test_a_finer_grid_is_refused_in_one_line() -> None:
    # 2^44 steps: a sum of squares of 2^48 rows could reach 2^134
    assert MAX_TABLE_ROWS * (2**43) ** 2 > SPARK_DECIMAL_38
    field, message = exact_sum_problem(0, 2**44) or ("", "")
    assert field == "grid_step" and "too fine for exact sums" in message
    assert grid_problem(44, 0.0, 1.0, None) == (field, message)


def test_the_plan_refuses_it_when_read() -> None:
    doc = plan_dict(queries=[{"id": "v", "kind": "variance", "column": "y", "lower": 0,
                              "upper": 2**41, "grid_step": 1, "epsilon": 1}])
    with pytest.raises(InputError, match=r"queries\[v\]\.grid_step"):
        plan_from_dict(doc)
