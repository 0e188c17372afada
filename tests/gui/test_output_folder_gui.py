"""The demo plan (``planner-app --demo``) lives in the package's resources: the release
wizard and the Find dialog both propose a bundle in the app home's releases folder, not
there (disc25c); a plan saved elsewhere gets bundles beside it, in both."""

from __future__ import annotations

from pathlib import Path

from planner_app.core.planfile import save_plan
from planner_app.core.support.resources import demo_plan_path, demo_table_path
from planner_app.gui.dialogs.find_privately import FindDialog


def _proposed(window, qtbot) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    find = FindDialog(window.session, "bounds", "income", parent=window)
    qtbot.addWidget(find)
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    wizard.confirm.initializePage()  # the page that proposes the bundle's path
    assert wizard.confirm.path.text(), "the wizard proposed no bundle path"
    return Path(find.path.text()).parent, Path(wizard.confirm.path.text()).parent


def test_both_propose_the_app_homes_folder_for_the_demo_plan(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path) -> None:
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    releases = window.session.home.data_dir / "releases"
    assert _proposed(window, qtbot) == (releases, releases)
    saved = tmp_path / "mine" / "plan.json"
    saved.parent.mkdir()
    save_plan(window.session.plan, saved)
    assert window.files.open_plan(saved, confirmed=True)
    assert _proposed(window, qtbot) == (saved.parent, saved.parent)


def test_both_choose_buttons_add_zip_to_a_name_given_without_it(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path, monkeypatch) -> None:
    """One question for a bundle's file (file_dialogs.ask_save_bundle): the name the person
    types in the save dialog, with ``.zip`` added when left off, in both dialogs."""
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    typed = iter([str(tmp_path / "mine"), str(tmp_path / "theirs.zip")])
    monkeypatch.setattr("planner_app.gui.file_dialogs.QFileDialog.getSaveFileName",
                        lambda *a, **k: (next(typed), ""))
    find = FindDialog(window.session, "bounds", "income", parent=window)
    qtbot.addWidget(find)
    find._choose_path()
    assert find.path.text() == str(tmp_path / "mine.zip")
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    wizard.confirm.initializePage()
    wizard.confirm._browse()
    assert wizard.confirm.path.text() == str(tmp_path / "theirs.zip")
