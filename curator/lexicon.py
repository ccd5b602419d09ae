"""Word lists and regular-expression fragments shared by the extractor's statement rules.

Pure data, no behaviour: the rules in `curator.rules` build their patterns from these
fragments, and `curator.rules.base` uses the word sets to judge clauses and phrases.
Patterns are compiled case-insensitive; a fragment that must match capitalised words
(names, places) switches that off locally with `(?-i:...)`.

Named groups the fragments bring into a rule's pattern: `name` (`NAME`), `obj` (`PROPER`,
`NP`, `LIST`, `IDENTITY`) and `n` (`NUM`).
"""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    """A word set written as one string: "big huge good" -> {"big", "huge", "good"}."""
    return frozenset(text.split())


# --- who speaks ------------------------------------------------------------------------

CONNECTORS = words(
    "and but so because cause now also plus yeah yes yep yup well oh actually honestly"
    " then though hey hi hello wow lol haha anyway anyways luckily fortunately"
    " unfortunately sadly recently lately finally ok okay sure um uh ah aw aww btw omg ya"
    " guess mean anyhow besides meanwhile first second again currently personally"
    " thankfully just"
)
"""Words that may stand before an anchored "I ..." statement in its sentence."""

ADV = (
    r"(?:(?:just|also|recently|finally|actually|really|even|still|already|totally|absolutely"
    r"|definitely|truly|so|do|kinda|currently|now|always|especially|genuinely|seriously"
    r"|officially|literally|basically|honestly|mostly|simply|happily|proudly|newly|originally"
    r"|both|all|then)\s+)*"
)
"""Adverbs between the subject and its verb ("I just moved", "I've finally started")."""

I_ = rf"\bI\s+{ADV}"
"""The speaker as subject: "I ..." ("I_" because a bare `I` reads as the digit one)."""

IM = rf"\bI(?:'m|\s+am)\s+{ADV}"
IVE = rf"\bI(?:'ve|\s+have)\s+{ADV}"
WE = (
    rf"(?:\b(?:I|we)\s+|\b(?:my\s+\w+|(?-i:[A-Z][a-z]+)|(?:some|a\s+few|two|three)\s+(?:\w+\s+)?"
    rf"(?:friends|colleagues|coworkers|co-workers|workmates|buddies|neighbou?rs|teammates))"
    rf"\s+and\s+I\s+){ADV}"
)
"""A subject the speaker belongs to: "I", "we", "my wife and I", "Mel and I", "some friends
and I"."""

PAST = rf"(?:{WE}|^{ADV})"
"""An event's subject, or none at all ("Went to a concert last night")."""

# --- names and phrases -----------------------------------------------------------------

NOT_NAMES = (
    r"I|And|But|So|The|A|An|My|Is|Was|He|She|They|We|You|It|This|That|Who|Or|Too|Also|Just"
    r"|Oh|Yeah|Yes|No|Not|Mom|Dad|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
    r"|Christmas|Easter|Thanksgiving|Halloween|God|Hey|Hi|Thanks|Thank|Wow|Lol|Haha|Today"
)
NAME_WORD = rf"(?!(?:{NOT_NAMES})\b)[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
NAME = rf"(?-i:(?P<name>{NAME_WORD}(?:\s+{NAME_WORD})?))"
"""A person's name of one or two capitalised words, group `name`."""

PROPER_WORD = r"(?!(?:I|My|And|But|So|The)\b)(?:(?:St|Mt|Ft)\.\s)?[A-Z][\w'&.\-]*[\w]"
PROPER = (
    rf"(?-i:(?P<obj>(?:the\s+)?{PROPER_WORD}(?:\s+(?:(?:of|de|da|do|del|la|le|upon|am|&)\s+)?"
    rf"{PROPER_WORD}){{0,3}}))"
)
"""A proper noun of up to four words ("Berlin", "the Bay of Islands"), group `obj`."""

NP = r"(?P<obj>[^,.;:!?()\"\n]+)"
"""A phrase up to the next punctuation, group `obj`; rules cut and tidy it further."""

LIST = r"(?P<obj>[^.;:!?()\"\n]+)"
"""A phrase that may be a list ("hiking, camping and pottery"), group `obj`."""

FUNCTION_WORDS = words("to and or of for in on at with so too do not all own more")
"""Words that are never a value on their own."""

# --- family and pets -------------------------------------------------------------------

