"""A release hands its results on instead of computing them again (issue 23, "a compiled
plan"): each statistic's measurements are built once, the plan is serialised once, the
ledger's charge composes the lifetime total once and returns it, and nothing the check
computed is computed again after the charge. These tests count the work, never the time."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import Table, load_table
from planner_app.core.dp import accounting
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds import shared_dp
from planner_app.core.planfile import load_plan, serialisation
from planner_app.core.planfile import validation as planfile_validation
from planner_app.core.planning import check
from planner_app.core.records import ledger_state
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.publish import publish
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.home import AppHome, app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE


class Counter:
    """Counts the calls of functions, wherever a module of the package imported them."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.calls: dict[str, list[str]] = {}
        self.phase = "before the charge"

    def count(self, function: Callable[..., Any], name: str | None = None) -> None:
        key = name or function.__name__
        self.calls.setdefault(key, [])

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[key].append(self.phase)
            return function(*args, **kwargs)

        for module in list(sys.modules.values()):
            if not getattr(module, "__name__", "").startswith("planner_app"):
                continue
            for attr, value in list(vars(module).items()):
                if value is function:
                    self.monkeypatch.setattr(module, attr, counted)

    def count_in(self, module: Any, attr: str, key: str) -> None:
        """Count the calls of ``module.attr`` under ``key``, made through that module only."""
        function = getattr(module, attr)
        self.calls.setdefault(key, [])

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[key].append(self.phase)
            return function(*args, **kwargs)

        self.monkeypatch.setattr(module, attr, counted)

    def total(self, name: str) -> int:
        return len(self.calls[name])

    def after_charge(self, name: str) -> int:
        return self.calls[name].count("after the charge")

    def in_charge(self, name: str) -> int:
        return self.calls[name].count("in the charge")


@contextmanager
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter]:
    counter = Counter(monkeypatch)
    for f in (shared_dp.measurements_for, shared_dp.accuracy_for, accounting.compose,
              serialisation.plan_to_dict, planfile_validation.plan_from_dict,
              check.check_plan):
        counter.count(f)
    # a dataset's lifetime total: every accountant that can compose its history
    # (accounting.valid_totals), called by the ledger's state (ledger_state.lifetime_total)
    counter.count_in(ledger_state, "valid_totals", "lifetime")
    real_charge = Ledger.charge

    def charge(self: Ledger, **kwargs: Any) -> Any:
        counter.phase = "in the charge"
        state = real_charge(self, **kwargs)
        counter.phase = "after the charge"
        return state

    monkeypatch.setattr(Ledger, "charge", charge)
    yield counter


@pytest.fixture
def home(tmp_path: Path) -> AppHome:
    return app_home(tmp_path / "home").ensure()


@pytest.fixture(scope="module")
def demo() -> tuple[Any, Table]:
    return load_plan(demo_plan_path()), load_table(DEMO_TABLE)


def test_a_release_builds_each_statistics_measurements_once(
        tmp_path: Path, home: AppHome, demo: tuple[Any, Table],
        monkeypatch: pytest.MonkeyPatch) -> None:
    plan, table = demo
    with counting(monkeypatch) as counter:
        publish(plan, table, tmp_path / "b.zip", home, source=SeededRandomSource(3))
    n = len(plan.queries)
    # before: 3 per statistic (the check, the dry run's noise, the real noise)
    assert counter.total("measurements_for") == n
    assert counter.total("accuracy_for") == n
    assert counter.total("check_plan") == 1
    # the plan's total once (the check), the lifetime total once (the charge)
    assert counter.total("compose") == 1
    assert counter.total("lifetime") == 1
    assert verify_bundle(tmp_path / "b.zip").valid


