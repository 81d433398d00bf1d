"""A user's brief yes adopts the assistant's proposition about them (stages/proposal.py).

Each language: a question or an offer to note, answered by an affirmation alone or with
a short addition, becomes the user's first-person statement; a no, a correction, a yes
to a one-off task, to a question about someone else, to chit-chat, or to a suggestion
adopts nothing.
"""

from __future__ import annotations

import pytest

from memgate.stages.proposal import adopt

ADOPTED = [
    ("Yep.", "You cycle to the lab every morning, don't you?", "I cycle to the lab every morning."),
    ("Right, since 2022.", "Are you still on the data platform team?",
     "I am still on the data platform team, since 2022."),
    ("Yes please.", "Shall I keep in mind that your sprint reviews are on Fridays?",
     "My sprint reviews are on Fridays."),
    ("Stimmt.", "Wohnst du inzwischen in Leipzig?", "Ich wohne inzwischen in Leipzig."),
    ("Ja.", "Dein Sohn lernt also Geige?", "Mein Sohn lernt also Geige."),
    ("Exactement.", "Tu joues au badminton le mardi ?", "Je joue au badminton le mardi."),
    ("Oui, depuis l'an dernier.", "Vous travaillez sur l'application mobile ?",
     "Je travaille sur l'application mobile, depuis l'an dernier."),
    ("Exacto.", "¿Vives en Granada, verdad?", "Vivo en Granada."),
    ("Sí, claro.", "¿Eres la responsable del equipo?", "Soy la responsable del equipo."),
    ("Sim.", "Você trabalha com Angular, né?", "Eu trabalho com Angular."),
    ("Exato, há dois anos.", "A sua filha estuda em Coimbra?",
     "A minha filha estuda em Coimbra, há dois anos."),
    ("是的。", "你是在深圳工作吧？", "我是在深圳工作。"),
    ("对，每周两次。", "你们家周末去爬山吗？", "我们家周末去爬山，每周两次。"),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "proposal", "stated"), ADOPTED)
def test_a_brief_yes_states_the_proposition_in_the_first_person(
    reply: str, proposal: str, stated: str
) -> None:
    assert adopt(reply, proposal) == stated


REFUSED = [
    # a no, or a correction after the yes
    ("No, I take the bus.", "You cycle to work, right?"),
    ("Nope.", "Are you still in Leeds?"),
    ("Yes, but not anymore.", "Do you still play tennis?"),
    ("Nein, eigentlich in Halle.", "Wohnst du in Leipzig?"),
    ("Ja, aber nicht mehr lange.", "Arbeitest du noch bei Siemens?"),
    ("Non, en fait je joue au tennis.", "Tu joues au badminton ?"),
    ("Sí, pero ya no.", "¿Vives en Granada?"),
    ("Não, em Braga.", "Você mora no Porto?"),
    ("不是，在广州。", "你是在深圳工作吧？"),
    # a yes to a one-off task the assistant offers to do
    ("Yes, please do.", "Shall I summarise your notes from today?"),
    ("Ja, bitte.", "Soll ich deine E-Mail kürzer formulieren?"),
    ("Oui, merci.", "Voulez-vous que je corrige votre lettre ?"),
    ("Sim, por favor.", "Quer que eu revise o seu texto?"),
    ("好的。", "要我帮你翻译这段话吗？"),
    # a yes to a question about someone else, and chit-chat
    ("Yes.", "Does Priya still work at Spotify?"),
    ("Sí.", "¿Marta sigue viviendo en Bilbao?"),
    ("Sure!", "Lovely weather today, isn't it?"),
    ("Claro!", "Que calor hoje, não é?"),
    # a suggestion, a wish asked, or no question at all
    ("Yes.", "You should try running in the mornings."),
    ("Ja.", "Möchtest du morgen früher anfangen?"),
    ("Sí.", "¿Quieres probar el yoga?"),
    ("对。", "你应该早点睡觉。"),
    # not an affirmation
    ("ok thanks", "Are you vegetarian?"),
    ("What time is it?", "Are you vegetarian?"),
]


@pytest.mark.parametrize(("reply", "proposal"), REFUSED)
def test_no_correction_task_stranger_or_suggestion_is_adopted(reply: str, proposal: str) -> None:
    assert adopt(reply, proposal) is None


