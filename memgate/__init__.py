"""memgate: a streaming write gate for the long-term memory of AI agents.

``from memgate import Memory`` is the library (:mod:`memgate.api`); it is
imported on first use, so ``import memgate`` (and the command line) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgate.api import (
        AsyncMemory,
        FactNotFound,
        InvalidRequest,
        MemgateError,
        Memory,
        SearchResult,
    )

__all__ = [
    "AsyncMemory", "FactNotFound", "InvalidRequest", "MemgateError", "Memory", "SearchResult",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in __all__:
        import memgate.api

        return getattr(memgate.api, name)
    raise AttributeError(f"module 'memgate' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
