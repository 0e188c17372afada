"""Every repository path the docs, the README, the user guide and planner_app's docstrings and
comments name exists (issue 23: nine were stale; modules move, and a moved module's old path
in a sentence is caught here, at merge, rather than by a reader).

What counts as a path, so that words are not flagged: a token that starts with one of the
repository's folders (its top level, planner_app's packages, the core's packages, e.g.
``docs/``, ``core/release/``, ``kinds/``) and ends with a file suffix or ``/``, or a relative
link target in Markdown (``[text](synthetic.md)``). A path relative to planner_app or to its
core (``core/dp/gaussian.py``, ``records/headroom.py``) is looked up there too. Patterns
(``docs/images/unit-{1x,2x}-*.png``) must match at least one file; placeholders in capitals
(``synthetic/ID.csv``) are not paths. docs/CHANGELOG.md is history and names old paths on
purpose: it is not checked.
"""

from __future__ import annotations

import glob
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "planner_app"
CORE = PACKAGE / "core"
#: where a relative path may start: the repository, the package, the core
BASES = (ROOT, PACKAGE, CORE)
#: named in planner_app before the file lands from another branch; remove at that merge
ELSEWHERE: set[str] = set()
#: files that do not exist in a checkout but are made by a command the text names
MADE = {
    "tests/_screenshots/",  # the GUI walks' screenshots (git-ignored)
    "bench/_work/",  # the benchmarks' scratch folder (git-ignored)
    "installers/dist/", "installers/build/",  # PyInstaller's output (git-ignored)
}
SUFFIXES = (".py", ".md", ".json", ".csv", ".txt", ".png", ".toml", ".spec", ".sh", ".zip",
            ".pdf", ".html", ".parquet", ".pub", ".yml", ".yaml", ".cfg", ".ini", ".svg")


def folders() -> set[str]:
    """The names a repository path may start with."""
    names = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith("__")}
    for base in (PACKAGE, CORE):
        names |= {p.name for p in base.iterdir() if p.is_dir() and p.name != "__pycache__"}
    return names - {".git", ".venv", "build", "dist"}


def path_pattern() -> re.Pattern[str]:
    starts = "|".join(sorted((re.escape(n) for n in folders()), key=len, reverse=True))
    return re.compile(rf"(?<![\w./\-~$])((?:{starts})/[\w./\-{{}},*]*)")


def top_level() -> set[str]:
    return {p.name for p in ROOT.iterdir() if p.is_dir()} | {"core", "gui", "cli"}


def looks_like_a_path(token: str) -> bool:
    """A file with a known suffix or a folder; below the top level only a module or a folder
    of the package (``data/pending/`` is a folder of the app home, not the core's data/)."""
    if token.split("/")[0] not in top_level():
        return token.endswith(".py")
    return token.endswith("/") or token.lower().endswith(SUFFIXES)


def is_placeholder(token: str) -> bool:
    """``synthetic/ID.csv``, ``data/NAME.json``: a part in capitals stands for a name."""
    return any(re.fullmatch(r"[A-Z][A-Z_]*(\.\w+)?", part) for part in token.split("/"))


def expand(token: str) -> list[str]:
    """Brace alternatives ({1x,2x}) spelled out; globs stay for glob()."""
    match = re.search(r"\{([^{}]*)\}", token)
    if not match:
        return [token]
    return [v for alt in match.group(1).split(",")
            for v in expand(token[:match.start()] + alt + token[match.end():])]


def exists(token: str, here: Path | None = None) -> bool:
    if token in ELSEWHERE or token in MADE or any(token.startswith(m) for m in MADE):
        return True
    bases = ((here,) if here is not None else ()) + BASES
    for variant in expand(token.rstrip(".,;:")):
        for base in bases:
            if any(c in variant for c in "*?[") and glob.glob(str(base / variant)):
                break
            if (base / variant).exists():
                break
        else:
            return False
    return True


def markdown_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "resources" / "user-guide.md"]
    files += sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "CHANGELOG.md")
    return files


LINK = re.compile(r"\]\(([^)\s]+)\)")


def named_paths(text: str, pattern: re.Pattern[str]) -> Iterator[tuple[int, str]]:
    """(line, token) of each path-looking token in a text."""
    for number, line in enumerate(text.splitlines(), 1):
        for match in pattern.finditer(line):
            token = match.group(1).rstrip(".,;:)")
            if looks_like_a_path(token) and not is_placeholder(token):
                yield number, token


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def stale_in_markdown(path: Path, pattern: re.Pattern[str]) -> list[str]:
    text = path.read_text(encoding="utf-8")
    found = [f"{shown(path)}:{n}: {t}" for n, t in named_paths(text, pattern)
             if not exists(t)]
    for number, line in enumerate(text.splitlines(), 1):
        for match in LINK.finditer(line):
            target = match.group(1).split("#")[0]
            if not target or re.match(r"[a-z]+:", target):  # an anchor, http:, mailto:
                continue
            if not exists(target, here=path.parent):
                found.append(f"{shown(path)}:{number}: ({target})")
    return found


def stale_in_python(path: Path, pattern: re.Pattern[str]) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [f"{shown(path)}:{n}: {t}" for n, t in named_paths(text, pattern)
            if not exists(t, here=path.parent)]


def test_every_path_the_docs_name_exists() -> None:
    pattern = path_pattern()
    stale = [s for f in markdown_files() for s in stale_in_markdown(f, pattern)]
    assert not stale, "paths named in the docs that do not exist:\n" + "\n".join(stale)


def test_every_path_planner_apps_docstrings_and_comments_name_exists() -> None:
    pattern = path_pattern()
    stale = [s for f in sorted(PACKAGE.rglob("*.py")) for s in stale_in_python(f, pattern)]
    assert not stale, "paths named in planner_app that do not exist:\n" + "\n".join(stale)


def test_the_check_sees_a_stale_path_and_lets_words_pass(tmp_path: Path) -> None:
    """The checker itself: a moved module's old path is flagged; words and placeholders not."""
    pattern = path_pattern()
    doc = tmp_path / "x.md"
    doc.write_text(
        "See `core/model/validation.py` and [the format](no-such-file.md).\n"
        "It lives in core/planfile/ and docs/bundle-format.md; and/or; 3/4 of the rows;\n"
        "the app home's data/pending/; `records/headroom.py`; `kinds/no_such_kind.py`\n"
        "synthetic/ID.csv; `docs/images/unit-{1x,2x}-*.png`; see [above](#the-rules).\n",
        encoding="utf-8")
    stale = stale_in_markdown(doc, pattern)
    assert stale == ["x.md:1: core/model/validation.py", "x.md:3: kinds/no_such_kind.py",
                     "x.md:1: (no-such-file.md)"]
