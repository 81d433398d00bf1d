"""A Latin name inside Chinese text is a name of its own, and the owner's thing is named
in a Chinese sentence with no spaces: "我们的后端是用Go写的" / "后端我们一直都用Go" is one
fact said twice, "后端我们一直都用Rust" another value."""

from __future__ import annotations

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.resolve_slots import anchors
from tests.unit.stages.resolver_kit import apply, cand, facts


def test_a_latin_name_without_spaces_in_chinese_is_an_anchor() -> None:
    assert anchors("我们的后端是用Go写的", sentence=True) == {"go"}
    assert anchors("我们的CI跑在GitHub Actions上", sentence=True) == {"ci", "github", "actions"}


def test_the_same_thing_said_again_in_chinese_folds(store: EmbeddedIndex) -> None:
    apply(store, cand("我们的后端是用Go写的", "stack", days=0, subject="team's 后端"))
    _, dec = apply(store, cand("后端我们一直都用Go", "statement", days=1, multi=True))
    assert dec.reason == "paraphrase", dec
    assert [f.status for f in facts(store).values()] == [FactStatus.ACTIVE]


def test_another_name_in_chinese_is_another_fact(store: EmbeddedIndex) -> None:
    apply(store, cand("我们的后端是用Go写的", "stack", days=0, subject="team's 后端"))
    _, dec = apply(store, cand("前端我们一直都用Vue", "statement", days=1, multi=True))
    assert dec.reason != "paraphrase"
    assert len(facts(store)) == 2
