"""The rule table, second part: decisions, family, plans, goals, hobbies, events,
remember requests and fallbacks."""

from __future__ import annotations

from memgate.core.events import FactType
from memgate.stages.extract_build_events import (
    _ANTICIPATED_REF_RE,
    _b_decided,
    _b_doing_hobby,
    _b_event,
    _b_gerund_subject,
    _b_gives_time,
    _b_goal_want,
    _b_habit,
    _b_hobby_inv,
    _b_learning,
    _b_liked_thing,
    _b_likes,
    _b_love_gerund,
    _b_named_answer,
    _b_note,
    _b_plan,
    _b_shares_own,
    _b_subjectless_activity,
)
from memgate.stages.extract_build_personal import (
    _b_has,
    _b_hobby_or_activity,
    _b_possessive,
    _b_values,
)
from memgate.stages.extract_build_statement import _b_statement
from memgate.stages.extract_build_team import (
    _PAST_ADV_MULTI,
    _b_decided_multi,
    _b_event_multi,
    _b_married,
    _b_married_multi,
    _b_pet,
    _b_relative_event,
    _b_took_up,
)
from memgate.stages.extract_lexicon import (
    _HOBBY_NOUNS,
    _KIDS,
    _PETS,
    _RELATIVE_ALT,
    _RELATIVES,
    C_GUESS,
    C_INFERRED,
    C_STATED,
)
from memgate.stages.extract_rule_kit import (
    _ADV,
    _EDVERB,
    _EDVERB_BARE,
    _OBJ,
    _PPVERB,
    _SUBJ,
    _Hit,
    _r,
    _Rule,
    _simple,
)
from memgate.stages.extract_text import _clean

