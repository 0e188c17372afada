"""Issue 25's "Done when", from the app (gui25): on the demo survey an owner who types no
list at all gets a histogram of employment and a mean income by region released, every list
and bound found privately with the statistic form's "Find … privately…" buttons, each
discovery charged once in the ledger, and the release verified by `planner-app verify
--discovery`. The form's discovery fields round-trip, and the dialog's preview is computed
on public parameters only (the same with another table of the same plan).

Independent answers: the table's own values (pandas), the ledger read from its file, the
command line's verify."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from PySide6.QtWidgets import QDialog

from planner_app.cli import main
from planner_app.core.records.ledger import Ledger
from planner_app.core.support.resources import demo_table_path
from planner_app.gui.dialogs.query_dialog import QueryDialog

from .conftest import release_with_wizard


def _new_statistic(window, qtbot, kind: str, column: str, label: str):  # type: ignore[no-untyped-def]
    form = QueryDialog(window.session, None, window)
    qtbot.addWidget(form)
    form.show()
    form.kind.setCurrentIndex(form.kind.findData(kind))
    form.column.setCurrentText(column)
    form.label.setText(label)
    return form


def _find(form, qtbot, field: str, tmp_path: Path, **typed: str):  # type: ignore[no-untyped-def]
    """Press "Find … privately…", type ``typed`` into its dialog, spend, and wait."""
    button = form.finder.buttons[field]
    assert button.isVisible() and button.text().startswith("Find the ")
    button.click()
    dialog = form.find_dialog
    assert dialog is not None and dialog.isVisible()
    for name, text in typed.items():
        getattr(dialog, name).setText(text)
    dialog.path.setText(str(tmp_path / f"{field}-{form.label.text()}.zip"))
    assert dialog.run_button.isEnabled(), dialog.error.text()
    dialog.run_button.click()
    qtbot.waitUntil(lambda: dialog.found is not None, timeout=120_000)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    return dialog


def _accept(window, form) -> None:  # type: ignore[no-untyped-def]
    """OK, then what the window does with an accepted form (launchers._run_query_dialog)."""
    form.buttons.accepted.emit()
    assert form.result() == QDialog.DialogCode.Accepted, form.error.text()
    window.session.add_query(form.result_plan.query(form.result_id))
    window.launchers._remember_found(form.finder.bundles)


def test_an_owner_who_types_no_list_releases_from_the_app(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs, tmp_path: Path, capsys) -> None:
    window, session = demo, demo.session
    for q in list(session.plan.queries):
        session.remove_query(q.id)
    table = pd.read_csv(demo_table_path())

    jobs = _new_statistic(window, qtbot, "histogram", "employment", "Employment")
    assert not jobs.finder.buttons["bounds"].isVisible()  # a histogram has no bounds
    found = _find(jobs, qtbot, "categories", tmp_path, epsilon="0.5", delta="1e-7")
    preview = found.preview.text()
    assert "Cost: ε = 0.5, δ = 1e-07" in preview and "people" in preview, preview
    listed = jobs.categories.toPlainText().splitlines()
    assert listed == sorted(table.employment.dropna().unique())  # all held by hundreds
    assert jobs.list_reason.text().startswith("found privately in release ")
    _accept(window, jobs)

    wages = _new_statistic(window, qtbot, "mean", "income", "Income by region")
    assert not wages.finder.buttons["keys"].isEnabled()  # no group column yet
    wages.group_column.setCurrentText("region")
    _find(wages, qtbot, "keys", tmp_path, epsilon="0.5", delta="1e-7")
    assert wages.group_keys.toPlainText().splitlines() == sorted(table.region.unique())
    _find(wages, qtbot, "bounds", tmp_path, epsilon="1", search_low="0", search_high="1000000",
          grid_reason="no yearly income in the survey reaches a million")
    low, high = float(wages.lower.text()), float(wages.upper.text())
    assert 0 <= low < table.income.median() < high <= 1_000_000
    assert wages.bounds_reason.text().startswith("found privately in release ")
    _accept(window, wages)

    plan = session.plan
    for q, field in ((plan.query("employment"), "categories"),
                     (plan.query("income_by_region"), "keys"),
                     (plan.query("income_by_region"), "bounds")):
        assert q.justification[field].startswith("found privately in release "), q.id
    assert len(session.discoveries) == 3  # remembered for the plan's release
    out = tmp_path / "main.zip"
    release_with_wizard(window, qtbot, out)
    releases = Ledger(session.home.ledger_path).state_without_creating(
        "demo-survey").releases
    assert len(releases) == 4  # three discoveries and the plan, each charged once
    given = [a for p in session.discoveries for a in ("--discovery", str(p))]
    capsys.readouterr()
    assert main(["verify", str(out), *given]) == 0
    assert "equals its discovery bundle's output" in capsys.readouterr().out


def test_the_discovery_fields_round_trip_in_the_form(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    form = _new_statistic(demo, qtbot, "discover_keys", "employment", "Jobs")
    panel = form.discovery_panel
    assert panel.max_keys.isVisible() and panel.publish_counts.isVisible()
    assert not panel.quantiles_row.isVisible()
    assert not any(b.isVisible() for b in form.finder.buttons.values())
    panel.max_keys.setText("2")
    panel.publish_counts.setChecked(True)
    doc = form.to_dict()
    assert (doc["max_keys"], doc["publish_counts"]) == (2, True)
    form.kind.setCurrentIndex(form.kind.findData("discover_bounds"))
    assert panel.quantiles_row.isVisible() and not panel.max_keys.isVisible()
    assert not form.finder.buttons["bounds"].isVisible()  # it finds bounds itself
    panel.quantile_low.setText("0.05")
    assert form.to_dict()["quantiles"] == [0.05, 0.99]


def test_the_preview_reads_no_data(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The dialog's preview is the same with the table and without it: computed from the
    plan's public parameters (ε, δ, the rows a person may have), never from the data; only
    the spending waits for a table."""
    from planner_app.gui.dialogs.find_privately import FindDialog

    first = FindDialog(demo.session, "categories", "employment", parent=demo)
    qtbot.addWidget(first)
    before = first.preview.text()
    assert "Threshold" in before and first.run_button.isEnabled()
    demo.session.close_table()
    second = FindDialog(demo.session, "categories", "employment", parent=demo)
    qtbot.addWidget(second)
    assert second.preview.text() == before
    assert not second.run_button.isEnabled() and "Open the table" in second.error.text()


