"""The policy command: an officer signs a policy file; the owner's app home installs it and
shows what is in force (records/policy.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.support.errors import InputError
from .common import EXIT_OK, PROG, _home, _print_json


def _passphrase(name: str) -> str:
    import getpass

    if not sys.stdin.isatty():
        raise InputError("argument", "--key", f"the key {name!r} is protected by a passphrase: "
                                              "run in a terminal or set PLANNER_APP_PASSPHRASE")
    return getpass.getpass(f"Passphrase of key {name}: ")


def _warn_signer(policy: object, key: object, who: str) -> None:
    """A warning line when the policy names approvers and its signing key is not one of them
    (the officer probably forgot to list themselves)."""
    from ..core.records.policy import Policy

    if isinstance(policy, Policy) and policy.signer_not_approver(key):  # type: ignore[arg-type]
        print(f"{PROG}: warning: the signing key {who} is not among the policy's "
              f"require_approval_by ({policy.officers_words()}); if you are one of its "
              "officers, add your key (the second line of your .pub file) and sign again",
              file=sys.stderr)


def cmd_policy(args: argparse.Namespace) -> int:
    from ..core.records.keys import KeyStore, load_public_key
    from ..core.records.policy import PolicyStore, read_policy_file, sign_policy

    home = _home(args)
    if args.policy_command == "sign":
        key = KeyStore(home).secret(args.key, _passphrase)
        written = sign_policy(Path(args.policy), key)
        _warn_signer(read_policy_file(Path(args.policy))[1], key.public, key.public.describe())
        if args.json:
            _print_json({"policy": args.policy, "signature": str(written),
                         "key": key.name, "fingerprint": key.public.fingerprint})
        else:
            print(f"Signed {Path(args.policy).name} with key {key.name} "
                  f"({key.public.fingerprint}): wrote {written}. Check it with: minisign -V "
                  f"-p {key.name}.pub -m {args.policy}")
        return EXIT_OK
    store = PolicyStore(home)
    if args.policy_command == "install":
        installed = store.install(Path(args.policy), load_public_key(args.trust))
        policy = installed.policy
        if policy.signer is not None:
            _warn_signer(policy, policy.signer, policy.signer.describe())
        if args.json:
            _print_json({**policy.to_dict(), "replaced_sha256": installed.replaced})
        else:
            verb = "Replaced the installed policy with" if installed.replaced else "Installed"
            signer = policy.signer.describe() if policy.signer else "?"
            print(f"{verb} {Path(args.policy).name} (version {policy.version}), verified "
                  f"against {Path(args.trust).name}: signed by {signer}. From now on check, "
                  "release and the app enforce it:")
            for line in policy.lines()[1:]:
                print(f"  {line}")
        return EXIT_OK
    if args.policy_command == "show":
        shown = store.load()  # PolicyError (exit 4) when it cannot be trusted
        if args.json:
            _print_json(shown.to_dict() if shown is not None else None)
        elif shown is None:
            print("No policy is installed in this app home.")
        else:
            print("\n".join(shown.lines()))
            print(f"Installed in {store.folder} (SHA-256 {shown.sha256[:16]}…).")
        return EXIT_OK
    raise InputError("argument", None, "policy needs an action: sign, install or show")
