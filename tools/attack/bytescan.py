"""Byte scan of every file under a memgate data dir for needles (attack13).

A command-line face on :func:`memgate.evaluation.bytescan.scan` (raw bytes, SQLite
main/WAL/journal files, ClickHouse parts decompressed block by block). Needles are
text (its UTF-8 bytes) or ``hex:<hex>`` (raw bytes); ``hmac:<text>`` is the keyed
digest of ``text`` under the data dir's key (``hmac.key`` in a data dir from before the key
was kept apart, else the key memgate's settings name for it: MEMGATE_HMAC_KEY,
MEMGATE_HMAC_KEY_FILE or the data dir's own key file; what whoever holds the data dir and
its key can compute to confirm a guess).

Usage: python tools/attack/bytescan.py DATA_DIR NEEDLE [NEEDLE ...]
Exit 1 when any needle is found, 0 otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

from memgate.core.events import content_hmac
from memgate.core.settings import load_settings
from memgate.evaluation.bytescan import scan
from memgate.keys import LEGACY_KEY_FILE, key_file


def _key(root: Path) -> bytes:
    s = load_settings(data_dir=root)
    if s.hmac_key is not None:
        return s.hmac_key.get_secret_value().encode("utf-8")
    legacy = root / LEGACY_KEY_FILE
    path = legacy if legacy.exists() else key_file(s, create=False)
    if path is None or not path.exists():
        raise SystemExit(f"no HMAC key for {root}: hmac: needles need it (MEMGATE_HMAC_KEY_FILE)")
    return path.read_bytes()


def _needle(root: Path, arg: str) -> str | bytes:
    if arg.startswith("hex:"):
        return bytes.fromhex(arg[4:])
    if arg.startswith("hmac:"):
        return content_hmac(_key(root), arg[5:])
    return arg


def main() -> int:
    root = Path(sys.argv[1])
    report = scan(root, {arg: _needle(root, arg) for arg in sys.argv[2:]})
    for hit in report.hits:
        print("FOUND", hit.describe(), "needle:", hit.label)
    for path in report.undecoded:
        print("UNDECODED", path)
    print(f"scanned {root}: {len(report.hits)} hit(s)")
    return 1 if report.hits else 0


if __name__ == "__main__":
    sys.exit(main())
