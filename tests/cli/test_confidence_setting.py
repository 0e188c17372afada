"""The command line shows and releases at the confidence the app is set to (one setting)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from planner_app.core.kinds.shared_dp import accuracy_for
from planner_app.core.planfile import load_plan
from planner_app.core.planning.settings import Settings, save_settings
from planner_app.core.support.home import app_home
from tests.cli.test_release_cli import release_args, run
from tests.conftest import DEMO_PLAN


def _set_confidence(home: Path, confidence: float) -> None:
    h = app_home(home).ensure()
    save_settings(Settings(confidence=confidence), h.settings_path)


def test_check_and_release_default_to_the_apps_confidence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _set_confidence(home, 0.8)
    plan = load_plan(DEMO_PLAN)
    count = next(q for q in plan.queries if q.kind == "count")
    at_80 = accuracy_for(count, plan, confidence=0.8).half_width
    at_95 = accuracy_for(count, plan, confidence=0.95).half_width
    assert at_80 < at_95  # the two settings give different answers

    done = run(["check", str(DEMO_PLAN), "--json"], home)
    assert done.returncode == 0, done.stderr
    shown = {q["id"]: q for q in json.loads(done.stdout)["queries"]}[count.id]
    assert shown["accuracy"]["half_width"] == at_80
    assert "± at 80%" in run(["check", str(DEMO_PLAN)], home).stdout

    out = tmp_path / "b.zip"
    done = run(release_args(out), home)
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(out) as z:
        record = json.loads(z.read("release.json"))
    assert record["confidence"] == 0.8


def test_a_typed_confidence_wins_over_the_setting(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _set_confidence(home, 0.8)
    done = run(["check", str(DEMO_PLAN), "--confidence", "0.99"], home)
    assert done.returncode == 0, done.stderr
    assert "± at 99%" in done.stdout
