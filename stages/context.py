"""Source context: the words of the turn a fact was read from, kept with the fact.

A fact's statement is short and normalised ("user event went to a support
group"); the user asks later in their own words ("when did she go to that
LGBTQ group?"). Retrieval finds a fact much more often when it can also match
the sentence the fact came from and its neighbours, so every candidate carries
a bounded ``context``: the sentence of the turn that shares the most words
with the fact's value, widened by its neighbouring sentences while the budget
allows (the whole turn when it fits).

The context is only ever *searched*: keys, duplicates, supersession and the
served statement are decided on the fact alone. It is raw text until the
redact stage masks it (PII, credentials, regulated categories), exactly like
the fact, so nothing unmasked reaches a store.

>>> turn = "Thanks! I went to a support group yesterday. It was so powerful. Any tips?"
>>> source_context(turn, "went to a support group", 60)
'I went to a support group yesterday. It was so powerful.'
>>> source_context(turn, "went to a support group", 200)
'Thanks! I went to a support group yesterday. It was so powerful. Any tips?'
>>> source_context(turn, "went to a support group", 0)
''
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgate.core.events import MAX_CONTEXT_CHARS, CandidateFact
from memgate.core.text import split_sentences

#: The default budget: one to three sentences of a chat turn.
DEFAULT_CONTEXT_CHARS = 320

_WORD_RE = re.compile(r"\w+", re.UNICODE)
_WS_RE = re.compile(r"\s+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD_RE.findall(text)}


def _clip(text: str, budget: int) -> str:
    if len(text) <= budget:
        return text
    cut = text[:budget]
    if text[budget].isspace():
        return cut.rstrip()
    space = cut.rfind(" ")
    return (cut[:space] if space > budget // 2 else cut).rstrip()


def source_context(turn_text: str, value: str, max_chars: int = DEFAULT_CONTEXT_CHARS) -> str:
    """The sentence of ``turn_text`` that best matches ``value``, widened up to ``max_chars``.

    Neighbours are added alternately after and before the anchor sentence while
    the result stays within the budget; an anchor longer than the budget is
    cut at a word boundary. ``max_chars <= 0`` disables context.
    """
    budget = min(max_chars, MAX_CONTEXT_CHARS)
    if budget <= 0:
        return ""
    text = _WS_RE.sub(" ", turn_text).strip()
    if len(text) <= budget:
        return text
    sentences = [_WS_RE.sub(" ", s) for s in split_sentences(turn_text)]
    if not sentences:
        return ""
    want = _words(value)
    anchor = max(range(len(sentences)), key=lambda i: (len(want & _words(sentences[i])), -i))
    lo = hi = anchor
    size = len(sentences[anchor])
    if size >= budget:
        return _clip(sentences[anchor], budget)
    grew = True
    while grew:
        grew = False
        for nxt in (hi + 1, lo - 1):
            if 0 <= nxt < len(sentences) and not lo <= nxt <= hi:
                extra = len(sentences[nxt]) + 1
                if size + extra <= budget:
                    size += extra
                    lo, hi = min(lo, nxt), max(hi, nxt)
                    grew = True
    return " ".join(sentences[lo : hi + 1])


def said_in(context: str, value: str) -> str:
    """The sentence of ``context`` a fact of ``value`` was read from: the one sharing the
    most words with it (the first of a tie).

    >>> said_in("Hi! We moved our DNS to Cloudflare. Any tips?", "team uses Cloudflare")
    'We moved our DNS to Cloudflare.'
    """
    sentences = split_sentences(context)
    if not sentences:
        return ""
    want = _words(value)
    return max(sentences, key=lambda s: (len(want & _words(s)), -sentences.index(s)))


def with_context(
    turn_text: str, facts: Sequence[CandidateFact], max_chars: int = DEFAULT_CONTEXT_CHARS
) -> list[CandidateFact]:
    """The facts with ``context`` filled from the turn where the extractor left it empty."""
    out: list[CandidateFact] = []
    for f in facts:
        if f.context or max_chars <= 0:
            out.append(f)
            continue
        ctx = source_context(turn_text, f.object, max_chars)
        out.append(f.model_copy(update={"context": ctx}) if ctx else f)
    return out
