"""Write policies: explicit, named rules that decide what may be stored.

Each rule is a field of :class:`WritePolicy`; the presets below are the
documented starting points. The policy version is recorded on every
decision so an audit can tell which rules admitted a fact.

>>> preset("balanced").min_confidence
0.45
>>> preset("strict")
Traceback (most recent call last):
...
ValueError: unknown write policy 'strict'; choose one of: conservative, balanced, permissive
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from memgate.events import FactType


@dataclass(frozen=True)
class WritePolicy:
    name: str
    version: str
    min_confidence: float
    """Below this the candidate is rejected (``below_min_confidence``)."""
    explicit_confidence: float
    """At or above this a fact counts as stated explicitly; below it is an inference that
    needs explicit confirmation or repeated evidence before it is stored."""
    min_sessions: int
    """Repeated evidence: an inferred fact seen in this many distinct sessions is stored."""
    save_after_success: bool
    """A turn whose task outcome is ``failure`` stores nothing (``task_failed``)."""
    success_required_types: frozenset[FactType] = field(default_factory=frozenset)
    """Types stored only when the turn's outcome is ``success`` (or it is confirmed)."""
    confirmation_required_types: frozenset[FactType] = field(default_factory=frozenset)
    """Types that always need explicit confirmation or repeated evidence."""
    near_duplicate: float = 0.92
    """Cosine similarity at or above which a differently worded fact is the same fact."""
    ambiguous: float = 0.80
    """Between this and ``near_duplicate`` a pair is flagged for consolidation, not resolved."""

    def with_overrides(self, **changes: object) -> WritePolicy:
        return replace(self, **changes)  # type: ignore[arg-type]


PRESETS: dict[str, WritePolicy] = {
    "conservative": WritePolicy(
        name="conservative",
        version="conservative-1",
        min_confidence=0.6,
        explicit_confidence=0.9,
        min_sessions=3,
        save_after_success=True,
        success_required_types=frozenset({FactType.INSTRUCTION}),
        confirmation_required_types=frozenset({FactType.CORRECTION}),
        near_duplicate=0.90,
        ambiguous=0.78,
    ),
    "balanced": WritePolicy(
        name="balanced",
        version="balanced-1",
        min_confidence=0.45,
        explicit_confidence=0.7,
        min_sessions=2,
        save_after_success=True,
    ),
    "permissive": WritePolicy(
        name="permissive",
        version="permissive-1",
        min_confidence=0.2,
        explicit_confidence=0.2,
        min_sessions=1,
        save_after_success=False,
        near_duplicate=0.95,
        ambiguous=0.88,
    ),
}


def preset(name: str) -> WritePolicy:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown write policy {name!r}; choose one of: {', '.join(PRESETS)}"
        ) from None
