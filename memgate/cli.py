"""The ``memgate`` command line.

Settings are built once here (the entry point) and passed down.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from memgate import render
from memgate.cliargs import (
    MAX_POLLUTION,
    LogLevel,
    check_id,
    check_pollution,
    check_query,
    check_time,
    parse_instant,
)
from memgate.errors import ConfigError, MemgateError
from memgate.recall import MAX_K
from memgate.render import clean, print_error, print_note
from memgate.runtime import Runtime
from memgate.settings import load_settings, mask_secrets

app = typer.Typer(
    name="memgate",
    help="A streaming write gate for the long-term memory of AI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = render.make_console()
err = render.make_console(stderr=True)
log = logging.getLogger("memgate")

#: Options shared by the commands that read one user's data.
TenantOpt = Annotated[str, typer.Option("--tenant", "-t", help="Tenant id.", callback=check_id)]
UserOpt = Annotated[str, typer.Option("--user", "-u", help="User id.", callback=check_id)]


def _rt(ctx: typer.Context) -> Runtime:
    rt = ctx.obj
    assert isinstance(rt, Runtime)
    return rt


@app.callback()
def main(
    ctx: typer.Context,
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML settings file (or MEMGATE_CONFIG).")
    ] = None,
    data_dir: Annotated[
        str | None,  # a string: typer would read "" as Path("."), the current folder
        typer.Option("--data-dir", help="Folder of every embedded store (or MEMGATE_DATA_DIR)."),
    ] = None,
    policy: Annotated[
        str | None, typer.Option(help="Write policy preset: conservative, balanced, permissive.")
    ] = None,
    embedder: Annotated[str | None, typer.Option(help="minilm (default) or hashing.")] = None,
    extractor: Annotated[
        str | None, typer.Option(help="rules (offline default), statements, hybrid or anthropic.")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log key=value lines.")] = False,
) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s level=%(levelname)s logger=%(name)s %(message)s",
        stream=sys.stderr,
    )
    if not verbose:  # client libraries' retry chatter: the error line says what failed
        for name in ("urllib3.connectionpool", "clickhouse_connect"):
            logging.getLogger(name).setLevel(logging.ERROR)
    try:
        settings = load_settings(
            config, data_dir=data_dir, policy=policy, embedder=embedder, extractor=extractor
        )
        if settings.data_dir.exists() and not settings.data_dir.is_dir():
            raise ConfigError(
                f"data dir {settings.data_dir} exists and is not a folder; "
                "pass --data-dir FOLDER or set MEMGATE_DATA_DIR"
            )
    except OSError as exc:
        print_error(err, f"data dir {render.os_error(exc)}; pass --data-dir FOLDER")
        raise typer.Exit(2) from None
    except ConfigError as exc:
        print_error(err, exc)
        raise typer.Exit(2) from None
    # Everything memgate creates (data dir, store files and folders) is private to the user.
    umask = os.umask(0o077)
    ctx.call_on_close(lambda: os.umask(umask))
    from memgate.embedding import limit_blas_threads

    capped = limit_blas_threads(settings.blas_threads)
    if capped:
        log = logging.getLogger("memgate")
        log.info("blas_threads=%s libraries=%s", settings.blas_threads, capped)
    rt = Runtime(settings, warn=lambda msg: print_note(err, msg))
    ctx.obj = rt
    ctx.call_on_close(rt.close)


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    except MemgateError as exc:
        print_error(err, exc)
        raise typer.Exit(1) from None
    except OSError as exc:  # a file the system refuses: name too long, a device, permissions
        print_error(err, render.os_error(exc))
        raise typer.Exit(1) from None


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=str, ensure_ascii=False) + "\n")


# ----------------------------------------------------------------- ingest


def _ingest(rt: Runtime, path: Path, *, quiet: bool = False) -> tuple[Any, list[str]]:
    from memgate.backends import build_pipeline
    from memgate.inputs import ReadErrors, count_lines, detect_format, load_locomo, read_turns
    from streams.runner import InProcessRunner, Interrupted

    if not path.is_file():
        raise MemgateError(f"{path} does not exist or is not a file")
    fmt = detect_format(path)
    total = sum(len(c.turns) for c in load_locomo(path)) if fmt == "locomo" else count_lines(path)
    errors = ReadErrors()
    pipeline = build_pipeline(rt.settings, rt.embedder)
    runner = InProcessRunner(pipeline, rt.retrieval, rt.audit, on_error=errors.add)
    with render.progress(err, disable=quiet) as progress:
        task = progress.add_task(f"ingest {clean(path.name)}", total=total)
        try:
            summary = runner.run(
                read_turns(path, errors), progress=lambda n: progress.advance(task, n)
            )
        except Interrupted as exc:
            err.print(str(exc), markup=False, style="yellow", soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
    runner.close()
    return summary, errors.errors


def _report_read_errors(errors: list[str]) -> None:
    for e in errors:
        print_error(err, e)
    if errors:
        print_note(
            err,
            f"{len(errors)} line(s) rejected; the other turns were ingested. "
            "Fix the lines above and ingest the file again (turn ids make it idempotent).",
        )
        raise typer.Exit(1)


@app.command()
def ingest(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="JSONL of turn events, or a LoCoMo JSON file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Run turns from FILE through the gate, in process, into the embedded stores."""
    rt = _rt(ctx)
    with _errors():
        summary, errors = _ingest(rt, file, quiet=as_json)
    if as_json:
        _print_json({**summary.as_dict(), "errors": errors})
    else:
        console.print(render.summary_table(summary, f"memgate ingest {file.name}"))
        console.print(render.text(f"data dir: {rt.settings.data_dir}"))
    _report_read_errors(errors)


