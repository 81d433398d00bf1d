"""``memgate bench``: the gate against a store-every-turn baseline, in the same run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from memgate import render
from memgate.bench.datasets import DatasetMissing, find_locomo
from memgate.cli.args import MAX_POLLUTION, Policy, check_pollution, check_text
from memgate.cli.common import console, err, errors, print_json
from memgate.cli.options import global_options, session
from memgate.recall import MAX_K
from memgate.render import print_error, print_note

app = typer.Typer(
    help="Benchmarks: the gate against a store-every-turn baseline, in the same run.",
    no_args_is_help=True,
)


@app.command("locomo")
@global_options(output=True)
def bench_locomo(
    ctx: typer.Context,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            help=(
                "A file in LoCoMo's format (default: locomo-dev.json in $MEMGATE_LOCOMO_DIR, "
                "or in ../shared/datasets/locomo beside the current directory or the checkout)."
            ),
        ),
    ] = None,
    policy: Annotated[
        list[Policy] | None,
        typer.Option(
            "--policy",
            help="Write policy preset (repeatable; default: the settings', balanced).",
        ),
    ] = None,
    all_presets: Annotated[
        bool, typer.Option("--all-presets", help="Run every write policy preset.")
    ] = False,
    k: Annotated[
        list[int] | None,
        typer.Option(
            "--k", help="Recall cut-off (repeatable; default: 5 and 10).", min=1, max=MAX_K
        ),
    ] = None,
    pollution: Annotated[
        str,
        typer.Option(
            help=f"Pollution ratios, trivial turns per real turn (0 = clean; at most "
            f"{MAX_POLLUTION}).",
            callback=check_pollution,
        ),
    ] = "0,1,5",
    split: Annotated[
        str,
        typer.Option(
            "--split",
            help="dev, heldout or all (both, side by side) of the LoCoMo split file.",
            callback=check_text,
        ),
    ] = "all",
    split_file: Annotated[
        Path | None,
        typer.Option(
            "--split-file", help="JSON naming the split's conversations [default: bundled]."
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", help="Only the first N conversations of each split.", min=1),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the pollution generator.")] = 0,
    report: Annotated[
        Path | None, typer.Option("--report", help="Write report.md and PNG plots into DIR.")
    ] = None,
    workdir: Annotated[
        Path | None,
        typer.Option(
            help="Keep the benchmark's stores in DIR, empty or new (default: a temp dir)."
        ),
    ] = None,
) -> None:
    """LoCoMo: evidence recall@k, write amplification, coverage, context rot, vs. a baseline.

    Development and held-back conversations (the split file) are run and shown side by side.
    """
    import shlex
    import tempfile

    from memgate.bench.split import SPLIT_CHOICES, load_split, run_split

    s = session(ctx)
    rt = s.runtime
    if split not in SPLIT_CHOICES:
        raise typer.BadParameter(f"{split!r}: choose dev, heldout or all", param_hint="--split")
    if data is None:
        try:
            data = find_locomo()
        except DatasetMissing as exc:
            print_error(err, f"LoCoMo data: {exc}; or pass --data FILE")
            raise typer.Exit(2) from None
    path = data
    try:
        found = path.is_file()
    except OSError as exc:
        print_error(err, f"LoCoMo data: {render.os_error(exc)}; pass --data FILE")
        raise typer.Exit(2) from None
    if not found:
        print_error(err, f"LoCoMo data not found at {path.resolve()}; pass --data FILE")
        raise typer.Exit(2)
    chosen = list(Policy) if all_presets else (policy or [Policy(rt.settings.policy)])
    policies = [p.value for p in chosen]
    ratios = sorted({int(x) for x in pollution.split(",") if x.strip()})  # checked: 0..100
    ks = sorted(set(k or [5, 10]))
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="memgate-bench-")
        workdir = Path(tmp.name) / "work"
    try:
        with errors(), render.progress(err) as progress:
            bench = run_split(
                path, split=load_split(split_file), which=split, workdir=workdir,
                limit_conversations=limit, policies=policies, embedder=rt.embedder, ks=ks,
                pollution=ratios, seed=seed, settings=rt.settings,
                progress=render.BenchProgress(progress),
            )  # fmt: skip
        bench.command = shlex.join(["memgate", *sys.argv[1:]])
        for name, result in bench.results.items():
            result.command, result.headline_policy = bench.command, rt.settings.policy
            if result.extractor_source_changed:
                print_note(err, f"warning: the extractor's source changed during the {name} run")
            if report is not None:
                from memgate.bench.report import write_report

                out_dir = report / name if len(bench.results) > 1 else report
                written = write_report(result, out_dir)
                print_note(err, f"report: {', '.join(str(p) for p in written)}", style="")
    finally:
        if tmp is not None:
            tmp.cleanup()
    if s.json:
        print_json(bench.as_json())
        return
    for table in render.bench_split_tables(bench):
        console.print(table)
