"""The per-deployment secret of memgate's keyed digests (HMAC-SHA256).

The journal keeps, for every turn, a digest of its raw content so that a
replay can be told from a different turn reusing the same turn id. An
unkeyed hash would let anyone holding the journal confirm guesses of what a
masked span held (a password from a word list, a phone number from 10^6
candidates), so the digest is keyed: :func:`memgate.core.events.content_hmac`.

The key is the ``hmac_key`` setting (``MEMGATE_HMAC_KEY``, at least 32
characters) or, when that is not set, 32 random bytes created once in
``<data_dir>/hmac.key`` with mode 0600. Keep that file with the data dir
(back it up together): under another key, earlier turns replayed look like
turn-id conflicts. With a ClickHouse server (``audit_backend=clickhouse``)
the audit store is shared by processes that must digest alike, so the key
must be the setting, the same everywhere; a per-process file is refused.

The digest protects the journal from whoever can read it without the key:
analysts with SQL access, exports, backups of the audit store. Whoever holds
both (the whole embedded data dir) can still test guesses; keep the key where
the audit store's readers cannot reach it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

from memgate.core.errors import ConfigError
from memgate.core.settings import Settings, prepare_data_dir

__all__ = [
    "HMAC_CHECK_FILE",
    "HMAC_KEY_BYTES",
    "HMAC_KEY_FILE",
    "hmac_key",
    "load_or_create_key",
]

HMAC_KEY_FILE = "hmac.key"
HMAC_KEY_BYTES = 32
#: The check value of the key a data dir's stores were written with (no key in it).
HMAC_CHECK_FILE = "hmac.check"
_CHECK_VERSION = "memgate-hmac-check-1"


def hmac_key(settings: Settings) -> bytes:
    """The deployment's key: the ``hmac_key`` setting, else ``<data_dir>/hmac.key``;
    refused when the stores under the data dir were written with another key
    (:func:`_check_data_dir`)."""
    if settings.hmac_key is not None:
        key = settings.hmac_key.get_secret_value().encode("utf-8")
        _check_data_dir(settings, key, "the setting MEMGATE_HMAC_KEY (hmac_key)")
        return key
    key = _file_key(settings)
    _check_data_dir(settings, key, f"the key file {settings.data_dir / HMAC_KEY_FILE}")
    return key


def _file_key(settings: Settings) -> bytes:
    if settings.audit_backend == "clickhouse":
        raise ConfigError(
            "the audit store is a ClickHouse server, shared by every worker: set "
            "MEMGATE_HMAC_KEY to one secret of at least 32 characters for all of them "
            "(e.g. openssl rand -hex 32) and keep it"
        )
    path = settings.data_dir / HMAC_KEY_FILE
    if settings.retrieval_backend == "embedded" and not path.exists():
        _refuse_if_turns_were_ingested(path, settings.retrieval_path)
    return load_or_create_key(path)


def _check_data_dir(settings: Settings, key: bytes, source: str) -> None:
    """Refuse a key other than the one the data dir's stores were written with.

    Every keyed digest under the data dir (the journal's and the turn ledger's, fact
    ids, the names of deletion tombstones) depends on the key: under another one the
    same input replayed is refused turn by turn as a ``turn_id`` conflict and a
    statement of an erased fact no longer finds its tombstone. So the data dir keeps
    ``hmac.check``: the source of its key and a keyed digest of a constant (no key; an
    HMAC reveals nothing of its key). Written the first time a key is used on an
    data dir (one from before the check takes the key it is first opened with); a
    data dir that holds only a ClickHouse server's and OpenSearch's
    settings has nothing keyed to check.
    """
    if settings.retrieval_backend != "embedded" and settings.audit_backend != "chdb":
        return
    folder = settings.data_dir
    prepare_data_dir(folder)  # the stores are made there with this key: record it now
    path = folder / HMAC_CHECK_FILE
    digest = hmac.new(key, _CHECK_VERSION.encode("ascii"), hashlib.sha256).hexdigest()
    line = f"{_CHECK_VERSION} {digest} {_source_word(source)}\n"
    try:
        recorded = path.read_text(encoding="ascii")
    except FileNotFoundError:
        _write_once(path, line.encode("ascii"))
        recorded = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}; it must be a file "
            "readable by this user"
        ) from None
    parts = recorded.split()
    if len(parts) != 3 or parts[0] != _CHECK_VERSION or len(parts[1]) != 64:
        raise ConfigError(
            f"{path} is damaged (it holds the check of the HMAC key this data dir was written "
            "with); restore it from the backup of this data dir"
        )
    if not hmac.compare_digest(parts[1], digest):
        was = {"setting": "MEMGATE_HMAC_KEY (hmac_key)", "file": f"{folder / HMAC_KEY_FILE}"}
        raise ConfigError(
            f"{source} is not the key the stores in {folder} were written with (that was "
            f"{was.get(parts[2], parts[2])}): under another key every replayed turn would be "
            "refused as a turn_id conflict and erased facts could come back. Use the key "
            "used before (set MEMGATE_HMAC_KEY to it, or unset it to use the key file), or "
            "point --data-dir at another folder"
        )


def _source_word(source: str) -> str:
    return "setting" if "MEMGATE_HMAC_KEY" in source else "file"


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


def _refuse_if_turns_were_ingested(key: Path, index: Path) -> None:
    """A missing key beside turns digested with it is a lost key, not a new data dir.

    A new key would make every replay of an earlier turn look like other content
    under the same turn id (refused as ``turn_id_conflict``), silently.
    """
    if not index.exists():
        return
    try:
        with closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as conn:
            row = conn.execute("SELECT count(*) FROM turns").fetchone()
    except sqlite3.Error:
        return  # no ledger yet (an index from before it, or not an index): nothing digested
    if row and row[0]:
        raise ConfigError(
            f"{key} is missing, but {index} holds {row[0]:,} turns digested with it: restore "
            "the key file from a backup, or set MEMGATE_HMAC_KEY to the key used before "
            "(without it every replay would be refused as a turn_id conflict); to start "
            "over, move the data dir away"
        )


def load_or_create_key(path: Path) -> bytes:
    """Read the key file, creating it (random, mode 0600, atomically) if it is missing.

    The new key is written to a private temporary file in the same folder and
    hard-linked to ``path``: the name appears with its whole content or not at
    all, and when two processes race, both end up with the one that linked first.
    """
    try:
        return _read(path)
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
        fix="make the data dir writable, or set MEMGATE_HMAC_KEY",
    )
    return _read(path)


def _read(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
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
            "restore it from the backup of this data dir (a new key makes replays of earlier "
            "turns look like turn-id conflicts)"
        )
    return data


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system can fsync a directory
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
