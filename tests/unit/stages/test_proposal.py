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
