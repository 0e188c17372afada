"""What ε means to a person: bounds on an attacker's belief, and the sentences we show.

An attacker who knows everyone but the target and believes with probability p (the prior)
that the target is in the data can, after an ε-DP release, believe at most
upper(p, ε) = p·e^ε / (1 + p·(e^ε - 1)) and at least lower(p, ε) = p / (e^ε - p·(e^ε - 1)).
With δ > 0, (ε, δ)-DP says that any set of outcomes is at most e^ε times as likely with the
person as without, plus δ. It does not say these bounds fail with probability at most δ (the
privacy loss can exceed ε more often: 8.6-11.9 × δ for the tool's own totals). What it does
give: a coin-flip guess is right with probability at most (e^ε + δ)/(1 + e^ε), and the loss
exceeds ε + t with probability at most δ/(1 - e^-t), so the bounds for ε + ln 2 hold except
with probability at most 2δ.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from typing import Any

from ..support.numbers import shown
from .accounting import group_privacy

SLACK = math.log(2)  # with δ > 0 the belief bounds are stated for ε + ln 2 (module docstring)


def bound_epsilon(epsilon: float, delta: float) -> float:
    """The ε whose belief bounds are stated and drawn for an (ε, δ) guarantee: ε itself when
    δ = 0, else ε + ln 2 (those bounds hold except with a chance of at most 2δ; module
    docstring). The one rule every sentence and chart of the attacker's belief uses."""
    return epsilon + SLACK if delta > 0 else epsilon


def bound_label(epsilon: float, delta: float) -> str:
    """Which ε a chart of the belief bounds is drawn for, in words."""
    if delta > 0:
        return f"ε + ln 2 = {bound_epsilon(epsilon, delta):.3g} (δ > 0)"
    return f"ε = {epsilon:.3g}"


def chart_title(epsilon: float, delta: float) -> str:
    """A belief chart's title: what it is drawn for, and with δ > 0 how rarely it may fail."""
    if delta > 0:
        return (f"What ε = {shown(epsilon)}, δ = {delta:.3g} allows an attacker to learn\n"
                f"(bounds of ε + ln 2 = {shown(bound_epsilon(epsilon, delta))}, except with a "
                f"chance of at most {chance_words(loss_tail_bound(delta, SLACK))})")
    return f"What ε = {shown(epsilon)} allows an attacker to learn"


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


def belief_curves(priors: Any, epsilon: float) -> tuple[Any, Any]:
    """(highest, lowest) belief after the release for every prior at once (a float or a numpy
    array): posterior_max and posterior_min written so that an array needs no loop and no
    prior divides by zero (the lowest as p / (p + (1 - p)·e^ε)). The risk pane and the
    report's chart draw these."""
    e = math.exp(min(epsilon, 700.0))
    return priors * e / (1 + priors * (e - 1)), priors / (priors + (1 - priors) * e)


def guess_success(epsilon: float, delta: float = 0.0) -> float:
    """Best chance of a right guess from a 50% prior: (e^ε + δ)/(1 + e^ε)."""
    if epsilon > 700:
        return 1.0
    e = math.exp(epsilon)
    return min(1.0, (e + delta) / (1 + e))


def out_of_100(epsilon: float, delta: float = 0.0) -> int:
    """Of 100 coin-flip targets, how many an attacker can be right about at most."""
    return min(100, math.ceil(100 * guess_success(epsilon, delta) - 1e-9))


def format_percent(p: float, round_up: bool, complement: float | None = None) -> str:
    """A probability as a percentage, rounded in the safe direction: an upper bound up, a lower
    bound down. It shows two significant digits of the smaller of p and 1 - p (at least one
    decimal), so 99.909% and 99.966% never both read "99.9%". Pass ``complement`` (1 - p,
    computed without cancellation) when p is within float precision of 1."""
    q = (1 - p) if complement is None else complement
    if not math.isfinite(p) or q <= 0:
        return "100%"
    if p <= 0:
        return "0%"
    small = min(p, q)
    decimals = max(1, -math.floor(math.log10(100 * small)) + 1) if small > 0 else 1
    decimals = min(decimals, 40)
    with localcontext() as ctx:
        # enough digits that every step is exact: a float has at most ~770 significant
        # digits and 1100 cover 100 - 100q down to q = 5e-324 (the default 28 could not
        # quantize 100 - 7e-44 to 40 decimals: InvalidOperation)
        ctx.prec = 1100
        if q < p and complement is not None:
            # 100 - 100q exactly in decimal, so digits far below float's 16 are right
            value = Decimal(100) - Decimal(100) * Decimal(q)
        else:
            value = Decimal(100) * Decimal(p)
        step = Decimal(1).scaleb(-decimals)
        rounded = value.quantize(step, rounding=ROUND_CEILING if round_up else ROUND_FLOOR)
    rounded = min(max(rounded, Decimal(0)), Decimal(100))
    if rounded == 100:
        return "100%"
    text = f"{rounded:.{decimals}f}".rstrip("0").rstrip(".")
    return f"{text}%"


