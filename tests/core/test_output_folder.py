"""One rule for the folder a new bundle is proposed in (disc25c): beside the plan (else the
table), but never inside the installed package's resources (the demo plan's folder) nor in a
folder that cannot be written: then the app home's ``releases`` folder, created owner-only.
The release wizard and the Find dialog both propose it (tests/gui/...output_folder_gui.py).

Independent answers: the package's resources folder found from the installed module's file,
the folder's mode read with os.stat."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import planner_app
from planner_app.core.support.home import app_home
from planner_app.core.support.outputs import default_output_folder


def resources_folder() -> Path:
    """Where the demo plan lives, found independently: the package's ``resources`` (the
    project's folder in an editable install, planner_app/resources in a wheel)."""
    package = Path(planner_app.__file__).parent
    inside = package / "resources"
    return inside if (inside / "demo").is_dir() else package.parent / "resources"


def test_beside_the_plan_or_the_table(tmp_path: Path) -> None:
    home = app_home(tmp_path / "home")
    plan, table = tmp_path / "plans" / "p.json", tmp_path / "data" / "t.csv"
    plan.parent.mkdir()
    table.parent.mkdir()
    assert default_output_folder(plan, table, home) == plan.parent
    assert default_output_folder(None, table, home) == table.parent


def test_the_demo_plan_gets_the_app_homes_releases_folder(tmp_path: Path) -> None:
    home = app_home(tmp_path / "home")
    demo = resources_folder() / "demo" / "survey-plan.json"
    assert demo.is_file()
    folder = default_output_folder(demo, demo.with_name("survey.csv"), home)
    assert folder == tmp_path / "home" / "data" / "releases"
    assert folder.is_dir() and stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert default_output_folder(None, None, home) == folder


def test_a_folder_that_cannot_be_written_gets_the_releases_folder(tmp_path: Path) -> None:
    home = app_home(tmp_path / "home")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("this user writes into a read-only folder (root)")
        assert default_output_folder(locked / "p.json", None, home) == \
            tmp_path / "home" / "data" / "releases"
    finally:
        locked.chmod(0o700)


def test_a_plan_folder_that_is_gone_gets_the_releases_folder(tmp_path: Path) -> None:
    home = app_home(tmp_path / "home")
    assert default_output_folder(tmp_path / "gone" / "p.json", None, home) == \
        tmp_path / "home" / "data" / "releases"


def test_a_proposed_bundle_name_is_one_file_name_without_spaces() -> None:
    """The Find dialog proposed "…-discovery-mean texture-bounds-….zip" (walk25c: awkward in a
    shell), and a column named with a slash would have named a folder that does not exist.
    Each part of the name keeps its letters (any script), digits, dots and underscores; the
    rest becomes single dashes."""
    from datetime import datetime, timezone

    from planner_app.core.support.outputs import bundle_file_name

    when = datetime(2026, 11, 27, 19, 30, 5, tzinfo=timezone.utc)
    name = bundle_file_name(["demo survey", "discovery", "income/month (€)", "bounds"], when)
    assert name == "demo-survey-discovery-income-month-bounds-20261127-193005.zip"
    assert Path(name).name == name and " " not in name
    assert bundle_file_name(["Überblick", "release"], when) == \
        "Überblick-release-20261127-193005.zip"
    assert bundle_file_name(["///", "release"], when) == "release-20261127-193005.zip"
