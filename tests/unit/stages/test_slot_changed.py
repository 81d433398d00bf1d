"""A change of one single-valued slot said in new words supersedes at write time (sup35).

Before, "Ich wohne in Bremen" stayed active beside "Seit dem Umzug haben wir jetzt eine
Wohnung in Kassel" (``dedupe ADD (new_key)``): the read path served the newer first
(memgate/read_conflict.py) and the older right below it, as current. Now the write path
closes the older at once where the change is plain (stages/slot_conflict.py): the newer
names no family but says a change, a word pointing at one family's slot, a value, and
exactly one active older fact of the speaker fills that family; the decision's reason is
``slot_changed``. The older stays as history: an ``as_of`` search before the change
serves it. Multi-valued families, additions, another person's fact, hedges and plans,
states of the moment never close anything.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgate import Memory
from memgate.core.events import FactStatus
from memgate.stages.slot_conflict import hinted_family

OLD_TS = "2025-01-08T09:00:00Z"
NEW_TS = "2025-03-04T20:00:00Z"
BETWEEN = datetime(2025, 2, 1, tzinfo=UTC)


def _turn(tid: str, text: str, ts: str) -> dict[str, str]:
    return {"tenant_id": "t", "user_id": "u", "session_id": tid, "turn_id": tid,
            "role": "user", "content": text, "ts": ts}  # fmt: skip


def _run(tmp_path: Path, old: str, new: str, query: str) -> tuple[list, list, list, list]:
    with Memory(data_dir=tmp_path) as m:
        m.add([_turn("a1", old, OLD_TS), _turn("a2", new, NEW_TS)])
        facts = m.get_all("t", "u", include_inactive=True)
        hits = m.search(query, "t", "u", min_score=-1).hits
        before = m.search(query, "t", "u", min_score=-1, as_of=BETWEEN).hits
        _, reasons = m._open().audit.query(
            "SELECT reason FROM decisions FINAL WHERE stage = 'dedupe' ORDER BY decided_at"
        )
    return facts, hits, before, [r[0] for r in reasons]


# the older fact names its slot; the newer says a change in other words, one language each
CHANGES = [
    ("I live in Bristol.", "We now rent a flat in Cardiff, the move went fine.",
     "where do I live?", "Cardiff", "Bristol"),
    ("Ich wohne in Bremen.", "Seit dem Umzug haben wir jetzt eine Wohnung in Kassel.",
     "Wo wohne ich?", "Kassel", "Bremen"),
    ("Mon médecin traitant est le docteur Lambert.",
     "Depuis l'automne, c'est la docteure Petit qui me suit.",
     "Qui est mon médecin traitant ?", "Petit", "Lambert"),
    ("Mi médico de cabecera es el doctor Gil.", "Ahora me atiende la doctora Ramos.",
     "¿Quién es mi médico de cabecera?", "Ramos", "Gil"),
    ("Moro em Braga.", "Agora a nossa casa fica em Aveiro, perto da ria.",
     "Onde é que eu moro?", "Aveiro", "Braga"),
    ("我住在南京。", "现在我们在厦门有了新家，离海边很近。", "我住在哪里？", "厦门", "南京"),
    ("我的家庭医生是陈医生。", "现在给我看病的是刘大夫。",
     "我的家庭医生是谁？", "刘大夫", "陈医生"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "query", "new_value", "old_value"), CHANGES)
def test_a_plain_change_supersedes_the_older_value(
    tmp_path: Path, old: str, new: str, query: str, new_value: str, old_value: str
) -> None:
    """Before: both active (new_key), the older still served."""
    facts, hits, before, reasons = _run(tmp_path, old, new, query)
    olds = [f for f in facts if old_value in f.text]
    assert olds and all(f.status is FactStatus.SUPERSEDED for f in olds), [
        (f.text, f.status) for f in facts
    ]
    assert "slot_changed" in reasons, reasons
    assert hits and new_value in hits[0].fact.text
    assert not any(old_value in h.fact.text for h in hits)  # no longer served as current
    assert before and old_value in before[0].fact.text  # valid then: history, not deleted


# the same older facts; the newer one is no standing change of the speaker's own slot
UNCHANGED = [
    ("Ich wohne in Bremen.", "Meine Schwester hat jetzt eine Wohnung in Kassel.", "Bremen"),
    ("I live in Bristol.", "Maybe we'll rent a flat in Cardiff next year.", "Bristol"),
    ("I live in Bristol.", "This week I'm staying in a flat in Cardiff for a workshop.", "Bristol"),
    ("Mi médico de cabecera es el doctor Gil.",
     "Ahora también me atiende la doctora Ramos, la dermatóloga.", "Gil"),
    ("I have a dog called Rex.", "Now we also have a cat, Miso.", "Rex"),
    ("Je parle anglais et allemand.", "Maintenant j'apprends aussi l'italien.", "allemand"),
    ("我用的手机是小米13。", "我妈妈现在也用华为手机。", "小米"),
    ("我住在南京。", "这个星期我住在厦门的公寓里出差。", "南京"),
    ("Moro em Braga.", "Agora trabalho no Porto, numa empresa de software.", "Braga"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "old_value"), UNCHANGED)
def test_no_plain_change_of_the_own_slot_keeps_the_older_active(
    tmp_path: Path, old: str, new: str, old_value: str
) -> None:
    facts, _, _, reasons = _run(tmp_path, old, new, "x")
    olds = [f for f in facts if old_value in f.text]
    assert olds and all(f.status is FactStatus.ACTIVE for f in olds), [
        (f.text, f.status) for f in facts
    ]
    assert "slot_changed" not in reasons


def test_a_hint_points_at_one_family_only() -> None:
    assert hinted_family("Seit dem Umzug haben wir eine Wohnung in Kassel") == "lives_in"
    assert hinted_family("Désormais c'est la docteure Petit qui me suit") == "doctor"
    assert hinted_family("现在换成了华为Mate 60") == "phone"
    assert hinted_family("Ahora me gusta el té verde") is None
    # words of two families: no family
    assert hinted_family("I got a new job and a flat near it") is None
