"""The committer itself never files a proposal that carries a secret (CONTRACT §3):
whatever its caller decided, such a proposal is dropped before anything is stored."""

from __future__ import annotations

from datetime import UTC, datetime

from neo4j import Driver

from committer.apply import Committer
from committer.proposals import EntityRef, Proposal, Provenance, Reviewed
from graph.read.reader import Reader

AT = datetime(2024, 3, 10, 9, tzinfo=UTC)


def _reviewed(ident: str, attribute: str, value: str, evidence: str) -> Reviewed:
    proposal = Proposal(
        id=ident,
        subject=EntityRef(),
        attribute=attribute,
        value=value,
        valid_from=AT,
        type="test",
        provenance=Provenance(source="user_stated", evidence=evidence),
    )
    return Reviewed(proposal=proposal, action="commit", policy="clear and low-risk")


def test_a_secret_proposal_is_dropped_even_when_marked_commit(
    neo4j_driver: Driver, owner: str
) -> None:
    """A caller that marks "commit" on a credential (the value read under its attribute,
    or the evidence) gets nothing stored; the ordinary proposal beside it is committed."""
    committer = Committer(neo4j_driver)
    stored = committer.file_proposals(
        owner,
        None,
        [
            _reviewed("p1", "bank_pin", "55102938", "my bank PIN at Santander is 55102938"),
            _reviewed("p2", "bank", "Santander", "my password at Santander is Wq88plum"),
            _reviewed("p3", "location", "Porto", "I live in Porto"),
        ],
    )
    assert [(p.attribute, p.value, p.status) for p in stored] == [
        ("location", "Porto", "committed")
    ]
    rows = Reader(neo4j_driver).run_query(
        "MATCH (n) WHERE n.owner = $o AND any(k IN keys(n) WHERE n[k] IS :: STRING "
        "AND (n[k] CONTAINS '55102938' OR n[k] CONTAINS 'Wq88plum')) RETURN count(n) AS c",
        o=owner,
    )
    assert rows[0]["c"] == 0
