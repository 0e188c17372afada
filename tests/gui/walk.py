"""Walk every tab, pane and dialog of the main window with the demo loaded, at the default
window size, and report the clipped texts of each (tests/gui/layout_check.py).

In a test: ``walk(window, folder)`` yields each scene's name and top-level widget after
putting the app in that state. As a script (so QT_SCALE_FACTOR=2 is set before a
QApplication exists): ``python -m tests.gui.walk OUT_DIR`` prints {scene: [clipped texts]} as
JSON and saves a screenshot of each scene in OUT_DIR.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QWidget

from tests.gui.layout_check import clipped_texts

WIDTH, HEIGHT = 1280, 820
#: The physical screen of each walk: a 1920×1080 desktop at 100%; a 2560×1600 laptop at 200%
#: (1280×800 logical: dialogs must fit a screen smaller than the default window).
SCREENS = {1: (1920, 1080), 2: (2560, 1600)}


def settle(ms: int = 30) -> None:
    """Let the app handle its events for about 3 x ``ms``. It sleeps between rounds rather than
    calling QTest.qWait, which holds Python's GIL while it waits: the release wizard's and the
    viewer's workers then crawl (a walk took 2 minutes of wall time for 15 s of CPU)."""
    import time

    from PySide6.QtCore import QCoreApplication, QEvent

    for _ in range(3):
        end = time.monotonic() + ms / 1000
        while True:
            QApplication.processEvents()
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            left = end - time.monotonic()
            if left <= 0:
                break
            time.sleep(min(0.005, left))


def wait_for(condition, timeout_s: float = 300) -> None:  # type: ignore[no-untyped-def]
    import time

    end = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("the app did not get there in time")
        settle(20)


def check(name: str, widget: QWidget) -> list[str]:
    """Clipped texts of one scene: tables must fit their width in the review window."""
    return clipped_texts(widget, scrolled="review" in name)


def walk(window, folder: Path) -> Iterator[tuple[str, QWidget]]:  # type: ignore[no-untyped-def]
    """The scenes, in order; ``window`` is a shown MainWindow in an empty app home."""
    from planner_app.core.support.resources import demo_plan_path, demo_table_path
    from planner_app.gui.dialogs.query_dialog import QueryDialog

    window.resize(WIDTH, HEIGHT)
    settle()
    yield "welcome", window
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    plan = window.session.plan
    window.session.select(plan.queries[0].id)
    settle()
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        settle()
        yield f"main-{i + 1}-" + window.tabs.tabText(i).split()[-1].lower(), window
    # a group-by statistic in the statistic pane, then the Add dialog with a group-by chosen
    grouped = next((q for q in plan.queries if q.group_by is not None), None)
    if grouped is not None:
        window.session.select(grouped.id)
        window.tabs.setCurrentIndex(1)
        settle()
        yield "main-statistic-grouped", window
    dialog = QueryDialog(window.session, None, window)
    dialog.kind.setCurrentIndex(dialog.kind.findData("mean"))
    columns = [c.name for c in window.session.columns]
    dialog.group_column.setCurrentText(columns[-1])
    dialog.show()
    settle()
    yield "add-dialog-grouped", dialog
    dialog.reject()
    # over budget: the meter's warning
    window.session.set_budget(epsilon=1.0)
    window.tabs.setCurrentIndex(2)
    settle()
    yield "main-over-budget", window
    window.session.undo()
    settle()
    yield from keys_scenes(window, folder)
    # the officer's review window
    plan_file = folder / "demo-plan.json"
    shutil.copy(demo_plan_path(), plan_file)
    review = window.launchers.review_plan_file(plan_file)
    settle()
    yield "review", review
    review.close()
    # the release wizard: checklist, confirm, results
    wizard = window.launchers.release()
    wizard.checklist.confirm_unit.setChecked(True)
    settle()
    yield "wizard-1-checklist", wizard
    wizard.next()
    out = folder / "demo-release.zip"
    wizard.confirm.path.setText(str(out))
    settle()
    yield "wizard-2-confirm", wizard
    wizard.next()
    wait_for(lambda: wizard.currentPage() is wizard.results)
    settle()
    yield "wizard-3-results", wizard
    wizard.close()
    # the bundle viewer
    viewer = window.launchers.review_bundle(out)
    wait_for(lambda: viewer.opened is not None)
    for i in range(viewer.tabs.count()):
        viewer.tabs.setCurrentIndex(i)
        settle()
        yield f"bundle-{i + 1}-" + viewer.tabs.tabText(i).lower().replace(" ", "-"), viewer
    viewer.close()


