"""A synthetic table tied to what its bundle publishes: formula escaping of its cells,
``--clamp-counts`` applied to its published marginals too, and verify's measure of how far
the synthetic rows are from the released noised marginals (TVD) and, opt-in, regeneration of
the CSV from the released marginals and seed."""

from __future__ import annotations

import copy
import csv
import io
import json
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_TABLE, ROOT
from tests.core.test_synthetic import REGIONS, synth_plan
from tests.record_rows import result_rows

pytest.importorskip("mbi")

#: declared categories a spreadsheet would run as formulas, and a signed number (kept)
DANGEROUS = ['=HYPERLINK("http://x.example","y")', "@x", "-x", "+1", "ok"]


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"))))


@pytest.fixture(scope="module")
def escaped(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("escape")
    data = folder / "t.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["person_id", "choice", "flag"])
        for i in range(400):
            w.writerow([f"P{i}", DANGEROUS[i % len(DANGEROUS)], "yes" if i % 3 else "no"])
    doc = synth_plan(rows=500, columns=[{"column": "choice", "categories": DANGEROUS},
                                        {"column": "flag", "categories": ["yes", "no"]}])
    doc["dataset"] = {"name": "escape", "expected_rows": 400}
    doc["privacy_unit"] = {"kind": "person", "id_column": "person_id", "max_rows": 1}
    plan = plan_from_dict(doc)
    out = folder / "b.zip"
    publish(plan, load_table(data), out, app_home(folder / "h").ensure(),
            source=SeededRandomSource(5))
    return {"plan": plan, "path": out, "files": _members(out)}


def test_formula_cells_of_a_synthetic_table_are_escaped(escaped: dict[str, Any]) -> None:
    rows = _rows(escaped["files"]["synthetic/synth.csv"])
    assert rows[0] == ["choice", "flag"]
    seen = {r[0] for r in rows[1:]}
    # a spreadsheet runs a cell starting with = @ - (not a number) as a formula: a quote first
    assert seen <= {"'" + DANGEROUS[0], "'@x", "'-x", "+1", "ok"}, seen
    assert "'" + DANGEROUS[0] in seen and "'@x" in seen
    assert not any(c.startswith(("=", "@")) for r in rows for c in r)


def test_verify_accepts_the_escaped_cells_and_refuses_a_raw_formula(
        escaped: dict[str, Any]) -> None:
    from planner_app.core.release.verify_release import verify_bundle
    from planner_app.core.release.verify_synthetic import synthetic_problems

    verdict = verify_bundle(escaped["path"])
    assert verdict.valid, verdict.problems
    files = dict(escaped["files"])
    record = json.loads(files["release.json"])
    assert synthetic_problems(files, escaped["plan"], record) == []
    raw = files["synthetic/synth.csv"].decode("utf-8").replace("'@x", "@x", 1)
    files["synthetic/synth.csv"] = raw.encode("utf-8")
    problems = synthetic_problems(files, escaped["plan"], record)
    assert problems and "'@x'" in problems[0] and "is not a declared value" in problems[0]


# ----------------------------------------------------------------------------- clamping


def _clamped_release(tmp_path: Path, clamp: bool) -> dict[str, Any]:
    """Regions nobody lives in, at a small ε: several noised counts fall below 0. No
    ``rows``: the number of rows comes from the one-way totals as drawn."""
    doc = synth_plan(epsilon=0.3, columns=[
        {"column": "region", "categories": [*REGIONS, "Mars", "Venus", "Moon", "Io"]},
        {"column": "smoker", "categories": ["yes", "no", "maybe", "never", "unsure"]}])
    plan = plan_from_dict(doc)
    out = tmp_path / f"b{int(clamp)}.zip"
    publish(plan, load_table(DEMO_TABLE), out, app_home(tmp_path / f"h{int(clamp)}").ensure(),
            source=SeededRandomSource(11), clamp_counts=clamp)
    files = _members(out)
    return {"plan": plan, "path": out, "files": files,
            "record": json.loads(files["release.json"])}


@pytest.fixture(scope="module")
def clamped_pair(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, dict[str, Any]]:
    """The release above without and with --clamp-counts, made once for this module (each fits
    a synthetic table); a test that changes one works on a copy."""
    folder = tmp_path_factory.mktemp("clamped")
    return {clamp: _clamped_release(folder, clamp) for clamp in (False, True)}


def _published_counts(record: dict[str, Any]) -> list[int]:
    marginals = [v for t in record["synthetic"].values() for m in t["marginals"]
                 for v in m["values"]]
    results = [r["value"] for r in result_rows(record) if r["query_id"] == "synth"]
    return marginals + results


def test_clamp_counts_clamps_a_synthetic_tables_published_marginals(
        clamped_pair: dict[bool, dict[str, Any]]) -> None:
    from planner_app.core.release.verify_release import verify_bundle

    unclamped = clamped_pair[False]
    assert min(_published_counts(unclamped["record"])) < 0  # the case the clamp is for
    clamped = clamped_pair[True]
    record = clamped["record"]
    assert record["post_processing"]["clamp_counts_at_zero"] is True
    assert min(_published_counts(record)) == 0
    # the same noise (same source), negatives shown as 0, the rest unchanged
    before = _published_counts(unclamped["record"])
    assert _published_counts(record) == [max(0, v) for v in before]
    rows = _rows(clamped["files"]["results.csv"])
    head = rows[0]
    synth = [dict(zip(head, r, strict=True)) for r in rows[1:] if r[0] == "synth"]
    assert min(int(r["value"]) for r in synth) == 0
    assert any("clamped at 0" in r["note"] for r in synth)
    verdict = verify_bundle(clamped["path"])
    assert verdict.valid, verdict.problems
    # the rows come from the totals as drawn (the unclamped release's), never the clamped
    ones = [sum(m["values"]) for m in unclamped["record"]["synthetic"]["synth"]["marginals"][:2]]
    assert record["synthetic"]["synth"]["one_way_totals"] == ones
    assert record["synthetic"]["synth"]["rows"] == round(sum(ones) / 2)
    assert len(_rows(clamped["files"]["synthetic/synth.csv"])) - 1 == round(sum(ones) / 2)
    report = clamped["files"]["report.html"].decode("utf-8")
    assert "noised counts too (clamped at 0" in report


def test_verify_refuses_a_negative_marginal_when_counts_were_clamped(
        clamped_pair: dict[bool, dict[str, Any]]) -> None:
    from planner_app.core.release.verify_synthetic import synthetic_problems

    clamped = clamped_pair[True]
    record = copy.deepcopy(clamped["record"])  # the shared release stays as it was written
    record["synthetic"]["synth"]["marginals"][0]["values"][0] = -1
    problems = synthetic_problems(clamped["files"], clamped["plan"], record)
    assert any("below 0" in p for p in problems), problems


# ----------------------------------------------------------------------------- TVD


@pytest.fixture(scope="module")
def demo(synthetic_demo: dict[str, Any]) -> dict[str, Any]:
    return synthetic_demo  # demo_bundle below, released once per process (tests/conftest.py)


def demo_bundle(folder: Path) -> dict[str, Any]:
    """The demo table's synthetic table (300 rows, seed 8), released into ``folder``."""
    plan = plan_from_dict(synth_plan(rows=300))
    out = folder / "b.zip"
    publish(plan, load_table(DEMO_TABLE), out, app_home(folder / "h").ensure(),
            source=SeededRandomSource(8))
    files = _members(out)
    return {"plan": plan, "path": out, "files": files, "folder": folder,
            "record": json.loads(files["release.json"])}


def _tvd_by_hand(record: dict[str, Any], rows: list[list[str]]) -> dict[str, float]:
    """TVD of every released marginal, counted here from the CSV's text cells."""
    t = record["synthetic"]["synth"]
    header, body = rows[0], rows[1:]
    out = {}
    for m in t["marginals"]:
        cols = [header.index(c) for c in m["columns"]]
        domains = [t["domains"][t["columns"].index(c)] for c in m["columns"]]
        keys = [(a,) for a in domains[0]] if len(cols) == 1 else \
            [(a, b) for a in domains[0] for b in domains[1]]
        counted = Counter(tuple(r[k] for k in cols) for r in body)
        clipped = [max(0, v) for v in m["values"]]
        total = sum(clipped)
        out[" × ".join(m["columns"])] = 0.5 * sum(
            abs(counted[key] / len(body) - c / total) for key, c in zip(keys, clipped,
                                                                        strict=True))
    return out


def test_verify_reports_the_tvd_of_every_released_marginal(demo: dict[str, Any]) -> None:
    from planner_app.core.release.verify_release import verify_bundle

    want = _tvd_by_hand(demo["record"], _rows(demo["files"]["synthetic/synth.csv"]))
    assert len(want) == 4 + 3
    verdict = verify_bundle(demo["path"])
    assert verdict.valid, verdict.problems
    got = {m["marginal"]: m["tvd"] for m in verdict.synthetic["synth"]["marginals"]}
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-12)
    worst = max(want, key=lambda k: want[k])
    line = next(i for i in verdict.information if "'synth'" in i)
    assert f"{worst}: TVD {want[worst]:.3f}" in line and "largest of 7" in line
    assert "clipped at 0" in line


