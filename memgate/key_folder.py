"""The key folder's files, each with the data dirs it was made for: ``memgate hmac-keys``.

A key file made for a data dir (:mod:`memgate.keys`) is named by a random id that only
the data dir holds (``data_dir.id``): the folder alone cannot tell whether the data dir
is still there. So beside each key file, ``<id>.path`` records every place the data dir
was opened from (no secret; written when memgate uses the key). A key file is:

- ``in use``: a recorded place holds a data dir with its id;
- ``gone``: every recorded place is missing, or holds a data dir with another id (the
  folder deleted, or made anew there): :func:`prune` removes it;
- ``cannot tell``: a recorded place could not be read, or is a folder without an id
  (a data dir whose id was lost still needs its key): kept;
- ``unknown``: no record (a key file from before the record, or a key folder that could
  not be written): kept, never removed.

A recorded place whose folder is missing as well (a drive that is not mounted, a tree
moved whole) counts as ``cannot tell``. A data dir moved within its folder and not
opened since is not found where its record says: it looks ``gone``. :func:`prune`
removes only what the caller confirms, and says what it would remove first.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memgate.core.errors import ConfigError
from memgate.core.settings import default_key_dir
from memgate.keys import DATA_DIR_ID_FILE, DATA_DIRS_SUFFIX, read_data_dirs

__all__ = [
    "CANNOT_TELL",
    "GONE",
    "IN_USE",
    "UNKNOWN",
    "KeyFile",
    "key_files",
    "key_folder",
    "prune",
]

IN_USE, GONE, CANNOT_TELL, UNKNOWN = "in use", "gone", "cannot tell", "unknown"
# a recorded place: what it holds
_HOLDS_IT, _MISSING, _OTHER, _NO_ID, _UNREADABLE, _NO_PARENT = (
    "holds it",
    "missing",
    "another data dir",
    "no data dir id",
    "unreadable",
    "its folder missing too",
)


@dataclass(frozen=True)
class KeyFile:
    """One key file of the folder, its record and what each recorded place holds."""

    ident: str
    path: Path
    record: Path | None
    data_dirs: tuple[tuple[str, str], ...]  # (place, what it holds)
    state: str

    def public(self) -> dict[str, object]:
        return {
            "id": self.ident,
            "key_file": str(self.path),
            "state": self.state,
            "data_dirs": [{"path": p, "holds": h} for p, h in self.data_dirs],
        }


def key_files(folder: Path | None = None) -> list[KeyFile]:
    """Every ``<id>.key`` of ``folder`` (default: the key folder), by id; none when the
    folder does not exist."""
    folder = folder if folder is not None else key_folder()
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ConfigError(
            f"cannot list the key folder {folder}: {exc.strerror or exc}; it must be a "
            "folder readable by this user"
        ) from None
    out = []
    for name in names:
        ident, dot, ext = name.partition(".")
        if dot and ext == "key" and len(ident) == 32 and not ident.strip("0123456789abcdef"):
            out.append(_inspect(folder, ident))
    return out


def prune(entries: list[KeyFile]) -> tuple[list[KeyFile], list[str]]:
    """Remove the key files (and their records) of ``entries`` that are still ``gone``
    when looked at again now: those removed, and one error line per file that could not
    be."""
    removed: list[KeyFile] = []
    errors: list[str] = []
    for entry in entries:
        now = _inspect(entry.path.parent, entry.ident)
        if now.state != GONE:
            continue
        try:
            now.path.unlink()
            if now.record is not None:
                now.record.unlink(missing_ok=True)
        except FileNotFoundError:
            continue  # removed meanwhile
        except OSError as exc:
            errors.append(f"cannot remove {now.path}: {exc.strerror or exc}")
            continue
        removed.append(now)
    return removed, errors


def key_folder() -> Path:
    """Where the key files made for data dirs are (:func:`default_key_dir`)."""
    try:
        return default_key_dir()
    except RuntimeError:  # no HOME and no XDG_CONFIG_HOME
        raise ConfigError(
            "no home folder, so no key folder: set XDG_CONFIG_HOME to the folder that holds "
            "memgate/keys"
        ) from None


def _inspect(folder: Path, ident: str) -> KeyFile:
    path = folder / f"{ident}.key"
    record = folder / f"{ident}{DATA_DIRS_SUFFIX}"
    try:
        places = [os.fsdecode(p) for p in read_data_dirs(record)]
    except FileNotFoundError:
        return KeyFile(ident, path, None, (), UNKNOWN)
    except OSError:
        return KeyFile(ident, path, record, (), CANNOT_TELL)
    if not places:
        return KeyFile(ident, path, record, (), UNKNOWN)
    seen = tuple((p, _holds(Path(p), ident)) for p in places)
    held = {h for _, h in seen}
    if _HOLDS_IT in held:
        state = IN_USE
    elif held <= {_MISSING, _OTHER}:
        state = GONE
    else:
        state = CANNOT_TELL
    return KeyFile(ident, path, record, seen, state)


def _holds(place: Path, ident: str) -> str:
    try:
        if not place.is_dir():
            if os.path.lexists(place):
                return _OTHER
            # the folder above is gone too: a drive not mounted now, or a tree moved
            # whole; the data dir may well be elsewhere, its key is kept
            return _MISSING if place.parent.is_dir() else _NO_PARENT
        text = (place / DATA_DIR_ID_FILE).read_text(encoding="ascii")
    except FileNotFoundError:
        return _NO_ID
    except (OSError, UnicodeDecodeError):
        return _UNREADABLE
    return _HOLDS_IT if text.strip() == ident else _OTHER