def test_a_release_serialises_its_plan_once(tmp_path: Path, home: AppHome,
                                           demo: tuple[Any, Table],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    plan, table = demo
    with counting(monkeypatch) as counter:
        publish(plan, table, tmp_path / "b.zip", home, source=SeededRandomSource(3))
    # before: 7 (its digest for the approval status, the rehearsal's record and the real
    # one, the ledger's row, and the record's plan.json twice)
    assert counter.total("plan_to_dict") == 1
    assert counter.total("plan_from_dict") == 0


def test_nothing_the_check_computed_is_computed_again_after_the_charge(
        tmp_path: Path, home: AppHome, demo: tuple[Any, Table],
        monkeypatch: pytest.MonkeyPatch) -> None:
    plan, table = demo
    publish(plan, table, tmp_path / "first.zip", home, source=SeededRandomSource(1))
    with counting(monkeypatch) as counter:
        publish(plan, table, tmp_path / "b.zip", home, source=SeededRandomSource(3))
    assert counter.phase == "after the charge"
    for name in ("measurements_for", "accuracy_for", "compose", "plan_to_dict",
                 "plan_from_dict", "check_plan"):
        assert counter.after_charge(name) == 0, name


def test_the_charge_composes_the_lifetime_total_once_and_returns_it(
        tmp_path: Path, home: AppHome, demo: tuple[Any, Table],
        monkeypatch: pytest.MonkeyPatch) -> None:
    plan, table = demo
    for seed in (1, 2):  # two releases before: the lifetime total composes three
        publish(plan, table, tmp_path / f"r{seed}.zip", home, source=SeededRandomSource(seed))
    with counting(monkeypatch) as counter:
        result = publish(plan, table, tmp_path / "b.zip", home, source=SeededRandomSource(3))
    # before: 3 (the lifetime total before and after the release, and again reading the
    # ledger's new row back)
    assert counter.in_charge("lifetime") == 1
    assert counter.after_charge("lifetime") == 0
    assert counter.in_charge("compose") + counter.after_charge("compose") == 0
    again = Ledger(home.ledger_path).state(plan.dataset.name)  # an independent reading
    assert result.ledger.spent == again.spent
    assert [r.id for r in result.ledger.releases] == [r.id for r in again.releases]
    assert len(again.releases) == 3


def _is_plan(obj: Any) -> bool:
    return type(obj) is dict and str(obj.get("format", "")).startswith("planner-app/plan@")


def test_the_plan_is_written_before_the_charge_not_after(
        tmp_path: Path, home: AppHome, demo: tuple[Any, Table],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 22: a plan of 10^6 categories took seconds to write into plan.json, release.json
    and the pending record after the charge. The noise does not change it: it is written in
    the rehearsal, and after the charge only put in place (the same bytes)."""
    import json as json_module
    import types

    from planner_app.core.release import bundle, pending

    plan, table = demo
    written: list[str] = []
    with counting(monkeypatch) as counter:
        real_indented = bundle._indented

        def indented(obj: Any, level: int) -> str:
            if _is_plan(obj):
                written.append(counter.phase)
            return real_indented(obj, level)

        def dumps(obj: Any, **kwargs: Any) -> str:
            record = obj.get("record") if isinstance(obj, dict) else None
            if isinstance(record, dict) and _is_plan(record.get("plan")):
                written.append(counter.phase)
            return json_module.dumps(obj, **kwargs)

        monkeypatch.setattr(bundle, "_indented", indented)
        monkeypatch.setattr(pending, "json", types.SimpleNamespace(
            dumps=dumps, loads=json_module.loads, JSONDecodeError=json_module.JSONDecodeError))
        publish(plan, table, tmp_path / "b.zip", home, source=SeededRandomSource(3))
    assert "after the charge" not in written
    assert "before the charge" in written  # the rehearsal wrote it
    assert verify_bundle(tmp_path / "b.zip").valid


def test_a_member_written_before_gives_the_same_json_bytes() -> None:
    from planner_app.core.release.bundle import json_bytes, json_bytes_made

    plan = {"format": "planner-app/plan@1", "dataset": {"name": "a\nb \u00e9 \u200b"},
            "queries": [{"id": "h", "categories": ["x", "y\n", "\"z\""], "epsilon": 0.5},
                        {"id": "k", "bins": [0, 1.5, 2], "nested": {"a": [1, {"b": None}]}}],
            "empty": {}, "none": []}
    record = {"format": "r", "plan": plan, "results": [{"v": 1.25, "s": "t"}], "n": 3,
              "ledger": {"cap": {"epsilon": 1.0}}}
    made = json_bytes_made(record, {"plan": json_bytes(plan)})
    assert made == json_bytes(record)
    assert json_module_loads(made) == record


def json_module_loads(data: bytes) -> Any:
    import json

    return json.loads(data)


def test_the_pending_record_holding_release_json_reads_back_the_same() -> None:
    import json

    from planner_app.core.release.bundle import json_bytes
    from planner_app.core.release.pending import pending_bytes

    record = {"a": 1, "plan": {"format": "planner-app/plan@1", "title": "\u0000 \"q\" é"},
              "results": [{"value": 0.1, "cell": "x\ny"}], "z": [None]}
    doc = {"release_id": "ab", "record": record, "segment": [{"seq": 1}], "noised": {}}
    made = pending_bytes(doc, json_bytes(record))
    assert json.loads(made) == json.loads(pending_bytes(doc))
    assert list(json.loads(made)) == ["format", "release_id", "record", "segment", "noised"]
