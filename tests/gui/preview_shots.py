"""Run by test_preview_pane.py in a process with QT_SCALE_FACTOR=2: screenshots of the
statistic pane's picture, and what is clipped, as one JSON line on stdout."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication  # noqa: E402

from planner_app.core.support.resources import demo_plan_path, demo_table_path  # noqa: E402
from planner_app.gui.app import build_window  # noqa: E402
from tests.gui.layout_check import clipped_texts  # noqa: E402


def main() -> None:
    app = QApplication([])
    shots = Path(os.environ["PLANNER_APP_SCREENSHOTS"])
    shots.mkdir(parents=True, exist_ok=True)
    window = build_window(str(Path(sys.argv[1]) / "home"))
    window.resize(1280, 820)
    window.show()
    window.files.load_table(demo_table_path(), synchronous=True)
    window.files.open_plan(demo_plan_path(), confirmed=True)
    window.tabs.setCurrentWidget(window.statistic_pane)
    pane = window.statistic_pane
    clipped: dict[str, list[str]] = {}
    overlaps: list[str] = []
    for qid in ("region_counts", "hours_mean", "smokers"):
        window.session.select(qid)
        for _ in range(3):  # let the layout settle (wrapped labels ask twice)
            app.processEvents()
        pane.preview.draw()
        window.grab().save(str(shots / f"preview-{qid}-2x.png"))
        if clipped_texts(pane):
            clipped[qid] = clipped_texts(pane)
        if pane.preview.geometry().bottom() >= pane.preview_caption.geometry().top():
            overlaps.append(qid)
    window.close()
    print(json.dumps({"clipped": clipped, "overlaps": overlaps}))


if __name__ == "__main__":
    main()
