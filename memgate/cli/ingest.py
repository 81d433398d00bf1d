"""``memgate ingest``: turns from a file through the gate, in process, into the embedded stores."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from memgate import render
from memgate.cli.common import console, err, errors, print_json, report_read_errors
from memgate.cli.options import global_options, session
from memgate.core.errors import MemgateError
from memgate.inputs import ReadErrors
from memgate.render import clean
from memgate.runtime import Runtime

if TYPE_CHECKING:
    from memgate.streams.runner import RunSummary

app = typer.Typer()


def ingest_file(
    rt: Runtime, path: Path, *, quiet: bool = False
) -> tuple[RunSummary, ReadErrors]:
    """Run the turns of ``path`` through the gate; the summary and the rejected lines."""
    from memgate.backends import build_pipeline
    from memgate.inputs import count_lines, detect_format, load_locomo, read_turns
    from memgate.streams.fairness import FairGate
    from memgate.streams.runner import InProcessRunner, Interrupted

    if not path.is_file():
        raise MemgateError(f"{path} does not exist or is not a file")
    fmt = detect_format(path)
    total = sum(len(c.turns) for c in load_locomo(path)) if fmt == "locomo" else count_lines(path)
    read_errors = ReadErrors()
    pipeline = build_pipeline(rt.settings, rt.embedder)
    s = rt.settings
    fair = FairGate(s.fair_turns_per_s, s.fair_burst) if s.fair_turns_per_s > 0 else None
    runner = InProcessRunner(
        pipeline,
        rt.retrieval,
        rt.audit,
        on_error=read_errors.add,
        fairness=fair,
        window=s.ingest_window,
    )
    with render.progress(err, disable=quiet) as progress:
        task = progress.add_task(f"ingest {clean(path.name)}", total=total)
        try:
            summary = runner.run(
                read_turns(path, read_errors), progress=lambda n: progress.advance(task, n)
            )
        except Interrupted as exc:
            err.print(str(exc), markup=False, style="yellow", soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
    runner.close()
    return summary, read_errors


@app.command()
@global_options(output=True)
def ingest(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="JSONL of turn events, or a LoCoMo JSON file.")],
) -> None:
    """Run turns from FILE through the gate, in process, into the embedded stores."""
    s = session(ctx)
    rt = s.runtime
    with errors():
        summary, rejected = ingest_file(rt, file, quiet=s.json)
    if s.json:
        print_json(
            {**summary.as_dict(), "errors": rejected.errors, "error_count": rejected.count}
        )
    else:
        console.print(render.summary_table(summary, f"memgate ingest {file.name}"))
        console.print(render.text(f"data dir: {rt.settings.data_dir}"))
    report_read_errors(rejected)
