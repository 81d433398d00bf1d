"""The front stages' faster paths (issue 14) answer as the plain ones they replaced."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from memgate.core.text import split_sentences
from memgate.inputs import ReadErrors, read_turns
from memgate.stages import durable_frame as df
from memgate.stages import moment, tentative
from memgate.stages import sentence_classifier as sc
from memgate.stages.statement_text import cues
from tests.datasets import locomo_file


def _plain_hedge_split(sentence: str) -> tuple[str, str] | None:
    """hedge_split as it was: every lead tried in turn, the longest first."""
    s = " ".join(sentence.replace("’", "'").split())
    opening = df._OPENING_RE.match(s)
    at = opening.end() if opening is not None else 0
    for lead in df._hedge_leads():
        end = at + len(lead)
        if s[at:end].casefold() != lead:
            continue
        nxt = s[end : end + 1]
        if not (df._CJK_RE.search(lead) or lead.endswith("'") or nxt in ("", " ", ",")):
            continue
        rest = df._PAUSE_RE.sub("", s[end:])
        for word in df.DURABLE.get("complementizers", ()):
            if rest.casefold().startswith(word) and (
                word.endswith("'") or rest[len(word) : len(word) + 1] in (" ", ",")
            ):
                rest = df._PAUSE_RE.sub("", rest[len(word) :])
                break
        return (s[at:end], rest) if rest else None
    return None


def _plain_featurise(sentence: str) -> np.ndarray:
    """_featurise as it was: one bucket incremented per n-gram."""
    vec = np.zeros(sc.DIM + len(sc.CUE_NAMES), dtype=np.float64)
    for g in sc._grams(sentence):
        vec[zlib.crc32(g.encode("utf-8")) % sc.DIM] += 1.0
    norm = float(np.linalg.norm(vec[: sc.DIM]))
    if norm > 0:
        vec[: sc.DIM] /= norm
    c = sc.cues(sentence)
    for i, name in enumerate(sc.CUE_NAMES):
        vec[sc.DIM + i] = 1.0 if c[name] else 0.0
    return vec


@pytest.fixture(scope="module")
def sentences() -> list[str]:
    turns = list(read_turns(locomo_file(), ReadErrors()))
    return [s for t in turns[::3] for s in split_sentences(t.content)]


def _hedged() -> list[str]:
    out = []
    for lead in df._hedge_leads():
        for pre in ("", "Well, ", "so "):
            for post in ("", " ", ", that we use Terraform", "x", "' a", " que oui", "ß"):
                out += [pre + lead + post, pre + lead.upper() + post, pre + lead.title() + post]
    return out


def test_hedge_split_reads_each_lead_as_before(sentences: list[str]) -> None:
    texts = [*_hedged(), *sentences]
    got = [df.hedge_split(t) for t in texts]
    assert got == [_plain_hedge_split(t) for t in texts]
    assert sum(g is not None for g in got) > 100


def test_featurise_gives_the_same_bits(sentences: list[str]) -> None:
    for s in [*sentences[:1500], "", "42", "我们已经不用了", "ok ok ok ok"]:
        assert sc._featurise(s).tobytes() == _plain_featurise(s).tobytes(), s


def _plain_kind(sentence: str) -> str | None:
    """moment._kind as it was: every cue read, then the first kind of the order."""
    if moment.unreal_kind(sentence) is not None:
        return "unreal"
    c = moment.cues(sentence)
    if c["standing"] or (c["question"] and c["first_person"] and not c["one_off"]):
        return None
    c["comment"] = (c["anaphoric"] or c["thanked_comment"]) and not (
        c["first_person"] or c["first_person_plural"] or c["named_thing"]
    )
    c["moment"] = (
        c["moment"]
        or c["moment_event"]
        or c["moment_class"]
        or c["moment_later"]
        or c["mishap"]
        or moment.of_the_day(sentence)
    )
    c["one_off"] = (
        c["one_off"]
        or moment.object_first_request(sentence)
        or moment.clitic_request(sentence)
        or moment.request_with_content(sentence)
    )
    return next((name for name in moment._ORDER if c.get(name)), None)


def _plain_moment_reason(sentences: list[str]) -> str | None:
    kinds = [_plain_kind(s) for s in sentences]
    if not kinds or any(k is None for k in kinds):
        return None
    return next((moment._REASON[n] for n in moment._ORDER if n in kinds), None)


def test_the_moment_check_reads_each_turn_as_before() -> None:
    turns = list(read_turns(locomo_file(), ReadErrors()))[::2]
    groups = [moment.split_statements(t.content) for t in turns]
    groups += [[s] for g in groups for s in g]  # each sentence alone too
    got = [moment.moment_reason(g) for g in groups]
    assert got == [_plain_moment_reason(g) for g in groups]
    assert {"moment", "chatter", "question_only"} <= set(got)
    kinds = [moment._kind(s) for g in groups[:3000] for s in g]
    assert kinds == [_plain_kind(s) for g in groups[:3000] for s in g]
    assert "moment" in kinds and "one_off" in kinds


def test_tentative_reads_the_doubt_of_a_clause_as_its_cues_do(
    sentences: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [
        *sentences,
        "I think I might move to Oslo, not sure yet.",
        "Vielleicht ziehen wir nach Bonn.",
        "Puede que me operen en mayo.",
        "我可能会搬到上海。",
        "He took over in May, so he's my boss now.",
        "I may move to Oslo.",
    ]
    got = [tentative._read(t) for t in texts]
    monkeypatch.setattr(tentative, "uncertain", lambda s: cues(s)["uncertain"])
    assert got == [tentative._read(t) for t in texts]
    assert sum(1 for g in got if g is not None and g[2]) > 20  # doubtful ones among them