def test_a_discovery_that_needs_approval_is_refused_then_released_approved(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs, tmp_path: Path) -> None:
    """"Require approval before release" holds for a discovery as for any plan: refused
    before the charge, with what to do; the discovery plan saved for the officer, approved,
    and opened back is released and its list written into the form."""
    from planner_app.core.planfile import load_plan, plan_to_json
    from planner_app.core.records.keys import KeyStore
    from planner_app.core.records.review import review
    from planner_app.core.support.home import app_home

    officer = KeyStore(app_home(tmp_path / "officer"))
    officer.create("ada")
    session = demo.session
    session.set_require_approval(True)
    session.trust_key(officer.export("ada", tmp_path / "ada.pub"))
    form = _new_statistic(demo, qtbot, "histogram", "employment", "Employment")
    form.finder.buttons["categories"].click()
    dialog = form.find_dialog
    dialog.path.setText(str(tmp_path / "jobs.zip"))
    dialog.run_button.click()
    qtbot.waitUntil(lambda: bool(dialogs.shown), timeout=60_000)
    _kind, title, text = dialogs.shown[-1]
    assert title == "Refused: approval needed" and "Nothing was charged" in text, text
    assert "Save the discovery plan" in text and dialog.isVisible()
    ledger = Ledger(session.home.ledger_path)
    assert ledger.state_without_creating("demo-survey").releases == []
    assert not (tmp_path / "jobs.zip").exists()

    saved = dialog.save_plan(tmp_path / "discovery.json")
    approved = review(load_plan(saved), "ada", "approved", key=officer.secret("ada"))
    (tmp_path / "approved.json").write_text(plan_to_json(approved))
    assert dialog.use_approved(tmp_path / "approved.json")
    dialog.run_button.click()
    qtbot.waitUntil(lambda: dialog.found is not None, timeout=120_000)
    qtbot.waitUntil(lambda: bool(form.categories.toPlainText()), timeout=10_000)
    assert form.list_reason.text().startswith("found privately in release ")
    assert len(ledger.state_without_creating("demo-survey").releases) == 1


def test_a_discovery_that_finds_no_key_says_so_and_leaves_the_form(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs, tmp_path: Path) -> None:
    """At a tiny ε the threshold is above every region's count: the discovery is charged
    (its release stands) and the core's line says there is no list to use; the form's list
    stays empty and no bundle is kept for the plan."""
    form = _new_statistic(demo, qtbot, "histogram", "region", "Regions")
    form.finder.buttons["categories"].click()
    dialog = form.find_dialog
    dialog.epsilon.setText("0.001")
    dialog.path.setText(str(tmp_path / "none.zip"))
    assert "Threshold" in dialog.preview.text()
    dialog.run_button.click()
    qtbot.waitUntil(lambda: bool(dialogs.shown), timeout=120_000)
    _kind, title, text = dialogs.shown[-1]
    assert title == "The discovery found nothing to use" and "no key" in text, text
    assert form.categories.toPlainText() == "" and form.finder.bundles == []
    releases = Ledger(demo.session.home.ledger_path).state_without_creating(
        "demo-survey").releases
    assert len(releases) == 1 and (tmp_path / "none.zip").exists()
