"""A fact said as a belief is an inference (issue 9, judge5): "ich glaube, wir nutzen X",
"je crois que ...", "我好像 ..." are held by the write policy until confirmed or repeated."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgate import Memory
from memgate.core.events import FactStatus, TurnEvent
from memgate.stages.statements import BELIEVED_CONFIDENCE, HybridExtractor


def _turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="t", user_id="u", session_id="s", turn_id="x1", role="user",
                     content=text, ts="2024-01-01T00:00:00Z")  # fmt: skip


@pytest.mark.parametrize(
    "said",
    ["Ich glaube, wir nutzen Ansible für die Server.", "Je crois que je préfère le rooibos.",
     "I think we use Pulumi for infrastructure."],
)  # fmt: skip
def test_a_belief_is_said_at_the_confidence_of_an_inference(said: str) -> None:
    facts = HybridExtractor().extract(_turn(said))
    assert facts, "the belief is still read"
    assert all(f.confidence <= BELIEVED_CONFIDENCE for f in facts)


@pytest.mark.parametrize("said", ["Wir nutzen Pulumi.", "We use Pulumi, I think it's great."])
def test_a_statement_is_stated(said: str) -> None:
    facts = HybridExtractor().extract(_turn(said))
    assert facts and all(f.confidence > BELIEVED_CONFIDENCE for f in facts)


def test_a_belief_is_pending_until_it_is_repeated(tmp_path: Path) -> None:
    """Before: stored active at once from the belief alone."""
    turns = [
        {"tenant_id": "t", "user_id": "u", "session_id": f"s{i}", "turn_id": f"b{i}",
         "role": "user", "content": text, "ts": f"2024-0{i}-05T09:00:00Z"}
        for i, text in enumerate(["Ich glaube, wir nutzen Pulumi.", "Wir nutzen Pulumi."], 1)
    ]  # fmt: skip
    with Memory(data_dir=tmp_path) as m:
        m.add(turns[:1])
        first = [f.status for f in m.get_all("t", "u", include_inactive=True)]
        m.add(turns[1:])
        after = [f for f in m.get_all("t", "u") if "Pulumi" in f.text]
    assert first == [FactStatus.PENDING]
    assert after and after[0].status is FactStatus.ACTIVE


def test_a_confirmed_value_closes_the_pending_guess_of_its_key(tmp_path: Path) -> None:
    """Before: the guess stayed pending beside the confirmed value of the same key."""
    turns = [
        {"tenant_id": "t", "user_id": "u", "session_id": "s1", "turn_id": "g1", "role": "user",
         "content": "Je crois que je préfère le thé vert au café.", "ts": "2024-01-05T09:00:00Z"},
        {"tenant_id": "t", "user_id": "u", "session_id": "s2", "turn_id": "g2", "role": "user",
         "content": "Oui, c'est sûr, je préfère le thé vert.", "ts": "2024-02-05T09:00:00Z",
         "confirmed": True},
    ]  # fmt: skip
    with Memory(data_dir=tmp_path) as m:
        m.add(turns)
        facts = m.get_all("t", "u", include_inactive=True)
    status = {f.value: f.status for f in facts}
    assert FactStatus.PENDING not in status.values(), status
    assert any(s is FactStatus.ACTIVE and "thé vert" in v for v, s in status.items()), status
