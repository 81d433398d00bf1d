"""The literals a pattern needs (memgate.stages.regex_literals): never a set that a
string the pattern matches in lacks, so the reference prefilter skips no match."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memgate
from memgate.core.text import split_sentences
from memgate.inputs import ReadErrors, read_turns
from memgate.stages import references
from memgate.stages.regex_literals import may_match, required_literals
from memgate.stages.resolution_lexicon import LEXICON
from tests.datasets import locomo_file

_EVAL = Path(memgate.__file__).parent / "data" / "eval"


def _lits(pattern: str, flags: int = 0) -> list[str] | None:
    got = required_literals(re.compile(pattern, flags))
    return None if got is None else sorted(got)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("forget that", ["forget that"]),
        (r"\bforget\s+that", ["forget"]),  # two runs: the longer
        (r"(?:delete|erase)\s+it", ["delete", "erase"]),
        (r"(?:delete|x?erase)\s+it", ["delete", "erase"]),  # the optional x is no part
        (r"(?:ab|abc)d", ["abcd", "abd"]),  # the run's strings: neither holds the other
        (r"(?:ab|a)c", ["abc", "ac"]),
        (r"d[aoe]s\b", ["das", "des", "dos"]),
        (r"(?:you\s+)?know", ["know"]),
        (r"(?:that|the)\s+bit", ["bit"]),  # one literal before two as short
        (r"(?P<t>\w+)\s+(?:is|are)\s+gone", ["gone"]),
        (r"(?<!ich )\bvergiss", ["vergiss"]),  # a lookbehind's text is not required
        (r"(?=xyz)\w+", None),  # nor a lookahead's
        (r"(?:x)*tail", ["tail"]),
        (r"(?:ab){2}c?", ["ab"]),
        (r"a{0,3}", None),
        (r"[^abc]+", None),
        (r"[a-z]+", None),
        (r"(?:foo|\w+)bar", ["bar"]),  # a branch with no literal: the other part decides
        (r"(?:foo|\w+)", None),  # a branch proves nothing, so the alternation does not
        (r"(a)\1", ["a"]),  # a backreference proves nothing of its own
        (r"(?i:abc)", None),  # a group with flags of its own: unknown
        (r"", None),
    ],
)
def test_required_literals(pattern: str, expected: list[str] | None) -> None:
    assert _lits(pattern) == expected


def test_a_case_folding_pattern_proves_nothing() -> None:
    # re.IGNORECASE (or an inline (?i)) folds "İ" and "K" (Kelvin sign) to letters of
    # another length or code: no literal of the pattern is safe to look for as written
    assert _lits("delete", re.IGNORECASE) is None
    assert _lits("(?i)delete") is None
    assert re.compile("(?i)k").search("\u212a") is not None  # why: Kelvin matches k


def test_may_match() -> None:
    lits = required_literals(re.compile(r"\b(?:forget|ignore)\s+that"))
    assert may_match(lits, "please forget that") and may_match(lits, "ignore it all")
    assert not may_match(lits, "remember that")
    assert may_match(None, "")


_PATTERNS = [rp.pattern for rp in LEXICON.references]


def test_most_reference_patterns_have_a_prefilter() -> None:
    # the prefilter is worth having: all but a few patterns need a literal
    with_lits = [p for p in _PATTERNS if required_literals(p) is not None]
    assert len(_PATTERNS) > 60 and len(with_lits) == len(_PATTERNS)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _dev_texts() -> list[str]:
    """Every string of the development eval files (never a held-out one, never the
    frozen split under test/) and every LoCoMo dev turn."""
    texts = [t.content for t in read_turns(locomo_file(), ReadErrors())]
    for path in sorted(_EVAL.iterdir()):  # not recursive: test/ is never read
        if not path.is_file() or "holdout" in path.name:
            continue
        if path.suffix == ".jsonl":
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    texts += _strings(json.loads(line))
        elif path.suffix == ".json":
            texts += _strings(json.loads(path.read_text(encoding="utf-8")))
    return texts


@pytest.fixture(scope="module")
def dev_lows() -> list[str]:
    out: set[str] = set()
    for text in _dev_texts():
        out.add(text.lower())
        out.update(s.lower() for s in split_sentences(text))  # as references reads them
    return sorted(out)


def test_no_reference_pattern_matches_where_its_literals_are_missing(
    dev_lows: list[str],
) -> None:
    assert len(dev_lows) > 10_000
    found = 0
    for pattern in _PATTERNS:
        lits = required_literals(pattern)
        for low in dev_lows:
            if pattern.search(low) is not None:
                found += 1
                assert may_match(lits, low), (pattern.pattern, low)
    assert found > 100  # the files do hold many references, in every language


@pytest.mark.parametrize("index", range(len(_PATTERNS)))
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_string_a_reference_pattern_matches_holds_one_of_its_literals(
    index: int, data: st.DataObject
) -> None:
    pattern = _PATTERNS[index]
    text = data.draw(st.from_regex(pattern))
    if pattern.search(text) is not None:  # hypothesis reads some constructs loosely
        assert may_match(required_literals(pattern), text), (pattern.pattern, text)


def test_the_references_read_are_those_of_every_pattern_run() -> None:
    # the prefilter changes how often a pattern runs, never what a text is read as
    texts = [
        "Scratch that bit about the gym.",
        "Please delete what you know about my address.",
        "We moved off Bitbucket, everything lives in GitLab now.",
        "Vergiss bitte alles über meinen Job.",
        "Oublie ce que je t'ai dit sur mon régime.",
        "Olvida lo que te dije sobre el maratón.",
        "Esquece o que eu te disse sobre o meu carro.",
        "请删除关于我地址的所有信息。",
        "I had a great time at the gym today.",
    ]
    pf = references._prefilter(LEXICON.references)
    assert pf.patterns is LEXICON.references
    everything = references._Prefilter(pf.patterns, (None,) * len(pf.patterns), (), ())
    got = [references._read(t, LEXICON) for t in texts]
    key = id(LEXICON.references)
    references._PREFILTERS[key] = everything
    try:
        want = [references._read(t, LEXICON) for t in texts]
    finally:
        references._PREFILTERS[key] = pf
    assert got == want
    assert sum(map(len, got)) >= 8
