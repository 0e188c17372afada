"""Issue 22 part 3: the headline belief sentence with δ > 0 states the bound that holds with δ
(that of ε + ln 2, except with a chance of at most 2δ) in the same sentence, never the pure-ε
bound unqualified; the δ sentence of a replace-one plan compares the person's record with any
other record in its place, not "with the person's data as without it"."""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, getcontext

import pytest

from planner_app.core.dp.risk import explain

getcontext().prec = 50
EPS = math.log(3)  # 50% -> 75% without δ


def upper(prior: float, eps: float) -> Decimal:
    e = Decimal(eps).exp()
    p = Decimal(prior)
    return p * e / (1 + p * (e - 1))


def lower(prior: float, eps: float) -> Decimal:
    e = Decimal(eps).exp()
    p = Decimal(prior)
    return p / (e - p * (e - 1))


def pct(x: Decimal, up: bool) -> str:
    """x as a percentage with one decimal, rounded in the safe direction."""
    value = (x * 100).quantize(Decimal("0.1"), rounding=ROUND_CEILING if up else ROUND_FLOOR)
    return f"{value.normalize():f}%"


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_pure_epsilon_keeps_its_bound(relation: str) -> None:
    risk = explain(EPS, 0.0, relation=relation)
    assert risk.sentence.endswith("can be at most 75% sure after this release.")
    assert risk.lower_sentence.endswith("no less than 25%.")
    assert risk.delta_sentence.startswith("δ = 0")


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_with_delta_the_headline_states_the_bound_that_holds(relation: str) -> None:
    delta = 1e-6
    risk = explain(EPS, delta, relation=relation)
    wider = EPS + math.log(2)  # P(loss > ε + ln 2) <= δ / (1 - 1/2) = 2δ
    high, low = pct(upper(0.5, wider), up=True), pct(lower(0.5, wider), up=False)
    assert (high, low) == ("85.8%", "14.2%")  # 6/7 and 1/7
    s = risk.sentence
    # 2δ = 2e-06 is a chance of 1 in 500,000
    assert f"can be at most {high} sure after this release, except with a chance of at most " \
           f"1 in {round(1 / (2 * delta)):,}" in s
    assert "(75% only if δ were 0)" in s  # the pure bound, qualified in the same sentence
    assert "at most 75% sure" not in s
    assert f"no less than {low}, except with a chance of at most 1 in 500,000" \
        in risk.lower_sentence
    assert f"ε + ln 2 = {wider:.4g}" in risk.delta_sentence
    subject = "a fact about one person's record holds" if relation == "replace-one" \
        else "a person is in the data"
    assert f"50% sure that {subject} can be" in s


def test_a_chance_in_words_is_never_understated() -> None:
    from planner_app.core.dp.risk import chance_words

    for p, said in ((2e-6, "1 in 500,000"), (1.0883e-5, "1 in 91,800"), (0.003, "1 in 333")):
        assert chance_words(p) == said
        assert 1 / int(said.split()[-1].replace(",", "")) >= p


def test_the_delta_sentence_names_what_replace_one_compares() -> None:
    text = explain(EPS, 1e-6, relation="replace-one").delta_sentence
    assert "as without it" not in text
    assert "with the person's record as with any other record in its place, plus 1e-06" \
        in text
    assert "with the person's data as without it" in explain(EPS, 1e-6).delta_sentence
    group = explain(EPS, 1e-6, group_size=3, relation="replace-one").delta_sentence
    assert "with the 3 people's records as with any others in their place" in group


def test_explain_on_the_command_line_says_the_same() -> None:
    from tests.conftest import run_in_process

    done = run_in_process(["explain", "--epsilon", repr(EPS), "--delta", "1e-6",
                           "--relation", "replace-one"])
    assert done.returncode == 0, done.stderr
    risk = explain(EPS, 1e-6, relation="replace-one")
    lines = done.stdout.splitlines()
    assert lines[0] == risk.sentence and risk.delta_sentence in lines
    assert "as without it" not in done.stdout
