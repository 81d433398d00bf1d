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
"""

from __future__ import annotations

from memgate.stages.moment_scope import object_first_request, of_the_day
from memgate.stages.statement_text import cues, split_statements
from memgate.stages.unreal import unreal_kind

__all__ = ["moment_reason", "split_statements"]

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


def _kind(sentence: str) -> str | None:
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
    c["one_off"] = c["one_off"] or object_first_request(sentence)
    for name in _ORDER:
        if c.get(name):
            return name
    return None


def moment_reason(sentences: list[str]) -> str | None:
    """The drop reason when every sentence holds only the moment, else None."""
    kinds = [_kind(s) for s in sentences]
    if not kinds or any(k is None for k in kinds):
        return None
    for name in _ORDER:
        if name in kinds:
            return _REASON[name]
    return None