_RULES_B: tuple[_Rule, ...] = (
    # ---------------------------------------------------------- decisions
    _r("decided", "decided chose picked opted settled agreed committed",
       r"\b" + _SUBJ + r"(?:'ve| have)?\s+" + _ADV
       # "settled in/into <place>" is a move, not a decision
       + r"(?:decided|chose|picked|opted|settled(?!\s+in(?:to)?\b)|agreed|committed)\s+"
       + r"(?:to |on |for |that )?"
       + _OBJ, _b_decided),
    _r("decided_multi", "beschlossen entschieden entschlossen décidé decidido decidí decidimos "
       "decidi resolvemos",
       r"\b(?:(?:ich habe|wir haben)(?: uns)? (?:beschlossen|entschieden|entschlossen)(?: uns)?|"
       r"(?:j'ai|nous avons|on a) décidé|(?:he|hemos) decidido|decidí|decidimos|(?:eu )?decidi|"
       r"resolvemos)[,:]?\s+(?:de\s+|d'|que\s+|a\s+|zu\s+)?(?P<obj>[^.!?;]+)",
       _b_decided_multi),
    _r("lets_go_with", "let's lets",
       r"\blet'?s (?:go with|use|pick|choose|stick with|settle on|standardi[sz]e on)\s+"
       + _OBJ, _b_decided),
    _r("going_with", "going",
       r"\b" + _SUBJ + r"(?:'re| are|'m| am) (?:going|gonna go) with\s+" + _OBJ, _b_decided),
    _r("decision_is", "decision",
       r"\b(?:the|our|my) decision is (?:to )?" + _OBJ,
       _simple(FactType.FACT, "decided")),
    # ---------------------------------------------------------- family / pets / relationship
    _r("has_pet", "have got own adopted rescued",
       r"\b" + _SUBJ + r"(?:'ve| have)?\s+" + _ADV + r"(?:have|got|own|adopted|rescued)\s+"
       r"(?P<obj>(?:an? |one |two |three |four |five |\d+ |some |another |a new )"
       r"(?:[\w-]+ ){0,2}?(?:" + _PETS
       + r")(?:\s+(?:named|called)\s+[\w-]+(?:\s+and\s+[\w-]+)?)?)\b",
       lambda m, ctx: _b_pet(m, ctx)),
    _r("has_child", "have got",
       r"\b" + _SUBJ + r"(?:'ve| have)?\s+" + _ADV + r"(?:have|got)\s+"
       r"(?P<obj>(?:an? |one |two |three |four |five |six |\d+ )(?:[\w-]+ ){0,2}?"
       r"(?:" + _KIDS + r"))\b", _b_has("has_child")),
    _r("has_relatives", "have got",
       r"\b" + _SUBJ + r"(?:'ve| have)?\s+" + _ADV + r"(?:have|got)\s+"
       r"(?P<obj>(?:an? |one |two |three |four |five |\d+ )(?:[\w-]+ ){0,2}?"
       r"(?:" + _RELATIVES + r"))\b", _b_has("family")),
    _r("pet_multi", "hund katze chien chat perro gato cachorro",
       r"\b(?:ich habe|j'ai|tengo|eu tenho|tenho)\s+(?P<obj>(?:einen|eine|ein|un|une|deux|"
       r"dos|um|uma|dois|duas|zwei)\s+(?:[\w-]+ )?(?:hund|hunde|katze|katzen|chiens?|chats?|"
       r"perros?|gatos?|cachorros?|cães)(?:\s+(?:namens|nommée?|llamad[oa]|chamad[oa])\s+\w+)?)"
       r"\b", _b_has("has_pet")),
    _r("kids_multi", "kinder enfants hijos filhos",
       r"\b(?:ich habe|j'ai|tengo|eu tenho|tenho)\s+(?P<obj>(?:ein|eine|zwei|drei|un|une|deux|"
       r"trois|uno|una|dos|tres|um|uma|dois|duas|três)\s+(?:kinder|kind|tochter|töchter|"
       r"sohn|söhne|enfants?|fils|filles?|hijos?|hijas?|filhos?|filhas?))\b",
       _b_has("has_child")),
    _r("married_multi", "mariée marié mariés fiancé fiancée fiancés casé casamos casei geheiratet "
       "verlobt comprometí",
       r"\b(?:je me suis (?:mariée?|fiancée?)|nous nous sommes (?:mariés|fiancés)|"
       r"on s'est (?:mariés?|fiancés?)|me casé|nos casamos|me comprometí|(?:eu )?me casei|"
       r"(?:eu )?casei|ich habe geheiratet|wir haben geheiratet|ich habe mich verlobt|"
       r"wir haben uns verlobt)\b", _b_married_multi),
    _r("married_event", "married engaged divorced",
       r"\b" + _SUBJ + r"(?:'ve| have)?\s+" + _ADV
       + r"(?P<verb>got|gotten) (?P<obj>married|engaged|divorced)\b",
       lambda m, ctx: _b_married(m, ctx)),
    # ---------------------------------------------------------- plans / goals
    _r("plan", "planning plan intending intend aiming preparing going about getting scheduled "
       "signed set saving off gonna have",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are)?\s+" + _ADV
       + r"(?:(?:planning|plan|intending|intend|aiming|preparing|going|about|"
       r"getting ready|scheduled|signed up|set|saving up|saving|off)\s+(?:on |to |for )|"
       r"gonna\s+|planning (?=an? |my |our |some |another )|have (?:big )?plans (?:to|for) |"
       r"have (?:an? )?(?:trip|vacation|holiday) (?:planned|booked) (?:to |for )?)"
       r"(?!be\b)" + _OBJ, _b_plan("plans_to", C_STATED)),
    _r("thinking_about", "thinking considering looking",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are|'ve been| have been)\s+" + _ADV
       + r"(?:thinking (?:about|of)|considering|looking into)\s+" + _OBJ,
       _b_plan("plans_to", C_GUESS)),
    _r("cant_wait", "wait",
       r"\b(?:" + _SUBJ + r" )?(?:can't|cannot|can not) wait (?:for|to)\s+"
       r"(?!it\b|that\b|this\b|see\b|hear\b|try\b|read\b|check\b|meet\b|chat\b|talk\b|"
       r"catch\b|find out\b|share\b|show\b|get\b|watch\b|know\b|join\b|tell\b)" + _OBJ,
       lambda m, ctx: [] if _ANTICIPATED_REF_RE.match(_clean(ctx.text(m, "obj")).lower())
       and ctx.date() is None else _b_plan("plans_to", C_INFERRED)(m, ctx)),
    _r("excited_for", "excited stoked psyched down",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are)\s+" + _ADV
       + r"(?:excited|stoked|psyched|pumped|down) (?:to|for|about)\s+"
       r"(?!it\b|that\b|this\b|see\b|hear\b|try\b|read\b|check\b|meet\b|chat\b|talk\b|"
       r"catch\b|find out\b|share\b|show\b|get\b|watch\b|know\b|join\b|tell\b|you\b|"
       r"your\b|what\b|how\b|where\b)" + _OBJ, _b_plan("plans_to", C_INFERRED)),
    _r("used_to", "used",
       r"\b" + _SUBJ + r"\s+" + _ADV + r"used to\s+(?P<obj>(?!be\b|think\b|feel\b)[^.!?;]+)",
       lambda m, ctx: [
           _Hit(h.type, h.subject, "event", "used to " + h.object, C_STATED, "")
           for h in _simple(FactType.EVENT, "event")(m, ctx)
       ]),
    _r("coming_up", "coming",
       r"\b" + _SUBJ + r"(?:'ve| have)(?: got)? (?P<obj>(?:an?|my|our|another|some) "
       r"[^.!?;,]{2,60}?) coming up\b", _b_plan("plans_to", C_STATED)),
    _r("looking_forward", "forward",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are)\s+" + _ADV
       + r"looking forward to\s+(?!it\b|that\b|this\b|seeing\b|hearing\b|chatting\b|"
       r"talking\b|catching\b)" + _OBJ,
       lambda m, ctx: [] if _ANTICIPATED_REF_RE.match(_clean(ctx.text(m, "obj")).lower())
       and ctx.date() is None else _b_plan("plans_to", C_INFERRED)(m, ctx)),
    _r("will_with_time", "i'll we'll will",
       r"\b" + _SUBJ + r"(?:'ll| will)\s+(?:be\s+)?" + _ADV
       + r"(?P<obj>[^.!?;,]+?)\s+(?:next (?:week|month|year|weekend|summer|spring|fall|"
       r"winter|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|tomorrow|"
       r"this (?:weekend|summer|fall|winter|spring)|in (?:a|two|three|\d+) (?:weeks?|"
       r"months?|years?)|soon|someday|some day|one day|eventually)\b",
       _b_plan("plans_to", C_STATED)),
    _r("goal_want", "want wanna hope aim dream intend plan need love like wish",
       r"\b" + _SUBJ + r"\s+" + _ADV + r"(?:want|wanna|hope|aim|dream|intend|plan|need|"
       r"would love|'d love|would like|'d like|wish)\s+(?:to |of )" + _OBJ, _b_goal_want),
    _r("goal_hoping", "hoping aiming striving working dreaming determined",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are)\s+" + _ADV
       + r"(?:hoping|aiming|striving|working (?:towards?|on becoming)|dreaming of|"
       r"determined)\s+(?:to )?" + _OBJ, _b_goal_want),
    _r("goal_my", "goal dream plan aim ambition",
       r"\b(?P<subj>my|our) (?:big |main |ultimate |long-term |new |next )?"
       r"(?P<kind>goal|dream|plan|aim|ambition)(?: for (?:this|next) year)? (?:is|was) (?:to )?"
       + _OBJ,
       lambda m, ctx: _b_plan("plans_to" if m.group("kind") == "plan" else "goal",
                              C_STATED)(m, ctx)),
    _r("learning", "learning studying taking",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are|'ve been| have been)\s+" + _ADV
       + r"(?:learning|studying|taking (?:a |an )?(?:class|course|lessons?) (?:in|on))\s+"
       r"(?P<to>how to |to )?" + _OBJ, _b_learning),
    # ---------------------------------------------------------- hobbies / activities
    _r("hobby_is", "hobby hobbies pastime passion",
       r"\bmy (?:main |favou?rite |new |big )?(?:hobby|hobbies|pastime|passion)"
       r"(?: is| are|:)\s+" + _OBJ, _simple(FactType.FACT, "hobby")),
    _r("into", "into",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are|'ve been| have been|'ve gotten| have gotten|"
       r" got)\s+" + _ADV + r"(?:really |very |big |super |)into\s+(?!it\b|that\b|this\b)"
       + _OBJ, _simple(FactType.FACT, "hobby")),
    _r("took_up", "took taken started began picked got up into",
       r"\b" + _SUBJ + r"(?:'ve| have)?\s+" + _ADV
       + r"(?:took up|taken up|started|began|picked up|got into)\s+(?P<obj>(?P<ger>[a-z]+ing)"
       r"(?: [^.!?;,]{0,60})?|(?:" + "|".join(sorted(_HOBBY_NOUNS)) + r")\b)",
       lambda m, ctx: _b_took_up(m, ctx)),
    _r("free_time", "free spare weekends",
       r"\b" + _SUBJ + r"\s+" + _ADV + r"(?P<obj>[a-z]+[^.!?;,]{0,60}?)\s+(?:in|during) "
       r"(?:my|our) (?:free|spare|down) time\b", _simple(FactType.FACT, "hobby")),
    _r("play_instrument", "play plays",
       r"\b" + _SUBJ + r"\s+" + _ADV + r"(?:play|plays) (?P<obj>(?:the )?(?:"
       + "|".join(sorted(_HOBBY_NOUNS)) + r")\b[^.!?;,]{0,40})",
       _simple(FactType.FACT, "hobby")),
    _r("been_doing", "been",
       r"\b" + _SUBJ + r"(?:'ve|ve| have)\s+(?:(?:really|also|just|been|recently|lately|"
       r"finally|actually|totally|kind of|kinda|still)\s+)*been\s+(?:(?:really|also|so|"
       r"super|busy|actually|kind of|kinda)\s+)*(?P<obj>(?P<ger>[a-z]+ing)\b[^.!?;]*)",
       _b_hobby_or_activity(C_STATED)),
    _r("doing_hobby", "doing",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are|'ve been|ve been| have been)\s+" + _ADV
       + r"doing (?:a lot of |lots of |some |more |a bit of |)(?P<obj>[a-z][\w-]+\b[^.!?;]*)",
       _b_doing_hobby),
    _r("am_doing", "<ing>",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are)\s+(?:(?:currently|now|also|actually|still|"
       r"really|busy|finally|officially|seriously|slowly)\s+)*"
       r"(?P<obj>(?P<ger>[a-z]+ing)\b[^.!?;]*)", _b_hobby_or_activity(C_STATED)),
    _r("habit", "always usually often regularly normally typically",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are)?\s+(?P<adv>always|usually|often|regularly|"
       r"normally|typically)\s+"
       r"(?:try to |like to |love to )?" + _OBJ, _b_habit),
    _r("passionate_about", "passionate obsessed interested fascinated drawn fond grateful love "
       "passion soft crazy hooked addicted",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are|'ve been| have been|'ve always been|"
       r"'ve always had| have always had|'ve got| have| had)\s+"
       + _ADV + r"(?:passionate about|obsessed with|interested in|fascinated by|"
       r"crazy about|hooked on|addicted to|drawn to|fond of|"
       r"an? (?:real |great |deep |huge |big |)(?:love|passion|soft spot) for)\s+"
       r"(?!it\b|that\b|this\b|you\b)" + _OBJ,
       _b_likes(False)),
    _r("my_thing", "thing jam passion go-to top stress escape outlet therapy safe comfort happy "
       "favorite favourite favorites favourites fave faves list team",
       r"^(?P<obj>[^,.!?;]{3,60}?)(?:'s|'re| is| are| has become| have become) (?:definitely |"
       r"really |totally |kind of |also |pretty much |)(?:my|our) (?:thing|jam|passion|go-to|"
       r"happy place|top pick|stress fix|escape|outlet|therapy|safe space|comfort zone|"
       r"favou?rite thing|fave|team(?! (?:lead|leader|mates?|members?|manager)\b))\b|"
       r"^(?P<obj2>[^,.!?;]{3,60}?)(?:'s|'re| is| are) (?:definitely |really |also |still |)"
       r"(?:one of |among |some of |)(?:my|our) (?:all[- ]time |absolute |top |)"
       r"(?:favou?rites?|faves)\b|"
       r"^(?P<obj3>[^,.!?;]{3,60}?)(?:'s|'re| is| are) (?:definitely |always |still |)"
       r"(?:at the |)top of (?:my|our) list\b",
       lambda m, ctx: _b_liked_thing(m, ctx) if not m.group("obj") else _simple(
           FactType.PREFERENCE, "likes")(m, ctx), clauses=True),
    _r("hobby_inv", "hobby hobbies pastime pastimes",
       r"^(?P<obj>[^,.!?;]{3,80}?)(?:'s|'re| is| are) (?:definitely |really |also |still |)"
       r"(?:one of |among |some of |)(?:my|our) (?:main |favou?rite |big |two |)"
       r"(?:hobby|hobbies|pastimes?)\b", _b_hobby_inv, clauses=True),
    _r("moves_me", "mesmerize mesmerizes mesmerized mesmerise mesmerises mesmerised fascinate "
       "fascinates fascinated captivate captivates captivated intrigue intrigues intrigued "
       "inspire inspires interesting fascinating impress impresses speaks speak brings bring "
       "inspired",
       r"^(?:(?:and|but|so|yeah|yes|well|honestly)[,\s]+)*(?P<obj3>[^,.!?;]{3,60}?)"
       r"(?:'s| is| are) (?:so |really |very |super |)[a-z]+(?: and [a-z]+)?\s*"
       r"[-\u2013\u2014,]+\s*(?:it|they) (?:really |truly |just |)speaks? to me\b|"
       r"^(?:(?:and|but|so|yeah|yes|well|honestly)[,\s]+)*(?P<obj>[^,.!?;]{3,60}?) "
       r"(?:(?:has|have) )?(?:(?:always|really|totally|truly|just|never stopped|still|"
       r"constantly|also)\s+)*(?:mesmeri[sz]e[sd]?|fascinate[sd]?|captivate[sd]?|intrigue[sd]?|"
       r"inspires?|impress(?:es)?|(?:speaks?|spoke) to|(?:is|are|was) what (?:inspired|"
       r"inspires|drew|draws|got)) me\b|^(?:(?:and|but|so|yeah|yes|well|honestly)[,\s]+)*"
       r"(?P<obj4>[^,.!?;]{3,60}?) (?:(?:really|always|also|truly|just)\s+)*brings? me "
       r"(?:so much |such |a lot of |great |real |)(?:joy|peace|happiness|comfort|calm)\b"
       r"|^(?:(?:and|but|so|yeah|yes|well|honestly)[,\s]+)*(?P<obj2>[^,.!?;]{3,60}?)"
       r"(?:'s|'re| is| are| has always been| have always been) (?:(?:particularly|really|so|"
       r"very|super|especially|always|genuinely|truly)\s+)*(?:interesting|fascinating) to me\b",
       _b_liked_thing, clauses=True),
    _r("hooked", "hooked obsessed addicted",
       r"^(?:(?:and|but|so|yeah|yes|well|oh)[,\s]+)*(?P<obj>[^,.!?;]{3,60}?)(?:'s|'re| is| are|"
       r" was| were) (?:so |really |absolutely |just |totally |)(?:amazing|awesome|great|"
       r"incredible|fantastic|brilliant|so good)\s*(?:[-\u2013\u2014,]+|and)\s*(?:i'm|i am) "
       r"(?:(?:totally|so|completely|really|absolutely)\s+)*(?:hooked|obsessed|addicted)\b",
       _b_liked_thing),
    _r("values", "important dear special precious means mean meant part",
       r"^(?:(?:and|but|so|yeah|yes|well)[,\s]+)*(?P<obj>[^,.!?;]{3,80}?)"
       r"(?:'s| is| are| has always been| have always been| is always| really is| is really|"
       r" is so| are so|'s so|'s always) (?:really |so |very |super |)(?:important|dear|special|"
       r"precious) to (?:me|us)"
       r"|^(?:(?:and|but|so|yeah|yes|well)[,\s]+)*(?P<obj2>[^,.!?;]{3,80}?) "
       r"(?:means?|meant) (?:a lot|so much|everything|the world|a great deal) to (?:me|us)"
       r"|^(?:(?:and|but|so|yeah|yes|well)[,\s]+)*(?P<obj3>[^,.!?;]{3,80}?) "
       r"(?:is|are|has been|have been|has become|became) (?:such |)(?:a |an |)(?:huge |big |"
       r"important |major |key |special |)part of (?:my|our) (?:life|lives|identity|routine)",
       lambda m, ctx: _b_values(m, ctx)),
    _r("important_to_me_to", "important",
       r"\b(?:it's|it is) (?:really |so |very |super |)important to (?P<subj>me|us) to\s+"
       r"(?!(?:say|tell|know|hear|see|ask|thank)\b)" + _OBJ,
       lambda m, ctx: [_Hit(FactType.FACT, "team" if m.group("subj") == "us" else "user",
                            h.predicate, h.object, h.confidence, "")
                       for h in _simple(FactType.FACT, "values")(m, ctx)]),
    _r("member_of", "part member joined",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are|'ve been| have been)\s+" + _ADV
       + r"(?:a )?(?:part|members?) of\s+(?!it\b|that\b|this\b)" + _OBJ,
       _simple(FactType.FACT, "member_of")),
    _r("busy_with", "busy",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are|'ve been| have been)\s+" + _ADV
       + r"(?:really |so |super |pretty |)busy (?:with|working on)\s+(?!it\b|that\b)" + _OBJ,
       _simple(FactType.FACT, "activity")),
    _r("been_wanting", "wanting",
       r"\b" + _SUBJ + r"(?:'ve| have) (?:always |really |)been (?:wanting|meaning|dying|"
       r"hoping|itching) to\s+" + _OBJ, _b_goal_want),
    _r("habit_freq", "every once twice daily weekly weekends",
       r"\b" + _SUBJ + r"\s+(?:also |still |usually |often |try to |like to |love to |"
       r"really |)(?P<obj>(?!am\b|was\b|have\b|had\b|do\b|did\b|can\b|will\b|get\b|'m\b|"
       r"feel\b|think\b)[a-z]+ [^.!?;,]{0,60}?\b(?:every (?:single )?(?:day|week|weekend|"
       r"morning|night|evening|month|year|monday|tuesday|wednesday|thursday|friday|saturday|"
       r"sunday)|each (?:day|week|weekend|morning|night|evening|month)|"
       r"once a (?:week|month|year)|twice a (?:week|month|year)|daily|weekly|on "
       r"weekends|on (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)))\b",
       _simple(FactType.FACT, "habit")),
    # ---------------------------------------------------------- events
    _r("relative_event", "<ed>",
       r"\b(?P<subj>my (?P<who>" + _RELATIVE_ALT + r"))(?: (?!" + _EDVERB_BARE
       + r"(?![\w'])|just\b|recently\b|finally\b)[^\W\d_][\w'-]*)?\s+"
       r"(?P<adv>(?:(?:just|recently|finally)\s+)*)" + _EDVERB + r"(?![\w'])(?P<obj>[^.!?;]*)",
       _b_relative_event),
    _r("event_past", "<ed>",
       r"\b(?P<subj>i|we|(?:my|our) [a-z]+ and i|me and my [a-z]+)\s+"
       r"(?P<adv>(?:(?:just|recently|finally|also|actually|even|totally|once|then|"
       r"officially|already|eventually|first|both|all|really)\s+)*)"
       + _EDVERB + r"(?![\w'])(?P<obj>[^.!?;]*)", _b_event(C_STATED, C_STATED, False)),
    _r("event_perfect", "i've ive we've have",
       r"\b(?P<subj>i|we)(?:'ve|ve| have)\s+(?P<adv>(?:(?:just|recently|finally|also|"
       r"actually|already|officially|even)\s+)*)" + _PPVERB + r"(?![\w'])(?P<obj>[^.!?;]*)",
       _b_event(C_STATED, C_STATED, False)),
    _r("event_subjectless", "<ed>",
       r"^(?P<subj>)(?:(?:and|so|also|oh|yeah|well|btw|actually|anyway)[,\s]+)*"
       r"(?P<adv>(?:(?:just|finally|recently|also|actually)\s+)*)" + _EDVERB
       + r"(?![\w'])(?P<obj>[^.!?;]*)", _b_event(C_STATED, C_STATED, False)),
    _r("been_doing_subjectless", "been",
       r"^(?:(?:and|so|also|oh|yeah|well|btw|actually|lately|recently)[,\s]+)*"
       r"(?:(?:i've|i have|we've|we have)\s+)?(?:really |also |just |)been\s+(?:(?:really|also|"
       r"so|super|busy|actually|kind of|kinda)\s+)*(?P<obj>(?P<ger>[a-z]+ing)\b[^.!?;]*)",
       _b_hobby_or_activity(C_STATED)),
    _r("subjectless_activity", "<ing>",
       r"^(?:(?:yeah|yes|yep|well|oh|actually|so|and|also|lately|recently|currently|mostly|"
       r"still|just|now|busy|honestly|really)[,\s]+)*"
       r"(?P<obj>(?P<ger>[a-z]+ing)\b[^.!?;,\u2013\u2014]*)", _b_subjectless_activity),
    _r("subjectless_activity_dash", "<ing>",
       r"(?:\s[-\u2013\u2014]+|\u2014)\s*(?:(?:still|just|mostly|currently|busy)\s+)*"
       r"(?P<obj2>(?P<ger2>[a-z]+ing)\b[^.!?;,\u2013\u2014-]*)[.!?\s]*$",
       _b_subjectless_activity),
    _r("gerund_subject", "<ing>",
       r"^(?:(?:yeah|yes|well|oh|honestly|and|so)[,\s]+)*(?P<obj>(?P<ger>[a-z]+ing)\b"
       r"[^.!?;,\u2013\u2014]{0,80}?) (?:(?:really|always|also|totally|truly|just)\s+)*"
       r"(?:(?:helps?|keeps?|makes?|has been helping|has helped|relaxes|calms|grounds) "
       r"(?P<who>me)\b|(?P<past>was|has been|were) (?:(?:such|so|really|truly|an?|"
       r"absolutely)\s+)*(?:awesome|amazing|great|incredible|unforgettable|wonderful|"
       r"fantastic|special|fun|rewarding|fulfilling|a blast|a challenge|challenging|tough|"
       r"hard)\b)", _b_gerund_subject),
    _r("love_gerund", "love adore enjoy",
       r"^(?:(?:yeah|yes|oh|and|so|also|honestly|really|just|totally|absolutely)[,\s]+)*"
       r"(?:love|adore|enjoy)\s+(?P<obj>(?P<ger>[a-z]+ing)\b[^.!?;]*)", _b_love_gerund,
       clauses=True),
    _r("gonna_plan", "gonna planning",
       r"^(?:(?:yeah|yes|oh|and|so|also|well|anyway)[,\s]+)*(?:gonna |planning (?:to |on |"
       r"(?=an? |my |some |another )))(?!be\b)" + _OBJ, _b_plan("plans_to", C_STATED)),
    _r("event_multi", frozenset(k.split()[-1] for k in _PAST_ADV_MULTI),
       r"^(?P<obj>.+)$", _b_event_multi),
    _r("gives_time", "donate volunteer mentor coach tutor",
       r"\b" + _SUBJ + r"\s+(?:(?:also|still|regularly|now|even|sometimes)\s+)*"
       r"(?P<obj>(?:donate|volunteer|mentor|coach|tutor)\b(?! (?:to|for) (?:you|help)\b)"
       r"[^.!?;]*)", _b_gives_time),
    _r("loving", "loving",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are)\s+(?:(?:really|totally|so|just|also|still)\s+)*"
       r"loving\s+(?!it\b|that\b|this\b|you\b|your\b|the way\b|how\b|every\b|"
       r"them\b|him\b|her\b)" + _OBJ, _b_likes(False)),
    # ---------------------------------------------------------- remember requests
    _r("remember_note", frozenset(),
       r"^(?P<obj>.+)$", _b_note),
    # ---------------------------------------------------------- fallbacks (weak inferences)
    _r("mentions_partner", "my",
       r"\bmy (?P<obj>wife|husband|spouse|hubby|girlfriend|boyfriend|gf|bf|partner|"
       r"fianc[ée]e?)\b", _b_possessive("relationship_status", C_INFERRED), fallback=True),
    _r("mentions_kids", "my",
       r"\bmy (?P<obj>(?:two |three |four |little |)(?:kids|children|son|daughter|sons|"
       r"daughters))\b", _b_possessive("has_child", C_INFERRED), fallback=True),
    _r("mentions_pet", "my",
       r"\bmy (?P<obj>(?:two |three |four |)(?:dogs?|cats?|pups?|puppy|kitten|rabbit|"
       r"hamster|parrot|horse|turtle))\b", _b_possessive("has_pet", C_INFERRED),
       fallback=True),
    _r("shares_own", "here's here check this these meet",
       r"^(?:(?:yeah|yes|oh|so|and|btw|anyway|look)[,\s]+)*(?:here's|here is|check out|"
       r"this is|these are|meet)\s+(?:(?:a|an|one|some|another)\s+(?:pic|pics|photo|photos|"
       r"picture|pictures|snap|shot|peek|look)\s+(?:of|from|at)\s+|one of\s+|)"
       r"(?P<subj>my|our)\s+(?P<obj>[^.!?;]+)|"
       r"^(?:(?:yeah|yes|oh|so|and|btw|anyway|look)[,\s]+)*(?:here's|here is|this is|"
       r"check out)\s+(?:(?:a|an|one|another)\s+(?:pic|photo|picture|snap|shot)\s+"
       r"(?:(?:of|from)\s+(?=(?:me|us|when|last)\b)|(?=(?:i|we) (?:took|snapped|got)\b))|"
       r"one (?=(?:i|we) (?:did|made|painted|drew|wrote|knitted|baked|built|sewed)\b))"
       r"(?P<obj2>[^.!?;]+)", _b_shares_own, fallback=True, clauses=True),
    _r("named_answer", "name name's called it's was is definitely probably",
       r"^(?:(?:yeah|yes|oh|so|well)[,\s]+)*(?:(?:his|her|their|its) name(?:'s| is| was)|"
       r"(?:they're|they are|it's|it is|this (?:[a-z]+ )?is|these (?:[a-z]+ )?are) called|"
       r"it was|it's|it is|that was|definitely|probably)\s+"
       r"[\"'\u201c]?(?P<obj>[^\W\d_][\w'-]*)", _b_named_answer,
       fallback=True),
    _r("statement", "i i'm im i've ive i'd we we're we've my our",
       r"^(?P<obj>.+)$", _b_statement, fallback=True),
)
