"""The kinds' answers for the app's statistic form (core/kinds/shared_form.py) agree with the
plan's own tables: the fields a kind's form shows are the fields its plan takes, and the
mechanisms it offers are the ones the plan accepts, in the same order."""

from __future__ import annotations

import pytest

from planner_app.core.dp.accuracy import Accuracy
from planner_app.core.kinds import KINDS
from planner_app.core.kinds import shared_form as sf
from planner_app.core.kinds.registry import make_query
from tests.kind_table import (
    DELTA_KINDS,
    EXPECTED_COUNT_KINDS,
    MECHANISMS_BY_KIND,
    NEEDS_BOUNDS,
    YES_NO_KINDS,
    kind_takes,
)
from tests.kind_table import KINDS as PLAN_KINDS


def test_every_kind_of_the_plan_has_a_form() -> None:
    assert tuple(KINDS) == PLAN_KINDS


@pytest.mark.parametrize("name", PLAN_KINDS)
def test_the_form_shows_the_fields_the_plan_takes(name: str) -> None:
    fields = KINDS[name].form_fields()
    assert fields <= sf.FORM_FIELDS
    assert sf.COLUMN in fields
    assert (sf.BOUNDS in fields) == (name in NEEDS_BOUNDS)
    assert (sf.YES_NO in fields) == (name in YES_NO_KINDS)
    assert (sf.EXPECTED_COUNT in fields) == (name in EXPECTED_COUNT_KINDS)
    for row_field in (sf.GROUP_BY, sf.WHERE):
        assert (row_field in fields) == kind_takes(name, row_field)
    assert (sf.QUANTILE in fields) == (name == "quantile")
    assert (sf.DOMAIN in fields) == (name in ("histogram", "synthetic"))
    assert (sf.COUNT_OF in fields) == (name == "count")
    table = name == "synthetic"
    for own in (sf.SYNTH_COLUMNS, sf.SYNTH_ROWS):
        assert (own in fields) == table
    assert (sf.DELTA in fields) == (name in DELTA_KINDS)
    assert (sf.MISSING in fields) == (not table)
    assert KINDS[name].releases_table() == table


@pytest.mark.parametrize("name", PLAN_KINDS)
def test_the_form_offers_the_mechanisms_the_plan_accepts(name: str) -> None:
    options = KINDS[name].form_mechanisms()
    assert tuple(o.value for o in options) == MECHANISMS_BY_KIND[name]
    assert all(o.label for o in options)
    assert KINDS[name].form_noise_tip()
    words = KINDS[name].form_words()
    assert words.column_label and words.declare


def test_a_count_names_the_rows_it_counts() -> None:
    count = KINDS["count"]
    rows = make_query("count", id="n", epsilon=1.0)
    present = make_query("count", id="n", epsilon=1.0, column="age")
    people = make_query("count", id="n", epsilon=1.0, of="people")
    assert [count.list_name(q) for q in (rows, present, people)] == [
        "Count of rows", "Count, age present", "Count of people"]
    assert count.pane_heading(rows, None, 1) == ("Count of rows", None)
    mean = make_query("mean", id="m", epsilon=1.0, column="age", lower=0, upper=9)
    assert KINDS["mean"].list_name(mean) == "Mean"
    assert KINDS["mean"].pane_heading(mean, None, 1) == ("Mean of ", "age")


def test_a_quantile_says_its_accuracy_in_percentiles() -> None:
    q = make_query("quantile", id="q", epsilon=1.0, column="age", lower=0, upper=99,
              quantile=0.5, expected_count=1000)
    acc = Accuracy(half_width=10.0, unit="rank", confidence=0.95, note="plain note", rows=1000.0)
    assert "median" in KINDS["quantile"].pane_accuracy_note(q, acc)
    mean = make_query("mean", id="m", epsilon=1.0, column="age", lower=0, upper=9)
    assert KINDS["mean"].pane_accuracy_note(mean, acc) == "plain note"
