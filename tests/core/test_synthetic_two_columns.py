"""A synthetic table of two columns: its one pair is chosen by nobody (the only candidate,
public), so no selection round is measured and ρ is split in halves: a half over the two
one-way marginals, a half to the pair's two-way marginal."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from planner_app.core.dp import synthetic as dp_synthetic
from planner_app.core.dp.measure import rho_for
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.kinds.synthetic import table_preview
from planner_app.core.planfile import plan_from_dict
from tests.cli.test_release_cli import run
from tests.cli.test_synthetic_cli import PLAN
from tests.conftest import DEMO_TABLE


def _two_column_plan() -> dict:
    plan = copy.deepcopy(PLAN)
    q = plan["queries"][0]
    q["columns"] = [c for c in q["columns"] if c["column"] in ("region", "smoker")]
    return plan


def test_two_columns_measure_no_selection_and_spend_all_of_rho() -> None:
    plan = plan_from_dict(_two_column_plan())
    q = plan.queries[0]
    ms = measurements_for(q, plan)
    names = [m.component.name for m in ms]
    assert not [n for n in names if n.startswith("select:")], names
    assert names == ["oneway:region", "oneway:smoker", "twoway:1"]
    rho = rho_for(q.epsilon, q.delta)
    spent = math.fsum(m.component.l2_sq / (2 * float(m.sigma_sq)) for m in ms)
    assert spent <= rho
    assert spent == pytest.approx(rho, rel=1e-9)
    # the pair's σ from the formula, at half of ρ (before: a third)
    two = next(m for m in ms if m.component.name == "twoway:1")
    l2_sq = two.component.l2_sq
    assert float(two.sigma_sq) == pytest.approx(l2_sq / (2 * (rho / 2)), rel=1e-9)
    assert float(two.sigma_sq) < l2_sq / (2 * (rho / 3))
    one = next(m for m in ms if m.component.name == "oneway:region")
    assert float(one.sigma_sq) == pytest.approx(one.component.l2_sq / (2 * (rho / 4)), rel=1e-9)
    # the two-way marginal is of the one pair: region (4) × smoker (2)
    assert two.component.cells == 8


def test_two_columns_preview_mentions_no_selection_round() -> None:
    plan = plan_from_dict(_two_column_plan())
    p = table_preview(plan.queries[0], plan)
    assert not [m for m in p.measurements if m.epsilon is not None]
    text = "\n".join(dp_synthetic.preview_lines(p))
    assert "exponential" not in text and "round" not in text and "chooses" not in text
    two = next(m for m in p.measurements if m.name == "twoway:1")
    assert f"{two.sigma:.2f}"[:3] in text  # the pair's noise is still shown


def test_three_columns_keep_their_selection_rounds() -> None:
    plan = plan_from_dict(copy.deepcopy(PLAN))
    names = [m.component.name for m in measurements_for(plan.queries[0], plan)]
    assert [n for n in names if n.startswith("select:")] == ["select:1", "select:2"]


def test_release_and_verify_a_two_column_table(tmp_path: Path) -> None:
    pytest.importorskip("mbi")
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(_two_column_plan()))
    out = tmp_path / "synth.zip"
    home = tmp_path / "home"
    done = run(["release", str(path), "--data", str(DEMO_TABLE), "--out", str(out)], home)
    assert done.returncode == 0, done.stderr
    checked = run(["verify", str(out), "--regenerate"], home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "ok: synthetic/survey_synth.csv is byte for byte what mbi" in checked.stdout
    import zipfile

    record = json.loads(zipfile.ZipFile(out).read("release.json"))
    assert record["synthetic"]["survey_synth"]["selected"] == [["region", "smoker"]]


def test_two_columns_preview_and_report_say_no_pair_is_chosen() -> None:
    from planner_app.core.release.synthetic import synthetic_paragraphs

    plan = plan_from_dict(_two_column_plan())
    p = table_preview(plan.queries[0], plan)
    text = " ".join(dp_synthetic.preview_lines(p))
    assert "chosen in round" not in text and "round 1" not in text, text
    assert "one pair of columns" in text
    # the measurements as the app's pane lists them
    whats = [m.what for m in p.measurements]
    assert whats == ["counts of region", "counts of smoker", "counts of its one pair of columns"]
    about = synthetic_paragraphs({"synthetic": {}}) or []
    assert about == []  # no table, no section; the section's words say both cases
    from planner_app.core.support.words import SYNTH_REPORT_ABOUT
    assert "with two columns, of their one pair" in SYNTH_REPORT_ABOUT
