"""Cypher for groups, memberships and shares (CONTRACT §7: "or to a group, visible to its
members").

Three node kinds, each in transaction time with open ends stored as `$far`
(graph.time.FAR_FUTURE), so that a read at `known_at` before a share sees nothing of it
(graph/scope.py SHARED_ENTITY_IDS reads them):

* `(:Group {id, name, owner, created_at})`: `owner` is the creator, who manages members.
* `(:Membership {id, group_id, member, joined_at, left_at, added_by})`: one node per
  stay; leaving sets `left_at` once, joining again creates a new node.
* `(:Share {id, group_id, owner, entity_id, shared_at, unshared_at})`: `owner` is the
  sharer (the entity's owner); unsharing sets `unshared_at` once, sharing again creates
  a new node.

Nothing here is ever deleted or rewritten except those end times (and owner erasure).
"""

from __future__ import annotations

from typing import Any

from graph.records import GroupRecord, ShareRecord
from graph.time import from_store

CREATE_GROUP = """
CREATE (g:Group)
SET g.id = $id, g.name = $name, g.owner = $owner, g.created_at = $t
CREATE (m:Membership)
SET m.id = $membership_id, m.group_id = $id, m.member = $owner, m.owner = $owner,
    m.joined_at = $t,
    m.left_at = $far, m.added_by = $owner
RETURN g.id AS id
"""
"""WRITE. $id, $name, $owner (the creator), $membership_id, $t, $far -> id. The creator
is the group's first member."""

LOCK_GROUP = """
MATCH (g:Group {id: $group_id})
SET g.locked_by = $tx_id
RETURN g.id AS id, g.owner AS owner
"""
"""WRITE. $group_id, $tx_id -> id, owner (the creator); 0 rows for an unknown group.
Takes the group node's write lock for the rest of the transaction, so changes of one
group's members and shares are serialized."""

MEMBER_OF = """
MATCH (m:Membership {member: $member})
WHERE m.group_id = $group_id AND m.left_at = $far
RETURN m.id AS id
"""
"""READ. $member, $group_id, $far -> id of the member's live membership (0 or 1 row).
Seeks on index `membership_member`."""

ADD_MEMBER = """
CREATE (m:Membership)
SET m.id = $id, m.group_id = $group_id, m.member = $member, m.owner = $member,
    m.joined_at = $t, m.left_at = $far, m.added_by = $owner
"""
"""WRITE. $id, $group_id, $member, $owner (who added it), $t, $far. A membership belongs
to its member (`owner` = $member): erasing the member erases it (graph/cypher/erasure.py)."""

END_MEMBERSHIP = """
MATCH (m:Membership {member: $member})
WHERE m.group_id = $group_id AND m.left_at = $far
SET m.left_at = $t
RETURN count(m) AS ended
"""
"""WRITE. $member, $group_id, $t, $far -> ended (count). Sets `left_at` once."""

END_SHARES_OF = """
MATCH (s:Share {group_id: $group_id})
WHERE s.owner = $member AND s.unshared_at = $far
SET s.unshared_at = $t
RETURN count(s) AS ended
"""
"""WRITE. $group_id, $member, $t, $far -> ended: a member who leaves takes its shares
with it (their `unshared_at` is set once, to the same time). Seeks on `share_group`."""

LIVE_SHARE = """
MATCH (s:Share {group_id: $group_id})
WHERE s.entity_id = $entity_id AND s.owner = $owner AND s.unshared_at = $far
RETURN s
"""
"""READ. $group_id, $entity_id, $owner (the sharer), $far -> s, the live share (0 or 1).
Seeks on index `share_group`."""

CREATE_SHARE = """
CREATE (s:Share)
SET s.id = $id, s.group_id = $group_id, s.owner = $owner, s.entity_id = $entity_id,
    s.shared_at = $t, s.unshared_at = $far
RETURN s
"""
"""WRITE. $id, $group_id, $owner (the entity's owner), $entity_id, $t, $far -> s."""

END_SHARE = """
MATCH (s:Share {group_id: $group_id})
WHERE s.entity_id = $entity_id AND s.owner = $owner AND s.unshared_at = $far
SET s.unshared_at = $t
RETURN s
"""
"""WRITE. $group_id, $entity_id, $owner (the sharer), $t, $far -> s (0 rows when no live
share). Sets `unshared_at` once."""

GROUPS_OF_MEMBER = """
MATCH (m:Membership {member: $owner})
WHERE m.left_at = $far AND ($group_id IS NULL OR m.group_id = $group_id)
MATCH (g:Group {id: m.group_id})
CALL (g) {
  MATCH (x:Membership {group_id: g.id})
  WHERE x.left_at = $far
  RETURN collect(x.member) AS members
}
CALL (g) {
  MATCH (s:Share {group_id: g.id})
  WHERE s.unshared_at = $far
  RETURN collect(s) AS shares
}
RETURN g, members, shares
ORDER BY g.created_at, g.id
"""
"""READ. $owner, $group_id (or null for every group), $far -> g, members (owner ids),
shares (Share nodes): the groups `$owner` belongs to now, with their current members
and live shares. Seeks on `membership_member`, the unique `group_id` constraint,
`membership_group` and `share_group`."""


def share_from_record(node: Any) -> ShareRecord:
    """Build a `ShareRecord` from a Share node."""
    return ShareRecord(
        group_id=node["group_id"],
        entity_id=node["entity_id"],
        owner=node["owner"],
        shared_at=from_store(node["shared_at"]),
        unshared_at=from_store(node["unshared_at"]),
    )


def group_from_record(node: Any, members: Any, shares: Any) -> GroupRecord:
    """Build a `GroupRecord` from GROUPS_OF_MEMBER's columns (members sorted, the
    creator first; shares by time)."""
    creator = node["owner"]
    ordered = sorted(set(members), key=lambda m: (m != creator, m))
    return GroupRecord(
        id=node["id"],
        name=node["name"],
        owner=creator,
        created_at=from_store(node["created_at"]),
        members=tuple(ordered),
        shares=tuple(
            sorted((share_from_record(s) for s in shares), key=lambda s: (s.shared_at, s.entity_id))
        ),
    )
