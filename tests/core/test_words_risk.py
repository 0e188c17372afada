"""Risk sentences that are true: posterior percentages rounded in the safe direction with
enough digits, and a δ sentence that does not claim more than (ε, δ)-DP gives."""

from __future__ import annotations

import math
import re
from decimal import Decimal, getcontext
from statistics import NormalDist

import pytest

from planner_app.core.dp.risk import explain, format_percent, loss_tail_bound

getcontext().prec = 60


def true_upper(prior: Decimal, eps: Decimal) -> Decimal:
    e = eps.exp()
    return prior * e / (1 + prior * (e - 1))


def true_lower(prior: Decimal, eps: Decimal) -> Decimal:
    e = eps.exp()
    return prior / (e - prior * (e - 1))


def shown(sentence: str, after: str) -> Decimal:
    m = re.search(after + r" ([0-9.]+)%", sentence)
    assert m, sentence
    return Decimal(m.group(1)) / 100


@pytest.mark.parametrize("eps", [7, 8, 10])
def test_large_epsilon_is_not_capped_at_99_9(eps: int) -> None:
    risk = explain(float(eps))
    assert "99.9%" not in risk.sentence
    truth = true_upper(Decimal("0.5"), Decimal(eps))
    hi = shown(risk.sentence, "at most")
    assert hi >= truth  # rounded up
    assert hi - truth < (1 - truth) * Decimal("0.1")  # two significant digits of 1 - p


def test_readings_differ_between_epsilons_and_round_safely() -> None:
    uppers, lowers = [], []
    for i in range(1, 301):  # ε = 0.1 .. 30
        eps = Decimal(i) / 10
        risk = explain(float(eps))
        hi = shown(risk.sentence, "at most")
        lo = shown(risk.lower_sentence, "no less than")
        assert hi >= true_upper(Decimal("0.5"), eps)
        assert lo <= true_lower(Decimal("0.5"), eps)
        uppers.append(hi)
        lowers.append(lo)
    assert len(set(uppers)) == len(uppers)
    assert len(set(lowers)) == len(lowers)


def test_format_percent_directions() -> None:
    assert format_percent(0.5, round_up=False) == "50%"
    assert format_percent(0.123451, round_up=True) == "12.4%"
    assert format_percent(0.123449, round_up=False) == "12.3%"
    assert format_percent(0.00012345, round_up=False) == "0.012%"
    assert format_percent(0.00012345, round_up=True) == "0.013%"


def gaussian_delta(eps: float, sigma: float) -> float:
    """Exact δ(ε) of the Gaussian mechanism with sensitivity 1 (Balle and Wang 2018)."""
    nd = NormalDist()
    return nd.cdf(1 / (2 * sigma) - eps * sigma) - math.exp(eps) * nd.cdf(
        -1 / (2 * sigma) - eps * sigma)


def test_delta_is_not_the_chance_the_loss_exceeds_epsilon() -> None:
    # For a Gaussian mechanism the privacy loss is N(mu, 2 mu), mu = 1 / (2 sigma^2): the chance
    # that it exceeds ε is several times δ, so "the bounds hold except with chance δ" is false.
    sigma, eps = 3.0, 1.0
    delta = gaussian_delta(eps, sigma)
    mu = 1 / (2 * sigma**2)
    loss = NormalDist(mu, math.sqrt(2 * mu))
    assert 1 - loss.cdf(eps) > 3 * delta
    text = explain(eps, delta).delta_sentence
    assert "except with a chance of at most" not in text or "(2δ)" in text
    assert "fail only with a chance of δ" in text
    # what the sentence does claim holds: P(L > ε + ln 2) <= 2δ
    assert 1 - loss.cdf(eps + math.log(2)) <= loss_tail_bound(delta, math.log(2))
    assert loss_tail_bound(delta, math.log(2)) == pytest.approx(2 * delta)


def test_the_frequency_sentence_tells_large_epsilons_apart() -> None:
    seen = set()
    for eps in (5, 7, 8, 10):
        text = explain(float(eps)).frequency_sentence
        m = re.search(r"Of ([0-9,]+) people .* at most ([0-9,]+) of them", text)
        assert m, text
        people, right = (int(g.replace(",", "")) for g in m.groups())
        # rounded up: at least the true bound e^ε/(1 + e^ε) of them
        assert Decimal(right) >= Decimal(people) * Decimal(eps).exp() / (1 + Decimal(eps).exp())
        assert right < people
        seen.add((people, right))
    assert len(seen) == 4
    assert "Of 100 people" in explain(1.0).frequency_sentence
    assert "at most 74 of them" in explain(1.0).frequency_sentence


def test_the_replace_one_sentence_is_a_sentence() -> None:
    """Found by the adversarial pass: "…sure that a fact about one person's record can be at
    most…" had no verb."""
    from planner_app.core.dp.risk import explain

    text = explain(1.0, relation="replace-one").sentence
    assert "that a fact about one person's record holds can be at most" in text