def test_a_long_reply_after_the_yes_is_a_turn_of_its_own() -> None:
    long_tail = "Yes, and " + " ".join(["also"] * 20) + " something else entirely."
    assert adopt(long_tail, "Are you in Lyon?") is None


#: conf35: the proposition asked before the assistant's offer to act, answered by a bare
#: yes (the yes to the offer says the proposition holds), six languages; a Chinese tag
#: with no comma before it is cut whole ("对吧", not only "吧").
BEFORE_AN_OFFER = [
    ("Yep.", "So you switched to the night shift? Should I move your reminders?",
     "I switched to the night shift."),
    ("Ja.", "Du spielst also wieder Tennis? Soll ich dir Plätze in der Nähe suchen?",
     "Ich spiele also wieder Tennis."),
    ("Oui.", "Tu vis à Nantes maintenant ? Je peux te proposer des restaurants ?",
     "Je vis à Nantes maintenant."),
    ("Sí.", "¿Trabajas con Django? ¿Puedo enviarte la guía?", "Trabajo con Django."),
    ("Sim.", "Você mora em Recife? Posso sugerir alguns passeios?", "Eu moro em Recife."),
    ("对。", "你在学日语吗？要我给你推荐教材吗？", "我在学日语。"),
    ("是的。", "你对花粉过敏对吧？", "我对花粉过敏。"),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "proposal", "stated"), BEFORE_AN_OFFER)
def test_the_proposition_before_an_offer_is_adopted(reply: str, proposal: str, stated: str) -> None:
    assert adopt(reply, proposal) == stated


@pytest.mark.parametrize(
    ("reply", "proposal"),
    [
        # a "yes, please" takes the offer: the question before it is not answered
        ("Yes please.", "You play the piano, right? Want me to find sheet music?"),
        ("Sí, por favor.", "¿Vives en Cádiz? ¿Quieres que te busque un hotel?"),
        ("好的，谢谢。", "你住在杭州吗？要我帮你查天气吗？"),
        # the last question is about someone else: nothing asked before it is answered
        ("Oui.", "Tu travailles chez Airbus ? Et Julien, il travaille encore à Toulouse ?"),
        ("Yes.", "Do you work in Leeds? Is Tom still at the bank?"),
    ],
)
def test_a_yes_please_or_a_question_about_another_adopts_nothing_before(
    reply: str, proposal: str
) -> None:
    assert adopt(reply, proposal) is None


#: conf35: an interjection before the yes ("Oh yes", "嗯，是的"), and the Portuguese yes
#: said by the question's verb again ("Sou sim"), six languages.
INTERJECTED = [
    ("Oh yes, for ages.", "You keep bees, don't you?", "I keep bees, for ages."),
    ("Ach ja, stimmt.", "Du singst also im Kirchenchor?", "Ich singe also im Kirchenchor."),
    ("Ah oui.", "Tu fais de la poterie le jeudi ?", "Je fais de la poterie le jeudi."),
    ("Pues sí.", "¿Juegas al pádel los domingos?", "Juego al pádel los domingos."),
    ("Jogo sim, às quartas.", "Você joga vôlei, né?", "Eu jogo vôlei, às quartas."),
    ("嗯，对。", "你在学钢琴吧？", "我在学钢琴。"),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "proposal", "stated"), INTERJECTED)
def test_an_interjection_or_an_echoed_verb_before_the_yes(
    reply: str, proposal: str, stated: str
) -> None:
    assert adopt(reply, proposal) == stated


@pytest.mark.parametrize(
    ("reply", "proposal"),
    [
        ("Well, no.", "So you're leading the data team now?"),
        ("Oh, what time is it?", "Are you vegan?"),
        ("嗯，我再想想。", "你是不是打算换工作？"),
        ("Talvez sim.", "Você vai se mudar para Lisboa?"),
        ("Jogo sim.", "O Pedro joga vôlei?"),
    ],
)
def test_an_interjection_before_no_yes_or_a_doubt_adopts_nothing(reply: str, proposal: str) -> None:
    assert adopt(reply, proposal) is None
