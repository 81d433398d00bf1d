"""The read path's subject focus (issue 9, judge5): a first-person question ranks the
speaker's own fact above another person's that it does not name."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgate import Memory
from memgate.recall import subject_focus


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("what's my partner's job", "user's partner"),
        ("wo arbeitet mein Vater", "user's vater"),
        ("who is my dentist", "user"),
        ("how does the team deploy", "user's cousin"),  # no first person: left as it is
        ("我的狗叫什么", "team's service"),
    ],
)
def test_a_question_that_names_the_subject_or_is_not_about_the_speaker_keeps_it(
    question: str, subject: str
) -> None:
    assert subject_focus(question)(subject) == 1.0


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("who is my dentist", "user's aunt's dentist"),
        ("où est-ce que j'habite", "user's cousine"),
        ("dónde trabajo yo", "user's hermano"),
    ],
)
def test_a_first_person_question_weighs_another_persons_fact_less(
    question: str, subject: str
) -> None:
    assert subject_focus(question)(subject) < 1.0


def test_the_speakers_fact_ranks_above_a_relatives_worded_closer(tmp_path: Path) -> None:
    """Before: the aunt's dentist, said with the question's words, came first."""
    turns = [
        {"tenant_id": "t", "user_id": "u", "session_id": "s1", "turn_id": "a1", "role": "user",
         "content": "I see Dr. Imogen Hale for my teeth.", "ts": "2024-01-05T09:00:00Z"},
        {"tenant_id": "t", "user_id": "u", "session_id": "s2", "turn_id": "a2", "role": "user",
         "content": "My aunt's dentist is Dr. Oskar Brandt, she loves him.",
         "ts": "2024-02-05T09:00:00Z"},
    ]  # fmt: skip
    with Memory(data_dir=tmp_path) as m:
        m.add(turns)
        hits = m.search("who is my dentist", "t", "u", min_score=-1).hits
    subjects = [h.fact.subject for h in hits]
    assert subjects, "both facts are stored"
    aunt = [i for i, h in enumerate(hits) if h.fact.subject.startswith("user's aunt")]
    own = [i for i, h in enumerate(hits) if h.fact.subject == "user"]
    assert own and (not aunt or own[0] < aunt[0]), subjects
