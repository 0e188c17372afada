"""walk25: a discovery's bundle name that exists already was refused after "Spend ε and find"
with the command line's words, "already exists (use --force to overwrite …)": a flag the app
has none of. The dialog now asks whether to replace the file before anything is charged: No
charges nothing and leaves the file; Yes replaces it with the discovery's bundle.

Independent answers: the ledger read from its file, the file's bytes, the CLI's verify."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from planner_app.cli import main
from planner_app.core.records.ledger import Ledger

from .test_find_privately_gui import _new_statistic


def _charges(session) -> int:  # type: ignore[no-untyped-def]
    return len(Ledger(session.home.ledger_path).state_without_creating(
        "demo-survey").releases)


def test_an_existing_bundle_name_is_replaced_only_when_the_owner_says_so(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs, tmp_path: Path, capsys) -> None:
    old = tmp_path / "regions.zip"
    old.write_bytes(b"an earlier file")
    form = _new_statistic(demo, qtbot, "histogram", "region", "People by region")
    form.finder.buttons["categories"].click()
    dialog = form.find_dialog
    dialog.epsilon.setText("0.5")
    dialog.delta.setText("1e-7")
    dialog.path.setText(str(old))

    dialog.run_button.click()  # the recorded question is answered "Discard": not Yes
    assert [t for k, t, _ in dialogs.shown if k == "question"] == ["Replace the bundle?"]
    assert dialog.isVisible() and not dialog.running
    assert old.read_bytes() == b"an earlier file" and _charges(demo.session) == 0

    dialogs.answer = QMessageBox.StandardButton.Yes
    dialog.run_button.click()
    qtbot.waitUntil(lambda: dialog.found is not None, timeout=120_000)
    assert not [t for k, t, _ in dialogs.shown if k == "warning"]
    assert _charges(demo.session) == 1
    capsys.readouterr()
    assert main(["verify", str(old)]) == 0  # now the discovery's bundle
