"""The import rules of STYLE.md hold by themselves: import-linter runs as a test."""

from __future__ import annotations

from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """graph imports nothing of ours; nobody imports api; only the committer writes."""
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def test_no_mixin_stub_shadows_a_real_method() -> None:
    """Reader, WriteTx and Committer are assembled from mixins whose typing stubs raise
    NotImplementedError; none may come before the class that really implements the
    method (a regression: PullReads.resolve once shadowed LifecycleReads.resolve)."""
    import inspect

    from committer.apply import Committer
    from graph.read.reader import Reader
    from graph.write.writer import WriteTx

    shadowed = []
    for cls in (Reader, WriteTx, Committer):
        for name in dir(cls):
            attr = getattr(cls, name)
            if name.startswith("__") or not inspect.isfunction(attr):
                continue
            source = inspect.getsource(attr)
            if "raise NotImplementedError" in source and source.count("\n") < 6:
                shadowed.append(f"{cls.__name__}.{name}")
    assert shadowed == []
