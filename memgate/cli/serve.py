"""``memgate serve`` (the HTTP service) and ``memgate keys`` (its tenant API keys)."""

from __future__ import annotations

from typing import Annotated

import typer

from memgate import render
from memgate.cli.args import check_id, check_text
from memgate.cli.common import console, err, errors, key_store, print_json
from memgate.cli.options import global_options, session
from memgate.render import print_note

app = typer.Typer()
keys_app = typer.Typer(
    help="Tenant API keys of memgate serve and memgate mcp (stored hashed).",
    no_args_is_help=True,
)


@app.command()
@global_options()
def serve(
    ctx: typer.Context,
    host: Annotated[
        str | None,
        typer.Option(
            help="Address to listen on (default: the http_host setting).", callback=check_text
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(help="Port (default: the http_port setting).", min=0, max=65535),
    ] = None,
    openapi: Annotated[
        bool, typer.Option("--openapi", help="Print the OpenAPI description and exit.")
    ] = False,
) -> None:
    """Serve memory over HTTP: add, search, get, history, delete, forget, per tenant key."""
    from memgate.api import Memory
    from memgate.core.errors import require_extra

    rt = session(ctx).runtime
    s = rt.settings
    with errors():
        from memgate.service import create_app, run

        memory = Memory(runtime=rt)
        keys = key_store(s)
        fapp = create_app(memory, keys)
        if openapi:
            print_json(fapp.openapi())
            return
        require_extra("uvicorn", "http", "the HTTP service (memgate serve)")
        active = [k for k in keys.list() if k.active]
    if not active:
        print_note(
            err,
            f"warning: no API key in {s.api_keys_path}: every /v1 request will get 401. "
            "Create one with: memgate keys create --tenant TENANT",
        )
    h, p = host or s.http_host, s.http_port if port is None else port
    print_note(
        err,
        f"memgate serve: http://{h}:{p} (/v1, /docs, /openapi.json, /live, /ready, /metrics) "
        f"retrieval={s.retrieval_backend} audit={s.audit_backend} writes={s.write_mode} "
        f"keys={len(active)}",
        style="",
    )
    try:
        run(fapp, h, p, request_timeout=s.http_request_timeout_s)
    finally:
        memory.close()


@keys_app.command("create")
@global_options()
def keys_create(
    ctx: typer.Context,
    tenant: Annotated[
        str,
        typer.Option("--tenant", "-t", help="The tenant the key reaches.", callback=check_id),
    ],
    label: Annotated[
        str, typer.Option(help="A note on who holds the key.", callback=check_text)
    ] = "",
) -> None:
    """Create a key for TENANT and print it once (only its scrypt digest is stored)."""
    with errors():
        key, rec = key_store(session(ctx).runtime.settings).create(tenant, label)
    console.print(render.text(key))
    print_note(
        err,
        f"key {rec.key_id} for tenant {rec.tenant}: copy it now, it is not shown again "
        f"(revoke with: memgate keys revoke {rec.key_id})",
    )


@keys_app.command("list")
@global_options(output=True)
def keys_list(
    ctx: typer.Context,
    tenant: Annotated[
        str | None,
        typer.Option("--tenant", "-t", help="Only this tenant's.", callback=check_id),
    ] = None,
) -> None:
    """List the keys (ids, tenants, labels, dates; never the keys themselves)."""
    sess = session(ctx)
    with errors():
        keys = key_store(sess.runtime.settings).list(tenant)
    rows = [k.public() for k in keys]
    if sess.json:
        print_json(rows)
        return
    if not rows:
        print_note(err, "no keys (memgate keys create --tenant TENANT)")
        return
    for r in rows:
        state = f"revoked {r['revoked_at']}" if r["revoked_at"] else "active"
        console.print(
            render.text(f"{r['key_id']}  {r['tenant']}  {state}  created {r['created_at']}  "
                        f"{r['label']}")
        )  # fmt: skip


@keys_app.command("revoke")
@global_options()
def keys_revoke(
    ctx: typer.Context,
    key_id: Annotated[
        str, typer.Argument(help="The key id (memgate keys list).", callback=check_text)
    ],
) -> None:
    """Revoke a key: a running server refuses it from its next request on."""
    with errors():
        rec = key_store(session(ctx).runtime.settings).revoke(key_id)
    console.print(render.text(f"revoked {rec.key_id} (tenant {rec.tenant}) at {rec.revoked_at}"))
