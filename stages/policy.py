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

Trusted sources. A turn may claim where it comes from (``metadata.source``, e.g.
``"system_of_record"`` for an import from an HR system). A claim is a client field
and raises nothing by itself: only a source on the policy's allow-list
(:attr:`WritePolicy.trusted_sources`, empty by default) is stored at confidence 1.0.
An entry is ``tenant:source`` (that tenant only) or ``*:source`` (every tenant);
the source is matched exactly. The allow-list is part of the policy version, and the
dedupe decision of a candidate that claimed a source records ``trusted_source`` or
``source=untrusted``.

>>> p = preset("balanced").with_trusted_sources(["acme:system_of_record"])
>>> p.trusted_source("acme", "system_of_record"), p.trusted_source("globex", "system_of_record")
('system_of_record', None)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from memgate.core.events import FactType
from memgate.core.sources import SOURCE_RE as _SOURCE_RE
from memgate.core.sources import parse_trusted_sources


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

    trusted_sources: frozenset[str] = field(default_factory=frozenset)
    """``tenant:source`` (or ``*:source``) entries whose turns are stored at confidence 1.0
    (an import from a system of record). Empty: no client field raises confidence."""

    def with_overrides(self, **changes: object) -> WritePolicy:
        return replace(self, **changes)  # type: ignore[arg-type]

    def with_trusted_sources(self, entries: Iterable[str]) -> WritePolicy:
        """This policy with an allow-list of trusted sources; the version names the list."""
        trusted = parse_trusted_sources(entries)
        if not trusted:
            return self
        digest = hashlib.sha256("\n".join(sorted(trusted)).encode()).hexdigest()[:8]
        base = self.version.split("+trusted.", 1)[0]
        return replace(self, trusted_sources=trusted, version=f"{base}+trusted.{digest}")

    def trusted_source(self, tenant_id: str, source: str) -> str | None:
        """``source`` if the allow-list trusts it for ``tenant_id``, else None."""
        if not source or not self.trusted_sources or not _SOURCE_RE.fullmatch(source):
            return None
        if f"{tenant_id}:{source}" in self.trusted_sources or f"*:{source}" in self.trusted_sources:
            return source
        return None


def claimed_source(metadata: Mapping[str, object]) -> str:
    """The source a turn claims (``metadata.source``) when it is a plain source name, else ''.

    A claim is carried to the resolver, which alone decides whether it is trusted.
    """
    value = metadata.get("source")
    if isinstance(value, str) and _SOURCE_RE.fullmatch(value):
        return value
    return ""


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
