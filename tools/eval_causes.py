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
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memgate.evaluation.scenarios import ScenarioReport  # noqa: E402
from memgate.evaluation.trace import cause  # noqa: E402


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
