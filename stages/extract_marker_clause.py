"""The clause a standing-instruction marker scopes over.

"From now on", "going forward", "désormais", "ab jetzt", "a partir de ahora" are
adverbials of one clause (a span of the sentence between , ; : or a dash):

- a marker that **opens** its clause (nothing but lead words such as "please",
  "ok", "bitte" before it: ``clause_roles.json``'s ``lead_words``) scopes over
  what follows it: "From now on, answer in French";
- a marker that **closes** its clause (a , ; or : right after it) scopes over
  the clause before it: "Send the digest to the team from now on, it saves time"
  instructs "Send the digest to the team", not "it saves time". That clause is
  an instruction when it opens with a verb (no subject word of ``clause_roles.json``'s
  ``subject_words`` or ``first_person``, no determiner, no name);
- a marker **inside** its clause, with words on both sides, tells how things
  stand from now on ("tout tourne désormais chez Scaleway", "das Team schreibt
  ab jetzt in Mattermost"): a statement, not an instruction to the assistant;
  it is left to the readers of statements, which keep the whole sentence.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Final

from memgate.core.events import normalise
from memgate.stages.extract_build_personal import _instruction_hits
from memgate.stages.extract_build_team import _IMPERATIVE_VERBS
from memgate.stages.extract_rule_kit import _Ctx, _Hit
from memgate.stages.reference_clauses import _roles, _strip_lead
from memgate.stages.resolution_lexicon import LEXICON

__all__ = ["_b_from_now_on"]

#: What ends a clause (the definition of stages/reference_clauses.py).
_BOUNDARY_RE: Final = re.compile(r"[,;:]|\s[-\u2013\u2014]\s")
_IMPERATIVE_RE: Final = re.compile(r"(?:" + _IMPERATIVE_VERBS + r")\b")
_FIRST_WORD_RE: Final = re.compile(r"[^\W\d_][\w'\u2019]*")


@lru_cache(maxsize=1)
def _subject_words() -> frozenset[str]:
    """Words that open a clause as its subject: pronouns, quantifiers, determiners."""
    d = json.loads((resources.files("memgate") / "data" / "clause_roles.json").read_text("utf-8"))
    words = [w for ws in d["subject_words"].values() for w in ws]
    words += [w for ws in d["first_person"].values() for w in ws]
    return frozenset(w.lower() for w in words) | LEXICON.determiners


def _imperative(orig: str, low: str, at: int) -> bool:
    """Whether the clause at ``at`` opens with a verb: a listed imperative, or a first word
    that is no subject (no pronoun, quantifier or determiner, no name)."""
    if _IMPERATIVE_RE.match(low, at):
        return True
    w = _FIRST_WORD_RE.match(low, at)
    if w is None:
        return False
    first = w.group(0).replace("\u2019", "'")
    named = at > 0 and len(orig) == len(low) and orig[at].isupper()
    return not named and first not in _subject_words() and normalise(first) not in _subject_words()


def _clause_before(low: str, at: int) -> tuple[int, int]:
    """The span of the clause text before position ``at``, without its lead words."""
    start = 0
    for b in _BOUNDARY_RE.finditer(low, 0, at):
        start = b.end()
    seg = low[start:at]
    end = start + len(seg.rstrip())
    head = _strip_lead(seg.strip(), _roles())
    return end - len(head), end


def _b_from_now_on(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """The instruction a marker matched by ``m`` (its object group: what follows) gives."""
    at = m.start()
    s, e = _clause_before(ctx.low, at)
    if s >= e:  # the marker opens its clause
        return _instruction_hits(ctx.text(m, "obj"))
    if not _BOUNDARY_RE.search(ctx.low, at, m.start("obj")):
        return []  # inside its clause: how things stand, not an instruction
    if not _imperative(ctx.orig, ctx.low, s):
        return []
    return _instruction_hits(ctx.orig[s:e])
