"""A curated run is embedded in one call, before its transaction (issue 12: import
throughput), and every episode and row still gets the vector its own text has."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from neo4j import Driver

from committer.apply import Committer
from committer.proposals import EntityRef, Proposal, Provenance, Reviewed
from committer.search_index import Prepared
from curator.episodes import said_in
from graph.embedding.local import LocalEmbedder

AT = "2024-03-10T09:00:00+01:00"


class Counting:
    """The local embedder, with every call's texts written down."""

    def __init__(self) -> None:
        self.inner = LocalEmbedder()
        self.model = self.inner.model
        self.dimensions = self.inner.dimensions
        self.calls: list[list[str]] = []

    def warm(self) -> None:
        self.inner.warm()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return self.inner.embed(texts)


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    embedder = LocalEmbedder()
    embedder.warm()
    return embedder


def _claimed(driver: Driver, committer: Committer, owner: str, run_id: str, texts: list[str]):
    """Submit a run of `Maya`'s messages and hold it `curating` under worker `w`, without
    the shared run queue (other test sessions' runs must not be claimed here)."""
    messages = [
        {"id": f"m{i}", "role": "user", "speaker": "Maya", "text": t, "at": AT}
        for i, t in enumerate(texts)
    ]
    run, _ = committer.submit_run(
        owner,
        run_id=run_id,
        chat_id="c1",
        surface=None,
        payload=json.dumps({"messages": messages}),
    )
    driver.execute_query(
        "MATCH (r:Run {key: $key}) SET r.status = 'curating', r.lease_owner = 'w', "
        "r.lease_until = $until",
        key=f"{owner}/{run_id}",
        until=datetime.now(UTC) + timedelta(minutes=5),
    )
    return run


def _location(run_id: str, place: str, day: int) -> Reviewed:
    proposal = Proposal(
        id=f"{run_id}-loc",
        subject=EntityRef(name="Maya"),
        attribute="location",
        value=place,
        valid_from=datetime(2024, 3, day, tzinfo=UTC),
        type="fact",
        provenance=Provenance(source="user_stated", run_id=run_id, message_id="m0"),
    )
    return Reviewed(proposal=proposal, action="commit", policy="test")


def _vectors(driver: Driver, owner: str, label: str) -> dict[str, list[float]]:
    rows = driver.execute_query(
        "MATCH (n {owner: $o}) WHERE $label IN labels(n) AND n.embedding IS NOT NULL "
        "AND n.retracted_at > datetime() RETURN n.search_text AS text, n.embedding AS v",
        o=owner,
        label=label,
    ).records
    return {r["text"]: r["v"] for r in rows}


def test_a_run_is_embedded_once_before_its_transaction_with_the_vectors_of_each_text(
    neo4j_driver: Driver, owner: str, local: LocalEmbedder
) -> None:
    """One embedder call carries the run's messages and its committed row's text; each
    episode and the row hold the vector their text gets when embedded alone."""
    counting = Counting()
    committer = Committer(neo4j_driver, embedder=counting)
    texts = ["I moved to Denver last month.", "The mountains are lovely."]
    run = _claimed(neo4j_driver, committer, owner, "r1", texts)
    committer.apply_run(run, [_location("r1", "Denver", 1)], worker="w", said=said_in(run))
    assert counting.calls == [["Maya: " + t for t in texts] + ["Maya location Denver"]]
    stored = _vectors(neo4j_driver, owner, "Episode") | _vectors(neo4j_driver, owner, "Fact")
    assert sorted(stored) == sorted(counting.calls[0])
    for text, vector in stored.items():
        alone = local.embed([text])[0]
        assert np.allclose(vector, alone, atol=1e-6), text


def test_a_row_whose_text_was_not_prepared_is_embedded_in_the_transaction(
    neo4j_driver: Driver, owner: str
) -> None:
    """A later run that supersedes Maya's location records the older row again: its text
    was not among the run's prepared ones, so the transaction embeds it as before, and
    every current row has its vector."""
    counting = Counting()
    committer = Committer(neo4j_driver, embedder=counting)
    run = _claimed(neo4j_driver, committer, owner, "r1", ["I live in Portland."])
    committer.apply_run(run, [_location("r1", "Portland", 1)], worker="w", said=said_in(run))
    run = _claimed(neo4j_driver, committer, owner, "r2", ["I moved to Denver."])
    counting.calls.clear()
    committer.apply_run(run, [_location("r2", "Denver", 5)], worker="w", said=said_in(run))
    assert counting.calls == [
        ["Maya: I moved to Denver.", "Maya location Denver"],
        ["Maya location Portland"],
    ]
    current = _vectors(neo4j_driver, owner, "Fact")
    assert sorted(current) == ["Maya location Denver", "Maya location Portland"]


def test_prepared_answers_its_texts_and_asks_only_for_the_others() -> None:
    """`Prepared` keeps the order asked, answers prepared texts itself, and hands the
    inner embedder each missing text once."""
    counting = Counting()
    made = counting.embed(["a cat", "a dog"])
    counting.calls.clear()
    prepared = Prepared(counting, {"a cat": made[0], "a dog": made[1]})
    out = prepared.embed(["a dog", "a bird", "a cat", "a bird"])
    assert counting.calls == [["a bird"]]
    assert out[0] == made[1] and out[2] == made[0] and out[1] == out[3]
    assert prepared.model == counting.model and prepared.dimensions == counting.dimensions
