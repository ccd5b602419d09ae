"""Cypher for a search's four candidate lists in one round trip (CONTRACT §6 "Pull", §12).

A search reads the semantic and the full-text candidates of fact rows and of episodes
(api/chat/search.py). When this process holds the owner's vectors (graph/read/vectors.py),
the four lists are one query: the cache's candidates checked by the store
(graph/cypher/vectors.py NEAREST_OF_BOTH) and both full-text lists (graph/cypher/search.py
FULLTEXT_LIST, graph/cypher/episodes.py EPISODES_FULLTEXT_LIST), each a subquery of its
own, so each answers exactly what it answers alone. Every part ANDs the as-of point and
the scope's visibility, as those queries do.
"""

from __future__ import annotations

from graph.cypher.episodes import EPISODES_FULLTEXT_LIST
from graph.cypher.search import FULLTEXT_LIST
from graph.cypher.vectors import NEAREST_OF_BOTH, VECTORS_KEY

RECALL_LISTS = (
    "CALL () {"
    + NEAREST_OF_BOTH
    + "}\nCALL () {\n"
    + FULLTEXT_LIST
    + "}\nCALL () {\n"
    + EPISODES_FULLTEXT_LIST.replace("$lucene", "$episode_lucene")
    + """}
OPTIONAL CALL () {"""
    + VECTORS_KEY
    + """}
RETURN facts, episodes, fact_scanned, fact_text, said_scanned, said_text, last_tx, rev
"""
)
"""READ. $candidates, $episode_candidates (the cache's picks, lists of {id, score}),
$vector, $model, $k, $scan, $lucene (graph.read.search.lucene_query), $episode_lucene
(graph.read.episodes.episode_lucene), $known_at, $valid_at, **scope params -> one row:
facts, episodes (NEAREST_OF_BOTH's columns), fact_scanned, fact_text (FULLTEXT_LIST's),
said_scanned, said_text (EPISODES_FULLTEXT_LIST's, with $episode_lucene for its $lucene),
last_tx, rev (VECTORS_KEY's, both null for an unknown owner: the key the reader checks its
candidates' against when it took them from the vectors it held without reading the key
first, graph/read/recall.py).
The reader falls back to FULLTEXT or EPISODES_FULLTEXT for a full-text list as
`_best_rows` does, and to the exact ranking for a semantic list as `nearest` does."""
