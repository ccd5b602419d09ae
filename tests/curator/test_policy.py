"""Each rule of the risk table (curator.policy, CONTRACT §3), one behaviour per case."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from committer.proposals import EntityRef, Proposal, Provenance
from curator.policy import RULES, Context, decide
from curator.statements import Policy, review_statement

AT = datetime(2024, 3, 10, 9, tzinfo=UTC)
CTX = Context(
    owner="dana",
    speaker=None,
    threshold=0.8,
    privileged=frozenset({"health", "finances", "credentials"}),
)


def proposal(
    attribute: str = "location",
    value: str = "Porto",
    *,
    source: str = "user_stated",
    confidence: float = 0.9,
    subject: EntityRef | None = None,
    evidence: str | None = None,
) -> Proposal:
    return Proposal(
        id="p1",
        subject=subject or EntityRef(),
        attribute=attribute,
        value=value,
        valid_from=AT,
        type="test",
        provenance=Provenance(
            source=source, confidence=confidence, evidence=evidence or f"{attribute} {value}"
        ),
    )


@pytest.mark.parametrize(
    ("p", "ctx", "rule", "action"),
    [
        # 1 secret: dropped, whoever says it.
        (proposal("password", "hunter2"), CTX, "secret", "drop"),
        (
            proposal("note", "my PIN is 4321", evidence="remember that my PIN is 4321"),
            CTX,
            "secret",
            "drop",
        ),
        (proposal("note", "card 4111 1111 1111 1111"), CTX, "secret", "drop"),
        (
            proposal(
                "favorite_color",
                "x",
                source="untrusted",
                evidence="the user's api key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e",
            ),
            CTX,
            "secret",
            "drop",
        ),
        # 2 untrusted source.
        (proposal(source="untrusted"), CTX, "untrusted source", "hold"),
        # 3 inferred.
        (proposal(source="inferred"), CTX, "inferred", "hold"),
        # 4 privileged category, by attribute and by value.
        (proposal("medication", "insulin"), CTX, "privileged category", "hold"),
        (proposal("salary", "90k"), CTX, "privileged category", "hold"),
        (proposal("identity", "living with diabetes"), CTX, "privileged category", "hold"),
        # ... and configurable: without "health" it is not privileged.
        (
            proposal("medication", "insulin"),
            Context("dana", None, 0.8, frozenset({"finances"})),
            "clear and low-risk",
            "commit",
        ),
        # 5 another person's private detail (not the owner, not the speaker).
        (proposal(subject=EntityRef(name="Ana")), CTX, "another person's private detail", "hold"),
        (
            proposal(subject=EntityRef(name="Ana")),
            Context("dana", "Ana", 0.8, frozenset()),
            "clear and low-risk",
            "commit",
        ),
        (
            proposal("likes", "jazz", subject=EntityRef(name="Ana")),
            CTX,
            "clear and low-risk",
            "commit",
        ),
        (proposal(subject=EntityRef(name="Dana")), CTX, "clear and low-risk", "commit"),
        # ... only people have privacy: a lamp's location from an integration commits
        # (a regression: it was held as "another person's private detail").
        (
            proposal(
                "location",
                "Kitchen",
                source="integration:homeassistant",
                subject=EntityRef(name="Lamp Zeta", kind="device"),
            ),
            CTX,
            "clear and low-risk",
            "commit",
        ),
        # 6 low confidence.
        (proposal(confidence=0.79), CTX, "low confidence", "hold"),
        (proposal(confidence=0.8), CTX, "clear and low-risk", "commit"),
        # 7 unknown source.
        (proposal(source="gossip"), CTX, "unknown source", "hold"),
        (proposal(source="integration:"), CTX, "unknown source", "hold"),
        # 8 clear and low-risk.
        (proposal(), CTX, "clear and low-risk", "commit"),
        (proposal(source="integration:calendar"), CTX, "clear and low-risk", "commit"),
    ],
)
def test_risk_table(p: Proposal, ctx: Context, rule: str, action: str) -> None:
    """The first rule that applies decides, with its action."""
    decided = decide(p, ctx)
    assert (decided.name, decided.action) == (rule, action)


def test_table_order_is_the_documented_one() -> None:
    """The table reads top to bottom as the module docstring says; the last rule catches all."""
    assert [r.name for r in RULES] == [
        "secret",
        "untrusted source",
        "inferred",
        "privileged category",
        "another person's private detail",
        "low confidence",
        "unknown source",
        "clear and low-risk",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I'm allergic to shellfish and I use my inhaler every morning.",
            {("allergy", "shellfish", "hold"), ("habit", "using inhaler", "hold")},
        ),
        ("I take insulin every evening.", {("habit", "taking insulin", "hold")}),
        ("I go to dialysis every Tuesday.", {("habit", "going to dialysis", "hold")}),
        ("I take my meds every night before bed.", {("habit", "taking meds", "hold")}),
        ("I swim every morning before work.", {("habit", "swimming", "commit")}),
    ],
)
def test_a_habit_naming_a_treatment_is_health_and_held(
    text: str, expected: set[tuple[str, str, str]]
) -> None:
    """A value that names a medication or treatment puts any attribute in `health`, so a
    habit such as "taking insulin" waits for the person's yes (CONTRACT §3 privileged);
    a habit that names none still commits."""
    policy = Policy(0.8, ("health", "finances", "credentials"))
    reviewed = review_statement("dana", policy, AT, text=text)
    got = {(r.proposal.attribute, str(r.proposal.value), r.action) for r in reviewed}
    assert got == expected
