"""The keys command: your signing keys (new, list, export) and the public keys you trust
(trust, untrust). Everything goes through the core's KeyStore; this module only asks for
passphrases and prints."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path

from ..core.support.errors import InputError
from .common import EXIT_OK, _audit_best_effort, _home, _output_arg, _Parser, _print_json


def add_keys_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    keys = sub.add_parser(
        "keys", help="your signing keys and the public keys you trust",
        description="Signing keys are kept in the app home: NAME.key (the private key, "
                    "readable only by you, optionally protected by a passphrase) and NAME.pub "
                    "(the public key, in minisign's format, to give to others). Public keys "
                    "of people you trust (a privacy officer's, say) are kept apart: when any "
                    "are trusted, a release that requires approval accepts only approvals "
                    "signed with one of them (unless an installed policy names its officers: "
                    "then only theirs count).")
    keys_sub = keys.add_subparsers(dest="keys_command", metavar="ACTION", parser_class=_Parser)
    new = keys_sub.add_parser("new", help="make a new key pair NAME in the app home")
    new.add_argument("name", metavar="NAME", help="a short name: letters, digits, '.', '_', '-'")
    new.add_argument("--passphrase", action="store_true",
                     help="protect the private key with a passphrase (asked twice, or taken "
                          "from $PLANNER_APP_PASSPHRASE); you type it each time you sign")
    new.add_argument("--json", action="store_true", help="print JSON")
    listing = keys_sub.add_parser("list", help="your keys and the public keys you trust, with "
                                               "their fingerprints")
    listing.add_argument("--json", action="store_true", help="print JSON")
    export = keys_sub.add_parser("export", help="write the public key of NAME to a file, to "
                                                "give to whoever checks your signatures")
    export.add_argument("name", metavar="NAME", help="one of your keys (see keys list)")
    export.add_argument("--out", required=True, type=_output_arg,
                        help="where to write it, e.g. NAME.pub")
    export.add_argument("--force", action="store_true", help="replace an existing file")
    export.add_argument("--json", action="store_true", help="print JSON")
    trust = keys_sub.add_parser("trust", help="trust someone's public key (a .pub file they "
                                              "gave you): approvals signed with it count")
    trust.add_argument("file", metavar="FILE.pub", help="the public key file (minisign format)")
    trust.add_argument("--name", help="the name to list it under (default: the file's name)")
    trust.add_argument("--json", action="store_true", help="print JSON")
    untrust = keys_sub.add_parser("untrust", help="stop trusting a public key")
    untrust.add_argument("name", metavar="NAME", help="its name in keys list")
    untrust.add_argument("--json", action="store_true", help="print JSON")


def _interactive() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except ValueError:  # a closed stdin
        return False


def new_passphrase() -> str:
    """A new key's passphrase: $PLANNER_APP_PASSPHRASE, else asked twice on the terminal."""
    from ..core.records.keys import PASSPHRASE_ENV

    text = os.environ.get(PASSPHRASE_ENV)
    if text is not None:
        if not text:
            raise InputError("argument", "--passphrase", f"${PASSPHRASE_ENV} is empty; set "
                             "it to the passphrase, or leave out --passphrase")
        return text
    if not _interactive():
        raise InputError("argument", "--passphrase", "there is no terminal to ask the "
                         f"passphrase on: set ${PASSPHRASE_ENV}, or leave out --passphrase")
    first = getpass.getpass("Passphrase for the new key: ")
    if not first:
        raise InputError("argument", "--passphrase", "the passphrase is empty; nothing was "
                                                     "written")
    if getpass.getpass("The same passphrase again: ") != first:
        raise InputError("argument", "--passphrase", "the two passphrases differ; nothing "
                                                     "was written")
    return first


def passphrase_prompt():  # type: ignore[no-untyped-def]
    """What KeyStore.secret asks a protected key's passphrase with: the terminal when there
    is one, else None (the core then names $PLANNER_APP_PASSPHRASE)."""
    if not _interactive():
        return None
    return lambda name: getpass.getpass(f"Passphrase of key {name}: ")