def prior_percent(p: float) -> str:
    """A belief a person chose (the prior), as they chose it: its shortest decimal, rounded in
    neither direction (0.71 is 0.70999… in binary: it reads 71%, never 70.9%)."""
    value = (Decimal(repr(float(p))) * 100).normalize()
    return f"{value:f}%"


def percent(p: float, round_up: bool) -> str:
    """Kept for callers of the old name: ``format_percent`` without a complement."""
    return format_percent(p, round_up)


def posterior_max_complement(prior: float, epsilon: float) -> float:
    """1 - posterior_max(prior, ε), computed without cancellation (for many digits near 1)."""
    if prior >= 1 or epsilon > 700:
        return 0.0 if prior > 0 else 1.0
    e = math.exp(epsilon)
    return (1 - prior) / (1 + prior * (e - 1))


def upper_percent(prior: float, epsilon: float) -> str:
    """The highest belief after a release, as text rounded up."""
    return format_percent(posterior_max(prior, epsilon), round_up=True,
                          complement=posterior_max_complement(prior, epsilon))


def lower_percent(prior: float, epsilon: float) -> str:
    """The lowest belief after a release, as text rounded down."""
    return format_percent(posterior_min(prior, epsilon), round_up=False)


def loss_tail_bound(delta: float, slack: float) -> float:
    """What (ε, δ)-DP says about the privacy loss L: P(L > ε + slack) <= δ / (1 - e^-slack).

    (ε, δ)-DP bounds the hockey-stick divergence E[(1 - e^(ε - L))+] <= δ; on the event
    L > ε + t the integrand is at least 1 - e^-t (Markov). It does NOT bound P(L > ε) by δ."""
    return min(1.0, delta / -math.expm1(-slack))


def chance_words(p: float) -> str:
    """A small chance in words, rounded up (never understated): "1 in 500,000" (three
    significant digits of N, rounded down); from 1% up, a percentage."""
    if p >= 0.01:
        return format_percent(p, round_up=True)
    n = math.floor(1 / p) if p > 0 else 0
    if n <= 0:
        return "0"
    digits = max(0, len(str(n)) - 3)
    n = n // 10**digits * 10**digits
    return f"1 in {n:,}"


def frequency_words(epsilon: float, delta: float = 0.0, group_size: int = 1) -> str:
    """Out of N coin-flip targets, how many an attacker is right about at most (rounded up).
    N grows from 100 by tens until the wrong guesses number at least one, so that ε = 7, 8
    and 10 do not all read "at most 100 of 100"."""
    if epsilon > 700:
        wrong = 0.0
    else:
        e = math.exp(epsilon)
        wrong = max(0.0, (1 - delta) / (1 + e))  # 1 - guess_success, without cancellation
    people = 100
    while people * wrong < 1 and people < 10**12:
        people *= 10
    right = min(people, math.ceil(people * (1 - wrong) - 1e-9 * people * wrong))
    targets = "people" if group_size <= 1 else f"groups of {group_size} people"
    return (f"Of {people:,} {targets} targeted from a coin-flip start, an attacker is right "
            f"about at most {right:,} of them, against {people // 2:,} with no release.")


def _subject(relation: str) -> str:
    if relation == "replace-one":
        return "a fact about one person's record holds"
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
    # the ε whose belief bounds the sentences state: ε + ln 2 with δ > 0 (they hold except
    # with a chance of at most 2δ), else the group's ε; charts draw this one
    bound_epsilon: float = math.nan

    @property
    def bound_label(self) -> str:
        """Which ε a chart of the bounds is drawn for, in words."""
        return bound_label(self.group_epsilon, self.group_delta)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def summary(self) -> dict[str, object]:
        """The readings a report or record shows for a whole release."""
        return {"sentence": self.sentence, "lower": self.lower_sentence,
                "out_of_100": self.frequency_sentence, "delta": self.delta_sentence,
                "posterior_max": self.posterior_max, "posterior_min": self.posterior_min}


MAX_GROUP_SIZE = 50  # the "What it means" pane's groups (a household, a family, a class)


