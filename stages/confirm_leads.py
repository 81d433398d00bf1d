"""Confirmation leads read by their structure: "Looked at the frame: it's a Trek Domane".

A speaker who checked a thing often says how before saying it: a short lead ending at a
colon with a verb of checking, confirming, looking up or deciding ("Lo confirmó la
veterinaria:", "Hab in meinen Unterlagen nachgesehen:", "确认过了："), or a word that says
a plan is now a fact, before a colon or a comma ("C'est officiel, je suis inscrit…").
The fixed phrases of ``confirmation_lead`` (``statements.json``) cover the common forms;
this reads the others by their shape: a lead of a few words, one word of the class, no
question, no negation, and a statement after it. The word classes are data
(``memgate/data/confirm_leads.json``).

>>> checked_lead("lo confirmó la veterinaria: mi gato es siamés.")
28
>>> checked_lead("c'est officiel, je suis inscrit au club d'escalade !")
16
>>> checked_lead("not confirmed yet: the release is on friday"), checked_lead("note: i'm vegan")
(None, None)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

__all__ = ["LEADS", "ConfirmLeads", "checked_lead", "lead_end"]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_WORD_RE: Final = re.compile(r"[\w'’-]+", re.UNICODE)
_PAUSE_RE: Final = re.compile(r"[:：,，]")


@dataclass(frozen=True)
class ConfirmLeads:
    """The data of :func:`checked_lead` (see the module)."""

    max_lead_words: int
    max_comma_lead_words: int
    max_lead_cjk: int
    checked: frozenset[str]
    settled: frozenset[str]
    blockers: frozenset[str]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> ConfirmLeads:
        def words(key: str) -> frozenset[str]:
            return frozenset(w.casefold() for ws in data[key].values() for w in ws)

        return cls(
            max_lead_words=int(data["max_lead_words"]),
            max_comma_lead_words=int(data["max_comma_lead_words"]),
            max_lead_cjk=int(data["max_lead_cjk"]),
            checked=words("checked"),
            settled=words("settled"),
            blockers=words("blockers"),
        )

    def holds(self, lead: str, words: frozenset[str]) -> bool:
        """A word of ``words`` in ``lead``: a single word among its words, words of more
        than one in their order, a Chinese entry inside it."""
        tokens = _WORD_RE.findall(lead)
        if words & set(tokens):
            return True
        padded = f" {' '.join(tokens)} "
        return any(f" {w} " in padded or w in lead for w in _phrases(words))


@cache
def _phrases(words: frozenset[str]) -> tuple[str, ...]:
    """The entries of ``words`` that are no single Latin word: several words, Chinese."""
    return tuple(w for w in words if " " in w or _CJK_RE.search(w))


def _load() -> ConfirmLeads:
    text = resources.files("memgate.data").joinpath("confirm_leads.json").read_text("utf-8")
    return ConfirmLeads.from_data(json.loads(text))


LEADS: Final = _load()


def checked_lead(low: str, data: ConfirmLeads = LEADS) -> int | None:
    """Where the statement starts after a confirmation lead of ``low`` (a case-folded
    sentence), None when it opens with none (see the module)."""
    m = _PAUSE_RE.search(low)
    if m is None:
        return None
    lead, rest = low[: m.start()], low[m.end() :]
    if "?" in lead or "？" in lead or (len(rest.split()) < 2 and len(_CJK_RE.findall(rest)) < 2):
        return None
    cjk = _CJK_RE.search(lead) is not None
    size = len(_CJK_RE.findall(lead)) if cjk else len(lead.split())
    limit = data.max_lead_cjk if cjk else data.max_lead_words
    if not 0 < size <= limit or data.holds(lead, data.blockers):
        return None
    colon = m.group(0) in ":："
    if colon and (data.holds(lead, data.checked) or data.holds(lead, data.settled)):
        pass
    elif not (data.holds(lead, data.settled) and (cjk or size <= data.max_comma_lead_words)):
        return None
    return m.end() + len(rest) - len(rest.lstrip())


def lead_end(said: str, listed: re.Pattern[str], data: ConfirmLeads = LEADS) -> int | None:
    """Where the statement of the sentence ``said`` starts after its confirmation lead: a
    fixed phrase ``listed`` matches at its start, or a lead read by its shape
    (:func:`checked_lead`); None when it opens with neither."""
    low = said.casefold()
    if len(low) != len(said):
        return None  # an offset in the case-folded text would not be one in ``said``
    m = listed.match(low)
    return m.end() if m is not None else checked_lead(low, data)
