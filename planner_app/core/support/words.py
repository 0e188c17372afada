"""The words a data owner reads, in one place: who one person is, what is protected, how a
count is named, how a number is rounded for the screen, and the glossary behind every
technical term (the GUI's tooltips and the user guide's Glossary section both come from
``GLOSSARY``).

Plain functions of plain values: no Qt, no plan objects (a unit is passed as its kind, id
column and row limit), so every layer can use them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from .numbers import DIGITS, shown

# ----------------------------------------------------------------------------- numbers


def confidence_percent(confidence: float) -> str:
    """A confidence level as people write it: 95%, 99.9%, 58% (never rounded to 100%)."""
    return f"{round(100 * float(confidence), 4):g}%"


def format_number(x: float, digits: int = DIGITS) -> str:
    """A number as a person reads it: the one rule of numbers.shown."""
    return shown(x, digits)


def squared_unit_words(column: str | None) -> str:
    """The unit of a variance and of its ±: the column's unit, squared."""
    return f"squared units of {column}" if column else "squared units (units²)"


# ----------------------------------------------------------------------------- who is protected


def rows_per_person(max_rows: int | None) -> str:
    """The contribution bound as a short phrase: "one row per person", "at most 3 rows per
    person"."""
    if max_rows is None:
        return "one row per person"
    return f"at most {max_rows} row{'s' if max_rows != 1 else ''} per person"


def unit_words(kind: str, id_column: str | None = None, max_rows: int | None = None,
               detail: bool = False, rows_reason: str | None = None) -> str:
    """Who one person is (the privacy unit), as one clause without a full stop.

    ``detail`` adds what happens to the extra rows of a person; ``rows_reason``: the owner's
    recorded decision that the rows are different people (``rows_are_people``)."""
    if kind != "person":
        if rows_reason:
            return ("each row of the table is a different person (the owner's recorded "
                    f"decision: “{rows_reason}”)")
        return "each row of the table is a different person"
    if max_rows is None:  # a new person unit: the owner has not said how many rows yet
        return (f"a person is identified by {id_column}; how many rows one person may have "
                "is not stated yet")
    text = (f"a person is identified by {id_column} and has at most {max_rows} "
            f"row{'s' if max_rows != 1 else ''}")
    if detail:
        text += " (extra rows are dropped at random before anything is computed)"
    return text


def unit_of(unit: object) -> str:
    """``unit_words`` for a PrivacyUnit or its JSON dict."""
    if isinstance(unit, Mapping):
        return unit_words(str(unit.get("kind")), unit.get("id_column"), unit.get("max_rows"),
                          rows_reason=rows_reason_of(unit))
    return unit_words(getattr(unit, "kind", "row"), getattr(unit, "id_column", None),
                      getattr(unit, "max_rows", None),
                      rows_reason=getattr(unit, "rows_reason", None))


def rows_reason_of(unit: Mapping[str, Any]) -> str | None:
    """The reason of a JSON unit's ``rows_are_people`` decision, if any."""
    decision = unit.get("rows_are_people")
    reason = decision.get("reason") if isinstance(decision, Mapping) else None
    return str(reason) if reason else None


def relation_words(relation: str) -> str:
    """What is protected (the neighbouring relation), as one clause with its technical name
    in brackets."""
    if relation == "replace-one":
        return ("what a person's data says is protected, and the number of rows is treated "
                "as public (replace-one)")
    return "whether a person is in the data at all is protected (add-remove)"


UNIT_ROW_HELP = "Each row is a different person."
UNIT_PERSON_HELP = ("A person can have several rows, identified by an id column; rows beyond "
                    "the maximum are dropped at random, and every statistic protects all of a "
                    "person's rows together.")
# unitflow: the row unit while a column repeats like an id and no reason is recorded
UNIT_UNANSWERED_HELP = ("Not answered yet: use the id column above as the person id, or say "
                        "why each row is a different person.")
RELATION_HELP = {
    "add-remove": ("Protect whether a person is in the data at all (add-remove). Use this "
                   "unless the number of people is already public."),
    "replace-one": ("Protect what a person's data says, treating the number of rows as public "
                    "(replace-one)."),
}


# ----------------------------------------------------------------------------- statistics




# the Yes/no share kind's help (walk 2, findings 2 and 3): it is local and takes no groups,
# and the cheaper central share by group is a Mean of a 0/1 column
CENTRAL_SHARE_HINT = (
    "This share is local (randomized response): each answer is noised on its own, which "
    "costs far more ε, and it cannot be split by group. For a cheaper share of yes, or one "
    "by group: use a column coded 1 for yes and 0 for no (or true/false) and add a Mean of "
    "it with bounds 0 to 1. That mean is the share of yes, noised once (central model).")


# beside a costly randomized-response share's ± (walk 2, finding 3)
CENTRAL_SHARE_ACCURACY = (
    "Randomized response is local and costly: a central share of yes (a Mean of a column "
    "coded 1/0, bounds 0 to 1) reaches this ± with far less ε, and can be split by group.")


def present_words(column: str) -> str:
    """The rows a column counts in: "where income is present"."""
    return f"where {column} is present"


