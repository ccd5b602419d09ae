"""Cypher for the holders of documents and state (CONTRACT §14): a group's commit clock.

Writes to a group's documents and values come from several owners, each serialized by its
own `Owner` lock (graph/cypher/entities.py LOCK_OWNER). The group's node is locked too, and
carries `last_tx`, so the versions of one group's documents and values get strictly
increasing times whoever writes them (CONTRACT §2).
"""

from __future__ import annotations

GROUP_CLOCK = """
MATCH (g:Group {id: $group_id})
SET g.locked_by = $tx_id
RETURN g.owner AS owner, g.last_tx AS last_tx
"""
"""WRITE. $group_id, $tx_id -> owner (the creator), last_tx (the group's last commit time,
or null; 0 rows for an unknown group): takes the group's write lock for the rest of the
transaction. Unique-constraint seek on Group.id."""

SET_GROUP_CLOCK = """
MATCH (g:Group {id: $group_id})
SET g.last_tx = $t
"""
"""WRITE. $group_id, $t: this commit's time, so the next write to the group is later."""

GROUP_CREATOR = """
MATCH (g:Group {id: $group_id})
RETURN g.owner AS owner
"""
"""READ. $group_id -> owner, the group's creator (0 rows: no such group). For the command
line, which acts for a group without a token. Unique-constraint seek on Group.id."""
