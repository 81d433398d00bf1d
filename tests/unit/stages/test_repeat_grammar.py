"""Repeat markers by structure (mark40): the grammar of ``memgate/data/repeat_markers.json``
(word classes and sequences per language) reads the inflected markers the fixed phrases
miss: another tense or clitic, "déjà" before the participle, an adverb between, the remind
family opening a sentence before a colon, a comma or "that". Each marked sentence below is
missed by the fixed phrases alone (the code before mark40); the unmarked ones are requests
with a remind verb, third persons' words, "as you like", questions: no marker, before or
after."""

from __future__ import annotations

import pytest

from memgate.core.events import FactType, TurnEvent
from memgate.stages.repeats import cut_marker
from memgate.stages.statements import HybridExtractor

MARKED = [
    # English
    ("As I've already explained, I work at Siemens.", "I work at Siemens."),
    ("Like I was saying, my daughter is called Ana.", "My daughter is called Ana."),
    ("As we discussed last week, the deadline is Friday.", "The deadline is Friday."),
    ("I told you before that I'm allergic to peanuts.", "I'm allergic to peanuts."),
    ("I've told you a hundred times, I don't eat meat.", "I don't eat meat."),
    ("Reminding you: my partner is Tomasz.", "My partner is Tomasz."),
    ("Just reminding you that my birthday is in May.", "My birthday is in May."),
    ("Remind you: I'm vegetarian.", "I'm vegetarian."),
    ("My dog is called Rex, like I've been telling you.", "My dog is called Rex."),
    ("Like I've been saying, our office is in Leeds.", "Our office is in Leeds."),
    ("I said it before and I'll say it again: I'm vegan.", "I'm vegan."),
    # German
    ("Wie ich dir ja schon mal erzählt habe, mein Bruder wohnt in Hamburg.",
     "Mein Bruder wohnt in Hamburg."),
    ("Wie ich bereits erwähnte, wir nutzen GitLab.", "Wir nutzen GitLab."),
    ("Wie vorhin besprochen, die Deadline ist Freitag.", "Die Deadline ist Freitag."),
    ("Ich hab's dir ja schon gesagt: ich bin Vegetarier.", "Ich bin Vegetarier."),
    ("Hab ich dir ja schon erzählt: ich ziehe nach Berlin.", "Ich ziehe nach Berlin."),
    ("Kurze Erinnerung: mein Sohn heißt Max.", "Mein Sohn heißt Max."),
    ("Ich erinnere dich nochmal: mein Bruder heißt Jonas.", "Mein Bruder heißt Jonas."),
    ("Ich sag's dir nochmal: mein Hund heißt Bello.", "Mein Hund heißt Bello."),
    ("Meine Tochter heißt Lena, wie ich dir schon mal gesagt hatte.",
     "Meine Tochter heißt Lena."),
    ("Mein Sohn heißt Max, hab ich dir ja schon erzählt.", "Mein Sohn heißt Max."),
    # French
    ("Comme je te l'ai déjà dit, je suis végétarienne.", "Je suis végétarienne."),
    ("Comme je vous l'avais bien précisé, notre siège est à Lyon.",
     "Notre siège est à Lyon."),
    ("Comme je te le disais, mon frère s'appelle Julien.", "Mon frère s'appelle Julien."),
    ("Comme déjà mentionné, nous utilisons PostgreSQL.", "Nous utilisons PostgreSQL."),
    ("Je t'en ai déjà parlé : ma fille vit à Montréal.", "Ma fille vit à Montréal."),
    ("Je suis allergique aux noix, je te l'avais déjà dit.", "Je suis allergique aux noix."),
    ("Ainsi que je l'ai expliqué, nous livrons le lundi.", "Nous livrons le lundi."),
    ("Je te l'ai dit et répété : je ne bois pas d'alcool.", "Je ne bois pas d'alcool."),
    ("Je vous le répète encore une fois : on déploie sur Kubernetes.",
     "On déploie sur Kubernetes."),
    ("Je te rappelle juste que mon mari s'appelle Marc.", "Mon mari s'appelle Marc."),
    ("Mon frère s'appelle Julien, comme je te l'ai déjà expliqué.",
     "Mon frère s'appelle Julien."),
    # Spanish
    ("Como ya te lo había dicho, vivo en Sevilla.", "Vivo en Sevilla."),
    ("Como te comenté ayer, mi hermana se llama Lucía.", "Mi hermana se llama Lucía."),
    ("Como yo te decía, trabajo en Telefónica.", "Trabajo en Telefónica."),
    ("Como ya se ha dicho, usamos PostgreSQL.", "Usamos PostgreSQL."),
    ("Ya te lo he dicho mil veces: soy vegetariano.", "Soy vegetariano."),
    ("Recuerda que soy alérgica a las nueces.", "Soy alérgica a las nueces."),
    ("Recordando: mi jefe se llama Andrés.", "Mi jefe se llama Andrés."),
    ("Solo para recordarte que mi hija se llama Sofía.", "Mi hija se llama Sofía."),
    ("Mi perro se llama Toby, como ya te lo había dicho.", "Mi perro se llama Toby."),
    ("Mi gata se llama Luna, como te lo había contado.", "Mi gata se llama Luna."),
    ("Tal como te expliqué, el servidor está en Madrid.", "El servidor está en Madrid."),
    ("Te lo he dicho y repetido, no como carne.", "No como carne."),
    # Portuguese
    ("Como eu já te falei, moro em Curitiba.", "Moro em Curitiba."),
    ("Conforme eu disse, trabalho na Embraer.", "Trabalho na Embraer."),
    ("Já te disse e repito: não como carne.", "Não como carne."),
    ("Como já te tinha dito, minha irmã se chama Ana.", "Minha irmã se chama Ana."),
    ("Como eu tinha falado pra você, sou vegetariano.", "Sou vegetariano."),
    ("Já te contei isso: meu cachorro se chama Thor.", "Meu cachorro se chama Thor."),
    ("Eu já tinha te dito que sou alérgico a amendoim.", "Sou alérgico a amendoim."),
    ("Relembrando: minha filha estuda em Lisboa.", "Minha filha estuda em Lisboa."),
    ("Só relembrando que meu marido se chama João.", "Meu marido se chama João."),
    ("Meu gato se chama Mimi, como eu já te contei.", "Meu gato se chama Mimi."),
    ("Minha filha estuda em Lisboa, como eu tinha te falado.", "Minha filha estuda em Lisboa."),
    # Chinese
    ("我之前跟你讲过，我住在杭州。", "我住在杭州。"),
    ("正如我之前所说，我们用PostgreSQL。", "我们用PostgreSQL。"),
    ("就像我之前跟你说的那样，我女儿在上海上学。", "我女儿在上海上学。"),
    ("我早就告诉过你了，我对花生过敏。", "我对花生过敏。"),
    ("前面提过，我们公司在深圳。", "我们公司在深圳。"),
    ("温馨提醒：我不吃辣。", "我不吃辣。"),
    ("再次提醒，我的猫叫咪咪。", "我的猫叫咪咪。"),
    ("我老公叫李明，我之前跟你提起过。", "我老公叫李明。"),
    ("我已经说过好几次了，我是素食者。", "我是素食者。"),
    ("像我刚才讲的，服务器在北京。", "服务器在北京。"),
    ("之前我也说过，我住在杭州。", "我住在杭州。"),
    ("如前所述，我们用AWS。", "我们用AWS。"),
]  # fmt: skip

