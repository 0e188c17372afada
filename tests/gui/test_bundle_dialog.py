"""The bundle viewer verifies in the worker: the GUI thread shows "Verifying…" and stays
responsive; the verdict and the contents arrive through the worker's signal."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from planner_app.core.release.opened_bundle import open_bundle
from tests.record_rows import result_rows


@pytest.fixture
def bundle(demo_bundle: Path) -> Path:
    """The demo release, built once for the session (tests/conftest.py)."""
    return demo_bundle


def test_verification_runs_in_the_worker_not_on_the_gui_thread(  # type: ignore[no-untyped-def]
        window, qtbot, bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    threads: list[threading.Thread] = []

    def slow_open(path: Path, *trusted):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        release.wait(10)  # a verifier on the GUI thread would block the open_path call here
        return open_bundle(path, *trusted)

    monkeypatch.setattr("planner_app.gui.dialogs.review_bundle.open_bundle", slow_open)
    window.files.open_path(bundle)
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    assert not release.is_set()
    assert "Verifying" in viewer.verdict.text()  # shown while the worker still runs
    assert viewer.tabs.count() == 0
    release.set()
    qtbot.waitUntil(lambda: "Verified" in viewer.verdict.text(), timeout=30_000)
    assert threads and threads[0] is not threading.main_thread()
    expected = open_bundle(bundle)
    assert viewer.opened is not None and viewer.opened.verdict.checks == expected.verdict.checks
    results = viewer.tabs.widget(0)
    assert results.rowCount() == len(expected.results.rows)


def test_a_file_that_is_not_a_bundle_says_so_in_a_dialog(  # type: ignore[no-untyped-def]
        window, qtbot, dialogs, tmp_path: Path) -> None:
    broken = tmp_path / "x.zip"
    broken.write_text("not a zip")
    window.files.open_path(broken)
    qtbot.waitUntil(lambda: bool(dialogs.shown), timeout=30_000)
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("warning", "Not a release bundle") and "x.zip" in text
    assert not window.launchers.bundle_dialog.isVisible()


def test_results_read_as_the_report_shows_them(window, qtbot, bundle: Path) -> None:  # type: ignore[no-untyped-def]
    """The viewer's results are rounded for reading, the same numbers as the report (the
    release record's values through the report's formatter), never raw binary fractions like
    20.2880859375."""
    import json
    import zipfile

    from planner_app.core.release.report import format_interval, format_value

    window.files.open_path(bundle)
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=30_000)
    with zipfile.ZipFile(bundle) as z:
        record = json.loads(z.read("release.json"))
    expected = [(format_value(r), format_interval(r)) for r in result_rows(record)]
    table = viewer.tabs.widget(0)
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    value, interval = headers.index("Value"), next(
        i for i, h in enumerate(headers) if h.startswith("Interval"))
    shown = [(table.item(r, value).text(), table.item(r, interval).text())
             for r in range(table.rowCount())]
    assert shown == expected
    for text, _ in shown:
        digits = text.replace(",", "").replace(".", "").replace("%", "").lstrip("-")
        assert len(digits) <= 8, text
