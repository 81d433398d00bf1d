"""A recurring time slot holds one activity: "Je fais du judo le jeudi soir", then
"maintenant le jeudi soir je fais de l'escalade" is the Thursday evening changed.

Asked by :func:`~memgate.stages.resolve_change.change_target` for a statement with a change
cue when neither a replacement structure nor a frame found the fact it replaces, with the
words of ``recurring`` in ``memgate/data/change.json``: the statement names one day of the
week (and maybe a part of the day); the owner's one active fact that names the same day
(the same part, when both name one) and words the statement does not repeat (another
activity) is the one replaced. Two facts of that day, or none: nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from memgate.core.events import StoredFact, normalise
from memgate.stages.resolution_lexicon import LEXICON, Lexicon

__all__ = ["RECURRING", "Recurring", "recurring_target"]

_WORD_RE: Final = re.compile(r"[^\W_][\w'-]*")
_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")


def _groups(data: dict[str, list[str]]) -> tuple[dict[str, int], dict[str, int]]:
    """Word -> group index, for Latin words and for Chinese strings."""
    latin: dict[str, int] = {}
    cjk: dict[str, int] = {}
    for groups in data.values():
        for i, forms in enumerate(groups):
            for w in forms.split():
                (cjk if _CJK_RE.search(w) else latin)[normalise(w)] = i
    return latin, cjk


@dataclass(frozen=True)
class Recurring:
    """The day and part-of-day words of ``recurring`` in ``memgate/data/change.json``."""

    days: tuple[dict[str, int], dict[str, int]]
    parts: tuple[dict[str, int], dict[str, int]]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Recurring:
        return cls(_groups(data["days"]), _groups(data["parts"]))

    @staticmethod
    def _found(text: str, words: tuple[dict[str, int], dict[str, int]]) -> set[int]:
        latin, cjk = words
        low = normalise(text)
        found = {latin[w] for w in _WORD_RE.findall(low) if w in latin}
        if _CJK_RE.search(low):
            found |= {i for w, i in cjk.items() if w in low}
        return found

    def slot(self, text: str) -> tuple[set[int], set[int]]:
        """The days and the parts of the day ``text`` names.

        >>> RECURRING.slot("Je fais du judo le jeudi soir")
        ({3}, {2})
        >>> RECURRING.slot("Los sábados por la mañana hago natación")
        ({5}, {0})
        >>> RECURRING.slot("周四晚上打球")
        ({3}, {2})
        """
        return self._found(text, self.days), self._found(text, self.parts)

    def time_word(self, word: str) -> bool:
        return word in self.days[0] or word in self.parts[0]


def _load() -> Recurring:
    text = resources.files("memgate.data").joinpath("change.json").read_text("utf-8")
    return Recurring.from_data(json.loads(text)["recurring"])


RECURRING: Final = _load()


def _content(text: str, lex: Lexicon, rec: Recurring) -> set[str]:
    words = _WORD_RE.findall(normalise(lex.unelide(text)))
    return {
        w
        for w in words
        if len(w) > 2
        and not rec.time_word(w)
        and w not in lex.clause_stopwords
        and w not in lex.determiners
        and w not in lex.stopwords
        and not lex.has_change_cue(w)
    }


def _repeats(old: str, new: str, lex: Lexicon, rec: Recurring) -> bool:
    """``new`` says every word of ``old`` besides its time (Chinese: holds the rest)."""
    if _CJK_RE.search(old):
        rest = normalise(old)
        for words in (rec.days[1], rec.parts[1]):
            for w in words:
                rest = rest.replace(w, "")
        return all(ch in normalise(new) for ch in rest if _CJK_RE.match(ch))
    return _content(old, lex, rec) <= _content(new, lex, rec)


def recurring_target(
    said: str, pool: Sequence[StoredFact], lex: Lexicon = LEXICON, rec: Recurring = RECURRING
) -> StoredFact | None:
    """The one fact of ``pool`` holding the time slot ``said`` fills with another
    activity; None when ``said`` names no single day, or no single fact fits."""
    days, parts = rec.slot(said)
    if len(days) != 1:
        return None
    hits = []
    for f in pool:
        f_days, f_parts = rec.slot(f.value)
        if f_days != days or (parts and f_parts and f_parts != parts):
            continue
        if not _repeats(f.value, said, lex, rec):
            hits.append(f)
    return hits[0] if len(hits) == 1 else None
