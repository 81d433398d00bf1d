"""The ``memgate`` command line.

Settings are built once here (the entry point) and passed down.
"""

from __future__ import annotations

import json
import logging
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from memgate.errors import ConfigError, MemgateError
from memgate.settings import Settings, load_settings

app = typer.Typer(
    name="memgate",
    help="A streaming write gate for the long-term memory of AI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err = Console(stderr=True)
log = logging.getLogger("memgate")


@dataclass
class Runtime:
    """Everything a command needs, opened lazily and closed once."""

    settings: Settings
    _embedder: Any = None
    _retrieval: Any = None
    _audit: Any = None
    closers: list[Any] = field(default_factory=list)

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            from memgate.backends import make_embedder

            self._embedder = make_embedder(self.settings)
        return self._embedder

    @property
    def retrieval(self) -> Any:
        if self._retrieval is None:
            from memgate.backends import open_retrieval

            self._retrieval = open_retrieval(self.settings, self.embedder.dim)
            self.closers.append(self._retrieval)
        return self._retrieval

    @property
    def audit(self) -> Any:
        if self._audit is None:
            from memgate.backends import open_audit

            self._audit = open_audit(self.settings)
            self.closers.append(self._audit)
        return self._audit

    def close(self) -> None:
        for c in reversed(self.closers):
            c.close()
        self.closers.clear()


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
        Path | None,
        typer.Option("--data-dir", help="Folder of every embedded store (or MEMGATE_DATA_DIR)."),
    ] = None,
    policy: Annotated[
        str | None, typer.Option(help="Write policy preset: conservative, balanced, permissive.")
    ] = None,
    embedder: Annotated[str | None, typer.Option(help="minilm (default) or hashing.")] = None,
    extractor: Annotated[
        str | None, typer.Option(help="rules (offline default) or anthropic.")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log key=value lines.")] = False,
) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s level=%(levelname)s logger=%(name)s %(message)s",
        stream=sys.stderr,
    )
    try:
        settings = load_settings(
            config, data_dir=data_dir, policy=policy, embedder=embedder, extractor=extractor
        )
    except ConfigError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    from memgate.embedding import limit_blas_threads

    capped = limit_blas_threads(settings.blas_threads)
    if capped:
        log = logging.getLogger("memgate")
        log.info("blas_threads=%s libraries=%s", settings.blas_threads, capped)
    rt = Runtime(settings)
    ctx.obj = rt
    ctx.call_on_close(rt.close)


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    except MemgateError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=str, ensure_ascii=False) + "\n")


# ----------------------------------------------------------------- ingest


def _count_lines(path: Path) -> int | None:
    try:
        with path.open("rb") as f:
            return sum(1 for line in f if line.strip())
    except OSError:
        return None


