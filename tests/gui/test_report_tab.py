"""The bundle viewer's Report tab shows every chart of the report (issue 11: the report now
draws each statistic, not only the belief chart)."""

from __future__ import annotations

import re
from pathlib import Path

from planner_app.core.planfile import load_plan
from planner_app.core.release.bundle import REPORT_HTML, read_bundle
from planner_app.core.support.resources import demo_plan_path


def test_the_report_tab_shows_every_chart(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QTextDocument

    from planner_app.core.data.tables import load_table
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home
    from planner_app.core.support.resources import demo_table_path

    out = tmp_path / "b.zip"
    publish(load_plan(demo_plan_path()), load_table(demo_table_path()), out,
            app_home(tmp_path / "h"))
    page = read_bundle(out)[REPORT_HTML].decode()
    embedded = re.findall(r"src='data:image/png;base64,", page)
    assert len(embedded) == len(load_plan(demo_plan_path()).queries) + 1
    window.files.open_path(out)
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=60_000)
    report = viewer.tabs.widget(3)
    shown = report.toHtml()
    assert "data:image" not in shown
    names = re.findall(r'src="(image-\d+\.png)"', shown)
    assert len(names) == len(embedded)
    for name in names:
        image = report.document().resource(QTextDocument.ResourceType.ImageResource,
                                           QUrl(name))
        assert image is not None and not image.isNull(), name
