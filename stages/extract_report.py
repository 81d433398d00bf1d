"""What an extractor says about how it read one turn, beside the facts.

An extractor that can fall back or answer from a cache (the Claude extractor)
implements :class:`ReportingExtractor`: :meth:`~ReportingExtractor.extract_reported`
returns the facts with a small report (``answered_by``, ``fallback`` reason,
``cache`` hit or miss), which the extract step writes into the stage's audit
decision (``details``) and the metrics count. Plain extractors report nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from memgate.core.events import CandidateFact, TurnEvent

__all__ = ["Extraction", "ReportingExtractor"]


@dataclass(frozen=True)
class Extraction:
    """The facts of one turn and how they were read (audit ``details``, strings only)."""

    facts: list[CandidateFact]
    report: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class ReportingExtractor(Protocol):
    name: str
    version: str

    def extract(self, turn: TurnEvent) -> list[CandidateFact]: ...

    def extract_reported(self, turn: TurnEvent) -> Extraction: ...