def rows_not_people_words(id_column: str | None, max_rows: int) -> str:
    """Under an id unit whose person may have several rows, what a count of rows is not
    (walk 2, finding 6: "Number of households" published a count of member rows); "" when
    each person has one row."""
    if not id_column or max_rows <= 1:
        return ""
    return f"not of people: one {id_column} has up to {max_rows:,} rows"


def people_option_words(id_column: str) -> str:
    """The count's option that counts people, as the form offers it."""
    return f"Count people (distinct {id_column})"


def count_words(column: str | None, imputed: bool = False, id_column: str | None = None,
                max_rows: int = 1, people: bool = False) -> str:
    """What a count counts: all rows, or the rows where a column is present (a column whose
    missing cells are imputed counts every row); under an id unit with several rows a
    person, that these are rows, not people. A count of ``people`` counts distinct ids."""
    if people and id_column:
        return (f"Count of people (distinct {id_column})"
                + (f" with a row {present_words(column)}" if column and not imputed else ""))
    words = (f"Count of rows {present_words(column)}" if column and not imputed
             else "Count of rows")
    rows = rows_not_people_words(id_column, max_rows)
    return f"{words} ({rows})" if rows else words


#: Asked when a changed statistic form is closed (Escape, Cancel, the close button)
DISCARD_STATISTIC_TITLE = "Discard this statistic?"
DISCARD_STATISTIC = ("The changes you made in this form will be lost. Discard them, or "
                     "cancel to keep editing?")


def statistic_of_words(column: str | None, kind_name: str) -> str:
    """A statistic over a column in a few words: "Mean of hours" (no column: the kind)."""
    return f"{kind_name} of {column}" if column else kind_name


# ----------------------------------------------------------------------------- synthetic tables


def synth_measurement_words(name: str, columns: int = 3) -> str:
    """What one measurement of a synthetic table of ``columns`` columns is, from its
    component name: "counts of region" (``oneway:region``), "counts of the pair chosen in
    round 2" (``twoway:2``; with two columns, "counts of its one pair of columns": nothing
    is chosen), "selection round 2" (``select:2``)."""
    kind, _, rest = name.partition(":")
    if kind == "oneway":
        return f"counts of {rest}"
    if kind == "rounds":
        return "AIM's adaptive rounds"
    if kind == "round":
        return f"counts of the marginal chosen in AIM's round {rest}"
    if kind == "twoway" and columns == 2:
        return "counts of its one pair of columns"
    if kind == "twoway":
        return f"counts of the pair chosen in round {rest.split(':')[0]}"
    return f"selection round {rest.split(':')[0]}"


def synth_measured_line(what: str, cells: int, sigma: float | None, epsilon: float | None,
                        pair: bool) -> str:
    """One measurement as the preview lists it: "counts of age (7 cells): noise σ = 22.03
    rows a cell", or a selection round with its ε (``cells``: the pairs it chooses among)."""
    if sigma is not None:
        shown = f"up to {cells:,}" if pair else f"{cells:,}"
        return f"{what} ({shown} cells): noise σ = {format_number(sigma)} rows a cell"
    return (f"{what}: chooses one of at most {cells:,} pairs (exponential mechanism, "
            f"ε = {format_number(epsilon if epsilon is not None else math.nan)})")


SYNTH_PREVIEW_NOTE = ("expected total variation distance of a measured marginal (0 is exact, "
                      "1 is all wrong), from the noise alone; pairs not measured are estimated "
                      "through the tree and may be further off")


SYNTH_PREVIEW_NOTE_ONE = ("expected total variation distance of a measured marginal (0 is "
                          "exact, 1 is all wrong), from the noise alone")


def synth_preview_note(columns: int) -> str:
    """The preview's note: a table of one column has no pairs and no tree to speak of."""
    return SYNTH_PREVIEW_NOTE_ONE if columns == 1 else SYNTH_PREVIEW_NOTE


def synth_accuracy_words(half_width: float | None, one_sigma: float | None,
                         two_sigma: float | None) -> str:
    """What a synthetic table's ± applies to, beside the number: a cell of a one-way count,
    and the same confidence on a measured pair's cell (its noise σ in proportion)."""
    words = "rows a cell of a one-way count"
    if half_width is None or not math.isfinite(half_width) or not one_sigma \
            or two_sigma is None:
        return words
    pair = format_number(half_width * two_sigma / one_sigma, 3)
    return f"{words} (± {pair} a cell of a measured pair)"


def synth_preview_lines(columns: int, one_sigma: float | None, rounds: int,
                        round_epsilon: float | None, two_sigma: float | None,
                        expected_rows: float | None, one_way_error: float | None,
                        two_way_error: float | None) -> list[str]:
    """What a synthetic table's budget buys, one clause a line without a full stop (the
    command line's check; the app's pane): the noise on its one-way marginals, the pairs it
    chooses and their noise, and the expected error for the rows stated."""
    out = []
    if columns and one_sigma is not None:
        what = "its one column" if columns == 1 else f"each of its {columns} columns"
        out.append(f"measures the counts of {what} with noise "
                   f"σ = {format_number(one_sigma)} rows a cell")
    if rounds and round_epsilon is not None and two_sigma is not None:
        out.append(f"chooses {rounds} pairs of columns (exponential mechanism, "
                   f"ε = {format_number(round_epsilon)} a round) and measures their counts "
                   f"with σ = {format_number(two_sigma)} rows a cell")
    if expected_rows is None:
        out.append("state about how many rows the table has (dataset.expected_rows) or the "
                   "rows to generate to see the expected error")
    elif one_way_error is not None:  # as the owner's comparison shows a distance
        err = (f"expected error for about {format_number(expected_rows)} rows, as total "
               f"variation distance: one-way marginals {one_way_error:.3f}")
        if two_way_error is not None:
            err += f", measured two-way marginals {two_way_error:.3f}"
        out.append(err)
    return out


