"""Recall over notes (issue 15): 50 notes we wrote (bench/notes_set.py), each asked for by a
question in other words; how often search finds it, and how often prefetch shows it.

Measures, on a fresh owner of a Neo4j of your own:

* search (`GET /v1/notes/search`, `search_context`, `memory_recall`'s candidates):
  recall@1, @3, @5, @10 and MRR of the note each question is about;
* prefetch: how often the note shows in the block's Notes section for the question as the
  message (at most 3 notes a block), and how many other notes show with it; and for ten
  messages about nothing in the notes, how many notes show anyway (false alarms).

Usage:

    .venv/bin/python bench/notes_recall.py --uri bolt://127.0.0.1:7687
"""

from __future__ import annotations

import argparse
import statistics
import sys
import uuid
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.chat.prefetch import notes as noted
from api.notes.service import query_vector
from bench.notes_set import NOTES
from committer.apply import Committer
from graph.driver import connect
from graph.embedding import EmbeddingSettings, build_embedder, warm
from graph.notes import NoteDraft, is_claim
from graph.read.reader import Reader
from graph.schema import ensure_schema
from graph.scope import Scope
from graph.time import AsOf, utcnow

CONTROL = (
    "book a table for two on Saturday",
    "what's the weather like in Porto tomorrow?",
    "remind me to call my sister",
    "translate this paragraph into Spanish",
    "how many kilometres is a marathon?",
    "suggest a name for my cat",
    "summarize this article about volcanoes",
    "what time is it in Tokyo?",
    "write a haiku about autumn",
    "convert 30 celsius to fahrenheit",
)
"""Messages about nothing the notes hold."""
KS = (1, 3, 5, 10)


def main() -> None:
    """Write the notes, ask the questions, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--uri", required=True, help="Bolt URI of a Neo4j of your own")
    args = ap.parse_args()
    with connect(args.uri, None, None) as driver:
        ensure_schema(driver)
        owner = f"notes-recall-{uuid.uuid4().hex[:8]}"
        embedder = build_embedder(EmbeddingSettings())
        warm(embedder)
        committer, reader = Committer(driver, embedder=embedder), Reader(driver)
        committer.ensure_owner(owner)
        ids = []
        for kind, title, body, _ in NOTES:
            review = utcnow() + timedelta(days=30) if is_claim(kind) else None
            draft = NoteDraft(kind=kind, title=title, body=body, review_at=review)
            ids.append(committer.write_note(owner, draft).note.note_id)
        scope, as_of = Scope(owner), AsOf.at()
        ranks: list[int | None] = []
        hybrid: list[int | None] = []
        shown, others = 0, []
        for (_, _, _, question), wanted in zip(NOTES, ids, strict=True):
            found = [n.note_id for n, _ in reader.search_notes(scope, question, as_of, limit=10)]
            ranks.append(found.index(wanted) + 1 if wanted in found else None)
            vector, model = query_vector(embedder, question)
            both = reader.search_notes(scope, question, as_of, limit=10, vector=vector, model=model)
            fused = [n.note_id for n, _ in both]
            hybrid.append(fused.index(wanted) + 1 if wanted in fused else None)
            with reader.snapshot() as snap:
                view = noted.read(snap, scope, question, utcnow())
            chosen = [n.note_id for n in view.notes if noted.fits(n, question)][: noted.MAX_NOTES]
            shown += wanted in chosen
            others.append(len([i for i in chosen if i != wanted]))
        alarms = []
        for message in CONTROL:
            with reader.snapshot() as snap:
                view = noted.read(snap, scope, message, utcnow())
            alarms.append(len([n for n in view.notes if noted.fits(n, message)][: noted.MAX_NOTES]))
    n = len(NOTES)
    print(f"notes recall over {n} notes, {n} questions (bench/notes_set.py)")
    print(f"  {'':18} {'words':>7} {'words + meaning':>16}")
    for k in KS:
        hit = [sum(1 for r in rs if r is not None and r <= k) for rs in (ranks, hybrid)]
        print(f"  search recall@{k:<3} {hit[0] / n:7.2f} {hit[1] / n:16.2f}")
    mrr = [statistics.fmean(1 / r if r else 0.0 for r in rs) for rs in (ranks, hybrid)]
    model = embedder.model if embedder is not None else None
    print(f"  search MRR@10      {mrr[0]:7.3f} {mrr[1]:16.3f}   (embedder {model})")
    print(f"  prefetch shows the note      {shown / n:.2f}  ({shown}/{n})")
    print(f"  prefetch, other notes shown  {statistics.fmean(others):.2f} per message")
    print(f"  prefetch, off-topic messages {sum(alarms)} notes shown in {len(CONTROL)} messages")
    missed = [q for (_, _, _, q), r in zip(NOTES, hybrid, strict=True) if r is None or r > 3]
    print("  missed at @3 (words + meaning): " + "; ".join(missed))


if __name__ == "__main__":
    main()
