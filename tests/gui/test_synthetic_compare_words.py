"""The owner's comparison and the viewer say against what their TVDs are measured (the real
data; the released noised counts), and a data file the bundle was not released from is
named as such before the core's problem."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from planner_app.core.release.verify_synthetic import tvd_sentences
from planner_app.core.support.resources import demo_table_path
from planner_app.gui.main_window import MainWindow
from tests.gui.test_synthetic_compare_viewer import bundle, check, open_viewer  # noqa: F401

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_the_viewers_lines_say_against_the_released_noised_counts() -> None:
    lines = tvd_sentences("t", [{"marginal": "a", "tvd": 0.1}, {"marginal": "b", "tvd": 0.2}])
    assert all("released noised" in line for line in lines), lines


def test_the_comparison_says_against_your_real_data_and_names_a_wrong_file(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path, bundle: Path) -> None:  # noqa: F811
    viewer = open_viewer(window, qtbot, bundle)
    dialog = viewer.compare_synthetic(data=demo_table_path())
    qtbot.addWidget(dialog)
    check(dialog, qtbot, bundle)
    assert "real data" in dialog.status.text()
    assert "real data" in dialog.figure.axes[0].get_xlabel()
    wrong = tmp_path / "wrong.csv"
    pd.read_csv(demo_table_path()).drop(columns=["person_id"]).to_csv(wrong, index=False)
    dialog.choose_data(wrong)
    qtbot.waitUntil(lambda: "person_id" in dialog.status.text(), timeout=60_000)
    text = dialog.status.text()
    assert text.startswith("This is not the table the bundle was released from: "), text
    assert "\n" not in text


def test_the_viewers_lines_name_the_table_by_its_label_too() -> None:
    lines = tvd_sentences("synthetic_survey", [{"marginal": "a", "tvd": 0.1}],
                          "Synthetic survey")
    assert all("synthetic_survey" in line and "Synthetic survey" in line for line in lines)
    bare = tvd_sentences("t", [{"marginal": "a", "tvd": 0.1}])
    assert bare[0].startswith("synthetic table 't': ")
