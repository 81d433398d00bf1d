"""``memgate search`` and ``memgate facts``: what is stored about one user, and how it ranks."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memgate import render
from memgate.cli.args import check_query, check_time, parse_instant
from memgate.cli.common import TenantOpt, UserOpt, console, errors, print_json
from memgate.cli.options import global_options, session
from memgate.recall import MAX_K
from memgate.runtime import Runtime

if TYPE_CHECKING:
    from memgate.api import MemoryHit
    from memgate.core.events import StoredFact

app = typer.Typer()


def _parse_time(s: str | None) -> datetime | None:
    if s is None:
        return None
    try:
        return parse_instant(s)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


def fact_row(f: StoredFact) -> dict[str, Any]:
    """A fact as JSON, without its vectors."""
    d: dict[str, Any] = f.model_dump(mode="json", exclude={"embedding", "search_embedding"})
    return d


def hit_row(h: MemoryHit) -> dict[str, Any]:
    """A hit as JSON: the final score and ranks first, the fact with its provenance flat."""
    f = h.fact
    fact = f.model_dump(mode="json", exclude={"provenance", "usage"})
    fact.update(f.provenance.model_dump(mode="json"))
    fact["usage"] = f.usage.model_dump(mode="json")
    return {
        "score": round(h.score.final, 6),
        "bm25_rank": h.score.lexical_rank,
        "vector_rank": h.score.dense_rank,
        "relevance": None if h.score.relevance is None else round(h.score.relevance, 4),
        "fused": round(h.score.fused, 6),
        "decay": round(h.score.decay, 4),
        "tokens": h.tokens,
        "fact": fact,
    }


def show_search(
    rt: Runtime,
    query: str,
    tenant: str,
    user: str,
    *,
    k: int = 5,
    as_of: str | None = None,
    now: str | None = None,
    min_score: float | None = None,
    token_budget: int | None = None,
    as_json: bool = False,
) -> None:
    """Search one user's facts through the library and print the hits (a table, or JSON)."""
    from memgate.api import Memory

    with errors(), Memory(runtime=rt) as memory:
        result = memory.search(
            query, tenant, user, k=k, as_of=_parse_time(as_of), now=_parse_time(now),
            min_score=min_score, token_budget=token_budget,
        )  # fmt: skip
    if as_json:
        print_json([hit_row(h) for h in result.hits])
        return
    title = f"search {query!r} tenant={tenant} user={user}" + (f" as-of={as_of}" if as_of else "")
    console.print(render.search_table(result.hits, title))
    if not result.hits:
        why = (
            f" ({result.below_floor} under the relevance floor {result.min_score}; "
            "--min-score -1 shows them)"
            if result.below_floor
            else " (is the tenant/user right? try `memgate facts`)"
        )
        console.print(render.text("no facts matched" + why))


@app.command()
@global_options(output=True)
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
    now: Annotated[
        str | None,
        typer.Option(
            "--now",
            help="ISO time to rank at: facts decay by their age at this instant "
            "(default: the current time).",
            callback=check_time,
        ),
    ] = None,
    min_score: Annotated[
        float | None,
        typer.Option(
            "--min-score",
            help="Relevance floor: cosine of query and fact, -1 to 1 (default: the "
            "min_relevance setting, 0.3).",
            min=-1.0,
            max=1.0,
        ),
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget",
            help="Tokens of fact text to return (default: the token_budget setting; 0: no limit).",
            min=0,
        ),
    ] = None,
) -> None:
    """Hybrid search (BM25 + vectors, fused by reciprocal rank) over one user's facts."""
    s = session(ctx)
    show_search(
        s.runtime, query, tenant, user, k=k, as_of=as_of, now=now, min_score=min_score,
        token_budget=budget, as_json=s.json,
    )  # fmt: skip


@app.command()
@global_options(output=True)
def facts(
    ctx: typer.Context,
    tenant: TenantOpt,
    user: UserOpt,
    show_all: Annotated[
        bool, typer.Option("--all", help="Include superseded and pending facts.")
    ] = False,
) -> None:
    """What is stored about a user, and why (rule, source turns, policy)."""
    s = session(ctx)
    with errors():
        rows = s.runtime.retrieval.list_facts(tenant, user, include_inactive=show_all)
    if s.json:
        print_json([fact_row(f) for f in rows])
        return
    console.print(render.facts_table(rows, f"facts tenant={tenant} user={user}"))
