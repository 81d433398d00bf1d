"""Tenant API keys for the HTTP service and the MCP server, stored hashed.

A key is ``mgk_<key id>_<secret>``: the key id (12 hex characters) names the
record, the secret (32 random bytes, URL-safe base64) is shown once by
``memgate keys create`` and never stored. The key file (``api_key_file``,
default ``<data_dir>/api_keys.json``, mode 0600) holds per key its id, tenant,
label, creation and revocation times, a random salt and the scrypt digest of
the secret (``hashlib.scrypt``, n=2^14, r=8, p=1): a copy of the file does not
let anyone use or recover a key.

Checking a key costs one scrypt (tens of milliseconds), so a process keeps the
keys it has verified in memory (a SHA-256 of the key, never the key) until the
file changes; a revocation written by ``memgate keys revoke`` is seen by a
running server on its next request, since every check looks at the file's
modification time first.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from memgate.core.errors import ConfigError, MemgateError
from memgate.core.events import id_problem

__all__ = ["KEY_PREFIX", "ApiKey", "KeyStore", "UnknownKey", "bearer_token"]

KEY_PREFIX = "mgk"
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32, "maxmem": 64 * 1024 * 1024}
_CACHE_MAX = 4096


class UnknownKey(MemgateError):
    """No key with that id in the key file."""


@dataclass(frozen=True)
class ApiKey:
    """One key's record as the key file holds it (no secret)."""

    key_id: str
    tenant: str
    label: str
    created_at: str
    salt: str
    digest: str
    revoked_at: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def public(self) -> dict[str, object]:
        """What ``memgate keys list`` shows: no salt, no digest."""
        return {
            "key_id": self.key_id,
            "tenant": self.tenant,
            "label": self.label,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
        }


def _scrypt(secret: str, salt: bytes) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, **_SCRYPT)  # type: ignore[arg-type]


def _split(token: str) -> tuple[str, str] | None:
    """``(key id, secret)`` of a well-formed key (the secret may hold ``_``), else None."""
    head, _, rest = token.partition("_")
    key_id, _, secret = rest.partition("_")
    if head != KEY_PREFIX or len(key_id) != 12 or not secret:
        return None
    if any(c not in "0123456789abcdef" for c in key_id):
        return None
    return key_id, secret


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class KeyStore:
    """The key file: create, list, revoke keys, and verify a presented key."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._keys: dict[str, ApiKey] = {}
        self._verified: dict[bytes, str] = {}  # sha256(key) -> key id, for this file version

    # -- the file -----------------------------------------------------------------

    def _read(self) -> dict[str, ApiKey]:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise ConfigError(f"cannot read the API key file {self.path}: {exc.strerror}") from None
        try:
            doc = json.loads(raw)
            return {k["key_id"]: ApiKey(**k) for k in doc["keys"]}
        except (ValueError, KeyError, TypeError):
            raise ConfigError(
                f"the API key file {self.path} is not a memgate key file; "
                "move it away and create the keys again (memgate keys create)"
            ) from None

    def _write(self, keys: dict[str, ApiKey]) -> None:
        doc = {"version": 1, "keys": [asdict(k) for k in keys.values()]}
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".api_keys.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=2)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, ApiKey]]:
        """The keys, under an exclusive lock of the file's folder (other CLIs wait)."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield self._read()
        finally:
            os.close(fd)

    def _refresh(self) -> None:
        """Reload the keys if the file changed (a key created or revoked elsewhere)."""
        try:
            st = self.path.stat()
            stamp: tuple[int, int, int] | None = (st.st_mtime_ns, st.st_size, st.st_ino)
        except FileNotFoundError:
            stamp = None
        if stamp != self._stamp or (stamp is None and self._keys):
            self._keys = self._read() if stamp is not None else {}
            self._verified.clear()
            self._stamp = stamp

    # -- operations ---------------------------------------------------------------

    def create(self, tenant: str, label: str = "") -> tuple[str, ApiKey]:
        """A new key for ``tenant``: the key itself (shown once) and its record."""
        problem = id_problem(tenant)
        if problem is not None:
            raise MemgateError(f"tenant {tenant!r} {problem}")
        if len(label) > 200 or any(ord(c) < 32 for c in label):
            raise MemgateError("the label must be at most 200 characters, without control ones")
        with self._locked() as keys:
            key_id = secrets.token_hex(6)
            while key_id in keys:
                key_id = secrets.token_hex(6)
            secret = secrets.token_urlsafe(32)
            salt = secrets.token_bytes(16)
            rec = ApiKey(
                key_id=key_id,
                tenant=tenant,
                label=label,
                created_at=datetime.now(UTC).isoformat(timespec="seconds"),
                salt=salt.hex(),
                digest=_scrypt(secret, salt).hex(),
            )
            keys[key_id] = rec
            self._write(keys)
        return f"{KEY_PREFIX}_{key_id}_{secret}", rec

    def list(self, tenant: str | None = None) -> list[ApiKey]:
        with self._lock:
            self._refresh()
            keys = list(self._keys.values())
        return [k for k in keys if tenant is None or k.tenant == tenant]

    def revoke(self, key_id: str) -> ApiKey:
        """Mark a key revoked (kept in the file, so that ``keys list`` shows it)."""
        with self._locked() as keys:
            rec = keys.get(key_id)
            if rec is None:
                raise UnknownKey(f"no key {key_id!r} in {self.path} (memgate keys list)")
            if rec.active:
                rec = replace(rec, revoked_at=datetime.now(UTC).isoformat(timespec="seconds"))
                keys[key_id] = rec
                self._write(keys)
        return rec

    def verify(self, token: str | None) -> ApiKey | None:
        """The active key record ``token`` is the key of, or None (unknown, revoked, malformed)."""
        if not token or len(token) > 200:
            return None
        parsed = _split(token)
        if parsed is None:
            return None
        key_id, secret = parsed
        fingerprint = hashlib.sha256(token.encode()).digest()
        with self._lock:
            self._refresh()
            rec = self._keys.get(key_id)
            if rec is None or not rec.active:
                return None
            if self._verified.get(fingerprint) == key_id:
                return rec
        if not hmac.compare_digest(_scrypt(secret, bytes.fromhex(rec.salt)).hex(), rec.digest):
            return None
        with self._lock:
            if len(self._verified) >= _CACHE_MAX:
                self._verified.clear()
            self._verified[fingerprint] = key_id
        return rec
