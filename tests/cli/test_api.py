"""planner_app.api (issue 27) gives what the command line gives: check's numbers, the same
one-line errors as core exceptions, the same refusals before any charge, and a bundle's
results as a DataFrame equal to its results.csv."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from planner_app import api
from planner_app.cli import main
from planner_app.core.records.ledger import BudgetExceeded
from tests.conftest import DEMO_PLAN, DEMO_TABLE, flip_zip_byte

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def run(args: list[str], capsys: Any) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_check_is_check_json(capsys: Any) -> None:
    code, out, _ = run(["check", str(DEMO_PLAN), "--json", "--confidence", "0.9"], capsys)
    assert code == 0
    report = api.check(DEMO_PLAN, confidence=0.9)
    assert json.loads(json.dumps(report.to_dict())) == json.loads(out)
    table = api.accuracy_table(report)
    expected = json.loads(out)["queries"]
    assert list(table.index) == [q["id"] for q in expected]
    for q in expected:
        row = table.loc[q["id"]]
        assert row["epsilon"] == q["epsilon"] and row["confidence"] == 0.9
        assert row["half_width"] == q["accuracy"]["half_width"]


@pytest.mark.parametrize("name", ["truncated.json", "a-list.json",
                                  "grid-too-fine-variance.json", "count-of-unknown.json"])
def test_a_bad_plan_raises_the_clis_line(name: str, capsys: Any) -> None:
    path = CORPUS / "plans" / name
    code, _, err = run(["check", str(path)], capsys)
    assert code == 2
    with pytest.raises(api.InputError) as raised:
        api.check(path)
    assert f"planner-app: error: {raised.value}" == err.strip()
    with pytest.raises(api.InputError) as loaded:
        api.load_plan(path)
    assert str(loaded.value) == str(raised.value)


def test_a_refused_release_charges_nothing(tmp_path: Path, capsys: Any) -> None:
    assert run(["ledger", "set-cap", "demo-survey", "--epsilon", "1"], capsys)[0] == 0
    code, _, err = run(["release", str(DEMO_PLAN), "--data", str(DEMO_TABLE), "--out",
                        str(tmp_path / "cli.zip")], capsys)
    assert code == 3
    with pytest.raises(BudgetExceeded) as refused:
        api.release(DEMO_PLAN, DEMO_TABLE, tmp_path / "api.zip")
    assert err.strip() == f"planner-app: refused: {refused.value}"
    assert list(tmp_path.iterdir()) == []
    code, out, _ = run(["ledger", "show", "demo-survey", "--json"], capsys)
    assert json.loads(out)["spent"]["epsilon"] == 0


def test_released_results_are_the_bundles_csv(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "r.zip"
    result = api.release(DEMO_PLAN, DEMO_TABLE, out)
    assert result.bundle_path == out
    code, verified, _ = run(["verify", str(out)], capsys)
    assert code == 0 and api.verify(out).valid
    with zipfile.ZipFile(out) as z:
        rows = list(csv.DictReader(io.StringIO(z.read("results.csv").decode("utf-8"))))
    frame = api.results(out)
    assert len(frame) == len(rows)
    for (_, mine), theirs in zip(frame.iterrows(), rows, strict=True):
        assert mine["query_id"] == theirs["query_id"]
        assert str(mine["cell"] if mine["cell"] is not None else "") == theirs["cell"]
        for name in ("value", "low", "high"):
            if theirs[name] == "":
                assert math.isnan(mine[name])
            else:
                assert mine[name] == float(theirs[name])
    titles = [p.title for p in api.result_charts(api.open_bundle(out))]
    assert titles[0] == "Number of survey responses" and len(titles) == frame.query_id.nunique()


def test_a_tampered_bundle_gives_no_results(tmp_path: Path, demo_bundle: Path) -> None:
    bad = tmp_path / "bad.zip"
    flip_zip_byte(demo_bundle, bad, "results.csv", 200)
    opened = api.open_bundle(bad)
    assert not opened.valid and not api.verify(bad).valid
    with pytest.raises(api.BundleNotValid, match=r"^bad\.zip: NOT valid, so no results: "
                                                  r"results\.csv: its content"):
        _ = opened.results
    with pytest.raises(api.NotABundle, match="is not a zip file"):
        api.open_bundle(DEMO_TABLE)


def test_results_carry_further_columns(demo_bundle: Path, tmp_path: Path) -> None:
    """A statistic's results may carry more columns than results.csv's (consistent values,
    issue 27): the DataFrame keeps them after the usual ones."""
    record = api.open_bundle(demo_bundle).record
    assert record is not None
    entry = next(e for e in record["results"] if e["query_id"] == "region_counts")
    entry["columns"]["consistent_value"] = [1, 2, 3, 4]
    frame = api.Bundle(demo_bundle, api.verify(demo_bundle), None, record).results  # type: ignore[arg-type]
    assert list(frame.columns)[:10] == ["query_id", "label", "group", "cell", "value", "low",
                                        "high", "confidence", "mechanism", "note"]
    assert list(frame.loc[frame.query_id == "region_counts", "consistent_value"]) == [1, 2, 3,
                                                                                     4]
    assert frame.loc[frame.query_id == "responses", "consistent_value"].isna().all()


def test_plans_built_saved_and_loaded(tmp_path: Path) -> None:
    doc = json.loads(DEMO_PLAN.read_text("utf-8"))
    plan = api.plan_from_dict(doc)
    assert api.load_plan(api.save_plan(plan, tmp_path / "p.json")) == plan
    with pytest.raises(api.InputError, match="already exists"):
        api.save_plan(plan, tmp_path / "p.json")
    shutil.copy(DEMO_TABLE, tmp_path / "t.csv")
    starter = api.starter_plan(tmp_path / "t.csv", dataset="x")
    assert starter["dataset"]["name"] == "x" and starter["queries"]