def cmd_keys(args: argparse.Namespace) -> int:
    from ..core.records.keys import KeyStore

    store = KeyStore(_home(args))
    action = args.keys_command
    if action == "new":
        from ..core.records.keys import check_name

        check_name(args.name)  # before asking a passphrase
        if (store.keys_dir / f"{args.name}.key").exists() or \
                (store.keys_dir / f"{args.name}.pub").exists():
            raise InputError("argument", "NAME", f"a key named {args.name!r} already exists; "
                                                 "choose another name")
        passphrase = new_passphrase() if args.passphrase else ""
        key = store.create(args.name, passphrase)
        secret_path, public_path = store.keys_dir / f"{args.name}.key", \
            store.keys_dir / f"{args.name}.pub"
        _audit_best_effort(args, "key created", {"name": args.name,
                                                 "fingerprint": key.fingerprint})
        if args.json:
            _print_json({"name": args.name, "fingerprint": key.fingerprint,
                         "key_hash": key.key_hash,
                         "protected": bool(passphrase), "public_key": str(public_path),
                         "private_key": str(secret_path)})
        else:
            print(f"Made key {args.name}, fingerprint {key.fingerprint}, key SHA-256 "
                  f"{key.key_hash}"
                  f"{', protected by a passphrase' if passphrase else ' (no passphrase)'}.")
            print(f"  private key: {secret_path} (keep it; readable only by you)")
            print(f"  public key:  {public_path} (give it to whoever checks your signatures: "
                  f"planner-app keys export {args.name} --out {args.name}.pub)")
        return EXIT_OK
    if action == "list":
        own = store.key_infos()
        trusted = store.trusted()
        if args.json:
            _print_json({"keys": [{"name": k.name, "fingerprint": k.fingerprint,
                                   "key_hash": k.key_hash,
                                   "protected": k.protected, "public_key": str(k.public_path)}
                                  for k in own],
                         "trusted": [{"name": k.name, "fingerprint": k.fingerprint,
                                      "key_hash": k.key_hash,
                                      "public_key": str(store.trusted_path(k.name))}
                                     for k in trusted]})
            return EXIT_OK
        print(f"Your keys ({store.keys_dir}):" if own else
              "Your keys: none (make one with: planner-app keys new NAME)")
        if own or trusted:
            print("  (compare a key by its fingerprint AND its SHA-256: a key id can be "
                  "copied, the SHA-256 of the key cannot)")
        for k in own:
            print(f"  {k.name:<20} {k.fingerprint:<16}  SHA-256 {k.key_hash}  "
                  f"{'passphrase' if k.protected else 'no passphrase':<13}  {k.public_path}")
            warning = store.loose_permissions(k.name)
            if warning:
                print(f"  {warning}")
        print(f"Trusted public keys ({store.trusted_dir}):" if trusted else
              "Trusted public keys: none (add one with: planner-app keys trust FILE.pub)")
        for t in trusted:
            print(f"  {t.name:<20} {t.fingerprint:<16}  SHA-256 {t.key_hash}  "
                  f"{store.trusted_path(t.name)}")
        return EXIT_OK
    if action == "export":
        from ..core.support.files import check_output_path

        store.public(args.name, "NAME")  # a missing key before the output path
        out = check_output_path(Path(args.out), overwrite=args.force)
        target = store.export(args.name, out, overwrite=args.force)
        key = store.public(args.name, "NAME")
        if args.json:
            _print_json({"name": args.name, "fingerprint": key.fingerprint,
                         "key_hash": key.key_hash, "public_key": str(target)})
        else:
            print(f"Wrote the public key of {args.name} (fingerprint {key.fingerprint}, key "
                  f"SHA-256 {key.key_hash}) to {target}. Tell whoever you give it to both "
                  "codes, by another way than the file (say, by phone), so they can compare.")
        return EXIT_OK
    if action == "trust":
        key = store.trust(args.file, args.name)
        _audit_best_effort(args, "key trusted", {"name": key.name,
                                                 "fingerprint": key.fingerprint})
        if args.json:
            _print_json({"name": key.name, "fingerprint": key.fingerprint,
                         "key_hash": key.key_hash,
                         "public_key": str(store.trusted_path(key.name))})
        else:
            print(f"Trusted key {key.name}, fingerprint {key.fingerprint}, key SHA-256 "
                  f"{key.key_hash} (kept in {store.trusted_path(key.name)}).")
            print(f"Compare this with the owner's: ask them for the fingerprint and the "
                  f"SHA-256 that planner-app keys list shows for their key ({key.fingerprint}, "
                  f"{key.key_hash}); the fingerprint alone can be copied by a forged key.")
        return EXIT_OK
    if action == "untrust":
        gone = next((k for k in store.trusted() if k.name == args.name), None)
        store.untrust(args.name)
        params = {"name": args.name, "fingerprint": gone.fingerprint if gone else None}
        _audit_best_effort(args, "key untrusted", params)
        if args.json:
            _print_json(params)
        else:
            print(f"No longer trusted: {args.name}"
                  f"{f' (fingerprint {gone.fingerprint})' if gone else ''}.")
        return EXIT_OK
    raise InputError("argument", None, "keys needs an action: new, list, export, trust or "
                                       "untrust (see planner-app keys --help)")
