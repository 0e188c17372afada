"""The policy's ``ledger`` section: the office's shared ledger on PostgreSQL (issue 26).

``"ledger": {"url": "postgresql://planner@db.office.example/planner", "sslmode":
"verify-full", "sslrootcert": "/etc/ssl/office-ca.pem", "passfile": "~/.pgpass",
"secret_file": "/etc/planner/office.key"}``. Only where the database is and how to reach it:
never a password. The password comes from libpq's usual places (PGPASSWORD, the password file
``passfile`` names or ~/.pgpass, a service file through PGSERVICEFILE / ``service=``), the
office secret (the key of the keyed digest of a file's identity) from PLANNER_OFFICE_SECRET or
the file ``secret_file`` names. A policy whose URL holds a password is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ..support.errors import InputError, PlannerError

#: libpq settings passed through as they are (TLS and time-outs); no credential among them
PASSED_THROUGH = ("sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl", "passfile",
                  "service", "connect_timeout", "target_session_attrs", "application_name")
FIELDS = ("url", "secret_file", *PASSED_THROUGH)
SECRET_ENV = "PLANNER_OFFICE_SECRET"
MIN_SECRET_BYTES = 16
DEFAULT_CONNECT_TIMEOUT = "5"  # seconds: an unreachable ledger refuses, never hangs


class OfficeSecretMissing(PlannerError):
    """No office secret: the shared ledger cannot tell a file's identity (exit 4)."""


@dataclass(frozen=True)
class OfficeLedger:
    """Where the office's shared ledger is; ``settings`` are libpq's, passed through."""

    url: str
    settings: tuple[tuple[str, str], ...] = ()
    secret_file: str | None = None

    @property
    def where(self) -> str:
        """``host/database`` for people (no user, no settings)."""
        parts = urlsplit(self.url)
        query = dict(parse_qsl(parts.query))
        host = parts.hostname or query.get("host") or query.get("service") or "localhost"
        db = parts.path.lstrip("/") or query.get("dbname") or "(default database)"
        return f"{host}/{db}"

    def connect_kwargs(self) -> dict[str, str]:
        out = dict(self.settings)
        out.setdefault("connect_timeout", DEFAULT_CONNECT_TIMEOUT)
        if "passfile" in out:
            out["passfile"] = os.path.expanduser(out["passfile"])
        return out

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"url": self.url, **dict(self.settings)}
        if self.secret_file is not None:
            out["secret_file"] = self.secret_file
        return out

    def secret(self) -> bytes:
        """The office secret: PLANNER_OFFICE_SECRET, else the file ``secret_file`` names."""
        value = os.environ.get(SECRET_ENV, "").encode("utf-8").strip()
        source = SECRET_ENV
        if not value and self.secret_file is not None:
            source = self.secret_file
            try:
                value = Path(os.path.expanduser(self.secret_file)).read_bytes().strip()
            except OSError as exc:
                raise OfficeSecretMissing(
                    f"the office secret file {self.secret_file} cannot be read "
                    f"({exc.strerror}); nothing was released") from None
        if len(value) < MIN_SECRET_BYTES:
            raise OfficeSecretMissing(
                f"the office's shared ledger needs the office secret (at least "
                f"{MIN_SECRET_BYTES} characters) in {SECRET_ENV} or in the file the policy's "
                f"ledger.secret_file names{'' if not value else f' ({source} is too short)'};"
                " nothing was released")
        return value


def file_identity(secret: bytes, file_sha256: str) -> str:
    """A file's identity in the shared ledger: HMAC-SHA256 under the office secret of its
    SHA-256, never the plain hash (which anyone holding a copy of the file could look up)."""
    return hmac.new(secret, b"planner-app/file-identity\x00" + file_sha256.encode("ascii"),
                    hashlib.sha256).hexdigest()


def _problem(source: str, where: str, problem: str) -> InputError:
    return InputError(source, f"ledger.{where}" if where else "ledger", problem)


def office_ledger_from_dict(source: str, value: Any) -> OfficeLedger:
    """The ``ledger`` section of a policy, or InputError naming the field."""
    if not isinstance(value, dict):
        raise _problem(source, "", "must be an object {\"url\": \"postgresql://…\", …}")
    for key in value:
        if key not in FIELDS:
            raise _problem(source, str(key), f"is not a field of the ledger section "
                                             f"({', '.join(FIELDS)}); a password never goes in "
                                             "the policy" if "pass" in str(key).lower() else
                           f"is not a field of the ledger section ({', '.join(FIELDS)})")
        if not isinstance(value[key], (str, int)) or isinstance(value[key], bool):
            raise _problem(source, str(key), "must be text")
        text = str(value[key])
        if len(text) > 500 or any(not c.isprintable() for c in text):
            raise _problem(source, str(key), "must be one line of at most 500 printable "
                                             "characters")
    url = value.get("url")
    if not isinstance(url, str):
        raise _problem(source, "url", "is missing (postgresql://USER@HOST/DATABASE)")
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise _problem(source, "url", "must start with postgresql://")
    query = dict(parse_qsl(parts.query))
    if parts.password is not None or "password" in query:
        raise _problem(source, "url", "holds a password: credentials never go in the policy "
                                      "(use PGPASSWORD, a password file or a service file)")
    settings = tuple((k, str(value[k])) for k in PASSED_THROUGH if k in value)
    secret_file = value.get("secret_file")
    return OfficeLedger(url=url, settings=settings,
                        secret_file=None if secret_file is None else str(secret_file))
