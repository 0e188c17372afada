"""A synthetic table's ε in its report, the registry entry and the bundle viewer is the ε its
plan states (its measurements compose in zCDP to exactly that: ρ = rho_for(ε, δ)), not the
sum of its measurements' ε, which overstates it about twofold."""

from __future__ import annotations

import html
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_TABLE
from tests.core.test_synthetic import synth_plan


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    pytest.importorskip("mbi")
    tmp = tmp_path_factory.mktemp("stated")
    doc = synth_plan(epsilon=1.5, delta=2e-6)
    out = tmp / "b.zip"
    publish(plan_from_dict(doc), load_table(DEMO_TABLE), out, app_home(tmp / "h").ensure(),
            source=SeededRandomSource(5))
    record = json.loads(zipfile.ZipFile(out).read("release.json"))
    return out, record


def test_the_sum_of_the_measurements_overstates_the_stated_epsilon(
        bundle: tuple[Path, dict[str, Any]]) -> None:
    q = bundle[1]["queries"][0]
    assert q["epsilon"] == 1.5 and q["epsilon_spent"] > 1.5 * 1.5  # why the fix matters
    # independent: the stated (ε, δ) is the one its ρ = Σ measurement ρ converts to
    from planner_app.core.dp.measure import rho_for
    assert q["rho"] == pytest.approx(rho_for(1.5, 2e-6), rel=1e-9)


def test_report_states_the_plans_epsilon(bundle: tuple[Path, dict[str, Any]]) -> None:
    text = html.unescape(zipfile.ZipFile(bundle[0]).read("report.html").decode())
    q = bundle[1]["queries"][0]
    shown = re.findall(r"mechanism, ε = ([0-9.]+)", text)
    assert shown == ["1.5"], shown
    assert f"{q['epsilon_spent']:.4g}" not in text


def test_registry_entry_states_the_plans_epsilon(bundle: tuple[Path, dict[str, Any]]) -> None:
    from planner_app.core.release.registry import registry_yaml
    text = registry_yaml(bundle[1])
    assert "ε = 1.5" in text
    assert f"{bundle[1]['queries'][0]['epsilon_spent']:.4g}" not in text


def test_viewer_states_the_plans_epsilon(bundle: tuple[Path, dict[str, Any]]) -> None:
    from planner_app.core.release.opened_bundle import open_bundle
    opened = open_bundle(bundle[0])
    assert [s.epsilon for s in opened.release.statistics] == [1.5]
