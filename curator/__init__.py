"""The curator: reviews finished runs and proposes updates; it never writes facts (CONTRACT §1, §4).

`curator.extract` is the default extractor (deterministic, offline): first-person
statements become `committer.proposals.Proposal`s. `curator.timeparse` resolves relative
times against a message's timestamp; `curator.locomo` turns LoCoMo conversations into
run payloads.
"""
