"""The clauses of one sentence that triage and the statement extractor judge beside it.

A user's turn to an assistant often says a lasting fact and asks for something in the
same sentence, or opens the fact with a lead that says nothing: the classifiers, which
judge a whole sentence, see the request or the lead and not the fact. Three shapes are
read, by punctuation and the speaker's cues only (no phrase list):

- :func:`lead_clause`: the first clause before a comma, semicolon or colon ("I'm
  pescatarian, so fish is fine but no meat please");
- :func:`after_lead`: what follows a short opening before a colon ("quick thing so you
  have it: my manager is Dana Whitfield", "Kurz zu mir: ich bin im Team Falke");
- :func:`asked_after`: a question led by a statement of the speaker's own, said as that
  statement and the question ("ich fahr nen alten VW Golf IV, also bitte keine Tipps …,
  was mach ich …?", "我们公司生产环境用的是 OceanBase，分区表该怎么建？").

>>> lead_clause("I'm pescatarian, so no meat please")
"I'm pescatarian"
>>> after_lead("quick thing so you have it: my manager is Dana Whitfield.")
'my manager is Dana Whitfield.'
>>> after_lead("Here's the traceback: KeyError in handlers.py, line 88.")
''
>>> after_lead("The three rules I keep for every code review: be kind, be quick.")
''
>>> asked_after("我们公司生产环境用的是 OceanBase，分区表该怎么建？")
['我们公司生产环境用的是 OceanBase。', '分区表该怎么建？']
>>> asked_after("如果以后我们上 ClickHouse，分区该怎么设计比较好？")[1:]
[]
>>> asked_after("You know my daughter Clara, right?")
['You know my daughter Clara, right?']
>>> asked_after("So, what do you think?")
['So, what do you think?']
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

from memgate.stages.durable_frame import durable_own
from memgate.stages.repeats import REPEATS, may_mark
from memgate.stages.statement_text import cues, lexicon, normalise_text, word_class

__all__ = ["after_lead", "asked_after", "lead_clause", "of_speaker"]

#: the end of a sentence's first clause: a comma, semicolon or colon (Chinese ones too)
_CLAUSE_END_RE: Final = re.compile(r"\s*[,;:，；：]\s*")
#: a short opening before a colon ("fyi:", "Kurz zu mir:", "novidade:", "顺便说一下："):
#: at most this many words (a Chinese character counts as half of one)
_LEAD_WORDS: Final = 6
_COLON_RE: Final = re.compile(r"[:：]\s*")
_WORD_RE: Final = re.compile(r"[^\W_]+", re.UNICODE)
_CJK_RE: Final = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: a question's statement lead must carry this many words (a character of Chinese: half),
#: and the question after it this many
_STATED_WORDS: Final = 3
_ASKED_WORDS: Final = 2


@cache
def _cjk_question_words() -> tuple[str, ...]:
    """The Chinese question words and particles (``question_words``): a clause ending with
    one ("我不是说过吗") asks."""
    return tuple(w for w in lexicon()["question_words"] if _CJK_RE.search(w))


def _size(text: str) -> float:
    cjk = len(_CJK_RE.findall(text))
    return len(_WORD_RE.findall(_CJK_RE.sub(" ", text))) + cjk / 2


def lead_clause(sentence: str) -> str:
    """The first clause of a sentence; "" when the sentence has one."""
    parts = _CLAUSE_END_RE.split(sentence, maxsplit=1)
    return parts[0] if len(parts) > 1 else ""


def after_lead(sentence: str) -> str:
    """What follows a short opening before the sentence's first colon, when it is a
    clause of the speaker's own; "" when there is none: a lead of more than a few words
    ("The rules I keep for every review: …") is the sentence's own subject, and a colon
    at the end opens nothing."""
    if ":" not in sentence and "：" not in sentence:
        return ""  # most sentences: no lead to read (issue 14)
    parts = _COLON_RE.split(sentence, maxsplit=1)
    if len(parts) < 2 or not parts[1].strip() or _size(parts[0]) > _LEAD_WORDS:
        return ""
    if cues(parts[0])["hypothetical"]:
        return ""  # "Hypothetically: I'd move to Rome" is no fact of the speaker's
    # what a lead announces is a fact of the speaker's, or material ("Here's the
    # traceback: KeyError …"), no fact of anyone's
    return parts[1].strip() if of_speaker(parts[1]) else ""


def of_speaker(sentence: str) -> bool:
    """The speaker or the speaker's team is the sentence's subject or owner (a pronoun, a
    Spanish or Portuguese verb of the first person, or a durable statement of the
    speaker by its frame: "Colecciono sellos antiguos", "j'enseigne le piano")."""
    c = cues(sentence)
    own = c["first_person"] or c["first_person_plural"] or c["first_person_verb"]
    return own or durable_own(sentence)


def asked_after(sentence: str) -> list[str]:
    """A question led by a clause of the speaker's own that asks nothing, said as that
    statement (closed with a full stop) and the question after it; any other sentence as
    it is."""
    lead = lead_clause(sentence)  # first: most sentences have one clause (issue 14)
    if not lead or not cues(sentence)["question"] or (
        may_mark(sentence) and REPEATS.closing.search(sentence) is not None
    ):
        return [sentence]  # a statement with a recall tag ("…, lembras-te?") asks nothing
    if (
        _size(lead) < _STATED_WORDS
        or cues(lead)["question"]
        or lead.endswith(_cjk_question_words())  # "我不是说过吗，…"
        or word_class("question_words").search(normalise_text(lead)) is not None  # "I always
        # forget how to write …, can you show me?": the lead is what the question asks
        or cues(lead)["hypothetical"]  # "如果以后我们上 ClickHouse，…？" asks of a plan
        or not of_speaker(lead)
    ):
        return [sentence]
    rest = sentence[len(lead) :].lstrip(" ,;:，；：")
    if _size(rest.rstrip("?？ ")) < _ASKED_WORDS:
        return [sentence]  # a tag ("…, right?", "…，对吧？") asks of the statement itself
    stop = "。" if sentence.rstrip().endswith("？") else "."  # a Chinese question: 。
    return [lead + stop, rest] if rest else [sentence]
