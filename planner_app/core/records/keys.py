"""Ed25519 signing keys and minisign-compatible signatures.

A person's key pair lives in the app home: ``keys/NAME.key`` (the private key, PKCS#8 PEM,
optionally encrypted with a passphrase, mode 0600) beside ``keys/NAME.pub`` (the public key in
minisign's format). Public keys a person chooses to trust (an officer's, say) are kept in
``trusted/``. The signature primitive is the ``cryptography`` package's Ed25519; this module
only writes and reads minisign's text formats, so that every public key and signature made
here is checked by the independent ``minisign`` tool as well:

    minisign -V -p OWNER.pub -m MANIFEST.sha256          (reads MANIFEST.sha256.minisig)

Formats (https://jedisct1.github.io/minisign/):

- public key: ``untrusted comment: ...`` then base64("Ed" || key id (8 bytes) || key (32))
- signature: ``untrusted comment: ...``, base64("ED" || key id || Ed25519(BLAKE2b-512(file))),
  ``trusted comment: TEXT``, base64(Ed25519(signature || TEXT)). The trusted comment is
  signed too; the untrusted one is not.

A key's *fingerprint* is its key id written as minisign prints it (up to 16 hex digits).
The key id is chosen by whoever makes the key, so a forged public key can carry anyone's id:
a person comparing keys compares the *key hash* too (``PublicKey.key_hash``: the first 80
bits of the SHA-256 of the 32-byte key, in groups of four hex digits), which only the key
itself determines; and every check against trusted keys uses the whole key, not its id.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..support.errors import InputError, PlannerError
from ..support.files import atomic_write_bytes, input_file_size
from ..support.home import AppHome

PASSPHRASE_ENV = "PLANNER_APP_PASSPHRASE"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
MAX_KEY_FILE = 64 * 1024
MAX_COMMENT = 1000  # minisign reads comment lines of up to 1024 bytes
SIG_SUFFIX = ".minisig"

Passphrase = Callable[[str], str]  # asked with the key's name; returns the passphrase


class SignatureError(PlannerError):
    """A signature that does not verify, or is not by a trusted key (exit 1 in verify)."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text.strip().encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return None


def fingerprint_of(key_id: bytes) -> str:
    """minisign prints a key id as a little-endian 64-bit number in upper-case hex, without
    leading zeros (``%PRIX64``); so do we, so that the two always read the same."""
    return format(int.from_bytes(key_id, "little"), "X")


def key_hash_of(key: bytes) -> str:
    """The first 80 bits of SHA-256(key) in lower-case hex, in groups of four digits."""
    digest = hashlib.sha256(key).hexdigest()[:20]
    return " ".join(digest[i:i + 4] for i in range(0, 20, 4))


def suggest_name(name: str) -> str:
    """A valid key name close to ``name`` ("Ada Officer" -> "ada-officer")."""
    slug = re.sub(r"[^a-z0-9._-]+", "-", (name or "").strip().lower()).strip("-._")[:64]
    return slug or "officer"


def check_name(name: str, option: str = "NAME") -> str:
    if not NAME_RE.match(name or ""):
        raise InputError("argument", option, f"{name!r} is not a key name: use 1-64 letters, "
                                             "digits, '.', '_' or '-', starting with a letter "
                                             f"or digit (for example {suggest_name(name)})")
    return name


def private_dir(path: Path) -> Path:
    """Make ``path`` a folder readable only by its owner (0700), tightening an existing one;
    refuse a symbolic link (it could lead keys elsewhere)."""
    if path.is_symlink():
        raise InputError(str(path), None, "is a symbolic link; planner-app keeps keys only in "
                                          "a real folder (remove the link)")
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.name == "posix" and path.stat().st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def _one_line(text: str, limit: int = MAX_COMMENT) -> str:
    """A comment for a signature file: one line, printable, at most ``limit`` bytes."""
    clean = "".join(c if c.isprintable() else " " for c in text)
    data = clean.encode("utf-8")[:limit]
    return data.decode("utf-8", errors="ignore")


@dataclass(frozen=True)
class PublicKey:
    key_id: bytes  # 8 bytes
    key: bytes  # 32 bytes, Ed25519
    name: str = ""  # where the key came from (file name or comment); not authenticated

    @property
    def fingerprint(self) -> str:
        return fingerprint_of(self.key_id)

    @property
    def key_hash(self) -> str:
        """What a person compares besides the fingerprint: derived from the key itself."""
        return key_hash_of(self.key)

    @property
    def line(self) -> str:
        """The base64 line of the minisign public key (what `minisign -P` takes)."""
        return _b64(b"Ed" + self.key_id + self.key)

    def to_text(self) -> str:
        return f"untrusted comment: minisign public key {self.fingerprint}\n{self.line}\n"

    def describe(self) -> str:
        return f"{self.name} (key {self.fingerprint})" if self.name else f"key {self.fingerprint}"

    def verify_raw(self, signature: bytes, data: bytes) -> bool:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        try:
            Ed25519PublicKey.from_public_bytes(self.key).verify(signature, data)
        except InvalidSignature:
            return False
        return True


