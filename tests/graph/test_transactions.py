"""Reads and commits retried on the wall clock (graph/transactions.py; CONTRACT §15)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from neo4j import Driver, GraphDatabase
from neo4j.exceptions import (
    ConnectionAcquisitionTimeoutError,
    IncompleteCommit,
    ResultFailedError,
    ServiceUnavailable,
    TransientError,
)

from graph.driver import StoreTimeouts, connect
from graph.errors import StoreUnavailable
from graph.read.reader import Reader
from graph.store_errors import Failure, classify, translate
from graph.transactions import RetryPolicy, run_transaction, store_deadline
from graph.write.writer import Writer


@pytest.fixture
def dead() -> Any:
    """A driver to a port nobody listens on (connection refused at once)."""
    with connect("bolt://127.0.0.1:9", timeouts=StoreTimeouts(0.5, 0.5, 0.5)) as driver:
        yield driver


def test_an_unreachable_store_fails_within_the_budget(dead: Driver) -> None:
    """Reads and commits give up after `unreachable_s` (not the driver's 30 s)."""
    policy = RetryPolicy(unreachable_s=0.5)
    for call in (
        lambda: Reader(dead, policy=policy).ping(),
        lambda: Writer(dead, policy=policy).transaction(lambda w: w.owned_besides_tokens("x")),
    ):
        began = time.monotonic()
        with pytest.raises(StoreUnavailable):
            call()
        assert time.monotonic() - began < 1.0


def test_a_request_deadline_caps_every_transaction_in_it(dead: Driver) -> None:
    """Inside `store_deadline(0.2)` a 30 s budget stops at 0.2 s."""
    began = time.monotonic()
    with store_deadline(0.2), pytest.raises(StoreUnavailable):
        Reader(dead, policy=RetryPolicy(unreachable_s=30)).ping()
    assert time.monotonic() - began < 0.6


def test_a_lost_commit_answer_is_never_run_again(neo4j_driver: Driver) -> None:
    """IncompleteCommit (the commit may have landed) is not retried: one attempt, 503."""
    attempts = []

    def work(tx: Any) -> None:
        attempts.append(1)
        raise IncompleteCommit("connection lost during commit")

    with pytest.raises(StoreUnavailable):
        run_transaction(neo4j_driver, None, "WRITE", work)
    assert len(attempts) == 1


def test_contention_is_retried_until_it_passes(neo4j_driver: Driver) -> None:
    """A deadlock is retried (the store answers: worth waiting), then the work commits."""
    attempts = []

    def work(tx: Any) -> int:
        attempts.append(1)
        if len(attempts) < 3:
            raise TransientError("deadlock")
        return int(tx.run("RETURN 1 AS one").single()["one"])

    assert run_transaction(neo4j_driver, None, "READ", work) == 1
    assert len(attempts) == 3


def test_failures_are_classified_and_translated_in_one_place() -> None:
    """Unreachable, contention and final failures; translation to the exception root."""
    assert classify(ServiceUnavailable("x")) is Failure.UNREACHABLE
    assert classify(IncompleteCommit("x")) is Failure.FINAL
    assert classify(ValueError("x")) is Failure.FINAL
    assert isinstance(translate(ServiceUnavailable("x")), StoreUnavailable)
    assert isinstance(translate(OSError("x")), StoreUnavailable)
    bug = ValueError("a bug")
    assert translate(bug) is bug


def deadlocked_result() -> ResultFailedError:
    """What the driver raises on a result read after a deadlock failed its transaction."""
    try:
        try:
            raise TransientError("deadlock")
        except TransientError as cause:
            raise ResultFailedError(None, "the result has failed") from cause
    except ResultFailedError as failed:
        return failed


def test_a_failed_result_is_classified_by_its_cause() -> None:
    """Found in CI (start-ups racing on the schema): a deadlock seen first by another result
    of the same transaction reached the caller as ResultFailedError, which was FINAL; its
    cause decides now. Without a cause it stays FINAL."""
    failed = deadlocked_result()
    assert isinstance(failed.__cause__, TransientError)
    assert classify(failed) is classify(failed.__cause__) is not Failure.FINAL
    assert classify(ResultFailedError(None, "no cause")) is Failure.FINAL


def test_a_pool_with_no_connection_free_answers_unavailable(neo4j_server: Any) -> None:
    """Found under load (bench/load.py): every pooled connection held, a read waited out
    its acquisition timeout and the driver's ConnectionAcquisitionTimeoutError escaped as
    a 500. It is the store being too slow to answer: StoreUnavailable (503), retried
    within the unreachable budget like a lost connection."""
    auth = neo4j_server.auth
    with GraphDatabase.driver(
        neo4j_server.uri,
        auth=auth,
        max_connection_pool_size=1,
        connection_acquisition_timeout=0.2,
    ) as driver:
        assert classify(ConnectionAcquisitionTimeoutError("x")) is Failure.UNREACHABLE
        with driver.session() as held, held.begin_transaction() as tx:
            tx.run("RETURN 1").consume()  # the pool's one connection is taken
            with pytest.raises(StoreUnavailable):
                run_transaction(
                    driver,
                    None,
                    "READ",
                    lambda t: t.run("RETURN 1").single(),
                    policy=RetryPolicy(unreachable_s=0.3, contention_s=0.3),
                )


def test_a_failure_that_outlives_its_budget_is_unavailable(neo4j_driver: Driver) -> None:
    """A store that stops answering mid-call is retried (doubling pauses) until the next
    attempt would start past `unreachable_s`; then 503, and no attempt is scheduled past
    it (`starts` are taken inside the transaction, so each carries the time to open a
    session on a busy machine: 0.25 s of slack)."""
    starts: list[float] = []
    began = time.monotonic()

    def work(tx: Any) -> None:
        starts.append(time.monotonic() - began)
        raise ServiceUnavailable("connection reset")

    policy = RetryPolicy(unreachable_s=0.4, first_delay_s=0.05)
    with pytest.raises(StoreUnavailable):
        run_transaction(neo4j_driver, None, "READ", work, policy=policy)
    assert len(starts) >= 3
    assert max(starts) <= 0.4 + 0.25
    assert time.monotonic() - began < 0.4 + 1.0


def test_a_single_attempt_without_a_policy(neo4j_driver: Driver) -> None:
    """`policy=None` (prefetch, which has a deadline of its own) never retries."""
    attempts = []

    def work(tx: Any) -> None:
        attempts.append(1)
        raise TransientError("deadlock")

    with pytest.raises(StoreUnavailable):
        run_transaction(neo4j_driver, None, "READ", work, policy=None)
    assert attempts == [1]
