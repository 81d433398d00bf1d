"""``LiteralScan`` (issue 14): it finds exactly the literals a text holds, and the
families read with it (``Lexicon._read_family``, ``_read_families``) are those read by
searching every family's pattern, on every LoCoMo dev sentence and word list phrase."""

from __future__ import annotations

import random

from memgate.inputs import ReadErrors, read_turns
from memgate.stages.literal_scan import LiteralScan
from memgate.stages.resolution_lexicon import LEXICON, Family
from memgate.stages.statement_text import split_statements
from tests.datasets import locomo_file


def _texts() -> list[str]:
    turns = read_turns(locomo_file(), ReadErrors())
    out = [s for t in turns for s in split_statements(t.content)]
    for i in range(len(LEXICON.families)):
        # each literal of each family, said in a sentence
        for lit in sorted(LEXICON._family_scan._sets[i] or ()):
            out += [f"Ich {lit} seit heute", f"my {lit}s now", f"我的{lit}换了"]
    return out


def test_found_is_every_literal_the_text_holds() -> None:
    rng = random.Random(14)
    sets = [frozenset({"ab", "abc", "b", "bca"}), frozenset({"北京", "京"}), None, frozenset()]
    scan = LiteralScan(sets)
    lits = {lit for s in sets if s for lit in s}
    pool = list("abc北京 x")
    for _ in range(5000):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 12)))
        found = scan.found(text)
        assert found == {lit for lit in lits if lit in text}, text
        assert [scan.may(i, found) for i in range(4)] == [
            any(lit in text for lit in sets[0]),
            any(lit in text for lit in sets[1]),
            True,
            False,
        ]


def _reference_family(predicate: str, value: str) -> tuple[Family | None, bool]:
    """``_read_family`` searching every family, as before the scan."""
    by_predicate = next((f for f in LEXICON.families if predicate in f.predicates), None)
    if by_predicate is not None and not by_predicate.additive:
        return by_predicate, True
    for low in LEXICON._family_readings(value):
        for f in LEXICON.families:
            usable = (by_predicate is None or f.single) and f.words is not None
            if usable and f.words is not None and f.words.search(low):
                return f, False
    return (by_predicate, True) if by_predicate is not None else (None, False)


def test_families_read_with_the_scan_are_those_searched() -> None:
    texts = _texts()
    assert len(texts) > 10_000
    additive = next(p for f in LEXICON.families if f.additive for p in sorted(f.predicates))
    for text in texts:
        for predicate in ("statement", additive):
            assert LEXICON._read_family(predicate, text) == _reference_family(predicate, text)
    for text in texts[::5]:
        first, _ = LEXICON.family_of("statement", text)
        got = LEXICON._read_families("statement", text)
        if first is None:
            assert got == ()
            continue
        readings = LEXICON._family_readings(text)
        if first.words is not None:
            readings = tuple(first.words.sub(" ", low) for low in readings)
        more = [
            f
            for f in LEXICON.families
            if f is not first
            and f.single
            and f.words is not None
            and any(f.words.search(low) for low in readings)
        ]
        assert got == (first, *more), text


def _vendor_texts() -> list[str]:
    from importlib import resources

    texts = [t.content for t in read_turns(locomo_file(), ReadErrors())]
    for name in ("leaks.jsonl", "leaks_dev2.jsonl", "leaks_dev3.jsonl"):
        raw = (resources.files("memgate") / "data" / "eval" / name).read_text("utf-8")
        texts += [line for line in raw.splitlines() if line.strip()]
    keys = [
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_" + "a1B2" * 9,
        "glpat-" + "x" * 20,
        "xoxb-1234-5678-abcdEFGH",
        "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
        "SG." + "a" * 22 + "." + "b" * 43,
        "sk-" + "a" * 20 + "T3BlbkFJ" + "b" * 20,
        "AC" + "0" * 32,
        "SK" + "f" * 32,
        "123456789:" + "A" * 35,
        "AccountKey=" + "k" * 88,
        "pypi-AgEIcHlwaS5vcmc" + "z" * 70,
    ]
    texts += [f"my key is {k} ok" for k in keys] + [f"token={k}" for k in keys]
    return texts


def test_vendor_keys_found_with_the_scan_are_those_of_every_pattern() -> None:
    from memgate.stages import detectors_entropy as ent

    def every_pattern(spaced: str) -> list[tuple[int, int]]:
        out = []
        for plugin in ent._VENDORS:
            for rx in plugin.denylist:
                for m in rx.finditer(spaced):
                    start, end = ent.vendor_key_span(spaced, *m.span())
                    if end - start >= 8:
                        out.append((start, end))
        return out

    texts = _vendor_texts()
    hits = 0
    for text in texts:
        got = [(c.start, c.end) for c in ent.find_vendor_keys(text, text.lower())]
        want = every_pattern(text)
        assert got == want, text[:80]
        hits += bool(want)
    assert hits >= 20  # the texts hold vendor keys the patterns find
