"""``memgate eval``: the gate scored on the development and the frozen test split, side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from memgate import render
from memgate.cli.args import check_text
from memgate.cli.common import console, err, errors, print_json
from memgate.cli.options import global_options, session
from memgate.render import print_error

app = typer.Typer()


@app.command("eval")
@global_options(output=True)
def eval_cmd(
    ctx: typer.Context,
    split: Annotated[
        str | None,
        typer.Option(
            "--split",
            help="dev, test (the frozen split: aggregates only) or both "
            "[default: both; dev when a corpus file is given].",
            callback=check_text,
        ),
    ] = None,
    labelled: Annotated[
        Path | None,
        typer.Option("--labelled", help="JSONL of labelled turns (replaces the development one)."),
    ] = None,
    leaks: Annotated[
        Path | None,
        typer.Option("--leaks", help="JSONL of PII/credential cases and benign look-alikes."),
    ] = None,
    scenarios: Annotated[
        Path | None, typer.Option("--scenarios", help="JSONL of multi-turn scenarios with checks.")
    ] = None,
    test_dir: Annotated[
        Path | None,
        typer.Option("--test-dir", help="Folder of the frozen split [default: the bundled one]."),
    ] = None,
    dead_letters: Annotated[
        Path | None,
        typer.Option(
            "--dead-letters",
            help="Dead-letter payloads, one per line, searched for secrets too (Kafka runs).",
        ),
    ] = None,
) -> None:
    """Score the gate on the development and the frozen test split, side by side.

    Suites: labelled turns, a leak check and scenarios, each on fresh stores. A corpus
    file option replaces that development file and runs only the suites given. The
    frozen split prints aggregates only. The write policy is the global --policy.
    Exit code 1 if a development secret leaked, a development scenario failed or an
    erasure left a residue.
    """
    from contextlib import ExitStack

    from memgate.evaluation import run as ev

    s = session(ctx)
    rt = s.runtime
    given = {"labelled": labelled, "leaks": leaks, "scenarios": scenarios}
    split = split or ("dev" if any(given.values()) else "both")
    if split not in ev.SPLIT_CHOICES:
        raise typer.BadParameter(f"{split!r}: choose dev, test or both", param_hint="--split")
    settings = rt.settings
    chosen = [name for name in ev.SUITES if given[name] is not None] or list(ev.SUITES)
    dlq: list[str] = []
    if dead_letters is not None:
        try:
            dlq = [ln for ln in dead_letters.read_text(encoding="utf-8").splitlines() if ln]
        except UnicodeDecodeError as exc:
            raise typer.BadParameter(
                f"{dead_letters} is not UTF-8 text (byte offset {exc.start})",
                param_hint="--dead-letters",
            ) from None
        except OSError as exc:
            raise typer.BadParameter(str(exc), param_hint="--dead-letters") from None
    with ExitStack() as stack, errors():
        dev = test = None
        if split in ("dev", "both"):
            dev = stack.enter_context(ev.bundled_dev_files(chosen))
            dev.update({name: [p] for name, p in given.items() if p is not None})
        if split in ("test", "both"):
            test_dir = test_dir or stack.enter_context(ev.bundled_test_dir())
            test = ev.frozen_files(test_dir, chosen)
        with err.status(Text(""), spinner="dots") as status:
            result = ev.run_eval(
                settings, rt.embedder, dev=dev, test=test, test_dir=test_dir,
                dead_letters=dlq, status=lambda msg: status.update(render.text(msg)),
            )  # fmt: skip
    if s.json:
        print_json(result.as_dict())
    else:
        for table in render.eval_tables(result):
            console.print(table)
        if result.dev is not None:
            console.print(
                f"development targets ({settings.policy}): "
                + ", ".join(
                    f"{k}={'met' if v else 'MISSED'}" for k, v in result.dev_targets().items()
                )
            )
    for f in result.failures:
        print_error(err, f, label="FAIL")
    if result.failures:
        raise typer.Exit(1)
