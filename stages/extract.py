"""Extract: turn a triaged user turn into zero or more typed candidate facts.

:class:`Extractor` is the interface every extractor implements (the production
one calls a small model; see the domain guide). :class:`RuleExtractor` is the
offline default: precompiled regular expressions over each sentence, no I/O,
no state between calls, the same output schema. Zero facts is the normal
outcome; a rule fires only on a first-person statement, a standing
instruction or a "remember that" request.

Pipeline per turn: only ``role == user`` turns are read. The text is split into
sentences (:func:`memgate.core.text.split_sentences`). A sentence is skipped when
it is session-only ("for this one", "just this time", "right now", "for now"; but
"I'm really into jazz right now" is a taste of these days and is read) or a
question (only the clauses before the question part of "I use vim, any tips?" are
read); clauses that are hypothetical ("what if", "suppose",
"imagine", "if I were", "would you") or uncertain ("not sure", "maybe",
"might", "probably") are dropped. "Can you remember that ...?" / "please
remember that ..." are unwrapped first and what follows is read as a statement.
The rules run in priority order; a rule whose match overlaps a span taken by an
earlier rule in the same sentence is ignored, and *fallback* rules (weak
inferences such as "my wife" implies a relationship) fire only when nothing
else did in the whole turn. The events narrated in one turn are one story told in
steps and become one ``event`` fact ("went to a craft fair; met a woodturner"), with
the first stated date. Facts with the same (predicate, normalised object) are merged,
and a turn yields at most :data:`MAX_FACTS_PER_TURN` facts (write amplification). A
sentence that opens with "Correction:" ("Korrektur:", ...) turns its facts into
corrections.

Values are normalised so that repeated statements share a value: trailing
courtesy ("..., please", "bitte", "por favor", "thanks") and time words that are
not part of the value ("now", "these days", "last week", "yesterday") are cut;
a cut date goes to ``valid_from``.

Retraction: "we no longer use Jenkins", "we don't use Jenkins anymore", "we
stopped using Jenkins", "I'm not vegetarian anymore", "please forget that I like
jazz" are read in their positive form ("we use Jenkins", ...) by the ordinary
rules, and each fact found is emitted as a correction with ``retracts=True``
(confidence 0.9, rationale ``retraction``): same subject and predicate, and for a
multi-valued predicate the same object, as the fact it withdraws; the resolver
closes that fact. "Ignore what I said about my editor" withdraws by topic (a tool
category, a diet, where I live, ...; otherwise a taste: likes and dislikes).
Trivia narrated as events ("I had lunch outside", "walked into a glass door")
and remarks about the conversation itself ("last time I chatted with you we
talked about ...", "we talked about X before, right?") are not events.

Declined although they look first-person: aims with no content of their own ("I'm
determined to make it work", "I want to make a difference", "make the world a better
place", "I need to try that"), openness rather than habit ("I'm always up for new
recipes"), anticipation of a bare reference ("can't wait for the party"; kept with
content or a date: "can't wait for my sister's wedding in May"), and as a fallback
statement: platitudes and pledges ("we can make a difference together", "we all have
our own paths", "I'll keep pushing", "I'm sure we'll make it"), musing aloud ("I was
just thinking about X again"), undated promises to the listener ("I'll ask around") and
agreement ("I 100% agree").

Subjects: ``user`` (the speaker about themself), ``team`` ("we"/"our"), or a
named thing such as ``user's kids`` / ``user's sister`` ("my sister Ana lives in
Madrid").

Predicate vocabulary (data: ``memgate/data/predicates.json``; ``*`` = multi-valued:
several values hold at once and nothing is superseded; every other predicate is
single-valued, so a new value supersedes the old one for the same subject):

========================  ===========================================================
predicate                 meaning (example)
========================  ===========================================================
prefers:<topic>           a preference in one area; topics: answer_style, indentation,
                          answer_format, programming_language, editor, os, theme,
                          naming_style, testing, drink, schedule, other*
                          ("I prefer concise answers")
uses_tool:<category>      the tool used for a category: editor, shell, os, browser,
                          database, cloud, programming_language, package_manager,
                          container, orchestration, messaging, notes, vcs, terminal,
                          monitoring, framework, the category the user names
                          ("... as my planner"), also iac, sso, issue_tracker, chat,
                          integration, ecommerce, payments, crm, plan ("we're on the
                          Business plan"), other* ("I use vim as my editor")
deploys_with              CI/CD or deployment tool; CI/CD tools always map here, so
                          "we use Jenkins" and "we moved to GitHub Actions" share it
stack                     a team's or user's technology stack as a whole
works_at                  employer ("I work at Acme")
works_as                  occupation ("I'm a nurse", "as a nurse, ...", "I'm the tech lead
                          of the payments team"); for ``team`` what the organisation is
                          ("we're a small agency in Lyon")
lives_in                  place of residence ("I live in Lisbon", "I moved to Berlin")
comes_from                origin ("I'm from Sweden", "I grew up in Ohio")
name_is                   the speaker's name ("my name is Jon", "call me Jon")
diet                      diet ("I'm vegetarian", "I don't eat meat")
timezone                  time zone ("I'm in CET")
answer_language           language the assistant must answer in (an instruction)
relationship_status       married / engaged / single / divorced / in a relationship
contact:<role>            the named person in a role ("our account admin is Lena Ortiz")
team_size                 how big the team / company is ("our team is five people")
identity                  gender, orientation, faith, ... ("I'm a transgender woman")
favorite:<thing>          favourite of one kind ("my favorite band is Muse")
instruction*              a standing instruction ("always use type hints")
note*                     what the user asked to be remembered, when no finer rule fits
likes*, dislikes*         "I love hiking", "I can't stand cilantro", "I've always liked
                          Scandinavian design", "I love this podcast", "owls fascinate
                          me", "X is particularly interesting to me", "X is at the top
                          of my list", "green's my fave", "X speaks to me", "X brings me
                          so much peace", "as a Celtics fan", "(I) really miss sailing",
                          "love experimenting with sourdough" (no subject), "knitting
                          helps me unwind", "I'm loving the new album", "the Canucks
                          are my team"
values*                   what matters to the speaker ("my family means the world to me",
                          "honesty's super important to me", "it's important to me to
                          give back")
member_of*                a group the speaker belongs to ("I'm part of a running club",
                          "I'm on the infrastructure team")
practice*                 a working practice a team follows ("we follow trunk-based
                          development")
hobby*                    leisure activity ("I've been painting a lot lately", "birdwatching
                          and baking are my main hobbies", "I'm doing pilates", "I'm off
                          to do some judo")
activity*                 an ongoing non-leisure activity ("I'm researching agencies",
                          "I volunteer at the food bank", "I donate to a rescue",
                          also without a subject: "Still working on my thesis",
                          "Researching volunteer programs.", "... - building a
                          treehouse for the kids")
habit*                    "I always ...", "I usually ..."
has_pet*                  "I have a dog named Max", "I just adopted a puppy"
has_child*                "I have two kids"
family*                   other relatives ("I have three siblings")
speaks_language*          "I speak Portuguese"
decided*                  a decision ("we decided to use Kafka", "let's go with B")
plans_to*                 a plan ("I'm planning to run a marathon", "Gonna finish my
                          degree", "Planning a road trip to Norway")
goal*                     an aim ("I want to become a counselor", "I want to use my
                          savings to open a bakery", "our main goal was to raise money
                          for the library")
event*                    something that happened, ``valid_from`` its date when stated
                          ("I got married on 3 June 2023", "we played this card game",
                          "I took your advice and joined a gym" -> "joined a gym",
                          "I saw how the floods changed my village", "coaching my son's
                          team last spring was a blast")
statement*                fallback: a substantive first-person statement no rule above
                          read, kept whole (trimmed) when it carries concrete content --
                          a number, a date or period, a relative or friend, a named
                          thing ("I've known these friends for 4 years, since I moved
                          from my home country"); at most one per turn, only when
                          nothing else fired; never a reaction, a wish, reported speech,
                          advice, a problem of the moment or talk about the chat. Also
                          (fallback) a named answer ("Her name is Biscuit", "They're
                          called Fire Lilies", "It was Nina Simone") and something of
                          the speaker's shown ("Here's a pic of my garden in spring",
                          "here's a photo of me at the finish line", "here's one I
                          painted")
========================  ===========================================================

Confidence follows the domain's anchors: 0.9 stated explicitly by the user -- a
plain first-person declarative counts, whether a preference, a narrated event
("I went to a support group yesterday") or an activity ("I've been painting a
lot lately"); 0.5 an inference from a clear but indirect statement ("my wife"
-> married, "I can't wait to ..." -> a plan); 0.3 a guess ("I'm thinking about
..."). A client field never raises confidence: the source a turn claims
(``metadata["source"]``) is carried as ``source`` and only the write policy may trust it.

>>> from memgate.core.events import TurnEvent
>>> t = TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
...               role="user", content="Thanks! I use vim as my editor.",
...               ts="2024-05-01T10:00:00Z")
>>> [(f.type.value, f.subject, f.predicate, f.object) for f in RuleExtractor().extract(t)]
[('fact', 'user', 'uses_tool:editor', 'vim')]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Protocol, runtime_checkable

from memgate.core.events import CandidateFact, FactType, Role, TurnEvent, normalise, stable_id
from memgate.core.text import is_question, split_sentences, starts_like_question
from memgate.stages.policy import claimed_source
from memgate.stages.vocabulary import MULTI_VALUED_PREDICATES

__all__ = [
    "MAX_FACTS_PER_TURN",
    "MULTI_VALUED_PREDICATES",
    "Extractor",
    "RuleExtractor",
    "parse_event_date",
]

MAX_FACTS_PER_TURN = 3
MAX_OBJECT_CHARS = 300

C_STATED = 0.9
C_INFERRED = 0.5
C_GUESS = 0.3

def _ws(text: str) -> frozenset[str]:
    """The white-space separated words of ``text`` as a set (lexicon helper)."""
    return frozenset(text.split())


@runtime_checkable
class Extractor(Protocol):
    """Anything that turns one turn into candidate facts (may return [])."""

    name: str
    version: str

    def extract(self, turn: TurnEvent) -> list[CandidateFact]: ...


# ============================================================== lexicons

_LANGUAGES: dict[str, str] = {
    # English names, then native / other-language names -> display form
    **{w: w.capitalize() for w in (
        "english", "french", "german", "spanish", "portuguese", "italian", "dutch",
        "japanese", "chinese", "mandarin", "cantonese", "korean", "russian", "polish",
        "swedish", "norwegian", "danish", "finnish", "greek", "turkish", "arabic",
        "hebrew", "hindi", "bengali", "urdu", "vietnamese", "thai", "indonesian",
        "ukrainian", "czech", "hungarian", "romanian", "catalan", "tagalog", "swahili",
        "persian", "farsi", "irish", "welsh", "latin",
    )},
    "deutsch": "Deutsch", "englisch": "Englisch", "französisch": "Französisch",
    "spanisch": "Spanisch", "italienisch": "Italienisch", "portugiesisch": "Portugiesisch",
    "français": "français", "anglais": "anglais", "allemand": "allemand",
    "espagnol": "espagnol", "italien": "italien", "portugais": "portugais",
    "español": "español", "castellano": "castellano", "inglés": "inglés",
    "francés": "francés", "alemán": "alemán", "portugués": "portugués",
    "português": "português", "inglês": "inglês", "francês": "francês",
    "espanhol": "espanhol", "alemão": "alemão",
}

# tool name (lower case) -> category; CI/CD tools map to "deploy" (-> deploys_with).
# Names are separated by "|" (a name may contain spaces).
_TOOL_NAMES: dict[str, str] = {
    "editor": "vim|neovim|nvim|emacs|vscode|vs code|visual studio code|sublime|sublime text|"
    "intellij|pycharm|webstorm|goland|clion|rider|nano|helix|zed|atom|notepad++|xcode|"
    "android studio|eclipse|cursor|spacemacs|doom emacs|kakoune",
    "shell": "bash|zsh|fish shell|powershell|nushell|oh-my-zsh",
    "os": "linux|ubuntu|debian|fedora|arch linux|macos|mac os|osx|windows|nixos|manjaro|"
    "linux mint|chromeos|freebsd|pop!_os",
    "browser": "chrome|firefox|safari|brave|vivaldi|chromium|microsoft edge",
    "deploy": "jenkins|github actions|gitlab ci|gitlab ci/cd|circleci|circle ci|travis|"
    "travis ci|argocd|argo cd|fluxcd|flux cd|spinnaker|teamcity|bamboo|buildkite|"
    "octopus deploy|azure devops|bitbucket pipelines|tekton|heroku|netlify|vercel|"
    "capistrano|ansible|codedeploy|cloud build",
    "database": "postgres|postgresql|mysql|mariadb|sqlite|mongodb|mongo|redis|cassandra|"
    "dynamodb|sql server|mssql|cockroachdb|clickhouse|snowflake|bigquery|elasticsearch|"
    "opensearch|neo4j|supabase|firebase",
    "cloud": "aws|gcp|azure|google cloud|digitalocean|linode|hetzner|cloudflare",
    "programming_language": "python|rust|golang|java|typescript|javascript|ruby|kotlin|"
    "swift|scala|elixir|haskell|c++|c#|php|perl|clojure|ocaml|julia|dart|lua|zig",
    "package_manager": "poetry|pip|pipenv|uv|conda|npm|yarn|pnpm|cargo|homebrew",
    "container": "docker|podman|containerd",
    "orchestration": "kubernetes|k8s|nomad|docker swarm|openshift|k3s|eks|gke|aks",
    "messaging": "kafka|rabbitmq|nats|pulsar|sqs|redpanda|kinesis",
    "notes": "notion|obsidian|evernote|onenote|logseq|joplin",
    "vcs": "git|mercurial|svn|subversion|perforce",
    "terminal": "iterm|iterm2|alacritty|kitty|wezterm|tmux|windows terminal|warp",
    "monitoring": "grafana|prometheus|datadog|new relic|sentry|splunk|honeycomb",
    "framework": "django|flask|fastapi|rails|ruby on rails|spring boot|laravel|react|vue|"
    "angular|svelte|next.js|nextjs|express.js|phoenix",
    "iac": "terraform|opentofu|pulumi|cloudformation|crossplane",
    "sso": "okta|azure ad|entra id|auth0|keycloak|onelogin|ping identity",
    "issue_tracker": "jira|asana|trello|youtrack|clickup",
    "chat": "slack|microsoft teams|mattermost|rocket.chat",
    "integration": "zapier|make.com|ifttt|n8n|workato",
    "ecommerce": "shopify|woocommerce|magento|bigcommerce",
    "payments": "stripe|paypal|adyen|braintree",
    "crm": "salesforce|hubspot|pipedrive|zoho crm",
}
_TOOLS: dict[str, str] = {
    name: cat for cat, names in _TOOL_NAMES.items() for name in names.split("|")
}
_TOOL_RE = re.compile(
    r"(?<![\w.+#-])("
    + "|".join(re.escape(n) for n in sorted(_TOOLS, key=len, reverse=True))
    + r")(?![\w+#])"
)
_CATEGORY_ALIASES: dict[str, str] = {
    "editor": "editor", "ide": "editor", "text editor": "editor", "code editor": "editor",
    "shell": "shell", "terminal": "terminal", "os": "os", "operating system": "os",
    "browser": "browser", "database": "database", "db": "database", "cloud": "cloud",
    "language": "programming_language", "programming language": "programming_language",
    "package manager": "package_manager", "note-taking app": "notes", "notes app": "notes",
    "ci": "deploy", "ci/cd": "deploy", "cd": "deploy", "build system": "deploy",
    "framework": "framework", "web framework": "framework", "vcs": "vcs",
    "version control": "vcs", "monitoring": "monitoring", "container runtime": "container",
    "cloud provider": "cloud", "cloud platform": "cloud", "hosting provider": "cloud",
    "hosting": "cloud", "primary database": "database", "data warehouse": "database",
    "ci pipeline": "deploy", "ci system": "deploy", "ci provider": "deploy",
    "deployment tool": "deploy", "identity provider": "sso", "sso": "sso", "idp": "sso",
    "sso provider": "sso", "issue tracker": "issue_tracker", "ticketing system": "issue_tracker",
    "chat tool": "chat", "iac": "iac", "iac tool": "iac", "infrastructure as code": "iac",
    "crm": "crm", "payment provider": "payments", "payment processor": "payments",
    "orchestrator": "orchestration", "message broker": "messaging", "message queue": "messaging",
    "queue": "messaging", "note-taking tool": "notes",
    "shop system": "ecommerce", "shop platform": "ecommerce", "ecommerce platform": "ecommerce",
}

_PREF_TOPICS: tuple[tuple[str, frozenset[str]], ...] = (
    ("indentation", frozenset({"tabs", "tab", "spaces", "indentation", "indent", "indents",
                               "leerzeichen", "tabulateurs", "espaces", "tabulaciones",
                               "espacios", "espaços"})),
    ("answer_format", frozenset({"markdown", "bullet", "bullets", "bullet-point", "table",
                                 "tables", "json", "yaml", "prose", "numbered", "list",
                                 "lists", "headings", "code-only", "plain"})),
    ("answer_style", frozenset({"concise", "short", "brief", "detailed", "verbose", "terse",
                                "answers", "answer", "responses", "response", "replies",
                                "explanations", "explanation", "summaries", "tldr", "succinct",
                                "long", "longer", "shorter", "step-by-step", "examples",
                                "kurze", "kurz", "knapp", "knappe", "ausführliche",
                                "antworten", "antwort", "erklärungen", "réponses",
                                "réponse", "courtes", "courte", "détaillées", "respuestas",
                                "respuesta", "cortas", "corta", "detalladas", "respostas",
                                "resposta", "curtas", "curta", "detalhadas"})),
    ("naming_style", frozenset({"snake_case", "camelcase", "camel", "snake", "kebab-case",
                                "pascalcase", "naming"})),
    ("testing", frozenset({"pytest", "unittest", "tdd", "tests", "testing", "jest"})),
    ("theme", frozenset({"dark", "light", "theme", "mode"})),
    ("drink", frozenset({"coffee", "tea", "espresso", "latte", "beer", "wine", "water",
                         "café", "kaffee", "tee", "thé", "chá"})),
    ("schedule", frozenset({"morning", "mornings", "evening", "evenings", "night", "weekends",
                            "meetings", "async", "calls"})),
)

_OCCUPATIONS = _ws(
    """nurse teacher engineer developer programmer doctor physician surgeon dentist lawyer
    attorney accountant architect designer artist painter musician writer author journalist
    editor student researcher scientist professor lecturer chef cook baker barista waiter
    waitress bartender pilot mechanic electrician plumber carpenter firefighter officer
    cop detective soldier veteran farmer pharmacist therapist counselor counsellor
    psychologist psychiatrist paramedic vet veterinarian librarian photographer
    filmmaker actor actress dancer singer coach trainer consultant manager director
    analyst entrepreneur founder freelancer contractor translator interpreter tutor
    administrator admin sysadmin devops recruiter marketer salesperson realtor banker
    economist statistician mathematician physicist chemist biologist historian
    illustrator animator streamer youtuber blogger podcaster athlete player caregiver
    maintainer contributor
    nanny midwife social worker receptionist secretary clerk cashier driver trucker
    mom dad homemaker housewife retiree intern apprentice volunteer
    """
)
_JOB_SUFFIX_RE = re.compile(r"(?:engineer|developer|scientist|analyst|manager|designer|"
                            r"teacher|nurse|worker|officer|specialist|consultant|coach|"
                            r"technician|administrator|architect|lead|director|owner)$")

_IDENTITY_WORDS = _ws(
    """transgender trans nonbinary non-binary genderqueer genderfluid agender gay lesbian
    bisexual bi queer pansexual asexual straight christian muslim jewish buddhist hindu
    catholic protestant atheist agnostic sikh mormon introvert extrovert introverted
    extroverted immigrant"""
)
_DIETS = _ws(
    """vegan vegetarian pescatarian pescetarian keto paleo kosher halal gluten-free
    dairy-free plant-based flexitarian carnivore"""
)
_PETS = (
    r"dogs?|puppy|puppies|pups?|cats?|kittens?|kitty|rabbits?|bunny|bunnies|hamsters?|"
    r"parrots?|birds?|fish|goldfish|turtles?|tortoises?|snakes?|horses?|pony|ponies|"
    r"guinea pigs?|lizards?|geckos?|ferrets?|chickens?|goats?|budgies?|cockatiels?"
)
_KIDS = r"kids?|children|child|sons?|daughters?|babies|baby|twins|toddlers?|boys|girls"
_RELATIVES = (
    r"siblings?|brothers?|sisters?|parents|grandparents|grandkids|grandchildren|"
    r"cousins?|nieces?|nephews?|stepkids|stepsons?|stepdaughters?"
)
_HOBBY_GERUNDS = _ws(
    """painting drawing sketching writing reading hiking running jogging swimming cooking
    baking gardening knitting crocheting sewing dancing singing playing photography pottery
    camping cycling biking skiing snowboarding surfing climbing bouldering yoga meditating
    fishing gaming volunteering journaling skating skateboarding woodworking sculpting
    kayaking sailing traveling travelling exploring birdwatching golfing boxing lifting
    weightlifting martial sculpting quilting scrapbooking calligraphy collecting dancing
    rowing hunting horseback riding composing drumming"""
)
_HOBBY_NOUNS = _ws(
    """guitar piano violin drums cello ukulele flute saxophone chess tennis basketball
    football soccer baseball volleyball golf hockey rugby badminton cricket poker
    yoga pilates pottery photography painting knitting"""
)

_MONTHS: dict[str, int] = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}
_WEEKDAYS: dict[str, int] = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6,
}
_NUMBERS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a couple": 2,
    "couple of": 2, "a few": 3, "few": 3, "several": 3,
}

# ============================================================== dates

_MON = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_WD = r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NUM = r"(?P<num>\d{1,2}|a couple of|a couple|couple of|a few|few|several|an?|one|two|" \
       r"three|four|five|six|seven|eight|nine|ten)"
_DATE_RES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(p))
    for name, p in (
        ("iso", r"\b(?:on |since )?(?P<y>(?:19|20)\d\d)-(?P<m>[01]?\d)-(?P<d>[0-3]?\d)\b"),
        ("dmy", r"\b(?:on )?(?:the )?(?P<d>[0-3]?\d)(?:st|nd|rd|th)? (?:of )?" + _MON
         + r",? (?P<y>(?:19|20)\d\d)\b"),
        ("mdy", r"\b(?:on )?" + _MON
         + r" (?P<d>[0-3]?\d)(?:st|nd|rd|th)?,? (?P<y>(?:19|20)\d\d)\b"),
        ("dm", r"\bon (?:the )?(?P<d>[0-3]?\d)(?:st|nd|rd|th)? (?:of )?" + _MON + r"(?!\w)"),
        ("md", r"\bon " + _MON + r" (?P<d>[0-3]?\d)(?:st|nd|rd|th)?\b"),
        ("my", r"\b(?:in |back in )?" + _MON + r",? (?P<y>(?:19|20)\d\d)\b"),
        ("y", r"\b(?:in|back in|since|during) (?P<y>(?:19|20)\d\d)\b"),
        ("dby", r"\bthe day before yesterday\b"),
        ("yday", r"\b(?:yesterday|last night)\b"),
        ("today", r"\b(?:today|this morning|this afternoon|this evening|tonight|earlier today)\b"),
        ("ago", r"\b" + _NUM + r" (?P<unit>day|week|month|year)s? (?:ago|back)\b"),
        ("lwkend", r"\b(?:last|this past|past) weekend\b|\bover the weekend\b"),
        ("lwd", r"\b(?:last|this past|past|on) " + _WD + r"\b"),
        ("lunit", r"\b(?:last|this past|past) (?P<unit>week|month|year|summer|winter|spring|"
                  r"fall|autumn)\b"),
        ("lmon", r"\b(?:last|in|back in|this past) " + _MON + r"(?! \d)(?!\w)"),
        ("this", r"\b(?:earlier )?this (?P<unit>week|month|year)\b"),
    )
)
_ABSOLUTE = frozenset({"iso", "dmy", "mdy", "my", "y"})  # stated dates, taken as said
_SEASON_MONTH = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


def _midnight(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _minus_months(d: date, n: int) -> date:
    y, m = divmod(d.year * 12 + (d.month - 1) - n, 12)
    return date(y, m + 1, 1)


def _safe_date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def parse_event_date(text: str, ref: datetime) -> tuple[datetime, tuple[int, int]] | None:
    """The date a past event happened, from a (lower-cased) phrase, relative to ``ref``.

    Returns midnight UTC of that day and the span of the phrase, or None. Relative
    periods resolve to their first day: "last week" is the Monday of the week
    before, "last month" the 1st of the previous month, "in 2019" Jan 1 2019.

    >>> ref = datetime(2023, 6, 14, 15, 0, tzinfo=UTC)   # a Wednesday
    >>> [parse_event_date(p, ref)[0].date().isoformat() for p in (
    ...     "on 3 june 2023", "june 3, 2023", "2023-06-03", "yesterday", "last week",
    ...     "last saturday", "last month", "in 2019", "two days ago", "last weekend")]
    ['2023-06-03', '2023-06-03', '2023-06-03', '2023-06-13', '2023-06-05', '2023-06-10', \
'2023-05-01', '2019-01-01', '2023-06-12', '2023-06-10']
    """
    today = ref.astimezone(UTC).date()
    for name, rx in _DATE_RES:
        m = rx.search(text)
        if m is None:
            continue
        g = m.groupdict()
        d: date | None = None
        try:  # a turn dated year 1 has no yesterday: no date
            if name in ("iso", "dmy", "mdy"):
                mon = int(g["m"]) if name == "iso" else _MONTHS[g["mon"]]
                d = _safe_date(int(g["y"]), mon, int(g["d"]))
            elif name in ("dm", "md"):
                d = _safe_date(today.year, _MONTHS[g["mon"]], int(g["d"]))
                if d is not None and d > today:
                    d = _safe_date(today.year - 1, d.month, d.day)
            elif name == "my":
                d = date(int(g["y"]), _MONTHS[g["mon"]], 1)
            elif name == "y":
                d = date(int(g["y"]), 1, 1)
            elif name == "dby":
                d = today - timedelta(days=2)
            elif name == "yday":
                d = today - timedelta(days=1)
            elif name == "today":
                d = today
            elif name == "ago":
                n = _NUMBERS.get(g["num"]) or int(g["num"])
                unit = g["unit"]
                if unit == "day":
                    d = today - timedelta(days=n)
                elif unit == "week":
                    d = today - timedelta(weeks=n)
                elif unit == "month":
                    d = _minus_months(today, n).replace(day=1)
                    d = _safe_date(d.year, d.month, today.day) or d
                else:
                    d = _safe_date(today.year - n, today.month, today.day) or date(
                        today.year - n, today.month, 28
                    )
            elif name == "lwkend":
                d = today - timedelta(days=today.weekday() + 2)
            elif name == "lwd":
                back = (today.weekday() - _WEEKDAYS[g["wd"]]) % 7 or 7
                d = today - timedelta(days=back)
            elif name == "lunit":
                unit = g["unit"]
                if unit == "week":
                    d = today - timedelta(days=today.weekday() + 7)
                elif unit == "month":
                    d = _minus_months(today, 1)
                elif unit == "year":
                    d = date(today.year - 1, 1, 1)
                else:
                    sm = _SEASON_MONTH[unit]
                    y = today.year if (sm, 1) < (today.month, today.day) else today.year - 1
                    if sm == 12 or today.month < sm + 3:
                        y = today.year - 1 if sm <= today.month or sm == 12 else y
                    d = date(y, sm, 1)
            elif name == "lmon":
                mon = _MONTHS[g["mon"]]
                y = today.year if mon < today.month else today.year - 1
                d = date(y, mon, 1)
            elif name == "this":
                unit = g["unit"]
                if unit == "week":
                    d = today - timedelta(days=today.weekday())
                elif unit == "month":
                    d = today.replace(day=1)
                else:
                    d = date(today.year, 1, 1)
        except (OverflowError, ValueError):
            continue
        if d is not None and (d <= today or name in _ABSOLUTE):
            return _midnight(d), m.span()
    return None


# ============================================================== sentence filters

_HYPO_RE = re.compile(
    r"^\s*(?:if|suppose|supposing|imagine|assuming|hypothetically|let's say|say we)\b|"
    r"\b(?:what if|if i were|if we were|if i was|if i had|if we had|if i could|"
    r"suppose|supposing|imagine|imagining|hypothetically|would you|wouldn't it|"
    r"let's say|in theory|pretend|i wish|i would(?! (?:rather|prefer|like|love)\b)|"
    r"i'd (?!rather|prefer|love|like)|"
    r"could you|can you|will you|would it)\b"
)
_HYPO_TRIGGERS = _ws(
    "if suppose supposing imagine imagining assuming hypothetically let's say what would "
    "wouldn't theory pretend wish i'd could can will"
)
_SESSION_RE = re.compile(
    r"\b(?:for this (?:one|answer|question|reply|response|task|message|conversation|chat|"
    r"session|time|request|turn)|(?:just|only) this (?:time|once|one)|this time only|"
    r"(?:just |only )?for now|right now|for the moment|for today|in this (?:answer|reply|"
    r"response|chat)|nur (?:dieses mal|diesmal|jetzt)|pour cette fois|juste cette fois|"
    r"solo esta vez|por ahora|só desta vez|por enquanto)\b"
)
# "I'm really into jazz right now": a taste of these days, not a one-off
_CURRENT_TASTE_RE = re.compile(
    r"^(?:(?:oh|yeah|and|so|also|honestly|well)[,\s]+)*(?:i'm|i am|we're|we are) "
    r"(?:(?:really|totally|so|super|just|also)\s+)*(?:into|loving|obsessed with|hooked on|"
    r"addicted to|binging|binge-watching)\s+(?!it\b|this\b|that\b|you\b)[^,;:!?]+? right now"
    r"[\s.!]*$"
)
_SESSION_TRIGGERS = _ws(
    "this now moment today nur pour juste solo ahora desta enquanto"
)
_UNSURE_RE = re.compile(
    r"\b(?:not sure|unsure|not certain|maybe|perhaps|possibly|probably|might|i may|we may|"
    r"i guess|don't know if|do not know if|not decided|undecided|i wonder|wondering|"
    r"vielleicht|peut-être|quizás|quizá|tal vez|talvez)\b"
)
_UNSURE_TRIGGERS = _ws(
    "not unsure maybe perhaps possibly probably might may guess don't do undecided wonder "
    "wondering vielleicht peut-être quizás quizá tal talvez"
)
_REMEMBER_RE = re.compile(
    r"^(?:(?:hey|ok|okay|so|also|btw|oh|by the way)[,\s]+)*"
    r"(?:(?:(?:can|could|will|would) you (?:please )?|please |pls )"
    r"(?:remember|note|keep in mind|don't forget|do not forget|save|store|make a note)"
    r"(?: (?:that|this))?|(?:remember|note|keep in mind|don't forget|do not forget) that|"
    r"make a note(?: that)?|for the record|fyi|just so you know|for future reference)"
    r"[,:]?\s+(?:that\s+)?(?P<rest>.+)$"
)
_REMEMBER_TRIGGERS = _ws(
    "remember note keep forget record fyi know save store"
)

# ============================================================== object clean-up

_CUT_RE = re.compile(
    r"\s+[-–—]\s+|[;:!?()\[\]]|\.(?:\s|$)|,\s*(?:but|and|so|because|which|who|where|"
    r"since|though|although|as|while|it|i|we|they|he|she|that|plus|especially|like)\b|"
    r"\s(?:but|because|since|so that|so|which|although|though|while|cause|'cause|"
    r"whereas|until|unless)\s|"
    r"\sand (?:i|we|it|that|they|he|she|then|so|was|it's|i'm|we're|had|have|my|now|"
    r"also|really|loved|love|felt|got)\b|\s(?:it was|it's been|was so|were so)\b|"
    r"\s[:;]-?[()DPp]|[\U0001F300-\U0001FAFF\u2600-\u27BF]"
)
_TRAIL_RE = re.compile(
    r"(?:\s+(?:lately|recently|these days|nowadays|a lot|so much|too|as well|anymore|"
    r"any more|again|though|actually|now|currently|at the moment|right now|already|"
    r"at all|haha|lol|and stuff|and all|ever since|since then|for sure|really|"
    r"myself|together|finally|just|yet|here|there|eh|btw|tho|again|today|"
    r"with you|with u|to you|every day|everyday|all the time|a bit|a little|"
    r"more and more|for a while|for a bit|right|then|one day|someday|soon|on|in|at|since|"
    r"by|from|of|with|and|or|the|please|pls|plz|thanks|thank you|thx|cheers|"
    r"por favor|bitte|danke|s'il te plaît|s'il vous plaît|stp|svp|merci|gracias|"
    r"obrigad[oa]|per favore|grazie))+$"
)
_LEAD_RE = re.compile(r"^(?:that|to|that i|about|really|also|just|so|even|,|\s)+\s+")
_PUNCT_END_RE = re.compile(r"[\s.,!?;:'\"…)\]*~-]+$")
_PUNCT_START_RE = re.compile(r"^[\s,:;'\"(\[*~-]+")
_WS_RE = re.compile(r"\s+")
_STOP = _ws(
    """a an the it that this these those them they he she him her his its my your our
    me i we you so too very really just some something anything everything one thing
    things stuff lot lots bit more much all of to for in on at with by up out about
    there here and or but now then again well time times day way what how who it's
    that's fun great good nice cool awesome amazing blast"""
)
_BAD_OBJ_START = re.compile(
    r"^(?:it|that|this|those|these|them|you|your|yours|how you|what you|when you|the way you|"
    r"hearing|seeing|talking to you|chatting|to hear|to see|to know|to chat|to talk|"
    r"it when|that you|so much|him|her|ya|u|em|something|anything|everything|nothing)\b"
)
# "dive into it", "try it out": a plan whose only object is a pronoun
_PRONOUN_END_RE = re.compile(r"^(?:\S+\s+){0,2}(?:it|this|that|them|one|there)(?:\s+\S+)?$")


