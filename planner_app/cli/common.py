"""What every command shares: exit codes, the one-line argument errors, argument types, JSON
output, the app home and the best-effort audit entry."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Any

from ..core.support.errors import InputError, PlannerError

PROG = "planner-app"
EXIT_OK, EXIT_INTERNAL, EXIT_INPUT, EXIT_REFUSED, EXIT_LEDGER = 0, 1, 2, 3, 4
#: verify --regenerate: the bundle is valid, but a synthetic table was not regenerated
EXIT_NOT_REGENERATED = 5


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (and exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse says "argument COMMAND: invalid choice ...": name the argument once
        named = re.match(r"argument (\S+): (.*)", message, re.S)
        source, problem = (named.group(1), named.group(2)) if named else ("argument", message)
        if problem.startswith(source + " "):  # "--confidence must be ..." under --confidence
            problem = problem[len(source) + 1:]
        raise InputError(source, None, f"{problem} (see {self.prog} --help)")


def _finite_float(name: str, lo: float | None = None, hi: float | None = None,
                  lo_open: bool = False, hi_open: bool = False):  # type: ignore[no-untyped-def]
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, not {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{name} must be finite")
        if lo is not None and (value < lo or (lo_open and value == lo)):
            raise argparse.ArgumentTypeError(
                f"{name} must be {'above' if lo_open else 'at least'} {lo:g}")
        if hi is not None and (value > hi or (hi_open and value == hi)):
            raise argparse.ArgumentTypeError(
                f"{name} must be {'below' if hi_open else 'at most'} {hi:g}")
        return value

    return parse


def _output_arg(text: str) -> str:
    """An output file option (--out, --pdf, --html, --registry): the core's rule for a name
    as typed (support/files.py), before Path() drops a final '/'."""
    from ..core.support.files import typed_name_problem

    problem = typed_name_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def _confidence_arg(text: str) -> float:
    """--confidence: the core's range (confidence.MIN_CONFIDENCE .. MAX_CONFIDENCE)."""
    from ..core.dp.confidence import MAX_CONFIDENCE, MIN_CONFIDENCE

    return _finite_float("--confidence", lo=MIN_CONFIDENCE, hi=MAX_CONFIDENCE)(text)


def _delta_arg(name: str):  # type: ignore[no-untyped-def]
    """A δ argument: the core's one rule (0, or at least MIN_DELTA and below 1)."""
    def parse(text: str) -> float:
        from ..core.model import delta_problem

        value = _finite_float(name)(text)
        problem = delta_problem(value)
        if problem:
            raise argparse.ArgumentTypeError(f"{name} {problem}")
        return value

    return parse


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


# ----------------------------------------------------------------------------- output


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _print_json(obj: Any) -> None:
    print(json.dumps(_jsonable(obj), indent=2, ensure_ascii=False, allow_nan=False))


def _num(x: Any, digits: int = 6) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and not math.isfinite(x):
        return "unbounded"
    from ..core.support.words import format_number

    return format_number(x, min(digits, 4))  # no 20.5322265625, no 2e+06


def _approval_required(args: argparse.Namespace) -> bool:
    """--require-approval, --trust, or the app setting "Require approval before release" of
    this home (home_check.approval_required, the rule the wizard and the API follow too)."""
    from ..core.release.home_check import approval_required

    return approval_required(_home(args), bool(args.require_approval),
                             bool(getattr(args, "trust", None)))


def _approval_trust(args: argparse.Namespace) -> list[Any]:
    """The keys a required approval must be signed by: --trust files, else the keys trusted
    in this app home (review.approval_keys, the rule the app follows too)."""
    from ..core.release.home_check import approval_trust

    return approval_trust(_home(args), getattr(args, "trust", None) or ())


def _confidence(args: argparse.Namespace) -> float:
    """--confidence, or the app setting "Confidence of the ± shown" of this home (the one the
    desktop app shows and releases at), so the command line and the app agree."""
    from ..core.release.home_check import home_confidence

    return home_confidence(_home(args), args.confidence)


def _naming_plan_file(plan_path: str) -> contextlib.AbstractContextManager[None]:
    """Core checks name a plan problem with the source "plan": say which file it is."""
    from ..core.release.home_check import naming_plan_file

    return naming_plan_file(Path(plan_path).name)


def _home(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from ..core.support.home import app_home

    return app_home(args.home)


def _audit_best_effort(args: argparse.Namespace, event: str, params: dict[str, Any]) -> None:
    from ..core.records.audit import AuditError, AuditLog

    try:
        home = _home(args).ensure()
        AuditLog(home.audit_path).append(event, params)
    except (AuditError, PlannerError) as exc:
        print(f"{PROG}: warning: not recorded in the audit log: {exc}", file=sys.stderr)


def use_spark_master(args: argparse.Namespace) -> None:
    """--spark-master: the Spark session's master (it overrides PLANNER_APP_SPARK_MASTER);
    only with --engine spark."""
    master = getattr(args, "spark_master", None)
    if master is None:
        return
    if getattr(args, "engine", None) != "spark":
        raise InputError("argument", "--spark-master", "is for --engine spark")
    from ..core.data.spark_session import set_master

    set_master(master)


#: the cyclic garbage collector's thresholds for a one-shot command (issue 24): Python's
#: default (700, 10, 10) collected 734 times during a 12-statistic release, five of them over
#: every object pandas, DuckDB, matplotlib and fpdf had loaded: about 0.5 CPU s of 6.6
ONE_SHOT_GC = (50_000, 20, 100)


def one_shot_gc() -> None:
    """Collect cyclic garbage less often in a process that does one release and ends: what
    it allocates is mostly long-lived (libraries, the table, the record) or freed by
    reference counting; cycles (matplotlib's figures) still go at the younger collections.
    Never in the app, a long-lived process (it keeps Python's default)."""
    gc.set_threshold(*ONE_SHOT_GC)


def one_blas_thread_under_a_memory_limit() -> None:
    """Under an address-space limit (``ulimit -v``), have OpenBLAS start no threads of its own.

    scipy brings its own OpenBLAS, loaded only when a plan needs the accounting's PLD; each of
    its threads maps a 32 MB buffer when it starts, and when the limit refuses the map,
    OpenBLAS retries for ever: `release` hung at 100% CPU instead of saying the machine ran
    out of memory. With one thread nothing is mapped at load, and an allocation refused later
    is a MemoryError the command reports. Without a limit nothing changes; a value the user
    set wins."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows has no address-space limit to respect
        return
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit != resource.RLIM_INFINITY:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

