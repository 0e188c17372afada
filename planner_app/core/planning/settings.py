"""The app's settings: a Qt-free dataclass saved as JSON in the app's config folder."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from ..dp.confidence import DEFAULT_CONFIDENCE, MAX_CONFIDENCE, MIN_CONFIDENCE
from ..support.errors import InputError
from ..support.files import atomic_write_bytes
from ..support.private import private_folder

SCHEMA_VERSION = 1
MAX_RECENT = 10

@dataclass
class Settings:
    schema_version: int = SCHEMA_VERSION
    recent_files: list[str] = field(default_factory=list)
    window_geometry: str = ""  # base64 of QMainWindow.saveGeometry()
    window_state: str = ""  # base64 of QMainWindow.saveState()
    welcome_seen: bool = False
    confidence: float = DEFAULT_CONFIDENCE
    require_approval: bool = False  # a release needs an approval of this exact plan
    sign_with: str = ""  # the app home's key that signs the app's releases ("": unsigned)
    last_folder: str = ""  # where the last file was opened or saved: the next dialog's start

    def add_recent(self, path: str | Path) -> None:
        text = str(Path(path).resolve())
        self.recent_files = [text] + [p for p in self.recent_files if p != text]
        del self.recent_files[MAX_RECENT:]

def load_settings(path: Path) -> Settings:
    """Settings from ``path``; defaults when it is missing or unreadable (never an error)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Settings()
    if not isinstance(raw, dict) or raw.get("schema_version") != SCHEMA_VERSION:
        return Settings()
    known = {f.name for f in fields(Settings)}
    out = Settings()
    for key, value in raw.items():
        if key in known and isinstance(value, type(getattr(out, key))):
            setattr(out, key, value)
    out.recent_files = [p for p in out.recent_files if isinstance(p, str)][:MAX_RECENT]

    if not MIN_CONFIDENCE <= out.confidence <= MAX_CONFIDENCE:  # NaN fails this too
        out.confidence = Settings.confidence
    return out

def save_settings(settings: Settings, path: Path) -> None:
    """Raises OSError when the file cannot be written. A settings.json that is a link (a
    dotfiles folder) is written where it points; a pipe or device is never replaced."""
    private_folder(path.parent)
    try:
        atomic_write_bytes(path.resolve(), (json.dumps(asdict(settings), indent=2) + "\n"
                                            ).encode("utf-8"), private=True)
    except InputError as exc:
        raise OSError(str(exc)) from None