def _ingest(rt: Runtime, path: Path, *, quiet: bool = False) -> tuple[Any, list[str]]:
    from memgate.backends import build_pipeline
    from memgate.inputs import ReadErrors, detect_format, load_locomo, read_turns
    from streams.runner import InProcessRunner

    if not path.is_file():
        raise MemgateError(f"{path} does not exist or is not a file")
    fmt = detect_format(path)
    total = sum(len(c.turns) for c in load_locomo(path)) if fmt == "locomo" else _count_lines(path)
    errors = ReadErrors()
    pipeline = build_pipeline(rt.settings, rt.embedder)
    runner = InProcessRunner(pipeline, rt.retrieval, rt.audit)
    with Progress(
        TextColumn("[bold]ingest[/bold] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=quiet,
    ) as progress:
        task = progress.add_task(path.name, total=total)
        summary = runner.run(read_turns(path, errors), progress=lambda n: progress.advance(task, n))
    runner.close()
    return summary, errors.errors


def _summary_table(summary: Any, title: str) -> Table:
    t = Table(title=title, show_lines=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    t.add_column("detail")
    t.add_row("turns ingested", str(summary.turns), "")
    t.add_row(
        "dropped at triage",
        str(sum(summary.dropped.values())),
        ", ".join(f"{k}={v}" for k, v in summary.dropped.most_common()),
    )
    t.add_row("kept for extraction", str(summary.kept), "")
    t.add_row("candidate facts", str(summary.candidates), "")
    t.add_row(
        "sensitive spans masked in the journal",
        str(sum(summary.redaction_kinds.values())),
        ", ".join(f"{k}={v}" for k, v in summary.redaction_kinds.most_common()),
    )
    t.add_row("facts redacted (stored with placeholders)", str(summary.redacted), "")
    t.add_row(
        "rejected",
        str(sum(summary.rejected.values())),
        ", ".join(f"{k}={v}" for k, v in summary.rejected.most_common()),
    )
    for action in ("ADD", "SUPERSEDE", "DUPLICATE", "PENDING"):
        t.add_row(f"resolved {action}", str(summary.actions.get(action, 0)), "")
    t.add_row(
        "write amplification",
        f"{summary.write_amplification:.3f}",
        "new fact rows per turn",
    )
    return t


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
        console.print(_summary_table(summary, f"memgate ingest {file.name}"))
        console.print(f"data dir: {rt.settings.data_dir}")
    for e in errors:
        err.print(f"[red]error:[/red] {e}")
    if errors:
        err.print(
            f"[yellow]{len(errors)} line(s) rejected; the other turns were ingested. "
            "Fix the lines above and ingest the file again (turn ids make it idempotent).[/yellow]"
        )
        raise typer.Exit(1)


# ----------------------------------------------------------------- search


def _parse_time(s: str | None) -> datetime | None:
    if s is None:
        return None
    try:
        dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(
            f"{s!r} is not an ISO 8601 time (e.g. 2024-05-01T00:00:00Z)"
        ) from None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def _fact_row(f: Any) -> dict[str, Any]:
    d: dict[str, Any] = f.model_dump(mode="json", exclude={"embedding", "search_embedding"})
    return d


@app.command()
def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for.")],
    tenant: Annotated[str, typer.Option("--tenant", "-t", help="Tenant id.")],
    user: Annotated[str, typer.Option("--user", "-u", help="User id.")],
    k: Annotated[int, typer.Option("-k", help="How many results.")] = 5,
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="ISO time: what was true then (valid time).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    now: Annotated[
        str | None,
        typer.Option(
            "--now", help="ISO time to rank at: facts decay by their age at this instant "
            "(default: the current time)."
        ),
    ] = None,
) -> None:
    """Hybrid search (BM25 + vectors, fused by reciprocal rank) over one user's facts."""
    from memgate.recall import Recall
    from sinks.base import SearchQuery

    rt = _rt(ctx)
    with _errors():
        q = SearchQuery(tenant_id=tenant, user_id=user, text=query, k=k, as_of=_parse_time(as_of))
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
    t = Table(
        title=f"search {query!r} tenant={tenant} user={user}" + (f" as-of={as_of}" if as_of else "")
    )
    for col in ("score", "fact", "status", "valid", "conf", "source"):
        t.add_column(col)
    for h in hits:
        f = h.fact
        valid = (
            f"{f.valid_from:%Y-%m-%d}..{f.valid_to:%Y-%m-%d}"
            if f.valid_to
            else f"{f.valid_from:%Y-%m-%d}.."
        )
        t.add_row(
            f"{h.score:.4f}",
            f.text,
            f.status.value,
            valid,
            f"{f.confidence:.2f}",
            ",".join(f.source_turn_ids[:3]),
        )
    console.print(t)
    if not hits:
        console.print("no facts matched (is the tenant/user right? try `memgate facts`)")


@app.command()
def facts(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Option("--tenant", "-t")],
    user: Annotated[str, typer.Option("--user", "-u")],
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
    t = Table(title=f"facts tenant={tenant} user={user}")
    for col in ("key", "value", "status", "seen", "conf", "why", "source"):
        t.add_column(col)
    for f in rows:
        why = f.rationale or f.extractor
        if f.superseded_by:
            why += f" (superseded by {f.superseded_by[:8]})"
        t.add_row(
            f.key.split("/", 2)[-1],
            f.value,
            f.status.value,
            str(f.occurrences),
            f"{f.confidence:.2f}",
            f"{why}; {f.policy_version}",
            ",".join(f.source_turn_ids[:3]),
        )
    console.print(t)


