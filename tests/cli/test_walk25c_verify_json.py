"""walk25c: ``planner-app verify BUNDLE --json`` read by a script. A missing or damaged bundle
prints its JSON verdict (valid false) with exit 2; a discovery bundle that is refused (one the
plan does not name, a missing file, a tampered one) printed nothing on standard output, so a
script's JSON parser failed on an empty document. It now prints the verdict too: not valid
(nothing about the lists was checked), the refusal as its problem, exit 2 as before.

Independent answers: the release id read from the discovery bundle's own release.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner_app.cli import main
from planner_app.core.support.home import app_home
from tests.found_bundles import FoundBundles, found_bundles


@pytest.fixture
def bundles(tmp_path: Path) -> FoundBundles:
    return found_bundles(app_home(), tmp_path)


def test_a_refused_discovery_bundle_still_gives_a_json_verdict(
        bundles: FoundBundles, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for given, why in ((bundles.employment, "not needed"),
                       (tmp_path / "nowhere.zip", "no such file")):
        code = main(["verify", str(bundles.main), "--discovery", str(given), "--json"])
        out, err = capsys.readouterr()
        assert code == 2
        doc = json.loads(out)  # a document, not an empty output
        assert doc["valid"] is False and doc["discovery_refused"] is True
        assert len(doc["problems"]) == 1 and why in doc["problems"][0], doc
        assert doc["bundle"] == bundles.main.name
        assert len(err.strip().splitlines()) == 1 and why in err  # the one line, as before
