"""The organisation's policy: a JSON file signed by a privacy officer's key, installed in the
app home, that every check and release of that home then enforces.

``{"format": "planner-app/policy@1", ...}`` (docs/policy-format.md lists every field). An
officer signs the file (``policy sign`` writes ``POLICY.json.minisig``, which
``minisign -V -p officer.pub -m POLICY.json`` checks); ``policy install POLICY.json --trust
officer.pub`` verifies it against that key and copies the file, its signature and the key into
``<data>/policy/``. Every load verifies the signature again: a policy edited in the app home, or
a key swapped beside it, makes every release refuse (fail closed, ``PolicyError``). The ledger
(its ``policy`` table) and the audit log's "policy installed" event record the signer's whole
public key (a key id alone is chosen by whoever makes a key), the policy's version and the
signed file's SHA-256: deleting the policy's files, or the ledger's record, does not switch the
policy off, an older signed file copied in place is refused, and a replacement must be signed by
that same key with a greater version.

The rules themselves are applied by planning/policy_rules.py (one function for ``check``,
``release`` and the app); this module reads, signs, installs and loads the file, and gives
the small answers those rules need (the cap for a dataset, whether approval is required).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..model import MAX_EPSILON, delta_problem
from ..support.errors import InputError, PlannerError
from ..support.files import atomic_write_bytes, input_file_size, text_of
from ..support.home import AppHome
from .audit import AuditError, AuditLog
from .keys import (
    SIG_SUFFIX,
    PublicKey,
    SecretKey,
    SignatureError,
    parse_public_key,
    private_dir,
    verify_signature,
)
from .ledger import Cap, Ledger, LedgerState
from .office_config import OfficeLedger, office_ledger_from_dict

POLICY_FORMAT = "planner-app/policy@1"
#: a policy naming the office's shared ledger (issue 26): an older planner-app refuses it
#: rather than charging its own ledger in silence
POLICY_FORMAT_SHARED = "planner-app/policy@2"
SAME_FILE_RULES = ("refuse", "allow")
MAX_POLICY_BYTES = 1024 * 1024
POLICY_DIR = "policy"
POLICY_FILE = "policy.json"
OFFICER_FILE = "officer.pub"
FIELDS = ("format", "version", "name", "max_epsilon_per_release", "max_delta_per_release",
          "lifetime_caps", "default_lifetime_cap", "require_approval_by", "forbidden_columns",
          "require_reasons", "same_file_new_name", "ledger")


class PolicyError(PlannerError):
    """The installed policy cannot be trusted (changed after signing, its files missing or
    replaced): nothing is released until it is installed again (exit 4)."""


class PolicyRefused(PlannerError):
    """Refused by the organisation's policy: a release beyond it, or a policy whose signature
    does not verify (exit 3). Nothing was charged, written or installed."""


@dataclass(frozen=True)
class Officer:
    name: str
    key: PublicKey


def dataset_key(name: str) -> str:
    """How the policy compares dataset names: without regard to letter case or Unicode form
    (NFKC, casefold), so ``Demo-Survey`` gets ``demo-survey``'s cap."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


