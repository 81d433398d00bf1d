"""``memgate worker`` and ``memgate produce``: the streaming path on Kafka (the ``kafka`` extra)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from memgate import render
from memgate.cli.args import LogLevel
from memgate.cli.common import console, err, errors, log, report_read_errors
from memgate.cli.options import global_options, session
from memgate.core.errors import MemgateError
from memgate.core.settings import mask_secrets
from memgate.render import print_note

if TYPE_CHECKING:
    from memgate.core.settings import Settings
    from memgate.runtime import Runtime
    from memgate.streams.consolidator import Consolidator
    from memgate.streams.metrics import Metrics

app = typer.Typer()


@app.command()
@global_options()
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

    from memgate.backends import build_pipeline
    from memgate.streams.metrics import Metrics

    rt = session(ctx).runtime
    s = rt.settings
    with errors():
        # first: without the 'kafka' extra this is the one error line
        from memgate.streams.app import (
            Worker,
            create_app,
            ensure_topics,
            run_worker,
            worker_readiness,
        )

        metrics = Metrics()
        port = s.metrics_port if metrics_port is None else metrics_port
        w = Worker(
            settings=s,
            pipeline=build_pipeline(s, rt.embedder),
            retrieval=rt.retrieval,
            audit=rt.audit,
            metrics=metrics,
            consolidator=worker_consolidator(rt, metrics),
        )
        w.warm()  # the model before the first candidate, not during it
        fapp = create_app(w)
        created = asyncio.run(ensure_topics(s))
        if created:
            log.info("event=topics_created topics=%s", ",".join(created))
        if port:  # last: an open metrics port means the stores and topics are ready
            metrics.serve(port, s.metrics_host, worker_readiness(fapp, rt.retrieval, rt.audit))
    where = f"{s.metrics_host}:{port} (/metrics /live /ready)" if port else "off"
    every = s.consolidate_every_minutes
    print_note(
        err,
        f"memgate worker: kafka={mask_secrets(s.kafka_bootstrap)} "
        f"({s.kafka_security_protocol}) prefix={s.topic_prefix} "
        f"retrieval={s.retrieval_backend} audit={s.audit_backend} metrics={where} "
        f"consolidate={f'every {every:g} min' if every > 0 else 'off'}",
        style="",
    )
    if shared_key_missing(s):
        print_note(err, SHARED_KEY_NOTE)
    run_worker(fapp, loglevel.value, s.worker_uvloop)


#: Said at start by a worker on a shared OpenSearch index with neither ``MEMGATE_HMAC_KEY``
#: nor ``MEMGATE_HMAC_KEY_FILE``.
SHARED_KEY_NOTE = (
    "warning: MEMGATE_HMAC_KEY is not set, so this worker keys fact ids and tombstones with "
    "the key file made for its own data dir (memgate config shows it). Workers writing to "
    "one OpenSearch index must share one key, or a partition moved to another worker makes "
    "other ids for the same facts: set MEMGATE_HMAC_KEY to one secret of at least 32 "
    "characters on every worker (e.g. openssl rand -hex 32), or MEMGATE_HMAC_KEY_FILE to "
    "one key file every worker reads"
)


def shared_key_missing(s: Settings) -> bool:
    """A worker on a shared index (OpenSearch) whose key is its data dir's own file."""
    return s.retrieval_backend == "opensearch" and s.hmac_key is None and s.hmac_key_file is None


def worker_consolidator(rt: Runtime, metrics: Metrics) -> Consolidator | None:
    """The consolidation timer of a worker (``consolidate_every_minutes``; 0: none)."""
    from memgate.keys import hmac_key
    from memgate.lifecycle import consolidate_user
    from memgate.streams.consolidator import Consolidator

    s = rt.settings
    if s.consolidate_every_minutes <= 0:
        return None
    key = hmac_key(s)  # folded facts' ids are keyed, like the gate's

    def run_user(tenant: str, user: str, now: datetime) -> dict[str, int]:
        plan = consolidate_user(
            rt.retrieval, rt.embedder, s, tenant, user, now=now, audit=rt.audit, id_key=key
        )
        return plan.counts()

    return Consolidator(run_user, metrics, s.consolidate_every_minutes)


@app.command()
@global_options()
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

    s = session(ctx).runtime.settings
    read_errors = ReadErrors()
    with errors():
        from memgate.streams.producer import produce_lines, produce_turns

        if not file.is_file():
            raise MemgateError(f"{file} does not exist or is not a file")
        if raw:
            lines = (text for _, text in read_lines(file, read_errors))
            n = asyncio.run(produce_lines(s, lines))
        else:
            n = asyncio.run(produce_turns(s, read_turns(file, read_errors)))
    console.print(
        render.text(
            f"sent {n} turns to {s.topic_prefix}.turns at {mask_secrets(s.kafka_bootstrap)}"
        )
    )
    report_read_errors(read_errors)
