"""A synthetic table in its bundle: a genuine bundle always verifies and opens, however well
its CSV compresses (a table of one value per column), while real zip bombs stay refused."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.model import plan_from_dict
from planner_app.core.model.synthetic_plan import MAX_SYNTH_CSV_BYTES
from planner_app.core.release.bundle import MANIFEST, NotABundle, open_bundle
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_TABLE
from tests.core.test_synthetic import SYNTH, synth_plan


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
    assert opened.verdict.valid and opened.synthetic
