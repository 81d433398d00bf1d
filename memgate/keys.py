"""The per-deployment secret of memgate's keyed digests (HMAC-SHA256).

The journal keeps, for every turn, a digest of its raw content so that a
replay can be told from a different turn reusing the same turn id. An
unkeyed hash would let anyone holding the journal confirm guesses of what a
masked span held (a password from a word list, a phone number from 10^6
candidates), so the digest is keyed: :func:`memgate.core.events.content_hmac`.
The same key names fact ids and deletion tombstones.

The key is, first found wins:

1. the ``hmac_key`` setting (``MEMGATE_HMAC_KEY``, at least 32 characters);
2. the file ``hmac_key_file`` (``MEMGATE_HMAC_KEY_FILE``): 32 bytes, mode 0600,
   created when missing (unless the data dir already holds digests);
3. a file made once per data dir outside it,
   ``${XDG_CONFIG_HOME:-~/.config}/memgate/keys/<id>.key`` (folders 0700, file
   0600), where ``<id>`` is a random id kept in ``<data_dir>/data_dir.id``: the
   data dir moved or renamed still finds its key; the id reveals nothing (a copy
   of the data dir on the same machine shares the key file of the original).
   Beside it, ``<id>.path`` records where the data dir was opened from (no secret),
   so that ``memgate hmac-keys`` can tell a key file whose data dir is gone
   (:mod:`memgate.key_folder`).

A key file is never inside the data dir (refused): a copy of the data dir (a
backup, an export) holds the digests, and with the key beside them it would
confirm a guess of every masked value in a few hundred tries. Back the key file
up apart from the data dir; a data dir restored or copied without its key is
refused (it holds digests made with it) with where the key is expected, rather
than given a new key under which every replay looks like a turn-id conflict.
A data dir from before this kept its key in ``<data_dir>/hmac.key``: it is
moved out on first use (written whole, read back, then the old file removed;
a crash in between loses nothing) and a warning says where it went.

With a ClickHouse server (``audit_backend=clickhouse``) the audit store is
shared by processes that must digest alike: the key must be the setting, or a
key file named by ``hmac_key_file``, the same everywhere; a per-data-dir file
is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import re
import secrets
import sqlite3
import stat
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from pydantic import SecretStr

from memgate.core.errors import ConfigError
from memgate.core.settings import Settings, default_key_dir, prepare_data_dir

__all__ = [
    "DATA_DIRS_SUFFIX",
    "DATA_DIR_ID_FILE",
    "HMAC_CHECK_FILE",
    "HMAC_KEY_BYTES",
    "LEGACY_KEY_FILE",
    "hmac_key",
    "key_file",
    "keyed_in_memory",
    "load_or_create_key",
    "read_data_dirs",
]

#: Where a data dir from before kept its key (moved out on first use).
LEGACY_KEY_FILE = "hmac.key"
#: The data dir's random id, which names its key file in :func:`default_key_dir`.
DATA_DIR_ID_FILE = "data_dir.id"
HMAC_KEY_BYTES = 32
#: Beside each key file made for a data dir, ``<id>.path``: the data dirs it was opened
#: from, one absolute path a line (no secret), read by :mod:`memgate.key_folder`.
DATA_DIRS_SUFFIX = ".path"
_MAX_DATA_DIRS = 16
#: The check value of the key a data dir's stores were written with (no key in it).
HMAC_CHECK_FILE = "hmac.check"
_CHECK_VERSION = "memgate-hmac-check-1"
_ID = re.compile(r"[0-9a-f]{32}")
_ELSEWHERE = (
    "set MEMGATE_HMAC_KEY_FILE to a key file outside the data dir (or MEMGATE_HMAC_KEY "
    "to a secret of at least 32 characters)"
)
log = logging.getLogger("memgate.keys")
_WARNED: set[Path] = set()


def hmac_key(settings: Settings) -> bytes:
    """The deployment's key: the ``hmac_key`` setting, else the key file
    (:func:`key_file`); refused when the stores under the data dir were written with
    another key (:func:`_check_data_dir`)."""
    if settings.hmac_key is not None:
        key = settings.hmac_key.get_secret_value().encode("utf-8")
        _check_data_dir(settings, key, "the setting MEMGATE_HMAC_KEY (hmac_key)", "setting")
        _warn_if_unused_key_inside(settings.data_dir / LEGACY_KEY_FILE)
        return key
    path, key = _file_key(settings)
    _check_data_dir(settings, key, f"the key file {path}", "file")
    return key


def keyed_in_memory(settings: Settings, data_dir: Path) -> Settings:
    """``settings`` for a throwaway data dir (an evaluation's, a benchmark's), ``data_dir``:
    keyed by the ``hmac_key`` setting when it is set, else by a random key held only in
    memory. A key file made for a data dir deleted after the run would be left behind in
    the key folder, one more each run, keying nothing. ``data_dir`` is where the stores
    written under that key are, and where its check (``hmac.check``) goes: never a data
    dir that outlives the run, which the next run would open under another key (refused).
    """
    key = settings.hmac_key or SecretStr(secrets.token_hex(HMAC_KEY_BYTES))
    return settings.model_copy(update={"data_dir": data_dir, "hmac_key": key})


def _warn_if_unused_key_inside(legacy: Path) -> None:
    """A data dir from before, now opened with the setting: its key file is not used (and
    not moved), but a copy of the data dir holds it. Said once per process."""
    if legacy in _WARNED or not os.path.lexists(legacy):
        return
    _WARNED.add(legacy)
    log.warning(
        "hmac key file inside the data dir, not used (MEMGATE_HMAC_KEY is set): path=%s; "
        "every copy of the data dir holds it: if it keyed this data dir's earlier digests, "
        "move it out of the data dir and keep it apart, else delete it",
        legacy,
    )


def key_file(settings: Settings, *, create: bool = True) -> Path | None:
    """The key file's path: ``hmac_key_file``, else ``<key dir>/<data dir id>.key``.

    The id is made in the data dir when missing (``create``); None when it is missing
    and ``create`` is false (``memgate config`` shows where the key will be)."""
    if settings.hmac_key_file is not None:
        return settings.hmac_key_file
    ident = _data_dir_id(settings.data_dir, create=create)
    return None if ident is None else _key_dir() / f"{ident}.key"


def _key_dir() -> Path:
    try:
        return default_key_dir()
    except RuntimeError:  # no HOME and no XDG_CONFIG_HOME
        raise ConfigError(f"no home folder to keep the HMAC key file in: {_ELSEWHERE}") from None


def _data_dir_id(folder: Path, *, create: bool) -> str | None:
    path = folder / DATA_DIR_ID_FILE

    def new_id() -> bytes:
        prepare_data_dir(folder)
        return f"{secrets.token_hex(16)}\n".encode("ascii")

    fix = "make the data dir writable, or set MEMGATE_HMAC_KEY_FILE (no id is needed then)"
    text = _read_or_create(path, new_id if create else None, "create", fix)
    if text is None:
        return None
    ident = text.strip()
    if not _ID.fullmatch(ident):
        raise ConfigError(
            f"{path} is damaged (it names this data dir's HMAC key file in {_key_dir()}): "
            "restore it from the backup of this data dir, or set MEMGATE_HMAC_KEY_FILE to "
            "the key file"
        )
    return ident


def _file_key(settings: Settings) -> tuple[Path, bytes]:
    if settings.audit_backend == "clickhouse" and settings.hmac_key_file is None:
        raise ConfigError(
            "the audit store is a ClickHouse server, shared by every worker: set "
            "MEMGATE_HMAC_KEY to one secret of at least 32 characters for all of them "
            "(e.g. openssl rand -hex 32), or MEMGATE_HMAC_KEY_FILE to one key file they "
            "all read, and keep it"
        )
    path = key_file(settings)
    assert path is not None  # made when missing
    _refuse_inside_data_dir(path, settings.data_dir)
    default = settings.hmac_key_file is None
    legacy = settings.data_dir / LEGACY_KEY_FILE
    if os.path.lexists(legacy):
        _move_out(legacy, path, default)
    if not path.exists():
        _refuse_if_key_was_used(settings, path)
        if default:
            _private_folders(path.parent)
    key = load_or_create_key(path, follow=not default)
    if default:
        _record_data_dir(path, settings.data_dir)
    return path, key


def _record_data_dir(key: Path, folder: Path) -> None:
    """Note ``folder`` in ``<id>.path`` beside ``key`` when it is not there yet (a new data
    dir, or one moved, copied or from before the record): ``memgate hmac-keys`` tells by it
    whether a data dir the key file was made for is still there. Written whole (a
    temporary file renamed), the last :data:`_MAX_DATA_DIRS` places kept. Best effort: a
    record that cannot be written leaves the key file listed as unknown, never pruned."""
    try:
        where = os.fsencode(folder.resolve())
    except (OSError, RuntimeError):
        return
    record = key.with_name(key.stem + DATA_DIRS_SUFFIX)
    try:
        known = read_data_dirs(record)
    except FileNotFoundError:
        known = []
    except OSError:
        return
    if b"\n" in where or where in known:
        return
    data = b"".join(p + b"\n" for p in [*known, where][-_MAX_DATA_DIRS:])
    tmp = record.with_name(f".{record.name}.{os.getpid()}.{secrets.token_hex(8)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, record)
    except OSError as exc:
        log.debug("data dir not recorded beside its key file: path=%s error=%s", record, exc)
        with contextlib.suppress(OSError):
            tmp.unlink()


def read_data_dirs(record: Path) -> list[bytes]:
    """The data dirs recorded in ``<id>.path`` (file system bytes, one a line)."""
    fd = os.open(record, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        data = os.read(fd, 64 * 1024)
    finally:
        os.close(fd)
    return [line for line in data.split(b"\n") if line]


def _refuse_inside_data_dir(path: Path, folder: Path) -> None:
    try:
        inside = path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        inside = path.absolute().is_relative_to(folder.absolute())
    if inside:
        raise ConfigError(
            f"the HMAC key file {path} would be inside the data dir {folder}: a copy of the "
            "data dir (a backup, an export) would then confirm guesses of every masked "
            f"value; {_ELSEWHERE}"
        )


def _private_folders(keys: Path) -> None:
    """``.../memgate/keys`` and ``.../memgate``, created 0700 when missing."""
    for folder in (keys.parent, keys):
        if folder.is_dir():
            continue
        try:
            folder.mkdir(mode=0o700, parents=True)
            folder.chmod(0o700)  # mkdir's mode is filtered by the umask
        except FileExistsError:
            pass  # another process made it first
        except OSError as exc:
            raise ConfigError(
                f"cannot create {folder} for the HMAC key file: {exc.strerror or exc}; "
                f"make it writable, or {_ELSEWHERE}"
            ) from None


def _move_out(legacy: Path, path: Path, default: bool) -> None:
    """Move the key of a data dir from before out of it, to ``path``, losing nothing.

    The new file is written whole (:func:`_write_once`: synced, then linked) and read
    back before the old one is removed: a crash before the removal leaves both, equal,
    and the next run finishes the move; one before the link leaves the old file alone.
    """
    try:
        key = _read(legacy)
    except FileNotFoundError:
        return  # another process moved it meanwhile
    fix = (
        f"make {path.parent} writable, or move {legacy} out of the data dir yourself "
        "(mode 0600) and set MEMGATE_HMAC_KEY_FILE to it"
    )
    if not os.path.lexists(path):
        try:
            if default:
                _private_folders(path.parent)
            else:
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except (ConfigError, OSError):
            msg = f"cannot create {path.parent} to move the key to: {fix}"
            raise ConfigError(msg) from None
        _write_once(path, key, "move the HMAC key of the data dir to", fix)
    try:
        moved = _read(path, follow=not default)
    except FileNotFoundError:
        raise ConfigError(f"cannot move the HMAC key to {path}: it vanished; {fix}") from None
    if not hmac.compare_digest(moved, key):
        raise ConfigError(
            f"{legacy} (the key this data dir was written with) and {path} hold different "
            f"HMAC keys: move {path} away, or set MEMGATE_HMAC_KEY_FILE to another path, and "
            "run again (the data dir's key is then moved there)"
        )
    try:
        legacy.unlink()
    except FileNotFoundError:
        return  # another process finished the move
    except OSError as exc:
        raise ConfigError(
            f"cannot remove {legacy} (its key is now also in {path}): "
            f"{exc.strerror or exc}; make the data dir writable"
        ) from None
    _fsync_dir(legacy.parent)
    log.warning(
        "hmac key moved out of the data dir: from=%s to=%s; copies and backups of the data "
        "dir made before still hold the key (delete them, or keep them as safe as the key); "
        "back the key file up apart from the data dir",
        legacy,
        path,
    )


def _check_data_dir(settings: Settings, key: bytes, source: str, word: str) -> None:
    """Refuse a key other than the one the data dir's stores were written with.

    Every keyed digest under the data dir (the journal's and the turn ledger's, fact
    ids, the names of deletion tombstones) depends on the key: under another one the
    same input replayed is refused turn by turn as a ``turn_id`` conflict and a
    statement of an erased fact no longer finds its tombstone. So the data dir keeps
    ``hmac.check``: the source of its key and a keyed digest of a constant (no key; an
    HMAC reveals nothing of its key; ``word``, ``setting`` or ``file``, names the
    source). Written the first time a key is used on a data dir (one from before the
    check takes the key it is first opened with); a data dir that holds only a
    ClickHouse server's and OpenSearch's settings has nothing keyed to check.
    """
    if settings.retrieval_backend != "embedded" and settings.audit_backend != "chdb":
        return
    folder = settings.data_dir
    prepare_data_dir(folder)  # the stores are made there with this key: record it now
    path = folder / HMAC_CHECK_FILE
    digest = hmac.new(key, _CHECK_VERSION.encode("ascii"), hashlib.sha256).hexdigest()
    line = f"{_CHECK_VERSION} {digest} {word}\n"
    recorded = _read_or_create(path, lambda: line.encode("ascii"))
    assert recorded is not None  # made when missing
    parts = recorded.split()
    if len(parts) != 3 or parts[0] != _CHECK_VERSION or len(parts[1]) != 64:
        raise ConfigError(
            f"{path} is damaged (it holds the check of the HMAC key this data dir was written "
            "with); restore it from the backup of this data dir"
        )
    if not hmac.compare_digest(parts[1], digest):
        was = {
            "setting": "the setting MEMGATE_HMAC_KEY (hmac_key)",
            "file": "a key file (MEMGATE_HMAC_KEY_FILE, or the one made for this data dir)",
        }
        raise ConfigError(
            f"{source} is not the key the stores in {folder} were written with (that was "
            f"{was.get(parts[2], parts[2])}): under another key every replayed turn would be "
            "refused as a turn_id conflict and erased facts could come back. Use the key "
            "used before (MEMGATE_HMAC_KEY or MEMGATE_HMAC_KEY_FILE as then; unset both "
            "for the data dir's own key file), or point --data-dir at another folder"
        )


def _read_or_create(
    path: Path,
    make: Callable[[], bytes] | None,
    what: str = "",
    fix: str = "make the data dir writable",
) -> str | None:
    """The text of ``path``, a small ASCII file of the data dir (``data_dir.id``,
    ``hmac.check``). When it is missing, the bytes ``make()`` returns are written once
    (:func:`_write_once`, whose ``what`` and ``fix`` word the error) and the file read
    back: another process's, if it linked first. None when it is missing and ``make``
    is None. A file that cannot be read, or a link to nothing (which can neither be read
    nor replaced), is a :class:`ConfigError` naming it."""
    try:
        return path.read_text(encoding="ascii")
    except FileNotFoundError:
        if make is None:
            return None
    except (OSError, UnicodeDecodeError) as exc:
        raise _unreadable(path, exc) from None
    _write_once(path, make(), what, fix)
    try:
        return path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise _unreadable(path, exc) from None


def _unreadable(path: Path, exc: OSError | UnicodeDecodeError) -> ConfigError:
    if isinstance(exc, FileNotFoundError) and path.is_symlink():
        return ConfigError(
            f"{path} is a link to nothing{_link_target(path)}: restore the file it points "
            "to from the backup of this data dir, or put that file in place of the link"
        )
    return ConfigError(
        f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}; it must be a file "
        "readable by this user"
    )


def _link_target(path: Path) -> str:
    """`` (to TARGET)`` of a symbolic link, for an error line ("" when it cannot be read)."""
    try:
        return f" (to {os.readlink(path)})"
    except OSError:
        return ""


def _write_once(
    path: Path, data: bytes, what: str = "", fix: str = "make the data dir writable"
) -> None:
    """Write ``path`` whole, mode 0600, unless it exists (the first writer wins): a private
    temporary file in the same folder, hard-linked to ``path``, so the name appears with
    its whole content or not at all. ``what`` and ``fix`` word the error."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(8)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process recorded it first: checked against theirs
        finally:
            tmp.unlink(missing_ok=True)
        _fsync_dir(path.parent)
    except OSError as exc:
        raise ConfigError(
            f"cannot {what or 'write'} {path}: {exc.strerror or exc}; {fix}"
        ) from None


