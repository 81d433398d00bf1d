"""Triage's check for turns that hold only the moment, in the six supported languages.

A turn is dropped before extraction when every sentence in it that is not filler is one
of: a state of the moment ("I'm swamped this week", "out of office until Monday": a
moment word and a state word together), a one-off request ("translate this paragraph":
a task verb first, after any "please" / "can you", with no standing cue such as "from
now on" or "always"), chatter about the conversation ("as I said", "let's change the
subject"), a comment on what was just said with no first person and no name in it ("It
was so much fun!", "They're priceless."), a question, or a hypothetical. The word lists are data
(``memgate/data/statements.json``), read through :func:`memgate.stages.statement_text.cues`.
Chinese is split on 。！？ like every other language (:func:`split_statements`).

>>> moment_reason(["I'm out of office until Monday."])
'moment'
>>> moment_reason(["Translate this paragraph into Italian."])
'one_off_request'
>>> moment_reason(["我这周忙死了。"])
'moment'
>>> moment_reason(["I'm swamped this week.", "I moved to Denver last month."]) is None
True
>>> moment_reason(["Wow, it was so much fun!"]), moment_reason(["It was fun, I loved it."])
('chatter', None)
>>> request_material(["Could you format this log for me?", "ERROR at Parser.java line 12."])
True
>>> request_material(["Suggest a dinner recipe.", "I'm vegan."])
False
"""

from __future__ import annotations

from typing import Final

from memgate.core.memo import TextMemo
from memgate.stages.moment_scope import (
    clitic_request,
    object_first_request,
    of_the_day,
    request_with_content,
)
from memgate.stages.statement_text import cues, split_statements
from memgate.stages.unreal import unreal_kind

__all__ = ["moment_reason", "request_material", "split_statements"]

_ORDER = (
    "moment",
    "one_off",
    "session_only",
    "chatter",
    "social",
    "second_person",
    "comment",
    "hypothetical",
    "question",
    "unreal",
)
_REASON = {
    "moment": "moment",
    "one_off": "one_off_request",
    "session_only": "one_off_request",
    "chatter": "chatter",
    "social": "chatter",
    "second_person": "chatter",
    "comment": "chatter",
    "hypothetical": "question_only",
    "question": "question_only",
    "unreal": "unreal",
}


#: The kinds of the sentences read last (a kind's name, no text of the sentence): the
#: moment check and the request-material check read a turn's first sentence both.
KIND_MEMO: Final[TextMemo[str | None]] = TextMemo(256)


def _kind(sentence: str) -> str | None:
    return KIND_MEMO.get(sentence, _read_kind)


def _read_kind(sentence: str) -> str | None:
    if unreal_kind(sentence) is not None:
        # fiction, irrealis, irony, a stranger's words: no fact of the speaker's world,
        # whatever its standing words ("in the film he always ...") (memgate.stages.unreal)
        return "unreal"
    c = cues(sentence)
    if c["standing"] or (c["question"] and c["first_person"] and not c["one_off"]):
        return None  # "do you know I'm vegan?" says something about the speaker
    # a comment on what was just said ("it was so much fun", "they're priceless"): its
    # subject is a pronoun only the conversation resolves, the speaker is not in it and it
    # names nothing ("It's Shia LaBeouf!" answers a question)
    c["comment"] = (c["anaphoric"] or c["thanked_comment"]) and not (
        c["first_person"] or c["first_person_plural"] or c["named_thing"]
    )
    c["moment"] = (
        c["moment"]
        or c["moment_event"]
        or c["moment_class"]
        or c["moment_later"]
        or c["mishap"]
        or of_the_day(sentence)  # a state scoped to the day, an excuse (moment_scope)
    )
    if c["moment"]:
        return "moment"  # the first of _ORDER: the requests below need not be read
    # a request whose object comes first (Chinese) or whose imperative carries its pronoun
    # ("Escríbeme ...", "Corrige-moi ...")
    c["one_off"] = (
        c["one_off"]
        or object_first_request(sentence)
        or clitic_request(sentence)
        or request_with_content(sentence)
    )
    for name in _ORDER:
        if c.get(name):
            return name
    return None


def moment_reason(sentences: list[str]) -> str | None:
    """The drop reason when every sentence holds only the moment, else None."""
    kinds: list[str] = []
    for s in sentences:
        kind = _kind(s)
        if kind is None:
            return None  # a sentence of more than the moment: the others need not be read
        kinds.append(kind)
    for name in _ORDER:
        if name in kinds:
            return _REASON[name]
    return None


_SPEAKER_CUES = ("standing", "first_person", "first_person_plural", "first_person_verb")


def request_material(sentences: list[str]) -> bool:
    """A turn opened by a one-off request whose other sentences say nothing of the speaker
    (no first person, no standing cue): they are the request's material, a pasted error or
    the thing to work on ("Could you format this log? ERROR at Parser.java line 12."), and
    the turn holds only the moment. A sentence of the speaker after the request ("I'm
    vegan.") is read as said."""
    if len(sentences) < 2 or _kind(sentences[0]) not in ("one_off", "session_only"):
        return False
    return not any(cues(s)[name] for s in sentences[1:] for name in _SPEAKER_CUES)
