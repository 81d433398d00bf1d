"""The rule table, first part: instructions, corrections, preferences, work, place,
identity, tools, stack and deployment."""

from __future__ import annotations

import re

from memgate.core.events import FactType
from memgate.stages.extract_build_events import _ING_NOT_GERUND, _b_likes, _b_timezone
from memgate.stages.extract_build_personal import (
    _b_as_a,
    _b_deploy,
    _b_favorite,
    _b_from,
    _b_hobby_or_activity,
    _b_i_am_a,
    _b_i_am_adj,
    _b_imperative,
    _b_instruction,
    _b_lives,
    _b_name,
    _b_not_anymore,
    _b_prefer,
    _b_speaks,
    _b_stack,
    _b_switch,
    _b_their_likes,
    _b_use,
)
from memgate.stages.extract_build_team import (
    _CONTACT_ROLES,
    _COUNT_WORDS,
    _DIET_NEG_RE,
    _IMPERATIVE_VERBS,
    _b_answer_language_like,
    _b_contact,
    _b_diet_neg,
    _b_i_lead,
    _b_lives_alt,
    _b_maintain,
    _b_my_category,
    _b_plan_tier,
    _b_polite_standing,
    _b_practice,
    _b_relative_lives,
    _b_relative_name,
    _b_switch_to,
    _b_team_activity,
    _b_team_is_org,
    _b_team_runs_on,
    _b_team_size,
    _b_told_you_actually,
    _b_use_cat,
    _b_use_for,
    _b_via_tool,
    _b_when_you,
    _b_work_any,
    _b_wrong_thing,
)
from memgate.stages.extract_lexicon import _NOT_ACTIVITY, _RELATIVE_ALT, _TOOL_RE, C_STATED
from memgate.stages.extract_marker_clause import _b_from_now_on
from memgate.stages.extract_rule_kit import (
    _ADV,
    _IM,
    _OBJ,
    _OBJ_SHORT,
    _REACTION_NOUNS,
    _SUBJ,
    _WEARE,
    _Hit,
    _r,
    _Rule,
    _simple,
    _subject,
)

