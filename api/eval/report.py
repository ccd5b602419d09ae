"""Tallies and the printed report of `worldstate eval locomo` (one table per file, and one
for all files pooled, question by question).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from api.eval.locomo import (
    CATEGORIES,
    TEMPORAL,
    Question,
    Retrieved,
    answer_period,
    dated,
    first_hit,
    on_answer_date,
)
from api.eval.service import Imported

SYSTEMS = ("search", "bm25", "dense")
"""Ranked systems, in report order: the service's search, then the two baselines."""


@dataclass(frozen=True, slots=True)
class Asked:
    """One question and what each system returned for it.

    Attributes:
        question: the question.
        ranked: per system of SYSTEMS that ran, its items best first (at most k).
        prefetch: the prefetch block's items, in block order.
        prefetch_degraded: prefetch answered degraded (an empty block).
    """

    question: Question
    ranked: dict[str, list[Retrieved]]
    prefetch: list[Retrieved]
    prefetch_degraded: bool


@dataclass(slots=True)
class FileResult:
    """The evaluation of one file.

    Attributes:
        name: the file's stem.
        owner: the fresh owner it was imported into (erased afterwards unless kept).
        k: results asked of search and of each baseline.
        asked: one entry per question.
        imported: the import's figures; None when an owner imported by an earlier run was
            asked again (api/eval/run.py `owners`).
        unusable: questions of categories 1-4 left out for having no evidence id.
        rss_mb: resident memory of this process after the import (in-process server only).
        peak_rss_mb: its peak so far.
        search_modes: how many searches answered in each mode (`hybrid`, `fulltext`).
        notes: what was left out and why (a baseline that could not run).
    """

    name: str
    owner: str
    k: int
    asked: list[Asked]
    imported: Imported | None
    unusable: int = 0
    rss_mb: float | None = None
    peak_rss_mb: float | None = None
    search_modes: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def cutoffs(k: int) -> list[int]:
    """The cut-offs reported for `k` results: 5 and 10 when they fit, and k itself."""
    return sorted({c for c in (5, 10, k) if c <= k})


def found_share(
    asked: Sequence[Asked], system: str, k: int | None = None, category: int | None = None
) -> float | None:
    """The share of questions (of `category`, or all) for which `system` returned an item
    carrying an evidence id: in its first `k` items, or anywhere in the prefetch block
    (`system="prefetch"`). None when there is no such question or the system did not run.
    """
    subset = [a for a in asked if category is None or a.question.category == category]
    if not subset or (system != "prefetch" and system not in subset[0].ranked):
        return None
    found = 0
    for a in subset:
        items = a.prefetch if system == "prefetch" else a.ranked[system]
        found += first_hit(items, a.question.evidence, k or len(items)) is not None
    return found / len(subset)


def _row(label: str, asked: Sequence[Asked], system: str, k: int | None) -> str:
    """One table row: `found_share` overall and per category."""
    cells = [found_share(asked, system, k, cat) for cat in (None, *CATEGORIES)]
    return f"{label:<20}" + "".join(f"{'-' if c is None else f'{c:.2f}':>13}" for c in cells)


def table(asked: Sequence[Asked], k: int) -> list[str]:
    """The recall table: one row per system and cut-off, then prefetch."""
    head = f"{'':<20}" + "".join(f"{h:>13}" for h in ("all", *CATEGORIES.values()))
    sizes = [len(asked), *(sum(a.question.category == c for a in asked) for c in CATEGORIES)]
    lines = [head, f"{'questions':<20}" + "".join(f"{n:>13}" for n in sizes)]
    for system in SYSTEMS:
        if asked and system in asked[0].ranked:
            lines += [_row(f"{system} @{c}", asked, system, c) for c in cutoffs(k)]
    lines.append(_row("prefetch (block)", asked, "prefetch", None))
    return lines