def _refuse_if_key_was_used(settings: Settings, key: Path) -> None:
    """A missing key file for a data dir that holds digests is a lost key, not a new one.

    The data dir was copied or restored without its key (another machine, a backup of
    the data dir alone), or the key file was removed: a new key would make every replay
    of an earlier turn look like other content under the same turn id (refused as
    ``turn_id_conflict``) and erased facts' tombstones unfindable, silently. Evidence of
    a key: ``hmac.check`` (written by the first use of any key), or turns in the
    embedded index's ledger (a data dir from before the check).
    """
    folder = settings.data_dir
    held = None
    if (folder / HMAC_CHECK_FILE).exists():
        held = f"{folder} was written with a key ({HMAC_CHECK_FILE})"
    elif settings.retrieval_backend == "embedded":
        turns = _ingested_turns(settings.retrieval_path)
        if turns:
            held = f"{settings.retrieval_path} holds {turns:,} turns digested with a key"
    if held is None:
        return
    raise ConfigError(
        f"the HMAC key file {key} is missing, but {held}: restore the key file of this data "
        "dir there (from the machine or the backup it came from), or set MEMGATE_HMAC_KEY_FILE "
        "to it (or MEMGATE_HMAC_KEY to the key used before); without it every replay would "
        "be refused as a turn_id conflict. To start over, move the data dir away"
    )


