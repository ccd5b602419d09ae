"""The committer: the only writer of facts (CONTRACT §1, §2.1).

`committer.proposals` holds what callers hand in; `committer.rules` are pure
functions that plan a write; `committer.apply` runs a plan in one Neo4j transaction.
"""
