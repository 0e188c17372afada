"""A quantile the sampler could not finish is refused from public figures only (its grid and
the plan's stated dataset.expected_rows), before the table is read and before the charge;
never from the table's true row count (issue 24)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

import planner_app.core.dp.mechanisms as mech
from planner_app.core.data.tables import load_table, open_table
from planner_app.core.model import Plan
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.publish import publish
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import AppHome, app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE

# the demo median's grid has 6,251 points and the demo table 3,808 rows; with the sampler's
# limit lowered to 4,001 runs it handles at most 2,000 rows on that grid
LIMIT = 4_001


@pytest.fixture
def home(tmp_path: Path) -> AppHome:
    return app_home(tmp_path / "home").ensure()


def demo_plan(expected_rows: int | None) -> Plan:
    d = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    plan = plan_from_dict(d)
    return replace(plan, dataset=replace(plan.dataset, expected_rows=expected_rows))


def test_the_tables_true_row_count_does_not_refuse_a_quantile(
        tmp_path: Path, home: AppHome, monkeypatch: pytest.MonkeyPatch) -> None:
    # stated 1,000 rows (public): 2,001 runs fit. The table's true 3,808 rows would not;
    # they are private and decide nothing: the release goes ahead
    monkeypatch.setattr(mech, "MAX_QUANTILE_WORK", LIMIT)
    table = load_table(DEMO_TABLE)
    assert table.n_rows > (LIMIT - 1) // 2  # the independent premise: the true rows exceed it
    plan = demo_plan(1_000)
    publish(plan, table, tmp_path / "b.zip", home)
    assert (tmp_path / "b.zip").exists()
    assert len(Ledger(home.ledger_path).state(plan.dataset.name).releases) == 1


def test_the_refusal_comes_before_the_table_is_read(
        tmp_path: Path, home: AppHome, monkeypatch: pytest.MonkeyPatch) -> None:
    # a table opened in place as the CLI opens it, which the engine refuses when it reads
    # it (a header, no rows): the quantile's refusal from the stated rows comes first, so it
    # was decided before the table was read
    monkeypatch.setattr(mech, "MAX_QUANTILE_WORK", LIMIT)
    empty = tmp_path / "empty.csv"
    empty.write_text(DEMO_TABLE.read_text(encoding="utf-8").splitlines()[0] + "\n",
                     encoding="utf-8")
    for stated in (3_000, None):  # too many stated rows; none stated (only the grid counts)
        with pytest.raises(InputError, match="the quantile grid has 6,251 points") as caught:
            publish(demo_plan(stated), open_table(empty), tmp_path / "x.zip", home)
        assert caught.value.where == "query income_median"
    assert not (tmp_path / "x.zip").exists()
    assert not Ledger(home.ledger_path).state("demo-survey").releases
