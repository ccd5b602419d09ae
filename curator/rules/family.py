"""The speaker's family, pets and relationship status.

"my sister Ana" (a relationship to the person Ana), "Toby, my puppy." (a named pet),
"I have two kids", "we adopted a kitten last week", "I'm married to Sam".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from committer.proposals import EntityRef
from curator.lexicon import ADV, I_, IM, NAME, NAME_WORD, NUM, PETS, REL_ATTR, REL_MOD, RELS, WE
from curator.rules.base import Found, Rules, Sentence, count, end_ok, speaks_for_self, state

RULES = Rules()

_APPOSITION = re.compile(
    rf"(?:^|(?<=\s))(?-i:(?P<name>{NAME_WORD})),\s+$",
    re.IGNORECASE,
)


def _name_before(s: Sentence, m: re.Match[str]) -> str | None:
    """The name in an apposition that ends its clause: "meet Toby, my puppy." (not a vocative).

    The name must not follow a greeting ("Hey Mel, my sister ...") and the relative or pet
    must end the clause, so "Caroline, my husband and I went" names nobody.
    """
    if not re.match(r"\s*(?:[.!,;]|$)", s.text[m.end() :]):
        return None
    found = _APPOSITION.search(s.text, 0, m.start())
    if found is None or not speaks_for_self(s, found.start(), "free"):
        return None
    head = s.text[: found.start()].rstrip().lower()
    greeting = re.search(r"(?:^|\b)(?:hey|hi|hello|thanks|thank you|oh|yeah|wow|sorry|aw+)$|,$",
                         head)  # fmt: skip
    return None if greeting or (not head and m.end() < len(s.text.rstrip(" .!"))) else found["name"]


@RULES.add(rf"\bmy\s+{REL_MOD}(?P<rel>{RELS})\b(?!-|'s\s+(?:friend|boyfriend|girlfriend))"
           rf"(?:\s+{NAME}(?!'s\s+(?:friend|house)))?", "free")  # fmt: skip
def _relative(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    rel, name = " ".join(m["rel"].lower().split()), m["name"] or _name_before(s, m)
    attr = REL_ATTR[rel]
    if name and (rel == "boss" or not rel.endswith(("s", "ren"))):
        obj = EntityRef(name=name, kind="person")
        yield Found(attr, None, "family", f"{rel} {name}", 0.85, obj=obj, mention=True)
    elif attr != "knows":
        yield Found("family", rel, "family", f"has {rel}", 0.8, mention=True)


@RULES.add(
    rf"\bmy\s+(?:(?:new|little|old|sweet)\s+)?(?P<pet>{PETS})\b(?!'s\s+\w+ing\b)"
    rf"(?!\s+(?:painting|drawing|picture|photo|pic|sculpture|toy|toys|figurine|costume|print"
    rf"|bowl|food|bed|leash|collar|mug|shirt|poster|sketch)\b)(?:\s+{NAME})?",
    "free",
)
def _pet(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    kind, name = " ".join(m["pet"].lower().split()), m["name"] or _name_before(s, m)
    value = f"{name} ({kind})" if name else kind
    yield Found("pet", value, "family", f"has a pet {value}", 0.8, mention=True)


@RULES.add(
    rf"(?:{WE}|^{ADV})(?:got|adopted|rescued)\s+(?:a|an|another|this|that)\s+"
    rf"(?:(?:new|sweet|cute|little|adorable|tiny|lovely|gorgeous)\s+)*(?P<pet>{PETS})\b"
    rf"(?:\s+(?:named|called)\s+{NAME})?"
)
def _got_pet(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    kind = m["pet"].lower()
    value = f"{m['name']} ({kind})" if m["name"] else kind
    yield state("pet", value, "family", f"has a pet {value}", 0.8, s, m, change=True)


@RULES.add(
    rf"(?:{I_}|\bwe\s+{ADV})(?:have|have\s+got|'ve\s+got)\s+{NUM}\s+{REL_MOD}"
    rf"(?:(?P<rel>{RELS})|(?P<pet>{PETS}))\b(?:\s+(?:named|called)\s+{NAME})?"
)
def _have_family(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    n, noun = count(m["n"]), (m["rel"] or m["pet"]).lower()
    if noun in ("friend", "best friend", "partner"):
        return
    if m["name"] and n == 1 and m["rel"] and REL_ATTR[noun] != "knows":
        obj = EntityRef(name=m["name"], kind="person")
        yield Found(REL_ATTR[noun], None, "family", f"{noun} {m['name']}", 0.85, obj=obj)
        return
    value = noun if n == 1 else f"{n} {noun}"
    yield Found("pet" if m["pet"] else "family", value, "family", f"has {value}", 0.8)


@RULES.add(
    rf"(?:{IM}(?:happily\s+)?|(?P<chg>(?:{I_}|\bwe\s+{ADV})got\s+))"
    rf"(?P<st>married|single|divorced|engaged|widowed|separated)\b(?:\s+to\s+{NAME})?"
)
def _status(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    status = m["st"].lower()
    if m["chg"] and status not in ("married", "engaged", "divorced"):
        return
    after = s.text[m.end() :]
    placed = m["chg"] and re.match(r"\s+(?:on|in|at|during|over|after|before)\s", after)
    if not m["name"] and not end_ok(s, m.end()) and not placed:
        return
    yield state("relationship_status", status, "family", f"is {status}", 0.85, s, m,
                change=bool(m["chg"]))  # fmt: skip
    if m["name"] and status == "married":
        yield Found("married_to", None, "family", f"married to {m['name']}", 0.85,
                    obj=EntityRef(name=m["name"], kind="person"))  # fmt: skip
