"""Shadow mode: compare what two extractors read in one turn.

The primary extractor's candidates go on through the gate; the shadow's are only
compared with them. A turn on which they differ -- in the keep decision (facts or
none), in the fact keys, or in a value under the same key -- becomes a
:class:`~memgate.core.events.DisagreementRecord` for the audit store. The record
names candidates as ``subject/predicate = value`` with subject and value masked by
the detectors in their statement (:func:`memgate.stages.seal.mask_statement`), as
every stored fact is: candidates come straight from the turn, before the redact
stage, so nothing of them is written unmasked.

Pure: no I/O; the detector is passed in.

>>> from datetime import UTC, datetime
>>> from memgate.core.events import CandidateFact, FactType
>>> from memgate.stages.detectors import Detector
>>> ts = datetime(2024, 5, 1, tzinfo=UTC)
>>> def c(value: str) -> CandidateFact:
...     return CandidateFact(candidate_id=value, tenant_id="acme", user_id="u1",
...         session_id="s1", type=FactType.PREFERENCE, subject="user",
...         predicate="uses_tool:editor", object=value, confidence=0.9, valid_from=ts,
...         source_turn_ids=["t1"], extractor="x", extractor_version="1", turn_ts=ts)
>>> difference([c("Neovim")], [c("Helix")])
('value', ['user/uses_tool:editor = neovim'], ['user/uses_tool:editor = helix'])
>>> difference([c("Neovim")], [c("neovim")]) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from memgate.core.events import CandidateFact, DisagreementRecord, TurnEvent, normalise, stable_id
from memgate.stages.detectors import Detector
from memgate.stages.seal import mask_statement

__all__ = ["difference", "disagreement"]

_Pair = tuple[str, str]
Kind = Literal["keep", "key", "value"]


def _pairs(facts: Sequence[CandidateFact]) -> dict[_Pair, CandidateFact]:
    """(key, value) of each candidate, normalised as the dedupe stage keys facts."""
    out: dict[_Pair, CandidateFact] = {}
    for f in facts:
        key = f"{normalise(f.subject)}/{normalise(f.predicate)}"
        out.setdefault((key, normalise(f.object)), f)
    return out


def difference(
    primary: Sequence[CandidateFact], shadow: Sequence[CandidateFact]
) -> tuple[Kind, list[str], list[str]] | None:
    """``(kind, only_primary, only_shadow)`` (unmasked, normalised), or None when the
    two agree on the keep decision, every key and every value."""
    a, b = _pairs(primary), _pairs(shadow)
    if a.keys() == b.keys():
        return None
    kind: Kind
    if bool(a) != bool(b):
        kind = "keep"
    elif {k for k, _ in a} != {k for k, _ in b}:
        kind = "key"
    else:
        kind = "value"
    only_a = sorted(f"{k} = {v}" for k, v in a.keys() - b.keys())
    only_b = sorted(f"{k} = {v}" for k, v in b.keys() - a.keys())
    return kind, only_a, only_b


def _masked(detector: Detector, facts: Sequence[CandidateFact], others: set[_Pair]) -> list[str]:
    out: list[str] = []
    for (_key, value), f in sorted(_pairs(facts).items()):
        if (_key, value) in others:
            continue
        subject, masked_value, _ = mask_statement(detector, f.subject, f.predicate, f.object)
        out.append(f"{normalise(subject)}/{normalise(f.predicate)} = {masked_value}")
    return out


def disagreement(
    detector: Detector,
    turn: TurnEvent,
    primary: tuple[str, Sequence[CandidateFact]],
    shadow: tuple[str, Sequence[CandidateFact]],
    at: datetime,
) -> DisagreementRecord | None:
    """The audit record of the two extractors' difference on ``turn`` (None: they agree).

    ``primary`` and ``shadow`` are ``(extractor version label, candidates)``."""
    (p_name, p_facts), (s_name, s_facts) = primary, shadow
    diff = difference(p_facts, s_facts)
    if diff is None:
        return None
    kind = diff[0]
    p_pairs, s_pairs = set(_pairs(p_facts)), set(_pairs(s_facts))
    return DisagreementRecord(
        event_id=stable_id("disagreement", turn.tenant_id, turn.turn_id, s_name),
        tenant_id=turn.tenant_id,
        user_id=turn.user_id,
        session_id=turn.session_id,
        turn_id=turn.turn_id,
        primary=p_name,
        shadow=s_name,
        kind=kind,
        primary_keep=bool(p_facts),
        shadow_keep=bool(s_facts),
        only_primary=_masked(detector, p_facts, s_pairs),
        only_shadow=_masked(detector, s_facts, p_pairs),
        decided_at=at,
    )
