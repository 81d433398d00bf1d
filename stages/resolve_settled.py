"""A brief confirmation settles the guess the user just made.

The user says something tentatively ("Ich vermute, dass ich laktoseintolerant bin", "je
crois que je vais prendre le poste à Lyon"): the fact is stored pending
(:mod:`memgate.stages.durable_frame`). Later in the same conversation they settle it in a
few words that name nothing ("Ja, heute beim Arzt – ist bestätigt.", "Voilà, c'est décidé,
j'accepte.", "就这么定了"). Such a turn yields no fact of its own: triage drops it, or
extraction finds nothing in it. It is carried on as a probe
(:mod:`memgate.stages.resolve_probe`), and :func:`settled_guess` finds what it confirms:
the user's latest pending fact said before it in the same session (every pending reading
of that one turn). The resolver promotes it (``promoted_brief_confirmation``): one more
occurrence, the turn cited, active.

A turn settles (:func:`settles`) when it is short (``max_words``, or ``max_cjk_chars``
Chinese characters), holds a word of the class ``settled`` (confirmed, decided, made
official: ``memgate/data/settled.json``, six languages), and holds no negation ("not
decided yet"), no word of doubt ("maybe", "quizás": ``uncertain``), no hedge and no
question. A bare yes is not in the class: it answers the assistant's last question, which
may be about anything (:mod:`memgate.stages.proposal`). Only the candidate's own tenant,
user and session are read; a pending fact of another session is left alone.

>>> settles("Ja, heute beim Arzt – ist bestätigt."), settles("就这么定了，下周开始迁移。")
(True, True)
>>> settles("Vielleicht, ist noch nicht entschieden."), settles("Yes please.")
(False, False)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Final

from memgate.core.events import CandidateFact, FactStatus, StoredFact
from memgate.core.stores import FactView
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.resolve_semantic import said_before
from memgate.stages.statement_text import cues, hedged, normalise_text, word_pattern

__all__ = ["PROMOTED_BRIEFLY", "Settled", "settled_guess", "settled_words", "settles"]

#: The resolution reason of a pending fact a brief confirmation promoted.
PROMOTED_BRIEFLY: Final = "promoted_brief_confirmation"
_CJK: Final = re.compile(r"[\u3400-\u9fff]")
_OWNERS: Final = ("user", "team")


@dataclass(frozen=True)
class Settled:
    """The data of :mod:`memgate.stages.resolve_settled` (``memgate/data/settled.json``)."""

    version: str
    max_words: int
    max_cjk_chars: int
    settled: re.Pattern[str]


@cache
def _data() -> Settled:
    raw = json.loads(resources.files("memgate.data").joinpath("settled.json").read_text("utf-8"))
    words = [normalise_text(w) for ws in raw["settled"].values() for w in ws]
    return Settled(
        version=str(raw["version"]),
        max_words=int(raw["max_words"]),
        max_cjk_chars=int(raw["max_cjk_chars"]),
        settled=word_pattern(words),
    )


def settled_words() -> re.Pattern[str]:
    """The words of the class ``settled``, matched against :func:`normalise_text` output."""
    return _data().settled


def settles(text: str) -> bool:
    """``text`` is a brief confirmation that names nothing of its own: short, a word of
    the ``settled`` class, no negation, doubt, hedge or question."""
    data = _data()
    norm = normalise_text(text)
    if not norm or "?" in norm or "？" in norm:
        return False
    if len(_CJK.findall(norm)) > data.max_cjk_chars or len(norm.split()) > data.max_words:
        return False
    if data.settled.search(norm) is None:
        return False
    if LEXICON.has_negation(text) or hedged(text):
        return False
    return not cues(text)["uncertain"]


def settled_guess(c: CandidateFact, view: FactView) -> list[StoredFact]:
    """The pending facts the probe ``c`` settles: when it :func:`settles`, the owner's
    pending facts of ``c``'s session last said (all from one turn) before it; else none."""
    if not c.probe or c.retracts or not settles(c.object):
        return []
    pool: dict[str, StoredFact] = {}
    for root in _OWNERS:
        for f in view.by_subject(
            c.tenant_id, c.user_id, root, statuses=(FactStatus.PENDING,), qualified=True
        ):
            if (
                (f.tenant_id, f.user_id) == (c.tenant_id, c.user_id)
                and c.session_id in f.session_ids
                and said_before(f, c)
                and f.last_seen < c.turn_ts
            ):
                pool[f.fact_id] = f
    if not pool:
        return []
    latest: datetime = max(f.last_seen for f in pool.values())
    return sorted((f for f in pool.values() if f.last_seen == latest), key=lambda f: f.fact_id)
