"""verify compares every recorded measurement of every statistic with the plan's, field by
field: a release.json whose measurement list was forged (a measurement added, its noise
swapped with another's, its derivation rewritten) is refused, even where the composed total
does not move."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.release.verify_release import verify_bundle
from tests.trust.forge import DROP, forge

pytest.importorskip("mbi")


@pytest.fixture(scope="module")
def genuine(synthetic_demo: dict[str, Any]) -> Path:
    path: Path = synthetic_demo["path"]  # demo_bundle, once per process (tests/conftest.py)
    return path


def _ms(record: dict[str, Any]) -> list[dict[str, Any]]:
    ms: list[dict[str, Any]] = record["queries"][0]["measurements"]
    return ms


def _add_a_free_selection(record: dict[str, Any]) -> None:
    extra = dict(next(m for m in _ms(record) if m["mechanism"] == "exponential"))
    extra.update(name="select:99", epsilon=0.0)
    _ms(record).append(extra)


def _swap_noise(record: dict[str, Any]) -> None:
    one = next(m for m in _ms(record) if m["name"].startswith("oneway:"))
    two = next(m for m in _ms(record) if m["name"].startswith("twoway:"))
    for key in ("sigma_sq_steps", "epsilon", "l2_sq", "l1"):
        one[key], two[key] = two[key], one[key]


def _rewrite_derivation(record: dict[str, Any]) -> None:
    _ms(record)[0]["derivation"] = "sensitivity 0: nothing about anyone is measured"


def test_the_genuine_bundle_verifies(genuine: Path) -> None:
    verdict = verify_bundle(genuine)
    assert verdict.valid, verdict.problems


@pytest.mark.parametrize("change", [_add_a_free_selection, _swap_noise, _rewrite_derivation])
def test_a_forged_measurement_list_is_refused(genuine: Path, tmp_path: Path, change: Any) -> None:
    forged = tmp_path / "forged.zip"
    forge(genuine, forged, change=change, signature=DROP, signed_by=DROP)
    def measurements(path: Path) -> Any:
        return _ms(json.loads(zipfile.ZipFile(path).read("release.json")))

    assert measurements(forged) != measurements(genuine)
    verdict = verify_bundle(forged)
    assert not verdict.valid
    assert any("measurements are not the plan's" in p for p in verdict.problems), verdict.problems