SYNTH_REPORT_ABOUT = (
    "A synthetic table is made up: its rows are not people, and no row stands for anyone "
    "in the data. It was sampled from a model fitted to the noised counts listed above "
    "(one-way counts of every column, and two-way counts of the pairs chosen by the "
    "exponential mechanism, or, with two columns, of their one pair), so it only keeps "
    "the patterns those counts show. Joint "
    "patterns that were not measured (other pairs, three or more columns together) are "
    "not preserved beyond what the chosen pairs imply. Its accuracy is judged by those "
    "measured counts: each comes with its noise (the interval above), and anyone can "
    "count the synthetic file and compare; planner-app verify does so and reports the "
    "distance of each. Making the table from the noised counts costs "
    "no privacy: its guarantee is the one stated below.")

SYNTH_CLAMPED = (
    "This release shows negative counts as 0, the synthetic tables' noised "
    "counts too (clamped at 0, post-processing, in release.json and "
    "results.csv alike), and each synthetic table was fitted to its counts as "
    "shown.")


def synth_pair_line(two_sigma: float | None) -> str:
    """The preview's line for the one pair of a two-column table: it is the only candidate
    whatever the data, so it is measured without a selection round."""
    return (f"measures the counts of its one pair of columns (no choice to make) with "
            f"σ = {format_number(two_sigma if two_sigma is not None else math.nan)} rows a cell")


def synth_released_line(query_id: str, csv_name: str, rows: int) -> str:
    """What ``planner-app release`` says of a released synthetic table (its rows are
    published in the bundle: the plan's, or from the noised one-way totals)."""
    return f"synthetic table {query_id}: {csv_name}, {rows:,} made-up rows"


def synth_table_words(query_id: str, rows: object, rows_from_plan: bool,
                      columns: list[str], method: str, pairs: list[tuple[str, ...]],
                      seed: object, rounds: list[tuple[str, float]] | None = None) -> str:
    """The report's sentence on one released synthetic table (from release.json alone);
    ``rounds``: AIM's, each round's marginal and its ρ."""
    source = "as the plan states" if rows_from_plan else "from the noised one-way counts"
    head = (f"{query_id}: synthetic/{query_id}.csv has {rows} rows ({source}) of the "
            f"columns {', '.join(columns)}, made with {method.upper()} (Private-PGM)")
    if rounds is not None:  # aim25: AIM's rounds, each its marginal and its ρ
        each = "; ".join(f"{t}. {what} (ρ = {rho:.3g})"
                         for t, (what, rho) in enumerate(rounds, start=1))
        return (f"{head}; {len(rounds)} adaptive rounds, each measuring the marginal the "
                f"exponential mechanism chose: {each or 'none'}; sampling seed {seed}.")
    chosen = ", ".join(" × ".join(p) for p in pairs)
    return f"{head}; measured pairs: {chosen or 'none'}; sampling seed {seed}."


# aim25: AIM's preview and its place in the form's noise list
def aim_rounds_measured_line(rounds: int, first_sigma: float | None,
                             first_epsilon: float | None) -> str:
    """AIM's rounds in the preview's list of measurements (not a marginal: each round's σ
    and ε start here and anneal)."""
    sigma = format_number(first_sigma if first_sigma is not None else math.nan)
    eps = format_number(first_epsilon if first_epsilon is not None else math.nan)
    return (f"AIM's adaptive rounds: up to {rounds}, each measuring the marginal it chooses "
            f"(exponential mechanism, ε = {eps} at first) with noise σ = {sigma} rows a cell "
            f"at first")


#: how a marginal measured in one of AIM's rounds is grouped in results.csv and the report
#: ("region (AIM round 5)"), so a column or pair measured again never shares its group's
#: name with its first measurement; the Released chart draws each column's one-way counts
#: once and leaves these to the results table
AIM_ROUND_MARK = " (AIM round "


def aim_round_group(group: str, t: int) -> str:
    return f"{group}{AIM_ROUND_MARK}{t})"


AIM_PREVIEW_NOTE = ("expected total variation distance of a measured marginal (0 is exact, "
                    "1 is all wrong), from the noise alone; marginals not measured are "
                    "estimated through the fitted model and may be further off")

#: the owner's comparison: what an orange bar is, by method
SYNTH_COMPARE_INFERRED = {"mst": "a pair only inferred through the tree",
                          "aim": "a pair only inferred through the fitted model"}


