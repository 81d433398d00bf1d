"""``memgate forget``: a user's data, from every store, counted before anything is deleted."""

from __future__ import annotations

from typing import Annotated

import typer

from memgate import render
from memgate.cli.common import TenantOpt, UserOpt, console, err
from memgate.cli.options import global_options, session
from memgate.core.errors import MemgateError
from memgate.render import print_error

app = typer.Typer()


@app.command()
@global_options()
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
    rt = session(ctx).runtime
    who = f"{tenant}/{user}"
    again = f"memgate forget -t {tenant} -u {user} --yes"
    try:
        n_facts = len(rt.retrieval.list_facts(tenant, user, include_inactive=True))
        n_audit = rt.audit_rows(tenant, user)
        cache = rt.answer_cache
        n_cached = 0 if cache is None else cache.count(tenant, user)
    except MemgateError as exc:
        print_error(err, f"nothing was deleted: {exc}. Run `{again}` again once the store is free")
        raise typer.Exit(1) from None
    if n_facts == 0 and n_audit == 0 and n_cached == 0:
        # Still run both erasures: they delete nothing here, but finish what an earlier,
        # interrupted forget left on disk (the turn ledger, the WAL, replaced parts).
        try:
            rt.audit.forget(tenant, user)
            rt.retrieval.forget(tenant, user)
        except MemgateError as exc:
            print_error(err, f"nothing stored for {who}, but cleaning up failed: {exc}")
            raise typer.Exit(1) from None
        print_error(
            err,
            f"nothing stored for {who}: no facts and no audit rows (ids are exact and "
            "case-sensitive; `memgate audit --sql` lists the users); any leftovers of an "
            "earlier interrupted forget were cleared",
        )
        raise typer.Exit(1)
    cached = f", {n_cached} cached extractor answers" if n_cached else ""
    if not yes and not typer.confirm(
        f"Delete {n_facts} facts and {n_audit} audit rows{cached} of {who}?"
    ):
        raise typer.Exit(1)
    # The cached answers of the Claude extractor first: derived from the user's (masked)
    # turns, they are worth nothing once the rest is gone, and nothing reads them back.
    if cache is not None:
        try:
            n_cached = cache.forget(tenant, user)
        except MemgateError as exc:
            print_error(err, f"nothing of {who} was deleted: {exc}. Run `{again}` again")
            raise typer.Exit(1) from None
    cached = f", {n_cached} cached extractor answers" if n_cached else ""
    # The audit store first: if it fails, the user's facts are all still there and served;
    # if the retrieval store then fails, the message says the audit rows are gone.
    try:
        n_audit = rt.audit.forget(tenant, user)
    except MemgateError as exc:
        print_error(
            err,
            f"no facts of {who} were deleted{cached and ' (its' + cached[1:] + ' were)'}, "
            f"and the audit rows may be partly deleted: {exc}. "
            f"Run `{again}` again to finish",
        )
        raise typer.Exit(1) from None
    try:
        n_facts = rt.retrieval.forget(tenant, user)
    except MemgateError as exc:
        print_error(
            err,
            f"the {n_audit} audit rows{cached} of {who} were deleted; deleting its {n_facts} facts "
            f"failed or is unfinished: {exc}. Run `{again}` again to finish",
        )
        raise typer.Exit(1) from None
    console.print(render.text(f"forgot {who}: {n_facts} facts, {n_audit} audit rows{cached}"))
