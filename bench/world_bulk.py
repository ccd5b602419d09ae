"""bench/world.py's world loaded in bulk, in the committer's exact stored shape (bench only).

`world.load_ours` asserts each fact through the committer: a few hundred rows a second,
so the million facts of bench/growth.py would take hours. `load_bulk` writes the same
rows with the committer's own Cypher, many people per transaction, skipping the rules it
would apply (the rows are known to be consistent):

* entities: the fields of graph/cypher/entities.py CREATE_ENTITY and the `OWNS` edge;
* facts: graph/cypher/fact_rows.py CREATE_ROWS (recorded at the batch's commit time),
  then RETRACT_ROWS of each changed fact's original row, LINK_ROWS (`REPLACES` from the
  remainder, `SUPERSEDED` from the new value) and graph/cypher/search.py INDEX_ROWS
  (search text, and the pool vector under the local model's id, as `PoolEmbedder` gives);
* the owner's `last_tx` is the last batch's time.

Left out: the audit trail (`Event` nodes and their edges, `Notification`s), which no
read measured here touches. `check_shape` compares a few people loaded both ways.

Names: `world.people` draws names from 40 x 30 first and last names, so a store of
100,000 people would hold each name ~80 times and prefetch would measure name
collisions, not size. `unique_people` gives person i a name of its own (a made-up second
surname past the first 1,200), each person drawn from its own seed so a store grows by
appending people. Past 1,200 people a name can hold another person's whole name ("Luca
Ortega Neka" holds "Luca Ortega"), so a message naming the first mentions both: prefetch
reads two people for it (bench/results/growth.md says so beside the figures).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from bench.world import FIRST, LAST, T0, T1, Person, Pool, chunks, person_facts
from committer.owners import ensure_owner
from graph import attributes
from graph.cypher.entities import SET_TX_TIME
from graph.cypher.fact_rows import CREATE_ROWS, LINK_ROWS, RETRACT_ROWS
from graph.cypher.search import INDEX_ROWS
from graph.embedding import LocalEmbedder, fact_text
from graph.names import search_key
from graph.time import FAR_FUTURE, epoch_parts, utcnow
from graph.write.writer import Writer, new_id

SYLLABLES = ("ka", "lo", "mi", "ra", "tu", "ne", "so", "vi", "de", "ba")
PEOPLE_PER_TX = 250
"""People per load transaction (about 3,300 fact rows with their vectors)."""

CREATE_ENTITIES = """
MATCH (o:Owner {id: $owner})
UNWIND $rows AS r
CREATE (e:Entity)
SET e.id = r.id, e.owner = $owner, e.name = r.name, e.kind = 'person', e.aliases = [],
    e.search_names = r.keys, e.area = null, e.archived = false, e.created_at = $t
