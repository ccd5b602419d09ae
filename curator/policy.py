"""The risk policy: which proposals commit themselves and which wait for the person (§3).

One table, read top to bottom; the first rule that applies decides:

| # | rule                    | applies when                                              | action |
|---|-------------------------|-----------------------------------------------------------|--------|
| 1 | secret                  | the value, an entity name or the evidence carries a       | drop   |
|   |                         | password, PIN, API key, card number or other credential   |        |
| 2 | untrusted source        | drawn from assistant or tool messages, documents, pasted  | hold   |
|   |                         | web text (source `untrusted`)                             |        |
| 3 | inferred                | the curator inferred it (source `inferred`)               | hold   |
| 4 | privileged category     | health, finances, credentials (configurable:              | hold   |
|   |                         | `WORLDSTATE_PRIVILEGED_AREAS`), by attribute or by value  |        |
| 5 | another person's private| about a person who is neither the owner nor the speaker,  | hold   |
|   | detail                  | in a private area (where they live, family, identity)     |        |
| 6 | low confidence          | confidence below `WORLDSTATE_AUTO_COMMIT_THRESHOLD`       | hold   |
| 7 | unknown source          | any source other than `user_stated`, `user_edit`,         | hold   |
|   |                         | `integration:<name>`                                      |        |
| 8 | clear and low-risk      | everything else: the person plainly said it about         | commit |
|   |                         | themselves, or an integration plainly observed it         |        |

"drop" means never proposed at all: it is not stored, not shown, not committed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from committer.proposals import PRIVILEGED, Proposal
from committer.secrets import proposal_secret
from graph import attributes as registry
from graph.names import search_key

Action = Literal["drop", "hold", "commit"]

CATEGORY_ATTRIBUTES: dict[str, frozenset[str]] = {
    "health": frozenset(
        {
            "health",
            "condition",
            "diagnosis",
            "medication",
            "allergy",
            "disability",
            "symptom",
            "therapy",
            "mental_health",
            "pregnancy",
            "weight",
            "blood_type",
        }
    ),
    "finances": frozenset(
        {
            "salary",
            "income",
            "debt",
            "loan",
            "savings",
            "bank",
            "net_worth",
            "credit_score",
            "rent",
            "mortgage",
        }
    ),
    "credentials": frozenset(
        {"password", "pin", "passcode", "api_key", "token", "card_number", "security_answer", "ssn"}
    ),
}
"""Attributes that belong to a privileged category, besides the registry's `area`."""

CATEGORY_WORDS: dict[str, re.Pattern[str]] = {
    "health": re.compile(
        r"\b(?:diabet\w*|cancer|tumou?r|depress\w*|anxiety|adhd|autis\w*|hiv|aids|asthma"
        r"|epilep\w*|bipolar|schizo\w*|chemo\w*|therap\w*|medication|antidepressant\w*"
        r"|diagnos\w*|pregnan\w*|miscarriage|surgery|rehab|addict\w*|ptsd|eating disorder"
        # medications and treatments: "I take insulin every day" is a habit, and health
        r"|insulin|meds|medications?|prescriptions?|pills?|antibiotics?|antihistamines?"
        r"|painkillers?|opioids?|steroids?|statins?|blood thinners?|beta[ -]blockers?"
        r"|metformin|methadone|inhalers?|nebuli[sz]ers?|epipens?|dialysis|radiotherapy"
        r"|physio\w*|psychiatr\w*|counsell?ing|ivf|transplant|hormone replacement|hrt"
        # conditions curator/rules/health.py names, beyond those above
        r"|migraines?|arthritis|hypertension|high blood pressure|insomnia|sleep apnea"
        r"|celiac|coeliac|crohn's|lupus|multiple sclerosis|fibromyalgia|dementia"
        r"|alzheimer'?s|parkinson'?s|endometriosis|pcos|hypothyroidism)\b",
        re.IGNORECASE,
    ),
    "finances": re.compile(
        r"\b(?:salary|debt|loan|mortgage|bankrupt\w*|credit score|overdraft|savings"
        r"|income|net worth|owe[sd]?)\b",
        re.IGNORECASE,
    ),
}
"""Words in a value that put it in a privileged category whatever its attribute."""

