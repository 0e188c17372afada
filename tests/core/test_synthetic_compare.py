"""The owner's comparison of a synthetic table with the real one (on screen only): total
variation distance of every one- and two-way marginal, against hand-worked answers."""

from __future__ import annotations

import numpy as np
import pytest

from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.synthetic_compare import (
    compare_synthetic,
    synthetic_codes_from_csv,
    total_variation,
)
from planner_app.core.support.errors import InputError

PLAN = {"format": "planner-app/plan@1", "dataset": {"name": "t"},
        "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 1, "delta": 1e-6},
        "queries": [{"id": "s", "kind": "synthetic", "epsilon": 1, "delta": 1e-7,
                     "columns": [{"column": "a", "categories": ["x", "y"]},
                                 {"column": "b", "bins": [0, 10, 20]}]}]}


def query():  # type: ignore[no-untyped-def]
    return plan_from_dict(PLAN).query("s")


def test_total_variation_by_hand() -> None:
    assert total_variation(np.array([3, 1]), np.array([2, 2])) == pytest.approx(0.25)
    assert total_variation(np.array([1, 0]), np.array([0, 5])) == pytest.approx(1.0)
    assert total_variation(np.array([2, 2]), np.array([1, 1])) == 0.0


def test_every_marginal_against_the_real_counts() -> None:
    q = query()
    codes = synthetic_codes_from_csv(
        q, b"a,b\nx,\"[0, 10)\"\nx,\"[0, 10)\"\ny,\"[10, 20]\"\ny,\"[10, 20]\"\n")
    assert codes.tolist() == [[0, 0], [0, 0], [1, 1], [1, 1]]
    truth = {"oneway:a": np.array([3, 1]), "oneway:b": np.array([2, 2]),
             "pair:0:1": np.array([2, 1, 0, 1])}  # (x,lo) (x,hi) (y,lo) (y,hi)
    out = compare_synthetic(q, truth, codes, [("b", "a")])
    assert [(d.columns, d.measured) for d in out] == [
        (("a",), True), (("b",), True), (("a", "b"), True)]
    # a: 2/4 against 3/4 → 0.25; b: the same shares → 0; the pair: (2,0,0,2) against
    # (2,1,0,1) → ½(0 + ¼ + 0 + ¼)
    assert [d.tvd for d in out] == pytest.approx([0.25, 0.0, 0.25])
    assert not compare_synthetic(q, truth, codes, [])[2].measured


def test_a_csv_not_of_the_table_is_refused_in_one_line() -> None:
    with pytest.raises(InputError, match="line 3"):
        synthetic_codes_from_csv(query(), b"a,b\nx,\"[0, 10)\"\nz,\"[0, 10)\"\n")
    with pytest.raises(InputError, match="header"):
        synthetic_codes_from_csv(query(), b"b,a\n")