CREATE (o)-[:OWNS]->(e)
"""
"""WRITE (bench only). $owner, $t, $rows ({id, name, keys}): graph/cypher/entities.py
CREATE_ENTITY for many people at once."""


def unique_name(i: int) -> str:
    """Person i's name: "<first> <last>", then a made-up second surname from i // 1,200."""
    name = f"{FIRST[i % len(FIRST)]} {LAST[(i // len(FIRST)) % len(LAST)]}"
    k = i // (len(FIRST) * len(LAST))
    if k:
        name += " " + (SYLLABLES[k % 10] + SYLLABLES[(k // 10) % 10]).title()
    return name


def unique_people(seed: str, start: int, count: int, changed: float = 0.2) -> list[Person]:
    """People `start` .. `start + count - 1` of an owner: unique names, ten facts each
    (bench/world.py ATTRIBUTES), a `changed` share of the one-cardinality ones superseded."""
    out = []
    for i in range(start, start + count):
        rng = random.Random(f"{seed}/{i}")
        out.append(Person(unique_name(i), person_facts(rng, i, changed)))
    return out


def _row(entity: str, attribute: str, value: str, vf: datetime, vt: datetime, status: str):
    vf_s, vf_ns = epoch_parts(vf)
    vt_s, vt_ns = epoch_parts(vt)
    return {
        "id": new_id("fct"),
        "entity_id": entity,
        "attribute": attribute,
        "value": value,
        "object_id": None,
        "value_norm": f"s:{value.lower()}",
        "cardinality": attributes.spec(attribute).cardinality,
        "valid_from_s": vf_s,
        "valid_from_ns": vf_ns,
        "valid_to_s": vt_s,
        "valid_to_ns": vt_ns,
        "status": status,
        "source": "user_edit",
        "evidence": None,
        "reason": None,
        "confidence": 1.0,
        "run_id": None,
        "message_id": None,
        "speaker_id": None,
    }


def _batch(driver: Any, owner: str, part: Sequence[Person], pool: Pool) -> list[str]:
    """One transaction: the people of `part`, their rows, edges and search fields."""
    people = [{"id": new_id("ent"), "name": p.name, "keys": [search_key(p.name)]} for p in part]
    rows: list[dict[str, Any]] = []
    retract: list[str] = []
    replaces: list[dict[str, str]] = []
    supersedes: list[dict[str, str]] = []
    search: list[dict[str, Any]] = []
    for who, person in zip(people, part, strict=True):
        for fact in person.facts:
            made = []
            if fact.old is None:
                made.append(_row(who["id"], fact.attribute, fact.value, T0, FAR_FUTURE, "active"))
            else:
                original = _row(who["id"], fact.attribute, fact.old, T0, FAR_FUTURE, "active")
                remainder = _row(who["id"], fact.attribute, fact.old, T0, T1, "superseded")
                new = _row(who["id"], fact.attribute, fact.value, T1, FAR_FUTURE, "active")
                made += [original, remainder, new]
                retract.append(original["id"])
                replaces.append({"from": remainder["id"], "to": original["id"]})
                supersedes.append({"from": new["id"], "to": original["id"]})
            for r in made:
                text = fact_text(person.name, r["attribute"], r["value"])
                first = person.name.split(" ", 1)[0]
                key = fact_text(first, r["attribute"], r["value"])
                search.append({"id": r["id"], "text": text, "embedding": pool.vector(text, key)})
            rows += made

    def work(tx: Any) -> None:
        t = utcnow()
        tx.run(CREATE_ENTITIES, owner=owner, t=t, rows=people).consume()
        tx.run(CREATE_ROWS, owner=owner, t=t, far=FAR_FUTURE, rows=rows).consume()
        tx.run(RETRACT_ROWS, owner=owner, ids=retract, far=FAR_FUTURE, t=t).consume()
        tx.run(
            LINK_ROWS,
            owner=owner,
            replaces=replaces,
            supersedes=supersedes,
            coalesces=[],
            objects=[],
        ).consume()
        tx.run(INDEX_ROWS, owner=owner, model=LocalEmbedder.model, rows=search).consume()
        tx.run(SET_TX_TIME, owner=owner, t=t).consume()

    with driver.session() as session:
        session.execute_write(work)
    return [p["id"] for p in people]


def load_bulk(driver: Any, owner: str, persons: Sequence[Person], pool: Pool) -> list[str]:
    """Load `persons` for `owner` in bulk (see the module docstring); return their entity
    ids in order. The owner and its own entity are made by the committer's code first."""
    Writer(driver).transaction(lambda w: ensure_owner(w, owner))
    ids: list[str] = []
    for part in chunks(persons, PEOPLE_PER_TX):
        ids += _batch(driver, owner, part, pool)  # type: ignore[arg-type]
    return ids


SHAPE = """
MATCH (e:Entity {owner: $owner})<-[:OWNS]-(:Owner {id: $owner})
WHERE e.id <> $self_id
MATCH (f:Fact {entity_id: e.id})
OPTIONAL MATCH (f)-[x]->(g:Fact)
WITH e, f, collect(type(x) + '>' + coalesce(g.value, '')) AS out
RETURN e.name AS name, keys(e) AS ekeys, f.attribute AS attribute, f.value AS value,
       f.status AS status, f.valid_from AS vf, f.valid_to AS vt,
       f.retracted_at < $far AS retracted, keys(f) AS fkeys, out, f.search_text AS text,
       f.embedding AS vector
"""
"""READ (bench only). $owner, $self_id, $far -> one row per fact row of the owner's people."""


def check_shape(driver: Any, pool: Pool, tag: str) -> int:
    """Load four people through the committer and the same four in bulk, under two new
    owners; raise AssertionError if any stored row differs (ids and times aside).

    Returns:
        the number of fact rows compared.
    """
    from bench.world import load_ours

    persons = unique_people("shape", 0, 4, changed=0.5)
    got = []
    for owner, loader in ((f"shape-{tag}-c", load_ours), (f"shape-{tag}-b", load_bulk)):
        loader(driver, owner, persons, pool)
        self_id = driver.execute_query(
            "MATCH (o:Owner {id: $owner}) RETURN o.self_entity_id AS s", owner=owner
        ).records[0]["s"]
        records = driver.execute_query(SHAPE, owner=owner, self_id=self_id, far=FAR_FUTURE).records
        got.append(
            sorted(
                (
                    r["name"],
                    tuple(sorted(r["ekeys"])),
                    r["attribute"],
                    r["value"],
                    r["status"],
                    str(r["vf"]),
                    str(r["vt"]),
                    r["retracted"],
                    tuple(sorted(r["fkeys"])),
                    tuple(sorted(r["out"])),
                    r["text"],
                    tuple(round(x, 5) for x in r["vector"]),
                )
                for r in records
            )
        )
    assert got[0] == got[1], "bulk rows differ from the committer's"
    return len(got[0])


__all__ = ["check_shape", "load_bulk", "unique_people"]
