"""``memgate consolidate`` (the lifecycle jobs: settle, merge, fold, retention, off the
request path) and ``memgate replay`` (the journal through another policy or extractor)."""

from __future__ import annotations

from typing import Annotated

import typer

from memgate import render
from memgate.cli.args import check_id, check_time, parse_instant
from memgate.cli.common import console, errors, print_json
from memgate.cli.options import global_options, session
from memgate.lifecycle import consolidate as run_consolidate

app = typer.Typer()


@app.command()
@global_options(output=True)
def consolidate(
    ctx: typer.Context,
    tenant: Annotated[
        str | None,
        typer.Option("--tenant", "-t", help="Only this tenant (default: all).", callback=check_id),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option("--user", "-u", help="Only this user (needs --tenant).", callback=check_id),
    ] = None,
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
    if user is not None and tenant is None:
        raise typer.BadParameter("--user needs --tenant", param_hint="--user")
    s = session(ctx)
    rt = s.runtime
    with errors():
        result = run_consolidate(
            rt.retrieval, rt.audit, rt.embedder, rt.settings, tenant=tenant, user=user,
            now=parse_instant(now) if now else None, dry_run=dry_run,
        )  # fmt: skip
    if s.json:
        print_json(result.model_dump(mode="json"))
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
    tenant: Annotated[
        str | None,
        typer.Option("--tenant", "-t", help="Only this tenant (default: all).", callback=check_id),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option("--user", "-u", help="Only this user (needs --tenant).", callback=check_id),
    ] = None,
) -> None:
    """Run the journal's turns (redacted text: the raw turns are never stored) through the
    gate the current settings build (--policy, --extractor, tenant_policies) and report
    the facts added, dropped and superseded, by tenant and reason; --apply writes them,
    recording the old and new versions on every affected fact."""
    from memgate.replay import replay as run_replay

    if shadow == apply:
        raise typer.BadParameter("pass exactly one of --shadow and --apply", param_hint="--shadow")
    if user is not None and tenant is None:
        raise typer.BadParameter("--user needs --tenant", param_hint="--user")
    s = session(ctx)
    rt = s.runtime
    with errors():
        report = run_replay(
            rt.retrieval, rt.audit, rt.embedder, rt.settings, tenant=tenant, user=user,
            apply=apply,
        )  # fmt: skip
    if s.json:
        print_json(report.model_dump(mode="json"))
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