OTHER_PERSON_PRIVATE_AREAS = frozenset({"place", "family", "identity"})
"""Areas that are private details when the fact is about another person (CONTRACT §3)."""

TRUSTED_SOURCES = ("user_stated", "user_edit")


@dataclass(frozen=True, slots=True)
class Context:
    """What the policy knows besides the proposal.

    Attributes:
        owner: the owner id (a person named like it is the owner).
        speaker: who said the message the proposal came from (None = the owner).
        threshold: confidence at or above which a clear proposal commits.
        privileged: the privileged categories (areas) in force.
    """

    owner: str
    speaker: str | None
    threshold: float
    privileged: frozenset[str]


@dataclass(frozen=True, slots=True)
class RiskRule:
    """One row of the risk table."""

    name: str
    action: Action
    applies: Callable[[Proposal, Context], bool]


def _secret(p: Proposal, ctx: Context) -> bool:
    # The committer's own check (it drops such a proposal too), plus credential attributes.
    return p.attribute in CATEGORY_ATTRIBUTES["credentials"] or proposal_secret(p) is not None


def category(p: Proposal) -> str | None:
    """The privileged category a proposal falls in by attribute, registry area or value."""
    for name, attributes in CATEGORY_ATTRIBUTES.items():
        if p.attribute in attributes:
            return name
    area = registry.spec(p.attribute).area
    if area in CATEGORY_ATTRIBUTES:
        return area
    value = " ".join(str(x) for x in (p.value, p.object.name if p.object else None) if x)
    for name, words in CATEGORY_WORDS.items():
        if words.search(value) or words.search(p.attribute.replace("_", " ")):
            return name
    return None


def _privileged(p: Proposal, ctx: Context) -> bool:
    found = category(p)
    return found is not None and found in ctx.privileged


def _about_someone_else(p: Proposal, ctx: Context) -> bool:
    name = p.subject.name
    if p.subject.kind != "person":  # a device's or a place's location is no one's privacy
        return False
    if p.subject.id is not None or not name or not name.strip():
        return False
    key = search_key(name)
    if key == search_key(ctx.owner) or (ctx.speaker and key == search_key(ctx.speaker)):
        return False
    return registry.spec(p.attribute).area in OTHER_PERSON_PRIVATE_AREAS


def _known_source(p: Proposal, ctx: Context) -> bool:
    source = p.provenance.source
    return source in TRUSTED_SOURCES or (
        source.startswith("integration:") and len(source) > len("integration:")
    )


RULES: tuple[RiskRule, ...] = (
    RiskRule("secret", "drop", _secret),
    RiskRule("untrusted source", "hold", lambda p, ctx: p.provenance.source == "untrusted"),
    RiskRule("inferred", "hold", lambda p, ctx: p.provenance.source == "inferred"),
    RiskRule(PRIVILEGED, "hold", _privileged),
    RiskRule("another person's private detail", "hold", _about_someone_else),
    RiskRule("low confidence", "hold", lambda p, ctx: p.provenance.confidence < ctx.threshold),
    RiskRule("unknown source", "hold", lambda p, ctx: not _known_source(p, ctx)),
    RiskRule("clear and low-risk", "commit", lambda p, ctx: True),
)


def decide(p: Proposal, ctx: Context, rules: Sequence[RiskRule] = RULES) -> RiskRule:
    """Return the first rule of the risk table that applies to `p` (CONTRACT §3)."""
    for rule in rules:
        if rule.applies(p, ctx):
            return rule
    raise AssertionError("the last rule applies to everything")  # pragma: no cover