_RULES_A: tuple[_Rule, ...] = (
    # ---------------------------------------------------------- instructions
    _r("instruction_from_now_on", "now forward future onwards onward here today forth",
       r"\b(?:from now on|going forward|from here on(?: out)?|in (?:the )?future|"
       r"starting (?:now|today)|from today on(?:wards)?|henceforth|moving forward)\b[,:]?\s*"
       r"(?:(?:please|pls|can you|could you|you should|you must|i want you to|i'd like you to)"
       r"[,\s]+)*(?P<obj>[^.!?;]+)", _b_from_now_on),
    _r("instruction_from_now_on_de", "jetzt sofort nun zukunft künftig",
       r"\b(?:ab jetzt|ab sofort|von nun an|in zukunft|künftig)\b[,:]?\s*(?:bitte\s+)?"
       r"(?P<obj>[^.!?;]+)", _b_from_now_on),
    _r("instruction_from_now_on_fr", "maintenant désormais dorénavant",
       r"(?:(?:à|a) partir de maintenant|désormais|dorénavant)[,:]?\s*"
       r"(?:s'il te plaît\s+|s'il vous plaît\s+)?(?P<obj>[^.!?;]+)", _b_from_now_on),
    _r("instruction_from_now_on_es_pt", "ahora adelante agora diante",
       r"(?:a partir de (?:ahora|agora)|de ahora en adelante|desde ahora|"
       r"de agora em diante|daqui (?:para|pra) frente)[,:]?\s*"
       r"(?:por favor[,\s]+)?(?P<obj>[^.!?;]+)", _b_from_now_on),
    _r("instruction_always_never", "always never don't do",
       r"^(?:(?:ok|okay|also|and|btw|please|pls|oh|so)[,\s]+)*"
       r"(?P<pol>always|never|don't ever|do not ever|don't|do not|please always|"
       r"please never|please don't)\s+(?:ever\s+)?(?!give up\b|give in\b)"
       r"(?:use|suggest|recommend|answer|reply|respond|write|format|include|add|call|"
       r"address|give|explain|mention|show|put|assume|apologi[sz]e|start|end|sign|"
       r"prefix|wrap|comment|return|output|translate|ask|omit|skip|mock|import|"
       r"refer|cite|link|summari[sz]e|send|schedule|book|use)\b[^.!?;]*", _b_imperative,
       clauses=True),
    _r("instruction_trailing_from_now_on", "now forward onwards onward henceforth",
       r"^(?:(?:ok|okay|also|and|btw|so|oh)[,\s]+)*(?:(?:please|pls|kindly)[,\s]+)?"
       r"(?P<obj>(?:" + _IMPERATIVE_VERBS + r")\b[^.!?;]*?)[,\s]+(?:from now on|going forward|"
       r"from here on(?: out)?|moving forward|henceforth)(?:[,\s]+(?:please|pls|thanks|"
       r"thank you))?[\s.!]*$", _b_instruction),
    _r("instruction_when_you", "when whenever time anytime",
       r"^(?:(?:and|also|btw|so|oh|ok|okay)[,\s]+)*(?:when|whenever|every time|each time|"
       r"any time|anytime) you (?P<cond>(?:[^,.!?;]{0,60}\b(?:me|us|my|our)\b[^,.!?;]{0,40}|"
       r"(?:write|answer|reply|respond|generate|suggest|give|show|send|explain|create|draft|"
       r"open|book|schedule|code|review|summari[sz]e|translate|format)\b[^,.!?;]{0,60})),\s*"
       r"(?:please\s+)?(?P<obj>(?!don't hesitate)(?:" + _IMPERATIVE_VERBS
       + r")\b[^.!?;]*)", _b_when_you),
    _r("instruction_polite", "please pls kindly",
       r"^(?:(?:ok|okay|also|and|btw|so|oh)[,\s]+)*(?:please|pls|kindly)[,\s]+"
       r"(?P<obj>(?!(?:don't|do not|never|always|please)\b)(?:" + _IMPERATIVE_VERBS
       + r"|reach|email|text)\b[^.!?;]*)", _b_polite_standing, clauses=True),
    _r("instruction_polite_multi", "merci bitte favor",
       r"^(?:merci de |bitte[,\s]+|por favor[,\s]+)(?P<obj>[^.!?;]+)", _b_polite_standing,
       clauses=True),
    # ---------------------------------------------------------- corrections
    _r("switch_from_to", "from",
       r"\b" + _SUBJ + r"(?:'ve| have)?\s+" + _ADV
       + r"(?P<verb>switched|moved|migrated|changed|transitioned|went|upgraded|relocated)"
       r"(?: (?:over|away|all|everything|our \w+|my \w+))? from (?P<old>[^.!?;]{1,60}?) "
       r"(?:to|onto|over to) (?P<new>[^.!?;,]+)", _b_switch),
    _r("switch_cat_to", "switched changed moved migrated swapped",
       r"\b" + _SUBJ + r"(?:'ve| have)?\s+" + _ADV
       + r"(?P<verb>switched|changed|moved|migrated|swapped)\s+(?:my|our)\s+"
       r"(?P<cat>[a-z/ -]{2,30}?)\s+(?:over\s+)?(?:to|for)\s+(?P<new>[^.!?;,]+)", _b_switch_to),
    _r("switch_passive", "switched changed moved migrated upgraded",
       r"\b(?P<subj>our|my)\s+(?P<cat>[a-z/ -]{2,30}?)\s+(?:was|were|has been|have been|got|"
       r"is being)\s+(?:just\s+)?(?P<verb>switched|moved|migrated|changed|upgraded)\s+"
       r"(?:over\s+)?from\s+(?P<old>[^.!?;]{1,60}?)\s+(?:to|onto)\s+(?P<new>[^.!?;,]+)",
       _b_switch_to),
    _r("switch_to_tool", "switched moved migrated",
       r"\b" + _SUBJ + r"(?:'ve| have)?\s+" + _ADV
       + r"(?P<verb>switched|moved|migrated)\s+(?:over\s+|everything\s+|all\s+)?(?:to|onto)\s+"
       r"(?P<new>[^.!?;,]+)", _b_switch_to),
    _r("wrong_thing", "wrong",
       r"\bi (?:gave you|told you|said|wrote|mentioned|put|typed|sent you) (?:the |a )?wrong "
       r"(?P<thing>[a-z ]{2,30}?)(?: earlier| before| last time| yesterday)?\s*[:,;–—-]+\s*"
       r"(?:it's|it is|it should be|the (?:right|correct) one is|the correct [a-z ]+ is|"
       r"that should be)\s+(?P<new>[^.!?;,]+)", _b_wrong_thing),
    _r("told_you_actually", "actually",
       r"\bi (?:told you|said|mentioned|wrote)(?: that)? (?P<what>[^,.!?;]{3,60}?) "
       r"(?P<verb>was|is|were|are) (?P<old>[^,.!?;]{1,40}),? but (?:it's|it is|they're|"
       r"they are|it was|it'll be|it will be) actually (?P<new>[^.!?;]+)",
       _b_told_you_actually),
    _r("not_anymore", "anymore more longer",
       r"\bnot (?:using |on |with )?(?P<old>[^,.;!?]{1,40}?) any ?more\b[,;:]?\s*(?:-\s*)?"
       r"(?:(?:it's|its|it is|now|we use|i use|we're using|i'm using|we're on|i'm on|"
       r"switched to|we switched to|i switched to|using|we've moved to|we moved to)\s+)+"
       r"(?P<new>[^.!?;,]+)", _b_not_anymore),
    _r("no_longer_now", "longer",
       r"\b(?:i|we) no longer use (?P<old>[^,.;!?]{1,40}?)[,;]\s*(?:(?:we|i) (?:now )?use|"
       r"now (?:we|i) use|now it's|now)\s+(?P<new>[^.!?;,]+)", _b_not_anymore),
    _r("name_is", "name call called spelled spelt",
       r"\b(?:my name(?:'s| is)(?: actually| spelled| spelt| written)*|"
       r"(?:please )?call me|i(?:'m| am) called|i go by)\s+(?P<obj>[^\W\d_][\w'-]*)", _b_name),
    _r("relative_name", "called named name goes heißt s'appelle llama chama chama-se",
       r"\b(?:my|mein|meine|mon|ma|mi|meu|minha) (?P<who>" + _RELATIVE_ALT + r")(?:'s name is|"
       r" is called| is named| goes by| heißt| s'appelle| se llama| se chama| chama-se)\s+"
       r"(?P<obj>[^\W\d_][\w'-]*)", _b_relative_name),
    _r("name_is_multi", "heiße name m'appelle llamo chamo chiamo nombre nome",
       r"\b(?:ich heiße|mein name ist|je m'appelle|mon nom est|me llamo|mi nombre es|"
       r"me chamo|meu nome é|mi chiamo|il mio nome è)\s+(?P<obj>[^\W\d_][\w'-]*)", _b_name),
    # ---------------------------------------------------------- preferences
    _r("prefer", "prefer rather",
       r"\b" + _SUBJ + r"(?:'d| would)?\s+" + _ADV
       + r"(?:prefer|rather have|'d rather)\s+" + _OBJ, _b_prefer),
    _r("prefer_rather", "rather",
       r"\b" + _SUBJ + r"(?:'d| would) rather (?:have |get |use |see |read |receive |hear |"
       r"be given )?" + _OBJ, _b_prefer),
    _r("communication_in", "communication answers replies responses emails messages "
       "correspondence support",
       r"\b(?:i|we)(?:'d| would) (?:like|prefer|love)\s+(?:all |our |my |the |your |)"
       r"(?:communication|answers|replies|responses|emails|messages|correspondence|support)s?"
       r"\s+(?:to be\s+)?in\s+(?P<obj>[^.!?;,]+)", _b_answer_language_like),
    _r("prefer_multi", "bevorzuge préfère prefiero prefiro",
       r"\b(?:ich bevorzuge|je préfère|prefiero|eu prefiro|prefiro|nous préférons|"
       r"wir bevorzugen|preferimos)\s+(?:les |la |le |l'|los |las |el |as |os |a |o )?"
       + _OBJ, _b_prefer),
    _r("favorite", "favorite favourite fav fave",
       r"\b(?P<subj>my|our) (?:all[- ]time |absolute |personal |current |new )?"
       r"(?:favou?rite|fave?) (?P<thing>[a-z][a-z -]{1,30}?) (?:is|are|was|has to be|"
       r"would be|would have to be)\s+(?:probably |definitely |still |currently )?" + _OBJ,
       _b_favorite),
    _r("favorite_bare", "favorite favourite fave",
       r"\b(?P<subj>my|our) (?:all[- ]time |absolute |personal |current |new )?"
       r"(?:favou?rite|fave) (?:is|was|has to be|would be)\s+(?:probably |definitely |still )?"
       r"(?:this |that )?" + _OBJ, _simple(FactType.PREFERENCE, "likes")),
    _r("favorite_inv", "favorite favourite",
       r"^(?P<obj>[^,.!?;]{2,60}?) (?:is|are) (?:definitely |probably |still |totally )?"
       r"(?P<subj>my|our) (?:all[- ]time |absolute )?favou?rite (?P<thing>[a-z]+)\b",
       _b_favorite),
    _r("fan_of", "fan",
       r"\b(?:" + _IM + r"|i've (?:always )?been|i have (?:always )?been|" + _WEARE
       + r")\s+(?:a |an |such a |)(?:(?:big|huge|massive|great|real|total|long-time|"
       r"longtime|die-hard|diehard|super|fellow)\s+)*fans? of\s+" + _OBJ,
       _simple(FactType.PREFERENCE, "likes")),
    _r("x_fan", "fan",
       r"\b(?:" + _IM + r"|" + _WEARE + r")\s+(?:such |)(?:a |an )(?:(?:big|huge|massive|total|"
       r"real|die-hard|diehard|longtime|long-time|lifelong|super)\s+)*"
       r"(?P<obj>(?!big\b|huge\b)[a-z][\w'-]*(?: [a-z][\w'-]*)?) fan\b",
       _simple(FactType.PREFERENCE, "likes")),
    _r("as_a_fan", "fan",
       r"^(?:(?:and|but|so|yeah|well|oh)[,\s]+)*as an? (?:(?:big|huge|lifelong|long-time|"
       r"longtime|die-hard|diehard|true|real)\s+)*(?P<obj>[^,.!?;]{2,40}?) fan\b",
       _simple(FactType.PREFERENCE, "likes")),
    _r("dislike", "hate dislike detest stand like enjoy despise bear fan",
       r"\b" + _SUBJ + r"\s+" + _ADV
       + r"(?P<verb>hate|dislike|detest|can't stand|cannot stand|don't like|do not like|"
       r"don't enjoy|do not enjoy|don't really like|am not a fan of|'m not a fan of|"
       r"can't bear|despise)\s+" + _OBJ, _b_likes(True)),
    _r("not_into", "into fond keen crazy big",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are)\s+not\s+(?:(?:really|that|very|too|so|"
       r"particularly|much|all that|exactly|a)\s+)*(?:into|fond of|keen on|crazy about|big on)"
       r"\s+(?!it\b|that\b|this\b|you\b)" + _OBJ, _b_likes(True)),
    _r("never_use", "never don't do",
       r"\b" + _SUBJ + r"\s+(?:never|don't|do not)\s+(?:ever\s+)?(?:use|touch|work with)\s+"
       r"(?!it\b|that\b|this\b|them\b|those\b|any\b|anything\b|much\b|a lot\b)" + _OBJ,
       lambda m, ctx: _b_likes(True)(m, ctx) if (
           _TOOL_RE.match(ctx.low, m.start("obj")) or ctx.text(m, "obj")[:1].isupper()
       ) else []),
    _r("dislike_im_not_fan", "fan",
       r"\b(?:i'm|i am|we're|we are) not (?:a )?(?:big |huge |really a )?fans? of\s+" + _OBJ,
       _b_likes(True)),
    _r("like", "love like enjoy adore loves likes enjoys adores loved enjoyed adored liked",
       r"\b" + _SUBJ + r"(?:'ve|ve| have)?\s+" + _ADV
       + r"(?P<verb>loved|enjoyed|adored|liked|love|like|enjoy|adore)s?\s+"
       r"(?!it\b|that\b|(?:this|these)\b(?! (?!" + _REACTION_NOUNS + r")[a-z]{3,}\b)|those\b|"
       r"how\b|what\b|when\b|your\b|you\b|the way\b|hearing\b|seeing\b|them\b)" + _OBJ,
       _b_likes(False)),
    _r("miss_doing", "miss",
       r"\b(?:(?:i|we)\s+" + _ADV + r"|^(?:(?:and|so|oh|yeah|really|honestly)[,\s]+)*)"
       r"(?:really |so |truly |)miss\s+(?P<obj>(?P<ger>[a-z]+ing)\b[^.!?;]*)",
       lambda m, ctx: [] if m.group("ger") in _ING_NOT_GERUND | (_NOT_ACTIVITY - {"being"})
       else _b_likes(False)(m, ctx)),
    _r("off_to", "off",
       r"\b" + _SUBJ + r"(?:'m|m| am|'re| are)\s+(?:just |now |)off to "
       r"(?:go |do (?:some |a bit of |)|practi[cs]e (?:some |)|"
       r"play (?:some |a (?:bit|round) of |)|)"
       r"(?P<obj>(?P<ger>[a-z]+(?:ing|do|ga|bo|is|ball|ess|ey|ts))\b[^.!?;]*)",
       lambda m, ctx: [_Hit(FactType.FACT, _subject(m), "hobby", m.group("ger"), C_STATED, "")]
       if not m.group("ger").endswith("ing") else _b_hobby_or_activity(C_STATED)(m, ctx)),
    _r("their_likes", "my our",
       r"\b(?:my|our) (?P<who>(?:two |three |little |)(?:kids|children|son|daughter|sons|"
       r"daughters|wife|husband|partner|family|girlfriend|boyfriend|dog|dogs|cat|cats|pups|"
       r"puppy|family|parents|mom|dad|brother|sister|grandkids))\s+(?:really |absolutely |"
       r"totally |both |all |just |also )*(?P<verb>loves?|likes?|enjoys?|adores?|hates?)\s+"
       r"(?!it\b|that\b|this\b|them\b)" + _OBJ, _b_their_likes),
    _r("likes_multi", "mag liebe hasse j'aime j'adore déteste gusta gustan encanta "
       "encantan odio gosto adoro odeio",
       r"\b(?P<verb>ich mag|ich liebe|ich hasse|j'aime|j'adore|je déteste|je n'aime pas|"
       r"me gustan?|me encantan?|odio|eu gosto de|gosto de|eu adoro|adoro|odeio|"
       r"no me gusta)\s+(?:les |la |le |l'|los |las |el |as |os |a |o |den |die |das )?"
       + _OBJ,
       lambda m, ctx: _simple(
           FactType.PREFERENCE,
           "dislikes" if re.match(r"(?:ich hasse|je déteste|je n'aime|odio|odeio|no me)",
                                  m.group("verb")) else "likes")(m, ctx)),
    # ---------------------------------------------------------- work / place / identity
    _r("work_at", "work working works",
       r"\b" + _SUBJ + r"(?:'m| am|'ve been|'re| are| have been)?\s+" + _ADV
       + r"(?:work|working|works)(?: full[- ]time| part[- ]time| remotely)?\s+"
       r"(?:(?:at|for) (?P<org>[^.!?;]+?)(?:\s+as\s+(?P<role>[^.!?;,]+))?|"
       r"as (?:an? )?(?P<role2>[^.!?;,]+?)(?:\s+(?:at|for)\s+(?P<org2>[^.!?;,]+))?)"
       r"(?=$|[.!?;,]|\s+(?:and|but|since|for|in|on|with)\b)",
       lambda m, ctx: _b_work_any(m, ctx)),
    _r("work_multi", "arbeite travaille trabajo trabalho",
       r"\b(?:ich arbeite|je travaille|trabajo|trabalho|eu trabalho)\s+"
       r"(?:(?:bei|chez|en|para|na|no|em|pour|für) (?P<org>[^.!?;]+?)"
       r"(?:\s+(?:als|comme|como) (?P<role>[^.!?;,]+))?|"
       r"(?:als|comme|como) (?P<role2>[^.!?;,]+?)(?:\s+(?:bei|chez|en|na|no|em) "
       r"(?P<org2>[^.!?;,]+))?)(?=$|[.!?;,]|\s+(?:und|et|y|e|seit|depuis|desde)\b)",
       lambda m, ctx: _b_work_any(m, ctx)),
    _r("work_with_tool", "work code develop trabalho trabajo arbeite arbeiten travaille "
       "travaillons",
       r"\b(?:(?P<subj>i|we) (?:mostly |mainly |primarily |)(?:work|code|develop) (?:with|in)|"
       r"(?:eu )?trabalho com|trabajo con|ich arbeite mit|wir arbeiten mit|je travaille avec|"
       r"nous travaillons avec)\s+(?P<obj>[^.!?;,]+)", _b_use),
    _r("i_lead", "lead manage head",
       r"\b(?P<subj>i)\s+" + _ADV + r"(?P<verb>lead|manage|head)\s+"
       r"(?P<obj>(?:the |our |a |an |my )?[\w -]{2,40}? (?:team|squad|group|department|"
       r"division|unit|org|organi[sz]ation|practice|office|lab))\b", _b_i_lead),
    _r("i_maintain", "maintain own",
       r"\b(?P<subj>i|we)\s+" + _ADV + r"(?P<verb>maintain|own)\s+"
       r"(?P<obj>(?:the|our|my|all|most) [^.!?;]+)", _b_maintain),
    _r("member_team", "on in part",
       r"\b(?P<subj>i)(?:'m| am)\s+(?:now |currently |also |still )?(?:on|in|part of) "
       r"(?:the |our |a )(?P<obj>[\w -]{2,40}? (?:team|squad|crew|department|committee|board))\b",
       _simple(FactType.FACT, "member_of")),
    _r("job_is", "job occupation profession",
       r"\bmy (?:job|occupation|profession|day job)(?: title)? is (?:being )?(?:an? )?"
       + _OBJ_SHORT, _simple(FactType.FACT, "works_as")),
    _r("i_am_a", "i'm im am we're are",
       r"\b(?:" + _IM + r"|" + _WEARE + r")\s+(?:(?:now|currently|also|actually|still|"
       r"proudly|officially|finally)\s+)*(?:an? |the )(?P<obj>[^.!?;,]{2,60})", _b_i_am_a),
    _r("team_is_org", "we're are sind sommes somos",
       r"\b(?:we're|we are|wir sind|nous sommes|somos|nós somos)\s+(?:(?:now|currently|also|still|"
       r"just)\s+)*(?:an? |une? |ein |eine |una? |uma? )(?P<obj>[^.!?;]{2,120})", _b_team_is_org),
    _r("team_develops", "develop build sell développons développe concevons entwickeln "
       "entwickelt bauen desarrollamos desarrolla desenvolvemos desenvolve",
       r"\b(?P<verb>(?:we|our team|our company) (?:develop|build|sell)s?|(?:nous|notre équipe|"
       r"notre entreprise|notre société) (?:développons|développe|concevons|conçoit)|"
       r"(?:wir|unser team|unsere firma) (?:entwickeln|entwickelt|bauen|baut)|"
       r"nuestro equipo (?:desarrolla|fabrica)|(?:nosotros )?(?:desarrollamos|fabricamos)|"
       r"(?:nosso time|nossa equipe|nossa empresa) (?:desenvolve|fabrica)|"
       r"(?:nós )?(?:desenvolvemos|fabricamos))\s+(?P<obj>[^.!?;]+)", _b_team_activity),
    _r("use_product_for", "use using utilisons utilise nutzen nutze verwenden usamos uso "
       "utilizamos utilizo",
       r"\b(?:(?:i|we) (?:use|are using|'re using)|nous utilisons|j'utilise|wir nutzen|"
       r"wir verwenden|ich nutze|usamos|uso|utilizamos|utilizo)\s+(?:your|this|the|votre|ce|"
       r"cet|cette|euer|eure|ihr|ihre|su|tu|vuestra|vuestro|sua|seu|o|a|el|la)\s+"
       r"(?:product|app|application|tool|platform|service|software|system|outil|produit|"
       r"logiciel|plateforme|produkt|plattform|dienst|herramienta|producto|aplicación|"
       r"plataforma|servicio|ferramenta|produto|aplicativo|serviço|sistema)\s+"
       r"(?:(?:mainly|mostly|primarily|principalement|surtout|hauptsächlich|vor allem|"
       r"principalmente|sobre todo)\s+)?(?P<prep>to|for|pour|für|um|para|zum|zur)\s+"
       r"(?P<obj>[^.!?;]+)",
       lambda m, ctx: [
           _Hit(h.type, h.subject, h.predicate,
                h.object.replace(f"product {m.group('prep')} ",
                                 "product to " if m.group("prep") in ("to", "um")
                                 else "product for ", 1), h.confidence, h.rule)
           for h in _b_use_for(m, ctx)
       ]),
    _r("team_practice", "follow follows practice practise",
       r"\b(?:(?:the|our|my) (?:team|company|org|department|squad)|we) (?:strictly |mostly |"
       r"always |)(?:follows?|practi[cs]es?|works? with|sticks? to|adheres? to)\s+"
       r"(?P<obj>[^.!?;]+)", _b_practice),
    _r("team_size", "team company firm office startup department group employees staff "
       "people engineers",
       r"\b(?:(?:our|the) (?:team|company|firm|office|startup|department|group|agency|shop) "
       r"(?:is|has|consists of|is made up of|counts)|we(?:'re| are) a (?:team|company|firm|"
       r"group|startup) of|we (?:have|employ))\s+(?P<obj>(?:" + _COUNT_WORDS + r")\s+"
       r"(?:people|persons|employees|staff|engineers|developers|members|folks|seats|users|"
       r"full-time employees|ftes?)\b[^.!?;]*)", _b_team_size),
    _r("as_a_job", "as",
       r"^(?:and |but |so |well )?as an? (?P<obj>[\w -]{2,40}?)\s*,\s*(?:i|we)\b", _b_as_a),
    _r("i_am_adj", "i'm im am we're are",
       r"\b(?P<subj>i|we)(?:'m|m| am|'re| are)\s+(?:(?:now|currently|also|actually|still|"
       r"proudly|officially|finally|happily|strictly|fully|mostly|openly)\s+)*"
       r"(?P<obj>(?:a )?(?P<adj>[a-z-]+))\b(?! (?:about|of|to|with|for|that|when)\b)",
       _b_i_am_adj),
    _r("diet_no_eat", "eat have drink touch consume esse trinke essen trinken mange bois mangeons "
       "buvons como bebo comemos bebemos",
       _DIET_NEG_RE.pattern, lambda m, ctx: _b_diet_neg(m, ctx)),
    _r("diet_multi", "bin suis soy sou vegetarier vegetarierin veganer",
       r"\b(?:ich bin|je suis|soy|sou|eu sou)\s+(?P<obj>vegetarier(?:in)?|veganer(?:in)?|"
       r"vegan[aoe]?|végétarien(?:ne)?|végane?|vegetarian[oa])\b",
       _simple(FactType.FACT, "diet")),
    _r("lives_in", "live living lived moved relocated based reside",
       r"\b" + _SUBJ + r"(?:'ve| have)?\s+" + _ADV
       + r"(?P<verb>live|living|lived|moved|relocated|am based|'m based|are based|"
       r"'re based|reside)\s+(?:in|to|out to|over to|near|outside)\s+"
       r"(?P<obj>[^.!?;,]+)", _b_lives),
    _r("lives_in_multi", "wohne lebe wohnen leben j'habite habite habitons vis vivons vivo "
       "vivimos moro moramos vivemos",
       r"\b(?:ich wohne|ich lebe|wir wohnen|wir leben|j'habite|nous habitons|je vis|nous vivons|"
       r"vivo|vivimos|moro|moramos|vivemos)(?:\s+(?!in\b|à\b|au\b|en\b|em\b|no\b|na\b)"
       r"[^\W\d_][\w-]*|\s+\d+){0,4}?\s+"
       r"(?:in|à|au|en|em|no|na|a)\s+(?P<obj>[^.!?;,]+)", _b_lives),
    _r("lives_moved_multi", "gezogen umgezogen déménagé mudé mudei",
       r"\b(?:(?:ich bin|wir sind)(?: [^\W\d_]+){0,3}? nach (?P<obj>[^.!?;,]+?) (?:um)?gezogen|"
       r"(?:j'ai|nous avons) déménagé à (?P<obj2>[^.!?;,]+)|"
       r"me mudé a (?P<obj3>[^.!?;,]+)|me mudei para (?P<obj4>[^.!?;,]+))",
       lambda m, ctx: _b_lives_alt(m, ctx)),
    _r("relative_lives", "lives living",
       r"\bmy (?P<who>" + _RELATIVE_ALT + r")(?: (?P<name>[^\W\d_][\w'-]*))?,? "
       r"(?:now |still |currently )?(?:lives|is living) (?:in|near|outside) "
       r"(?P<obj>[^.!?;,]+)", _b_relative_lives),
    _r("team_based", "headquarters hq office siège bureau sede oficina firmensitz büro "
       "hauptsitz escritório",
       r"\b(?P<subj>our|notre|nuestra|nuestro|unser|unsere|nossa|nosso) (?:headquarters|hq|"
       r"head office|main office|office|siège|bureau|sede|oficina|firmensitz|büro|hauptsitz|"
       r"escritório) (?:is|are|est|está|ist|fica|queda) (?:located |based |situé |basé |)"
       r"(?:in|at|à|au|en|em|no|na|in der|im)\s+(?P<obj>[^.!?;,]+)",
       lambda m, ctx: [_Hit(FactType.FACT, "team", h.predicate, h.object, h.confidence, "")
                       for h in _b_lives(m, ctx)]),
    _r("comes_from", "from grew raised",
       r"\b(?:" + _IM + r" (?:originally )?from|i (?:grew up|was raised|was born) in|"
       r"i come from)\s+(?P<obj>[^.!?;,]+)", _b_from),
    _r("timezone", "timezone zone time",
       r"\b(?:my time ?zone is |i(?:'m| am) (?:in|on) (?:the )?)(?P<obj>(?:utc|gmt)(?:\s?[+-]\s?"
       r"\d{1,2}(?::\d\d)?)?|(?:cet|cest|eet|eest|wet|west|bst|ist|pst|pdt|mst|mdt|cst|cdt|"
       r"est|edt|jst|kst|aest|aedt|awst|nzst|nzdt|hst|akst|sgt|hkt|brt|msk)\b|"
       r"(?:pacific|eastern|central|mountain|atlantic|alaska|hawaii|greenwich|central european|"
       r"eastern european|western european|british summer|india|japan|china|australian \w+)"
       r" (?:standard |daylight |summer )?time|[a-z]+/[a-z_]+)(?: ?time ?zone)?",
       _b_timezone),
    _r("speaks", "speak speaks spreche parle hablo falo fluent native",
       r"\b(?:(?P<subj>i|we) (?:also |can |fluently )*speak|i'm fluent in|i am fluent in|"
       r"ich spreche|je parle|hablo|eu falo|falo)\s+(?P<obj>[^.!?;]{2,80})", _b_speaks),
    _r("native_speaker", "native",
       r"\b" + _IM + r" a native (?P<obj>\w+) speaker", _b_speaks),
    # ---------------------------------------------------------- tools / stack / deploy
    _r("deploy_with", "deploy deploys deployed ship deployments",
       r"\b" + _SUBJ + r"(?:'re| are)?\s+" + _ADV
       + r"(?:deploy|deploying|ship|shipping)(?: \w+)?\s+(?:with|via|using|through|on|to)\s+"
       r"(?P<obj>[^.!?;,]+)", _b_deploy),
    _r("deploy_our", "deployments deploys pipeline",
       r"\b(?P<subj>our|my) (?:deploy(?:ment)?s?|ci|ci/cd|pipelines?)(?: pipeline)? "
       r"(?:go|goes|run|runs|is|are) (?:through|on|via|with)\s+(?P<obj>[^.!?;,]+)",
       _b_deploy),
    _r("stack", "stack",
       r"\b(?P<subj>our|my) (?:tech |technology |software |main |current )?stack "
       r"(?:is|=|consists of|includes)\s+(?P<obj>[^.!?;]+)", _b_stack),
    _r("use_as", "use using rely",
       r"\b" + _SUBJ + r"(?:'re| are|'m| am)?\s+" + _ADV + r"(?:use|using|rely on)\s+"
       r"(?P<obj>[^.!?;,]+?)\s+(?:as (?:my|our|the|a) (?P<cat>[a-z/ -]{2,25}?)|"
       r"for (?:my|our) (?P<cat2>[a-z/ -]{2,25}?))(?=$|[.!?;,]|\s+(?:and|but|because)\b)",
       lambda m, ctx: _b_use_cat(m, ctx)),
    _r("my_category_is", "is are",
       r"\b(?P<subj>our|my) (?P<cat>[a-z/ -]{2,40}?) (?:is|are|is now|is still|has always been|"
       r"will be) (?!not\b|a\b|an\b)(?P<obj>[^.!?;,]+)", _b_my_category),
    _r("contact_role", "is",
       r"\b(?P<subj>our|my) (?P<role>" + _CONTACT_ROLES + r") (?:is|is now|will be|has been)\s+"
       # a title's full stop is read as \u2024 (extract._abbreviation_dots): "Dr. Okafor"
       r"(?P<obj>[^\W\d_][\w'\u2024-]*(?: [^\W\d_][\w'-]*){0,2})", _b_contact),
    _r("team_runs_on", "runs run hosted deployed lives live sits",
       r"\b(?P<subj>our|my) [\w -]{2,40}? (?:runs|run|is hosted|are hosted|is deployed|"
       r"are deployed|lives|live|sits|sit) (?:in|on|at)\s+(?P<obj>[^.!?;,]+)", _b_team_runs_on),
    _r("on_plan", "plan tier subscription license licence edition package plano forfait abo "
       "abonnement jahresabo",
       r"\b(?:(?:i|we)(?:'m|'re| am| are) (?:currently |now |still )?on|(?:i|we) (?:pay for|use|"
       r"are using|'re using|subscribe to|subscribed to|upgraded to|signed up for)|usamos|uso|"
       r"utilisons|wir nutzen|wir haben|temos|tenemos|estamos en|estamos no)\s+(?P<obj>[^.!?;,]+)",
       _b_plan_tier),
    _r("via_tool", "through via using",
       r"\b(?P<subj>we|i|our|my)\b[^.!?;]{0,80}?\s(?:through|via|using) (?:the |our |a |an |my )?"
       r"(?P<obj>[^.!?;,]{2,60})", _b_via_tool),
    _r("on_tool", "on running",
       r"\b" + _SUBJ + r"(?:'m|'re| am| are)\s+" + _ADV + r"(?:on|running)\s+"
       r"(?P<obj>[^.!?;,]+)", _b_use),
    _r("use", "use using write run code program work",
       r"\b" + _SUBJ + r"(?:'re| are|'m| am)?\s+" + _ADV + r"(?:use|using|work in|code in|"
       r"program in|write|run|are on|'re on|am on|'m on)\s+(?P<obj>[^.!?;,]+)", _b_use),
    _r("use_multi", "nutze verwende nutzen verwenden utilise utilisons uso usamos",
       r"\b(?:ich nutze|ich verwende|wir nutzen|wir verwenden|j'utilise|nous utilisons|"
       r"uso|usamos|eu uso)\s+(?P<obj>[^.!?;,]+)", _b_use),
)
