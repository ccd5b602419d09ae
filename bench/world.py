"""A synthetic world for the comparison and growth benchmarks: owners, people, and facts
whose texts and vectors come from our own local model.

Each owner has people named "<first> <last>"; each person has ten facts, one per
attribute of `ATTRIBUTES` (eight of one cardinality, two `many`), with values from
short lists; a share of the one-cardinality facts changed value once (the old value is
superseded). A fact's text is what the committer indexes, `graph.embedding.fact_text`:
"Ana Silva location Porto".

Vectors: the local model (all-MiniLM-L6-v2) embeds every "<first> <attribute> <value>"
once (`POOL`: 40 x 10 x 8 = 3,200 texts, cached on disk), and a fact's vector is its
pool text's vector plus small noise seeded by the full text (so no two rows are equal,
and the same text always gets the same vector on both systems). Embedding a million
distinct texts with the real model would take hours on these machines; the pool keeps
the vectors real, and their neighbourhoods are those the model draws.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from committer.apply import Committer
from committer.owners import ensure_owner, new_entity
from committer.proposals import Assertion
from graph import attributes
from graph.embedding import LocalEmbedder, fact_text
from graph.time import utcnow
from graph.write.writer import Writer

FIRST = [
    "Ana",
    "Bruno",
    "Chen",
    "Dara",
    "Eli",
    "Farah",
    "Gus",
    "Hana",
    "Ivo",
    "Jun",
    "Kofi",
    "Lena",
    "Milo",
    "Nadia",
    "Omar",
    "Pia",
    "Quinn",
    "Rosa",
    "Sami",
    "Tara",
    "Umar",
    "Vera",
    "Wen",
    "Xavi",
    "Yara",
    "Zeno",
    "Alma",
    "Boris",
    "Cleo",
    "Dev",
    "Edda",
    "Finn",
    "Gia",
    "Hugo",
    "Iris",
    "Joel",
    "Kira",
    "Luca",
    "Maya",
    "Nils",
]
LAST = [
    "Silva",
    "Costa",
    "Weber",
    "Tanaka",
    "Quispe",
    "Berg",
    "Mensah",
    "Miller",
    "Dubois",
    "Rossi",
    "Novak",
    "Haddad",
    "Kowal",
    "Ortega",
    "Lind",
    "Sato",
    "Moreau",
    "Fischer",
    "Alves",
    "Ito",
    "Brandt",
    "Keller",
    "Ruiz",
    "Nagy",
    "Horvat",
    "Meyer",
    "Cruz",
    "Adler",
    "Stone",
    "Park",
]
ATTRIBUTES: dict[str, tuple[str, tuple[str, ...], str]] = {
    # attribute: (cardinality, values, a question about it)
    "location": (
        "one",
        ("Porto", "Lisbon", "Berlin", "Kyoto", "Lima", "Oslo", "Accra", "Denver"),
        "where does {n} live now",
    ),
    "hometown": (
        "one",
        ("Braga", "Munich", "Osaka", "Cusco", "Bergen", "Kumasi", "Austin", "Lyon"),
        "where is {n} from",
    ),
    "employer": (
        "one",
        (
            "Acme",
            "the city hospital",
            "a bakery",
            "the university",
            "Globex",
            "the library",
            "a law firm",
            "the airline",
        ),
        "who does {n} work for",
    ),
    "occupation": (
        "one",
        ("nurse", "carpenter", "teacher", "pilot", "chef", "lawyer", "architect", "baker"),
        "what is {n}'s job",
    ),
    "studies": (
        "one",
        ("biology", "history", "engineering", "law", "music", "medicine", "economics", "painting"),
        "what did {n} study",
    ),
    "nationality": (
        "one",
        (
            "Portuguese",
            "German",
            "Japanese",
            "Peruvian",
            "Norwegian",
            "Ghanaian",
            "American",
            "French",
        ),
        "what nationality is {n}",
    ),
    "diet": (
        "one",
        (
            "vegetarian",
            "vegan",
            "pescatarian",
            "keto",
            "gluten free",
            "omnivore",
            "halal",
            "kosher",
        ),
        "what does {n} eat",
    ),
    "relationship_status": (
        "one",
        (
            "married",
            "single",
            "engaged",
            "divorced",
            "widowed",
            "dating",
            "separated",
            "in a relationship",
        ),
        "is {n} married",
    ),
    "likes": (
        "many",
        (
            "jazz music",
            "hiking",
            "chess",
            "sourdough baking",
            "cycling",
            "old films",
            "green tea",
            "pistachio ice cream",
        ),
        "what does {n} like",
    ),
    "hobby": (
        "many",
        (
            "pottery",
            "birdwatching",
            "rock climbing",
            "knitting",
            "gardening",
            "surfing",
            "photography",
            "sailing",
        ),
        "what are {n}'s hobbies",
    ),
}
T0 = datetime(2023, 1, 1, tzinfo=UTC)
"""When the old values started holding."""
T1 = datetime(2024, 1, 1, tzinfo=UTC)
"""When the changed facts took their current value."""
NOISE = 0.01
"""Standard deviation of the per-dimension noise added to a pool vector."""
BATCH = 1000
"""Assertions per committer transaction while loading."""


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact of the world: `old` is the superseded earlier value, or None."""

    person: int
    attribute: str
    value: str
    old: str | None


@dataclass(frozen=True, slots=True)
class Person:
    """One person of an owner, with their ten facts."""

    name: str
    facts: tuple[Fact, ...]


