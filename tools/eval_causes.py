"""Why scenario checks fail, counted by cause: no text, no scenario id.

    python tools/eval_causes.py memgate/data/eval/scenarios_dev29d.jsonl [...]
    python tools/eval_causes.py --json FILE [...]

Each failing check is put in one cause class read from the harness's own result, never from
the scenario's words, so the table may be printed for a held-out file too (aggregates only,
as ``memgate eval --split test`` prints): for example ``fact_status:active`` failing because
no matching fact exists (the turn was dropped or its value not stored: a keep or extraction
miss) is told apart from one failing because the fact was superseded (a wrong supersession)
or is still pending (a confirmation not taken). It never reads the frozen split: it takes
only the files given, and refuses one under ``memgate/data/eval/test/``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memgate.evaluation.scenarios import CheckResult, ScenarioReport  # noqa: E402

#: fact_status's message "found: 'text' [status, xN]; ...": the statuses only
_STATUS = re.compile(r"\[(active|pending|superseded), x\d+\]")


def cause(check: CheckResult) -> str:
    """The cause class of one failing check, from its label and the harness's message."""
    label, msg = check.label or check.type, check.message
    statuses = sorted(set(_STATUS.findall(msg)))
    if label.startswith("fact_status:"):
        if label == "fact_status:absent":
            return "still stored (" + "/".join(statuses) + ")" if statuses else "still stored"
        if " has occurrences " in msg:
            return "found, too few occurrences (a restatement not folded in)"
        if "found: none" in msg:
            trace = msg.partition("; trace: ")[2].strip()
            return "no matching fact at all" + (f" ({trace})" if trace else "")
        return "found only as " + "/".join(statuses)
    if label in ("active_count", "fact_count"):
        m = re.match(r"(\d+) .* expected (\d+)", msg)
        if m is None:
            return "unreadable"
        got, want = int(m.group(1)), int(m.group(2))
        more = got > want
        return f"{'more' if more else 'fewer'} than expected ({'+' if more else ''}{got - want})"
    if label.startswith("search_top"):
        if "top hit lacks" in msg or "top hit is not from" in msg:
            return "top hit wrong: nothing found" if msg.endswith("no hits") else "top hit wrong"
        if "a hit contains" in msg or "a hit comes from" in msg:
            return "a stale or foreign hit served"
        return "other"
    if label == "no_results":
        return "results where none expected"
    return "other"


def tally(report: ScenarioReport) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for r in report.results:
        cls = r.covers[0] if r.covers else "-"
        if r.error is not None:
            out.setdefault(cls, Counter())["error"] += 1
        for c in r.checks:
            if not c.passed:
                out.setdefault(cls, Counter())[f"{c.label or c.type}: {cause(c)}"] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    for f in args.files:
        if "eval/test" in f.resolve().as_posix():
            print(
                f"{f}: the frozen split is scored by `memgate eval --split test` only",
                file=sys.stderr,
            )
            return 2
    from memgate.core.settings import Settings
    from memgate.evaluation import scenarios as scenarios_eval
    from memgate.runtime import Runtime

    with tempfile.TemporaryDirectory() as d:
        rt = Runtime(Settings(data_dir=Path(d)))
        report = scenarios_eval.evaluate(list(args.files), rt.settings, rt.embedder)
    table = tally(report)
    counts = {"scenarios": report.total, "passed": report.passed}
    if args.json:
        print(json.dumps({**counts, "causes": {k: dict(v) for k, v in sorted(table.items())}}))
        return 0
    print(f"{report.passed}/{report.total} scenarios passed")
    for cls, c in sorted(table.items()):
        for what, n in c.most_common():
            print(f"{cls:18} {n:3}  {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
