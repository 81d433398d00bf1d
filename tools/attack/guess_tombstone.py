"""Confirm guesses of an erased value from a copy of an embedded data dir (attack13).

A deletion request said in a conversation leaves tombstones named by
:func:`memgate.stages.resolve_forget.erasure_mark`, a keyed digest of the owner, the
fact's key and its value. On the embedded default the key is ``<data_dir>/hmac.key``,
beside the stores, so whoever holds a copy of the data dir recomputes the mark of each
guess and finds which one names a tombstone.

Usage: python tools/attack/guess_tombstone.py DATA_DIR TENANT USER FACT_KEY GUESS [GUESS ...]
(FACT_KEY as `memgate facts` printed it before the deletion, or guessed: the predicates
are a closed list.) Prints the guesses that match; exit 1 when one does.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from memgate.stages.resolve_forget import erasure_mark


def main() -> int:
    data, tenant, user, fact_key, *guesses = sys.argv[1:]
    key = (Path(data) / "hmac.key").read_bytes()
    conn = sqlite3.connect(f"file:{Path(data) / 'retrieval.sqlite3'}?mode=ro", uri=True)
    names = {row[0] for row in conn.execute("SELECT key FROM facts WHERE key LIKE '%/deleted/%'")}
    found = [
        g
        for g in guesses
        if f"{tenant}/{user}/user/deleted/{erasure_mark(key, tenant, user, fact_key, g)}" in names
    ]
    print(f"{len(names)} tombstones; guesses confirmed: {found}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