def people(owner_seed: str, count: int, changed: float = 0.2) -> list[Person]:
    """The `count` people of one owner, deterministic in `owner_seed`.

    Args:
        owner_seed: seeds the names and values (e.g. the owner id).
        count: how many people.
        changed: the share of one-cardinality facts that changed value once.
    """
    rng = random.Random(owner_seed)
    out = []
    for i in range(count):
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        out.append(Person(name, person_facts(rng, i, changed)))
    return out


def person_facts(rng: random.Random, i: int, changed: float) -> tuple[Fact, ...]:
    """Person `i`'s ten facts (ATTRIBUTES), drawn from `rng`: a `changed` share of the
    one-cardinality ones held another value before."""
    facts = []
    for attribute, (cardinality, values, _) in ATTRIBUTES.items():
        value = rng.choice(values)
        old = None
        if cardinality == "one" and rng.random() < changed:
            old = rng.choice([v for v in values if v != value])
        facts.append(Fact(i, attribute, value, old))
    return tuple(facts)


def questions(persons: Sequence[Person], count: int, seed: str) -> list[tuple[str, str, str]]:
    """`count` questions about people of one owner: (question, person's name, attribute)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        person = rng.choice(persons)
        attribute = rng.choice(list(ATTRIBUTES))
        out.append((ATTRIBUTES[attribute][2].format(n=person.name), person.name, attribute))
    return out


def pool_key(text: str) -> str:
    """The pool text of a fact text: its subject's first name, then the rest without the
    last name ("Ana Silva location Porto" -> "Ana location Porto")."""
    first, _, rest = text.partition(" ")
    _, _, tail = rest.partition(" ")
    return f"{first} {tail}"


def pool_texts() -> list[str]:
    """Every pool text: each first name with each attribute and value; then each first
    name and each value alone (the names of Graphiti's entity nodes)."""
    facts = [
        fact_text(first, attribute, value)
        for first in FIRST
        for attribute, (_, values, _) in ATTRIBUTES.items()
        for value in values
    ]
    values = [v for _, vs, _ in ATTRIBUTES.values() for v in vs]
    return facts + list(dict.fromkeys([*FIRST, *values]))


class Pool:
    """The pool's vectors, loaded from `cache` or embedded by the local model once.

    Args:
        cache: a directory for the vectors (`pool-<digest of the texts>.npy`).
    """

    def __init__(self, cache: Path):
        texts = pool_texts()
        digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:12]
        path = cache / f"pool-{digest}.npy"
        if path.exists():
            vectors = np.load(path)
        else:
            cache.mkdir(parents=True, exist_ok=True)
            vectors = np.asarray(LocalEmbedder().embed(texts), dtype=np.float32)
            np.save(path, vectors)
        self._index = {t: i for i, t in enumerate(texts)}
        self._vectors = vectors

    def vector(self, text: str, key: str | None = None) -> list[float]:
        """The vector of a fact text: its pool vector (that of `key` when given, else
        `pool_key(text)`) plus noise seeded by `text`, unit length."""
        base = self._vectors[self._index[key or pool_key(text)]]
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
        noisy = base + np.random.default_rng(seed).normal(0.0, NOISE, base.shape[0])
        return [float(x) for x in noisy / np.linalg.norm(noisy)]


class PoolEmbedder:
    """An `Embedder` (graph/embedding.py) for loading the world through the committer:
    each row's vector comes from the pool, under the local model's id, so searches with
    the local model's query vectors compare like with like."""

    model = LocalEmbedder.model
    dimensions = 384

    def __init__(self, pool: Pool):
        self._pool = pool

    def warm(self) -> None:
        """Nothing to load: the pool is in memory."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """The pool vector of each fact text."""
        return [self._pool.vector(t) for t in texts]


class FixedEmbedder:
    """An `Embedder` that answers queries with vectors embedded beforehand (so a search
    is timed without the model, as Graphiti's is with `query_vector`)."""

    model = LocalEmbedder.model
    dimensions = 384

    def __init__(self, vectors: dict[str, list[float]]):
        self._vectors = vectors

    def warm(self) -> None:
        """Nothing to load."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """The stored vector of each query."""
        return [self._vectors[t] for t in texts]


def chunks(items: Sequence[object], size: int) -> Iterator[Sequence[object]]:
    """`items` in consecutive slices of at most `size`."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def load_ours(driver: Any, owner: str, persons: Sequence[Person], pool: Pool) -> list[str]:
    """Load one owner's people through the committer (the rules, embeddings from the pool);
    return their entity ids. People are created 500 per transaction, facts `BATCH` at a
    time, an old value before the value that superseded it."""
    writer = Writer(driver)
    ids: list[str] = []
    for part in chunks(persons, 500):

        def work(w: Any, part: Any = part) -> list[str]:
            ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            return [new_entity(w, owner, p.name, "person", (), None, t).id for p in part]

        ids += writer.transaction(work)
    committer = Committer(driver, None, PoolEmbedder(pool))
    made: list[Assertion] = []
    for entity_id, person in zip(ids, persons, strict=True):
        for fact in person.facts:
            card = attributes.spec(fact.attribute).cardinality
            if fact.old is not None:
                made.append(
                    Assertion(
                        entity_id=entity_id,
                        attribute=fact.attribute,
                        value=fact.old,
                        valid_from=T0,
                        cardinality=card,
                    )
                )
            made.append(
                Assertion(
                    entity_id=entity_id,
                    attribute=fact.attribute,
                    value=fact.value,
                    valid_from=T1 if fact.old else T0,
                    cardinality=card,
                )
            )
    for part in chunks(made, BATCH):
        committer.assert_facts(owner, list(part))  # type: ignore[arg-type]
    return ids
