"""Named fragments of Cypher that many queries share (STYLE "Fragments for repeated Cypher").

Each fragment is a literal in which `VAR` stands for the variable it applies to; `on(fragment,
var)` puts the variable in. Values stay parameters (`$known_at`, `$valid_at`); labels and
relationship types never appear here, so every query still names them literally.
"""

from __future__ import annotations

KNOWN = "VAR.recorded_at <= $known_at AND VAR.retracted_at > $known_at"
"""Transaction time, CONTRACT §2: the row was believed at `$known_at`
(`recorded_at <= T < retracted_at`)."""

VALID = "VAR.valid_from <= $valid_at AND VAR.valid_to > $valid_at"
"""Valid time, CONTRACT §2: the row holds at `$valid_at` (`valid_from <= V < valid_to`)."""

AS_OF = KNOWN + "\n  AND " + VALID
"""Both axes, CONTRACT §2: visible at (`$valid_at`, `$known_at`)."""

SAID_AS_OF = "VAR.said_at <= $valid_at AND " + KNOWN
"""Both axes for an episode, CONTRACT §12: said by `$valid_at` (visible from `said_at` on in
valid time), believed at `$known_at` (recorded by then and not forgotten)."""

LIVE_ENTITY = (
    "VAR.created_at <= $known_at AND (VAR.merged_into IS NULL OR VAR.merged_at > $known_at)"
)
"""An entity that existed at `$known_at` and was not merged into another by then (CONTRACT §5:
reads with `known_at` before a merge see two entities)."""

_MICROS = "VAR.FIELD.epochSeconds * 1000000 + VAR.FIELD.microsecond"
_VALID_MICROS = """(VAR.FIELD.epochSeconds - CASE WHEN VAR.FIELD.nanosecond > 0
    AND VAR.FIELD < datetime({epochSeconds: 0}) THEN 1 ELSE 0 END) * 1000000
    + VAR.FIELD.microsecond"""


def on(fragment: str, var: str) -> str:
    """Return `fragment` applied to the variable `var` (a literal of our queries, never
    input)."""
    return fragment.replace("VAR", var)


def micros(field: str) -> str:
    """A transaction-time DATETIME as integer microseconds since the epoch (UTC).

    Decoding a DATETIME costs the Python driver about 0.2 ms (pure Python), an integer
    nothing, so reads return times in this shape (graph.time.from_micros decodes it).
    Transaction times are never before 1970, so truncation toward zero is exact.
    """
    return _MICROS.replace("FIELD", field)


def valid_micros(field: str) -> str:
    """A valid-time DATETIME as integer microseconds since the epoch (UTC).

    `epochSeconds` truncates toward zero, so a time before 1970 with a fraction of a
    second would gain one second: the CASE takes it off.
    """
    return _VALID_MICROS.replace("FIELD", field)


def top_hits(index: str, var: str, body: str, columns: str) -> str:
    """A full-text read over only the $scan best hits of index `index` for $lucene (Lucene
    gives them best first): `body` runs on each hit, bound to `var` and `score`, and its
    RETURN gives `columns`; the query returns `scanned` (how many hits Lucene gave: fewer
    than $scan means all there were) and `columns`. Always at least one row: when `body`
    returns none, one row of `scanned` and nulls (OPTIONAL CALL), so a caller tells "no
    hit" from "hits, none of them visible" without asking again. `index` is a constant of
    graph/, never input; `body` and `columns` are literals of our queries."""
    return (
        f"CALL db.index.fulltext.queryNodes('{index}', $lucene, {{limit: $scan}})"
        " YIELD node, score\n"
        "WITH collect([node, score]) AS hits\n"
        "OPTIONAL CALL (hits) {\n"
        "UNWIND hits AS hit\n"
        f"WITH hit[0] AS {var}, hit[1] AS score\n" + body + "}\n"
        f"RETURN size(hits) AS scanned, {columns}\n"
    )
