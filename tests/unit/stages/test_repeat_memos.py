"""The memos of work the chain repeats on one turn (issue 14): structural cues, sentence
features, a turn's references and a detector's findings are read once per text, and a
memo never changes an answer (a secret scanned again is still found and masked)."""

from __future__ import annotations

import dataclasses

import numpy as np

from memgate.stages import references, sentence_classifier, statement_text
from memgate.stages.detector_kinds import EMAIL
from memgate.stages.detectors import SCAN_MEMO_SIZE, Detector
from memgate.stages.redact_health import mask_all
from memgate.stages.resolution_lexicon import LEXICON

SENTENCES = [
    "I'm swamped this week.",
    "From now on, always write comments in English.",
    "We moved off Bitbucket, everything lives in GitLab now.",
    "我这周忙死了。",
    "Translate this paragraph into Italian.",
]


def test_cues_are_read_once_per_sentence_and_equal_a_fresh_reading() -> None:
    memo = statement_text.CUES_MEMO
    memo.clear()
    for s in SENTENCES:
        first = statement_text.cues(s)
        hits = memo.hits
        again = statement_text.cues(s)
        assert memo.hits == hits + 1
        assert first == again == statement_text._read_cues(s)
    assert statement_text.cues("I'm swamped this week.")["moment"]


def test_a_caller_changing_its_cues_does_not_change_the_next_answer() -> None:
    c = statement_text.cues("I'm swamped this week.")
    c["moment"] = False
    assert statement_text.cues("I'm swamped this week.")["moment"] is True


def test_features_are_read_once_per_sentence_and_equal_a_fresh_reading() -> None:
    memo = sentence_classifier.FEATURES_MEMO
    memo.clear()
    for s in SENTENCES:
        first = sentence_classifier.featurise(s)
        hits = memo.hits
        again = sentence_classifier.featurise(s)
        assert memo.hits == hits + 1
        fresh = sentence_classifier._featurise(s)
        assert np.array_equal(first, fresh) and np.array_equal(again, fresh)
        assert first.tobytes() == fresh.tobytes()  # bit for bit


def test_a_caller_changing_its_features_does_not_change_the_next_answer() -> None:
    s = "We deploy to production every Tuesday."
    v = sentence_classifier.featurise(s)
    assert v.flags.writeable
    expected = v.copy()
    v[:] = 0.0
    assert np.array_equal(sentence_classifier.featurise(s), expected)


def test_a_text_without_references_is_read_once_with_the_default_lexicon() -> None:
    memo = references.REFERENCES_MEMO
    memo.clear()
    text = "Everything lives in GitLab, and I like green tea."
    first = references.find_references(text)
    hits = memo.hits
    again = references.find_references(text)
    assert memo.hits == hits + 1
    assert first == again == references._read(text, LEXICON) == []


def test_a_text_with_references_is_read_again_not_kept() -> None:
    """A reference quotes its turn raw, before redaction: it is not held in the memo
    for later turns (session 19, attack19: ``tests/unit/test_memos_hold_no_raw_text.py``);
    each read gives the same answer."""
    memo = references.REFERENCES_MEMO
    memo.clear()
    text = "We moved off Bitbucket, everything lives in GitLab now."
    first = references.find_references(text)
    again = references.find_references(text)
    assert len(memo) == 0
    assert first == again == references._read(text, LEXICON)
    assert [(r.op, r.topic) for r in again] == [("stop", "Bitbucket")]
    again.clear()  # the caller's list, not the memo's
    assert references.find_references(text) == first


def test_another_lexicon_is_never_answered_from_the_memo() -> None:
    memo = references.REFERENCES_MEMO
    memo.clear()
    hits = memo.hits
    text = "Scratch that bit about the gym."
    first = references.find_references(text)
    assert [(r.op, r.retracted) for r in first] == [("delete", True)]
    other = dataclasses.replace(LEXICON, references=())  # no phrase patterns
    # read with the other lexicon (the loose reading of reference_topics.py), not the memo's
    got = references.find_references(text, other)
    assert got == references._read(text, other) and got != first
    assert memo.hits == hits and len(memo) == 0  # a reference is never kept (attack19)


def _email() -> str:
    return "bob.smith" + "@" + "example.org"


def _card() -> str:
    return "4111 1111" + " 1111 1111"


def test_a_secret_scanned_again_is_still_found_and_masked() -> None:
    d = Detector()
    text = f"Mail me at {_email()} or charge {_card()} please."
    first = d.scan(text)
    assert {f.kind for f in first} == {"email", "card"}
    for _ in range(3):
        assert d.scan(text) == first
        masked = mask_all(d, text)
        assert _email() not in masked.text and _card() not in masked.text
        assert masked.counts == {"email": 1, "card": 1}
    assert d._memo.hits >= 3


def test_a_caller_changing_its_findings_does_not_change_the_next_answer() -> None:
    d = Detector()
    text = f"reach me at {_email()}"
    found = d.scan(text)
    found.clear()
    assert len(d.scan(text)) == 1


def test_detectors_of_other_kinds_do_not_share_findings() -> None:
    text = f"Mail {_email()}, card {_card()}."
    everything = Detector()
    mail_only = Detector(kinds=frozenset({EMAIL}))
    assert {f.kind for f in everything.scan(text)} == {"email", "card"}
    assert {f.kind for f in mail_only.scan(text)} == {"email"}
    assert {f.kind for f in everything.scan(text)} == {"email", "card"}


def test_the_detector_memo_is_bounded_and_a_dropped_text_is_scanned_again() -> None:
    d = Detector()
    texts = [f"note {i}: write to {_email()}" for i in range(SCAN_MEMO_SIZE + 50)]
    for t in texts:
        assert [f.kind for f in d.scan(t)] == ["email"]
    assert len(d._memo) == SCAN_MEMO_SIZE
    misses = d._memo.misses
    assert [f.kind for f in d.scan(texts[0])] == ["email"]  # dropped long ago: read anew
    assert d._memo.misses == misses + 1