@app.command()
def forget(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Option("--tenant", "-t")],
    user: Annotated[str, typer.Option("--user", "-u")],
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete everything stored about a user, from every store."""
    rt = _rt(ctx)
    if not yes and not typer.confirm(f"Delete every fact and audit row of {tenant}/{user}?"):
        raise typer.Exit(1)
    with _errors():
        n_facts = rt.retrieval.forget(tenant, user)
        n_audit = rt.audit.forget(tenant, user)
    console.print(f"forgot {tenant}/{user}: {n_facts} facts, {n_audit} audit rows")


@app.command()
def audit(
    ctx: typer.Context,
    report: Annotated[str | None, typer.Argument(help="A named report (see --list).")] = None,
    sql: Annotated[
        str | None, typer.Option("--sql", help="Raw SQL against the audit store.")
    ] = None,
    tenant: Annotated[str | None, typer.Option("--tenant", "-t")] = None,
    list_reports: Annotated[bool, typer.Option("--list", help="List the named reports.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Named audit reports, or raw SQL over the journal, decisions and fact history."""
    from sinks.audit import REPORTS

    rt = _rt(ctx)
    if list_reports or (report is None and sql is None):
        t = Table(title="audit reports")
        t.add_column("name")
        t.add_column("what")
        for name, (desc, _) in REPORTS.items():
            t.add_row(name, desc)
        console.print(t)
        console.print("tables: memgate.journal, memgate.decisions, memgate.fact_history")
        return
    with _errors():
        if sql is not None:
            cols, rows = rt.audit.query(sql)
        else:
            assert report is not None
            if report not in REPORTS:
                raise MemgateError(
                    f"unknown report {report!r}; choose one of: {', '.join(REPORTS)}"
                )
            cols, rows = rt.audit.report(report, tenant)
    if as_json:
        _print_json([dict(zip(cols, r, strict=True)) for r in rows])
        return
    t = Table(title=report or "sql")
    for c in cols:
        t.add_column(c)
    for r in rows:
        t.add_row(*[str(v) for v in r])
    console.print(t)


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
    if demo_dir.exists():
        shutil.rmtree(demo_dir)
    rt.settings = rt.settings.model_copy(update={"data_dir": demo_dir})
    sample = resources.files("memgate") / "data" / "demo.jsonl"
    with resources.as_file(sample) as path, _errors():
        summary, errors = _ingest(rt, Path(path))
        # rank as of the sample's last turn, so its 2024 facts are not aged to today
        last = max(t.ts for t in read_jsonl(Path(path), ReadErrors())).isoformat()
    console.print(_summary_table(summary, "memgate demo: what the gate decided"))
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
    console.print(f"\nstores: {demo_dir} (try `memgate --data-dir {demo_dir} audit verdicts`)")
    if errors:
        raise typer.Exit(1)


# ---------------------------------------------------------------- streaming


