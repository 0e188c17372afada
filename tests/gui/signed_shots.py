"""Screenshots of signed releases in the app, at the scale of $QT_SCALE_FACTOR (set before
Qt starts, so this runs as a script): the bundle viewer before and after checking the
owner's public key, and the release wizard's confirm page naming the signing key. Prints one
JSON line: {"clipped": {shot: [...]}, "shots": [file names]}.

    QT_SCALE_FACTOR=2 python tests/gui/signed_shots.py FOLDER
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def make_bundles(folder: Path) -> dict[str, Any]:
    """A home with the owner's key, a bundle signed by it and one unsigned, the owner's and
    another public key."""
    from planner_app.core.data.tables import load_table
    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.records.keys import KeyStore
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home
    from tests.conftest import plan_dict, with_reasons

    home = app_home(folder / "owner-home").ensure()
    store = KeyStore(home)
    store.create("owner")
    store.create("other")
    table = folder / "t.csv"
    table.write_text("colour\n" + "red\nblue\n" * 40)
    doc = with_reasons(plan_dict(dataset={"name": "signed-shots"}, queries=[
        {"id": "n", "kind": "count", "epsilon": 0.5},
        {"id": "by_colour", "kind": "histogram", "column": "colour",
         "categories": ["red", "blue"], "epsilon": 0.5}]))
    signed, unsigned = folder / "signed.zip", folder / "unsigned.zip"
    publish(plan_from_dict(doc), load_table(table), signed, home,
            sign_with=store.secret("owner"))
    publish(plan_from_dict(doc), load_table(table), unsigned, home)
    return {"signed": signed, "unsigned": unsigned,
            "owner_pub": store.export("owner", folder / "owner.pub"),
            "other_pub": store.export("other", folder / "other.pub"),
            "fingerprint": store.public("owner").fingerprint}


def _wait(app: Any, done: Any, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            raise TimeoutError("the viewer did not finish")
        app.processEvents()
        time.sleep(0.02)
    for _ in range(5):
        app.processEvents()


def main() -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from planner_app.core.records.keys import KeyStore
    from planner_app.core.support.resources import demo_plan_path, demo_table_path
    from planner_app.gui.app import build_window
    from planner_app.gui.dialogs.review_bundle import BundleDialog
    from tests.gui.layout_check import clipped_texts

    folder = Path(sys.argv[1])
    scale = os.environ.get("QT_SCALE_FACTOR", "1")
    shots = Path(os.environ.get("PLANNER_APP_SCREENSHOTS", ROOT / "tests" / "_screenshots"))
    shots.mkdir(parents=True, exist_ok=True)
    made = make_bundles(folder)
    clipped: dict[str, list[str]] = {}
    names: list[str] = []

    def shoot(widget: Any, name: str) -> None:
        for _ in range(5):
            app.processEvents()
        file = f"{name}-{scale}x.png"
        widget.grab().save(str(shots / file))
        names.append(file)
        found = clipped_texts(widget)
        if found:
            clipped[file] = found

    viewer = BundleDialog(made["signed"])
    viewer.resize(1280, 820)
    viewer.show()
    viewer.verify()
    _wait(app, lambda: viewer.opened is not None)
    shoot(viewer, "signed-bundle-claimed")
    viewer.choose_trusted_key(str(made["owner_pub"]))
    _wait(app, lambda: "origin proven" in viewer.verdict.text())
    shoot(viewer, "signed-bundle-proven")
    viewer.close()

    window = build_window(str(folder / "app-home"))
    window.resize(1280, 820)
    window.show()
    window.files.load_table(demo_table_path(), synchronous=True)
    window.files.open_plan(demo_plan_path(), confirmed=True)
    KeyStore(window.session.home).create("owner", "a passphrase")
    KeyStore(window.session.home).create("team-release")
    window.session.set_signing_key("owner")
    window.menus.sign_menu.aboutToShow.emit()
    window.menus.sign_menu.popup(window.mapToGlobal(window.rect().center()))
    shoot(window.menus.sign_menu, "sign-releases-menu")
    window.menus.sign_menu.hide()
    wizard = window.launchers.release()
    wizard.checklist.confirm_unit.setChecked(True)
    wizard.next()
    wizard.confirm.path.setText(str(folder / "out.zip"))
    shoot(wizard, "release-confirm-signed")
    wizard.reject()
    print(json.dumps({"clipped": clipped, "shots": names}))


if __name__ == "__main__":
    main()
