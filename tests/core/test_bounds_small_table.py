"""Bounds found privately on a table too small for their quantiles (disc25c, issue 25's
left item 2): an outsider's bmi on 442 rows at ε = 1 came out 0.2 to 70 against a true
18 to 42, as the rank error (±51) exceeded the 1% quantile's rank (4.4). Where the plan
states its rows (``dataset.expected_rows``), ``check`` warns exactly when the rank error
exceeds the quantile's distance from the table's edge, and says what helps; where it does
not, it says nothing from the data, only from how many rows the bounds need.

Independent answer: the exponential mechanism's rank error computed here from its utility
bound (McSherry–Talwar): each bound at ε/2 with rank sensitivity k misses by more than
2k/(ε/2) · (ln |grid| + ln 1/β) ranks with chance at most β; both bounds together at 95%
take β = 1 - √0.95 each; the grid is the quantile grid, 2^12-ish points whose step is the
power of two 2^(⌊log2(upper - lower)⌋ - 12) (one more rank for the grid point itself)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from planner_app.cli import main
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan


def bmi_plan(rows: int | None, quantiles: tuple[float, float] = (0.01, 0.99),
             epsilon: float = 1.0, max_rows: int = 1) -> dict:
    dataset: dict = {"name": "diabetes"}
    if rows is not None:
        dataset["expected_rows"] = rows
    unit = ({"kind": "row", "rows_are_people": {"reason": "one row per patient"}}
            if max_rows == 1 else {"kind": "person", "id_column": "pid", "max_rows": max_rows})
    return {"format": "planner-app/plan@1", "dataset": dataset, "privacy_unit": unit,
            "neighbouring": "add-remove", "budget": {"epsilon": epsilon, "delta": 0},
            "queries": [{"id": "bmi_bounds", "kind": "discover_bounds", "column": "bmi",
                         "lower": 0, "upper": 100, "quantiles": list(quantiles),
                         "epsilon": epsilon,
                         "justification": {"bounds": "no bmi reaches 100"}}]}


def rank_error(epsilon: float, lower: float = 0, upper: float = 100, k: int = 1,
               confidence: float = 0.95) -> float:
    step = 2.0 ** (math.floor(math.log2(upper - lower)) - 12)
    points = round((upper - lower) / step) + 1
    beta = 1 - math.sqrt(confidence)
    return 2 * k / (epsilon / 2) * (math.log(points) + math.log(1 / beta)) + 1


def warnings_of(doc: dict) -> list[str]:
    return [w for w in check_plan(plan_from_dict(doc)).warnings if "land far" in w]


def test_the_warning_comes_exactly_when_the_rank_error_exceeds_the_quantile_rank() -> None:
    ranks = rank_error(1.0)
    assert ranks == pytest.approx(50.76, abs=0.01)  # the figure check prints
    edge = ranks / 0.01  # rows at which the 1% quantile is `ranks` rows from the bottom
    (warning,) = warnings_of(bmi_plan(442))
    assert "442 rows" in warning and "± 50.8 ranks" in warning and "4.4 rows" in warning
    assert "more ε" in warning.lower() and "public bounds" in warning and "quantiles" in warning
    # the ε and the quantile it suggests do bring the rank error within the room
    suggested = float(warning.split("about ε = ")[1].split(")")[0])
    assert rank_error(suggested) <= 0.01 * 442 < rank_error(suggested * 0.9)
    need = float(warning.split("quantiles at least ")[1].split(" ")[0])
    assert need * 442 >= ranks * 0.99
    assert warnings_of(bmi_plan(math.floor(edge)))
    assert not warnings_of(bmi_plan(math.ceil(edge)))
    assert not warnings_of(bmi_plan(20_000))
    # a person of 3 rows triples the rank error
    assert warnings_of(bmi_plan(math.ceil(edge), max_rows=3))
    assert not warnings_of(bmi_plan(math.ceil(3 * edge) + 50, max_rows=3))


def test_the_warning_names_the_bound_whose_quantile_is_too_near_the_edge() -> None:
    ranks = rank_error(1.0)
    rows = 2_000  # 5% = 100 rows > ranks; 1% = 20 rows < ranks
    assert 0.01 * rows < ranks < 0.05 * rows
    (warning,) = warnings_of(bmi_plan(rows, quantiles=(0.05, 0.99)))
    assert "upper bound" in warning and "0.99 quantile's" in warning and "top" in warning
    (warning,) = warnings_of(bmi_plan(rows, quantiles=(0.01, 0.95)))
    assert "lower bound" in warning and "bottom" in warning


def test_without_a_row_count_check_says_how_many_rows_the_bounds_need(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = bmi_plan(None)
    assert not warnings_of(doc)
    path = tmp_path / "bmi.json"
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    needed = math.ceil(rank_error(1.0) / 0.01)
    assert f"fewer than about {needed:,} rows" in out, out
    assert "warning: bmi_bounds" not in out
    doc = bmi_plan(442)
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "warning: bmi_bounds: on 442 rows" in out, out
    assert "fewer than about" not in out


def test_check_says_the_sensitivity_of_a_discovery_of_bounds_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bmi.json"
    path.write_text(json.dumps(bmi_plan(442)))
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("so sensitivity 1") == 1, out


# walk25c: a quantile at 0 or 1 (the column's minimum or maximum) has no row beyond it -----

@pytest.mark.parametrize("quantiles", [(0.0, 0.99), (0.01, 1.0), (0.0, 1.0), (0.0, 0.5)])
def test_check_of_a_quantile_at_the_edge_says_why_instead_of_failing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        quantiles: tuple[float, float]) -> None:
    """An outsider's ``check`` of quantiles [0, 1] with no row count stopped with "internal
    error (ZeroDivisionError)": the rows the bounds need were divided by a quantile's
    distance from the edge, 0. No number of rows puts a row beyond the minimum, so check
    says the bound can land far from the data on a table of any size."""
    path = tmp_path / "bmi.json"
    path.write_text(json.dumps(bmi_plan(None, quantiles=quantiles)))
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "on a table of any size" in out, out
    assert "fewer than about" not in out


def test_the_find_dialogs_preview_of_a_quantile_at_the_edge() -> None:
    """The Find-the-bounds dialog reads the same check lines: the same sentence, no error."""
    from planner_app.core.release.discovery_steps import BOUNDS, FindRequest, find_preview

    plan = plan_from_dict(bmi_plan(None))
    request = FindRequest(BOUNDS, "bmi", 1.0, lower=0, upper=100, quantiles=(0.0, 0.99),
                          grid_reason="no bmi reaches 100")
    preview = find_preview(plan, request, 0.95)
    assert any("on a table of any size" in line for line in preview.chances), preview


def test_more_epsilon_is_not_suggested_when_no_epsilon_can_help() -> None:
    """At a quantile of 0 (no row beyond it) the rank error, at least 1 rank at any ε, always
    exceeds the quantile's distance from the edge: "More ε" would be false advice."""
    (warning,) = warnings_of(bmi_plan(442, quantiles=(0.0, 0.99)))
    assert "more ε" not in warning.lower(), warning
    assert "quantiles at least" in warning.lower() and "public bounds" in warning.lower()
    (warning,) = warnings_of(bmi_plan(1, quantiles=(0.01, 0.99)))  # 0.01 rows from the edge
    assert "more ε" not in warning.lower(), warning
    assert warning.startswith("bmi_bounds: on 1 row ("), warning


