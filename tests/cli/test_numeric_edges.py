"""Numbers at the edge of floating point (found by an adversarial tester): each is refused
with a one-line message before any charge, or released; never a traceback or exit 1."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.dp.risk import lower_percent, upper_percent

TABLE = "id,x,g\n" + "".join(f"{i},{(i * 37) % 100},{'ab'[i % 2]}\n" for i in range(300))


def plan_doc(queries: list[dict[str, Any]], budget: dict[str, float]) -> dict[str, Any]:
    for q in queries:
        q.setdefault("justification", {"bounds": "p", "values": "p"})
    return {"format": "planner-app/plan@1", "dataset": {"name": "edge"},
            "privacy_unit": {"kind": "row"}, "neighbouring": "add-remove",
            "budget": budget, "queries": queries}


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    table = tmp_path / "t.csv"
    table.write_text(TABLE)
    return {"home": tmp_path / "home", "table": table, "dir": tmp_path}


def write_plan(world: dict[str, Path], doc: dict[str, Any]) -> Path:
    path = world["dir"] / "plan.json"
    path.write_text(json.dumps(doc))
    return path


def test_gaussian_with_a_tiny_delta_releases(world, capsys) -> None:  # type: ignore[no-untyped-def]
    """The PLD accountant fails closed (ε = inf) here; the report's list of alternatives
    held that inf and could not be written as JSON, so the release refused."""
    plan = write_plan(world, plan_doc(
        [{"id": "c", "kind": "count", "mechanism": "gaussian", "epsilon": 0.01,
          "delta": 1e-100}], {"epsilon": 1, "delta": 1e-99}))
    out = world["dir"] / "b.zip"
    code, _, err = run(["--home", str(world["home"]), "release", str(plan), "--data",
                        str(world["table"]), "--out", str(out)], capsys)
    assert code == 0, err
    code, _, err = run(["verify", str(out)], capsys)
    assert code == 0, err


@pytest.mark.parametrize("query", [
    {"id": "c", "kind": "count", "mechanism": "gaussian", "epsilon": 999, "delta": 0.5},
    {"id": "r", "kind": "randomized_response", "column": "g", "yes": ["a"], "no": ["b"],
     "epsilon": 1000},
    {"id": "r", "kind": "randomized_response", "column": "g", "yes": ["a"], "no": ["b"],
     "epsilon": 100},
], ids=["gaussian-eps-999", "rr-eps-1000", "rr-eps-100"])
def test_huge_epsilon_checks(world, capsys, query) -> None:  # type: ignore[no-untyped-def]
    plan = write_plan(world, plan_doc([query], {"epsilon": 1000, "delta": 0.9}))
    code, out, err = run(["--home", str(world["home"]), "check", str(plan), "--data",
                          str(world["table"])], capsys)
    assert code == 0, err
    assert "Traceback" not in out + err


@pytest.mark.parametrize("epsilon", [30, 44, 60, 100, 300, 699, 701, 1000])
def test_percent_bounds_near_one_are_on_the_safe_side(epsilon: float) -> None:
    """The exact posterior e^ε/(1+e^ε) (prior 1/2, in fractions): the upper text is at least
    it, the lower text at most 1 - it; for ε around 100 decimal quantize raised."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:  # never the default context: format_percent must not need it
        ctx.prec = 1200
        exact_e = Decimal(epsilon).exp()
        hi = Fraction(exact_e / (1 + exact_e))
    up, low = upper_percent(0.5, epsilon), lower_percent(0.5, epsilon)
    assert up.endswith("%") and low.endswith("%")
    assert Fraction(up[:-1]) / 100 >= hi
    assert Fraction(low[:-1]) / 100 <= 1 - hi


