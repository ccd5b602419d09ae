"""The chat read path: prefetch, the read tools and search, with their routes.

It never imports the committer (an import-linter contract): a turn only reads (CONTRACT §1)."""
