"""Run by test_synthetic_gui.py in a process at $QT_SCALE_FACTOR (1 or 2): screenshots of the
statistic editor and the statistic pane with a synthetic table (1280x820 window), and with
mbi the bundle viewer's tab and the comparison opened from it, and what is clipped, as one
JSON line on stdout.

    QT_SCALE_FACTOR=2 PLANNER_APP_SCREENSHOTS=tests/_screenshots \\
        python tests/gui/synthetic_shots.py FOLDER
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication  # noqa: E402

from planner_app.core.support.resources import demo_table_path  # noqa: E402
from planner_app.gui.app import build_window  # noqa: E402
from planner_app.gui.dialogs.query_dialog import QueryDialog  # noqa: E402
from tests.cli.test_synthetic_cli import PLAN  # noqa: E402
from tests.gui.layout_check import clipped_texts  # noqa: E402


def settle(app: QApplication) -> None:
    for _ in range(3):  # wrapped labels ask twice
        app.processEvents()


def main() -> None:
    app = QApplication([])
    folder = Path(sys.argv[1])
    shots = Path(os.environ["PLANNER_APP_SCREENSHOTS"])
    shots.mkdir(parents=True, exist_ok=True)
    scale = os.environ.get("QT_SCALE_FACTOR", "1")
    plan = folder / "plan.json"
    plan.write_text(json.dumps(PLAN))
    window = build_window(str(folder / "home"))
    window.resize(1280, 820)
    window.show()
    window.files.load_table(demo_table_path(), synchronous=True)
    window.files.open_plan(plan, confirmed=True)
    window.tabs.setCurrentWidget(window.statistic_pane)
    window.session.select("survey_synth")
    settle(app)
    pane = window.statistic_pane
    window.grab().save(str(shots / f"synthetic-pane-{scale}x.png"))
    clipped = {"pane": clipped_texts(pane)}
    dialog = QueryDialog(window.session, window.session.plan.query("survey_synth"), window)
    dialog.show()
    settle(app)
    dialog.grab().save(str(shots / f"synthetic-editor-{scale}x.png"))
    clipped["editor"] = clipped_texts(dialog)
    dialog.synth_list.setCurrentRow(1)  # the binned column
    settle(app)
    dialog.grab().save(str(shots / f"synthetic-editor-bins-{scale}x.png"))
    clipped["editor-bins"] = clipped_texts(dialog)
    dialog.close()
    try:  # a release (mbi), then the owner's comparison and the bundle viewer
        import mbi  # noqa: F401
    except ImportError:
        window.close()
        print(json.dumps({"clipped": clipped, "pane": pane.synthetic.text()}))
        return

    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home

    # $PLANNER_APP_SYNTH_BUNDLE: the bundle of this plan an earlier scale released, which the
    # viewer and the comparison read as they would their own (a synthetic release fits a
    # table: seconds of JAX, the same at any scale); released here when there is none yet
    bundle = Path(os.environ.get("PLANNER_APP_SYNTH_BUNDLE") or folder / "synth.zip")
    if not bundle.exists():
        publish(window.session.plan, window.session.table, bundle, app_home(folder / "home2"))
    window.files.open_path(bundle)
    viewer = window.launchers.bundle_dialog
    while viewer.opened is None:  # the viewer checks the bundle on a worker: sleep, do not
        app.processEvents()      # spin (a spinning loop holds the GIL the worker needs)
        time.sleep(0.01)
    viewer.resize(1200, 780)  # as on a screen the size of the 1280x820 window
    titles = [viewer.tabs.tabText(i) for i in range(viewer.tabs.count())]
    viewer.tabs.setCurrentIndex(titles.index("Synthetic tables"))
    for _ in range(5):
        settle(app)
    viewer.grab().save(str(shots / f"synthetic-bundle-viewer-{scale}x.png"))
    clipped["viewer"] = clipped_texts(viewer)
    # the owner's comparison, opened after the release from the viewer's tab
    compare = viewer.compare_synthetic()
    compare.resize(760, 560)
    while compare.distances is None:
        app.processEvents()
        time.sleep(0.01)
    settle(app)
    compare.canvas.draw()
    compare.grab().save(str(shots / f"synthetic-compare-{scale}x.png"))
    clipped["compare"] = clipped_texts(compare)
    compare.close()
    viewer.close()
    window.close()
    print(json.dumps({"clipped": clipped, "pane": pane.synthetic.text()}), flush=True)
    # JAX and Qt together crash in the interpreter's last garbage collection (a refcount
    # error in a C extension, after everything here is done): leave without it
    os._exit(0)


if __name__ == "__main__":
    main()
