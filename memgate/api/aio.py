"""``AsyncMemory``: :class:`memgate.Memory` for asyncio code.

Each call runs the synchronous one in a worker thread (the stores are
blocking clients), except ``add`` on Kafka, which awaits the producer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any

from memgate.api.memory import Memory
from memgate.api.models import AddResult, ForgetResult, HistoryEntry, MemoryFact, SearchResult
from memgate.core.events import TurnEvent
from memgate.core.settings import Settings
from memgate.streams.metrics import Metrics


class AsyncMemory:
    """The same operations as :class:`Memory`, awaitable; ``async with`` closes the stores."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        metrics: Metrics | None = None,
        memory: Memory | None = None,
        **overrides: Any,
    ) -> None:
        self.sync = memory or Memory(settings, metrics=metrics, **overrides)
        self.settings = self.sync.settings
        self.metrics = self.sync.metrics

    @classmethod
    def from_settings(
        cls, settings: Settings | None = None, /, *, metrics: Metrics | None = None, **kw: Any
    ) -> AsyncMemory:
        return cls(settings, metrics=metrics, **kw)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await asyncio.to_thread(self.sync.close)

    async def add(
        self,
        items: Iterable[TurnEvent | Mapping[str, Any]],
        tenant: str | None = None,
        user: str | None = None,
        session: str | None = None,
    ) -> AddResult:
        if self.settings.write_mode == "kafka":
            turns = self.sync._turns(items, tenant, user, session)
            return await self.sync._produce(turns)
        return await asyncio.to_thread(self.sync.add, list(items), tenant, user, session)

    async def search(self, query: str, tenant: str, user: str, **kw: Any) -> SearchResult:
        return await asyncio.to_thread(self.sync.search, query, tenant, user, **kw)

    async def get_all(self, tenant: str, user: str, **kw: Any) -> list[MemoryFact]:
        return await asyncio.to_thread(self.sync.get_all, tenant, user, **kw)

    async def get(self, fact_id: str, tenant: str, user: str) -> MemoryFact:
        return await asyncio.to_thread(self.sync.get, fact_id, tenant, user)

    async def history(
        self, fact_id: str, tenant: str, user: str | None = None
    ) -> list[HistoryEntry]:
        return await asyncio.to_thread(self.sync.history, fact_id, tenant, user)

    async def delete(self, fact_id: str, tenant: str, user: str) -> MemoryFact:
        return await asyncio.to_thread(self.sync.delete, fact_id, tenant, user)

    async def forget(self, tenant: str, user: str) -> ForgetResult:
        return await asyncio.to_thread(self.sync.forget, tenant, user)

    async def users(self, tenant: str) -> list[str]:
        return await asyncio.to_thread(self.sync.users, tenant)
