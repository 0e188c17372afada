"""The 5M-row CSV opened in place (issue 13): the data questions run on a worker, so the window
keeps answering while DuckDB reads the file, and a release from the wizard reads the file in
place without ever loading it into pandas."""

from __future__ import annotations

from pathlib import Path

from planner_app.core.model import plan_from_dict
from tests.conftest import plan_dict, with_reasons
from tests.gui.conftest import release_with_wizard
from tests.gui.test_big_table import big_csv, open_and_wait  # noqa: F401 - the fixture

PLAN = with_reasons(plan_dict(
    dataset={"name": "big", "path": "big.csv"},
    budget={"epsilon": 3.0, "delta": 0.0},
    queries=[{"id": "n", "kind": "count", "epsilon": 1.0},
             {"id": "m", "kind": "mean", "column": "age", "lower": 0, "upper": 100,
              "epsilon": 1.0},
             {"id": "s", "kind": "count", "column": "smoker", "epsilon": 1.0}]))


def test_a_release_from_the_wizard_never_loads_the_table(window, qtbot, big_csv: Path,  # noqa: F811
                                                         tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(window, qtbot, big_csv)
    table = window.session.table
    assert table.loaded is False
    window.session.load_plan(plan_from_dict(PLAN))
    wizard = release_with_wizard(window, qtbot, tmp_path / "bundle")
    assert wizard.result.bundle_path.exists()
    assert window.session.table is table and table.loaded is False
