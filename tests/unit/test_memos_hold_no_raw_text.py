"""The process's memos keep nothing a turn said raw, and an erasure empties them.

Session 19 (attack19). The stages memoise pure functions of a text (``TextMemo``): the
references memo kept a deletion request's ``Reference`` objects, whose topic and clause
quote the turn raw, before redaction ("forget my card number 4111 1111 1111 1111"), for
the next 256 texts, and after ``forget`` of its user. Every memo was keyed by an
unkeyed digest of the text, which confirms a guess of a short text ("my PIN is 4711").
Now a reference is read again rather than kept, the keys are keyed by a secret of the
process, and an erasure (user or fact) empties every memo and the embedder's cache.
"""

from __future__ import annotations

import gc
import hashlib
from pathlib import Path

from memgate import Memory
from memgate.core.embedding import MiniLMEmbedder
from memgate.core.memo import TextMemo
from memgate.stages.references import REFERENCES_MEMO, find_references

CARD = "4111 1111 1111 1111"
REQUEST = f"Please forget my card number {CARD} and my password Sup3rS3cretPw!x."


def _memos() -> list[TextMemo[object]]:
    return [o for o in gc.get_objects() if isinstance(o, TextMemo)]


def _raw_in_memos(*needles: str) -> list[str]:
    found = []
    for memo in _memos():
        for value in list(memo._data.values()):
            text = repr(value).lower()
            found += [n for n in needles if n.lower() in text]
    return found


def test_a_reference_quoting_its_turn_is_not_kept_in_the_memo() -> None:
    REFERENCES_MEMO.clear()
    refs = find_references(REQUEST)
    assert refs and CARD in refs[0].topic  # the reference still reads the topic
    assert find_references(REQUEST) == refs  # read again: the same answer
    assert len(REFERENCES_MEMO) == 0
    assert find_references("I like green tea.") == []
    assert len(REFERENCES_MEMO) == 1  # "no reference" is kept: it quotes nothing


def test_a_memo_key_is_no_plain_digest_of_the_text() -> None:
    memo: TextMemo[int] = TextMemo(4)
    memo.get("my PIN is 4711", len)
    (key,) = memo._data
    for size in (16, 32, 64):
        assert key != hashlib.blake2b(b"my PIN is 4711", digest_size=size).digest()
    assert key != hashlib.sha256(b"my PIN is 4711").digest()[:16]


def test_forget_empties_every_memo_and_the_embedders_cache(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path / "data", embedder="hashing") as memory:
        memory.add(
            [{"role": "user", "content": f"I live in Berlin and my card is {CARD}."},
             {"role": "user", "content": REQUEST},
             {"role": "user", "content": "Bitte lösche alles über meine Adresse Hauptstraße 5."}],
            tenant="t1", user="alice", session="s1",
        )  # fmt: skip
        assert not _raw_in_memos(CARD, "sup3rs3cretpw", "hauptstraße")
        assert sum(len(m) for m in _memos()) > 0  # the memos were used
        memory.forget("t1", "alice")
        assert sum(len(m) for m in _memos()) == 0


def test_clear_memos_empties_the_minilm_cache_too() -> None:
    from memgate.core.memo import clear_memos

    emb = MiniLMEmbedder(cache_size=8, runtime="numpy")
    emb._cache[b"k" * 16] = None  # type: ignore[assignment]
    assert emb.cache_len() == 1
    assert clear_memos() >= 1
    assert emb.cache_len() == 0


def _reading_caches() -> list[object]:
    """Every ``functools.lru_cache`` of resolution's readings (their keys are the texts)."""
    from memgate.stages import relation_model, resolve_slots
    from memgate.stages.resolution_lexicon import LEXICON
    from memgate.stages.resolve_paraphrase import FOLD

    return [
        resolve_slots._owner_and_rest, resolve_slots._anchors, resolve_slots.named_tokens,
        resolve_slots._kept_frame_tokens, resolve_slots._kept_clause_terms,
        resolve_slots._clause_words, relation_model._kept, LEXICON._cue, LEXICON._negation,
        LEXICON._family, LEXICON._families, FOLD._persons_read,
    ]  # fmt: skip


def test_forget_empties_resolutions_reading_caches(tmp_path: Path) -> None:
    """Session 39: resolution keeps its readings of stored values (``lru_cache`` keyed by
    the value itself: "user lives_in Hauptstraße 5"); they outlived ``forget`` until an
    erasure emptied them with the memos (``memgate.core.memo.reading_cache``)."""
    with Memory(data_dir=tmp_path / "data", embedder="hashing") as memory:
        memory.add(
            [{"role": "user", "content": "My sister lives in Leeds and works at Stripe."},
             {"role": "user", "content": "My sister moved to Glasgow, she now works at Monzo."},
             {"role": "user", "content": "I drive a Toyota Corolla."}],
            tenant="t1", user="alice", session="s1",
        )  # fmt: skip
        sizes = [c.cache_info().currsize for c in _reading_caches()]  # type: ignore[attr-defined]
        assert sum(sizes) > 0  # resolution read the stored values
        memory.forget("t1", "alice")
        after = {c.__qualname__: c.cache_info().currsize for c in _reading_caches()}  # type: ignore[attr-defined]
        assert sum(after.values()) == 0, after
