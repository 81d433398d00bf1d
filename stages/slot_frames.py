"""Sentence frames that state a slot's value, read without trusting capitals.

The keep classifier takes a capitalised word inside a sentence as a sign of a name
("Mi plan es el Básico": 0.89) and misses the same sentence typed in lower case
("Mi plan es el básico": 0.57). Two frames say a value whatever its case:

- a **copula frame**: a possessive lead, a short noun (the slot), a copula, a short
  value: "mi plan es el básico", "unser paketmanager ist yarn", "我的时区是东八区";
- a **change frame**: a first-person sentence holding a verb of moving to another
  value: "me pasé al plan premium", "we switched to pnpm", "我上个月搬到了深圳".

A sentence in either frame is kept at the data's ``keep_probability``. Word lists:
``memgate/data/slot_frames.json`` (copulas and change verbs per language) and the
possessive leads of ``statements.json``.

>>> copula_slot("Mi plan es el básico."), copula_slot("Unser Paketmanager ist yarn")
('plan', 'paketmanager')
>>> copula_slot("我的时区是东八区"), copula_slot("My plan is to rest and then see")
('时区', None)
>>> says_change("Me pasé al plan premium"), says_change("I passed the exam")
(True, False)
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any, Final

from memgate.core.text import bounded_alternation
from memgate.stages.durable_frame import DURABLE, durable_own
from memgate.stages.statement_text import cues, lexicon, normalise_text

__all__ = ["FRAMES", "copula_slot", "frame_probability", "inverted_slot", "says_change"]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_END_RE: Final = re.compile(r"[\s.!?。！？…]+$")


_CLASS_RE: Final = re.compile(r"\{(\w+)\}")


def _phrases(words: list[str]) -> str:
    """One alternation of the phrases; ``{possessed}`` in a phrase is a thing of the
    speaker: a possessive lead of statements.json and one to three words ("mudei {possessed}
    para": "mudei minha assinatura para")."""
    parts = []
    for w in sorted({w.lower() for w in words}, key=len, reverse=True):
        pieces = _CLASS_RE.split(w)
        esc = ""
        for i, piece in enumerate(pieces):
            if i % 2 == 0:
                esc += re.escape(piece).replace(r"\ ", r"\s+")
            elif piece == "possessed":
                leads = "|".join(re.escape(x) for x in sorted(
                    lexicon()["possessive_lead"], key=len, reverse=True))  # fmt: skip
                esc += rf"(?:{leads})(?:\s+[^\s,.;:!?]+){{1,3}}"
            else:
                raise ValueError(f"slot_frames.json: unknown word class {{{piece}}}")
        parts.append((esc, not _CJK_RE.search(w)))
    return bounded_alternation(parts)


@lru_cache(maxsize=1)
def _load() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "slot_frames.json").read_text("utf-8")
    return dict(json.loads(raw))


FRAMES: Final[dict[str, Any]] = _load()


@lru_cache(maxsize=1)
def _copula_re() -> re.Pattern[str]:
    leads = _phrases(list(lexicon()["possessive_lead"]))
    copulas = _phrases([c for cs in FRAMES["copulas"].values() for c in cs])
    return re.compile(rf"^(?:{leads})\s*(?P<slot>.+?)\s*(?:{copulas})\s*(?P<value>.+)$")


@lru_cache(maxsize=1)
def _change_re() -> re.Pattern[str]:
    return re.compile(_phrases([v for vs in FRAMES["change_verbs"].values() for v in vs]))


def _words(text: str) -> int:
    """Words of a span: spaces between Latin words; a run of Chinese counts as one."""
    return len(text.split())


def copula_slot(sentence: str) -> str | None:
    """The slot a "my <noun> <copula> <value>" sentence fills, or None."""
    norm = _END_RE.sub("", normalise_text(sentence))
    m = _copula_re().match(norm)
    if m is None:
        return None
    slot, value = m.group("slot").strip(" ,"), m.group("value").strip(" ,")
    if not slot or not value:
        return None
    if _words(slot) > FRAMES["max_slot_words"] or _words(value) > FRAMES["max_value_words"]:
        return None
    if not _CJK_RE.search(value):
        first = value.split()[0]
        if first in FRAMES["intention_leads"] or first.endswith(
            tuple(FRAMES["verb_value_suffixes"])
        ):
            return None  # "my plan is to rest", "my head is killing me": no value
    return slot


@lru_cache(maxsize=1)
def _inverted_re() -> re.Pattern[str]:
    leads = _phrases(list(lexicon()["possessive_lead"]))
    copulas = _phrases([c for cs in FRAMES["copulas"].values() for c in cs])
    return re.compile(
        rf"(?:'s|\s(?:{copulas}))\s+(?:{leads})\s*(?P<slot>[^\s,;:]+(?:\s[^\s,;:]+){{0,2}})"
        r"\s*(?:[,;:]|$)"
    )


def inverted_slot(sentence: str) -> str | None:
    """The slot of a clause that ends "<someone> <copula> my <noun>", where the noun names a
    single-valued family of ``resolution.json`` ("so he's my boss now", "Wiebke ist meine
    Chefin"): the value is said before the copula, often a clause earlier; None otherwise
    ("it's my birthday today": no family).

    >>> inverted_slot("Anke Vogt took over the unit, so she's my supervisor now")
    'supervisor now'
    >>> inverted_slot("It's my birthday today"), inverted_slot("My boss is Anke")
    (None, None)
    """
    from memgate.stages.resolution_lexicon import LEXICON

    norm = _END_RE.sub("", normalise_text(sentence)).replace("\u2019", "'")
    for m in _inverted_re().finditer(norm):
        slot = m.group("slot").strip()
        head = slot.split()[0]
        if any(f.single and f.words is not None and f.words.search(head) for f in LEXICON.families):
            return slot
    return None


def says_change(sentence: str) -> bool:
    """The sentence holds a verb of moving to another value ("switched to", "搬到")."""
    return _change_re().search(normalise_text(sentence)) is not None


def frame_probability(sentence: str, p: float) -> float:
    """``p`` raised to the frames' keep probability for a sentence in a value frame, or to
    the durable frames' for a durable statement of the speaker."""
    floor = float(FRAMES["keep_probability"])
    if p >= floor:
        return p
    if copula_slot(sentence) is not None or inverted_slot(sentence) is not None:
        return floor
    c = cues(sentence)
    if (c["first_person"] or c["first_person_plural"]) and says_change(sentence):
        return floor
    if durable_own(sentence):
        # a lasting statement of the speaker ("I collect vinyl records", "Juego al pádel
        # los jueves"): too few n-grams for the classifier (memgate.stages.durable_frame)
        return float(DURABLE["keep_probability"])
    return p
