"""The synthetic store of bench/prefetch_bench.py: 100 owners x 2,000 entities x 20 facts.

Loaded in bulk with parameterized `UNWIND` batches, NOT through the committer: the
committer applies CONTRACT §2.1's rules to each assertion under its owner's lock (a few
hundred assertions a second), so 5 million rows would take hours; prefetch only reads,
so this writes directly the rows the committer would have left (same fields, same time
encoding, a retracted original and a superseded remainder for each supersede, OBJECT
edges for relationships).
"""

from __future__ import annotations

import random
import time
from typing import Any

from neo4j import Driver

from graph.names import search_key
from graph.time import FAR_FUTURE

DAY = 86_400
T0 = 1_577_836_800  # 2020-01-01, valid times start here (epoch seconds)
R0 = 1_704_067_200  # 2024-01-01, first recorded
R1 = R0 + 90 * DAY  # the supersedes were recorded then
FAR = int(FAR_FUTURE.timestamp())
FIRST = [
    "Ana", "Bruno", "Carla", "Duarte", "Eva", "Filipe", "Gina", "Hugo", "Ines", "Joao", "Karin",
    "Luis", "Marta", "Nuno", "Olga", "Pedro", "Quim", "Rita", "Sara", "Tiago", "Ursula",
    "Vasco", "Wanda", "Xavier", "Yara", "Zeca", "Alba", "Beto", "Cida", "Dino", "Elsa", "Fabio",
    "Gil", "Helena", "Ivo", "Julia", "Kai", "Lara", "Mauro", "Nadia"
]  # fmt: skip
LAST = [
    "Silva", "Santos", "Ferreira", "Pereira", "Oliveira", "Costa", "Rodrigues", "Martins",
    "Jesus", "Sousa", "Fernandes", "Goncalves", "Gomes", "Lopes", "Marques", "Alves", "Almeida",
    "Ribeiro", "Pinto", "Carvalho", "Teixeira", "Moreira", "Correia", "Mendes", "Nunes",
    "Soares", "Vieira", "Monteiro", "Cardoso", "Rocha", "Raposo", "Neves", "Coelho", "Cruz",
    "Cunha", "Pires", "Ramos", "Reis", "Simoes", "Antunes", "Matos", "Fonseca", "Machado",
    "Araujo", "Barbosa"
]  # fmt: skip
WORDS = [
    "falcon", "harbor", "ember", "quartz", "willow", "atlas", "nimbus", "cobalt", "juniper",
    "orbit", "meadow", "summit", "lantern", "river", "copper", "aurora", "beacon", "cedar",
    "delta", "echo", "fjord", "glacier", "horizon", "indigo", "jasper", "kestrel", "lotus",
    "marble", "nova", "onyx", "prism", "raven", "sierra", "tundra", "vertex", "zephyr"
]  # fmt: skip
CITIES = [
    "Porto", "Lisbon", "Braga", "Faro", "Coimbra", "Aveiro", "Evora", "Viseu", "Leiria",
    "Madrid", "Paris", "Berlin", "Oslo", "Rome", "Vienna", "Prague", "Dublin", "Lyon", "Turin",
    "Seville"
]  # fmt: skip
SOURCES = ("user_stated", "user_edit", "integration:calendar", "inferred")

LOAD_ENTITIES = """
UNWIND $rows AS r
CREATE (e:Entity)
SET e.id = r.id, e.owner = $owner, e.name = r.name, e.kind = r.kind, e.aliases = r.aliases,
    e.search_names = r.keys, e.area = null, e.archived = false,
    e.created_at = datetime({epochSeconds: $t})
"""
LOAD_OWNER = """
CREATE (o:Owner)
SET o.id = $owner, o.self_entity_id = $self_id, o.created_at = datetime({epochSeconds: $t}),
    o.last_tx = datetime({epochSeconds: $t})
"""
LOAD_FACTS = """
UNWIND $rows AS r
CREATE (f:Fact)
SET f.id = r.id, f.owner = $owner, f.entity_id = r.e, f.attribute = r.a, f.value = r.v,
    f.object_id = r.o, f.value_norm = r.n, f.cardinality = r.c,
    f.valid_from = datetime({epochSeconds: r.vf}), f.valid_to = datetime({epochSeconds: r.vt}),
    f.recorded_at = datetime({epochSeconds: r.rec}),
    f.retracted_at = datetime({epochSeconds: r.ret}),
    f.status = r.s, f.source = r.src, f.confidence = 1.0
WITH f, r WHERE r.o IS NOT NULL
MATCH (x:Entity {id: r.o})
CREATE (f)-[:OBJECT]->(x)
"""
META = "MATCH (m:BenchMeta {id: 'prefetch'}) RETURN m.owners AS owners, m.entities AS entities"


# --- the synthetic store -----------------------------------------------------------------