def test_a_synthetic_table_far_from_its_marginals_still_verifies_with_its_tvd(
        demo: dict[str, Any]) -> None:
    """TVD is information, never a verdict: no bound holds for every genuine bundle."""
    from planner_app.core.release.verify_synthetic import synthetic_problems, synthetic_tvd

    rows = _rows(demo["files"]["synthetic/synth.csv"])
    lopsided = [rows[0]] + [rows[1]] * (len(rows) - 1)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(lopsided)
    files = {**demo["files"], "synthetic/synth.csv": buf.getvalue().encode("utf-8")}
    assert synthetic_problems(files, demo["plan"], demo["record"]) == []
    fit = synthetic_tvd(files, demo["plan"], demo["record"])
    want = _tvd_by_hand(demo["record"], lopsided)
    assert max(m["tvd"] for m in fit["synth"]["marginals"]) == pytest.approx(max(want.values()))
    assert max(want.values()) > 0.3


def test_the_bundle_viewer_reads_the_same_tvd(demo: dict[str, Any]) -> None:
    from planner_app.core.release.opened_bundle import open_bundle

    opened = open_bundle(demo["path"])
    assert opened.verdict.synthetic["synth"]["marginals"]
    assert opened.synthetic[0].fit == opened.verdict.synthetic["synth"]["information"]


