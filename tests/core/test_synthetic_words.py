"""A synthetic table's sentences live in support/words.py, as every other kind's do: the
preview (command line and pane) and the report's section are built there, and the modules
that compute them hold no wording of their own."""

from __future__ import annotations

import copy
import inspect
from pathlib import Path

from planner_app.core.dp import synthetic as dp_synthetic
from planner_app.core.kinds.synthetic import table_preview
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release import synthetic as release_synthetic
from planner_app.core.support import words
from tests.cli.test_synthetic_cli import PLAN

# fragments of the sentences a person reads
SENTENCES = ("rows a cell", "exponential mechanism, ε", "expected error for about",
             "total variation distance of a measured marginal", "A synthetic table is made up",
             "sampling seed", "measured pairs", "counts of the pair chosen")


def test_the_modules_that_compute_hold_no_sentences() -> None:
    pane = Path(words.__file__).parents[2] / "gui" / "widgets" / "statistic_pane.py"
    sources = {m.__name__: inspect.getsource(m) for m in (dp_synthetic, release_synthetic)}
    sources["the statistic pane"] = pane.read_text(encoding="utf-8")  # read, no Qt here
    for name, source in sources.items():
        assert [s for s in SENTENCES if s in source] == [], name


def test_the_preview_is_the_words_of_its_numbers() -> None:
    plan = plan_from_dict(PLAN)
    p = table_preview(plan.queries[0], plan)
    ones = [m for m in p.measurements if m.name.startswith("oneway:")]
    assert [m.what for m in p.measurements] == [
        "counts of region", "counts of age", "counts of smoker", "selection round 1",
        "counts of the pair chosen in round 1", "selection round 2",
        "counts of the pair chosen in round 2"]
    lines = dp_synthetic.preview_lines(p)
    assert lines[0] == (f"measures the counts of each of its 3 columns with noise "
                        f"σ = {ones[0].sigma:.4g} rows a cell")
    # the rows as a person writes them, the distance to 3 decimals as the comparison shows it
    assert lines[2] == (f"expected error for about 3,800 rows, as total variation distance: "
                        f"one-way marginals {p.one_way_error:.3f}, measured two-way marginals "
                        f"{p.two_way_error:.3f}")
    assert p.note == words.SYNTH_PREVIEW_NOTE


def test_without_rows_the_preview_names_what_to_state_in_the_apps_words() -> None:
    doc = copy.deepcopy(PLAN)
    del doc["dataset"]["expected_rows"]
    plan = plan_from_dict(doc)
    last = dp_synthetic.preview_lines(table_preview(plan.queries[0], plan))[-1]
    # the field as the editor labels it ("Rows to generate"), and the plan's key for a file
    assert "rows to generate" in last and "dataset.expected_rows" in last
    assert "(or rows)" not in last


def test_a_measurement_line() -> None:
    assert words.synth_measured_line("counts of age", 7, 22.0312, None, False) == \
        "counts of age (7 cells): noise σ = 22.03 rows a cell"
    assert words.synth_measured_line("counts of the pair chosen in round 1", 1234, 18.0, None,
                                     True) == ("counts of the pair chosen in round 1 (up to "
                                               "1,234 cells): noise σ = 18 rows a cell")
    assert words.synth_measured_line("selection round 2", 3, None, 0.33361, False) == \
        "selection round 2: chooses one of at most 3 pairs (exponential mechanism, ε = 0.3336)"


def test_the_reports_section() -> None:
    record = {"synthetic": {
        "t": {"rows": 10, "rows_from": "plan", "columns": ["x", "y"], "method": "mst",
              "selected": [["x", "y"]], "seed": 5},
        "a": {"rows": 7, "rows_from": "noise", "columns": ["x"], "method": "mst",
              "selected": [], "seed": 9}}}
    assert release_synthetic.synthetic_paragraphs(record) == [
        words.SYNTH_REPORT_ABOUT,
        "a: synthetic/a.csv has 7 rows (from the noised one-way counts) of the columns x, "
        "made with MST (Private-PGM); measured pairs: none; sampling seed 9.",
        "t: synthetic/t.csv has 10 rows (as the plan states) of the columns x, y, made with "
        "MST (Private-PGM); measured pairs: x × y; sampling seed 5."]
    assert release_synthetic.synthetic_paragraphs({}) == []
