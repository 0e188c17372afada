"""The Spark session the Spark runner (spark_engine.py) uses: started on first use (a JVM:
seconds), reused by every later release in the process, stopped at exit or on SIGTERM/SIGHUP
with its private spill folder removed. ``local[*]`` by default; ``PLANNER_APP_SPARK_MASTER``
or the command line's ``--spark-master`` (``set_master``) names another master."""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import signal
import tempfile
import threading
import warnings
from typing import TYPE_CHECKING, Any

from ..support.errors import InputError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


#: The one-line answer when pyspark (or sqlglot) is not installed.
MISSING_PYSPARK = "the Spark engine needs pyspark: pip install 'planner-app[spark]'"

#: The master when neither the caller nor the environment names one.
DEFAULT_MASTER = "local[*]"

#: The driver's heap in local mode (where the driver also runs the executors).
DEFAULT_DRIVER_MEMORY = os.environ.get("PLANNER_APP_SPARK_MEMORY", "2g")

_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""

_lock = threading.Lock()
_session: SparkSession | None = None
_session_master: str | None = None
_folder: str | None = None
_jvm: Any = None  # the gateway's Java process (local mode: the driver and the executors)
_previous: dict[int, Any] = {}  # signal handlers replaced by _on_signal
_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))


def require_pyspark() -> None:
    """Raise the one-line ``InputError`` when the ``spark`` extra is not installed."""
    try:
        import pyspark  # noqa: F401
        import sqlglot  # noqa: F401
    except ImportError:
        raise InputError("--engine spark", None, MISSING_PYSPARK) from None


_chosen_master: str | None = None  # set_master: the command line's --spark-master


def set_master(master: str | None) -> None:
    """The master this process's session uses (``--spark-master``): it overrides
    ``PLANNER_APP_SPARK_MASTER``; None goes back to the environment."""
    global _chosen_master
    if master is not None and not master.strip():
        raise InputError("argument", "--spark-master", "needs a master URL, e.g. local[*], "
                         "spark://host:7077 or yarn")
    _chosen_master = master.strip() if master is not None else None


def _named_master(master: str | None) -> str | None:
    return master or _chosen_master or os.environ.get("PLANNER_APP_SPARK_MASTER") or None


def spark_master(master: str | None = None) -> str:
    """The master to use: the caller's, else ``--spark-master`` (set_master), else
    ``PLANNER_APP_SPARK_MASTER``, else local."""
    return _named_master(master) or DEFAULT_MASTER


def _is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[")


def session(master: str | None = None) -> SparkSession:
    """The process's Spark session, started on first use (quiet logs, no web UI) and
    reused (by a caller naming no master, too). A different master than the running
    session's is refused: a process talks to one cluster."""
    global _session, _session_master
    require_pyspark()
    named = _named_master(master)
    wanted = spark_master(master)
    with _lock:
        if _session is not None:
            if named is not None and named != _session_master:
                raise InputError("--spark-master", None,
                                 f"this process already runs Spark on {_session_master}; "
                                 f"start a new one for {wanted}")
            return _session
        _session = _start(wanted)
        _session_master = wanted
        return _session


def _start(master: str) -> SparkSession:
    # pyspark warns on first use that it "does not yet fully support pandas >= 3"; the
    # runner hands it only Arrow tables and reads back plain rows
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas",
                            category=FutureWarning)
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway
    from pyspark.sql import SparkSession

    # Spark's spill and cache files (derived columns; for a CSV file the cells of the plan's
    # columns) go to a private folder (0700), removed when the session stops or the
    # process exits, also on SIGTERM (_on_signal; Ctrl-C ends the process through atexit)
    global _folder, _jvm
    folder = tempfile.mkdtemp(prefix="planner-app-spark-")
    _folder = folder
    atexit.register(stop_session)
    _catch_signals()
    log4j = os.path.join(folder, "log4j2.properties")
    with open(log4j, "w", encoding="utf-8") as fh:
        fh.write(_LOG4J)
    java_options = f"-Dlog4j2.configurationFile=file:{log4j}"
    conf = (SparkConf().setMaster(master).setAppName("planner-app")
            .set("spark.ui.enabled", "false")
            .set("spark.ui.showConsoleProgress", "false")
            .set("spark.sql.session.timeZone", "UTC")
            .set("spark.sql.ansi.enabled", "true")  # an overflow is an error, never a wrap
            .set("spark.sql.execution.arrow.pyspark.enabled", "true")
            .set("spark.driver.extraJavaOptions", java_options)
            .set("spark.executor.extraJavaOptions", java_options)
            .set("spark.local.dir", folder))
    if _is_local(master):
        cores = os.cpu_count() or 2
        conf.set("spark.sql.shuffle.partitions", str(max(2, 2 * cores)))
        conf.set("spark.driver.memory", DEFAULT_DRIVER_MEMORY)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # The JVM's own start-up lines ("Using incubator modules", the native-hadoop warning)
    # go to a log file in the session's folder, not to the owner's terminal.
    log = open(os.path.join(folder, "spark.log"), "ab")  # noqa: SIM115 (lives with the JVM)
    try:
        gateway = launch_gateway(  # type: ignore[no-untyped-call]
            conf, popen_kwargs={"stdout": log, "stderr": log})
        _jvm = getattr(gateway, "proc", None)
        context = SparkContext(conf=conf, gateway=gateway)
    except Exception as exc:
        raise InputError("--engine spark", None,
                         f"Spark did not start on {master} ({type(exc).__name__}; is Java 17 "
                         f"installed? see {log.name})") from None
    context.setLogLevel("ERROR")
    # pyspark logs every failed statement (with its JVM stack) to stderr as JSON; the
    # runner turns the exception into one line instead
    try:
        from pyspark.logger import PySparkLogger  # pyspark 4
    except ImportError:  # pragma: no cover (pyspark 3.5 has no such logging)
        pass
    else:
        for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
            PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)
    return SparkSession(context)


def stop_session() -> None:
    """Stop the process's session and remove its folder (at exit; tests: the next use
    starts a new one)."""
    global _session, _session_master, _folder
    with _lock:
        try:
            if _session is not None:
                _session.stop()
        except Exception:  # the JVM is gone (Ctrl-C reaches it too): the folder still goes
            pass
        finally:
            _session = None
            _session_master = None
            _remove_folder()


def _remove_folder() -> None:
    global _folder
    if _folder is not None:
        shutil.rmtree(_folder, ignore_errors=True)
        _folder = None


def _catch_signals() -> None:
    """SIGTERM (and SIGHUP) end the process without atexit: remove the folder first. Only
    the main thread can set handlers; a session started elsewhere (the desktop's workers)
    relies on atexit and stop_session."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in _SIGNALS:
        if signum in _previous:
            continue
        try:
            _previous[signum] = signal.signal(signum, _on_signal)
        except (ValueError, OSError):  # pragma: no cover (not the main interpreter)
            pass


def _on_signal(signum: int, frame: Any) -> None:
    """Stop the JVM (it writes to the folder), remove the folder, then do what the signal
    did before (by default: end the process)."""
    jvm = _jvm
    if jvm is not None:
        try:
            jvm.kill()
            jvm.wait(timeout=10)
        except Exception:
            pass
    _remove_folder()
    previous = _previous.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
