"""Cypher for everything a prefetch reads after its scope, in one round trip (CONTRACT §6
push, §13, §14).

A prefetch reads its scope first (graph/cypher/prefetch.py PREFETCH_SCOPE: memory access,
shared entities, the owner's groups), then three reads that depend on that scope only: the
view (`PREFETCH`), the notes the message finds (graph/cypher/notes.py `PREFETCH_NOTES`) and
the documents its pointer line may name (`POINTER_LIST`). On a loaded machine each round
trip costs a wake-up of both processes, so those three are one statement here, each a
subquery answering what it answers alone.
"""

from __future__ import annotations

from graph.cypher.knowledge import POINTERS
from graph.cypher.notes import PREFETCH_NOTES
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
    + PREFETCH_NOTES.removeprefix(_PLAN)
    + "}\nCALL () {\n"
    + POINTER_LIST
    + """}
RETURN self_id, seeds, attrs, rels, incoming, neighbours, edges, prefs, events, speakers, said,
       notes, due, pointers
"""
)
"""READ. PREFETCH's, PREFETCH_NOTES' and POINTER_LIST's parameters -> one row of PREFETCH's
columns, PREFETCH_NOTES' (notes, due) and POINTER_LIST's (pointers): the three reads of a
prefetch after its scope in one round trip (graph/read/turn.py). `replan=skip` as PREFETCH:
planned once per process (at warm-up), and kept."""
