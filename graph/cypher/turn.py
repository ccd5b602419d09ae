"""Cypher for a prefetch's view and pointer documents in one round trip (CONTRACT §6 push,
§14).

A prefetch reads its scope first (graph/cypher/prefetch.py PREFETCH_SCOPE: memory access,
shared entities, the owner's groups), then reads that depend on that scope only: the view
(`PREFETCH`), the documents its pointer line may name (`POINTER_LIST`) and the notes the
message finds (graph/cypher/notes.py `PREFETCH_NOTES`). On a loaded machine each round
trip costs a wake-up of both processes, so the view and the pointer are one statement
here, each a subquery answering what it answers alone (the notes stay apart, see
`PREFETCH_TURN`).
"""

from __future__ import annotations

from graph.cypher.knowledge import POINTERS
from graph.cypher.prefetch import PREFETCH

_PLAN = "CYPHER replan=skip"

POINTER_LIST = (
    """CALL () {
  OPTIONAL CALL () {
    WITH $pointer_turn AS turn
    WHERE turn.wanted
    CALL () {"""
    + POINTERS.replace("$turn", "$pointer_turn")
    .replace("$limit", "$pointer_limit")
    .replace("RETURN k.name AS name", "RETURN score, k.name AS name")
    + """}
    RETURN score, name, description, holder, text
  }
  WITH * ORDER BY score DESC, name, holder
  RETURN collect(CASE WHEN score IS NOT NULL THEN [name, description, holder, text] END)
         AS pointers
}
RETURN pointers
"""
)
"""READ. $pointer_turn: {lucene (graph.read.knowledge.pointer_lucene), wanted (false: no
pointer wanted, nothing is read)}, $pointer_limit, $far and graph.scope.reach_params ->
pointers: POINTERS' rows as lists [name, description, holder, text], best first (empty when
none, or when no pointer is wanted), in one row, so another query can run it as a
subquery."""

PREFETCH_TURN = (
    _PLAN
    + "\nCALL () {\n"
    + PREFETCH.removeprefix(_PLAN)
    + "}\nCALL () {\n"
    + POINTER_LIST
    + """}
RETURN self_id, seeds, attrs, rels, incoming, neighbours, edges, prefs, events, speakers, said,
       pointers
"""
)
"""READ. PREFETCH's and POINTER_LIST's parameters -> one row of PREFETCH's columns and
POINTER_LIST's (pointers): the view and the pointer's documents of a prefetch in one round
trip (graph/read/turn.py). `replan=skip` as PREFETCH: planned once per process (at
warm-up), and kept. The notes (graph/cypher/notes.py PREFETCH_NOTES) stay a query of their
own: their plan is made once per shape of the turn's project (null or a string), and
PREFETCH's, which takes seconds, once in all; in one statement PREFETCH would be planned
once per project shape too (a first warm-up about three times as long)."""
