"""Lexicons of the rule extractor: confidence anchors, languages, tools, tool categories,
preference topics, occupations, diets, pets, relatives, hobbies."""

from __future__ import annotations

import re

MAX_OBJECT_CHARS = 300

C_STATED = 0.9
C_INFERRED = 0.5
C_GUESS = 0.3

def _ws(text: str) -> frozenset[str]:
    """The white-space separated words of ``text`` as a set (lexicon helper)."""
    return frozenset(text.split())

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

_NOT_ACTIVITY = _ws(
    """going thinking feeling hoping loving wondering doing getting having looking saying
    telling asking kidding glad sorry being planning considering sending sharing showing
    missing keeping staying letting wanting needing meaning guessing waiting coming
    leaving talking chatting texting calling hearing seeing listening excited proud happy
    noticing realizing counting bringing holding dying enjoying"""
)

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
