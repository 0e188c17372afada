"""A throwaway PostgreSQL server for the shared-ledger tests: the one place that starts one.

``.ci/run`` runs ``python tests/pg_server.py start FOLDER`` (prints the URL to export as
PLANNER_TEST_PG_URL) and ``stop FOLDER`` at the end; the ``pg_url`` fixture in
tests/core/records/conftest.py calls ``start`` itself when that variable is not set, so a
developer's plain ``python -m pytest`` runs the tests too. The server refuses to run as root:
when the tests run as root the cluster's folder is given to the unprivileged user ``nobody``
and the server's commands run as that user (``runuser``). It listens on a Unix socket in the
folder only (no TCP port to collide with another run), with fsync on so a kill tests real
durability.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

PG_BIN_DIRS = [Path("/usr/lib/postgresql") / v / "bin" for v in ("17", "16", "15", "14")]
DB = "planner"
USER = "planner"


def pg_bin() -> Path | None:
    for d in PG_BIN_DIRS:
        if (d / "pg_ctl").exists():
            return d
    found = shutil.which("pg_ctl")
    return Path(found).parent if found else None


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "nobody", "--", *cmd]


def url_for(folder: Path) -> str:
    return f"postgresql://{USER}@/{DB}?host={quote(str(folder / 'socket'), safe='/')}"


def _run(cmd: list[str]) -> None:
    done = subprocess.run(_as_server_user(cmd), stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{Path(cmd[0]).name} failed: {done.stderr.strip()[-500:]}")


def new_folder() -> Path:
    """A folder for a cluster directly under the system's temporary folder, which the
    unprivileged server user can reach (a pytest tmp_path sits in a root-only folder)."""
    parent = Path(tempfile.mkdtemp(prefix="planner-pg-"))
    parent.chmod(0o755)
    return parent / "pg"


def start(folder: Path) -> str:
    """Make a cluster in ``folder`` (if none) and start it; its URL."""
    bin_dir = pg_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install -y postgresql)")
    folder.mkdir(parents=True, exist_ok=True)
    data, sock = folder / "data", folder / "socket"
    sock.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        for p in (folder, sock):
            shutil.chown(p, "nobody", "nogroup")
        os.chmod(folder, 0o755)
    if not (data / "PG_VERSION").exists():
        _run([str(bin_dir / "initdb"), "-D", str(data), "-U", USER, "--auth=trust",
              "--no-sync", "-E", "UTF8", "--locale=C"])
    server_start(folder)
    _run([str(bin_dir / "createdb"), "-h", str(sock), "-U", USER, DB])
    return url_for(folder)


def server_start(folder: Path) -> None:
    """Start (or restart) the server of a cluster ``start`` made."""
    bin_dir = pg_bin()
    assert bin_dir is not None
    status = subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "-D",
                                             str(folder / "data"), "status"]),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    if status.returncode == 0:
        return  # already running
    opts = (f"-c listen_addresses='' -c unix_socket_directories='{folder / 'socket'}' "
            "-c max_connections=60 -c shared_buffers=16MB -c fsync=on")
    _run([str(bin_dir / "pg_ctl"), "-D", str(folder / "data"), "-o", opts, "-w", "-t", "60",
          "-l", str(folder / "socket" / "log"), "start"])


def server_stop(folder: Path, mode: str = "fast") -> None:
    """Stop the server: ``fast`` (clients cut off), or ``immediate`` (like a kill -9)."""
    bin_dir = pg_bin()
    assert bin_dir is not None
    subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "-D", str(folder / "data"), "-m",
                                    mode, "-w", "stop"]),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


def stop(folder: Path) -> None:
    """Stop the server of ``folder`` (a cluster folder, or the folder ``new_folder`` made
    around one) and remove it all."""
    cluster = folder if (folder / "data").exists() else folder / "pg"
    if not (cluster / "data" / "PG_VERSION").exists():
        return  # not a cluster this module made: never remove anything else
    server_stop(cluster)
    shutil.rmtree(folder, ignore_errors=True)


def wait_ready(url: str, seconds: float = 30.0) -> None:
    import psycopg

    end = time.monotonic() + seconds
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > end:
                raise
            time.sleep(0.1)


if __name__ == "__main__":
    action, where = sys.argv[1], Path(sys.argv[2] if len(sys.argv) > 2 else ".")
    if action == "start":
        print(start(where))
    elif action == "start-new":  # a new folder: prints the folder, then the URL
        folder = new_folder()
        print(folder)
        print(start(folder))
    elif action == "stop":
        stop(where)
    else:
        sys.exit(f"usage: {sys.argv[0]} start|stop FOLDER")
