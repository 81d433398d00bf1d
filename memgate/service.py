"""``memgate serve``: :class:`memgate.Memory` over HTTP (FastAPI, served by uvicorn).

Every operation of the library under ``/v1/tenants/{tenant}/users/{user}``:
``POST .../memories`` (add messages or turns), ``POST .../search``, ``GET
.../memories`` (get_all), ``GET .../memories/{fact_id}``, ``GET
.../memories/{fact_id}/history``, ``DELETE .../memories/{fact_id}`` and ``DELETE
.../users/{user}`` (forget); ``GET /v1/tenants/{tenant}/users`` lists the users.
Beside them ``/live``, ``/ready`` (503 naming the store that does not answer),
``/metrics`` (this process's Prometheus registry, with every request counted and timed
by route template: :class:`HttpMetrics`) and ``/openapi.json``.

Each ``/v1`` request carries a tenant API key (``Authorization: Bearer mgk_...``,
:mod:`memgate.apikeys`). The tenant comes from the key: a path or a turn naming
another tenant is refused with 403 before any store is touched. Bodies over
``http_max_body_bytes`` get 413, malformed ones 422; every error is an RFC 9457
problem document (``application/problem+json``), never a traceback. A failure the
service did not expect is logged by its type and place only (never its message,
which could quote stored text) and answered with a 500 problem naming an
``instance`` id to find the log line.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Annotated, Any

from prometheus_client import generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from memgate.core.errors import MissingExtra

try:
    from fastapi import Depends, FastAPI, Path, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse, Response
    from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
    from starlette.exceptions import HTTPException
    from starlette.routing import Match, Router
except ImportError as exc:  # pragma: no cover - without the extra
    raise MissingExtra("http", "the HTTP service (memgate serve)", exc.name) from exc

from memgate.api import (
    AddResult,
    FactNotFound,
    ForgetResult,
    HistoryEntry,
    InvalidRequest,
    MemgateError,
    Memory,
    MemoryFact,
    SearchResult,
)
from memgate.apikeys import ApiKey, KeyStore
from memgate.asgi import BackgroundServer, run
from memgate.core.errors import AuthenticationError, ConfigError
from memgate.core.events import FactType
from memgate.recall import MAX_K, MAX_QUERY_CHARS
from memgate.streams.health import Readiness
from memgate.streams.metrics import Metrics

__all__ = ["BackgroundServer", "create_app", "openapi_document", "run"]

log = logging.getLogger("memgate.http")

PROBLEM_JSON = "application/problem+json"
_PROBLEM = "urn:memgate:problem:"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# -- problem documents ------------------------------------------------------------------


class Problem(BaseModel):
    """An RFC 9457 problem document: what went wrong, in one line (``detail``)."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="A URI naming the kind of problem.")
    title: str
    status: int
    detail: str
    instance: str | None = None


class ProblemError(HTTPException):
    """An HTTP error answered with a problem document of kind ``kind``."""

    def __init__(self, status: int, kind: str, title: str, detail: str, **extra: Any) -> None:
        super().__init__(status_code=status, detail=detail)
        self.kind, self.title, self.extra = kind, title, extra