_MAX_NARRATIVE_WORDS = 12
_SUBORDINATE_RE = re.compile(r" (?:to|that|who|where|when|which|because|after|before|while) ")


def _clean(obj: str, comma: bool = False) -> str:
    """Trim an object to its clause; ``comma=True`` also cuts at the first comma."""
    obj = _WS_RE.sub(" ", obj)
    m = _CUT_RE.search(obj)
    if m is not None:
        obj = obj[: m.start()]
    if comma and "," in obj:
        obj = obj[: obj.index(",")]
    if comma and obj.count(" ") >= _MAX_NARRATIVE_WORDS:
        # keep the core of a long narrative clause: cut at a subordinate clause after
        # the first few words, else at a word limit
        words = obj.split(" ")
        head = " ".join(words[:4])
        m2 = _SUBORDINATE_RE.search(obj, len(head))
        obj = obj[: m2.start()] if m2 else " ".join(words[:_MAX_NARRATIVE_WORDS])
    obj = _PUNCT_START_RE.sub("", obj)
    obj = _LEAD_RE.sub("", obj)
    for _ in range(2):
        obj = _PUNCT_END_RE.sub("", obj)
        obj = _TRAIL_RE.sub("", obj)
    obj = _PUNCT_END_RE.sub("", obj).strip()
    if len(obj) > MAX_OBJECT_CHARS:
        obj = obj[:MAX_OBJECT_CHARS].rsplit(" ", 1)[0].rstrip(" ,.;:")
    return obj


