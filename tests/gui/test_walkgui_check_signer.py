"""The bundle viewer's "Check who signed it…" button (walk 2, finding 8: it did nothing, in
two sessions, with mouse and keyboard; `verify --trust` on the command line proved the
origin). The button's clicked flag stood for the key file's path, so no file was asked for."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt

import planner_app.gui.dialogs.review_bundle as review_bundle
from planner_app.core.records.keys import load_public_key
from planner_app.core.release.verify_release import verify_bundle

HERE = Path(__file__).resolve().parent


def test_the_button_asks_for_a_key_and_proves_the_origin_as_verify_trust_does(  # type: ignore[no-untyped-def]
        window, qtbot, monkeypatch, tmp_path: Path) -> None:
    sys.path.insert(0, str(HERE))
    from signed_shots import make_bundles

    made = make_bundles(tmp_path)
    asked: list[str] = []

    def choose(_parent, caption, _filter, folder=None):  # type: ignore[no-untyped-def]
        asked.append(caption)  # the file dialog: the person picks the owner's public key
        return Path(made["owner_pub"])

    monkeypatch.setattr(review_bundle, "ask_open_file", choose)
    window.files.open_path(made["signed"])
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=30_000)
    assert "not yet checked" in viewer.origin.text()
    qtbot.mouseClick(viewer.trust_button, Qt.MouseButton.LeftButton)
    assert asked == ["The owner's public key"]
    qtbot.waitUntil(lambda: "origin proven" in viewer.verdict.text(), timeout=30_000)
    assert "✓ Signed by owner" in viewer.origin.text()
    # the independent answer: the command line's check (verify --trust) of the same files
    verdict = verify_bundle(Path(made["signed"]),
                            trusted=[load_public_key(made["owner_pub"])])
    assert verdict.valid and verdict.origin.get("origin_proven")
