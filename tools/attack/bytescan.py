"""Byte scan of every file under a memgate data dir for needles (attack13).

A command-line face on :func:`memgate.evaluation.bytescan.scan` (raw bytes, SQLite
main/WAL/journal files, ClickHouse parts decompressed block by block). Needles are
text (its UTF-8 bytes) or ``hex:<hex>`` (raw bytes); ``hmac:<text>`` is the keyed
digest of ``text`` under the data dir's own ``hmac.key`` (what whoever holds the data
dir can compute to confirm a guess).

Usage: python tools/attack/bytescan.py DATA_DIR NEEDLE [NEEDLE ...]
Exit 1 when any needle is found, 0 otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

from memgate.core.events import content_hmac
from memgate.evaluation.bytescan import scan


def _needle(root: Path, arg: str) -> str | bytes:
    if arg.startswith("hex:"):
        return bytes.fromhex(arg[4:])
    if arg.startswith("hmac:"):
        return content_hmac((root / "hmac.key").read_bytes(), arg[5:])
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
