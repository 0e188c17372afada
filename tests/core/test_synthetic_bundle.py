"""A synthetic table in its bundle: a genuine bundle always verifies and opens, however well
its CSV compresses (a table of one value per column), while real zip bombs stay refused."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds.synthetic import MAX_SYNTH_CSV_BYTES
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.bundle import MANIFEST, NotABundle, open_bundle
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_TABLE
from tests.core.test_synthetic import REGIONS, SYNTH, synth_plan


def _zip(path: Path, entries: list[tuple[str, bytes]]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zf.writestr(name, data)


def test_a_highly_compressible_synthetic_csv_is_read(tmp_path: Path) -> None:
    data = b"smoker,region\n" + b"yes,North\n" * 1_000_000
    path = tmp_path / "b.zip"
    _zip(path, [("synthetic/s.csv", data), (MANIFEST, b"")])
    info = zipfile.ZipFile(path).getinfo("synthetic/s.csv")
    assert info.file_size > 200 * info.compress_size  # the old ratio rule refused it
    files, _ = open_bundle(path)
    assert files["synthetic/s.csv"] == data


@pytest.mark.parametrize("name", ["bomb.txt", "results.csv", "release.json",
                                  "synthetic/s.json", "noised/a.csv"])
def test_other_members_keep_the_ratio_rule(tmp_path: Path, name: str) -> None:
    path = tmp_path / "b.zip"
    _zip(path, [(name, b"\0" * 5_000_000), (MANIFEST, b"")])
    with pytest.raises(NotABundle, match="zip bomb"):
        open_bundle(path)


def test_a_synthetic_csv_beyond_what_the_app_writes_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "b.zip"
    _zip(path, [("synthetic/s.csv", b"a\n"), (MANIFEST, b"")])
    raw = bytearray(path.read_bytes())
    # claim a larger size in both headers: the reader never trusts more than the caps
    zf = zipfile.ZipFile(path)
    info = zf.getinfo("synthetic/s.csv")
    big = (MAX_SYNTH_CSV_BYTES + 1).to_bytes(4, "little")
    raw[info.header_offset + 22:info.header_offset + 26] = big
    cd = raw.rfind(b"PK\x01\x02")
    raw[cd + 24:cd + 28] = big
    path.write_bytes(bytes(raw))
    with pytest.raises(NotABundle, match="zip bomb"):
        open_bundle(path)


def test_a_genuine_bundle_of_a_one_value_table_verifies_and_opens(tmp_path: Path) -> None:
    pytest.importorskip("mbi")
    from planner_app.core.release.opened_bundle import open_bundle as open_for_viewer
    from planner_app.core.release.verify_release import verify_bundle

    doc: dict[str, Any] = synth_plan(
        rows=1_000_000, columns=[{"column": "smoker", "categories": ["yes"]},
                                 {"column": "region", "categories": ["North"]}])
    assert doc["queries"][0]["kind"] == SYNTH["kind"]
    out = tmp_path / "bundle.zip"
    publish(plan_from_dict(doc), load_table(DEMO_TABLE), out, app_home(tmp_path / "h").ensure(),
            source=SeededRandomSource(3))
    verdict = verify_bundle(out)
    assert verdict.valid, verdict.problems
    opened = open_for_viewer(out)
    assert opened.verdict.valid
    assert [(t.columns, t.total_rows) for t in opened.synthetic] == [
        (["smoker", "region"], 1_000_000)]
    assert {tuple(r) for r in opened.synthetic[0].rows} == {("yes", "North")}


# ----------------------------------------------------------------------------- the payload


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A bundle of two synthetic tables: one with the plan's rows, one without."""
    pytest.importorskip("mbi")
    folder = tmp_path_factory.mktemp("synth")
    doc = synth_plan(rows=300)
    doc["queries"].append({**SYNTH, "id": "synth_n", "epsilon": 1.0,
                           "columns": SYNTH["columns"][:2]})
    plan = plan_from_dict(doc)
    out = folder / "bundle.zip"
    publish(plan, load_table(DEMO_TABLE), out, app_home(folder / "home").ensure(),
            source=SeededRandomSource(8))
    with zipfile.ZipFile(out) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    return {"plan": plan, "files": files}


