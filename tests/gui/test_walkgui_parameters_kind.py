"""The bundle viewer's Parameters tab names each kind as the planner does (walk 2, finding 19:
it showed the internal "randomized_response" where the planner says "Yes/no share")."""

from __future__ import annotations

from pathlib import Path

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import load_plan
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from planner_app.core.support.resources import demo_plan_path, demo_table_path
from tests.kind_table import KIND_NAMES


def test_the_parameters_tab_shows_the_kinds_display_names(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path) -> None:
    plan = load_plan(demo_plan_path())
    out = tmp_path / "demo.zip"
    publish(plan, load_table(demo_table_path()), out, app_home(tmp_path / "owner"))
    window.files.open_path(out)
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=30_000)
    titles = [viewer.tabs.tabText(i) for i in range(viewer.tabs.count())]
    table = viewer.tabs.widget(titles.index("Parameters"))
    kinds = [table.item(r, 1).text() for r in range(table.rowCount())]
    expected = [KIND_NAMES[q.kind] for q in plan.queries]
    assert sorted(kinds) == sorted(expected)
    assert "Yes/no share" in kinds and "randomized_response" not in kinds
