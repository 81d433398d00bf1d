"""``memgate consolidate`` (the lifecycle jobs: settle, merge, fold, retention, off the
request path) and ``memgate replay`` (the journal through another policy or extractor)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

import typer
from pydantic import BaseModel

from memgate import render
from memgate.cli.args import check_id, check_time, parse_instant
from memgate.cli.common import console, errors, print_json
from memgate.cli.options import global_options, session
from memgate.lifecycle import consolidate as run_consolidate

app = typer.Typer()

#: The scope of a job: ``--tenant`` alone, ``--tenant`` and ``--user``, or everything.
Tenant = Annotated[
    str | None,
    typer.Option("--tenant", "-t", help="Only this tenant (default: all).", callback=check_id),
]
User = Annotated[
    str | None,
    typer.Option("--user", "-u", help="Only this user (needs --tenant).", callback=check_id),
]
_Result = TypeVar("_Result", bound=BaseModel)


def _run_scoped(
    ctx: typer.Context,
    job: Callable[..., _Result],
    tenant: str | None,
    user: str | None,
    **options: object,
) -> _Result | None:
    """Run ``job`` over the session's stores for the scope; ``None`` once printed as JSON.

    ``--user`` without ``--tenant`` is a usage error (exit code 2).
    """
    if user is not None and tenant is None:
        raise typer.BadParameter("--user needs --tenant", param_hint="--user")
    s = session(ctx)
    rt = s.runtime
    with errors():
        result = job(
            rt.retrieval, rt.audit, rt.embedder, rt.settings, tenant=tenant, user=user, **options
        )
    if s.json:
        print_json(result.model_dump(mode="json"))
        return None
    return result


@app.command()
@global_options(output=True)
def consolidate(
    ctx: typer.Context,
    tenant: Tenant = None,
    user: User = None,
    now: Annotated[
        str | None,
        typer.Option(
            "--now",
            help="ISO time the retention TTL is measured at (default: the current time).",
            callback=check_time,
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Report what would change; write nothing.")
    ] = False,
) -> None:
    """Settle pending facts, merge near-duplicates, fold episodes and apply retention.

    Idempotent: a second run right after the first changes nothing. Every change
    is a decision record (stages consolidate and retention) and a fact history row.
    """
    result = _run_scoped(
        ctx, run_consolidate, tenant, user,
        now=parse_instant(now) if now else None, dry_run=dry_run,
    )  # fmt: skip
    if result is None:
        return
    verb = "would change" if dry_run else "changed"
    counts = ", ".join(f"{n} {v}" for v, n in sorted(result.decisions.items())) or "nothing"
    console.print(
        render.text(
            f"consolidate: {result.users} users read, {result.changed_users} {verb} "
            f"({counts}); {result.facts_written} facts written, "
            f"{result.facts_deleted} episodes retired into digests"
        )
    )


@app.command()
@global_options(output=True)
def replay(
    ctx: typer.Context,
    shadow: Annotated[
        bool, typer.Option("--shadow", help="Report what would change; write nothing.")
    ] = False,
    apply: Annotated[bool, typer.Option("--apply", help="Write the changes.")] = False,
    tenant: Tenant = None,
    user: User = None,
    now: Annotated[
        str | None,
        typer.Option(
            "--now",
            help="ISO time the replay runs at: every decision and change it makes is stamped "
            "with it (default: the current time).",
            callback=check_time,
        ),
    ] = None,
) -> None:
    """Run the journal's turns (redacted text: the raw turns are never stored) through the
    gate the current settings build (--policy, --extractor rules|statements|hybrid|anthropic,
    tenant_policies) and report the facts added, dropped and superseded, by tenant and
    reason; --apply writes them, recording the old and new versions on every affected fact.
    --now pins the replay's clock, so the same journal replays to the same result."""
    from memgate.replay import replay as run_replay

    if shadow == apply:
        raise typer.BadParameter("pass exactly one of --shadow and --apply", param_hint="--shadow")
    report = _run_scoped(
        ctx, run_replay, tenant, user, apply=apply, now=parse_instant(now) if now else None
    )
    if report is None:
        return
    verb = "changed" if apply else "would change"
    counts = ", ".join(f"{n} {k}" for k, n in sorted(report.counts.items())) or "nothing"
    console.print(
        render.text(
            f"replay of {report.turns} journal turns (redacted text) over {report.users} users "
            f"{verb}: {counts}"
        )
    )
    for reason, n in sorted(report.by_reason.items()):
        console.print(render.text(f"  {n:>5}  {reason}"))