PAYLOAD_FORGERIES: list[tuple[str, Any]] = [
    ("domains", lambda t: t["domains"][0].__setitem__(0, "Mars")),
    ("method", lambda t: t.__setitem__("method", "aim")),
    ("seed", lambda t: t.__setitem__("seed", -1)),
    ("seed", lambda t: t.__setitem__("seed", 1 << 31)),
    ("seed", lambda t: t.__setitem__("seed", True)),
    ("rows_from", lambda t: t.__setitem__("rows_from", "noised one-way marginals")),
    ("synth_n", lambda t: t.__setitem__("rows_from", "plan")),  # the plan has no rows
    ("columns", lambda t: t.__setitem__("columns", ["secret"])),
    ("keys", lambda t: t.__setitem__("true_rows", 3808)),
    ("keys", lambda t: t.pop("rows_from")),
    ("rows", lambda t: t.__setitem__("rows", 300.0)),
    ("versions", lambda t: t.__setitem__("versions", {"mbi": "2"})),
    ("versions", lambda t: t["versions"].__setitem__("jax", 7)),
    ("marginals", lambda t: t["marginals"][0].__setitem__("secret", 1)),
    ("marginals", lambda t: t["marginals"][0].__setitem__("sigma_sq_steps", 4)),
]


@pytest.mark.parametrize(("field", "forge"), PAYLOAD_FORGERIES)
def test_verify_checks_the_whole_synthetic_payload(released: dict[str, Any], field: str,
                                                    forge: Any) -> None:
    import json

    from planner_app.core.release.verify_synthetic import synthetic_problems

    files, plan = released["files"], released["plan"]
    record = json.loads(files["release.json"])
    assert synthetic_problems(files, plan, record) == []
    table = field if field == "synth_n" else "synth"
    forge(record["synthetic"][table])
    problems = synthetic_problems(files, plan, record)
    assert problems and any(f"{table!r}" in p for p in problems), problems


def test_the_payload_records_the_versions_that_regenerate_the_csv(
        released: dict[str, Any]) -> None:
    import json
    from importlib.metadata import version

    from planner_app.core.release.synthetic import SYNTHESIS_CODE

    record = json.loads(released["files"]["release.json"])
    for t in record["synthetic"].values():
        assert t["versions"] == {"mbi": version("mbi"), "jax": version("jax"),
                                 "numpy": version("numpy"),
                                 "planner_app synthesis": SYNTHESIS_CODE}


# ----------------------------------------------------------------------------- free space


@pytest.mark.parametrize("rows", [1_000_000, None])
def test_the_free_space_check_counts_the_synthetic_table(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         rows: int | None) -> None:
    """A million rows of region × smoker take at least 8 bytes a line ("no,East\\n"): with
    8 MB free the bundle cannot be written, so the release is refused before its charge.
    Without rows the public worst case is the row cap (a million rows for these domains)."""
    import shutil
    from collections import namedtuple

    from planner_app.core.records.ledger import Ledger
    from planner_app.core.support.errors import InputError

    pytest.importorskip("mbi")
    doc = synth_plan(rows=rows, columns=[{"column": "region", "categories": ["North", "East"]},
                                         {"column": "smoker", "categories": ["yes", "no"]}])
    home = app_home(tmp_path / "h").ensure()
    usage = namedtuple("usage", "total used free")
    real = shutil.disk_usage

    def little_room(path: Any) -> Any:
        return usage(10**12, 0, 8_000_000) if Path(path) == tmp_path else real(path)

    monkeypatch.setattr(shutil, "disk_usage", little_room)
    out = tmp_path / "b.zip"
    with pytest.raises(InputError, match="MB free"):
        publish(plan_from_dict(doc), load_table(DEMO_TABLE), out, home,
                source=SeededRandomSource(3))
    assert not out.exists()
    assert not home.ledger_path.exists() or Ledger(home.ledger_path).releases_charged() == 0


def test_the_size_bound_covers_the_tables_written(released: dict[str, Any]) -> None:
    from planner_app.core.release.synthetic import csv_size_bound

    for qid in ("synth", "synth_n"):
        assert csv_size_bound(released["plan"].query(qid)) >= \
            len(released["files"][f"synthetic/{qid}.csv"])


def test_a_release_whose_tables_could_pass_what_verify_reads_is_refused_before_its_charge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Several synthetic tables may each be legal and together pass verify's total cap: the
    bundle would be charged, then refused by every recipient. (The cap is lowered here so a
    small table stands for four 512 MiB ones.)"""
    from planner_app.core.records.ledger import Ledger
    from planner_app.core.release import bundle
    from planner_app.core.release.synthetic import csv_size_bound
    from planner_app.core.support.errors import InputError

    pytest.importorskip("mbi")
    doc = synth_plan(rows=100_000, columns=[{"column": "region", "categories": REGIONS}])
    plan = plan_from_dict(doc)
    monkeypatch.setattr(bundle, "MAX_TOTAL_BYTES", csv_size_bound(plan.query("synth")) - 1)
    home = app_home(tmp_path / "h").ensure()
    out = tmp_path / "b.zip"
    with pytest.raises(InputError, match="larger than a bundle may hold"):
        publish(plan, load_table(DEMO_TABLE), out, home, source=SeededRandomSource(3))
    assert not out.exists()
    assert not home.ledger_path.exists() or Ledger(home.ledger_path).releases_charged() == 0
