"""The adversarial review of the synthetic tables' tie to their bundle (round 48): verify
--regenerate never silently skips a table, the recorded versions cover everything the CSV
depends on, --clamp-counts never moves the number of rows, one escape-collision rule for
check and release, and every published field of a synthetic table's result rows checked."""

from __future__ import annotations

import json
from importlib.metadata import version
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
from tests.core.test_synthetic_tie import _members
from tests.record_rows import edit_rows, result_rows

pytest.importorskip("mbi")


@pytest.fixture(scope="module")
def demo(synthetic_demo: dict[str, Any]) -> dict[str, Any]:
    return synthetic_demo  # demo_bundle, released once per process (tests/conftest.py)


def forged(src: Path, dst: Path, change: Any) -> Path:
    """``src`` with its release.json changed by ``change(record)`` and everything a bundle's
    own checks look at rebuilt (tests/trust/forge.py): only a signature could tell."""
    from planner_app.core.release.bundle import MANIFEST, RECORD, SIGNATURE, zip_bytes
    from tests.trust.forge import reseal

    files = _members(src)
    files.pop(SIGNATURE, None)
    files.pop(MANIFEST)
    record = json.loads(files[RECORD])
    change(record)
    reseal(files, record)
    dst.write_bytes(zip_bytes(files, signature=None))
    return dst




