"""The statistic pane's picture of the release: the interval the text shows, redrawn with ε,
never from the table, readable at 1280x820 and at 200% (issue 11)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planner_app.core.dp.accuracy import shown_half_width
from planner_app.core.kinds.shared_dp import accuracy_for
from planner_app.core.support.resources import demo_plan_path
from planner_app.gui.app import build_window
from tests.gui.conftest import SHOTS
from tests.gui.layout_check import clipped_texts

HERE = Path(__file__).resolve().parent


def drawn_intervals(pane) -> list[tuple[float, float]]:  # type: ignore[no-untyped-def]
    """The (low, high) of every error bar on the canvas, read back from the artists."""
    segments = pane.preview.drawing.artists["whiskers"].get_segments()
    bars = pane.preview.drawing.chart.shape == "bars"
    return [(s[0][1], s[1][1]) if bars else (s[0][0], s[1][0]) for s in segments]


def test_the_picture_draws_the_accuracy_the_text_shows(demo) -> None:  # type: ignore[no-untyped-def]
    pane = demo.statistic_pane
    for q in demo.session.plan.queries:
        demo.session.select(q.id)
        typed = float(pane.accuracy.text())  # what the person reads, 6 significant digits
        chart = pane.preview.drawing.chart
        assert chart.half_width == pytest.approx(typed, rel=1e-5), q.id
        assert f"{chart.half_width:.6g}" == pane.accuracy.text(), q.id
        for (low, high), mark in zip(drawn_intervals(pane), chart.marks, strict=True):
            assert (low, high) == (mark.low, mark.high)
            if q.kind not in ("quantile", "randomized_response"):  # not clipped to 0-100
                assert high - low == pytest.approx(2 * typed, rel=1e-5), q.id


def test_a_new_epsilon_redraws_with_the_new_half_width(demo) -> None:  # type: ignore[no-untyped-def]
    pane, session = demo.statistic_pane, demo.session
    session.select("region_counts")
    bars = pane.preview.drawing.artists["bars"]
    before = drawn_intervals(pane)
    pane.spin.setValue(0.05)  # typed, then Enter
    pane.spin.setModified(True)
    pane.spin.editingFinished.emit()
    q = session.plan.query("region_counts")
    assert q.epsilon == 0.05
    expected = shown_half_width(accuracy_for(q, session.plan))
    after = drawn_intervals(pane)
    assert after != before
    assert all(high - low == 2 * expected for low, high in after)
    assert pane.preview.drawing.artists["bars"] is bars  # moved, not rebuilt
    assert f"± {expected:g}" in pane.preview_caption.text()
    session.undo()  # undo redraws too
    assert drawn_intervals(pane) == before


def test_the_picture_never_reads_the_table(demo, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    bare = build_window(str(tmp_path / "other-home"))
    qtbot.addWidget(bare)
    bare.resize(1280, 820)
    bare.show()
    assert bare.files.open_plan(demo_plan_path(), confirmed=True)
    assert bare.session.table is None and demo.session.table is not None
    for q in demo.session.plan.queries:
        demo.session.select(q.id)
        bare.session.select(q.id)
        with_table = demo.statistic_pane.preview.drawing.chart
        without = bare.statistic_pane.preview.drawing.chart
        assert with_table == without, q.id
        assert (demo.statistic_pane.preview_caption.text()
                == bare.statistic_pane.preview_caption.text())


def overlaps(pane) -> bool:  # type: ignore[no-untyped-def]
    """True when the layout squeezed the canvas under its caption."""
    return pane.preview.geometry().bottom() >= pane.preview_caption.geometry().top()


def test_screenshots_at_the_default_size(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QApplication

    demo.resize(1280, 820)
    demo.tabs.setCurrentWidget(demo.statistic_pane)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for qid in ("region_counts", "hours_mean", "smokers"):
        demo.session.select(qid)
        for _ in range(3):  # let the layout settle (wrapped labels ask twice)
            QApplication.processEvents()
        demo.statistic_pane.preview.draw()
        demo.grab().save(str(SHOTS / f"preview-{qid}-1x.png"))
        assert clipped_texts(demo.statistic_pane) == [], qid
        assert not overlaps(demo.statistic_pane), qid


@pytest.mark.subprocess
def test_screenshots_at_200_percent(tmp_path) -> None:  # type: ignore[no-untyped-def]
    env = {**os.environ, "QT_SCALE_FACTOR": "2", "QT_QPA_PLATFORM": "offscreen",
           "PLANNER_APP_SCREENSHOTS": str(SHOTS), "PLANNER_APP_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, str(HERE / "preview_shots.py"), str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["clipped"] == {} and found["overlaps"] == []
    assert (SHOTS / "preview-region_counts-2x.png").stat().st_size > 10_000