@dataclass(frozen=True)
class Policy:
    name: str
    version: int = 1
    max_epsilon_per_release: float | None = None
    max_delta_per_release: float | None = None
    lifetime_caps: Mapping[str, Cap] = field(default_factory=dict)
    default_lifetime_cap: Cap | None = None
    require_approval_by: tuple[Officer, ...] = ()
    forbidden_columns: tuple[str, ...] = ()
    require_reasons: bool = False
    same_file_new_name: str = "refuse"
    sha256: str = ""  # of the signed file
    signer: PublicKey | None = None  # the officer key that signed it (once verified)
    ledger: OfficeLedger | None = None  # the office's shared ledger (policy@2), else local

    @property
    def title(self) -> str:
        return f"the policy {self.name!r}" if self.name else "the organisation's policy"

    def cap_for(self, dataset: str) -> Cap | None:
        """The policy's lifetime cap for ``dataset`` (its own, else the default), or None."""
        wanted = dataset_key(dataset)
        for name, cap in self.lifetime_caps.items():
            if dataset_key(name) == wanted:
                return cap
        return self.default_lifetime_cap

    def spelling_of(self, dataset: str, known: Sequence[str]) -> str | None:
        """The dataset in ``known`` (the ledger's) that ``dataset`` is another spelling of
        (other letter case or Unicode form), or None: under a policy such a name is refused,
        since it would start a new lifetime budget for the same dataset."""
        wanted = dataset_key(dataset)
        return next((k for k in sorted(known) if k != dataset and dataset_key(k) == wanted),
                    None)

    def officers_words(self) -> str:
        """``Ada Officer (key …), …``: who may approve under this policy."""
        return ", ".join(f"{o.name} (key {o.key.fingerprint})" for o in self.require_approval_by)

    def signer_not_approver(self, key: PublicKey) -> bool:
        """Whether the policy names approvers and ``key`` (its signer) is not one of them:
        the officer probably forgot to list themselves."""
        return bool(self.require_approval_by) and not any(
            same_key(o.key, key) for o in self.require_approval_by)

    def forbids(self, column: str | None) -> bool:
        return column is not None and column.casefold() in \
            {c.casefold() for c in self.forbidden_columns}

    def to_dict(self) -> dict[str, Any]:
        """What is in force, for ``policy show --json`` (plus who signed it)."""
        def cap(c: Cap | None) -> dict[str, float] | None:
            return None if c is None else {"epsilon": c.epsilon, "delta": c.delta}

        return {
            "format": POLICY_FORMAT if self.ledger is None else POLICY_FORMAT_SHARED,
            "version": self.version, "name": self.name,
            "max_epsilon_per_release": self.max_epsilon_per_release,
            "max_delta_per_release": self.max_delta_per_release,
            "lifetime_caps": {k: cap(v) for k, v in sorted(self.lifetime_caps.items())},
            "default_lifetime_cap": cap(self.default_lifetime_cap),
            "require_approval_by": [{"name": o.name, "key": o.key.line,
                                     "fingerprint": o.key.fingerprint}
                                    for o in self.require_approval_by],
            "forbidden_columns": list(self.forbidden_columns),
            "require_reasons": self.require_reasons,
            "same_file_new_name": self.same_file_new_name,
            **({} if self.ledger is None else {"ledger": self.ledger.to_dict()}),
            "sha256": self.sha256,
            "signed_by": None if self.signer is None else
            {"name": self.signer.name, "fingerprint": self.signer.fingerprint},
        }

    def lines(self) -> list[str]:
        """The policy in words, one rule a line (``policy show``, the app's policy window)."""
        out = [f"{self.title[0].upper()}{self.title[1:]} (version {self.version})"
               + (f", signed by {self.signer.describe()}" if self.signer else "")]
        if self.max_epsilon_per_release is not None:
            out.append(f"At most ε = {self.max_epsilon_per_release:g} per release.")
        if self.max_delta_per_release is not None:
            out.append(f"At most δ = {self.max_delta_per_release:g} per release.")
        for name, c in sorted(self.lifetime_caps.items()):
            out.append(f"Dataset {name!r}: lifetime cap ε = {c.epsilon:g}, δ = {c.delta:g}.")
        if self.default_lifetime_cap is not None:
            c = self.default_lifetime_cap
            out.append(f"Any other dataset: lifetime cap ε = {c.epsilon:g}, δ = {c.delta:g}.")
        if self.require_approval_by:
            who = self.officers_words()
            out.append(f"Every release needs an approval signed by one of: {who}.")
        if self.forbidden_columns:
            out.append("No plan may use the columns: " + ", ".join(self.forbidden_columns)
                       + " (in any letter case).")
        if self.require_reasons:
            out.append("Every bound, list and the budget's ε need a written reason.")
        out.append({"refuse": "The same data file may not be released under a new dataset "
                              "name.",
                    "allow": "The same data file may be released under a new dataset name "
                             "(with a note)."}[self.same_file_new_name])
        if self.ledger is not None:
            out.append(f"Every release is charged to the office's shared ledger at "
                       f"{self.ledger.where}.")
        return out


# ----------------------------------------------------------------------------- reading


def _problem(source: str, where: str, problem: str) -> InputError:
    return InputError(source, where, problem)


def _number(source: str, where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _problem(source, where, f"must be a number, not {_json_type(value)}")
    if not math.isfinite(value):
        raise _problem(source, where, "must be a finite number")
    return float(value)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "true/false", str: "text", list: "a list", dict: "an object"}.get(
        type(value), "a number")


def _epsilon(source: str, where: str, value: Any) -> float:
    eps = _number(source, where, value)
    if not 0 < eps <= MAX_EPSILON:
        raise _problem(source, where, f"must be above 0 and at most {MAX_EPSILON:g}, not "
                                      f"{eps:g}")
    return eps


