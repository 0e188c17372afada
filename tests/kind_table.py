"""What each statistic kind is, written out by hand as docs/plan-format.md states it: the
independent answer the kind registry's tests compare each kind module's attributes with.

(Until issue 23 these tables were the plan model's; each kind now states its own, and these
copies keep the tests honest: a kind that changes what it takes fails them.)
"""

from __future__ import annotations

KINDS = ("count", "sum", "mean", "variance", "standard_deviation", "histogram", "quantile",
         "randomized_response", "synthetic", "discover_keys", "discover_bounds")
MECHANISMS_BY_KIND: dict[str, tuple[str, ...]] = {
    "count": ("laplace", "gaussian"),
    "sum": ("laplace", "gaussian"),
    "mean": ("laplace", "gaussian"),
    "variance": ("laplace", "gaussian"),
    "standard_deviation": ("laplace", "gaussian"),
    "histogram": ("laplace", "gaussian"),
    "quantile": ("exponential",),
    "randomized_response": ("randomized_response",),
    "synthetic": ("mst", "aim"),
    "discover_keys": ("laplace_threshold", "gaussian_threshold"),
    "discover_bounds": ("exponential",),
}
NEEDS_COLUMN = ("sum", "mean", "variance", "standard_deviation", "histogram", "quantile",
                "randomized_response", "discover_keys", "discover_bounds")
NEEDS_BOUNDS = ("sum", "mean", "variance", "standard_deviation", "quantile", "discover_bounds")
YES_NO_KINDS = ("randomized_response",)
NOT_TAKEN: dict[str, tuple[str, ...]] = {
    "randomized_response": ("group_by", "where"),
    "synthetic": ("group_by", "where"),
    "discover_keys": ("group_by",),
    "discover_bounds": ("group_by",),
}
EXPECTED_COUNT_KINDS = ("mean", "variance", "standard_deviation", "quantile",
                        "randomized_response")
# a ± for a stated row count
ROWS_KINDS = ("mean", "variance", "standard_deviation", "randomized_response")
KIND_NAMES = {
    "count": "Count", "sum": "Sum", "mean": "Mean", "variance": "Variance",
    "standard_deviation": "Standard deviation",
    "histogram": "Histogram", "quantile": "Quantile", "randomized_response": "Yes/no share",
    "synthetic": "Synthetic table",
    "discover_keys": "Keys found privately", "discover_bounds": "Bounds found privately",
}


#: the kinds whose form asks δ whatever the mechanism (a synthetic table's zCDP, a threshold's)
DELTA_KINDS = ("synthetic", "discover_keys")
#: the kinds whose released values feed a later plan (issue 25)
DISCOVERY_KINDS = ("discover_keys", "discover_bounds")


def kind_takes(kind: str, field: str) -> bool:
    return field not in NOT_TAKEN.get(kind, ())