def aim_rounds_line(rounds: int, first_sigma: float | None, first_epsilon: float | None,
                    rounds_rho: float, rho: float) -> str:
    """AIM's rounds in the preview, one clause without a full stop."""
    return (f"then up to {rounds} adaptive rounds (AIM), together spending at most "
            f"ρ = {format_number(rounds_rho)} of the table's ρ = {format_number(rho)}: "
            f"each round chooses the marginal the model gets "
            f"most wrong (exponential mechanism, ε = "
            f"{format_number(first_epsilon if first_epsilon is not None else math.nan)} at "
            f"first) and measures it (σ = "
            f"{format_number(first_sigma if first_sigma is not None else math.nan)} rows a "
            f"cell at first); when a measurement barely changes the model, later rounds "
            f"spend four times as much, with half the noise")



# ----------------------------------------------------------------------------- glossary

# term -> plain explanation. The keys are the words as they appear on screen; ``tooltip``
# finds the entry for a label by these keys and ``GLOSSARY_ALIASES``.
GLOSSARY: dict[str, str] = {
    "ε (epsilon)": (
        "The privacy budget: how much the published numbers may reveal about any one person. "
        "Smaller is more private and noisier. With ε = 1 an attacker who was 50% sure about "
        "a person can be at most about 73% sure after the release."),
    "δ (delta)": (
        "A tiny allowance that the ε guarantee may be exceeded, needed only by the Gaussian "
        "noise and some accountants. Keep it far below one over the number of people, for "
        "example 1e-6; 0 means none."),
    "Privacy unit": (
        "Who one person is in the table: one row, or all rows with the same id. Everything "
        "the app promises is about one such person."),
    "Contribution bound k": (
        "The most rows one person may have (rows per person). Extra rows are dropped at "
        "random before anything is computed; the noise is sized for k rows."),
    "Add-remove": (
        "Protect whether a person is in the data at all: the published numbers look almost "
        "the same with or without them. The safe default."),
    "Replace-one": (
        "Protect what a person's data says, treating the number of rows as public: the "
        "published numbers look almost the same whatever one person's values are."),
    "Sensitivity": (
        "The most one person can change a statistic before noise, given the bounds and the "
        "rows per person. The noise is sized to hide a change this big."),
    "Noise scale": (
        "How spread out the random noise is (the Laplace scale, or σ for Gaussian noise). "
        "It is the sensitivity divided by ε: more ε, less noise."),
    "σ (sigma)": (
        "The standard deviation of Gaussian noise: about two in three noisy values land "
        "within ± σ of the true value."),
    "Discrete Laplace": (
        "Whole-number noise with a sharp peak at zero, which gives pure ε privacy (δ = 0). "
        "Drawn exactly from the operating system's secure random generator."),
    "Discrete Gaussian": (
        "Whole-number bell-curve noise. It needs a δ above 0 but adds up more gently over "
        "many statistics."),
    "Exponential mechanism": (
        "How a quantile such as the median is released, and how a synthetic table chooses "
        "its pairs of columns: one option is picked at random, the options that fit the data "
        "best (values near the true quantile, pairs least explained by chance) being far more "
        "likely."),
    "Randomized response": (
        "Each yes/no answer is flipped at random before counting, so no single answer can be "
        "trusted, while the share of yes can still be estimated."),
    "Accuracy (±)": (
        "How far the published value may be from the true one because of the noise: the "
        "value is within ± this much with the stated confidence."),
    "Confidence": (
        "How often the ± holds: at 95% confidence the noise stays within the ± in 95 "
        "releases out of 100."),
    "Squared units": (
        "A variance is measured in the column's unit squared (for income in euros: euros²), "
        "and so is its ±."),
    "Bounds": (
        "The lowest and highest value a column can take, stated from knowledge of the domain "
        "(a form's limits), never read off the data. They set the sensitivity."),
    "Clamping": (
        "A value below the lower bound is counted as the lower bound, one above the upper "
        "bound as the upper bound, so no person can move a result further than the bounds "
        "allow."),
    "Grid step": (
        "Values are rounded to a fine grid of this step before they are added up, so the "
        "noise can be exact whole numbers. Each value moves by at most half a step; over "
        "many rows these small errors mostly cancel and stay far below the noise, but a "
        "very large table can need a finer grid step."),
    "Hoeffding bound": (
        "A guaranteed limit on how far a share estimated from randomized answers can be from "
        "the truth; it is used for the ± of a yes/no share."),
    "Accountant": (
        "The method that adds up the privacy cost of all statistics into one total ε and δ. "
        "The app uses the tightest valid one; when every statistic is pure ε (δ = 0), the "
        "release is pure ε-DP and its total is simply the sum of the ε's, with δ = 0."),
    "Basic composition": (
        "The simplest accountant: the ε (and δ) of all statistics are added."),
    "zCDP": (
        "Zero-concentrated differential privacy, an accountant for Gaussian noise: each "
        "statistic's cost ρ (rho) is added and the sum is turned into a total ε for the "
        "chosen δ."),
    "PLD": (
        "Privacy loss distributions, the tightest accountant: it combines the exact privacy "
        "cost of every statistic numerically into a total ε for the chosen δ."),
    "Group privacy": (
        "People who share data, such as a household, are protected together with a weaker "
        "guarantee: for g people it is about g × ε."),
    "Attacker's belief": (
        "How sure an attacker is that something about a person is true. The prior is before "
        "the release, the posterior after; ε limits how far the release can move it."),
    "Hold": (
        "A held statistic keeps its ε when the budget is split among the others."),
    "Budget ledger": (
        "The app's record of the ε already spent on a dataset, charged before any noise is "
        "drawn, so the lifetime budget can never be overspent."),
    "Mechanism": (
        "How the noise is made: discrete Laplace or Gaussian noise added to a count or sum, "
        "randomized response on each answer, or the exponential mechanism for a quantile."),
    "Derivation": (
        "The reasoning behind a statistic's sensitivity and noise, written out so that anyone "
        "can check it from the public parameters."),
    "Central or local model": (
        "Central: the organisation holds the data and adds noise to the statistics it "
        "publishes (as this app does). Local: each person's device adds noise before sending "
        "anything, which protects against the organisation too but needs far more noise."),
    "User-day": (
        "A privacy unit some deployments use: one person's data on one day. Its ε is spent "
        "again every day, so it does not compare directly with a per-person ε."),
    "Audit hash": (
        "Each audit entry carries the SHA-256 fingerprint of the entry before it, so that "
        "removing or changing an entry breaks the chain and verification notices."),
    "Key pair": (
        "Two matching keys made by the app (File → Keys…): a private key that stays with "
        "you and signs, and a public key that you give to others so they can check what you "
        "signed. Anyone may see the public key; nobody else may have the private one."),
    "Fingerprint": (
        "A short code of 16 letters and digits that names one public key. Before you rely on "
        "a key someone sent you, compare its fingerprint with its owner's, by phone or in "
        "person."),
    "Signature": (
        "Proof, made with a private key, that a file comes from the key's owner and has not "
        "changed since. A signed bundle carries one over its list of file hashes, so a "
        "changed number fails the check."),
    "Trusted key": (
        "Someone else's public key that you told the app to rely on (Keys → Import…, or "
        "--trust). Only a signature by a trusted key proves who made a bundle or an approval."),
    "Marginal": (
        "Counts of the values of one column (a one-way marginal: people in each region) or of "
        "each pair of values of two columns (a two-way marginal: people in each region and "
        "age band). A synthetic table is fitted to noised marginals."),
    "Total variation distance (TVD)": (
        "How far two sets of counts are apart as shares: half the sum of the differences "
        "between their shares, from 0 (the same) to 1 (nothing in common). It says how close "
        "a synthetic table's counts are to the released noised counts."),
    "Synthetic table": (
        "Made-up rows with the columns of the data, drawn from a model fitted to noised "
        "counts: its rows are not people. It keeps the patterns of the counts it measured "
        "(each column, and chosen pairs of columns), and no others."),
    "Noised count": (
        "A count with random noise added once before it is published: it may be a little "
        "off, even below zero. Read it as the true count give or take its ±."),
    "L1 sensitivity": (
        "How much one person can change the totals of a statistic, all its cells together "
        "(the changes added up). Laplace noise is sized to it."),
    "e^ε": (
        "The factor ε sets: any outcome of a release is at most e^ε times as likely with a "
        "person's data as without it (e^0.1 ≈ 1.1, e^1 ≈ 2.7, e^3 ≈ 20)."),
    "Formula-escaped": (
        "A value that a spreadsheet would run as a formula (it starts with =, +, - or @ and "
        "is not a number) is written with a ' before it, so opening the file runs nothing."),
    "Organisation's policy": (
        "Rules a privacy officer signs and you install: the most ε per release and per "
        "dataset, whose approval a release needs, columns never to use. The app then refuses "
        "any release that breaks them, and you cannot switch them off."),
}

