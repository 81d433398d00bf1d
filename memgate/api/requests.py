"""Checking what callers pass to :class:`memgate.Memory`, and turning chat messages into turns.

Every problem is an :class:`memgate.core.errors.InvalidRequest` with one line
naming the argument, raised before any store is touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from memgate.core.errors import InvalidEvent, InvalidRequest, shown
from memgate.core.events import TurnEvent, content_hmac, id_problem, parse_turn, text_problem
from memgate.recall import MAX_K, query_problem

#: OpenAI roles memgate's turn roles stand for.
ROLE_ALIASES = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
}


def check_id(what: str, value: object) -> str:
    """``value`` as an id (tenant, user, session), or one line saying why it is not one."""
    if not isinstance(value, str):
        raise InvalidRequest(f"{what} must be a string id, got {type(value).__name__}")
    problem = id_problem(value)
    if problem is not None:
        raise InvalidRequest(f"{what} {shown(value)} {problem}")
    return value


def check_query(text: object) -> str:
    if not isinstance(text, str):
        raise InvalidRequest(f"the query must be a string, got {type(text).__name__}")
    problem = query_problem(text)
    if problem is not None:
        raise InvalidRequest(f"the query {problem}")
    return text


def check_fact_id(fact_id: object) -> str:
    """A fact id as a string, or one line when it cannot name a stored fact (a lone
    surrogate: no store can even look it up; it raised UnicodeEncodeError, attack19)."""
    value = str(fact_id)
    problem = text_problem(value)
    if problem is not None:
        raise InvalidRequest(f"fact id {shown(value)} {problem}")
    return value


def check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidRequest(f"k must be an integer from 1 to {MAX_K:,}, got {shown(k)}")
    return k


def check_time(what: str, t: object) -> datetime | None:
    if t is None:
        return None
    if not isinstance(t, datetime):
        raise InvalidRequest(f"{what} must be a datetime, got {type(t).__name__}")
    if t.tzinfo is None or t.utcoffset() is None:
        raise InvalidRequest(f"{what} must carry a time zone (e.g. datetime(..., tzinfo=UTC))")
    return t


def _text(content: object, where: str) -> str | None:
    """A message's text: a string, or the text parts of an OpenAI content list."""
    if content is None:
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for p in content:
            if isinstance(p, Mapping) and p.get("type") == "text":
                parts.append(str(p.get("text", "")))
            elif isinstance(p, str):
                parts.append(p)
        return "\n".join(parts) if parts else None
    raise InvalidRequest(f"{where}: content must be text or a list of text parts")


def to_turns(
    items: Iterable[TurnEvent | Mapping[str, Any]],
    *,
    tenant: str | None,
    user: str | None,
    session: str | None,
    now: datetime,
    hmac_key: bytes,
) -> list[TurnEvent]:
    """Turn events as given, or OpenAI-style messages made into turns of tenant/user/session.

    A message's turn id is keyed on its place and content (``m-`` and an HMAC
    under the deployment's key, never a plain hash of the text): adding the same
    conversation again is a replay, and a longer one adds only its new messages.
    Its time is ``ts`` if given, else ``now`` (a microsecond apart, in order).
    """
    if isinstance(items, str | bytes | Mapping):
        raise InvalidRequest("add takes a list of turns or messages, not a single one")
    tenant = check_id("tenant", tenant) if tenant is not None else None
    user = check_id("user", user) if user is not None else None
    session = check_id("session", session) if session is not None else None
    out: list[TurnEvent] = []
    for i, item in enumerate(items):
        where = f"item {i}"
        if isinstance(item, TurnEvent):
            turn = item
        elif isinstance(item, Mapping) and "turn_id" in item:
            data = dict(item)
            for name, given in (("tenant_id", tenant), ("user_id", user)):
                data.setdefault(name, given)
            try:
                turn = parse_turn(data, where=where)
            except InvalidEvent as exc:
                raise InvalidRequest(str(exc)) from None
        elif isinstance(item, Mapping) and "role" in item:
            if tenant is None or user is None:
                raise InvalidRequest("messages need tenant and user: add(messages, tenant, user)")
            role = ROLE_ALIASES.get(str(item["role"]))
            if role is None:
                raise InvalidRequest(
                    f"{where}: role {shown(item['role'])} is not one of {', '.join(ROLE_ALIASES)}"
                )
            text = _text(item.get("content"), where)
            if text is None or not text.strip():
                continue  # a tool call without text: nothing to remember
            if (problem := text_problem(text)) is not None:  # before the digest encodes it
                raise InvalidRequest(f"{where}: content {problem}")
            sess = session or "default"
            digest = content_hmac(hmac_key, "\x1f".join((tenant, user, sess, str(i), role, text)))
            data = {
                "tenant_id": tenant, "user_id": user, "session_id": sess,
                "turn_id": f"m-{digest[:32]}", "role": role, "content": text,
                "ts": item.get("ts") or now + timedelta(microseconds=i),
            }  # fmt: skip
            try:
                turn = parse_turn(data, where=where)
            except InvalidEvent as exc:
                raise InvalidRequest(str(exc)) from None
        else:
            raise InvalidRequest(
                f"{where} is neither a turn event nor a message with 'role' and 'content'"
            )
        if (tenant and turn.tenant_id != tenant) or (user and turn.user_id != user):
            raise InvalidRequest(
                f"{where} belongs to {turn.tenant_id}/{turn.user_id}, not {tenant}/{user}"
            )
        out.append(turn)
    return out
