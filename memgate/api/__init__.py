"""memgate as a library: :class:`Memory` (and :class:`AsyncMemory`), and their results."""

from memgate.api.aio import AsyncMemory
from memgate.api.memory import FactNotFound, Memory
from memgate.api.models import (
    AddResult,
    ForgetResult,
    HistoryEntry,
    MemoryFact,
    MemoryHit,
    Provenance,
    ScoreBreakdown,
    SearchResult,
    Usage,
)
from memgate.core.errors import InvalidRequest, MemgateError

__all__ = [
    "AddResult",
    "AsyncMemory",
    "FactNotFound",
    "ForgetResult",
    "HistoryEntry",
    "InvalidRequest",
    "MemgateError",
    "Memory",
    "MemoryFact",
    "MemoryHit",
    "Provenance",
    "ScoreBreakdown",
    "SearchResult",
    "Usage",
]  # fmt: skip