def _delta(source: str, where: str, value: Any) -> float:
    dlt = _number(source, where, value)
    problem = delta_problem(dlt)
    if problem:
        raise _problem(source, where, problem)
    return dlt


def _cap(source: str, where: str, value: Any) -> Cap:
    if not isinstance(value, dict):
        raise _problem(source, where, f"must be an object {{\"epsilon\": …, \"delta\": …}}, "
                                      f"not {_json_type(value)}")
    unknown = sorted(set(value) - {"epsilon", "delta"})
    if unknown:
        raise _problem(source, f"{where}.{unknown[0]}", "is not a field of a cap (epsilon, "
                                                        "delta)")
    for key in ("epsilon", "delta"):
        if key not in value:
            raise _problem(source, f"{where}.{key}", "is missing")
    return Cap(_epsilon(source, f"{where}.epsilon", value["epsilon"]),
               _delta(source, f"{where}.delta", value["delta"]))


def _text(source: str, where: str, value: Any, limit: int = 200) -> str:
    if not isinstance(value, str):
        raise _problem(source, where, f"must be text, not {_json_type(value)}")
    text = value.strip()
    if not text:
        raise _problem(source, where, "must not be blank")
    if len(text) > limit or any(not c.isprintable() for c in text):
        raise _problem(source, where, f"must be one line of at most {limit} printable "
                                      "characters")
    return text


def policy_from_dict(doc: Any, source: str = "policy") -> Policy:
    """A policy from its decoded JSON, or InputError naming the first wrong field (only the
    first problem is reported)."""
    if not isinstance(doc, dict):
        raise InputError(source, None, "must be a JSON object")
    for key in doc:
        if key not in FIELDS:
            raise _problem(source, str(key), f"is not a field of a policy ({', '.join(FIELDS)})")
    if doc.get("format") not in (POLICY_FORMAT, POLICY_FORMAT_SHARED):
        raise _problem(source, "format", f"must be {POLICY_FORMAT!r}" +
                       ("" if "format" in doc else " (it is missing)"))
    if ("ledger" in doc) != (doc.get("format") == POLICY_FORMAT_SHARED):
        raise _problem(source, "format", f"must be {POLICY_FORMAT_SHARED!r} when the policy "
                       "names a shared ledger, and only then")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise _problem(source, "version", "must be a whole number of at least 1 (a "
                                          "replacement must have a greater version)"
                       + ("" if "version" in doc else " (it is missing)"))
    name = _text(source, "name", doc["name"]) if "name" in doc else ""

    def optional(key: str, read: Any) -> Any:
        value = doc.get(key)
        return None if value is None else read(source, key, value)

    caps_doc = doc.get("lifetime_caps", {})
    if not isinstance(caps_doc, dict):
        raise _problem(source, "lifetime_caps", "must be an object {dataset: {\"epsilon\": …, "
                                                f"\"delta\": …}}, not {_json_type(caps_doc)}")
    caps = {}
    seen: dict[str, str] = {}
    for dataset, cap in caps_doc.items():
        if not dataset.strip():
            raise _problem(source, "lifetime_caps", "a dataset name must not be blank")
        if dataset_key(dataset) in seen:
            raise _problem(source, f"lifetime_caps.{dataset}",
                           f"names the same dataset as {seen[dataset_key(dataset)]!r} (names "
                           "are compared without regard to letter case or Unicode form)")
        seen[dataset_key(dataset)] = dataset
        caps[dataset] = _cap(source, f"lifetime_caps.{dataset}", cap)
    if caps and doc.get("default_lifetime_cap") is None:
        raise _problem(source, "default_lifetime_cap",
                       "is required when lifetime_caps is given (otherwise a dataset released "
                       "under a name not in lifetime_caps has no cap)")
    if doc.get("max_epsilon_per_release") is not None and \
            doc.get("max_delta_per_release") is None:
        raise _problem(source, "max_delta_per_release",
                       "is required when max_epsilon_per_release is set (otherwise raising a "
                       "plan's δ lowers its reported ε for the same noise)")

    officers = []
    raw_officers = doc.get("require_approval_by", [])
    if not isinstance(raw_officers, list):
        raise _problem(source, "require_approval_by", "must be a list of {\"name\": …, "
                                                      f"\"key\": …}}, not "
                                                      f"{_json_type(raw_officers)}")
    for i, entry in enumerate(raw_officers):
        where = f"require_approval_by[{i}]"
        if not isinstance(entry, dict):
            raise _problem(source, where, "must be an object {\"name\": …, \"key\": …}")
        unknown = sorted(set(entry) - {"name", "key"})
        if unknown:
            raise _problem(source, f"{where}.{unknown[0]}", "is not a field (name, key)")
        for key in ("name", "key"):
            if key not in entry:
                raise _problem(source, f"{where}.{key}", "is missing")
        officer = _text(source, f"{where}.name", entry["name"], 64)
        if isinstance(entry["key"], str) and ("\n" in entry["key"].strip()
                                               or "comment:" in entry["key"]):
            raise _problem(source, f"{where}.key", "holds a whole .pub file: use the second "
                                                   "line of the .pub file (the base64 line)")
        line = _text(source, f"{where}.key", entry["key"], 200)
        try:
            key = parse_public_key(line, source, officer)
        except InputError:
            raise _problem(source, f"{where}.key", "is not a minisign public key line (the "
                                                   "second line of the officer's .pub "
                                                   "file)") from None
        officers.append(Officer(officer, key))

    columns_doc = doc.get("forbidden_columns", [])
    if not isinstance(columns_doc, list):
        raise _problem(source, "forbidden_columns", "must be a list of column names, not "
                                                    f"{_json_type(columns_doc)}")
    columns = tuple(_text(source, f"forbidden_columns[{i}]", c, 500)
                    for i, c in enumerate(columns_doc))

    reasons = doc.get("require_reasons", False)
    if not isinstance(reasons, bool):
        raise _problem(source, "require_reasons", f"must be true or false, not "
                                                  f"{_json_type(reasons)}")
    same = doc.get("same_file_new_name", "refuse")
    if same == "charge_existing":
        raise _problem(source, "same_file_new_name",
                       "\"charge_existing\" is not accepted: charging a release to another "
                       "dataset would publish whether two files are the same (use \"refuse\" "
                       "or \"allow\")")
    if same not in SAME_FILE_RULES:
        raise _problem(source, "same_file_new_name", f"must be one of {', '.join(SAME_FILE_RULES)}"
                                                     f", not {str(same)[:40]!r}")
    return Policy(
        name=name,
        version=version,
        max_epsilon_per_release=optional("max_epsilon_per_release", _epsilon),
        max_delta_per_release=optional("max_delta_per_release", _delta),
        lifetime_caps=caps,
        default_lifetime_cap=optional("default_lifetime_cap", _cap),
        require_approval_by=tuple(officers),
        forbidden_columns=columns,
        require_reasons=reasons,
        same_file_new_name=same,
        ledger=None if "ledger" not in doc else office_ledger_from_dict(source, doc["ledger"]),
    )


