"""A process that increments one workflow-state counter N times with compare-and-set
(tests/committer/test_state_processes.py starts two of them).

    python -m tests.committer.cas_worker BOLT_URI OWNER WORKFLOW KEY N

Each increment reads the value and its version, then writes value + 1 with `If-Match` on
that version; a 412 (another process wrote first) reads again and retries. Prints the
number of 412s it met.
"""

from __future__ import annotations

import json
import sys

from committer.apply import Committer
from committer.holders import Author
from committer.state import Conditions
from graph.driver import connect
from graph.errors import PreconditionFailed
from graph.held import Holder
from graph.read.reader import Reader


def main(uri: str, owner: str, workflow: str, key: str, n: int) -> None:
    """Increment (owner, workflow, key) `n` times with compare-and-set."""
    conflicts = 0
    with connect(uri, None, None) as driver:
        reader, committer = Reader(driver), Committer(driver)
        reach = reader.reach(owner)
        done = 0
        while done < n:
            current = reader.state(reach, Holder(owner=owner), workflow, key)
            value = json.loads(current.value or "0") + 1
            try:
                committer.put_state(
                    Author(owner),
                    workflow,
                    key,
                    value,
                    conditions=Conditions(if_match=current.version),
                )
            except PreconditionFailed:
                conflicts += 1
                continue
            done += 1
    print(conflicts)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
