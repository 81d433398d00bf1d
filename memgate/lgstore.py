"""memgate as a LangGraph store: :class:`MemgateStore` is a ``langgraph.store.base.BaseStore``.

A LangGraph agent that writes its memories with ``store.put`` gets memgate's gate
behind it (triage drops small talk, extraction turns statements into typed facts,
personal data and secrets are masked, a new value supersedes the old one), and
``store.search(namespace, query=...)`` is memgate's hybrid recall.

**Namespaces** are ``("memgate", tenant, user)``: one namespace per user of a
tenant. A store made with ``tenant=`` serves that tenant alone (any other is
refused with :class:`TenantMismatch`, before a store is touched).

- ``put(ns, key, {"content": "I moved to Lisbon"})`` (or ``{"messages": [...]}``
  of OpenAI-style messages; optional ``"role"`` and ``"session"``) sends the text
  through the gate. The put's ``key`` names the write, not a fact: the gate may
  store no fact or several, each under memgate's own fact id.
- ``get(ns, fact_id)`` / ``search(ns, query=..., filter=..., limit=...)`` return
  items whose key is the fact id and whose value is the fact (``text``, ``type``,
  ``key``, ``value``, ``status``, ``valid_from``, ``provenance``...); ``filter``
  compares value fields by equality (or ``$eq``, ``$ne``, ``$gt``, ``$gte``,
  ``$lt``, ``$lte``).
- ``delete(ns, fact_id)`` deletes one fact (a missing one is a no-op).
- ``list_namespaces(prefix=("memgate", tenant))`` lists the tenant's users
  (from the audit store).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from memgate.api import FactNotFound, InvalidRequest, Memory, MemoryFact
from memgate.core.errors import MissingExtra

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        validate_op_namespace,
    )
except ImportError as exc:  # pragma: no cover - without the extra
    raise MissingExtra("langgraph", "the LangGraph store", exc.name) from exc

__all__ = ["ROOT", "MemgateStore", "TenantMismatch"]

ROOT = "memgate"


class TenantMismatch(InvalidRequest):
    """A namespace names a tenant this store does not serve."""


def _value(f: MemoryFact) -> dict[str, Any]:
    d: dict[str, Any] = f.model_dump(mode="json", exclude={"tenant_id", "user_id"})
    return d


def _item(ns: tuple[str, ...], f: MemoryFact) -> Item:
    return Item(
        value=_value(f), key=f.fact_id, namespace=ns,
        created_at=f.first_seen, updated_at=f.last_seen,
    )  # fmt: skip


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}


def _matches(value: dict[str, Any], flt: dict[str, Any] | None) -> bool:
    for field, want in (flt or {}).items():
        have = value.get(field)
        if isinstance(want, dict) and want and all(k in _OPS for k in want):
            if not all(_OPS[op](have, arg) for op, arg in want.items()):
                return False
        elif have != want:
            return False
    return True


def _does_match(cond: MatchCondition, ns: tuple[str, ...]) -> bool:
    path = tuple(cond.path)
    if len(path) > len(ns):
        return False
    part = ns[: len(path)] if cond.match_type == "prefix" else ns[len(ns) - len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))


class MemgateStore(BaseStore):
    """A LangGraph ``BaseStore`` on :class:`memgate.Memory` (see the module doc)."""

    supports_ttl = False

    def __init__(self, memory: Memory, *, tenant: str | None = None,
                 session: str = "langgraph") -> None:  # fmt: skip
        self.memory = memory
        self.tenant = tenant
        self.session = session

    def _scope(self, ns: tuple[str, ...]) -> tuple[str, str]:
        if len(ns) != 3 or ns[0] != ROOT:
            raise InvalidNamespaceError(
                f"memgate namespaces are ({ROOT!r}, tenant, user), got {ns!r}"
            )
        tenant, user = ns[1], ns[2]
        if self.tenant is not None and tenant != self.tenant:
            raise TenantMismatch(
                f"this store serves tenant {self.tenant!r}; namespace {ns!r} names another"
            )
        return tenant, user

    # -- operations ---------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:  # every namespace checked before any op runs
            validate_op_namespace(op)
            if isinstance(op, GetOp | PutOp):
                self._scope(op.namespace)
            elif isinstance(op, SearchOp):
                self._scope(op.namespace_prefix)
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise InvalidRequest(f"unknown store operation {type(op).__name__}")

    def _get(self, op: GetOp) -> Item | None:
        tenant, user = self._scope(op.namespace)
        try:
            return _item(op.namespace, self.memory.get(op.key, tenant, user))
        except FactNotFound:
            return None

    def _put(self, op: PutOp) -> None:
        tenant, user = self._scope(op.namespace)
        if op.value is None:
            try:
                self.memory.delete(op.key, tenant, user)
            except FactNotFound:
                pass
            return
        value = dict(op.value)
        session = value.get("session") or self.session
        if "messages" in value:
            items = value["messages"]
            if not isinstance(items, list):
                raise InvalidRequest("'messages' must be a list of {role, content} messages")
        else:
            text = value.get("content", value.get("text"))
            if not isinstance(text, str):
                raise InvalidRequest(
                    "a memgate put takes {'content': text} or {'messages': [...]} as its value"
                )
            items = [{"role": value.get("role", "user"), "content": text}]
        self.memory.add(items, tenant, user, session)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        ns = tuple(op.namespace_prefix)
        tenant, user = self._scope(ns)
        if op.query:
            k = min(1000, max(1, (op.offset + op.limit) * (3 if op.filter else 1)))
            hits = self.memory.search(op.query, tenant, user, k=k).hits
            scored: list[tuple[MemoryFact, float | None]] = [
                (h.fact, h.score.final) for h in hits
            ]
        else:
            scored = [(f, None) for f in self.memory.get_all(tenant, user)]
        out: list[SearchItem] = []
        for f, score in scored:
            value = _value(f)
            if _matches(value, op.filter):
                out.append(SearchItem(namespace=ns, key=f.fact_id, value=value,
                                      created_at=f.first_seen, updated_at=f.last_seen,
                                      score=score))  # fmt: skip
        return out[op.offset : op.offset + op.limit]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        tenants = {self.tenant} if self.tenant is not None else set()
        for cond in op.match_conditions or ():
            if cond.match_type == "prefix" and len(cond.path) >= 2 and cond.path[1] != "*":
                if self.tenant is not None and cond.path[1] != self.tenant:
                    return []
                tenants = {cond.path[1]}
        found: list[tuple[str, ...]] = []
        for tenant in sorted(t for t in tenants if t):
            found += [(ROOT, tenant, u) for u in self.memory.users(tenant)]
        found = [ns for ns in found if all(_does_match(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            found = sorted({ns[: op.max_depth] for ns in found})
        return found[op.offset : op.offset + op.limit]
