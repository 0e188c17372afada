"""verify refuses a bundle whose JSON names a key twice (readers would disagree on the record:
a first-key-wins reader sees confidence 0.5 where the last key says 0.95) and one whose zip
members are marked as symbolic links or other special files (issue 22 §6)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.bundle import NotABundle, read_bundle
from planner_app.core.release.opened_bundle import open_bundle
from planner_app.core.release.publish import publish
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.home import app_home
from tests.corpus.crafted import CRAFTS

PLAN = {"format": "planner-app/plan@1", "dataset": {"name": "corpus"},
        "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 2.0},
        "queries": [{"id": "n", "kind": "count", "epsilon": 0.5}]}


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    folder = tmp_path_factory.mktemp("good")
    table = folder / "t.csv"
    table.write_text("x,g\n1,a\n5,b\n")
    publish(plan_from_dict(PLAN), load_table(table), folder / "good.zip",
            app_home(folder / "home"))
    return (folder / "good.zip").read_bytes()


def crafted(good: bytes, recipe: str, folder: Path) -> Path:
    path = folder / f"{recipe}.zip"
    path.write_bytes(CRAFTS[recipe](good))
    return path


def test_the_good_bundle_verifies(good: bytes, tmp_path: Path) -> None:
    path = tmp_path / "good.zip"
    path.write_bytes(good)
    assert verify_bundle(path).valid


def test_a_key_twice_in_the_record_is_not_valid(good: bytes, tmp_path: Path) -> None:
    path = crafted(good, "release-json-key-twice", tmp_path)
    text = read_bundle(path)["release.json"].decode()
    assert text.startswith('{"confidence": 0.5, ')  # the first of two top-level keys
    assert json.loads(text)["confidence"] == 0.95  # what a last-key reader sees: no change
    verdict = verify_bundle(path)
    assert not verdict.valid
    assert ("release.json: is not valid JSON (the key 'confidence' appears twice in one "
            "object)") in verdict.problems


def test_a_key_twice_in_an_audit_line_is_not_valid(good: bytes, tmp_path: Path) -> None:
    verdict = verify_bundle(crafted(good, "audit-line-key-twice", tmp_path))
    assert not verdict.valid
    assert "audit.jsonl: is not JSON lines (the key 'event' appears twice in one object)" \
        in verdict.problems


def test_the_viewer_opens_it_as_not_valid(good: bytes, tmp_path: Path) -> None:
    opened = open_bundle(crafted(good, "release-json-key-twice", tmp_path))
    assert not opened.verdict.valid


@pytest.mark.parametrize(("recipe", "member", "kind"), [
    ("readme-as-symlink", "README.txt", "a symbolic link"),
    ("manifest-as-symlink", "MANIFEST.sha256", "a symbolic link"),
    ("results-as-fifo", "results.csv", "a pipe"),
])
def test_a_member_marked_as_a_link_is_refused(good: bytes, tmp_path: Path, recipe: str,
                                              member: str, kind: str) -> None:
    path = crafted(good, recipe, tmp_path)
    with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as zf:  # the bytes are the good ones
        assert zf.read(member) == zipfile.ZipFile(io.BytesIO(good)).read(member)
    with pytest.raises(NotABundle) as caught:
        verify_bundle(path)
    assert str(caught.value) == (f"{recipe}.zip: the entry {member!r} is marked as {kind}; a "
                                 "bundle holds only regular files; refused")


def test_a_member_with_the_dos_folder_bit_is_refused(good: bytes, tmp_path: Path) -> None:
    files = {i.filename: i for i in zipfile.ZipFile(io.BytesIO(good)).infolist()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(buffer, "w") as zf:
        for name, info in files.items():
            if name == "README.txt":
                info.external_attr |= 0x10
            zf.writestr(info, src.read(name))
    path = tmp_path / "dos.zip"
    path.write_bytes(buffer.getvalue())
    with pytest.raises(NotABundle, match="'README.txt' is marked as a folder"):
        read_bundle(path)
