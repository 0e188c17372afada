"""Key pairs in the app home and minisign-compatible signatures, checked against Debian's
independent minisign tool in both directions."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from planner_app.core.records.keys import (
    KeyStore,
    SignatureError,
    load_public_key,
    verify_signature,
)
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home

from .minisign_tool import minisign, minisign_verify


@pytest.fixture
def store(tmp_path: Path) -> KeyStore:
    return KeyStore(app_home(tmp_path / "home"))


def test_a_new_key_is_private_and_listed(store: KeyStore) -> None:
    public = store.create("owner")
    info = store.key_infos()
    assert [(k.name, k.fingerprint, k.protected) for k in info] == \
        [("owner", public.fingerprint, False)]
    mode = stat.S_IMODE(os.stat(store.keys_dir / "owner.key").st_mode)
    assert mode == 0o600
    with pytest.raises(InputError, match="already exists"):
        store.create("owner")
    with pytest.raises(InputError, match="not a key name"):
        store.create("../evil")


def test_our_signature_verifies_with_minisign(store: KeyStore, tmp_path: Path) -> None:
    store.create("owner")
    message = tmp_path / "MANIFEST.sha256"
    message.write_bytes(b"abc  results.csv\n")
    (tmp_path / "MANIFEST.sha256.minisig").write_text(
        store.secret("owner").sign(message.read_bytes(), "signer: owner"))
    pub = store.export("owner", tmp_path / "owner.pub")
    done = minisign_verify(pub, message)
    assert done.returncode == 0, done.stderr
    assert "Trusted comment: signer: owner" in done.stdout
    message.write_bytes(b"abd  results.csv\n")  # one changed byte: minisign refuses too
    assert minisign_verify(pub, message).returncode != 0


def test_minisign_signature_verifies_here(tmp_path: Path) -> None:
    tool = minisign()
    subprocess.run([tool, "-G", "-W", "-p", str(tmp_path / "m.pub"), "-s",
                    str(tmp_path / "m.key")], check=True, capture_output=True, timeout=60)
    data = tmp_path / "data.txt"
    data.write_bytes(b"some bytes\n")
    subprocess.run([tool, "-S", "-s", str(tmp_path / "m.key"), "-m", str(data), "-t",
                    "made by minisign"], check=True, capture_output=True, timeout=60)
    key = load_public_key(tmp_path / "m.pub")
    head = (tmp_path / "m.pub").read_text().splitlines()[0]
    assert head.split()[-1] == key.fingerprint  # minisign prints the same fingerprint
    sig = (tmp_path / "data.txt.minisig").read_text()
    assert verify_signature(data.read_bytes(), sig, [key]).trusted_comment == \
        "made by minisign"
    with pytest.raises(SignatureError, match="does not match the signed content"):
        verify_signature(b"some bytez\n", sig, [key])


def test_untrusted_key_and_changed_comment_are_refused(store: KeyStore) -> None:
    owner = store.create("owner")
    other = store.create("other")
    sig = store.secret("owner").sign(b"x", "who: owner")
    with pytest.raises(SignatureError, match="not a trusted key"):
        verify_signature(b"x", sig, [other])
    lines = sig.splitlines()
    lines[2] = "trusted comment: who: someone else"
    with pytest.raises(SignatureError, match="trusted comment was changed"):
        verify_signature(b"x", "\n".join(lines) + "\n", [owner])


def test_passphrase_protected_key(store: KeyStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    store.create("officer", passphrase="correct horse")
    assert store.key_infos()[0].protected
    with pytest.raises(InputError, match="protected by a passphrase"):
        store.secret("officer")
    with pytest.raises(InputError, match="passphrase of key 'officer' is wrong"):
        store.secret("officer", lambda name: "wrong")
    key = store.secret("officer", lambda name: "correct horse")
    monkeypatch.setenv("PLANNER_APP_PASSPHRASE", "correct horse")
    assert store.secret("officer").public == key.public


def test_a_file_that_is_not_a_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pub"
    bad.write_text("untrusted comment: x\nnot base64 at all!\n")
    with pytest.raises(InputError, match="bad.pub: is not a minisign"):
        load_public_key(bad)
    with pytest.raises(InputError, match="no such file"):
        load_public_key(tmp_path / "missing.pub")


def test_fingerprint_reads_as_minisign_prints_it() -> None:
    from planner_app.core.records.keys import fingerprint_of

    # minisign prints the key id as a little-endian number with %PRIX64: no leading zeros
    assert fingerprint_of(bytes([0x3B, 0x2A, 0xCD, 0xED, 0x47, 0x8D, 0xF3, 0x1B])) == \
        "1BF38D47EDCD2A3B"
    assert fingerprint_of(bytes([1, 0, 0, 0, 0, 0, 0, 0x0A])) == "A00000000000001"