# ----------------------------------------------------------------- search


def _parse_time(s: str | None) -> datetime | None:
    if s is None:
        return None
    try:
        return parse_instant(s)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


def _fact_row(f: Any) -> dict[str, Any]:
    d: dict[str, Any] = f.model_dump(mode="json", exclude={"embedding", "search_embedding"})
    return d


@app.command()
def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for.", callback=check_query)],
    tenant: TenantOpt,
    user: UserOpt,
    k: Annotated[int, typer.Option("-k", help="How many results.", min=1, max=MAX_K)] = 5,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of", help="ISO time: what was true then (valid time).", callback=check_time
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    now: Annotated[
        str | None,
        typer.Option(
            "--now",
            help="ISO time to rank at: facts decay by their age at this instant "
            "(default: the current time).",
            callback=check_time,
        ),
    ] = None,
) -> None:
    """Hybrid search (BM25 + vectors, fused by reciprocal rank) over one user's facts."""
    from memgate.recall import Recall
    from sinks.base import SearchQuery

    rt = _rt(ctx)
    q = SearchQuery(tenant_id=tenant, user_id=user, text=query, k=k, as_of=_parse_time(as_of))
    with _errors():
        hits = Recall(rt.retrieval, rt.embedder).search(q, now=_parse_time(now))
    if as_json:
        _print_json(
            [
                {
                    "score": round(h.score, 6),
                    "bm25_rank": h.bm25_rank,
                    "vector_rank": h.vector_rank,
                    "fact": _fact_row(h.fact),
                }
                for h in hits
            ]
        )
        return
    title = f"search {query!r} tenant={tenant} user={user}" + (f" as-of={as_of}" if as_of else "")
    console.print(render.search_table(hits, title))
    if not hits:
        console.print("no facts matched (is the tenant/user right? try `memgate facts`)")


