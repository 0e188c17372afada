"""The bad-bundle corpus of issue 12 (signed bundles): each bundle a forger or an accident
can produce, what ``planner-app verify`` (with and without ``--trust``) must answer, and the
file the message must name. Exit 1: the bundle is not valid; 2: bad input (not a key)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.release.bundle import MANIFEST, RECORD, SIGNATURE, read_bundle

from .forge import DROP, KEEP, forge
from .test_signed_bundles import world  # noqa: F401  (the module fixture)

OWNER = "owner"  # --trust owner.pub
WRONG = "guarded"  # --trust another key of the owner's home
NONE = ""  # no --trust


def rezip(src: Path, dst: Path, edit: Callable[[dict[str, bytes]], list[str] | None]) -> None:
    """Copy the bundle's members (editing them) in the order ``edit`` returns, else as read."""
    files = read_bundle(src)
    order = edit(files) or list(files)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in order:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, files[name])
    dst.write_bytes(buffer.getvalue())


def _garbage_signature(files: dict[str, bytes]) -> None:
    files[SIGNATURE] = b"untrusted comment: nothing\nnot base64 at all\n"


def _changed_trusted_comment(files: dict[str, bytes]) -> None:
    lines = files[SIGNATURE].decode().splitlines()
    lines[2] = lines[2].replace("signed by", "signed by the board, not")
    files[SIGNATURE] = ("\n".join(lines) + "\n").encode()


def _signature_before_manifest(files: dict[str, bytes]) -> list[str]:
    names = sorted(n for n in files if n not in (MANIFEST, SIGNATURE))
    return [*names, SIGNATURE, MANIFEST]


# (id, how the bundle is made, --trust, exit code, what the message must say)
CASES: list[tuple[str, Callable[[Path, Path, dict[str, Any]], None], str, int, list[str]]] = [
    ("number-changed-hashes-recomputed-trust",
     lambda s, d, w: forge(s, d), OWNER, 1, [SIGNATURE, "changed after it was signed"]),
    ("number-changed-hashes-recomputed-no-trust",  # the claimed key's signature fails too
     lambda s, d, w: forge(s, d), NONE, 1, [SIGNATURE, "changed after it was signed"]),
    ("resigned-by-forger-trust",
     lambda s, d, w: forge(s, d, signature=w["forger"], signed_by=w["forger"]), OWNER, 1,
     [SIGNATURE, "not a trusted key"]),
    ("signed-by-forger-record-names-owner",
     lambda s, d, w: forge(s, d, signature=w["forger"]), NONE, 1,
     [SIGNATURE, "names owner"]),
    ("signature-removed-record-still-signed",
     lambda s, d, w: forge(s, d, change=None, signature=DROP), NONE, 1,
     [SIGNATURE, "missing", "removed"]),
    ("signature-and-signer-removed-trust",
     lambda s, d, w: forge(s, d, signature=DROP, signed_by=DROP), OWNER, 1,
     [SIGNATURE, "not signed"]),
    ("signature-without-signer",
     lambda s, d, w: forge(s, d, change=None, signed_by=DROP, signature=KEEP), NONE, 1,
     [SIGNATURE, "names no signer"]),
    ("signature-not-minisign",
     lambda s, d, w: rezip(s, d, _garbage_signature), NONE, 1,
     [SIGNATURE, "not a minisign signature"]),
    ("trusted-comment-changed",
     lambda s, d, w: rezip(s, d, _changed_trusted_comment), OWNER, 1,
     [SIGNATURE, "trusted comment was changed"]),
    ("signature-before-manifest",
     lambda s, d, w: rezip(s, d, _signature_before_manifest), NONE, 1, ["order"]),
    ("signed-by-fingerprint-disagrees",
     lambda s, d, w: forge(s, d, change=_signed_by_fp(w)), NONE, 1,
     [RECORD, "signed_by", "0000000000000000"]),
    ("signed-by-not-an-object",
     lambda s, d, w: forge(s, d, change=_signed_by_text), NONE, 1,
     [RECORD, "signed_by must hold"]),
    ("genuine-wrong-owner-key",
     lambda s, d, w: d.write_bytes(s.read_bytes()), WRONG, 1, [SIGNATURE, "not a trusted key"]),
    ("unsigned-trust", None, OWNER, 1, [SIGNATURE, "not signed"]),
    ("trust-file-not-a-key", lambda s, d, w: d.write_bytes(s.read_bytes()), "not-a-key", 2,
     ["not-a-key.pub", "not a minisign"]),
]


def _signed_by_text(record: dict[str, Any]) -> None:
    record["signed_by"] = "owner"


def _signed_by_fp(w: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        record["signed_by"]["fingerprint"] = "0" * 16
    return change


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_signed_bundles(case: Any, world: dict[str, Any], tmp_path: Path,  # noqa: F811
                            capsys: pytest.CaptureFixture[str]) -> None:
    _, make, trust, code, words = case
    bundle = tmp_path / "b.zip"
    if make is None:
        bundle.write_bytes(world["unsigned"].read_bytes())
    else:
        make(world["bundle"], bundle, world)
    args = ["verify", str(bundle)]
    if trust == OWNER:
        args += ["--trust", str(world["owner_pub"])]
    elif trust == WRONG:
        args += ["--trust", str(world["guarded_pub"])]
    elif trust:
        bad = tmp_path / f"{trust}.pub"
        bad.write_text("hello\n")
        args += ["--trust", str(bad)]
    got = main(args)
    err = capsys.readouterr().err
    assert got == code, err
    line = err.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    for word in words:
        assert word in line, line


def test_the_corpus_covers_every_origin_problem() -> None:
    assert len(CASES) >= 12
    assert {c[2] for c in CASES} >= {OWNER, WRONG, NONE}
