"""Embedder benchmark: texts per second at batch 1 and batch 64, load time and RSS.

Measures the local embedder (all-MiniLM-L6-v2 on ONNX Runtime) and, when the torch extra
is installed, the same model on sentence-transformers and torch (`WORLDSTATE_EMBEDDER=
torch`), each in a fresh process: its RSS once `graph.embedding` is imported, after the
model is loaded, and after the runs. The floor, measured in the same run: tokenizing the
same texts with the model's tokenizer alone, which no embedder of this model can beat.
The texts are fact rows and chat turns this script writes (seeded, so every run embeds
the same ones).

Usage:

    .venv/bin/python bench/embed_bench.py [--texts 512] [--runtimes local,torch]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.measure import rss_mb

NAMES = ["Ana", "Bruno", "Chen", "Dara", "Eli", "Farah", "Gus", "Hana", "Ivo", "Jun"]
FACTS = [
    ("location", ["Porto", "Lisbon", "Berlin", "Kyoto", "Lima", "Oslo", "Accra"]),
    ("occupation", ["nurse", "carpenter", "teacher", "pilot", "chef", "lawyer"]),
    ("likes", ["jazz music", "hiking", "chess", "sourdough baking", "cycling"]),
    ("employer", ["Acme Robotics", "the city hospital", "a bakery", "the university"]),
]
TURNS = [
    "I finally moved to {v} last month and the flat has a view of the river.",
    "{n} told me yesterday that the new job at {v} is going better than expected.",
    "Can you remind me what {n} said about {v} when we met for dinner on Friday?",
    "We spent the whole weekend with {n}, talking about {v}, old friends and the future.",
]
BATCH = 64


def texts(count: int) -> list[str]:
    """`count` texts, half fact rows ("Ana location Porto"), half chat turns (10-25 words)."""
    rng = random.Random(7)
    out = []
    for i in range(count):
        name = rng.choice(NAMES)
        attribute, values = rng.choice(FACTS)
        value = rng.choice(values)
        if i % 2:
            out.append(rng.choice(TURNS).format(n=name, v=value))
        else:
            out.append(f"{name} {attribute} {value}")
    return out


def child(runtime: str, count: int) -> None:
    """In a fresh process: load `runtime`'s embedder, time it, print one JSON line."""
    import os

    from graph.embedding import LocalEmbedder, TorchEmbedder

    pid = os.getpid()
    sample = texts(count)
    before = rss_mb(pid)
    embedder = LocalEmbedder() if runtime == "local" else TorchEmbedder()
    began = time.perf_counter()
    embedder.warm()
    load_s = time.perf_counter() - began
    loaded = rss_mb(pid)
    embedder.embed(sample[:BATCH])  # warm-up: first runs allocate
    began, cpu = time.perf_counter(), time.process_time()
    for text in sample:
        embedder.embed([text])
    one = count / (time.perf_counter() - began)
    one_cpu = (time.process_time() - cpu) * 1000 / count
    began, cpu = time.perf_counter(), time.process_time()
    for start in range(0, count, BATCH):
        embedder.embed(sample[start : start + BATCH])
    many = count / (time.perf_counter() - began)
    many_cpu = (time.process_time() - cpu) * 1000 / count
    print(
        json.dumps(
            {
                "rss_imported_mb": before,
                "load_s": load_s,
                "rss_loaded_mb": loaded,
                "batch1_per_s": one,
                "batch64_per_s": many,
                "batch1_cpu_ms": one_cpu,
                "batch64_cpu_ms": many_cpu,
                "rss_after_mb": rss_mb(pid),
            }
        )
    )


def floor(count: int) -> float:
    """Texts per second the tokenizer alone handles, in batches of 64."""
    from tokenizers import Tokenizer

    from graph.embedding.local import MAX_TOKENS, TOKENIZER_FILE

    tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    sample = texts(count)
    began = time.perf_counter()
    for start in range(0, count, BATCH):
        tokenizer.encode_batch(sample[start : start + BATCH])
    return count / (time.perf_counter() - began)


def main() -> None:
    """Measure every runtime asked for in its own process, then print the table."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--texts", type=int, default=512, help="texts embedded per measurement")
    ap.add_argument("--runtimes", default="local,torch", help="local and/or torch")
    ap.add_argument("--child", choices=["local", "torch"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.texts)
        return
    print(f"{args.texts} texts (half fact rows, half chat turns); batch 1 and batch {BATCH}")
    print(f"floor: tokenizer only, batch {BATCH}: {floor(args.texts):,.0f} texts/s")
    print("texts/s is wall-clock; CPU ms/text counts every thread of the process")
    print(
        f"{'runtime':<8} {'batch 1/s':>10} {'batch 64/s':>11} {'CPU ms 1':>9} {'CPU ms 64':>10} "
        f"{'load s':>7} {'RSS import':>11} {'RSS loaded':>11} {'RSS after':>10}  (MiB)"
    )
    for runtime in args.runtimes.split(","):
        if runtime == "torch":
            import importlib.util

            if importlib.util.find_spec("sentence_transformers") is None:
                print("torch    (not installed: pip install -e '.[torch]')")
                continue
        done = subprocess.run(
            [sys.executable, __file__, "--child", runtime, "--texts", str(args.texts)],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"{runtime:<8} {r['batch1_per_s']:>10.1f} {r['batch64_per_s']:>11.1f} "
            f"{r['batch1_cpu_ms']:>9.1f} {r['batch64_cpu_ms']:>10.1f} {r['load_s']:>7.2f} "
            f"{r['rss_imported_mb']:>11.0f} {r['rss_loaded_mb']:>11.0f} {r['rss_after_mb']:>10.0f}"
        )


if __name__ == "__main__":
    main()
