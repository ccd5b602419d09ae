"""Finding entities that look like one thing (CONTRACT §4 "Merge suggestions").

Two live entities of one owner and one kind are a candidate when

* they share a name or alias (after case, accent and white-space folding), or
* their names are alike: rapidfuzz `token_sort_ratio` >= `ALIKE` ("Jon Smith" /
  "John Smith", "Caroline" / "Carolyn"), or
* one name's words are all in the other's ("Ana" / "Ana Silva", `token_set_ratio` 100)
  or the names are fairly alike (>= `NEAR`), and they share a current fact (same
  attribute and value: both live in Porto, both work on Atlas).

Only pairs with at least one entity touched by the run just applied are examined, and
a pair suggested before (in any state) is left out: a declined pair never comes back.
The curator only raises the suggestion; merging waits for the person's confirm.
"""

from __future__ import annotations

from collections.abc import Iterable

from rapidfuzz import fuzz

from committer.proposals import Candidate, pair_key
from graph.names import search_key
from graph.read.reader import Reader
from graph.records import EntityRecord
from graph.time import AsOf

ALIKE = 88.0
NEAR = 75.0
WHOLE = 100.0
"""A rapidfuzz score of a name wholly inside the other ("Ana" in "Ana Lima")."""
PAGE = 1000


def _all_entities(reader: Reader, owner: str) -> list[EntityRecord]:
    out: list[EntityRecord] = []
    after = None
    while True:
        page = reader.entities(owner, after=after, limit=PAGE)
        out.extend(e for e in page if e.merged_into is None)
        if len(page) < PAGE:
            return out
        after = page[-1].id


def _names(e: EntityRecord) -> set[str]:
    return {search_key(n) for n in (e.name, *e.aliases) if n.strip()}


def find_candidates(reader: Reader, owner: str, touched: Iterable[str]) -> list[Candidate]:  # noqa: PLR0912  # the candidate rules of the module table, in order
    """Return new merge candidates among the owner's entities (see the module docstring).

    Args:
        reader: the read side.
        owner: the owner id.
        touched: ids of entities the last run wrote about; only pairs with one of them
            are examined.

    Returns:
        Candidates in a deterministic order (by pair), none suggested before.
    """
    entities = _all_entities(reader, owner)
    by_id = {e.id: e for e in entities}
    focus = [by_id[i] for i in sorted(set(touched)) if i in by_id]
    if not focus:
        return []
    pairs: dict[tuple[str, str], tuple[EntityRecord, EntityRecord]] = {}
    for a in focus:
        for b in entities:
            if b.id != a.id and b.kind == a.kind:
                pairs[tuple(sorted((a.id, b.id)))] = (a, b)  # type: ignore[index]
    scored: list[tuple[tuple[str, str], float, float, set[str]]] = []
    for key, (a, b) in pairs.items():
        na, nb = _names(a), _names(b)
        shared = na & nb
        sort = max(fuzz.token_sort_ratio(x, y) for x in na for y in nb)
        subset = max(fuzz.token_set_ratio(x, y) for x in na for y in nb)
        if shared or sort >= NEAR or subset >= WHOLE:
            scored.append((key, sort, subset, shared))
    if not scored:
        return []
    ids = sorted({i for key, *_ in scored for i in key})
    facts: dict[str, set[tuple[str, str]]] = {i: set() for i in ids}
    for f in reader.facts_of_entities(owner, ids, AsOf.at()):
        facts[f.entity_id].add((f.attribute, f.value_norm))
    done = reader.suggested_keys(owner, [pair_key(owner, *key) for key, *_ in scored])
    out = []
    for key, sort, subset, shared in sorted(scored):
        if pair_key(owner, *key) in done:
            continue
        a, b = (by_id[i] for i in key)
        common = sorted(facts[a.id] & facts[b.id])
        both = f"both have {common[0][0].replace('_', ' ')}" if common else ""
        if shared:
            reason, score = f"both are called {min(shared)!r}", 100.0
        elif sort >= ALIKE:
            reason, score = f"the names {a.name!r} and {b.name!r} are alike", sort
        elif common and (subset >= WHOLE or sort >= NEAR):
            reason, score = (
                f"the names {a.name!r} and {b.name!r} are alike and {both}",
                max(sort, 80.0),
            )
        else:
            continue
        out.append(Candidate(entity_ids=key, reason=reason, score=round(score, 1)))
    return out
