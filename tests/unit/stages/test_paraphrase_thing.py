"""A thing of the team said again without the possessive folds into the first saying
(issue 9, judge5): "Nuestro X está escrito en Y" then "todo el X lo escribimos en Y"."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgate import Memory
from memgate.stages.statement_text import subject_of


def _turns(*texts: str) -> list[dict[str, object]]:
    return [
        {"tenant_id": "t", "user_id": "u", "session_id": f"s{i}", "turn_id": f"p{i}",
         "role": "user", "content": text, "ts": f"2024-0{i}-05T09:00:00Z"}
        for i, text in enumerate(texts, 1)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "subject"),
    [("La API la desplegamos en Render", "team"), ("O site nós hospedamos na Vercel", "team"),
     ("The memos were sent", "user")],
)  # fmt: skip
def test_a_first_person_plural_verb_without_a_pronoun_says_we(text: str, subject: str) -> None:
    assert subject_of(text) == subject


def test_the_same_thing_said_again_by_the_owner_is_one_fact(tmp_path: Path) -> None:
    """Before: two active facts ("team's backend stack ..." and "user statement ...")."""
    with Memory(data_dir=tmp_path) as m:
        m.add(_turns("Nuestro backend está escrito en Elixir.",
                     "Todo el backend lo programamos en Elixir."))  # fmt: skip
        facts = [f for f in m.get_all("t", "u") if "Elixir" in f.text]
    assert len(facts) == 1, [f.text for f in facts]
    assert facts[0].occurrences == 2


def test_another_thing_of_the_team_stays_apart(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path) as m:
        m.add(_turns("Nuestro backend está escrito en Elixir.",
                     "Todo el frontend lo programamos en Elm."))  # fmt: skip
        facts = m.get_all("t", "u")
    assert any("Elixir" in f.text for f in facts) and any("Elm" in f.text for f in facts)
