"""A share's ± wider than its whole 0-100% range reads "± over 100 points", not as
"± 323.4 points" (walk 2, finding 19): any ± past 100 points means the interval covers every
possible share."""

from __future__ import annotations

from planner_app.core.dp.accuracy import format_half_width, shown_half_width
from planner_app.core.kinds.shared_dp import accuracy_for
from planner_app.core.planfile import plan_from_dict
from tests.conftest import plan_dict


def _share(epsilon: float) -> str:
    plan = plan_from_dict(plan_dict(
        dataset={"name": "t", "expected_rows": 5000},
        queries=[{"id": "s", "kind": "randomized_response", "column": "employed",
                  "epsilon": epsilon}]))
    acc = accuracy_for(plan.queries[0], plan)
    hw = shown_half_width(acc)
    assert hw is not None
    return f"{hw:.6g}|{format_half_width(acc)}"


def test_a_share_wider_than_its_range_says_so() -> None:
    hw, words = _share(0.02).split("|")
    assert float(hw) > 100  # the independent answer: the ± in points is past the range
    assert words == "± over 100 points"
    hw, words = _share(4.0).split("|")
    assert float(hw) < 100 and words.endswith(" points") and words.startswith("± ")
