"""Issue 22 part 3, the rest: with δ > 0 every statement and drawing of the attacker's belief
uses the bound that holds with δ (that of ε + ln 2, except with a chance of at most 2δ): the
Groups sentence and the report's chart (HTML and PDF), not the pure-ε bound."""

from __future__ import annotations

import json
import math
from decimal import ROUND_CEILING, Decimal, getcontext
from pathlib import Path

import pytest

from planner_app.core.dp.risk import group_words
from planner_app.core.release import report

getcontext().prec = 50


def upper(prior: float, eps: float) -> float:
    """p·e^ε / (1 + p·(e^ε − 1)), written here again (formulas.md)."""
    e = math.exp(eps)
    return prior * e / (1 + prior * (e - 1))


def pct_up(x: float) -> str:
    value = (Decimal(x) * 100).quantize(Decimal("0.1"), rounding=ROUND_CEILING)
    return f"{value.normalize():f}%"


def test_the_groups_sentence_with_delta_states_the_bound_that_holds() -> None:
    eps, delta = 0.5, 1e-7
    text = group_words(eps, delta, 0.5, 2)
    g_eps = 2 * eps  # group privacy: g·ε, δ grows to g·e^((g-1)ε)·δ
    g_delta = 2 * math.exp(eps) * delta
    assert f"ε = {g_eps:.3g} with δ = {g_delta:.3g}" in text
    assert f"can reach at most {pct_up(upper(0.5, g_eps + math.log(2)))}" in text
    assert pct_up(upper(0.5, g_eps)) not in text  # the pure-ε bound, never stated alone
    # 2·δ_group = 6.6e-7: a chance of 1 in 1.51 million, three digits, rounded down
    assert "except with a chance of at most 1 in 1,510,000" in text


def test_the_groups_sentence_without_delta_keeps_the_pure_bound() -> None:
    text = group_words(math.log(3) / 2, 0.0, 0.5, 2)
    assert text.endswith("can reach at most 75%.")  # 2 × ln3/2 = ln 3: 50% -> 75%
    assert "except" not in text


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_the_report_chart_draws_the_bound_the_sentences_state(delta: float) -> None:
    eps = 1.0
    fig = report.chart_figure(eps, delta)
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    drawn = eps + (math.log(2) if delta > 0 else 0.0)
    high = lines["highest belief after"]
    assert high.get_ydata()[100] == pytest.approx(upper(0.5, drawn))  # prior 0.5 at index 100
    low = lines["lowest belief after"].get_ydata()[100]
    assert low == pytest.approx(0.5 / (math.exp(drawn) - 0.5 * (math.exp(drawn) - 1)))
    title = ax.get_title()
    assert ("ε + ln 2" in title) == (delta > 0)
    if delta > 0:
        assert "except with a chance of at most 1 in 500,000" in title


def test_a_release_with_delta_embeds_the_chart_of_its_delta(tmp_path: Path) -> None:
    """The HTML report of a real release with δ > 0 embeds the chart of (ε, δ), which the PDF
    draws too (one chart_png, cached): not the pure-ε chart."""
    import base64

    from planner_app.core.data.tables import load_table
    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.release.bundle import read_bundle
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home

    table = tmp_path / "t.csv"
    table.write_text("x\n1\n5\n3\n")
    plan = plan_from_dict({"format": "planner-app/plan@1", "dataset": {"name": "t"},
                           "privacy_unit": {"kind": "row"},
                           "budget": {"epsilon": 2, "delta": 1e-6},
                           "queries": [{"id": "n", "kind": "count", "epsilon": 1,
                                        "mechanism": "gaussian", "delta": 1e-6}]})
    publish(plan, load_table(table), tmp_path / "b.zip", app_home(tmp_path / "home"))
    files = read_bundle(tmp_path / "b.zip")
    html = files["report.html"].decode()
    total = json.loads(files["release.json"])["total"]
    assert total["delta"] > 0
    with_delta = base64.b64encode(report.chart_png(total["epsilon"], total["delta"])).decode()
    pure = base64.b64encode(report.chart_png(total["epsilon"], 0.0)).decode()
    assert with_delta in html and pure not in html
