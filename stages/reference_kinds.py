"""A topic said by a broader word: the fact one of whose words the topic is the kind of.

"Forget what I said about seafood" is about the stored "I'm allergic to shellfish": the
topic is a kind, the fact names a member. No word of the topic is in the fact, and a
sentence's vector is far from one word's ("seafood" and "I'm allergic to shellfish":
MiniLM cosine 0.53, under the reference bar of 0.6), while the words themselves are near.
The topic families of :func:`~memgate.stages.reference_topics.family_reach` list the
members of a few kinds (pets, the car, sport); any other kind was never reached.

:func:`named_by_kind` reads the kind from the multilingual encoder (usem,
:mod:`memgate.core.embedding_use`), word by word, with no list of words: a short topic (at
most :data:`MAX_TOPIC_WORDS` words) is compared with each word of each current fact of the
reference's own tenant and user (their own facts and their team's); a fact's score is its
nearest word's cosine ("seafood" / "shrimp" 0.67, "Meeresfrüchte" / "Garnelen" 0.54,
"fruits de mer" / "crevettes" 0.50). The fact meant is the nearest one, only when its score
reaches :data:`BAR` and beats every other fact's by :data:`MARGIN`: a topic near two facts
alike names neither ("beverages" and two drinks), and a topic near nothing by much
("gardening": 0.51 for "nurse", 0.41 for the next) names nothing, so that an unrelated fact
is never erased. It is asked only when nothing else named a fact, and only with usem on
(MiniLM's passes of the dedupe stage are all read ahead, :mod:`memgate.streams.prefetch`;
these words are known only at resolution).
"""

from __future__ import annotations

import re
from typing import Final

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, FactStatus, StoredFact
from memgate.core.stores import FactView
from memgate.stages.resolve_semantic import said_before

__all__ = ["BAR", "MARGIN", "MAX_TOPIC_WORDS", "named_by_kind", "speaker_facts", "word_scores"]

#: The usem cosine of the topic and the fact's nearest word, at least.
BAR: Final = 0.5
#: How far the fact meant is above every other fact of the speaker.
MARGIN: Final = 0.2
#: A kind is a word or a short noun phrase ("seafood", "fruits de mer").
MAX_TOPIC_WORDS: Final = 3
#: The words of a fact compared: letters only, at least this long (not "to", "on").
MIN_WORD: Final = 4
#: The facts read at most (the speaker's current facts).
SCAN_LIMIT: Final = 500

_WORD_RE: Final = re.compile(rf"[^\W\d_]{{{MIN_WORD},}}")
_CURRENT: Final = (FactStatus.ACTIVE, FactStatus.PENDING)


def _words(f: StoredFact) -> list[str]:
    return list(dict.fromkeys(w.casefold() for w in _WORD_RE.findall(f.value)))


def speaker_facts(view: FactView, c: CandidateFact) -> list[StoredFact]:
    """The speaker's current facts (their own and their team's) said before ``c``, read
    inside the speaker's tenant and user only."""
    pool: dict[str, StoredFact] = {}
    for root in ("user", "team"):
        for f in view.by_subject(
            c.tenant_id, c.user_id, root, statuses=_CURRENT, qualified=True, limit=SCAN_LIMIT
        ):
            if (f.tenant_id, f.user_id) == (c.tenant_id, c.user_id) and said_before(f, c):
                pool[f.fact_id] = f
    return list(pool.values())


def word_scores(
    topic: str, facts: list[StoredFact], meaning: Meaning
) -> list[tuple[float, StoredFact]]:
    """Each fact with its nearest word's cosine to ``topic``, nearest first."""
    words = sorted({w for f in facts for w in _words(f)})
    by_word = {w: meaning.similarity(topic, w) for w in words}
    scored = [(max((by_word[w] for w in _words(f)), default=0.0), f) for f in facts]
    return sorted(scored, key=lambda sf: (-sf[0], sf[1].fact_id))


def named_by_kind(
    c: CandidateFact, view: FactView, meaning: Meaning | None
) -> list[tuple[StoredFact, str]]:
    """The current fact of ``c``'s owner one of whose words the topic is the kind of,
    with why (``topic_kind``); none when the topic is long, or no fact is near enough and
    apart enough from the others (see the module)."""
    topic = c.object.strip()
    if meaning is None or not topic or len(topic.split()) > MAX_TOPIC_WORDS:
        return []
    scored = word_scores(topic, speaker_facts(view, c), meaning)
    if not scored or scored[0][0] < BAR:
        return []
    if len(scored) > 1 and scored[0][0] - scored[1][0] < MARGIN:
        return []
    return [(scored[0][1], "topic_kind")]
