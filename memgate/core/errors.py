"""One error hierarchy for memgate.

Transient errors (a store down, a 429) are retried with backoff; permanent
ones go to the dead-letter topic with their reason. :func:`is_transient` is
the single predicate that decides which is which.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


#: The most characters of a caller's value an error message repeats (:func:`shown`).
SHOWN_CHARS = 100


def shown(value: object) -> str:
    """``repr(value)`` for an error message, cut after :data:`SHOWN_CHARS` characters: an
    error names what the caller sent, never repeats a megabyte of it (to the caller, and
    to a log that keeps the message).

    >>> shown("alice")
    "'alice'"
    >>> shown("x" * 5000)[-21:]
    'x… (5,000 characters)'
    """
    text = repr(value)
    if len(text) <= SHOWN_CHARS:
        return text
    size = len(value) if isinstance(value, str | bytes) else len(text)
    return f"{text[:SHOWN_CHARS]}… ({size:,} characters)"


class MemgateError(Exception):
    """Base class of every error memgate raises on purpose."""


class ConfigError(MemgateError):
    """The settings are wrong; the message says which one and how to fix it."""


class InvalidEvent(MemgateError):
    """An input event failed validation. Permanent: it goes to the dead-letter topic."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or [message]

    @classmethod
    def from_validation(cls, exc: ValidationError, *, where: str = "") -> InvalidEvent:
        problems = []
        for err in exc.errors(include_url=False, include_input=False):
            loc = ".".join(str(p) for p in err["loc"]) or "(event)"
            problems.append(f"{loc}: {err['msg']}")
        prefix = f"{where}: " if where else ""
        return cls(prefix + "invalid turn: " + "; ".join(problems), problems)


class InvalidRequest(MemgateError):
    """A call the caller can fix: a blank or too long query, ``k`` out of range, an id
    with a separator or a control character. The message is one line naming the argument."""


class TransientError(MemgateError):
    """A failure that may succeed if retried (store unavailable, throttled)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentError(MemgateError):
    """A failure that retrying cannot fix (a mapping conflict, a rejected document)."""


class StoreError(MemgateError):
    """A store answered with an error that is neither transient nor the caller's fault."""


class ExtractionError(MemgateError):
    """The extractor could not produce a valid answer (counted, never stored)."""


class FatalError(MemgateError):
    """A failure that every further item would meet too (a refused key, an unknown model):
    the run stops with this message instead of reporting it item by item. A per-item
    error boundary must let it through (see :func:`is_fatal`)."""


class MissingExtra(ConfigError):
    """An optional dependency is not installed; the message names the extra that installs it.

    >>> print(MissingExtra("kafka", "the Kafka worker", "faust"))
    the Kafka worker needs memgate[kafka] (faust is not installed): pip install 'memgate[kafka]'
    """

    def __init__(self, extra: str, feature: str, missing: str | None = None) -> None:
        what = f" ({missing} is not installed)" if missing else ""
        super().__init__(f"{feature} needs memgate[{extra}]{what}: pip install 'memgate[{extra}]'")
        self.extra = extra


def require_extra(module: str, extra: str, feature: str) -> None:
    """Raise :class:`MissingExtra` unless ``module`` (a library of ``extra``) is installed."""
    import importlib.util

    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or blocked in sys.modules
        found = False
    if not found:
        raise MissingExtra(extra, feature, module)


class AuthenticationError(FatalError):
    """A service refused the credentials (HTTP 401/403); the message names the setting."""


def is_fatal(exc: BaseException) -> bool:
    """True for errors that must stop the run rather than be reported per item."""
    return isinstance(exc, FatalError)


def is_transient(exc: BaseException) -> bool:
    """True for errors worth retrying with backoff."""
    if isinstance(exc, TransientError):
        return True
    return isinstance(exc, ConnectionError | TimeoutError)
