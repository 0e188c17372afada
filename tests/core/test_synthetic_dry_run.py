"""The dry run before the charge checks the synthetic payload the release's code draws, as
verify checks a bundle's: a defect in its two-way half (which the dry run's synthesis on the
likeliest pairs never reads) is refused while nothing is charged, not after the charge."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.ledger import Ledger
from planner_app.core.release import publish as pub
from planner_app.core.release import synthetic, synthetic_aim
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_TABLE, plan_dict


def _cell_short(payload: dict[str, Any]) -> None:
    for mg in payload["marginals"]:
        if len(mg["columns"]) == 2:
            mg["values"] = mg["values"][:-1]


def _pairs_reversed(payload: dict[str, Any]) -> None:
    payload["selected"] = [list(reversed(p)) for p in payload["selected"]]


def _negative_though_clamped(payload: dict[str, Any]) -> None:
    for mg in payload["marginals"]:
        if len(mg["columns"]) == 2:
            mg["values"][0] = -1


@pytest.mark.parametrize(("defect", "clamp"), [(_cell_short, False), (_pairs_reversed, False),
                                               (_negative_though_clamped, True)])
def test_a_defect_in_the_two_way_payload_is_refused_before_the_charge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        defect: Callable[[dict[str, Any]], None], clamp: bool) -> None:
    pytest.importorskip("mbi")
    real = synthetic.measure_synthetic

    def broken(*a: Any, **k: Any) -> Any:
        *rest, payload = real(*a, **k)
        defect(payload)
        return (*rest, payload)

    # the noise step reaches MST through synthetic_aim.measure_table (by method)
    monkeypatch.setattr(synthetic_aim, "measure_synthetic", broken)
    refused_before_the_charge(tmp_path, clamp)


def refused_before_the_charge(tmp_path: Path, clamp: bool = False) -> None:
    """A release of a three-column synthetic table on the demo table is refused with
    "nothing was charged": no release in the ledger, no bundle."""
    home = app_home(tmp_path / "home").ensure()
    plan = plan_from_dict(plan_dict(
        dataset={"name": "demo-survey"},
        privacy_unit={"kind": "person", "id_column": "person_id", "max_rows": 3},
        budget={"epsilon": 2, "delta": 1e-5},
        queries=[{"id": "s", "kind": "synthetic", "epsilon": 1, "delta": 1e-6, "rows": 100,
                  "columns": [{"column": "region",
                               "categories": ["North", "South", "East", "West"]},
                              {"column": "age", "bins": [16, 40, 100]},
                              {"column": "smoker", "categories": ["yes", "no"]}],
                  "justification": {"categories": "the form's answers",
                                    "bounds": "reporting bands"}}]))
    with pytest.raises(InputError, match="nothing was charged") as refused:
        pub.publish(plan, load_table(DEMO_TABLE), tmp_path / "b.zip", home,
                    source=SeededRandomSource(4), clamp_counts=clamp)
    # no number in it: the stand-in's counts are the true ones plus a fixed seed's noise
    assert not any(ch.isdigit() for ch in str(refused.value)), str(refused.value)
    assert not home.ledger_path.exists() or Ledger(home.ledger_path).releases_charged() == 0
    assert not (tmp_path / "b.zip").exists()
