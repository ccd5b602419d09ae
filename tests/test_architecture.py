"""The import rules (README, "Layout") hold by themselves: import-linter runs as a test."""

from __future__ import annotations

from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """graph imports nothing of ours; nobody imports api; only the committer writes."""
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0
