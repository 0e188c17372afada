"""The bundle viewer on a bundle of an earlier version: verified, and its Report tab says,
above the report, that the report's words were not rebuilt and checked (report_format.py)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QTextBrowser

from tests.conftest import ROOT

OLD = ROOT / "tests" / "data" / "old_bundles"


def report_text(viewer) -> str:  # type: ignore[no-untyped-def]
    titles = [viewer.tabs.tabText(i) for i in range(viewer.tabs.count())]
    browser = viewer.tabs.widget(titles.index("Report"))
    assert isinstance(browser, QTextBrowser)
    return str(browser.toPlainText())


def test_an_old_bundle_s_report_tab_says_it_was_not_rebuilt(qtbot) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.dialogs.review_bundle import BundleDialog

    viewer = BundleDialog(OLD / "e6e0bd3" / "small.zip")
    qtbot.addWidget(viewer)
    viewer.verify()
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=60_000)
    assert "✓ Verified" in viewer.verdict.text()
    assert "written by planner-app 0.1.0 in report format 1" in viewer.verdict.text()
    text = report_text(viewer)
    assert text.startswith("Not rebuilt: This report was written by planner-app 0.1.0 in "
                           "report format 1")
    assert "its words were not checked against release.json" in text
    assert "Differentially private release: demo-survey" in text  # the bundle's own report


def test_a_bundle_of_this_version_has_no_such_note(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from planner_app.core.data.tables import load_table
    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home
    from planner_app.gui.dialogs.review_bundle import BundleDialog
    from tests.conftest import plan_dict

    table = tmp_path / "t.csv"
    table.write_text("x\n" + "1\n" * 50)
    bundle = tmp_path / "b.zip"
    publish(plan_from_dict(plan_dict()), load_table(table), bundle,
            app_home(tmp_path / "home").ensure())
    viewer = BundleDialog(bundle)
    qtbot.addWidget(viewer)
    viewer.verify()
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=60_000)
    assert "✓ Verified" in viewer.verdict.text()
    assert "Not rebuilt" not in report_text(viewer)
