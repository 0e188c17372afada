"""Screenshots of who one person is on the panel table (issue 22), for docs/images: the Data
tab asking, after "Use nr as the person id" (the rows per person still empty), and the
release checklist before, while the rows are asked for, and after.

    python tests/gui/unit_shots.py OUT_DIR            # 1×
    QT_SCALE_FACTOR=2 python tests/gui/unit_shots.py OUT_DIR
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication  # noqa: E402

from planner_app.core.kinds.registry import make_query
from planner_app.gui.app import build_window  # noqa: E402
from tests.panel import write_panel  # noqa: E402


def main() -> None:
    app = QApplication([])
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    scale = "2x" if os.environ.get("QT_SCALE_FACTOR") == "2" else "1x"
    work = Path(tempfile.mkdtemp())
    window = build_window(str(work / "home"))
    window.resize(1280, 860) if scale == "1x" else window.resize(1400, 1000)
    window.show()
    window.files.load_table(write_panel(work / "panel.csv"), synchronous=True)
    window.session.add_query(make_query("count", id="rows", epsilon=0.5,
                                        label="Number of rows"))
    window.tabs.setCurrentIndex(0)

    def settle() -> None:
        end = time.monotonic() + 1.5  # the preview's pages arrive from a worker
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.02)

    settle()
    window.grab().save(str(out / f"unit-{scale}-data-tab-asks.png"))
    wizard = window.launchers.release()
    assert wizard is not None
    wizard.resize(900, 640)
    settle()
    wizard.grab().save(str(out / f"unit-{scale}-checklist-not-ready.png"))
    wizard.close()
    window.data_pane.use_id.click()
    settle()
    window.grab().save(str(out / f"unit-{scale}-data-tab-rows-asked.png"))
    wizard = window.launchers.release()
    assert wizard is not None
    wizard.resize(900, 640)
    settle()
    wizard.grab().save(str(out / f"unit-{scale}-checklist-rows-asked.png"))
    wizard.close()
    window.data_pane.max_rows.setText("8")  # typed, then Enter
    window.data_pane.max_rows.editingFinished.emit()
    settle()
    window.grab().save(str(out / f"unit-{scale}-data-tab-person-id.png"))
    wizard = window.launchers.release()
    assert wizard is not None
    wizard.resize(900, 640)
    settle()
    wizard.grab().save(str(out / f"unit-{scale}-checklist-answered.png"))
    wizard.close()


if __name__ == "__main__":
    main()
