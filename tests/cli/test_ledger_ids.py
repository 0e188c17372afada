"""walk25c: a recipient's ``verify`` says a list "was found privately in release ID"; the
owner who looks the release up with ``planner-app ledger show`` saw each release's time, ε,
file and plan hash, but not its id, so the discovery the recipient names could not be told
from another discovery of the same dataset. Each line now names its release.

Independent answer: each bundle's release id read from its release.json."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from planner_app.cli import main
from planner_app.core.support.home import app_home
from tests.found_bundles import found_bundles


def test_ledger_show_names_each_release(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    b = found_bundles(app_home(), tmp_path)
    ids = []
    for bundle in (b.regions, b.main, b.mismatched, b.employment):
        with zipfile.ZipFile(bundle) as z:
            ids.append(json.loads(z.read("release.json"))["release_id"])
    assert main(["ledger", "show", "demo-survey"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "  ε = " in line]
    assert len(lines) == 4, lines
    for line, release in zip(lines, ids, strict=True):  # in the order they were charged
        assert f"release {release}" in line, (release, line)
    assert "discovery (" in lines[0] and "discovery (" not in lines[1]