UNMARKED = [
    # English
    "Remember to buy bread.",
    "Remind me to call mom tomorrow.",
    "Reminder to self: buy bread.",
    "He said he'd come on Friday.",
    "What did I say about my car?",
    "I told you about my car.",
    "As you like, we leave at eight.",
    # German
    "Erinnere mich morgen an den Termin.",
    "Erinnere dich an den Termin morgen.",
    "Hab ich dir schon erzählt, dass ich umziehe?",
    "Er hat gesagt, dass er kommt.",
    "Wie du willst, wir gehen um acht.",
    "Was habe ich gesagt?",
    "Ich hab dir doch schon gesagt, dass ich Vegetarier bin.",
    "Ich sag es dir nochmal, wenn du willst.",
    # French
    "Comme tu veux, on part à 8 h.",
    "Rappelle-moi d'acheter du pain.",
    "Comme il l'a dit, le train part à 8 h.",
    "Je te rappelle demain pour le devis.",
    "Qu'est-ce que je t'ai dit hier ?",
    "Je t'ai dit de venir à 8 h.",
    "Comme on dit, mieux vaut tard que jamais.",
    # Spanish
    "Recuerda comprar pan.",
    "Como dice el manual, hay que reiniciar el router.",
    "Como quieras, salimos a las ocho.",
    "Le dije que vendría el lunes.",
    "Como decía mi abuela, hay que comer bien.",
    "¿Qué te dije ayer?",
    "Te recuerdo mañana lo de la cita.",
    "Recuerdo que de niño vivía en Lima.",
    # Portuguese
    "Lembra de ligar pra mãe.",
    "Como você quiser, saímos às oito.",
    "Ele disse que vinha amanhã.",
    "Como diz o ditado, devagar se vai ao longe.",
    "O que eu te disse ontem?",
    "Lembre-se de levar o guarda-chuva.",
    "Me lembra de pagar a conta amanhã.",
    # Chinese
    "他说过他会来。",
    "像你说的，我们明天去。",
    "提醒我明天买面包。",
    "我之前说的那家餐厅关门了。",
    "我告诉过他我要搬家。",
    "你说过什么？",
]


