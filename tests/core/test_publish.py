"""Releases: charged before noise, bundles verify, tampering is caught and named, nothing
private leaves, the ledger holds its cap."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pandas as pd
import pytest

from planner_app.core.data.tables import Table, load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import load_plan, plan_from_dict
from planner_app.core.records.audit import AuditLog, verify_chain
from planner_app.core.records.ledger import BudgetExceeded, Ledger, LedgerError
from planner_app.core.release.bundle import (
    MANIFEST,
    NotABundle,
    manifest_bytes,
    read_bundle,
    safe_cell,
)
from planner_app.core.release.publish import prepare, publish
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.home import AppHome, app_home
from planner_app.core.support.resources import demo_plan_path, resource_path
from tests.conftest import DEMO_TABLE, flip_zip_byte, plan_dict, with_reasons
from tests.oracle.pandas_engine import PandasEngine

RELEASE_SCHEMA = json.loads(resource_path("release.schema.json").read_text())


@pytest.fixture
def home(tmp_path: Path) -> AppHome:
    return app_home(tmp_path / "home").ensure()


@pytest.fixture(scope="module")
def demo() -> tuple[Any, Table]:
    return load_plan(demo_plan_path()), load_table(DEMO_TABLE)


def test_app_home_is_moved_by_the_environment_or_an_argument(tmp_path: Path) -> None:
    from_env = app_home()  # conftest sets PLANNER_APP_HOME to a temporary folder
    assert from_env.data_dir.parent == Path(os.environ["PLANNER_APP_HOME"]).resolve()
    chosen = app_home(tmp_path / "elsewhere")
    assert chosen.ledger_path == (tmp_path / "elsewhere" / "data" / "ledger.sqlite3").resolve()
    assert chosen.audit_path.parent == chosen.ledger_path.parent


def test_release_of_every_kind_verifies(tmp_path: Path, home: AppHome, demo) -> None:  # type: ignore[no-untyped-def]
    plan, table = demo
    out = tmp_path / "bundle.zip"
    result = publish(plan, table, out, home)
    assert out.exists() and result.bundle_sha256
    verdict = verify_bundle(out)
    assert verdict.valid, verdict.problems
    assert len(verdict.checks) == 7 and "exactly what release.json gives" in verdict.checks[-1]
    files = read_bundle(out)
    assert set(files) >= {"results.csv", "release.json", "plan.json", "audit.jsonl",
                          "README.txt", MANIFEST, "noised/smokers.csv"}
    record = json.loads(files["release.json"])
    jsonschema.validate(record, RELEASE_SCHEMA)
    assert set(record["dataset"]) == {"name", "file_name", "file_commitment"}
    assert record["dataset"]["name"] == "demo-survey"
    assert record["dataset"]["file_name"] == "survey.csv"
    assert table.sha256 not in files["release.json"].decode()
    assert record["ledger"]["spent"]["epsilon"] == pytest.approx(record["total"]["epsilon"])
    # every declared cell is in the results, once
    rows = list(csv.DictReader(io.StringIO(files["results.csv"].decode())))
    region = [r["cell"] for r in rows if r["query_id"] == "region_counts"]
    assert region == ["North", "South", "East", "West"]
    groups = [r["group"] for r in rows if r["query_id"] == "satisfaction_by_region"]
    assert groups == ["North", "South", "East", "West"]
    # the ledger row is complete and records the bundle
    state = Ledger(home.ledger_path).state("demo-survey")
    assert [r.status for r in state.releases] == ["completed"]
    assert state.releases[0].bundle_sha256 == result.bundle_sha256
    # the app-wide audit log is one intact chain
    log = AuditLog(home.audit_path).read()
    assert verify_chain(log) is None
    assert [e["event"] for e in log] == ["release requested", "release charged",
                                         "bundle sealed", "bundle written"]


def test_a_second_release_is_charged_again_with_new_noise(tmp_path: Path, home: AppHome,
                                                          demo) -> None:  # type: ignore[no-untyped-def]
    plan, table = demo
    a = publish(plan, table, tmp_path / "a.zip", home)
    b = publish(plan, table, tmp_path / "b.zip", home)
    assert b.ledger.spent.epsilon > a.ledger.spent.epsilon
    assert len(b.ledger.releases) == 2
    va = [v.value for r in a.releases for v in r.values]
    vb = [v.value for r in b.releases for v in r.values]
    assert va != vb


def rewrite(src: Path, dst: Path, changes: dict[str, bytes], fix_manifest: bool) -> None:
    files = read_bundle(src)
    files.update(changes)
    if fix_manifest:
        files[MANIFEST] = manifest_bytes({k: v for k, v in files.items() if k != MANIFEST})
    with zipfile.ZipFile(dst, "w") as zout:  # laid out as a bundle is: only contents differ
        for name in sorted(n for n in files if n != MANIFEST) + [MANIFEST]:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(info, files[name])


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory, demo) -> Path:  # type: ignore[no-untyped-def]
    plan, table = demo
    folder = tmp_path_factory.mktemp("bundle")
    out = folder / "demo.zip"
    publish(plan, table, out, app_home(folder / "home"))
    return out


@pytest.mark.parametrize("member", ["results.csv", "release.json", "plan.json", "audit.jsonl",
                                    "README.txt", "noised/smokers.csv", MANIFEST])
def test_a_flipped_byte_fails_naming_the_file(tmp_path: Path, bundle: Path, member: str) -> None:
    bad = tmp_path / "bad.zip"
    flip_zip_byte(bundle, bad, member)
    verdict = verify_bundle(bad)
    assert not verdict.valid
    named = member if member != MANIFEST else MANIFEST
    assert any(p.startswith(named) or named in p for p in verdict.problems), verdict.problems


def test_tampering_with_a_recomputed_manifest_is_still_caught(tmp_path: Path,
                                                              bundle: Path) -> None:
    files = read_bundle(bundle)
    # a changed result, with the manifest made to match: the audit seal catches it
    text = files["results.csv"].decode().replace(",North,", ",North,1", 1)
    bad = tmp_path / "results.zip"
    rewrite(bundle, bad, {"results.csv": text.encode()}, fix_manifest=True)
    verdict = verify_bundle(bad)
    assert not verdict.valid and any(p.startswith("audit.jsonl") for p in verdict.problems)
    # a smaller stated ε: the recomputation from the plan catches it
    record = json.loads(files["release.json"])
    record["total"]["epsilon"] = 0.5
    bad = tmp_path / "record.zip"
    rewrite(bundle, bad, {"release.json": json.dumps(record).encode()}, fix_manifest=True)
    verdict = verify_bundle(bad)
    assert not verdict.valid
    assert any("release.json: the total" in p for p in verdict.problems), verdict.problems
    # a removed audit entry
    lines = files["audit.jsonl"].decode().splitlines()
    bad = tmp_path / "audit.zip"
    rewrite(bundle, bad, {"audit.jsonl": ("\n".join(lines[:1] + lines[2:]) + "\n").encode()},
            fix_manifest=True)
    verdict = verify_bundle(bad)
    assert not verdict.valid and any("audit.jsonl: line 2" in p for p in verdict.problems)
    # a file removed from the zip
    bad = tmp_path / "missing.zip"
    with zipfile.ZipFile(bundle) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            if info.filename != "README.txt":
                zout.writestr(info, zin.read(info))
    verdict = verify_bundle(bad)
    assert verdict.problems == ["README.txt: is listed in MANIFEST.sha256 but missing"]


@pytest.mark.parametrize("entries,words", [
    ([("../evil.txt", b"x"), (MANIFEST, b"")], "path traversal"),
    ([("/etc/passwd", b"x"), (MANIFEST, b"")], "path traversal"),
    ([("a.txt", b"x"), ("a.txt", b"y"), (MANIFEST, b"")], "appears twice"),
    ([("results.csv", b"x")], "has no MANIFEST.sha256"),
    ([("bomb.txt", b"\0" * 5_000_000), (MANIFEST, b"")], "zip bomb"),
])
def test_malformed_bundles_are_refused(tmp_path: Path, entries: list[tuple[str, bytes]],
                                       words: str) -> None:
    path = tmp_path / "x.zip"
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name, data in entries:
                zf.writestr(name, data)
    with pytest.raises(NotABundle, match=words):
        verify_bundle(path)


def test_not_a_zip_and_truncated(tmp_path: Path, bundle: Path) -> None:
    text = tmp_path / "x.zip"
    text.write_text("hello")
    with pytest.raises(NotABundle, match="not a zip"):
        verify_bundle(text)
    cut = tmp_path / "cut.zip"
    cut.write_bytes(bundle.read_bytes()[: bundle.stat().st_size // 2])
    with pytest.raises(NotABundle, match=r"^cut\.zip: is not a zip file"):  # names the file
        verify_bundle(cut)


def test_formula_cells_are_neutralised() -> None:
    assert safe_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert safe_cell("+cmd") == "'+cmd" and safe_cell("@x") == "'@x"
    assert safe_cell("-2+3|calc") == "'-2+3|calc"
    assert safe_cell(-3) == "-3" and safe_cell(-2.5) == "-2.5" and safe_cell("-7") == "-7"
    assert safe_cell("North") == "North"


def test_labels_that_look_like_formulas_reach_csv_neutralised(tmp_path: Path,
                                                             home: AppHome) -> None:
    frame = pd.DataFrame({"g": ["=1+1", "b", "b"]})
    plan = plan_from_dict(with_reasons(plan_dict(queries=[
        {"id": "h", "label": "=cmd|' /C calc'!A0", "kind": "histogram", "column": "g",
         "categories": ["=1+1", "b"], "epsilon": 1}])))
    table = Table(frame=frame, name="t.csv", sha256="0" * 64, format="csv")
    out = tmp_path / "f.zip"
    publish(plan, table, out, home)
    text = read_bundle(out)["results.csv"].decode()
    for line in text.splitlines()[1:]:
        for cell in next(csv.reader([line])):
            assert not cell.startswith(("=", "+", "@")), cell
    assert verify_bundle(out).valid


# ----------------------------------------------------------------------------- privacy scan


def true_strings(values: list[float]) -> set[str]:
    out = set()
    for v in values:
        out |= {repr(float(v)), f"{v:g}", f"{v:.6g}"}
        if float(v).is_integer():
            out.add(str(int(v)))
    return {s for s in out if len(s.replace("-", "").replace(".", "")) >= 4}


def test_no_true_value_leaves_in_the_bundle_or_the_logs(tmp_path: Path, home: AppHome) -> None:
    rng = np.random.default_rng(7)  # test data only
    n = 4321
    frame = pd.DataFrame({
        "pid": np.arange(n),
        "wage": np.round(rng.uniform(1000, 9000, n), 3),
        "kind": rng.choice(["alpha", "beta", "gamma"], n),
        "name": [f"Zebulon-{i:05d}" for i in range(n)],
    })
    frame.loc[17, "wage"] = 8765.4321  # a distinctive raw value
    data = tmp_path / "secret-folder" / "people.csv"
    data.parent.mkdir()
    frame.to_csv(data, index=False)
    plan = plan_from_dict(with_reasons(plan_dict(
        dataset={"name": "scan", "expected_rows": 4000},
        budget={"epsilon": 2.0, "delta": 0.0},
        queries=[
            {"id": "n", "kind": "count", "epsilon": 0.2},
            {"id": "s", "kind": "sum", "column": "wage", "lower": 0, "upper": 10000,
             "epsilon": 0.2},
            {"id": "m", "kind": "mean", "column": "wage", "lower": 0, "upper": 10000,
             "epsilon": 0.2},
            {"id": "v", "kind": "variance", "column": "wage", "lower": 0, "upper": 10000,
             "epsilon": 0.2},
            {"id": "h", "kind": "histogram", "column": "kind",
             "categories": ["alpha", "beta", "gamma", "delta"], "epsilon": 0.2},
            {"id": "q", "kind": "quantile", "column": "wage", "lower": 0, "upper": 10000,
             "quantile": 0.5, "epsilon": 0.2},
        ])))
    table = load_table(data)
    out = tmp_path / "scan.zip"
    result = publish(plan, table, out, home)
    assert verify_bundle(out).valid
    # the true aggregates, computed independently
    wage = frame["wage"]
    truths = [n, wage.sum(), wage.clip(0, 10000).sum(), wage.mean(), wage.var(ddof=0),
              wage.var(ddof=1), wage.median(), wage.min(), wage.max(),
              *frame["kind"].value_counts().tolist()]
    # released values and their interval ends are noised: a true value may equal one by chance
    released = {float(x) for r in result.releases for v in r.values
                for x in (v.value, v.low, v.high) if x is not None}
    numbers = true_strings([t for t in truths if float(t) not in released]) | {"8765.4321"}
    texts = {"Zebulon-00017", str(data.parent), str(data)}
    haystacks = {name: blob.decode("utf-8", "replace")
                 for name, blob in read_bundle(out).items()}
    # read the report as a person or a tool reads it: the PDF's text and metadata, the HTML
    # without its embedded chart (base64 image data can hold any digits by chance)
    import re as _re

    from pypdf import PdfReader

    pdf = PdfReader(io.BytesIO(read_bundle(out)["report.pdf"]))
    haystacks["report.pdf"] = " ".join(page.extract_text() for page in pdf.pages) + repr(
        dict(pdf.metadata or {}))
    haystacks["report.html"] = _re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "",
                                       haystacks["report.html"])
    haystacks["app audit log"] = home.audit_path.read_text()
    con = sqlite3.connect(home.ledger_path)
    haystacks["ledger"] = json.dumps(con.execute("SELECT * FROM releases").fetchall())
    con.close()
    for where, text in haystacks.items():
        for secret in texts:
            assert secret not in text, f"{secret!r} found in {where}"
        # numbers are compared as whole tokens: "1438" inside a timestamp's microseconds or
        # another number's digits is not a leak (hashes and ids are removed first)
        text = _re.sub(r"[0-9a-f]{32,64}", "#", text)
        tokens = set(_re.findall(r"-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?", text))
        tokens |= {t.replace(",", "") for t in tokens}
        for secret in numbers:
            assert secret not in tokens, f"{secret!r} found in {where}"


# ----------------------------------------------------------------------------- the ledger


def test_the_ledger_refuses_beyond_the_cap(tmp_path: Path, home: AppHome, demo) -> None:  # type: ignore[no-untyped-def]
    plan, table = demo
    ledger = Ledger(home.ledger_path)
    ledger.set_cap("demo-survey", 5.0, 1e-5)
    publish(plan, table, tmp_path / "one.zip", home)
    before = ledger.state("demo-survey")
    audit_before = home.audit_path.read_text()
    with pytest.raises(BudgetExceeded, match=r"has ε = [0-9.]+ .* left of its lifetime cap"):
        publish(plan, table, tmp_path / "two.zip", home)
    assert not (tmp_path / "two.zip").exists()
    assert list(tmp_path.glob("*.partial")) == []
    after = ledger.state("demo-survey")
    assert after.releases == before.releases and after.spent == before.spent
    # the refusal charged nothing; its request entry is the only trace
    new = home.audit_path.read_text()[len(audit_before):].splitlines()
    assert [json.loads(line)["event"] for line in new] == ["release requested"]


def test_a_plan_over_its_own_budget_is_refused(tmp_path: Path, home: AppHome) -> None:
    plan = plan_from_dict(plan_dict(budget={"epsilon": 0.5},
                                    queries=[{"id": "n", "kind": "count", "epsilon": 1}]))
    table = Table(pd.DataFrame({"a": [1, 2]}), "t.csv", "0" * 64, "csv")
    with pytest.raises(BudgetExceeded, match="exceeds its budget"):
        publish(plan, table, tmp_path / "x.zip", home)
    assert not home.ledger_path.exists() or not Ledger(home.ledger_path).state("test").releases


def test_a_changed_file_is_still_the_same_budget(tmp_path: Path, home: AppHome, demo) -> None:  # type: ignore[no-untyped-def]
    plan, table = demo
    publish(plan, table, tmp_path / "a.zip", home)
    changed = Table(table.frame.iloc[:-5], table.name, "f" * 64, "csv")
    result = publish(plan, changed, tmp_path / "b.zip", home)
    assert any("SHA-256 changed" in n for n in result.notes)
    assert len(result.ledger.releases) == 2
    renamed = plan_from_dict({**json.loads(demo_plan_path().read_text()),
                              "dataset": {"name": "renamed"}})
    # the notes are made before the charge (prepare): this one needs no charge (issue 23)
    notes = prepare(renamed, table, tmp_path / "c.zip", home).notes
    assert any("released before as dataset 'demo-survey'" in n for n in notes)


def test_a_read_only_ledger_releases_nothing(tmp_path: Path, home: AppHome, demo,
                                            monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    plan, table = demo
    Ledger(home.ledger_path).state("x")  # create it
    real_connect = sqlite3.connect

    def read_only(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        return real_connect(f"file:{path}?mode=ro", *args, uri=True, **kwargs)

    # as the OS would when the file is read-only (root ignores chmod, so use SQLite's mode)
    monkeypatch.setattr("planner_app.core.records.ledger.sqlite3.connect", read_only)
    with pytest.raises(LedgerError, match="read-only; nothing was released"):
        publish(plan, table, tmp_path / "x.zip", home)
    assert not (tmp_path / "x.zip").exists()
    monkeypatch.undo()
    assert Ledger(home.ledger_path).state("demo-survey").releases == []


def test_ledger_faults_give_clear_errors(tmp_path: Path, home: AppHome, demo) -> None:  # type: ignore[no-untyped-def]
    plan, table = demo
    # damaged
    home.ledger_path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(LedgerError, match="damaged"):
        publish(plan, table, tmp_path / "x.zip", home)
    assert not (tmp_path / "x.zip").exists()
    # read-only, simulated through SQLite's own read-only mode (root ignores chmod)
    home.ledger_path.unlink()
    ledger = Ledger(home.ledger_path)
    ledger.state("x")
    con = sqlite3.connect(f"file:{home.ledger_path}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as info:
        con.execute("INSERT INTO datasets VALUES ('a', 1, 0, 'now')")
    assert "readonly" in str(info.value)
    assert "read-only" in str(ledger._fail(info.value))
    # locked: another connection holds the write lock
    import planner_app.core.records.ledger as ledger_module

    holder = sqlite3.connect(home.ledger_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    old = ledger_module.BUSY_TIMEOUT_S
    ledger_module.BUSY_TIMEOUT_S = 0.2
    try:
        with pytest.raises(LedgerError, match="locked"):
            publish(plan, table, tmp_path / "y.zip", home)
    finally:
        ledger_module.BUSY_TIMEOUT_S = old
        holder.execute("ROLLBACK")
        holder.close()
    assert not (tmp_path / "y.zip").exists()


def test_a_broken_audit_log_stops_a_release(tmp_path: Path, home: AppHome, demo) -> None:  # type: ignore[no-untyped-def]
    plan, table = demo
    publish(plan, table, tmp_path / "a.zip", home)
    lines = home.audit_path.read_text().splitlines()
    entry = json.loads(lines[1])
    entry["params"]["epsilon"] = 0.001
    lines[1] = json.dumps(entry)
    home.audit_path.write_text("\n".join(lines) + "\n")
    from planner_app.core.records.audit import AuditError

    with pytest.raises(AuditError, match="line 2"):
        publish(plan, table, tmp_path / "b.zip", home)


def test_aggregates_do_not_depend_on_the_noise_source() -> None:
    plan = load_plan(demo_plan_path())
    frame = load_table(DEMO_TABLE).frame
    a = PandasEngine(plan, frame, SeededRandomSource(1)).aggregate(plan.query("hours_mean"))
    b = PandasEngine(plan, frame, SeededRandomSource(1)).aggregate(plan.query("hours_mean"))
    assert a.parts["sum"].tolist() == b.parts["sum"].tolist()