def _verify(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from planner_app.cli import main

    code = main(["verify", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


# ----------------------------------------------------------------------------- 1: exit 5


def test_regenerate_with_other_recorded_versions_says_so_and_exits_5(
        demo: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    def other_mbi(record: dict[str, Any]) -> None:
        record["synthetic"]["synth"]["versions"]["mbi"] = "0.0.1"

    bad = forged(demo["path"], demo["folder"] / "mbi.zip", other_mbi)
    code, out, err = _verify([str(bad)], capsys)
    assert code == 0, err  # without --regenerate: valid (the versions are public words)
    code, out, err = _verify([str(bad), "--regenerate"], capsys)
    assert code == 5, out + err
    line = f"not regenerated: synthetic/synth.csv: mbi {version('mbi')} here, 0.0.1 recorded"
    assert sum(line in x for x in out.splitlines()) == 1, out
    assert "not regenerated" in err and len(err.strip().splitlines()) == 1
    code, out, err = _verify([str(bad), "--regenerate", "--json"], capsys)
    assert code == 5
    table = json.loads(out)["synthetic"]["synth"]
    assert table["regenerated"] is False and "0.0.1 recorded" in table["reason"]
    code, out, err = _verify([str(demo["path"]), "--regenerate", "--json"], capsys)
    assert code == 0, err
    table = json.loads(out)["synthetic"]["synth"]
    assert table["regenerated"] is True and table["reason"] is None


# ----------------------------------------------------------------------------- 2: versions


def test_the_payload_records_numpy_and_the_synthesis_code(demo: dict[str, Any]) -> None:
    from planner_app.core.release.synthetic import SYNTHESIS_CODE
    from planner_app.core.release.verify_synthetic import synthetic_problems

    versions = demo["record"]["synthetic"]["synth"]["versions"]
    assert versions == {"mbi": version("mbi"), "jax": version("jax"),
                        "numpy": version("numpy"), "planner_app synthesis": SYNTHESIS_CODE}
    for key in ("numpy", "planner_app synthesis"):
        record = json.loads(json.dumps(demo["record"]))
        del record["synthetic"]["synth"]["versions"][key]
        problems = synthetic_problems(demo["files"], demo["plan"], record)
        assert any("its versions are not" in p for p in problems), problems


@pytest.mark.parametrize(("key", "recorded"), [("numpy", "0.0.1"),
                                               ("planner_app synthesis", "0")])
def test_regenerate_only_when_numpy_and_the_synthesis_code_match(
        demo: dict[str, Any], key: str, recorded: str) -> None:
    from planner_app.core.release.synthetic import SYNTHESIS_CODE
    from planner_app.core.release.verify_synthetic import regenerate_synthetic

    record = json.loads(json.dumps(demo["record"]))
    record["synthetic"]["synth"]["versions"][key] = recorded
    checks, problems, outcome = regenerate_synthetic(demo["files"], demo["plan"], record)
    here = version("numpy") if key == "numpy" else SYNTHESIS_CODE
    assert checks == [] and problems == []
    assert outcome["synth"] == {"regenerated": False,
                                "reason": f"{key} {here} here, {recorded} recorded"}


# ----------------------------------------------------------------------------- 3: rows


def _wide_table() -> tuple[Any, Any]:
    """A 1000-bin column and a yes/no column, 3000 true rows in 3 of the bins: nearly every
    cell is empty, so about half of the noised counts fall below 0."""
    import numpy as np

    from planner_app.core.kinds.results import Aggregate

    doc = synth_plan(epsilon=0.5, columns=[
        {"column": "x", "bins": list(range(1001))},
        {"column": "y", "categories": ["yes", "no"]}])
    plan = plan_from_dict(doc)
    x = np.zeros(1000, dtype=np.int64)
    x[:3] = 1000
    y = np.array([1500, 1500], dtype=np.int64)
    pair = np.zeros((1000, 2), dtype=np.int64)
    pair[:3, :] = 500
    return plan, Aggregate("synth", [], parts={"oneway:x": x, "oneway:y": y,
                                               "pair:0:1": pair.reshape(-1)})


def test_clamped_counts_give_the_same_number_of_rows_as_unclamped() -> None:
    """The rows come from the noised totals as drawn: clamping (post-processing) shows the
    counts differently but never adds rows (before, each near-empty cell added ~0.4 σ)."""
    from planner_app.core.kinds.shared_dp import measurements_for
    from planner_app.core.release.synthetic import measure_synthetic

    plan, aggregate = _wide_table()
    q = plan.query("synth")
    ms = measurements_for(q, plan)
    payloads = {}
    for clamp in (False, True):
        _, payloads[clamp] = measure_synthetic(q, aggregate, ms, SeededRandomSource(4), 0.95,
                                               clamp_counts=clamp)
    plain, clamped = payloads[False], payloads[True]
    ones = [sum(m["values"]) for m in clamped["marginals"][:2]]
    assert round(sum(ones) / 2) > 3300  # the inflation the clamped totals would give
    assert clamped["rows"] == plain["rows"]
    from fractions import Fraction

    # the mean of the two drawn totals: 3000 plus noise of sd √(σx²·1000 + σy²·2) / 2
    sd = float(sum(Fraction(m["sigma_sq_steps"]) * len(m["values"])
                   for m in plain["marginals"][:2])) ** 0.5 / 2
    assert abs(plain["rows"] - 3000) < 5 * sd
    drawn = [sum(m["values"]) for m in plain["marginals"][:2]]
    assert clamped["one_way_totals"] == plain["one_way_totals"] == drawn


def test_verify_recomputes_the_rows_of_a_clamped_release_from_its_drawn_totals(
        tmp_path: Path) -> None:
    from planner_app.core.release.verify_release import verify_bundle

    doc = synth_plan(epsilon=0.3, columns=[
        {"column": "region", "categories": ["North", "South", "East", "West", "Mars", "Io"]},
        {"column": "smoker", "categories": ["yes", "no", "maybe", "never"]}])
    plan = plan_from_dict(doc)
    out = tmp_path / "c.zip"
    publish(plan, load_table(DEMO_TABLE), out, app_home(tmp_path / "h").ensure(),
            source=SeededRandomSource(11), clamp_counts=True)
    assert verify_bundle(out).valid, verify_bundle(out).problems
    record = json.loads(_members(out)["release.json"])
    t = record["synthetic"]["synth"]
    assert t["rows"] == round(sum(t["one_way_totals"]) / 2)

    def more_rows(r: dict[str, Any]) -> None:
        r["synthetic"]["synth"]["rows"] += 1

    def higher_total(r: dict[str, Any]) -> None:  # above what the clamped counts allow
        s = r["synthetic"]["synth"]
        s["one_way_totals"][0] = sum(s["marginals"][0]["values"]) + 1

    for name, change in (("rows", more_rows), ("total", higher_total)):
        verdict = verify_bundle(forged(out, tmp_path / f"{name}.zip", change))
        assert not verdict.valid, name


# ----------------------------------------------------------------------------- 4, 5: escaping


@pytest.mark.parametrize(("columns", "where", "text"), [
    ([{"column": "odd", "categories": ["=q", "'=q", "ok"]},
      {"column": "flag", "categories": ["yes", "no"]}], "queries[synth].columns[0]", "'=q"),
    ([{"column": "flag", "categories": ["yes", "no"]},
      {"column": "odd", "categories": ["@x", "'@x"]}], "queries[synth].columns[1]", "'@x"),
    ([{"column": "=a", "categories": ["yes", "no"]},
      {"column": "'=a", "categories": ["x", "y"]}], "queries[synth].columns[1]", "'=a"),
])
def test_two_texts_one_escaped_text_are_refused_by_the_plan(
        columns: list[dict[str, Any]], where: str, text: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A spreadsheet runs "=q" as a formula, so the CSV writes it "'=q": declaring both (or
    two such column names) would make two values one text. The plan itself is refused, so
    `check` and the app's readiness say what the release would."""
    from planner_app.cli import main
    from planner_app.core.support.errors import InputError

    doc = synth_plan(rows=100, columns=columns)
    with pytest.raises(InputError) as err:
        plan_from_dict(doc)
    message = str(err.value)
    assert where in message and repr(text) in message and "\n" not in message, message
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == 2
    out = capsys.readouterr()
    assert where in out.err and "Ready to release: yes" not in out.out


# ----------------------------------------------------------------------------- 6: result rows


def _synth_rows(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in result_rows(record) if r["query_id"] == "synth"]


def _synth_of(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["query_id"] == "synth"]


def _swap_cells(record: dict[str, Any]) -> None:
    def change(rows: list[dict[str, Any]]) -> None:
        a, b = _synth_of(rows)[:2]
        a["cell"], b["cell"] = b["cell"], a["cell"]
    edit_rows(record, change)


def _set(field: str, value: Any) -> Any:
    def change(record: dict[str, Any]) -> None:
        edit_rows(record, lambda rows: _synth_of(rows)[0].__setitem__(field, value))
    return change


@pytest.mark.parametrize(("name", "change"), [
    ("swapped-cells", _swap_cells),
    ("note", _set("note", "true count, no noise")),
    ("clamp-note", _set("note", "noised marginal, clamped at 0 (post-processing)")),
    ("label", _set("label", "Census of every resident")),
    ("mechanism", _set("mechanism", "none")),
    ("confidence", _set("confidence", 0.5)),
])
def test_verify_refuses_forged_fields_of_a_synthetic_tables_result_rows(
        demo: dict[str, Any], name: str, change: Any) -> None:
    from planner_app.core.release.verify_release import verify_bundle

    assert verify_bundle(demo["path"]).valid
    verdict = verify_bundle(forged(demo["path"], demo["folder"] / f"{name}.zip", change))
    assert not verdict.valid, name
    assert any("results.csv" in p and "'synth'" in p for p in verdict.problems), \
        verdict.problems