REL_ATTR = {
    "sister": "sibling_of", "brother": "sibling_of", "sibling": "sibling_of",
    "twin": "sibling_of", "husband": "married_to", "wife": "married_to",
    "spouse": "married_to", "son": "parent_of", "daughter": "parent_of", "kid": "parent_of",
    "child": "parent_of", "mom": "child_of", "mother": "child_of", "dad": "child_of",
    "father": "child_of", "partner": "partner_of", "boyfriend": "partner_of",
    "girlfriend": "partner_of", "fiance": "partner_of", "fiancé": "partner_of",
    "fiancee": "partner_of", "fiancée": "partner_of", "friend": "knows",
    "best friend": "knows", "grandma": "family", "grandmother": "family",
    "grandpa": "family", "grandfather": "family", "aunt": "family", "uncle": "family",
    "cousin": "family", "niece": "family", "nephew": "family", "grandson": "family",
    "granddaughter": "family", "mother-in-law": "family", "father-in-law": "family",
    "cousins": "family", "grandparents": "family", "nieces": "family", "nephews": "family",
    "aunts": "family", "uncles": "family",
    "sister-in-law": "family", "brother-in-law": "family", "stepdaughter": "parent_of",
    "stepson": "parent_of", "stepmom": "child_of", "stepdad": "child_of",
    "parents": "family", "kids": "family", "children": "family", "sons": "family",
    "daughters": "family", "sisters": "family", "brothers": "family", "siblings": "family",
    "grandkids": "family", "grandchildren": "family", "colleague": "knows",
    "coworker": "knows", "co-worker": "knows", "neighbor": "knows", "neighbour": "knows",
    "roommate": "knows", "flatmate": "knows", "housemate": "knows", "classmate": "knows",
    "teammate": "knows", "boss": "knows", "mentor": "knows", "buddy": "knows",
}  # fmt: skip
"""A relative's word -> the attribute relating the speaker to them."""

RELS = "|".join(sorted(REL_ATTR, key=len, reverse=True))
REL_MOD = r"(?:(?:little|big|baby|older|younger|elder|twin|oldest|youngest|eldest|best)\s+)?"
PETS = (
    "dog|dogs|cat|cats|puppy|puppies|pup|pups|kitten|kittens|hamster|hamsters|bunny|bunnies"
    "|rabbit|rabbits|parrot|parrots|horse|horses|turtle|turtles|guinea pig|guinea pigs|snake"
    "|snakes|lizard|lizards|bird|birds|tortoise|tortoises"
)
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
NUM = r"(?P<n>\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
"""A small count in digits or words, group `n` (see `NUMBERS`)."""

# --- identity and work -----------------------------------------------------------------

IDENTITY_ADJ = (
    "trans|transgender|cis|cisgender|gay|lesbian|bisexual|bi|queer|non-binary|nonbinary"
    "|genderqueer|genderfluid|intersex|asexual|aromantic|pansexual|straight|vegan|vegetarian"
    "|introverted|extroverted|introvert|extrovert"
)
IDENTITY_NOUN = "woman|man|girl|guy|person|lesbian|vegan|vegetarian|introvert|extrovert"
IDENTITY = rf"(?P<obj>(?:(?:{IDENTITY_ADJ})\s+){{1,2}}(?:{IDENTITY_NOUN})|(?:{IDENTITY_ADJ}))"
OCCUPATIONS = (
    "nurse|teacher|doctor|physician|surgeon|dentist|pharmacist|engineer|developer|programmer"
    "|designer|architect|lawyer|attorney|accountant|banker|chef|baker|barista|waiter|waitress"
    "|bartender|cashier|electrician|plumber|carpenter|mechanic|pilot|firefighter"
    "|police officer|paramedic|therapist|counselor|counsellor|psychologist|psychiatrist"
    "|social worker|scientist|researcher|professor|lecturer|librarian|journalist|reporter"
    "|editor|novelist|photographer|illustrator|animator|musician|singer|actor|actress"
    "|dancer|choreographer|manager|consultant|analyst|entrepreneur|freelancer|farmer"
    "|veterinarian|vet|student|intern|realtor|secretary|receptionist|tutor|coach|instructor"
    "|nanny|caregiver|technician|biologist|chemist|physicist|economist|filmmaker|producer"
    "|composer|hairdresser|barber|tattoo artist|personal trainer|principal|janitor"
    "|lifeguard|soldier|marine|midwife|optometrist|paralegal|translator|interpreter"
    "|copywriter|web developer|data scientist|software engineer|artist|painter|writer"
    "|author|streamer|youtuber|blogger|trainer|clerk|contractor|surveyor|miner|fisherman"
    "|pediatrician|paediatrician|physiotherapist|physical therapist|nurse practitioner"
    "|dermatologist|cardiologist|radiologist|anesthesiologist|psychotherapist|midwife"
    "|sous chef|line cook|courier|truck driver|delivery driver|warehouse worker"
)
EVALUATIVE = words(
    "big huge good great bad terrible awful better worse total real true proud lucky"
    " happy busy tired decent amazing horrible born natural aspiring wannabe former ex"
    " retired future would-be failed struggling hopeless lousy fantastic awesome fan"
)
"""Words that make "I'm a big fan", "I'm a lucky guy" a judgement, not an occupation."""