def temporal_lines(asked: Sequence[Asked], k: int) -> list[str]:
    """For temporal questions: of those found, how many found items carry a date, and how
    many of those dates fall in the gold answer's period (when the answer names one)."""
    temporal = [a for a in asked if a.question.category == TEMPORAL]
    out = []
    systems = [s for s in SYSTEMS if temporal and s in temporal[0].ranked]
    for name in [*systems, "prefetch"]:
        hits = []
        for a in temporal:
            items = a.prefetch if name == "prefetch" else a.ranked[name][:k]
            item = first_hit(items, a.question.evidence, len(items))
            if item is not None:
                hits.append((item, answer_period(a.question.answer)))
        with_date = [(i, p) for i, p in hits if p is not None]
        out.append(
            f"  {name + (f' @{k}' if name != 'prefetch' else ''):<14} found {len(hits)}/"
            f"{len(temporal)}; of those, dated {sum(dated(i) for i, _ in hits)}, on the "
            f"answer's date {sum(on_answer_date(i, p) for i, p in with_date)}/{len(with_date)}"
        )
    return out


def report(result: FileResult) -> str:
    """The printed report of one file."""
    imp = result.imported
    memory = (
        f"; RSS {result.rss_mb:.0f} MiB (peak {result.peak_rss_mb:.0f} MiB)"
        if result.rss_mb is not None and result.peak_rss_mb is not None
        else ""
    )
    degraded = sum(a.prefetch_degraded for a in result.asked)
    if imp is None:
        head = [
            (
                f"== {result.name}: owner {result.owner} reused (imported by an earlier run), "
                f"{len(result.asked)} questions of categories 1-4 ({result.unusable} without "
                "evidence left out) =="
            ),
            f"import: not measured (reused){memory}",
        ]
    else:
        head = [
            (
                f"== {result.name}: {imp.turns} turns in {imp.runs} runs, {len(result.asked)} "
                f"questions of categories 1-4 ({result.unusable} without evidence left out) =="
            ),
            (
                f"import: {imp.seconds:.1f} s to done, {imp.turns_per_second:.1f} turns/s; "
                f"{imp.proposals} proposals, {imp.committed} committed, {imp.held} held, "
                f"{imp.failed} runs failed{memory}"
            ),
        ]
    lines = [
        *head,
        (
            f"search modes: {json.dumps(result.search_modes, sort_keys=True)}; "
            f"prefetch degraded: {degraded}"
        ),
        *table(result.asked, result.k),
        "temporal (category 2):",
        *temporal_lines(result.asked, result.k),
        *(f"note: {n}" for n in result.notes),
    ]
    return "\n".join(lines)


def pooled(results: Sequence[FileResult]) -> str:
    """The report of all files together: every question counts once."""
    asked = [a for r in results for a in r.asked]
    k = min(r.k for r in results)
    imported = [r.imported for r in results if r.imported is not None]
    turns = sum(i.turns for i in imported)
    seconds = sum(i.seconds for i in imported)
    peak = [r.peak_rss_mb for r in results if r.peak_rss_mb is not None]
    reused = len(results) - len(imported)
    rss = f"; peak RSS {max(peak):.0f} MiB" if peak else ""
    lines = [
        f"== all {len(results)} files: {turns} turns imported, {len(asked)} questions ==",
        f"import: {seconds:.1f} s to done, {turns / seconds if seconds else 0:.1f} turns/s{rss}"
        if not reused
        else f"import: {reused} of {len(results)} files reused, not measured{rss}",
        *table(asked, k),
        "temporal (category 2):",
        *temporal_lines(asked, k),
    ]
    return "\n".join(lines)


def details(result: FileResult) -> list[dict[str, Any]]:
    """One JSON-ready record per question: the question, its evidence, and the dialogue ids
    (with item kinds) each system returned, for reading the misses."""

    def shown(items: Sequence[Retrieved]) -> list[dict[str, Any]]:
        return [
            {"kind": i.kind, "dia_ids": sorted(i.dia_ids), "at": i.at and i.at.isoformat()}
            for i in items
        ]

    return [
        {
            "file": result.name,
            "question": a.question.text,
            "answer": a.question.answer,
            "category": a.question.category,
            "evidence": sorted(a.question.evidence),
            **{system: shown(items) for system, items in a.ranked.items()},
            "prefetch": shown(a.prefetch),
            "prefetch_degraded": a.prefetch_degraded,
        }
        for a in result.asked
    ]


def write_details(results: Sequence[FileResult], path: Path) -> None:
    """Write `details` of every result to `path`, one JSON object a line."""
    with path.open("w", encoding="utf-8") as out:
        for result in results:
            out.writelines(json.dumps(record) + "\n" for record in details(result))