def test_verify_no_longer_says_the_rows_are_unchecked(demo: dict[str, Any]) -> None:
    from planner_app.core.release.verify_release import verify_bundle

    checks = " ".join(verify_bundle(demo["path"]).checks)
    assert "not checked against them" not in checks
    assert "TVD" in checks


# ----------------------------------------------------------------------------- regenerate


@pytest.mark.subprocess
def test_regenerate_in_another_process_gives_the_same_bytes(demo: dict[str, Any]) -> None:
    code = ("import sys, json\n"
            "from pathlib import Path\n"
            "from planner_app.core.release.verify_release import verify_bundle\n"
            f"v = verify_bundle(Path({str(demo['path'])!r}), regenerate=True)\n"
            "print(json.dumps(v.to_dict()))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)
    assert verdict["valid"], verdict["problems"]
    assert any("byte for byte" in c and "synthetic/synth.csv" in c for c in verdict["checks"])


def test_regenerate_catches_a_csv_the_marginals_and_seed_do_not_make(
        demo: dict[str, Any]) -> None:
    from planner_app.core.release.verify_synthetic import regenerate_synthetic

    rows = _rows(demo["files"]["synthetic/synth.csv"])
    other = next(k for k in range(2, len(rows)) if rows[k] != rows[1])
    rows[1], rows[other] = rows[other], rows[1]  # the same marginals, other bytes
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    files = {**demo["files"], "synthetic/synth.csv": buf.getvalue().encode("utf-8")}
    checks, problems, outcome = regenerate_synthetic(files, demo["plan"], demo["record"])
    assert problems and "synthetic/synth.csv" in problems[0] and not checks
    checks, problems, outcome = regenerate_synthetic(demo["files"], demo["plan"],
                                                     demo["record"])
    assert problems == [] and checks and outcome["synth"]["regenerated"] is True


def test_regenerate_says_not_checked_when_versions_differ(demo: dict[str, Any]) -> None:
    from importlib.metadata import version

    from planner_app.core.release.verify_synthetic import regenerate_synthetic

    record = json.loads(json.dumps(demo["record"]))
    record["synthetic"]["synth"]["versions"]["mbi"] = "0.0.1"
    checks, problems, outcome = regenerate_synthetic(demo["files"], demo["plan"], record)
    assert problems == [] and checks == []
    assert outcome["synth"] == {"regenerated": False,
                                "reason": f"mbi {version('mbi')} here, 0.0.1 recorded"}


def test_two_values_one_escaped_text_are_refused_before_the_charge(tmp_path: Path) -> None:
    """"=x" is written "'=x": declaring both would make two values one text in the CSV."""
    from planner_app.core.records.ledger import Ledger
    from planner_app.core.support.errors import InputError

    doc = synth_plan(rows=100, columns=[{"column": "region", "categories": ["=x", "'=x"]},
                                        {"column": "smoker", "categories": ["yes", "no"]}])
    home = app_home(tmp_path / "h").ensure()
    out = tmp_path / "b.zip"
    with pytest.raises(InputError, match=r"queries\[synth\]\.columns\[0\]") as err:
        publish(plan_from_dict(doc), load_table(DEMO_TABLE), out, home,
                source=SeededRandomSource(3))
    assert "\"'=x\"" in str(err.value) and "\n" not in str(err.value)
    assert not out.exists()
    assert not home.ledger_path.exists() or Ledger(home.ledger_path).releases_charged() == 0


def test_the_owners_comparison_reads_the_escaped_cells(escaped: dict[str, Any]) -> None:
    from planner_app.core.release.synthetic_compare import synthetic_codes_from_csv

    data = escaped["files"]["synthetic/synth.csv"]
    codes = synthetic_codes_from_csv(escaped["plan"].query("synth"), data)
    written = ["'" + DANGEROUS[0], "'@x", "'-x", "+1", "ok"]  # as the CSV writes them
    want = Counter(written.index(r[0]) for r in _rows(data)[1:])
    assert Counter(codes[:, 0].tolist()) == want
