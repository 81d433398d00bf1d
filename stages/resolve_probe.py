"""A turn that yielded no fact, read once more as a restatement of a stored fact.

Most restatements that were never folded in never reached resolution: triage dropped the
turn (a question tag, "like I said" before a request, a turn read as chatter) or extraction
found no fact in it ("Penicillin allergy here, remember?"). Such a turn (extraction's, or
triage's of the drop reasons the data lists: a statement with a question or recall tag or
before a request; not chatter or nothing durable, most dropped turns, probed at a cost in
turns/s for one fold on the development scenarios) is carried on as a
*probe* (:func:`probe_candidate`: the turn's own text, flagged ``probe``): no extractor
runs on a dropped turn, and the probe passes the redact stage like any candidate (so the
text compared is masked the way stored facts are) and reaches the dedupe stage, which reads
the store as it does for every candidate (no stage becomes a store reader). There it can
only *reinforce* (:func:`restated_target`): the user's nearest active fact it says again
gets one more occurrence, its last-seen time and the turn among its sources, audited as a
``restatement``. It never makes a fact, never changes a value, and reads only the tenant's
and user's own facts; a probe that restates nothing leaves no row but its turn's triage or
extraction decision.

A pair folds when, by structure, the rules' own guards pass (no number changed, no value
swapped in one frame, no second person, no change cue, nothing added, no replacement, the
same stance, not another person's or thing's fact), more than half (``cover_bar``) of
the stored fact's content words are said again (the word itself or its first
``prefix_chars`` letters: an inflection, a short form), and then the relation pair classifier
(:mod:`memgate.stages.relation_model`) reads ``same`` with at least ``model_bar``. The word
lists are the lexicon's; the bars are data (``memgate/data/restate_probe.json``).

>>> covered("I'm allergic to penicillin", "Penicillin allergy here, remember?")
1.0
>>> covered("Ma femme est allergique aux noix", "Moi, je suis allergique aux crevettes.")
0.5
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from memgate.core.events import (
    CandidateFact,
    FactStatus,
    FactType,
    StoredFact,
    TurnEvent,
    stable_id,
)
from memgate.core.memo import reading_cache
from memgate.core.stores import FactView, ListsActive
from memgate.stages.fact_keys import cites_turn
from memgate.stages.relation_model import FEATURE_NAMES, RelationModel, _words, pair_features
from memgate.stages.resolution_lexicon import LEXICON, READING_CACHE, Lexicon
from memgate.stages.resolve_learned import LearnedMatch
from memgate.stages.resolve_qualifier import adds_another, other_thing
from memgate.stages.resolve_replaced import replaced_value, replaces
from memgate.stages.resolve_restate import persons_apart
from memgate.stages.resolve_stance import same_stance
from memgate.stages.value_tails import data as tails

__all__ = ["PROBE", "Probe", "covered", "may_restate", "probe_candidate", "restated_target"]

_FEATURE: Final = {name: i for i, name in enumerate(FEATURE_NAMES)}
#: the pair features that must be 0: a number changed, a value swapped in one frame, two
#: people named, a change cue in the new text
_MUST_BE_OFF: Final = ("number_differs", "substitution", "other_persons", "change_cue")
#: the extractor name a probe candidate carries (never a fact's: a probe writes no fact)
PROBE_EXTRACTOR: Final = "restate-probe"


@dataclass(frozen=True)
class Probe:
    """The data of :mod:`memgate.stages.resolve_probe` (``memgate/data/restate_probe.json``)."""

    version: str
    on: bool
    drop_reasons: frozenset[str]
    nearest: int
    model_bar: float
    cover_bar: float
    prefix_chars: int

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Probe:
        mode = str(data["mode"])
        if mode not in ("on", "off"):
            raise ValueError(f"restate_probe.json: unknown mode {mode!r}")
        return cls(
            version=str(data["version"]),
            on=mode == "on",
            drop_reasons=frozenset(str(r) for r in data["drop_reasons"]),
            nearest=int(data["nearest"]),
            model_bar=float(data["model_bar"]),
            cover_bar=float(data["cover_bar"]),
            prefix_chars=int(data["prefix_chars"]),
        )


def _load() -> Probe:
    text = resources.files("memgate.data").joinpath("restate_probe.json").read_text("utf-8")
    return Probe.from_data(json.loads(text))


PROBE: Final = _load()


def probe_candidate(turn: TurnEvent, data: Probe = PROBE) -> CandidateFact | None:
    """The probe of a user's turn that yielded no fact: its text, flagged ``probe``
    (None: the probe is off, the turn is not the user's, or it has no text)."""
    text = " ".join(turn.content.split())[:2_000]
    if not data.on or turn.role != "user" or not text:
        return None
    return CandidateFact.from_turn(
        turn,
        candidate_id=stable_id("probe", turn.tenant_id, turn.turn_id),
        type=FactType.FACT,
        subject="user",
        predicate="statement",
        object=text,
        confidence=0.0,  # a reinforcement never raises the confidence of the fact
        extractor=PROBE_EXTRACTOR,
        extractor_version=data.version,
        probe=True,
    )


def covered(
    stored: str, said: str, prefix: int = PROBE.prefix_chars, lex: Lexicon = LEXICON
) -> float:
    """The share of ``stored``'s content words that ``said`` says again: the same word,
    or (both at least ``prefix`` letters long) the same first ``prefix`` letters, read
    without their accents (an inflection may move one: "diabétique" / "diabète",
    "alérgico" / "alergia").

    >>> covered("Je suis diabétique", "J'ai un diabète")
    1.0
    """
    want, have = _bare_words(stored, lex) - _NAMING, _bare_words(said, lex)
    if not want:
        return 0.0
    stems = {w[:prefix] for w in have if len(w) >= prefix}
    hit = sum(1 for w in want if w in have or (len(w) >= prefix and w[:prefix] in stems))
    return round(hit / len(want), 4)


def _in_reach(f: StoredFact, c: CandidateFact, data: Probe) -> bool:
    """What :func:`restated_target` asks of a fact before its similarity is read: an active
    fact of the probe's speaker, no event, not seen after the probe (unless it cites the
    probe's turn), more than ``cover_bar`` of its content words said again."""
    return (
        f.status is FactStatus.ACTIVE
        and f.type is not FactType.EVENT
        and (f.tenant_id, f.user_id) == (c.tenant_id, c.user_id)
        and not (f.last_seen > c.turn_ts and not cites_turn(f, c))
        and covered(f.value, c.object, data.prefix_chars) >= data.cover_bar
    )


def may_restate(c: CandidateFact, view: FactView, data: Probe = PROBE) -> bool:
    """Whether the probe ``c`` may say again a stored fact: False only when
    :func:`restated_target` would find none whatever the probe's nearest facts are (a
    change cue, or no active fact of its speaker in reach: :func:`_in_reach`), so that the
    probe is neither embedded nor read by its vector (issue 14: 1,052 of the 1,071 probes
    of the LoCoMo dev file; a quarter of the chain's forward passes). A view that cannot
    list the speaker's active facts (:class:`~memgate.core.stores.ListsActive`) answers
    True: the probe is read by its vector, as before."""
    if not c.probe or LEXICON.has_change_cue(c.object):
        return False
    if not isinstance(view, ListsActive):
        return True
    return any(_in_reach(f, c, data) for f in view.active_facts(c.tenant_id, c.user_id))


def _bare_words(text: str, lex: Lexicon) -> frozenset[str]:
    """The content words of ``text`` without their accents (:func:`covered`)."""
    if lex is LEXICON:
        return _kept_bare_words(text)
    return frozenset(_bare(w) for w in _words(text, lex))


@reading_cache(READING_CACHE)
def _kept_bare_words(text: str) -> frozenset[str]:
    """:func:`_bare_words` under the default lexicon, kept per text: a probe is compared
    with every active fact of its speaker (:func:`may_restate`)."""
    return frozenset(_bare(w) for w in _words(text, LEXICON))


def _bare(word: str) -> str:
    """``word`` without its accents (NFD, combining marks dropped; Chinese unchanged)."""
    return "".join(ch for ch in unicodedata.normalize("NFD", word) if not unicodedata.combining(ch))


#: the words that say a name follows ("chamado", "named"): no content of a value ("um gato
#: persa chamado Biscoito" is said again by "o Biscoito, meu persa")
_NAMING: Final = frozenset(_bare(w) for w in tails().naming_words)


def _apart(f: StoredFact, c: CandidateFact, said: str, sim: float) -> bool:
    """The structure says ``c`` is not ``f`` said again."""
    x = pair_features(f.predicate, f.value, "statement", said, sim)
    return (
        any(x[_FEATURE[n]] for n in _MUST_BE_OFF)
        or persons_apart(f, c)
        or other_thing(f, c)
        or adds_another(f.value, said)
        or replaces(replaced_value(said), f.value)
        or not same_stance(f.value, said)
    )


def restated_target(
    c: CandidateFact,
    nearest: Sequence[tuple[StoredFact, float]],
    model: RelationModel,
    data: Probe = PROBE,
) -> LearnedMatch | None:
    """The fact among ``nearest`` (the probe's nearest facts, with MiniLM's cosine) that the
    probe ``c`` says again, the surest first; None when there is none."""
    said = c.object
    if not c.probe or LEXICON.has_change_cue(said):
        return None
    best: LearnedMatch | None = None
    for f, sim in nearest:
        if not _in_reach(f, c, data):
            continue
        as_f = c.model_copy(update={"type": f.type})  # a probe has no type of its own
        if _apart(f, as_f, said, sim):
            continue
        x = pair_features(f.predicate, f.value, "statement", said, sim)
        relation, p = model.relation(x)
        if relation != "same" or p < data.model_bar:
            continue
        if best is None or (p, f.fact_id) > (best.probability, best.fact.fact_id):
            best = LearnedMatch(f, "same", p, sim)
    return best
