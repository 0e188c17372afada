"""walk25: a plan whose statistics' δ alone exceed the release's budget δ (a discovery of
keys declared at δ = 1e-5 under a budget of δ = 1e-6) was refused as "the total ε = inf …
exceeds its budget", with the advice to lower some ε: a newcomer reads that ε is the
problem. The budget line now names the δ, and what to change."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from planner_app.cli import main


def test_a_delta_above_the_budget_is_named_not_an_infinite_epsilon(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pd.DataFrame({"pid": range(60), "sex": ["F", "M"] * 30}).to_csv(tmp_path / "t.csv",
                                                                     index=False)
    plan = {"format": "planner-app/plan@1", "dataset": {"name": "t"},
            "privacy_unit": {"kind": "person", "id_column": "pid", "max_rows": 1},
            "budget": {"epsilon": 4.0, "delta": 1e-6},
            "queries": [{"id": "sexes", "kind": "discover_keys", "column": "sex",
                         "epsilon": 1.0, "delta": 1e-5}]}
    (tmp_path / "d.json").write_text(json.dumps(plan))
    home = ["--home", str(tmp_path / "home")]
    main([*home, "check", str(tmp_path / "d.json")])  # says "Ready to release: NO"
    out = capsys.readouterr().out
    budget_line = [line for line in out.splitlines() if "Over budget" in line]
    # the lifetime line neither: no "ε = inf on its own", no "adds only" beside it
    [lifetime] = [line for line in out.splitlines() if "Dataset 't' has" in line]
    assert "inf" not in lifetime and "adds only" not in lifetime, lifetime
    assert "cannot be stated" in lifetime and "adds ε = 1" in lifetime, lifetime
    assert len(budget_line) == 1
    assert "δ add up to 1e-05" in budget_line[0] and "budget δ = 1e-06" in budget_line[0]
    assert "inf" not in budget_line[0]
    assert "Lower some statistics' δ" in budget_line[0]
    code = main([*home, "discover", str(tmp_path / "d.json"), "--data",
                 str(tmp_path / "t.csv"), "--out", str(tmp_path / "d.zip")])
    err = capsys.readouterr().err
    assert code == 3 and "δ add up to 1e-05" in err and "inf" not in err
    assert not (tmp_path / "d.zip").exists()
