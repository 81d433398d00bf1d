"""The triage stage alone on the LoCoMo dev file: turns per CPU-second (issue 14).

Triage reads every turn, so its cost is paid on all traffic. This probe runs
:func:`memgate.stages.triage.triage` over every turn of the LoCoMo dev file (4,124 turns)
``--repeat`` times in this process, each pass after emptying the stages' text memos (so
each pass reads every sentence again, as a first pass does), and prints the best pass's
CPU time and rate, with the verdicts' digest: two checkouts that must decide alike
print the same digest.

    .venv/bin/python benchmarks/probe_triage.py [--repeat N] [--limit N]

With ``PYTHONPATH`` set to another checkout it measures that checkout's triage. On a
shared virtual machine, compare checkouts in alternation (main, branch, main, ...).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time

from common import LOCOMO

from memgate.core.memo import clear_memos
from memgate.inputs import ReadErrors, read_turns
from memgate.stages.triage import triage


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="passes; the best is reported")
    ap.add_argument("--limit", type=int, default=0, help="first N turns only (0: all)")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.limit < 0:
        ap.error("--repeat must be at least 1 and --limit at least 0")
    turns = list(read_turns(LOCOMO, ReadErrors()))
    if args.limit:
        turns = turns[: args.limit]
    for t in turns[:50]:
        triage(t)  # the lazy loads (word classes, the model file) out of the timing
    best = float("inf")
    digest = ""
    for _ in range(args.repeat):
        clear_memos()
        t0 = time.process_time()
        verdicts = [triage(t) for t in turns]
        best = min(best, time.process_time() - t0)
        digest = hashlib.sha256(
            "".join(f"{v.value}|{r.value}\n" for v, r in verdicts).encode()
        ).hexdigest()[:16]
    print(
        f"triage, {len(turns)} LoCoMo dev turns: best of {args.repeat} passes "
        f"{best:.2f} CPU-s, {len(turns) / best:.0f} turns per CPU-second; "
        f"verdicts digest {digest}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
