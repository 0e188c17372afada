"""walk25c: a recipient's ``verify`` says a list "was found privately in release ID"; the
owner who looks the release up with ``planner-app ledger show`` saw each release's time, ε,
file and plan hash, but not its id, so the discovery the recipient names could not be told
from another discovery of the same dataset. Each line now names its release.

Independent answer: each bundle's release id read from its release.json."""

from __future__ import annotations

import json
import zipfile

import pytest

from planner_app.cli import main
from tests.found_bundles import FoundBundles


def test_ledger_show_names_each_release(found_privately: FoundBundles,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    b = found_privately  # made once per test process, in a home of its own
    ids = []
    for bundle in (b.regions, b.main, b.mismatched, b.employment):
        with zipfile.ZipFile(bundle) as z:
            ids.append(json.loads(z.read("release.json"))["release_id"])
    assert main(["--home", str(b.home), "ledger", "show", "demo-survey"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "  ε = " in line]
    assert len(lines) == 4, lines
    for line, release in zip(lines, ids, strict=True):  # in the order they were charged
        assert f"release {release}" in line, (release, line)
    assert "discovery (" in lines[0] and "discovery (" not in lines[1]
