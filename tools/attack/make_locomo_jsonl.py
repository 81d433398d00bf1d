"""LoCoMo dev as JSONL turns, with deletion requests and paraphrased repeats mixed in (attack13).

Usage: python tools/attack/make_locomo_jsonl.py OUT.jsonl [MAX_TURNS]
Every 40th turn of a speaker is followed by a repeat of an earlier turn of theirs
(a paraphrase: "As I said, ..." under a new turn id) and every 120th by a deletion
request ("Please delete everything you know about my <topic>"), so the in-process
read-ahead sees statements, repeats and erasures inside one window.
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path

from memgate.bench.datasets import find_locomo
from memgate.inputs import ReadErrors, read_turns

TOPICS = ["family", "job", "hobby", "brother", "kids", "painting"]


def main() -> None:
    out = Path(sys.argv[1])
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 10**9
    errors = ReadErrors()
    seen: dict[tuple[str, str], list[dict]] = {}
    n = 0
    with out.open("w", encoding="utf-8") as f:
        for t in read_turns(find_locomo(), errors):
            if n >= limit:
                break
            row = json.loads(t.model_dump_json())
            f.write(json.dumps(row) + "\n")
            n += 1
            mine = seen.setdefault((t.tenant_id, t.user_id), [])
            mine.append(row)
            k = len(mine)
            if k % 40 == 0:
                old = mine[k // 3]
                rep = dict(
                    row,
                    turn_id=row["turn_id"] + "-rep",
                    content="As I said before, " + old["content"],
                    ts=(t.ts + timedelta(seconds=1)).isoformat(),
                )
                f.write(json.dumps(rep) + "\n")
            if k % 120 == 0:
                topic = TOPICS[(k // 120) % len(TOPICS)]
                dl = dict(
                    row,
                    turn_id=row["turn_id"] + "-del",
                    content=f"Please delete everything you know about my {topic}.",
                    ts=(t.ts + timedelta(seconds=2)).isoformat(),
                )
                f.write(json.dumps(dl) + "\n")
    print(f"{out}: {n} LoCoMo turns (+ repeats and deletion requests)")


if __name__ == "__main__":
    main()