# walk25c: the owner's own check with the data says what the table's rows mean -------------

def test_check_with_the_data_notes_for_the_owner_a_table_too_small(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An outsider's 569-row table: with no stated row count, or a stated one far too large
    (2,000,000,000), check --data said nothing, and the bounds found came out far from the
    data. The owner's check with the data now says it from the table's own rows, as a note
    for the owner only (never a warning that travels); a table large enough says nothing."""
    import pandas as pd

    ranks = rank_error(1.0)
    small = math.floor(ranks / 0.01) // 4  # far fewer rows than the 1% quantile needs
    table = tmp_path / "bmi.csv"
    pd.DataFrame({"bmi": [18 + (i % 25) for i in range(small)]}).to_csv(table, index=False)
    for stated in (None, 2_000_000_000):
        path = tmp_path / "bmi.json"
        path.write_text(json.dumps(bmi_plan(stated)))
        assert main(["check", str(path), "--data", str(table)]) == 0
        out = capsys.readouterr().out
        notes = [line for line in out.splitlines() if line.startswith("note (for you only")]
        assert any(f"this table's {small:,} rows" in n and "land far" in n for n in notes), out
        assert not any(line.startswith("warning: bmi_bounds") for line in out.splitlines())
        doc = json.loads(path.read_text())
        report = check_plan(plan_from_dict(doc))
        assert not [w for w in report.warnings if "this table" in w]  # nothing published
    big = tmp_path / "big.csv"
    rows = math.ceil(ranks / 0.01) + 10
    pd.DataFrame({"bmi": [18 + (i % 25) for i in range(rows)]}).to_csv(big, index=False)
    path.write_text(json.dumps(bmi_plan(None)))
    assert main(["check", str(path), "--data", str(big)]) == 0
    assert "this table's" not in capsys.readouterr().out
