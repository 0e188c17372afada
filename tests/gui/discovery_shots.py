"""Screenshots of the app's discovery (gui25), at $QT_SCALE_FACTOR: the statistic editor with
its "Find … privately…" buttons, the discovery dialog (keys and bounds), and the release
wizard's checklist with a discovery bundle given (a real discovery of the demo survey,
charged in a temporary app home).

    QT_SCALE_FACTOR=2 python tests/gui/discovery_shots.py FOLDER
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from planner_app.core.planfile import save_plan  # noqa: E402
from planner_app.core.support.resources import demo_plan_path, demo_table_path  # noqa: E402
from planner_app.gui.app import build_window  # noqa: E402
from planner_app.gui.dialogs.find_privately import FindDialog  # noqa: E402
from planner_app.gui.dialogs.query_dialog import QueryDialog  # noqa: E402
from tests.gui.discovery_helpers import demo_with_found_regions  # noqa: E402


def settle(app: QApplication) -> None:
    for _ in range(4):
        app.processEvents()


def shot(app: QApplication, widget: QWidget, folder: Path, name: str, scale: str) -> None:
    widget.show()
    settle(app)
    widget.grab().save(str(folder / f"{name}-{scale}x.png"))


def main() -> None:
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    scale = os.environ.get("QT_SCALE_FACTOR", "1")
    app = QApplication.instance() or QApplication(sys.argv)
    work = Path(tempfile.mkdtemp())
    window = build_window(str(work / "home"))
    window.resize(1400, 900)
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(demo_plan_path(), confirmed=True)

    form = QueryDialog(window.session, None, window)
    form.kind.setCurrentIndex(form.kind.findData("mean"))
    form.column.setCurrentText("income")
    form.label.setText("Mean income by region")
    form.group_column.setCurrentText("region")
    shot(app, form, folder, "find-buttons-in-the-editor", scale)

    keys = FindDialog(window.session, "categories", "employment", parent=window)
    shot(app, keys, folder, "find-the-categories-privately", scale)
    bounds = FindDialog(window.session, "bounds", "income", parent=window)
    bounds.search_low.setText("0")
    bounds.search_high.setText("1000000")
    bounds.grid_reason.setText("no yearly income in the survey reaches a million")
    shot(app, bounds, folder, "find-the-bounds-privately", scale)

    plan, bundle = demo_with_found_regions(window.session.home, work)
    path = work / "found.json"
    save_plan(plan, path)
    assert window.files.open_plan(path, confirmed=True)
    wizard = window.launchers.release()
    assert wizard is not None
    wizard.checklist.confirm_unit.setChecked(True)
    wizard.checklist.discovery.add(bundle)
    shot(app, wizard, folder, "release-with-a-discovery-bundle", scale)
    print("\n".join(sorted(p.name for p in folder.glob(f"*-{scale}x.png"))))


if __name__ == "__main__":
    main()
