"""``bounded_alternation`` (issue 14): the word lists' patterns, built with one shared pair
of lookarounds per run of word-bounded phrases, find exactly what the one-lookaround-pair-
per-phrase patterns they replace found: the same spans, the same groups, the same
substitutions, on every LoCoMo dev turn and on every phrase in hard contexts."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib import resources
from typing import Any

import pytest

from memgate.core.text import bounded_alternation
from memgate.inputs import ReadErrors, read_turns
from memgate.stages import reference_clauses, slot_frames
from memgate.stages.resolution_lexicon import LEXICON, _phrase_re
from memgate.stages.statement_text import lexicon
from tests.datasets import locomo_file

_CJK_RE = re.compile(r"[\u3400-\u9fff]")


def _data(name: str) -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / name).read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


_CLASS_RE = re.compile(r"\{(\w+)\}")


def _old_escape(phrase: str, expand: dict[str, str]) -> str:
    """A phrase escaped, spaces as ``\\s+``, each ``{class}`` replaced by ``expand``'s."""
    pieces = _CLASS_RE.split(phrase)
    return "".join(
        re.escape(piece).replace(r"\ ", r"\s+") if i % 2 == 0 else expand[piece]
        for i, piece in enumerate(pieces)
    )


def _lexicon_classes() -> dict[str, str]:
    classes = _data("resolution.json").get("word_classes", {})
    return {
        name: r"(?:\w+\s+){0,2}(?:"
        + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        + ")"
        for name, words in classes.items()
    }


def _frame_classes() -> dict[str, str]:
    leads = "|".join(
        re.escape(x) for x in sorted(lexicon()["possessive_lead"], key=len, reverse=True)
    )
    return {"possessed": rf"(?:{leads})(?:\s+[^\s,.;:!?]+){{1,3}}"}


# The builders as they were: every word-bounded phrase with its own lookarounds.
def _old_lexicon_re(phrases: list[str]) -> re.Pattern[str]:
    parts = []
    for p in sorted({p.lower() for p in phrases if p.strip()}, key=len, reverse=True):
        esc = _old_escape(p, _lexicon_classes())
        parts.append(esc if _CJK_RE.search(p) else rf"(?<!\w){esc}(?!\w)")
    return re.compile("|".join(parts))


def _old_clause_re(words: list[str]) -> re.Pattern[str]:
    parts = [
        re.escape(w) if _CJK_RE.search(w) else rf"(?<!\w){re.escape(w)}(?!\w)"
        for w in sorted(set(words), key=len, reverse=True)
    ]
    return re.compile("|".join(parts))


def _old_frame_alternation(words: list[str]) -> str:
    parts = []
    for w in sorted({w.lower() for w in words}, key=len, reverse=True):
        esc = _old_escape(w, _frame_classes())
        parts.append(esc if _CJK_RE.search(w) else rf"(?<!\w){esc}(?!\w)")
    return "|".join(parts)


def _flat(groups: dict[str, list[str]]) -> list[str]:
    return [w for ws in groups.values() for w in ws]


def _word_lists() -> dict[str, tuple[list[str], str]]:
    """Every word list built into such a pattern, with the builder it goes through."""
    r = _data("resolution.json")
    roles = _data("clause_roles.json")
    frames = _data("slot_frames.json")
    out: dict[str, tuple[list[str], str]] = {
        "change_cues": (_flat(r["change_cues"]), "lexicon"),
        "negations": (_flat(r["negations"]), "lexicon"),
        "delete_verbs": (_flat(r["delete_verbs"]), "lexicon"),
        "clause no_longer": (_flat(roles["no_longer"]), "clause"),
        "clause negations": (_flat(r["negations"]), "clause"),
        "clause change": (_flat(r["change_cues"]), "clause"),
        "possessive_lead": (list(lexicon()["possessive_lead"]), "frame"),
        "copulas": (_flat(frames["copulas"]), "frame"),
        "change_verbs": (_flat(frames["change_verbs"]), "frame"),
    }
    for f in r["families"]:
        if f["words"]:
            out[f"family {f['name']}"] = (list(f["words"]), "lexicon")
    for i, t in enumerate(r["topics"]):
        out[f"topic {i}"] = (list(t["words"]), "lexicon")
    return out


def _patterns(words: list[str], builder: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    if builder == "lexicon":
        new = _phrase_re(words, _data("resolution.json").get("word_classes"))
        assert new is not None
        return _old_lexicon_re(words), new
    if builder == "clause":
        return _old_clause_re(words), reference_clauses._phrases(words)
    return re.compile(_old_frame_alternation(words)), re.compile(slot_frames._phrases(words))


def _hard_contexts(words: list[str]) -> Iterator[str]:
    """Each phrase alone, inside a word, at a word's edge, beside an apostrophe, a digit,
    Chinese, twice, and next to a longer or shorter phrase of the list."""
    for w in words:
        low = w.lower()
        for s in (low, w, w.upper()):
            yield from (
                s,
                f"x{s}",
                f"{s}x",
                f"_{s}_",
                f"{s}'s",
                f"'{s}'",
                f"1{s}2",
                f"我{s}们",
                f"I said {s}, then {s}!",
                f"{s}{s}",
                f"{s} {s}",
                f"-{s}-",
                f"{s}\n{s}",
            )
    joined = " ".join(words)
    yield joined
    yield joined.replace(" ", "")


@pytest.fixture(scope="module")
def locomo_texts() -> list[str]:
    turns = list(read_turns(locomo_file(), ReadErrors()))
    assert len(turns) > 1000
    return [t.content.lower() for t in turns[::4]]  # the stages search lower-cased text


def _same(old: re.Pattern[str], new: re.Pattern[str], t: str) -> None:
    assert [(m.span(), m.group()) for m in new.finditer(t)] == [
        (m.span(), m.group()) for m in old.finditer(t)
    ], t
    assert new.sub(" ", t) == old.sub(" ", t), t


@pytest.mark.parametrize("name", sorted(_word_lists()))
def test_a_word_list_finds_what_it_found_before(name: str, locomo_texts: list[str]) -> None:
    words, builder = _word_lists()[name]
    old, new = _patterns(words, builder)
    assert new.pattern != old.pattern  # the lists do hold word-bounded phrases
    for text in [*_hard_contexts(words), *locomo_texts]:
        _same(old, new, text)


def test_the_copula_frame_reads_the_same_slot_and_value(locomo_texts: list[str]) -> None:
    leads = _old_frame_alternation(list(lexicon()["possessive_lead"]))
    copulas = _old_frame_alternation(
        [c for cs in slot_frames.FRAMES["copulas"].values() for c in cs]
    )
    old = re.compile(rf"^(?:{leads})\s*(?P<slot>.+?)\s*(?:{copulas})\s*(?P<value>.+)$")
    new = slot_frames._copula_re()
    for t in locomo_texts:
        a, b = old.match(t), new.match(t)
        assert (a is None) == (b is None), t
        if a is not None and b is not None:
            assert a.groupdict() == b.groupdict(), t


def test_the_lexicon_s_patterns_are_built_with_shared_lookarounds() -> None:
    assert LEXICON.cues is not None
    assert LEXICON.cues.pattern.startswith(r"(?<!\w)(?:")
    assert LEXICON.cues.pattern.count(r"(?<!\w)") < 10  # runs, not one per phrase


def test_a_list_with_no_bounded_phrase_is_unchanged() -> None:
    assert bounded_alternation([("现在", False), ("改用", False)]) == "现在|改用"
    assert bounded_alternation([]) == ""
