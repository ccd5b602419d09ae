"""The write side: write transactions and their primitives, for `committer` only.

import-linter forbids `curator` and `api` to import this package (pyproject.toml), so
the committer stays the only writer (CONTRACT §1)."""