def _meaningful(obj: str, min_words: int = 1) -> bool:
    words = [w for w in re.findall(r"[^\W\d_]{2,}|\d+", obj.lower()) if w not in _STOP]
    return len(words) >= min_words


# ============================================================== rules


@dataclass(frozen=True, slots=True)
class _Hit:
    type: FactType
    subject: str
    predicate: str
    object: str
    confidence: float
    rule: str
    valid_from: datetime | None = None
    retracts: bool = False


@dataclass(slots=True)
class _Ctx:
    """What a builder may read about the sentence it is looking at."""

    low: str  # lower-cased sentence (same length as orig)
    orig: str  # original sentence (or ``low`` if lower-casing changed the length)
    ts: datetime
    forced: bool  # inside an explicit "remember that ..." request

    def text(self, m: re.Match[str], group: str) -> str:
        s, e = m.span(group)
        return self.orig[s:e] if s >= 0 else ""

    def date(self) -> tuple[datetime, tuple[int, int]] | None:
        return parse_event_date(self.low, self.ts)


Builder = Callable[[re.Match[str], _Ctx], list[_Hit]]


@dataclass(frozen=True, slots=True)
class _Rule:
    """One extraction rule.

    It runs only on a clause holding one of its ``triggers`` (lower-case tokens, or
    the pseudo-tokens ``<ed>`` / ``<ing>`` for "has a past-tense / -ing word"); an
    empty set means always. ``anchored`` rules match at the clause start only.
    """

    name: str
    triggers: frozenset[str]
    pattern: re.Pattern[str]
    build: Builder
    fallback: bool = False
    anchored: bool = False
    clauses: bool = False  # anchored, but also tried at the start of each later clause



_SUBJ = r"(?P<subj>i|we)"
_ADV = r"(?:(?:really|also|just|still|totally|absolutely|actually|genuinely|truly|now|" \
       r"currently|usually|generally|definitely|honestly|kind of|kinda|sort of|so|always|" \
       r"both|all|even|already|finally|recently|strongly|mostly|mainly|often|sometimes|" \
       r"officially|literally|seriously|pretty much|recently)\s+)*"


def _subject(m: re.Match[str]) -> str:
    try:
        s = m.group("subj")
    except IndexError:
        return "user"
    if s and s.split("'")[0].strip() in ("we", "our", "us", "wir", "unser", "unsere", "nous",
                                         "notre", "nosotros", "nuestro", "nuestra", "nós",
                                         "nosso", "nossa"):
        return "team"
    return "user"


def _simple(
    type_: FactType,
    predicate: str | Callable[[str], str],
    conf: float = C_STATED,
    group: str = "obj",
    min_words: int = 1,
    dated: bool = False,
) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        raw = ctx.text(m, group)
        when: datetime | None = None
        if dated:
            found = ctx.date()
            if found is not None:
                when, (ds, de) = found
                s0 = m.start(group)
                # drop the date phrase from the object when it lies inside it
                if s0 <= ds < s0 + len(raw):
                    raw = raw[: ds - s0] + " " + raw[de - s0:]
        obj = _clean(raw)
        if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj, min_words):
            return []
        pred = predicate if isinstance(predicate, str) else predicate(obj)
        if not pred:
            return []
        return [_Hit(type_, _subject(m), pred, obj, conf, "", when)]

    return build


def _pref_topic(obj: str) -> str:
    words = set(re.findall(r"[\w+#-]+", obj.lower()))
    for topic, keys in _PREF_TOPICS:
        if words & keys:
            return f"prefers:{topic}"
    m = _TOOL_RE.search(obj.lower())
    if m is not None:
        cat = _TOOLS[m.group(1)]
        if cat in ("editor", "os", "programming_language"):
            return f"prefers:{cat}"
    return "prefers:other"


def _tool_predicate(obj: str, hint: str = "") -> str:
    """uses_tool:<category> or deploys_with, from an explicit hint or the tool lexicon."""
    cat = _CATEGORY_ALIASES.get(hint.strip().lower(), "") if hint else ""
    if not cat:
        m = _TOOL_RE.search(obj.lower())
        if m is not None:
            cat = _TOOLS[m.group(1)]
    if cat == "deploy":
        return "deploys_with"
    return f"uses_tool:{cat}" if cat else ""


def _language(word: str) -> str:
    return _LANGUAGES.get(word.strip().lower(), "")


# ---------------------------------------------------------------- builders


