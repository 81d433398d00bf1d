"""``memgate forget``: a user's data, from every store, counted before anything is deleted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from memgate import render
from memgate.cli.args import check_fact_id
from memgate.cli.common import TenantOpt, UserOpt, console, err, print_json
from memgate.cli.options import global_options, session
from memgate.core.errors import InvalidRequest, MemgateError, shown
from memgate.keys import hmac_key
from memgate.receipts import (
    erase_fact,
    erase_user_audit,
    erase_user_facts,
    expunge,
    user_receipt,
)
from memgate.render import print_error

if TYPE_CHECKING:
    from memgate.runtime import Runtime

app = typer.Typer()


@app.command()
@global_options(output=True)
def forget(
    ctx: typer.Context,
    tenant: TenantOpt,
    user: UserOpt,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
    fact: Annotated[
        str | None,
        typer.Option(
            "--fact", help="Erase only this fact of the user (its id).", callback=check_fact_id
        ),
    ] = None,
) -> None:
    """Delete everything stored about a user (or one fact of it), from every store.

    Both stores are opened and counted before anything is deleted. Exit code 1
    when nothing is stored for the user, or when a store fails (the message
    says what was already deleted; running the command again finishes). The
    audit rows are kept as skeletons (pseudonymous ids, no content) so that
    counts still add up. ``--json`` prints the deletion receipt.
    """
    s = session(ctx)
    rt = s.runtime
    try:  # the key names the audit skeletons and the receipt: another one stops here
        hmac_key(rt.settings)
    except MemgateError as exc:
        print_error(err, f"nothing was deleted: {exc}")
        raise typer.Exit(1) from None
    if fact is not None:
        _forget_fact(s.json, rt, tenant, user, fact, yes)
        return
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
            erase_user_audit(rt.settings, rt.audit, tenant, user)
            erase_user_facts(rt.retrieval, tenant, user)
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
    removed: dict[str, dict[str, int]] = {}
    if cache is not None:
        removed["answer_cache"] = {"answers": n_cached}
    try:
        removed["audit"], kept = erase_user_audit(rt.settings, rt.audit, tenant, user)
        n_audit = sum(removed["audit"].values())
    except MemgateError as exc:
        print_error(
            err,
            f"no facts of {who} were deleted{cached and ' (its' + cached[1:] + ' were)'}, "
            f"and the audit rows may be partly deleted: {exc}. "
            f"Run `{again}` again to finish",
        )
        raise typer.Exit(1) from None
    try:
        removed["retrieval"] = erase_user_facts(rt.retrieval, tenant, user)
        n_facts = next(iter(removed["retrieval"].values()))
        compaction = expunge(rt.retrieval)  # bounded; reports, never raises
    except MemgateError as exc:
        print_error(
            err,
            f"the {n_audit} audit rows{cached} of {who} were deleted; deleting its {n_facts} facts "
            f"failed or is unfinished: {exc}. Run `{again}` again to finish",
        )
        raise typer.Exit(1) from None
    if s.json:
        receipt = user_receipt(
            rt.settings, tenant, user, removed, {"audit": kept} if kept else {}, compaction
        )
        print_json(receipt.model_dump(mode="json"))
        return
    skeleton = " (kept as skeletons without content)" if kept else ""
    console.print(
        render.text(f"forgot {who}: {n_facts} facts, {n_audit} audit rows{skeleton}{cached}")
    )


def _forget_fact(as_json: bool, rt: Runtime, tenant: str, user: str, fact: str, yes: bool) -> None:
    who = f"{tenant}/{user}"
    if not yes and not typer.confirm(f"Erase fact {fact} of {who}?"):
        raise typer.Exit(1)
    try:
        done = erase_fact(rt.settings, rt.retrieval, rt.audit, tenant, user, fact)
    except MemgateError as exc:
        print_error(err, f"erasing fact {fact} of {who} failed: {exc}. Run the command again")
        raise typer.Exit(1) from None
    if done is None:
        print_error(
            err, InvalidRequest(f"no fact {shown(fact)} for {who} (`memgate facts` lists them)")
        )
        raise typer.Exit(1)
    receipt = done[1]
    if as_json:
        print_json(receipt.model_dump(mode="json"))
        return
    counts = ", ".join(
        f"{store} {sum(rows.values())} rows" for store, rows in receipt.removed.items()
    )
    console.print(render.text(f"erased fact {fact} of {who}: {counts}"))