def problem(
    status: int, kind: str, title: str, detail: str, headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:  # fmt: skip
    doc = {"type": _PROBLEM + kind, "title": title, "status": status, "detail": detail, **extra}
    return JSONResponse(doc, status_code=status, media_type=PROBLEM_JSON, headers=headers)


_TITLES = {
    400: ("bad-request", "Bad request"),
    401: ("unauthorized", "Missing or invalid API key"),
    403: ("forbidden", "Forbidden"),
    404: ("not-found", "Not found"),
    405: ("method-not-allowed", "Method not allowed"),
    413: ("too-large", "Request body too large"),
    415: ("unsupported-media-type", "Unsupported media type"),
}


def _http_problem(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if isinstance(exc, ProblemError):
        kind, title, extra = exc.kind, exc.title, exc.extra
    else:
        kind, title = _TITLES.get(exc.status_code, ("http-error", "HTTP error"))
        extra = {}
    detail = exc.detail if isinstance(exc.detail, str) else title
    headers = dict(exc.headers or {})
    if exc.status_code == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="memgate"'
    return problem(exc.status_code, kind, title, detail, headers or None, **extra)


def _validation_problem(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", ""))}
        for e in exc.errors()
    ][:20]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(first["loc"]) if first["loc"] else "request"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    detail = f"{where}: {first['msg']}{more}"
    return problem(422, "invalid-request", "Invalid request", detail, errors=errors)


def _memgate_problem(request: Request, exc: Exception) -> Response:
    if isinstance(exc, FactNotFound):
        return problem(404, "fact-not-found", "Fact not found", str(exc))
    if isinstance(exc, InvalidRequest):
        return problem(422, "invalid-request", "Invalid request", str(exc))
    if isinstance(exc, ConfigError | AuthenticationError):  # a store refused memgate's login
        return problem(503, "unavailable", "Service unavailable", str(exc))
    return _unexpected(exc, request.scope)


def _unexpected(exc: BaseException, scope: Scope) -> Response:
    """A 500 problem; the log line names the exception's type and place, never its text."""
    incident = secrets.token_hex(6)
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else "?"
    log.error(
        "event=http_error incident=%s method=%s route=%s error=%s at=%s",
        incident, scope.get("method"), _route_of(scope), type(exc).__name__, where,
    )  # fmt: skip
    if isinstance(exc, ConnectionError | TimeoutError) or "Connection" in type(exc).__name__:
        return problem(
            503, "store-unavailable", "A store did not answer",
            "a store memgate uses did not answer; see /ready, then retry",
            instance=f"urn:memgate:incident:{incident}",
        )  # fmt: skip
    return problem(
        500, "internal-error", "Internal error",
        f"memgate failed on this request; the server log has incident {incident}",
        instance=f"urn:memgate:incident:{incident}",
    )  # fmt: skip


def _route_of(scope: Scope) -> str:
    route = scope.get("route")
    return str(getattr(route, "path", "?"))


# -- middleware: size limit and catch-all -----------------------------------------------


class BodyTooLarge(ProblemError):
    def __init__(self, limit: int) -> None:
        super().__init__(
            413, "too-large", "Request body too large",
            f"the request body is over the limit of {limit:,} bytes (http_max_body_bytes)",
        )  # fmt: skip


class Guard:
    """The outermost layer of the app: request bodies over ``max_body`` bytes get 413
    (by their Content-Length, or while they are read), and any exception the app lets
    through becomes a problem document instead of a traceback."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app, self.max_body = app, max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_body
                except ValueError:
                    too_big = False
                if too_big:
                    exc = BodyTooLarge(self.max_body)
                    await problem(413, exc.kind, exc.title, str(exc.detail))(scope, receive, send)
                    return
        seen = 0
        started = False

        async def limited() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.max_body:
                    raise BodyTooLarge(self.max_body)
            return msg

        async def tracking(msg: Message) -> None:
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, limited, tracking)
        except Exception as exc:
            response = _unexpected(exc, scope)
            if not started:
                await response(scope, receive, send)


# -- middleware: per-route metrics -------------------------------------------------------

#: The route label of a request no route matches (a scan of random paths is one series).
UNMATCHED = "unmatched"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def status_class(status: int) -> str:
    """``2xx``, ``4xx``, ``5xx`` (``other`` outside 100-599)."""
    return f"{status // 100}xx" if 100 <= status <= 599 else "other"


class HttpMetrics:
    """Counts every request (``memgate_http_requests_total``: route template, method, status
    class) and times it (``memgate_http_request_duration_seconds`` by route template).

    The route is the template the request matches (``/v1/tenants/{tenant}/users/{user}``),
    found among ``router``'s routes before the app runs, so a request refused before
    routing (a 413 by its length) still has its route; no route: :data:`UNMATCHED`.
    Labels never carry a raw path, an id or a client-chosen method: their values are
    bounded by the app's routes, seven methods (else ``other``) and five status classes.
    """

    def __init__(self, app: ASGIApp, metrics: Metrics, router: Router) -> None:
        self.app, self.metrics, self.router = app, metrics, router

    def route(self, scope: Scope) -> str:
        partial: str | None = None
        for r in self.router.routes:
            match, _ = r.matches(scope)
            if match is Match.FULL:
                return str(getattr(r, "path", UNMATCHED))
            if match is Match.PARTIAL and partial is None:  # the path, not the method
                partial = str(getattr(r, "path", UNMATCHED))
        return partial or UNMATCHED

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = self.route(scope)
        method = str(scope.get("method", "")).upper()
        method = method if method in _METHODS else "other"
        status = 500  # unless a response starts: what the client gets when the app dies
        done = False
        t0 = time.perf_counter()

        def record() -> None:
            nonlocal done
            if not done:
                done = True
                m = self.metrics
                m.http_latency.labels(route=route).observe(time.perf_counter() - t0)
                labels = {"route": route, "method": method, "status": status_class(status)}
                m.http_requests.labels(**labels).inc()

        async def recording(msg: Message) -> None:
            nonlocal status
            if msg["type"] == "http.response.start":
                status = int(msg["status"])
            elif msg["type"] == "http.response.body" and not msg.get("more_body", False):
                record()  # before the last byte leaves: a client that got it sees the count
            await send(msg)

        try:
            await self.app(scope, receive, recording)
        finally:
            record()


# -- request bodies ---------------------------------------------------------------------


class ChatMessage(BaseModel):
    """An OpenAI-style chat message."""

    model_config = ConfigDict(extra="forbid")

    role: str = Field(max_length=32, examples=["user"])
    content: str | list[dict[str, Any]] | None = Field(max_length=100_000)
    ts: AwareDatetime | None = None


class AddRequest(BaseModel):
    """Messages of this user in one session, or turn events (memgate's input format)."""

    model_config = ConfigDict(extra="forbid")

    messages: list[ChatMessage] | None = Field(default=None, max_length=1000)
    turns: list[dict[str, Any]] | None = Field(default=None, max_length=1000)
    session_id: str | None = Field(default=None, max_length=128)

    @model_validator(mode="after")
    def _one_of(self) -> AddRequest:
        if (self.messages is None) == (self.turns is None):
            raise ValueError("give either 'messages' or 'turns' (one of them, not both)")
        return self


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int | None = Field(default=None, ge=1, le=MAX_K)
    as_of: AwareDatetime | None = Field(default=None, description="Valid time: what was true then.")
    now: AwareDatetime | None = Field(default=None, description="The instant decay is measured at.")
    token_budget: int | None = Field(default=None, ge=0, description="0: no limit.")
    min_score: float | None = Field(default=None, ge=-1, le=1)
    types: list[FactType] | None = Field(default=None, min_length=1)


class UserList(BaseModel):
    tenant_id: str
    users: list[str]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memgate")
    except PackageNotFoundError:
        return "0+unknown"


# -- the app ----------------------------------------------------------------------------

_bearer = HTTPBearer(auto_error=False, description="A tenant API key: memgate keys create")
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem, "description": desc, "content": {PROBLEM_JSON: {}}}
    for code, desc in (
        (401, "Missing or invalid API key"),
        (403, "The key's tenant is not the path's (or a turn's)"),
        (413, "Request body too large"),
        (422, "Invalid request"),
        (500, "Internal error"),
    )
}


def tenant_key(
    request: Request,
    tenant: Annotated[str, Path(max_length=128, description="Must be the key's tenant.")],
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    """The key's tenant, which must be the path's: 401 without a valid key, 403 for
    another tenant. Runs before the body is read and before any store is touched."""
    key: ApiKey | None = None
    if creds is not None and creds.scheme.lower() == "bearer":
        key = request.app.state.keys.verify(creds.credentials)
    if key is None:
        raise ProblemError(
            401, "unauthorized", "Missing or invalid API key",
            "send a tenant API key as 'Authorization: Bearer <key>' (memgate keys create)",
        )  # fmt: skip
    if tenant != key.tenant:
        raise ProblemError(
            403, "forbidden-tenant", "Forbidden",
            f"this key is for tenant {key.tenant!r}; it cannot reach tenant {tenant!r}",
        )  # fmt: skip
    return key.tenant


Tenant = Annotated[str, Depends(tenant_key)]
User = Annotated[str, Path(max_length=128)]
FactId = Annotated[str, Path(max_length=128)]


def create_app(memory: Memory, keys: KeyStore, *, max_body: int | None = None) -> FastAPI:
    """The HTTP service over ``memory``, authenticating with ``keys`` (see the module doc)."""
    limit = memory.settings.http_max_body_bytes if max_body is None else max_body
    app = FastAPI(
        title="memgate",
        version=_version(),
        summary="The long-term memory of AI agents, behind a write gate.",
        openapi_url="/openapi.json",
        docs_url="/docs",
        redoc_url=None,
    )
    app.add_middleware(Guard, max_body=limit)
    # outermost but for Starlette's error layer: it sees the answers Guard gives too
    app.add_middleware(HttpMetrics, metrics=memory.metrics, router=app.router)
    app.add_exception_handler(HTTPException, _http_problem)
    app.add_exception_handler(RequestValidationError, _validation_problem)
    app.add_exception_handler(MemgateError, _memgate_problem)
    app.state.keys = keys
    ready = Readiness(memory.checks())

    base = "/v1/tenants/{tenant}"
    user_base = base + "/users/{user}"

    @app.post(user_base + "/memories", response_model=AddResult, responses=_ERRORS,
              tags=["memories"], summary="Add messages or turns through the gate")  # fmt: skip
    def add(tenant: Tenant, user: User, body: AddRequest) -> AddResult:
        if body.turns is not None:
            for t in body.turns:
                if "tenant_id" in t and t["tenant_id"] != tenant:
                    raise ProblemError(
                        403, "forbidden-tenant", "Forbidden",
                        f"a turn names tenant {t['tenant_id']!r}; this key is for {tenant!r}",
                    )  # fmt: skip
            items: list[dict[str, Any]] = body.turns
        else:
            items = [m.model_dump(exclude_none=True) for m in body.messages or ()]
        return memory.add(items, tenant=tenant, user=user, session=body.session_id)

    @app.post(user_base + "/search", response_model=SearchResult, responses=_ERRORS,
              tags=["memories"], summary="Hybrid search over the user's facts")  # fmt: skip
    def search(tenant: Tenant, user: User, body: SearchRequest) -> SearchResult:
        return memory.search(
            body.query, tenant, user, k=body.k, as_of=body.as_of, now=body.now,
            token_budget=body.token_budget, min_score=body.min_score, types=body.types,
        )  # fmt: skip

    @app.get(user_base + "/memories", response_model=list[MemoryFact], responses=_ERRORS,
             tags=["memories"], summary="Every current fact of the user")  # fmt: skip
    def get_all(tenant: Tenant, user: User, include_inactive: bool = False) -> list[MemoryFact]:
        return memory.get_all(tenant, user, include_inactive=include_inactive)

    @app.get(user_base + "/memories/{fact_id}", response_model=MemoryFact, responses=_ERRORS,
             tags=["memories"], summary="One fact")  # fmt: skip
    def get(tenant: Tenant, user: User, fact_id: FactId) -> MemoryFact:
        return memory.get(fact_id, tenant, user)

    @app.get(user_base + "/memories/{fact_id}/history", response_model=list[HistoryEntry],
             responses=_ERRORS, tags=["memories"], summary="The changes to a fact")  # fmt: skip
    def history(tenant: Tenant, user: User, fact_id: FactId) -> list[HistoryEntry]:
        return memory.history(fact_id, tenant, user)

    @app.delete(user_base + "/memories/{fact_id}", response_model=MemoryFact, responses=_ERRORS,
                tags=["memories"], summary="Delete one fact")  # fmt: skip
    def delete(tenant: Tenant, user: User, fact_id: FactId) -> MemoryFact:
        return memory.delete(fact_id, tenant, user)

    @app.delete(user_base, response_model=ForgetResult, responses=_ERRORS, tags=["users"],
                summary="Forget the user: erase them from every store")  # fmt: skip
    def forget(tenant: Tenant, user: User) -> ForgetResult:
        return memory.forget(tenant, user)

    @app.get(base + "/users", response_model=UserList, responses=_ERRORS, tags=["users"],
             summary="The users of the tenant that have facts")  # fmt: skip
    def users(tenant: Tenant) -> UserList:
        return UserList(tenant_id=tenant, users=memory.users(tenant))

    @app.get("/live", tags=["operations"], summary="200 while the process serves HTTP")
    def live() -> dict[str, str]:
        return {"status": "live"}

    @app.get("/ready", tags=["operations"], summary="200 when every store answers, else 503",
             responses={503: {"model": Problem, "content": {PROBLEM_JSON: {}}}})  # fmt: skip
    def ready_probe() -> Response:
        ok, checks = ready()
        if ok:
            return JSONResponse({"status": "ready", "checks": checks})
        failing = sorted(name for name, state in checks.items() if state != "ok")
        return problem(
            503, "not-ready", "Not ready",
            f"not answering: {', '.join(failing)} (see checks)",
            checks=checks,
        )  # fmt: skip

    @app.get("/metrics", tags=["operations"], summary="Prometheus metrics of this process",
             response_class=Response)  # fmt: skip
    def metrics() -> Response:
        return Response(generate_latest(memory.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    return app


def openapi_document(memory: Memory) -> dict[str, Any]:
    """The OpenAPI description (the same as ``GET /openapi.json``), built without a store."""
    return create_app(memory, KeyStore(memory.settings.api_keys_path)).openapi()