def _ingested_turns(index: Path) -> int:
    if not index.exists():
        return 0
    try:
        with closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as conn:
            row = conn.execute("SELECT count(*) FROM turns").fetchone()
    except sqlite3.Error:
        return 0  # no ledger yet (an index from before it, or not an index): nothing digested
    return int(row[0]) if row else 0


def load_or_create_key(path: Path, *, follow: bool = False) -> bytes:
    """Read the key file, creating it (random, mode 0600, atomically) if it is missing.

    The new key is written to a private temporary file in the same folder and
    hard-linked to ``path``: the name appears with its whole content or not at
    all, and when two processes race, both end up with the one that linked first.
    ``follow``: ``path`` may be a symbolic link (a key file named by the operator,
    e.g. a mounted secret); the file made for a data dir never is.
    """
    try:
        return _read(path, follow=follow)
    except FileNotFoundError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        pass  # named by the write below
    _write_once(
        path,
        secrets.token_bytes(HMAC_KEY_BYTES),  # another process's key, if it linked first
        what="create the HMAC key file",
        fix=f"make {path.parent} writable, or {_ELSEWHERE}",
    )
    try:
        return _read(path, follow=follow)
    except FileNotFoundError:  # a link to nothing: the new key was not linked in its place
        raise ConfigError(
            f"the HMAC key file {path} is a link to nothing{_link_target(path)}: put the key "
            f"file where it points (mount the secret), or {_ELSEWHERE}"
        ) from None


def _read(path: Path, *, follow: bool = False) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | (0 if follow else os.O_NOFOLLOW))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ConfigError(
            f"cannot read the HMAC key file {path}: {exc.strerror or exc}; it must be a "
            "regular file readable by this user"
        ) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(f"the HMAC key file {path} is not a regular file; remove it")
        if st.st_mode & 0o077:
            raise ConfigError(
                f"the HMAC key file {path} is accessible to other users (mode "
                f"{stat.S_IMODE(st.st_mode):04o}); run: chmod 600 {path}"
            )
        data = os.read(fd, HMAC_KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) != HMAC_KEY_BYTES:
        raise ConfigError(
            f"the HMAC key file {path} holds {len(data)} bytes, not a {HMAC_KEY_BYTES}-byte key; "
            "restore it from its backup (a new key makes replays of earlier turns look like "
            f"turn-id conflicts); a new key file: head -c {HMAC_KEY_BYTES} /dev/urandom > FILE"
        )
    return data


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system can fsync a directory
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
