"""Who may read what: the one place where owner, group sharing and memory access become
Cypher (CONTRACT §7, STYLE "Every query that reads facts is scoped ... in one place").

A `Scope` is resolved once per request (`Reader.scope`): the caller's owner, the chat's
effective memory access, and the entities other owners share with the caller through
groups as known at the read's `known_at` (so time travel to before a share sees nothing
of it). Every read query that returns facts or entities ANDs one of the predicates
below, and `params(scope)` compiles the scope into their parameters. The predicates
are literals; nothing of the caller's input becomes Cypher text.

Areas: a fact's area is its attribute's area in the registry (graph/attributes.py);
an attribute the registry does not know is in area `general`; an episode (what was said,
CONTRACT §12) is in area `conversation`. Sources: a fact's
`source` must be in the list; `integration` in the list admits every
`integration:<name>`. Under `restricted` an empty list lets nothing through
(fail-closed); under `none` nothing passes at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graph.attributes import (
    CONVERSATION,
    DEFAULT,
    FAVORITE_OF_A_KIND,
    FAVORITE_PREFIX,
    KNOWLEDGE,
    REGISTRY,
    spec,
)
from graph.notes import NOTES_AREA
from graph.records import MemoryAccess

FULL = MemoryAccess(mode="full")


@dataclass(frozen=True, slots=True)
class Scope:
    """What one read may see.

    Attributes:
        owner: the caller's owner id.
        access: the effective memory access (the chat's, else the profile's, else full).
        shared: ids of other owners' entities shared with `owner` through groups,
            as known at the read's `known_at`, sorted.
    """

    owner: str
    access: MemoryAccess = FULL
    shared: tuple[str, ...] = ()

    @property
    def closed(self) -> bool:
        """True when nothing may be read (memory access `none`, CONTRACT §7 clean room)."""
        return self.access.mode == "none"


def as_scope(owner: str | Scope) -> Scope:
    """Accept a bare owner id (full access to the owner's own memory) or a `Scope`."""
    return owner if isinstance(owner, Scope) else Scope(owner)


def _area_attributes(areas: tuple[str, ...]) -> list[str]:
    return sorted(a for a, spec in REGISTRY.items() if spec.area in areas)


def params(owner: str | Scope) -> dict[str, Any]:
    """Compile a scope into the parameters of `FACT_VISIBLE` and `ENTITY_VISIBLE`.

    Returns:
        `owner`, `shared` (entity ids), `readable` (False under `none`), `all_areas`,
        `area_attributes`, `favorite_area` (a `favorite_<kind>`'s area is allowed),
        `favorite_prefix`,
        `general_area`, `conversation_area`, `registered`,
        `all_sources`, `sources`, `any_integration`.
    """
    scope = as_scope(owner)
    access = scope.access
    restricted = access.mode == "restricted"
    return {
        "owner": scope.owner,
        "shared": list(scope.shared),
        "readable": access.mode != "none",
        "all_areas": not restricted,
        "area_attributes": _area_attributes(access.areas) if restricted else [],
        "favorite_area": restricted and FAVORITE_OF_A_KIND.area in access.areas,
        "favorite_prefix": FAVORITE_PREFIX,
        "general_area": restricted and DEFAULT.area in access.areas,
        "conversation_area": restricted and CONVERSATION in access.areas,
        "registered": sorted(REGISTRY) if restricted else [],
        "all_sources": not restricted,
        "sources": list(access.sources) if restricted else [],
        "any_integration": restricted and "integration" in access.sources,
    }


ENTITY_VISIBLE = "($readable AND (e.owner = $owner OR e.id IN $shared))"
"""Cypher predicate on an entity bound to `e`: the caller's own, or shared with it."""

SOURCE_VISIBLE = """($all_sources OR f.source IN $sources
       OR ($any_integration AND f.source STARTS WITH 'integration:'))"""
"""Cypher predicate on anything with a `source` bound to `f` (a fact row, or a
corroboration through `source_visible`): the source passes the memory access."""

FACT_VISIBLE = (
    """($readable
  AND CASE WHEN f.owner = $owner THEN true ELSE f.entity_id IN $shared END
  AND ($all_areas OR f.attribute IN $area_attributes
       OR ($favorite_area AND f.attribute STARTS WITH $favorite_prefix)
       OR ($general_area AND NOT f.attribute IN $registered
           AND NOT f.attribute STARTS WITH $favorite_prefix))
  AND """
    + SOURCE_VISIBLE
    + ")"
)
"""Cypher predicate on a fact row bound to `f`: its entity is visible and the row passes
the memory access's areas and sources (CONTRACT §7). An attribute's area is the
registry's (graph/attributes.py `spec`): a registered attribute's own, a `favorite_<kind>`'s
`FAVORITE_OF_A_KIND.area`, else `general`.

Ownership is a CASE, not `f.owner = $owner OR f.entity_id IN $shared`: the planner
splits an OR of two indexable predicates into a union of two index seeks, so a read
that seeks one entity's rows would seek them twice. As a CASE it stays a filter on the
caller's own seek. A query that must *find* shared rows (not just keep them) seeks them
in a branch of its own (graph/cypher/facts.py OWNER_ATTRIBUTE_AS_OF)."""


EPISODE_VISIBLE = (
    """($readable AND ep.owner = $owner AND ($all_areas OR $conversation_area)
  AND """
    + SOURCE_VISIBLE.replace("f.", "ep.")
    + ")"
)
"""Cypher predicate on an episode bound to `ep` (CONTRACT §12): the caller's own (episodes
are never shared through groups: a share shares an entity and its facts, not what was
said), in area `conversation`, from a source the memory access allows. The one place an
episode read is scoped (graph/read/episodes.py, graph/cypher/episodes.py, prefetch)."""


def episode_visible(var: str) -> str:
    """`EPISODE_VISIBLE` for an episode bound to `var` (a literal chosen by the query module)."""
    return EPISODE_VISIBLE.replace("ep.", var + ".")


EPISODE_FINDABLE = "(" + EPISODE_VISIBLE + " AND ep.withheld IS NULL)"
"""`EPISODE_VISIBLE` less the episodes filed withheld (a message a held privileged
statement was drawn from: committer/episodes.py, CONTRACT §3): the predicate of the reads
that push or find what was said (search's lists, prefetch's "From earlier conversations"),
never of the person's own listing, a chat's history or an audit view."""


def episode_findable(var: str) -> str:
    """`EPISODE_FINDABLE` for an episode bound to `var` (a literal chosen by the query module)."""
    return EPISODE_FINDABLE.replace("ep.", var + ".")


def fact_visible(var: str) -> str:
    """`FACT_VISIBLE` for a fact bound to `var` (a literal chosen by the query module)."""
    return FACT_VISIBLE.replace("f.", var + ".")


def source_visible(var: str) -> str:
    """`SOURCE_VISIBLE` for a node with a `source` bound to `var` (a literal)."""
    return SOURCE_VISIBLE.replace("f.", var + ".")


def entity_visible(var: str) -> str:
    """`ENTITY_VISIBLE` for an entity bound to `var` (a literal chosen by the query module)."""
    return ENTITY_VISIBLE.replace("e.", var + ".")


def permits(
    scope: Scope, *, attribute: str, source: str, entity_owner: str, entity_id: str
) -> bool:
    """The same rule as `FACT_VISIBLE`, in Python (for results assembled outside Cypher,
    such as vector-index hits, and for tests that check the Cypher against it)."""
    access = scope.access
    if access.mode == "none":
        return False
    if entity_owner != scope.owner and entity_id not in scope.shared:
        return False
    if access.mode == "full":
        return True
    area = spec(attribute).area
    source_ok = source in access.sources or (
        "integration" in access.sources and source.startswith("integration:")
    )
    return area in access.areas and source_ok


NOTE_GROUPS = """
CALL () {
  OPTIONAL MATCH (m:Membership {member: $owner})
  WHERE m.joined_at <= $known_at AND m.left_at > $known_at
  RETURN collect(DISTINCT m.group_id) AS groups
}
"""
"""READ fragment (CONTRACT §13): binds `groups`, the ids of the groups `$owner` belonged to
at `$known_at` (transaction time, as SHARED_ENTITY_IDS). Every note read opens with it:
`NOTE_VISIBLE` needs `groups` bound. Seeks on index `membership_member`."""

NOTE_VISIBLE = (
    """($readable
  AND CASE WHEN n.group_id IS NULL THEN n.owner = $owner ELSE n.group_id IN groups END
  AND ($all_areas OR $notes_area)
  AND """
    + SOURCE_VISIBLE.replace("f.", "n.")
    + ")"
)
"""Cypher predicate on a note row bound to `n` (CONTRACT §7, §13): the caller's own note, or
a note of a group it belonged to at the read's `known_at` (`groups`, bound by
`NOTE_GROUPS`); in area `notes` (graph/notes.py NOTES_AREA) and from a source the memory
access allows. The one place a note read is scoped (graph/cypher/notes.py, prefetch)."""


def note_visible(var: str) -> str:
    """`NOTE_VISIBLE` for a note bound to `var` (a literal chosen by the query module)."""
    return NOTE_VISIBLE.replace("n.", var + ".")


def note_params(owner: str | Scope) -> dict[str, Any]:
    """`params(scope)` plus `notes_area` (True when a restricted access lists area `notes`):
    the parameters of `NOTE_VISIBLE`."""
    scope = as_scope(owner)
    restricted = scope.access.mode == "restricted"
    return {**params(scope), "notes_area": restricted and NOTES_AREA in scope.access.areas}


def permits_note(
    scope: Scope, *, owner: str, group_id: str | None, source: str, groups: tuple[str, ...]
) -> bool:
    """The same rule as `NOTE_VISIBLE`, in Python (tests check the Cypher against it)."""
    access = scope.access
    if access.mode == "none":
        return False
    mine = owner == scope.owner if group_id is None else group_id in groups
    if not mine:
        return False
    if access.mode == "full":
        return True
    source_ok = source in access.sources or (
        "integration" in access.sources and source.startswith("integration:")
    )
    return NOTES_AREA in access.areas and source_ok


def permits_episode(scope: Scope, *, owner: str, source: str) -> bool:
    """The same rule as `EPISODE_VISIBLE`, in Python (tests check the Cypher against it)."""
    access = scope.access
    if access.mode == "none" or owner != scope.owner:
        return False
    if access.mode == "full":
        return True
    source_ok = source in access.sources or (
        "integration" in access.sources and source.startswith("integration:")
    )
    return CONVERSATION in access.areas and source_ok


SHARED_ENTITY_IDS = """
MATCH (m:Membership {member: $owner})
WHERE m.joined_at <= $known_at AND m.left_at > $known_at
MATCH (s:Share {group_id: m.group_id})
WHERE s.shared_at <= $known_at AND s.unshared_at > $known_at AND s.owner <> $owner
RETURN collect(DISTINCT s.entity_id) AS ids
"""
"""READ. $owner, $known_at -> ids: the entities other owners shared, through a group
`$owner` belonged to at $known_at, with the share itself live at $known_at
(transaction time: `shared_at <= T < unshared_at`; open ends are FAR_FUTURE)."""


# --- what an owner or a group holds: knowledge documents, workflow state (CONTRACT §14) -----


@dataclass(frozen=True, slots=True)
class Reach:
    """The holders one read may see: the caller's own, and the groups it belongs to now.

    Attributes:
        owner: the caller's owner id.
        groups: ids of the groups `owner` is a member of now, sorted.
        readable: False when the chat's memory access keeps knowledge out (`none`, or
            `restricted` without the area `knowledge`, CONTRACT §7); workflow state,
            read by scheduled work and never by a chat, is always readable.
    """

    owner: str
    groups: tuple[str, ...] = ()
    readable: bool = True


def knowledge_allowed(access: MemoryAccess) -> bool:
    """Whether a chat's memory access lets knowledge documents through: `full`, or
    `restricted` listing the area `knowledge` (documents carry no fact source, so the
    sources list does not apply); never `none`."""
    return access.mode == "full" or (access.mode == "restricted" and KNOWLEDGE in access.areas)


def reach_params(reach: Reach) -> dict[str, Any]:
    """Compile a reach into the parameter of `HELD_VISIBLE`: the map `held` of `readable`,
    `own` (`owner:<id>`) and `groups` (`group:<id>` each).

    One map, not three parameters: Neo4j caches a plan per query text and parameter shape,
    and a string parameter's shape includes its length class, so each new length of owner
    id would plan again inside a turn (prefetch reads the pointer with it); a map's values
    do not enter the shape (graph/cypher/prefetch.py)."""
    return {
        "held": {
            "readable": reach.readable,
            "own": f"owner:{reach.owner}",
            "groups": [f"group:{g}" for g in reach.groups],
        }
    }


HELD_VISIBLE = "($held.readable AND (h.holder = $held.own OR h.holder IN $held.groups))"
"""Cypher predicate on a document or state version bound to `h`: held by the caller
itself, or by a group it belongs to now (members read a group's documents and state;
another owner's holder answers as absent, CONTRACT §7). The one place these reads are
scoped (graph/cypher/knowledge.py, graph/cypher/state.py); its parameter is `reach_params`'s
map `held`."""


def held_visible(var: str) -> str:
    """`HELD_VISIBLE` for a version bound to `var` (a literal chosen by the query module)."""
    return HELD_VISIBLE.replace("h.", var + ".")


GROUPS_OF = """
MATCH (m:Membership {member: $who.owner})
WHERE m.left_at = $far
RETURN collect(DISTINCT m.group_id) AS ids
"""
"""READ. $who: {owner}, $far -> ids: the groups the owner is a member of now (a reach's
groups; prefetch reads it for the pointer, so the owner id travels in a map: see
`reach_params`). Seeks on `membership_member`."""

LOG_VISIBLE = "(a.owner = $owner OR a.group_id IN $managed)"
"""Cypher predicate on an access-log entry bound to `a` (CONTRACT §14): the reader's own
attempts, and every attempt on a group it manages (`$managed`: the groups it created, or the
one group an operator names on the command line). Nobody else's."""

GROUPS_CREATED = """
MATCH (g:Group {owner: $owner})
RETURN collect(g.id) AS ids
"""
"""READ. $owner -> ids: the groups `$owner` created (whose access log it reads). Seeks on
`group_owner`."""
