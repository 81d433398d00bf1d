"""Resolution's text readings are kept per text and read the same as a fresh reading.

Resolution compares each candidate with every active fact of its speaker
(``same_clause``), so the readings of one stored value (change cue, negation,
family, anchors, clause words) were computed again for every later candidate: on
the LoCoMo dev file about 4.6 million regular-expression searches, most of the
ingest's CPU time (issue 14). They are now kept per text, bounded; these tests prove
the kept readings are the fresh ones, on real conversation text and on the
lexicon's own words, and that a repeated reading is served from memory.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from memgate.core.events import FactType
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages import resolve_slots
from memgate.stages.resolution_lexicon import LEXICON, READING_CACHE, Lexicon
from tests.datasets import locomo_file
from tests.unit.stages.resolver_kit import apply, cand


def _corpus() -> list[str]:
    """LoCoMo turns (first conversation) and every word and phrase of the lexicon."""
    data = json.loads(locomo_file().read_text(encoding="utf-8"))
    conv = data[0]["conversation"]
    texts = [
        t["text"]
        for k, v in conv.items()
        if k.startswith("session_") and isinstance(v, list)
        for t in v
        if isinstance(t, dict) and t.get("text")
    ]
    words = [w for ws in _raw_lexicon()["change_cues"].values() for w in ws]
    words += [w for ws in _raw_lexicon().get("negations", {}).values() for w in ws]
    return [*texts[:400], *words, *(f"I {w} it" for w in words), "", "  "]


def _raw_lexicon() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "resolution.json").read_text("utf-8")
    return json.loads(raw)  # type: ignore[no-any-return]


@pytest.fixture
def fresh() -> Lexicon:
    """A lexicon loaded anew: its kept readings start empty."""
    return Lexicon.from_data(_raw_lexicon())


def test_kept_readings_are_the_fresh_readings(fresh: Lexicon) -> None:
    texts = _corpus()
    assert len(texts) > 400
    for _ in range(2):  # the second pass is served from memory
        for t in texts:
            assert fresh.has_change_cue(t) is fresh._read_change_cue(t), t
            assert fresh.has_negation(t) is fresh._read_negation(t), t
            for predicate in ("statement", "works_at", "has_pet", "contact:manager"):
                assert fresh.family_of(predicate, t) == fresh._read_family(predicate, t), t
                every = fresh.families_of(predicate, t)
                assert every == list(fresh._read_families(predicate, t)), t
                every.append(every[0] if every else fresh.families[0])  # the caller's list
                assert len(fresh.families_of(predicate, t)) == len(every) - 1, t
    assert fresh._cue.cache_info().hits >= len(set(texts))  # type: ignore[attr-defined]
    assert fresh._families.cache_info().hits >= len(set(texts))  # type: ignore[attr-defined]


def test_kept_anchors_and_clause_words_are_the_fresh_ones() -> None:
    for t in _corpus():
        for sentence in (True, False):
            kept = resolve_slots.anchors(t, sentence=sentence)
            assert kept == set(resolve_slots._anchors.__wrapped__(t, sentence)), t
            kept.add("mutated")  # a caller's set is its own: the kept one is unchanged
            assert "mutated" not in resolve_slots.anchors(t, sentence=sentence)
        words, flat = resolve_slots._clause_words(f"user statement {t}")
        assert (words, flat) == resolve_slots._clause_words.__wrapped__(f"user statement {t}")
        heads = resolve_slots.head_terms(t)
        assert heads == resolve_slots._head_terms(t, LEXICON), t
        heads.add("mutated")
        assert "mutated" not in resolve_slots.head_terms(t)
        for subject, predicate in SLOTS:
            kept_terms = resolve_slots._kept_clause_terms(subject, predicate, t)
            assert kept_terms == resolve_slots._clause_terms(subject, predicate, t, LEXICON)
            assert resolve_slots._owner_and_rest(subject) == (
                resolve_slots._owner_and_rest.__wrapped__(subject)
            )


#: Subjects and predicates of stored facts: the speaker, a thing of theirs, a qualifier.
SLOTS = (
    ("user", "statement"),
    ("user's sister", "statement"),
    ("team's backend", "uses_tool:database"),
    ("team", "contact:other"),
    ("Mara", "works_at"),
)


def test_the_kept_readings_are_bounded() -> None:
    for kept in (LEXICON._cue, LEXICON._negation, LEXICON._family, LEXICON._families):
        assert kept.cache_info().maxsize == READING_CACHE  # type: ignore[attr-defined]
    for kept_f in (
        resolve_slots._anchors,
        resolve_slots._clause_words,
        resolve_slots._kept_head_terms,
        resolve_slots._kept_clause_terms,
        resolve_slots._owner_and_rest,
    ):
        assert kept_f.cache_info().maxsize == READING_CACHE


def test_a_stored_value_is_read_once_across_candidates(store: EmbeddedIndex) -> None:
    """Each candidate is compared with every stored statement of its speaker; the stored
    values' readings are computed for the first candidate and kept for the next ones."""
    said = [
        "I keep a small vegetable garden behind the house",
        "My sister Mara teaches piano in Leipzig",
        "I run along the river every Sunday morning",
        "Our band rehearses in a garage on Fridays",
    ]
    for day, text in enumerate(said):
        apply(store, cand(text, "statement", days=day, multi=True, type_=FactType.FACT))
    before = LEXICON._cue.cache_info()  # type: ignore[attr-defined]
    for day, text in enumerate(["I bake bread on Saturdays", "I collect old maps of Lisbon"]):
        apply(store, cand(text, "statement", days=10 + day, multi=True))
    after = LEXICON._cue.cache_info()  # type: ignore[attr-defined]
    assert after.hits - before.hits >= len(said)
