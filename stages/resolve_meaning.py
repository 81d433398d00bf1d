"""usem in resolution: the multilingual "near in meaning?" beside MiniLM's cosine.

Resolution asks whether two statements mean the same thing, or whether a reference's
topic is near a fact, in a few places; the MiniLM cosine it asks (the vectors stored
for retrieval) reads English only. When the resolver holds a
:class:`~memgate.core.embedding_use.Meaning` (settings ``resolution_meaning = "usem"``),
those places also ask it, and a pair at or above its own bar (``memgate/data/meaning.json``,
chosen on the development pairs: README, "usem") is near too:

- a paraphrase folded (:func:`memgate.stages.resolve_paraphrase.fold_target`): the same
  names on both sides and no slot in common (``fold``), or no name at all and no shared
  words, which a restatement in another language cannot share (``fold_unanchored``);
- a free statement with a change cue superseding a fact of its subject
  (:func:`memgate.stages.resolve_semantic.semantic_target`: ``change``);
- a reference's topic near a fact (:func:`memgate.stages.resolve_semantic.referenced_facts`:
  ``reference``).

Everything else the rules check (owners, names, a value swapped in one frame, types,
times) still holds: the similarity is one condition among them, asked last and only for
the pairs that reach it. Without a :class:`Meaning` (``None``) nothing is asked and the
decisions are those made without it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, StoredFact, normalise
from memgate.core.memo import TextMemo
from memgate.stages.statement_text import rules_read

__all__ = ["BARS", "MeaningBars", "meaning_text", "near_in_meaning", "usem_similarity"]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_OWNER_RE: Final = re.compile(r"^(user|team)(?:'s|s)?\b\s*")


@dataclass(frozen=True)
class MeaningBars:
    """The cosines (of :class:`Meaning`'s vectors) at which a pair is near, per use."""

    version: str
    fold: float
    fold_unanchored: float
    change: float
    reference: float
    value_words: int
    """A value of more words than this is a sentence and is read alone (a typed value,
    "Priya Raman", is read with its slot: "manager Priya Raman")."""
    english_pairs: bool
    """Whether usem is asked about two English texts too (else MiniLM alone reads them)."""

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> MeaningBars:
        return cls(
            version=str(data["version"]),
            fold=float(data["fold"]),
            fold_unanchored=float(data["fold_unanchored"]),
            change=float(data["change"]),
            reference=float(data["reference"]),
            value_words=int(data["value_words"]),
            english_pairs=bool(data["english_pairs"]),
        )


def _load() -> MeaningBars:
    text = resources.files("memgate.data").joinpath("meaning.json").read_text("utf-8")
    return MeaningBars.from_data(json.loads(text))


BARS: Final = _load()


def meaning_text(f: StoredFact | CandidateFact, bars: MeaningBars = BARS) -> str:
    """What is compared of a fact or candidate: its value when it is a sentence (a
    statement, or more than ``value_words`` words, or Chinese), else its slot and value
    without the owner ("user's dog name_is Rocco": "dog name is Rocco").

    >>> from memgate.core.events import StoredFact
    >>> f = StoredFact.model_construct(subject="user", predicate="contact:manager",
    ...                                value="Priya Raman")
    >>> meaning_text(f)
    'contact manager Priya Raman'
    >>> meaning_text(f.model_copy(update={"predicate": "statement", "value": "I run."}))
    'I run.'
    """
    value = f.value if isinstance(f, StoredFact) else f.object
    if f.predicate == "statement" or len(value.split()) > bars.value_words or _CJK_RE.search(value):
        return value
    rest = _OWNER_RE.sub("", normalise(f.subject))
    slot = re.sub(r"[:_]+", " ", f.predicate).strip()
    return " ".join(p for p in (rest, slot, value) if p)


#: Whether a text reads as English, by a digest of the text (no raw text kept as a key).
_ENGLISH: Final[TextMemo[bool]] = TextMemo(16_384)


def _english(text: str) -> bool:
    return _ENGLISH.get(text, rules_read)


def usem_similarity(
    meaning: Meaning | None, a: str, b: str, bars: MeaningBars = BARS
) -> float | None:
    """The :class:`Meaning` cosine of ``a`` and ``b``; None when it is not asked: no
    :class:`Meaning` (usem off), or both texts English (read as the rule extractor reads
    English: :func:`~memgate.stages.statement_text.rules_read`) while ``english_pairs`` is
    off (MiniLM reads English: its cosine decides there alone)."""
    if meaning is None:
        return None
    if not bars.english_pairs and _english(a) and _english(b):
        return None
    return meaning.similarity(a, b)


def near_in_meaning(
    meaning: Meaning | None, a: str, b: str, bar: float, bars: MeaningBars = BARS
) -> float | None:
    """:func:`usem_similarity` when it is asked and at or above ``bar``, else None."""
    sim = usem_similarity(meaning, a, b, bars)
    return sim if sim is not None and sim >= bar else None
