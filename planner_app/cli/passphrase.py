"""Asking a key's passphrase on the command line: in a terminal, getpass asks it; otherwise
the core reads $PLANNER_APP_PASSPHRASE, and without it refuses with a one-line error (exit 2).
Nothing is asked before the key is known to be protected."""

from __future__ import annotations

import sys

from ..core.records.keys import Passphrase


def terminal_passphrase() -> Passphrase | None:
    """getpass when stdin is a terminal; None (the core then reads $PLANNER_APP_PASSPHRASE
    or names it in its error) when it is not."""
    if not sys.stdin.isatty():
        return None

    def ask(name: str) -> str:
        import getpass

        try:
            return getpass.getpass(f"Passphrase of key {name}: ")
        except (EOFError, KeyboardInterrupt):
            return ""

    return ask


def load_signing_key(home, name: str, option: str = "--sign-with"):  # type: ignore[no-untyped-def]
    """The app home's secret key NAME, its passphrase asked (before anything is charged); an
    error names ``option``. A private key file others can read gets a one-line warning."""
    from ..core.records.keys import KeyStore

    store = KeyStore(home)
    key = store.secret(name, terminal_passphrase(), option)
    warn_loose(store, name)
    return key


def warn_loose(store, name: str) -> None:  # type: ignore[no-untyped-def]
    """Print KeyStore.loose_permissions's one-line warning on stderr, if any."""
    warning = store.loose_permissions(name)
    if warning:
        print(warning, file=sys.stderr)
