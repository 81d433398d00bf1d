"""What a withdrawal leaves of a fact it names only in part.

"Forget what I told you about Canal+" after "j'ai Netflix et Canal+" withdraws Canal+, not
Netflix; "esquece o que eu falei do Sentry" after "a gente usa Sentry pra monitorar erros
e o deploy é na Vercel" leaves the deploy. A statement is cut into pieces at its sentence
ends, commas, colons and coordinators (``memgate/data/residual.json``); the pieces naming
the topic go, and with each one the pieces after it in its sentence that have no subject
of their own ("… and works at Dell": the same person's). What is left, when it still says
something of its own, is the residual: :func:`residual_fact` stores it as a new current
fact beside the closed one (:func:`memgate.stages.resolve_forget.by_reference`). The
closed fact is erased or closed as before; the residual holds no piece that names the
topic, so an erasure leaves none of its words.

>>> named = lambda piece: "canal" in piece.lower()
>>> residual_value("je regarde des séries : j'ai Netflix et Canal+, propose-moi des trucs", named)
"je regarde des séries : j'ai Netflix"
>>> residual_value("my sister lives in Austin and works at Dell", lambda p: "sister" in p)
>>> residual_value("a gente usa Sentry pra monitorar erros e o deploy é na Vercel",
...                lambda p: "sentry" in p.lower())
'o deploy é na Vercel'
>>> residual_value("我每周三晚上去 Pure Yoga 上课，那天晚上别给我约别的事; 我在 Shopee 做产品经理",
...                lambda p: "yoga" in p.lower())
'我在 Shopee 做产品经理'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any, Final

from memgate.core.embedding import Embedder
from memgate.core.events import FactStatus, StoredFact, render_fact_text, stable_id
from memgate.stages.fact_keys import fact_key
from memgate.stages.statement_text import cues, lexicon

__all__ = ["no_topic", "residual_fact", "residual_value"]

_CJK: Final = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE: Final = re.compile(f"[{_CJK}]")
_LATIN_WORD_RE: Final = re.compile(r"[^\W\d_]+", re.UNICODE)


@cache
def _data() -> dict[str, Any]:
    path = resources.files("memgate") / "data" / "residual.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _words(name: str) -> list[str]:
    return sorted({w for ws in _data()[name].values() for w in ws}, key=len, reverse=True)


@cache
def _separators() -> re.Pattern[str]:
    """A sentence end (group ``s``), a coordinator, after a comma or not (``k``), a comma
    or colon (``c``)."""
    coord = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in _words("coordinators"))
    return re.compile(
        r"(?P<s>(?<![0-9][.])(?<=[.!?])\s+|;\s*|[。！？；]\s*)"
        rf"|(?P<k>(?:\s*,)?\s+(?:{coord})\s+)"
        r"|(?P<c>,\s*|\s+[:—–-]\s+|:\s+|[，、：]\s*)",
        re.IGNORECASE,
    )


@cache
def _subject_words() -> frozenset[str]:
    return frozenset(_words("subject_words")) | frozenset(lexicon()["articles"])


@cache
def no_topic() -> frozenset[str]:
    """Words that name no topic in a piece (``no_topic``: pronouns and question words the
    topic's words may hold, "wo ich arbeite")."""
    return frozenset(w for ws in _data()["no_topic"].values() for w in ws)


def _pieces(value: str) -> list[tuple[str, str, str]]:
    """(separator before, its kind ``s``/``c``/``k`` or ``""`` first, piece) in order."""
    out: list[tuple[str, str, str]] = []
    sep, kind, start = "", "", 0
    for m in _separators().finditer(value):
        out.append((sep, kind, value[start : m.start()]))
        sep, kind, start = m.group(0), m.lastgroup or "", m.end()
    out.append((sep, kind, value[start:]))
    return [(s, k, p) for s, k, p in out if p.strip()]


def _own_subject(piece: str) -> bool:
    """The piece opens with its own subject: the speaker's, an article, a name. A pronoun
    of another person points back at what went; Chinese pieces never do here (no article
    marks a subject)."""
    text = piece.strip()
    if not text or _CJK_RE.match(text):
        return False
    low = text.lower()
    first = low.split()[0]
    if first in _subject_words() or any(
        low.startswith(w if w.endswith("'") else w + " ")
        for w in _subject_words()
        if " " in w or w.endswith("'")
    ):
        return True
    if cues(text)["one_off"]:
        return False  # "…, propose-moi des trucs": a request about what went
    return text[:1].isupper()


def _says_something(pieces: list[str]) -> bool:
    """Enough words, and a piece that is no question, request or social formula."""
    text = " ".join(pieces)
    d = _data()
    big = (
        len(_LATIN_WORD_RE.findall(_CJK_RE.sub(" ", text))) >= d["min_words"]
        or len(_CJK_RE.findall(text)) >= d["min_cjk_chars"]
    )
    if not big:
        return False
    return any(not (c["question"] or c["one_off"] or c["social"]) for c in map(cues, pieces))


def residual_value(value: str, named: Callable[[str], bool]) -> str | None:
    """``value`` without the pieces ``named`` says name the withdrawn topic and the pieces
    that go on about them; None when no piece is named, every piece goes, or what is left
    says nothing of its own."""
    pieces = _pieces(value)
    # pieces joined by commas are one run ("Soy celíaca, no puedo comer gluten"; "un coche
    # eléctrico, un Tesla"): a run goes whole when one of its pieces is named
    run, runs = -1, []
    for _sep, kind, _piece in pieces:
        run += kind != "c"
        runs.append(run)
    gone = {runs[i] for i, (_s, _k, piece) in enumerate(pieces) if named(piece)}
    kept: list[tuple[str, str]] = []
    dropped = going = False
    gap: str | None = None  # the separator before the first piece gone since the last kept
    for i, (sep, kind, piece) in enumerate(pieces):
        if kind in ("", "s"):
            going = False
        if runs[i] in gone or (going and not _own_subject(piece)):
            # after a piece that went, one with no subject of its own says more of it
            dropped = going = True
            gap = sep if gap is None else gap
            continue
        going = False
        # "A: B and C" without B is "A: C"
        kept.append(((sep if gap is None or kind == "s" else gap) if kept else "", piece))
        gap = None
    if not dropped or not kept or not _says_something([p for _, p in kept]):
        return None
    return "".join(s + p for s, p in kept).strip(" ,;:，；：")


def residual_fact(
    f: StoredFact, rest: str, marker: str, now: datetime, embedder: Embedder
) -> StoredFact:
    """The current fact that holds ``rest``, what a withdrawal (its ``marker``) left of
    ``f``: the same owner, kind, sessions and turns, valid since ``f`` was; a new key when
    ``f``'s key held its value (a statement's), no context (it may name the topic)."""
    own_key = f.key == fact_key(f.tenant_id, f.user_id, f.subject, f.predicate, f.value)
    key = fact_key(f.tenant_id, f.user_id, f.subject, f.predicate, rest) if own_key else f.key
    text = render_fact_text(f.subject, f.predicate, rest)
    vec = embedder.embed([text])[0]
    # of ids only (the fact's is keyed): it confirms no guess of the value
    fact_id = stable_id("residual", f.fact_id, marker)[: len(f.fact_id)]
    return f.model_copy(
        update={
            "fact_id": fact_id,
            "key": key,
            "value": rest,
            "text": text,
            "status": FactStatus.ACTIVE,
            "valid_to": None,
            "superseded_by": None,
            "superseded_at": None,
            "supersedes": f.fact_id,
            "recorded_at": now,
            "context": "",
            "rationale": "",
            "embedding": [float(x) for x in vec],
            "search_embedding": None,
        }
    )