def entity_names(rng: random.Random, n: int) -> list[tuple[str, str, list[str]]]:
    """`n` distinct (name, kind, aliases) for one owner: 60% people, then projects, places
    and organisations; a third of the people have a nickname alias."""
    out: list[tuple[str, str, list[str]]] = []
    seen: set[str] = set()
    while len(out) < n:
        roll = rng.random()
        if roll < 0.6:
            name, kind = f"{rng.choice(FIRST)} {rng.choice(LAST)}", "person"
        elif roll < 0.75:
            name, kind = f"Project {rng.choice(WORDS).title()} {rng.randint(1, 99)}", "project"
        elif roll < 0.9:
            name, kind = f"{rng.choice(WORDS).title()} {rng.choice(CITIES)}", "place"
        else:
            name, kind = f"{rng.choice(WORDS).title()} {rng.choice(LAST)} Lda", "organisation"
        if search_key(name) in seen:
            continue
        seen.add(search_key(name))
        aliases = []
        if kind == "person" and rng.random() < 0.33:
            alias = f"{name.split()[0]} {name.split()[1][0]}."
            if search_key(alias) not in seen:
                seen.add(search_key(alias))
                aliases = [alias]
        out.append((name, kind, aliases))
    return out


def _fact(
    fid: str,
    entity: str,
    attribute: str,
    value: Any,
    obj: str | None,
    vf: int,
    vt: int,
    rec: int,
    ret: int,
    status: str,
    source: str,
    card: str,
) -> dict[str, Any]:
    return {
        "id": fid,
        "e": entity,
        "a": attribute,
        "v": value,
        "o": obj,
        "n": f"e:{obj}" if obj else f"s:{str(value).lower()}",
        "c": card,
        "vf": vf,
        "vt": vt,
        "rec": rec,
        "ret": ret,
        "s": status,
        "src": source,
    }


def owner_rows(
    rng: random.Random, oi: int, n_entities: int
) -> tuple[str, str, list[dict[str, Any]], list[dict[str, Any]]]:
    """One owner's entities and fact rows (see the module docstring)."""
    owner, self_id = f"bench-{oi:03d}", f"ent_b{oi:03d}_self"
    names = entity_names(rng, n_entities)
    ids = [f"ent_b{oi:03d}_{j:05d}" for j in range(n_entities)]
    by_kind: dict[str, list[str]] = {}
    for eid, (_, kind, _) in zip(ids, names, strict=True):
        by_kind.setdefault(kind, []).append(eid)
    entities = [
        {
            "id": self_id,
            "name": f"Owner {oi}",
            "kind": "person",
            "aliases": [],
            "keys": [search_key(f"Owner {oi}")],
        }
    ]
    entities += [
        {
            "id": eid,
            "name": name,
            "kind": kind,
            "aliases": aliases,
            "keys": [search_key(x) for x in (name, *aliases)],
        }
        for eid, (name, kind, aliases) in zip(ids, names, strict=True)
    ]
    rows: list[dict[str, Any]] = []
    seq = 0

    def fid() -> str:
        nonlocal seq
        seq += 1
        return f"fct_b{oi:03d}_{seq:07d}"

    for eid in ids:
        src = rng.choice(SOURCES)
        vf = T0 + rng.randint(0, 900) * DAY
        for attribute in ("location", "occupation", "employer"):  # superseded once each
            old, new = f"{attribute}-{rng.randint(1, 500)}", f"{attribute}-{rng.randint(1, 500)}"
            moved = R0 - rng.randint(1, 300) * DAY
            rows.append(
                _fact(fid(), eid, attribute, old, None, vf, FAR, R0, R1, "active", src, "one")
            )
            rows.append(
                _fact(
                    fid(), eid, attribute, old, None, vf, moved, R1, FAR, "superseded", src, "one"
                )
            )
            rows.append(
                _fact(fid(), eid, attribute, new, None, moved, FAR, R1, FAR, "active", src, "one")
            )
        for attribute in ("hometown", "birthday", "relationship_status"):
            rows.append(
                _fact(
                    fid(),
                    eid,
                    attribute,
                    f"{attribute}-{rng.randint(1, 300)}",
                    None,
                    vf,
                    FAR,
                    R0,
                    FAR,
                    "active",
                    src,
                    "one",
                )
            )
        for attribute, count in (("likes", 3), ("hobby", 2), ("note", 2), ("goal", 1)):
            for k in range(count):
                rows.append(
                    _fact(
                        fid(),
                        eid,
                        attribute,
                        f"{attribute} {rng.choice(WORDS)} {k}",
                        None,
                        vf,
                        FAR,
                        R0,
                        FAR,
                        "active",
                        rng.choice(SOURCES),
                        "many",
                    )
                )
        for attribute, pool, count in (
            ("knows", "person", 3),
            ("works_on", "project", 1),
            ("member_of", "organisation", 1),
            ("visited", "place", 1),
        ):
            for other in rng.sample(by_kind.get(pool, ids), count):
                if other != eid:
                    rows.append(
                        _fact(
                            fid(),
                            eid,
                            attribute,
                            None,
                            other,
                            vf,
                            FAR,
                            R0,
                            FAR,
                            "active",
                            rng.choice(SOURCES),
                            "many",
                        )
                    )
    for attribute, value in (
        ("answer_style", "concise"),
        ("language", "English"),
        ("units", "metric"),
        ("preference", "no emojis"),
        ("preference", "cite sources"),
    ):
        rows.append(
            _fact(
                fid(),
                self_id,
                attribute,
                value,
                None,
                T0,
                FAR,
                R0,
                FAR,
                "active",
                "user_stated",
                "many" if attribute == "preference" else "one",
            )
        )
    for k in range(20):
        day = R0 - rng.randint(1, 700) * DAY
        rows.append(
            _fact(
                fid(),
                self_id,
                "participated_in",
                f"{rng.choice(WORDS)} meetup {k}",
                None,
                day,
                FAR,
                R0,
                FAR,
                "active",
                "user_stated",
                "many",
            )
        )
    for other in rng.sample(by_kind["person"], 30):
        rows.append(
            _fact(
                fid(),
                self_id,
                "knows",
                None,
                other,
                T0,
                FAR,
                R0,
                FAR,
                "active",
                "user_stated",
                "many",
            )
        )
    return owner, self_id, entities, rows


