"""The word classes as prefix trees (issue 14): ``statement_text.word_pattern`` finds
exactly what the alternation sorted longest first found, the same spans by ``search``,
``match`` and ``finditer``, for every word list of the data files that feed it, on every
LoCoMo dev sentence and on each word in hard contexts (glued to a letter, after an
apostrophe, inside Chinese)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib import resources
from typing import Any

import pytest

from memgate.inputs import ReadErrors, read_turns
from memgate.stages.resolve_stance import cue_pattern
from memgate.stages.statement_text import _CJK_RE, normalise_text, split_statements, word_pattern
from memgate.stages.word_trie import alternation, bounded_words
from tests.datasets import locomo_file

_FILES = (
    "statements.json",
    "triage_cues.json",
    "moment_scope.json",
    "durable_frames.json",
    "settled.json",
)


def _reference(entries: list[str]) -> re.Pattern[str]:
    """The construction the prefix tree replaced."""
    entries = [normalise_text(e) for e in entries]
    latin = sorted({e for e in entries if not _CJK_RE.search(e)}, key=len, reverse=True)
    cjk = sorted({e for e in entries if _CJK_RE.search(e)}, key=len, reverse=True)
    parts = []
    if latin:
        parts.append(r"(?<![\w'])(?:" + "|".join(re.escape(e) for e in latin) + r")(?![\w])")
    if cjk:
        parts.append("(?:" + "|".join(re.escape(e) for e in cjk) + ")")
    return re.compile("|".join(parts) if parts else r"(?!x)x")


def _lists(node: Any) -> Iterator[list[str]]:
    if isinstance(node, list) and node and all(isinstance(x, str) for x in node):
        yield node
    elif isinstance(node, dict):
        strs = [w for v in node.values() if isinstance(v, list) for w in v if isinstance(w, str)]
        if strs and all(isinstance(v, list) for v in node.values()):
            yield strs  # a class by language, read as one list
        for v in node.values():
            yield from _lists(v)
    elif isinstance(node, list):
        for v in node:
            yield from _lists(v)


def _word_lists() -> list[list[str]]:
    out = []
    for name in _FILES:
        data = json.loads((resources.files("memgate") / "data" / name).read_text("utf-8"))
        out.extend(ws for ws in _lists(data) if all(normalise_text(w) for w in ws))
    return out


def _texts(lists: list[list[str]]) -> list[str]:
    texts = {
        normalise_text(s)
        for t in read_turns(locomo_file(), ReadErrors())
        for s in split_statements(t.content)
    }
    for ws in lists[:40]:
        for w in ws[:30]:
            w = normalise_text(w)
            texts.update({w, f"x{w}", f"{w}x", f"'{w} ", f"a {w}, b", f"在{w}了", f"{w}{w}"})
    return sorted(texts)


def _spans(p: re.Pattern[str], texts: list[str]) -> tuple[list[Any], ...]:
    return (
        [m.span() if (m := p.search(t)) else None for t in texts],
        [m.span() if (m := p.match(t)) else None for t in texts],
        [[m.span() for m in p.finditer(t)] for t in texts[::7]],
    )


def test_every_word_list_matches_as_before() -> None:
    lists = _word_lists()
    assert len(lists) > 60
    texts = _texts(lists)
    differ = [
        ws[:3] for ws in lists if _spans(word_pattern(ws), texts) != _spans(_reference(ws), texts)
    ]
    assert not differ, f"{len(differ)} lists match otherwise, e.g. {differ[:3]}"


@pytest.mark.parametrize(
    ("words", "text", "found"),
    [
        (["a", "ab", "abc"], "abcd abc", "abc"),
        (["work", "worker", "walk"], "the workers walk", "walk"),
        (["ich", "ich bin"], "ich bin da", "ich bin"),
    ],
)
def test_longest_word_at_a_position(words: list[str], text: str, found: str) -> None:
    m = word_pattern(words).search(text)
    assert m is not None and m.group() == found


def test_alternation_is_the_same_language() -> None:
    words = ["a", "ab", "abc", "b.c", "x?", "北京", "北"]
    p = re.compile(f"(?:{alternation(words)})$")
    assert all(p.match(w) for w in words)
    assert not any(p.match(w) for w in ["", "abcd", "bxc", "x", "京"])
    assert re.fullmatch(alternation([""]), "") is not None
    assert re.search(alternation([]), "anything") is None


def test_an_empty_word_is_refused() -> None:
    with pytest.raises(ValueError, match="empty word"):
        bounded_words(["a", ""], [], r"[\w']", r"[\w]")


def _stance_reference(words: set[str], heads: set[str]) -> re.Pattern[str]:
    """The aversion cues' pattern before the prefix trees."""
    parts = [
        re.escape(w) if _CJK_RE.search(w) else rf"(?<!\w){re.escape(w)}(?!\w)"
        for w in sorted(words, key=len, reverse=True)
    ]
    parts += [rf"{re.escape(w)}(?!\w)" for w in sorted(heads, key=len, reverse=True)]
    return re.compile("|".join(parts))


