"""A release with consistent values (issue 27, release@3) read through planner_app.api: the
DataFrame carries results.csv's consistent columns and says which values are the headline
ones; the bundle notebook shows them."""

from __future__ import annotations

import csv
import io
import math
import zipfile
from pathlib import Path
from typing import Any

import pytest

from planner_app import api
from planner_app.cli import main
from planner_app.core.data.tables import load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from tests.census import census_frame, census_plan

CONSISTENT = ["consistent", "consistent_low", "consistent_high"]


def census_bundle(tmp_path: Path, headline: str = "consistent") -> Path:
    """The census hierarchy and one count in no relation, released (its own home)."""
    doc = census_plan(0.6, 2, 3, headline=headline)
    doc["budget"]["epsilon"] = 0.8
    doc["queries"].append({"id": "rows", "label": "Rows", "kind": "count", "epsilon": 0.2})
    data = tmp_path / "census.csv"
    census_frame(400, 2, 3).to_csv(data, index=False)
    out = tmp_path / f"census-{headline}.zip"
    publish(plan_from_dict(doc, "plan.json"), load_table(data), out,
            app_home(tmp_path / "home"))
    return out


def csv_rows(bundle: Path) -> list[dict[str, str]]:
    """results.csv read apart from the API (the csv module)."""
    with zipfile.ZipFile(bundle) as z:
        return list(csv.DictReader(io.StringIO(z.read("results.csv").decode("utf-8"))))


@pytest.mark.parametrize("headline", ["consistent", "raw"])
def test_results_carry_the_consistent_columns(tmp_path: Path, headline: str) -> None:
    bundle = census_bundle(tmp_path, headline)
    expected = csv_rows(bundle)
    assert set(CONSISTENT) <= set(expected[0])  # results.csv has them (release@3)
    opened = api.open_bundle(bundle)
    frame = opened.results
    assert list(frame.columns)[-3:] == CONSISTENT
    assert len(frame) == len(expected)
    for (_, mine), theirs in zip(frame.iterrows(), expected, strict=True):
        assert mine["query_id"] == theirs["query_id"]
        for name in CONSISTENT:
            if theirs[name] == "":  # the count in no relation
                assert theirs["query_id"] == "rows" and math.isnan(mine[name])
            else:
                assert math.isclose(mine[name], float(theirs[name]), rel_tol=1e-12)
    assert frame.attrs["headline"] == opened.headline == headline
    assert opened.headline_words.startswith(f"The headline values are the {headline}")
    assert api.results(bundle).attrs["headline"] == headline


def test_a_release_without_relations_has_raw_headline(demo_bundle: Path) -> None:
    opened = api.open_bundle(demo_bundle)
    assert opened.headline == "raw" and opened.results.attrs["headline"] == "raw"
    assert not set(CONSISTENT) & set(opened.results.columns)
    assert opened.headline_words.startswith("Every value is a raw noised value")


@pytest.mark.subprocess
def test_bundle_notebook_shows_the_consistent_values(tmp_path: Path, capsys: Any) -> None:
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    from tests.cli.test_notebooks import execute, printed

    bundle = census_bundle(tmp_path)
    out = tmp_path / "results.ipynb"
    assert main(["report", str(bundle), "--notebook", str(out)]) == 0
    written = nbformat.read(out, as_version=4)
    text = "\n".join(c.source for c in written.cells)
    assert "consistent" in text and "headline" in text
    notebook = execute(out, "print(results['consistent'].sum())")
    said = "".join(printed(c) for c in notebook.cells if c.cell_type == "code")
    assert "The headline values are the consistent ones." in said
    shown = "".join(o.get("data", {}).get("text/plain", "") for c in notebook.cells
                    if c.cell_type == "code" for o in c.outputs)
    assert "consistent_low" in shown
    expected = sum(float(r["consistent"]) for r in csv_rows(bundle) if r["consistent"])
    assert math.isclose(float(printed(notebook.cells[-1])), expected, rel_tol=1e-9)
