"""Cypher for the context of what was said (CONTRACT §6 "Pull", §12): the messages next to
an episode in its run, which search reads to score a reply by the message it answers
(api/chat/search.py).

Only the neighbours the reader may see at the as-of point are read: the same as-of point
(`SAID_AS_OF`) and `EPISODE_VISIBLE` as every other episode read (graph/cypher/episodes.py),
so a neighbour kept out of a chat's memory access, forgotten, or said after the as-of
point lends nothing.
"""

from __future__ import annotations

from graph.cypher._fragments import SAID_AS_OF, on
from graph.scope import EPISODE_VISIBLE

NEIGHBOUR_TEXTS = (
    """
UNWIND $keys AS k
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, run_id, seq)
WHERE ep.owner = $owner AND ep.run_id = k.run_id AND ep.seq IN [k.seq - 1, k.seq + 1]
  AND """
    + on(SAID_AS_OF, "ep")
    + """ AND """
    + EPISODE_VISIBLE
    + """
WITH k, ep ORDER BY k.id, ep.seq, ep.part
RETURN k.id AS id, collect(ep.text) AS texts
"""
)
"""READ. $keys (maps: id (an episode id), run_id, seq), $owner, $valid_at, $known_at, **scope
params -> id, texts: for each key with a visible neighbour, the texts of the episodes of
the messages just before and just after it in its run (seq - 1 and seq + 1, every part),
in run order. NodeIndexSeek on `episode_owner_run_seq`, two seeks a key: its cost follows
the number of keys, never the run's length or the other owners'."""