def test_aversion_cues_match_as_before() -> None:
    data = json.loads((resources.files("memgate") / "data" / "stance.json").read_text("utf-8"))
    words = {w.lower() for ws in data["aversion"].values() for w in ws}
    heads = {w.lower() for ws in data["compound_heads"].values() for w in ws}
    new, old = cue_pattern(words, heads), _stance_reference(words, heads)
    assert new is not None and new.pattern != old.pattern
    texts = [t.content.lower() for t in read_turns(locomo_file(), ReadErrors())]
    for w in [*words, *heads]:
        texts += [w, f"x{w}", f"{w}x", f"ich hab eine erdnuss{w}.", f"我对{w}了", f"not {w}, ok"]
    for text in texts:
        assert [m.span() for m in new.finditer(text)] == [m.span() for m in old.finditer(text)]


def test_aversion_cues_of_a_latin_and_a_chinese_word_alike_stay_one_alternation() -> None:
    # "no" and "no过敏" start alike: the longest first across both, as before
    p = cue_pattern({"no", "no过敏"}, set())
    assert p is not None and p.search("no过敏").group() == "no过敏"
    assert p.pattern == _stance_reference({"no", "no过敏"}, set()).pattern


def test_secret_labels_are_found_as_before() -> None:
    """The labels of ``detectors_labelled`` (a password, a PIN, a passport number's label):
    the same spans and the same label by the prefix tree as by the list sorted longest
    first, on every LoCoMo dev turn and each label in context."""
    from memgate.stages import detectors_labelled as lab

    old = re.compile(
        rf"(?<![{lab._LATIN}_])(?P<label>"
        + "|".join(re.escape(w) for w in sorted(set(lab._LABEL_FAMILY), key=len, reverse=True))
        + r")(?![A-Za-z\u00c0-\u024f])"
    )
    assert old.pattern != lab._LABEL_RE.pattern
    texts = [t.content.lower() for t in read_turns(locomo_file(), ReadErrors())]
    for w in lab._LABEL_FAMILY:
        texts += [w, f"my {w}: x1", f"x{w}", f"{w}s", f"_{w}", f"{w}é", f"我的{w}是", f"{w}{w}"]
    for text in texts:
        got = [(m.span(), m.group("label")) for m in lab._LABEL_RE.finditer(text)]
        assert got == [(m.span(), m.group("label")) for m in old.finditer(text)], text


def test_is_cjk_reads_every_code_point_as_its_ranges_say() -> None:
    """``is_cjk``'s shortcut below the first range (issue 14) changes no answer."""
    from memgate.stages import detector_text as dt

    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        want = any(lo <= cp <= hi for lo, hi in dt._CJK_RANGES)
        if dt.is_cjk(ch) != want:
            raise AssertionError(hex(cp))
