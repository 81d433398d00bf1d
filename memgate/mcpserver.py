"""``memgate mcp``: memory as tools of an MCP server (the official ``mcp`` package).

Three tools, each on :class:`memgate.Memory` and scoped to the tenant of one API key
(:mod:`memgate.apikeys`):

- ``remember(content, user, session, role)``: a message through the gate (triage,
  extraction, redaction, supersede); says how many facts it stored;
- ``recall(query, user, k, as_of)``: hybrid search over the user's facts;
- ``forget(user, fact_id, confirm)``: one fact by id, or the whole user only with
  ``confirm=true``.

Over stdio the key is read once at start (``MEMGATE_API_KEY`` or ``--key-file``);
over streamable HTTP every request carries it (``Authorization: Bearer``), and a
request without a valid one is answered 401 before the MCP layer sees it. A fact
id of another tenant (or user) is not found. A tool's failure is one line for the
model (the memgate error, or an incident id for an unexpected one, logged by type
and place only). Every message, on either transport, is read at most
:data:`memgate.mcpwire.MAX_MESSAGE_BYTES` at a time and vetted before the SDK sees it
(:func:`memgate.mcpwire.vet`): malformed JSON-RPC is answered by a one-line error.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import secrets
import sys
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from datetime import datetime
from typing import Annotated, Any, BinaryIO, ParamSpec, TypeVar

from pydantic import Field, ValidationError

from memgate.api import AsyncMemory, MemgateError, Memory
from memgate.apikeys import KeyStore, bearer_token
from memgate.core.errors import MissingExtra, shown
from memgate.core.events import text_problem
from memgate.mcpwire import MAX_MESSAGE_BYTES, Refusal, too_long, vet

try:
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
except ImportError as exc:  # pragma: no cover - without the extra
    raise MissingExtra("mcp", "the MCP server (memgate mcp)", exc.name) from exc

__all__ = ["build_server", "http_app", "serve_stdio"]

log = logging.getLogger("memgate.mcp")

P = ParamSpec("P")
R = TypeVar("R")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

INSTRUCTIONS = (
    "Long-term memory of the user, behind memgate's write gate. Call `recall` before "
    "answering a question that may depend on what the user said in earlier sessions; call "
    "`remember` with what the user tells you about themselves, their work and their "
    "preferences (secrets and personal data are masked, small talk is dropped). `forget` "
    "deletes one fact by id, or everything about the user with confirm=true."
)


User = Annotated[
    str | None,
    Field(description="The user whose memory this is (default: the server's --user)."),
]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memgate")
    except PackageNotFoundError:
        return "0+unknown"


def _one_line(
    func: Callable[P, Awaitable[R]],
) -> Callable[P, Awaitable[R]]:
    """A tool whose failures reach the model as one line, never a traceback or stored text."""

    @functools.wraps(func)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await func(*args, **kwargs)
        except ToolError:
            raise
        except MemgateError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:
            incident = secrets.token_hex(6)
            log.error("event=mcp_error incident=%s tool=%s error=%s",
                      incident, func.__name__, type(exc).__name__)  # fmt: skip
            raise ToolError(
                f"memgate failed on this call; the server log has incident {incident}"
            ) from None

    return wrapper


def _arguments_problem(exc: ValidationError) -> str:
    """What is wrong with a tool call's arguments, in one line: each argument by name and
    what to send instead, never its value (the caller's data); a lone surrogate named as
    the other surfaces name it (:func:`memgate.core.events.text_problem`)."""
    problems = []
    for e in exc.errors(include_url=False):
        where = ".".join(str(part) for part in e["loc"]) or "arguments"
        given = e.get("input")
        if e["type"] == "string_unicode" and isinstance(given, str):
            what = text_problem(given) or e["msg"]
        else:
            what = e["msg"][:1].lower() + e["msg"][1:]
        problems.append(f"{where}: {what}")
    return "invalid arguments (see the tool's input schema): " + "; ".join(problems)


class _Server(MCPServer[Any]):
    """The SDK's server, with a tool call's invalid arguments reported in one line: the
    SDK gives pydantic's multi-line report, with the rejected value and a URL in it."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            # the same cause: the SDK logs the names of the rejected arguments only
            raise ToolError(
                f"Error executing tool {name}: {_arguments_problem(exc.__cause__)}"
            ) from exc.__cause__


def build_server(
    memory: Memory,
    *,
    keys: KeyStore | None = None,
    tenant: str | None = None,
    default_user: str | None = None,
) -> MCPServer[Any]:
    """The MCP server on ``memory``: for one ``tenant`` (stdio), or for the tenant of each
    request's Bearer key, checked against ``keys`` (streamable HTTP)."""
    if (tenant is None) == (keys is None):
        raise ValueError("give the tenant (stdio) or the key store (HTTP), not both")
    amem = AsyncMemory(memory=memory)
    server: MCPServer[Any] = _Server(name="memgate", instructions=INSTRUCTIONS, version=_version())

    def scope(ctx: Context[Any, Any], user: str | None) -> tuple[str, str]:
        who = user or default_user
        if not who:
            raise ToolError("name the user (the 'user' argument): whose memory is this?")
        if tenant is not None:
            return tenant, who
        assert keys is not None
        headers = ctx.headers or {}
        key = keys.verify(bearer_token(headers.get("authorization")))
        if key is None:
            raise ToolError("missing or invalid API key (Authorization: Bearer <key>)")
        return key.tenant, who

    @server.tool(description="Remember what the user said: it goes through memgate's gate "
                 "(small talk dropped, personal data and secrets masked, updates supersede "
                 "older facts). Returns how many facts were stored.")  # fmt: skip
    @_one_line
    async def remember(
        content: Annotated[str, Field(description="What the user said, as they said it.",
                                      min_length=1, max_length=20_000)],
        ctx: Context[Any, Any],
        user: User = None,
        session: Annotated[str | None, Field(description="Conversation id.")] = None,
        role: Annotated[str, Field(description="Who said it: user or assistant.")] = "user",
    ) -> dict[str, Any]:  # fmt: skip
        t, u = scope(ctx, user)
        added = await amem.add([{"role": role, "content": content}], t, u, session or "mcp")
        return {
            "facts_stored": added.facts_stored,
            "mode": added.mode,
            "replayed": added.replayed,
            "errors": added.errors,
        }

    @server.tool(description="Recall facts about the user relevant to a query (hybrid "
                 "lexical + semantic search over current facts, best first).")  # fmt: skip
    @_one_line
    async def recall(
        query: Annotated[str, Field(description="What to look for.", min_length=1)],
        ctx: Context[Any, Any],
        user: User = None,
        k: Annotated[int, Field(description="Most facts to return.", ge=1, le=50)] = 5,
        as_of: Annotated[
            str | None, Field(description="ISO 8601 time: what was true then.")
        ] = None,
    ) -> dict[str, Any]:  # fmt: skip
        t, u = scope(ctx, user)
        when = None
        if as_of is not None:
            try:
                when = datetime.fromisoformat(as_of.replace("Z", "+00:00"))
            except ValueError:
                raise ToolError(
                    f"as_of {shown(as_of)} is not an ISO 8601 time (e.g. 2024-05-01T00:00:00Z)"
                ) from None
            if when.tzinfo is None:  # the library's message named Python's datetime
                raise ToolError(
                    f"as_of {shown(as_of)} has no time zone: add one (e.g. 2024-05-01T00:00:00Z)"
                )
        found = await amem.search(query, t, u, k=k, as_of=when)
        return {
            "facts": [
                {
                    "fact_id": h.fact.fact_id,
                    "text": h.fact.text,
                    "type": h.fact.type.value,
                    "value": h.fact.value,
                    "valid_from": h.fact.valid_from.isoformat(),
                    "score": round(h.score.final, 6),
                }
                for h in found.hits
            ]
        }

    @server.tool(description="Forget one fact by its id, or everything stored about the user "
                 "(every store) when fact_id is omitted and confirm is true.")  # fmt: skip
    @_one_line
    async def forget(
        ctx: Context[Any, Any],
        user: User = None,
        fact_id: Annotated[str | None, Field(description="The fact to delete.")] = None,
        confirm: Annotated[
            bool, Field(description="Must be true to forget the whole user.")
        ] = False,
    ) -> dict[str, Any]:  # fmt: skip
        t, u = scope(ctx, user)
        if fact_id is not None:
            fact = await amem.delete(fact_id, t, u)
            return {"deleted": fact.fact_id, "text": fact.text}
        if not confirm:
            raise ToolError(
                "forgetting the whole user erases every fact and audit row: call again with "
                "confirm=true, or pass fact_id to delete one fact"
            )
        res = await amem.forget(t, u)
        return {"forgotten": f"{t}/{u}", "facts": res.facts, "audit_rows": res.audit_rows}

    return server


class _RequireKey:
    """401 (a problem document) for an HTTP request without a valid tenant key."""

    def __init__(self, app: ASGIApp, keys: KeyStore) -> None:
        self.app, self.keys = app, keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = next(
                (v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"authorization"),
                None,
            )
            if self.keys.verify(bearer_token(header)) is None:
                from starlette.responses import JSONResponse

                doc = {
                    "type": "urn:memgate:problem:unauthorized",
                    "title": "Missing or invalid API key",
                    "status": 401,
                    "detail": "send a tenant API key as 'Authorization: Bearer <key>' "
                    "(memgate keys create)",
                }
                response = JSONResponse(
                    doc, status_code=401, media_type="application/problem+json",
                    headers={"WWW-Authenticate": 'Bearer realm="memgate"'},
                )  # fmt: skip
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _refuse(
    refusal: Refusal, status: int, scope: Scope, receive: Receive, send: Send
) -> None:
    from starlette.responses import Response

    body = refusal.answer().model_dump_json(by_alias=True, exclude_unset=True)
    response = Response(body, status_code=status, media_type="application/json")
    await response(scope, receive, send)


class _VetBody:
    """Each POST body read (at most :data:`MAX_MESSAGE_BYTES`) and vetted
    (:func:`memgate.mcpwire.vet`) before the SDK sees it: a refused one is answered with
    its JSON-RPC error in one line (400, or 413 when too long)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", "")).rstrip("/")
        if scope["type"] != "http" or scope.get("method") != "POST" or path != "/mcp":
            await self.app(scope, receive, send)
            return
        declared = next((v for k, v in scope.get("headers", ()) if k == b"content-length"), b"")
        if declared.isdigit() and int(declared) > MAX_MESSAGE_BYTES:
            await _refuse(too_long(size=int(declared)), 413, scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client left
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_MESSAGE_BYTES:
                await _refuse(too_long(chunks[0] if chunks else chunk), 413, scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        outcome = vet(body)
        if isinstance(outcome, Refusal):
            await _refuse(outcome, 400, scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def http_app(memory: Memory, keys: KeyStore, *, host: str = "127.0.0.1",
             default_user: str | None = None) -> ASGIApp:  # fmt: skip
    """The streamable HTTP app (path ``/mcp``), each request needing a tenant key."""
    server = build_server(memory, keys=keys, default_user=default_user)
    inner: ASGIApp = server.streamable_http_app(
        streamable_http_path="/mcp", stateless_http=True, json_response=True, host=host
    )
    return _RequireKey(_VetBody(inner), keys)


def read_line(stream: BinaryIO) -> bytes | None:
    """The next line of ``stream`` (``None`` at its end), read in at most
    :data:`MAX_MESSAGE_BYTES` + 1 bytes: the rest of a longer line is read and dropped a
    block at a time, and the line given cut, one byte over the limit."""
    line = stream.readline(MAX_MESSAGE_BYTES + 1)
    if len(line) > MAX_MESSAGE_BYTES and not line.endswith(b"\n"):
        while (rest := stream.readline(1 << 16)) and not rest.endswith(b"\n"):
            pass
    return line or None


@contextlib.contextmanager
def _claimed_stdin() -> Iterator[BinaryIO]:
    """The wire on stdin, read from a duplicate while descriptor 0 points at the null
    device (as the SDK's transport did: a handler or child reads EOF, never the wire)."""
    try:
        wire = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        yield sys.stdin.buffer
        return
    os.dup2(null, 0)
    os.close(null)
    try:  # never closed: a worker thread may still block reading it at the end
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        os.dup2(wire, 0)


async def serve_stdio(server: MCPServer[Any]) -> None:
    """``server`` over stdin and stdout: each line read by :func:`read_line` and vetted
    (:func:`memgate.mcpwire.vet`), a refused one answered with its JSON-RPC error and the
    next line served; the SDK's transport writes the answers (and keeps stray output off
    stdout)."""
    import io

    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    nothing = anyio.wrap_file(io.StringIO())  # the SDK reads no stdin: read_line does
    with _claimed_stdin() as stdin:
        async with stdio_server(stdin=nothing) as (_, write_stream):
            send, receive = anyio.create_memory_object_stream[Any](0)

            async def pump() -> None:
                async with send:
                    while (line := await anyio.to_thread.run_sync(
                            read_line, stdin, abandon_on_cancel=True)) is not None:  # fmt: skip
                        if not line.strip():
                            continue
                        outcome = vet(line)
                        if isinstance(outcome, Refusal):
                            await write_stream.send(SessionMessage(outcome.answer()))
                        else:
                            await send.send(SessionMessage(outcome))

            async with anyio.create_task_group() as tg:
                tg.start_soon(pump)
                low = server._lowlevel_server
                await low.run(receive, write_stream, low.create_initialization_options())


def tenant_of(keys: KeyStore, key: str | None) -> str:
    """The tenant of the stdio server's key, or one line saying what to do."""
    if not key:
        raise MemgateError(
            "memgate mcp needs a tenant API key: set MEMGATE_API_KEY or pass --key-file "
            "(memgate keys create --tenant TENANT)"
        )
    rec = keys.verify(key.strip())
    if rec is None:
        raise MemgateError(
            f"the API key is not valid in {keys.path} (unknown or revoked): memgate keys list"
        )
    return rec.tenant