# words on screen that mean a glossary term (lower case; a Greek letter or ± anywhere, a word
# or phrase as whole words)
GLOSSARY_ALIASES: dict[str, str] = {
    "ε": "ε (epsilon)", "epsilon": "ε (epsilon)", "δ": "δ (delta)", "delta": "δ (delta)",
    "σ": "σ (sigma)", "±": "Accuracy (±)",
    "mechanism": "Mechanism", "derivation": "Derivation", "model": "Central or local model",
    "central": "Central or local model", "local": "Central or local model",
    "user-day": "User-day", "hash": "Audit hash",
    "unit of privacy": "Privacy unit", "who is one person": "Privacy unit",
    "privacy unit": "Privacy unit",
    "rows per person": "Contribution bound k", "most rows one person": "Contribution bound k",
    "at most k rows": "Contribution bound k",
    "add-remove": "Add-remove", "replace-one": "Replace-one",
    "sensitivity": "Sensitivity", "noise scale": "Noise scale", "scale": "Noise scale",
    "laplace": "Discrete Laplace", "gaussian": "Discrete Gaussian",
    "exponential mechanism": "Exponential mechanism",
    "randomized response": "Randomized response",
    "accuracy": "Accuracy (±)", "confidence": "Confidence",
    "bounds": "Bounds", "clamped": "Clamping", "clamping": "Clamping",
    "grid step": "Grid step", "grid": "Grid step",
    "hoeffding": "Hoeffding bound", "accountant": "Accountant",
    "basic composition": "Basic composition", "zcdp": "zCDP", "pld": "PLD",
    "people in a group": "Group privacy", "group privacy": "Group privacy",
    "attacker's belief": "Attacker's belief", "prior": "Attacker's belief",
    "ledger": "Budget ledger", "squared units": "Squared units", "units²": "Squared units",
    "key pair": "Key pair", "public key": "Key pair", "private key": "Key pair",
    "signing key": "Key pair", "fingerprint": "Fingerprint", "signed bundle": "Signature",
    "signature": "Signature", "trusted key": "Trusted key", "trusted keys": "Trusted key",
    "trusted public keys": "Trusted key", "policy": "Organisation's policy",
    "marginal": "Marginal", "marginals": "Marginal", "one-way": "Marginal",
    "two-way": "Marginal", "tvd": "Total variation distance (TVD)",
    "total variation distance": "Total variation distance (TVD)",
    "synthetic table": "Synthetic table", "synthetic tables": "Synthetic table",
    "noised count": "Noised count", "noised counts": "Noised count",
    "noised marginal": "Noised count", "noised marginals": "Noised count",
    # viewer (issue 22)
    "l1": "L1 sensitivity", "e^ε": "e^ε", "formula-escaped": "Formula-escaped",
    "local model": "Central or local model", "hoeffding bound": "Hoeffding bound",
}
_SYMBOLS = ("ε", "δ", "σ", "±", "units²")


