"""Rule builders for standing requests, teams, contacts, relatives, corrections,
diets, multi-language events and the work/place/tool/pet/marriage rules."""

from __future__ import annotations

import re
from datetime import datetime

from memgate.core.events import FactType
from memgate.stages.extract_build_events import _YOU_RE, _b_event
from memgate.stages.extract_build_personal import _b_instruction
from memgate.stages.extract_dates import parse_event_date
from memgate.stages.extract_lexicon import (
    _CATEGORY_ALIASES,
    _HOBBY_GERUNDS,
    _HOBBY_NOUNS,
    _MONTHS,
    _NOT_ACTIVITY,
    _RELATIVE_EN,
    _TOOL_RE,
    C_STATED,
    _ws,
)
from memgate.stages.extract_lookup import _language, _pref_topic, _tool_predicate
from memgate.stages.extract_person_name import never_a_name, whole_name
from memgate.stages.extract_rule_kit import _Ctx, _Hit, _subject
from memgate.stages.extract_text import _BAD_OBJ_START, _STOP, _clean, _meaningful

# ---------------------------------------------------------------- builders (team, support, multi)

_STANDING_RE = re.compile(
    r"\b(?:always|never|only|rather than|instead of|by default|in general|generally|each time|"
    r"every time|whenever|all (?:my|our|the)|any (?:of )?(?:my|our)|from now on|going forward|"
    r"toujours|jamais|uniquement|seulement|désormais|immer|nie|niemals|nur|ausschließlich|"
    r"grundsätzlich|siempre|nunca|solo|sólo|solamente|únicamente|sempre|apenas|somente|jamás)\b"
)
_ONE_OFF_RE = re.compile(
    r"\b(?:this|these|those|it|that one|today|tonight|tomorrow|now|right away|asap|"
    r"ce|cette|ces|dieses|diese|diesen|heute|este|esta|estos|hoy|hoje|esse|essa)\b"
)
_STYLE_TOPICS = frozenset({"prefers:answer_style", "prefers:answer_format", "prefers:indentation",
                           "prefers:naming_style"})


