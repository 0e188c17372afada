"""What ε means to a person: bounds on an attacker's belief, and the sentences we show.

An attacker who knows everyone but the target and believes with probability p (the prior)
that the target is in the data can, after an ε-DP release, believe at most
upper(p, ε) = p·e^ε / (1 + p·(e^ε - 1)) and at least lower(p, ε) = p / (e^ε - p·(e^ε - 1)).
With δ > 0 these hold except with probability δ, and a coin-flip guess is right with
probability at most (e^ε + δ)/(1 + e^ε).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from .accounting import group_privacy


def posterior_max(prior: float, epsilon: float) -> float:
    if prior >= 1:
        return 1.0
    if epsilon > 700:
        return 1.0 if prior > 0 else 0.0
    e = math.exp(epsilon)
    return prior * e / (1 + prior * (e - 1))


def posterior_min(prior: float, epsilon: float) -> float:
    if prior >= 1:
        return 1.0
    if epsilon > 700:
        return 0.0
    e = math.exp(epsilon)
    return prior / (e - prior * (e - 1))


def guess_success(epsilon: float, delta: float = 0.0) -> float:
    """Best chance of a right guess from a 50% prior: (e^ε + δ)/(1 + e^ε)."""
    if epsilon > 700:
        return 1.0
    e = math.exp(epsilon)
    return min(1.0, (e + delta) / (1 + e))


def out_of_100(epsilon: float, delta: float = 0.0) -> int:
    """Of 100 coin-flip targets, how many an attacker can be right about at most."""
    return min(100, math.ceil(100 * guess_success(epsilon, delta) - 1e-9))


def percent(p: float, round_up: bool) -> str:
    """A probability as a percentage, one decimal at most, rounded in the safe direction."""
    v = 100 * p
    r = round(v, 1)
    if round_up and r < v - 1e-9:
        r = math.ceil(v * 10 - 1e-6) / 10
    elif not round_up and r > v + 1e-9:
        r = math.floor(v * 10 + 1e-6) / 10
    if r == 100 and v < 100:
        r = 99.9
    if r == 0 and v > 0:
        return "less than 0.1%"
    text = f"{r:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def _subject(relation: str) -> str:
    if relation == "replace-one":
        return "a fact about one person's record"
    return "a person is in the data"


@dataclass(frozen=True)
class Risk:
    epsilon: float
    delta: float
    prior: float
    group_size: int
    group_epsilon: float
    group_delta: float
    posterior_max: float
    posterior_min: float
    out_of_100: int
    sentence: str
    lower_sentence: str
    frequency_sentence: str
    delta_sentence: str
    group_sentence: str

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def summary(self) -> dict[str, object]:
        """The readings a report or record shows for a whole release."""
        return {"sentence": self.sentence, "lower": self.lower_sentence,
                "out_of_100": self.frequency_sentence, "delta": self.delta_sentence,
                "posterior_max": self.posterior_max, "posterior_min": self.posterior_min}


def explain(epsilon: float, delta: float = 0.0, prior: float = 0.5, group_size: int = 1,
            relation: str = "add-remove", what: str = "this release") -> Risk:
    """All the plain-language readings of (ε, δ) for a prior and a group size."""
    g_eps, g_delta = group_privacy(epsilon, delta, group_size)
    hi = posterior_max(prior, g_eps)
    lo = posterior_min(prior, g_eps)
    subject = _subject(relation)
    who = "a person" if group_size == 1 else f"a group of {group_size} people (say a household)"
    if group_size > 1:
        subject = subject.replace("a person", "a group of people").replace(
            "one person's record", f"the records of {group_size} people")
    sentence = (f"An attacker who was {percent(prior, round_up=False)} sure that {subject} "
                f"can be at most {percent(hi, round_up=True)} sure after {what}.")
    lower = (f"An attacker who was {percent(prior, round_up=False)} sure can be pushed down to "
             f"no less than {percent(lo, round_up=False)}.")
    n100 = out_of_100(g_eps, g_delta)
    frequency = (f"Of 100 people targeted from a coin-flip start, an attacker is right about "
                 f"at most {n100} of them, against 50 with no release.")
    if g_delta > 0:
        delta_text = (f"δ = {g_delta:.3g}: the bounds above hold except with a chance of at most "
                      f"{g_delta:.3g} (about 1 in {max(1, round(1 / g_delta)):,}), in which "
                      "the release could reveal more.")
    else:
        delta_text = "δ = 0: the bounds hold always (pure differential privacy)."
    group_text = (f"For {who}, the guarantee is ε = {g_eps:.4g}"
                  + (f" with δ = {g_delta:.3g}." if g_delta > 0 else "."))
    return Risk(epsilon=epsilon, delta=delta, prior=prior, group_size=group_size,
                group_epsilon=g_eps, group_delta=g_delta, posterior_max=hi, posterior_min=lo,
                out_of_100=n100, sentence=sentence, lower_sentence=lower,
                frequency_sentence=frequency, delta_sentence=delta_text,
                group_sentence=group_text)
