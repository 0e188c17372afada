"""The app's release of a plan whose list says it was found privately (fixdisc, gui25): the
app takes the discovery bundle (the checklist's "Discovery bundles…", as --discovery), and
the one core rule decides. Without the bundle, or with another one, the checklist says the
core's line, a wrong bundle is refused in a dialog, and nothing is charged; with it the plan
is released, and `planner-app verify --discovery` accepts the bundle.

Independent answers: the ledger read from its file, the command line's verify."""

from __future__ import annotations

import json
from pathlib import Path

from planner_app.cli import main
from planner_app.core.planfile import save_plan
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.discovery_steps import FindRequest
from planner_app.core.support.resources import demo_plan_path, demo_table_path

from .conftest import release_with_wizard
from .discovery_helpers import demo_with_found_regions, discover


def _releases(window) -> list:  # type: ignore[no-untyped-def]
    return Ledger(window.session.home.ledger_path).state_without_creating(
        "demo-survey").releases


def test_the_app_refuses_a_discovered_list_without_its_bundle(  # type: ignore[no-untyped-def]
        window, qtbot, dialogs, tmp_path: Path) -> None:
    doc = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    region = next(q for q in doc["queries"] if q["id"] == "region_counts")
    region["justification"]["categories"] = (
        "found privately in release abc123 (ε = 1, δ = 1e-07); bundle manifest SHA-256 "
        + "0" * 64 + ", statistic regions")
    plan = tmp_path / "forged.json"
    plan.write_text(json.dumps(doc), encoding="utf-8")
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(plan, confirmed=True)
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    page = wizard.checklist
    page.confirm_unit.setChecked(True)
    # the core's line, in the app's words, and no way on to the charge
    text = page.items.text()
    assert "✗" in text and "found privately in release abc123" in text, text
    assert "Discovery bundles" in text and "--discovery" not in text, text
    assert page.discovery.isVisibleTo(page) and not page.isComplete()
    # a discovery bundle the plan does not name: refused in a dialog, with the core's line
    other = discover(window.session.home, FindRequest("keys", "employment", 1.0, 1e-7),
                     tmp_path / "employment.zip")
    page.discovery.add(other)
    _kind, title, message = dialogs.shown[-1]
    assert "discoveries do not match" in title
    assert "employment.zip" in message and "not needed" in message, message
    assert not page.isComplete()
    assert len(_releases(window)) == 1  # the discovery only: the plan was never charged


def test_the_app_releases_a_plan_with_its_discovery_bundle(  # type: ignore[no-untyped-def]
        window, qtbot, dialogs, tmp_path: Path, capsys) -> None:
    plan, bundle = demo_with_found_regions(window.session.home, tmp_path)
    path = tmp_path / "found.json"
    save_plan(plan, path)
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(path, confirmed=True)
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    page = wizard.checklist
    page.confirm_unit.setChecked(True)
    assert not page.isComplete()  # the bundle is not given yet
    page.discovery.add(bundle)
    assert "✓ Every list or bound found privately equals" in page.items.text()
    assert "output (regions.zip)" in page.items.text()
    assert page.isComplete(), page.items.text()
    wizard.reject()
    out = tmp_path / "main.zip"
    release_with_wizard(window, qtbot, out)  # the bundles stay given for the open plan
    releases = _releases(window)
    assert len(releases) == 2  # the discovery and the plan, each charged once
    assert main(["verify", str(out), "--discovery", str(bundle)]) == 0
    assert "equals its discovery bundle's output" in capsys.readouterr().out


def test_the_bundle_viewer_checks_the_discoveries_as_verify_does(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path, capsys) -> None:
    """A reader's viewer of a release whose list was found privately: the bundle verifies,
    and its discovery is said to be unchecked until the discovery bundle is given; another
    discovery bundle is refused as `verify --discovery` refuses it, the right one accepted."""
    from planner_app.core.data.tables import open_table
    from planner_app.core.release.publish import publish

    plan, bundle = demo_with_found_regions(window.session.home, tmp_path)
    out = tmp_path / "main.zip"
    publish(plan, open_table(demo_table_path()), out, window.session.home)
    other = discover(window.session.home, FindRequest("keys", "employment", 1.0, 1e-7),
                     tmp_path / "employment.zip")
    dialog = window.launchers.review_bundle(out)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.opened is not None, timeout=60_000)
    row = dialog.discoveries
    assert row.isVisibleTo(dialog) and "not checked" in row.line.text()
    assert row.add(other) is False and "not needed" in row.line.text()
    assert main(["verify", str(out), "--discovery", str(other)]) == 2  # the same verdict
    capsys.readouterr()
    assert row.add(bundle) is True and "✓" in row.line.text()
    assert main(["verify", str(out), "--discovery", str(bundle)]) == 0


def test_the_app_completes_an_unfinished_release_with_its_discovery_bundle(  # type: ignore[no-untyped-def]
        window, qtbot, dialogs, tmp_path: Path, capsys, monkeypatch) -> None:
    """A release of a plan with a list found privately, charged but not written: the
    wizard's "complete it" checks the discovery bundles given in the checklist again (the
    rule of `release --resume --discovery`), then writes the bundle without a second charge."""
    from tests.gui.test_resume_wizard import unfinished_release

    plan, bundle = demo_with_found_regions(window.session.home, tmp_path)
    path = tmp_path / "found.json"
    save_plan(plan, path)
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(path, confirmed=True)
    out = tmp_path / "main.zip"
    release_id = unfinished_release(window, out, monkeypatch)
    assert [r.status for r in _releases(window)] == ["completed", "charged"]
    # (unfinished_release's monkeypatch.undo() also undid the dialogs fixture's patches)
    from PySide6.QtWidgets import QMessageBox
    for name in ("question", "warning", "critical", "information"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(dialogs.record(name)))
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    page = wizard.checklist
    page.discovery.add(bundle)
    page.resume_button.click()
    qtbot.waitUntil(lambda: wizard.result is not None or bool(dialogs.shown), timeout=60_000)
    assert wizard.result is not None, dialogs.shown
    assert wizard.result.release_id == release_id and out.exists()
    assert [r.status for r in _releases(window)] == ["completed", "completed"]
    assert main(["verify", str(out), "--discovery", str(bundle)]) == 0
    assert "equals its discovery bundle's output" in capsys.readouterr().out
