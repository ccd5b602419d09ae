"""Compare-and-set across processes (CONTRACT §14): two processes, each with its own driver,
incrementing one counter 100 times with `If-Match` end at 200, every version in the history.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from neo4j import Driver

from committer.apply import Committer
from committer.holders import Author
from graph.held import Holder
from graph.read.reader import Reader

ROOT = Path(__file__).resolve().parents[2]
N = 100


@pytest.mark.slow
def test_two_processes_incrementing_with_compare_and_set_end_at_200(
    neo4j_driver: Driver, neo4j_uri: str, owner: str
) -> None:
    """Two worker processes each apply 100 increments with compare-and-set; the counter
    ends at 200, its history holds every value 0..200 once (no lost update, none applied
    twice), and the processes did meet each other (some writes were refused with 412)."""
    committer = Committer(neo4j_driver)
    committer.create_token(owner, ["write"])
    committer.put_state(Author(owner), "wf", "counter", 0)
    args = [sys.executable, "-m", "tests.committer.cas_worker", neo4j_uri, owner, "wf", "counter"]
    workers = [
        subprocess.Popen([*args, str(N)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    conflicts = []
    for w in workers:
        out, _ = w.communicate(timeout=300)
        assert w.returncode == 0
        conflicts.append(int(out.strip().splitlines()[-1]))
    reader = Reader(neo4j_driver)
    final = reader.state(reader.reach(owner), Holder(owner=owner), "wf", "counter")
    assert (json.loads(final.value or "null"), final.version) == (2 * N, 2 * N + 1)
    values = reader.run_query(
        "MATCH (s:StateVersion {holder: $h, workflow: 'wf', state_key: 'counter'}) "
        "RETURN s.value AS v ORDER BY s.version",
        h=Holder(owner=owner).key,
    )
    assert [json.loads(r["v"]) for r in values] == list(range(2 * N + 1))
    assert sum(conflicts) > 0, "the two processes never raced: the test proves nothing"