def _b_prefer(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
        return []
    if obj.split()[0].lower() in ("wait", "not", "stay", "go", "skip", "do", "be", "keep",
                                  "just", "see", "die", "pass", "leave", "hear"):
        return []  # "I'd rather wait": a choice of the moment
    low = obj.lower()
    lang = re.match(r"^(?:(?:answers?|responses?|replies|to be answered) )?in (\w+)$", low)
    if lang and _language(lang.group(1)):
        return [_Hit(FactType.PREFERENCE, _subject(m), "answer_language",
                     _language(lang.group(1)), C_STATED, "")]
    return [_Hit(FactType.PREFERENCE, _subject(m), _pref_topic(obj), obj, C_STATED, "")]


_LANG_IN_RE = re.compile(
    r"\b(?:in|auf|en|em)\s+(?P<lang>[^\W\d_]+)\b"
)


_COURTESY = _ws("please pls plz thanks thx bitte merci gracias obrigado obrigada danke")


def _b_instruction(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    raw = ctx.text(m, "obj")
    obj = _clean(raw)
    if not obj or not _meaningful(obj) or obj.lower() in _COURTESY:
        return []
    low = obj.lower()
    for lm in _LANG_IN_RE.finditer(low):
        lang = _language(lm.group("lang"))
        if lang and re.search(
            r"\b(?:answer|reply|respond|write|talk|speak|communicate|antworte|antworten|"
            r"schreib|schreibe|réponds|répondez|répondre|écris|parle|responde|responda|"
            r"contesta|escribe|escreva|fale|habla)", low
        ):
            return [_Hit(FactType.INSTRUCTION, "user", "answer_language", lang, C_STATED, "")]
    topic = _pref_topic(obj)
    if topic in ("prefers:answer_style", "prefers:answer_format", "prefers:indentation",
                 "prefers:naming_style"):
        return [_Hit(FactType.INSTRUCTION, "user", topic, obj, C_STATED, "")]
    return [_Hit(FactType.INSTRUCTION, "user", "instruction", obj, C_STATED, "")]


def _b_imperative(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    # keep the polarity word in the object: "never suggest jQuery"
    start = m.start("pol")
    obj = _clean(ctx.orig[start:])
    obj = re.sub(r"(?i)^(?:don't|do not) ever\b", "never", obj)
    obj = re.sub(r"(?i)^(?:please )", "", obj)
    if not obj or not _meaningful(obj, 2):
        return []
    low = obj.lower()
    lm = re.search(r"\b(?:answer|reply|respond|write|talk)\w* (?:to me )?in (\w+)$", low)
    if lm and _language(lm.group(1)) and not low.startswith(("never", "don't", "do not")):
        return [_Hit(FactType.INSTRUCTION, "user", "answer_language", _language(lm.group(1)),
                     C_STATED, "")]
    return [_Hit(FactType.INSTRUCTION, "user", "instruction", obj, C_STATED, "")]


def _b_switch(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    old = _clean(ctx.text(m, "old"))
    new = _clean(ctx.text(m, "new"))
    if not new or not old or _BAD_OBJ_START.match(new.lower()):
        return []
    verb = m.group("verb")
    pred = _tool_predicate(new) or _tool_predicate(old)
    subj = _subject(m)
    if not pred:
        if verb.startswith(("mov", "relocat")) and subj == "user":
            pred = "lives_in"
        elif verb.startswith(("mov", "migrat", "switch")) and subj == "team":
            pred = "stack"
        else:
            pred = "uses_tool:other"
    return [_Hit(FactType.CORRECTION, subj, pred, new, C_STATED, "")]


def _b_not_anymore(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    old = _clean(ctx.text(m, "old"))
    new = _clean(ctx.text(m, "new"))
    if not new or not _meaningful(new):
        return []
    pred = _tool_predicate(new) or _tool_predicate(old)
    if not pred:
        return []
    subj = "team" if re.search(r"\b(?:we|our)\b", ctx.low) else "user"
    return [_Hit(FactType.CORRECTION, subj, pred, new, C_STATED, "")]


def _b_use(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """'I use X' / 'we run X': only for a tool the lexicon knows."""
    obj = _clean(ctx.text(m, "obj"))
    if not obj or _BAD_OBJ_START.match(obj.lower()):
        return []
    pred = _tool_predicate(obj)
    if not pred:
        return []
    tm = _TOOL_RE.search(obj.lower())
    if tm is not None and len(obj) > len(tm.group(1)) + 25:
        obj = obj[tm.start(1):tm.end(1)]
    fm = re.search(r"\s+for (?:our |my |the |all |)([a-z/ -]+)$", obj.lower())
    if fm is not None and _CATEGORY_ALIASES.get(fm.group(1).strip()) is not None and (
            _tool_predicate("", fm.group(1).strip()) == pred):
        obj = obj[: fm.start()]  # "Jenkins for CI": the category adds nothing
    return [_Hit(FactType.FACT, _subject(m), pred, obj, C_STATED, "")]


def _b_deploy(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or _BAD_OBJ_START.match(obj.lower()):
        return []
    return [_Hit(FactType.FACT, _subject(m), "deploys_with", obj, C_STATED, "")]


def _b_stack(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj:
        return []
    return [_Hit(FactType.FACT, _subject(m), "stack", obj, C_STATED, "")]


def _is_job(phrase: str) -> bool:
    words = phrase.lower().split()
    if not words:
        return False
    head = words[-1]
    return head in _OCCUPATIONS or head.rstrip("s") in _OCCUPATIONS or (
        len(words) >= 2 and _JOB_SUFFIX_RE.search(head) is not None
    )


def _b_i_am_a(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    phrase = _clean(ctx.text(m, "obj"))
    low = phrase.lower()
    words = low.split()
    if not words:
        return []
    subj = _subject(m)
    idents = [w for w in words if w in _IDENTITY_WORDS]
    if idents and len(words) <= 4:
        return [_Hit(FactType.FACT, subj, "identity", phrase, C_STATED, "")]
    if words[0] in _DIETS and len(words) <= 2:
        return [_Hit(FactType.FACT, subj, "diet", words[0], C_STATED, "")]
    # "I'm a nurse", "I'm a senior data engineer at Acme", "the tech lead of the payments team"
    jm = re.match(r"^(?:(?:only|sole|main|new)\s+)?((?:[\w-]+ ){0,3}?[\w-]+?)"
                  r"(?: (at|for|in|with|on|of) (.+))?$", phrase)
    if jm is not None and _is_job(jm.group(1)) and len(jm.group(1).split()) <= 4:
        role = jm.group(1)
        prep, rest = jm.group(2), jm.group(3)
        if prep in ("on", "of") and rest and _meaningful(rest) and len(rest.split()) <= 6:
            role = f"{role} {prep} {rest}"  # "backend engineer on the payments team"
        out = [_Hit(FactType.FACT, subj, "works_as", role, C_STATED, "")]
        if prep == "at" and rest:
            org = _clean(rest)
            if org and _meaningful(org):
                out.append(_Hit(FactType.FACT, subj, "works_at", org, C_STATED, ""))
        return out
    mm = re.match(r"^(?:mom|mother|dad|father|parent) (?:of|to) (\w+)", low)
    if mm is not None:
        return [_Hit(FactType.FACT, subj, "has_child", f"{mm.group(1)} children", C_STATED, "")]
    return []


def _b_as_a(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    phrase = _clean(ctx.text(m, "obj"))
    low = phrase.lower()
    if any(w in _IDENTITY_WORDS for w in low.split()) and len(low.split()) <= 4:
        return [_Hit(FactType.FACT, "user", "identity", phrase, C_STATED, "")]
    if _is_job(phrase) and len(low.split()) <= 4:
        return [_Hit(FactType.FACT, "user", "works_as", phrase, C_STATED, "")]
    return []


def _b_i_am_adj(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    word = m.group("adj")
    subj = _subject(m)
    if word in _DIETS:
        return [_Hit(FactType.FACT, subj, "diet", word, C_STATED, "")]
    if word in ("married", "engaged", "single", "divorced", "separated", "widowed"):
        return [_Hit(FactType.FACT, subj, "relationship_status", word, C_STATED, "")]
    if word in _IDENTITY_WORDS:
        # "I'm trans", "I'm a trans man and proud of it" -> "trans man"
        nxt = re.match(r"\s+(woman|man|person|guy|girl|boy|kid|teen|parent|mom|dad|mother|"
                       r"father|latina|latino|latinx)\b", ctx.low[m.end("adj"):])
        obj = ctx.orig[m.start("adj"):m.end("adj") + (nxt.end() if nxt else 0)]
        return [_Hit(FactType.FACT, subj, "identity", obj, C_STATED, "")]
    return []


def _b_lives(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    obj = re.sub(r"(?i)\s+(?:with|since|for|desde|seit|depuis|há|hace)\b.*$", "", obj)
    if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
        return []
    return [_Hit(FactType.FACT, _subject(m), "lives_in", obj, C_STATED, "")]


def _b_from(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not obj[:1].isupper() or not _meaningful(obj):
        return []
    return [_Hit(FactType.FACT, _subject(m), "comes_from", obj, C_STATED, "")]


def _b_name(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    name = ctx.text(m, "obj").strip(" .,!?;:'\"")
    if not name or name.lower() in _STOP or name.lower() in ("not", "actually"):
        return []
    corr = re.search(r"\b(?:actually|spelled|spelt|written|not|correct|eigentlich|en fait|"
                     r"en realidad|na verdade)\b", ctx.low) is not None
    return [_Hit(FactType.CORRECTION if corr else FactType.FACT, "user", "name_is", name,
                 C_STATED, "")]


def _b_speaks(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    out: list[_Hit] = []
    for w in re.findall(r"[^\W\d_]+", ctx.text(m, "obj")):
        lang = _language(w)
        if lang:
            out.append(_Hit(FactType.FACT, _subject(m), "speaks_language", lang, C_STATED, ""))
    return out


def _b_has(kind: str) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        obj = _clean(ctx.text(m, "obj"))
        if not obj:
            return []
        return [_Hit(FactType.FACT, _subject(m), kind, obj, C_STATED, "")]

    return build


def _b_values(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    g = "obj" if m.group("obj") else "obj2" if m.group("obj2") else "obj3"
    obj = _clean(ctx.text(m, g))
    low = obj.lower()
    if not obj or _BAD_OBJ_START.match(low) or low in ("you", "this", "that", "it", "they") \
            or low.startswith(("your ", "you ", "all of ", "those ", "these ")) \
            or not _meaningful(obj):
        return []
    subj = "team" if m.group(0).endswith(" us") else "user"
    return [_Hit(FactType.FACT, subj, "values", obj, C_STATED, "")]


def _b_possessive(kind: str, conf: float) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        obj = _clean(ctx.text(m, "obj"))
        if not obj:
            return []
        if kind == "relationship_status":
            w = m.group("obj").lower()
            obj = ("married" if w in ("wife", "husband", "spouse", "hubby")
                   else "engaged" if w.startswith("fianc") else "in a relationship")
        return [_Hit(FactType.FACT, "user", kind, obj, conf, "")]

    return build


def _b_their_likes(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    who = _clean(ctx.text(m, "who")).lower()
    obj = _clean(ctx.text(m, "obj"))
    if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
        return []
    pred = "dislikes" if m.group("verb").startswith(("hate", "dislike")) else "likes"
    return [_Hit(FactType.FACT, f"user's {who}", pred, obj, C_STATED, "")]


def _b_favorite(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    thing = re.sub(r"\W+", "_", m.group("thing").strip().lower()).strip("_")
    obj = _clean(ctx.text(m, "obj"), comma=True)
    obj = re.sub(r"(?i)^(?:this|that|these|those)\s+(?=\w)", "", obj)
    if not thing or not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
        return []
    thing = re.sub(r"(?<=[^s])s$", "", thing) if thing not in ("series", "news") else thing
    return [_Hit(FactType.PREFERENCE, _subject(m), f"favorite:{thing}", obj, C_STATED, "")]


def _b_hobby_or_activity(conf: float, dated: bool = False) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        ger = m.group("ger")
        if ger in _NOT_ACTIVITY:
            return []
        obj = _clean(ctx.text(m, "obj"), comma=True)
        if not obj:
            return []
        pred = "hobby" if ger in _HOBBY_GERUNDS else "activity"
        if pred == "activity" and not _meaningful(obj[len(ger):] if obj.lower().startswith(
                ger) else obj):
            return []
        if pred == "hobby" and ger != "playing":
            obj = re.sub(r"(?i)\s+(?:a lot|so much|more|every \w+|lately|recently)$", "", obj)
        return [_Hit(FactType.FACT, _subject(m), pred, obj, conf, "")]

    return build


_NOT_ACTIVITY = _ws(
    """going thinking feeling hoping loving wondering doing getting having looking saying
    telling asking kidding glad sorry being planning considering sending sharing showing
    missing keeping staying letting wanting needing meaning guessing waiting coming
    leaving talking chatting texting calling hearing seeing listening excited proud happy
    noticing realizing counting bringing holding dying enjoying"""
)


# everyday trivia narrated as an event: "had lunch outside", "walked into a glass door"
_TRIVIAL_EVENT_RE = re.compile(
    r"^(?:had|ate|grabbed|got|made|skipped|cooked) (?:a |an |some |my |the |our )?(?:quick |late |"
    r"early |big |nice |lovely |good |great |light |huge |small |)(?:lunch|dinner|breakfast|"
    r"brunch|snack|coffee|tea|nap|shower|bath|drink|bite|sandwich|meal)\b|"
    r"^(?:walked|ran|bumped|crashed|tripped|slipped|stumbled|fell|banged) (?:straight |right |"
    r"head ?first |)(?:into|over|on) (?:a |the |my |some )?(?:glass |)(?:door|wall|pole|chair|"
    r"table|desk|lamp ?post|sign|curb|kerb|stairs|step|ice|puddle)s?\b|"
    r"^(?:spilled|dropped|burned|burnt) (?:coffee|tea|my (?:coffee|tea|phone|keys|toast)|"
    r"the (?:toast|rice|milk))\b|^(?:overslept|stubbed my toe|locked myself out|"
    r"missed the (?:bus|train))\b"
)


_TALK_VERBS = _ws("talked chatted discussed spoke covered went")
_ABOUT_US_RE = re.compile(
    r"\b(?:chatted|talked|spoke|spoken|chatting|talking|speaking|conversation|chat) "
    r"(?:with|to) you\b|\b(?:our|this|the) (?:last |previous )?(?:chat|conversation|session)\b|"
    r"\b(?:we|i) (?:\w+ )?(?:talked|chatted|spoke|discussed|covered)\b[^.!?]{0,60}?"
    r"\b(?:before|earlier|last time|previously|already)\b"
)


def _b_event(conf_dated: float, conf_undated: float, require_date: bool) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        verb = m.group("verb")
        found = ctx.date()
        just = m.groupdict().get("adv") or ""
        tail = ctx.low[m.end("verb"):m.end("verb") + 30]
        # "got"/"had"/"saw"/"did" are events only when dated, "just ...", or a
        # well-known phrase ("got back from", "got a new job")
        if verb in _NOT_EVENT_VERBS and (verb not in _WEAK_EVENT_VERBS or not (
            found is not None or "just" in just or "recently" in just
            or _GOT_PHRASE_RE.match(tail)
            # "I saw the impact a small donation can make": something witnessed, told
            or (verb == "saw" and _meaningful(tail, 3) and not _SAW_BAD_RE.match(tail))
        )):
            return []
        if m.start("subj") == 0 and m.group("subj") == "" and (
            verb in _ED_ADJECTIVES or verb == "set up" or _SUBJECTLESS_BAD_RE.match(tail)
        ):
            return []  # "Excited for the future", "Took a bit of work"
        if found is None and require_date and not re.search(r"\b(?:just|recently|finally)\b",
                                                            just):
            return []
        raw = ctx.orig[m.start("verb"):m.end("obj")]
        when: datetime | None = None
        if found is not None:
            when, (ds, de) = found
            s0 = m.start("verb")
            if s0 <= ds < m.end("obj"):
                raw = raw[: ds - s0] + " " + raw[de - s0:]
        obj = _clean(raw, comma=True)
        rest = obj[len(verb):] if obj.lower().startswith(verb) else obj
        rest_low = rest.strip().lower()
        if _YOU_RE.search(rest_low):
            # "I took your advice and joined a gym": the listener's part is a preamble to
            # an event of the speaker's own
            am = _AND_PAST_RE.search(obj.lower())
            if am is not None and am.group("v") not in _NOT_EVENT_VERBS \
                    and not _YOU_RE.search(obj.lower(), am.end()) \
                    and _meaningful(obj[am.end():]):
                verb = am.group("v")
                obj = obj[am.start("v"):]
                rest = obj[len(verb):]
                rest_low = rest.strip().lower()
        if verb in _CREATION_VERBS:
            # "I made this bowl in my class": a demonstrative plus a noun is fine
            rest_low = re.sub(r"^(?:this|these|that|those) (?=[a-z]{3,})", "", rest_low)
        else:
            # "we played this board game": so it is after any verb, unless the noun is a
            # time ("this week") or a stand-in ("this one")
            rest_low = re.sub(r"^(?:this|these) (?!(?:time|week|weekend|morning|evening|"
                              r"afternoon|year|month|one|ones|way|stuff|thing|things|kind|"
                              r"sort|far|much|many|is|was)\b)(?=[a-z]{3,})", "", rest_low)
        made_in = verb in _CREATION_VERBS and found is not None and re.match(
            r"^(?:it|them|one) (?:in|at|during) ", rest_low) is not None
        if made_in:
            # "I made it in my pottery class yesterday": where it was made is the content
            rest_low = rest_low.split(" ", 1)[1]
        bare = not rest_low and found is not None and verb.endswith("ed") and len(verb) >= 6
        if not obj or (not bare and (not _meaningful(rest) or _BAD_OBJ_START.match(rest_low))):
            return []
        if _TRIVIAL_EVENT_RE.match(obj.lower()) and not re.search(
                r"\b(?:with|together)\b|\band i\b", ctx.low):
            return []  # everyday trivia, nothing durable (a shared meal is kept)
        if verb in _TALK_VERBS and _ABOUT_US_RE.search(ctx.low):
            return []  # "last time I chatted with you we talked about ...": about the chat
        if verb in _TRANSITIVE_PAST and not made_in and _RELATIVE_TAIL_RE.match(rest_low) \
                and not _GOT_PHRASE_RE.match(" " + rest_low):
            return []  # "the help I got from friends": a relative clause, not an event
        if _YOU_RE.search(rest_low):
            return []  # about the listener ("I made this for you")
        conf = conf_dated if (found is not None or just) else conf_undated
        return [_Hit(FactType.EVENT, _subject(m), "event", obj, conf, "", when)]

    return build


_SAW_BAD_RE = re.compile(r"^ (?:an? |the |some |)(?:error|bug|message|warning|crash|issue|"
                         r"problem|post|tweet|video|ad|article|news|pic|photo)s?\b")
_AND_PAST_RE = re.compile(r"\band (?:then |also |finally |even |)(?P<v>[a-z]{2,}ed|"
                          r"went|got|made|met|bought|found|took|saw|read|wrote|ran|began)\b")
_NOT_EVENT_VERBS = _ws(
    """felt thought wanted needed meant guessed figured knew said told asked mentioned
    hoped wondered loved liked enjoyed hated noticed realized realised agreed appreciated
    was were did used seemed looked sounded supposed tried expected imagined believed
    forgot remembered missed wished decided planned saw heard need feed proceed succeed
    exceed speed bleed breed heed seed shed embed indeed bred red bed shared loved
    reminded liked called named meant included involved tended managed happened"""
)
_CREATION_VERBS = _ws(
    "made painted drew built bought wrote baked cooked knitted sewed crafted designed "
    "created took found got picked finished completed"
)
_ED_ADJECTIVES = _ws(
    """mixed impressed excited blessed tired stressed amazed surprised interested pleased
    thrilled honored honoured inspired touched moved relieved bored worried scared obsessed
    stoked overwhelmed exhausted delighted determined dedicated committed motivated
    pumped psyched convinced confused disappointed frustrated annoyed amused shocked
    grounded focused balanced used supposed glad"""
)
_SUBJECTLESS_BAD_RE = re.compile(
    r"^ (?:a (?:bit|while|lot|long|little|ton|few)|some (?:time|work|effort|trial|getting)|"
    r"time|forever|ages|me|us|you|my breath)\b"
)
_WEAK_EVENT_VERBS = frozenset({"got", "had", "saw", "did", "tried", "decided", "shared"})
_TRANSITIVE_PAST = _ws(
    """got had made bought found took saw read wrote lost kept gave brought built picked
    learned learnt received earned won sold chose held spent used needed wanted"""
)
_RELATIVE_TAIL_RE = re.compile(
    r"^(?:from|as|for|at|when|and|with|in|on|by|was|were|is|are|made|makes|there|here|"
    r"before|so far|back then|since|while|growing|over|during|after|through|of|about|"
    r"never|ever|in the past|together|both|all(?! (?:my|our|the|of)\b)|up|so|yet|already|too|there|"
    r"it (?:a while|ages|years|months|weeks|days|long)|it at|it from|it when|it for)\b|^$"
)
_YOU_RE = re.compile(r"\b(?:you|your|yours|u|ya)\b")
_GOT_PHRASE_RE = re.compile(
    r"^ (?:back from|back home|done|into (?!it\b|that\b)|a new|my first|my own|accepted|promoted|"
    r"hired|engaged|married|divorced|a job|a puppy|a dog|a cat|a kitten|a tattoo|"
    r"a chance to|to (?:visit|see|meet|go|try|play|attend|travel)|out (?!of)|"
    r"a (?:baby|promotion|raise|scholarship|degree|certificate|award)|certified|"
    r"my (?:degree|license|licence|certificate|diploma)|an? \w+ (?:party|trip|class|"
    r"lesson|session|game|concert|show|vacation)|through)"
)


def _b_decided(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
        return []
    return [_Hit(FactType.FACT, _subject(m), "decided", obj, C_STATED, "")]


def _b_plan(pred: str, conf: float) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        obj = _clean(ctx.text(m, "obj"))
        if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
            return []
        first = obj.split()[0].lower()
        if (first in _NOT_PLAN_VERBS and not obj.lower().startswith("check out ")) \
                or _PRONOUN_END_RE.match(obj.lower()):
            return []
        p = pred
        if p == "plans_to" and first in ("become", "be"):
            p = "goal"
        return [_Hit(FactType.FACT, _subject(m), p, obj, conf, "")]

    return build


# "can't wait for the party": a reference to something just mentioned, with no date and
# nothing of its own; "can't wait for my sister's wedding in May" is kept
_ANTICIPATED_REF_RE = re.compile(
    r"^(?!.*\b(?:tomorrow|tonight|today|weekend|next|birthday|wedding|anniversary)\b)"
    r"(?:(?:the|our|their|some|that|this|your)\s+)?(?:[\w'-]+\s+){0,2}?[\w'-]+$"
)


_NOT_PLAN_VERBS = _ws(
    """know ask say see hear share thank check tell show talk let get help make it have
    keep do go hang catch read chat text call give send look find meet be"""
) - frozenset({"be"})


def _b_goal_want(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _meaningful(obj):
        return []
    first = obj.split()[0].lower()
    if first == "use":
        # "I want to use my savings to open a bakery": the aim is what follows
        um = _USE_TO_RE.match(obj.lower())
        if um is None or um.group(1) not in _GOAL_VERBS | {"help", "inspire", "support"}:
            return []
    elif first not in _GOAL_VERBS:
        return []
    if _VAGUE_GOAL_RE.match(obj.lower()) or len(obj.split()) == 1 \
            or _PRONOUN_END_RE.match(obj.lower()):
        return []  # "make it work"; "the places I want to visit"; "I need to try that"
    return [_Hit(FactType.FACT, _subject(m), "goal", obj, C_STATED, "")]


_USE_TO_RE = re.compile(r"^use (?:my|our) [a-z' -]{2,40}? to (\w+)")
# an aim with no content of its own: "make it work", "make a difference", "improve"
_VAGUE_GOAL_RE = re.compile(
    r"^(?:make (?:it|this|that|things|them|this \w+|it all) (?:work|happen|count)|"
    r"make (?:a|an|some) (?:\w+ )?(?:difference|impact)(?: (?:on|in) (?:the|this) world)?|"
    r"make (?:the|this) world a better place|make sure\b.*|improve|do (?:it|this|that|"
    r"my best|better|well|good)|keep (?:going|it up|at it|trying)|get (?:better|there|"
    r"through (?:it|this))|try (?:it|harder|my best)|be (?:better|happy|okay|ok))$"
)


_GOAL_VERBS = _ws(
    """become be learn start open build write publish travel visit run finish get adopt
    move buy own create launch study pursue go work teach compete win climb complete
    return retire improve save raise graduate earn explore make try"""
)


def _b_habit(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _meaningful(obj, 1):
        return []
    first = obj.split()[0].lower()
    if first in ("prefer", "like", "love", "hate", "enjoy", "try", "feel", "think", "say",
                 "want", "wanted", "have", "get", "appreciate", "find", "do", "make", "been",
                 "was", "knew", "know", "wonder", "look", "loved", "thought", "felt", "forget",
                 "forgot", "struggle", "mess", "mix", "confuse", "misspell", "lose", "end"):
        return []
    if _HABIT_BAD_RE.match(obj.lower()) or obj.split()[0].lower().endswith("ed"):
        return []
    adv = m.group("adv")
    return [_Hit(FactType.FACT, _subject(m), "habit", f"{adv} {obj}", C_STATED, "")]


_HABIT_BAD_RE = re.compile(
    r"^(?:(?:down|up) for|looking (?:for|to)|on the (?:lookout|hunt)|open to|keen|eager|worry|"
    r"worried|here|there|around|proud|in awe|so|glad|happy|grateful|thankful|amazed|impressed|"
    r"a fan|rooting|cheering|thinking of you|on your side|by your side|in your corner|"
    r"available|ready to (?:help|listen|chat|talk))\b|.*\b(?:you|your)\b"
)


def _b_note(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _meaningful(obj):
        return []
    return [_Hit(FactType.FACT, "user", "note", obj, C_STATED, "")]


_BAD_LIKE_OBJ = re.compile(
    r"^(?:their|his|her|its|the (?:way|thought|idea|color|colou?rs|pic|photo|picture|vibe|"
    r"look|sound|energy|name|message|detail|details|feeling|result|shot|view|design)s?\b|"
    r"what|how|where|when|why|who|being able|having you|talking|chatting|that|such|all of)"
)


def _b_likes(neg: bool) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        obj = _DEMONSTRATIVE_RE.sub("", _clean(ctx.text(m, "obj"), comma=True))
        low0 = obj.lower()
        if not obj or _BAD_OBJ_START.match(low0) or _BAD_LIKE_OBJ.match(low0) \
                or not _meaningful(obj) or _ONLY_TIME_RE.match(low0):
            return []
        low = obj.lower()
        if low.startswith("to "):
            obj = obj[3:]
            low = low[3:]
            if low.split()[0] in _NOT_PLAN_VERBS | {"hear", "see", "help", "know"}:
                return []
        pred = "dislikes" if neg else "likes"
        if not neg and m.groupdict().get("verb") == "prefer":
            pred = _pref_topic(obj)
        return [_Hit(FactType.PREFERENCE, _subject(m), pred, obj, C_STATED, "")]

    return build


# "a job I enjoy every day": the object is elsewhere, only a time is left
_ONLY_TIME_RE = re.compile(r"^(?:every|each|all) (?:single )?(?:day|morning|night|evening|week|"
                           r"weekend|time|minute|second)$")
_DEMONSTRATIVE_RE = re.compile(r"(?i)^(?:this|that|these|those)\s+(?=[a-z]{3,})")


def _b_liked_thing(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """A named thing the speaker says moves them ("eagles fascinate me")."""
    g = next(g for g in ("obj", "obj2", "obj3", "obj4") if m.groupdict().get(g) is not None)
    obj = _clean(ctx.text(m, g), comma=True)
    obj = _DEMONSTRATIVE_RE.sub("", obj)
    low = obj.lower()
    if not obj or _BAD_OBJ_START.match(low) or _BAD_LIKE_OBJ.match(low) \
            or _YOU_RE.search(low) or not _meaningful(obj) or len(obj.split()) > 10 \
            or low.split()[0] in _NOT_A_THING or _MODAL_RE.search(low):
        return []
    return [_Hit(FactType.PREFERENCE, _subject(m), "likes", obj, C_STATED, "")]


_MODAL_RE = re.compile(r"\b(?:can|could|would|should|will|might|may|must)\b")
# the start of a reaction or a vague pointer, not a named thing
_NOT_A_THING = _ws(
    """he she they we i it's its there here his her their our my everyone everybody
    everything nothing something people life which who what all both each"""
)


def _b_hobby_inv(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "Knitting and baking are my main hobbies": one hobby fact for the list."""
    obj = _clean(ctx.text(m, "obj"))
    low = obj.lower()
    if not obj or _BAD_OBJ_START.match(low) or not _meaningful(obj) \
            or low.split()[0] in _NOT_A_THING:
        return []
    return [_Hit(FactType.FACT, _subject(m), "hobby", obj, C_STATED, "")]


# "Researching adoption agencies." / "Still working on my thesis.": the ongoing activity
# of a clause without a subject; a gerund that is the subject of a verb ("Taking care of
# ourselves is vital") is not one
_GERUND_SUBJECT_VERB_RE = re.compile(
    r"'s\b|'ve\b|'m\b|'re\b|\b[a-z]{3,}ed\b|\b(?:is|was|are|were|has|have|had|helps?|helped|makes?|made|keeps?|kept|"
    r"gives?|gave|sounds?|seems?|looks?|feels?|can|will|would|could|should|must|brings?|"
    r"takes?|means?|meant|needs?|requires?|isn't|wasn't|doesn't|does|lets?|pays?|builds?|"
    r"opens?|reminds?|inspired|inspires|gets?|got|pushes|fascinates)\b"
)
_NOT_ACTIVITY_SUBJECTLESS = _ws(
    """wishing rooting cheering praying hugging congratulating thanking talking speaking
    kidding joking nothing something anything everything morning evening thing
    sending trying seeing hearing reading judging adding spreading supporting chasing
    appreciating missing assuming considering speaking regarding checking catching
    following"""
)


def _b_subjectless_activity(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    g = "obj" if m.groupdict().get("obj") is not None else "obj2"
    ger = m.group("ger" if g == "obj" else "ger2")
    # the rest of the sentence up to a dash: a finite verb or a new subject there makes
    # the gerund the subject of a clause ("Painting's a fun way to ...")
    tail = _DASH_RE.split(ctx.low[m.end("ger" if g == "obj" else "ger2"):], 1)[0]
    if ger in _NOT_ACTIVITY_SUBJECTLESS or ger in _ING_NOT_GERUND or ger in _NOT_ACTIVITY \
            or _GERUND_SUBJECT_VERB_RE.search(tail) or _YOU_RE.search(tail):
        return []
    if _REACTION_AFTER_RE.match(ctx.low, m.end("ger" if g == "obj" else "ger2")):
        return []  # "Combining art and a good cause - that's so cool!": about the listener
    obj = _clean(ctx.text(m, g), comma=True)
    if not obj or obj.count(" ") > 10:
        return []
    pred = "hobby" if ger in _HOBBY_GERUNDS else "activity"
    if pred == "activity" and not _meaningful(obj[len(ger):]):
        return []
    return [_Hit(FactType.FACT, "user", pred, obj, C_STATED, "")]


_REACTION_AFTER_RE = re.compile(
    r"[^.!?;\u2013\u2014]*?(?:\s[-\u2013\u2014]+|[\u2013\u2014]|,)\s*(?:that's|that is|thats|so|"
    r"sounds|how|what|such|must)\b"
)
_DASH_RE = re.compile(r"\s*[-\u2013\u2014]+\s|\u2014")


# -ing words that are adjectives or nouns, not an activity ("Amazing work!")
_ING_NOT_GERUND = _ws(
    """amazing interesting exciting inspiring boring stunning charming relaxing refreshing
    exhausting overwhelming encouraging surprising fascinating satisfying touching
    heartwarming breathtaking rewarding fulfilling challenging frustrating disappointing
    annoying terrifying thrilling astonishing striking pleasing calming soothing uplifting
    motivating promising loving caring willing outstanding compelling entertaining
    intriguing captivating mesmerizing mesmerising tempting welcoming amusing depressing
    embarrassing shocking confusing alarming upsetting fitting matching morning evening
    king ring spring string wedding meaning during ceiling sibling pudding
    darling clothing ending beginning thing something anything nothing everything
    nice-looking good-looking awaiting according including regarding concerning depending
    barring excluding notwithstanding
    following pending lasting incoming outgoing ongoing upcoming everlasting
    heartbreaking eye-opening life-changing mind-blowing jaw-dropping nerve-wracking
    nerve-racking"""
)


def _b_gerund_subject(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "Knitting helps me unwind", "Running the school fair with my class was great"."""
    ger = m.group("ger")
    if ger in _ING_NOT_GERUND or ger in _NOT_ACTIVITY_SUBJECTLESS or ger in _NOT_ACTIVITY \
            or _GERUND_SUBJECT_VERB_RE.search(ctx.low.replace("'s", "  "), m.end("ger"),
                                              m.end("obj")):
        return []
    obj = _clean(ctx.text(m, "obj"))
    low = obj.lower()
    if not obj or _YOU_RE.search(low) or not _meaningful(obj) or re.search(
            r"\b(?:can|could|would|should|will|might|may|must|yourself|ourselves|"
            r"themselves)\b", low):
        return []
    if m.group("past"):
        # "Exploring the old town was amazing": the speaker's own experience
        dated = parse_event_date(low, ctx.ts)
        return [_Hit(FactType.EVENT, "user", "event", obj, C_STATED, "",
                     dated[0] if dated is not None else None)]
    pred = "hobby" if ger in _HOBBY_GERUNDS else "likes"
    kind = FactType.FACT if pred == "hobby" else FactType.PREFERENCE
    subj = "team" if m.group("who") == "us" else "user"
    return [_Hit(kind, subj, pred, obj, C_STATED, "")]


def _b_love_gerund(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "Love experimenting with spices!" (no subject): a taste, when it is an activity."""
    if m.group("ger") in _ING_NOT_GERUND or _YOU_RE.search(ctx.low[m.start("obj"):]):
        return []
    return _b_likes(False)(m, ctx)


def _b_doing_hobby(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"), comma=True)
    head = obj.lower().split()[0] if obj else ""
    if not obj or head in _ING_NOT_GERUND or not (
            head in _HOBBY_NOUNS or head in _HOBBY_GERUNDS or head.endswith("ing")):
        return []
    return [_Hit(FactType.FACT, _subject(m), "hobby", obj, C_STATED, "")]


def _b_shares_own(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "Here's a pic of my family at the beach", "here's a photo of me at the finish line",
    "here's one I painted last week": the speaker shows something of theirs."""
    g = "obj" if m.group("obj") is not None else "obj2"
    obj = _clean(ctx.text(m, g), comma=True)
    low = obj.lower()
    if not obj or not _meaningful(obj) or _STATEMENT_BAD_RE.search(low) \
            or _SHARED_TECH_RE.search(low) or re.search(r"\d", low):
        return []
    lead = _STATEMENT_LEAD_RE.match(ctx.low, m.start())
    raw = _clean(ctx.orig[lead.end() if lead else m.start():m.end(g)], comma=True)
    if len(raw.split()) > 16:
        return []
    subj = "team" if m.group("subj") == "our" else "user"
    return [_Hit(FactType.FACT, subj, "statement", raw[:1].upper() + raw[1:], C_STATED, "")]


# a support case's evidence, not something the speaker owns
_SHARED_TECH_RE = re.compile(
    r"\b(?:screenshot|log|logs|output|code|config|file|files|traceback|stack|order|invoice|"
    r"receipt|account|number|id|ticket|settings|query|script|function|schema|table|data)\b"
)


def _b_gives_time(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "I volunteer at the food bank", "I donate to an animal shelter": an ongoing activity."""
    obj = _clean(ctx.text(m, "obj"))
    rest = obj.split(" ", 1)[1] if " " in obj else ""
    dated = parse_event_date(rest.lower(), ctx.ts)
    if dated is not None:
        rest = rest[: dated[1][0]] + rest[dated[1][1]:]
    if not _meaningful(rest) or _YOU_RE.search(rest.lower()):
        return []  # "the shelter I volunteer at yesterday": the object is elsewhere
    return [_Hit(FactType.FACT, _subject(m), "activity", obj, C_STATED, "")]


def _b_named_answer(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "Her name is Bella." / "They're called Fire Lilies." / "It was Nina Simone!": a
    named thing, kept whole."""
    name = ctx.orig[m.start("obj"):m.end("obj")]
    if not name[:1].isupper() or name.split("'")[0] in _NOT_NAMES \
            or name.lower() in _MONTHS or name.lower() in _WEEKDAYS:  # "It's Monday"
        return []
    raw = _PUNCT_END_RE.sub("", _STATEMENT_LEAD_RE.sub("", ctx.orig.strip())).strip()
    raw = _clean(raw)
    if not raw or len(raw.split()) > 12:
        return []
    return [_Hit(FactType.FACT, "user", "statement", raw, C_STATED, "")]


def _b_learning(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _meaningful(obj):
        return []
    lang = _language(obj.split()[0]) if obj else ""
    if lang:
        return [_Hit(FactType.FACT, _subject(m), "goal", f"learn {lang}", C_STATED, "")]
    pred = "hobby" if (set(obj.lower().split()) & (_HOBBY_NOUNS | _HOBBY_GERUNDS)) \
        else "activity"
    to = m.group("to") or ""
    return [_Hit(FactType.FACT, _subject(m), pred, f"learning {to}{obj}", C_STATED, "")]


def _b_timezone(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj:
        return []
    return [_Hit(FactType.FACT, "user", "timezone", obj, C_STATED, "")]


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


_RELATIVE_EN: dict[str, str] = {
    **{w: w for w in (
        "brother", "sister", "mother", "father", "mom", "mum", "dad", "son", "daughter", "wife",
        "husband", "partner", "boyfriend", "girlfriend", "fiance", "fiancé", "fiancée", "dog",
        "cat", "puppy", "kitten", "grandma", "grandpa", "grandmother", "grandfather", "aunt",
        "uncle", "cousin", "niece", "nephew", "best friend", "roommate", "flatmate", "baby",
        "stepson", "stepdaughter", "twin",
    )},
    "bruder": "brother", "schwester": "sister", "mutter": "mother", "vater": "father",
    "mama": "mom", "papa": "dad", "sohn": "son", "tochter": "daughter", "frau": "wife",
    "mann": "husband", "freund": "boyfriend", "freundin": "girlfriend", "hund": "dog",
    "katze": "cat", "oma": "grandma", "opa": "grandpa", "frère": "brother", "sœur": "sister",
    "soeur": "sister", "mère": "mother", "père": "father", "fils": "son", "fille": "daughter",
    "femme": "wife", "mari": "husband", "copain": "boyfriend", "copine": "girlfriend",
    "chien": "dog", "chat": "cat", "hermano": "brother", "hermana": "sister", "madre": "mother",
    "padre": "father", "hijo": "son", "hija": "daughter", "esposa": "wife", "esposo": "husband",
    "marido": "husband", "novio": "boyfriend", "novia": "girlfriend", "perro": "dog",
    "gato": "cat", "irmão": "brother", "irmã": "sister", "mãe": "mother", "pai": "father",
    "filho": "son", "filha": "daughter", "namorado": "boyfriend", "namorada": "girlfriend",
    "cachorro": "dog", "cão": "dog",
}
_RELATIVE_ALT = "|".join(sorted((re.escape(w) for w in _RELATIVE_EN), key=len, reverse=True))
_CORRECTION_WORDS_RE = re.compile(
    r"\b(?:actually|not|correction|sorry|eigentlich|nicht|korrektur|en fait|pas|no|não|"
    r"en realidad|na verdade|corrección|correção)\b"
)


def _b_relative_name(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """"my brother is called Lukas", "Mein Bruder heißt Lukas": the relative's name."""
    name = ctx.text(m, "obj").strip(" .,!?;:'\"")
    if not name or not name[:1].isupper() or name.lower() in _STOP:
        return []
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


# ---------------------------------------------------------------- fallback statement

_MAX_STATEMENT_WORDS = 30
_STATEMENT_MIN_WORDS = 5  # content words of a clause with no concrete marker
_STATEMENT_NEGATED_RE = re.compile(
    r"\b(?:not|never|no|don't|doesn't|didn't|haven't|hasn't|isn't|aren't|wasn't|can't|won't)\b"
)
_STATEMENT_ANY_PERSON_RE = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|"
                                      r"us|our|ours)\b")
_STATEMENT_LEAD_RE = re.compile(
    r"^(?:(?:hey|hi|hello|oh|ooh|wow|whoa|yeah|yes|yep|yup|no|nope|well|so|and|but|also|"
    r"btw|anyway|anyways|honestly|actually|haha+|lol|ha|hmm+|um+|ah|aw+|ok|okay|thanks|"
    r"thank you|omg|man|dude|gosh|sure|right|totally|absolutely|definitely|cool|nice|"
    r"great|awesome|true|lately|recently)(?:\s+[A-Z][a-z]+)?[\s,!.:;-]+)+"
)
# about the listener, reported speech, advice, troubleshooting, the chat itself
_STATEMENT_BAD_RE = re.compile(
    r"\b(?:you|your|yours|yourself|u|ya|ur)\b|"
    r"\b(?:says|said|thinks|thought|told me|tells me|swears|reckons|suggested|claims|"
    r"should|could|would|shall|must|ought|gotta)\b|"
    r"\b(?:error|errors|bug|bugs|crash|crashes|crashed|crashing|fails?|failing|failed|"
    r"traceback|exception|segfault|stack trace|broken|doesn't work|does not work|"
    r"won't (?:load|start|work|open)|greyed out|logged out|log in|login|password|"
    r"still (?:hasn't|haven't|isn't|aren't|doesn't|don't|won't|can't|not)|hasn't arrived|"
    r"(?:number|id|code|reference) is)\b|"
    r"\b(?:forget|forgot|remember|mentioned|asked|chat|chatted|conversation|talked|"
    r"last time we)\b"
)
# the chatter that opens a reaction: "that's ...", "it's ...", "what a ...", "glad to ..."
_STATEMENT_REACTION_RE = re.compile(
    r"^(?:that|this|it|that's|thats|this is|it's|its|what|how|glad|happy|sorry|so|"
    r"good|great|nice|cool|awesome|amazing|congrats|congratulations|same|me too|"
    r"sounds|looks|seems|(?:i|we)(?:'d| would)? (?:[\w%]+ )?(?:like to|love to|rather|agree|"
    r"can't wait|cannot wait|hope|bet|guess|"
    r"mean|think|believe|feel like|know|understand|get it|appreciate|wish|admire|want|"
    r"wanna|need|needed|'d like|would like|'d love|would love|'d rather|was wondering|"
    r"love (?:that|it|this|how|the way)))\b"
)
# a platitude or a pledge, not a fact about the speaker: "we can make a difference
# together", "we all have our own paths", "I'll keep pushing", "I'm sure we'll make it"
_STATEMENT_PLATITUDE_RE = re.compile(
    r"^(?:together )?we (?:all |really |truly |)(?:can|could|will|'ll|should|must)\b|"
    r"^we all\b|^(?:i|we)(?:'ll| will|'m gonna| am gonna|'m going to| am going to|'re gonna|"
    r" are gonna| won't)(?: \w+){0,2}? (?:keep|continue|never|always|do (?:my|our) best|"
    r"make (?:my|our) dreams|give up|let (?:anything|anyone|it|this))\b|"
    r"^(?:i'm|we're|i am|we are) (?:\w+ )?(?:sure|glad|lucky|blessed|happy|grateful|"
    r"thankful) (?:that )?we\b|^(?:i'm|i am|we're|we are) sure\b|"
    r"^(?:our|my) (?:loved ones|stories|struggles|differences|journeys?|paths?) "
    r"(?:can|give|make|show|are|is)\b|"
    # musing aloud: "I was just thinking about pottery and trains again"
    r"^(?:i was|i've been|i have been|i'm|i am) (?:just |)(?:thinking|wondering) (?:about|of)\b"
)
# a promise to the listener: "I'll ask around", "I'll bring some snacks"
_STATEMENT_PROMISE_RE = re.compile(r"^(?:i'll|i will|we'll|we will)\b")
_STATEMENT_NUMBER_RE = re.compile(
    r"\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|hundred|thousand|dozen|first|second|third)\b"
)
_STATEMENT_TIME_RE = re.compile(
    r"\b(?:" + "|".join(m for m in _MONTHS if len(m) > 3) + r"|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|weekend|summer|winter|spring|autumn|yesterday|"
    r"ago|last (?:week|month|year|night)|when (?:i|we) was|when (?:i|we) were|"
    r"growing up|as a kid|as a child|since)\b"
)
_STATEMENT_KIN_RE = re.compile(
    r"\b(?:my|our)\s+(?:(?:\w+)\s+)?(?:" + _RELATIVE_ALT + r"|kids?|children|family|parents|"
    r"friends?|pets?|dogs|cats|husband|wife|partner|grandparents|siblings)\b"
)
_NOT_NAMES = _ws(
    "I I'm I've I'd I'll Im Ive OK Okay Oh Yeah Yes No Wow Hey Hi Thanks Thank God Lol"
)
# a capitalised word inside the clause, not after a sentence end, not a vocative
# ("I agree, Maria")
_CAP_WORD_RE = re.compile(r"(?<![.!?,]\s)(?<=\s)([A-Z][\w'&-]*)")
_STATEMENT_SUBJECT_RE = re.compile(
    r"^(?:[\w'-]+\s+){0,3}?(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|we'll)\b|"
    r"^(?:my|our)\b"
)


def _statement_score(obj: str) -> int:
    """How much concrete content a statement carries (0: none, not worth storing)."""
    low = obj.lower()
    score = 0
    if _STATEMENT_NUMBER_RE.search(low):
        score += 1
    if _STATEMENT_TIME_RE.search(low):
        score += 1
    if _STATEMENT_KIN_RE.search(low):
        score += 1
    if any(w not in _NOT_NAMES and w.split("'")[0] not in _NOT_NAMES
           for w in _CAP_WORD_RE.findall(obj)):
        score += 1  # a named thing: a place, a person, a title, a brand
    return score


def _b_statement(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """A substantive first-person statement no specific rule read (fallback).

    "I've known these friends for 4 years, since I moved from my home country":
    the whole clause, trimmed, when it is about the speaker (I / we / my / our),
    carries something concrete (a number, a date or period, a relative, a named
    thing) and is neither a reaction ("that's awesome"), about the listener,
    reported speech, advice, troubleshooting of the moment nor about the chat.
    """
    raw = _WS_RE.sub(" ", ctx.orig).strip()
    raw = _STATEMENT_LEAD_RE.sub("", raw)
    raw = _PUNCT_START_RE.sub("", raw)
    raw = re.sub(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]", "", raw)
    raw = _PUNCT_END_RE.sub("", raw).strip()
    words = raw.split(" ")
    if len(words) > _MAX_STATEMENT_WORDS:
        raw = " ".join(words[:_MAX_STATEMENT_WORDS]).rstrip(" ,;:-")
    low = raw.lower()
    if not raw or len(words) < 4 or not _meaningful(raw, 3):
        return []
    if _STATEMENT_BAD_RE.search(low) or _TRIVIAL_EVENT_RE.search(low) \
            or _ABOUT_US_RE.search(low) or _STATEMENT_PLATITUDE_RE.match(low):
        return []
    score = _statement_score(raw)
    if score == 0 and _STATEMENT_PROMISE_RE.match(low):
        return []  # "I'll ask around": a promise of the moment, nothing dated
    if _STATEMENT_SUBJECT_RE.match(low) and not _STATEMENT_REACTION_RE.match(low):
        # "I'm ..." / "my ...": something concrete, or a substantial clause
        if score == 0 and (not _meaningful(raw, _STATEMENT_MIN_WORDS)
                           or _STATEMENT_NEGATED_RE.search(low)):
            return []
    elif score < 2 or not _STATEMENT_ANY_PERSON_RE.search(low):
        # "this was my Rocky Mountains trip last year": about the speaker's own things,
        # with at least two kinds of concrete content
        return []
    dated = parse_event_date(low, ctx.ts)
    when = dated[0] if dated is not None else None
    past = _ED_END_RE.search(low) is not None or bool(
        frozenset(_TOKEN_RE.findall(low)) & _IRREGULAR_PAST_SET)
    kind = FactType.EVENT if (when is not None or past) else FactType.FACT
    subj = "team" if re.match(r"^(?:we|our)\b", low) else "user"
    return [_Hit(kind, subj, "statement", raw, C_STATED, "", when)]


# ---------------------------------------------------------------- the rule table


def _r(
    name: str,
    triggers: str | Iterable[str],
    pattern: str,
    build: Builder,
    fallback: bool = False,
    clauses: bool = False,
) -> _Rule:
    trig = frozenset(triggers.split()) if isinstance(triggers, str) else frozenset(triggers)
    return _Rule(name, trig, re.compile(pattern), build, fallback, pattern.startswith("^"),
                 clauses)


_IM = r"(?:i'm|im|i am)"
_WEARE = r"(?:we're|we are)"
_OBJ = r"(?P<obj>[^.!?;]+)"
_OBJ_SHORT = r"(?P<obj>[^.!?;,]{2,80})"
# "I love this pic": a reaction to what the listener shared, not a taste
_REACTION_NOUNS = (
    r"(?:pic|pics|photo|photos|picture|pictures|shot|idea|one|look|vibe|vibes|message|"
    r"advice|quote|part|moment|news|color|colors|colour|colours|detail|details|stuff|thing|"
    r"way|feeling|energy|attitude|mindset|spot|view)\b"
)
_IRREGULAR_PAST = (
    "went got ran took made met began won bought found gave wrote built drove flew swam sang "
    "drew caught taught brought spent sold grew rode broke chose became held led sent spoke "
    "wore threw fell left did had saw read hit put lost quit ate drank fought dug hung hid "
    "kept lent lit paid rang rose sat slept stood stole struck swore swept swung tore woke "
    "shot shut sank spun split spread came cut beat bit blew froze forgave overcame "
    "underwent withdrew"
)
_EDVERB = (
    r"(?P<verb>set up|" + "|".join(_IRREGULAR_PAST.split()) + r"|[a-z]{2,}ed)"
)
_EDVERB_BARE = _EDVERB.replace("(?P<verb>", "(?:")
_PPVERB = (
    r"(?P<verb>gone|gotten|got|run|taken|made|met|begun|won|bought|found|given|written|"
    r"built|driven|flown|become|done|been to|been through|joined|had|seen|read|sold|"
    r"grown|ridden|started|[a-z]{2,}ed)"
)

_RULES: tuple[_Rule, ...] = (
    # ---------------------------------------------------------- instructions
    _r("instruction_from_now_on", "now forward future onwards onward here today forth",
       r"\b(?:from now on|going forward|from here on(?: out)?|in (?:the )?future|"
       r"starting (?:now|today)|from today on(?:wards)?|henceforth|moving forward)\b[,:]?\s*"
       r"(?:(?:please|pls|can you|could you|you should|you must|i want you to|i'd like you to)"
       r"[,\s]+)*(?P<obj>[^.!?;]+)", _b_instruction),
    _r("instruction_from_now_on_de", "jetzt sofort nun zukunft künftig",
       r"\b(?:ab jetzt|ab sofort|von nun an|in zukunft|künftig)\b[,:]?\s*(?:bitte\s+)?"
       r"(?P<obj>[^.!?;]+)", _b_instruction),
    _r("instruction_from_now_on_fr", "maintenant désormais dorénavant",
       r"(?:(?:à|a) partir de maintenant|désormais|dorénavant)[,:]?\s*"
       r"(?:s'il te plaît\s+|s'il vous plaît\s+)?(?P<obj>[^.!?;]+)", _b_instruction),
    _r("instruction_from_now_on_es_pt", "ahora adelante agora diante",
       r"(?:a partir de (?:ahora|agora)|de ahora en adelante|desde ahora|"
       r"de agora em diante|daqui (?:para|pra) frente)[,:]?\s*"
       r"(?:por favor[,\s]+)?(?P<obj>[^.!?;]+)", _b_instruction),
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
    _r("name_is_multi", "heiße name m'appelle llamo chamo nombre nome",
       r"\b(?:ich heiße|mein name ist|je m'appelle|mon nom est|me llamo|mi nombre es|"
       r"me chamo|meu nome é)\s+(?P<obj>[^\W\d_][\w'-]*)", _b_name),
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
    _r("lives_moved_multi", "gezogen déménagé mudé mudei",
       r"\b(?:(?:ich bin|wir sind)(?: [^\W\d_]+){0,3}? nach (?P<obj>[^.!?;,]+?) gezogen|"
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
       r"(?P<obj>[^\W\d_][\w'-]*(?: [^\W\d_][\w'-]*){0,2})", _b_contact),
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
    # ---------------------------------------------------------- decisions
    _r("decided", "decided chose picked opted settled agreed committed",
       r"\b" + _SUBJ + r"(?:'ve| have)?\s+" + _ADV
       + r"(?:decided|chose|picked|opted|settled|agreed|committed)\s+(?:to |on |for |that )?"
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


_RULE_INDEX: dict[str, tuple[int, ...]] = {}
for _i, _rule in enumerate(_RULES):
    for _t in _rule.triggers:
        _RULE_INDEX[_t] = (*_RULE_INDEX.get(_t, ()), _i)
_ALWAYS: tuple[int, ...] = tuple(i for i, r in enumerate(_RULES) if not r.triggers)
# "not on Jenkins anymore, now it's GitHub Actions": a switch, read by its own rules
_NOT_ANYMORE_FIX_RE = next(r.pattern for r in _RULES if r.name == "not_anymore")
_NO_LONGER_FIX_RE = next(r.pattern for r in _RULES if r.name == "no_longer_now")
_IRREGULAR_PAST_SET = frozenset(_IRREGULAR_PAST.split()) | {"set"}  # "set up"
_ED_END_RE = re.compile(r"ed\b")
_ING_END_RE = re.compile(r"ing\b")


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


# ============================================================== the extractor

_TOKEN_RE = re.compile(r"[\w'-]+")
_INNER_DOT_RE = re.compile(r"(?<=\w)\.(?=\w)")
_KEEP_TIME_PREDICATES = frozenset({"plans_to", "goal", "instruction", "habit", "note"})
_REMEMBER_ONLY = frozenset({"remember_note"})


# "everyone we love", "the things I enjoy": a relative clause, not a statement
_RELATIVE_HEADS = _ws(
    """everyone everybody everything something anything nothing things thing people ones
    one stuff what whatever whoever those all"""
)
_LAST_WORD_RE = re.compile(r"([\w']+)\s*$")


def _relative(low: str, start: int) -> bool:
    if start == 0:
        return False
    m = _LAST_WORD_RE.search(low, 0, start)
    return m is not None and m.group(1) in _RELATIVE_HEADS


_CLAUSE_SEP_RE = re.compile(r",\s*|;\s*|\s+[-–—]+\s+|\s+but\s+")


def _clause_starts(low: str) -> list[int]:
    """Where each clause after the first one starts."""
    return [m.end() for m in _CLAUSE_SEP_RE.finditer(low) if m.end() < len(low)]


def _clause_spans(low: str) -> list[tuple[int, int]]:
    """Spans of the comma / dash / "but" separated clauses of a sentence."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _CLAUSE_SEP_RE.finditer(low):
        if m.start() > pos:
            spans.append((pos, m.start()))
        pos = m.end()
    if pos < len(low):
        spans.append((pos, len(low)))
    return spans


# ---------------------------------------------------------------- retractions
# "forget that I like jazz", "ignore what I said about my editor", "we no longer use
# Jenkins", "I'm not vegetarian anymore", "we stopped using Jenkins": the withdrawn
# statement is rebuilt in its positive form, read by the ordinary rules, and every fact
# found is emitted with ``retracts=True`` (same subject / predicate / object as the fact
# it withdraws, so the resolver can close it).

_RETRACT_TRIGGERS = _ws(
    """forget disregard ignore scratch delete erase remove longer anymore more stopped quit
    ditched dropped abandoned gave rid away off"""
)
_FORGET_RE = re.compile(
    r"(?:^|[,;:]\s*|\b(?:please|pls|and|also|so|oh|actually|ok|okay|just|kindly)[,\s]+)"
    r"(?:(?:can|could|would|will) you (?:please )?)?"
    r"(?:forget|disregard|ignore|scratch|delete|erase|remove)\s+"
    r"(?:(?P<that>(?:about )?(?:the (?:fact|part|bit) )?(?:that|where) )|"
    r"(?P<about>(?:about )?(?:what|everything|anything|all|whatever) (?:i|we) (?:said|told you|"
    r"mentioned|wrote|shared|say|tell you)(?: earlier| before| last time| previously)? "
    r"(?:about|regarding|on|re|concerning) |(?:my|the|your|any) (?:notes?|memory|memories|"
    r"info|information|fact) (?:about|on|regarding|that says) ))"
    r"(?P<rest>[^.!?;]+)"
)
_NO_LONGER_RE = re.compile(
    r"\b(?P<subj>i|we)(?P<be>'m|'re| am| are)?\s+(?:(?:just|also|really|actually|simply)\s+)?"
    r"(?P<neg>no longer\s+)"
)
_NOT_ANYMORE_RE = re.compile(
    r"\b(?P<subj>i|we)(?P<be>'m|'re| am| are)?\s+"
    r"(?P<neg>(?:don't|do not|not|aren't|am not|are not)\s+)(?:(?:really|even|actually)\s+)?"
    r"(?P<mid>[^,;.!?]{1,60}?)\s*\b(?:any ?more|any longer)\b"
)
_STOPPED_RE = re.compile(
    r"\b(?P<subj>i|we)(?:'ve| have)?\s+(?:(?:just|also|finally|recently|actually)\s+)?"
    r"(?:stopped|quit|ditched|dropped|abandoned|gave up(?: on)?|got rid of|moved away from|"
    r"moved off(?: of)?|phased out)\s+(?!off\b|by\b|out\b|in\b|down\b)(?:using\s+)?"
    r"(?P<obj>[^,;.!?]{1,60})"
)
_SWITCH_WORDS_RE = re.compile(r"\b(?:to|for|now|instead|in favou?r of|replaced|with)\b")
_TOPIC_PREDICATES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), pred) for p, pred in (
        (r"\b(?:where i live|my (?:home )?address|my city|where i'm based|where i am based|"
         r"my move|moving)\b", "lives_in"),
        (r"\b(?:my (?:job|role|title|position|occupation|profession)|what i do)\b", "works_as"),
        (r"\b(?:my (?:employer|company|workplace)|where i work)\b", "works_at"),
        (r"\bmy name\b", "name_is"),
        (r"\bmy time ?zone\b", "timezone"),
        (r"\b(?:my diet|diet|vegetarian|vegan|pescatarian|keto|gluten-free)\b", "diet"),
        (r"\b(?:my (?:partner|wife|husband|relationship)|being (?:married|single|engaged))\b",
         "relationship_status"),
    )
)


def _topic_retractions(topic: str, subj: str) -> list[_Hit]:
    """What "ignore what I said about <topic>" withdraws, judged from the topic alone."""
    obj = _clean(topic)
    low = obj.lower()
    if not obj or not _meaningful(obj):
        return []
    pred = _tool_predicate(obj)
    if not pred:
        for alias in sorted(_CATEGORY_ALIASES, key=len, reverse=True):
            if re.search(r"(?<![\w-])" + re.escape(alias) + r"(?![\w-])", low):
                cat = _CATEGORY_ALIASES[alias]
                pred = "deploys_with" if cat == "deploy" else f"uses_tool:{cat}"
                break
    if not pred:
        for rx, p in _TOPIC_PREDICATES:
            if rx.search(low):
                pred = p
                break
    if pred:
        return [_Hit(FactType.CORRECTION, subj, pred, obj, C_STATED, "retraction", None, True)]
    bare = re.sub(r"(?i)^(?:my|our|the|that|how much i (?:like|love|hate)|liking|loving)\s+",
                  "", obj)
    if len(bare.split()) > 4 or not _meaningful(bare):
        return []
    # a taste withdrawn: whichever of likes / dislikes was said
    return [_Hit(FactType.CORRECTION, subj, p, bare, C_STATED, "retraction", None, True)
            for p in ("likes", "dislikes")]


def _cut(orig: str, low: str, pieces: list[tuple[int, int] | str]) -> tuple[str, str]:
    """Rebuild a text from spans of (orig, low) and literal lower-case strings."""
    o: list[str] = []
    lo: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            o.append(piece)
            lo.append(piece)
        else:
            o.append(orig[piece[0]:piece[1]])
            lo.append(low[piece[0]:piece[1]])
    return "".join(o), "".join(lo)


_CORRECTION_LEAD_RE = re.compile(
    r"^(?:(?:small|quick|minor|petite|kleine|pequeña|pequena)\s+)?(?:correction|korrektur|"
    r"corrección|correccion|correção|correcao|erratum|berichtigung)\b"
)


def _merge_events(hits: list[_Hit]) -> list[_Hit]:
    """The events narrated in one turn become one event ("went to a fair; got some leads").

    They are one story told in steps; one fact per step would spend the write budget on
    the same source turn. The first event's date is kept, else the first stated one.
    """
    events = [h for h in hits if h.predicate == "event" and not h.retracts]
    if len(events) < 2:
        return hits
    seen: list[str] = []
    for h in events:
        if normalise(h.object) not in (normalise(x) for x in seen):
            seen.append(h.object)
    first = events[0]
    obj = "; ".join(seen)
    if len(obj) > MAX_OBJECT_CHARS:
        obj = obj[:MAX_OBJECT_CHARS].rsplit(" ", 1)[0].rstrip(" ,.;:")
    when = next((h.valid_from for h in events if h.valid_from is not None), None)
    merged = _Hit(first.type, first.subject, "event", obj, max(h.confidence for h in events),
                  first.rule, when, False)
    out: list[_Hit] = []
    for h in hits:
        if h is first:
            out.append(merged)
        elif h not in events:
            out.append(h)
    return out


class RuleExtractor:
    """Offline, deterministic rule-based extractor (the default)."""

    name = "rules"
    version = "1.3.0"

    def __init__(self) -> None:
        self._rules = _RULES

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        if turn.role is not Role.USER:
            return []
        text = turn.content
        if not text or not text.strip():
            return []
        hits: list[_Hit] = []
        weak: list[_Hit] = []
        for sentence in split_sentences(text):
            self._sentence(sentence, turn.ts, hits, weak)
        # weak inferences ("my wife" -> in a relationship) and the fallback statement
        # only when nothing else fired; at most one statement, the most concrete
        if not hits:
            said = [h for h in weak if h.predicate == "statement"]
            hits = [h for h in weak if h.predicate != "statement"]
            if said:
                hits.append(max(said, key=lambda h: (_statement_score(h.object),
                                                     len(h.object))))
        return self._facts(turn, _merge_events(hits))

    # ---------------------------------------------------------------- internals

    def _sentence(self, sentence: str, ts: datetime, hits: list[_Hit], weak: list[_Hit]) -> None:
        orig = sentence.replace("’", "'").replace("`", "'")
        low = orig.lower()
        if len(low) != len(orig):
            orig = low
        if "." in low:
            low = _INNER_DOT_RE.sub("\u2024", low)  # "2.0" -> "2\u20240", same length
        words = _TOKEN_RE.findall(low)
        if not words:
            return
        wordset = frozenset(words)
        forced = False
        if wordset & _REMEMBER_TRIGGERS:
            rm = _REMEMBER_RE.match(low)
            if rm is not None and low.rstrip().endswith("?") and not re.match(
                    r"^(?:\w+[,\s]+)*?(?:can|could|will|would) you\b", low):
                rm = None  # "Remember that epic block in game 7?" asks, it does not tell
            if rm is not None:
                forced = True
                off = rm.start("rest")
                orig, low = orig[off:], low[off:]
                low_s = low.rstrip(" ?!.")
                orig, low = orig[: len(low_s)], low_s
                words = _TOKEN_RE.findall(low)
                wordset = frozenset(words)
                if not words:
                    return
        if wordset & _SESSION_TRIGGERS and _SESSION_RE.search(low) and not (
                _CURRENT_TASTE_RE.match(low)
                and all(sm.group(0) == "right now" for sm in _SESSION_RE.finditer(low))):
            return  # session-only: "keep it short for this one"
        if wordset & _RETRACT_TRIGGERS:
            blanked = self._retractions(orig, low, ts, hits)
            if blanked is not None:
                orig, low = blanked
                words = _TOKEN_RE.findall(low)
                if not words:
                    return
                wordset = frozenset(words)
        n0 = len(hits)
        self._statement(orig, low, words, wordset, ts, forced, hits, weak)
        if _CORRECTION_LEAD_RE.match(low.lstrip()):
            # "Correction: our main database is Postgres 15"
            hits[n0:] = [
                _Hit(FactType.CORRECTION, h.subject, h.predicate, h.object, h.confidence, h.rule,
                     h.valid_from, h.retracts)
                if h.type in (FactType.FACT, FactType.PREFERENCE) else h
                for h in hits[n0:]
            ]

    def _retractions(
        self, orig: str, low: str, ts: datetime, hits: list[_Hit]
    ) -> tuple[str, str] | None:
        """Emit the retractions of a sentence; return it with their clauses blanked out."""
        found: list[tuple[int, int, str, str, bool, str]] = []  # span, orig', low', topic, subj
        fm = _FORGET_RE.search(low)
        if fm is not None:
            o2, l2 = _cut(orig, low, [(fm.start("rest"), fm.end("rest"))])
            subj = "team" if re.search(r"\b(?:we|our|us)\b", l2) else "user"
            found.append((fm.start(), fm.end(), o2, l2, fm.group("about") is not None, subj))
        elif not (_NOT_ANYMORE_FIX_RE.search(low) or _NO_LONGER_FIX_RE.search(low)):
            spans = _clause_spans(low)
            for rx in (_NO_LONGER_RE, _NOT_ANYMORE_RE, _STOPPED_RE):
                for m in rx.finditer(low):
                    if any(m.start() < e and s < m.end() for s, e, *_ in found):
                        continue
                    ca, cb = next(((a, b) for a, b in spans if a <= m.start() < b),
                                  (m.start(), m.end()))
                    cb = max(cb, m.end())
                    subj = "team" if m.group("subj") == "we" else "user"
                    if rx is _NO_LONGER_RE:
                        o2, l2 = _cut(orig, low, [(m.start(), m.start("neg")), (m.end(), cb)])
                    elif rx is _NOT_ANYMORE_RE:
                        neg = m.group("neg").strip()
                        be = m.group("be") or (" am" if neg == "am not" else " are"
                                               if neg in ("aren't", "are not") else "")
                        o2, l2 = _cut(orig, low, [(m.start("subj"), m.end("subj")), be, " ",
                                                  (m.start("mid"), m.end("mid"))])
                    else:
                        obj = m.group("obj")
                        if _SWITCH_WORDS_RE.search(obj):
                            continue  # "we moved away from Jenkins to GitHub Actions"
                        o2, l2 = _cut(orig, low, [(m.start("subj"), m.end("subj")), " use ",
                                                  (m.start("obj"), m.end("obj"))])
                    found.append((ca, cb, o2, l2, False, subj))
        if not found:
            return None
        blank: list[tuple[int, int]] = []
        for a, b, o2, l2, topic, subj in found:
            got: list[_Hit] = []
            if topic:
                got = _topic_retractions(o2, subj)
            else:
                sink: list[_Hit] = []
                self._run(o2, l2, frozenset(_TOKEN_RE.findall(l2)), ts, False, got, sink)
            got = [h for h in got if h.predicate not in ("event", "note")]
            hits.extend(
                _Hit(FactType.CORRECTION, h.subject, h.predicate, h.object, C_STATED,
                     "retraction", h.valid_from, True)
                for h in got
            )
            if got or fm is not None:
                blank.append((a, b))  # else the clause is read as usual ("I quit my job")
        if not blank:
            return None
        pieces: list[tuple[int, int] | str] = []
        pos = 0
        for a, b in sorted(blank):
            pieces += [(pos, a), " " * (b - a)]
            pos = b
        pieces.append((pos, len(low)))
        return _cut(orig, low, pieces)

    def _statement(
        self, orig: str, low: str, words: list[str], wordset: frozenset[str], ts: datetime,
        forced: bool, hits: list[_Hit], weak: list[_Hit],
    ) -> None:
        spans = [(0, len(low))]
        if not forced and is_question(low):
            # "I use vim, any plugin tips?" keeps its first clause; a question that
            # starts like one ("do you know I'm vegan?") is skipped entirely
            if starts_like_question(low):
                return
            spans = _clause_spans(low)[:-1]
        hypo = not forced and bool(wordset & _HYPO_TRIGGERS) and _HYPO_RE.search(low) is not None
        unsure = bool(wordset & _UNSURE_TRIGGERS) and _UNSURE_RE.search(low) is not None
        if hypo or unsure:
            # drop only the clauses that are hypothetical or uncertain
            spans = [
                (a, b) for a, b in _clause_spans(low)
                if any(a >= s0 and b <= e0 for s0, e0 in spans)
                and not (not forced and _HYPO_RE.search(low[a:b]))
                and not _UNSURE_RE.search(low[a:b])
            ]
        if spans == [(0, len(low))]:
            self._run(orig, low, wordset, ts, forced, hits, weak)
            return
        for a, b in spans:
            sub = low[a:b]
            self._run(orig[a:b], sub, frozenset(_TOKEN_RE.findall(sub)), ts, forced, hits, weak)

    def _run(
        self, orig: str, low: str, wordset: frozenset[str], ts: datetime, forced: bool,
        hits: list[_Hit], weak: list[_Hit],
    ) -> None:
        if not wordset:
            return
        tokens = set(wordset)
        if wordset & _IRREGULAR_PAST_SET or _ED_END_RE.search(low):
            tokens.add("<ed>")
        if _ING_END_RE.search(low):
            tokens.add("<ing>")
        candidates: set[int] = set(_ALWAYS)
        for w in tokens:
            idx = _RULE_INDEX.get(w)
            if idx:
                candidates.update(idx)
        ctx = _Ctx(low=low, orig=orig, ts=ts, forced=forced)
        taken: list[tuple[int, int]] = []
        n_before = len(hits)
        for i in sorted(candidates):
            rule = self._rules[i]
            out = weak if rule.fallback else hits
            if rule.name in _REMEMBER_ONLY:
                if forced and len(hits) == n_before:
                    out.extend(self._apply(rule, rule.pattern.search(low), ctx))
                continue
            if rule.anchored:
                starts = [0]
                if rule.clauses:
                    starts += _clause_starts(low)
                for cs in starts:
                    sctx = ctx if cs == 0 else _Ctx(low=low[cs:], orig=orig[cs:], ts=ts,
                                                     forced=forced)
                    m0 = rule.pattern.match(sctx.low)
                    if m0 is None:
                        continue
                    s0, e0 = m0.start() + cs, m0.end() + cs
                    if any(s0 < te and ts_ < e0 for ts_, te in taken):
                        continue
                    got0 = self._apply(rule, m0, sctx)
                    if got0:
                        taken.append((s0, e0))
                        out.extend(got0)
                        break
                continue
            pos = 0
            while pos <= len(low):
                m = rule.pattern.search(low, pos)
                if m is None:
                    break
                s, e = m.span()
                got: list[_Hit] = []
                if not any(s < te and ts_ < e for ts_, te in taken) and not _relative(low, s):
                    got = self._apply(rule, m, ctx)
                if got:
                    taken.append((s, e))
                    out.extend(got)
                    pos = max(e, s + 1)
                else:
                    # a rejected match must not hide a later clause of the sentence
                    nxt = low.find(" ", s + 1)
                    pos = len(low) + 1 if nxt < 0 else nxt + 1

    @staticmethod
    def _apply(rule: _Rule, m: re.Match[str] | None, ctx: _Ctx) -> list[_Hit]:
        if m is None:
            return []
        out: list[_Hit] = []
        for h in rule.build(m, ctx):
            obj, when = h.object, h.valid_from
            if h.predicate not in _KEEP_TIME_PREDICATES:
                # "Berlin last year" -> "Berlin", valid from Jan 1 of last year
                found = parse_event_date(obj.lower(), ctx.ts)
                if found is not None and _PUNCT_END_RE.sub("", obj[found[1][1]:]) == "":
                    cut = _PUNCT_END_RE.sub("", obj[: found[1][0]]).strip()
                    if cut and _meaningful(cut):
                        obj = cut
                        when = when or found[0]
            out.append(_Hit(h.type, h.subject, h.predicate, obj, h.confidence, rule.name, when,
                            h.retracts))
        return out

    def _facts(self, turn: TurnEvent, hits: list[_Hit]) -> list[CandidateFact]:
        seen: set[tuple[str, str, bool]] = set()
        out: list[CandidateFact] = []
        source = claimed_source(turn.metadata)
        for h in hits:
            obj = h.object.strip()[:MAX_OBJECT_CHARS].strip()
            if not obj:
                continue
            key = (h.predicate, normalise(obj), h.retracts)
            if key in seen or not key[1]:
                continue
            seen.add(key)
            i = len(out)
            out.append(
                CandidateFact(
                    candidate_id=stable_id(turn.tenant_id, turn.turn_id, str(i)),
                    tenant_id=turn.tenant_id,
                    user_id=turn.user_id,
                    session_id=turn.session_id,
                    type=h.type,
                    subject=h.subject,
                    predicate=h.predicate,
                    object=obj,
                    confidence=h.confidence,
                    valid_from=h.valid_from or turn.ts,
                    rationale=h.rule,
                    source_turn_ids=[turn.turn_id],
                    extractor=self.name,
                    extractor_version=self.version,
                    turn_ts=turn.ts,
                    outcome=turn.outcome,
                    confirmed=turn.confirmed,
                    multi_valued=h.predicate in MULTI_VALUED_PREDICATES,
                    retracts=h.retracts,
                    source=source,
                )
            )
            if len(out) >= MAX_FACTS_PER_TURN:
                break
        return out