def keys_scenes(window, folder: Path) -> Iterator[tuple[str, QWidget]]:  # type: ignore[no-untyped-def]
    """File → Keys… with a key of one's own and a trusted officer's key, the New key dialog
    with a refused name, and the review window signing with a protected key."""
    from planner_app.core.records.keys import KeyStore
    from planner_app.core.support.home import app_home
    from planner_app.core.support.resources import demo_plan_path
    from planner_app.gui.dialogs.keys_dialog import NewKeyDialog

    officer = KeyStore(app_home(folder / "officer-home"))
    if "ada-officer" not in officer.names():
        officer.create("ada-officer")
    own = KeyStore(window.session.home)
    if "data-owner" not in own.names():
        own.create("data-owner", passphrase="walk")
    keys = window.launchers.open_keys_dialog()
    keys.import_key(officer.export("ada-officer", folder / "ada-officer.pub", overwrite=True))
    settle()
    yield "keys", keys
    new_key = NewKeyDialog(keys)
    new_key.name.setText("a bad name!")
    new_key._check()
    new_key.show()
    settle()
    yield "keys-new", new_key
    new_key.reject()
    keys.close()
    plan_file = folder / "signed-plan.json"
    shutil.copy(demo_plan_path(), plan_file)
    review = window.launchers.review_plan_file(plan_file)
    review.ask_passphrase = lambda _name: "walk"
    review.comment.setText("Bounds come from the survey form")
    review.decide("approved")
    settle()
    yield "review-signed", review
    review.close()


def no_message_boxes() -> None:
    """A message box in a walk is answered at once (it would wait for a click)."""
    def answer(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        return QMessageBox.StandardButton.Discard

    for kind in ("question", "warning", "information", "critical"):
        setattr(QMessageBox, kind, staticmethod(answer))


def main(argv: list[str], scenes=None, prefix: str = "walk") -> int:  # type: ignore[no-untyped-def]
    """Run ``scenes`` (default: walk) and print {scene: [clipped texts]} as JSON; each scene's
    screenshot is OUT_DIR/<prefix>-<scale>x-<scene>.png."""
    import tempfile

    out = Path(argv[0]) if argv else Path("tests/_screenshots")
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    no_message_boxes()
    from planner_app.gui.app import build_window

    scale = os.environ.get("QT_SCALE_FACTOR", "1")
    found: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        window = build_window(str(Path(tmp) / "home"))
        window.show()
        for name, widget in (scenes or walk)(window, Path(tmp)):
            found[name] = check(name, widget)
            widget.grab().save(str(out / f"{prefix}-{scale}x-{name}.png"))
        for w in QApplication.topLevelWidgets():
            if isinstance(w, QDialog):
                w.done(QDialog.DialogCode.Rejected)  # closed unasked (a changed statistic form
                # asks before it is thrown away: QueryDialog.reject)
        window.close()
    print(json.dumps(found))
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def run_walk(scale: int, out: Path, module: str = "tests.gui.walk") -> dict[str, list[str]]:
    """Run a walk in a fresh process at ``scale`` (QT_SCALE_FACTOR must be set before a
    QApplication exists) on a common screen for that scale (SCREENS), and return its
    {scene: [clipped texts]}."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    import tempfile

    out.mkdir(parents=True, exist_ok=True)
    # the screen's file in a folder of its own: two walks at one scale (the suite runs test
    # files side by side) must not remove each other's
    screen = Path(tempfile.mkdtemp()) / f"screen-{scale}x.json"
    width, height = SCREENS.get(scale, (1920 * scale, 1080 * scale))
    screen.write_text(json.dumps({"screens": [{
        "name": "desktop", "x": 0, "y": 0, "width": width, "height": height,
        "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={screen}",
           "QT_SCALE_FACTOR": str(scale),
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", module, str(out)], env=env, cwd=root,
                          capture_output=True, text=True, timeout=600)
    screen.unlink()
    screen.parent.rmdir()
    if done.returncode != 0:
        raise RuntimeError(f"the walk at {scale}x failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
