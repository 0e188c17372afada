"""Issue 25 end to end, from the command line: on a table whose lists nobody typed, an owner
discovers the occupations, the industries and a wage range privately, applies them to a plan
of a histogram of occupations and a mean wage by industry, releases it and verifies it
against the discovery bundle; the ledger holds both charges and their composed total.

Independent answers: the table's occupations held by one person only (never published), the
ledger's total as the sum of the two releases' stated (ε, δ), and the plan files as JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.cli import main

COMMON = ["nurse", "teacher", "driver", "clerk", "cook", "welder"]
RARE = ["astronaut", "falconer", "luthier"]  # one person each: never published


def census(path: Path) -> Path:
    """900 people with one or two rows: an occupation (six common ones, three held by one
    person), an industry and a weekly wage."""
    rng = np.random.default_rng(2511)
    rows = []
    for i in range(900):
        job = RARE[i] if i < len(RARE) else COMMON[int(rng.integers(len(COMMON)))]
        industry = ["health", "education", "transport"][int(rng.integers(3))]
        for _ in range(1 + int(rng.integers(2))):
            rows.append({"pid": f"c{i:04d}", "occupation": job, "industry": industry,
                         "wage": round(float(rng.lognormal(6.5, 0.4)), 2)})
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def plan(queries: list[dict[str, Any]], epsilon: float) -> dict[str, Any]:
    return {"format": "planner-app/plan@1", "dataset": {"name": "census"},
            "privacy_unit": {"kind": "person", "id_column": "pid", "max_rows": 2},
            "neighbouring": "add-remove", "budget": {"epsilon": epsilon, "delta": 1e-6},
            "queries": queries}


DISCOVERY = plan([
    {"id": "occupations", "kind": "discover_keys", "mechanism": "laplace_threshold",
     "column": "occupation", "epsilon": 1.0, "delta": 2e-7},
    {"id": "industries", "kind": "discover_keys", "mechanism": "laplace_threshold",
     "column": "industry", "epsilon": 1.0, "delta": 2e-7},
    {"id": "wage_range", "kind": "discover_bounds", "column": "wage", "lower": 0,
     "upper": 100_000, "quantiles": [0.02, 0.98], "epsilon": 2.0,
     "justification": {"bounds": "no weekly wage reaches 100,000"}},
], 4.0)
MAIN = plan([
    {"id": "jobs", "kind": "histogram", "column": "occupation",
     "categories": "discovered:occupations", "epsilon": 0.5},
    {"id": "wage_by_industry", "kind": "mean", "column": "wage",
     "lower": "discovered:wage_range", "upper": "discovered:wage_range",
     "group_by": {"column": "industry", "keys": "discovered:industries"}, "epsilon": 1.0},
], 1.5)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_discover_apply_release_verify_and_the_ledger_holds_both(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = census(tmp_path / "census.csv")
    (tmp_path / "discovery.json").write_text(json.dumps(DISCOVERY))
    (tmp_path / "main.json").write_text(json.dumps(MAIN))
    disc, main_zip = tmp_path / "discovery.zip", tmp_path / "main.zip"
    applied = tmp_path / "applied.json"

    code, out, err = run(capsys, "discover", str(tmp_path / "discovery.json"), "--data",
                         str(table), "--out", str(disc))
    assert code == 0, err
    code, out, err = run(capsys, "plan", "apply-discovery", str(tmp_path / "main.json"),
                         "--bundle", str(disc), "--out", str(applied))
    assert code == 0, err
    doc = json.loads(applied.read_text())
    jobs, wages = doc["queries"]
    assert set(jobs["categories"]) <= set(COMMON) and len(jobs["categories"]) >= 5
    assert not set(jobs["categories"]) & set(RARE)  # held by one person: not found
    assert jobs["categories"] == sorted(jobs["categories"])
    assert set(wages["group_by"]["keys"]) == {"health", "education", "transport"}
    assert 0 <= wages["lower"] < wages["upper"] <= 100_000
    release_id = json.loads(run(capsys, "verify", str(disc), "--json")[1])["summary"][
        "release_id"]
    for reason in (jobs["justification"]["categories"], wages["justification"]["keys"],
                   wages["justification"]["bounds"]):
        assert reason.startswith(f"found privately in release {release_id} (ε = ")

    # check and verify refuse a plan that names a discovery bundle not given
    code, _, err = run(capsys, "check", str(applied))
    assert code == 2 and "give that discovery bundle with --discovery" in err
    code, out, err = run(capsys, "check", str(applied), "--discovery", str(disc))
    assert "Ready to release: yes" in out, out + err

    code, out, err = run(capsys, "release", str(applied), "--data", str(table), "--out",
                         str(main_zip), "--discovery", str(disc))
    assert code == 0, err
    code, out, err = run(capsys, "verify", str(main_zip), "--discovery", str(disc))
    assert code == 0 and "equals its discovery bundle's output" in out, out + err
    code, out, err = run(capsys, "verify", str(main_zip))  # disc25c: valid, not checked
    assert code == 0 and "not checked" in out and "--discovery" in out, out + err
    # the report says how each list was obtained
    import zipfile

    with zipfile.ZipFile(main_zip) as z:
        report = z.read("report.html").decode("utf-8")
    assert report.count(f"found privately in release {release_id}") >= 3

    # the ledger: both releases charged to the one dataset, the total their composition
    code, out, _ = run(capsys, "ledger", "show", "census", "--json")
    state = json.loads(out)
    assert [r["epsilon"] for r in state["releases"]] == pytest.approx([4.0, 1.5])
    # composed: at most the sum (basic), and the thresholds' δ never dropped
    spent = state["spent"]
    assert 5.4 < spent["epsilon"] <= 5.5 * (1 + 1e-12)
    assert spent["delta"] >= 4e-7 * (1 - 1e-12)
    if spent["accountant"] == "basic":
        assert spent["epsilon"] == pytest.approx(5.5) and spent["delta"] == pytest.approx(4e-7)


def test_a_declared_list_that_differs_from_its_discovery_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = census(tmp_path / "census.csv")
    (tmp_path / "discovery.json").write_text(json.dumps(DISCOVERY))
    (tmp_path / "main.json").write_text(json.dumps(MAIN))
    disc, applied = tmp_path / "discovery.zip", tmp_path / "applied.json"
    assert run(capsys, "discover", str(tmp_path / "discovery.json"), "--data", str(table),
               "--out", str(disc))[0] == 0
    assert run(capsys, "plan", "apply-discovery", str(tmp_path / "main.json"), "--bundle",
               str(disc), "--out", str(applied))[0] == 0
    doc = json.loads(applied.read_text())
    doc["queries"][0]["categories"].append("astronaut")  # a key typed in, reason kept
    applied.write_text(json.dumps(doc))
    code, _, err = run(capsys, "check", str(applied), "--discovery", str(disc))
    assert code == 2 and "are not the keys discovery 'occupations' found" in err


def test_discover_needs_the_approval_release_needs(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The same approval rule as release: without an approval of this exact plan, refused
    (exit 3) and nothing charged."""
    table = census(tmp_path / "census.csv")
    (tmp_path / "discovery.json").write_text(json.dumps(DISCOVERY))
    code, _, err = run(capsys, "discover", str(tmp_path / "discovery.json"), "--data",
                       str(table), "--out", str(tmp_path / "d.zip"), "--require-approval")
    assert code == 3 and "approv" in err
    assert not (tmp_path / "d.zip").exists()
    code, out, _ = run(capsys, "ledger", "show", "--json")
    assert all(s["dataset"] != "census" or not s["releases"] for s in json.loads(out))