def terms_in(text: str) -> list[str]:
    """The glossary terms a text on screen uses, in glossary order (HTML tags ignored)."""
    plain = re.sub(r"<[^>]+>", " ", text).lower()
    found: set[str] = set()
    for name in GLOSSARY:
        if re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", plain):
            found.add(name)
    for alias, name in GLOSSARY_ALIASES.items():
        if alias in _SYMBOLS:
            if alias in plain:
                found.add(name)
        elif re.search(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", plain):
            found.add(name)
    return [name for name in GLOSSARY if name in found]


def glossary_tip(text: str, own: str = "") -> str:
    """A tooltip for a widget showing ``text``: its own tooltip ``own`` (if any), then the
    glossary's explanation of every term the text uses that ``own`` does not already give."""
    parts = [own] if own.strip() else []
    for name in terms_in(text):
        if GLOSSARY[name] not in own:
            parts.append(f"{name}: {GLOSSARY[name]}")
    return "\n\n".join(parts)


def glossary_entry(term: str) -> tuple[str, str] | None:
    """(glossary term, explanation) for a word or label on screen, or None."""
    key = term.strip().rstrip(":").strip()
    for name in GLOSSARY:
        if name.lower() == key.lower():
            return name, GLOSSARY[name]
    alias = GLOSSARY_ALIASES.get(key.lower())
    return (alias, GLOSSARY[alias]) if alias else None


def tooltip(term: str, lead: str = "") -> str:
    """A plain tooltip for a term: the caller's own sentence (if any), then the glossary's."""
    entry = glossary_entry(term)
    text = entry[1] if entry else ""
    return " ".join(t for t in (lead, text) if t)


def _sort_key(name: str) -> str:
    """"ε (epsilon)" sorts under e."""
    return re.sub(r"^\S \((\w+)\)$", r"\1", name).lower()


def glossary_markdown() -> str:
    """The user guide's Glossary section (resources/user-guide.md holds exactly this)."""
    lines = ["## Glossary", "",
             "The technical words the app shows, in plain terms. Hover over a word in the app "
             "to see the same explanation.", ""]
    for name in sorted(GLOSSARY, key=_sort_key):
        lines.append(f"- **{name}**: {GLOSSARY[name]}")
    return "\n".join(lines) + "\n"


# --- viewer (issue 22): plain words first, the technical term after them in brackets -------

#: (term as shown, its plain words): a text on screen says the plain words and keeps the term
#: in brackets after them, for the glossary and the tooltip. Texts the release record holds
#: (derivations, verification checks) keep their words (a verifier compares them); the app
#: shows them through ``plain_terms``.
PLAIN_TERMS: tuple[tuple[str, str], ...] = (
    (r"Hoeffding bound", "a bound that holds whatever the data (Hoeffding bound)"),
    (r"(?:the |an )?exponential mechanism", "a random choice that favours the best fit "
                                            "({0})"),
    (r"L1 distance", "total difference ({0})"),
    (r"L1 sensitivity|L1", "how much one person can change the totals (L1 sensitivity)"),
    (r"a measured marginal", "the measured counts of a column or pair ({0})"),
    (r"a one-way marginal", "one column's counts ({0})"),
    (r"(?:noise )?σ", "noise scale (σ)"),
    (r"e\^ε times", "a fixed number of times set by ε (e^ε times)"),
    (r"(?:pld|zcdp|basic) accountant", "how the ε of the statistics are added up ({0})"),
    (r"add-remove", "a person added or removed (add-remove)"),
    (r"replace-one", "a person's data changed (replace-one)"),
    (r"local model", "noise added to each answer on its own (local model)"),
    (r"formula-escaped", "with formulas made inert (formula-escaped)"),
    (r"total variation distance|TVD", "distance between counts ({0})"),
    (r"one-way marginals?", "counts of each column ({0})"),
    (r"two-way marginals?", "counts of pairs of columns ({0})"),
    (r"marginals?", "counts ({0})"),
)
_PLAIN_PATTERN = re.compile("|".join(f"(?<![\\w(-])(?:{p})(?![\\w-])" for p, _ in PLAIN_TERMS),
                            re.IGNORECASE)


def plain_terms(text: str) -> str:
    """``text`` with each technical term of PLAIN_TERMS shown after its plain words ("σ = 3"
    → "noise scale (σ) = 3"); a term already in brackets is left as it is."""
    def plain(match: re.Match[str]) -> str:
        before = text[:match.start()]
        if before.count("(") > before.count(")"):  # already explained in brackets
            return match.group(0)
        term = match.group(0)
        for pattern, words in PLAIN_TERMS:
            if re.fullmatch(pattern, term, re.IGNORECASE):
                return words.format(term)
        return term
    return _PLAIN_PATTERN.sub(plain, text)


# a statistic's expected_count in the statistic editor (mean, variance, quantile, share)
EXPECTED_COUNT_LABEL = "Rows used"
EXPECTED_COUNT_GROUP_LABEL = "Smallest group"
EXPECTED_COUNT_HELP = (
    "About how many rows this statistic uses, after its filter and without missing cells "
    "(with a group-by: the rows of its smallest group). A public guess, never read from the "
    "data: the ± shown before release is computed from it. Empty: the table's rows (Data tab).")

# below a table's refusal when its file is in no format the app reads (support/errors.with_hint)
TABLE_FORMATS_HINT = "Check that the file is a CSV, TSV, .xlsx or Parquet table."

# s: the desktop app's operation runner (gui/operations.py): a failed persistent change
OPERATION_FAILED_TITLE = "This could not be done"
OPERATION_DEFECT = ("planner_app hit an unexpected problem ({name}) and stopped what it was "
                    "doing. This is a bug.")
REVIEW_NOT_RECORDED_TITLE = "The decision was not recorded"


# api27: the composed total as `planner-app check` prints it and the Python API (and its
# notebooks) show it
def composed_total_words(epsilon: float, delta: float, accountant: str, fits: bool) -> str:
    """"Composed total: ε = 1.2, δ = 1e-06 (pld accountant); fits the budget: yes"."""
    return (f"Composed total: ε = {shown(epsilon)}, δ = {delta:.3g} ({accountant} "
            f"accountant); fits the budget: {'yes' if fits else 'NO'}")


# fixapi: what to do about a plan file the app cannot open: fix the field the message names,
# or (a file that is no plan at all: a bundle, not JSON) choose the plan file itself
def plan_open_advice(names_a_field: bool) -> str:
    """The line below the message of a plan that cannot be opened."""
    if names_a_field:
        return "Fix the field it names (see Help → User guide) and open it again."
    return "Choose the plan file (JSON, usually .json) and open it."


# core25: how a measurement's noise is named on the Statistic tab ("How the noise is set"),
# the core's one rule; a Gaussian discovery's threshold draws none of its own
def noise_words(mechanism: str, scale: float | None, sigma: float | None) -> str:
    """The noise of one measurement, in words (its scale or σ in the statistic's units)."""
    if mechanism == "none":
        return "no noise needed"
    if scale is not None:
        return f"discrete Laplace noise of scale {format_number(scale)}"
    if sigma is not None:
        return f"discrete Gaussian noise with σ = {format_number(sigma)}"
    if mechanism == "threshold":
        return "no noise of its own: it adds to δ, not to ε"
    return mechanism.replace("_", " ")

# cal26: a release refused because it has no place in its programme (records/programme.py
# says why), and the timeline of a dataset's spending (planning/forecast.py)
PROGRAMME_REFUSED_TITLE = "Refused: not this programme's release"
PROGRAMME_REFUSED_ADVICE = ("Nothing was charged. A plan released on a schedule is released "
                            "once for each of its dates, on that date or within its window, "
                            "and only as it was first released; a changed plan is a new "
                            "programme with a new name.")
TIMELINE_TITLE = "Spending over time"
TIMELINE_EXPLAIN = ("Each dataset's lifetime ε after every release so far (solid) and after "
                    "each release its programmes still plan (dashed), against its cap. The "
                    "planned figures assume each programme spends what its last release "
                    "spent; the ledger composes them as it will when they are charged.")
TIMELINE_NO_DATASET = "No dataset has a release or a cap in this ledger yet."
# the timeline's legend and notes (gui/widgets/timeline_chart.py draws them)
TIMELINE_RELEASED = "released (lifetime ε after each)"
TIMELINE_PLANNED = "planned by the programme"
TIMELINE_REFUSED = "would cross the cap: refused"
TIMELINE_CAP = "lifetime cap ε = {cap}"
TIMELINE_AXIS = "Lifetime ε spent"
TIMELINE_TODAY = "today"
TIMELINE_EMPTY = "No release yet, and none planned"
TIMELINE_COMPOSING = "Composing the lifetime spending of {name!r}…"

# gui27: the app's relations editor (Edit → Relations between statistics…, issue 27)
RELATIONS_TITLE = "Relations between statistics"
RELATIONS_INTRO = (
    "A relation says that the cells of one statistic add up to another: a histogram's cells "
    "to a count, a count by region to the total count, districts to their regions. The "
    "release then also publishes consistent values, which add up exactly; they are made "
    "from the noised values alone and cost no privacy. The relations and the headline "
    "values are part of the plan a privacy officer approves: changing them needs a new "
    "approval.")
RELATIONS_NONE = "No relation yet: every statistic is published with its own noise only."
RELATIONS_NEED_TWO = ("To declare a relation the plan needs a count or a sum, and a histogram "
                      "or a statistic of the same kind broken down by group.")
RELATION_REFUSED_TITLE = "This relation cannot be declared"
RELATIONS_WITHIN_HELP = ("The two statistics are grouped by different columns: say in which "
                         "{total} each {parts} lies (from your knowledge of the areas, never "
                         "from the data).")
RELATIONS_NON_NEGATIVE = "No consistent value below 0 (biases small cells upward a little)"
RELATIONS_INTEGER = "Whole numbers that still add up exactly (counts only)"
RELATIONS_HEADLINE = "Headline values (shown first in the report and the results)"

# walk2627: the timeline's planned releases left out between the first ones and the last
TIMELINE_GAP = "{n} more planned release(s), not drawn one by one"

# walk25: the statistic form's guide at its bottom (it names the "Find … privately…" buttons)
STATISTIC_FORM_GUIDE = (
    "Bounds, categories and group keys must be public: from knowledge of the domain — a "
    "form's limits, an official list — never copied from this data (its own minimum, maximum "
    "or list of values would leak it). When no such list or range exists, \"Find … "
    "privately…\" under the field finds them in the table with noise, as a release of its "
    "own charged to the dataset's budget. Values outside the bounds are clamped; values "
    "outside the list are left out.")

# disc25c: a release's lists and bounds found privately, verified with or without their
# discovery bundles (release/discovery_verdict.py decides; verify, report and the bundle
# viewer say its lines). Without the bundle the release is still valid: what was not checked
# is said, one line per discovery release, with how to check it.
DISCOVERY_NOT_CHECKED = ("{fields} say{s} {they} found privately in release {release}: not "
                         "checked, as its discovery bundle was not given ({how})")
DISCOVERY_HOW_CLI = "to check, give that bundle with --discovery DISCOVERY.zip"
DISCOVERY_HOW_APP = "to check, give that bundle with “Check its discoveries…”"
#: the command line's words for giving a discovery bundle, and the bundle viewer's
DISCOVERY_VIEWER_WORDS = (("with --discovery BUNDLE.zip", "with “Check its discoveries…”"),
                          ("(give --discovery only for a discovery the plan names)",
                           "(give only the discovery bundles the plan names)"))
DISCOVERY_CHECKED = ("every list or bound found privately in release {releases} equals its "
                     "discovery bundle's output ({names})")
DISCOVERY_NOT_VALID = "NOT valid with the discovery bundle given: {problem}"

# disc25c: bounds found privately on a table too small for their quantiles (the rule:
# kinds/discover_bounds.small_table_warning, from the plan's public row count only)
BOUNDS_SMALL_TABLE = (
    "on {rows} ({stated}) the {which} can land far from the data: the "
    "rank error (± {ranks} ranks, {confidence} confidence) exceeds the {level} distance from "
    "the {edge} of the table ({room} rows). {helps}")
#: walk25c: what helps, the first of them capitalised (more ε only when some ε can help)
BOUNDS_SMALL_TABLE_HELPS = "{more}{quantiles}or public bounds help"
BOUNDS_SMALL_TABLE_MORE = "more ε (about ε = {epsilon}), "
BOUNDS_SMALL_TABLE_ONLY_PUBLIC = "Public bounds help"
BOUNDS_SMALL_TABLE_QUANTILES = "quantiles at least {need} from each end, "
BOUNDS_ROWS_UNKNOWN = (
    "how close the bounds come to these quantiles depends on the number of rows: on fewer "
    "than about {rows} rows the rank error is larger than the quantile's distance from the "
    "edge of the table, and a bound can land far from the data ({how})")
#: walk25c: how to state the public row count, on the command line and in the app
BOUNDS_ROWS_STATED_CLI = "the plan's expected rows"
BOUNDS_ROWS_STATED_OWNER = "counted in the data"
BOUNDS_ROWS_STATED_APP = "the Data tab's “About how many rows (public)”"
BOUNDS_ROWS_HOW_CLI = "state the table's expected rows in the plan to be warned"
BOUNDS_ROWS_HOW_APP = ("type about how many rows the table has, a public figure, in the Data "
                       "tab's “About how many rows (public)” to be warned")
#: walk25c: a quantile of 0 or 1 has no row beyond it, whatever the table's size
BOUNDS_AT_THE_EDGE = (
    "a quantile of 0 or 1 is the column's minimum or maximum: no row lies beyond it, so on "
    "a table of any size every grid point beyond the data is as likely as the data's own "
    "edge, and the bound can land anywhere in the searched range outside the data; "
    "quantiles such as 0.01 and 0.99 come closer")
