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
from tests.found_bundles import FoundBundles


@pytest.fixture
def bundles(found_privately: FoundBundles) -> FoundBundles:
    return found_privately  # made once per test process (tests/conftest.py)


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


def test_discover_json_says_what_was_found(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """``discover`` prints what each discovery found ("found 4 keys of region: …"), but with
    --json it printed only the release's summary: a script had to open the bundle to learn
    the keys or bounds. --json now carries them under ``found``, as the bundle's results
    hold them."""
    import csv
    import io
    import zipfile

    from planner_app.core.support.resources import demo_table_path

    plan = tmp_path / "discover.json"
    plan.write_text(json.dumps({
        "format": "planner-app/plan@1", "dataset": {"name": "demo-survey"},
        "privacy_unit": {"kind": "person", "id_column": "person_id", "max_rows": 1},
        "budget": {"epsilon": 3.0, "delta": 1e-6},
        "queries": [
            {"id": "regions", "kind": "discover_keys", "column": "region", "epsilon": 1.0,
             "delta": 1e-7},
            {"id": "income_range", "kind": "discover_bounds", "column": "income", "lower": 0,
             "upper": 1000000, "epsilon": 2.0,
             "justification": {"bounds": "no yearly income reaches a million"}}]}))
    out = tmp_path / "d.zip"
    code = main(["discover", str(plan), "--data", str(demo_table_path()), "--out", str(out),
                 "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(captured.out)
    with zipfile.ZipFile(out) as z:  # the bundle's own results, read independently
        rows = list(csv.DictReader(io.StringIO(z.read("results.csv").decode("utf-8"))))
    cells = {q: [r for r in rows if r["query_id"] == q] for q in ("regions", "income_range")}
    found = doc["found"]
    assert found["regions"]["column"] == "region"
    assert found["regions"]["keys"] == [r["cell"] for r in cells["regions"]]
    assert found["income_range"]["bounds"] == [float(r["value"])
                                               for r in cells["income_range"]]
    assert doc["release_id"] and found["regions"]["epsilon"] == 1.0
