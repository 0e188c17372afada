"""Any size (issue 24): a fine grid or a large stated row count is never refused after the
scan; what cannot be computed exactly is refused from the plan's public numbers, before any
row is read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.data import tables
from tests.conftest import ROWS_ARE_PEOPLE
from tests.record_rows import result_rows


def plan_doc(queries: list[dict[str, Any]], **dataset: Any) -> dict[str, Any]:
    for q in queries:
        q.setdefault("justification", {"bounds": "known from the domain (test)"})
    return {"format": "planner-app/plan@1", "dataset": {"name": "size", **dataset},
            "privacy_unit": ROWS_ARE_PEOPLE, "neighbouring": "add-remove",
            "budget": {"epsilon": 2.0, "delta": 0.0}, "queries": queries}


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_sum_past_2_to_the_63_steps_releases_and_verifies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """70,000 rows of about 2^47 (grid step 1, a noise scale within the sampler's 2^48) add
    up past 2^63 steps. It was refused after the scan with "the grid is too fine for this
    many rows"; the sum is now exact, and the release verifies."""
    table = tmp_path / "t.csv"
    values = [2**47 - i % 1000 for i in range(70_000)]
    table.write_text("x\n" + "".join(f"{v}\n" for v in values))
    plan = write(tmp_path / "plan.json", plan_doc([
        {"id": "s", "kind": "sum", "column": "x", "lower": 2**47 - 2**40, "upper": 2**47,
         "grid_step": 1, "epsilon": 1.5}]))
    out = tmp_path / "b.zip"
    code, _, err = run(["--home", str(tmp_path / "home"), "release", str(plan), "--data",
                        str(table), "--out", str(out)], capsys)
    assert code == 0, err
    code, _, err = run(["verify", str(out)], capsys)
    assert code == 0, err
    import zipfile

    with zipfile.ZipFile(out) as z:
        record = json.loads(z.read("release.json"))
    released = next(v for v in result_rows(record) if v["query_id"] == "s")
    assert sum(values) > 2**63
    # the noise's scale is 2^47 / 1.5: beyond 45 scales with probability e^-45
    assert abs(released["value"] - sum(values)) < 30 * 2**47
    assert released["low"] < released["value"] < released["high"]


def test_a_300_million_row_income_sum_checks(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's plan: an income sum with bounds 0-200,000 and no grid_step on a table
    stated to hold 300,000,000 rows is checked from public numbers alone and not refused."""
    plan = write(tmp_path / "plan.json", plan_doc(
        [{"id": "inc", "kind": "sum", "column": "income", "lower": 0, "upper": 200_000,
          "epsilon": 1.0}], expected_rows=300_000_000))
    code, out, err = run(["--home", str(tmp_path / "home"), "check", str(plan)], capsys)
    assert code == 0, err
    assert "grid" not in err and "inc" in out


def test_a_grid_too_fine_for_exact_sums_is_refused_before_any_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A variance over 2^41 steps: its sum of squares could pass the engines' exact range;
    `check --data` refuses it in one line from the plan, and never opens the table."""
    opened: list[Any] = []
    real = tables.open_table
    monkeypatch.setattr(tables, "open_table",
                        lambda *a, **k: opened.append(a) or real(*a, **k))
    table = tmp_path / "t.csv"
    table.write_text("y\n1\n2\n")
    plan = write(tmp_path / "plan.json", plan_doc(
        [{"id": "v", "kind": "variance", "column": "y", "lower": 0, "upper": 2**41,
          "grid_step": 1, "epsilon": 1.0}]))
    code, out, err = run(["--home", str(tmp_path / "home"), "check", str(plan), "--data",
                          str(table)], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "queries[v].grid_step" in err
    assert opened == []  # no row read: the table was never opened
