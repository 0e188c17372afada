"""One verdict for a release whose lists were found privately (disc25c, issue 25's left item
1): ``verify`` without the discovery bundle says the release is valid (exit 0) and, in text
and in --json's ``not_checked``, one line naming the discovery release and how to check it;
with the bundle it is checked (a list that differs: NOT valid, exit 1); a bundle the plan
does not name is refused (exit 2). ``report`` follows the same rule. The app's viewer says
the same of the same bundles (tests/gui/test_viewer_found_privately_gui.py).

Independent answers: the discovery release id read from the discovery bundle's own
release.json, the declared list edited by hand (tests/found_bundles.py)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from planner_app.cli import main
from tests.found_bundles import FoundBundles


@pytest.fixture
def bundles(found_privately: FoundBundles) -> FoundBundles:
    return found_privately  # made once per test process (tests/conftest.py)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_verify_without_the_discovery_is_valid_and_says_what_was_not_checked(
        bundles: FoundBundles, capsys: pytest.CaptureFixture[str]) -> None:
    with zipfile.ZipFile(bundles.regions) as z:  # the id, read independently
        release = json.loads(z.read("release.json"))["release_id"]
    code, out, err = run(capsys, "verify", str(bundles.main))
    assert code == 0, err
    lines = [line for line in out.splitlines() if "not checked" in line]
    assert len(lines) == 1, out
    assert release in lines[0] and "region_counts.categories" in lines[0]
    assert "--discovery" in lines[0], lines[0]
    code, out, err = run(capsys, "verify", str(bundles.main), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["valid"] is True and len(doc["not_checked"]) == 1
    assert release in doc["not_checked"][0]


def test_verify_with_the_discovery_checks_it(
        bundles: FoundBundles, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "verify", str(bundles.main), "--discovery",
                         str(bundles.regions), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["not_checked"] == [] and doc["valid"] is True
    assert any("equals its discovery bundle's output" in c for c in doc["checks"])
    # the declared list differs from the discovery's output: NOT valid, exit 1
    code, out, err = run(capsys, "verify", str(bundles.mismatched), "--discovery",
                         str(bundles.regions))
    assert code == 1 and "NOT valid" in err and "are not the keys" in err, err
    code, out, _err = run(capsys, "verify", str(bundles.mismatched), "--discovery",
                          str(bundles.regions), "--json")
    assert code == 1 and json.loads(out)["valid"] is False
    # without the discovery the mismatched bundle verifies, its list said not checked
    code, out, err = run(capsys, "verify", str(bundles.mismatched))
    assert code == 0 and "not checked" in out, out + err
    # a discovery bundle the plan does not name: refused, as before
    code, _, err = run(capsys, "verify", str(bundles.main), "--discovery",
                       str(bundles.employment))
    assert code == 2 and "not needed" in err, err


def test_report_follows_the_same_rule(bundles: FoundBundles, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    html = tmp_path / "r.html"
    code, out, err = run(capsys, "report", str(bundles.main), "--html", str(html))
    assert code == 0 and html.exists(), err
    assert "not checked" in out and bundles.release in out, out
    code, out, err = run(capsys, "report", str(bundles.main), "--html", str(html),
                         "--force", "--discovery", str(bundles.regions), "--json")
    assert code == 0 and json.loads(out)["not_checked"] == [], err
    bad = tmp_path / "bad.html"
    code, _, err = run(capsys, "report", str(bundles.mismatched), "--html", str(bad),
                       "--discovery", str(bundles.regions))
    assert code == 1 and "NOT valid" in err and not bad.exists(), err