def load(driver: Driver, owners: int, n_entities: int) -> None:
    """Bulk-load the store (parameterized UNWIND batches; see the module docstring)."""
    driver.execute_query(
        "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE"
    )
    driver.execute_query("CALL db.awaitIndexes(300)")
    rng = random.Random(4)
    started, total = time.perf_counter(), 0
    for oi in range(owners):
        owner, self_id, entities, rows = owner_rows(rng, oi, n_entities)
        driver.execute_query(LOAD_OWNER, owner=owner, self_id=self_id, t=R0)
        driver.execute_query(LOAD_ENTITIES, rows=entities, owner=owner, t=R0)
        for i in range(0, len(rows), 10_000):
            driver.execute_query(LOAD_FACTS, rows=rows[i : i + 10_000], owner=owner)
        total += len(rows)
        if oi % 10 == 9:
            print(
                f"  loaded {oi + 1} owners, {total:,} fact rows, "
                f"{time.perf_counter() - started:.0f} s"
            )
    driver.execute_query(
        "CREATE (:BenchMeta {id: 'prefetch', owners: $o, entities: $e})", o=owners, e=n_entities
    )


# --- episodes (issue 12) -------------------------------------------------------------------

LOAD_EPISODES = """
UNWIND $rows AS r
CREATE (ep:Episode)
SET ep.id = r.id, ep.owner = $owner, ep.chat_id = r.chat, ep.run_id = r.run,
    ep.message_id = r.mid, ep.seq = r.seq, ep.part = 'own', ep.role = 'user',
    ep.speaker_id = $self_id, ep.text = r.text, ep.search_text = r.text,
    ep.said_at = datetime({epochSeconds: r.at}), ep.source = 'user_stated',
    ep.recorded_at = datetime({epochSeconds: $rec}), ep.retracted_at = $far
"""
EPISODES_META = "MATCH (m:BenchMeta {id: 'prefetch-episodes'}) RETURN m.per_owner AS per_owner"
SAID = (
    "Had lunch with {first} in {city}; we talked about the {word} plan.",
    "Next week I want to visit {city} with {first}.",
    "{first} says the {word} deadline moved again, so the week is busy.",
    "Spent the weekend hiking near {city}, then planned the {word} trip.",
    "I keep forgetting to call {first} about the {word} budget.",
)
"""Templates of what the owners said: words the bench's messages share (lunch, week, plan,
weekend) and words they do not."""


def load_episodes(driver: Driver, owners: int, per_owner: int) -> None:
    """Bulk-load `per_owner` episodes of each bench owner, as the committer leaves them
    (no vectors: prefetch only reads the full-text index), and record it in a BenchMeta."""
    rng = random.Random(5)
    for oi in range(owners):
        owner = f"bench-{oi:03d}"
        found = driver.execute_query(
            "MATCH (o:Owner {id: $owner}) RETURN o.self_entity_id AS self_id", owner=owner
        ).records
        rows = [
            {
                "id": f"epi_{oi:03d}{i:020d}",
                "chat": f"chat-{i % 7}",
                "run": f"run-{i // 20}",
                "mid": f"m-{i}",
                "seq": i % 20,
                "at": R0 - (per_owner - i) * 3600,
                "text": rng.choice(SAID).format(
                    first=rng.choice(FIRST), city=rng.choice(CITIES), word=rng.choice(WORDS)
                ),
            }
            for i in range(per_owner)
        ]
        for i in range(0, len(rows), 10_000):
            driver.execute_query(
                LOAD_EPISODES,
                rows=rows[i : i + 10_000],
                owner=owner,
                self_id=found[0]["self_id"] if found else None,
                rec=R0,
                far=FAR_FUTURE,
            )
    driver.execute_query(
        "CREATE (:BenchMeta {id: 'prefetch-episodes', per_owner: $n})", n=per_owner
    )
