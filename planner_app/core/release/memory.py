"""Room in memory for what happens after the charge, checked before it.

After the ledger is charged, randomized response builds its published answer file in memory:
the randomized answers, the uniform subset and the shuffle (sort keys and their order), the
saved record's copy of the answers (pending.py) and the file's CSV. Measured, that peaks at
about 47 bytes an answer above what the process holds before the charge; nothing of it
streams, and a MemoryError there would leave a charged release with nothing to resume.
``require_memory`` refuses such a release before the charge, from the number of answers and
the memory this process can still have (the refusal is shown to the owner only; it names the
limit, never the number of answers).

Available memory is the least of: the system's (``MemAvailable`` + free swap from
/proc/meminfo, else psutil when installed, else ``os.sysconf`` free pages), the process's
cgroup limit (Linux containers), and its address-space limit (``RLIMIT_AS``). When none can be
read the release is not refused.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..support.errors import InputError

#: bytes an answer needs after the charge (measured 46-48 at 2M and 8M answers, with margin)
BYTES_PER_ANSWER = 64
_MEMINFO = Path("/proc/meminfo")
_CGROUP_FILES = ((Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory.current")),
                 (Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
                  Path("/sys/fs/cgroup/memory/memory.usage_in_bytes")))


def _meminfo() -> int | None:
    try:
        fields = {line.split(":")[0]: int(line.split()[1]) * 1024
                  for line in _MEMINFO.read_text().splitlines() if line.count(":") == 1
                  and len(line.split()) >= 2 and line.split()[1].isdigit()}
    except (OSError, ValueError):
        return None
    if "MemAvailable" not in fields:
        return None
    return fields["MemAvailable"] + fields.get("SwapFree", 0)


def _system() -> int | None:
    found = _meminfo()
    if found is not None:
        return found
    try:
        psutil: Any = importlib.import_module("psutil")  # optional: only when installed
        vm = psutil.virtual_memory()
        return int(vm.available) + int(psutil.swap_memory().free)
    except Exception:  # not installed, or it cannot tell
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _cgroup() -> int | None:
    for limit_file, usage_file in _CGROUP_FILES:
        try:
            limit_text = limit_file.read_text().strip()
            usage = int(usage_file.read_text().strip())
        except (OSError, ValueError):
            continue
        if not limit_text.isdigit() or int(limit_text) >= 1 << 60:  # "max": no limit
            return None
        return max(0, int(limit_text) - usage)
    return None


def _address_space() -> int | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
        used = pages * int(os.sysconf("SC_PAGE_SIZE"))
    except (OSError, ValueError, IndexError):
        return None
    return max(0, soft - used)


def available_memory() -> int | None:
    """Bytes this process can still allocate, as far as the system tells (None: unknown)."""
    known = [m for m in (_system(), _cgroup(), _address_space()) if m is not None]
    return min(known) if known else None


def answers_of(aggregates: Mapping[str, Any]) -> dict[str, int]:
    """Randomized response's number of answers per statistic (true counts: memory only)."""
    out = {}
    for qid, aggregate in aggregates.items():
        answers = getattr(aggregate, "answers", None)
        if answers is not None:
            out[qid] = int(answers.size)
    return out


def require_memory(aggregates: Mapping[str, Any]) -> None:
    """Refuse, before the charge, a release whose answer files would not fit in memory after
    it (InputError, exit 2; nothing charged). The noise adds to the answers: the count's
    noise is bounded generously by 2^20 more answers a statistic."""
    counts = answers_of(aggregates)
    if not counts:
        return
    need = BYTES_PER_ANSWER * sum(n + (1 << 20) for n in counts.values())
    free = available_memory()
    if free is None or need <= free:
        return
    qid = max(counts, key=lambda k: counts[k])
    most = max(0, free // BYTES_PER_ANSWER - (1 << 20))
    raise InputError("plan", f"query {qid}",
                     f"randomized response's answer file needs about {BYTES_PER_ANSWER} bytes "
                     f"of memory an answer after the charge, and {free / 2**30:,.1f} GiB are "
                     f"available (room for about {most:,} answers); free memory, or release it "
                     "on a sample of the table or as a yes/no count; nothing was charged")
