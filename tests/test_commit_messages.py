"""Commit messages: a subject of at most 72 characters, then a body saying why (issue 23).

Which commits: those made on top of the commit that added this file (its descendants, merges
skipped), so the rule holds from when it was adopted (27 Nov 2026) on every branch that has
it. Not every commit of that day: 155 of its first 186 had longer subjects, and a published
commit cannot be reworded without rewriting history. A branch that forked before the rule
is checked from its first commit on top of it; its older commits, merged in, are not.

On a clean CI clone: a full clone finds the adding commit by its path (whatever its hash
after a cherry-pick); a shallow clone that does not reach it checks every commit it holds
(all newer than the rule); a tree without git history skips, saying so.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
THIS = "tests/test_commit_messages.py"
SUBJECT_MAX = 72
#: commits already merged with a message that breaks the rule (they cannot be reworded):
#: full hash -> why it is let through. Add one only after it has landed on main.
EXEMPT: dict[str, str] = {}
#: lines of a body that do not say why: git trailers
TRAILERS = ("signed-off-by:", "co-authored-by:", "reviewed-by:", "change-id:")


def git(*args: str, repo: Path = ROOT) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          timeout=60)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip())
    return done.stdout


def commits_to_check() -> list[str]:
    """Full hashes of the non-merge commits under the rule, newest first."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: commit messages not checked")
    try:
        git("rev-parse", "--verify", "HEAD")
        top = Path(git("rev-parse", "--show-toplevel").strip()).resolve()
    except RuntimeError:
        top = None
    if top != ROOT:  # no history, or another repository's (a tree copied into one)
        pytest.skip("not a git checkout (an sdist or a copied tree): commit messages not "
                    "checked")
    added = git("log", "--diff-filter=A", "--format=%H", "--", THIS).split()
    if not added:
        if git("rev-parse", "--is-shallow-repository").strip() == "true":
            return git("rev-list", "--no-merges", "HEAD").split()
        pytest.skip(f"{THIS} is not committed yet: nothing is under the rule")
    start = added[-1]  # the first commit that added it
    later = git("rev-list", "--no-merges", "--ancestry-path", f"{start}..HEAD").split()
    return later + [start]


def problems(commit: str, repo: Path = ROOT) -> list[str]:
    """What is wrong with one commit's message ([] when nothing)."""
    message = git("log", "-1", "--format=%B", commit, repo=repo)
    subject = git("log", "-1", "--format=%s", commit, repo=repo).strip()
    paragraphs = message.strip().split("\n\n")
    body = [line for p in paragraphs[1:] for line in p.splitlines()
            if line.strip() and not line.strip().lower().startswith(TRAILERS)]
    out = []
    if len(subject) > SUBJECT_MAX:
        out.append(f"its subject has {len(subject)} characters (at most {SUBJECT_MAX}; "
                   "end the first line and leave a blank line before the body)")
    if not body:
        out.append("it has no body saying why (a blank line after the subject, then why)")
    return out


def test_commit_subjects_are_short_and_bodies_say_why() -> None:
    bad = []
    for commit in commits_to_check():
        if commit in EXEMPT:
            continue
        for problem in problems(commit):
            subject = git("log", "-1", "--format=%s", commit).strip()
            bad.append(f"{commit[:10]} {subject[:50]!r}: {problem}")
    assert not bad, ("commit messages that break the rule (reword with git commit --amend "
                     "before the commit is merged):\n" + "\n".join(bad))


def test_the_rule_sees_a_long_subject_and_a_missing_body(tmp_path: Path) -> None:
    """The checker itself, on commits of a scratch repository."""
    def run(*args: str) -> str:
        return subprocess.run(["git", "-C", str(tmp_path), *args], capture_output=True,
                              text=True, check=True).stdout

    run("init", "-q")
    run("config", "user.email", "t@example.org")
    run("config", "user.name", "t")
    messages = ["short subject\n\nWhy: the body.", "x" * 73 + "\n\nwhy", "no body at all",
                "a" * 40 + "\n" + "b" * 40 + "\n\nwhy", "subject\n\nSigned-off-by: t"]
    for message in messages:
        run("commit", "-q", "--allow-empty", "-m", message)
    hashes = run("rev-list", "--reverse", "HEAD").split()
    found = [problems(h, repo=tmp_path) for h in hashes]
    assert found[0] == []
    assert "73 characters" in found[1][0] and len(found[1]) == 1
    assert found[2] == ["it has no body saying why (a blank line after the subject, then why)"]
    assert "81 characters" in found[3][0]  # no blank line: git reads both lines as one subject
    assert found[4] == ["it has no body saying why (a blank line after the subject, then why)"]
