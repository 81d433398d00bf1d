"""A change said in new words, found by the pair classifier among the nearest facts
(stages/resolve_update.py).

Changes the change rules do not meet (no family's word, no slot noun, no replacement
structure; an English pair, which usem is not asked about; a statement naming two families),
and hard negatives that must not change: a second value said with "also", a state of the
moment, another person's change, another thing by its qualifier, a taste of the moment.
MiniLM's vectors, as the gate's.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolve_update import UPDATE, guarded
from tests.unit.stages.resolver_kit import CLOCK, USEM, facts, minilm, resolve, statement

STORE_EMBEDDER = minilm


def _resolver() -> Resolver:
    return Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM, slotmask=True)


CHANGES = [
    # (subject, stored, new)
    ("user", "I bank with Barclays.", "These days my salary lands in a Monzo account."),
    ("team", "Nos logs partent dans Datadog.", "Désormais tout est envoyé vers Grafana Loki."),
    ("team", "A documentação fica no Confluence.", "Agora escrevemos tudo no Notion."),
    ("user", "我的健身教练是小张。", "现在带我训练的是老周。"),
    # the new statement names two families (飞书 is a chat and a tracker) and a subject the
    # extractor read from the whole clause
    ("team", "我们团队用Jira管理任务。", "团队已经全部转到飞书项目上了，Jira不再用了。"),
]  # fmt: skip


@pytest.mark.parametrize(("subject", "said", "new"), CHANGES)
def test_a_change_no_rule_meets_supersedes_by_the_pair_classifier(
    store: EmbeddedIndex, subject: str, said: str, new: str
) -> None:
    resolve(store, statement(said, subject=subject, days=0), _resolver())
    resolve(store, statement("I like hiking in the Alps.", days=1), _resolver())
    res, dec = resolve(store, statement(new, subject=subject, days=30), _resolver())
    assert (res.action.value, res.reason) == ("SUPERSEDE", "semantic_update"), dec.details
    assert dec.details["match"] == f"update:{UPDATE.version}"
    assert float(dec.details["sureness"]) >= UPDATE.model_bar
    got = facts(store)
    assert got[said].status is FactStatus.SUPERSEDED
    assert got["I like hiking in the Alps."].status is FactStatus.ACTIVE


NEGATIVES = [
    # (stored subject, stored, new subject, new)
    ("user", "I speak Dutch.", "user", "Now I'm learning Japanese as well."),
    ("user", "I live in Porto.", "user", "Right now I'm in Madrid for a conference."),
    ("user", "Ich spiele Schach im Verein.", "user", "Jetzt fange ich auch mit Go an."),
    ("user", "Je travaille chez Airbus.",
     "user's frère", "Mon frère travaille maintenant chez Safran."),
    ("user", "我用的是华为手机。", "user's 妈妈", "我妈妈现在用苹果手机了。"),
    ("user", "My favourite band is Radiohead.",
     "user", "Right now I'm listening to a lot of jazz."),
    ("user", "Eu corro no Parque Ibirapuera.", "user", "Agora também nado na piscina do clube."),
    ("team", "Our staging database is Postgres.",
     "team", "Our analytics database is now ClickHouse."),
    ("user", "我每周六打羽毛球。", "user", "现在我周日也去游泳。"),
    # a person the sentence names whose slot it is, the subject left as the user's
    ("user's 眼科医生", "我的眼科医生是孙医生。", "user", "我爸爸的眼科医生换成了赵医生。"),
]  # fmt: skip


@pytest.mark.parametrize(("subj_f", "said", "subj_c", "new"), NEGATIVES)
def test_a_second_value_a_moment_or_another_persons_change_supersedes_nothing(
    store: EmbeddedIndex, subj_f: str, said: str, subj_c: str, new: str
) -> None:
    resolve(store, statement(said, subject=subj_f, days=0), _resolver())
    res, dec = resolve(store, statement(new, subject=subj_c, days=30), _resolver())
    assert res.action.value == "ADD", dec.details
    assert facts(store)[said].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("stored", "new", "expected"),
    [
        ("I bank with Barclays", "These days my salary lands in a Monzo account", True),
        ("I bank with Barclays", "My salary lands in a Monzo account", False),  # no change cue
        ("Vivo en Sevilla", "Creo que ahora vivo en Málaga", False),  # hedged
        ("I speak Dutch", "Now I also speak Japanese", False),  # added
    ],
)
def test_the_change_guard_reads_a_cue_and_no_addition_hedge_or_moment(
    stored: str, new: str, expected: bool
) -> None:
    assert guarded("statement", stored, new) is expected