def _b_polite_standing(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"please contact me by email rather than phone": a standing request, not a one-off."""
    obj = _clean(ctx.text(m, "obj"))
    low = obj.lower()
    if not obj or not _meaningful(obj, 2):
        return []
    standing = _STANDING_RE.search(ctx.low) is not None
    if _ONE_OFF_RE.search(low) and not standing:
        return []
    if not standing and _pref_topic(obj) not in _STYLE_TOPICS:
        return []
    return _b_instruction(m, ctx)


_IMPERATIVE_VERBS = (
    r"use|copy|cc|include|add|keep|make|put|send|write|format|call|address|answer|reply|"
    r"respond|mention|explain|skip|avoid|check|ask|let|give|show|stick|follow|tag|notify|"
    r"contact|loop|attach|mark|label|sign|start|end|prefix|wrap|comment|return|output|"
    r"translate|omit|refer|cite|link|summari[sz]e|schedule|book|assume|default|prefer|"
    r"leave|remove|double-check|confirm|put|list|sort|name|stop|don't|do not|never|always|please"
)


def _b_when_you(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"When you write SQL for me, use uppercase keywords": an instruction with its condition."""
    obj = _clean(ctx.orig[m.start():m.end("obj")])
    if not obj or not _meaningful(obj, 3):
        return []
    return [_Hit(FactType.INSTRUCTION, "user", "instruction", obj, C_STATED, "")]


def _category_predicate(cat: str, obj: str) -> str:
    """The predicate for "<category> is <obj>": the named category, else the tool lexicon."""
    c = re.sub(r"^(?:main|primary|default|current|usual|preferred|go-to|production|prod|new|"
               r"only|daily|everyday|work|personal|team's|company's|internal)\s+", "",
               cat.strip().lower())
    cat_key = _CATEGORY_ALIASES.get(c, "")
    if cat_key:
        return "deploys_with" if cat_key == "deploy" else f"uses_tool:{cat_key}"
    return _tool_predicate(obj)


def _b_my_category(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"our main database is Postgres 15", "my editor is neovim"."""
    raw = ctx.text(m, "obj").strip().lower()
    obj = _clean(ctx.text(m, "obj"))
    if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
        return []
    obj = re.sub(r"(?i)^(?:still|now|currently|actually)\s+", "", obj)
    pred = _category_predicate(m.group("cat"), obj)
    if not pred or len(obj.split()) > 6:
        return []
    if not _CATEGORY_ALIASES.get(re.sub(r"^\S+\s+", "", m.group("cat").strip())) and \
            not _CATEGORY_ALIASES.get(m.group("cat").strip()):
        # an unnamed category ("our X is Postgres 15"): the value must be the tool itself
        tm = _TOOL_RE.match(raw)
        if tm is None or len(obj.split()) > 3:
            return []
    return [_Hit(FactType.FACT, _subject(m), pred, obj, C_STATED, "")]


_CONTACT_ROLES = (
    r"account admin|account administrator|account manager|admin|administrator|it admin|"
    r"billing contact|main contact|primary contact|point of contact|contact person|contact|"
    r"manager|boss|supervisor|team lead|tech lead|lead|cto|ceo|cfo|coo|owner|accountant|"
    r"doctor|gp|dentist|therapist|landlord|lawyer|mentor|coach|vet|assistant|champion|"
    r"project manager|product owner|product manager|hr contact|hr manager|office manager"
)


def _b_contact(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"Our account admin is Lena Ortiz": a named person in a role (single-valued per role)."""
    name = ctx.text(m, "obj").strip()
    words = name.split()
    if not words or not all(w[:1].isupper() for w in words) or name.lower() in _STOP:
        return []
    role = re.sub(r"\W+", "_", m.group("role").strip().lower()).strip("_")
    return [_Hit(FactType.FACT, _subject(m), f"contact:{role}", name, C_STATED, "")]

_CORRECTION_WORDS_RE = re.compile(
    r"\b(?:actually|not|correction|sorry|eigentlich|nicht|korrektur|en fait|pas|no|não|"
    r"en realidad|na verdade|corrección|correção)\b"
)


def _b_relative_name(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"my brother is called Lukas", "Mein Bruder heißt Lukas": the relative's name."""
    name = ctx.text(m, "obj").strip(" .,!?;:'\"")
    if not name or not name[:1].isupper() or name.lower() in _STOP or never_a_name(name):
        return []
    # "Mein Bruder heißt Lukas Weber": the whole name, not its first word
    name = whole_name(ctx.orig, m.start("obj"), m.start("obj") + len(name))
    who = _RELATIVE_EN[m.group("who")]
    corr = _CORRECTION_WORDS_RE.search(ctx.low) is not None
    return [_Hit(FactType.CORRECTION if corr else FactType.FACT, f"user's {who}", "name_is",
                 name, C_STATED, "")]


def _b_relative_lives(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"My sister Ana lives in Madrid": where a relative lives (and their name)."""
    who = _RELATIVE_EN[m.group("who")]
    obj = _clean(ctx.text(m, "obj"))
    obj = re.sub(r"(?i)\s+(?:with|since|for|now|and)\b.*$", "", obj)
    if not obj or not obj[:1].isupper() or not _meaningful(obj):
        return []
    out = [_Hit(FactType.FACT, f"user's {who}", "lives_in", obj, C_STATED, "")]
    name = ctx.text(m, "name").strip()
    if name and name[:1].isupper():
        out.append(_Hit(FactType.FACT, f"user's {who}", "name_is", name, C_STATED, ""))
    return out


def _b_switch_to(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"I switched my editor to Neovim last week", "we've moved to GitLab CI"."""
    new = _clean(ctx.text(m, "new"))
    if not new or _BAD_OBJ_START.match(new.lower()) or not _meaningful(new):
        return []
    gd = m.groupdict()
    cat = gd.get("cat") or ""
    pred = _category_predicate(cat, new) if cat else _tool_predicate(new)
    subj = _subject(m)
    if not pred:
        return []
    found = ctx.date()
    return [_Hit(FactType.CORRECTION, subj, pred, new, C_STATED, "",
                 found[0] if found else None)]


def _b_team_runs_on(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"Our staging environment runs in AWS eu-central-1": a known tool only."""
    obj = _clean(ctx.text(m, "obj"))
    obj = re.split(r"\s+and\s+", obj)[0]
    pred = _tool_predicate(obj)
    if not obj or not pred:
        return []
    return [_Hit(FactType.FACT, _subject(m), pred, obj, C_STATED, "")]


_PLAN_RE = re.compile(
    r"^(?:the |el |la |o |a |le |das |den |our |my |un |une |uma |um |una )?"
    r"(?P<plan>[\w+-]+(?: [\w+-]+)? (?:plan|tier|subscription|license|licence|edition|package)|"
    r"(?:plan|plano|forfait|tarif|abo|abonnement|tier) [\w+-]+|[\w-]*abo)\b",
    re.IGNORECASE,
)


def _b_plan_tier(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"We're on the Business plan", "usamos el plan Pro": the subscription in use."""
    pm = _PLAN_RE.match(_clean(ctx.text(m, "obj")))
    if pm is None:
        return []
    subj = "team" if re.search(r"\b(?:we|we're|our|usamos|utilisons|nutzen|wir|nous)\b",
                               ctx.low) else "user"
    return [_Hit(FactType.FACT, subj, "uses_tool:plan", pm.group("plan"), C_STATED, "")]


_ORG_HEADS = _ws(
    """agency firm company startup start-up business clinic practice bakery bakeries shop store
    restaurant cafe café studio nonprofit non-profit charity school lab hospital office chain
    consultancy brand manufacturer retailer distributor wholesaler cooperative co-op
    partnership franchise hotel bar gym salon
    büro firma agentur unternehmen praxis klinik bäckerei laden betrieb kanzlei start-up
    verein agence entreprise société cabinet clinique boulangerie magasin boutique
    association empresa agencia clínica cadena panadería panaderías tienda restaurante
    despacho consultora agência clínica padaria padarias loja escritório rede"""
)


def _b_team_is_org(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"We're a small agency in Lyon", "Wir sind ein Steuerbüro in Stuttgart"."""
    obj = _clean(ctx.text(m, "obj"))
    obj = re.split(r"(?i)\s+(?:and|und|et|y|e)\s+(?:we|wir|nous|nosotros|nós|usamos|"
                   r"utilisons|nutzen)\b", obj)[0]
    words = obj.lower().split()
    if not words or len(words) > 14:
        return []
    head = words[: 3]
    if not any(w in _ORG_HEADS or w.endswith(("büro", "firma", "agentur", "praxis", "kanzlei"))
               for w in head):
        return []
    return [_Hit(FactType.FACT, "team", "works_as", obj, C_STATED, "")]


def _b_team_activity(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"Notre équipe développe une application mobile", "we build booking software"."""
    obj = _clean(ctx.orig[m.start("verb"):m.end("obj")])
    if not obj or not _meaningful(obj, 2) or _YOU_RE.search(obj.lower()):
        return []
    return [_Hit(FactType.FACT, "team", "activity", obj, C_STATED, "")]


def _b_via_tool(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"We process orders through the Shopify connector": a known tool, named first."""
    obj = _clean(ctx.text(m, "obj"))
    tm = _TOOL_RE.match(obj.lower())
    if tm is None:
        return []
    tool = obj[: tm.end(1)]
    kind = re.match(r"\s+(connector|integration|app|plugin|api|pipeline|account|instance|"
                    r"cluster|workspace)\b", obj[tm.end(1):], re.IGNORECASE)
    if kind is not None:
        tool += kind.group(0)
    return [_Hit(FactType.FACT, _subject(m), _tool_predicate(tool), tool, C_STATED, "")]


def _b_use_for(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"We use your product mainly to invoice our clients": what the product is used for."""
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _meaningful(obj):
        return []
    subj = "team" if re.search(r"\b(?:we|nous|wir|usamos|utilisons|nutzen|nosotros|nós)\b",
                               ctx.low) else "user"
    return [_Hit(FactType.FACT, subj, "activity", f"uses the product {m.group('prep')} {obj}",
                 C_STATED, "")]


def _b_answer_language_like(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"I'd like all communication in British English"."""
    obj = _clean(ctx.text(m, "obj"))
    words = obj.split()
    if not words or not _language(words[-1]) or len(words) > 3:
        return []
    return [_Hit(FactType.PREFERENCE, "user", "answer_language", obj, C_STATED, "")]


_WRONG_THING: tuple[tuple[str, str], ...] = (
    (r"company|company name|employer|firm|organi[sz]ation", "works_at"),
    (r"name|first name|last name|surname", "name_is"),
    (r"city|address|town|location", "lives_in"),
    (r"time ?zone", "timezone"),
    (r"job title|title|role|job", "works_as"),
)


def _b_wrong_thing(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"I gave you the wrong company name earlier: it's Harbor Logistics, not ..."."""
    thing = m.group("thing").strip().lower()
    new = _clean(ctx.text(m, "new"))
    if not new or not _meaningful(new):
        return []
    for rx, pred in _WRONG_THING:
        if re.fullmatch(rf"(?:(?:my|our|the) )?(?:{rx})", thing):
            return [_Hit(FactType.CORRECTION, "user", pred, new, C_STATED, "")]
    return [_Hit(FactType.CORRECTION, "user", "note", f"{thing} is {new}", C_STATED, "")]


def _b_told_you_actually(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"I told you my flight was on Friday, but it's actually on Saturday"."""
    what = _clean(ctx.text(m, "what"))
    new = _clean(ctx.text(m, "new"))
    if not what or not new or not _meaningful(what) or not _meaningful(new):
        return []
    verb = m.group("verb")
    verb = {"was": "is", "were": "are"}.get(verb, verb)
    return [_Hit(FactType.CORRECTION, "user", "note", f"{what} {verb} {new}", C_STATED, "")]


def _b_decided_multi(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _meaningful(obj, 2):
        return []
    team = re.match(r"(?:wir|nous|on|hemos|decidimos|nosotros|resolvemos|nós)\b",
                    m.group(0)) is not None
    return [_Hit(FactType.FACT, "team" if team else "user", "decided", obj, C_STATED, "")]


def _b_married_multi(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    state = "engaged" if re.search(r"fianc|verlobt|compromet|noiv", m.group(0)) else "married"
    when = _multi_date(ctx)
    return [_Hit(FactType.FACT, "user", "relationship_status", state, C_STATED, "", when),
            _Hit(FactType.EVENT, "user", "event", f"got {state}", C_STATED, "", when)]


_DIET_ITEMS = (
    r"meat|red meat|fish|pork|beef|chicken|dairy|gluten|eggs|sugar|animal products|seafood|"
    r"shellfish|alcohol|booze|caffeine|coffee|soda|milk|wine|beer|"
    r"fleisch|alkohol|kaffee|milch|fisch|zucker|schweinefleisch|"
    r"viande|alcool|café|lait|poisson|porc|sucre|"
    r"carne|alcohol|café|leche|pescado|cerdo|azúcar|álcool|leite|peixe|porco|açúcar"
)
_DIET_NEG_RE = re.compile(
    r"\b(?:(?P<subj>i|we) (?:don't|do not|never|no longer|can't|cannot|can not) "
    r"(?:eat|have|drink|touch|consume)|(?P<subj_de>ich|wir) (?:esse|trinke|essen|trinken) "
    r"(?:keinen|keine|kein)|(?P<subj_fr>je|nous) ne (?:mange|bois|mangeons|buvons) (?:pas|plus|"
    r"jamais) (?:de |d'|du )?|(?:no|nunca) (?:como|bebo|comemos|bebemos)|(?:não|nunca) "
    r"(?:como|bebo|comemos|bebemos))\s*(?P<obj>" + _DIET_ITEMS + r")\b"
    r"(?=\s*(?:[,.;:!?]|$)|\s+(?:at all|anymore|any more|so|and|because|since|or|nor|either|"
    r"nur|oder|und|ni|mais|ou|et|pero|ni|ou|e|y|nunca|jamais|mehr|plus|más|mais)\b)"
    r"|\b(?P<subj2>i|we) (?:don't|do not|never) drink(?P<bare>\s*(?:[,.;!]|$|\s+(?:at all|"
    r"anymore|so|and|because|since)\b))"
)


def _b_diet_neg(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    item = "alcohol" if m.group("bare") is not None else ctx.text(m, "obj").strip()
    head = m.group(0).lower()
    if re.match(r"(?:ich|wir)\b", head):
        neg = "kein"
    elif re.match(r"(?:je|nous)\b", head):
        neg = "pas de"
    elif head.startswith("não"):
        neg = "sem"
    elif re.match(r"(?:no|nunca)\b", head):
        neg = "sin"
    else:
        neg = "no"
    subj = "team" if re.match(r"(?:we|wir|nous)\b", head) else "user"
    return [_Hit(FactType.FACT, subj, "diet", f"{neg} {item}", C_STATED, "")]


_MONTH_NAMES = [m for m in _MONTHS if len(m) > 3 or m == "may"][:12]


def _months(names: str) -> list[str]:
    """Twelve month names, January first."""
    out = names.split()
    assert len(out) == 12
    return out


_PAST_ADV_MULTI: dict[str, str] = {
    "el mes pasado": "last month", "la semana pasada": "last week", "el año pasado": "last year",
    "ayer": "yesterday", "anoche": "yesterday", "no mês passado": "last month",
    "o mês passado": "last month", "mês passado": "last month",
    "na semana passada": "last week", "semana passada": "last week",
    "no ano passado": "last year", "ano passado": "last year", "ontem": "yesterday",
    "letzte woche": "last week", "letzten monat": "last month", "letztes jahr": "last year",
    "gestern": "yesterday", "le mois dernier": "last month", "la semaine dernière": "last week",
    "l'année dernière": "last year", "l'an dernier": "last year", "hier": "yesterday",
    **{f"en {fr} dernier": f"last {en}" for fr, en in zip(_months(
        "janvier février mars avril mai juin juillet août septembre octobre novembre "
        "décembre"), _MONTH_NAMES, strict=True)},
    **{f"en {es} pasado": f"last {en}" for es, en in zip(_months(
        "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre "
        "diciembre"), _MONTH_NAMES, strict=True)},
    **{f"em {pt} passado": f"last {en}" for pt, en in zip(_months(
        "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro "
        "dezembro"), _MONTH_NAMES, strict=True)},
    **{f"im {de}": f"last {en}" for de, en in zip(_months(
        "januar februar märz april mai juni juli august september oktober november "
        "dezember"), _MONTH_NAMES, strict=True)},
}
_PAST_ADV_MULTI_RE = re.compile(
    r"(?<!\w)(?:" + "|".join(re.escape(k) for k in sorted(_PAST_ADV_MULTI, key=len, reverse=True))
    + r")(?!\w)"
)
_PAST_VERB_MULTI_RE = re.compile(
    r"\b(?:[a-zñç]{3,}(?:amos|imos)|(?:he|hemos) [a-z]+(?:ado|ido)|[a-zç]{3,}(?:ei)|"
    r"(?:ich habe|wir haben|ich bin|wir sind)\b.*\bge[a-zäöüß]+(?:t|en)|"
    r"(?:j'ai|nous avons|on a|je suis|nous sommes) [a-zéèêàç]+(?:é|ée|és|ées|i|is|it|u|us))\b"
)


def _multi_date(ctx: _Ctx) -> datetime | None:
    """The date of a German / French / Spanish / Portuguese "last month", "yesterday", ..."""
    adv = _PAST_ADV_MULTI_RE.search(ctx.low)
    found = parse_event_date(_PAST_ADV_MULTI[adv.group(0)], ctx.ts) if adv else None
    return found[0] if found else None


def _b_event_multi(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"El mes pasado abrimos una nueva tienda en Alicante": a dated first-person event."""
    adv = _PAST_ADV_MULTI_RE.search(ctx.low)
    verb = _PAST_VERB_MULTI_RE.search(ctx.low)
    if adv is None or verb is None:
        return []
    if adv.group(0) == "hier" and not re.match(r"(?:j'ai|nous|on|je)\b", verb.group(0)):
        return []  # German "hier" is "here"
    raw = ctx.orig[: adv.start()] + " " + ctx.orig[adv.end():]
    obj = _clean(re.sub(r"^\s*,?\s*", "", raw).strip(), comma=True)
    if not obj or not _meaningful(obj, 2):
        return []
    found = parse_event_date(_PAST_ADV_MULTI[adv.group(0)], ctx.ts)
    team = re.search(r"\b(?:[a-zñç]{3,}(?:amos|imos)|hemos|wir|nous|on a)\b", ctx.low)
    return [_Hit(FactType.EVENT, "team" if team else "user", "event", obj, C_STATED, "",
                 found[0] if found else None)]


_LEAD_NOUN = {"lead": "lead", "leads": "lead", "manage": "manager", "manages": "manager",
              "head": "head", "heads": "head", "run": "head", "runs": "head"}


def _b_i_lead(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"I lead the payments team" -> works_as "lead of the payments team"."""
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _meaningful(obj):
        return []
    return [_Hit(FactType.FACT, "user", "works_as", f"{_LEAD_NOUN[m.group('verb')]} of {obj}",
                 C_STATED, "")]


def _b_maintain(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"I maintain our deployment CLI": an ongoing responsibility."""
    obj = _clean(ctx.text(m, "obj"), comma=True)
    if not obj or not _meaningful(obj) or _YOU_RE.search(obj.lower()):
        return []
    verb = "maintains" if m.group("verb").startswith("maintain") else "owns"
    return [_Hit(FactType.FACT, _subject(m), "activity", f"{verb} {obj}", C_STATED, "")]


_PRACTICE_HEADS = re.compile(
    r"\b(?:development|workflow|process|methodology|scrum|kanban|agile|gitflow|git flow|"
    r"conventions?|style guide|guidelines?|standards?|semver|semantic versioning|versioning|"
    r"pep ?8|tdd|bdd|pair programming|code reviews?|reviews?|sprints?|releases?|"
    r"on-?call|rotation|stand-?ups?|retros?|practices?|principles?|policy|policies|rules?)\b"
)


def _b_practice(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"The team follows trunk-based development": a working practice the team keeps."""
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _PRACTICE_HEADS.search(obj.lower()) or len(obj.split()) > 10:
        return []
    return [_Hit(FactType.FACT, "team", "practice", obj, C_STATED, "")]


_COUNT_WORDS = (
    r"\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
    r"twenty|thirty|forty|fifty|a dozen|a hundred|about \d[\d,.]*|around \d[\d,.]*|"
    r"over \d[\d,.]*|roughly \d[\d,.]*|almost \d[\d,.]*|nearly \d[\d,.]*"
)


def _b_team_size(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"Our team is five people split between Lisbon and Warsaw"."""
    obj = _clean(ctx.text(m, "obj"))
    if not obj:
        return []
    return [_Hit(FactType.FACT, "team", "team_size", obj, C_STATED, "")]


def _b_relative_event(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"My daughter Mia started kindergarten this week": a dated event of a relative."""
    who = f"user's {_RELATIVE_EN[m.group('who')]}"
    return [_Hit(h.type, who, h.predicate, h.object, h.confidence, h.rule, h.valid_from)
            for h in _b_event(C_STATED, C_STATED, True)(m, ctx)]

def _b_work_any(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    out: list[_Hit] = []
    subj = _subject(m)
    gd = m.groupdict()
    org_g = "org" if gd.get("org") else "org2" if gd.get("org2") else ""
    role_g = "role" if gd.get("role") else "role2" if gd.get("role2") else ""
    if org_g:
        org = _clean(ctx.text(m, org_g))
        low = org.lower()
        if org and _meaningful(org) and not _BAD_OBJ_START.match(low) and not low.startswith(
            ("home", "the moment", "a while", "hours", "it", "myself", "me")
        ) and len(org.split()) <= 8:
            out.append(_Hit(FactType.FACT, subj, "works_at", org, C_STATED, ""))
    if role_g:
        role = _clean(ctx.text(m, role_g))
        role = re.sub(r"(?i)^(?:an?|une?|una?|ein|eine) ", "", role)
        if role and _meaningful(role) and len(role.split()) <= 5:
            out.append(_Hit(FactType.FACT, subj, "works_as", role, C_STATED, ""))
    return out


def _b_lives_alt(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    for g in ("obj", "obj2", "obj3", "obj4"):
        if m.group(g):
            obj = _clean(ctx.text(m, g))
            if obj:
                return [_Hit(FactType.FACT, "user", "lives_in", obj, C_STATED, "",
                             _multi_date(ctx))]
    return []


def _b_use_cat(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    hint = m.group("cat") or m.group("cat2") or ""
    if not obj or _BAD_OBJ_START.match(obj.lower()):
        return []
    pred = _tool_predicate(obj, hint) or _tool_predicate(obj)
    if not pred:
        slug = re.sub(r"[^a-z0-9]+", "_", hint.strip().lower()).strip("_")
        if not slug or slug in _STOP:
            return []
        pred = f"uses_tool:{slug}"
    return [_Hit(FactType.FACT, _subject(m), pred, obj, C_STATED, "")]


def _b_pet(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj:
        return []
    out = [_Hit(FactType.FACT, _subject(m), "has_pet", obj, C_STATED, "")]
    low = m.group(0).lower()
    if re.search(r"\b(?:adopted|rescued|got)\b", low):
        found = ctx.date()
        just = re.search(r"\b(?:just|recently|finally)\b", low) is not None
        if found is not None or just:
            verb = re.search(r"\b(adopted|rescued|got)\b", low)
            assert verb is not None
            out.append(_Hit(FactType.EVENT, _subject(m), "event", f"{verb.group(1)} {obj}",
                            C_STATED, "", found[0] if found else None))
    return out


def _b_married(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    state = m.group("obj")
    found = ctx.date()
    out = [_Hit(FactType.FACT, _subject(m), "relationship_status", state, C_STATED, "",
                found[0] if found else None)]
    out.append(_Hit(FactType.EVENT, _subject(m), "event", f"got {state}", C_STATED, "",
                    found[0] if found else None))
    return out


def _b_took_up(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj:
        return []
    ger = (m.group("ger") or "").lower()
    head = obj.split()[0].lower()
    if ger and ger not in _HOBBY_GERUNDS:
        if ger in _NOT_ACTIVITY or not _meaningful(obj):
            return []
        found = ctx.date()
        return [_Hit(FactType.EVENT, _subject(m), "event", f"started {obj}", C_STATED, "",
                     found[0] if found else None)]
    if head not in _HOBBY_GERUNDS and head not in _HOBBY_NOUNS:
        return []
    return [_Hit(FactType.FACT, _subject(m), "hobby", obj, C_STATED, "")]
