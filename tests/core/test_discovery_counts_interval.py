"""Issue 25, item 2 (core25): the interval of each noised count a discovery of keys publishes
(``publish_counts``). A count is published only because it reached the threshold, so near it
the count is biased upward and the plain ± of the noise holds the true count less often than
it says; the interval given that the key was published holds it with its confidence.

Independent answers: noise drawn here with numpy (the discrete Laplace as the difference of
two geometric draws, the discrete Gaussian from its mass), the keys kept at the threshold
here, and the share of intervals holding the true count among the kept keys.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from planner_app.core.dp.selected import selected_interval
from planner_app.core.dp.threshold import GaussianNoise
from planner_app.core.kinds.registry import KINDS
from tests.core.test_discovery_kinds import KEYS, plan_doc

DRAWS = 6000
CONFIDENCE = 0.95
TAU = 30


def laplace_draws(rng: np.random.Generator, scale: float, size: int) -> np.ndarray:
    p = 1 - math.exp(-1 / scale)
    return (rng.geometric(p, size) - rng.geometric(p, size)).astype(np.int64)


def gaussian_draws(rng: np.random.Generator, sigma_sq: float, size: int) -> np.ndarray:
    top = int(40 * math.sqrt(sigma_sq)) + 40
    z = np.arange(-top, top + 1)
    mass = np.exp(-z.astype(float) ** 2 / (2 * sigma_sq))
    return rng.choice(z, size=size, p=mass / mass.sum())


def coverage(noise: Any, draws: np.ndarray, true: int) -> tuple[float, int]:
    kept = true + draws[true + draws >= TAU]
    hits = [lo <= true <= hi for lo, hi in (selected_interval(noise, TAU, int(x), CONFIDENCE)
                                            for x in kept)]
    return float(np.mean(hits)), len(hits)


@pytest.mark.parametrize("true", [22, 27, 30, 34, 45])
@pytest.mark.parametrize("which", ["laplace", "gaussian"])
def test_the_interval_holds_the_true_count_among_the_published_keys(which: str,
                                                                   true: int) -> None:
    rng = np.random.default_rng(2500 + true)
    if which == "laplace":
        noise: Any = Fraction(3)
        draws = laplace_draws(rng, 3.0, DRAWS * 4)
    else:
        noise = GaussianNoise(Fraction(25))
        draws = gaussian_draws(rng, 25.0, DRAWS * 4)
    share, kept = coverage(noise, draws, true)
    assert kept >= 200, "too few kept keys to measure"
    # within three standard errors of the confidence, or above it
    slack = 3 * math.sqrt(CONFIDENCE * (1 - CONFIDENCE) / kept)
    assert share >= CONFIDENCE - slack, f"{which}, n = {true}: {share:.3f} of {kept}"


def test_the_plain_interval_misses_below_the_threshold_which_this_one_allows_for() -> None:
    """The bias the words state: a key held by 22 people, published at τ = 30 only when its
    noise was large, is outside x ± h far more often than 5%."""
    rng = np.random.default_rng(7)
    draws = laplace_draws(rng, 3.0, DRAWS * 20)
    kept = 22 + draws[22 + draws >= TAU]
    half = 9  # the discrete Laplace of scale 3: P[|Z| > 9] ≈ 0.05
    assert np.mean(np.abs(kept - 22) <= half) < 0.5
    low, high = selected_interval(Fraction(3), TAU, TAU, CONFIDENCE)
    assert low <= 22 <= high  # reaches down: 0 for the memoryless Laplace
    assert low == 0


def test_far_above_the_threshold_it_is_the_plain_interval() -> None:
    low, high = selected_interval(Fraction(3), TAU, 500, CONFIDENCE)
    assert (500 - low, high - 500) in {(8, 8), (8, 9), (9, 8), (9, 9)}


def test_a_release_with_counts_gives_each_its_interval_and_says_why(tmp_path: Any) -> None:
    import zipfile

    from planner_app.core.planfile import plan_from_dict
    from tests.core.test_discovery_kinds import _release

    doc = plan_doc({**KEYS, "publish_counts": True, "epsilon": 3.0})
    out, rows = _release(tmp_path, doc)
    keys = [r for r in rows if r["query_id"] == "jobs"]
    assert keys
    for r in keys:
        assert 0 <= float(r["low"]) <= float(r["value"]) <= float(r["high"])
        assert "biased upward" in r["note"]
    with zipfile.ZipFile(out) as z:
        report = z.read("report.html").decode("utf-8")
    assert "computed given that it was published" in report
    plan = plan_from_dict(doc)
    meaning = KINDS["discover_keys"].report_meaning(
        {"accuracy": {"note": "n"}}, plan.queries[0], CONFIDENCE)
    assert "biased upward" in meaning


def test_verify_recomputes_each_interval_and_takes_the_old_empty_ones(tmp_path: Any) -> None:
    """A forged bundle (everything rebuilt consistently) whose interval is narrowed is
    refused; one whose intervals are empty, as releases before them wrote, still verifies."""
    from planner_app.core.release.verify_release import verify_bundle
    from tests.core.test_discovery_kinds import _release
    from tests.record_rows import edit_rows
    from tests.trust.forge import DROP, forge

    out, _ = _release(tmp_path, plan_doc({**KEYS, "publish_counts": True, "epsilon": 3.0}))

    def narrowed(record: dict[str, Any]) -> None:
        def change(rows: list[dict[str, Any]]) -> None:
            row = next(r for r in rows if r["query_id"] == "jobs")
            row["low"] = row["value"] - 1
        edit_rows(record, change)

    def emptied(record: dict[str, Any]) -> None:
        def change(rows: list[dict[str, Any]]) -> None:
            for r in rows:
                if r["query_id"] == "jobs":
                    r["low"] = r["high"] = None
        edit_rows(record, change)

    forged, old = tmp_path / "forged.zip", tmp_path / "old.zip"
    forge(out, forged, change=narrowed, signature=DROP)
    result = verify_bundle(forged)
    assert not result.valid
    assert any("its interval is not the one its noised count and the threshold give" in p
               for p in result.problems), result.problems
    forge(out, old, change=emptied, signature=DROP)
    assert verify_bundle(old).valid, verify_bundle(old).problems
