"""The one context-manager protocol of the stores and the gate: ``with X(...) as x:``
closes ``x`` when the block ends, whatever way it ends. A class mixes :class:`Closing` in
and defines :meth:`Closing.close`."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """``__enter__`` returns the object; ``__exit__`` calls its ``close()``."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
