"""walk25: ``planner-app discover`` says what each discovery found (the published keys or
bounds) and, above all, when a discovery of keys found none: before, it said only "Released
2 statistics", and an owner who discovered the keys of a numeric column (each value held by
one person) learnt that nothing was found only from ``plan apply-discovery``'s refusal.

Independent answers: the table's own values (pandas), the bundle's results.csv."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from planner_app.cli import main


def test_discover_says_what_it_found_and_when_it_found_no_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(25)
    n = 300
    table = pd.DataFrame({"pid": range(n), "colour": [["red", "green", "blue"][i % 3]
                                                      for i in range(n)],
                          "weight": rng.permutation(50 + np.arange(n) / 10)})  # one person each
    assert table["weight"].nunique() == n
    table.to_csv(tmp_path / "t.csv", index=False)
    plan = {"format": "planner-app/plan@1", "dataset": {"name": "t"},
            "privacy_unit": {"kind": "person", "id_column": "pid", "max_rows": 1},
            "budget": {"epsilon": 4.0, "delta": 1e-6},
            "queries": [
                {"id": "colours", "kind": "discover_keys", "column": "colour",
                 "epsilon": 1.0, "delta": 2e-7},
                {"id": "weights", "kind": "discover_keys", "column": "weight",
                 "epsilon": 1.0, "delta": 2e-7},
                {"id": "weight_range", "kind": "discover_bounds", "column": "weight",
                 "lower": 0, "upper": 500, "epsilon": 1.0,
                 "justification": {"bounds": "no one weighs 500 kg"}}]}
    (tmp_path / "d.json").write_text(json.dumps(plan))
    out_zip = tmp_path / "d.zip"
    code = main(["--home", str(tmp_path / "home"), "discover", str(tmp_path / "d.json"),
                 "--data", str(tmp_path / "t.csv"), "--out", str(out_zip)])
    out = capsys.readouterr().out
    assert code == 0
    colours = sorted(set(table["colour"]))  # 100 people each: far above the threshold
    assert f"colours found {len(colours)} keys of colour: {', '.join(colours)}" in out
    assert "weights found no key above its threshold" in out
    results = pd.read_csv(io.BytesIO(zipfile.ZipFile(out_zip).read("results.csv")))
    bounds = results[results.query_id == "weight_range"].set_index("cell")["value"]
    low, high = float(bounds["lower"]), float(bounds["upper"])
    said = re.search(r"weight_range found the bounds of weight: (\S+) to (\S+)\n", out)
    assert said is not None
    assert float(said[1]) == pytest.approx(low, rel=1e-3)
    assert float(said[2]) == pytest.approx(high, rel=1e-3)
    assert "plan apply-discovery" in out


def test_plan_new_points_to_discovery_for_what_the_owner_does_not_know(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """walk25: `plan new` told a newcomer the bounds and categories must come from the
    domain and stopped there; it now names `planner-app discover` for those not known."""
    pd.DataFrame({"pid": range(20), "colour": ["red", "blue"] * 10,
                  "weight": range(20)}).to_csv(tmp_path / "t.csv", index=False)
    assert main(["--home", str(tmp_path / "home"), "plan", "new", "--data",
                 str(tmp_path / "t.csv"), "--out", str(tmp_path / "p.json")]) == 0
    out = capsys.readouterr().out
    need = [line for line in out.splitlines() if "need bounds or categories" in line]
    assert len(need) == 1 and "planner-app discover" in need[0]