def parse_public_key(text: str, source: str, name: str = "") -> PublicKey:
    """A minisign public key: the file's text, or only its base64 line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    candidates = [ln for ln in lines if not ln.lower().startswith("untrusted comment:")]
    if len(candidates) != 1:
        raise InputError(source, None, "is not a minisign public key (expected a comment line "
                                       "and one line of base64)")
    raw = _unb64(candidates[0])
    if raw is None or len(raw) != 42 or raw[:2] != b"Ed":
        raise InputError(source, None, "is not a minisign Ed25519 public key (its key line "
                                       "does not decode to 'Ed', a key id and 32 bytes)")
    return PublicKey(raw[2:10], raw[10:], name)


def load_public_key(path: str | os.PathLike[str]) -> PublicKey:
    p = Path(path)
    input_file_size(p, "public key")
    if p.stat().st_size > MAX_KEY_FILE:
        raise InputError(p.name, None, "is too large to be a public key")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(p.name, None, "is not a minisign public key (not text)") from None
    except OSError as exc:
        raise InputError(p.name, None, f"cannot be read ({exc.strerror})") from None
    name = p.name[:-4] if p.name.endswith(".pub") else p.name
    return parse_public_key(text, p.name, name)


# ----------------------------------------------------------------------------- signatures


@dataclass(frozen=True)
class Signature:
    """A parsed minisign signature file."""

    algorithm: bytes  # b"ED" (pre-hashed, the default) or b"Ed" (legacy)
    key_id: bytes
    signature: bytes
    trusted_comment: str
    global_signature: bytes

    @property
    def fingerprint(self) -> str:
        return fingerprint_of(self.key_id)


def parse_signature(text: str, source: str) -> Signature:
    lines = text.splitlines()
    if len(lines) < 4 or not lines[0].startswith("untrusted comment:") or \
            not lines[2].startswith("trusted comment: "):
        raise InputError(source, None, "is not a minisign signature (expected an untrusted "
                                       "comment, a signature, a trusted comment and its "
                                       "signature)")
    raw = _unb64(lines[1])
    glob = _unb64(lines[3])
    if raw is None or len(raw) != 74 or raw[:2] not in (b"ED", b"Ed") or glob is None or \
            len(glob) != 64:
        raise InputError(source, None, "is not a minisign Ed25519 signature (its lines do "
                                       "not decode)")
    return Signature(raw[:2], raw[2:10], raw[10:], lines[2][len("trusted comment: "):], glob)


@dataclass(frozen=True)
class Verified:
    key: PublicKey
    trusted_comment: str


def verify_signature(data: bytes, signature_text: str, trusted: Sequence[PublicKey],
                     source: str = "signature") -> Verified:
    """The trusted key that signed ``data``; raises SignatureError saying why not. Every
    trusted key carrying the signature's key id is tried with its full key (a key id is
    chosen by the key's maker, so two keys may carry the same one)."""
    sig = parse_signature(signature_text, source)
    matching = [k for k in trusted if k.key_id == sig.key_id]
    if not matching:
        names = ", ".join(k.describe() for k in trusted) or "none"
        raise SignatureError(f"{source}: signed by key {sig.fingerprint}, which is not a "
                             f"trusted key (trusted: {names})")
    message = hashlib.blake2b(data, digest_size=64).digest() if sig.algorithm == b"ED" \
        else data
    failure: SignatureError | None = None
    for key in matching:
        if not key.verify_raw(sig.signature, message):
            failure = failure or SignatureError(
                f"{source}: the signature by {key.describe()} does not match the signed "
                "content (it was changed after signing)")
            continue
        if not key.verify_raw(sig.global_signature,
                              sig.signature + sig.trusted_comment.encode("utf-8")):
            failure = SignatureError(f"{source}: the trusted comment was changed after "
                                     f"signing ({key.describe()})")
            continue
        return Verified(key, sig.trusted_comment)
    assert failure is not None
    raise failure


# ----------------------------------------------------------------------------- secret keys


