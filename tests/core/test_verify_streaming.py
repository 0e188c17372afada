"""verify reads randomized response's answer file in chunks (issue 13): the same files are
accepted and refused as when it read the file whole, and verifying a bundle with a large
answer file takes memory for its small files only."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.bundle import (
    MANIFEST,
    NOISED_DIR,
    RECORD,
    read_bundle,
    sha256_bytes,
    zip_bytes,
)
from planner_app.core.release.noise import randomized_response_estimate
from planner_app.core.release.opened_bundle import open_bundle
from planner_app.core.release.publish import publish
from planner_app.core.release.verify_release import AnswerScan, verify_bundle
from planner_app.core.support.home import app_home as home_at
from tests.conftest import ROOT, plan_dict
from tests.record_rows import edit_rows
from tests.trust import forge

RR = {"id": "r", "kind": "randomized_response", "column": "ok", "yes": ["yes"], "no": ["no"],
      "epsilon": 2.0}
ANSWERS = f"{NOISED_DIR}/r.csv"


def _reference(data: bytes) -> tuple[bool, int, int]:
    """What verify checked before it streamed (the file read whole): well formed, answers,
    yes."""
    lines = data.decode("utf-8", errors="replace").splitlines()
    ok = bool(lines) and lines[0] == "answer" and all(a in ("yes", "no") for a in lines[1:])
    return ok, len(lines) - 1, lines[1:].count("yes")


TOKENS = [b"answer", b"yes", b"no", b"\n", b"\n", b"\n", b"\r", b"\r\n", b"\x0b", b"\x1c",
          b"\xc2\x85", b"\xe2\x80\xa8", b"\xff", b"\xe2\x82", b"maybe", b"ye", b"s", b""]


def test_the_scan_reads_lines_as_the_whole_file_does_at_any_chunk_boundaries() -> None:
    rng = random.Random(13)
    for _ in range(3000):
        data = b"".join(rng.choice(TOKENS) for _ in range(rng.randrange(0, 30)))
        if rng.random() < 0.5:
            data = b"answer\n" + data
        cuts = sorted(rng.sample(range(len(data) + 1), min(len(data) + 1,
                                                           rng.randrange(0, 6))))
        scan = AnswerScan()
        start = 0
        for cut in [*cuts, len(data)]:
            scan.write(data[start:cut])
            start = cut
        scan.close()
        ok, answers, yes = _reference(data)
        assert scan.well_formed == ok, data
        assert scan.sha256 == sha256_bytes(data)
        if ok:
            assert (scan.answers, scan.yes) == (answers, yes), data


def _bundle(tmp_path: Path, rows: int = 40) -> Path:
    data = tmp_path / "t.csv"
    data.write_text("ok\n" + "yes\nno\n" * (rows // 2))
    plan = plan_from_dict(plan_dict(queries=[RR], budget={"epsilon": 2.0, "delta": 0.0}))
    out = tmp_path / "b.zip"
    publish(plan, load_table(data), out, home_at(tmp_path / "home"))
    return out


def reseal(src: Path, dst: Path, answers: bytes, *, recompute: bool) -> None:
    """Replace the answer file and rebuild everything the bundle's hashes cover (a forger who
    knows the format); with ``recompute`` the share and its interval follow the new file too,
    so the bundle is valid exactly when the file is a column of yes/no answers."""
    files = read_bundle(src)
    files.pop(MANIFEST)
    files[ANSWERS] = answers
    record = json.loads(files[RECORD])
    plan = plan_from_dict(record["plan"])
    ok, n, yes = _reference(answers)
    if recompute and ok and n:
        q = plan.queries[0]
        ms = {m.component.name: m for m in measurements_for(q, plan)}
        truth = ms["answers"].truth
        assert isinstance(truth, Fraction)
        value, low, high = randomized_response_estimate(yes, n, truth, record["confidence"],
                                                        ms.get("count"))
        edit_rows(record, lambda rows: next(r for r in rows if r["query_id"] == "r").update(
            value=value, low=low, high=high))
        forge.reseal(files, record)
    else:
        forge.seal_audit(files)
    dst.write_bytes(zip_bytes(files))


@pytest.mark.parametrize("change, refusal", [
    (lambda a: a, None),
    (lambda a: a.replace(b"\n", b"\r\n"), None),  # splitlines reads CRLF lines, as before
    (lambda a: a[:-2], "is not a column of yes/no answers"),  # truncated within a line
    (lambda a: a + b"\n", "is not a column of yes/no answers"),  # an empty line
    (lambda a: a.replace(b"\nno\n", b"\nmaybe\n", 1), "is not a column of yes/no answers"),
    (lambda a: b"Answer" + a[6:], "is not a column of yes/no answers"),
    (lambda a: a[:a.rindex(b"\n", 0, -1) + 1], "do not recompute"),  # one answer fewer
    (lambda a: a + b"yes\n", "do not recompute"),  # one answer more
    (lambda a: a.replace(b"\nno\n", b"\nn\xffo\n", 1), "is not a column of yes/no answers"),
])
def test_verify_refuses_the_broken_answer_files_it_refused_before(
        tmp_path: Path, change: Any, refusal: str | None) -> None:
    out = _bundle(tmp_path)
    answers = read_bundle(out)[ANSWERS]
    assert verify_bundle(out).valid
    forged = tmp_path / "forged.zip"
    reseal(out, forged, change(answers), recompute=False)
    for verdict in (verify_bundle(forged), open_bundle(forged).verdict):
        if refusal is None:
            assert verdict.valid, verdict.problems
        else:
            assert not verdict.valid
            assert any(ANSWERS in p and refusal in p for p in verdict.problems), \
                verdict.problems


def test_a_resealed_file_whose_share_recomputes_is_valid(tmp_path: Path) -> None:
    """The forger's tool is right: a changed file with its share recomputed passes (so the
    memory test below verifies a valid bundle)."""
    out = _bundle(tmp_path)
    forged = tmp_path / "forged.zip"
    reseal(out, forged, b"answer\n" + b"yes\nno\nno\n" * 50, recompute=True)
    assert verify_bundle(forged).valid, verify_bundle(forged).problems


# the child's own peak: ru_maxrss would keep the forked test process's size across exec
PEAK = """
import resource, sys
from pathlib import Path
from planner_app.core.release.verify_release import verify_bundle
verdict = verify_bundle(Path(sys.argv[1]))
assert verdict.valid, verdict.problems
try:
    with open("/proc/self/status") as fh:
        print(next(int(l.split()[1]) * 1024 for l in fh if l.startswith("VmHWM:")))
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin"
                                                                else 1024))
"""


def _peak(bundle: Path) -> int:
    done = subprocess.run([sys.executable, "-c", PEAK, str(bundle)], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1])


@pytest.mark.subprocess
def test_verify_holds_a_large_answer_file_in_bounded_memory(tmp_path: Path) -> None:
    out = _bundle(tmp_path)
    rng = random.Random(5)
    n = 10_000_000  # about 35 MB of answers
    body = bytes(rng.getrandbits(8) & 1 for _ in range(1 << 16))
    pattern = b"".join(b"yes\n" if bit else b"no\n" for bit in body)
    reps = n // len(body)
    big = b"answer\n" + pattern * reps
    small_peak = _peak(out)
    forged = tmp_path / "big.zip"
    reseal(out, forged, big, recompute=True)
    size = len(big)
    del big, pattern
    growth = _peak(forged) - small_peak
    # read whole, the file alone is held at least once (its bytes), its text and its lines
    # (tens of bytes a line) again; in chunks, a few MB whatever its size
    assert growth < size // 4, (growth, size)
