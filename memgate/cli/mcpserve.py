"""``memgate mcp``: the MCP server, over stdio (one tenant's key) or streamable HTTP."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from memgate.cli.args import check_id, check_text
from memgate.cli.common import err, errors, key_store
from memgate.cli.options import global_options, session
from memgate.core.errors import MemgateError
from memgate.render import print_note

app = typer.Typer()


class Transport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


def _read_key(key_file: Path | None) -> str | None:
    if key_file is None:
        return os.environ.get("MEMGATE_API_KEY")
    try:
        return key_file.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise MemgateError(f"cannot read the key file {key_file}: {exc.strerror}") from None


@app.command("mcp")
@global_options()
def mcp_command(
    ctx: typer.Context,
    transport: Annotated[
        Transport, typer.Option(help="stdio (an agent launches memgate) or http (streamable).")
    ] = Transport.STDIO,
    key_file: Annotated[
        Path | None,
        typer.Option(help="stdio: a file holding the tenant API key (else MEMGATE_API_KEY)."),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option(help="The user the tools act for when a call names none.", callback=check_id),
    ] = None,
    host: Annotated[
        str | None, typer.Option(help="http: address (default http_host).", callback=check_text)
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="http: port (default http_port).", min=0, max=65535)
    ] = None,
) -> None:
    """Serve memory as MCP tools (remember, recall, forget) for the tenant of an API key."""
    from memgate.api import Memory
    from memgate.core.errors import require_extra

    rt = session(ctx).runtime
    s = rt.settings
    with errors():
        from memgate.mcpserver import build_server, http_app, tenant_of

        keys = key_store(s)
        memory = Memory(runtime=rt)
        if transport is Transport.STDIO:
            tenant = tenant_of(keys, _read_key(key_file))
            server = build_server(memory, tenant=tenant, default_user=user)
        else:
            require_extra("uvicorn", "mcp", "the MCP server over HTTP (memgate mcp)")
            from memgate.asgi import run

            h, p = host or s.http_host, s.http_port if port is None else port
            asgi = http_app(memory, keys, host=h, default_user=user)
    try:
        if transport is Transport.STDIO:
            print_note(err, f"memgate mcp: stdio, tenant {tenant}", style="")
            import anyio

            from memgate.mcpserver import serve_stdio

            anyio.run(serve_stdio, server)
        else:
            print_note(err, f"memgate mcp: http://{h}:{p}/mcp (Bearer tenant keys)", style="")
            run(asgi, h, p, request_timeout=s.http_request_timeout_s)
    finally:
        memory.close()
