"""The planner-app command: the desktop app with no sub-command, the CLI with one.

Every sub-command works without PySide6 installed: Qt is imported only when the desktop app
starts. Exit codes: 0 ok; 1 internal error (verify: the bundle is not valid); 2 invalid input
(one line on stderr naming the file and the problem; verify: not a bundle); 3 refused because
the budget or the organisation's policy does not allow it (nothing charged or written; also a
policy that is unsigned or wrongly signed at `policy install`); 4 the ledger, the audit log or
the installed policy cannot be used (nothing released). Never a traceback unless
PLANNER_APP_DEBUG=1.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..core.support.errors import (
    NO_MEMORY,
    Cancelled,
    InputError,
    PlannerError,
    out_of_memory,
)
from ..core.support.home import HomeUnusable
from .common import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_LEDGER,
    EXIT_OK,
    EXIT_REFUSED,
    PROG,
    one_blas_thread_under_a_memory_limit,
)
from .desktop import cmd_gui
from .diffs import cmd_diff
from .keys import cmd_keys
from .ledger import cmd_ledger
from .notebooks import cmd_export_notebook
from .parser import build_parser
from .plans import cmd_check, cmd_explain, cmd_plan, cmd_review
from .policy import cmd_policy
from .releases import cmd_discover, cmd_release, cmd_report, cmd_verify

__all__ = ["build_parser", "gui_main", "main"]


def _escape_what_the_terminal_cannot_show() -> None:
    """A terminal in an ASCII or Latin-1 locale cannot show ε or a column named in Cyrillic:
    such characters are written as escapes (\\u03b5) rather than ending the command with an
    error after its work is done (for a release, after the charge)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or unusual stream: leave it as it is
                pass


def _no_memory_line(args: argparse.Namespace | None) -> str:
    """The one line for a command that ran out of memory outside a charged release (one that
    was charged says so itself: ReleaseUnfinished): nothing was charged, or, for
    ``release --resume``, the release is still unfinished and resuming again completes it."""
    if getattr(args, "command", None) == "release" and getattr(args, "resume", None) is not None:
        return (f"{PROG}: error: {NO_MEMORY}; the release is still unfinished and nothing more "
                "was charged: free memory (or raise the process's memory limit), then run "
                "planner-app release --resume again")
    return (f"{PROG}: error: {NO_MEMORY}; nothing was charged: free memory (or raise the "
            "process's memory limit, ulimit -v), then run the command again")


def _raised_by(*names: str) -> tuple[type[BaseException], ...]:
    """The exception classes ``module.Class`` of planner_app.core.records that this process
    has imported: one whose module was never imported cannot have been raised. So the
    start-up imports none of those modules (the ledger's brings numpy and the accountant:
    ``planner-app --help`` took 0.33 s of CPU with them); each command imports what it uses."""
    out = []
    for name in names:
        module, cls = name.split(".")
        loaded = sys.modules.get(f"planner_app.core.records.{module}")
        if loaded is not None:
            out.append(getattr(loaded, cls))
    return tuple(out)


def _refusal(exc: PlannerError) -> bool:
    """Refused because the budget or the organisation's policy does not allow it (exit 3)."""
    return isinstance(exc, _raised_by("ledger.BudgetExceeded", "review.ApprovalRequired",
                                      "policy.PolicyRefused", "programme.ProgrammeRefused"))


def _unusable_books(exc: PlannerError) -> bool:
    """The ledger, the audit log, the installed policy or the app home cannot be used (4)."""
    return isinstance(exc, HomeUnusable) or isinstance(exc, _raised_by(
        "ledger.LedgerError", "audit.AuditError", "policy.PolicyError"))


def main(argv: Sequence[str] | None = None) -> int:
    debug = os.environ.get("PLANNER_APP_DEBUG") == "1"
    _escape_what_the_terminal_cannot_show()
    one_blas_thread_under_a_memory_limit()
    args: argparse.Namespace | None = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        handlers = {None: cmd_gui, "gui": cmd_gui, "explain": cmd_explain,
                    "check": cmd_check, "release": cmd_release, "ledger": cmd_ledger,
                    "verify": cmd_verify, "plan": cmd_plan, "review": cmd_review,
                    "report": cmd_report, "diff": cmd_diff, "keys": cmd_keys,
                    "policy": cmd_policy, "export-notebook": cmd_export_notebook,
                    "discover": cmd_discover}
        return handlers[args.command](args)
    except InputError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except PlannerError as exc:
        if _refusal(exc):
            print(f"{PROG}: refused: {exc}", file=sys.stderr)
            return EXIT_REFUSED
        if _unusable_books(exc):
            print(f"{PROG}: error: {exc}", file=sys.stderr)
            return EXIT_LEDGER
        if isinstance(exc, Cancelled):
            print(f"{PROG}: {exc}", file=sys.stderr)
            return EXIT_INTERNAL
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # never a traceback for a user
        if out_of_memory(exc) and not debug:  # a lazy import or a computation, before any
            # charge (after it, publish raises ReleaseUnfinished, which says so)
            print(_no_memory_line(args), file=sys.stderr)
            return EXIT_INPUT
        if debug:
            raise
        print(f"{PROG}: internal error ({type(exc).__name__}); run again with "
              "PLANNER_APP_DEBUG=1 for details", file=sys.stderr)
        return EXIT_INTERNAL


def gui_main() -> int:
    """planner-app-gui (a gui-script: no console window on Windows): the desktop app, with
    the options of ``planner-app gui``."""
    return main(["gui", *sys.argv[1:]])