@dataclass(frozen=True)
class SecretKey:
    name: str
    public: PublicKey
    _private: object  # cryptography's Ed25519PrivateKey

    def sign(self, data: bytes, trusted_comment: str,
             untrusted_comment: str | None = None) -> str:
        """A minisign signature file (text) of ``data``."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        assert isinstance(self._private, Ed25519PrivateKey)
        comment = _one_line(trusted_comment)
        sig = self._private.sign(hashlib.blake2b(data, digest_size=64).digest())
        glob = self._private.sign(sig + comment.encode("utf-8"))
        untrusted = _one_line(untrusted_comment or
                              f"signature from planner-app key {self.name} "
                              f"({self.public.fingerprint})")
        return (f"untrusted comment: {untrusted}\n{_b64(b'ED' + self.public.key_id + sig)}\n"
                f"trusted comment: {comment}\n{_b64(glob)}\n")


@dataclass(frozen=True)
class KeyInfo:
    name: str
    fingerprint: str
    protected: bool
    public_path: Path
    key_hash: str = ""


class KeyStore:
    """The app home's own key pairs (``keys/``) and the public keys it trusts
    (``trusted/``)."""

    def __init__(self, home: AppHome) -> None:
        self.home = home
        self.keys_dir = home.data_dir / "keys"
        self.trusted_dir = home.data_dir / "trusted"

    # -- own keys
    def _paths(self, name: str) -> tuple[Path, Path]:
        check_name(name)
        return self.keys_dir / f"{name}.key", self.keys_dir / f"{name}.pub"

    def create(self, name: str, passphrase: str = "") -> PublicKey:
        """A new key pair NAME; refuses to replace an existing one."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        secret_path, public_path = self._paths(name)
        if secret_path.exists() or public_path.exists():
            raise InputError("argument", "NAME", f"a key named {name!r} already exists; "
                                                 "choose another name")
        self.home.ensure()
        private_dir(self.keys_dir)
        private = Ed25519PrivateKey.generate()
        raw_public = private.public_key().public_bytes(serialization.Encoding.Raw,
                                                       serialization.PublicFormat.Raw)
        public = PublicKey(secrets.token_bytes(8), raw_public, name)
        encryption: serialization.KeySerializationEncryption = (
            serialization.BestAvailableEncryption(passphrase.encode("utf-8")) if passphrase
            else serialization.NoEncryption())
        pem = private.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8, encryption)
        header = (f"planner-app secret key {name}\nfingerprint: {public.fingerprint}\n"
                  f"key hash: {public.key_hash}\n"
                  f"public key: {public.line}\n").encode("ascii")
        atomic_write_bytes(secret_path, header + pem, overwrite=False, private=True)
        os.chmod(secret_path, 0o600)
        atomic_write_bytes(public_path, public.to_text().encode("ascii"), overwrite=False)
        return public

    def names(self) -> list[str]:
        if not self.keys_dir.is_dir():
            return []
        return sorted(p.name[:-4] for p in self.keys_dir.glob("*.key")
                      if NAME_RE.match(p.name[:-4]))

    def public(self, name: str, option: str | None = "--key") -> PublicKey:
        _, public_path = self._paths(name)
        if not public_path.is_file():
            raise _key_error(option, f"there is no key named {name!r} in this app home "
                                     f"({self._known()})")
        return load_public_key(public_path)

    def loose_permissions(self, name: str) -> str | None:
        """A one-line warning when NAME's private key file is readable by group or others
        (None when it is not, or on a system without POSIX permissions)."""
        secret_path, _ = self._paths(name)
        try:
            mode = secret_path.stat().st_mode
        except OSError:
            return None
        if os.name != "posix" or not mode & 0o077:
            return None
        return (f"warning: {secret_path} can be read by other users (mode {mode & 0o777:o}); "
                f"make it private: chmod 600 {secret_path}")

    def _known(self) -> str:
        names = self.names()
        return "keys: " + ", ".join(names) if names else \
            "make one with: planner-app keys new NAME"

    def key_infos(self) -> list[KeyInfo]:
        out = []
        for name in self.names():
            secret_path, public_path = self._paths(name)
            try:
                key = load_public_key(public_path)
                head = secret_path.read_bytes()[:4096]
            except (PlannerError, OSError):
                continue
            out.append(KeyInfo(name, key.fingerprint, b"ENCRYPTED" in head, public_path,
                               key.key_hash))
        return out

    def is_protected(self, name: str) -> bool:
        secret_path, _ = self._paths(name)
        try:
            return b"ENCRYPTED" in secret_path.read_bytes()[:4096]
        except OSError:
            return False

    def secret(self, name: str, passphrase: Passphrase | None = None,
               option: str | None = "--key") -> SecretKey:
        """Load NAME's private key, asking ``passphrase(name)`` when it is protected (else
        $PLANNER_APP_PASSPHRASE). Raises InputError with a one-line reason, naming the
        command-line ``option`` that chose the key (None in the app: no option named)."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        secret_path, _ = self._paths(name)
        if self.keys_dir.is_symlink():
            raise InputError(str(self.keys_dir), None, "is a symbolic link; planner-app keeps "
                                                       "keys only in a real folder")
        public = self.public(name, option)
        try:
            data = secret_path.read_bytes()
        except FileNotFoundError:
            raise _key_error(option, f"the private key of {name!r} is missing from "
                                     f"{self.keys_dir}") from None
        except OSError as exc:
            raise InputError(secret_path.name, None, f"cannot be read ({exc.strerror})") \
                from None
        start = data.find(b"-----BEGIN")
        if start < 0:
            raise InputError(secret_path.name, None, "is not a planner-app private key")
        pem = data[start:]
        secret: bytes | None = None
        if b"ENCRYPTED" in pem:
            text = os.environ.get(PASSPHRASE_ENV)
            if text is None:
                if passphrase is None:
                    raise _key_error(option, f"the key {name!r} is protected by a passphrase: "
                                             f"run in a terminal or set {PASSPHRASE_ENV}")
                text = passphrase(name)
            secret = text.encode("utf-8")
        try:
            private = serialization.load_pem_private_key(pem, password=secret)
        except (ValueError, TypeError):
            raise _key_error(option, f"the passphrase of key {name!r} is wrong (or its "
                                     "private key file is damaged)") from None
        if not isinstance(private, Ed25519PrivateKey):
            raise InputError(secret_path.name, None, "is not an Ed25519 private key")
        raw = private.public_key().public_bytes(serialization.Encoding.Raw,
                                                serialization.PublicFormat.Raw)
        if raw != public.key:
            raise InputError(secret_path.name, None, f"does not belong to {name}.pub (the "
                                                     "two files of this key do not match)")
        return SecretKey(name, public, private)

    def export(self, name: str, out: str | os.PathLike[str], overwrite: bool = False) -> Path:
        key = self.public(name)
        target = Path(out)
        atomic_write_bytes(target, key.to_text().encode("ascii"), overwrite=overwrite)
        return target

    # -- trusted public keys (other people's)
    def trust(self, path: str | os.PathLike[str], name: str | None = None) -> PublicKey:
        """Trust the public key in ``path`` under ``name`` (default: the file's name).
        Trusting the same key again is harmless; another key under a trusted name is refused
        (untrust the old one first), so a name never silently changes its key."""
        key = load_public_key(path)
        label = check_name(name, "--name") if name else check_name(key.name or key.fingerprint)
        target = self.trusted_dir / f"{label}.pub"
        if target.exists():
            try:
                old = load_public_key(target)
            except PlannerError:
                old = None
            if old is not None and old.key_id == key.key_id and old.key == key.key:
                return PublicKey(key.key_id, key.key, label)
            held = f" (key {old.fingerprint})" if old is not None else ""
            raise InputError("argument", "--name", f"a trusted key named {label!r} already "
                             f"exists{held}; remove it first, or trust the new key under "
                             "another name")
        self.home.ensure()
        private_dir(self.trusted_dir)
        atomic_write_bytes(target, key.to_text().encode("ascii"), overwrite=False)
        return PublicKey(key.key_id, key.key, label)

    def trusted_path(self, name: str) -> Path:
        return self.trusted_dir / f"{check_name(name)}.pub"

    def untrust(self, name: str) -> None:
        path = self.trusted_dir / f"{check_name(name)}.pub"
        try:
            path.unlink()
        except FileNotFoundError:
            raise InputError("argument", "NAME", f"no trusted key is named {name!r}") \
                from None

    def trusted(self) -> list[PublicKey]:
        if not self.trusted_dir.is_dir():
            return []
        out = []
        for p in sorted(self.trusted_dir.glob("*.pub")):
            try:
                out.append(load_public_key(p))
            except PlannerError:
                continue
        return out


def _key_error(option: str | None, problem: str) -> InputError:
    """A key that cannot be used: named after the command-line option that chose it, or
    (in the app, ``option`` None) after the key alone."""
    return InputError("argument", option, problem) if option else InputError("", None, problem)


def load_trusted(paths: Sequence[str | os.PathLike[str]]) -> list[PublicKey]:
    """Public keys named on the command line (``--trust FILE``)."""
    return [load_public_key(p) for p in paths]