def parse_policy(data: bytes, source: str) -> Policy:
    """A policy from the bytes of its file (strict JSON: no duplicate keys, NaN or Infinity)."""
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise InputError(source, key, "appears twice")
            out[key] = value
        return out

    def no_constant(name: str) -> Any:
        raise InputError(source, None, f"is not strict JSON ({name} is not a number)")

    text = text_of(data, source, "policy file")  # a bundle given here: named as one
    try:
        doc = json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"line {exc.lineno}, column {exc.colno}",
                         f"is not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError(source, None, "is nested too deeply to be a policy") from None
    policy = policy_from_dict(doc, source)
    return replace(policy, sha256=hashlib.sha256(data).hexdigest())


def read_policy_file(path: str | os.PathLike[str]) -> tuple[bytes, Policy]:
    data = read_policy_bytes(path)
    return data, parse_policy(data, Path(path).name)


def read_policy_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a policy file (size-limited), not yet parsed."""
    p = Path(path)
    size = input_file_size(p, "policy")
    if size > MAX_POLICY_BYTES:
        raise InputError(p.name, None, f"is too large to be a policy (over "
                                       f"{MAX_POLICY_BYTES // 1024} KB)")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(p.name, None, f"cannot be read ({exc.strerror})") from None
    return data


# ----------------------------------------------------------------------------- signing


def signature_path(path: Path) -> Path:
    return path.with_name(path.name + SIG_SUFFIX)


def sign_policy(path: str | os.PathLike[str], key: SecretKey, overwrite: bool = True) -> Path:
    """Check the policy file, then write its minisign signature beside it
    (``POLICY.json.minisig``); the path written."""
    p = Path(path)
    data, policy = read_policy_file(p)
    target = signature_path(p)
    comment = f"planner-app policy {policy.name or p.name} signed by {key.name}"
    atomic_write_bytes(target, key.sign(data, comment).encode("utf-8"), overwrite=overwrite)
    return target


def _read_signature(path: Path, what: str) -> str:
    if not path.exists():
        raise PolicyRefused(f"{what} is not signed: {path.name} is missing beside it (an "
                            "officer signs it with: planner-app policy sign POLICY.json --key "
                            "NAME); nothing was installed")
    input_file_size(path, "signature")
    if path.stat().st_size > 64 * 1024:
        raise InputError(path.name, None, "is too large to be a minisign signature")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise InputError(path.name, None, "cannot be read as a minisign signature") from None


# ----------------------------------------------------------------------------- installed


def same_key(a: PublicKey, b: PublicKey) -> bool:
    """The same key: its id AND its 32 bytes (a key id is chosen by whoever makes the key, so
    a new key can carry an officer's id)."""
    return a.key_id == b.key_id and a.key == b.key


@dataclass(frozen=True)
class Installed:
    policy: Policy
    replaced: str | None  # the SHA-256 of the policy it replaced


@dataclass(frozen=True)
class Recorded:
    """What the app home recorded when a policy was installed: the signer's whole public key,
    the policy's version and the SHA-256 of the signed file."""
    key: PublicKey
    version: int
    sha256: str
    where: str  # "the budget ledger" or "the audit log"


POLICY_EVENTS = ("policy installed", "policy replaced")


def policy_events(home: AppHome) -> list[dict[str, Any]]:
    """The audit log's policy events, in order. Every policy load asks (the app at start-up
    and after each release), so only lines that name such an event are parsed: a log of
    10,000 releases took 0.13 s to parse whole, on the UI thread. The chain itself is
    checked by every release (AuditLog.require_intact), not here."""
    path = home.audit_path
    if not path.exists():
        return []
    marks = tuple(json.dumps(e) for e in POLICY_EVENTS)
    try:
        with open(path, encoding="utf-8") as fh:
            lines = [line for line in fh if any(m in line for m in marks)]
    except OSError as exc:  # the audit log's own trouble (exit 4), as AuditLog says it
        raise AuditError(f"the audit log {path} cannot be read to find the installed policy "
                         f"({exc.strerror}); releases are refused") from None
    except UnicodeDecodeError as exc:
        raise AuditError(f"the audit log {path} is not UTF-8 text ({exc.reason}); it is "
                         "unusable, and releases are refused") from None
    out = []
    for line in lines:
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a damaged line: the chain check of every release names it
        if isinstance(entry, dict) and entry.get("event") in POLICY_EVENTS:
            out.append(entry)
    return out


class PolicyStore:
    """The policy installed in an app home: ``<data>/policy/{policy.json,
    policy.json.minisig, officer.pub}``; the signer's whole key, the version and the file's
    SHA-256 in the ledger, and the same in the audit log's "policy installed" event."""

    def __init__(self, home: AppHome) -> None:
        self.home = home
        self.folder = home.data_dir / POLICY_DIR
        self.policy_path = self.folder / POLICY_FILE
        self.signature_path = signature_path(self.policy_path)
        self.officer_path = self.folder / OFFICER_FILE

    def _from_ledger(self) -> Recorded | None:
        if not self.home.ledger_path.exists():
            return None
        row = Ledger(self.home.ledger_path).policy_record()
        if row is None:
            return None
        line, version, sha, signer = row
        try:
            key = parse_public_key(line, "the budget ledger", signer)
        except InputError:
            raise PolicyError("the budget ledger's record of the installed policy is damaged; "
                              "releases are refused") from None
        return Recorded(key, version, sha, "the budget ledger")

    def _from_audit(self) -> Recorded | None:
        """The last "policy installed/replaced" event of the audit log (its chain is checked
        by every release), or None."""
        events = policy_events(self.home)
        if not events:
            return None
        params = events[-1].get("params") or {}
        line = params.get("signer_key")
        try:
            key = parse_public_key(str(line), "the audit log", str(params.get("signer") or ""))
            return Recorded(key, int(params["version"]), str(params["policy_sha256"]),
                            "the audit log")
        except (InputError, KeyError, TypeError, ValueError):
            raise PolicyError("the audit log records that a policy was installed, but its "
                              "record cannot be read; releases are refused") from None

    def recorded(self, installing: bool = False) -> Recorded | None:
        """The installed policy as recorded (the ledger's record, else the audit log's), or
        None when none was ever installed. PolicyError when the two disagree; when
        ``installing``, the same key with another file is the audit log's record (an
        installation cut short after its audit entry, which installing again completes)."""
        ledger, audit = self._from_ledger(), self._from_audit()
        if audit is not None and ledger is not None and (
                not same_key(audit.key, ledger.key) or audit.sha256 != ledger.sha256):
            if installing and same_key(audit.key, ledger.key):
                return audit if audit.version >= ledger.version else ledger
            raise PolicyError("the budget ledger's record of the installed policy does not "
                              "match the audit log's; releases are refused")
        return ledger or audit

    def load(self) -> Policy | None:
        """The policy in force, verified again now against the key recorded at installation;
        None when none was ever installed. Raises PolicyError when it cannot be trusted
        (fail closed)."""
        again = ("; releases are refused until you install the officer's signed file again "
                 "(planner-app policy install POLICY.json --trust OFFICER.pub)")
        recorded = self.recorded()
        files = [self.policy_path, self.signature_path, self.officer_path]
        present = [p.exists() for p in files]
        if recorded is None:
            if not any(present):
                return None
            raise PolicyError(f"a policy is in {self.folder}, but neither the budget ledger "
                              f"nor the audit log records installing it{again}")
        if recorded.where == "the audit log":
            raise PolicyError(f"the audit log records that a policy (signed by "
                              f"{recorded.key.describe()}, version {recorded.version}) was "
                              "installed, but the budget ledger has no record of it"
                              f"{again}")
        if not any(present):
            raise PolicyError(f"the budget ledger records that a policy (signed by "
                              f"{recorded.key.describe()}) is installed, but its files are "
                              f"missing from {self.folder}{again}")
        if not all(present):
            missing = files[present.index(False)].name
            raise PolicyError(f"the installed policy is incomplete ({missing} is missing from "
                              f"{self.folder}){again}")
        try:
            data = self.policy_path.read_bytes()
            sig = self.signature_path.read_text(encoding="utf-8")
            beside = parse_public_key(self.officer_path.read_text(encoding="utf-8"),
                                      OFFICER_FILE, recorded.key.name)
        except (OSError, UnicodeDecodeError, InputError) as exc:
            raise PolicyError(f"the installed policy in {self.folder} cannot be read "
                              f"({type(exc).__name__}){again}") from None
        if not same_key(beside, recorded.key):
            raise PolicyError(f"the officer key beside the installed policy is not the key "
                              f"recorded at installation ({recorded.key.describe()}): "
                              f"the policy was replaced outside planner-app{again}")
        try:  # against the recorded key (all of it), before the file is parsed
            verified = verify_signature(data, sig, [recorded.key], "the installed policy")
        except (SignatureError, InputError) as exc:
            raise PolicyError(f"the installed policy {self.policy_path} was changed after it "
                              f"was signed ({exc}){again}") from None
        if hashlib.sha256(data).hexdigest() != recorded.sha256:
            raise PolicyError(f"the installed policy {self.policy_path} is not the one "
                              f"installed (version {recorded.version}): another signed policy "
                              f"was copied in place{again}")
        try:
            policy = parse_policy(data, "the installed policy")
        except InputError as exc:
            raise PolicyError(f"the installed policy cannot be read ({exc}){again}") from None
        return replace(policy, signer=verified.key)

    def install(self, path: str | os.PathLike[str], officer_key: PublicKey,
                audit: AuditLog | None = None) -> Installed:
        """Verify ``path`` (and ``path.minisig``) against ``officer_key``, then read it, and
        install all three. A replacement must be signed by the very key (id and key) that
        signed the installed policy and have a greater version (the same signed file may be
        installed again, to mend a damaged install). Raises PolicyRefused (or InputError for
        a malformed file) with nothing installed."""
        p = Path(path)
        data = read_policy_bytes(p)
        sig = _read_signature(signature_path(p), p.name)
        try:  # the signature first: nothing unverified is parsed
            verified = verify_signature(data, sig, [officer_key], p.name)
        except SignatureError as exc:
            raise PolicyRefused(f"{exc}; nothing was installed") from None
        policy = parse_policy(data, p.name)
        recorded = self.recorded(installing=True)
        if recorded is not None and not same_key(recorded.key, officer_key):
            raise PolicyRefused(f"{p.name} is signed by {officer_key.describe()}, but the "
                                f"installed policy was signed by {recorded.key.describe()} "
                                "(compared by the whole key, not only its id): a replacement "
                                "must be signed by the same key; nothing was installed")
        same_file = recorded is not None and recorded.sha256 == policy.sha256
        if recorded is not None and not same_file and policy.version <= recorded.version:
            raise PolicyRefused(f"{p.name} has version {policy.version}, but the installed "
                                f"policy has version {recorded.version}: a replacement must "
                                "have a greater version (an older policy cannot be put back); "
                                "nothing was installed")
        signer = replace(officer_key, name=officer_key.name or "officer")
        self.home.ensure()
        private_dir(self.folder)  # owner-only, never a link: before anything is logged
        audit = audit or AuditLog(self.home.audit_path)
        event = "policy replaced" if recorded is not None else "policy installed"
        audit.require_intact().append(event, {
            "name": policy.name, "version": policy.version, "policy_sha256": policy.sha256,
            "signed_by": officer_key.fingerprint, "signer": signer.name,
            "signer_key": officer_key.line,
            "replaced_sha256": recorded.sha256 if recorded is not None else None})
        atomic_write_bytes(self.officer_path, officer_key.to_text().encode("ascii"))
        atomic_write_bytes(self.signature_path, sig.encode("utf-8"))
        atomic_write_bytes(self.policy_path, data)
        Ledger(self.home.ledger_path).record_policy(officer_key.line, policy.version,
                                                    policy.sha256, signer.name)
        return Installed(replace(policy, signer=replace(verified.key, name=signer.name)),
                         recorded.sha256 if recorded is not None else None)


def load_policy(home: AppHome) -> Policy | None:
    """The installed policy, verified (None when none is installed); PolicyError when it
    cannot be trusted."""
    return PolicyStore(home).load()


def policy_or_error(home: AppHome) -> Policy | PolicyError | None:
    """For the checks that show rather than refuse (``check``, the app): the policy, the
    error that makes releases refuse, or None."""
    try:
        return load_policy(home)
    except PolicyError as exc:
        return exc
    except PlannerError as exc:  # the ledger that records the policy cannot be read: closed
        return PolicyError(f"whether a policy is installed cannot be checked ({exc})")


# ----------------------------------------------------------------------------- answers


def approval_rule(policy: Policy | PolicyError | None, require_approval: bool,
                  trusted: Sequence[PublicKey] = ()) -> tuple[bool, list[PublicKey]]:
    """Whether a release must be approved, and by whose keys: a policy with
    ``require_approval_by`` makes approval required and trusts exactly its officers' keys
    (a caller's own --trust keys are not added: the policy decides who may approve)."""
    if isinstance(policy, Policy) and policy.require_approval_by:
        return True, [o.key for o in policy.require_approval_by]
    return require_approval, list(trusted)


def trust_note(trust_given: bool) -> str:
    """What an approval refusal adds when the caller named keys (``--trust``) that the
    policy's officers override (approval_rule)."""
    return "--trust is not used: the policy names the officers" if trust_given else ""


def effective_cap(cap: Cap, policy: Policy | None, dataset: str) -> Cap:
    """The smaller of the ledger's cap and the policy's cap for ``dataset`` (each of ε and
    δ on its own). It is the policy's (``by_policy``, said so) whenever the policy alone
    would give it, also when the ledger's cap is the same: raising the ledger's cap would
    not lift it."""
    limit = policy.cap_for(dataset) if policy is not None else None
    if limit is None:
        return cap
    eps, dlt = min(cap.epsilon, limit.epsilon), min(cap.delta, limit.delta)
    if (eps, dlt) != (limit.epsilon, limit.delta):
        return cap if (eps, dlt) == (cap.epsilon, cap.delta) else Cap(eps, dlt, False,
                                                                      by_policy=True)
    return Cap(eps, dlt, False, by_policy=True)


def effective_state(state: LedgerState, policy: Policy | PolicyError | None) -> LedgerState:
    """The ledger state with the effective cap (what the lifetime rule, the meter and the
    charge test against)."""
    if not isinstance(policy, Policy):
        return state
    cap = effective_cap(state.cap, policy, state.dataset)
    return state if cap is state.cap else replace(state, cap=cap)