@app.command()
def worker(
    ctx: typer.Context,
    metrics_port: Annotated[
        int | None, typer.Option(help="Serve Prometheus metrics on this port (0: off).")
    ] = None,
    loglevel: Annotated[str, typer.Option(help="Faust log level.")] = "warning",
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
    err.print(
        f"memgate worker: kafka={s.kafka_bootstrap} prefix={s.topic_prefix} "
        f"retrieval={s.retrieval_backend} audit={s.audit_backend} metrics=:{port}"
    )
    faust.Worker(fapp, loglevel=loglevel, quiet=True).execute_from_commandline()


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

    from memgate.inputs import ReadErrors, read_turns
    from streams.producer import produce_lines, produce_turns

    rt = _rt(ctx)
    s = rt.settings
    errors = ReadErrors()
    with _errors():
        if raw:
            n = asyncio.run(produce_lines(s, file.read_text(encoding="utf-8").splitlines()))
        else:
            n = asyncio.run(produce_turns(s, read_turns(file, errors)))
    console.print(f"sent {n} turns to {s.topic_prefix}.turns at {s.kafka_bootstrap}")
    for e in errors.errors:
        err.print(f"[red]error:[/red] {e}")
    if errors:
        raise typer.Exit(1)


# ------------------------------------------------------------------ bench

bench_app = typer.Typer(
    help="Benchmarks: the gate against a store-every-turn baseline, in the same run.",
    no_args_is_help=True,
)
app.add_typer(bench_app, name="bench")

DEFAULT_LOCOMO = Path("..") / "shared" / "datasets" / "locomo" / "locomo-dev.json"


class _RichBenchProgress:
    """One rich task, reset at every phase of the benchmark."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task = progress.add_task("starting", total=None)

    def start(self, label: str, total: int) -> None:
        self.progress.reset(self.task, total=total, completed=0, description=label)

    def advance(self, n: int = 1) -> None:
        self.progress.advance(self.task, n)


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
        typer.Option("--k", help="Recall cut-off (repeatable; default: 5 and 10)."),
    ] = None,
    pollution: Annotated[
        str, typer.Option(help="Pollution ratios, trivial turns per real turn (0 = clean).")
    ] = "0,1,5",
    limit: Annotated[
        int | None, typer.Option("--limit", help="Only the first N conversations.")
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
    """LoCoMo: evidence recall@k, write amplification, coverage, context rot, vs. a baseline."""
    import shlex
    import tempfile

    from memgate.bench.locomo import run_locomo
    from stages.policy import PRESETS

    rt = _rt(ctx)
    path = data if data is not None else Path.cwd() / DEFAULT_LOCOMO
    if not path.is_file():
        err.print(
            f"[red]error:[/red] LoCoMo data not found at {path.resolve()}; pass --data FILE "
            "(the default is ../shared/datasets/locomo/locomo-dev.json from the current directory)"
        )
        raise typer.Exit(2)
    policies = list(PRESETS) if all_presets else list(policy or [rt.settings.policy])
    unknown = [p for p in policies if p not in PRESETS]
    if unknown:
        raise typer.BadParameter(
            f"unknown write policy {', '.join(unknown)}; choose from {', '.join(PRESETS)}",
            param_hint="--policy",
        )
    try:
        ratios = sorted({int(x) for x in pollution.split(",") if x.strip()})
    except ValueError:
        raise typer.BadParameter(
            f"{pollution!r} is not a comma-separated list of integers", param_hint="--pollution"
        ) from None
    ks = sorted(set(k or [5, 10]))
    if ks[0] < 1 or (ratios and ratios[0] < 0):
        raise typer.BadParameter("k must be >= 1 and pollution ratios >= 0")
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="memgate-bench-")
        workdir = Path(tmp.name) / "work"
    try:
        with (
            _errors(),
            Progress(
                TextColumn("[bold]bench[/bold] {task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=err,
                transient=True,
            ) as progress,
        ):
            result = run_locomo(
                path,
                policies=policies,
                embedder=rt.embedder,
                workdir=workdir,
                ks=ks,
                pollution=ratios,
                seed=seed,
                limit_conversations=limit,
                settings=rt.settings,
                progress=_RichBenchProgress(progress),
            )
        result.command = shlex.join(["memgate", *sys.argv[1:]])
        result.headline_policy = rt.settings.policy
        if result.extractor_source_changed:
            err.print("[yellow]warning: the extractor's source changed during the run[/yellow]")
        if report is not None:
            from memgate.bench.report import write_report

            written = write_report(result, report)
            err.print(f"report: {', '.join(str(p) for p in written)}")
    finally:
        if tmp is not None:
            tmp.cleanup()
    if as_json:
        _print_json(result.as_json())
        return
    console.print(_bench_table(result))
    tg = result.targets()
    console.print(
        "targets ("
        + tg["policy"]
        + "): "
        + ", ".join(
            f"{name[:-4]}={'met' if ok else 'MISSED'}"
            for name, ok in tg.items()
            if name.endswith("_met")
        )
    )
    console.print(
        f"{len(result.conversations)} conversations, {result.turns} turns, "
        f"{result.questions} questions, {result.elapsed_s:.0f} s"
    )


def _bench_table(result: Any) -> Table:
    ks, kk = result.ks, max(result.ks)
    variants = [result.gated[p] for p in result.policies] + [result.baseline]
    t = Table(title=f"memgate bench locomo ({result.extractor}, {result.embedder})")
    t.add_column("figure")
    for v in variants:
        t.add_column(v.name, justify="right")
    t.add_row("write amplification", *[f"{v.clean.write_amplification:.3f}" for v in variants])
    for kx in ks:
        t.add_row(f"evidence recall@{kx}", *[f"{v.clean.recall(kx):.3f}" for v in variants])
    t.add_row("coverage", *[f"{v.clean.coverage:.3f}" for v in variants])
    t.add_row(
        f"answer-token recall@{kk} (no memory: 0)",
        *[f"{v.clean.answer_token_recall(kk):.3f}" for v in variants],
    )
    for r in result.ratios:
        t.add_row(
            f"recall@{kk} at {r}:1 pollution",
            *[f"{v.pollution[r].recall(kk):.3f}" for v in variants],
        )
        t.add_row(f"  rot cost at {r}:1", *[f"{v.rot_cost(r, kk):.3f}" for v in variants])
    return t


# ------------------------------------------------------------------- eval

_EVAL_SUITES = ("labelled", "leaks", "scenarios")


def _esc(text: str) -> str:
    """Text shown as is (fact texts carry brackets that rich would read as markup)."""
    from rich.markup import escape

    return escape(text)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def _eval_labelled_tables(rep: Any) -> list[Table]:
    t = Table(title=f"labelled turns ({rep.extractor}, {rep.policy}, {rep.embedder})")
    for col in ("kind", "n", "keep", "stored", "tp", "fp", "fn", "tn", "precision", "recall", "F1"):
        t.add_column(col, justify="left" if col == "kind" else "right")

    def row(name: str, c: Any, style: str | None = None) -> None:
        t.add_row(
            name,
            str(c.n),
            str(c.tp + c.fn),
            str(c.tp + c.fp),
            str(c.tp),
            str(c.fp),
            str(c.fn),
            str(c.tn),
            _pct(c.precision),
            _pct(c.recall),
            _pct(c.f1),
            style=style,
        )

    row("overall", rep.overall, "bold")
    for name, c in sorted(rep.by_kind.items(), key=lambda kv: (-(kv[1].tp + kv[1].fn), kv[0])):
        row(name, c)
    lt = Table(title="by language and domain")
    for col in ("group", "n", "precision", "recall", "F1", "accuracy"):
        lt.add_column(col, justify="left" if col == "group" else "right")
    for prefix, table in (("lang", rep.by_lang), ("domain", rep.by_domain)):
        for name, c in sorted(table.items()):
            lt.add_row(
                f"{prefix}={name}",
                str(c.n),
                _pct(c.precision),
                _pct(c.recall),
                _pct(c.f1),
                _pct(c.accuracy),
            )
    mt = Table(title="misclassified labelled turns")
    for col in ("id", "error", "kind", "lang", "content", "gate"):
        mt.add_column(col)
    for m in rep.false_negatives + rep.false_positives:
        gate = "; ".join(m.facts) if m.facts else (m.decisions[-1] if m.decisions else "")
        mt.add_row(
            m.id, "FN" if m.keep else "FP", m.kind, m.lang, _esc(m.content[:90]), _esc(gate[:90])
        )
    return [t, lt, mt]


def _eval_leak_table(rep: Any) -> Table:
    t = Table(title=f"leak check ({rep.extractor}, {rep.policy})")
    for col in ("kind", "cases", "leaked", "where"):
        t.add_column(col, justify="right" if col in ("cases", "leaked") else "left")
    where: dict[str, list[str]] = {}
    for r in rep.leaked:
        where.setdefault(r.kind, []).append(f"{r.id} ({', '.join(r.where)})")
    for kind, stats in rep.by_kind.items():
        t.add_row(
            kind,
            str(stats["cases"]),
            str(stats["leaked"]),
            _esc("; ".join(where.get(kind, []))),
            style="red" if stats["leaked"] else None,
        )
    t.add_row("total", str(rep.secrets), str(rep.leaks), "", style="bold")
    masked = "; ".join(
        f"{b.id} ({b.lookalike_kind}: {b.lookalike!r}"
        + (f", masked as {','.join(b.journal_redactions)}" if b.journal_redactions else "")
        + (f", {','.join(b.fact_path_findings)}" if b.fact_path_findings else "")
        + ")"
        for b in rep.benign_masked
    )
    t.add_row(
        "benign look-alikes intact",
        str(rep.benign),
        str(rep.benign_intact),
        _esc(f"{_pct(rep.benign_share)}" + (f"; masked: {masked}" if masked else "")),
        style="bold",
    )
    if rep.erasure is not None:  # its own line: users forgotten, residues left
        t.add_row(*map(_esc, rep.erasure.row()), style="bold" if rep.erasure.ok else "red")
    return t


def _eval_scenario_table(rep: Any) -> Table:
    t = Table(title=f"scenarios ({rep.extractor}, {rep.policy}): {rep.passed}/{rep.total} pass")
    for col in ("scenario", "covers", "result", "first failing check"):
        t.add_column(col)
    for r in rep.results:
        t.add_row(
            r.id,
            ",".join(r.covers),
            "[green]pass[/green]" if r.passed else "[red]FAIL[/red]",
            _esc(r.first_failure),
        )
    return t


@app.command("eval")
def eval_cmd(
    ctx: typer.Context,
    labelled: Annotated[
        Path | None,
        typer.Option("--labelled", help="JSONL of labelled turns (precision, recall, F1)."),
    ] = None,
    leaks: Annotated[
        Path | None,
        typer.Option("--leaks", help="JSONL of PII/credential cases and benign look-alikes."),
    ] = None,
    scenarios: Annotated[
        Path | None, typer.Option("--scenarios", help="JSONL of multi-turn scenarios with checks.")
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
    """Score the gate: labelled turns, a leak check and scenarios, each on fresh stores.

    Without a file option the bundled development corpus runs (all three suites);
    with one or more, only those. Exit code 1 if a secret leaked or a scenario failed.
    """
    from contextlib import ExitStack

    from memgate.evaluation import TARGETS
    from memgate.evaluation import labelled as labelled_eval
    from memgate.evaluation import leaks as leaks_eval
    from memgate.evaluation import scenarios as scenarios_eval
    from memgate.evaluation.common import BUNDLED_FILES
    from stages.policy import PRESETS

    rt = _rt(ctx)
    if policy is not None and policy not in PRESETS:
        raise typer.BadParameter(
            f"unknown write policy {policy!r}; choose from {', '.join(PRESETS)}",
            param_hint="--policy",
        )
    settings = rt.settings.model_copy(update={"policy": policy}) if policy else rt.settings
    given = {"labelled": labelled, "leaks": leaks, "scenarios": scenarios}
    chosen = [s for s in _EVAL_SUITES if given[s] is not None] or list(_EVAL_SUITES)
    dlq: list[str] = []
    if dead_letters is not None:
        try:
            dlq = [ln for ln in dead_letters.read_text(encoding="utf-8").splitlines() if ln]
        except OSError as exc:
            raise typer.BadParameter(str(exc), param_hint="--dead-letters") from None

    out: dict[str, Any] = {"policy": settings.policy, "extractor": settings.extractor}
    lrep: Any = None
    krep: Any = None
    srep: Any = None
    failures: list[str] = []
    targets: dict[str, bool] = {}
    with ExitStack() as stack, _errors():
        paths: dict[str, Path] = {}
        for suite in chosen:
            p = given[suite]
            if p is None:
                res = resources.files("memgate") / "data" / "eval" / BUNDLED_FILES[suite]
                p = stack.enter_context(resources.as_file(res))
            paths[suite] = Path(p)
        embedder = rt.embedder
        out["embedder"] = getattr(embedder, "name", type(embedder).__name__)
        with err.status("", spinner="dots") as status:
            if "labelled" in paths:
                status.update(f"labelled turns: {paths['labelled'].name}")
                lrep = labelled_eval.evaluate(paths["labelled"], settings, embedder)
                out["labelled"] = lrep.as_dict()
                targets["labelled_f1"] = lrep.f1 >= TARGETS["labelled_f1"]
            if "leaks" in paths:
                status.update(f"leak check: {paths['leaks'].name}")
                krep = leaks_eval.evaluate(paths["leaks"], settings, embedder, dead_letters=dlq)
                out["leaks"] = krep.as_dict()
                targets["leaks"] = krep.leaks == 0
                targets["benign_share"] = (krep.benign_share or 0.0) >= TARGETS["benign_share"]
                if krep.leaks:
                    failures.append(
                        f"{krep.leaks} secret(s) leaked: "
                        + ", ".join(f"{r.id} ({', '.join(r.where)})" for r in krep.leaked)
                    )
                targets["erasure"] = krep.erasure is None or krep.erasure.ok
                failures += krep.erasure.failures() if krep.erasure else []
            if "scenarios" in paths:
                status.update(f"scenarios: {paths['scenarios'].name}")
                srep = scenarios_eval.evaluate(paths["scenarios"], settings, embedder)
                out["scenarios"] = srep.as_dict()
                targets["scenarios"] = not srep.failed
                failures += [f"scenario {r.id} failed: {r.first_failure}" for r in srep.failed]
    out["targets"] = targets
    out["ok"] = not failures
    out["failures"] = failures
    if as_json:
        _print_json(out)
    else:
        if lrep is not None:
            for table in _eval_labelled_tables(lrep):
                console.print(table)
        if krep is not None:
            console.print(_eval_leak_table(krep))
        if srep is not None:
            console.print(_eval_scenario_table(srep))
        console.print(
            f"targets ({settings.policy}): "
            + ", ".join(f"{k}={'met' if v else 'MISSED'}" for k, v in targets.items())
        )
    for f in failures:
        err.print(f"[red]FAIL[/red] {_esc(f)}")
    if failures:
        raise typer.Exit(1)


def run() -> None:
    app()


if __name__ == "__main__":
    run()
