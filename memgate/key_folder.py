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
  not be written): kept, never removed;
- ``record only``: a record whose key file is gone already (removed by hand): it holds no
  secret and keys nothing, so :func:`prune` removes it.

A record line that is not an absolute path (a damaged record) names no place: it is
shown as such, and makes the key ``cannot tell`` unless another place holds its data dir.

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
    "RECORD_ONLY",
    "UNKNOWN",
    "KeyFile",
    "key_files",
    "key_folder",
    "prune",
]

IN_USE, GONE, CANNOT_TELL, UNKNOWN = "in use", "gone", "cannot tell", "unknown"
RECORD_ONLY = "record only"
#: A recorded place longer than this is no path of this system (PATH_MAX).
_MAX_PLACE = 4096
# a recorded place: what it holds
_HOLDS_IT, _MISSING, _OTHER, _NO_ID, _UNREADABLE, _NO_PARENT, _NOT_A_PATH = (
    "holds it",
    "missing",
    "another data dir",
    "no data dir id",
    "unreadable",
    "its folder missing too",
    "not a path: the record is damaged",
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
    """Every ``<id>.key`` of ``folder`` (default: the key folder), and every ``<id>.path``
    whose key file is gone (``record only``), by id; none when the folder does not exist."""
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
    keys, records = set(), set()
    for name in names:
        ident, dot, ext = name.partition(".")
        if not dot or len(ident) != 32 or ident.strip("0123456789abcdef"):
            continue
        if ext == "key":
            keys.add(ident)
        elif "." + ext == DATA_DIRS_SUFFIX:
            records.add(ident)
    out = [_inspect(folder, ident) for ident in sorted(keys)]
    out += [_record_only(folder, ident) for ident in sorted(records - keys)]
    return sorted(out, key=lambda e: e.ident)


def prune(entries: list[KeyFile]) -> tuple[list[KeyFile], list[str]]:
    """Remove the key files (and their records) of ``entries`` that are still ``gone``
    when looked at again now, and the records still ``record only``: those removed, and
    one error line per file that could not be."""
    removed: list[KeyFile] = []
    errors: list[str] = []
    for entry in entries:
        folder = entry.path.parent
        if entry.state == RECORD_ONLY:
            now = _record_only(folder, entry.ident)
            if now.path.exists() or now.record is None:
                continue  # a key file came back meanwhile: look again next time
            try:
                now.record.unlink()
            except FileNotFoundError:
                continue
            except OSError as exc:
                errors.append(f"cannot remove {now.record}: {exc.strerror or exc}")
                continue
            removed.append(now)
            continue
        now = _inspect(folder, entry.ident)
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


def _record_only(folder: Path, ident: str) -> KeyFile:
    record = folder / f"{ident}{DATA_DIRS_SUFFIX}"
    try:
        places, damaged = _places(record)
    except OSError:
        places, damaged = [], 0
    seen = tuple((p, "not looked at: its key file is gone") for p in places)
    seen += _damaged(damaged)
    return KeyFile(ident, folder / f"{ident}.key", record, seen, RECORD_ONLY)


def _places(record: Path) -> tuple[list[str], int]:
    """The absolute paths a record names, and how many of its lines are no path."""
    places, damaged = [], 0
    for line in read_data_dirs(record):
        if line.startswith(b"/") and b"\0" not in line and len(line) <= _MAX_PLACE:
            places.append(os.fsdecode(line))
        else:
            damaged += 1
    return places, damaged


def _damaged(n: int) -> tuple[tuple[str, str], ...]:
    if not n:
        return ()
    return ((f"{n} line{'s' if n > 1 else ''} of the record", _NOT_A_PATH),)


def _inspect(folder: Path, ident: str) -> KeyFile:
    path = folder / f"{ident}.key"
    record = folder / f"{ident}{DATA_DIRS_SUFFIX}"
    try:
        places, damaged = _places(record)
    except FileNotFoundError:
        return KeyFile(ident, path, None, (), UNKNOWN)
    except OSError:
        return KeyFile(ident, path, record, (), CANNOT_TELL)
    if not places and not damaged:
        return KeyFile(ident, path, record, (), UNKNOWN)
    seen = tuple((p, _holds(Path(p), ident)) for p in places) + _damaged(damaged)
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