@app.command()
def facts(
    ctx: typer.Context,
    tenant: TenantOpt,
    user: UserOpt,
    show_all: Annotated[
        bool, typer.Option("--all", help="Include superseded and pending facts.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """What is stored about a user, and why (rule, source turns, policy)."""
    rt = _rt(ctx)
    with _errors():
        rows = rt.retrieval.list_facts(tenant, user, include_inactive=show_all)
    if as_json:
        _print_json([_fact_row(f) for f in rows])
        return
    console.print(render.facts_table(rows, f"facts tenant={tenant} user={user}"))


@app.command()
def forget(
    ctx: typer.Context,
    tenant: TenantOpt,
    user: UserOpt,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete everything stored about a user, from every store.

    Both stores are opened and counted before anything is deleted. Exit code 1
    when nothing is stored for the user, or when a store fails (the message
    says what was already deleted; running the command again finishes).
    """
    rt = _rt(ctx)
    who = f"{tenant}/{user}"
    again = f"memgate forget -t {tenant} -u {user} --yes"
    try:
        n_facts = len(rt.retrieval.list_facts(tenant, user, include_inactive=True))
        n_audit = rt.audit_rows(tenant, user)
    except MemgateError as exc:
        print_error(err, f"nothing was deleted: {exc}. Run `{again}` again once the store is free")
        raise typer.Exit(1) from None
    if n_facts == 0 and n_audit == 0:
        print_error(
            err,
            f"nothing stored for {who}: no facts and no audit rows (ids are exact and "
            "case-sensitive; `memgate audit --sql` lists the users); nothing was deleted",
        )
        raise typer.Exit(1)
    if not yes and not typer.confirm(f"Delete {n_facts} facts and {n_audit} audit rows of {who}?"):
        raise typer.Exit(1)
    # The audit store first: if it fails, the user's facts are all still there and served;
    # if the retrieval store then fails, the message says the audit rows are gone.
    try:
        n_audit = rt.audit.forget(tenant, user)
    except MemgateError as exc:
        print_error(
            err,
            f"no facts of {who} were deleted, and the audit rows may be partly deleted: {exc}. "
            f"Run `{again}` again to finish",
        )
        raise typer.Exit(1) from None
    try:
        n_facts = rt.retrieval.forget(tenant, user)
    except MemgateError as exc:
        print_error(
            err,
            f"the {n_audit} audit rows of {who} were deleted, but its {n_facts} facts were not "
            f"({exc}). Run `{again}` again to delete them",
        )
        raise typer.Exit(1) from None
    console.print(render.text(f"forgot {who}: {n_facts} facts, {n_audit} audit rows"))


@app.command()
def audit(
    ctx: typer.Context,
    report: Annotated[str | None, typer.Argument(help="A named report (see --list).")] = None,
    sql: Annotated[
        str | None, typer.Option("--sql", help="Raw SQL against the audit store.")
    ] = None,
    tenant: Annotated[
        str | None, typer.Option("--tenant", "-t", help="Tenant id.", callback=check_id)
    ] = None,
    list_reports: Annotated[bool, typer.Option("--list", help="List the named reports.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Named audit reports, or raw SQL over the journal, decisions and fact history."""
    from sinks.audit import REPORTS

    rt = _rt(ctx)
    if list_reports or (report is None and sql is None):
        console.print(render.reports_table(REPORTS))
        console.print("tables: memgate.journal, memgate.decisions, memgate.fact_history")
        return
    if sql is None and report not in REPORTS:
        raise typer.BadParameter(
            f"unknown report {report!r}; choose one of: {', '.join(REPORTS)}",
            param_hint="REPORT",
        )
    with _errors():
        if sql is not None:
            cols, rows = rt.audit.query(sql)
        else:
            assert report is not None
            cols, rows = rt.audit.report(report, tenant)
    if as_json:
        _print_json([dict(zip(cols, r, strict=True)) for r in rows])
        return
    console.print(render.rows_table(report or "sql", cols, rows))


@app.command("config")
def show_config(ctx: typer.Context) -> None:
    """Print the effective settings (secrets masked)."""
    _print_json(_rt(ctx).settings.describe())


# ------------------------------------------------------------------- demo

DEMO_SEARCHES: list[tuple[str, str, str, str | None]] = [
    ("acme", "alice", "how do we deploy?", None),
    ("acme", "alice", "how do we deploy?", "2024-03-05T00:00:00Z"),
    ("acme", "alice", "what editor does she use", None),
    ("acme", "alice", "answer language", None),
    ("globex", "bob", "how do we deploy?", None),
]


@app.command()
def demo(ctx: typer.Context) -> None:
    """Ingest a small bundled sample showing every kind of decision, then search it."""
    from memgate.inputs import ReadErrors, read_jsonl

    rt = _rt(ctx)
    demo_dir = rt.settings.data_dir / "demo"
    with _errors():
        if demo_dir.is_symlink() or demo_dir.is_file():
            raise MemgateError(f"{demo_dir} is not the demo's folder; move it away and retry")
        if demo_dir.exists():
            shutil.rmtree(demo_dir)
    rt.settings = rt.settings.model_copy(update={"data_dir": demo_dir})
    sample = resources.files("memgate") / "data" / "demo.jsonl"
    with resources.as_file(sample) as path, _errors():
        summary, errors = _ingest(rt, Path(path))
        # rank as of the sample's last turn, so its 2024 facts are not aged to today
        last = max(t.ts for t in read_jsonl(Path(path), ReadErrors())).isoformat()
    console.print(render.summary_table(summary, "memgate demo: what the gate decided"))
    for tenant, user, q, as_of in DEMO_SEARCHES:
        ctx.invoke(
            search,
            ctx=ctx,
            query=q,
            tenant=tenant,
            user=user,
            k=3,
            as_of=as_of,
            as_json=False,
            now=last,
        )
    console.print(
        render.text(f"\nstores: {demo_dir} (try `memgate --data-dir {demo_dir} audit verdicts`)")
    )
    if errors:
        raise typer.Exit(1)


# ---------------------------------------------------------------- streaming


@app.command()
def worker(
    ctx: typer.Context,
    metrics_port: Annotated[
        int | None,
        typer.Option(help="Serve Prometheus metrics on this port (0: off).", min=0, max=65535),
    ] = None,
    loglevel: Annotated[
        LogLevel, typer.Option(help="Faust log level.", case_sensitive=False)
    ] = LogLevel.WARNING,
) -> None:
    """Start a streaming worker on Kafka (several share the work through partitions)."""
    import asyncio

    import faust

    from memgate.backends import build_pipeline
    from streams.app import Worker, create_app, ensure_topics
    from streams.metrics import Metrics

    rt = _rt(ctx)
    s = rt.settings
    with _errors():
        metrics = Metrics()
        port = s.metrics_port if metrics_port is None else metrics_port
        w = Worker(
            settings=s,
            pipeline=build_pipeline(s, rt.embedder),
            retrieval=rt.retrieval,
            audit=rt.audit,
            metrics=metrics,
        )
        fapp = create_app(w)
        created = asyncio.run(ensure_topics(s))
        if created:
            log.info("event=topics_created topics=%s", ",".join(created))
        if port:  # last: an open metrics port means the stores and topics are ready
            metrics.serve(port)
    print_note(
        err,
        f"memgate worker: kafka={s.kafka_bootstrap} prefix={s.topic_prefix} "
        f"retrieval={s.retrieval_backend} audit={s.audit_backend} metrics=:{port}",
        style="",
    )
    faust.Worker(fapp, loglevel=loglevel.value, quiet=True).execute_from_commandline()


@app.command()
def produce(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="JSONL of turn events, or a LoCoMo JSON file.")],
    raw: Annotated[
        bool,
        typer.Option(
            "--raw", help="Send JSONL lines unvalidated (bad ones reach the dead-letter topic)."
        ),
    ] = False,
) -> None:
    """Send turns from FILE to the input topic, keyed by tenant/user."""
    import asyncio

    from memgate.inputs import ReadErrors, read_lines, read_turns
    from streams.producer import produce_lines, produce_turns

    rt = _rt(ctx)
    s = rt.settings
    errors = ReadErrors()
    with _errors():
        if not file.is_file():
            raise MemgateError(f"{file} does not exist or is not a file")
        if raw:
            lines = (text for _, text in read_lines(file, errors))
            n = asyncio.run(produce_lines(s, lines))
        else:
            n = asyncio.run(produce_turns(s, read_turns(file, errors)))
    console.print(
        render.text(
            f"sent {n} turns to {s.topic_prefix}.turns at {mask_secrets(s.kafka_bootstrap)}"
        )
    )
    _report_read_errors(errors.errors)


# ------------------------------------------------------------------ bench

bench_app = typer.Typer(
    help="Benchmarks: the gate against a store-every-turn baseline, in the same run.",
    no_args_is_help=True,
)
app.add_typer(bench_app, name="bench")

DEFAULT_LOCOMO = Path("..") / "shared" / "datasets" / "locomo" / "locomo-dev.json"


@bench_app.command("locomo")
def bench_locomo(
    ctx: typer.Context,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            help="A file in LoCoMo's format (default: ../shared/datasets/locomo/locomo-dev.json).",
        ),
    ] = None,
    policy: Annotated[
        list[str] | None,
        typer.Option("--policy", help="Write policy preset (repeatable; default: balanced)."),
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
            "--split", help="dev, heldout or all (both, side by side) of the LoCoMo split file."
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
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the figures as one JSON object.")
    ] = False,
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
    from stages.policy import PRESETS

    rt = _rt(ctx)
    if split not in SPLIT_CHOICES:
        raise typer.BadParameter(f"{split!r}: choose dev, heldout or all", param_hint="--split")
    path = data if data is not None else Path.cwd() / DEFAULT_LOCOMO
    try:
        found = path.is_file()
    except OSError as exc:
        print_error(err, f"LoCoMo data: {render.os_error(exc)}; pass --data FILE")
        raise typer.Exit(2) from None
    if not found:
        print_error(
            err,
            f"LoCoMo data not found at {path.resolve()}; pass --data FILE (the default is "
            "../shared/datasets/locomo/locomo-dev.json from the current directory)",
        )
        raise typer.Exit(2)
    policies = list(PRESETS) if all_presets else list(policy or [rt.settings.policy])
    unknown = [p for p in policies if p not in PRESETS]
    if unknown:
        raise typer.BadParameter(
            f"unknown write policy {', '.join(unknown)}; choose from {', '.join(PRESETS)}",
            param_hint="--policy",
        )
    ratios = sorted({int(x) for x in pollution.split(",") if x.strip()})  # checked: 0..100
    ks = sorted(set(k or [5, 10]))
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="memgate-bench-")
        workdir = Path(tmp.name) / "work"
    try:
        with _errors(), render.progress(err) as progress:
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
    if as_json:
        _print_json(bench.as_json())
        return
    for table in render.bench_split_tables(bench):
        console.print(table)


@app.command("eval")
def eval_cmd(
    ctx: typer.Context,
    split: Annotated[
        str | None,
        typer.Option(
            "--split",
            help="dev, test (the frozen split: aggregates only) or both "
            "[default: both; dev when a corpus file is given].",
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
    policy: Annotated[
        str | None,
        typer.Option("--policy", help="Write policy preset for the run [default: the settings']."),
    ] = None,
    dead_letters: Annotated[
        Path | None,
        typer.Option(
            "--dead-letters",
            help="Dead-letter payloads, one per line, searched for secrets too (Kafka runs).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Score the gate on the development and the frozen test split, side by side.

    Suites: labelled turns, a leak check and scenarios, each on fresh stores. A corpus
    file option replaces that development file and runs only the suites given. The
    frozen split prints aggregates only. Exit code 1 if a development secret leaked,
    a development scenario failed or an erasure left a residue.
    """
    from contextlib import ExitStack

    from memgate.evaluation import run as ev
    from stages.policy import PRESETS

    rt = _rt(ctx)
    if policy is not None and policy not in PRESETS:
        raise typer.BadParameter(
            f"unknown write policy {policy!r}; choose from {', '.join(PRESETS)}",
            param_hint="--policy",
        )
    given = {"labelled": labelled, "leaks": leaks, "scenarios": scenarios}
    split = split or ("dev" if any(given.values()) else "both")
    if split not in ev.SPLIT_CHOICES:
        raise typer.BadParameter(f"{split!r}: choose dev, test or both", param_hint="--split")
    settings = rt.settings.model_copy(update={"policy": policy}) if policy else rt.settings
    chosen = [s for s in ev.SUITES if given[s] is not None] or list(ev.SUITES)
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
    with ExitStack() as stack, _errors():
        dev = test = None
        if split in ("dev", "both"):
            dev = stack.enter_context(ev.bundled_dev_files(chosen))
            dev.update({s: [p] for s, p in given.items() if p is not None})
        if split in ("test", "both"):
            test_dir = test_dir or stack.enter_context(ev.bundled_test_dir())
            test = ev.frozen_files(test_dir, chosen)
        with err.status(Text(""), spinner="dots") as status:
            result = ev.run_eval(
                settings, rt.embedder, dev=dev, test=test, test_dir=test_dir,
                dead_letters=dlq, status=lambda msg: status.update(render.text(msg)),
            )  # fmt: skip
    if as_json:
        _print_json(result.as_dict())
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


def run() -> None:
    app()


if __name__ == "__main__":
    run()