@pytest.mark.parametrize(("said", "cut"), MARKED)
def test_an_inflected_marker_is_cut(said: str, cut: str) -> None:
    assert cut_marker(said) == cut


@pytest.mark.parametrize("said", UNMARKED)
def test_no_marker_by_structure(said: str) -> None:
    assert cut_marker(said) is None


@pytest.mark.parametrize(
    "said",
    [
        # a correction keeps its marker and is no repeat, grammar or not
        "Wir nutzen jetzt GitLab, nicht GitHub, wie ich dir schon mal gesagt hatte.",
        "Como ya te lo había dicho, pero ahora vivo en Madrid.",
        "Comme je te l'ai déjà dit, en fait je travaille chez Airbus maintenant.",
        "Our database is Postgres 15, not MySQL, as I've mentioned before.",
    ],
)
def test_a_correction_with_an_inflected_marker_is_no_repeat(said: str) -> None:
    assert cut_marker(said) is None


@pytest.fixture(scope="module")
def hybrid() -> HybridExtractor:
    return HybridExtractor()


def _turn(content: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="1", role="user",
        content=content, ts="2024-05-01T10:00:00Z",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("said", "word"),
    [
        ("Como ya te lo había dicho, vivo en Sevilla.", "dicho"),
        ("Comme je te l'ai déjà dit, je travaille chez Airbus.", "dit"),
        ("Wie ich dir ja schon mal erzählt habe, ich spiele Geige im Orchester.", "erzählt"),
        ("Like I was saying, I play cello in the community orchestra.", "saying"),
    ],
)
def test_an_inflected_marker_flags_the_facts_read(
    hybrid: HybridExtractor, said: str, word: str
) -> None:
    got = hybrid.extract(_turn(said))
    assert got and all(c.repeats for c in got)
    assert all(c.type is not FactType.EVENT for c in got)
    assert not any(word in c.object.lower() for c in got)


def test_every_marker_holds_a_key_word() -> None:
    """The key-word test (``may_mark``) runs before the patterns: it must let through every
    sentence a pattern reads a marker in, the fixed phrases' and the grammar's alike."""
    from memgate.stages.repeats import REPEATS, cut_marker, may_mark

    fixed = [p + ", we deploy on Fridays." for ps in _fixed_phrases().values() for p in ps]
    for said in [s for s, _ in MARKED] + fixed:
        if cut_marker(said) is not None:
            assert may_mark(said), said
    assert REPEATS.keys and REPEATS.cjk_keys
    assert not may_mark("We deploy on Fridays and the staging cluster runs on Hetzner.")


def _fixed_phrases() -> dict[str, list[str]]:
    import json
    from importlib import resources

    text = resources.files("memgate.data").joinpath("repeat_markers.json").read_text("utf-8")
    markers: dict[str, list[str]] = json.loads(text)["markers"]
    return markers