# --- tastes, requests, plans and events ------------------------------------------------

FAV = r"(?:favou?rite|fave|fav|top\s+pick)"
LANGUAGES = (
    "English|Spanish|French|German|Portuguese|Italian|Dutch|Japanese|Chinese|Mandarin"
    "|Cantonese|Korean|Russian|Arabic|Hindi|Polish|Swedish|Norwegian|Danish|Finnish|Turkish"
    "|Greek|Hebrew|Ukrainian|Czech|Romanian|Hungarian|Vietnamese|Thai|Indonesian|Catalan"
)
SKIP_GOALS = words(
    "be say tell admit have need let go get take make do check look see try keep miss bed"
    " sleep school work church class town the a an my your this that it you give stay"
    " start continue stick hold hang"
)
"""First words of a "plan to ..." that is an errand or a figure of speech, not a goal."""

TRIVIAL_PLACES = words(
    "bed sleep work school store bathroom doctor home office lunch dinner breakfast"
    " kitchen room church class gym mall grocery bank toilet shower market supermarket"
    " dentist vet pharmacy hairdresser barber laundromat post dmv"
)
"""Where one "went to" every day: not an event worth remembering."""

GROUPS = (
    r"club|group|team|community|band|choir|gym|league|society|organization|organisation"
    r"|program|programme|network|circle|church|union|crew|squad|chapter|association"
    r"|class|course|workshop|collective|guild|troupe|orchestra|brigade|forum|committee|board"
    r"|meetup|ensemble|cooperative|co-op|fellowship|lessons"
)
RACES = r"race|marathon|half-marathon|5k|10k|triathlon|relay|fun run|ultra|charity run"

# --- endings, changes and other people --------------------------------------------------

ANYMORE = r"(?:any\s?more|no\s+more)"
"""What makes "I don't live in Oslo" an ending: "... anymore" (not a plain negation)."""

HABIT_VERBS = {
    "drink": "drinking", "eat": "eating", "smoke": "smoking", "play": "playing",
    "watch": "watching", "use": "using", "take": "taking", "ride": "riding",
    "drive": "driving", "cook": "cooking", "read": "reading", "run": "running",
    "go to": "going to", "do": "doing", "vape": "vaping", "swim": "swimming",
}  # fmt: skip
"""Verbs of a habit ("I don't drink coffee anymore") -> their -ing form (the habit's value)."""

GIVE_UP = (
    "coffee|tea|caffeine|alcohol|booze|beer|wine|sugar|meat|red meat|dairy|gluten|soda"
    "|cigarettes|chocolate|carbs|junk food|fast food|social media|gaming|sweets|snacks"
)
"""What one gives up as a habit ("I gave up coffee"), as opposed to "gave up hope"."""

POSSESSIONS = (
    "car|bike|bicycle|motorbike|motorcycle|scooter|house|apartment|flat|condo|boat|piano"
    "|guitar|truck|van|camper|campervan|laptop|tv|television|console|drum kit|keyboard"
)
"""Things owned that one sells or gives away ("I sold my car")."""

DIETS = "vegan|vegetarian|pescatarian|keto|paleo|gluten-free|dairy-free|plant-based|carnivore"
SHIFTS = {
    "night": "night", "nights": "night", "graveyard": "night", "overnight": "night",
    "day": "day", "days": "day", "morning": "morning", "mornings": "morning",
    "evening": "evening", "evenings": "evening", "afternoon": "afternoon",
    "early": "early", "late": "late", "swing": "swing", "weekend": "weekend",
    "weekends": "weekend",
}  # fmt: skip
"""A work shift's word -> the `shift` value ("the graveyard shift" is "night")."""

SHIFT = "|".join(sorted(SHIFTS, key=len, reverse=True))
PEOPLE_RELS = "|".join(sorted((r for r in REL_ATTR if r == "boss" or not r.endswith(("s", "ren"))),
                              key=len, reverse=True))  # fmt: skip
"""The relatives and acquaintances that name one person ("sister", not "sisters")."""

NAMED_FROM = (
    r"(?:\s+from\s+(?:college|work|school|high\s+school|uni|university|church|the\s+gym"
    r"|home|the\s+office|yoga|book\s+club))?"
)
"""How a named person may be placed before the statement ("my friend Tom from college")."""

MAX_AGE = 120
"""An age at or above this is not a person's age ("I'm 150% sure")."""
