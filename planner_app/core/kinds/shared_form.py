"""The app's statistic form, as plain data the kinds give (Qt-free): which groups of fields a
kind's form shows, which noise mechanisms it offers and their names, and the words that
change with the kind. The app builds one panel per group (gui/dialogs/kind_panels) and shows
the groups ``kind_of(query).form_fields()`` names; the kinds share this module's pieces.

The groups are named by what they edit in the plan file:

- ``column``: the column the statistic is about (every kind; a synthetic table's selected
  column); ``count_of``: a count's "only rows where … is present" and "count people";
- ``bounds``: lower and upper bound; ``domain``: categories or numeric bins;
- ``quantile``: the quantile level; ``yes_no``: the values read as yes and as no, with the
  central-share hint (``share_hint``);
- ``expected_count``: the public guess of the rows a ± is computed from;
- ``group_by``, ``where``, ``missing``: the rows a statistic reads;
- ``synth_columns``, ``synth_rows``: a synthetic table's columns and rows to generate;
- ``delta``: δ is asked whatever the mechanism (a synthetic table's zCDP measurements);
- ``max_keys``, ``publish_counts``: a discovery of keys' keys per person and whether the
  found keys' noised counts are published; ``quantiles``: a discovery of bounds' two levels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

COLUMN: Final = "column"
COUNT_OF: Final = "count_of"
BOUNDS: Final = "bounds"
DOMAIN: Final = "domain"
QUANTILE: Final = "quantile"
YES_NO: Final = "yes_no"
SHARE_HINT: Final = "share_hint"
EXPECTED_COUNT: Final = "expected_count"
GROUP_BY: Final = "group_by"
WHERE: Final = "where"
MISSING: Final = "missing"
SYNTH_COLUMNS: Final = "synth_columns"
SYNTH_ROWS: Final = "synth_rows"
DELTA: Final = "delta"
# gui25: the discovery kinds' own fields
MAX_KEYS: Final = "max_keys"
PUBLISH_COUNTS: Final = "publish_counts"
QUANTILES: Final = "quantiles"
#: every group a kind's form may show
FORM_FIELDS: Final = frozenset({COLUMN, COUNT_OF, BOUNDS, DOMAIN, QUANTILE, YES_NO, SHARE_HINT,
                                EXPECTED_COUNT, GROUP_BY, WHERE, MISSING, SYNTH_COLUMNS,
                                SYNTH_ROWS, DELTA, MAX_KEYS, PUBLISH_COUNTS, QUANTILES})

MST_CITATION: Final = (
    "MST: McKenna, Miklau, Sheldon (2021), Winning the NIST Contest: A scalable and general "
    "approach to differentially private synthetic data. Noisy counts of each column and of "
    "the pairs on a tree, from which the rows are generated.")
AIM_CITATION: Final = (
    "AIM: McKenna, Mullins, Sheldon, Miklau (2022), AIM: An Adaptive and Iterative Mechanism "
    "for Differentially Private Synthetic Data. Noisy counts of each column, then of the "
    "pairs (and declared triples) the model gets most wrong, chosen round by round.")
NOISE_TIP: Final = "Discrete Laplace (pure ε) or Gaussian (needs δ)"
#: a mechanism's name in the form's list (the plan's name is the item's data)
MECHANISM_LABELS: Final = {
    "laplace": "Discrete Laplace (pure ε)",
    "gaussian": "Discrete Gaussian (needs δ)",
    "exponential": "Exponential mechanism",
    "randomized_response": "Randomized response (local)",
    "mst": "MST (noisy marginals)",
    "laplace_threshold": "Discrete Laplace above a threshold (needs δ)",
    # core25: the Gaussian variant of a discovery of keys
    "gaussian_threshold": "Discrete Gaussian above a threshold (needs δ)",

    "aim": "AIM (adaptive noisy marginals)",
}
#: a mechanism's tooltip in the list, where its name has no room for it
MECHANISM_TIPS: Final = {"mst": MST_CITATION, "aim": AIM_CITATION}


@dataclass(frozen=True)
class MechanismOption:
    """One item of the form's noise list: the plan's name, the form's words, a tooltip."""

    value: str
    label: str
    tip: str | None = None


@dataclass(frozen=True)
class FormWords:
    """The form's words that change with the kind: one statistic's, or a whole table's
    (one reason for the bins and one for the lists of all its columns)."""

    column_label: str
    bounds_reason_label: str
    bins_reason_label: str
    bounds_reason_placeholder: str
    bins_reason_placeholder: str
    bounds_reason_tip: str
    list_reason_label: str
    list_reason_tip: str
    declare: str
    declare_list_words: str  # "the list" in "Confirm the list: tick …"
    declare_words: str  # "this list" in "tick “I declare this list public”"


BINS_REASON_PLACEHOLDER: Final = ("Where do the bin edges come from? e.g. the standard "
                                  "reporting age bands")
BOUNDS_REASON_PLACEHOLDER: Final = ("Where do the bounds come from? e.g. the form accepts 0 "
                                    "to 80")

ONE_STATISTIC: Final = FormWords(
    column_label="Column",
    bounds_reason_label="Why these bounds",
    bins_reason_label="Why these bin edges",
    bounds_reason_placeholder=BOUNDS_REASON_PLACEHOLDER,
    bins_reason_placeholder=BINS_REASON_PLACEHOLDER,
    bounds_reason_tip="Where the bounds come from",
    list_reason_label="Why this list",
    list_reason_tip="Where the list comes from",
    declare="I declare this list public: it comes from knowledge of the domain, not from "
            "this data",
    declare_list_words="the list",
    declare_words="this list",
)
WHOLE_TABLE: Final = FormWords(
    column_label="Selected column",
    bounds_reason_label="Why the bin edges",
    bins_reason_label="Why the bin edges",
    bounds_reason_placeholder=BINS_REASON_PLACEHOLDER,
    bins_reason_placeholder=BINS_REASON_PLACEHOLDER,
    bounds_reason_tip="One reason for the bin edges of every column of the table",
    list_reason_label="Why the lists",
    list_reason_tip="One reason for the categories of every column of the table",
    declare="I declare these lists public: they come from knowing the domain, not from "
            "this data",
    declare_list_words="the lists",
    declare_words="these lists",
)
#: a count's column row: which rows it counts
COUNT_COLUMN_LABEL: Final = "Rows counted"


def mechanism_options(mechanisms: tuple[str, ...]) -> tuple[MechanismOption, ...]:
    """The noise mechanisms the form offers a kind, in the plan's order (the kind's
    ``mechanisms``)."""
    return tuple(MechanismOption(m, MECHANISM_LABELS[m], MECHANISM_TIPS.get(m))
                 for m in mechanisms)


def rows_fields(not_taken: frozenset[str], asks_expected_count: bool) -> frozenset[str]:
    """The groups of a statistic that reads rows of the table: its column, the missing-cell
    policy, the group-by and conditions the kind takes (its ``not_taken``) and, for the kinds
    whose ± depends on how many rows there are, the expected count."""
    fields = {COLUMN, MISSING}
    fields |= {f for f in (GROUP_BY, WHERE) if f not in not_taken}
    if asks_expected_count:
        fields.add(EXPECTED_COUNT)
    return frozenset(fields)