@pytest.mark.parametrize("command", ["check", "release"])
@pytest.mark.parametrize("value", ["0.9999999999999999", "0.9999999", "0.4", "1"])
def test_confidence_out_of_range_is_exit_2(world, capsys, command, value) -> None:  # type: ignore[no-untyped-def]
    plan = write_plan(world, plan_doc([{"id": "c", "kind": "count", "epsilon": 1}],
                                      {"epsilon": 1, "delta": 0}))
    out = world["dir"] / "b.zip"
    args = ["--home", str(world["home"]), command, str(plan), "--data", str(world["table"]),
            "--confidence", value] + (["--out", str(out)] if command == "release" else [])
    code, out_text, err = run(args, capsys)
    assert code == 2 and "--confidence" in err and "Traceback" not in out_text + err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_the_core_refuses_a_confidence_it_cannot_compute(world) -> None:  # type: ignore[no-untyped-def]
    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.planning.check import check_plan
    from planner_app.core.support.errors import InputError

    plan = plan_from_dict(plan_doc([{"id": "c", "kind": "count", "epsilon": 1}],
                                   {"epsilon": 1, "delta": 0}))
    with pytest.raises(InputError, match="confidence"):
        check_plan(plan, confidence=0.9999999999999999)
    assert check_plan(plan, confidence=0.999999).total.epsilon == 1


def test_the_highest_confidence_allowed_works(world, capsys) -> None:  # type: ignore[no-untyped-def]
    plan = write_plan(world, plan_doc([{"id": "c", "kind": "count", "epsilon": 1},
                                       {"id": "m", "kind": "mean", "column": "x", "lower": 0,
                                        "upper": 100, "epsilon": 1}],
                                      {"epsilon": 2, "delta": 0}))
    code, _, err = run(["--home", str(world["home"]), "check", str(plan), "--data",
                        str(world["table"]), "--confidence", "0.999999"], capsys)
    assert code == 0, err


def test_a_report_failure_before_the_charge_is_exit_2(world, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import planner_app.core.release.publish as publish_module

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("no")

    monkeypatch.setattr(publish_module, "_report_files", broken)
    plan = write_plan(world, plan_doc([{"id": "c", "kind": "count", "epsilon": 1}],
                                      {"epsilon": 1, "delta": 0}))
    out = world["dir"] / "b.zip"
    code, _, err = run(["--home", str(world["home"]), "release", str(plan), "--data",
                        str(world["table"]), "--out", str(out)], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "plan.json" in err
    assert "nothing was charged" in err and not out.exists()


def test_ledger_show_on_a_non_utf8_audit_log_is_exit_4(world, capsys) -> None:  # type: ignore[no-untyped-def]
    plan = write_plan(world, plan_doc([{"id": "c", "kind": "count", "epsilon": 1}],
                                      {"epsilon": 1, "delta": 0}))
    code, _, err = run(["--home", str(world["home"]), "release", str(plan), "--data",
                        str(world["table"]), "--out", str(world["dir"] / "b.zip")], capsys)
    assert code == 0, err
    from planner_app.core.support.home import app_home

    app_home(world["home"]).audit_path.write_bytes(b"\xff\xfe\n")
    code, out, err = run(["--home", str(world["home"]), "ledger", "show"], capsys)
    assert code == 4, err
    assert len(err.strip().splitlines()) == 1 and "not UTF-8" in err


@pytest.mark.parametrize("value", [0.9999999999999999, 2.0, 0.1, float("nan")])
def test_a_settings_file_confidence_the_core_refuses_falls_back_to_the_default(
        tmp_path: Path, value: float) -> None:
    """The app's settings.json is read by hand-editable JSON: a confidence check_plan refuses
    would break every check in the app, so it is the default instead."""
    from planner_app.core.planning.settings import Settings, load_settings

    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"schema_version": Settings().schema_version,
                                "confidence": value}))
    assert load_settings(path).confidence == 0.95
    path.write_text(json.dumps({"schema_version": Settings().schema_version,
                                "confidence": 0.99}))
    assert load_settings(path).confidence == 0.99