def group_size_problem(size: float) -> str | None:
    """Why ``size`` cannot be the pane's number of people in a group (one phrase), or None."""
    if not isinstance(size, (int, float)) or not math.isfinite(size) or size != int(size):
        return "must be a whole number"
    if not 1 <= size <= MAX_GROUP_SIZE:
        return f"must be between 1 and {MAX_GROUP_SIZE}, not {int(size)}"
    return None


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
    before = prior_percent(prior)
    if g_delta > 0:  # the bounds that hold with δ, in the same sentence (see delta_words)
        tail = loss_tail_bound(g_delta, SLACK)
        stated = bound_epsilon(g_eps, g_delta)
        sentence = (f"An attacker who was {before} sure that {subject} can be at most "
                    f"{upper_percent(prior, stated)} sure after {what}, except with a "
                    f"chance of at most {chance_words(tail)} "
                    f"({upper_percent(prior, g_eps)} only if δ were 0).")
        lower = (f"An attacker who was {before} sure can be pushed down to no less than "
                 f"{lower_percent(prior, stated)}, except with a chance of at most "
                 f"{chance_words(tail)}.")
        delta_text = delta_words(g_eps, g_delta, prior, relation, group_size)
    else:
        sentence = (f"An attacker who was {before} sure that {subject} "
                    f"can be at most {upper_percent(prior, g_eps)} sure after {what}.")
        lower = (f"An attacker who was {before} sure can be pushed down to "
                 f"no less than {lower_percent(prior, g_eps)}.")
        delta_text = "δ = 0: the bounds hold always (pure differential privacy)."
    n100 = out_of_100(g_eps, g_delta)
    frequency = frequency_words(g_eps, g_delta, group_size)
    group_text = (f"For {who}, the guarantee is ε = {g_eps:.4g}"
                  + (f" with δ = {g_delta:.3g}." if g_delta > 0 else "."))
    return Risk(epsilon=epsilon, delta=delta, prior=prior, group_size=group_size,
                group_epsilon=g_eps, group_delta=g_delta, posterior_max=hi, posterior_min=lo,
                out_of_100=n100, sentence=sentence, lower_sentence=lower,
                frequency_sentence=frequency, delta_sentence=delta_text,
                group_sentence=group_text,
                bound_epsilon=bound_epsilon(g_eps, g_delta))


def group_words(epsilon: float, delta: float, prior: float, group_size: int) -> str:
    """What ε means for a group of people who share data (at least two), in one sentence;
    with a group size of 1 the example is a group of two, and says so."""
    g = max(2, group_size)
    g_eps, g_delta = group_privacy(epsilon, delta, g)
    example = " (for example; set the group size to see yours)" if group_size < 2 else ""
    reach = upper_percent(prior, bound_epsilon(g_eps, g_delta))
    if g_delta > 0:  # the bound that holds with δ, as the headline sentence states it
        return (f"For a group of {g} people{example}, say a household, the guarantee is "
                f"ε = {g_eps:.3g} with δ = {g_delta:.3g}: an attacker who was "
                f"{prior_percent(prior)} sure about the group can reach at most {reach}, "
                f"except with a chance of at most "
                f"{chance_words(loss_tail_bound(g_delta, SLACK))}.")
    return (f"For a group of {g} people{example}, say a household, the guarantee is "
            f"ε = {g_eps:.3g}: an attacker who was {prior_percent(prior)} sure about the group "
            f"can reach at most {reach}.")


def _with_and_without(relation: str, group_size: int = 1) -> str:
    """What (ε, δ)-DP compares, for the relation: the data with and without the person
    (add-remove), or the person's record against any other record in its place
    (replace-one)."""
    whose = "the person's" if group_size <= 1 else f"the {group_size} people's"
    if relation == "replace-one":
        if group_size <= 1:
            return f"with {whose} record as with any other record in its place"
        return f"with {whose} records as with any others in their place"
    return f"with {whose} data as without it"


def delta_words(epsilon: float, delta: float, prior: float = 0.5,
                relation: str = "add-remove", group_size: int = 1) -> str:
    """What δ > 0 guarantees, truthfully: not "the bounds fail with chance δ". ``epsilon``
    and ``delta`` are the guarantee for the group of ``group_size`` people."""
    tail = loss_tail_bound(delta, SLACK)
    return (f"δ = {delta:.3g}: any outcome of the release is at most e^ε times as likely "
            f"{_with_and_without(relation, group_size)}, plus {delta:.3g}. This does not mean "
            f"the bounds of ε alone fail only with a chance of δ: they can fail more often. "
            f"So the bounds above are those of ε + ln 2 = {epsilon + SLACK:.4g}, which hold "
            f"except with a chance of at most {chance_words(tail)} (2δ), and the count of "
            "people targeted above already allows for δ.")
