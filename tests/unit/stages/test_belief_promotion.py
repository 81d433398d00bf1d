"""A belief said again plainly is a fact (issue 9, session 45).

"I think we're moving to Lyon in March" is stored pending (a belief: ``hedged``). Before,
"We're moving to Lyon in March, the lease is signed" in the same session left it pending
(``awaiting_evidence``): only a confirmed turn or a second session promoted it. Now a
restatement firmer than the stored fact, at ``explicit_confidence`` or above, promotes it
(``promoted_stated``)."""

from __future__ import annotations

from pathlib import Path

from memgate import Memory
from memgate.core.events import FactStatus


def _add(m: Memory, texts: list[str]) -> None:
    m.add([
        {"tenant_id": "t", "user_id": "u", "session_id": "s1", "turn_id": f"o{i}",
         "role": "user", "content": text, "ts": f"2024-0{i}-05T09:00:00Z"}
        for i, text in enumerate(texts, 1)
    ])  # fmt: skip


def test_a_belief_is_promoted_when_stated_plainly_in_the_same_session(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path) as m:
        _add(m, ["I think we're moving to Lyon in March."])
        first = [f.status for f in m.get_all("t", "u", include_inactive=True)]
        _add(m, ["I think we're moving to Lyon in March.",
                 "We're moving to Lyon in March, the lease is signed."])  # fmt: skip
        after = [f for f in m.get_all("t", "u") if "Lyon" in f.text]
        again = [(f.status, f.occurrences) for f in m.get_all("t", "u", include_inactive=True)]
        _add(m, ["I think we're moving to Lyon in March.",
                 "We're moving to Lyon in March, the lease is signed."])  # fmt: skip
        replayed = [(f.status, f.occurrences) for f in m.get_all("t", "u", include_inactive=True)]
    assert first == [FactStatus.PENDING]
    assert len(after) == 1 and after[0].status is FactStatus.ACTIVE
    assert replayed == again  # a replay of the same turns changes nothing


def test_a_belief_said_again_as_a_belief_stays_pending(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path) as m:
        _add(m, ["I think we're moving to Lyon in March.",
                 "I think we're moving to Lyon in March, yeah."])  # fmt: skip
        statuses = {f.status for f in m.get_all("t", "u", include_inactive=True)}
    assert statuses == {FactStatus.PENDING}
